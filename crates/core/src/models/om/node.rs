//! One OM replica: its store, state machine, double buffer and the writers of its
//! `TransactionInfo` row, and the `OMDoubleBufferFlushThread` loop that ties them.

use super::double_buffer::{DoubleBuffer, Response};
use super::persist::{IndexWrite, TxInfoWriter};
use super::state_machine::{Exit, Revision, SnapshotTaken, StateMachine};
use super::{OmRow, TermIndex};
use crate::citation::{java, Citation};
use crate::kit::store::{Store, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::Arc;

/// One OM replica's persistence path.
pub struct OmNode {
    writer: TxInfoWriter,
    state_machine: StateMachine,
    buffer: DoubleBuffer<Response>,
    /// Ghost: why the OM ended, if it did (`ExitUtils.terminate`, or the Ratis server closed).
    exits: Ghost<Vec<String>>,
}

impl OmNode {
    /// A replica over `store`, whose applied index starts at `(term, index)` (as
    /// `loadSnapshotInfoFromDB` sets it).
    pub fn new(store: Arc<Store<OmRow>>, index_write: IndexWrite, index: u64, term: u64) -> Self {
        Self::at(Revision::PINNED, store, index_write, index, term)
    }

    /// [`OmNode::new`] with the state machine as at `revision`.
    pub fn at(
        revision: Revision,
        store: Arc<Store<OmRow>>,
        index_write: IndexWrite,
        index: u64,
        term: u64,
    ) -> Self {
        Self {
            writer: TxInfoWriter::new(store, index_write),
            state_machine: StateMachine::at(revision, TermIndex::new(term, index)),
            buffer: DoubleBuffer::new(),
            exits: Ghost::new(Vec::new()),
        }
    }

    /// The replica's DB.
    pub fn store(&self) -> &Store<OmRow> {
        self.writer.store()
    }

    /// The state machine.
    pub fn state_machine(&self) -> &StateMachine {
        &self.state_machine
    }

    /// The double buffer.
    pub fn buffer(&self) -> &DoubleBuffer<Response> {
        &self.buffer
    }

    /// `takeSnapshot` (the wait loop, then `takeSnapshotImpl`); `Err` is its `IOException`.
    pub fn take_snapshot(&self, actor: &Actor, why: &str) -> Result<SnapshotTaken, String> {
        self.state_machine.take_snapshot(&self.writer, actor, why)
    }

    /// `OzoneManagerDoubleBuffer.awaitFlush`: wait until every response queued before the call
    /// is flushed and reported; `false` when the OM is gone first.
    pub fn await_flush(&self, actor: &Actor, java: &'static Citation) -> bool {
        self.buffer.await_flush(actor, java)
    }

    /// The OM ends: `ExitUtils.terminate` (or the Ratis server closing the state machine).
    /// Nothing is queued or flushed afterwards, and a waiting `takeSnapshot` gives up.
    pub fn exit(&self, actor: &Actor, exit: &Exit) {
        self.buffer.terminate();
        self.state_machine.stop();
        actor.step_with(
            &java::ExitUtils::terminate__int_String_Throwable_Logger,
            || format!("OM terminates: {exit}"),
        );
        self.exits.with(|e| e.push(exit.to_string()));
    }

    /// Every exit so far (ghost).
    pub fn exits(&self) -> Vec<String> {
        self.exits.get()
    }

    /// The `OMDoubleBufferFlushThread` loop (`OzoneManagerDoubleBuffer.flushTransactions`):
    /// stage every response's rows and `TRANSACTION_INFO_KEY` = the batch's last `(term,
    /// index)`, commit, clean up, advance the applied index, and only then report the flush
    /// (`FlushNotifier.notifyFlush` at the end of `flushCurrentBuffer`), which wakes
    /// [`OmNode::await_flush`]; until the loop ends. A throwable from
    /// `updateLastAppliedTermIndex` is caught by `flushCurrentBuffer`, which terminates the
    /// OM without reporting the flush.
    pub fn flush_thread(&self, actor: &Actor) {
        const JAVA: &Citation = &java::OzoneManagerDoubleBuffer::flushBatch;
        while let Some(ready) = self.buffer.next_batch(actor) {
            let Some(last) = ready.iter().map(|r| TermIndex::new(r.term, r.index)).max() else {
                continue;
            };
            let mut batch = WriteBatch::new();
            for response in ready {
                batch.append(response.rows);
            }
            stage_tx_info(&mut batch, last.term, last.index);
            self.writer.commit(actor, JAVA, batch, last.index);
            actor.step(JAVA, "cleanupCache, release permits");
            if let Err(exit) = self.state_machine.update_last_applied(actor, last) {
                let exit = Exit {
                    java: &java::OzoneManagerDoubleBuffer::flushCurrentBuffer,
                    what: exit.what,
                };
                self.exit(actor, &exit);
                return;
            }
            self.writer.close_window();
            self.buffer.flushed(last.index);
        }
    }
}
