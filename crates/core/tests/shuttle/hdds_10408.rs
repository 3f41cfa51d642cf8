//! HDDS-10408 under shuttle: the deleting service reads a purged snapshot's row from RocksDB
//! before the purge's flush and submits a second purge; applied after the OM's own flush of
//! the first, it throws a `NullPointerException` at the parent, on every replay too; the fix
//! skips it.
// Reference: HDDS-10408, fix 6dfd7d46d14 (PR #6250), parent f0b75b7e4ee; HDDS-9636,
// fix ad2414697e5 (PR #5554), parent f4a3b0e64c0.

use crate::support::{pct, run};
use ozone_ha_check::citation::java::{
    hdds_10408 as fix, hdds_10408_parent as parent, hdds_9636_parent as pre_9636,
};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::om::snapshot::deleting_service::second_run;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
use ozone_ha_check::models::om::startup::Replayed;
use ozone_ha_check::models::om::SNAPSHOT_INFO_TABLE;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_10408::{
    om, om_of, purge_log, service_run, Variant, SNAPSHOT, SNAPSHOTS,
};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-10408";

fn fixed_holds_over_many_seeds_with_both_windows_reached() {
    for seed in 0..5 {
        for plan in ["leader", "leader-and-follower"] {
            let r = run(S, "fixed", plan, pct(seed, 500), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            for probe in [
                "DuplicatePurgeSubmitted",
                "DuplicateAfterFlush",
                "DuplicateBeforeFlush",
            ] {
                assert!(r.probes[probe] > 0, "seed {seed} {plan}: {probe}");
            }
        }
    }
}

/// What a staged run saw.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    /// The service's run after the leader's apply of 2, before its flush: whether it submits.
    submits_before_flush: bool,
    /// The citations of the steps that read s1's row at the apply of 2 and the service's run.
    reads: Vec<String>,
    /// The second purge's apply: its termination, if any.
    exit: Option<String>,
    /// The citations of the steps of the second purge's apply.
    second: Vec<String>,
    /// After the run (and, if it terminated, one restart): the stored index, s1's row, s1's
    /// directory, the restart's termination.
    end: (u64, bool, bool, Option<String>),
}

/// Apply 2, run the service (it reads RocksDB), then flush 2 before (`flush_first`) or after
/// the apply of the second purge 3; if the OM terminated, restart once and replay. Fixed
/// steps, one OM, no exploration.
fn second_purge(variant: Variant, flush_first: bool) -> Seen {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let (om, store, dirs) = om(variant);
        let mut log = purge_log();
        let purge = SnapshotRequest::SnapshotPurge {
            snapshot: SNAPSHOT.into(),
        };
        assert!(om.apply(&me, 2, 1, &purge));
        let submits_before_flush = second_run(&me, &store, SNAPSHOT, true);
        let reads = cited(&rec, "snapshotInfoTable/s1");
        let index = log.append(purge.clone());
        if flush_first {
            om.flush_thread(&me, 2);
        }
        let applied = om.apply(&me, index, 1, &purge);
        let second = cited(&rec, "");
        let exit = om.exits().first().cloned();
        assert_eq!(applied, exit.is_none());
        if applied {
            om.flush_thread(&me, index);
        } else if !flush_first {
            om.flush_thread(&me, 2);
        }
        let mut restart_exit = None;
        if !applied {
            let (java, cites) = (variant.java(), variant.cites());
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            if let Replayed::Terminated { why, .. } = Arc::new(om).replay(&log, stored, &me) {
                restart_exit = Some(why);
            }
        }
        let durable = store.durable();
        let end = (
            stored_index(&durable),
            durable.get(SNAPSHOT_INFO_TABLE, SNAPSHOT).is_some(),
            dirs.exists(SNAPSHOT),
            restart_exit,
        );
        Seen {
            submits_before_flush,
            reads,
            exit,
            second,
            end,
        }
    })
}

/// The citations of the steps taken since the last call whose action mentions `about`.
fn cited(rec: &Recorder, about: &str) -> Vec<String> {
    rec.take()
        .trace
        .iter()
        .filter(|e| e.action.contains(about))
        .map(|e| e.java.to_string())
        .collect()
}

/// The story says the first purge's delete is in the table cache while the service reads the
/// flushed DB. At the parent [`validateAndUpdateCache`] writes no cache entry for the purged
/// snapshot's row (only the chain and the snapshot cache change) and the row's delete is in
/// [`addToDBBatch`]'s batch; [`SnapshotDeletingTask.call`]'s iterator reads RocksDB, where the
/// row still is: the service submits the purge again.
// Reference: OMSnapshotPurgeRequest.java:82-95, OMSnapshotPurgeResponse.java:86-101,
// SnapshotDeletingService.java:146-163 and :340 at f0b75b7e4ee; TypedTable.java:417-438.
fn staged_the_first_purge_leaves_the_row_in_rocksdb_until_its_flush() {
    let request = parent::OMSnapshotPurgeRequest::validateAndUpdateCache.id;
    let call = parent::SnapshotDeletingService::SnapshotDeletingTask::call.id;
    let _ = &parent::OMSnapshotPurgeResponse::addToDBBatch;
    for variant in [Variant::PreHdds9636, Variant::Buggy, Variant::Fixed] {
        let seen = second_purge(variant, true);
        assert!(seen.submits_before_flush, "{variant:?}");
        let first_request = match variant {
            Variant::PreHdds9636 => pre_9636::OMSnapshotPurgeRequest::validateAndUpdateCache.id,
            Variant::Buggy => request,
            Variant::Fixed => fix::OMSnapshotPurgeRequest::validateAndUpdateCache.id,
        };
        // The apply read the row; then the service read it again from RocksDB; no cache
        // step between.
        assert_eq!(seen.reads, [first_request, call], "{variant:?}");
    }
}

/// After the OM's flush of the first purge the row is gone: the parent's
/// [`getNextActiveSnapshot`] dereferences null and [`runCommand`] terminates the OM; the
/// restart replays the same entry onto the same DB and terminates again (stored index 2).
/// HDDS-9636's parent does the same; the fix's [`validateAndUpdateCache`] skips the
/// snapshot and the purge completes.
// Reference: SnapshotUtils.java:152 and OzoneManagerStateMachine.java:539-542 at f0b75b7e4ee;
// OMSnapshotPurgeRequest.java:90-95 at 6dfd7d46d14.
fn staged_the_second_purge_after_the_flush_throws_on_every_replay() {
    for (variant, npe) in [
        (
            Variant::PreHdds9636,
            pre_9636::SnapshotUtils::getNextActiveSnapshot.id,
        ),
        (
            Variant::Buggy,
            parent::SnapshotUtils::getNextActiveSnapshot.id,
        ),
    ] {
        let seen = second_purge(variant, true);
        assert!(
            seen.exit
                .as_deref()
                .is_some_and(|e| e.starts_with("NullPointerException")),
            "{variant:?}: {seen:?}"
        );
        assert!(seen.second.iter().any(|c| c == npe), "{variant:?}");
        let (stored, row, dir, again) = seen.end;
        assert_eq!((stored, row, dir), (2, false, false), "{variant:?}");
        assert!(
            again.is_some_and(|e| e.starts_with("NullPointerException")),
            "{variant:?}"
        );
    }
    let seen = second_purge(Variant::Fixed, true);
    assert_eq!(seen.exit, None);
    assert!(seen
        .second
        .iter()
        .any(|c| c == fix::OMSnapshotPurgeRequest::validateAndUpdateCache.id));
    assert_eq!(seen.end, (3, false, false, None));
}

/// Before the OM's flush of the first purge the row is there and the chain has no s1: the
/// chain's `NoSuchElementException` terminates the OM at HDDS-9636's parent
/// ([`getNextActiveSnapshot`] there has no catch); from HDDS-9636 on it is caught, and the
/// second purge's response deletes the (gone) directory and the row again.
// Reference: SnapshotChainManager.java:454-460, SnapshotUtils.java:151-174 at f0b75b7e4ee;
// SnapshotUtils.java:143-165 and OzoneManagerStateMachine.java:583-586 at f4a3b0e64c0.
fn staged_the_second_purge_before_the_flush_is_caught_since_hdds_9636() {
    let seen = second_purge(Variant::PreHdds9636, false);
    assert!(
        seen.exit
            .as_deref()
            .is_some_and(|e| e.starts_with("NoSuchElementException")),
        "{seen:?}"
    );
    assert!(seen
        .second
        .iter()
        .any(|c| c == pre_9636::SnapshotUtils::getNextActiveSnapshot.id));
    for variant in [Variant::Buggy, Variant::Fixed] {
        let seen = second_purge(variant, false);
        assert_eq!(seen.exit, None, "{variant:?}");
        let caught = match variant {
            Variant::Buggy => parent::SnapshotUtils::getNextActiveSnapshot.id,
            _ => fix::SnapshotUtils::getNextActiveSnapshot.id,
        };
        assert!(
            seen.second.iter().any(|c| c == caught),
            "{variant:?}: {:?}",
            seen.second
        );
        assert_eq!(seen.end, (3, false, false, None), "{variant:?}");
    }
}

/// `generated`'s space: five workloads of at most two runs and one kill, a kill only after a
/// run; the fix holds on them with both windows of the second purge reached.
fn generated_space_and_the_fix_holds_on_it() {
    use ozone_ha_check::scenarios::hdds_10408::VOCABULARY;
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 5);
    for refused in ["kill", "kill run", "run run run"] {
        let w = VOCABULARY.parse(refused).unwrap();
        assert_eq!(VOCABULARY.encode(&w, VOCABULARY.bounds), None, "{refused}");
    }
    let w = VOCABULARY.parse("run kill run").unwrap();
    assert_eq!(VOCABULARY.show(&w), "run kill run");
    assert!(VOCABULARY.encode(&w, VOCABULARY.bounds).is_some());
    for seed in 0..5 {
        let r = run(S, "fixed", "generated", pct(seed, 500), None);
        assert_eq!(r.verdict, Verdict::Held, "seed {seed}");
        for probe in [
            "DuplicatePurgeSubmitted",
            "DuplicateAfterFlush",
            "DuplicateBeforeFlush",
        ] {
            assert!(r.probes[probe] > 0, "seed {seed}: {probe}");
        }
    }
}

/// What a staged run over s1 <- s2 ended with: the second run's snapshots, the termination,
/// the stored index, the rows left, and the citations of the second purges' steps.
type Staged = (Vec<String>, Option<String>, u64, Vec<bool>, Vec<String>);

/// A run's purges of s1 and s2 (2, 3) applied; a second run before their flush; the flush;
/// the second run's purges (4, 5) applied and flushed. Fixed steps, one OM, no exploration.
fn second_run_over_the_chain(variant: Variant) -> Staged {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let (om, store, _dirs) = om_of(variant, SNAPSHOTS);
        let first = service_run(&me, &om);
        assert_eq!(first, SNAPSHOTS);
        for (i, s) in first.iter().enumerate() {
            assert!(om.apply(&me, 2 + i as u64, 1, &purge(s)));
        }
        let again = service_run(&me, &om);
        om.flush_thread(&me, 3);
        let _ = rec.take();
        let mut alive = true;
        for (i, s) in again.iter().enumerate() {
            alive = alive && om.apply(&me, 4 + i as u64, 1, &purge(s));
        }
        let second = cited(&rec, "");
        if alive {
            om.flush_thread(&me, 5);
        }
        let durable = store.durable();
        (
            again,
            om.exits().first().cloned(),
            stored_index(&durable),
            SNAPSHOTS
                .iter()
                .map(|s| durable.get(SNAPSHOT_INFO_TABLE, s).is_some())
                .collect(),
            second,
        )
    })
}

fn purge(snapshot: &str) -> SnapshotRequest {
    SnapshotRequest::SnapshotPurge {
        snapshot: snapshot.into(),
    }
}

/// A run reads every deleted snapshot's row from RocksDB
/// ([`SnapshotDeletingTask.call`](parent::SnapshotDeletingService::SnapshotDeletingTask::call))
/// and submits a purge of each; a second run before the flush submits both again. Applied
/// after the flush, the parent throws on s1 (the first key of the second purge) and the fix
/// skips both rows: both rows stay gone.
// Reference: SnapshotDeletingService.java:146-163, :204-206, :340 and
// OMSnapshotPurgeRequest.java:82-95 at f0b75b7e4ee; OMSnapshotPurgeRequest.java:90-95 at
// 6dfd7d46d14.
fn staged_a_second_run_over_the_chain_after_the_flush() {
    let (again, exit, stored, rows, _) = second_run_over_the_chain(Variant::Buggy);
    assert_eq!(again, SNAPSHOTS);
    assert!(
        exit.as_deref()
            .is_some_and(|e| e.starts_with("NullPointerException") && e.contains("s1")),
        "{exit:?}"
    );
    assert_eq!((stored, rows), (3, vec![false, false]));
    let (again, exit, stored, rows, second) = second_run_over_the_chain(Variant::Fixed);
    assert_eq!(again, SNAPSHOTS);
    assert_eq!(exit, None);
    assert_eq!((stored, rows), (5, vec![false, false]));
    let skip = fix::OMSnapshotPurgeRequest::validateAndUpdateCache.id;
    assert_eq!(
        second.iter().filter(|c| *c == skip).count(),
        4,
        "{second:?}"
    );
}

/// A kill before the flush loses the queued purges; the restart rebuilds the chain from the
/// rows ([`loadSnapshotInfoFromDB`](ozone_ha_check::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB)),
/// the replay applies both purges as first purges, and no variant terminates.
fn staged_a_kill_before_the_flush_replays_first_purges() {
    for variant in [Variant::PreHdds9636, Variant::Buggy, Variant::Fixed] {
        let result = run_once_returning(move || {
            let rec = Arc::new(Recorder::with_tracing(None, true));
            let me = Actor::new("om", &rec);
            let (om, store, dirs) = om_of(variant, SNAPSHOTS);
            let mut log = ozone_ha_check::kit::raft_log::RaftLog::new();
            log.start_term(1);
            for s in service_run(&me, &om) {
                let index = log.append(purge(&s));
                assert!(om.apply(&me, index, 1, &purge(&s)));
            }
            om.kill(&me);
            let (java, cites) = (variant.java(), variant.cites());
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            assert_eq!(stored, 0);
            let load = cited(&rec, "").contains(
                &ozone_ha_check::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB
                    .id
                    .to_string(),
            );
            let replayed = Arc::new(om).replay(&log, stored, &me);
            let durable = store.durable();
            (
                load,
                matches!(replayed, Replayed::Completed),
                stored_index(&durable),
                SNAPSHOTS
                    .iter()
                    .any(|s| durable.get(SNAPSHOT_INFO_TABLE, s).is_some() || dirs.exists(s)),
            )
        });
        assert_eq!(result, (true, true, 3, false), "{variant:?}");
    }
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        generated_space_and_the_fix_holds_on_it,
        staged_a_second_run_over_the_chain_after_the_flush,
        staged_a_kill_before_the_flush_replays_first_purges,
        fixed_holds_over_many_seeds_with_both_windows_reached,
        staged_the_first_purge_leaves_the_row_in_rocksdb_until_its_flush,
        staged_the_second_purge_after_the_flush_throws_on_every_replay,
        staged_the_second_purge_before_the_flush_is_caught_since_hdds_9636
    ]
}
