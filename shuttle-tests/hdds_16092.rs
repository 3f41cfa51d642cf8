//! HDDS-16092 under shuttle.
// Reference: HDDS-16092, seeds/002_376d2b1cb9c9e262.txt, apache/ozone PR #10953.

use crate::support::{pct, replay, run};
use ozone_ha_check::engine::{run_once, Strategy};
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::Payload;
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::{put_tx_info, stored_index};
use ozone_ha_check::models::om::node::OmNode;
use ozone_ha_check::models::om::persist::IndexWrite;
use ozone_ha_check::models::om::startup::restart_and_replay;
use ozone_ha_check::models::om::{initial_tables, OmRow, BUCKET, BUCKET_TABLE};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_16092::{reference_states, sized_log};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-16092";

#[test]
fn fixed_holds_over_many_seeds_with_its_window_reached() {
    for seed in 0..5 {
        for plan in ["steady", "restart"] {
            let r = run(S, "fixed", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["SnapshotInFlushWindow"] > 0);
            assert!(r.probes["StaleCandidateRefused"] > 0);
        }
    }
}

#[test]
fn pct_finds_the_buggy_violation_quickly() {
    let r = run(S, "buggy", "steady", pct(0, 50), None);
    assert_eq!(r.verdict, Verdict::Violated);
    assert!(r.first_violation.unwrap() <= 50);
}

const DRIFT_FIXTURE: &str =
    include_str!("fixtures/hdds-16092__buggy__restart__ReplicasAgree__pct.json");

fn drift_schedule() -> String {
    ozone_ha_check::counterexample::Counterexample::parse(DRIFT_FIXTURE)
        .unwrap()
        .schedule
        .unwrap()
}

#[test]
fn committed_drift_counterexample_replays() {
    let r = replay(
        S,
        "buggy",
        "restart",
        &drift_schedule(),
        Some("ReplicasAgree"),
    );
    assert_eq!(r.verdict, Verdict::Violated);
    assert_eq!(r.invariant.as_deref(), Some("ReplicasAgree"));
    let detail = r.detail.unwrap();
    assert!(
        detail.contains("usedBytes 20") && detail.contains("usedBytes 10"),
        "{detail}"
    );
}

#[test]
fn replaying_twice_gives_identical_traces() {
    let a = replay(S, "buggy", "restart", &drift_schedule(), None);
    let b = replay(S, "buggy", "restart", &drift_schedule(), None);
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.invariant.as_deref(), Some("TxIndexMonotone"));
}

#[test]
fn a_schedule_from_another_model_is_refused_clearly() {
    let s = find_error("v1:0x3,9,9,9");
    assert!(s.contains("does not fit the model"), "{s}");
}

fn find_error(schedule: &str) -> String {
    let scenario = ozone_ha_check::scenarios::find(S).unwrap();
    let err = ozone_ha_check::explore::explore(
        scenario,
        &ozone_ha_check::explore::Request::new(
            "buggy",
            "steady",
            Strategy::Replay {
                schedule: schedule.parse().unwrap(),
            },
        ),
    )
    .unwrap_err();
    err.to_string()
}

/// A node whose DB holds `stored` and whose applied index is `applied`, as the PR's staged
/// test sets it up.
fn staged(
    write: IndexWrite,
    stored: u64,
    applied: u64,
) -> (Arc<Recorder>, Arc<Store<OmRow>>, OmNode) {
    let rec = Arc::new(Recorder::new(None));
    let mut tables = initial_tables();
    put_tx_info(&mut tables, 1, stored);
    let store = Arc::new(Store::with_state(tables, None));
    let node = OmNode::new(Arc::clone(&store), write, applied, 1);
    (rec, store, node)
}

#[test]
fn staged_values_of_the_pr_buggy_lowers_105_to_100() {
    run_once(|| {
        let (rec, store, node) = staged(IndexWrite::Unguarded, 105, 100);
        let me = Actor::new("ratis", &rec);
        let taken = node.take_snapshot(&me, "snapshot");
        assert_eq!((taken.chosen, taken.reported), (100, 100));
        assert_eq!(stored_index(&store.durable()), 100);
    });
}

#[test]
fn staged_values_of_the_pr_fixed_keeps_105_and_reports_it() {
    run_once(|| {
        let (rec, store, node) = staged(IndexWrite::PersistIfNewer, 105, 100);
        let me = Actor::new("ratis", &rec);
        assert_eq!(node.take_snapshot(&me, "snapshot").reported, 105);
        assert_eq!(stored_index(&store.durable()), 105);
        // From stored 50 the candidate 100 is written.
        let (rec, store, node) = staged(IndexWrite::PersistIfNewer, 50, 100);
        let me = Actor::new("ratis", &rec);
        assert_eq!(node.take_snapshot(&me, "snapshot").reported, 100);
        assert_eq!(stored_index(&store.durable()), 100);
    });
}

#[test]
fn shutdown_chain_persisted_m_restart_replay_drift() {
    run_once(|| {
        // The stop snapshot left TX = 1 over the data of 2 and 3 (the seed's M < N).
        let log = sized_log(1);
        let reference = reference_states(&log);
        let mut lowered: Tables<OmRow> = reference[3].clone();
        put_tx_info(&mut lowered, 1, 1);
        let store = Store::with_state(lowered, None);
        let rec = Arc::new(Recorder::new(None));
        restart_and_replay(&store, &log, &Actor::new("restart", &rec));
        let after = store.durable();
        assert_eq!(stored_index(&after), 3);
        let used = |t: &Tables<OmRow>| match t.get(BUCKET_TABLE, BUCKET) {
            Some(OmRow::Bucket { used_bytes, .. }) => *used_bytes,
            _ => panic!("no bucket"),
        };
        assert_eq!(used(&reference[3]), 10, "the peer counts the key once");
        assert_eq!(used(&after), 20, "the restarted OM counts it twice");
        assert!(matches!(
            log.entry(1).unwrap().payload,
            Payload::Configuration
        ));
    });
}

#[test]
fn a_regression_to_2_replays_a_commit_that_finds_no_open_key() {
    run_once(|| {
        let log = sized_log(1);
        let reference = reference_states(&log);
        let mut lowered = reference[3].clone();
        put_tx_info(&mut lowered, 1, 2);
        let store = Store::with_state(lowered, None);
        let rec = Arc::new(Recorder::new(None));
        restart_and_replay(&store, &log, &Actor::new("restart", &rec));
        assert_eq!(store.durable(), reference[3]);
    });
}
