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
//! check and its `deleteSnapshot` (probe `LinkedAfterPurgeChecked`).
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
//! the rows without any race when the two differ. The plan keeps one bucket, where they are
//! equal, and the model follows the Java ([`GlobalPrevOfNext`]).
//!
//! # Plans
//!
//! - `purge-latest`: s0 <- s1 in one bucket, then 2 `SnapshotPurge s1` and 3
//!   `CreateSnapshot s2` in that bucket; the OM restarts after every entry is flushed.
//!
//! # Properties
//!
//! `NoOmTermination` (no `addToDBBatch` throws), `RowsAgreeWithChain` (at rest, every
//! committed row's previous ids are the running chain's, and the chain holds no other
//! snapshot) and `ChainLoadsAtRestart` (`loadFromSnapshotInfoTable` over the committed rows
//! succeeds). Probe `CreateDuringPurgeFlush` (required): the create, linked, puts its
//! `SnapshotInfo` into the table cache while the flush thread is inside the purge's flush
//! (from its `addToDBBatch` to its commit).
//! Probes `LinkedAfterPurgeChecked` and `CreateFailedOnPurgedPrevious` (counted).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | snapshot ids and table keys are one name | the Java maps each id to its key one to one (`snapshotIdToTableKey`) |
//! | `addSnapshot`, `deleteSnapshot` and the two `hasNext…` reads are one step each, also unsynchronized at the parent | finer interleavings only add executions to the parent; its violation needs none |
//! | each response commits in a batch of its own | a create is alone in its batch at these commits (`splitReadyBufferAtCreateSnapshot`), and the purge precedes it |
//! | the table cache keeps its entries after the flush | a flushed entry's object and the committed row are equal unless something writes the row again through the object, which only the purge does, and it writes the row too |
//! | checkpoint directories, the snapshot cache, deep-clean flags, the SST filtering service | the chain and the rows are what the restart loads |
//! | the bucket and snapshot locks of the create | the purge takes neither, so they order nothing here |
//! | `TransactionInfo` and the replay | the restart comes after every entry is committed |
//! | creation times are the log index | the leader sets them in `preExecute`, in log order |

use crate::choices;
use crate::citation::java::{hdds_8665 as h8665, hdds_8832 as fix, hdds_8832_parent as parent};
use crate::models::om::snapshot::chain::{
    self, Chain, ChainCites, ChainJava, ChainOm, ChainRequest, CreateGuard, GlobalPrevOfNext, Info,
    CREATE_DURING_PURGE_FLUSH,
};
use crate::models::om::snapshot::Stage;
use crate::properties::{Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::{thread, Arc};
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
    }
}

/// The bucket.
pub const PATH: &str = "/v/b";

/// What the OM ended with.
pub struct End {
    /// Every termination.
    pub exits: Vec<String>,
    /// The committed rows.
    pub rows: BTreeMap<String, Info>,
    /// The running OM's chain at rest.
    pub chain: Chain,
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
        let rows: BTreeMap<String, (Option<String>, Option<String>)> = e
            .rows
            .iter()
            .map(|(k, i)| (k.clone(), (i.path_prev.clone(), i.global_prev.clone())))
            .collect();
        let chain = e.chain.previous_ids();
        if rows == chain {
            Ok(())
        } else {
            Err(format!(
                "rows (path prev, global prev) {rows:?} vs running chain {chain:?}"
            ))
        }
    },
);

/// The restarted OM loads its chain.
pub const CHAIN_LOADS_AT_RESTART: Invariant<End> = Invariant::eventually(
    "ChainLoadsAtRestart",
    "loadFromSnapshotInfoTable over the committed rows succeeds: the OM can restart",
    "The OM cannot restart: loading the snapshot chain from the snapshotInfoTable throws on a row whose previous snapshot was purged.",
    |e| {
        Chain::load(e.rows.iter().map(|(k, v)| (k.as_str(), v)))
            .map(|_| ())
            .map_err(|why| format!("SnapshotChainManager(): {why}"))
    },
);

const PARENT_CITES: ChainCites = ChainCites {
    create_request: &parent::OMSnapshotCreateRequest::validateAndUpdateCache,
    create_response: &parent::OMSnapshotCreateResponse::addToDBBatch,
    add: &parent::SnapshotChainManager::addSnapshot,
    delete: &parent::SnapshotChainManager::deleteSnapshot,
    purge_chain: &parent::OMSnapshotPurgeResponse::cleanupSnapshotChain,
    purge_request: &parent::OMSnapshotPurgeRequest::validateAndUpdateCache,
    purge_response: &parent::OMSnapshotPurgeResponse::addToDBBatch,
    flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
    add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
    set_property: None,
};

const FIX_CITES: ChainCites = ChainCites {
    create_request: &fix::OMSnapshotCreateRequest::addSnapshotInfoToSnapshotChainAndCache,
    add: &fix::SnapshotChainManager::addSnapshot,
    delete: &fix::SnapshotChainManager::deleteSnapshot,
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

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const CORRUPT: &[Property] = &[
            ROWS_AGREE_WITH_CHAIN.property(),
            CHAIN_LOADS_AT_RESTART.property(),
        ];
        match (variant, plan) {
            // The fix leaves cleanupSnapshotChain's hasNext check outside the monitor.
            (Variant::Buggy | Variant::Fixed, Plan::PurgeLatest) => Expected::Violates(CORRUPT),
            (Variant::Hdds8665, Plan::PurgeLatest) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, _plan: Plan, _size: usize) -> Box<dyn Case> {
        Box::new(Prepared { variant })
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

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let om = Arc::new(ChainOm::new(&initial(), self.variant.java()));
        let log = log();
        let last = log.last().map(|(i, _)| *i).unwrap_or_default();
        let flush = {
            let (om, me) = (Arc::clone(&om), Actor::new("flush", recorder));
            thread::spawn("flush", move || om.flush_thread(&me, last))
        };
        let apply = {
            let (om, me) = (Arc::clone(&om), Actor::new("apply", recorder));
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
        recorder.quiesce();
        let end = End {
            exits: om.exits(),
            rows: om.rows(),
            chain: om.chain(),
        };
        NO_OM_TERMINATION.check_into(&end, recorder);
        ROWS_AGREE_WITH_CHAIN.check_into(&end, recorder);
        CHAIN_LOADS_AT_RESTART.check_into(&end, recorder);
    }
}
