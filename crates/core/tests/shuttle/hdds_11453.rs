//! HDDS-11453 under shuttle: the fix holds with both entries swapped together, and after the
//! parent's crash inside the shared batch a restart terminates or recovers depending on
//! whether its flush of the purge of keys precedes its apply of the snapshot's purge.
// Reference: HDDS-11453, fix 5feb9eacd83 (PR #7188).

use crate::support::{apply_then_flush, pct, run};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::{Payload, RaftLog};
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::requests::{Crash, SnapshotRequest};
use ozone_ha_check::models::om::snapshot::Snapshots;
use ozone_ha_check::models::om::startup::{data_after, Replayed};
use ozone_ha_check::models::om::SNAPSHOT_INFO_TABLE;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_11152::{purge_log, snapshot_state, SNAPSHOT};
use ozone_ha_check::scenarios::hdds_11453::{two_snapshots, Shape, Variant, VOCABULARY};
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

/// In which order a restart's replay runs the flush of the purge of keys (2) and the apply of
/// the snapshot's purge (3): the Java's apply and flush threads race there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Apply 2, flush it, then apply 3.
    FlushFirst,
    /// Apply 2 and 3, then flush.
    ApplyFirst,
}

/// What the staged run saw: the stored index after the crash, each restart's end, whether
/// the row survived, and the snapshots each restart opened after their directory was deleted.
type Seen = (u64, Vec<Replayed>, bool, Vec<Vec<String>>);

/// Both entries applied before the swap, the crash after the directory deletion, then one
/// restart per entry of `orders`, each driven through fixed steps in that order.
fn crash_in_the_shared_swap(variant: Variant, orders: &'static [Order]) -> Seen {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let (active, dirs) = snapshot_state();
        let store = Arc::new(Store::with_state(active, None));
        let (java, cites) = (variant.java(), variant.cites());
        let snaps = Snapshots::new(Arc::clone(&dirs), [SNAPSHOT.to_string()], &[], java, cites);
        let om = SnapshotOm::new(Arc::clone(&store), snaps, true);
        let log = purge_log();
        apply_then_flush(&om, &me, &log, 0);
        assert!(om.crashed());
        assert!(!dirs.exists(SNAPSHOT));
        let crashed_at = stored_index(&store.durable());
        let mut replays = Vec::new();
        let mut opened = Vec::new();
        for order in orders {
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            replays.push(replay_in(*order, &om, &me, &log, stored));
            opened.push(om.snapshots().opened_purged());
        }
        let row = store.durable().get(SNAPSHOT_INFO_TABLE, SNAPSHOT).is_some();
        (crashed_at, replays, row, opened)
    })
}

/// A restarted `om` replays the data entries of `log` after `stored` in `order`. How the
/// replay ended: terminated at the first replayed entry if the OM exited.
fn replay_in(
    order: Order,
    om: &SnapshotOm,
    me: &Actor,
    log: &RaftLog<SnapshotRequest>,
    stored: u64,
) -> Replayed {
    let entries: Vec<_> = data_after(log, stored).collect();
    match order {
        Order::FlushFirst => {
            for (entry, request) in &entries {
                if om.apply(me, entry.index, entry.term, request) {
                    om.flush_thread(me, entry.index);
                }
            }
        }
        Order::ApplyFirst => {
            for (entry, request) in &entries {
                assert!(om.apply(me, entry.index, entry.term, request));
            }
            if !entries.is_empty() {
                om.flush_thread(me, log.last_index());
            }
        }
    }
    match om.exits().last() {
        None => Replayed::Completed,
        Some(why) => Replayed::Terminated {
            index: entries[0].0.index,
            why: why.clone(),
        },
    }
}

/// The parent's crash inside the shared batch, then a restart whose flush of the purge of keys
/// runs before its apply of the snapshot's purge: the row is in the table cache, so the
/// loader ([`createCacheLoader`]) builds the snapshot's metadata manager expecting the
/// directory, which is gone, and `addToBatch` terminates the OM; nothing is committed, so the
/// next restart in the same order does the same.
// Reference: OmSnapshotManager.java:357-375 at 703c4d50f89 (isSnapshotInCache).
///
/// [`createCacheLoader`]: ozone_ha_check::citation::java::hdds_11453_parent::OmSnapshotManager::createCacheLoader
fn a_restart_whose_flush_precedes_the_purges_apply_terminates() {
    let _ =
        &ozone_ha_check::citation::java::hdds_11453_parent::OmSnapshotManager::createCacheLoader;
    let (stored, replays, row, opened) =
        crash_in_the_shared_swap(Variant::Buggy, &[Order::FlushFirst, Order::FlushFirst]);
    assert_eq!(stored, 0, "nothing of the shared batch committed");
    assert_eq!(replays.len(), 2);
    for r in &replays {
        assert!(
            matches!(r, Replayed::Terminated { index: 2, why } if why.contains("does not exist")),
            "{r:?}"
        );
    }
    assert!(row, "the row stays");
    assert!(opened.iter().all(|o| o == &[SNAPSHOT.to_string()]));
}

/// The same crash, then a restart whose apply of the snapshot's purge precedes the flush of
/// the purge of keys: the purge's apply left a delete marker for the row in the table cache,
/// so the loader reads the row from RocksDB, finds it not cached and opens the snapshot's DB
/// with `createIfMissing` (an empty DB where the directory was); the batch commits and the OM
/// starts, having opened the purged snapshot. After a terminating restart, a recovering one.
// Reference: OmSnapshotManager.java:357-375 and getSnapshotInfo :736-746 at 703c4d50f89.
fn a_restart_whose_purge_is_applied_first_recovers_over_an_empty_db() {
    let _ = &ozone_ha_check::citation::java::hdds_11453_parent::OmSnapshotManager::getSnapshotInfo;
    let (stored, replays, row, opened) =
        crash_in_the_shared_swap(Variant::Buggy, &[Order::FlushFirst, Order::ApplyFirst]);
    assert_eq!(stored, 0);
    assert!(matches!(&replays[0], Replayed::Terminated { index: 2, .. }));
    assert_eq!(replays[1], Replayed::Completed);
    assert!(!row, "the second restart purged the row");
    assert_eq!(
        opened[1],
        vec![SNAPSHOT.to_string()],
        "it opened the purged s1"
    );
}

fn the_fix_commits_the_purge_of_keys_before_the_directory_goes() {
    for order in [Order::FlushFirst, Order::ApplyFirst] {
        let orders: &'static [Order] = match order {
            Order::FlushFirst => &[Order::FlushFirst, Order::FlushFirst],
            Order::ApplyFirst => &[Order::ApplyFirst, Order::ApplyFirst],
        };
        let (stored, replays, row, opened) = crash_in_the_shared_swap(Variant::Fixed, orders);
        assert_eq!(stored, 2, "the purge of keys committed in its own batch");
        assert_eq!(replays, vec![Replayed::Completed, Replayed::Completed]);
        assert!(!row);
        assert!(opened.iter().all(Vec::is_empty), "{order:?}");
    }
}

/// The scenario reaches both branches of the restart's race: a terminating restart and a
/// recovering one.
fn the_buggy_crash_reaches_both_outcomes_of_the_replay_race() {
    let r = run(S, "buggy", "crash", pct(0, 2_000), Some("SnapshotPurged"));
    assert_eq!(r.verdict, Verdict::Violated);
    assert!(r.probes["ReplayTerminated"] > 0);
    assert!(r.probes["ReplayRecovered"] > 0);
}

/// What a staged generated workload saw: the stored index after the kill, each restart's
/// end, the snapshots opened after their directory was deleted (every incarnation), and the
/// purged snapshots' rows left in the DB.
type StagedSeen = (u64, Vec<Replayed>, Vec<String>, Vec<String>);

/// `workload` (requests, then one kill of the purge at `kill`) on s1 and s2: every request
/// applied before the flush thread's one swap, the kill after that purge's directory
/// deletion, then one restart per entry of `orders`, each driven through fixed steps.
fn staged_generated(
    variant: Variant,
    workload: &'static str,
    kill: u64,
    orders: &'static [Order],
) -> StagedSeen {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let (active, dirs) = two_snapshots();
        let store = Arc::new(Store::with_state(active, None));
        let (java, cites) = (variant.java(), variant.cites());
        let ids = ["s1".to_string(), "s2".to_string()];
        let snaps = Snapshots::new(Arc::clone(&dirs), ids, &[], java, cites);
        let shape = Shape::of(&VOCABULARY.parse(workload).unwrap());
        let om = SnapshotOm::with_crash(Arc::clone(&store), snaps, Crash::Never);
        om.arm(Crash::AfterDirDelete, kill);
        let log = &shape.log;
        apply_then_flush(&om, &me, log, 0);
        assert!(om.crashed(), "{workload}: the kill fired");
        let killed_at = stored_index(&store.durable());
        let mut replays = Vec::new();
        let mut opened = om.snapshots().opened_purged();
        for order in orders {
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            replays.push(replay_in(*order, &om, &me, log, stored));
            opened.extend(om.snapshots().opened_purged());
        }
        let durable = store.durable();
        let left = shape
            .purged
            .iter()
            .filter(|s| durable.get(SNAPSHOT_INFO_TABLE, s).is_some())
            .cloned()
            .collect();
        (killed_at, replays, opened, left)
    })
}

/// The parent flushes a purge of keys from s2 in s1's purge's batch: the kill after s1's
/// directory deletion leaves both uncommitted, and the replay's flush opens s2, whose
/// directory is there, in either order; s1's replayed purge finds its row and deletes the
/// missing directory, which does nothing. Only a purge of keys from the purged snapshot
/// itself, in its purge's batch, is the bug.
// Reference: OMKeyPurgeResponse.java:82 (getSnapshot by the purged-from snapshot's id) and
// OMSnapshotPurgeResponse.java:84-102, :131 (getSkipCache, FileUtils.deleteDirectory) at
// 703c4d50f89.
fn staged_the_parent_replays_a_purge_of_another_snapshots_keys() {
    let _ = &ozone_ha_check::citation::java::hdds_11453_parent::OMKeyPurgeResponse::addToDBBatch;
    for order in [Order::FlushFirst, Order::ApplyFirst] {
        let orders: &'static [Order] = match order {
            Order::FlushFirst => &[Order::FlushFirst],
            Order::ApplyFirst => &[Order::ApplyFirst],
        };
        let (stored, replays, opened, left) = staged_generated(
            Variant::Buggy,
            "purge-keys(d1,s2) snapshot-purge(s1) kill-after-dir-delete",
            3,
            orders,
        );
        assert_eq!(stored, 0, "one batch, nothing committed");
        assert_eq!(replays, vec![Replayed::Completed], "{order:?}");
        assert!(opened.is_empty(), "{order:?}: {opened:?}");
        assert!(left.is_empty());
    }
}

/// Two snapshot purges in one batch of the parent: a kill after the first one's directory
/// deletion replays both, and each finds its row and deletes its directory (the first's is
/// already gone): no snapshot is opened, both are purged.
// Reference: OMSnapshotPurgeResponse.java:84-102 at 703c4d50f89; the split at
// OzoneManagerDoubleBuffer.java:448-450 (703c4d50f89) cuts only at creates.
fn staged_the_parent_replays_two_snapshot_purges_of_one_batch() {
    let _ =
        &ozone_ha_check::citation::java::hdds_11453_parent::OMSnapshotPurgeResponse::addToDBBatch;
    let (stored, replays, opened, left) = staged_generated(
        Variant::Buggy,
        "snapshot-purge(s1) snapshot-purge(s2) kill-after-dir-delete",
        3,
        &[Order::FlushFirst],
    );
    assert_eq!(stored, 0);
    assert_eq!(replays, vec![Replayed::Completed]);
    assert!(opened.is_empty());
    assert!(left.is_empty());
}

/// A purge of keys from a snapshot after its purge: its apply finds the row's delete marker in
/// the table cache and answers with an error, which writes nothing, before and after the kill.
// Reference: OMKeyPurgeRequest.java:82-84 at 703c4d50f89 (SnapshotUtils.getSnapshotInfo
// throws, createErrorOMResponse).
fn staged_a_purge_of_keys_after_the_snapshots_purge_is_an_error() {
    let _ =
        &ozone_ha_check::citation::java::hdds_11453_parent::OMKeyPurgeRequest::validateAndUpdateCache;
    for variant in [Variant::Buggy, Variant::Fixed] {
        let (stored, replays, opened, left) = staged_generated(
            variant,
            "snapshot-purge(s1) kill-after-dir-delete purge-keys(d1,s1)",
            2,
            &[Order::ApplyFirst],
        );
        assert_eq!(stored, 0);
        assert_eq!(replays, vec![Replayed::Completed]);
        assert!(opened.is_empty(), "{variant:?}");
        assert!(left.is_empty());
    }
}

/// The generated plan's space, and how a workload becomes a log, its kills and its stops.
fn generated_workloads_map_to_a_log_kills_and_stops() {
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 258);
    // A second purge of one snapshot, a kill not right after a snapshot purge, a restart
    // first: not drawn.
    for refused in [
        "snapshot-purge(s1) snapshot-purge(s1)",
        "purge-keys(d1,s1) kill-after-dir-delete",
        "restart purge-keys(d1,s1)",
    ] {
        let w = VOCABULARY.parse(refused).unwrap();
        assert_eq!(VOCABULARY.encode(&w, VOCABULARY.bounds), None, "{refused}");
    }
    // The written `crash` plan is this workload, over s1 alone.
    let crash = Shape::of(
        &VOCABULARY
            .parse("purge-keys(d1,s1) snapshot-purge(s1) kill-after-dir-delete")
            .unwrap(),
    );
    let written = purge_log();
    assert_eq!(
        crash.log.after(0).map(|e| &e.payload).collect::<Vec<_>>(),
        written.after(0).map(|e| &e.payload).collect::<Vec<_>>()
    );
    assert_eq!(crash.kills, vec![3]);
    assert_eq!(crash.purged, vec![SNAPSHOT.to_string()]);
    let w = Shape::of(
        &VOCABULARY
            .parse("purge-keys(d2,s2) restart snapshot-purge(s2)")
            .unwrap(),
    );
    assert_eq!((w.kills, w.stops), (vec![], vec![2]));
    assert_eq!(w.purged, vec!["s2".to_string()]);
    assert_eq!(
        w.log
            .after(0)
            .filter_map(|e| match &e.payload {
                Payload::Data(r) => Some(r.clone()),
                Payload::Configuration => None,
            })
            .collect::<Vec<_>>(),
        vec![
            SnapshotRequest::PurgeKeys {
                snapshot: "s2".into(),
                keys: vec!["d2".into()]
            },
            SnapshotRequest::SnapshotPurge {
                snapshot: "s2".into()
            }
        ]
    );
}

/// The fix holds over the generated space with the window reached: a kill after a purge's
/// directory deletion in the flush of a swap that also took a purge of keys from it.
fn fixed_holds_on_generated_with_the_window_reached() {
    let r = run(S, "fixed", "generated", pct(0, 2_000), None);
    assert_eq!(r.verdict, Verdict::Held);
    assert!(r.probes["KilledInSharedSwap"] > 0);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_both_entries_swapped_together,
        a_restart_whose_flush_precedes_the_purges_apply_terminates,
        a_restart_whose_purge_is_applied_first_recovers_over_an_empty_db,
        the_fix_commits_the_purge_of_keys_before_the_directory_goes,
        the_buggy_crash_reaches_both_outcomes_of_the_replay_race,
        staged_the_parent_replays_a_purge_of_another_snapshots_keys,
        staged_the_parent_replays_two_snapshot_purges_of_one_batch,
        staged_a_purge_of_keys_after_the_snapshots_purge_is_an_error,
        generated_workloads_map_to_a_log_kills_and_stops,
        fixed_holds_on_generated_with_the_window_reached
    ]
}
