//! `SCMHADBTransactionBufferImpl`: the SCM's batch of staged writes and the index it claims.
//!
//! Java (`scm/ha/SCMHADBTransactionBufferImpl.java`):
//! - `rwLock`, a `ReentrantReadWriteLock`: here a facade [`RwLock`].
//! - `addToBuffer` (:71-80) and `removeFromBuffer` (:83-91) take the READ lock per call and
//!   stage one put or delete into `currentBatchOperation`, counting `txFlushPending`.
//! - `updateLatestTrxInfo` (:94-101) takes NO lock; it only checks that the new index is
//!   strictly larger. `latestTrxInfo` is a plain, non-volatile field; here it is a
//!   [`Volatile`], which can only remove behaviours (a stale read would make a flush stage an
//!   even older index), so a violation found here is not an artefact of the stronger field.
//! - `flush` (:126-133): under the WRITE lock, `flushUnderWriteLock` (:153-175): stage
//!   `TRANSACTION_INFO_KEY = latestTrxInfo`, commit the batch, open a new batch, reset the
//!   pending count. It does not look at `applyingTransactions`.
//! - `flushIfNeeded(w)` (:136-151): under the write lock; return at once while
//!   `applyingTransactions > 0`, otherwise flush when something is pending and the last flush
//!   is older than `w` (`w = 0` here: always older).
//! - `beginApplyingTransaction` / `endApplyingTransaction` (:178-185): atomic ++ / --
//!   without the lock.
//!
//! Abstracted away: `latestSnapshot` and the deleted-block log's `onFlush` notification
//! (nothing in the plans reads them), the clock (`lastSnapshotTimeMs`), `init` (:188-210,
//! modelled by the follower's reload in [`crate::models::scm::state_machine`]), metrics.
//! The batch itself sits behind a facade [`Mutex`]: only the apply thread stages, so it
//! never contends with another stager; it makes one staging one atomic step.

use super::ScmRow;
use crate::cite::{java, Citation};
use crate::kit::store::{Store, TableName, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex, RwLock, Volatile};

/// A download or leader-change flush was attempted while an apply was in flight.
pub const FLUSH_DURING_APPLY: Probe = Probe::new(
    "FlushDuringApply",
    "a download or leader-change flush was attempted while an apply was in flight",
);

/// How a concurrent caller (download, leader change) flushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushPath {
    /// `flush()`: commits whatever is staged, under whatever index is latest.
    Unguarded,
    /// `flushIfNeeded(0)`: defers while an apply is in flight.
    Guarded,
}

#[derive(Debug, Default)]
struct Batch {
    ops: WriteBatch<ScmRow>,
    /// `txFlushPending`.
    pending: u64,
}

/// The transaction buffer of one SCM.
pub struct TransactionBuffer {
    store: Arc<Store<ScmRow>>,
    rw_lock: RwLock<()>,
    current: Mutex<Batch>,
    latest_trx_info: Volatile<(u64, u64)>,
    applying: Volatile<u64>,
    /// Ghost copy of `applying`, for the probe of the unguarded path.
    applying_ghost: Ghost<u64>,
}

impl TransactionBuffer {
    /// A buffer over `store`, whose latest transaction is `(term, index)`.
    pub fn new(store: Arc<Store<ScmRow>>, term: u64, index: u64) -> Self {
        Self {
            store,
            rw_lock: RwLock::new(()),
            current: Mutex::new(Batch::default()),
            latest_trx_info: Volatile::new((term, index)),
            applying: Volatile::new(0),
            applying_ghost: Ghost::new(0),
        }
    }

    /// The SCM's DB.
    pub fn store(&self) -> &Store<ScmRow> {
        &self.store
    }

    /// `addToBuffer`: stage one put under the read lock.
    pub fn add_to_buffer(&self, actor: &Actor, table: TableName, key: &str, row: ScmRow) {
        let _read = self.rw_lock.read();
        let mut b = self.current.lock();
        b.ops.put(table, key, row);
        b.pending += 1;
        actor.step_with(&java::SCMHADBTransactionBufferImpl::addToBuffer, || {
            format!("read lock; stage {table}/{key}={row}")
        });
    }

    /// `removeFromBuffer`: stage one delete under the read lock.
    pub fn remove_from_buffer(&self, actor: &Actor, table: TableName, key: &str) {
        let _read = self.rw_lock.read();
        let mut b = self.current.lock();
        b.ops.delete(table, key);
        b.pending += 1;
        actor.step_with(
            &java::SCMHADBTransactionBufferImpl::removeFromBuffer,
            || format!("read lock; stage delete {table}/{key}"),
        );
    }

    /// `updateLatestTrxInfo`: no lock; only a strictly larger index is taken.
    pub fn update_latest_trx_info(&self, actor: &Actor, term: u64, index: u64) {
        let old = self
            .latest_trx_info
            .update(|old| if index > old.1 { (term, index) } else { old });
        actor.step_with(
            &java::SCMHADBTransactionBufferImpl::updateLatestTrxInfo,
            || format!("latestTrxInfo {} -> {}", old.1, old.1.max(index)),
        );
    }

    /// `beginApplyingTransaction`: `applyingTransactions++`, without the lock.
    pub fn begin_applying(&self, actor: &Actor) {
        let ghost = &self.applying_ghost;
        let n = self.applying.update(|n| {
            ghost.set(n + 1);
            n + 1
        }) + 1;
        actor.step_with(
            &java::SCMHADBTransactionBufferImpl::beginApplyingTransaction,
            || format!("applyingTransactions -> {n}"),
        );
    }

    /// `endApplyingTransaction`: `applyingTransactions--`, without the lock.
    pub fn end_applying(&self, actor: &Actor) {
        let ghost = &self.applying_ghost;
        let n = self.applying.update(|n| {
            ghost.set(n.saturating_sub(1));
            n.saturating_sub(1)
        });
        actor.step_with(
            &java::SCMHADBTransactionBufferImpl::endApplyingTransaction,
            || format!("applyingTransactions -> {}", n.saturating_sub(1)),
        );
    }

    /// `flush`: under the write lock, commit the batch with `TX = latestTrxInfo`.
    pub fn flush(&self, actor: &Actor, why: &str) {
        let _write = self.rw_lock.write();
        self.flush_under_write_lock(actor, why);
    }

    /// A concurrent caller's flush, along `path`. The probe fires when it is attempted while
    /// an apply is in flight.
    pub fn flush_from(&self, actor: &Actor, path: FlushPath, why: &str) {
        match path {
            FlushPath::Unguarded => {
                if self.applying_ghost.get() > 0 {
                    actor.probe(&FLUSH_DURING_APPLY);
                }
                self.flush(actor, why);
            }
            FlushPath::Guarded => {
                self.flush_if_needed(actor, why);
            }
        }
    }

    /// `flushIfNeeded(0)`: under the write lock, defer while an apply is in flight, else
    /// flush if something is pending. Returns whether it flushed.
    pub fn flush_if_needed(&self, actor: &Actor, why: &str) -> bool {
        const JAVA: &Citation = &java::SCMHADBTransactionBufferImpl::flushIfNeeded;
        let _write = self.rw_lock.write();
        let applying = self.applying.get();
        if applying > 0 {
            actor.probe(&FLUSH_DURING_APPLY);
            actor.step_with(JAVA, || {
                format!("{why}: applyingTransactions = {applying}: defer")
            });
            return false;
        }
        let pending = self.current.lock().pending;
        if pending == 0 {
            actor.step_with(JAVA, || format!("{why}: nothing pending"));
            return false;
        }
        self.flush_under_write_lock(actor, why);
        true
    }

    fn flush_under_write_lock(&self, actor: &Actor, why: &str) {
        const JAVA: &Citation = &java::SCMHADBTransactionBufferImpl::flushUnderWriteLock;
        let (term, index) = self.latest_trx_info.get();
        let mut b = self.current.lock();
        let mut batch = std::mem::take(&mut b.ops);
        b.pending = 0;
        drop(b);
        stage_tx_info(&mut batch, term, index);
        actor.step_with(JAVA, || format!("{why}: write lock; stage TX = {index}"));
        self.store.commit(actor, JAVA, batch);
    }
}
