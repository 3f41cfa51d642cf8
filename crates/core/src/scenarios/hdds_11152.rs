//! HDDS-11152: on a lagging follower, the flush of a purge of keys from a snapshot finds the
//! snapshot already purged by a later entry's apply, and the flush thread terminates the OM.
//!
//! Buggy: the Java at 23f3e5b2e11^ (5659b7e90e7); fixed: at the fix 23f3e5b2e11 (PR #7112).
//! Models: [`crate::models::om::snapshot`]. Historical citations: `@hdds-11152-parent` and
//! `@hdds-11152` in `citations.toml`.
//!
//! # The race
//!
//! After the leader's configuration entry (1), the log holds 2 `PurgeKeys [d1] from s1` and 3
//! `SnapshotPurge s1`. The leader's `SnapshotDeletingService` submits the purge of s1 only
//! once s1's deleted tables are empty in its DB, so on the leader 2 is flushed before 3 is
//! applied. A follower's apply thread can run ahead of its flush thread: it applies 3 before
//! its flush thread has run 2's `addToDBBatch`. At the parent, 3's apply
//! ([`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_11152_parent::OMSnapshotPurgeRequest::validateAndUpdateCache))
//! does three things that each break that later flush: a tombstone for s1 in the
//! `snapshotInfoTable` cache, s1 dropped from the chain's id map
//! ([`deleteSnapshot`](crate::citation::java::hdds_11152_parent::SnapshotChainManager::deleteSnapshot)),
//! and s1's DB closed and dropped from the snapshot cache
//! ([`invalidate`](crate::citation::java::hdds_11152_parent::SnapshotCache::invalidate)). 2's
//! [`addToDBBatch`](crate::citation::java::hdds_11152_parent::OMKeyPurgeResponse::addToDBBatch)
//! then looks s1 up by name through the table cache
//! ([`getSnapshot`](crate::citation::java::hdds_11152_parent::OmSnapshotManager::getSnapshot__String_boolean),
//! [`SnapshotUtils.getSnapshotInfo`](crate::citation::java::hdds_11152_parent::SnapshotUtils::getSnapshotInfo__OzoneManager_String):
//! `KEY_NOT_FOUND`), or loads it through a loader that finds no id, or commits to a DB that
//! was closed under it (`RocksDatabase.acquire`: "Rocks Database is closed"; the model fails
//! the commit to a closed DB). Any of these
//! exceptions reaches
//! [`addToBatch`](crate::citation::java::hdds_11152_parent::OzoneManagerDoubleBuffer::addToBatch),
//! which terminates the OM. The row and directory of s1 are still in place when that happens:
//! nothing but the in-memory state says s1 is gone.
//!
//! The fix: the response looks the snapshot up by id, straight in the snapshot cache
//! ([`getSnapshot(UUID)`](crate::citation::java::hdds_11152::OmSnapshotManager::getSnapshot__UUID));
//! the loader falls back to `getSkipCache`
//! ([`getSnapshotInfo`](crate::citation::java::hdds_11152::OmSnapshotManager::getSnapshotInfo)); the
//! id-map removal and the cache invalidation move from the purge's apply to its flush
//! ([`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_11152::OMSnapshotPurgeResponse::addToDBBatch),
//! [`removeFromSnapshotIdToTable`](crate::citation::java::hdds_11152::SnapshotChainManager::removeFromSnapshotIdToTable)),
//! which runs after every earlier response's flush.
//!
//! # Variants
//!
//! The fix makes five changes the model follows: (1) the purge of keys' response looks the
//! snapshot up by id; (2) the loader falls back to `getSkipCache`; (3) the snapshot purge
//! invalidates the snapshot cache entry at flush and (4) drops the id at flush, both at apply
//! before; (5) the purge of keys' apply reads the row through `SnapshotUtils.getSnapshotInfo`,
//! an error response when absent. The parent's apply-time actions are the tombstone (which
//! the fix keeps), the id map's removal (4) and the invalidation (3).
//!
//! - `buggy`: 23f3e5b2e11^; `fixed`: 23f3e5b2e11.
//! - The parent plus exactly one change: `parent-by-id` (1), `parent-fallback` (2),
//!   `parent-invalidate-at-flush` (3), `parent-id-at-flush` (4), `parent-purge-keys-required`
//!   (5). Each still terminates the follower on both plans: the lookup by name meets the
//!   tombstone, or, with (1) alone, the loader finds no id (the apply dropped it and closed
//!   the DB). No one change is enough.
//! - The fix minus exactly one change, which isolates each apply-time action of the parent:
//!   `fix-by-name` (the tombstone, met by the lookup by name: both plans), `by-id-moved` (the
//!   tombstone, met by the loader without its fallback: `cold` only, `warm` needs no load),
//!   `fix-id-at-apply` (the id map: `cold` only, the loader finds no id), and
//!   `fix-invalidate-at-apply` (the invalidation: both plans, through a flush that opened the
//!   DB before the purge's apply and then commits to the closed DB; in the lagging order
//!   itself the invalidation precedes the load, which reopens the DB through the fallback).
//!   The fix minus (5) behaves as the fix on this log (the row is there when 2 is applied:
//!   one apply thread applies 2 before 3), so it has no variant.
//! - `by-id-fallback`: the fix minus (3) and (4) together: the loader finds no id.
//!
//! None of these hybrids is a proposal from the PR (its review proposed none). A step follows
//! the commit of the knob it stands for: a knob at the fix's value cites `@hdds-11152`, at the
//! parent's `@hdds-11152-parent`; the purge's request cites the parent while it still does
//! some bookkeeping, its response the fix once it does some. `SnapshotCache`,
//! `checkSnapshotDirExist` and the double buffer are cited at the parent for every variant:
//! the fix does not change them.
//!
//! # Plans
//!
//! - `cold`: s1's DB is not open in the snapshot cache when the flush reaches 2.
//! - `warm`: s1's DB is open (a snapshot read or an earlier purge opened it).
//!
//! - `generated`: a workload of [`VOCABULARY`] (at most three requests and one fault by
//!   default, 156 workloads) over s1 and s2, both cold (see "Generated workloads").
//!
//! The `apply` and `flush` threads race freely; the follower's lag is one of the
//! interleavings (apply 3 before flush 2), not forced.
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]'s words are what the follower's apply and flush threads meet of the two
//! services that send these requests, over two deleted snapshots s1 and s2, each with its row,
//! its directory and d1 in its own `deletedTable`, neither open in the snapshot cache
//! ([`generated_state`]); the log starts at index 2 in workload order.
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `purge-keys(s)` | [`OMKeyPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_11152_parent::OMKeyPurgeRequest::validateAndUpdateCache) ([at the fix](crate::citation::java::hdds_11152::OMKeyPurgeRequest::validateAndUpdateCache)), [`OMKeyPurgeResponse.addToDBBatch`](crate::citation::java::hdds_11152_parent::OMKeyPurgeResponse::addToDBBatch) ([at the fix](crate::citation::java::hdds_11152::OMKeyPurgeResponse::addToDBBatch)) | the purge of d1 from s's own DB, as the `KeyDeletingService` sends it: the apply reads s's row (absent: the parent purges the active DB instead, the fix answers with an error response), the flush opens s and commits the delete to its DB |
//! | `snapshot-purge(s)` | [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_11152_parent::OMSnapshotPurgeRequest::validateAndUpdateCache) ([at the fix](crate::citation::java::hdds_11152::OMSnapshotPurgeRequest::validateAndUpdateCache)), [`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_11152_parent::OMSnapshotPurgeResponse::addToDBBatch) ([at the fix](crate::citation::java::hdds_11152::OMSnapshotPurgeResponse::addToDBBatch)) | the purge of s, as the `SnapshotDeletingService` sends it: the tombstone (a second purge of s finds no row and skips it), the bookkeeping where the variant puts it, the directory's deletion and the row's delete at flush (`getSkipCache`: a purge whose row an earlier batch deleted does nothing) |
//! | `restart` (fault) | [`loadSnapshotInfoFromDB`](crate::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB), [`StateMachineUpdater.run`](crate::citation::java::StateMachineUpdater::run) | the follower stops cleanly once every entry before it is flushed, restarts (the id map rebuilt from the rows, the snapshot cache empty) and applies the entries after it as a replay, apply and flush concurrently |
//!
//! A `restart` comes right after a request. A purge of keys from a snapshot after that
//! snapshot's purge, and a second purge of one snapshot, are in the space: the leader's
//! `KeyDeletingService` may resend keys its earlier run read before their purge was flushed,
//! and the `SnapshotDeletingService` may resend a purge. `SnapshotPurged` reads every snapshot
//! the workload purges; `NoOmTermination` every incarnation.
//!
//! Verdicts (each expected invariant watched alone over seeds 0..20, 20,000 executions each,
//! without minimizing: worst and median (rounded down) executions to it; both invariants
//! break in the same execution, a termination leaving the purge unflushed, so their figures
//! are equal):
//!
//! | variant | random | PCT |
//! |---|---|---|
//! | `buggy`, `parent-fallback`, `parent-purge-keys-required` | 28 (5) | 29 (9) |
//! | `parent-by-id` | 23 (6) | 45 (7) |
//! | `parent-invalidate-at-flush` | 29 (5) | 45 (9) |
//! | `parent-id-at-flush` | 33 (5) | 45 (9) |
//! | `fix-by-name` | 20 (4) | 34 (9) |
//! | `by-id-moved` | 31 (6) | 45 (7) |
//! | `fix-invalidate-at-apply` | 117 (23) | 294 (24) |
//! | `fix-id-at-apply` | 33 (7) | 50 (7) |
//! | `by-id-fallback` | 23 (6) | 45 (7) |
//! | `fixed` | held, every seed (`PurgeAppliedBeforeKeysFlushed` in 51,265 of the 400,000 executions) | held, every seed (the probe in 36,331 of 400,000) |
//!
//! The stateful engine exhausts `fixed`'s whole space (three requests and one fault, every
//! interleaving) in 207,608 executions and 255,629 states, 8 s (`bench/exhaustion.json`, at
//! 7f9d3d7), and breaks every other variant, at its 49th execution
//! (`fix-invalidate-at-apply`: its 2,422nd). The default budget (2,000 per engine) is at
//! least twice the worst seed everywhere.
//!
//! Every minimized workload is the written plan, `purge-keys(s1) snapshot-purge(s1)` (cold),
//! but for PCT's `fix-invalidate-at-apply`, which keeps `purge-keys(s1) restart
//! purge-keys(s2) snapshot-purge(s2)` (the replay's flush loads s2, the purge's apply closes
//! it, the commit fails: `cold` again, after a restart). `by-id-moved` and
//! `fix-id-at-apply`, which hold on `warm`, break here because the space starts cold; a
//! `purge-keys(s) purge-keys(s) snapshot-purge(s)` is `warm` (the first flush opened s).
//!
//! What the space adds to the written plans, and finds nothing new: at the parent the lag
//! breaks only a purge of keys from the very snapshot the later entry purges. A purge of s1
//! applied ahead of the flush of a purge of keys from s2 leaves s2 alone: the apply
//! tombstones s1 only (OMSnapshotPurgeRequest.java:119 at 5659b7e90e7), drops s1's id only
//! (SnapshotChainManager.java:369) and closes s1's DB only (OMSnapshotPurgeRequest.java:116),
//! and the response looks s2 up (OMKeyPurgeResponse.java:82). A purge of keys after its
//! snapshot's purge is no failure of the flush: the parent's apply reads no row and purges
//! the active DB (OMKeyPurgeRequest.java:77-78 at 5659b7e90e7), the fix's apply throws
//! `KEY_NOT_FOUND` out of `SnapshotUtils.getSnapshotInfo` (OMKeyPurgeRequest.java:78 at
//! 23f3e5b2e11), caught into an error response (:82). At the fix every lookup that could
//! miss runs before the purge's bookkeeping: the response looks up by id, straight in the
//! snapshot cache (OmSnapshotManager.java:682-683 at 23f3e5b2e11), the loader finds the id
//! until the purge's flush (SnapshotChainManager.java:374, called from
//! OMSnapshotPurgeResponse.java:98) and the row through `getSkipCache` (OmSnapshotManager.java:700-704),
//! and the purge's flush closes the DB (OMSnapshotPurgeResponse.java:95) after every earlier
//! entry's flush, the double buffer flushing in log order. A clean restart only makes the
//! cache cold again. `staged_a_lagging_purge_breaks_only_its_own_snapshot` (shuttle tests)
//! stages these logs.
//!
//! Left out of the vocabulary: the key argument (every purge of keys purges d1: the lookups do
//! not depend on the keys, and no invariant reads a snapshot's own DB); snapshot creates and
//! key creates (the create's flush is hdds-8685's and hdds-7279's; a new snapshot's purge of
//! keys meets the same lookups); a kill inside a flush (the crash between a purge's directory
//! deletion and its batch's commit is hdds-11453's window, open at 23f3e5b2e11: that
//! scenario's plans); `OMSnapshotMoveDeletedKeysRequest` and
//! `OMDirectoriesPurgeRequestWithFSO` (their responses open the snapshot through the same
//! `getSnapshot` at both commits); a second OM (each follower lags on its own).
//!
//! # Properties
//!
//! `NoOmTermination` (the flush thread never terminates the OM) and `SnapshotPurged` (once
//! both entries are flushed, s1's row is gone from the DB and its directory from the disk):
//! both at quiescence. Probe `PurgeAppliedBeforeKeysFlushed` (required): the flush reached 2
//! after 3's apply, the window. `PurgeSwappedWithItsKeys` (counted): one swap took both.
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | a snapshot's id and table key are one name | the lookups that differ (through the table cache or not, via the id map or not) are kept apart |
//! | the chain's order, the next snapshot's deep-clean flag, exclusive sizes (`updatedSnapInfos`) | those writes touch other rows (`generated`'s two snapshots are not chained: see the row on the next snapshot's cache entry below) |
//! | `OMSnapshotMoveDeletedKeysResponse` and `OMDirectoriesPurgeResponseWithFSO` | they open the snapshot through the same `getSnapshot` call as `OMKeyPurgeResponse` at both commits |
//! | `SnapshotCache` reference counts, the soft size limit, the periodic cleanup | no second user of s1's DB; `invalidate` closes the DB whatever its count, as modelled |
//! | the loader's `getSnapshotInfo` read and its `getCacheValue` read are separate steps, as in the Java; the cache map's `compute` lock is held across them | as the Java |
//! | table-cache eviction after a flush | an evicted entry is in the DB with the same value (the commit precedes the eviction) |
//! | Ratis; the restart after a termination | the log is what the leader committed; the first termination is the loss |
//! | the next snapshot's row the purge updates in the table cache (`updateSnapshotInfoAndCache`, `updateSnapshotChainAndCache`: OMSnapshotPurgeRequest.java:146, :204, :214 at 5659b7e90e7) | a put with a value, never a tombstone: a lookup of the next snapshot by name or by the loader still finds it (`generated`'s s2) |
//! | the double buffer's `isRunning` and stop | the flush thread runs until both entries are flushed or the OM terminated |

use crate::choices;
use crate::citation::java::{hdds_11152 as fix, hdds_11152_parent as parent};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::put_tx_info;
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::node::SnapshotOm;
use crate::models::om::snapshot::requests::{
    self, SnapshotRequest, PURGE_APPLIED_BEFORE_KEYS_FLUSHED,
};
use crate::models::om::snapshot::{
    Bookkeeping, Cites, CreateRevision, Dirs, Java, Loader, Lookup, PurgeCites, PurgeKeysApply,
    SnapshotDb, Snapshots, Split, Stage,
};
use crate::models::om::startup::Replayed;
use crate::models::om::{OmRow, DELETED_TABLE, SNAPSHOT_INFO_TABLE};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{ByConstruction, Case, Expected, Scenario};
use crate::sync::Arc;
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds11152;

choices! {
    /// Which Java the snapshot purge and the purge of keys follow.
    pub enum Variant {
        /// 23f3e5b2e11^: lookup by name through the table cache, loader through the cache only, id map and snapshot cache dropped at apply
        Buggy = "buggy",
        /// the parent with the fix's lookup by id only
        ParentById = "parent-by-id",
        /// the parent with the fix's loader fallback to getSkipCache only
        ParentFallback = "parent-fallback",
        /// the parent with the snapshot cache's invalidation moved to flush only
        ParentInvalidateAtFlush = "parent-invalidate-at-flush",
        /// the parent with the id map's removal moved to flush only
        ParentIdAtFlush = "parent-id-at-flush",
        /// the parent with the fix's OMKeyPurgeRequest (an error response for an absent snapshot) only
        ParentPurgeKeysRequired = "parent-purge-keys-required",
        /// the fix with the parent's lookup by name through the table cache
        FixByName = "fix-by-name",
        /// the fix with the parent's loader (through the table cache only)
        ByIdMoved = "by-id-moved",
        /// the fix with the snapshot cache's invalidation back at apply
        FixInvalidateAtApply = "fix-invalidate-at-apply",
        /// the fix with the id map's removal back at apply
        FixIdAtApply = "fix-id-at-apply",
        /// the fix with both the invalidation and the id map's removal back at apply
        ByIdFallback = "by-id-fallback",
        /// 23f3e5b2e11: lookup by id, loader falls back to the DB, id map and cache dropped at flush
        Fixed = "fixed",
    }
}

choices! {
    /// Whether the snapshot's DB is open when the flush reaches the purge of keys.
    pub enum Plan {
        /// s1's DB is not in the snapshot cache: the flush loads it
        Cold = "cold",
        /// s1's DB is already open in the snapshot cache
        Warm = "warm",
        /// every workload of the vocabulary within the bounds: purges of keys from s1 and s2, snapshot purges, a clean restart
        Generated = "generated",
    }
}

/// What every thread left behind.
pub struct End {
    /// Why the OM terminated, each time.
    pub exits: Vec<String>,
    /// The DB.
    pub durable: Tables<OmRow>,
    /// Whether s1's directory exists.
    pub dir_exists: bool,
}

/// The OM never terminates.
pub const NO_OM_TERMINATION: Invariant<End> = Invariant::eventually(
    "NoOmTermination",
    "the OM never terminates",
    "The OM terminates: the double-buffer flush of a purge of keys cannot reach its snapshot (purged by a later entry's apply, or its directory deleted before a crash), and the flush thread's exception ends the OM.",
    |e| {
        match e.exits.first() {
            None => Ok(()),
            Some(first) => Err(format!("the flush thread terminated the OM: {first}")),
        }
    },
);

/// The snapshot is purged in the end.
pub const SNAPSHOT_PURGED: Invariant<End> = Invariant::eventually(
    "SnapshotPurged",
    "once the log is flushed, the purged snapshot's row is gone from the DB and its directory from the disk",
    "The purged snapshot lingers on this OM: its snapshotInfoTable row or its directory (after a crash, an empty DB recreated in the directory's place) outlives the purge its peers completed.",
    |e| {
        let row = e.durable.get(SNAPSHOT_INFO_TABLE, SNAPSHOT).is_some();
        match (row, e.dir_exists) {
            (false, false) => Ok(()),
            (row, dir) => Err(format!(
                "{SNAPSHOT}: row {}, directory {}",
                if row { "still in the DB" } else { "gone" },
                if dir { "still on disk" } else { "gone" }
            )),
        }
    },
);

/// The snapshot the plans purge.
pub const SNAPSHOT: &str = "s1";

/// 23f3e5b2e11^'s knobs.
const PARENT: Java = Java {
    purge_keys_apply: PurgeKeysApply::MayBeAbsent,
    lookup: Lookup::ByNameCacheFirst,
    loader: Loader::CacheFirst,
    bookkeeping: Bookkeeping::AT_APPLY,
    split: Split::AtCreate,
    // No creates in this log: never read; the create's flush at both commits is 1996f3aeb4e's.
    create: CreateRevision::HDDS_11183,
    purge: crate::models::om::snapshot::PurgeRevision::HDDS_10524,
};

/// 23f3e5b2e11's knobs.
const FIX: Java = Java {
    purge_keys_apply: PurgeKeysApply::Required,
    lookup: Lookup::ById,
    loader: Loader::SkipCacheFallback,
    bookkeeping: Bookkeeping::AT_FLUSH,
    ..PARENT
};

/// Each step cites the commit whose code it follows: a knob at the fix's value cites
/// `@hdds-11152`, at the parent's `@hdds-11152-parent`. The purge's request cites the parent
/// while it still does some bookkeeping, its response the fix once it does some.
const fn purge_cites(java: Java) -> PurgeCites {
    let required = !matches!(java.purge_keys_apply, PurgeKeysApply::MayBeAbsent);
    let by_id = matches!(java.lookup, Lookup::ById);
    let fallback = matches!(java.loader, Loader::SkipCacheFallback);
    let id_at_flush = matches!(java.bookkeeping.id_map, Stage::Flush);
    let any_at_apply = matches!(java.bookkeeping.id_map, Stage::Apply)
        || matches!(java.bookkeeping.invalidate, Stage::Apply);
    let any_at_flush = id_at_flush || matches!(java.bookkeeping.invalidate, Stage::Flush);
    PurgeCites {
        purge_keys_request: if required {
            &fix::OMKeyPurgeRequest::validateAndUpdateCache
        } else {
            &parent::OMKeyPurgeRequest::validateAndUpdateCache
        },
        purge_keys_response: if by_id {
            &fix::OMKeyPurgeResponse::addToDBBatch
        } else {
            &parent::OMKeyPurgeResponse::addToDBBatch
        },
        get_snapshot: if by_id {
            &fix::OmSnapshotManager::getSnapshot__UUID
        } else {
            &parent::OmSnapshotManager::getSnapshot__String_boolean
        },
        loader: if fallback {
            &fix::OmSnapshotManager::createCacheLoader
        } else {
            &parent::OmSnapshotManager::createCacheLoader
        },
        loader_info: if fallback {
            &fix::OmSnapshotManager::getSnapshotInfo
        } else {
            &parent::SnapshotUtils::getSnapshotInfo__OzoneManager_String
        },
        cache_get: &parent::SnapshotCache::get,
        cache_invalidate: &parent::SnapshotCache::invalidate,
        dir_exists: &parent::SnapshotUtils::checkSnapshotDirExist,
        purge_request: if any_at_apply {
            &parent::OMSnapshotPurgeRequest::validateAndUpdateCache
        } else {
            &fix::OMSnapshotPurgeRequest::validateAndUpdateCache
        },
        purge_response: if any_at_flush {
            &fix::OMSnapshotPurgeResponse::addToDBBatch
        } else {
            &parent::OMSnapshotPurgeResponse::addToDBBatch
        },
        chain_remove: if id_at_flush {
            &fix::SnapshotChainManager::removeFromSnapshotIdToTable
        } else {
            &parent::SnapshotChainManager::deleteSnapshot
        },
    }
}

/// The double buffer's own methods, at the commit its other methods come from.
const BUFFER: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

/// The double buffer is the parent's for every variant: the fix does not change it.
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
    /// The knobs this variant follows: the parent or the fix, with one change of the fix
    /// added or taken back (two for `by-id-fallback`).
    pub const fn java(self) -> Java {
        const MOVED_INVALIDATE: Bookkeeping = Bookkeeping {
            invalidate: Stage::Flush,
            id_map: Stage::Apply,
        };
        const MOVED_ID: Bookkeeping = Bookkeeping {
            invalidate: Stage::Apply,
            id_map: Stage::Flush,
        };
        match self {
            Variant::Buggy => PARENT,
            Variant::ParentById => Java {
                lookup: FIX.lookup,
                ..PARENT
            },
            Variant::ParentFallback => Java {
                loader: FIX.loader,
                ..PARENT
            },
            Variant::ParentInvalidateAtFlush => Java {
                bookkeeping: MOVED_INVALIDATE,
                ..PARENT
            },
            Variant::ParentIdAtFlush => Java {
                bookkeeping: MOVED_ID,
                ..PARENT
            },
            Variant::ParentPurgeKeysRequired => Java {
                purge_keys_apply: FIX.purge_keys_apply,
                ..PARENT
            },
            Variant::FixByName => Java {
                lookup: PARENT.lookup,
                ..FIX
            },
            Variant::ByIdMoved => Java {
                loader: PARENT.loader,
                ..FIX
            },
            Variant::FixInvalidateAtApply => Java {
                bookkeeping: MOVED_ID,
                ..FIX
            },
            Variant::FixIdAtApply => Java {
                bookkeeping: MOVED_INVALIDATE,
                ..FIX
            },
            Variant::ByIdFallback => Java {
                bookkeeping: PARENT.bookkeeping,
                ..FIX
            },
            Variant::Fixed => FIX,
        }
    }

    /// The commits its steps cite.
    pub fn cites(self) -> &'static Cites {
        use Variant::*;
        match self {
            Buggy => const { &with(const { &purge_cites(Buggy.java()) }) },
            ParentById => const { &with(const { &purge_cites(ParentById.java()) }) },
            ParentFallback => const { &with(const { &purge_cites(ParentFallback.java()) }) },
            ParentInvalidateAtFlush => {
                const { &with(const { &purge_cites(ParentInvalidateAtFlush.java()) }) }
            }
            ParentIdAtFlush => const { &with(const { &purge_cites(ParentIdAtFlush.java()) }) },
            ParentPurgeKeysRequired => {
                const { &with(const { &purge_cites(ParentPurgeKeysRequired.java()) }) }
            }
            FixByName => const { &with(const { &purge_cites(FixByName.java()) }) },
            ByIdMoved => const { &with(const { &purge_cites(ByIdMoved.java()) }) },
            FixInvalidateAtApply => {
                const { &with(const { &purge_cites(FixInvalidateAtApply.java()) }) }
            }
            FixIdAtApply => const { &with(const { &purge_cites(FixIdAtApply.java()) }) },
            ByIdFallback => const { &with(const { &purge_cites(ByIdFallback.java()) }) },
            Fixed => const { &with(const { &purge_cites(Fixed.java()) }) },
        }
    }
}

impl Scenario for Hdds11152 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-11152";
    const JIRA: &'static str = "HDDS-11152";
    const TITLE: &'static str =
        "a lagging follower applies a snapshot's purge before flushing a purge of keys from it";
    const PROPERTIES: &'static [Property] = &[
        NO_OM_TERMINATION.property(),
        SNAPSHOT_PURGED.property(),
        PURGE_APPLIED_BEFORE_KEYS_FLUSHED.required(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[requests::PROBES, SnapshotOm::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: PURGE_APPLIED_BEFORE_KEYS_FLUSHED,
        why: "a flush thread blocked in canFlush on the empty buffer lets the apply thread queue the purge of keys and the snapshot's purge before its first swap without any preemption: the follower's lag is the non-preemptive order; other schedules flush the purge of keys first",
    }];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const BOTH: &[Property] = &[NO_OM_TERMINATION.property(), SNAPSHOT_PURGED.property()];
        use Plan::{Cold, Generated, Warm};
        use Variant::*;
        match (variant, plan) {
            (Fixed, Cold | Warm) | (ByIdMoved | FixIdAtApply, Warm) => Expected::Holds,
            // No one change of the fix is enough: the lookup by name meets the tombstone, or
            // (`parent-by-id`) the loader finds no id.
            (
                Buggy
                | ParentById
                | ParentFallback
                | ParentInvalidateAtFlush
                | ParentIdAtFlush
                | ParentPurgeKeysRequired,
                Cold | Warm,
            ) => Expected::Violates(BOTH),
            // The tombstone, met by the lookup by name.
            (FixByName, Cold | Warm) => Expected::Violates(BOTH),
            // The DB closed under the flush (or, with the id gone too, the loader finds no id).
            (FixInvalidateAtApply | ByIdFallback, Cold | Warm) => Expected::Violates(BOTH),
            // The flush has to load the DB: the loader meets the tombstone (`by-id-moved`) or
            // finds no id (`fix-id-at-apply`).
            (ByIdMoved | FixIdAtApply, Cold) => Expected::Violates(BOTH),
            // Every workload of `cold` and `warm` is in the space (`warm`: an earlier purge
            // of keys opened the DB).
            (Fixed, Generated) => Expected::Holds,
            (_, Generated) => Expected::Violates(BOTH),
        }
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(GeneratedCase { variant, bounds }))
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
            warm: plan == Plan::Warm,
            log: Arc::new(purge_log()),
        })
    }
}

/// 1 the leader's configuration entry, 2 `PurgeKeys [d1] from s1`, 3 `SnapshotPurge s1`,
/// all in term 1.
pub fn purge_log() -> RaftLog<SnapshotRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    log.append(SnapshotRequest::PurgeKeys {
        snapshot: SNAPSHOT.into(),
        keys: vec!["d1".into()],
    });
    log.append(SnapshotRequest::SnapshotPurge {
        snapshot: SNAPSHOT.into(),
    });
    log
}

/// The active DB with s1's row and `TransactionInfo` 0, and s1's directory whose
/// `deletedTable` holds d1.
pub fn snapshot_state() -> (Tables<OmRow>, Arc<Dirs>) {
    let mut active = Tables::default();
    active.put(
        SNAPSHOT_INFO_TABLE,
        SNAPSHOT,
        OmRow::Snapshot { last_tx: 0 },
    );
    put_tx_info(&mut active, 0, 0);
    let mut s1 = Tables::default();
    s1.put(
        DELETED_TABLE,
        "d1",
        OmRow::Key {
            size: 10,
            update_id: 0,
        },
    );
    let dirs = Dirs::new([(
        SNAPSHOT.to_string(),
        Arc::new(SnapshotDb::with_state(s1, None)),
    )]);
    (active, Arc::new(dirs))
}

struct Prepared {
    variant: Variant,
    warm: bool,
    log: Arc<RaftLog<SnapshotRequest>>,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let (active, dirs) = snapshot_state();
        let store = Arc::new(Store::with_state(active, None));
        let open: &[&str] = if self.warm { &[SNAPSHOT] } else { &[] };
        let snaps = Snapshots::new(
            Arc::clone(&dirs),
            [SNAPSHOT.to_string()],
            open,
            self.variant.java(),
            self.variant.cites(),
        );
        let om = Arc::new(SnapshotOm::new(Arc::clone(&store), snaps, false));
        SnapshotOm::run_threads(&[Arc::clone(&om)], &self.log, recorder);
        recorder.quiesce();
        let end = End {
            exits: om.exits(),
            durable: store.durable(),
            dir_exists: dirs.exists(SNAPSHOT),
        };
        NO_OM_TERMINATION.check_into(&end, recorder);
        SNAPSHOT_PURGED.check_into(&end, recorder);
    }
}

/// The snapshots of a generated workload: both deleted, each with its row, its directory and
/// `d1` in its own `deletedTable`; neither open in the snapshot cache.
const SNAPSHOTS: Universe = Universe {
    name: "snapshots",
    values: &["s1", "s2"],
    // No chain order is modelled (Abstractions): two names, nothing more.
    symmetric: true,
};

/// The words of a generated workload (`generated`, module docs "Generated workloads").
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[SNAPSHOTS],
    words: &[
        Word {
            name: "purge-keys",
            kind: Kind::Request,
            args: &[0],
            doc: "OMKeyPurgeRequest of d1 from one snapshot, as the KeyDeletingService sends it: validateAndUpdateCache reads the snapshot's row (23f3e5b2e11^: getSnapshotInfoTable().get, absent: the response purges the active DB; 23f3e5b2e11: SnapshotUtils.getSnapshotInfo, absent: an error response); OMKeyPurgeResponse.addToDBBatch opens the snapshot (getSnapshot by name through the table cache, or by id) and commits the delete to its DB at once",
        },
        Word {
            name: "snapshot-purge",
            kind: Kind::Request,
            args: &[0],
            doc: "OMSnapshotPurgeRequest of one snapshot, as the SnapshotDeletingService sends it: validateAndUpdateCache puts a tombstone for its row into the table cache (a second purge finds none and skips it) and, at 23f3e5b2e11^, drops its id and closes its DB; OMSnapshotPurgeResponse.addToDBBatch (getSkipCache) does those two at 23f3e5b2e11, deletes the checkpoint directory at once and stages the row's delete",
        },
        Word {
            name: "restart",
            kind: Kind::Fault,
            args: &[],
            doc: "the follower stops cleanly once every entry before it is flushed, restarts from its stored TransactionInfo (loadSnapshotInfoFromDB; the id map rebuilt from the snapshotInfoTable rows, the snapshot cache empty) and applies the entries after it as a replay (apply and flush concurrently)",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 1,
    },
    allowed: after_a_request,
};

/// `restart` by index into [`VOCABULARY`]'s words.
const RESTART: usize = 2;

/// A restart comes right after a request (one before any request, or right after another
/// restart, replays what a restart at the same place does).
fn after_a_request(prefix: &[Item], item: &Item) -> bool {
    item.word != RESTART || prefix.last().is_some_and(|last| last.word != RESTART)
}

/// A generated workload as the run meets it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// 1 the leader's configuration entry, then each request.
    pub log: Arc<RaftLog<SnapshotRequest>>,
    /// Each clean restart: the last index flushed before it.
    pub stops: Vec<u64>,
    /// The snapshots some `snapshot-purge` names, in workload order, each once.
    pub purged: Vec<String>,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let mut log = RaftLog::new();
        log.start_term(1);
        let (mut stops, mut purged) = (Vec::new(), Vec::<String>::new());
        for item in &workload.items {
            let name = || SNAPSHOTS.values[item.args[0]].to_string();
            match VOCABULARY.words[item.word].name {
                "purge-keys" => {
                    log.append(SnapshotRequest::PurgeKeys {
                        snapshot: name(),
                        keys: vec!["d1".into()],
                    });
                }
                "snapshot-purge" => {
                    if !purged.contains(&name()) {
                        purged.push(name());
                    }
                    log.append(SnapshotRequest::SnapshotPurge { snapshot: name() });
                }
                _ => stops.push(log.last_index()),
            }
        }
        Shape {
            log: Arc::new(log),
            stops,
            purged,
        }
    }

    /// The log up to `index`.
    pub fn through(&self, index: u64) -> RaftLog<SnapshotRequest> {
        let mut log = RaftLog::new();
        log.start_term(1);
        for (_, request) in crate::models::om::startup::data_after(&self.log, 0)
            .take_while(|(e, _)| e.index <= index)
        {
            log.append(request.clone());
        }
        log
    }
}

/// The active DB with the rows of s1 and s2 and `TransactionInfo` 0, and their directories,
/// each `deletedTable` holding d1 (the generated plan's start).
pub fn generated_state() -> (Tables<OmRow>, Arc<Dirs>) {
    let mut active = Tables::default();
    put_tx_info(&mut active, 0, 0);
    let mut dirs = Vec::new();
    for name in SNAPSHOTS.values {
        active.put(SNAPSHOT_INFO_TABLE, name, OmRow::Snapshot { last_tx: 0 });
        let mut own = Tables::default();
        own.put(
            DELETED_TABLE,
            "d1",
            OmRow::Key {
                size: 10,
                update_id: 0,
            },
        );
        dirs.push((
            (*name).to_string(),
            Arc::new(SnapshotDb::with_state(own, None)),
        ));
    }
    (active, Arc::new(Dirs::new(dirs)))
}

/// What a generated run left behind.
pub struct GeneratedEnd {
    /// Why the OM terminated, each time, over every incarnation.
    pub exits: Vec<String>,
    /// The DB.
    pub durable: Tables<OmRow>,
    /// Each snapshot the workload purges, and whether its directory exists.
    pub purged: Vec<(String, bool)>,
}

/// [`SNAPSHOT_PURGED`] over every snapshot a generated workload purges.
pub const SNAPSHOTS_PURGED: Invariant<GeneratedEnd> = Invariant::eventually(
    SNAPSHOT_PURGED.name,
    SNAPSHOT_PURGED.doc,
    SNAPSHOT_PURGED.harm,
    |e| {
        for (name, dir) in &e.purged {
            let row = e.durable.get(SNAPSHOT_INFO_TABLE, name).is_some();
            if row || *dir {
                return Err(format!(
                    "{name}: row {}, directory {}",
                    if row { "still in the DB" } else { "gone" },
                    if *dir { "still on disk" } else { "gone" }
                ));
            }
        }
        Ok(())
    },
);

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("leader", recorder));
        let shape = Shape::of(&workload);
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let (active, dirs) = generated_state();
        let store = Arc::new(Store::with_state(active, None));
        let ids = SNAPSHOTS.values.iter().map(|s| (*s).to_string());
        let snaps = Snapshots::new(Arc::clone(&dirs), ids, &[], java, cites);
        let om = Arc::new(SnapshotOm::new(Arc::clone(&store), snaps, false));
        // Each incarnation runs to its clean stop, the last one to the log's end.
        let mut targets = shape.stops.iter().copied().chain([shape.log.last_index()]);
        let first = targets.next().unwrap_or_default();
        SnapshotOm::run_threads(
            &[Arc::clone(&om)],
            &Arc::new(shape.through(first)),
            recorder,
        );
        recorder.quiesce();
        let mut exits = om.exits();
        let me = Actor::new("restart", recorder);
        for target in targets {
            // The first termination is the loss (Abstractions): no restart after it.
            if !exits.is_empty() {
                break;
            }
            let (om, stored) =
                SnapshotOm::restart(Arc::clone(&store), Arc::clone(&dirs), java, cites, &me);
            let om = Arc::new(om);
            if let Replayed::Terminated { index, why } =
                om.replay(&shape.through(target), stored, &me)
            {
                exits.push(format!("after the restart, replay of index {index}: {why}"));
            }
        }
        recorder.quiesce();
        let end = GeneratedEnd {
            exits,
            durable: store.durable(),
            purged: shape
                .purged
                .iter()
                .map(|name| (name.clone(), dirs.exists(name)))
                .collect(),
        };
        let exits = End {
            exits: end.exits.clone(),
            durable: Tables::default(),
            dir_exists: false,
        };
        NO_OM_TERMINATION.check_into(&exits, recorder);
        SNAPSHOTS_PURGED.check_into(&end, recorder);
    }
}
