//! HDDS-11152 under shuttle: the fix holds with the follower's lag reached, no one change of
//! the fix is enough, and each of the parent's apply-time actions breaks the fix on its own.
// Reference: HDDS-11152, fix 23f3e5b2e11 (PR #7112).

use crate::support::{apply_then_flush, pct, run};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::Snapshots;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_11152::{purge_log, snapshot_state, Variant, SNAPSHOT};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-11152";

fn fixed_holds_over_many_seeds_with_the_lag_reached() {
    for seed in 0..5 {
        for plan in ["cold", "warm"] {
            let r = run(S, "fixed", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["PurgeAppliedBeforeKeysFlushed"] > 0, "{plan}");
        }
    }
}

/// The follower's lag staged: both entries applied, then the flush. Returns why the OM
/// terminated, if it did.
fn lagging_follower(variant: Variant, warm: bool) -> Option<String> {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let (active, dirs) = snapshot_state();
        let store = Arc::new(Store::with_state(active, None));
        let open: &[&str] = if warm { &[SNAPSHOT] } else { &[] };
        let snaps = Snapshots::new(
            Arc::clone(&dirs),
            [SNAPSHOT.to_string()],
            open,
            variant.java(),
            variant.cites(),
        );
        let om = SnapshotOm::new(Arc::clone(&store), snaps, false);
        let log = purge_log();
        apply_then_flush(&om, &me, &log, 0);
        om.exits().first().cloned()
    })
}

/// Each variant that adds one change of the fix (23f3e5b2e11) to its parent (5659b7e90e7)
/// still terminates the lagging follower: the lookup by name meets the tombstone, or, with
/// the lookup by id alone, the loader finds no id.
fn no_one_change_of_the_fix_is_enough() {
    for warm in [false, true] {
        let by_id = lagging_follower(Variant::ParentById, warm).unwrap();
        assert!(by_id.contains("No snapshot exist"), "{by_id}");
        for variant in [
            Variant::Buggy,
            Variant::ParentFallback,
            Variant::ParentInvalidateAtFlush,
            Variant::ParentIdAtFlush,
            Variant::ParentPurgeKeysRequired,
        ] {
            let why = lagging_follower(variant, warm).unwrap();
            assert!(why.contains("KEY_NOT_FOUND"), "{variant}: {why}");
        }
    }
}

/// Each variant that takes one change back from the fix isolates one apply-time action of
/// the parent: the tombstone (met by the lookup by name, or by the loader without its
/// fallback), the id map's removal (met by a load), the invalidation (a DB closed under a
/// flush that loaded it before the purge's apply: not the lag, found by exploration).
fn each_apply_time_action_of_the_parent_breaks_the_fix_on_its_own() {
    for warm in [false, true] {
        let tombstone = lagging_follower(Variant::FixByName, warm).unwrap();
        assert!(tombstone.contains("KEY_NOT_FOUND"), "{tombstone}");
    }
    let no_id = lagging_follower(Variant::FixIdAtApply, false).unwrap();
    assert!(no_id.contains("No snapshot exist"), "{no_id}");
    assert_eq!(lagging_follower(Variant::FixIdAtApply, true), None);
    let loader = lagging_follower(Variant::ByIdMoved, false).unwrap();
    assert!(loader.contains("is not found"), "{loader}");
    assert_eq!(lagging_follower(Variant::ByIdMoved, true), None);
    // In the lag the invalidation precedes the load, which reopens the DB through the
    // fallback: harmless. The closed DB needs the load first.
    for warm in [false, true] {
        assert_eq!(lagging_follower(Variant::FixInvalidateAtApply, warm), None);
        let plan = if warm { "warm" } else { "cold" };
        let r = run(S, "fix-invalidate-at-apply", plan, pct(0, 2_000), None);
        assert_eq!(r.verdict, Verdict::Violated, "{plan}");
        let detail = r.detail.as_deref().unwrap_or("");
        assert!(detail.contains("RocksDB is closed"), "{plan}: {detail}");
    }
    // Both bookkeeping steps at apply: the loader finds no id, also when the DB was open
    // (the apply closed it).
    for warm in [false, true] {
        let no_id = lagging_follower(Variant::ByIdFallback, warm).unwrap();
        assert!(no_id.contains("No snapshot exist"), "{no_id}");
    }
    assert_eq!(lagging_follower(Variant::Fixed, false), None);
    assert_eq!(lagging_follower(Variant::Fixed, true), None);
}

/// The generated plan's space, and how a workload becomes a log, its clean stops and the
/// snapshots it purges.
fn generated_workloads_map_to_a_log_and_stops() {
    use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
    use ozone_ha_check::scenarios::hdds_11152::{Shape, VOCABULARY};
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 156);
    // A restart first, or s2 before s1 (two names, symmetric), is not drawn.
    for refused in ["restart purge-keys(s1)", "snapshot-purge(s2)"] {
        let w = VOCABULARY.parse(refused).unwrap();
        assert_eq!(VOCABULARY.encode(&w, VOCABULARY.bounds), None, "{refused}");
    }
    let w = VOCABULARY
        .parse("purge-keys(s1) restart snapshot-purge(s2) snapshot-purge(s1)")
        .unwrap();
    assert!(VOCABULARY.encode(&w, VOCABULARY.bounds).is_some());
    let shape = Shape::of(&w);
    assert_eq!(shape.stops, vec![2]);
    assert_eq!(shape.purged, vec!["s2".to_string(), "s1".to_string()]);
    let entries: Vec<(u64, SnapshotRequest)> = shape
        .log
        .after(0)
        .filter_map(|e| match &e.payload {
            ozone_ha_check::kit::raft_log::Payload::Data(r) => Some((e.index, r.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        entries,
        vec![
            (
                2,
                SnapshotRequest::PurgeKeys {
                    snapshot: "s1".into(),
                    keys: vec!["d1".into()]
                }
            ),
            (
                3,
                SnapshotRequest::SnapshotPurge {
                    snapshot: "s2".into()
                }
            ),
            (
                4,
                SnapshotRequest::SnapshotPurge {
                    snapshot: "s1".into()
                }
            ),
        ]
    );
    assert_eq!(shape.through(2).last_index(), 2);
    // The written plan is a workload of the space.
    let written = Shape::of(
        &VOCABULARY
            .parse("purge-keys(s1) snapshot-purge(s1)")
            .unwrap(),
    );
    assert_eq!(written.log.last_index(), purge_log().last_index());
}

/// The follower's lag staged over the generated plan's start (s1 and s2, both cold) for the
/// log `requests`: all applied, then the flush. Why the OM terminated, if it did.
fn lagging_over_two(variant: Variant, requests: Vec<SnapshotRequestOf>) -> Option<String> {
    use ozone_ha_check::kit::raft_log::RaftLog;
    use ozone_ha_check::scenarios::hdds_11152::generated_state;
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let (active, dirs) = generated_state();
        let store = Arc::new(Store::with_state(active, None));
        let ids = ["s1".to_string(), "s2".to_string()];
        let snaps = Snapshots::new(Arc::clone(&dirs), ids, &[], variant.java(), variant.cites());
        let om = SnapshotOm::new(Arc::clone(&store), snaps, false);
        let mut log = RaftLog::new();
        log.start_term(1);
        for request in &requests {
            log.append(request.clone());
        }
        apply_then_flush(&om, &me, &log, 0);
        om.exits().first().cloned()
    })
}

type SnapshotRequestOf = ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;

/// A purge of s1 applied ahead of the flush of a purge of keys from s2 leaves s2's lookups
/// alone at the parent as at the fix: the purge's apply
/// ([`OMSnapshotPurgeRequest.validateAndUpdateCache`](ozone_ha_check::citation::java::hdds_11152_parent::OMSnapshotPurgeRequest::validateAndUpdateCache))
/// tombstones, unmaps and closes s1 only, and the response
/// ([`OMKeyPurgeResponse.addToDBBatch`](ozone_ha_check::citation::java::hdds_11152_parent::OMKeyPurgeResponse::addToDBBatch))
/// looks up s2. A later purge of keys from a purged snapshot is no flush failure either: the
/// parent's apply reads no row and purges the active DB, the fix's
/// ([`OMKeyPurgeRequest.validateAndUpdateCache`](ozone_ha_check::citation::java::hdds_11152::OMKeyPurgeRequest::validateAndUpdateCache))
/// answers with an error response.
fn staged_a_lagging_purge_breaks_only_its_own_snapshot() {
    let keys = |s: &str| SnapshotRequestOf::PurgeKeys {
        snapshot: s.into(),
        keys: vec!["d1".into()],
    };
    let purge = |s: &str| SnapshotRequestOf::SnapshotPurge { snapshot: s.into() };
    for variant in [Variant::Buggy, Variant::Fixed] {
        assert_eq!(
            lagging_over_two(variant, vec![keys("s2"), purge("s1")]),
            None,
            "{variant}"
        );
        assert_eq!(
            lagging_over_two(variant, vec![purge("s1"), keys("s1")]),
            None,
            "{variant}"
        );
        assert_eq!(
            lagging_over_two(variant, vec![keys("s1"), purge("s2"), keys("s2")]),
            None,
            "{variant}"
        );
    }
    let why = lagging_over_two(Variant::Buggy, vec![keys("s2"), purge("s1"), purge("s2")]).unwrap();
    assert!(why.contains("KEY_NOT_FOUND: Snapshot 's2'"), "{why}");
    assert_eq!(
        lagging_over_two(Variant::Fixed, vec![keys("s2"), purge("s1"), purge("s2")]),
        None
    );
}

/// The fix holds over the generated space with the lag reached.
fn fixed_holds_on_generated_with_the_lag_reached() {
    for seed in 0..3 {
        let r = run(S, "fixed", "generated", pct(seed, 2_000), None);
        assert_eq!(r.verdict, Verdict::Held, "seed {seed}");
        assert!(r.probes["PurgeAppliedBeforeKeysFlushed"] > 0, "seed {seed}");
        let r = run(S, "buggy", "generated", pct(seed, 2_000), None);
        assert_eq!(r.verdict, Verdict::Violated, "seed {seed}");
    }
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_the_lag_reached,
        no_one_change_of_the_fix_is_enough,
        each_apply_time_action_of_the_parent_breaks_the_fix_on_its_own,
        generated_workloads_map_to_a_log_and_stops,
        staged_a_lagging_purge_breaks_only_its_own_snapshot,
        fixed_holds_on_generated_with_the_lag_reached
    ]
}
