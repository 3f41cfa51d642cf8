//! One OM replica: its store, state machine, double buffer and `transactionInfoLock`.

use super::double_buffer::DoubleBuffer;
use super::state_machine::{IndexWrite, StateMachine};
use super::OmRow;
use crate::kit::store::Store;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex};

/// One OM replica's persistence path.
pub struct OmNode {
    store: Arc<Store<OmRow>>,
    state_machine: StateMachine,
    buffer: DoubleBuffer,
    tx_info_lock: Mutex<()>,
    index_write: IndexWrite,
    /// Ghost: the index of a commit that is durable while applied has not reached it.
    window: Ghost<Option<u64>>,
}

impl OmNode {
    /// A replica over `store`, whose applied index starts at `(index, term)`.
    pub fn new(store: Arc<Store<OmRow>>, index_write: IndexWrite, index: u64, term: u64) -> Self {
        Self {
            store,
            state_machine: StateMachine::new(index, term),
            buffer: DoubleBuffer::new(),
            tx_info_lock: Mutex::new(()),
            index_write,
            window: Ghost::new(None),
        }
    }

    /// The replica's DB.
    pub fn store(&self) -> &Store<OmRow> {
        &self.store
    }

    /// The state machine.
    pub fn state_machine(&self) -> &StateMachine {
        &self.state_machine
    }

    /// The double buffer.
    pub fn buffer(&self) -> &DoubleBuffer {
        &self.buffer
    }

    /// `transactionInfoLock` (PR #10953), used by the variants that take it.
    pub fn tx_info_lock(&self) -> &Mutex<()> {
        &self.tx_info_lock
    }

    /// How the snapshot persists its index.
    pub fn index_write(&self) -> IndexWrite {
        self.index_write
    }

    pub(crate) fn open_flush_window(&self, index: u64) {
        self.window.set(Some(index));
    }

    pub(crate) fn close_flush_window(&self) {
        self.window.set(None);
    }

    /// The committed index ahead of `applied`, while the flush thread is between the two.
    pub fn flush_window(&self) -> Option<u64> {
        self.window.get()
    }
}
