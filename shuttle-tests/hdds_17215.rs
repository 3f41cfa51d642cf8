//! HDDS-17215 under shuttle, and deterministic reproductions of the seed's three tests, of
//! symptom 2 and of the apply-versus-flush reorder.
// Reference: HDDS-17215, seeds/001_faf9eec80e528ec4.txt.

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::Tables;
use ozone_ha_check::kit::store::WriteBatch;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::s3_secret::node::{
    fresh_db, restart_and_replay, Om, Response, Shared, FLUSH_REVOKES_NEWER_SECRET,
    STALE_WRITE_REFUSED, TOMBSTONE_THEN_STORE_WRITE,
};
use ozone_ha_check::models::s3_secret::requests::{S3Request, Termination};
use ozone_ha_check::models::s3_secret::{
    initial_tables, Design, Row, Secret, TENANT_ACCESS_ID_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenario::Scenario;
use ozone_ha_check::scenarios::hdds_17215::{Hdds17215, Plan, SET_BY_ANOTHER_CALLER};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-17215";

#[test]
fn leader_side_holds_over_many_seeds_with_its_window_reached() {
    for seed in 0..5 {
        for plan in [
            "lagging-follower",
            "crash-replay",
            "apply-vs-flush",
            "store-failure",
        ] {
            let r = run(S, "leader-side", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["LateApply"] > 0, "seed {seed} {plan}");
        }
    }
}

#[test]
fn the_registered_scenario_is_this_one() {
    assert_eq!(Hdds17215::NAME, S);
}

fn entries(plan: Plan) -> Vec<(u64, S3Request)> {
    plan.log()
        .after(1)
        .map(|e| match &e.payload {
            ozone_ha_check::kit::raft_log::Payload::Data(r) => (e.index, *r),
            ozone_ha_check::kit::raft_log::Payload::Configuration => unreachable!(),
        })
        .collect()
}

fn held(shared: &Shared, id: &str) -> Option<Secret> {
    shared.store().rows().get(id).map(|s| s.secret)
}

fn has_access_id(t: &Tables<Row>) -> bool {
    t.get(TENANT_ACCESS_ID_TABLE, "u1").is_some()
}

/// `laggingFollowerAppliesTenantAssignAfterReassign`: the follower applies index 2 after
/// the leader applied and flushed 2..4, rejects the assign, and the revoke's NPE terminates
/// it; the restart replays index 3 and terminates again.
#[test]
fn lagging_follower_rejects_the_assign_then_terminates_on_every_restart() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::LaggingFollower.log();
        let shared = Arc::new(Plan::LaggingFollower.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let mut v1 = initial_tables();
        for (i, r) in entries(Plan::LaggingFollower) {
            assert!(om1.apply_and_flush(&a1, &mut v1, i, &r));
        }
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        let mut v2 = initial_tables();
        let log2 = entries(Plan::LaggingFollower);
        assert!(om2.apply_and_flush(&a2, &mut v2, log2[0].0, &log2[0].1));
        assert!(
            !has_access_id(&om2.db().durable()),
            "the assign was rejected"
        );
        assert_eq!(
            stored_index(&om2.db().durable()),
            2,
            "the rejection was flushed"
        );
        assert!(!om2.apply_and_flush(&a2, &mut v2, log2[1].0, &log2[1].1));
        assert!(om2.terminated());
        for restart in 1..=2 {
            let again = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
            assert!(again.terminated(), "restart {restart}");
            assert_eq!(stored_index(&again.db().durable()), 2);
        }
        let t = shared.terminations();
        assert_eq!(t.len(), 3);
        assert!(
            t.iter().all(|t| t.contains("omDBAccessIdInfo == null")),
            "{t:?}"
        );
        assert!(has_access_id(&om1.db().durable()));
    });
}

/// `replayedSetAppliesAgainstLaterStoreState`: one OM flushes the revoke, rejects the set,
/// the getsecret stores S4 and answers it; it crashes with 3 and 4 unflushed, and the replay
/// accepts the set against S4 and overwrites it.
#[test]
fn replaying_single_om_accepts_the_rejected_set_and_overwrites_the_issued_secret() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::PerOm));
        let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let mut view = initial_tables();
        let e = entries(Plan::CrashReplay);
        let revoke = om.apply(&me, &mut view, e[0].0, &e[0].1).unwrap();
        om.flush(&me, vec![revoke]).unwrap();
        let set = om.apply(&me, &mut view, e[1].0, &e[1].1).unwrap();
        assert_eq!(set.call, None, "the leader rejects the set");
        let _get = om.apply(&me, &mut view, e[2].0, &e[2].1).unwrap();
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
        // Crash: responses 3 and 4 were never flushed.
        let replayed = restart_and_replay("om1", &shared, om.db(), &log, &me);
        assert!(!replayed.terminated());
        assert_eq!(held(&shared, "u1"), Some(SET_BY_ANOTHER_CALLER));
    });
}

/// The same with `index-per-secret`: the replayed set at index 3 cannot replace S4@4.
#[test]
fn index_per_secret_refuses_the_replayed_overwrite() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::IndexPerSecret));
        let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let mut view = initial_tables();
        let e = entries(Plan::CrashReplay);
        let revoke = om.apply(&me, &mut view, e[0].0, &e[0].1).unwrap();
        om.flush(&me, vec![revoke]).unwrap();
        om.apply(&me, &mut view, e[1].0, &e[1].1).unwrap();
        om.apply(&me, &mut view, e[2].0, &e[2].1).unwrap();
        restart_and_replay("om1", &shared, om.db(), &log, &me);
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        assert!(rec.take().probes[STALE_WRITE_REFUSED.name] > 0);
    });
}

/// `restartedFollowerAppliesSetAgainstLaterStoreState`: the follower applied index 2 and
/// restarted; the leader applies 2..4; the follower's replay of 3 accepts the set against S4.
#[test]
fn restarted_follower_accepts_the_rejected_set_and_overwrites_the_issued_secret() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let e = entries(Plan::CrashReplay);
        let (mut v1, mut v2) = (initial_tables(), initial_tables());
        assert!(om2.apply_and_flush(&a2, &mut v2, e[0].0, &e[0].1));
        om2.stop(&a2, "om2 stops after index 2");
        for (i, r) in &e {
            assert!(om1.apply_and_flush(&a1, &mut v1, *i, r));
        }
        assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        let om2 = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
        assert!(!om2.terminated());
        assert_eq!(held(&shared, "u1"), Some(SET_BY_ANOTHER_CALLER));
    });
}

/// Symptom 2: om2's store read fails while it applies the assign; the INTERNAL_ERROR
/// response is flushed before the termination, so the restart resumes after index 2 and om2
/// has skipped the assign that om1 applied.
#[test]
fn store_failure_terminates_and_a_flushed_error_response_skips_the_entry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::StoreFailure.log();
        let shared = Arc::new(Plan::StoreFailure.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let e = entries(Plan::StoreFailure);
        let (mut v1, mut v2) = (initial_tables(), initial_tables());
        for (i, r) in &e {
            assert!(om1.apply_and_flush(&a1, &mut v1, *i, r));
        }
        let why = om2.apply(&a2, &mut v2, e[0].0, &e[0].1).unwrap_err();
        assert!(matches!(why, Termination::InternalError(_)), "{why:?}");
        let error = Response {
            index: e[0].0,
            rows: WriteBatch::new(),
            call: None,
            internal_error: true,
        };
        om2.flush(&a2, vec![error]).unwrap();
        om2.terminate(&a2, &why);
        assert_eq!(shared.store().failures(), 1);
        let om2 = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
        assert!(!om2.terminated());
        assert_eq!(stored_index(&om2.db().durable()), 3);
        assert!(has_access_id(&om1.db().durable()));
        assert!(!has_access_id(&om2.db().durable()), "om2 skipped index 2");
        assert_eq!(shared.terminations().len(), 1);
    });
}

/// The reorder grounding §4 inferred: revoke(3) writes a tombstone over the cached S2,
/// getsecret(4) hits it and stores S4 at once, then the flush of 3 revokes S4.
#[test]
fn flush_of_a_revoke_deletes_the_secret_a_later_getsecret_stored() {
    for (design, left) in [
        (Design::PerOm, None),
        (Design::IndexPerSecret, Some(Secret("S4"))),
    ] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let me = Actor::new("om1", &rec);
            let shared = Arc::new(Plan::ApplyVsFlush.shared(design));
            let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
            let mut view = initial_tables();
            let responses: Vec<Response> = entries(Plan::ApplyVsFlush)
                .iter()
                .map(|(i, r)| om.apply(&me, &mut view, *i, r).unwrap())
                .collect();
            assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
            om.flush(&me, responses).unwrap();
            assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
            assert_eq!(held(&shared, "u1"), left, "{design:?}");
            let probes = rec.take().probes;
            assert_eq!(probes[TOMBSTONE_THEN_STORE_WRITE.name], 1);
            assert_eq!(probes[FLUSH_REVOKES_NEWER_SECRET.name], 1);
        });
    }
}

/// The explored plans reach the paths the deterministic tests stage: on `store-failure` an
/// error response flushed before the termination, on `apply-vs-flush` the tombstone reorder.
#[test]
fn explored_plans_reach_the_staged_paths() {
    use ozone_ha_check::explore::{explore, Request};
    use ozone_ha_check::scenarios::find;
    for (plan, probe) in [
        ("store-failure", "ErrorResponseFlushedBeforeTermination"),
        ("apply-vs-flush", TOMBSTONE_THEN_STORE_WRITE.name),
        ("apply-vs-flush", FLUSH_REVOKES_NEWER_SECRET.name),
    ] {
        let r = explore(
            find(S).unwrap(),
            &Request::new("buggy", plan, pct(0, 2_000)).stop_at_first(false),
        )
        .unwrap();
        assert!(r.probes[probe] > 0, "{plan}: {probe} never fired");
    }
}
