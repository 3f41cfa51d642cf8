//! HDDS-11453 under shuttle: the fix holds with both entries swapped together, and the
//! parent's crash inside the shared batch leaves an OM that terminates on every restart.
// Reference: HDDS-11453, fix 5feb9eacd83 (PR #7188).

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::Payload;
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::Snapshots;
use ozone_ha_check::models::om::startup::Replayed;
use ozone_ha_check::models::om::SNAPSHOT_INFO_TABLE;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_11152::{purge_log, snapshot_state, SNAPSHOT};
use ozone_ha_check::scenarios::hdds_11453::Variant;
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-11453";

fn fixed_holds_over_many_seeds_with_both_entries_swapped_together() {
    for seed in 0..5 {
        for plan in ["crash", "no-crash"] {
            let r = run(S, "fixed", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["PurgeSwappedWithItsKeys"] > 0, "{plan}");
        }
    }
}

/// Both entries applied before the swap, the crash after the directory deletion, then two
/// restarts. Returns the stored index after the crash, each replay's end, and whether the
/// row survived.
fn crash_in_the_shared_swap(variant: Variant) -> (u64, Vec<Replayed>, bool) {
    let out = std::sync::Arc::new(std::sync::Mutex::new((0, Vec::new(), false)));
    let seen = std::sync::Arc::clone(&out);
    run_once(move || {
        let mut out = seen.lock().unwrap();
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let (active, dirs) = snapshot_state();
        let store = Arc::new(Store::with_state(active, None));
        let (java, cites) = (variant.java(), variant.cites());
        let snaps = Snapshots::new(Arc::clone(&dirs), [SNAPSHOT.to_string()], &[], java, cites);
        let om = SnapshotOm::new(Arc::clone(&store), snaps, true);
        let log = purge_log();
        for entry in log.after(0) {
            if let Payload::Data(request) = &entry.payload {
                assert!(om.apply(&me, entry.index, entry.term, request));
            }
        }
        om.flush_thread(&me, log.last_index());
        assert!(om.crashed());
        assert!(!dirs.exists(SNAPSHOT));
        out.0 = stored_index(&store.durable());
        for _ in 0..2 {
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            out.1.push(Arc::new(om).replay(&log, stored, &me));
        }
        out.2 = store.durable().get(SNAPSHOT_INFO_TABLE, SNAPSHOT).is_some();
    });
    let result = out.lock().unwrap().clone();
    result
}

fn the_parents_crash_replays_the_purge_of_keys_on_every_restart() {
    let (stored, replays, row) = crash_in_the_shared_swap(Variant::Buggy);
    assert_eq!(stored, 0, "nothing of the shared batch committed");
    assert_eq!(replays.len(), 2);
    for r in &replays {
        assert!(
            matches!(r, Replayed::Terminated { index: 2, why } if why.contains("does not exist")),
            "{r:?}"
        );
    }
    assert!(row, "the row stays");
}

fn the_fix_commits_the_purge_of_keys_before_the_directory_goes() {
    let (stored, replays, row) = crash_in_the_shared_swap(Variant::Fixed);
    assert_eq!(stored, 2, "the purge of keys committed in its own batch");
    assert_eq!(replays, vec![Replayed::Completed, Replayed::Completed]);
    assert!(!row);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_both_entries_swapped_together,
        the_parents_crash_replays_the_purge_of_keys_on_every_restart,
        the_fix_commits_the_purge_of_keys_before_the_directory_goes
    ]
}
