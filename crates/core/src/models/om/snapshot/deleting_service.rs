//! The leader's `SnapshotDeletingService` and a second purge of the same snapshot: what the
//! service reads to decide a snapshot is to be purged ([`second_run`]), and what a snapshot
//! purge's apply does with a snapshot an earlier purge already took ([`apply_purge`], as a
//! [`PurgeRevision`]).
//!
//! The service iterates `snapshotInfoTable` with `snapshotInfoTable.iterator()`
//! (`SnapshotDeletingTask.call`, SnapshotDeletingService.java:146-163 at 6dfd7d46d14^), which
//! reads RocksDB only (`TypedTable.iterator`, TypedTable.java:417-438: the raw table's
//! iterator, no cache). A snapshot purge, up to HDDS-10524 (7559e1f6b90), drops the snapshot
//! from the chain at apply and deletes its row only in its response's batch
//! (`OMSnapshotPurgeResponse.addToDBBatch`, OMSnapshotPurgeResponse.java:86-101): between the
//! apply and the flush the row is still in RocksDB, with no cache entry in front of it. A
//! service run in that window sees the deleted snapshot again and submits a second purge.
//!
//! What the second purge's apply meets depends on the OM's own flush of the first, which
//! each replica runs at its own pace:
//!
//! - first purge flushed: `getSnapshotInfoTable().get` returns null (no cache entry, no row)
//!   and `SnapshotUtils.getNextActiveSnapshot(null, ..)` dereferences it: a
//!   `NullPointerException` (SnapshotUtils.java:152 at 6dfd7d46d14^, :146 at ad2414697e5^),
//!   which neither the request's `catch (IOException)` nor anything below catches, so
//!   `OzoneManagerStateMachine.runCommand`'s `catch (Throwable)` terminates the OM
//!   (OzoneManagerStateMachine.java:539-542 at 6dfd7d46d14^). HDDS-10408 (6dfd7d46d14) skips a
//!   snapshot whose row is null (OMSnapshotPurgeRequest.java:90-95).
//! - first purge not flushed: the row is there, the chain no longer has the snapshot, and
//!   `hasNextPathSnapshot` throws `NoSuchElementException` (SnapshotChainManager.java:454-460).
//!   Before HDDS-9636 (ad2414697e5) it leaves `getNextActiveSnapshot` and terminates the OM
//!   the same way; from then on `getNextActiveSnapshot` catches it and returns null
//!   (SnapshotUtils.java:170-174 at 6dfd7d46d14^), `updateSnapshotChainAndCache` catches it
//!   and returns (OMSnapshotPurgeRequest.java:150-157), and the response deletes the directory
//!   (already gone) and the row again.
//!
//! From HDDS-10524 on the purge puts a tombstone into the table cache at apply, so a second
//! purge reads no row in either window ([`PurgeRevision::HDDS_10524`], the later models'
//! revision: [`super::requests::apply`] keeps its own path for it).
//!
//! Abstracted away: the service's interval and run count (a run may start any time after the
//! previous run's `submitRequest` returned, which is after the leader applied the purge:
//! `OzoneManagerRatisServer.submitRequest` waits for the reply), its work on snapshots that
//! still have deleted keys (`isSnapshotReclaimable` is true here), `shouldIgnoreSnapshot`'s
//! status test (every row of these models is a deleted snapshot), the next snapshot's
//! deep-clean flag and chain neighbours (one snapshot).

use super::{Failure, Snapshots, Stage};
use crate::citation::{java, Citation};
use crate::kit::store::Store;
use crate::models::om::{OmRow, SNAPSHOT_INFO_TABLE};
use crate::properties::Probe;
use crate::recorder::Actor;

/// What a purge's apply does when the snapshot's row is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbsentRow {
    /// 6dfd7d46d14^ and before: `getNextActiveSnapshot(null, ..)` throws a
    /// `NullPointerException` (the cited method).
    Npe(&'static Citation),
    /// 6dfd7d46d14 (HDDS-10408) on: log, skip the snapshot (the cited request).
    Skip(&'static Citation),
}

/// What a purge's apply does when the row is there and the chain no longer has the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unchained {
    /// ad2414697e5^ and before: the chain's `NoSuchElementException` leaves
    /// `getNextActiveSnapshot` (the cited method).
    Throws(&'static Citation),
    /// ad2414697e5 (HDDS-9636) on: `getNextActiveSnapshot` (cited) catches it, and so does
    /// `updateSnapshotChainAndCache`: the apply changes nothing but the snapshot cache.
    Caught(&'static Citation),
}

/// `OMSnapshotPurgeRequest.validateAndUpdateCache` on a snapshot an earlier purge took, as at
/// one Java commit, with that commit's citations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PurgeRevision {
    /// The commit, for listings and docs.
    pub commit: &'static str,
    /// 7559e1f6b90 (HDDS-10524) on: a tombstone for the row in the table cache at apply;
    /// [`super::requests::apply`]'s own path then.
    pub tombstone: bool,
    /// The row is gone.
    pub absent: AbsentRow,
    /// The row is there, the chain has no snapshot.
    pub unchained: Unchained,
    /// `OzoneManagerStateMachine.runCommand`, whose `catch (Throwable)` terminates the OM.
    pub run_command: &'static Citation,
    /// `SnapshotChainManager.hasNextPathSnapshot` (the chain's membership check).
    pub chain_check: &'static Citation,
}

impl PurgeRevision {
    /// f4a3b0e64c0 (HDDS-9636's parent): no tombstone; both windows throw.
    pub const HDDS_9636_PARENT: PurgeRevision = PurgeRevision {
        commit: "f4a3b0e64c0 (HDDS-9636's parent)",
        tombstone: false,
        absent: AbsentRow::Npe(&java::hdds_9636_parent::SnapshotUtils::getNextActiveSnapshot),
        unchained: Unchained::Throws(&java::hdds_9636_parent::SnapshotUtils::getNextActiveSnapshot),
        run_command: &java::hdds_9636_parent::OzoneManagerStateMachine::runCommand,
        // Unchanged from f4a3b0e64c0 to f0b75b7e4ee.
        chain_check: &java::hdds_10408_parent::SnapshotChainManager::hasNextPathSnapshot,
    };

    /// f0b75b7e4ee (HDDS-10408's parent): the chain's exception is caught (HDDS-9636), the
    /// null row is not.
    pub const HDDS_10408_PARENT: PurgeRevision = PurgeRevision {
        commit: "f0b75b7e4ee (HDDS-10408's parent)",
        tombstone: false,
        absent: AbsentRow::Npe(&java::hdds_10408_parent::SnapshotUtils::getNextActiveSnapshot),
        unchained: Unchained::Caught(
            &java::hdds_10408_parent::SnapshotUtils::getNextActiveSnapshot,
        ),
        run_command: &java::hdds_10408_parent::OzoneManagerStateMachine::runCommand,
        chain_check: &java::hdds_10408_parent::SnapshotChainManager::hasNextPathSnapshot,
    };

    /// 6dfd7d46d14 (HDDS-10408): a null row is skipped.
    pub const HDDS_10408: PurgeRevision = PurgeRevision {
        commit: "6dfd7d46d14 (HDDS-10408)",
        absent: AbsentRow::Skip(&java::hdds_10408::OMSnapshotPurgeRequest::validateAndUpdateCache),
        unchained: Unchained::Caught(&java::hdds_10408::SnapshotUtils::getNextActiveSnapshot),
        ..Self::HDDS_10408_PARENT
    };

    /// 7559e1f6b90 (HDDS-10524) on, the revision of the models of later commits: a tombstone
    /// at apply, so a second purge reads no row and is skipped ([`super::requests::apply`]);
    /// the other fields are HDDS-10408's and are not reached.
    pub const HDDS_10524: PurgeRevision = PurgeRevision {
        commit: "7559e1f6b90 (HDDS-10524) and later",
        tombstone: true,
        run_command: &java::OzoneManagerStateMachine::runCommand,
        ..Self::HDDS_10408
    };
}

/// The service read a snapshot's row from the leader's DB after the leader applied the
/// snapshot's purge, and submitted a second purge of it: the window of HDDS-10408.
pub const DUPLICATE_PURGE_SUBMITTED: Probe = Probe::new(
    "DuplicatePurgeSubmitted",
    "the deleting service read the snapshot's row from the leader's DB after the leader applied its purge, and submitted a second purge",
);

/// An OM applied the second purge after its flush of the first: the row is gone.
pub const DUPLICATE_AFTER_FLUSH: Probe = Probe::new(
    "DuplicateAfterFlush",
    "an OM applied a snapshot's second purge after it had flushed the first: no row",
);

/// An OM applied the second purge before its flush of the first: the row is there, the chain
/// no longer has the snapshot.
pub const DUPLICATE_BEFORE_FLUSH: Probe = Probe::new(
    "DuplicateBeforeFlush",
    "an OM applied a snapshot's second purge before it had flushed the first: the row is there, the chain has no snapshot",
);

/// `OMSnapshotPurgeRequest.validateAndUpdateCache` for one snapshot, before HDDS-10524 (no
/// tombstone). `Err` is the runtime exception that leaves it.
pub fn apply_purge(
    snaps: &Snapshots,
    store: &Store<OmRow>,
    actor: &Actor,
    index: u64,
    snapshot: &str,
) -> Result<(), Failure> {
    let (java, c) = (snaps.java(), snaps.cites().purges());
    let rev = java.purge;
    let second = snaps.purge_applied(snapshot);
    if store
        .get(actor, c.purge_request, SNAPSHOT_INFO_TABLE, snapshot)
        .is_none()
    {
        if second {
            actor.probe(&DUPLICATE_AFTER_FLUSH);
        }
        return match rev.absent {
            AbsentRow::Npe(at) => {
                let why = format!(
                    "NullPointerException: getNextActiveSnapshot(null) for {snapshot} (index {index})"
                );
                actor.step_with(at, || why.clone());
                Err(why)
            }
            AbsentRow::Skip(at) => {
                actor.step_with(at, || {
                    format!("index {index}: {snapshot} is no longer in the snapshot table: skip it")
                });
                Ok(())
            }
        };
    }
    if !snaps.in_chain(actor, rev.chain_check, snapshot) {
        if second {
            actor.probe(&DUPLICATE_BEFORE_FLUSH);
        }
        return match rev.unchained {
            Unchained::Throws(at) => {
                let why = format!(
                    "NoSuchElementException: {snapshot} is not found in the snapshot chain (index {index})"
                );
                actor.step_with(at, || why.clone());
                Err(why)
            }
            Unchained::Caught(at) => {
                actor.step_with(at, || {
                    format!("index {index}: NoSuchElementException caught: no next snapshot, no chain update")
                });
                // `invalidateCacheEntry` still runs.
                if java.bookkeeping.invalidate == Stage::Apply {
                    snaps.invalidate(actor, snapshot);
                }
                Ok(())
            }
        };
    }
    snaps.mark_purge_applied(snapshot);
    // `updateSnapshotChainAndCache` (`deleteSnapshot`), then `invalidateCacheEntry`; no
    // cache entry for the row.
    if java.bookkeeping.id_map == Stage::Apply {
        snaps.remove_id(actor, snapshot);
    }
    if java.bookkeeping.invalidate == Stage::Apply {
        snaps.invalidate(actor, snapshot);
    }
    Ok(())
}

/// The citations of the service's steps (the parent's: the service's reading of
/// `snapshotInfoTable` is the same at f4a3b0e64c0, f0b75b7e4ee and 6dfd7d46d14).
pub const CALL: &Citation =
    &java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::call;

/// `SnapshotDeletingTask.call` on the leader, a run after the one that submitted the purge of
/// `snapshot` returned (so after the leader applied it): iterate `snapshotInfoTable` in the
/// leader's DB (RocksDB only) and, if the snapshot's row is still there, submit its purge
/// again (`submitSnapshotPurgeRequest`). `purge_applied` is whether the leader applied the
/// first purge (ghost, for the probe).
pub fn second_run(
    actor: &Actor,
    leader: &Store<OmRow>,
    snapshot: &str,
    purge_applied: bool,
) -> bool {
    let rows = leader.scan(actor, CALL);
    let again = rows.get(SNAPSHOT_INFO_TABLE, snapshot).is_some();
    if again {
        if purge_applied {
            actor.probe(&DUPLICATE_PURGE_SUBMITTED);
        }
        actor.step_with(
            &java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::submitSnapshotPurgeRequest,
            || format!("{snapshot} is a deleted snapshot with nothing left to move: submit SnapshotPurge {snapshot}"),
        );
    } else {
        actor.step_with(CALL, || format!("no row for {snapshot}: nothing to purge"));
    }
    again
}
