//! HDDS-11453: a snapshot's purge flushed in one batch with earlier writes to that snapshot's
//! DB; a crash between the purge's directory deletion and the batch commit makes the restart
//! replay those writes against a snapshot whose directory is gone.
//!
//! Buggy: the Java at 5feb9eacd83^ (703c4d50f89); fixed: at the fix 5feb9eacd83 (PR #7188),
//! which changes only `OzoneManagerDoubleBuffer`. Models: [`crate::models::om::snapshot`].
//! Historical citations: `@hdds-11453-parent` and `@hdds-11453` in `citations.toml`.
//!
//! # The race
//!
//! After the leader's configuration entry (1), the log holds 2 `PurgeKeys [d1] from s1` and 3
//! `SnapshotPurge s1` (the same log as [`super::hdds_11152`]; at this commit HDDS-11152 is
//! fixed). When the flush thread's swap takes 2 and 3 together, the parent flushes them as one
//! batch ([`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_11453_parent::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot)
//! splits only at snapshot creates): 2's
//! [`addToDBBatch`](crate::citation::java::hdds_11453_parent::OMKeyPurgeResponse::addToDBBatch)
//! commits the delete of d1 to s1's own DB at once and stages s1's row (with
//! `lastTransactionInfo` = 2); 3's
//! [`addToDBBatch`](crate::citation::java::hdds_11453_parent::OMSnapshotPurgeResponse::addToDBBatch)
//! deletes s1's checkpoint directory at once and stages the row's delete; then the batch, with
//! `TransactionInfo` = 3, commits. If the OM process dies between the directory deletion and
//! that commit, the DB still says `TransactionInfo` 0 and holds s1's row, and the directory is
//! gone. The restart replays 2 and 3 as Ratis does: the `StateMachineUpdater` hands them to the
//! apply thread while the double buffer's flush thread runs, so the flush of 2 races with the
//! apply of 3. 2's apply
//! ([`validateAndUpdateCache`](crate::citation::java::hdds_11453_parent::OMKeyPurgeRequest::validateAndUpdateCache))
//! finds the row and puts it into the table cache; its flush loads s1 into the snapshot cache
//! ([`createCacheLoader`](crate::citation::java::hdds_11453_parent::OmSnapshotManager::createCacheLoader)),
//! which asks the table cache whether s1's row is there (`isSnapshotInCache`, a value that is
//! not a delete marker):
//!
//! - **the flush of 2 before the apply of 3**: the row is in the table cache, so the snapshot's
//!   metadata manager waits for the directory and fails
//!   ([`checkSnapshotDirExist`](crate::citation::java::hdds_11453_parent::SnapshotUtils::checkSnapshotDirExist));
//!   `addToBatch` terminates the OM, nothing is committed, and the next restart is where this
//!   one started;
//! - **the apply of 3 before the flush of 2**: 3's apply has put a delete marker for s1's row in
//!   the table cache; the loader reads the row from RocksDB (`getSkipCache`), finds it not in the
//!   cache and opens s1's DB with `createIfMissing`: an empty DB where the directory was. The
//!   purge of keys is written into it, 3's flush deletes that directory again and the batch
//!   commits: the OM starts, having written to a snapshot DB that no longer exists
//!   (`NoReplayAgainstPurgedSnapshot` breaks either way).
//!
//! So the harm of a restart is a termination on some restarts, decided by the timing of one
//! replay's flush against its next apply: not a deterministic crash loop. The model takes
//! two restarts; each may go either way, so the OM may terminate twice and never purge s1
//! (`SnapshotPurged`). Under a uniform random scheduler, of 2,915 crashed executions (each with
//! one or two restarts) 31 had a terminating restart and 2,914 a recovering one (probes
//! `ReplayTerminated`, `ReplayRecovered`): the apply thread, which does not wait for the flush,
//! usually applies 3 first, as an experiment on a copy of the Java with concurrent replay saw
//! most runs recover at their first restart. The model's earlier replay (apply, then flush,
//! per entry) reached only the first branch and called it a crash loop.
//!
//! The fix ([`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_11453::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot),
//! [`isStandaloneBatchCmdTypes`](crate::citation::java::hdds_11453::OzoneManagerDoubleBuffer::isStandaloneBatchCmdTypes))
//! puts a snapshot purge in a batch of its own, so 2 is committed (`TransactionInfo` 2)
//! before 3 deletes the directory, and a crash inside 3's batch replays only 3, which finds the
//! row, deletes the already-missing directory (`FileUtils.deleteDirectory` of a missing
//! directory does nothing) and commits.
//!
//! **Java wins over the one-line summary:** the bug needs a stop between the directory deletion
//! and the commit. Without one (`no-crash`), the parent's single batch commits and both
//! variants hold; the PR's description says the same ("the previous transactions ... would
//! start failing on replay").
//!
//! # Plans
//!
//! - `crash`: the OM process dies right after the flush thread deletes a snapshot directory,
//!   before that batch commits; then it restarts and replays the log after its stored index
//!   (apply and flush concurrently), and, if that replay terminates, restarts once more.
//! - `no-crash`: no fault.
//! - `generated`: every workload of [`VOCABULARY`] within its bounds (at most three requests
//!   and one fault by default: 258 workloads); see "Generated workloads". `crash` is its
//!   workload `purge-keys(d1,s1) snapshot-purge(s1) kill-after-dir-delete` over s1 alone.
//!
//! | plan | `buggy` | `fixed` |
//! |---|---|---|
//! | `crash` | breaks `NoReplayAgainstPurgedSnapshot`, `NoOmTermination`, `SnapshotPurged` | holds |
//! | `no-crash` | holds | holds |
//! | `generated` | breaks the three (minimized: `purge-keys(d1,s1) snapshot-purge(s1) kill-after-dir-delete`) | holds |
//!
//! # Properties
//!
//! `NoReplayAgainstPurgedSnapshot` (no flush opens a snapshot whose directory was deleted),
//! `NoOmTermination`, `SnapshotPurged`: at quiescence, over every incarnation of the OM.
//! Probe `PurgeSwappedWithItsKeys` (required): a swap took 3 together with 2, the window the
//! fix splits. Probes `ReplayTerminated` and `ReplayRecovered` (counted): a restart after the
//! crash terminated, or replayed every entry. Probe `KilledInSharedSwap` (counted, on
//! `generated`): the kill fired after a purge's directory deletion in the flush of a swap that
//! also took a purge of keys from that snapshot: the window, kill included. On `generated`,
//! `SnapshotPurged` asks it of every snapshot the log purges.
//!
//! # Generated workloads (`generated`)
//!
//! The OM starts with s1's and s2's rows (`TransactionInfo` 0) and both snapshots'
//! directories, each `deletedTable` holding d1 and d2; the model keeps no chain between
//! them, so both universes are symmetric. The log is the leader's configuration entry, then
//! one entry per request; the faults write no entry.
//!
//! | word | kind | Java (at 703c4d50f89 unless the variant says) | what it does |
//! |---|---|---|---|
//! | `purge-keys(d, s)` | request | [`OMKeyPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_11453_parent::OMKeyPurgeRequest::validateAndUpdateCache), [`OMKeyPurgeResponse.addToDBBatch`](crate::citation::java::hdds_11453_parent::OMKeyPurgeResponse::addToDBBatch) | the `KeyDeletingService`'s purge of d from s's `deletedTable`: the row (or an error response when it is gone, OMKeyPurgeRequest.java:82-84) cached with `lastTransactionInfo`; at flush s opened and the delete committed to its DB at once, the row staged |
//! | `snapshot-purge(s)` | request | [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_11453_parent::OMSnapshotPurgeRequest::validateAndUpdateCache), [`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_11453_parent::OMSnapshotPurgeResponse::addToDBBatch), the variant's [`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_11453::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot) | the `SnapshotDeletingService`'s purge of s: the row's delete cached; at flush the row read skipping the cache, the snapshot closed, its directory deleted at once, the row's delete staged; `fixed` flushes it in a batch of its own |
//! | `kill-after-dir-delete` | fault | (the process dies) | in the flush of the `snapshot-purge` right before it, right after its directory deletion, before its batch commits: `crash`'s kill; the OM restarts and replays the log after its stored index, and restarts once more if that replay terminates |
//! | `restart` | fault | [`loadSnapshotInfoFromDB`](crate::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB), [`StateMachineUpdater.run`](crate::citation::java::StateMachineUpdater::run) | a clean stop once every entry before it is flushed, a restart from the stored `TransactionInfo` (the id map rebuilt from the rows), the entries after it applied as a replay, apply and flush concurrently |
//!
//! A snapshot is purged once at most (a second purge of one snapshot is hdds-10408's); a
//! purge of keys may name a purged snapshot (the `KeyDeletingService` racing the purge, as in
//! hdds-11152: its apply answers with an error, which writes nothing); a kill comes right
//! after the `snapshot-purge` whose flush it kills and fires in whichever incarnation flushes
//! it; a `restart` right after a request.
//!
//! Verdicts (the plan's budget, 70,000 random and 2,000 PCT executions at depth 3; each
//! expected invariant watched alone over seeds 0..20, worst and median executions to it):
//!
//! | variant | breaks | random | PCT (depth 3) | stateful (120 s) |
//! |---|---|---|---|---|
//! | `buggy` | `NoReplayAgainstPurgedSnapshot` | 164 (31.5) | 90 (22) | at 45 |
//! | `buggy` | `NoOmTermination` | 4,403 (1,096) | 314 (49.5) | at 3,059 |
//! | `buggy` | `SnapshotPurged` | 32,535 (10,366) | 470 (92) | at 66,154 |
//! | `fixed` | nothing | held in 70,000 on each of seeds 0..20 (window `KilledInSharedSwap` in 842 at least; seed 0: 933, `PurgeSwappedWithItsKeys` 3,805) | held in 2,000 on each seed (25 at least; seed 0: 42, 134) | held, exhausted: every workload of at most three requests and one fault (258 workloads), 1,058,664 executions, 2,156,557 states, 47 s (`KilledInSharedSwap` reached in 56,008 of them) |
//!
//! The minimized workload of each break is `purge-keys(d1,s1) snapshot-purge(s1)
//! kill-after-dir-delete`: `crash` itself. The space adds no other way to break the parent:
//!
//! - a purge of keys from **another** snapshot in the purge's batch is replayed harmlessly:
//!   its flush opens that snapshot by id (OMKeyPurgeResponse.java:82 at 703c4d50f89), whose
//!   directory is there;
//! - **two snapshot purges** in one batch: a kill after the first one's directory deletion
//!   replays both; each reads its uncommitted row skipping the cache
//!   (OMSnapshotPurgeResponse.java:84-89) and deletes its directory, the first one's already
//!   gone (`FileUtils.deleteDirectory` of a missing directory does nothing, :131);
//! - a purge of keys **after** the snapshot's purge is answered with an error at apply
//!   (`SnapshotUtils.getSnapshotInfo` finds the cache's delete marker and throws
//!   `KEY_NOT_FOUND`, SnapshotUtils.java:82-84; OMKeyPurgeRequest.java:82-84), before and
//!   after the kill;
//! - a clean restart before or after the purge replays committed entries or none.
//!
//! The fix holds over the space: its split (OzoneManagerDoubleBuffer.java:452-453, 464-471
//! at 5feb9eacd83) commits every response before a snapshot purge, so at the kill every purge
//! of keys from that snapshot is committed, and the replay starts at the purge.
//!
//! Left out of the vocabulary:
//! - snapshot create (`OMSnapshotCreateRequest`): alone in its batch at both commits, and
//!   hdds-7279 and hdds-8685 cover its flush. The fix's test is `getCmdType`, the parent's
//!   `hasCreateSnapshotResponse` (OzoneManagerDoubleBuffer.java:448-450 at 703c4d50f89), so
//!   the fix also puts a create's error response alone; no verdict here depends on it;
//! - key creates and deletes of the active DB: their rows are batched, idempotent on replay,
//!   and no snapshot's directory is read or written by them;
//! - a kill elsewhere than after a purge's directory deletion: before it the directory
//!   stays, after the commit nothing of the batch is replayed (the Abstractions).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | the crash point is fixed right after the directory deletion (also on `generated`) | a stop before the deletion leaves the directory (the replay finds it), a stop after the commit leaves nothing of the batch to replay: only this window makes the batching matter |
//! | the restart's replay: the restart actor is Ratis' updater and the apply thread, a `replay-flush` thread the flush thread ([`SnapshotOm::replay`](crate::models::om::snapshot::node::SnapshotOm::replay)); two restarts at most | each restart races the same flush against the same apply; a third would add nothing the second does not show |
//! | the snapshot's metadata manager waits for the directory before failing (`checkSnapshotDirExist` after a timeout) | only the failure matters |
//! | the loader's "empty DB in place" branch (`createIfMissing`) when the row is not in the table cache | modelled, but this log always caches the row first; `NoReplayAgainstPurgedSnapshot` fires either way |
//! | `OMSnapshotPurgeResponse`'s `updatedSnapInfos`, the chain's neighbours, the snapshot lock around the deletion | one snapshot, no neighbours, no SST filtering service |
//! | `lastTransactionInfo`'s use by the background services (skip a snapshot with a flush in flight) | the services are not modelled; the log is what the leader committed |
//! | a crash loses the double buffer's queued responses; Ratis replays them | as the Java: the replay starts after the stored index |
//! | the rows of s1's own DB after the restart | the invariants are about the active DB, the directory and the OM's life |

use super::hdds_11152::{purge_log, snapshot_state, NO_OM_TERMINATION, SNAPSHOT, SNAPSHOT_PURGED};
use crate::choices;
use crate::citation::java::{hdds_11453 as fix, hdds_11453_parent as parent};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::put_tx_info;
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::node::{SnapshotOm, PURGE_SWAPPED_WITH_ITS_KEYS};
use crate::models::om::snapshot::requests::{self, Crash, SnapshotRequest};
use crate::models::om::snapshot::restarts::{Restarts, Watch};
use crate::models::om::snapshot::{
    Bookkeeping, Cites, CreateRevision, Dirs, Java, Loader, Lookup, PurgeCites, PurgeKeysApply,
    SnapshotDb, Snapshots, Split,
};
use crate::models::om::startup::Replayed;
use crate::models::om::{OmRow, DELETED_TABLE, SNAPSHOT_INFO_TABLE};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Budget, ByConstruction, Case, Expected, Scenario};
use crate::sync::Arc;
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds11453;

choices! {
    /// How the double buffer splits its ready buffer.
    pub enum Variant {
        /// 5feb9eacd83^: only a snapshot create is alone in its batch
        Buggy = "buggy",
        /// 5feb9eacd83: a snapshot create or a snapshot purge is alone in its batch
        Fixed = "fixed",
    }
}

choices! {
    /// Whether the OM process dies inside the purge's batch.
    pub enum Plan {
        /// the process dies right after the flush deletes a snapshot directory, then restarts
        Crash = "crash",
        /// no fault
        NoCrash = "no-crash",
        /// every workload of the vocabulary within the bounds: purges of keys from a snapshot and snapshot purges of two snapshots, a kill after a purge's directory deletion, a clean restart
        Generated = "generated",
    }
}

/// Snapshots opened after their directory was deleted.
pub struct Opened {
    /// Their names, over every incarnation of the OM.
    pub purged: Vec<String>,
}

/// A restart's replay terminated the OM: its flush of the purge of keys ran before the apply of
/// the snapshot's purge (the row still in the table cache).
pub const REPLAY_TERMINATED: Probe =
    Probe::new("ReplayTerminated", "a restart's replay terminated the OM");

/// A restart's replay completed after the crash: the apply of the snapshot's purge preceded
/// the flush of the purge of keys, so the loader opened an empty DB in the directory's place.
pub const REPLAY_RECOVERED: Probe = Probe::new(
    "ReplayRecovered",
    "a restart after the crash replayed every entry without terminating",
);

/// A kill fired in the flush of a swap that took a snapshot's purge together with a purge of
/// keys from that snapshot, right after the purge's directory deletion: the window the fix
/// splits, inside a generated workload.
pub const KILLED_IN_SHARED_SWAP: Probe = Probe::new(
    "KilledInSharedSwap",
    "the process died after a purge's directory deletion, in the flush of a swap that also took a purge of keys from that snapshot",
);

/// No replay against a purged snapshot.
pub const NO_REPLAY_AGAINST_PURGED_SNAPSHOT: Invariant<Opened> = Invariant::eventually(
    "NoReplayAgainstPurgedSnapshot",
    "no flush opens a snapshot whose directory was deleted",
    "After a crash inside the snapshot purge's flush, the replayed purge of keys opens the snapshot whose directory is already deleted: the OM terminates, or RocksDB creates an empty DB in the directory's place and the purge writes into it.",
    |o| match o.purged.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "a flush opened {first} after its directory was deleted"
        )),
    },
);

/// The double buffer's own methods, at the commit its other methods come from.
const BUFFER: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

impl Variant {
    /// The commits its steps cite: the parent's, and the fix's split for `fixed`.
    pub fn cites(self) -> &'static Cites {
        const PURGE: PurgeCites = PurgeCites {
            purge_keys_request: &parent::OMKeyPurgeRequest::validateAndUpdateCache,
            purge_keys_response: &parent::OMKeyPurgeResponse::addToDBBatch,
            get_snapshot: &parent::OmSnapshotManager::getSnapshot__UUID,
            loader: &parent::OmSnapshotManager::createCacheLoader,
            loader_info: &parent::OmSnapshotManager::getSnapshotInfo,
            cache_get: &parent::SnapshotCache::get,
            cache_invalidate: &parent::SnapshotCache::invalidate,
            dir_exists: &parent::SnapshotUtils::checkSnapshotDirExist,
            purge_request: &parent::OMSnapshotPurgeRequest::validateAndUpdateCache,
            purge_response: &parent::OMSnapshotPurgeResponse::addToDBBatch,
            chain_remove: &parent::SnapshotChainManager::removeFromSnapshotIdToTable,
        };
        const BUGGY: Cites = Cites {
            add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
            flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
            split: &parent::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
            buffer: &BUFFER,
            purge: Some(&PURGE),
            create: None,
        };
        const FIXED: Cites = Cites {
            split: &fix::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
            ..BUGGY
        };
        match self {
            Variant::Buggy => &BUGGY,
            Variant::Fixed => &FIXED,
        }
    }

    /// The knobs this variant follows.
    pub fn java(self) -> Java {
        Java {
            purge_keys_apply: PurgeKeysApply::RequiredAndRecorded,
            lookup: Lookup::ById,
            loader: Loader::SkipCacheFallback,
            bookkeeping: Bookkeeping::AT_FLUSH,
            split: match self {
                Variant::Buggy => Split::AtCreate,
                Variant::Fixed => Split::AtCreateAndPurge,
            },
            // No creates in this log: never read.
            create: CreateRevision::HDDS_11183,
            purge: crate::models::om::snapshot::PurgeRevision::HDDS_10524,
        }
    }
}

impl Scenario for Hdds11453 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-11453";
    const JIRA: &'static str = "HDDS-11453";
    const TITLE: &'static str =
        "a snapshot purge batched with earlier writes to its DB: a crash replays them against a deleted directory";
    const PROPERTIES: &'static [Property] = &[
        NO_REPLAY_AGAINST_PURGED_SNAPSHOT.property(),
        NO_OM_TERMINATION.property(),
        SNAPSHOT_PURGED.property(),
        PURGE_SWAPPED_WITH_ITS_KEYS.required(),
        REPLAY_TERMINATED.property(),
        REPLAY_RECOVERED.property(),
        KILLED_IN_SHARED_SWAP.property(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[SnapshotOm::PROBES, requests::PROBES];
    // `SnapshotPurged` watched alone needs both restarts to terminate, each only when its
    // flush of the purge of keys wins the race against its next apply: over seeds 0..20 a
    // random walk needed up to 4,019 executions on `buggy/crash` (median about 1,000).
    const EXECUTIONS: Budget = Budget {
        random: 20_000,
        pct: 2_000,
        ..Budget::CHECK
    };
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            Plan::Generated => GENERATED_BUDGET,
            Plan::Crash | Plan::NoCrash => Self::EXECUTIONS,
        }
    }
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: PURGE_SWAPPED_WITH_ITS_KEYS,
        why: "a flush thread blocked in canFlush on the empty buffer lets the apply thread queue the purge of keys and the snapshot's purge before its first swap without any preemption, so one swap takes both; other schedules swap the purge of keys alone",
    }];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL_THREE: &[Property] = &[
            NO_REPLAY_AGAINST_PURGED_SNAPSHOT.property(),
            NO_OM_TERMINATION.property(),
            SNAPSHOT_PURGED.property(),
        ];
        match (variant, plan) {
            (Variant::Buggy, Plan::Crash | Plan::Generated) => Expected::Violates(ALL_THREE),
            // Without a stop the single batch commits: the bug needs the crash.
            (Variant::Buggy | Variant::Fixed, Plan::NoCrash)
            | (Variant::Fixed, Plan::Crash | Plan::Generated) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                variant,
                bounds: VOCABULARY.bounds,
            });
        }
        Box::new(Prepared {
            variant,
            crash: plan == Plan::Crash,
            log: Arc::new(purge_log()),
        })
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

struct Prepared {
    variant: Variant,
    crash: bool,
    log: Arc<RaftLog<SnapshotRequest>>,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let (active, dirs) = snapshot_state();
        let store = Arc::new(Store::with_state(active, None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [SNAPSHOT.to_string()], &[], java, cites);
        let om = Arc::new(SnapshotOm::new(Arc::clone(&store), snaps, self.crash));
        SnapshotOm::run_threads(&[Arc::clone(&om)], &self.log, recorder);
        recorder.quiesce();
        let mut exits = om.exits();
        let mut purged = om.snapshots().opened_purged();
        if om.crashed() {
            let me = Actor::new("restart", recorder);
            for attempt in 1..=2 {
                let (om, stored) =
                    SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
                let om = Arc::new(om);
                let replayed = om.replay(&self.log, stored, &me);
                purged.extend(om.snapshots().opened_purged());
                match replayed {
                    Replayed::Completed => {
                        me.probe(&REPLAY_RECOVERED);
                        break;
                    }
                    Replayed::Terminated { index, why } => {
                        me.probe(&REPLAY_TERMINATED);
                        exits.push(format!("restart {attempt}, replay of index {index}: {why}"));
                    }
                }
            }
        }
        let durable: Tables<OmRow> = store.durable();
        NO_REPLAY_AGAINST_PURGED_SNAPSHOT.check_into(&Opened { purged }, recorder);
        let end = super::hdds_11152::End {
            exits,
            durable,
            dir_exists: dirs.exists(SNAPSHOT),
        };
        NO_OM_TERMINATION.check_into(&end, recorder);
        SNAPSHOT_PURGED.check_into(&end, recorder);
    }
}

/// The budget of `generated`: each expected invariant watched alone over seeds 0..20, random
/// needs up to 32,535 executions (`SnapshotPurged`, median 10,366), PCT up to 470 (the same,
/// median 92); see the module docs, "Generated workloads".
const GENERATED_BUDGET: Budget = Budget {
    random: 70_000,
    pct: 2_000,
    ..Budget::CHECK
};

const KEYS: Universe = Universe {
    name: "keys",
    values: &["d1", "d2"],
    // Both snapshots' deletedTables hold both keys.
    symmetric: true,
};

const SNAPSHOTS: Universe = Universe {
    name: "snapshots",
    values: &["s1", "s2"],
    // Both hold the same rows, and the model keeps no chain between them.
    symmetric: true,
};

/// The words of a generated workload (`generated`): the two requests whose flushes write to a
/// snapshot's DB or delete its directory, a kill inside the purge's flush, a clean restart.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[KEYS, SNAPSHOTS],
    words: &[
        Word {
            name: "purge-keys",
            kind: Kind::Request,
            args: &[0, 1],
            doc: "OMKeyPurgeRequest with a snapshotTableKey, as the KeyDeletingService sends it for a snapshot (703c4d50f89): validateAndUpdateCache reads the snapshot's row (an error response when it is gone) and caches it with lastTransactionInfo; OMKeyPurgeResponse.addToDBBatch opens the snapshot (OmSnapshotManager.getSnapshot) and commits the key's delete to its DB at once, then stages the row",
        },
        Word {
            name: "snapshot-purge",
            kind: Kind::Request,
            args: &[1],
            doc: "OMSnapshotPurgeRequest of one snapshot, as the SnapshotDeletingService sends it (703c4d50f89): validateAndUpdateCache caches the row's delete; OMSnapshotPurgeResponse.addToDBBatch reads the row skipping the cache, closes the snapshot, deletes its checkpoint directory at once and stages the row's delete; the fix 5feb9eacd83 flushes it in a batch of its own (splitReadyBufferAtCreateSnapshot)",
        },
        Word {
            name: "kill-after-dir-delete",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM process dies in the flush of the snapshot-purge right before it, right after its checkpoint directory is deleted, before its batch commits: crash's fault; the OM restarts (loadSnapshotInfoFromDB) and replays the log after its stored index, and once more if that replay terminates",
        },
        Word {
            name: "restart",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM stops cleanly once every entry before it is flushed, restarts from its stored TransactionInfo (loadSnapshotInfoFromDB, the id map rebuilt from the snapshotInfoTable rows) and applies the entries after it as a replay (apply and flush concurrently)",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 1,
    },
    allowed: purge_path,
};

/// One item of a generated workload.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Drawn {
    PurgeKeys { key: String, snapshot: String },
    SnapshotPurge { snapshot: String },
    Kill,
    Restart,
}

impl Drawn {
    fn of(item: &Item) -> Drawn {
        let value = |arg: usize, universe: &Universe| universe.values[item.args[arg]].to_string();
        match VOCABULARY.words[item.word].name {
            "purge-keys" => Drawn::PurgeKeys {
                key: value(0, &KEYS),
                snapshot: value(1, &SNAPSHOTS),
            },
            "snapshot-purge" => Drawn::SnapshotPurge {
                snapshot: value(0, &SNAPSHOTS),
            },
            "kill-after-dir-delete" => Drawn::Kill,
            _ => Drawn::Restart,
        }
    }
}

/// What the services can send and where a fault may come: a snapshot purge only of a snapshot
/// not purged before (a second purge of one snapshot is hdds-10408's); a purge of keys from
/// any snapshot, also one purged before (the `KeyDeletingService` racing the purge, as in
/// hdds-11152: its apply then answers with an error); a kill right after the snapshot purge
/// whose flush it kills; a clean restart right after a request.
fn purge_path(prefix: &[Item], item: &Item) -> bool {
    let last = prefix.last().map(Drawn::of);
    match Drawn::of(item) {
        Drawn::PurgeKeys { .. } => true,
        Drawn::SnapshotPurge { snapshot } => !prefix
            .iter()
            .any(|i| matches!(Drawn::of(i), Drawn::SnapshotPurge { snapshot: s } if s == snapshot)),
        Drawn::Kill => matches!(last, Some(Drawn::SnapshotPurge { .. })),
        Drawn::Restart => matches!(
            last,
            Some(Drawn::PurgeKeys { .. } | Drawn::SnapshotPurge { .. })
        ),
    }
}

/// A workload as the run meets it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// 1 the leader's configuration entry, then each request.
    pub log: Arc<RaftLog<SnapshotRequest>>,
    /// Each kill: the index of the snapshot purge whose flush it kills.
    pub kills: Vec<u64>,
    /// Each clean restart: the last index flushed before it.
    pub stops: Vec<u64>,
    /// The snapshots the log purges.
    pub purged: Vec<String>,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let mut log = RaftLog::new();
        log.start_term(1);
        let (mut kills, mut stops, mut purged) = (Vec::new(), Vec::new(), Vec::new());
        for item in &workload.items {
            match Drawn::of(item) {
                Drawn::PurgeKeys { key, snapshot } => {
                    log.append(SnapshotRequest::PurgeKeys {
                        snapshot,
                        keys: vec![key],
                    });
                }
                Drawn::SnapshotPurge { snapshot } => {
                    purged.push(snapshot.clone());
                    log.append(SnapshotRequest::SnapshotPurge { snapshot });
                }
                Drawn::Kill => kills.push(log.last_index()),
                Drawn::Restart => stops.push(log.last_index()),
            }
        }
        Shape {
            log: Arc::new(log),
            kills,
            stops,
            purged,
        }
    }
}

/// The active DB with s1's and s2's rows and `TransactionInfo` 0, and both snapshots'
/// directories, each `deletedTable` holding d1 and d2.
pub fn two_snapshots() -> (Tables<OmRow>, Arc<Dirs>) {
    let mut active = Tables::default();
    let mut dirs = Vec::new();
    for snapshot in SNAPSHOTS.values {
        active.put(
            SNAPSHOT_INFO_TABLE,
            snapshot,
            OmRow::Snapshot { last_tx: 0 },
        );
        let mut db = Tables::default();
        for key in KEYS.values {
            db.put(
                DELETED_TABLE,
                key,
                OmRow::Key {
                    size: 10,
                    update_id: 0,
                },
            );
        }
        dirs.push((
            snapshot.to_string(),
            Arc::new(SnapshotDb::with_state(db, None)),
        ));
    }
    put_tx_info(&mut active, 0, 0);
    (active, Arc::new(Dirs::new(dirs)))
}

/// What a generated run ended with, for `SnapshotPurged`.
pub struct Purges {
    /// Each snapshot the log purges: its row still in the DB, its directory still on disk.
    pub left: Vec<(String, bool, bool)>,
}

/// `SnapshotPurged` over a generated workload: every snapshot the log purges is gone, row
/// and directory (the written plans' [`SNAPSHOT_PURGED`] for s1).
pub const SNAPSHOTS_PURGED: Invariant<Purges> = Invariant::eventually(
    "SnapshotPurged",
    "once the log is flushed, the purged snapshot's row is gone from the DB and its directory from the disk",
    "The purged snapshot lingers on this OM: its snapshotInfoTable row or its directory (after a crash, an empty DB recreated in the directory's place) outlives the purge its peers completed.",
    |p| match p.left.iter().find(|(_, row, dir)| *row || *dir) {
        None => Ok(()),
        Some((snapshot, row, dir)) => Err(format!(
            "{snapshot}: row {}, directory {}",
            if *row { "still in the DB" } else { "gone" },
            if *dir { "still on disk" } else { "gone" }
        )),
    },
);

/// Terminations after which the OM is restarted again: two restarts at most, as `crash`.
const RESTARTS_AFTER_TERMINATION: usize = 2;

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

/// What the generated case looks at as each incarnation ends: the snapshots it opened after
/// their directory was deleted, and whether a kill fired in a swap that took a snapshot's
/// purge together with a purge of keys from it ([`KILLED_IN_SHARED_SWAP`]).
struct Incarnations {
    purged: Vec<String>,
}

impl Watch for Incarnations {
    fn ended(&mut self, om: &SnapshotOm) {
        self.purged.extend(om.snapshots().opened_purged());
    }

    fn killed(&mut self, me: &Actor, om: &SnapshotOm, _kill: (u64, Crash)) {
        om.crashed_in_shared_swap()
            .probe_if(me, &KILLED_IN_SHARED_SWAP, |c| *c);
    }
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("client", recorder));
        let shape = Shape::of(&workload);
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let (active, dirs) = two_snapshots();
        let store = Arc::new(Store::with_state(active, None));
        let kills: Vec<(u64, Crash)> = shape
            .kills
            .iter()
            .map(|index| (*index, Crash::AfterDirDelete))
            .collect();
        let restarts = Restarts {
            store: &store,
            dirs: &dirs,
            java,
            cites,
            log: &shape.log,
            stops: &shape.stops,
            kills: &kills,
            terminations: RESTARTS_AFTER_TERMINATION,
            completed: &REPLAY_RECOVERED,
            terminated: &REPLAY_TERMINATED,
        };
        let ids = SNAPSHOTS.values.iter().map(|s| s.to_string());
        let snaps = Snapshots::new(Arc::clone(&dirs), ids, &[], java, cites);
        let mut watch = Incarnations { purged: Vec::new() };
        let exits = restarts.run(snaps, recorder, &mut watch);
        let purged = watch.purged;
        let durable: Tables<OmRow> = store.durable();
        NO_REPLAY_AGAINST_PURGED_SNAPSHOT.check_into(&Opened { purged }, recorder);
        let end = super::hdds_11152::End {
            exits,
            durable: durable.clone(),
            dir_exists: dirs.exists(SNAPSHOT),
        };
        NO_OM_TERMINATION.check_into(&end, recorder);
        let left = shape
            .purged
            .iter()
            .map(|s| {
                (
                    s.clone(),
                    durable.get(SNAPSHOT_INFO_TABLE, s).is_some(),
                    dirs.exists(s),
                )
            })
            .collect();
        SNAPSHOTS_PURGED.check_into(&Purges { left }, recorder);
    }
}
