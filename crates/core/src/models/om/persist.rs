//! The two writers of the OM's `TransactionInfo` row: the double buffer's batch commit and
//! `takeSnapshotImpl`'s put, and how each variant of HDDS-16092 orders them.
//!
//! Java: [`flushBatch`](crate::citation::java::OzoneManagerDoubleBuffer::flushBatch) stages
//! `TRANSACTION_INFO_KEY` in the batch it commits;
//! [`takeSnapshotImpl`](crate::citation::java::OzoneManagerStateMachine::takeSnapshotImpl) writes it
//! with an unbatched [`Table.put`](crate::citation::java::Table::put). The fix (apache/ozone PR
//! #10953, not in the pinned commit) adds a `transactionInfoLock` owned by the double buffer
//! around the commit, and `persistIfNewer` under the same lock for the snapshot: read the stored
//! `TransactionInfo`, keep it if it compares at or above the candidate by `(term, index)`, else
//! put the candidate; the snapshot reports what is stored.
//!
//! The PR's three commits differ only in that read. 1d260d5 (and 1eb8d78, which adds a test
//! hook and no behaviour) reads with [`Table.get`](crate::citation::java::Table::get), through the
//! table cache; f9434f5 reads with [`Table.getSkipCache`](crate::citation::java::Table::getSkipCache),
//! arguing that a FULL_CACHE table answers a miss with null. The OM's `transactionInfoTable` is
//! a PARTIAL_CACHE table, no code adds a cache entry for `TRANSACTION_INFO_KEY`, and neither a
//! batch commit nor `Table.put` touches the cache, so `Table.get` always misses and reads
//! RocksDB: [`IndexWrite::CachedGet`] behaves exactly like [`IndexWrite::PersistIfNewer`].

use super::{OmRow, TermIndex};
use crate::citation::Label;
use crate::kit::store::{Store, WriteBatch};
use crate::kit::tx_info::{TxRow, TX_KEY};
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::Witness;
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
    /// PR #10953 as its first commit 1d260d5 wrote it: lock and comparison, the stored index
    /// read with `Table.get` through the PARTIAL_CACHE table cache, which nothing fills.
    CachedGet,
    /// The fix: `persistIfNewer` under the double buffer's `transactionInfoLock`, reading with
    /// the cache skipped; the snapshot reports what is stored.
    PersistIfNewer,
}

impl IndexWrite {
    /// Whether the double buffer's batch commit holds `transactionInfoLock`.
    pub fn commit_takes_lock(self) -> bool {
        matches!(
            self,
            IndexWrite::LockOnly | IndexWrite::CachedGet | IndexWrite::PersistIfNewer
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

/// `OzoneManagerDoubleBuffer.persistIfNewer` of apache/ozone PR #10953 (f9434f5): not in the
/// Java at the pinned commit, so a model step rather than a citation.
const PERSIST_IF_NEWER: Label = Label::model("persistIfNewer of PR #10953");
/// The same method as commit 1d260d5 of the PR wrote it.
const PERSIST_IF_NEWER_1D260D5: Label = Label::model("persistIfNewer of PR #10953 at 1d260d5");

/// The OM's DB and what orders the writes of its `TransactionInfo` row.
pub struct TxInfoWriter {
    store: Arc<Store<OmRow>>,
    write: IndexWrite,
    /// `transactionInfoLock` (PR #10953), taken by the variants that have it.
    lock: Mutex<()>,
    /// The index of a commit that is durable while applied has not reached it (for the
    /// probe).
    window: Witness<Option<u64>>,
}

impl TxInfoWriter {
    /// The probes this model fires: a scenario that runs it inherits them
    /// ([`Scenario::MODEL_PROBES`](crate::scenario::Scenario::MODEL_PROBES)).
    pub const PROBES: &'static [Probe] = &[SNAPSHOT_IN_FLUSH_WINDOW, STALE_CANDIDATE_REFUSED];

    /// The writers of `store`'s row, ordered as `write` says.
    pub fn new(store: Arc<Store<OmRow>>, write: IndexWrite) -> Self {
        Self {
            store,
            write,
            lock: Mutex::labelled("transactionInfoLock", ()),
            window: Witness::new(None),
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
        self.window.update(|w| *w = Some(index));
    }

    /// Applied has reached the committed index.
    pub fn close_window(&self) {
        self.window.update(|w| *w = None);
    }

    /// `takeSnapshotImpl`'s write of `candidate`: returns the index reported to Ratis.
    pub fn persist_snapshot(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        candidate: TermIndex,
    ) -> u64 {
        let java: Label = java.into();
        self.window.probe_if(actor, &SNAPSHOT_IN_FLUSH_WINDOW, |w| {
            w.is_some_and(|n| n > candidate.index)
        });
        let row = OmRow::tx_info(candidate.term, candidate.index);
        let store = &self.store;
        let table = OmRow::TABLE;
        match self.write {
            IndexWrite::Unguarded => {
                store.put(actor, java, table, TX_KEY, row);
                candidate.index
            }
            IndexWrite::LockOnly => {
                let _tx = self.lock.lock();
                store.put(actor, java, table, TX_KEY, row);
                candidate.index
            }
            IndexWrite::CompareOnly => {
                let stored = term_index_of(store.get_skip_cache(actor, java, table, TX_KEY));
                self.write_if_newer(actor, java, row, candidate, stored)
            }
            IndexWrite::CachedGet => {
                let _tx = self.lock.lock();
                let java = PERSIST_IF_NEWER_1D260D5;
                let stored = term_index_of(store.get(actor, java, table, TX_KEY));
                self.write_if_newer(actor, java, row, candidate, stored)
            }
            IndexWrite::PersistIfNewer => {
                let _tx = self.lock.lock();
                let java = PERSIST_IF_NEWER;
                let stored = term_index_of(store.get_skip_cache(actor, java, table, TX_KEY));
                self.write_if_newer(actor, java, row, candidate, stored)
            }
        }
    }

    /// Keep `stored` when it compares at or above `candidate` by `(term, index)`, else put the
    /// candidate (a plain put: the table cache is untouched). Returns the index reported.
    fn write_if_newer(
        &self,
        actor: &Actor,
        java: Label,
        row: OmRow,
        candidate: TermIndex,
        stored: Option<TermIndex>,
    ) -> u64 {
        match stored {
            Some(stored) if stored >= candidate => {
                actor.probe(&STALE_CANDIDATE_REFUSED);
                actor.step_with(java, || {
                    format!(
                        "candidate {candidate} <= stored {stored}: keep {}",
                        stored.index
                    )
                });
                stored.index
            }
            _ => {
                self.store.put(actor, java, OmRow::TABLE, TX_KEY, row);
                candidate.index
            }
        }
    }
}

fn term_index_of(row: Option<OmRow>) -> Option<TermIndex> {
    row.and_then(|r| r.term_index())
}
