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
//! | `main` | `takeSnapshot`, then a follower SCM | after the joins: the leader's `takeSnapshot` flush; a follower installs the downloaded checkpoint, reloads its TX, re-applies the entries after it |
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

use crate::invariants::{check_all, durable_observer, Described, Invariant};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Checkpoint, Store, Tables};
use crate::models::scm::deleted_blocks::ScmRequest;
use crate::models::scm::inter_scm::download;
use crate::models::scm::state_machine::{
    apply_transaction, install_and_catch_up, notify_leader_changed, reference_states, take_snapshot,
};
use crate::models::scm::tx_buffer::{FlushPath, TransactionBuffer, PROBE_FLUSH_DURING_APPLY};
use crate::models::scm::{initial_tables, stored_index, ScmRow, TX_TABLE};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Info, Scenario, SizeKnob};
use crate::sync::{thread, Arc};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds16452;

/// Invariant names.
pub const NO_PARTIAL_TRANSACTION: &str = "NoPartialTransaction";
/// Invariant names.
pub const DURABLE_INDEX_MATCHES_DATA: &str = "DurableIndexMatchesData";
/// Invariant names.
pub const CHECKPOINT_CONSISTENT: &str = "CheckpointConsistent";
/// Invariant names.
pub const REPLICAS_AGREE: &str = "ReplicasAgree";

const VARIANTS: &[Described] = &[
    Described {
        name: "buggy",
        doc: "the Java today: download and leader change call the unguarded flush()",
    },
    Described {
        name: "download-guarded",
        doc: "the seed's fix: download calls flushIfNeeded(0); leader change still calls flush()",
    },
    Described {
        name: "fixed",
        doc: "download and leader change both call flushIfNeeded(0)",
    },
];

const PLANS: &[Described] = &[
    Described { name: "base", doc: "apply thread and checkpoint download; a follower installs the checkpoint and catches up" },
    Described { name: "with-leader-change", doc: "base plus the leader-change flush of notifyLeaderChanged" },
];

/// One durable write on the leader, as its store's observer sees it.
pub struct DurableStep {
    /// The durable state after the write.
    pub after: Tables<ScmRow>,
    /// `apply(log[1..i])` for every index i, with TX = i.
    pub reference: Arc<Vec<Tables<ScmRow>>>,
}

/// A checkpoint as the download took it.
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
        .without(TX_TABLE)
        .diff(&expected.without(TX_TABLE))
        .first()
    {
        None => Ok(()),
        Some(first) => Err(format!(
            "{what} claims TX {tx} but differs from apply(log[1..{tx}]): {first} ({what} vs log)"
        )),
    }
}

fn no_partial_transaction(s: &DurableStep) -> Result<(), String> {
    let data = s.after.without(TX_TABLE);
    if s.reference.iter().any(|r| r.without(TX_TABLE) == data) {
        return Ok(());
    }
    Err(format!(
        "durable data {data} is no apply(log[1..i]): part of a transaction"
    ))
}

fn durable_index_matches_data(s: &DurableStep) -> Result<(), String> {
    matches_reference("DB", &s.after, &s.reference)
}

fn checkpoint_consistent(c: &CheckpointTaken) -> Result<(), String> {
    matches_reference("checkpoint", &c.checkpoint, &c.reference)
}

fn replicas_agree(r: &Replicas) -> Result<(), String> {
    match r.follower.diff(&r.leader).first() {
        None => Ok(()),
        Some(first) => Err(format!("follower vs leader: {first}")),
    }
}

/// Invariants checked at every durable write of the leader.
pub const DURABLE: &[Invariant<DurableStep>] = &[
    Invariant {
        name: NO_PARTIAL_TRANSACTION,
        doc: "the leader's durable data is always apply(log[1..i]) for some i, never part of a transaction",
        check: no_partial_transaction,
    },
    Invariant {
        name: DURABLE_INDEX_MATCHES_DATA,
        doc: "every durable state of the leader equals apply(log[1..TX]) for its own TX",
        check: durable_index_matches_data,
    },
];

/// Invariants checked on the checkpoint when the download takes it.
pub const CHECKPOINT: &[Invariant<CheckpointTaken>] = &[Invariant {
    name: CHECKPOINT_CONSISTENT,
    doc: "the checkpoint equals apply(log[1..TX]) for its own TX",
    check: checkpoint_consistent,
}];

/// Invariants checked when the follower has caught up.
pub const FINAL: &[Invariant<Replicas>] = &[Invariant {
    name: REPLICAS_AGREE,
    doc: "the follower that installed the checkpoint and caught up equals the leader",
    check: replicas_agree,
}];

const INVARIANTS: &[Described] = &[
    Described { name: NO_PARTIAL_TRANSACTION, doc: "the leader's durable data is always apply(log[1..i]) for some i, never part of a transaction" },
    Described { name: DURABLE_INDEX_MATCHES_DATA, doc: "every durable state of the leader equals apply(log[1..TX]) for its own TX" },
    Described { name: CHECKPOINT_CONSISTENT, doc: "the checkpoint equals apply(log[1..TX]) for its own TX" },
    Described { name: REPLICAS_AGREE, doc: "the follower that installed the checkpoint and caught up equals the leader (synthetic non-idempotent counter)" },
];

const PROBES: &[Described] = &[Described {
    name: PROBE_FLUSH_DURING_APPLY,
    doc: "a download or leader-change flush was attempted while an apply was in flight",
}];

static INFO: Info = Info {
    name: "hdds-16452",
    jira: "HDDS-16452",
    title: "SCM checkpoint download flushes mid-apply; the follower re-applies the entry",
    variants: VARIANTS,
    plans: PLANS,
    invariants: INVARIANTS,
    probes: PROBES,
    required_probes: &[PROBE_FLUSH_DURING_APPLY],
    expected,
};

fn expected(variant: &str, plan: &str) -> Expected {
    const ALL: &[&str] = &[
        NO_PARTIAL_TRANSACTION,
        DURABLE_INDEX_MATCHES_DATA,
        CHECKPOINT_CONSISTENT,
        REPLICAS_AGREE,
    ];
    match (variant, plan) {
        ("fixed", _) | ("download-guarded", "base") => Expected::Holds,
        _ => Expected::Violates(ALL),
    }
}

fn flush_paths(variant: &str) -> Option<(FlushPath, FlushPath)> {
    Some(match variant {
        "buggy" => (FlushPath::Unguarded, FlushPath::Unguarded),
        "download-guarded" => (FlushPath::Guarded, FlushPath::Unguarded),
        "fixed" => (FlushPath::Guarded, FlushPath::Guarded),
        _ => return None,
    })
}

/// The log of both plans: one `addTransactionsToDB` of txIDs 1 (2 blocks) and 2 (3 blocks).
pub fn plan_log() -> RaftLog<ScmRequest> {
    sized_log(1)
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

impl Scenario for Hdds16452 {
    fn info(&self) -> &'static Info {
        &INFO
    }

    fn prepare(&self, variant: &str, plan: &str) -> Result<Box<dyn Case>, String> {
        self.prepare_sized(variant, plan, 1)
    }

    fn size_knob(&self) -> Option<SizeKnob> {
        Some(SizeKnob {
            counts: "SCM transactions in the log",
            default: 1,
        })
    }

    fn prepare_sized(
        &self,
        variant: &str,
        plan: &str,
        size: usize,
    ) -> Result<Box<dyn Case>, String> {
        let (download, leader_change) =
            flush_paths(variant).ok_or_else(|| format!("unknown variant `{variant}`"))?;
        let leader_change = match plan {
            "base" => None,
            "with-leader-change" => Some(leader_change),
            _ => return Err(format!("unknown plan `{plan}`")),
        };
        let log = sized_log(size);
        let reference = Arc::new(reference_states(&log));
        Ok(Box::new(Prepared {
            download,
            leader_change,
            log: Arc::new(log),
            reference,
        }))
    }
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
                let checkpoint = download(&buffer, &me, path);
                let taken = CheckpointTaken {
                    checkpoint,
                    reference,
                };
                check_all(CHECKPOINT, &taken, me.recorder());
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

        let me = Actor::new("main", recorder);
        take_snapshot(&buffer, &me);
        let leader = store.durable();
        let follower_store: Store<ScmRow> = Store::with_state(initial_tables(), None);
        let follower_actor = Actor::new("follower", recorder);
        install_and_catch_up(&follower_store, checkpoint, &self.log, &follower_actor);
        let follower = follower_store.durable();
        check_all(FINAL, &Replicas { leader, follower }, recorder);
    }
}
