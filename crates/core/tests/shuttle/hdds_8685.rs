//! HDDS-8685 under shuttle: after a crash between a snapshot create's checkpoint and its
//! batch's commit, the parent's replay swallows `getSnapshot`'s failure onto the existing
//! directory and commits, as the fix's reuse does; only the one-line story terminates.
// Reference: HDDS-8685, fix 9b59ade990a (PR #4946), parent 534160f96c5.

use crate::support::{apply_then_flush, pct, run};
use ozone_ha_check::citation::java::{hdds_8685 as fix, hdds_8685_parent as parent};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::requests::Crash;
use ozone_ha_check::models::om::snapshot::{Dirs, Snapshots};
use ozone_ha_check::models::om::{DELETED_TABLE, SNAPSHOT_INFO_TABLE};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_8685::{
    create_log, initial, prefix, reference, Shape, Variant, SNAPSHOT, VOCABULARY,
};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-8685";

fn buggy_and_fixed_hold_over_many_seeds_with_the_checkpoint_left_uncommitted() {
    for seed in 0..5 {
        for variant in ["buggy", "fixed"] {
            for plan in ["crash-after-checkpoint", "crash-before-commit"] {
                let r = run(S, variant, plan, pct(seed, 500), None);
                assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
                assert!(
                    r.probes["CheckpointLeftUncommitted"] > 0,
                    "{variant} {plan}"
                );
                assert!(r.probes["ReplayCompleted"] > 0, "{variant} {plan}");
            }
        }
    }
}

/// What the staged run saw.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    /// After the crash: the stored index, whether the directory exists, whether the active DB
    /// still holds d1.
    crashed: (u64, bool, bool),
    /// After the restart: its termination, if any; the stored index; whether s1's row is
    /// committed; whether s1 holds `apply(log[1..2])`.
    restarted: (Option<String>, u64, bool, bool),
    /// The citations of the steps the replayed create's flush took onto the existing directory.
    onto_existing: Vec<String>,
}

/// Apply 2, 3 and 4, flush until the plan's crash inside the create's flush, then one restart
/// that applies 3 and 4 and then flushes: fixed steps, no exploration.
fn crash_then_replay(variant: Variant, crash: Crash) -> Seen {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let (java, cites) = (variant.java(), variant.cites());
        let dirs = Arc::new(Dirs::new([]));
        let store = Arc::new(Store::with_state(initial(), None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], java, cites);
        let om = SnapshotOm::with_crash(Arc::clone(&store), snaps, crash);
        let log = create_log();
        apply_then_flush(&om, &me, &log, 0);
        assert!(om.crashed());
        let durable = store.durable();
        let crashed = (
            stored_index(&durable),
            dirs.exists(SNAPSHOT),
            durable.get(DELETED_TABLE, "d1").is_some(),
        );
        rec.take();
        let (om, stored) =
            SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
        apply_then_flush(&om, &me, &log, stored);
        let durable = store.durable();
        let restarted = (
            om.exits().first().cloned(),
            stored_index(&durable),
            durable.get(SNAPSHOT_INFO_TABLE, SNAPSHOT).is_some(),
            dirs.content(SNAPSHOT)
                .is_some_and(|s| s.diff(&prefix()).is_empty()),
        );
        let onto_existing = rec
            .take()
            .trace
            .iter()
            .filter(|e| e.action.contains("exist"))
            .map(|e| e.java.to_string())
            .collect();
        Seen {
            crashed,
            restarted,
            onto_existing,
        }
    })
}

/// The parent's replayed create onto the directory its crashed flush left: `getSnapshot`
/// fails there, [`RDBCheckpointManager.createCheckpoint`] swallows the failure (logs it,
/// returns null) and the batch commits; the snapshot is the directory from before the crash,
/// which holds d1 and k1. The fix reuses the directory through
/// [`createOmSnapshotCheckpoint`] and ends the same.
// Reference: RDBCheckpointManager.java:100-103 and RocksDatabase.java:431-439 at 534160f96c5;
// OmSnapshotManager.java:401-434 at 9b59ade990a.
fn staged_the_parent_swallows_the_existing_directory_and_commits() {
    let swallowed = parent::RDBCheckpointManager::createCheckpoint__String_String.id;
    let reused = fix::OmSnapshotManager::createOmSnapshotCheckpoint.id;
    for crash in [Crash::AfterCheckpoint, Crash::BeforeCreateCommit] {
        // The kill after the cleanup has already taken d1 from the active DB.
        let d1_left = crash == Crash::AfterCheckpoint;
        for (variant, cited) in [(Variant::Buggy, swallowed), (Variant::Fixed, reused)] {
            let seen = crash_then_replay(variant, crash);
            assert_eq!(seen.crashed, (2, true, d1_left), "{variant:?} {crash:?}");
            assert_eq!(
                seen.restarted,
                (None, 4, true, true),
                "{variant:?} {crash:?}"
            );
            assert_eq!(seen.onto_existing, [cited], "{variant:?} {crash:?}");
        }
    }
}

/// The one-line story: the failure reaches [`addToBatch`], which terminates the OM at index 3
/// with nothing of it committed, so the next restart is where this one started.
fn staged_the_story_terminates_every_restart() {
    let _ = &parent::OzoneManagerDoubleBuffer::addToBatch;
    for crash in [Crash::AfterCheckpoint, Crash::BeforeCreateCommit] {
        let seen = crash_then_replay(Variant::AsReported, crash);
        let (exit, stored, row, _) = seen.restarted;
        assert!(
            exit.is_some_and(|e| e.contains("Directory exists")),
            "{crash:?}"
        );
        assert_eq!((stored, row), (2, false), "{crash:?}");
    }
}

/// A generated workload's kill names its create: in `snapshot key snapshot
/// kill-before-commit` the process dies in s2's flush (index 4), after s1 (index 2) and k1
/// (index 3) committed, although s1's flush, a create's too, came first. s1's directory holds
/// what [`reference`] says (d1 and `TransactionInfo` 0: no data entry before it), s2's the
/// state after k1 without d1, which s1's unbatched cleanup in
/// [`createOmSnapshotCheckpoint`] removed from the active DB.
fn staged_a_generated_kill_fires_in_the_create_before_it() {
    let _ = &parent::OmSnapshotManager::createOmSnapshotCheckpoint;
    let workload = VOCABULARY
        .parse("snapshot key snapshot kill-before-commit")
        .unwrap();
    let shape = Shape::of(&workload);
    assert_eq!(shape.kills, [(4, Crash::BeforeCreateCommit)]);
    let reference = reference(&shape.log);
    let names: Vec<(&str, u64)> = reference
        .snapshots
        .iter()
        .map(|(n, i, _)| (n.as_str(), *i))
        .collect();
    assert_eq!(names, [("s1", 2), ("s2", 4)]);
    let (crashed, stored, s1_row, s2_row, d1, s1, s2) = run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let variant = Variant::Fixed;
        let (java, cites) = (variant.java(), variant.cites());
        let dirs = Arc::new(Dirs::new([]));
        let store = Arc::new(Store::with_state(initial(), None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], java, cites);
        let om = SnapshotOm::with_crash(Arc::clone(&store), snaps, Crash::Never);
        let (index, crash) = shape.kills[0];
        om.arm(crash, index);
        apply_then_flush(&om, &me, &shape.log, 0);
        let durable = store.durable();
        (
            om.crashed(),
            stored_index(&durable),
            durable.get(SNAPSHOT_INFO_TABLE, "s1").is_some(),
            durable.get(SNAPSHOT_INFO_TABLE, "s2").is_some(),
            durable.get(DELETED_TABLE, "d1").is_some(),
            dirs.content("s1"),
            dirs.content("s2"),
        )
    });
    assert!(crashed);
    assert_eq!((stored, s1_row, s2_row, d1), (3, true, false, false));
    assert_eq!(s1.map(|t| t.diff(&reference.snapshots[0].2)), Some(vec![]));
    assert_eq!(s2.map(|t| t.diff(&reference.snapshots[1].2)), Some(vec![]));
    assert!(reference.snapshots[1].2.get(DELETED_TABLE, "d1").is_none());
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        buggy_and_fixed_hold_over_many_seeds_with_the_checkpoint_left_uncommitted,
        staged_the_parent_swallows_the_existing_directory_and_commits,
        staged_the_story_terminates_every_restart,
        staged_a_generated_kill_fires_in_the_create_before_it
    ]
}
