//! One OM replica: its store, state machine, double buffer and the writers of its
//! `TransactionInfo` row, and the `OMDoubleBufferFlushThread` loop that ties them.

use super::double_buffer::{DoubleBuffer, Response};
use super::persist::{IndexWrite, TxInfoWriter};
use super::state_machine::{SnapshotTaken, StateMachine};
use super::OmRow;
use crate::cite::{java, Citation};
use crate::kit::store::{Store, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::recorder::Actor;
use crate::sync::Arc;

/// One OM replica's persistence path.
pub struct OmNode {
    writer: TxInfoWriter,
    state_machine: StateMachine,
    buffer: DoubleBuffer<Response>,
}

impl OmNode {
    /// A replica over `store`, whose applied index starts at `(index, term)`.
    pub fn new(store: Arc<Store<OmRow>>, index_write: IndexWrite, index: u64, term: u64) -> Self {
        Self {
            writer: TxInfoWriter::new(store, index_write),
            state_machine: StateMachine::new(index, term),
            buffer: DoubleBuffer::new(),
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

    /// `takeSnapshot`.
    pub fn take_snapshot(&self, actor: &Actor, why: &str) -> SnapshotTaken {
        self.state_machine.take_snapshot(&self.writer, actor, why)
    }

    /// The `OMDoubleBufferFlushThread` loop (`OzoneManagerDoubleBuffer.flushTransactions`):
    /// stage every response's rows and `TRANSACTION_INFO_KEY = last index`, commit, clean up,
    /// and only then advance the applied index; until the buffer is stopped.
    pub fn flush_thread(&self, actor: &Actor) {
        const JAVA: &Citation = &java::OzoneManagerDoubleBuffer::flushTransactions;
        while let Some(ready) = self.buffer.next_batch(actor) {
            let Some((index, term)) = ready.last().map(|r| (r.index, r.term)) else {
                continue;
            };
            let mut batch = WriteBatch::new();
            for response in ready {
                batch.append(response.rows);
            }
            stage_tx_info(&mut batch, term, index);
            self.writer.commit(actor, JAVA, batch, index);
            actor.step(JAVA, "cleanupCache, release permits");
            self.state_machine.update_last_applied(actor, term, index);
            self.writer.close_window();
        }
    }
}
