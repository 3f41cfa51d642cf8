//! `SCMStateMachine`: the apply window, the leader-change flush, `takeSnapshot`, and a
//! follower's install of a leader's checkpoint.
//!
//! Java (`scm/ha/SCMStateMachine.java`):
//! - `applyTransaction` (:154-195): `beginApplyingTransaction`, `process()` (here the puts of
//!   `DeletedBlockLogStateManagerImpl.addTransactionsToDB`, one `addToBuffer` each),
//!   `updateLatestTrxInfo(i)`, update the applied index, `endApplyingTransaction` in a
//!   `finally`.
//! - `notifyLeaderChanged` (:326): an UNGUARDED `transactionBuffer.flush()`.
//! - `takeSnapshot` (:364): begins an apply itself, then `flush()`: it runs on the apply
//!   thread between applies, so it keeps the unguarded flush in every variant (grounding,
//!   modelling note 4: guarded, it would always defer).
//! - Follower: `notifyInstallSnapshotFromLeader` (:232-282) downloads the checkpoint,
//!   `reinitialize` (:522-557) replaces the DB, `transactionBuffer.init()` reads its TX and
//!   sets the applied index to it, and Ratis sends every entry after it again.
//!
//! Abstracted away: the Ratis applied index itself (nothing in the plans reads it; the
//! follower's reload is what matters), the `SCMContext` term checks, the replicated-invocation
//! proxy and its reflection, `saveConfiguration` (it flushes inside an apply, on the apply
//! thread), the background `SCMHATransactionBufferMonitorTask` (`flushIfNeeded(60 s)`:
//! guarded, and the 60 s never elapse in these plans), checkpoint verification and streaming.

use super::deleted_blocks::ScmRequest;
use super::tx_buffer::{FlushPath, TransactionBuffer};
use super::{initial_tables, ScmRow};
use crate::cite::java;
use crate::kit::raft_log::{LogEntry, Payload, RaftLog};
use crate::kit::store::{Checkpoint, Store, Tables, WriteBatch};
use crate::kit::tx_info::{self, stage_tx_info, stored_index};
use crate::recorder::Actor;

/// `applyTransaction` of one entry on a leader whose in-memory state is `view`.
pub fn apply_transaction(
    buffer: &TransactionBuffer,
    actor: &Actor,
    view: &mut Tables<ScmRow>,
    entry: &LogEntry<ScmRequest>,
) {
    let Payload::Data(request) = &entry.payload else {
        return;
    };
    buffer.begin_applying(actor);
    let puts = request.apply(view);
    actor.step_with(request.java(), || {
        format!("index {} {request}: {} puts", entry.index, puts.len())
    });
    for put in puts {
        buffer.add_to_buffer(actor, put.table, &put.key, put.row);
    }
    buffer.update_latest_trx_info(actor, entry.term, entry.index);
    buffer.end_applying(actor);
}

/// `notifyLeaderChanged`: the leader-change flush, along `path`.
pub fn notify_leader_changed(buffer: &TransactionBuffer, actor: &Actor, path: FlushPath) {
    actor.step(
        &java::SCMStateMachine::notifyLeaderChanged,
        "leader changed: flush",
    );
    buffer.flush_from(actor, path, "leader change");
}

/// `takeSnapshot`: begin an apply, flush, end it; on the apply thread, between applies.
pub fn take_snapshot(buffer: &TransactionBuffer, actor: &Actor) {
    buffer.begin_applying(actor);
    buffer.flush(actor, "takeSnapshot");
    buffer.end_applying(actor);
}

/// A follower installs `checkpoint` into `store`, reloads its index from it, and re-applies
/// every entry of `log` after that index, in order, each applied and flushed on its own.
pub fn install_and_catch_up(
    store: &Store<ScmRow>,
    checkpoint: Checkpoint<ScmRow>,
    log: &RaftLog<ScmRequest>,
    actor: &Actor,
) {
    store.install(actor, &java::SCMStateMachine::reinitialize, checkpoint);
    let stored = stored_index(&store.durable());
    actor.step_with(&java::SCMHADBTransactionBufferImpl::init, || {
        format!(
            "latestTrxInfo = applied = checkpoint TX {stored}; Ratis sends from {}",
            stored + 1
        )
    });
    let mut view = store.durable();
    for entry in log.after(stored) {
        let Payload::Data(request) = &entry.payload else {
            continue;
        };
        let mut batch = WriteBatch::new();
        for put in request.apply(&mut view) {
            batch.put(put.table, &put.key, put.row);
        }
        stage_tx_info(&mut batch, entry.term, entry.index);
        actor.step_with(request.java(), || {
            format!("re-apply index {} {request}", entry.index)
        });
        store.commit(actor, &java::SCMHADBTransactionBufferImpl::flush, batch);
    }
}

/// `apply(log[1..i])` with TX = i, for i = 0..=last: what a replica that applied each entry
/// once holds at index i.
pub fn reference_states(log: &RaftLog<ScmRequest>) -> Vec<Tables<ScmRow>> {
    tx_info::reference_states(log, initial_tables(), |_, request, view| {
        request.apply(view);
    })
}
