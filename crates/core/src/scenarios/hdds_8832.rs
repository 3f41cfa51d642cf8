//! HDDS-8832: a snapshot create on the apply thread links its snapshot to the chain's tail
//! while a snapshot purge on the flush thread unlinks that tail; the new snapshot's row keeps
//! the purged snapshot as its previous, and the OM can no longer load its snapshot chain at a
//! restart.
//!
//! Buggy: the Java at 57d8a4144a2^ (5306f65603f);
//! fixed: at the fix 57d8a4144a2 (PR #4909), which makes `SnapshotChainManager.addSnapshot`
//! and `deleteSnapshot` `synchronized` and puts the create's chain section (the tails' reads,
//! `addSnapshot`, the table-cache put) in one block `synchronized` on the chain manager
//! (`addSnapshotInfoToSnapshotChainAndCache`); `hdds-8665`: the fix plus fcf5b17a4ed
//! (HDDS-8665, PR #5201), which moves the purge's chain update from
//! `OMSnapshotPurgeResponse.addToDBBatch` (flush thread) to
//! `OMSnapshotPurgeRequest.validateAndUpdateCache` (apply thread) and makes `Table.get` hand out
//! copies of a cached `SnapshotInfo`. Models: [`crate::models::om::snapshot::chain`].
//! Historical citations: `@hdds-8832-parent`, `@hdds-8832` and `@hdds-8665`.
//!
//! # The race
//!
//! The OM holds s0 and s1 in bucket `/v/b` (s1 the tail of both chains, s1's previous s0).
//! The log holds 2 `SnapshotPurge s1` (the `SnapshotDeletingService` purges a deleted
//! snapshot) and 3 `CreateSnapshot s2` in the same bucket. At 57d8a4144a2^:
//!
//! 1. apply 2: [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeRequest::validateAndUpdateCache)
//!    only queues the response (OMSnapshotPurgeRequest.java:55-61).
//! 2. flush 2: [`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeResponse::addToDBBatch)
//!    reads s1's row and calls
//!    [`cleanupSnapshotChain`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeResponse::cleanupSnapshotChain),
//!    which asks the chain whether s1 has a next (OMSnapshotPurgeResponse.java:101-105): no.
//! 3. apply 3: [`OMSnapshotCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_8832_parent::OMSnapshotCreateRequest::validateAndUpdateCache)
//!    reads the tails, s1 and s1 (OMSnapshotCreateRequest.java:167-173), sets them as s2's
//!    previous ids, [`addSnapshot`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::addSnapshot)
//!    links s1 -> s2 (SnapshotChainManager.java:72-125) and puts s2's `SnapshotInfo` into the
//!    table cache (OMSnapshotCreateRequest.java:175-179).
//! 4. flush 2 goes on: having seen no next, it rewrites no row; then
//!    [`deleteSnapshot`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::deleteSnapshot)
//!    unlinks s1, now with s2 as its next, and relinks s0 <- s2 in memory
//!    (SnapshotChainManager.java:127-164, OMSnapshotPurgeResponse.java:157); s1's row is deleted.
//! 5. flush 3: [`OMSnapshotCreateResponse.addToDBBatch`](crate::citation::java::hdds_8832_parent::OMSnapshotCreateResponse::addToDBBatch)
//!    writes s2's row with both previous ids s1 (OMSnapshotCreateResponse.java:76-78).
//!
//! The running OM's chain is s0 <- s2; the DB says s2's previous is s1, which has no row. At the
//! next start [`loadFromSnapshotInfoTable`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::loadFromSnapshotInfoTable)
//! adds s0, then s2, whose previous s1 is not in the chain: `addSnapshotGlobal` throws
//! "Snapshot chain corruption" (SnapshotChainManager.java:79-85) out of the constructor, and
//! the OM does not start.
//!
//! **The order of the story is not the harmful one.** If the purge unlinks s1 entirely
//! (check and `deleteSnapshot`) between the create's read of the tails and its `addSnapshot`,
//! `addSnapshotGlobal` finds no s1 and throws; the create fails (an error response, nothing
//! written) and the catch leaves the chain alone (s2 is not the tail,
//! OMSnapshotCreateRequest.java:197-201). Probe `CreateFailedOnPurgedPrevious` counts that
//! outcome. The corruption needs the create's link to fall between the purge's `hasNext…`
//! check and its `deleteSnapshot` (probe `LinkedAfterPurgeChecked`), or, the generated
//! workloads showed, before the check with the create's table-cache put after the purge's
//! read of s2's row: the purge sees s2 as s1's next, `Table.get` finds no s2 (neither cache
//! nor DB holds it yet), `cleanupSnapshotChain` skips the rewrite (`nextPathSnapInfo != null`,
//! `nextGlobalSnapInfo != null`, OMSnapshotPurgeResponse.java:121, 141-148 at 57d8a4144a2^ and
//! at 57d8a4144a2) and `deleteSnapshot` unlinks s1; s2's row keeps s1 (probe
//! `NextRowUnseenByPurge`). The create's `addSnapshot` and its `addCacheEntry` are two steps
//! (OMSnapshotCreateRequest.java:175-179 at 57d8a4144a2^, :243-247 at 57d8a4144a2).
//!
//! **The fix does not close that window.** At 57d8a4144a2 the create's section and
//! `deleteSnapshot` exclude each other
//! ([`addSnapshotInfoToSnapshotChainAndCache`](crate::citation::java::hdds_8832::OMSnapshotCreateRequest::addSnapshotInfoToSnapshotChainAndCache),
//! OMSnapshotCreateRequest.java:222-263 at the fix;
//! [`deleteSnapshot`](crate::citation::java::hdds_8832::SnapshotChainManager::deleteSnapshot),
//! SnapshotChainManager.java:274-283), but `cleanupSnapshotChain`, which the fix does not
//! touch, reads `hasNextPathSnapshot`/`hasNextGlobalSnapshot` outside the monitor and calls
//! `deleteSnapshot` later (OMSnapshotPurgeResponse.java:101-157, unchanged at 57d8a4144a2),
//! so steps 2-5 happen as before and `fixed` breaks the same invariants with the same
//! counterexample. The fix's own comment says the block "is synchronized with
//! OMSnapshotPurgeResponse#cleanupSnapshotChain"; only `deleteSnapshot` is. The javadoc's
//! other story, two creates on two threads, needs two threads applying at once: the Ratis
//! state machine applies on one thread, so it is a non-HA OM's story, not modelled.
//! What closes the window is fcf5b17a4ed (HDDS-8665): the purge's chain update runs in
//! [`updateSnapshotChainAndCache`](crate::citation::java::hdds_8665::OMSnapshotPurgeRequest::updateSnapshotChainAndCache)
//! on the apply thread, where the create also runs, and the next snapshot's rewritten row goes
//! through the table cache and the response ([`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_8665::OMSnapshotPurgeResponse::addToDBBatch)).
//! `hdds-8665` holds, with the create's section inside the purge's flush reached (required
//! probe `CreateDuringPurgeFlush`).
//!
//! A second bug on the same path, not this scenario's: up to e374aae82db^ (HDDS-9073)
//! `cleanupSnapshotChain` gives the next global snapshot the purged one's *path* previous as
//! its global previous (OMSnapshotPurgeResponse.java:141-153 at 57d8a4144a2^), which corrupts
//! the rows without any race when the two differ. The written plan keeps one bucket, where
//! they are equal, and the model follows the Java ([`GlobalPrevOfNext`]); the generated
//! workloads have two buckets and meet it (below).
//!
//! # Plans
//!
//! | plan | log | restarts |
//! |---|---|---|
//! | `purge-latest` | s0 <- s1 in `/v/b`, then 2 `SnapshotPurge s1` and 3 `CreateSnapshot s2` in that bucket | after every entry is flushed |
//! | `generated` | a workload of [`VOCABULARY`] (at most three requests and no fault by default, 88 workloads; `--faults 1` adds a restart) over the same s0 <- s1: creates in `/v/b` or `/v/c`, purges, from index 2 in workload order | at the drawn `restart`, and at the end (see "Generated workloads") |
//!
//! # Properties
//!
//! `NoOmTermination` (no `addToDBBatch` throws), `RowsAgreeWithChain` (at rest, every
//! committed row's previous ids are the running chain's, and the chain holds no other
//! snapshot) and `ChainLoadsAtRestart` (`loadFromSnapshotInfoTable` over the committed rows
//! succeeds). Probe `CreateDuringPurgeFlush` (required): the create, linked, puts its
//! `SnapshotInfo` into the table cache while the flush thread is inside the purge's flush
//! (from its `addToDBBatch` to its commit).
//! Probes `LinkedAfterPurgeChecked`, `NextRowUnseenByPurge` and `CreateFailedOnPurgedPrevious`
//! (counted). `RowsAgreeWithChain` and `ChainLoadsAtRestart` are checked at every rest: before
//! a drawn `restart` and at the end.
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]'s words are what the modelled path meets: the two requests that change the
//! chain and the start that loads it.
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `create(b)` | [`OMSnapshotCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_8832_parent::OMSnapshotCreateRequest::validateAndUpdateCache) (from 57d8a4144a2 its [`addSnapshotInfoToSnapshotChainAndCache`](crate::citation::java::hdds_8832::OMSnapshotCreateRequest::addSnapshotInfoToSnapshotChainAndCache)), [`OMSnapshotCreateResponse.addToDBBatch`](crate::citation::java::hdds_8832_parent::OMSnapshotCreateResponse::addToDBBatch) | the next snapshot (s2, s3, ...) in bucket `b` (`/v/b`, which holds s0 and s1, or `/v/c`, empty): reads the tails, `addSnapshot`, the table-cache put; the response writes its row |
//! | `purge(s)` | [`OMSnapshotPurgeRequest.validateAndUpdateCache`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeRequest::validateAndUpdateCache), [`OMSnapshotPurgeResponse.addToDBBatch`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeResponse::addToDBBatch) | one snapshot that exists and was not purged before, as the `SnapshotDeletingService` sends it: its chain update ([`cleanupSnapshotChain`](crate::citation::java::hdds_8832_parent::OMSnapshotPurgeResponse::cleanupSnapshotChain) at flush, [`updateSnapshotChainAndCache`](crate::citation::java::hdds_8665::OMSnapshotPurgeRequest::updateSnapshotChainAndCache) at apply for `hdds-8665`) and its row's delete |
//! | `restart` (fault) | [`loadFromSnapshotInfoTable`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::loadFromSnapshotInfoTable), from `OmMetadataManagerImpl.start` (OmMetadataManagerImpl.java:522 at 57d8a4144a2^) | once every entry so far is flushed, the OM stops and starts on its committed rows ([`ChainOm::restart`]); a load that throws ends the run (the OM does not start) |
//!
//! Each run of the OM is the written plan's shape: the apply thread applies its part of the
//! workload in order while the flush thread flushes it. A restart first is left out (it only
//! reloads s0 and s1), and a restart last is the run's own end.
//!
//! Verdicts (the default budget, random and PCT 2,000 executions at depth 3; each expected
//! invariant watched alone over seeds 0..20: worst and median (rounded down) executions to
//! it, `RowsAgreeWithChain` first; the stateful engine's first violation):
//!
//! | variant | breaks | random | PCT | stateful |
//! |---|---|---|---|---|
//! | `buggy` | `RowsAgreeWithChain`, `ChainLoadsAtRestart` | 29 (12.5); 53 (16) | 41 (7); 69 (12) | at 12; at 12 |
//! | `fixed` | the same | 33 (13); 33 (22) | 40 (10); 61 (13.5) | at 12; at 12 |
//! | `hdds-8665` | nothing | held | held | held, exhausted: 11,657,180 states, 4,022,456 executions, 244 s (with a restart, 328 workloads, not exhausted in 600 s: 23,053,101 states) |
//!
//! What the space adds to the written plan:
//! - `RowsAgreeWithChain` breaks without a race, on HDDS-9073: `create(/v/c) create(/v/b)
//!   purge(s2)` (the minimized workload) purges s2, whose path previous (none, first in
//!   `/v/c`) differs from its global previous (s1); its global next s3 gets the path previous,
//!   none, as its global previous. The load does not throw (a global previous of none is
//!   not checked, SnapshotChainManager.java:72-91 at 57d8a4144a2^): the OM starts with two
//!   global heads.
//! - `ChainLoadsAtRestart` breaks without a race too, on two purges in one flush batch:
//!   `purge(s0) purge(s1) create(/v/b)` (minimized, `fixed` under random), every entry applied
//!   before the flush thread takes the ready buffer, which `splitReadyBufferAtCreateSnapshot`
//!   cuts into [purge s0, purge s1] and [create s2]. Purge s0 stages s1's row without a
//!   previous; purge s1's `Table.get` reads s1's committed row, whose previous is still s0
//!   (the staged rewrite is only in the batch, OMSnapshotPurgeResponse.java:66-75, 121-126 at
//!   57d8a4144a2^), and gives s2, through the object the create's response writes, the
//!   purged s0 as its previous; the OM does not start. One request naming both does the same:
//!   the `SnapshotDeletingService` puts every snapshot it finds reclaimable in a run into one
//!   `SnapshotPurgeRequest` (SnapshotDeletingService.java:134, 186, 301, 395-399 at
//!   57d8a4144a2^). `hdds-8665`'s purge at apply reads the first purge's cached copy.
//! - The second window of "The race" (the create's link before the purge's check, its
//!   table-cache put after the purge's read): random's minimized workload on `fixed`, over
//!   three requests and a restart, was the written plan's, `purge(s1) create(/v/b)`, through it
//!   (probe `NextRowUnseenByPurge`).
//! - `hdds-8665` holds over the space (also at four requests and one fault, 1,868 workloads:
//!   random and PCT, 20,000 executions for each of seeds 0..2), with the create inside a
//!   purge's flush reached. The stateful engine exhausts the default space (above) and two
//!   requests with a restart; three requests with a restart it did not in 600 s.
//!
//! Left out of the vocabulary: a second purge of one snapshot (the deleting service's resend,
//! hdds-10408's scenario), a kill (the restart here is clean: a kill needs the
//! `TransactionInfo` and the replay, which the model leaves out), a snapshot delete (it only
//! marks the snapshot for the deleting service; the chain changes at the purge), and a
//! purge of several snapshots in one request (two purges in one flush batch run the same
//! `addToDBBatch` steps in the same order on the flush thread).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | snapshot ids and table keys are one name | the Java maps each id to its key one to one (`snapshotIdToTableKey`) |
//! | `addSnapshot`, `deleteSnapshot` and the two `hasNext…` reads are one step each, also unsynchronized at the parent | finer interleavings only add executions to the parent; its violation needs none |
//! | the ready buffer's responses are cut into batches as `splitReadyBufferAtCreateSnapshot` cuts them, each committed before the next | as the Java (OzoneManagerDoubleBuffer.java:300-313, 446-473 at 57d8a4144a2^) |
//! | the table cache keeps its entries after the flush | a flushed entry's object and the committed row are equal unless something writes the row again through the object, which only the purge does, and it writes the row too |
//! | checkpoint directories, the snapshot cache, deep-clean flags, the SST filtering service | the chain and the rows are what the restart loads |
//! | the bucket and snapshot locks of the create | the purge takes neither, so they order nothing here |
//! | `TransactionInfo` and the replay | the restart comes after every entry is committed |
//! | creation times are the log index | the leader sets them in `preExecute`, in log order |

use crate::choices;
use crate::citation::java::{hdds_8665 as h8665, hdds_8832 as fix, hdds_8832_parent as parent};
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::chain::{
    self, Chain, ChainCites, ChainJava, ChainOm, ChainRequest, CreateCites, CreateGuard,
    GlobalPrevOfNext, Info, CREATE_DURING_PURGE_FLUSH,
};
use crate::models::om::snapshot::Stage;
use crate::properties::{Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};
use std::collections::BTreeMap;

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds8832;

choices! {
    /// How the create's and the purge's chain updates are ordered.
    pub enum Variant {
        /// 57d8a4144a2^: neither synchronized; the purge updates the chain at flush
        Buggy = "buggy",
        /// 57d8a4144a2: the create's section and deleteSnapshot under the chain manager's monitor
        Fixed = "fixed",
        /// fcf5b17a4ed on the fix: the purge updates the chain at apply
        Hdds8665 = "hdds-8665",
    }
}

choices! {
    /// The log.
    pub enum Plan {
        /// s0 <- s1; purge s1, then create s2 in the same bucket; restart
        PurgeLatest = "purge-latest",
        /// every workload of the vocabulary within its bounds: creates, purges, a restart
        Generated = "generated",
    }
}

/// The bucket.
pub const PATH: &str = "/v/b";

/// A second bucket, empty at the start (`generated` only).
pub const OTHER_PATH: &str = "/v/c";

/// The OM at rest before a restart: every entry applied so far flushed.
pub struct Rest {
    /// The committed rows.
    pub rows: BTreeMap<String, Info>,
    /// The running OM's chain.
    pub chain: Chain,
}

/// What the OM ended with.
pub struct End {
    /// Every termination.
    pub exits: Vec<String>,
    /// The OM at rest before each restart, in order, the final one (the end of the run)
    /// last.
    pub rests: Vec<Rest>,
}

/// No `addToDBBatch` throws.
pub const NO_OM_TERMINATION: Invariant<End> = Invariant::eventually(
    "NoOmTermination",
    "no addToDBBatch throws: the OM does not terminate",
    "A response's addToDBBatch throws and the OM terminates.",
    |e| match e.exits.first() {
        None => Ok(()),
        Some(first) => Err(format!("the OM terminated: {first}")),
    },
);

/// The rows persist the running chain.
pub const ROWS_AGREE_WITH_CHAIN: Invariant<End> = Invariant::eventually(
    "RowsAgreeWithChain",
    "at rest, every committed SnapshotInfo's previous ids are the running chain's, for the same snapshots",
    "A committed SnapshotInfo names a previous snapshot other than the running chain's (a purged one): the chain the OM runs on is not the one it will load.",
    |e| {
        for (n, rest) in e.rests.iter().enumerate() {
            let rows: BTreeMap<String, (Option<String>, Option<String>)> = rest
                .rows
                .iter()
                .map(|(k, i)| (k.clone(), (i.path_prev.clone(), i.global_prev.clone())))
                .collect();
            let chain = rest.chain.previous_ids();
            if rows != chain {
                return Err(format!(
                    "{}rows (path prev, global prev) {rows:?} vs running chain {chain:?}",
                    before_restart(e, n)
                ));
            }
        }
        Ok(())
    },
);

/// Which rest a detail speaks of: nothing for the end of the run, the restart for one
/// before a drawn `restart`.
fn before_restart(e: &End, n: usize) -> String {
    if n + 1 < e.rests.len() {
        format!("at the drawn restart {}: ", n + 1)
    } else {
        String::new()
    }
}

/// The restarted OM loads its chain.
pub const CHAIN_LOADS_AT_RESTART: Invariant<End> = Invariant::eventually(
    "ChainLoadsAtRestart",
    "loadFromSnapshotInfoTable over the committed rows succeeds: the OM can restart",
    "The OM cannot restart: loading the snapshot chain from the snapshotInfoTable throws on a row whose previous snapshot was purged.",
    |e| {
        for (n, rest) in e.rests.iter().enumerate() {
            Chain::load(rest.rows.iter().map(|(k, v)| (k.as_str(), v)))
                .map_err(|why| format!("{}SnapshotChainManager(): {why}", before_restart(e, n)))?;
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
    create: Some(CreateCites {
        request: &parent::OMSnapshotCreateRequest::validateAndUpdateCache,
        response: &parent::OMSnapshotCreateResponse::addToDBBatch,
        add: &parent::SnapshotChainManager::addSnapshot,
    }),
    delete: &parent::SnapshotChainManager::deleteSnapshot,
    purge_chain: &parent::OMSnapshotPurgeResponse::cleanupSnapshotChain,
    purge_request: &parent::OMSnapshotPurgeRequest::validateAndUpdateCache,
    purge_response: &parent::OMSnapshotPurgeResponse::addToDBBatch,
    flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
    add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
    buffer: &BUFFER,
    load: &parent::SnapshotChainManager::loadFromSnapshotInfoTable,
    set_property: None,
};

const FIX_CITES: ChainCites = ChainCites {
    create: Some(CreateCites {
        request: &fix::OMSnapshotCreateRequest::addSnapshotInfoToSnapshotChainAndCache,
        // The response is unchanged by the fix.
        response: &parent::OMSnapshotCreateResponse::addToDBBatch,
        add: &fix::SnapshotChainManager::addSnapshot,
    }),
    delete: &fix::SnapshotChainManager::deleteSnapshot,
    // Unchanged from 57d8a4144a2 to fcf5b17a4ed (that range only adds getters to the class).
    load: &fix::SnapshotChainManager::loadFromSnapshotInfoTable,
    ..PARENT_CITES
};

const H8665_CITES: ChainCites = ChainCites {
    purge_chain: &h8665::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
    purge_request: &h8665::OMSnapshotPurgeRequest::validateAndUpdateCache,
    purge_response: &h8665::OMSnapshotPurgeResponse::addToDBBatch,
    ..FIX_CITES
};

impl Variant {
    /// The knobs of the variant.
    pub fn java(self) -> ChainJava {
        match self {
            Variant::Buggy => ChainJava {
                create: CreateGuard::Unsynchronized,
                purge_chain: Stage::Flush,
                global_prev_of_next: GlobalPrevOfNext::PathPrevious,
                get_copies: false,
                snapshot_locks_taken: false,
                purge_tombstone: false,
                cites: &PARENT_CITES,
            },
            Variant::Fixed => ChainJava {
                create: CreateGuard::ChainMonitor,
                cites: &FIX_CITES,
                ..Variant::Buggy.java()
            },
            // fcf5b17a4ed also has e374aae82db (HDDS-9073)'s correction of the global previous.
            Variant::Hdds8665 => ChainJava {
                create: CreateGuard::ChainMonitor,
                purge_chain: Stage::Apply,
                global_prev_of_next: GlobalPrevOfNext::GlobalPrevious,
                get_copies: true,
                snapshot_locks_taken: false,
                purge_tombstone: false,
                cites: &H8665_CITES,
            },
        }
    }
}

impl Scenario for Hdds8832 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-8832";
    const JIRA: &'static str = "HDDS-8832";
    const TITLE: &'static str =
        "a snapshot create links to the chain's tail while the flush thread's purge unlinks it";
    const PROPERTIES: &'static [Property] = &[
        NO_OM_TERMINATION.property(),
        ROWS_AGREE_WITH_CHAIN.property(),
        CHAIN_LOADS_AT_RESTART.property(),
        CREATE_DURING_PURGE_FLUSH.required(),
    ];
    const MODEL_PROBES: &'static [&'static [crate::properties::Probe]] = &[chain::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const CORRUPT: &[Property] = &[
            ROWS_AGREE_WITH_CHAIN.property(),
            CHAIN_LOADS_AT_RESTART.property(),
        ];
        match (variant, plan) {
            // The fix leaves cleanupSnapshotChain's hasNext check outside the monitor.
            (Variant::Buggy | Variant::Fixed, Plan::PurgeLatest) => Expected::Violates(CORRUPT),
            (Variant::Hdds8665, Plan::PurgeLatest) => Expected::Holds,
            // Every workload of the vocabulary (module docs, "Generated workloads").
            (Variant::Buggy | Variant::Fixed, Plan::Generated) => Expected::Violates(CORRUPT),
            (Variant::Hdds8665, Plan::Generated) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                variant,
                bounds: VOCABULARY.bounds,
            });
        }
        Box::new(Prepared { variant })
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

const BUCKETS: Universe = Universe {
    name: "buckets",
    values: &[PATH, OTHER_PATH],
    // `/v/b` holds s0 and s1, `/v/c` nothing: not interchangeable.
    symmetric: false,
};

const SNAPSHOTS: Universe = Universe {
    name: "snapshots",
    values: &["s0", "s1", "s2", "s3", "s4", "s5"],
    // s0 and s1 are there from the start, the others are created in order.
    symmetric: false,
};

/// The words of a generated workload (`generated`): the two requests that change the chain
/// and the restart where a corrupt chain shows (module docs, "Generated workloads").
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[BUCKETS, SNAPSHOTS],
    words: &[
        Word {
            name: "create",
            kind: Kind::Request,
            args: &[0],
            doc: "OMSnapshotCreateRequest of the next snapshot (s2, s3, ...) in the bucket: validateAndUpdateCache (from 57d8a4144a2 its addSnapshotInfoToSnapshotChainAndCache) reads the bucket's and the global tail, SnapshotChainManager.addSnapshot links it, the table cache holds its SnapshotInfo; OMSnapshotCreateResponse.addToDBBatch writes its row",
        },
        Word {
            name: "purge",
            kind: Kind::Request,
            args: &[1],
            doc: "OMSnapshotPurgeRequest of one snapshot, as the SnapshotDeletingService sends it: the next snapshots get its previous ids and SnapshotChainManager.deleteSnapshot unlinks it (OMSnapshotPurgeResponse.cleanupSnapshotChain at flush up to fcf5b17a4ed^, OMSnapshotPurgeRequest.updateSnapshotChainAndCache at apply from HDDS-8665 on); OMSnapshotPurgeResponse.addToDBBatch deletes its row",
        },
        Word {
            name: "restart",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM stops once every entry so far is flushed and starts again: OmMetadataManagerImpl.start builds a SnapshotChainManager, whose loadFromSnapshotInfoTable adds the committed rows by creation time and throws on a previous id it does not find (the OM does not start)",
        },
    ],
    // The largest space the stateful engine exhausts for `hdds-8665` within 10 minutes on two
    // cores that keeps every minimized counterexample of the module docs (244 s, 11,657,180
    // states); two requests and a restart are exhausted too (in 60 s), three and a restart
    // (328 workloads) were not in 600 s. `--faults 1` adds the restart.
    bounds: Bounds {
        requests: 3,
        faults: 0,
    },
    allowed: chain_path,
};

/// `create`, `purge` and `restart` by index into [`VOCABULARY`]'s words.
const CREATE: usize = 0;
const PURGE: usize = 1;

/// What the Java path can meet next: a purge only of a snapshot that exists (s0, s1, or one
/// an earlier create made) and was not purged before (a second purge of one snapshot is
/// hdds-10408's), a restart only after a request (a restart first only reloads the initial
/// rows).
fn chain_path(prefix: &[Item], item: &Item) -> bool {
    match item.word {
        CREATE => true,
        PURGE => {
            let snapshot = item.args[0];
            let created = prefix.iter().filter(|i| i.word == CREATE).count();
            snapshot < 2 + created
                && !prefix
                    .iter()
                    .any(|i| i.word == PURGE && i.args[0] == snapshot)
        }
        _ => !prefix.is_empty(),
    }
}

/// `workload`'s requests as logs, one per run of the OM: a restart ends one and starts the
/// next. Indices from 2 (s0 and s1 were created at 0 and 1); the k-th create makes
/// `s{k+2}`.
pub fn logs(workload: &Workload) -> Vec<Vec<(u64, ChainRequest)>> {
    let mut logs = vec![Vec::new()];
    let (mut index, mut created) = (2u64, 2usize);
    for item in &workload.items {
        let request = match item.word {
            CREATE => {
                let snapshot = format!("s{created}");
                created += 1;
                ChainRequest::Create {
                    snapshot,
                    path: BUCKETS.values[item.args[0]].into(),
                }
            }
            PURGE => ChainRequest::Purge {
                snapshot: SNAPSHOTS.values[item.args[0]].into(),
            },
            _ => {
                logs.push(Vec::new());
                continue;
            }
        };
        if let Some(log) = logs.last_mut() {
            log.push((index, request));
        }
        index += 1;
    }
    logs
}

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let me = Actor::new("om", recorder);
        let workload = VOCABULARY.draw_shown(self.bounds, &me);
        let mut om = Arc::new(ChainOm::new(&initial(), self.variant.java()));
        let mut end = End {
            exits: Vec::new(),
            rests: Vec::new(),
        };
        for (n, log) in logs(&workload).into_iter().enumerate() {
            if n > 0 {
                // A failed load is kept in `rests` and breaks `ChainLoadsAtRestart`.
                match om.restart(&me) {
                    Ok(started) => om = Arc::new(started),
                    Err(_) => break,
                }
            }
            if !log.is_empty() {
                run_log(&om, recorder, log);
            }
            end.rests.push(Rest {
                rows: om.rows(),
                chain: om.chain(),
            });
            end.exits.extend(om.exits());
            // A terminated OM would replay at its next start (not modelled): the run ends.
            if !end.exits.is_empty() {
                break;
            }
        }
        recorder.quiesce();
        check(&end, recorder);
    }
}

/// s0 <- s1 in [`PATH`], created at times 0 and 1.
pub fn initial() -> Vec<(&'static str, Info)> {
    let info = |prev: Option<&str>, created| Info {
        path: PATH.into(),
        path_prev: prev.map(Into::into),
        global_prev: prev.map(Into::into),
        created,
        deep_clean: false,
        sst_filtered: false,
        exclusive_size: 0,
    };
    vec![("s0", info(None, 0)), ("s1", info(Some("s0"), 1))]
}

/// 2 `SnapshotPurge s1`, 3 `CreateSnapshot s2` in [`PATH`].
pub fn log() -> Vec<(u64, ChainRequest)> {
    vec![
        (
            2,
            ChainRequest::Purge {
                snapshot: "s1".into(),
            },
        ),
        (
            3,
            ChainRequest::Create {
                snapshot: "s2".into(),
                path: PATH.into(),
            },
        ),
    ]
}

struct Prepared {
    variant: Variant,
}

/// The OM's apply thread applies `log` in order while its flush thread flushes it; both
/// joined.
fn run_log(om: &Arc<ChainOm>, recorder: &Arc<Recorder>, log: Vec<(u64, ChainRequest)>) {
    let last = log.last().map(|(i, _)| *i).unwrap_or_default();
    let flush = {
        let (om, me) = (Arc::clone(om), Actor::new("flush", recorder));
        thread::spawn("flush", move || om.flush_thread(&me, last))
    };
    let apply = {
        let (om, me) = (Arc::clone(om), Actor::new("apply", recorder));
        thread::spawn("apply", move || {
            for (index, request) in &log {
                if !om.apply(&me, *index, request) {
                    return;
                }
            }
        })
    };
    apply.join();
    flush.join();
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let om = Arc::new(ChainOm::new(&initial(), self.variant.java()));
        run_log(&om, recorder, log());
        recorder.quiesce();
        let end = End {
            exits: om.exits(),
            rests: vec![Rest {
                rows: om.rows(),
                chain: om.chain(),
            }],
        };
        check(&end, recorder);
    }
}

fn check(end: &End, recorder: &Arc<Recorder>) {
    NO_OM_TERMINATION.check_into(end, recorder);
    ROWS_AGREE_WITH_CHAIN.check_into(end, recorder);
    CHAIN_LOADS_AT_RESTART.check_into(end, recorder);
}
