//! HDDS-16452: the SCM's checkpoint download flushes in the middle of an apply.
//!
//! Seed: `seeds/004_f602220297222a8a.txt`; grounding §2. Java: `SCMHADBTransactionBufferImpl`
//! ([`crate::models::scm::tx_buffer`]), `SCMStateMachine`
//! ([`crate::models::scm::state_machine`]), `InterSCMGrpcService`
//! ([`crate::models::scm::inter_scm`]), `DeletedBlockLogStateManagerImpl`
//! ([`crate::models::scm::deleted_blocks`]).
//!
//! # Actors
//!
//! | actor | Java | does |
//! |---|---|---|
//! | `apply` | Ratis `StateMachineUpdater` in `SCMStateMachine.applyTransaction` | begin; one `addToBuffer` per deleted-block transaction, then the summary (read lock per call); `updateLatestTrxInfo(i)` (no lock); end |
//! | `download` | a gRPC thread in `InterSCMGrpcService.download` | flush (variant-dependent), then the RocksDB checkpoint |
//! | `leader-change` | `SCMStateMachine.notifyLeaderChanged` (`with-leader-change` only) | flush (variant-dependent) |
//! | `main` | a late download, `takeSnapshot`, then a follower SCM | after the joins: a second download (every apply has finished), the leader's `takeSnapshot` flush; a follower installs the racing download's checkpoint, reloads its TX, re-applies the entries after it |
//!
//! The log is one SCM transaction at index 1: `addTransactionsToDB` of txIDs 1 (2 blocks) and
//! 2 (3 blocks): three `addToBuffer` calls, the last one the summary `pendingDeletes += 5`.
//! No configuration entry: the break needs none (grounding, modelling note 5).
//!
//! The summary counter is SYNTHETIC (see [`ScmRow::Summary`]): it is not replay-safe, so a
//! re-applied entry makes the replicas disagree. Real SCM transactions are mostly replay-safe;
//! in Ozone the demonstrable break is the checkpoint itself: data beyond its TX, or half a
//! transaction ([`CHECKPOINT_CONSISTENT`], [`NO_PARTIAL_TRANSACTION`]).
//!
//! A download that starts once every apply has finished must ship the whole log applied
//! ([`LATE_DOWNLOAD_SHIPS_LATEST`], checked at quiescence): a guarded flush that never runs
//! (an apply count that never returns to zero, a pending count that never grows) would
//! otherwise pass on safety alone.
//!
//! # Plans
//!
//! - `base`: apply and download.
//! - `with-leader-change`: apply, download and the leader-change flush.
//!
//! # Variants
//!
//! - `buggy`: the Java today: download and leader change call the unguarded `flush()`.
//! - `download-guarded`: the seed's proposed fix: download calls `flushIfNeeded(0)`; the leader
//!   change still calls `flush()`.
//! - `fixed`: every concurrent flush path (download, leader change) calls `flushIfNeeded(0)`.
//!   `takeSnapshot` keeps `flush()` (grounding, modelling note 4).
//!
//! # What the model shows
//!
//! `buggy` breaks on the first transaction: begin, stage txID 1, the download's flush
//! commits `{txID 1, TX 0}` (half a transaction, and data beyond TX 0), and the checkpoint
//! ships it. A half transaction alone does not make the replicas drift: the follower
//! re-applies index 1 and overwrites it. They drift when the flush lands after the summary
//! put and before `updateLatestTrxInfo(1)`: the checkpoint holds `pendingDeletes 5` under
//! TX 0, the follower re-applies index 1 and counts 10 against the leader's 5.
//! `download-guarded` holds on `base`, and on `with-leader-change` the leader-change flush
//! commits mid-apply while the download defers and then serves that state (grounding,
//! modelling note 5).

use crate::choices;
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Checkpoint, Store, Tables};
use crate::kit::tx_info::{stored_index, TxRow};
use crate::models::scm::deleted_blocks::ScmRequest;
use crate::models::scm::inter_scm::download;
use crate::models::scm::state_machine::{
    apply_transaction, install_and_catch_up, notify_leader_changed, reference_states, take_snapshot,
};
use crate::models::scm::tx_buffer::{FlushPath, TransactionBuffer, FLUSH_DURING_APPLY};
use crate::models::scm::{initial_tables, ScmRow};
use crate::properties::{durable_observer, Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario, SizeKnob};
use crate::sync::{thread, Arc};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds16452;

choices! {
    /// Which concurrent flush paths are guarded.
    pub enum Variant {
        /// the Java today: download and leader change call the unguarded flush()
        Buggy = "buggy",
        /// the seed's fix: download calls flushIfNeeded(0); leader change still calls flush()
        DownloadGuarded = "download-guarded",
        /// download and leader change both call flushIfNeeded(0)
        Fixed = "fixed",
    }
}

choices! {
    /// Which actors run.
    pub enum Plan {
        /// apply thread and checkpoint download; a follower installs the checkpoint and catches up
        Base = "base",
        /// base plus the leader-change flush of notifyLeaderChanged
        WithLeaderChange = "with-leader-change",
    }
}

impl Variant {
    /// The flush paths of the download and of the leader change.
    fn flush_paths(self) -> (FlushPath, FlushPath) {
        match self {
            Variant::Buggy => (FlushPath::Unguarded, FlushPath::Unguarded),
            Variant::DownloadGuarded => (FlushPath::Guarded, FlushPath::Unguarded),
            Variant::Fixed => (FlushPath::Guarded, FlushPath::Guarded),
        }
    }
}

/// One durable write on the leader, as its store's observer sees it.
pub struct DurableStep {
    /// The durable state after the write.
    pub after: Tables<ScmRow>,
    /// `apply(log[1..i])` for every index i, with TX = i.
    pub reference: Arc<Vec<Tables<ScmRow>>>,
}

/// A checkpoint as a download took it.
pub struct CheckpointTaken {
    /// The checkpoint.
    pub checkpoint: Checkpoint<ScmRow>,
    /// `apply(log[1..i])` for every index i, with TX = i.
    pub reference: Arc<Vec<Tables<ScmRow>>>,
}

/// The replicas at the end.
pub struct Replicas {
    /// The leader, after its `takeSnapshot` flush.
    pub leader: Tables<ScmRow>,
    /// The follower that installed the checkpoint and caught up.
    pub follower: Tables<ScmRow>,
}

fn matches_reference(
    what: &str,
    state: &Tables<ScmRow>,
    reference: &[Tables<ScmRow>],
) -> Result<(), String> {
    let tx = stored_index(state);
    let Some(expected) = usize::try_from(tx).ok().and_then(|i| reference.get(i)) else {
        return Err(format!("{what} claims TX {tx}, beyond the log"));
    };
    match state
        .without(ScmRow::TABLE)
        .diff(&expected.without(ScmRow::TABLE))
        .first()
    {
        None => Ok(()),
        Some(first) => Err(format!(
            "{what} claims TX {tx} but differs from apply(log[1..{tx}]): {first} ({what} vs log)"
        )),
    }
}

/// The leader's durable data is never part of a transaction.
pub const NO_PARTIAL_TRANSACTION: Invariant<DurableStep> = Invariant::always(
    "NoPartialTransaction",
    "the leader's durable data is always apply(log[1..i]) for some i, never part of a transaction",
    |s| {
        let data = s.after.without(ScmRow::TABLE);
        if s.reference.iter().any(|r| r.without(ScmRow::TABLE) == data) {
            return Ok(());
        }
        Err(format!(
            "durable data {data} is no apply(log[1..i]): part of a transaction"
        ))
    },
);

/// The leader's durable index matches its data.
pub const DURABLE_INDEX_MATCHES_DATA: Invariant<DurableStep> = Invariant::always(
    "DurableIndexMatchesData",
    "every durable state of the leader equals apply(log[1..TX]) for its own TX",
    |s| matches_reference("DB", &s.after, &s.reference),
);

/// A checkpoint matches its index.
pub const CHECKPOINT_CONSISTENT: Invariant<CheckpointTaken> = Invariant::always(
    "CheckpointConsistent",
    "the checkpoint equals apply(log[1..TX]) for its own TX",
    |c| matches_reference("checkpoint", &c.checkpoint, &c.reference),
);

/// A download after every apply ships everything.
pub const LATE_DOWNLOAD_SHIPS_LATEST: Invariant<CheckpointTaken> = Invariant::eventually(
    "LateDownloadShipsLatest",
    "a checkpoint downloaded once every apply has finished holds the whole log applied",
    |c| {
        let last = c.reference.len().saturating_sub(1);
        match c.checkpoint.diff(&c.reference[last]).first() {
            None => Ok(()),
            Some(first) => Err(format!(
                "late checkpoint differs from apply(log[1..{last}]): {first} (checkpoint vs log)"
            )),
        }
    },
);

/// The follower agrees with the leader.
pub const REPLICAS_AGREE: Invariant<Replicas> = Invariant::eventually(
    "ReplicasAgree",
    "the follower that installed the checkpoint and caught up equals the leader (synthetic non-idempotent counter)",
    |r| match r.follower.diff(&r.leader).first() {
        None => Ok(()),
        Some(first) => Err(format!("follower vs leader: {first}")),
    },
);

const DURABLE: &[Invariant<DurableStep>] = &[NO_PARTIAL_TRANSACTION, DURABLE_INDEX_MATCHES_DATA];

impl Scenario for Hdds16452 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-16452";
    const JIRA: &'static str = "HDDS-16452";
    const TITLE: &'static str =
        "SCM checkpoint download flushes mid-apply; the follower re-applies the entry";
    const PROPERTIES: &'static [Property] = &[
        NO_PARTIAL_TRANSACTION.property(),
        DURABLE_INDEX_MATCHES_DATA.property(),
        CHECKPOINT_CONSISTENT.property(),
        LATE_DOWNLOAD_SHIPS_LATEST.property(),
        REPLICAS_AGREE.property(),
        FLUSH_DURING_APPLY.required(),
    ];
    const SIZE: Option<SizeKnob> = Some(SizeKnob {
        counts: "SCM transactions in the log",
        default: 1,
    });

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            REPLICAS_AGREE.property(),
        ];
        use Plan::{Base, WithLeaderChange};
        use Variant::{Buggy, DownloadGuarded, Fixed};
        match (variant, plan) {
            (Fixed, Base | WithLeaderChange) | (DownloadGuarded, Base) => Expected::Holds,
            (Buggy, Base | WithLeaderChange) | (DownloadGuarded, WithLeaderChange) => {
                Expected::Violates(ALL)
            }
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, size: usize) -> Box<dyn Case> {
        let (download, leader_change) = variant.flush_paths();
        let log = sized_log(size);
        let reference = Arc::new(reference_states(&log));
        Box::new(Prepared {
            download,
            leader_change: (plan == Plan::WithLeaderChange).then_some(leader_change),
            log: Arc::new(log),
            reference,
        })
    }
}

/// `entries` SCM transactions, the n-th adding deleted-block txIDs 2n-1 (2 blocks) and 2n
/// (3 blocks).
pub fn sized_log(entries: usize) -> RaftLog<ScmRequest> {
    let mut log = RaftLog::new();
    for n in 1..=entries as u64 {
        log.append(ScmRequest::AddTransactionsToDb {
            txns: vec![(2 * n - 1, 2), (2 * n, 3)],
        });
    }
    log
}

struct Prepared {
    download: FlushPath,
    leader_change: Option<FlushPath>,
    log: Arc<RaftLog<ScmRequest>>,
    reference: Arc<Vec<Tables<ScmRow>>>,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let store = Arc::new(Store::with_state(
            initial_tables(),
            Some(durable_observer(recorder, DURABLE, {
                let reference = Arc::clone(&self.reference);
                move |_before, after| DurableStep {
                    after: after.clone(),
                    reference: Arc::clone(&reference),
                }
            })),
        ));
        let buffer = Arc::new(TransactionBuffer::new(Arc::clone(&store), 0, 0));

        let apply = {
            let (buffer, log, me) = (
                Arc::clone(&buffer),
                Arc::clone(&self.log),
                Actor::new("apply", recorder),
            );
            thread::spawn("apply", move || {
                let mut view = initial_tables();
                for entry in log.after(0) {
                    apply_transaction(&buffer, &me, &mut view, entry);
                }
            })
        };
        let downloader = {
            let (buffer, reference, path, me) = (
                Arc::clone(&buffer),
                Arc::clone(&self.reference),
                self.download,
                Actor::new("download", recorder),
            );
            thread::spawn("download", move || {
                let taken = CheckpointTaken {
                    checkpoint: download(&buffer, &me, path),
                    reference,
                };
                CHECKPOINT_CONSISTENT.check_into(&taken, me.recorder());
                taken.checkpoint
            })
        };
        let leader_change = self.leader_change.map(|path| {
            let (buffer, me) = (Arc::clone(&buffer), Actor::new("leader-change", recorder));
            thread::spawn("leader-change", move || {
                notify_leader_changed(&buffer, &me, path);
            })
        });
        apply.join();
        let checkpoint = downloader.join();
        if let Some(t) = leader_change {
            t.join();
        }
        recorder.quiesce();

        let me = Actor::new("main", recorder);
        let late = CheckpointTaken {
            checkpoint: download(&buffer, &me, self.download),
            reference: Arc::clone(&self.reference),
        };
        CHECKPOINT_CONSISTENT.check_into(&late, recorder);
        LATE_DOWNLOAD_SHIPS_LATEST.check_into(&late, recorder);
        take_snapshot(&buffer, &me);
        let leader = store.durable();
        let follower_store: Store<ScmRow> = Store::with_state(initial_tables(), None);
        let follower_actor = Actor::new("follower", recorder);
        install_and_catch_up(&follower_store, checkpoint, &self.log, &follower_actor);
        let follower = follower_store.durable();
        REPLICAS_AGREE.check_into(&Replicas { leader, follower }, recorder);
    }
}
