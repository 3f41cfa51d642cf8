//! HDDS-10408: the leader's `SnapshotDeletingService` submits a second purge of a snapshot
//! whose first purge is applied and not yet flushed; an OM that applies the second purge after
//! flushing the first throws a `NullPointerException` and terminates, and every restart
//! replays the same entry: a crash loop.
//!
//! Buggy: the Java at 6dfd7d46d14^ (f0b75b7e4ee); fixed: at the fix 6dfd7d46d14 (PR #6250),
//! which changes `OMSnapshotPurgeRequest.validateAndUpdateCache` (skip a snapshot whose row is
//! null) and `SnapshotUtils.getNextActiveSnapshot` (an `OMException` for a null argument);
//! `pre-hdds-9636`: at ad2414697e5^ (f4a3b0e64c0), before HDDS-9636 made
//! `getNextActiveSnapshot` catch the chain's `NoSuchElementException`. Models:
//! [`crate::models::om::snapshot`], the service and the purge's second apply in
//! [`crate::models::om::snapshot::deleting_service`]. Historical citations:
//! `@hdds-10408`, `@hdds-10408-parent`, `@hdds-9636-parent` in `citations.toml`.
//!
//! # The race
//!
//! Every OM holds snapshot s1's row (a deleted snapshot: `OMSnapshotDeleteRequest` ran and was
//! flushed; nothing is left in its deleted tables) and s1's checkpoint directory, and its chain
//! has s1. After the configuration entry (1) the log holds 2 `SnapshotPurge s1`, the
//! service's purge from a run that found s1 reclaimable (it is the first thing the model's
//! service did).
//!
//! 1. The leader applies 2
//!    ([`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_10408_parent::OMSnapshotPurgeRequest::validateAndUpdateCache),
//!    OMSnapshotPurgeRequest.java:82-95 at f0b75b7e4ee): it reads s1's row, removes s1 from the
//!    chain (`updateSnapshotChainAndCache` -> `deleteSnapshot`, :131-214) and closes its
//!    cached DB (`invalidateCacheEntry`, :94). **It puts nothing into the table cache for s1's
//!    row**: the delete is only in the response
//!    ([`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_10408_parent::OMSnapshotPurgeResponse::addToDBBatch),
//!    OMSnapshotPurgeResponse.java:86-101: delete the directory, `deleteWithBatch` the row),
//!    which the double buffer has not flushed yet. The story says the first purge's delete
//!    is "only in the table cache"; the Java has no cache entry for it at all (the tombstone
//!    came with HDDS-10524, 7559e1f6b90): the row is in RocksDB until the flush, and the
//!    table cache (`PARTIAL_CACHE`, OmMetadataManagerImpl.java:751-752) has nothing in front
//!    of it.
//! 2. The submit of 2 returned (the Ratis reply follows the leader's apply); a later run of
//!    the service
//!    ([`SnapshotDeletingTask.call`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::call),
//!    SnapshotDeletingService.java:146-163) iterates `snapshotInfoTable`, which reads
//!    RocksDB only (`TypedTable.iterator`, TypedTable.java:417-438). Before the leader's flush
//!    of 2 commits, s1 is still there, a deleted snapshot with nothing left to move
//!    (`isSnapshotReclaimable`, :204-211): the run submits `SnapshotPurge s1` again
//!    ([`submitSnapshotPurgeRequest`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::submitSnapshotPurgeRequest),
//!    :340, :457-471), entry 3.
//! 3. Each OM applies 3 at its own pace against its own flush of 2:
//!    - flushed: `getSnapshotInfoTable().get(s1)` is null (no cache entry, no row), and
//!      [`getNextActiveSnapshot`](crate::citation::java::hdds_10408_parent::SnapshotUtils::getNextActiveSnapshot)`(null, ..)`
//!      dereferences it (`snapInfo.getSnapshotPath()`, SnapshotUtils.java:152): a
//!      `NullPointerException`. Its `catch (NoSuchElementException)` (:170) and the request's
//!      `catch (IOException)` (OMSnapshotPurgeRequest.java:100) let it through;
//!      [`OzoneManagerStateMachine.runCommand`](crate::citation::java::hdds_10408_parent::OzoneManagerStateMachine::runCommand)'s
//!      `catch (Throwable)` calls `ExitUtils.terminate` (OzoneManagerStateMachine.java:539-542).
//!      Nothing of 3 is queued, so the stored index stays before 3, and every restart replays
//!      3 onto a DB without the row: **the same NPE on every restart**, on every OM that had
//!      flushed 2 before applying 3. Confirmed.
//!    - not flushed: the row is there; the chain no longer has s1, so
//!      [`hasNextPathSnapshot`](crate::citation::java::hdds_10408_parent::SnapshotChainManager::hasNextPathSnapshot)
//!      throws `NoSuchElementException` (SnapshotChainManager.java:454-460), which
//!      `getNextActiveSnapshot` catches since HDDS-9636 (SnapshotUtils.java:151-174) and
//!      `updateSnapshotChainAndCache` catches too (OMSnapshotPurgeRequest.java:150-157); the
//!      response deletes the directory (gone already) and the row again. Harmless. At
//!      f4a3b0e64c0 (`pre-hdds-9636`) `getNextActiveSnapshot` has no catch (SnapshotUtils.java:143-165
//!      there): the exception leaves the request (its `finally` adds a null response, which
//!      `addResponseToDoubleBuffer` ignores, OMClientRequest.java:455-462) and `runCommand`
//!      terminates the OM (OzoneManagerStateMachine.java:583-586 there): both windows crash.
//!
//! **The fix** (OMSnapshotPurgeRequest.java:90-95 at 6dfd7d46d14,
//! [`validateAndUpdateCache`](crate::citation::java::hdds_10408::OMSnapshotPurgeRequest::validateAndUpdateCache))
//! logs and `continue`s when the row is null; the response then finds no row either
//! (OMSnapshotPurgeResponse.java:93-95) and writes nothing. Its `getNextActiveSnapshot` null
//! check ([`SnapshotUtils.getNextActiveSnapshot`](crate::citation::java::hdds_10408::SnapshotUtils::getNextActiveSnapshot),
//! SnapshotUtils.java:152-154) throws an `OMException`, an `IOException` the request turns
//! into an error response; the purge no longer reaches it with null. The fix does not stop the
//! service from submitting the second purge (the service still iterates RocksDB); it makes
//! the second purge a no-op in both windows, which `SnapshotPurged` checks: s1's row and
//! directory are gone on every OM in the end.
//!
//! # Plans
//!
//! - `leader`: one OM, the leader whose service submits.
//! - `leader-and-follower`: the leader and a follower; one apply thread applies each entry to
//!   the leader, then to the follower (the follower's pace against its own flush is its own).
//!
//! - `generated`: the leader alone over s1 <- s2, running a workload of [`VOCABULARY`] (see
//!   "Generated workloads").
//!
//! An OM that terminated restarts (twice at most) and replays the log after its stored index
//! ([`replay`]: apply, then flush, on one thread).
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]'s words are what the modelled path meets on the leader: the service's runs
//! and a kill of the OM, over s1 <- s2 in one bucket, both deleted snapshots with nothing
//! left to move (rows and directories at the start, so the first run finds both).
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `run` | [`SnapshotDeletingTask.call`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::call), [`submitSnapshotPurgeRequest`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::submitSnapshotPurgeRequest) ([`service_run`]); the purges' [`validateAndUpdateCache`](crate::citation::java::hdds_10408_parent::OMSnapshotPurgeRequest::validateAndUpdateCache) | one run after the previous run's submit returned (after the leader applied it): iterates `snapshotInfoTable` in RocksDB (SnapshotDeletingService.java:146-163), adds every deleted snapshot it finds reclaimable (:204-206) and submits their purge (:340, :457-471), applied before the next word |
//! | `kill` (fault) | [`loadSnapshotInfoFromDB`](crate::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB) at the restart | kill -9 racing the flush thread: the uncommitted responses are lost; the restart rebuilds the chain from the rows and replays the log after the stored index, applies racing the new flush thread; a clean restart is the kill once the flush caught up |
//!
//! A kill comes only after a run (before, it loses nothing). At most two runs and one kill
//! by default: 5 workloads, the largest space with a kill that the stateful engine exhausts
//! within 10 minutes (three runs and a kill, 9 workloads, it does not; three runs without a
//! kill it does). `SnapshotPurged` reads every snapshot the log purges.
//!
//! Verdicts (the default 2,000 executions; each expected invariant watched alone over seeds
//! 0..20 without minimizing: worst and median executions to it; the stateful engine's first
//! violation):
//!
//! | variant | breaks | random | PCT | stateful |
//! |---|---|---|---|---|
//! | `buggy` | `NoOmTermination`, `EveryOmCatchesUp` | 23 (4.5) | 43 (12.5) | at 22 |
//! | `pre-hdds-9636` | `NoOmTermination`, `EveryOmCatchesUp` | 8 (1) | 12 (2.5) | at 2 |
//! | `fixed` | holds | held, every seed (20,000 executions per engine) | held, every seed | held, exhausted: 4,677,033 states, 2,651,551 executions, 190 s |
//!
//! In every seed's run of `fixed`, `DuplicatePurgeSubmitted` (at least 4,441 executions of
//! 20,000), `DuplicateAfterFlush` (at least 1,063) and `DuplicateBeforeFlush` (at least
//! 8,320) fired. Minimized workloads (seed 0): `buggy` `run run kill` (random) and `run run`
//! (PCT: the flush falls between the second run's purges of s1 and s2, and the purge of s2
//! throws); `pre-hdds-9636` `run run` (both engines, the chain's exception on s1).
//! The space adds no verdict to the written plans: the fix holds with two snapshots in a
//! chain, a second purge of both, and a kill anywhere. Why, in the Java at 6dfd7d46d14: a
//! second purge that reads no row `continue`s to the next key (OMSnapshotPurgeRequest.java:90-95),
//! so `getNextActiveSnapshot` never gets null (its `OMException`, SnapshotUtils.java:152-154,
//! is not reached); one that reads the row before the flush finds the snapshot gone from the
//! chain, `getNextActiveSnapshot` returns null (SnapshotUtils.java:175-180) and
//! `updateSnapshotChainAndCache` returns at its catch (OMSnapshotPurgeRequest.java:166-168)
//! before any neighbour's cache entry or `deleteSnapshot` (:224): the chain and s2's row
//! are left alone. A next snapshot in the chain has its row (a purge drops the snapshot from
//! the chain at apply, before its row's delete at flush; a restart rebuilds the chain from the
//! rows), so the walk's `getSnapshotInfo` (OmSnapshotManager.java:697-699, SnapshotUtils.java:83-86) does not throw either.
//! The response puts the neighbours' rows before it deletes the purged ones and skips a null
//! row (OMSnapshotPurgeResponse.java:83-101).
//!
//! Left out of the vocabulary: `OMSnapshotDeleteRequest` (the service reads the status from
//! RocksDB, so a delete only decides from which run on a snapshot is found; the start has both
//! deleted and flushed, the case where a run finds both); a second OM (each OM's window is
//! its own flush, which the leader alone already races; `leader-and-follower` covers it).
//!
//! # Properties
//!
//! `NoOmTermination` (no incarnation of any OM terminates), `EveryOmCatchesUp` (after the
//! restarts every OM has flushed the whole log: no crash loop), `SnapshotPurged` (every purged
//! snapshot's row and directory are gone on every OM that flushed the whole log: the fix's
//! skip loses no purge;
//! an OM in a crash loop never completes the purge, which is `EveryOmCatchesUp`'s), at
//! quiescence. Probes
//! `DuplicatePurgeSubmitted` (required: the service read s1's row after the leader applied its
//! purge and submitted a second one), `DuplicateAfterFlush` (required: an OM applied it with
//! the row gone: the NPE window), `DuplicateBeforeFlush` (required: with the row there and
//! the chain without s1: HDDS-9636's window), `ReplayTerminated` (counted).
//! `DuplicatePurgeSubmitted` and `DuplicateAfterFlush` fire on the non-preemptive schedule
//! (declared by construction: the flush threads wait on the empty buffer while the apply
//! thread queues the first purge and the service reads RocksDB), which is why loom breaks
//! `buggy` at preemption bound 0.
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | the service's first run is log entry 2; its second run starts any time after the first's submit returned (after the leader's apply of 2) | the Java's interval (30 s by default) makes the window rare, not impossible: a flush slower than the interval, or a run on a new leader whose own flush of 2 lags, reads the same; the model asks whether the window exists, not how often |
//! | one snapshot, no next snapshot: `updateSnapshotInfoAndCache` and the chain neighbours' cache entries are never written | they concern other rows; with a next snapshot the first purge updates its row, the second purge (not chained) does not |
//! | the row carries no status: s1 is a deleted snapshot (`shouldIgnoreSnapshot` passes) with nothing left to move (`isSnapshotReclaimable`) | the service's work on snapshots with deleted keys (`submitSnapshotMoveDeletedKeys`) is another request |
//! | the response reads the row with `get` at these commits (`getSkipCache` from HDDS-10524), the model with `getSkipCache` | no cache entry for s1's row exists here (no tombstone before HDDS-10524; the delete's entry was flushed and evicted), so both read RocksDB |
//! | the chain (global and path) is the id map: `deleteSnapshot` drops s1 from both and from `snapshotIdToTableKey` together (SnapshotChainManager.java:362-372) | membership is all `hasNextPathSnapshot` asks of a chain without neighbours |
//! | the snapshot cache's reference counts | `invalidateCacheEntry` closes an unused DB; no purge of keys runs here |
//! | Ratis: one log, committed as written; the follower applies every committed entry | a terminated OM's peers keep the entry; the crash loop is the terminated OM's own replay |
//! | two restarts at most | each restart replays the same entry onto the same DB; a third adds nothing |
//! | a restart's replay applies its entries, then flushes them, on one thread (in the Java Ratis' updater and the flush thread run concurrently, as [`SnapshotOm::replay`] models) | loom counts every thread an execution spawns; a terminated OM's replay throws in either order: 3 alone onto a DB without the row (`buggy`), or 2 then 3 with or without 2's flush between (`pre-hdds-9636`, where both windows throw); `fixed` never restarts |
//! | the service runs on the case's own thread | the same: one spawned thread fewer |
//! | `generated`: a run's purge of s1 and s2 is one log entry per snapshot (the Java's is one request with both keys) | a flush can fall between the two entries, which the Java's one apply cannot meet; each key's outcome depends on that OM's flush alone, the same throw or no-op as a later run's purge of that key meets |
//! | `generated`: the purge of s1 does not update s2's row (previous ids, deepClean) | a second purge never reaches the neighbour update (module docs, "Generated workloads"); the first purge's put precedes s2's delete in the log and in the response |
//! | `generated`: the service and the apply thread are one actor | a run starts after the previous run's submit returned, which is after the leader's apply; the race is the run's read against the flush |

use crate::choices;
use crate::citation::java::{
    hdds_10408 as fix, hdds_10408_parent as parent, hdds_11152_parent as later,
    hdds_9636_parent as pre_9636,
};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::{put_tx_info, stored_index};
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::deleting_service::{
    self, DUPLICATE_AFTER_FLUSH, DUPLICATE_BEFORE_FLUSH, DUPLICATE_PURGE_SUBMITTED,
};
use crate::models::om::snapshot::node::SnapshotOm;
use crate::models::om::snapshot::requests::{self, SnapshotRequest};
use crate::models::om::snapshot::{
    Bookkeeping, Cites, CreateRevision, Dirs, Java, Loader, Lookup, PurgeCites, PurgeKeysApply,
    PurgeRevision, SnapshotDb, Snapshots, Split,
};
use crate::models::om::startup::data_after;
use crate::models::om::{OmRow, SNAPSHOT_INFO_TABLE};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{ByConstruction, Case, Expected, Scenario};
use crate::sync::{channel, thread, Arc};
use crate::workload::{Bounds, Item, Kind, Vocabulary, Word};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds10408;

choices! {
    /// What a snapshot purge's apply does with a snapshot an earlier purge took.
    pub enum Variant {
        /// ad2414697e5^: the chain's NoSuchElementException and the null row both terminate the OM
        PreHdds9636 = "pre-hdds-9636",
        /// 6dfd7d46d14^: the chain's exception is caught, the null row throws a NullPointerException
        Buggy = "buggy",
        /// 6dfd7d46d14: a snapshot whose row is null is skipped
        Fixed = "fixed",
    }
}

choices! {
    /// Which OMs apply the log.
    pub enum Plan {
        /// the leader alone, whose deleting service submits
        Leader = "leader",
        /// the leader and a follower
        LeaderAndFollower = "leader-and-follower",
        /// the leader alone, over s1 <- s2, running a workload of the vocabulary
        Generated = "generated",
    }
}

/// The snapshot.
pub const SNAPSHOT: &str = "s1";

/// One OM at the end, over every incarnation.
pub struct OmEnd {
    /// Every termination.
    pub exits: Vec<String>,
    /// The index its DB says it flushed.
    pub stored: u64,
    /// Each purged snapshot (as [`End::purged`]): whether its row is in the DB, whether its
    /// directory exists.
    pub left: Vec<(bool, bool)>,
}

/// What every OM ended with.
pub struct End {
    /// The log's last index.
    pub last: u64,
    /// The snapshots some entry of the log purges.
    pub purged: Vec<String>,
    /// The OMs, leader first.
    pub oms: Vec<OmEnd>,
}

impl OmEnd {
    /// An OM's end from its DB and disk, over `purged`.
    fn of(exits: Vec<String>, store: &Store<OmRow>, dirs: &Dirs, purged: &[String]) -> Self {
        let durable = store.durable();
        OmEnd {
            exits,
            stored: stored_index(&durable),
            left: purged
                .iter()
                .map(|s| {
                    (
                        durable.get(SNAPSHOT_INFO_TABLE, s).is_some(),
                        dirs.exists(s),
                    )
                })
                .collect(),
        }
    }
}

/// A restart's replay terminated the OM.
pub const REPLAY_TERMINATED: Probe =
    Probe::new("ReplayTerminated", "a restart's replay terminated the OM");

/// No OM ever terminates.
pub const NO_OM_TERMINATION: Invariant<End> = Invariant::eventually(
    "NoOmTermination",
    "no incarnation of any OM terminates",
    "An OM terminates applying the deleting service's second purge of a snapshot (a NullPointerException on the row its flushed first purge deleted, or before HDDS-9636 the chain's NoSuchElementException).",
    |e| {
        for (i, om) in e.oms.iter().enumerate() {
            if let Some(first) = om.exits.first() {
                return Err(format!("om{} terminated: {first}", i + 1));
            }
        }
        Ok(())
    },
);

/// Every OM flushed the whole log in the end.
pub const EVERY_OM_CATCHES_UP: Invariant<End> = Invariant::eventually(
    "EveryOmCatchesUp",
    "after at most two restarts, every OM has flushed the whole log",
    "A terminated OM replays the second purge on every restart and terminates again: a crash loop, on every replica that had flushed the first purge.",
    |e| {
        for (i, om) in e.oms.iter().enumerate() {
            if om.stored != e.last {
                return Err(format!(
                    "om{}: stored index {} after {} restarts, log ends at {}",
                    i + 1,
                    om.stored,
                    om.exits.len(),
                    e.last
                ));
            }
        }
        Ok(())
    },
);

/// The purged snapshot is gone everywhere.
pub const SNAPSHOT_PURGED: Invariant<End> = Invariant::eventually(
    "SnapshotPurged",
    "every purged snapshot's row and directory are gone on every OM that flushed the whole log",
    "A purged snapshot outlives its purge on an OM that completed the log (a skipped second purge lost the first one's effect). An OM still short of the log's end is EveryOmCatchesUp's.",
    |e| {
        for (i, om) in e.oms.iter().enumerate() {
            // A crash loop leaves the purge incomplete: that is `EveryOmCatchesUp`'s to judge.
            if om.stored != e.last {
                continue;
            }
            for (snapshot, &(row, dir)) in e.purged.iter().zip(&om.left) {
                if row || dir {
                    return Err(format!(
                        "om{}: {snapshot}'s row {}, directory {}",
                        i + 1,
                        if row { "still there" } else { "gone" },
                        if dir { "still there" } else { "gone" }
                    ));
                }
            }
        }
        Ok(())
    },
);

/// The purge methods at a commit; a purge of keys is never in this log, so its fields cite
/// the nearest later commit's methods and are never reached.
const fn purge_cites(purge_request: &'static crate::citation::Citation) -> PurgeCites {
    PurgeCites {
        purge_keys_request: &later::OMKeyPurgeRequest::validateAndUpdateCache,
        purge_keys_response: &later::OMKeyPurgeResponse::addToDBBatch,
        get_snapshot: &later::OmSnapshotManager::getSnapshot__String_boolean,
        loader: &later::OmSnapshotManager::createCacheLoader,
        loader_info: &later::SnapshotUtils::getSnapshotInfo__OzoneManager_String,
        cache_get: &later::SnapshotCache::get,
        dir_exists: &later::SnapshotUtils::checkSnapshotDirExist,
        cache_invalidate: &parent::OmSnapshotManager::invalidateCacheEntry,
        purge_request,
        // Unchanged from f4a3b0e64c0 to 6dfd7d46d14 but for a comment line.
        purge_response: &parent::OMSnapshotPurgeResponse::addToDBBatch,
        chain_remove: &parent::SnapshotChainManager::deleteSnapshot,
    }
}

/// The double buffer's own methods, at the commit its other methods come from.
const BUFFER: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

/// The double buffer is the parent's for every variant (no variant's behaviour differs in it
/// for this log).
const fn with(purge: &'static PurgeCites) -> Cites {
    Cites {
        add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
        flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
        split: &parent::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
        buffer: &BUFFER,
        purge: Some(purge),
        create: None,
    }
}

impl Variant {
    /// The knobs: bookkeeping at apply (as up to HDDS-11152), the variant's purge revision.
    pub const fn java(self) -> Java {
        Java {
            purge_keys_apply: PurgeKeysApply::MayBeAbsent,
            lookup: Lookup::ByNameCacheFirst,
            loader: Loader::CacheFirst,
            bookkeeping: Bookkeeping::AT_APPLY,
            split: Split::AtCreate,
            // No creates in this log: never read.
            create: CreateRevision::HDDS_8685,
            purge: match self {
                Variant::PreHdds9636 => PurgeRevision::HDDS_9636_PARENT,
                Variant::Buggy => PurgeRevision::HDDS_10408_PARENT,
                Variant::Fixed => PurgeRevision::HDDS_10408,
            },
        }
    }

    /// The commits its steps cite.
    pub fn cites(self) -> &'static Cites {
        match self {
            Variant::PreHdds9636 => {
                const {
                    &with(
                        const { &purge_cites(&pre_9636::OMSnapshotPurgeRequest::validateAndUpdateCache) },
                    )
                }
            }
            Variant::Buggy => {
                const {
                    &with(
                        const { &purge_cites(&parent::OMSnapshotPurgeRequest::validateAndUpdateCache) },
                    )
                }
            }
            Variant::Fixed => {
                const {
                    &with(
                        const { &purge_cites(&fix::OMSnapshotPurgeRequest::validateAndUpdateCache) },
                    )
                }
            }
        }
    }
}

impl Scenario for Hdds10408 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-10408";
    const JIRA: &'static str = "HDDS-10408";
    const TITLE: &'static str =
        "the deleting service purges a snapshot twice; the second purge's NPE terminates the OM, on every replay";
    const PROPERTIES: &'static [Property] = &[
        NO_OM_TERMINATION.property(),
        EVERY_OM_CATCHES_UP.property(),
        SNAPSHOT_PURGED.property(),
        DUPLICATE_PURGE_SUBMITTED.required(),
        DUPLICATE_AFTER_FLUSH.required(),
        DUPLICATE_BEFORE_FLUSH.required(),
        REPLAY_TERMINATED.property(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[SnapshotOm::PROBES, requests::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[
        ByConstruction {
            probe: DUPLICATE_PURGE_SUBMITTED,
            why: "the flush threads block in canFlush on the empty buffer; the apply thread queues the first purge and replies, and the service reads the leader's RocksDB before any flush thread runs, without any preemption: a flush slower than the service's next run is the non-preemptive order; other schedules flush first and the service submits nothing",
        },
        ByConstruction {
            probe: DUPLICATE_AFTER_FLUSH,
            why: "after the service submits, the apply thread waits for the submission while the leader's flush thread commits the first purge, so the second purge's apply follows that flush without any preemption; other schedules apply it first (DuplicateBeforeFlush)",
        },
    ];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const LOOP: &[Property] = &[NO_OM_TERMINATION.property(), EVERY_OM_CATCHES_UP.property()];
        match (variant, plan) {
            (Variant::PreHdds9636 | Variant::Buggy, Plan::Leader | Plan::LeaderAndFollower) => {
                Expected::Violates(LOOP)
            }
            (Variant::PreHdds9636 | Variant::Buggy, Plan::Generated) => Expected::Violates(LOOP),
            (Variant::Fixed, Plan::Leader | Plan::LeaderAndFollower | Plan::Generated) => {
                Expected::Holds
            }
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        let oms = match plan {
            Plan::Leader => 1,
            Plan::LeaderAndFollower => 2,
            Plan::Generated => {
                return Box::new(GeneratedCase {
                    variant,
                    bounds: VOCABULARY.bounds,
                })
            }
        };
        Box::new(Prepared { variant, oms })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(GeneratedCase { variant, bounds }))
    }
}

/// 1 the leader's configuration entry, 2 `SnapshotPurge s1` (the service's first purge).
pub fn purge_log() -> RaftLog<SnapshotRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    log.append(purge());
    log
}

fn purge() -> SnapshotRequest {
    SnapshotRequest::SnapshotPurge {
        snapshot: SNAPSHOT.into(),
    }
}

/// One OM's DB (s1's row, `TransactionInfo` 0) and disk (s1's directory, an empty DB).
pub fn om_state() -> (Tables<OmRow>, Arc<Dirs>) {
    om_state_of(&[SNAPSHOT])
}

/// One OM's DB (a row for each of `snapshots`, deleted snapshots, `TransactionInfo` 0) and
/// disk (a directory for each, an empty DB).
pub fn om_state_of(snapshots: &[&str]) -> (Tables<OmRow>, Arc<Dirs>) {
    let mut active = Tables::default();
    for snapshot in snapshots {
        active.put(
            SNAPSHOT_INFO_TABLE,
            snapshot,
            OmRow::Snapshot { last_tx: 0 },
        );
    }
    put_tx_info(&mut active, 0, 0);
    let dirs = Dirs::new(snapshots.iter().map(|snapshot| {
        (
            snapshot.to_string(),
            Arc::new(SnapshotDb::with_state(Tables::default(), None)),
        )
    }));
    (active, Arc::new(dirs))
}

/// An OM at the start: s1 in its chain, its DB not open.
pub fn om(variant: Variant) -> (Arc<SnapshotOm>, Arc<Store<OmRow>>, Arc<Dirs>) {
    om_of(variant, &[SNAPSHOT])
}

/// An OM at the start: `snapshots` in its chain, in order, no DB open.
pub fn om_of(
    variant: Variant,
    snapshots: &[&str],
) -> (Arc<SnapshotOm>, Arc<Store<OmRow>>, Arc<Dirs>) {
    let (active, dirs) = om_state_of(snapshots);
    let store = Arc::new(Store::with_state(active, None));
    let snaps = Snapshots::new(
        Arc::clone(&dirs),
        snapshots.iter().map(|s| s.to_string()),
        &[],
        variant.java(),
        variant.cites(),
    );
    let om = Arc::new(SnapshotOm::new(Arc::clone(&store), snaps, false));
    (om, store, dirs)
}

/// The service's second run, concurrent with the OMs: the apply thread applies 2 to every OM
/// (replying to the service once the leader applied it), waits for the run's decision, and
/// applies 3 if it submitted one; one flush thread per OM. Returns the log as it ended.
pub fn run_service_and_oms(
    oms: &[Arc<SnapshotOm>],
    recorder: &Arc<Recorder>,
) -> RaftLog<SnapshotRequest> {
    let (reply, replied) = channel::unbounded::<()>();
    let (submit, submitted) = channel::unbounded::<bool>();
    // 3 at most; a run that submits nothing settles the flush threads.
    let flushes = SnapshotOm::spawn_flush_threads(oms, recorder, 3);
    let apply = {
        let (oms, me) = (oms.to_vec(), Actor::new("apply", recorder));
        thread::spawn("apply", move || {
            let mut log = purge_log();
            let mut alive = vec![true; oms.len()];
            let mut apply_entry =
                |log: &RaftLog<SnapshotRequest>,
                 index: u64,
                 reply: Option<&channel::Sender<()>>| {
                    let entry = log.entry(index).expect("appended");
                    for (i, (om, alive)) in oms.iter().zip(alive.iter_mut()).enumerate() {
                        if *alive {
                            *alive = om.apply(&me, index, entry.term, &purge());
                        }
                        if let (0, Some(reply)) = (i, reply) {
                            reply.send(());
                        }
                    }
                };
            apply_entry(&log, 2, Some(&reply));
            drop(reply);
            if submitted.recv() == Some(true) {
                let index = log.append(purge());
                apply_entry(&log, index, None);
            } else {
                for om in &oms {
                    om.settle(&me, &parent::OzoneManagerDoubleBuffer::awaitFlush);
                }
            }
            log
        })
    };
    // The service runs on the calling thread (loom counts every thread an execution spawns).
    let me = Actor::new("service", recorder);
    if replied.recv().is_some() {
        // `submitRequest` of 2 returned: the leader applied it.
        let applied = oms[0].snapshots().purge_applied(SNAPSHOT);
        submit.send(deleting_service::second_run(
            &me,
            oms[0].store(),
            SNAPSHOT,
            applied,
        ));
    }
    drop(submit);
    let log = apply.join();
    for flush in flushes {
        flush.join();
    }
    log
}

/// A restart's replay on one thread: apply every entry after `stored`, then flush them
/// (loom counts every thread an execution spawns, and a replay thread per restart of two OMs
/// exceeds its limit). The termination, if any.
pub fn replay(
    om: &SnapshotOm,
    log: &RaftLog<SnapshotRequest>,
    stored: u64,
    actor: &Actor,
) -> Option<String> {
    for (entry, request) in data_after(log, stored) {
        if !om.apply(actor, entry.index, entry.term, request) {
            return om.exits().last().cloned();
        }
    }
    om.flush_thread(actor, log.last_index());
    om.exits().last().cloned()
}

struct Prepared {
    variant: Variant,
    oms: usize,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let started: Vec<_> = (0..self.oms).map(|_| om(self.variant)).collect();
        let oms: Vec<_> = started.iter().map(|(om, _, _)| Arc::clone(om)).collect();
        let log = run_service_and_oms(&oms, recorder);
        recorder.quiesce();
        let me = Actor::new("restart", recorder);
        let purged = vec![SNAPSHOT.to_string()];
        let mut ends = Vec::new();
        for (om, store, dirs) in &started {
            let mut exits = om.exits();
            if !exits.is_empty() {
                restart_after_termination(store, dirs, (java, cites), &log, &me, &mut exits);
            }
            ends.push(OmEnd::of(exits, store, dirs, &purged));
        }
        check(
            &End {
                last: log.last_index(),
                purged,
                oms: ends,
            },
            recorder,
        );
    }
}

/// A terminated OM restarts twice at most, each time replaying the log after its stored index
/// ([`replay`]); each termination is added to `exits`.
fn restart_after_termination(
    store: &Arc<Store<OmRow>>,
    dirs: &Arc<Dirs>,
    (java, cites): (Java, &'static Cites),
    log: &RaftLog<SnapshotRequest>,
    me: &Actor,
    exits: &mut Vec<String>,
) {
    for attempt in 1..=2 {
        let (om, stored) =
            SnapshotOm::restart(Arc::clone(store), Arc::clone(dirs), java, cites, me);
        match replay(&om, log, stored, me) {
            None => break,
            Some(why) => {
                me.probe(&REPLAY_TERMINATED);
                exits.push(format!("restart {attempt}: {why}"));
            }
        }
    }
}

fn check(end: &End, recorder: &Arc<Recorder>) {
    NO_OM_TERMINATION.check_into(end, recorder);
    EVERY_OM_CATCHES_UP.check_into(end, recorder);
    SNAPSHOT_PURGED.check_into(end, recorder);
}

/// The snapshots of `generated`: s1 <- s2 in one bucket, both deleted snapshots with nothing
/// left to move (rows and directories on every OM at the start).
pub const SNAPSHOTS: &[&str] = &["s1", "s2"];

/// The words of a generated workload (`generated`): the leader's service runs and a kill of
/// the OM (module docs, "Generated workloads").
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[
        Word {
            name: "run",
            kind: Kind::Request,
            args: &[],
            doc: "one SnapshotDeletingService run on the leader (SnapshotDeletingTask.call), after the previous run's submitRequest returned: iterates snapshotInfoTable in RocksDB (no table cache) and submitSnapshotPurgeRequest's a SnapshotPurge of every deleted snapshot with nothing left to move that it finds, here one log entry per snapshot, applied by validateAndUpdateCache before the next word",
        },
        Word {
            name: "kill",
            kind: Kind::Fault,
            args: &[],
            doc: "kill -9 of the OM, racing its flush thread: the responses not committed are lost; it restarts (loadSnapshotInfoFromDB, the chain rebuilt from the rows) and Ratis replays the log after the stored index, concurrently with the new flush thread; a clean restart is the kill after the flush caught up",
        },
    ],
    // The largest with a kill that the stateful engine exhausts for `fixed` within 10
    // minutes on two cores (190 s, 4,677,033 states); three runs and a kill (9 workloads)
    // were not exhausted in 600 s. Three runs without a kill are exhausted too (in 60 s).
    bounds: Bounds {
        requests: 2,
        faults: 1,
    },
    allowed: after_a_run,
};

/// `run` and `kill` by index into [`VOCABULARY`]'s words.
const RUN: usize = 0;
const KILL: usize = 1;

/// A kill only once a run submitted something (before, it loses nothing and replays nothing).
fn after_a_run(prefix: &[Item], item: &Item) -> bool {
    item.word != KILL || prefix.iter().any(|i| i.word == RUN)
}

fn purge_of(snapshot: &str) -> SnapshotRequest {
    SnapshotRequest::SnapshotPurge {
        snapshot: snapshot.into(),
    }
}

/// [`SnapshotDeletingTask.call`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::call)
/// on the leader `om`: iterate `snapshotInfoTable` in its RocksDB and return every snapshot
/// whose row is there, in table order, for one purge each
/// ([`submitSnapshotPurgeRequest`](crate::citation::java::hdds_10408_parent::SnapshotDeletingService::SnapshotDeletingTask::submitSnapshotPurgeRequest)).
/// Every row is a deleted snapshot with nothing left to move (`shouldIgnoreSnapshot` and
/// `isSnapshotReclaimable` pass). [`DUPLICATE_PURGE_SUBMITTED`] for a snapshot whose purge
/// this incarnation already applied.
pub fn service_run(actor: &Actor, om: &SnapshotOm) -> Vec<String> {
    let rows = om.store().scan(actor, deleting_service::CALL);
    let found: Vec<String> = SNAPSHOTS
        .iter()
        .filter(|s| rows.get(SNAPSHOT_INFO_TABLE, s).is_some())
        .map(|s| s.to_string())
        .collect();
    if found.is_empty() {
        actor.step_with(deleting_service::CALL, || {
            "no snapshot row: nothing to purge".to_string()
        });
    } else {
        if found.iter().any(|s| om.snapshots().purge_applied(s)) {
            actor.probe(&DUPLICATE_PURGE_SUBMITTED);
        }
        actor.step_with(
            &parent::SnapshotDeletingService::SnapshotDeletingTask::submitSnapshotPurgeRequest,
            || {
                format!(
                    "deleted snapshots with nothing left to move: submit SnapshotPurge {found:?}"
                )
            },
        );
    }
    found
}

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

impl GeneratedCase {
    fn flush_thread(om: &Arc<SnapshotOm>, recorder: &Arc<Recorder>) -> thread::JoinHandle<()> {
        let (om, me) = (Arc::clone(om), Actor::new("flush", recorder));
        // Until the end's `settle` stops it, a kill or a termination.
        thread::spawn("flush", move || om.flush_thread(&me, u64::MAX))
    }
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let me = Actor::new("service", recorder);
        let workload = VOCABULARY.draw_shown(self.bounds, &me);
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let (mut om, store, dirs) = om_of(self.variant, SNAPSHOTS);
        let mut log = RaftLog::new();
        log.start_term(1);
        let mut flush = Self::flush_thread(&om, recorder);
        // The service and the apply thread are one actor: a run starts after the previous
        // run's submit returned, which is after the leader applied it.
        let mut exits = Vec::new();
        let mut alive = true;
        for item in &workload.items {
            let from = match item.word {
                RUN => {
                    let first = log.last_index();
                    for snapshot in service_run(&me, &om) {
                        log.append(purge_of(&snapshot));
                    }
                    first
                }
                _ => {
                    om.kill(&me);
                    flush.join();
                    exits.extend(om.exits());
                    let (next, stored) = SnapshotOm::restart(
                        Arc::clone(&store),
                        Arc::clone(&dirs),
                        java,
                        cites,
                        &me,
                    );
                    om = Arc::new(next);
                    flush = Self::flush_thread(&om, recorder);
                    stored
                }
            };
            for (entry, request) in data_after(&log, from) {
                if !om.apply(&me, entry.index, entry.term, request) {
                    alive = false;
                    break;
                }
            }
            if !alive {
                break;
            }
        }
        if alive {
            om.settle(&me, &parent::OzoneManagerDoubleBuffer::awaitFlush);
        }
        flush.join();
        exits.extend(om.exits());
        recorder.quiesce();
        let me = Actor::new("restart", recorder);
        if !alive {
            restart_after_termination(&store, &dirs, (java, cites), &log, &me, &mut exits);
        }
        let purged: Vec<String> = SNAPSHOTS
            .iter()
            .filter(|s| data_after(&log, 0).any(|(_, r)| *r == purge_of(s)))
            .map(|s| s.to_string())
            .collect();
        let end = End {
            last: log.last_index(),
            oms: vec![OmEnd::of(exits, &store, &dirs, &purged)],
            purged,
        };
        check(&end, recorder);
    }
}
