//! HDDS-11152 under shuttle: the fix holds with the follower's lag reached, and each of the
//! parent's apply-time actions breaks the later flush on its own.
// Reference: HDDS-11152, fix 23f3e5b2e11 (PR #7112).

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
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
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = std::sync::Arc::clone(&out);
    run_once(move || {
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
        for entry in log.after(0) {
            if let ozone_ha_check::kit::raft_log::Payload::Data(request) = &entry.payload {
                assert!(om.apply(&me, entry.index, entry.term, request));
            }
        }
        om.flush_thread(&me, log.last_index());
        *seen.lock().unwrap() = om.exits().first().cloned();
    });
    let why = out.lock().unwrap().clone();
    why
}

fn each_apply_time_action_of_the_parent_breaks_the_flush_on_its_own() {
    // The tombstone, seen by the lookup by name.
    let buggy = lagging_follower(Variant::Buggy, false).unwrap();
    assert!(buggy.contains("KEY_NOT_FOUND"), "{buggy}");
    // The id map, seen by the loader (also when the DB was open: the apply closed it).
    for warm in [false, true] {
        let no_id = lagging_follower(Variant::ByIdFallback, warm).unwrap();
        assert!(no_id.contains("No snapshot exist"), "{no_id}");
    }
    // The tombstone again, seen by a loader without the skip-cache fallback.
    let tombstone = lagging_follower(Variant::ByIdMoved, false).unwrap();
    assert!(tombstone.contains("is not found"), "{tombstone}");
    // With the DB already open and the bookkeeping at flush, nothing is looked up.
    assert_eq!(lagging_follower(Variant::ByIdMoved, true), None);
    assert_eq!(lagging_follower(Variant::Fixed, false), None);
    assert_eq!(lagging_follower(Variant::Fixed, true), None);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_the_lag_reached,
        each_apply_time_action_of_the_parent_breaks_the_flush_on_its_own
    ]
}
