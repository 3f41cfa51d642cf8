//! HDDS-8036: the SCM's transaction buffer had no lock, so a flush from the checkpoint
//! download's gRPC thread could commit, close and replace the batch while the apply thread
//! was putting into it; the put lands in a batch no one commits again, and the write is lost
//! under a `TransactionInfo` that claims it.
//!
//! Buggy: the Java at b831d8e6fb1^ (628623d6644); fixed: at the fix b831d8e6fb1 (PR #4319),
//! which adds a `ReentrantReadWriteLock` to `SCMHADBTransactionBufferImpl`. Model: the shared
//! [`crate::models::scm::tx_buffer`] at [`Revision::Hdds8036Parent`] and
//! [`Revision::Hdds8036`]. Historical citations: `@hdds-8036-parent`, `@hdds-8036` in
//! `citations.toml`.
//!
//! # The race
//!
//! At the parent,
//! [`addToBuffer`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer)
//! reads `currentBatchOperation` and then puts into the batch it read. The follower's
//! checkpoint download runs on the leader's gRPC thread:
//! [`download`](crate::citation::java::hdds_8036_parent::InterSCMGrpcService::download) calls
//! [`flush`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::flush),
//! which stages `TRANSACTION_INFO_KEY = latestTrxInfo`, commits the batch, closes it and
//! assigns a new one, with nothing between the apply thread and it. When the flush's commit
//! falls between the apply thread's read of the field and its put, the put lands in a batch
//! that is already committed (and then closed: a put into a closed RocksJava `WriteBatch`
//! reaches a freed native object, since `RDBBatchOperation.put` checks only that the DB is
//! open), or in one already replaced. No later flush commits that batch: the next flush
//! commits the new one, with the `TransactionInfo` of the apply that made the lost put. The
//! DB now claims an index whose write it lacks; a restart loads `TransactionInfo` from the DB
//! and Ratis does not send that entry again, so the write is gone for good on this SCM while
//! its peers hold it.
//!
//! The fix takes the read lock around each put and the write lock around `flush` (and
//! `init`): a flush waits for a put in progress, and a put for a flush in progress, so a put
//! always lands in the batch the next flush commits.
//!
//! **Java wins over the one-line summary** ("the apply thread's `addToBuffer` against a gRPC
//! checkpoint download (and the stateful service) calling `flush()`"): the stateful service's
//! flush is not a concurrent caller of the apply thread. `saveConfiguration` is `@Replicate`
//! (`StatefulServiceStateManager`), so its body,
//! [`saveConfiguration`](crate::citation::java::hdds_8036_parent::StatefulServiceStateManagerImpl::saveConfiguration)'s
//! put and flush, runs inside
//! [`applyTransaction`](crate::citation::java::hdds_8036_parent::SCMStateMachine::applyTransaction)
//! on the apply thread itself, as does
//! [`takeSnapshot`](crate::citation::java::hdds_8036_parent::SCMStateMachine::takeSnapshot)
//! (Ratis's updater thread applies and snapshots). Every `addToBuffer` caller at the parent
//! (container, pipeline, deleted-block, sequence-id, finalization, move and stateful-service
//! managers) is reached from an apply. The one flush off the apply thread is the download's;
//! the stateful service's flush races it **flush against flush** (`save-configuration`):
//! both stage into, commit, close and replace the same batch in some interleaving, so one
//! flush can replace the batch the other just made current, after the apply thread put into
//! it. The harm is a lost write, not an exception on the apply thread: nothing in the Java
//! throws on a committed batch, and the freed native batch is undefined behaviour (at best the
//! same lost write, at worst a crash of the JVM).
//!
//! # Plans
//!
//! After the leader's configuration entry (1), the apply thread applies the data entries and
//! then takes a snapshot (a flush); beside it, a follower's checkpoint download flushes once.
//!
//! - `download`: 2 and 3 are `addTransactionsToDB` of one deleted-block transaction each.
//! - `save-configuration`: 2 is `saveConfiguration` (a put and a flush, on the apply thread),
//!   3 an `addTransactionsToDB`.
//! - `generated`: every workload of [`VOCABULARY`] within its bounds (at most three
//!   requests and one fault by default, 29 workloads): the drawn entries are the log after
//!   the configuration entry, in order; one download always races the apply thread, and a
//!   drawn `download` adds a second follower's (see "Generated workloads").
//!
//! The two written plans break the same way (one preemption: the apply thread between its read of the field
//! and its put, the download's whole flush in between). In `save-configuration` the lost put
//! is `saveConfiguration`'s own: its flush, right after, commits the new, empty batch. Flush
//! against flush alone loses nothing: a write is lost only when a put lands in a batch that a
//! flush has committed, closed or replaced, so every lost write involves a put overlapping a
//! flush of the other thread.
//!
//! # Generated workloads (`generated`)
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `add` | `DeletedBlockLogStateManagerImpl.addTransactionsToDB` | applied on the apply thread: one [`addToBuffer`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer) per row (the next deleted-block transaction id) |
//! | `save-config` | [`saveConfiguration`](crate::citation::java::hdds_8036_parent::StatefulServiceStateManagerImpl::saveConfiguration) | applied on the apply thread: a put, then a [`flush`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::flush) |
//! | `download` (fault) | [`InterSCMGrpcService.download`](crate::citation::java::hdds_8036_parent::InterSCMGrpcService::download) | a second follower's checkpoint download: one more flush on a gRPC thread of its own |
//!
//! The entries race the downloads as a whole, so a workload's order among them is no
//! choice: the `download` comes after the entries. One download always races (the written
//! plans' `grpc`, and PCT needs two actors). Left out: the other `addToBuffer` callers
//! (container, pipeline, sequence-id, finalization and move managers: each is an apply's
//! put, as `add` is), a restart (the harm is stated on the durable DB already: a restart
//! replays after the `TransactionInfo` it claims) and a leader change (the parent's
//! `notifyLeaderChanged` does not flush).
//!
//! Verdicts (the default budget, random and PCT 2,000 executions at depth 3; `NoLostWrite`
//! watched alone over seeds 0..20, worst and median executions to it; the stateful engine
//! at 551c89d):
//!
//! | variant | random | PCT | stateful |
//! |---|---|---|---|
//! | `buggy` | breaks `NoLostWrite`: worst 22, median 4.5 | worst 142, median 11 | at execution 2 |
//! | `fixed` | holds (20 seeds of 5,000 executions, `AddDuringFlush` in 21% to 23% of them) | holds (20 seeds of 5,000, the window in 6% to 8%) | holds, exhausted: 17,186 states, 46,180 executions (4,000 of them its random walks), about 1 s; `AddDuringFlush` in 3,581 of them |
//!
//! Random minimizes to `add` alone, PCT to `save-config` alone: one entry beside one
//! download loses its write, where the written plans apply two.
//!
//! # Properties
//!
//! `NoLostWrite` (at quiescence, after the snapshot's flush): the DB holds every row that the
//! log up to its `TransactionInfo` wrote. Probes: `AddDuringFlush` (required): an
//! `addToBuffer` came while the download's flush was between its first and last step (under
//! the fix: held the write lock, so the put waited); `PutIntoCommittedBatch`,
//! `ClosedBatchUsed`: the parent's put landed in a batch already committed or replaced, or
//! used one already closed; `FlushDuringFlush`: the download's flush and the apply thread's
//! (`saveConfiguration`'s or `takeSnapshot`'s) overlapped.
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | each Java field access of the parent's buffer is one atomic step over sequentially consistent memory (the fields are plain, non-volatile) | weaker memory only adds behaviours: every violation found here is reachable in the Java |
//! | a put into, or a commit of, a closed batch is dropped (RocksJava: a call on a freed native object) | the weakest outcome: the write is lost either way, since no later flush commits that batch; a JVM crash is worse |
//! | `latestSnapshot`, `DeletedBlockLogImpl.onFlush`, the download's TX read and streaming | nothing in the plans reads them |
//! | `updateLatestTrxInfo` cited at the pinned Java | the method is the same at the parent, the fix and the pinned commit: no lock, throws on a non-increasing index |
//! | the requests' other managers' in-memory maps, Ratis, the follower's install | the harm is in the leader's own DB; a restart's replay starts after the TX the DB claims |
//! | the configuration entry 1 is taken as applied (`latestTrxInfo` 1) before the threads start | it writes nothing to the DB |

use crate::choices;
use crate::citation::java::hdds_8036_parent as parent;
use crate::kit::raft_log::{LogEntry, Payload, RaftLog};
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::{stored_index, TxRow};
use crate::models::scm::request::ScmRequest;
use crate::models::scm::state_machine::reference_states;
use crate::models::scm::tx_buffer::{
    Revision, TransactionBuffer, ADD_DURING_FLUSH, CLOSED_BATCH_USED, FLUSH_DURING_FLUSH,
    PUT_INTO_COMMITTED_BATCH,
};
use crate::models::scm::{initial_tables, ScmRow};
use crate::properties::{Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Vocabulary, Word};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds8036;

choices! {
    /// The buffer's locking.
    pub enum Variant {
        /// b831d8e6fb1^: no lock
        Buggy = "buggy",
        /// b831d8e6fb1: the read lock per put, the write lock per flush
        Fixed = "fixed",
    }
}

choices! {
    /// What the apply thread applies beside the download.
    pub enum Plan {
        /// two `addTransactionsToDB`
        Download = "download",
        /// `saveConfiguration` (its own flush), then an `addTransactionsToDB`
        SaveConfiguration = "save-configuration",
        /// every workload of the vocabulary within the bounds: deleted-block adds and saveConfiguration applied in order, racing one checkpoint download, or two
        Generated = "generated",
    }
}

impl Variant {
    /// The buffer's Java revision.
    pub fn revision(self) -> Revision {
        match self {
            Variant::Buggy => Revision::Hdds8036Parent,
            Variant::Fixed => Revision::Hdds8036,
        }
    }
}

/// What the SCM left behind.
pub struct End {
    /// Its committed DB.
    pub durable: Tables<ScmRow>,
    /// `apply(log[1..i])` with TX = i, for each i.
    pub reference: Vec<Tables<ScmRow>>,
}

/// The DB holds every write of the entries its `TransactionInfo` claims.
pub const NO_LOST_WRITE: Invariant<End> = Invariant::eventually(
    "NoLostWrite",
    "once the log is applied and flushed, the SCM's DB holds every row the log up to its TransactionInfo wrote",
    "An SCM's DB lacks a write of an entry its TransactionInfo covers (the put landed in a batch a concurrent flush had committed): a restart reloads the managers without it and Ratis does not send that entry again, so the write is lost for good on this SCM while its peers hold it; a put into the closed batch may instead crash the JVM.",
    |e| {
        let index = stored_index(&e.durable);
        let Some(want) = e.reference.get(usize::try_from(index).unwrap_or(usize::MAX)) else {
            return Err(format!("TransactionInfo {index} beyond the log"));
        };
        for (table, key, row) in want.iter() {
            if table == ScmRow::TABLE {
                continue;
            }
            if e.durable.get(table, key) != Some(row) {
                return Err(format!(
                    "TransactionInfo {index}, but {table}/{key} is {} (the log wrote {row})",
                    e.durable
                        .get(table, key)
                        .map_or("absent".to_string(), |r| r.to_string())
                ));
            }
        }
        Ok(())
    },
);

impl Scenario for Hdds8036 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-8036";
    const JIRA: &'static str = "HDDS-8036";
    const TITLE: &'static str =
        "an unlocked flush commits and replaces the batch the apply thread is putting into";
    const PROPERTIES: &'static [Property] = &[
        NO_LOST_WRITE.property(),
        ADD_DURING_FLUSH.required(),
        PUT_INTO_COMMITTED_BATCH.property(),
        CLOSED_BATCH_USED.property(),
        FLUSH_DURING_FLUSH.property(),
    ];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const LOST: &[Property] = &[NO_LOST_WRITE.property()];
        match (variant, plan) {
            (Variant::Buggy, Plan::Download | Plan::SaveConfiguration) => Expected::Violates(LOST),
            (Variant::Fixed, Plan::Download | Plan::SaveConfiguration) => Expected::Holds,
            // Every workload of the vocabulary (module docs, "Generated workloads").
            (Variant::Buggy, Plan::Generated) => Expected::Violates(LOST),
            (Variant::Fixed, Plan::Generated) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                variant,
                bounds: VOCABULARY.bounds,
            });
        }
        let log = plan_log(plan);
        let reference = reference_states(&log, initial_tables(0));
        Box::new(Prepared {
            variant,
            log: Arc::new(log),
            reference,
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

/// 1 the leader's configuration entry, then the plan's data entries.
pub fn plan_log(plan: Plan) -> RaftLog<ScmRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    if plan == Plan::SaveConfiguration {
        log.append(ScmRequest::SaveConfiguration {
            service: "ContainerBalancer",
            value: 1,
        });
    } else {
        log.append(ScmRequest::AddTransactionsToDb {
            txns: vec![(1, 1)],
            summary: None,
        });
    }
    log.append(ScmRequest::AddTransactionsToDb {
        txns: vec![(2, 2)],
        summary: None,
    });
    log
}

/// A leader SCM's DB (TX 0) and its buffer at `revision`, with the configuration entry 1
/// applied (`latestTrxInfo` 1).
pub fn leader(revision: Revision) -> Arc<TransactionBuffer> {
    let store = Arc::new(Store::with_state(initial_tables(0), None));
    Arc::new(TransactionBuffer::new(store, 1, 1).at(revision))
}

/// The parent's `applyTransaction` of data entry `entry` (there is no apply window at these
/// commits): `process`, whose puts are each an `addToBuffer` and whose `saveConfiguration`
/// flushes, then `updateLatestTrxInfo`.
pub fn apply(
    buffer: &TransactionBuffer,
    me: &Actor,
    view: &mut Tables<ScmRow>,
    entry: &LogEntry<ScmRequest>,
) {
    let Payload::Data(request) = &entry.payload else {
        return;
    };
    let applied = request
        .apply(view)
        .unwrap_or_else(|e| panic!("model error: the plans' requests do not throw: {e}"));
    me.step_with(&parent::SCMStateMachine::applyTransaction, || {
        format!(
            "index {} {request}: {} puts",
            entry.index,
            applied.puts.len()
        )
    });
    for p in applied.puts {
        buffer.add_to_buffer(me, p.table, &p.key, p.row);
    }
    if applied.flushes {
        me.step(
            &parent::StatefulServiceStateManagerImpl::saveConfiguration,
            "flush the buffer",
        );
        buffer.flush(me, "saveConfiguration");
    }
    if let Err(e) = buffer.update_latest_trx_info(me, entry.term, entry.index) {
        panic!("model error: the plans' indexes increase: {e}");
    }
}

/// `takeSnapshot` on the apply thread after the log: `latestTrxInfo` is the applied index
/// already, so it only flushes.
pub fn take_snapshot(buffer: &TransactionBuffer, me: &Actor) {
    me.step(&parent::SCMStateMachine::takeSnapshot, "flush the buffer");
    buffer.flush(me, "takeSnapshot");
}

/// `InterSCMGrpcService.download`'s flush (the checkpoint after it changes no DB).
pub fn download(buffer: &TransactionBuffer, me: &Actor) {
    me.step(
        &parent::InterSCMGrpcService::download,
        "follower asks for a checkpoint: flush the buffer",
    );
    buffer.flush(me, "download");
}

struct Prepared {
    variant: Variant,
    log: Arc<RaftLog<ScmRequest>>,
    reference: Vec<Tables<ScmRow>>,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        run_log(
            recorder,
            self.variant,
            &self.log,
            self.reference.clone(),
            &["grpc"],
        );
    }
}

/// The apply thread applies `log` after its configuration entry and takes a snapshot, while
/// each of `downloads` (a gRPC thread) flushes once for a follower's checkpoint; then
/// `NoLostWrite`.
fn run_log(
    recorder: &Arc<Recorder>,
    variant: Variant,
    log: &Arc<RaftLog<ScmRequest>>,
    reference: Vec<Tables<ScmRow>>,
    downloads: &[&'static str],
) {
    let buffer = leader(variant.revision());
    let apply = {
        let (buffer, log) = (Arc::clone(&buffer), Arc::clone(log));
        let me = Actor::new("apply", recorder);
        thread::spawn("apply", move || {
            let mut view = initial_tables(0);
            for entry in log.after(1) {
                apply(&buffer, &me, &mut view, entry);
            }
            take_snapshot(&buffer, &me);
        })
    };
    let grpc: Vec<_> = downloads
        .iter()
        .map(|&name| {
            let buffer = Arc::clone(&buffer);
            let me = Actor::new(name, recorder);
            thread::spawn(name, move || download(&buffer, &me))
        })
        .collect();
    apply.join();
    for g in grpc {
        g.join();
    }
    recorder.quiesce();
    let end = End {
        durable: buffer.store().durable(),
        reference,
    };
    NO_LOST_WRITE.check_into(&end, recorder);
}

/// The words of a generated workload (`generated`): the entries the apply thread applies
/// (each an `addToBuffer` caller reached from an apply) and the one flush off the apply
/// thread, a follower's checkpoint download. No universes: each add carries the next
/// deleted-block transaction id, each `saveConfiguration` the next value.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[
        Word {
            name: "add",
            kind: Kind::Request,
            args: &[],
            doc: "DeletedBlockLogStateManagerImpl.addTransactionsToDB through Ratis: applied on the apply thread, one addToBuffer per row",
        },
        Word {
            name: "save-config",
            kind: Kind::Request,
            args: &[],
            doc: "StatefulServiceStateManagerImpl.saveConfiguration through Ratis: on the apply thread, an addToBuffer and then a flush of the buffer",
        },
        Word {
            name: "download",
            kind: Kind::Fault,
            args: &[],
            doc: "a second follower's checkpoint download (one always races): InterSCMGrpcService.download flushes the buffer on a gRPC thread of its own, racing the apply thread and the other download",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 1,
    },
    allowed: requests_first,
};

/// The entries are the log, applied in order; the downloads race the whole of it, so their
/// place in a workload is no choice: they come last.
fn requests_first(prefix: &[Item], item: &Item) -> bool {
    let is_fault = |i: &Item| VOCABULARY.words[i.word].kind == Kind::Fault;
    is_fault(item) || !prefix.iter().any(is_fault)
}

/// The `generated` case of one variant.
struct GeneratedCase {
    variant: Variant,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("setup", recorder));
        let mut log = RaftLog::new();
        log.start_term(1);
        // One download always races the apply thread, as in the written plans (and PCT
        // needs two actors); each drawn `download` is one more follower's.
        let mut downloads = vec!["grpc"];
        for (n, item) in (1u64..).zip(&workload.items) {
            match VOCABULARY.words[item.word].name {
                "add" => {
                    log.append(ScmRequest::AddTransactionsToDb {
                        txns: vec![(n, n)],
                        summary: None,
                    });
                }
                "save-config" => {
                    log.append(ScmRequest::SaveConfiguration {
                        service: "ContainerBalancer",
                        value: n,
                    });
                }
                _ => downloads.push("grpc2"),
            }
        }
        let reference = reference_states(&log, initial_tables(0));
        run_log(
            recorder,
            self.variant,
            &Arc::new(log),
            reference,
            &downloads,
        );
    }
}
