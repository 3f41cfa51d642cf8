//! The two writers of the OM's `TransactionInfo` row: the double buffer's batch commit and
//! `takeSnapshotImpl`'s put, and how each variant of HDDS-16092 orders them.
//!
//! Java: `OzoneManagerDoubleBuffer.flushTransactions` stages `TRANSACTION_INFO_KEY` in the
//! batch it commits; `OzoneManagerStateMachine.takeSnapshotImpl` writes it with an unbatched
//! put. The fix (apache/ozone PR #10953) adds a `transactionInfoLock` owned by the double
//! buffer around the commit, and `persistIfNewer` under the same lock for the snapshot.

use super::OmRow;
use crate::cite::Label;
use crate::kit::store::{Store, WriteBatch};
use crate::kit::tx_info::{TxRow, TX_KEY};
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex};

/// How `takeSnapshotImpl` persists its index, and whether the batch commit takes the same
/// lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWrite {
    /// The Java today: an unbatched put of the candidate, no lock, no comparison.
    Unguarded,
    /// One lock orders the commit and the put, but the put is unconditional.
    LockOnly,
    /// Read the stored index (skipping the cache) and write only if higher, without a lock.
    CompareOnly,
    /// Lock and comparison, but the stored index is read through the table cache, and the
    /// guarded write also fills the cache (the only writer that could).
    CachedCompare,
    /// The fix: `persistIfNewer` under the double buffer's `transactionInfoLock`, reading with
    /// the cache skipped; the snapshot reports what is stored.
    PersistIfNewer,
}

impl IndexWrite {
    /// Whether the double buffer's batch commit holds `transactionInfoLock`.
    pub fn commit_takes_lock(self) -> bool {
        matches!(
            self,
            IndexWrite::LockOnly | IndexWrite::CachedCompare | IndexWrite::PersistIfNewer
        )
    }
}

/// The snapshot chose its index while a committed batch was ahead of `applied`.
pub const SNAPSHOT_IN_FLUSH_WINDOW: Probe = Probe::new(
    "SnapshotInFlushWindow",
    "a snapshot chose its index while a committed batch was durable and applied had not reached it",
);

/// A comparing write refused a candidate at or below the stored index.
pub const STALE_CANDIDATE_REFUSED: Probe = Probe::new(
    "StaleCandidateRefused",
    "a comparing write refused a candidate at or below the stored index",
);

/// `OzoneManagerDoubleBuffer.persistIfNewer` of apache/ozone PR #10953: not in the Java at
/// the pinned commit, so a model step rather than a citation.
const PERSIST_IF_NEWER: Label = Label::model("persistIfNewer of PR #10953");

/// The OM's DB and what orders the writes of its `TransactionInfo` row.
pub struct TxInfoWriter {
    store: Arc<Store<OmRow>>,
    write: IndexWrite,
    /// `transactionInfoLock` (PR #10953), taken by the variants that have it.
    lock: Mutex<()>,
    /// Ghost: the index of a commit that is durable while applied has not reached it.
    window: Ghost<Option<u64>>,
}

impl TxInfoWriter {
    /// The writers of `store`'s row, ordered as `write` says.
    pub fn new(store: Arc<Store<OmRow>>, write: IndexWrite) -> Self {
        Self {
            store,
            write,
            lock: Mutex::new(()),
            window: Ghost::new(None),
        }
    }

    /// The OM's DB.
    pub fn store(&self) -> &Store<OmRow> {
        &self.store
    }

    /// The double buffer's commit of `batch`, whose last index is `index`: under
    /// `transactionInfoLock` where the variant has it. Opens the flush window, which
    /// [`TxInfoWriter::close_window`] closes once applied has caught up.
    pub fn commit(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        batch: WriteBatch<OmRow>,
        index: u64,
    ) {
        let java: Label = java.into();
        let _tx = self.write.commit_takes_lock().then(|| self.lock.lock());
        self.store.commit(actor, java, batch);
        self.window.set(Some(index));
    }

    /// Applied has reached the committed index.
    pub fn close_window(&self) {
        self.window.set(None);
    }

    /// `takeSnapshotImpl`'s write of `candidate`: returns the index reported to Ratis.
    pub fn persist_snapshot(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        term: u64,
        candidate: u64,
    ) -> u64 {
        let java: Label = java.into();
        if self.window.get().is_some_and(|n| n > candidate) {
            actor.probe(&SNAPSHOT_IN_FLUSH_WINDOW);
        }
        let row = OmRow::tx_info(term, candidate);
        let store = &self.store;
        let table = OmRow::TABLE;
        match self.write {
            IndexWrite::Unguarded => {
                store.put(actor, java, table, TX_KEY, row);
                candidate
            }
            IndexWrite::LockOnly => {
                let _tx = self.lock.lock();
                store.put(actor, java, table, TX_KEY, row);
                candidate
            }
            IndexWrite::CompareOnly => {
                let stored = index_of(store.get_skip_cache(actor, java, table, TX_KEY));
                self.write_if_newer(actor, row, candidate, stored, false)
            }
            IndexWrite::CachedCompare => {
                let _tx = self.lock.lock();
                let stored = index_of(store.get(actor, java, table, TX_KEY));
                self.write_if_newer(actor, row, candidate, stored, true)
            }
            IndexWrite::PersistIfNewer => {
                let _tx = self.lock.lock();
                let java = PERSIST_IF_NEWER;
                let stored = index_of(store.get_skip_cache(actor, java, table, TX_KEY));
                self.write_if_newer(actor, row, candidate, stored, false)
            }
        }
    }

    fn write_if_newer(
        &self,
        actor: &Actor,
        row: OmRow,
        candidate: u64,
        stored: u64,
        fill_cache: bool,
    ) -> u64 {
        const JAVA: Label = PERSIST_IF_NEWER;
        if candidate > stored {
            self.store.put(actor, JAVA, OmRow::TABLE, TX_KEY, row);
            if fill_cache {
                self.store.cache_put(actor, JAVA, OmRow::TABLE, TX_KEY, row);
            }
            candidate
        } else {
            actor.probe(&STALE_CANDIDATE_REFUSED);
            actor.step_with(JAVA, || {
                format!("candidate {candidate} <= stored {stored}: keep {stored}")
            });
            stored
        }
    }
}

fn index_of(row: Option<OmRow>) -> u64 {
    row.and_then(|r| r.tx_index()).unwrap_or(0)
}
