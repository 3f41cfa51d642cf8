//! HDDS-10590: each OM's `SstFilteringService` marks a snapshot filtered by a locked
//! read-modify-put of its `SnapshotInfo` straight to RocksDB, while a snapshot purge on the
//! apply thread rewrites the same row through the table cache and the double buffer without
//! that lock; one of the two updates is lost.
//!
//! Buggy: the Java at 7da5ecb5855^ (a38570a7993); fixed: at the fix 7da5ecb5855 (PR #6456),
//! which makes `OMSnapshotPurgeRequest` and `OMSnapshotSetPropertyRequest` take the write
//! `SNAPSHOT_LOCK` the filter takes. Models: [`crate::models::om::snapshot::chain`] (the purge
//! at apply, the table cache of `SnapshotInfo` objects, the filter's run). Historical
//! citations: `@hdds-10590-parent`, `@hdds-10590` in `citations.toml`.
//!
//! # What the Java does
//!
//! - The filter runs on every OM on its own, outside Ratis (`BackgroundService`, one thread).
//!   [`SstFilteringTask.call`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::call)
//!   iterates `snapshotInfoTable` (RocksDB) and for each row not `sstFiltered` calls
//!   [`markSSTFilteredFlagForSnapshot`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::markSSTFilteredFlagForSnapshot)
//!   (SstFilteringService.java:123-144 at a38570a7993): the write `SNAPSHOT_LOCK`, then
//!   [`Table.get`](crate::citation::java::hdds_10590_parent::TypedTable::get) (the table cache
//!   first, a copy of the cached object: `SnapshotInfo`'s codec copies deeply,
//!   TypedTable.java:225-238, SnapshotInfo.java:57-61, 694-715), `setSstFiltered(true)`, and
//!   [`Table.put`](crate::citation::java::hdds_10590_parent::TypedTable::put), an unbatched
//!   RocksDB write that neither Ratis nor the table cache sees. Both stories told of it are
//!   half true: it does write outside Ratis, and its read is fresh (under its lock, through the
//!   cache), not the iterator's; it is stale only relative to a purge that does not take the
//!   lock.
//! - The purge runs on the apply thread:
//!   [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeRequest::validateAndUpdateCache)
//!   (OMSnapshotPurgeRequest.java:86-110 at a38570a7993) reads the next snapshot through
//!   `get`, clears its `deepClean`
//!   ([`updateSnapshotInfoAndCache`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeRequest::updateSnapshotInfoAndCache), :123-138),
//!   gives it the purged snapshot's previous ids
//!   ([`updateSnapshotChainAndCache`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeRequest::updateSnapshotChainAndCache), :146-230),
//!   puts those objects into the table cache, and the purged row's delete too (:108-109). No
//!   lock. The flush thread then writes the objects the request kept
//!   ([`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeResponse::addToDBBatch),
//!   :78-102) and deletes the purged row.
//!   [`OMSnapshotSetPropertyRequest`](crate::citation::java::hdds_10590_parent::OMSnapshotSetPropertyRequest::validateAndUpdateCache)
//!   is the same shape (get, set the exclusive size or a deep-clean flag, cache, flush) on the
//!   same apply thread: purge and set-property never race each other (the apply thread runs
//!   one at a time); each races the filter.
//!
//! # The races
//!
//! `purge-next` (s1 <- s2 in one bucket, s1 deleted and filtered, s2 deep cleaned and not
//! filtered; the log purges s1; the filter runs once):
//!
//! 1. The filter locks s2 and reads its row from RocksDB (previous s1, deepClean).
//! 2. The purge applies (no lock at the parent) and flushes: s2's row is previous none, not
//!    deepClean; s1's row is gone.
//! 3. The filter puts s2's row it read, now sstFiltered: **previous s1 and deepClean are back**.
//!    A restart's `loadFromSnapshotInfoTable` finds s2's previous s1 not in the chain and
//!    fails ("Snapshot chain corruption"), and the `KeyDeletingService` never deep cleans s2
//!    again. On this OM only: the others' filters ran at other times (replicas diverge).
//!
//! The other order loses the filter's flag: the filter's put lands between the purge's apply
//! and its flush, and the flush writes the purge's object, not filtered. s2 is filtered again
//! on a later run (the work is idempotent: a cost, not a corruption).
//!
//! **The fix closes the first race and not the second.** At 7da5ecb5855 the purge takes the
//! write locks of the purged snapshot and of its next ones
//! ([`acquireLock`](crate::citation::java::hdds_10590::OMSnapshotPurgeRequest::acquireLock),
//! OMSnapshotPurgeRequest.java:161-178, taken at :112-123 and :241-258, released at :142-147 at
//! the fix), so the filter's get-put no longer straddles the purge's apply. The locks are
//! released when the apply returns, before the flush: a filter that locks s2 after the apply
//! reads the purge's object (a copy, from the cache), puts it filtered, and the flush then
//! writes the purge's object without the flag. `SstFilteredKept` breaks at the fix too
//! (`purge-next`); the same holds for the set-property request, whose lock
//! ([`validateAndUpdateCache`](crate::citation::java::hdds_10590::OMSnapshotSetPropertyRequest::validateAndUpdateCache),
//! OMSnapshotSetPropertyRequest.java:72-85, 123-127 at the fix) also ends with its apply.
//!
//! `purge-unfiltered` (s1 not filtered yet, s2 filtered): the filter visits s1, which
//! `getActiveSnapshot` reports deleted, and marks it anyway (SstFilteringService.java:197-214).
//! At the parent a read of s1 before the purge's apply and a put after its flush **puts the
//! purged snapshot's row back** (`PurgedStaysPurged`). At the fix the purge waits for s1's
//! lock; the filter's put precedes its apply, whose flush deletes the row. A filter that comes
//! after the apply reads null (the cache's delete, or RocksDB once flushed) and dereferences
//! it (`snapshotInfo.setSstFiltered`, SstFilteringService.java:135-137): a
//! `NullPointerException` the task's `catch (RocksDBException | IOException)` does not catch
//! (:217), at the parent and at the fix (probe `FilterNpe`): the run ends; the next one starts
//! over.
//!
//! `set-property` (s1 <- s2, s2 not filtered; the log's entry adds 10 to s2's exclusive size,
//! [`OMSnapshotSetPropertyRequest.validateAndUpdateCache`](crate::citation::java::hdds_10590_parent::OMSnapshotSetPropertyRequest::validateAndUpdateCache),
//! OMSnapshotSetPropertyRequest.java:65-103 at a38570a7993, written at flush by
//! [`OMSnapshotSetPropertyResponse.addToDBBatch`](crate::citation::java::hdds_10590_parent::OMSnapshotSetPropertyResponse::addToDBBatch)):
//! the same two lost updates. At the parent a filter put straddling the request's apply and
//! flush writes s2's old exclusive size back (`PropertyKept`: the snapshot's exclusive size
//! is under-reported on that OM); a put between apply and flush loses the flag, at the fix too.
//!
//! # Plans
//!
//! | plan | rows | log | filter |
//! |---|---|---|---|
//! | `purge-next` | s1 <- s2 in `/v/b`, s1 filtered | 2 `SnapshotPurge s1` | one run from the start, marks s2 |
//! | `purge-unfiltered` | the same, s2 filtered | 2 `SnapshotPurge s1` | one run from the start, marks s1 |
//! | `set-property` | as `purge-next` | 2 `SetSnapshotProperty s2` (+10) | one run from the start, marks s2 |
//! | `generated` | the same, neither filtered | a workload of [`VOCABULARY`] (at most three requests and one filter run by default, 201 workloads), from index 2 in workload order | from the drawn `filter` on, if drawn (see "Generated workloads") |
//!
//! # Properties
//!
//! At quiescence, over this OM's RocksDB: `PurgeUpdateKept` (s2's row has the purge's previous
//! ids and no deepClean), `ChainLoadsAtRestart` (`loadFromSnapshotInfoTable` over the rows
//! succeeds), `SstFilteredKept` (every row the filter marked that still exists is
//! sstFiltered), `PurgedStaysPurged` (s1's row is gone), `PropertyKept` (`set-property`: s2's
//! exclusive size is the one added; the first two and `PurgedStaysPurged` are the purge
//! plans'). Probes: `FilterDuringPurge`
//! (required: the filter read a row under its lock between a purge's apply and its flush),
//! `FilterStraddledPurge` (counted: its read preceded a purge's apply, its put followed),
//! `FilterNpe` (counted).
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]'s words are what the modelled path meets on one OM: the two requests that
//! rewrite a `SnapshotInfo` on the apply thread and the filter run that rewrites one beside
//! them, over the snapshots s1 <- s2, both deep cleaned, neither filtered yet (one run
//! marks both, s1 first; the filter marks a deleted snapshot as an active one).
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `purge(s)` | [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeRequest::validateAndUpdateCache) (at the fix under [`acquireLock`](crate::citation::java::hdds_10590::OMSnapshotPurgeRequest::acquireLock)), [`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_10590_parent::OMSnapshotPurgeResponse::addToDBBatch) | the purge of a snapshot not purged before, as the `SnapshotDeletingService` sends it: its next gets its previous ids and loses its deepClean through the cache, its own row is deleted |
//! | `set-property(s)` | [`OMSnapshotSetPropertyRequest.validateAndUpdateCache`](crate::citation::java::hdds_10590_parent::OMSnapshotSetPropertyRequest::validateAndUpdateCache) (at the fix [under the lock](crate::citation::java::hdds_10590::OMSnapshotSetPropertyRequest::validateAndUpdateCache)), [`OMSnapshotSetPropertyResponse.addToDBBatch`](crate::citation::java::hdds_10590_parent::OMSnapshotSetPropertyResponse::addToDBBatch) | adds 10 to the exclusive size of a snapshot not purged before (the `KeyDeletingService` sends it for the active snapshot it deep cleaned) |
//! | `filter` (fault: an environment event) | [`SstFilteringTask.call`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::call), [`markSSTFilteredFlagForSnapshot`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::markSSTFilteredFlagForSnapshot) | one run of the service on its own thread, outside Ratis, starting once the apply thread has applied the requests drawn before it, racing the rest and every flush |
//!
//! The invariants read the workload: `PurgeUpdateKept` when s1 is purged (s2 is its only
//! next), `PurgedStaysPurged` for every purged snapshot, `PropertyKept` for every snapshot a
//! set-property request named whose row exists (the sum added).
//!
//! Verdicts (random 25,000 and PCT 4,000 executions at depth 3, this plan's budget; each
//! expected invariant watched alone over seeds 0..20 without minimizing: worst and median
//! (rounded down) executions to it; the stateful engine's first violation of each watched
//! alone, at 551c89d):
//!
//! | variant | breaks | random | PCT | stateful |
//! |---|---|---|---|---|
//! | `buggy` | `PurgeUpdateKept`, `ChainLoadsAtRestart` | 11,473 (2,384) | 936 (224) | at 1,400 |
//! | | `PurgedStaysPurged` | 4,165 (890) | 450 (68) | at 270 |
//! | | `PropertyKept` | 4,430 (981) | 666 (117) | at 1,600 |
//! | | `SstFilteredKept` | 19 (5) | 36 (7) | at 18 |
//! | `fixed` | `SstFilteredKept` | 21 (6) | 35 (8) | at 22 |
//! | | `PurgeUpdateKept`, `ChainLoadsAtRestart`, `PurgedStaysPurged`, `PropertyKept` hold | held, every seed | held, every seed | held, each watched alone for 60 s (977,404 to 1,117,246 executions, 3.5 to 3.9 million states, not exhausted) |
//!
//! In every run that holds, `FilterDuringPurge` fired.
//!
//! Minimized workloads (seed 0): `buggy` breaks `PurgeUpdateKept` and `ChainLoadsAtRestart`
//! on `filter purge(s2) purge(s1)` (random) and `set-property(s1) filter purge(s1)` (PCT),
//! `PurgedStaysPurged` on `filter purge(s1)` (PCT; the written `purge-unfiltered`),
//! `PropertyKept` on `filter set-property(s1)` (random) and `filter set-property(s2)` (PCT),
//! `SstFilteredKept` on `filter purge(s1)` (random); `fixed` breaks `SstFilteredKept` on
//! `set-property(s1) filter` (both engines): the filter starts after the request's apply
//! (its lock released), reads the request's cached object, puts it flagged, and the flush
//! writes the request's object without the flag. What the space adds to the written plans:
//! the lost flag at the fix with the filter starting after the apply (the written plans start
//! it first), on s1 as well as s2, and the straddles with two requests in one log (the
//! purge of s1 after a purge of s2 or a set-property of s1). Nothing breaks at the fix that
//! holds on every written plan.
//!
//! Left out of the vocabulary: a second purge of one snapshot (the deleting service's resend,
//! hdds-10408's scenario) and a set-property request after its snapshot's purge (an error
//! response that writes nothing); a second filter run (the service runs on one thread, so
//! runs are sequential: a second one only meets what the first left, which is visible at
//! quiescence already); snapshot creates (the create takes no snapshot lock and its row is
//! new: the filter marks it or not, the purge of its previous is hdds-8832's race); restarts
//! and kills (the lost updates are in the committed rows `ChainLoadsAtRestart` loads; a kill
//! needs the replay the model leaves out); a second OM (each OM's filter races its own
//! apply thread, the replicas only diverge).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | one OM | the filter and its put are per OM; a second OM only diverges by timing |
//! | the next active snapshot is the next path and global snapshot, one object for `deepClean` and the previous ids | at the parent the response writes the deep-clean object, then the chain object (a copy of the cache entry the first put), the same row in the end; the fix re-reads under the lock |
//! | the filtering itself (`getActiveSnapshot`, `deleteFilesNotMatchingPrefix`) | it touches the snapshot's own DB, not its row; a deleted snapshot is marked either way |
//! | the iterator reads each row when the loop reaches it | RocksDB's iterator sees the rows as of its creation; a row deleted meanwhile is still visited there, which adds NPE executions only |
//! | the table cache keeps its entries after the flush | a flushed entry's object and its committed row are equal; the filter's put leaves the cache alone in both |
//! | `set-property` sets the exclusive size only (not the replicated size, `deepCleanedDeletedDir`, `deepClean`) | each is a field of the same object read, set and written the same way |
//! | one request per log | purge and set-property run on the one apply thread and never race each other; each races the filter alone |
//! | snapshot ids and table keys are one name; `SNAPSHOT_LOCK` is one mutex per snapshot | the lock is keyed by volume, bucket and name, one per snapshot |

use crate::choices;
use crate::citation::java::{hdds_10590 as fix, hdds_10590_parent as parent};
use crate::engine::{Budget, Engine};
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::chain::{
    self, Chain, ChainCites, ChainJava, ChainOm, ChainRequest, CreateGuard, FilterCites,
    GlobalPrevOfNext, Info, FILTER_DURING_PURGE,
};
use crate::models::om::snapshot::Stage;
use crate::properties::{Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{BeyondReach, Case, Expected, Scenario};
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};
use std::collections::BTreeMap;

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds10590;

choices! {
    /// Which requests take the filter's SNAPSHOT_LOCK.
    pub enum Variant {
        /// 7da5ecb5855^: only the filter takes it
        Buggy = "buggy",
        /// 7da5ecb5855: the purge takes it for its apply
        Fixed = "fixed",
    }
}

choices! {
    /// The rows and what the filter finds to mark.
    pub enum Plan {
        /// s1 <- s2; purge s1 while the filter marks s2
        PurgeNext = "purge-next",
        /// s1 <- s2; purge s1 while the filter marks s1
        PurgeUnfiltered = "purge-unfiltered",
        /// s1 <- s2; add to s2's exclusive size while the filter marks s2
        SetProperty = "set-property",
        /// every workload of the vocabulary within its bounds: purges, set-property requests, a filter run
        Generated = "generated",
    }
}

/// The bucket.
pub const PATH: &str = "/v/b";

/// The purge's (or set-property request's) log index.
pub const PURGE_INDEX: u64 = 2;

/// The exclusive size the `set-property` plan's request adds to s2's.
pub const EXCLUSIVE_SIZE: u64 = 10;

/// What the OM ended with.
pub struct End {
    /// The snapshots the log purged.
    pub purged: Vec<String>,
    /// The exclusive size each snapshot the log's set-property requests named should have.
    pub sizes: BTreeMap<String, u64>,
    /// The committed rows.
    pub rows: BTreeMap<String, Info>,
    /// The snapshots the filter marked.
    pub marked: Vec<String>,
}

impl End {
    /// What the log of `requests` should leave, with the OM's `rows` and the filter's
    /// `marked`.
    pub fn of(requests: &[ChainRequest], rows: BTreeMap<String, Info>, marked: Vec<String>) -> End {
        let mut end = End {
            purged: Vec::new(),
            sizes: BTreeMap::new(),
            rows,
            marked,
        };
        for request in requests {
            match request {
                ChainRequest::Purge { snapshot } => end.purged.push(snapshot.clone()),
                ChainRequest::SetProperty {
                    snapshot,
                    exclusive_size,
                } => *end.sizes.entry(snapshot.clone()).or_default() += exclusive_size,
                ChainRequest::Create { .. } => {}
            }
        }
        end
    }
}

/// The purge's rewrite of the next snapshot survives.
pub const PURGE_UPDATE_KEPT: Invariant<End> = Invariant::eventually(
    "PurgeUpdateKept",
    "s2's committed row has the purged s1's previous ids and no deepClean",
    "The SST filter's put of a row it read before the purge wrote back s2's old previous ids (the purged snapshot) and deepClean over the purge's flush.",
    |e| {
        // s1's only next is s2 (the only chain the plans have).
        let purged_s1 = e.purged.iter().any(|p| p == "s1");
        match e.rows.get("s2").filter(|_| purged_s1) {
            Some(s2) if s2.path_prev.is_some() || s2.global_prev.is_some() || s2.deep_clean => {
                Err(format!("s2's row {s2}"))
            }
            _ => Ok(()),
        }
    },
);

/// The OM can restart.
pub const CHAIN_LOADS_AT_RESTART: Invariant<End> = Invariant::eventually(
    "ChainLoadsAtRestart",
    "loadFromSnapshotInfoTable over the committed rows succeeds: the OM can restart",
    "The OM cannot restart: a committed row names a purged snapshot as its previous.",
    |e| {
        Chain::load(e.rows.iter().map(|(k, v)| (k.as_str(), v)))
            .map(|_| ())
            .map_err(|why| format!("SnapshotChainManager(): {why}"))
    },
);

/// The filter's flag survives.
pub const SST_FILTERED_KEPT: Invariant<End> = Invariant::eventually(
    "SstFilteredKept",
    "every snapshot the filter marked whose row exists is sstFiltered in RocksDB",
    "A purge's flush wrote a row the filter had marked without the flag: the snapshot is filtered again.",
    |e| {
        for key in &e.marked {
            if let Some(row) = e.rows.get(key) {
                if !row.sst_filtered {
                    return Err(format!("{key} marked, its row {row}"));
                }
            }
        }
        Ok(())
    },
);

/// The set-property request's size survives.
pub const PROPERTY_KEPT: Invariant<End> = Invariant::eventually(
    "PropertyKept",
    "after the set-property requests, each named snapshot's committed exclusive size (if its row exists) is the sum they added",
    "The SST filter's put of a row it read before the set-property request wrote back s2's old exclusive size over the request's flush.",
    |e| {
        for (key, size) in &e.sizes {
            match e.rows.get(key) {
                Some(row) if row.exclusive_size != *size => {
                    return Err(format!("{key}'s row {row}, {size} added"))
                }
                _ => {}
            }
        }
        Ok(())
    },
);

/// The purged snapshot's row stays gone.
pub const PURGED_STAYS_PURGED: Invariant<End> = Invariant::eventually(
    "PurgedStaysPurged",
    "every purged snapshot's row is gone after its purge",
    "The SST filter's put of a row it read before the purge brought the purged snapshot's row back.",
    |e| {
        for key in &e.purged {
            if let Some(row) = e.rows.get(key) {
                return Err(format!("{key}'s row {row} after its purge"));
            }
        }
        Ok(())
    },
);

/// The double buffer's own methods, at the commit its other methods come from.
const BUFFER: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

const PARENT_CITES: ChainCites = ChainCites {
    // No create in these logs.
    create: None,
    delete: &parent::SnapshotChainManager::deleteSnapshot,
    purge_chain: &parent::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
    purge_request: &parent::OMSnapshotPurgeRequest::validateAndUpdateCache,
    purge_response: &parent::OMSnapshotPurgeResponse::addToDBBatch,
    flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
    add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
    buffer: &BUFFER,
    // `ChainLoadsAtRestart` runs the load over the end's rows; no OM restarts in the logs.
    load: &parent::SnapshotChainManager::loadFromSnapshotInfoTable,
    set_property: Some((
        &parent::OMSnapshotSetPropertyRequest::validateAndUpdateCache,
        &parent::OMSnapshotSetPropertyResponse::addToDBBatch,
    )),
};

const FIX_CITES: ChainCites = ChainCites {
    purge_chain: &fix::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
    purge_request: &fix::OMSnapshotPurgeRequest::validateAndUpdateCache,
    purge_response: &fix::OMSnapshotPurgeResponse::addToDBBatch,
    // The response is unchanged by the fix.
    set_property: Some((
        &fix::OMSnapshotSetPropertyRequest::validateAndUpdateCache,
        &parent::OMSnapshotSetPropertyResponse::addToDBBatch,
    )),
    ..PARENT_CITES
};

/// The filter's methods (the fix does not change `SstFilteringService`).
pub const FILTER_CITES: FilterCites = FilterCites {
    call: &parent::SstFilteringService::SstFilteringTask::call,
    mark: &parent::SstFilteringService::SstFilteringTask::markSSTFilteredFlagForSnapshot,
    put: &parent::TypedTable::put,
};

impl Variant {
    /// The knobs of the variant.
    pub fn java(self) -> ChainJava {
        match self {
            Variant::Buggy => ChainJava {
                create: CreateGuard::ChainMonitor,
                purge_chain: Stage::Apply,
                global_prev_of_next: GlobalPrevOfNext::GlobalPrevious,
                get_copies: true,
                snapshot_locks_taken: false,
                purge_tombstone: true,
                cites: &PARENT_CITES,
            },
            Variant::Fixed => ChainJava {
                snapshot_locks_taken: true,
                cites: &FIX_CITES,
                ..Variant::Buggy.java()
            },
        }
    }
}

impl Scenario for Hdds10590 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-10590";
    const JIRA: &'static str = "HDDS-10590";
    const TITLE: &'static str =
        "the SST filter's locked read-modify-put of a SnapshotInfo races the snapshot purge's unlocked rewrite";
    const PROPERTIES: &'static [Property] = &[
        PURGE_UPDATE_KEPT.property(),
        CHAIN_LOADS_AT_RESTART.property(),
        SST_FILTERED_KEPT.property(),
        PURGED_STAYS_PURGED.property(),
        PROPERTY_KEPT.property(),
        FILTER_DURING_PURGE.required(),
    ];
    const MODEL_PROBES: &'static [&'static [crate::properties::Probe]] = &[chain::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            // Each expected invariant watched alone over seeds 0..20 on `generated`: random
            // needs up to 11,473 executions (buggy's PurgeUpdateKept, median 2,384), PCT up
            // to 936 (the same, median 224).
            Plan::Generated => Budget {
                random: 25_000,
                pct: 4_000,
                ..Budget::CHECK
            },
            _ => Self::EXECUTIONS,
        }
    }
    const BEYOND_REACH: &'static [BeyondReach] = &[
        BeyondReach {
            engine: Engine::Random,
            variants: &["buggy"],
            plans: &["purge-next"],
            invariant: PURGE_UPDATE_KEPT.name,
            window: &[FILTER_DURING_PURGE],
            measured: "none in 50,000 executions (seed 0), nor in 2,000 for each of 20 seeds: the filter must stay off the processor between its get and its put through the purge's whole apply and flush; PCT and the stateful engine break it",
        },
        BeyondReach {
            engine: Engine::Random,
            variants: &["buggy"],
            plans: &["purge-next"],
            invariant: CHAIN_LOADS_AT_RESTART.name,
            window: &[FILTER_DURING_PURGE],
            measured: "as PurgeUpdateKept's: the same straddling put breaks both",
        },
        BeyondReach {
        engine: Engine::Random,
        variants: &["buggy"],
        plans: &["purge-unfiltered"],
        invariant: PURGED_STAYS_PURGED.name,
        window: &[FILTER_DURING_PURGE],
        measured: "none in 50,000 executions for each of seeds 0, 1 and 2: the filter must stay off the processor between its get and its put through the purge's whole apply and flush; PCT and the stateful engine break it",
    }
    ];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const LOST_PURGE: &[Property] = &[
            PURGE_UPDATE_KEPT.property(),
            CHAIN_LOADS_AT_RESTART.property(),
            SST_FILTERED_KEPT.property(),
        ];
        const LOST_FLAG: &[Property] = &[SST_FILTERED_KEPT.property()];
        const RESURRECTED: &[Property] = &[PURGED_STAYS_PURGED.property()];
        const LOST_SIZE: &[Property] = &[PROPERTY_KEPT.property(), SST_FILTERED_KEPT.property()];
        const GENERATED_BUGGY: &[Property] = &[
            PURGE_UPDATE_KEPT.property(),
            CHAIN_LOADS_AT_RESTART.property(),
            SST_FILTERED_KEPT.property(),
            PURGED_STAYS_PURGED.property(),
            PROPERTY_KEPT.property(),
        ];
        match (variant, plan) {
            (Variant::Buggy, Plan::PurgeNext) => Expected::Violates(LOST_PURGE),
            // The purge's locks end with its apply; its flush writes the row unflagged.
            (Variant::Fixed, Plan::PurgeNext) => Expected::Violates(LOST_FLAG),
            (Variant::Buggy, Plan::PurgeUnfiltered) => Expected::Violates(RESURRECTED),
            (Variant::Fixed, Plan::PurgeUnfiltered) => Expected::Holds,
            (Variant::Buggy, Plan::SetProperty) => Expected::Violates(LOST_SIZE),
            // The request's lock ends with its apply too.
            (Variant::Fixed, Plan::SetProperty) => Expected::Violates(LOST_FLAG),
            (Variant::Buggy, Plan::Generated) => Expected::Violates(GENERATED_BUGGY),
            (Variant::Fixed, Plan::Generated) => Expected::Violates(LOST_FLAG),
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                variant,
                bounds: VOCABULARY.bounds,
            });
        }
        Box::new(Prepared { variant, plan })
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

/// s1 <- s2 in [`PATH`]: s1 deleted, s2 deep cleaned; which one the filter has done decides
/// what it marks (`generated`: neither).
pub fn initial(plan: Plan) -> Vec<(&'static str, Info)> {
    let (s1_filtered, s2_filtered) = match plan {
        Plan::PurgeNext | Plan::SetProperty => (true, false),
        Plan::PurgeUnfiltered => (false, true),
        Plan::Generated => (false, false),
    };
    let s1 = Info {
        path: PATH.into(),
        path_prev: None,
        global_prev: None,
        created: 0,
        deep_clean: true,
        sst_filtered: s1_filtered,
        exclusive_size: 0,
    };
    let s2 = Info {
        path_prev: Some("s1".into()),
        global_prev: Some("s1".into()),
        created: 1,
        sst_filtered: s2_filtered,
        ..s1.clone()
    };
    vec![("s1", s1), ("s2", s2)]
}

/// `SnapshotPurge s1` at [`PURGE_INDEX`].
pub fn purge() -> ChainRequest {
    ChainRequest::Purge {
        snapshot: "s1".into(),
    }
}

/// The plan's request at [`PURGE_INDEX`]: the purge of s1, or adding [`EXCLUSIVE_SIZE`] to
/// s2's exclusive size (`generated` draws its requests, [`log`]; this gives its first
/// possible one, the purge of s1).
pub fn request(plan: Plan) -> ChainRequest {
    match plan {
        Plan::PurgeNext | Plan::PurgeUnfiltered | Plan::Generated => purge(),
        Plan::SetProperty => ChainRequest::SetProperty {
            snapshot: "s2".into(),
            exclusive_size: EXCLUSIVE_SIZE,
        },
    }
}

struct Prepared {
    variant: Variant,
    plan: Plan,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let om = Arc::new(ChainOm::new(&initial(self.plan), self.variant.java()));
        let flush = {
            let (om, me) = (Arc::clone(&om), Actor::new("flush", recorder));
            thread::spawn("flush", move || om.flush_thread(&me, PURGE_INDEX))
        };
        let apply = {
            let (om, me) = (Arc::clone(&om), Actor::new("apply", recorder));
            let request = request(self.plan);
            thread::spawn("apply", move || {
                om.apply(&me, PURGE_INDEX, &request);
            })
        };
        // The filter on the case's own thread (loom counts every thread an execution spawns).
        let marked = om.sst_filter_run(&Actor::new("sst-filter", recorder), &FILTER_CITES);
        apply.join();
        flush.join();
        recorder.quiesce();
        check(&End::of(&[request(self.plan)], om.rows(), marked), recorder);
    }
}

fn check(end: &End, recorder: &Arc<Recorder>) {
    PURGE_UPDATE_KEPT.check_into(end, recorder);
    CHAIN_LOADS_AT_RESTART.check_into(end, recorder);
    SST_FILTERED_KEPT.check_into(end, recorder);
    PURGED_STAYS_PURGED.check_into(end, recorder);
    PROPERTY_KEPT.check_into(end, recorder);
}

const SNAPSHOTS: Universe = Universe {
    name: "snapshots",
    values: &["s1", "s2"],
    // s1 is s2's previous: not interchangeable.
    symmetric: false,
};

/// The words of a generated workload (`generated`): the two requests that rewrite a
/// `SnapshotInfo` on the apply thread and the filter run that rewrites one beside them
/// (module docs, "Generated workloads").
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[SNAPSHOTS],
    words: &[
        Word {
            name: "purge",
            kind: Kind::Request,
            args: &[0],
            doc: "OMSnapshotPurgeRequest of one snapshot, as the SnapshotDeletingService sends it: validateAndUpdateCache (from 7da5ecb5855 under the write SNAPSHOT_LOCK of it and its next ones, to the end of the apply) gives its next snapshot its previous ids and clears its deepClean (updateSnapshotChainAndCache, updateSnapshotInfoAndCache), caches that object and its own delete; OMSnapshotPurgeResponse.addToDBBatch writes them",
        },
        Word {
            name: "set-property",
            kind: Kind::Request,
            args: &[0],
            doc: "OMSnapshotSetPropertyRequest adding 10 to one snapshot's exclusive size, as the KeyDeletingService sends it: validateAndUpdateCache (from 7da5ecb5855 under the snapshot's write SNAPSHOT_LOCK, to the end of the apply) gets the SnapshotInfo, sets the size, caches it; OMSnapshotSetPropertyResponse.addToDBBatch writes it",
        },
        Word {
            name: "filter",
            kind: Kind::Fault,
            args: &[],
            doc: "one SstFilteringService run on its own thread, outside Ratis, from where it stands in the log on: SstFilteringTask.call iterates snapshotInfoTable and markSSTFilteredFlagForSnapshot takes each unfiltered snapshot's write SNAPSHOT_LOCK, Table.get, setSstFiltered(true), Table.put straight to RocksDB",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 1,
    },
    allowed: snapshot_path,
};

/// `purge` and `set-property` by index into [`VOCABULARY`]'s words.
const PURGE: usize = 0;
const SET_PROPERTY: usize = 1;

/// What the services can send next: a purge only of a snapshot not purged before (a second
/// purge is hdds-10408's), a set-property request only for a snapshot not purged (the
/// `KeyDeletingService` sends it for the active snapshot it deep cleaned).
fn snapshot_path(prefix: &[Item], item: &Item) -> bool {
    match item.word {
        PURGE | SET_PROPERTY => !prefix
            .iter()
            .any(|i| i.word == PURGE && i.args[0] == item.args[0]),
        _ => true,
    }
}

/// `workload`'s requests as a log from [`PURGE_INDEX`] on, and how many of them the apply
/// thread applies before the filter starts (`None`: no filter run).
pub fn log(workload: &Workload) -> (Vec<(u64, ChainRequest)>, Option<usize>) {
    let mut log = Vec::new();
    let mut filter_at = None;
    for item in &workload.items {
        let snapshot = || SNAPSHOTS.values[item.args[0]].to_string();
        let request = match item.word {
            PURGE => ChainRequest::Purge {
                snapshot: snapshot(),
            },
            SET_PROPERTY => ChainRequest::SetProperty {
                snapshot: snapshot(),
                exclusive_size: EXCLUSIVE_SIZE,
            },
            _ => {
                filter_at = Some(log.len());
                continue;
            }
        };
        log.push((PURGE_INDEX + log.len() as u64, request));
    }
    (log, filter_at)
}

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("om", recorder));
        let (log, filter_at) = log(&workload);
        let requests: Vec<ChainRequest> = log.iter().map(|(_, r)| r.clone()).collect();
        let om = Arc::new(ChainOm::new(&initial(Plan::Generated), self.variant.java()));
        let last = log.last().map(|(i, _)| *i).unwrap_or_default();
        let flush = {
            let (om, me) = (Arc::clone(&om), Actor::new("flush", recorder));
            thread::spawn("flush", move || om.flush_thread(&me, last))
        };
        // The entries before the filter starts are applied first, here: the apply thread is
        // one thread of the OM whichever runs them (three threads, inside loom's limit).
        let me = Actor::new("apply", recorder);
        let mut rest = log;
        let before: Vec<_> = rest.drain(..filter_at.unwrap_or(0)).collect();
        let mut alive = true;
        for (index, request) in &before {
            if !om.apply(&me, *index, request) {
                alive = false;
                break;
            }
        }
        let apply = {
            let om = Arc::clone(&om);
            thread::spawn("apply", move || {
                for (index, request) in &rest {
                    if !alive || !om.apply(&me, *index, request) {
                        return;
                    }
                }
            })
        };
        let marked = match filter_at {
            Some(_) => om.sst_filter_run(&Actor::new("sst-filter", recorder), &FILTER_CITES),
            None => Vec::new(),
        };
        apply.join();
        flush.join();
        recorder.quiesce();
        check(&End::of(&requests, om.rows(), marked), recorder);
    }
}
