//! `SCMStateMachine`: the apply window, configuration entries, the leader change and the
//! leader's readiness, `takeSnapshot`, and a follower's install of a leader's checkpoint.
//!
//! Java (`scm/ha/SCMStateMachine.java`):
//! - [`applyTransaction`](crate::citation::java::SCMStateMachine::applyTransaction):
//!   `beginApplyingTransaction`; [`process`](crate::citation::java::SCMStateMachine::process) (the
//!   request's implementation, through the invoker: see [`super::request`]); then
//!   `updateLatestTrxInfo(i)` and the applied index; `endApplyingTransaction` in a `finally`.
//!   [`apply_writes`] is that window for any SCM request: the implementation's effects are
//!   [`Write`]s, each its own call (an `addToBuffer` under the buffer's lock, a direct
//!   RocksDB batch such as `SCMCertStore.storeValidCertificate`'s, or `saveConfiguration`'s
//!   flush), and no lock of the state machine is held across them, so a flush from another
//!   thread (`notifyLeaderChanged`, the checkpoint download) can land between any two.
//!   An exception that is not a non-fatal `SCMException` (the container transition's
//!   `InvalidContainerStateException`, the `IllegalArgumentException` of a non-increasing
//!   index) completes the future exceptionally and calls `ExitUtils.terminate`: the SCM
//!   exits ([`ApplyOutcome::Terminated`]).
//! - `saveConfiguration`'s unguarded `flush()` runs inside `process`, so before
//!   `updateLatestTrxInfo(i)`: it commits the configuration of entry i under TX i-1
//!   ([`SaveFlush::Java`]). [`SaveFlush::AfterIndex`] is the proposed change (not in the Java):
//!   the state machine flushes after `updateLatestTrxInfo(i)` and before
//!   `endApplyingTransaction`, and the implementation no longer flushes.
//! - [`notifyTermIndexUpdated`](crate::citation::java::SCMStateMachine::notifyTermIndexUpdated)
//!   for entries without state-machine data (configuration entries): the applied index, then
//!   begin, `updateLatestTrxInfo`, end. No DB write. Its `IllegalArgumentException` is not
//!   caught there: Ratis's
//!   [`StateMachineUpdater.run`](crate::citation::java::StateMachineUpdater::run) closes the
//!   server, and `SCMStateMachine.close` shuts the SCM down.
//! - [`notifyLeaderChanged`](crate::citation::java::SCMStateMachine::notifyLeaderChanged) on the
//!   new leader: `invalidateBatch`, an UNGUARDED `transactionBuffer.flush()` (the fixes
//!   call `flushIfNeeded(0)`), then `DeletedBlockLogImpl.onBecomeLeader`, which loads the
//!   deleted-block summary from the DB ([`super::deleted_blocks`]). Ratis calls it on the
//!   election thread, before the new leader appends its startup entry, while the updater may
//!   still be applying entries of earlier terms.
//! - The new leader's startup (configuration) entry, on the updater thread, in the order of
//!   Ratis's [`RaftServerImpl.applyLogToStateMachine`](crate::citation::java::RaftServerImpl::applyLogToStateMachine)
//!   ([`Updater::apply_startup_entry`]):
//!   [`notifyConfigurationChanged`](crate::citation::java::SCMStateMachine::notifyConfigurationChanged)
//!   (the Java logs an event); [`LeaderStateImpl.checkReady`](crate::citation::java::LeaderStateImpl::checkReady),
//!   whose `StartupLogEntry.checkStartIndex` completes the startup future, so Ratis's
//!   `isLeaderReady` is true from here on (Ratis's `checkLeaderState` accepts client writes, and
//!   the SCM's request paths, which ask Ratis through
//!   [`StorageContainerManager.checkLeader`](crate::citation::java::StorageContainerManager::checkLeader),
//!   accept requests such as the OM's `deleteKeyBlocks`), and only then
//!   [`notifyLeaderReady`](crate::citation::java::SCMStateMachine::notifyLeaderReady), which sets
//!   `SCMContext`'s own ready flag; last `notifyTermIndexUpdated` of the entry. Every earlier
//!   entry is applied by then and nothing applies concurrently, but clients may already
//!   submit. The Java does not load the summary in either callback:
//!   [`SummaryLoad::OnLeaderReady`] (in `notifyLeaderReady`, after a flush) and
//!   [`SummaryLoad::BeforeReady`] (in `notifyConfigurationChanged` of the startup entry,
//!   after a flush) are proposed changes that move the load there from `onBecomeLeader`.
//! - [`takeSnapshot`](crate::citation::java::SCMStateMachine::takeSnapshot): begin; if
//!   `latestTrxInfo` is behind the applied index, catch it up (`updateLatestTrxInfo`); the
//!   unguarded `flush()`; end. It runs on the updater thread between applies, so it keeps
//!   the unguarded flush in every variant (guarded, it would always defer).
//! - Follower: `notifyInstallSnapshotFromLeader` downloads the checkpoint and
//!   [`verifyCheckpointFromLeader`](crate::citation::java::SCMHAManagerImpl::verifyCheckpointFromLeader)
//!   refuses one whose TX is not above the follower's applied index; otherwise
//!   [`reinitialize`](crate::citation::java::SCMStateMachine::reinitialize) replaces the DB,
//!   reloads every manager from it, `transactionBuffer.init()` reads its TX and Ratis sends
//!   every entry after it again ([`replay_after`], which is also what an SCM restarted
//!   after a kill does from its own DB).
//!
//! Abstracted away: the `SCMContext` term checks, the replicated-invocation proxy and its
//! reflection, the background `SCMHATransactionBufferMonitorTask` (`flushIfNeeded(60 s)`,
//! guarded, on a ready leader only: it adds flushes between applies, which are consistent,
//! and the 60 s never elapse in a plan), the datanode-server start, checkpoint streaming and
//! the secret keys, and the follower's own flushes (it commits each re-applied entry with its
//! index: the same final state as Ratis applies followed by later flushes).

use super::deleted_blocks::DeletedBlockStatus;
use super::request::ScmRequest;
use super::tx_buffer::{FlushPath, TransactionBuffer};
use super::ScmRow;
use crate::citation::java;
use crate::citation::Citation;
use crate::kit::raft_log::{LogEntry, Payload, RaftLog};
use crate::kit::store::TableName;
use crate::kit::store::{Checkpoint, Store, Tables, WriteBatch};
use crate::kit::tx_info::{self, stage_tx_info, stored_index, TxRow};
use crate::recorder::Actor;
use std::fmt;

/// Where `saveConfiguration`'s flush runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveFlush {
    /// The Java: inside the implementation, before `updateLatestTrxInfo(i)`.
    Java,
    /// The proposed change: after `updateLatestTrxInfo(i)`, before `endApplyingTransaction`.
    AfterIndex,
}

/// Where a new leader loads its deleted-block summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryLoad {
    /// The Java: in `onBecomeLeader`, from `notifyLeaderChanged`.
    OnBecomeLeader,
    /// A proposed change: in `notifyLeaderReady`, after a flush. Ratis has already set its
    /// ready flag then, so a client's submission can read the counters before the load.
    OnLeaderReady,
    /// A proposed change: in `notifyConfigurationChanged` of the new leader's startup entry
    /// (this SCM leads and `SCMContext.isLeaderReady` is still false), after a flush: on the
    /// updater thread, before Ratis sets its ready flag.
    BeforeReady,
}

/// How an apply ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// Applied (the index moved).
    Applied,
    /// The SCM terminated, with the exception's message.
    Terminated(String),
}

/// The Ratis updater thread of one SCM: its in-memory view (the DB as the managers loaded it
/// plus every write this SCM applied) and its applied index.
#[derive(Debug)]
pub struct Updater {
    /// The managers' in-memory state.
    pub view: Tables<ScmRow>,
    /// `lastAppliedTermIndex`.
    pub last_applied: (u64, u64),
}

impl Updater {
    /// An updater whose managers loaded `view`, at its stored index.
    pub fn new(view: Tables<ScmRow>) -> Self {
        let index = stored_index(&view);
        Self {
            view,
            last_applied: (0, index),
        }
    }

    /// Apply one committed entry: `applyTransaction` for data, `notifyTermIndexUpdated` for a
    /// configuration entry.
    pub fn apply(
        &mut self,
        buffer: &TransactionBuffer,
        actor: &Actor,
        entry: &LogEntry<ScmRequest>,
        save: SaveFlush,
    ) -> ApplyOutcome {
        let outcome = match &entry.payload {
            Payload::Configuration => {
                notify_term_index_updated(buffer, actor, entry.term, entry.index)
            }
            Payload::Data(request) => {
                apply_transaction(buffer, actor, &mut self.view, entry, request, save)
            }
        };
        if outcome == ApplyOutcome::Applied {
            self.last_applied = (entry.term, entry.index);
        }
        outcome
    }

    /// Ratis's apply of this leader's startup (configuration) entry, in the order of
    /// [`RaftServerImpl.applyLogToStateMachine`](java::RaftServerImpl::applyLogToStateMachine):
    /// `notifyConfigurationChanged`; then
    /// [`LeaderStateImpl.checkReady`](java::LeaderStateImpl::checkReady), which completes the
    /// startup entry's future (from then on Ratis's `isLeaderReady` is true and client writes
    /// are accepted: `ready` runs there) and only then calls `notifyLeaderReady`; last
    /// `notifyTermIndexUpdated`, after which `done` runs. So `notifyLeaderReady` still sees
    /// `latestTrxInfo` at the previous entry.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_startup_entry(
        &mut self,
        buffer: &TransactionBuffer,
        actor: &Actor,
        entry: &LogEntry<ScmRequest>,
        status: &DeletedBlockStatus,
        load: SummaryLoad,
        ready: impl FnOnce(),
        done: impl FnOnce(),
    ) -> ApplyOutcome {
        assert_eq!(entry.payload, Payload::Configuration, "a startup entry");
        notify_configuration_changed(buffer, actor, status, load);
        actor.step_with(&java::LeaderStateImpl::checkReady, || {
            format!(
                "startup entry {} applied: the leader is ready (Ratis accepts writes)",
                entry.index
            )
        });
        ready();
        notify_leader_ready(buffer, actor, status, load);
        let outcome = notify_term_index_updated(buffer, actor, entry.term, entry.index);
        done();
        if outcome == ApplyOutcome::Applied {
            self.last_applied = (entry.term, entry.index);
        }
        outcome
    }

    /// `takeSnapshot`, between two applies.
    pub fn take_snapshot(&self, buffer: &TransactionBuffer, actor: &Actor) {
        take_snapshot(buffer, actor, self.last_applied);
    }
}

fn terminate<R: TxRow + fmt::Display>(
    buffer: &TransactionBuffer<R>,
    actor: &Actor,
    index: u64,
    msg: String,
) -> ApplyOutcome {
    actor.step_with(
        &java::ExitUtils::terminate__int_String_Throwable_Logger,
        || format!("index {index}: {msg}: the SCM exits"),
    );
    buffer.end_applying(actor);
    ApplyOutcome::Terminated(msg)
}

/// One effect of a request's implementation (`process`, through the invoker) on the DB, in
/// the order the implementation makes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write<R> {
    /// `addToBuffer`: staged in the transaction buffer, durable at the next flush with the
    /// `TransactionInfo` of that moment.
    Buffered {
        /// Table.
        table: TableName,
        /// Key.
        key: String,
        /// Row.
        row: R,
    },
    /// A write straight into RocksDB (`SCMCertStore`'s `storeValidCertificate` and
    /// siblings): committed at once, with no `TransactionInfo`.
    Direct {
        /// The Java method that writes it.
        java: &'static Citation,
        /// The batch.
        batch: WriteBatch<R>,
    },
    /// The buffer's unguarded `flush()` from inside the implementation
    /// (`saveConfiguration`); where it runs is [`SaveFlush`]'s choice.
    Flush,
}

/// `applyTransaction` of the data entry at `(term, index)`: `beginApplyingTransaction`;
/// `process`, which is `body` (it reads the managers' state and returns the request's writes,
/// or `Err` with the message of an exception that terminates the SCM) followed by its writes,
/// each its own buffer call or direct commit; `updateLatestTrxInfo(term, index)`;
/// `endApplyingTransaction`. Nothing here excludes a concurrent flush: only the buffer's lock,
/// per call, does.
pub fn apply_writes<R: TxRow + fmt::Display>(
    buffer: &TransactionBuffer<R>,
    actor: &Actor,
    (term, index): (u64, u64),
    save: SaveFlush,
    body: impl FnOnce() -> Result<Vec<Write<R>>, String>,
) -> ApplyOutcome {
    buffer.begin_applying(actor);
    let writes = match body() {
        Ok(writes) => writes,
        Err(msg) => return terminate(buffer, actor, index, msg),
    };
    let mut flushes = false;
    for write in writes {
        match write {
            Write::Buffered { table, key, row } => buffer.add_to_buffer(actor, table, &key, row),
            Write::Direct { java, batch } => buffer.store().commit(actor, java, batch),
            Write::Flush => {
                flushes = true;
                if save == SaveFlush::Java {
                    buffer.flush(actor, "saveConfiguration");
                }
            }
        }
    }
    if let Err(msg) = buffer.update_latest_trx_info(actor, term, index) {
        return terminate(buffer, actor, index, msg);
    }
    if flushes && save == SaveFlush::AfterIndex {
        buffer.flush(actor, "after saveConfiguration's index");
    }
    buffer.end_applying(actor);
    ApplyOutcome::Applied
}

/// `applyTransaction` of data entry `entry` (carrying `request`) on an SCM whose in-memory
/// state is `view`.
pub fn apply_transaction(
    buffer: &TransactionBuffer,
    actor: &Actor,
    view: &mut Tables<ScmRow>,
    entry: &LogEntry<ScmRequest>,
    request: &ScmRequest,
    save: SaveFlush,
) -> ApplyOutcome {
    apply_writes(buffer, actor, (entry.term, entry.index), save, || {
        let applied = request.apply(view).inspect_err(|_| {
            actor.step_with(request.java(), || {
                format!("index {} {request}: throws", entry.index)
            });
        })?;
        actor.step_with(request.java(), || {
            format!(
                "index {} {request}: {} puts",
                entry.index,
                applied.puts.len()
            )
        });
        let mut writes: Vec<Write<ScmRow>> = if applied.direct {
            let mut batch = WriteBatch::new();
            for p in applied.puts {
                batch.put(p.table, &p.key, p.row);
            }
            vec![Write::Direct {
                java: request.java(),
                batch,
            }]
        } else {
            applied
                .puts
                .into_iter()
                .map(|p| Write::Buffered {
                    table: p.table,
                    key: p.key,
                    row: p.row,
                })
                .collect()
        };
        if applied.flushes {
            writes.push(Write::Flush);
        }
        Ok(writes)
    })
}

/// `notifyTermIndexUpdated` for a configuration entry at `(term, index)`.
pub fn notify_term_index_updated<R: TxRow + fmt::Display>(
    buffer: &TransactionBuffer<R>,
    actor: &Actor,
    term: u64,
    index: u64,
) -> ApplyOutcome {
    actor.step_with(&java::SCMStateMachine::notifyTermIndexUpdated, || {
        format!("configuration entry {index}: applied -> {index}")
    });
    buffer.begin_applying(actor);
    let updated = buffer.update_latest_trx_info(actor, term, index);
    buffer.end_applying(actor);
    match updated {
        Ok(()) => ApplyOutcome::Applied,
        Err(msg) => {
            actor.step_with(&java::StateMachineUpdater::run, || {
                format!("index {index}: {msg}: the Ratis server closes, the SCM shuts down")
            });
            ApplyOutcome::Terminated(msg)
        }
    }
}

/// `notifyLeaderChanged` on the new leader: the flush along `path`, then, when the summary
/// loads there, `onBecomeLeader`'s load into `status`.
pub fn notify_leader_changed(
    buffer: &TransactionBuffer,
    actor: &Actor,
    path: FlushPath,
    status: &DeletedBlockStatus,
    load: SummaryLoad,
) {
    leader_change_flush(
        buffer,
        actor,
        path,
        "becomes leader: flush, then onBecomeLeader",
    );
    if load == SummaryLoad::OnBecomeLeader {
        status.on_become_leader(actor, buffer.store());
    }
}

/// The flush of `notifyLeaderChanged` on the new leader, along `path`, after the step `what`.
/// Ratis calls it on the election thread: nothing orders it with the updater's applies.
pub fn leader_change_flush<R: TxRow + fmt::Display>(
    buffer: &TransactionBuffer<R>,
    actor: &Actor,
    path: FlushPath,
    what: &str,
) {
    actor.step(
        &java::SCMStateMachine::notifyLeaderChanged,
        what.to_string(),
    );
    buffer.flush_from(actor, path, "leader change");
}

/// A proposed summary load (`label` names the change and `why` the flush): a flush, then
/// `onBecomeLeader`'s load into `status`.
fn flush_and_load(
    buffer: &TransactionBuffer,
    actor: &Actor,
    status: &DeletedBlockStatus,
    label: &'static str,
    (step, why): (&str, &str),
) {
    actor.step(crate::citation::Label::model(label), step.to_string());
    buffer.flush(actor, why);
    status.on_become_leader(actor, buffer.store());
}

/// `notifyConfigurationChanged` of the new leader's startup entry, on the updater thread:
/// every earlier entry is applied and Ratis's ready flag is not set yet. The Java only logs
/// an event; with [`SummaryLoad::BeforeReady`], a flush and the summary load.
pub fn notify_configuration_changed(
    buffer: &TransactionBuffer,
    actor: &Actor,
    status: &DeletedBlockStatus,
    load: SummaryLoad,
) {
    actor.step(
        &java::SCMStateMachine::notifyConfigurationChanged,
        "startup entry: configuration changed",
    );
    if load == SummaryLoad::BeforeReady {
        flush_and_load(
            buffer,
            actor,
            status,
            "proposed: flush, then load the summary, on the startup entry before Ratis is ready",
            ("load-before-ready", "startup entry"),
        );
    }
}

/// `notifyLeaderReady`, on the updater thread once the leader's startup entry is applied:
/// with [`SummaryLoad::OnLeaderReady`], a flush and the summary load.
pub fn notify_leader_ready(
    buffer: &TransactionBuffer,
    actor: &Actor,
    status: &DeletedBlockStatus,
    load: SummaryLoad,
) {
    actor.step(
        &java::SCMStateMachine::notifyLeaderReady,
        "startup entry applied: the leader is ready",
    );
    if load == SummaryLoad::OnLeaderReady {
        flush_and_load(
            buffer,
            actor,
            status,
            "proposed: flush, then load the summary, once ready",
            ("load-on-ready", "leader ready"),
        );
    }
}

/// `takeSnapshot` with the updater's applied index `last_applied`: begin; catch
/// `latestTrxInfo` up to it when behind; flush; end.
pub fn take_snapshot<R: TxRow + fmt::Display>(
    buffer: &TransactionBuffer<R>,
    actor: &Actor,
    last_applied: (u64, u64),
) {
    buffer.begin_applying(actor);
    let latest = buffer.latest_trx_info();
    if latest < last_applied {
        actor.step_with(&java::SCMStateMachine::takeSnapshot, || {
            format!(
                "latestTrxInfo {} behind applied {}: catch up",
                latest.1, last_applied.1
            )
        });
        // Guarded by the comparison: it cannot throw.
        let _ = buffer.update_latest_trx_info(actor, last_applied.0, last_applied.1);
    }
    buffer.flush(actor, "takeSnapshot");
    buffer.end_applying(actor);
}

/// What a follower's install of a leader's checkpoint came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Install {
    /// `verifyCheckpointFromLeader` refused it: its TX is not above the applied index.
    Refused {
        /// The checkpoint's TX.
        checkpoint: u64,
        /// The follower's applied index.
        applied: u64,
    },
    /// Installed, and every later entry re-applied: the applied index now.
    CaughtUp(u64),
    /// Installed, then re-applying entry `index` terminated the SCM. Its durable TX stays
    /// below `index`, so every restart replays `index` and terminates again.
    Terminated {
        /// The entry.
        index: u64,
        /// The exception's message.
        reason: String,
    },
}

/// A follower whose applied index is `applied` is offered `checkpoint`: it verifies it,
/// installs it into `store`, reloads its index and managers from it, and re-applies every
/// entry of `log` after that index, in order, each applied and committed with its index.
pub fn install_and_catch_up(
    store: &Store<ScmRow>,
    checkpoint: Checkpoint<ScmRow>,
    log: &RaftLog<ScmRequest>,
    applied: u64,
    actor: &Actor,
) -> Install {
    let tx = stored_index(&checkpoint);
    if tx <= applied {
        actor.step_with(&java::SCMHAManagerImpl::verifyCheckpointFromLeader, || {
            format!("checkpoint TX {tx} is not above applied {applied}: refused")
        });
        return Install::Refused {
            checkpoint: tx,
            applied,
        };
    }
    actor.step_with(&java::SCMHAManagerImpl::verifyCheckpointFromLeader, || {
        format!("checkpoint TX {tx} above applied {applied}: install")
    });
    store.install(actor, &java::SCMStateMachine::reinitialize, checkpoint);
    actor.step_with(&java::SCMHADBTransactionBufferImpl::init, || {
        format!(
            "latestTrxInfo = applied = checkpoint TX {tx}; Ratis sends from {}",
            tx + 1
        )
    });
    replay_after(store, log, actor)
}

/// Re-apply every entry of `log` after the TX of `store`'s durable state, in order, each
/// committed with its index: what Ratis sends a replica whose state machine starts from that
/// DB (a follower after [`install_and_catch_up`]'s install, or an SCM restarted after a
/// kill, whose `SCMHADBTransactionBufferImpl.init` reads the same TX).
pub fn replay_after(store: &Store<ScmRow>, log: &RaftLog<ScmRequest>, actor: &Actor) -> Install {
    let mut view = store.durable();
    let tx = stored_index(&view);
    for entry in log.after(tx) {
        let mut batch = WriteBatch::new();
        if let Payload::Data(request) = &entry.payload {
            match request.apply(&mut view) {
                Ok(applied) => {
                    for put in applied.puts {
                        batch.put(put.table, &put.key, put.row);
                    }
                }
                Err(reason) => {
                    actor.step_with(request.java(), || {
                        format!("re-apply index {} {request}: throws", entry.index)
                    });
                    actor.step_with(
                        &java::ExitUtils::terminate__int_String_Throwable_Logger,
                        || {
                            format!(
                                "index {}: {reason}: the SCM exits; its DB still claims TX {}",
                                entry.index,
                                stored_index(&view)
                            )
                        },
                    );
                    return Install::Terminated {
                        index: entry.index,
                        reason,
                    };
                }
            }
            actor.step_with(request.java(), || {
                format!("re-apply index {} {request}", entry.index)
            });
        }
        stage_tx_info(&mut batch, entry.term, entry.index);
        store.commit(actor, &java::SCMHADBTransactionBufferImpl::flush, batch);
        tx_info::put_tx_info(&mut view, entry.term, entry.index);
    }
    Install::CaughtUp(log.last_index())
}

/// `apply(log[1..i])` with TX = i, for i = 0..=last, from `initial`: what a replica that
/// applied each entry once holds at index i.
pub fn reference_states(log: &RaftLog<ScmRequest>, initial: Tables<ScmRow>) -> Vec<Tables<ScmRow>> {
    tx_info::reference_states(log, initial, |entry, request, view| {
        if let Err(e) = request.apply(view) {
            panic!(
                "model error: the first apply of index {} throws: {e}",
                entry.index
            );
        }
    })
}
