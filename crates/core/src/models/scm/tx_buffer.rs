//! `SCMHADBTransactionBufferImpl`: the SCM's batch of staged writes and the index it claims.
//!
//! Java (`scm/ha/SCMHADBTransactionBufferImpl.java`):
//! - `rwLock`, a `ReentrantReadWriteLock`: here a facade [`RwLock`].
//! - [`addToBuffer`](crate::citation::java::SCMHADBTransactionBufferImpl::addToBuffer) and
//!   [`removeFromBuffer`](crate::citation::java::SCMHADBTransactionBufferImpl::removeFromBuffer) take the READ
//!   lock per call and stage one put or delete into `currentBatchOperation`, counting
//!   `txFlushPending`.
//! - [`updateLatestTrxInfo`](crate::citation::java::SCMHADBTransactionBufferImpl::updateLatestTrxInfo) takes
//!   NO lock. A value that is not larger than the current one (term first, then index) makes
//!   it throw `IllegalArgumentException`: [`TransactionBuffer::update_latest_trx_info`]
//!   returns that as `Err`, and the caller decides what it terminates (the SCM, from
//!   `applyTransaction`; the Ratis server and then the SCM, from `notifyTermIndexUpdated`).
//!   `latestTrxInfo` is a plain, non-volatile field; here it is a [`Volatile`], which can
//!   only remove behaviours (a stale read would make a flush stage an even older index), so
//!   a violation found here is not an artefact of the stronger field.
//! - [`flush`](crate::citation::java::SCMHADBTransactionBufferImpl::flush): under the WRITE lock,
//!   [`flushUnderWriteLock`](crate::citation::java::SCMHADBTransactionBufferImpl::flushUnderWriteLock): stage
//!   `TRANSACTION_INFO_KEY = latestTrxInfo`, commit the batch, open a new batch, and reset the
//!   pending count to 0. It does not look at `applyingTransactions`.
//! - [`flushIfNeeded(w)`](crate::citation::java::SCMHADBTransactionBufferImpl::flushIfNeeded): under the write
//!   lock; return at once while `applyingTransactions > 0`, otherwise flush when something
//!   is pending and `clock.millis() - lastSnapshotTimeMs > w` (`w = 0` for the download and
//!   leader-change paths of the fixes).
//! - `beginApplyingTransaction` / `endApplyingTransaction`: atomic ++ / -- without the lock.
//!
//! Abstracted away: `latestSnapshot` and the deleted-block log's
//! [`onFlush`](crate::citation::java::DeletedBlockLogImpl::onFlush) notification (nothing in the plans reads
//! them); the clock: every `flushIfNeeded(0)` of the plans is taken to come at least a
//! millisecond after the last flush (or `init`), so `timeDiff > 0` holds. A call within the
//! same millisecond skips although something is pending, which leaves the DB at its last
//! flushed state. Every such state is one the DB already held and the invariants already
//! checked, so it cannot change a safety verdict; it could make `LateDownloadShipsLatest`
//! fail, which assumes a late download comes a millisecond after the last flush (see the
//! scenario's Abstractions table). Also abstracted: `init` (modelled by the follower's reload
//! in [`crate::models::scm::state_machine`]) and metrics. The batch itself sits behind a
//! The batch and its pending count sit inside the [`RwLock`], and a staging takes it for
//! writing: the Java stages under the read lock into a `BatchOperation` that has no lock of
//! its own, and only the apply thread stages, so a staging excludes a flush exactly as the
//! read lock does and never meets another staging. One lock acquisition per staging, as in
//! the Java.
//!
//! # Revisions ([`Revision`])
//!
//! The locking above is HDDS-8036's (b831d8e6fb1): before it
//! ([`Revision::Hdds8036Parent`]) the buffer had no lock at all.
//! [`addToBuffer`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer)
//! read the `currentBatchOperation` field and then put into the batch it read, two steps;
//! [`flush`](crate::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::flush)
//! re-read the field for each of its four steps: stage the TX into it, commit it, close it,
//! assign a new batch. A put between a flush's commit and its assignment lands in a batch no
//! one commits again; a flush that runs beside another can commit, close or replace a batch
//! the other already handled. Under this revision the [`RwLock`] stands for no Java lock:
//! each acquisition is one access to the fields (the Java's plain, non-volatile fields are
//! read here as if sequentially consistent, which only removes behaviours). A put into, or a
//! commit of, a batch already closed is a call on a RocksJava `WriteBatch` whose native object
//! was freed (`RDBBatchOperation.close`; nothing on the put path checks the batch): the model
//! drops it (the weakest outcome: the operation is never committed by a later flush, which
//! commits the new batch) and fires [`CLOSED_BATCH_USED`]. [`Revision::Hdds8036`] is the fix:
//! the locking of the pinned Java, cited at b831d8e6fb1 (one `flush`, no
//! `flushUnderWriteLock`). [`Revision::Pinned`] cites the pinned Java.

use super::ScmRow;
use crate::citation::{java, Citation};
use crate::kit::store::{Store, TableName, WriteBatch};
use crate::kit::tx_info::{stage_tx_info, TxRow};
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::Witness;
use crate::sync::{Arc, RwLock, Volatile};

/// A download or leader-change flush was attempted while an apply was in flight.
pub const FLUSH_DURING_APPLY: Probe = Probe::new(
    "FlushDuringApply",
    "a download or leader-change flush was attempted while an apply was in flight",
);

/// A flush committed a write staged by the apply still in flight, under the `TransactionInfo`
/// of the entry before it: the DB holds data beyond the index it claims.
pub const STAGED_FLUSHED_MID_APPLY: Probe = Probe::new(
    "StagedFlushedMidApply",
    "a flush committed a write staged by the apply still in flight, under the previous entry's TransactionInfo",
);

/// A put or a commit used a `WriteBatch` that a flush had already closed (before HDDS-8036).
pub const CLOSED_BATCH_USED: Probe = Probe::new(
    "ClosedBatchUsed",
    "a put or a commit used a WriteBatch a flush had already closed (a freed RocksJava object)",
);

/// A put landed in a batch already committed, or already replaced by a newer one: no flush
/// commits it again (before HDDS-8036).
pub const PUT_INTO_COMMITTED_BATCH: Probe = Probe::new(
    "PutIntoCommittedBatch",
    "an addToBuffer put into a batch a flush had already committed or replaced",
);

/// An `addToBuffer` came while a flush of another thread was in progress: under the fix it
/// waits for the write lock; before it, a flush was in progress at its read of the field or
/// at its put, or ran between them.
pub const ADD_DURING_FLUSH: Probe = Probe::new(
    "AddDuringFlush",
    "an addToBuffer came while a flush of another thread held the buffer (was between its first and last step)",
);

/// A flush began while a flush of another thread was in progress (HDDS-8036's revisions):
/// under the fix it waits for the write lock; before it, the two interleave their steps.
pub const FLUSH_DURING_FLUSH: Probe = Probe::new(
    "FlushDuringFlush",
    "a flush began while a flush of another thread held the buffer (was between its first and last step)",
);

/// Which Java revision of the buffer's locking (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// b831d8e6fb1^: no lock; `addToBuffer` reads the batch field, then puts; `flush`
    /// re-reads it for each of its four steps.
    Hdds8036Parent,
    /// b831d8e6fb1 (HDDS-8036): the read/write lock, cited at the fix.
    Hdds8036,
    /// The pinned Java (the read/write lock, `flushUnderWriteLock`, `flushIfNeeded`).
    Pinned,
}

/// The probes the buffer at the pinned revision may fire, for a scenario's
/// [`MODEL_PROBES`](crate::scenario::Scenario::MODEL_PROBES).
pub const PROBES: &[Probe] = &[FLUSH_DURING_APPLY, STAGED_FLUSHED_MID_APPLY];

/// How a concurrent caller (download, leader change) flushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushPath {
    /// `flush()`: commits whatever is staged, under whatever index is latest.
    Unguarded,
    /// `flushIfNeeded(0)`: defers while an apply is in flight.
    Guarded,
}

#[derive(Debug)]
struct Batch<R> {
    ops: WriteBatch<R>,
    /// `txFlushPending`.
    pending: u64,
    /// Which `currentBatchOperation` this is (the parent's steps compare it).
    id: u64,
    /// Committed by a flush (the parent's steps only).
    committed: bool,
    /// Closed by a flush (the parent's steps only).
    closed: bool,
}

impl<R> Default for Batch<R> {
    fn default() -> Self {
        Self {
            ops: WriteBatch::new(),
            pending: 0,
            id: 0,
            committed: false,
            closed: false,
        }
    }
}

impl<R> Batch<R> {
    /// A new, empty batch object in place of this one: the parent's steps tell it from the
    /// old one by its id.
    fn next(&self) -> Self {
        Self {
            id: self.id + 1,
            ..Self::default()
        }
    }
}

/// The transaction buffer of one SCM, over the rows `R` of its DB (the SCM scenarios model
/// different tables of the same DB).
pub struct TransactionBuffer<R = ScmRow> {
    store: Arc<Store<R>>,
    /// `rwLock`, with what it guards: `currentBatchOperation` and `txFlushPending`.
    rw_lock: RwLock<Batch<R>>,
    latest_trx_info: Volatile<(u64, u64)>,
    applying: Volatile<u64>,
    /// A copy of `applying`, for the probe of the unguarded path.
    applying_ghost: Witness<u64>,
    /// The apply in flight has staged something not yet flushed (for its probe).
    staged_mid_apply: Witness<bool>,
    revision: Revision,
    /// Flushes in progress (HDDS-8036's revisions only; for the probes).
    flushing: Witness<u64>,
}

impl<R: TxRow + std::fmt::Display> TransactionBuffer<R> {
    /// A buffer over `store`, whose latest transaction is `(term, index)`.
    pub fn new(store: Arc<Store<R>>, term: u64, index: u64) -> Self {
        Self {
            store,
            rw_lock: RwLock::new(Batch::default()),
            latest_trx_info: Volatile::new((term, index)),
            applying: Volatile::new(0),
            applying_ghost: Witness::new(0),
            staged_mid_apply: Witness::new(false),
            revision: Revision::Pinned,
            flushing: Witness::new(0),
        }
    }

    /// The same buffer at Java revision `revision`.
    pub fn at(mut self, revision: Revision) -> Self {
        self.revision = revision;
        self
    }

    /// The SCM's DB.
    pub fn store(&self) -> &Store<R> {
        &self.store
    }

    /// `init` (a restart, or `reinitialize` after a checkpoint install): a new, empty batch
    /// and `latestTrxInfo = (term, index)`, the DB's TX. The caller records the step.
    pub fn init(&self, term: u64, index: u64) {
        let mut b = self.rw_lock.write();
        *b = b.next();
        self.latest_trx_info.set((term, index));
    }

    /// The staged batch, as an observation (no Java counterpart).
    pub fn staged(&self) -> WriteBatch<R> {
        self.rw_lock.read().ops.clone()
    }

    /// `addToBuffer`: stage one put under the lock (the Java's read lock, see the module
    /// docs).
    pub fn add_to_buffer(&self, actor: &Actor, table: TableName, key: &str, row: R) {
        match self.revision {
            Revision::Pinned => {}
            Revision::Hdds8036 => {
                self.flushing.probe_if(actor, &ADD_DURING_FLUSH, |n| *n > 0);
                let mut b = self.rw_lock.write();
                b.ops.put(table, key, row.clone());
                actor.step_with(
                    &java::hdds_8036::SCMHADBTransactionBufferImpl::addToBuffer,
                    || format!("read lock; stage {table}/{key}={row}"),
                );
                return;
            }
            Revision::Hdds8036Parent => {
                // A flush in progress at the read; `put_with_batch` checks the put.
                self.flushing.probe_if(actor, &ADD_DURING_FLUSH, |n| *n > 0);
                let batch = self.current_batch(actor);
                self.put_with_batch(actor, batch, table, key, row);
                return;
            }
        }
        let mut b = self.rw_lock.write();
        b.ops.put(table, key, row.clone());
        b.pending += 1;
        self.staged_mid_apply.update(|s| *s = true);
        actor.step_with(&java::SCMHADBTransactionBufferImpl::addToBuffer, || {
            format!("read lock; stage {table}/{key}={row}")
        });
    }

    /// The parent's `getCurrentBatchOperation()`: which batch the field holds now.
    pub fn current_batch(&self, actor: &Actor) -> u64 {
        let id = self.rw_lock.read().id;
        actor.step_with(
            &java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer,
            || format!("no lock; currentBatchOperation is batch {id}"),
        );
        id
    }

    /// The parent's `table.putWithBatch(batch, key, row)` into the batch `batch` read
    /// before. Still the current batch: staged (and lost if a flush already committed it:
    /// that flush closes and replaces it), or dropped if already closed. Replaced by a flush
    /// (closed, or with two flushes racing possibly left open): no one holds it but this
    /// caller, so nothing commits it: lost.
    pub fn put_with_batch(&self, actor: &Actor, batch: u64, table: TableName, key: &str, row: R) {
        const JAVA: &Citation = &java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer;
        let mut b = self.rw_lock.write();
        // A flush in progress at the put, or one that ran since the read.
        self.flushing
            .probe_if(actor, &ADD_DURING_FLUSH, |n| *n > 0 || b.id != batch);
        if b.id != batch {
            actor.probe(&PUT_INTO_COMMITTED_BATCH);
            actor.step_with(JAVA, || {
                format!("put {table}/{key}={row} into batch {batch}, replaced by a flush: lost")
            });
            return;
        }
        if b.closed {
            actor.probe(&PUT_INTO_COMMITTED_BATCH);
            actor.probe(&CLOSED_BATCH_USED);
            actor.step_with(JAVA, || {
                format!("put {table}/{key}={row} into batch {batch}, already closed: dropped")
            });
            return;
        }
        if b.committed {
            actor.probe(&PUT_INTO_COMMITTED_BATCH);
        }
        b.ops.put(table, key, row.clone());
        actor.step_with(JAVA, || {
            let state = if b.committed {
                ", already committed"
            } else {
                ""
            };
            format!("put {table}/{key}={row} into batch {batch}{state}")
        });
    }

    /// `updateLatestTrxInfo`: no lock; a `(term, index)` not larger than the current one is
    /// refused with the message of the `IllegalArgumentException` the Java throws.
    pub fn update_latest_trx_info(
        &self,
        actor: &Actor,
        term: u64,
        index: u64,
    ) -> Result<(), String> {
        let old = self.latest_trx_info.update(|old| {
            if (term, index) > old {
                (term, index)
            } else {
                old
            }
        });
        const JAVA: &Citation = &java::SCMHADBTransactionBufferImpl::updateLatestTrxInfo;
        if (term, index) > old {
            actor.step_with(JAVA, || format!("latestTrxInfo {} -> {index}", old.1));
            Ok(())
        } else {
            let msg = format!(
                "IllegalArgumentException: Updating DB buffer transaction info by an older \
                 transaction info, current: ({}, {}), updating to: ({term}, {index})",
                old.0, old.1
            );
            actor.step(JAVA, msg.clone());
            Err(msg)
        }
    }

    /// `getLatestTrxInfo`.
    pub fn latest_trx_info(&self) -> (u64, u64) {
        self.latest_trx_info.get()
    }

    /// `beginApplyingTransaction`: `applyingTransactions++`, without the lock.
    pub fn begin_applying(&self, actor: &Actor) {
        let ghost = &self.applying_ghost;
        self.staged_mid_apply.update(|s| *s = false);
        let n = self.applying.update(|n| {
            ghost.update(|g| *g = n + 1);
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
        self.staged_mid_apply.update(|s| *s = false);
        let n = self.applying.update(|n| {
            ghost.update(|g| *g = n.saturating_sub(1));
            n.saturating_sub(1)
        });
        actor.step_with(
            &java::SCMHADBTransactionBufferImpl::endApplyingTransaction,
            || format!("applyingTransactions -> {}", n.saturating_sub(1)),
        );
    }

    /// `flush`: under the write lock, commit the batch with `TX = latestTrxInfo`, and reset
    /// the pending count.
    pub fn flush(&self, actor: &Actor, why: &str) {
        match self.revision {
            Revision::Pinned => {
                let mut b = self.rw_lock.write();
                self.flush_under_write_lock(&mut b, actor, why);
            }
            Revision::Hdds8036 => {
                self.flushing
                    .probe_if(actor, &FLUSH_DURING_FLUSH, |n| *n > 0);
                let mut b = self.rw_lock.write();
                self.flushing.update(|n| *n += 1);
                const JAVA: &Citation = &java::hdds_8036::SCMHADBTransactionBufferImpl::flush;
                self.commit_staged(&mut b, actor, why, JAVA);
                self.flushing.update(|n| *n -= 1);
            }
            Revision::Hdds8036Parent => self.flush_unlocked(actor, why),
        }
    }

    /// The parent's `flush`: four steps, each on the batch the field holds at that moment.
    fn flush_unlocked(&self, actor: &Actor, why: &str) {
        const JAVA: &Citation = &java::hdds_8036_parent::SCMHADBTransactionBufferImpl::flush;
        self.flushing
            .probe_if(actor, &FLUSH_DURING_FLUSH, |n| *n > 0);
        self.flushing.update(|n| *n += 1);
        let (term, index) = self.latest_trx_info.get();
        {
            let mut b = self.rw_lock.write();
            if b.closed {
                actor.probe(&CLOSED_BATCH_USED);
            } else {
                stage_tx_info(&mut b.ops, term, index);
            }
            actor.step_with(JAVA, || {
                let dropped = if b.closed { ", closed: dropped" } else { "" };
                format!(
                    "{why}: no lock; stage TX = {index} into batch {}{dropped}",
                    b.id
                )
            });
        }
        let commit = {
            let mut b = self.rw_lock.write();
            if b.closed {
                actor.probe(&CLOSED_BATCH_USED);
                actor.step_with(JAVA, || {
                    format!("{why}: commit batch {}, closed: nothing", b.id)
                });
                None
            } else {
                b.committed = true;
                Some(b.ops.clone())
            }
        };
        if let Some(batch) = commit {
            self.store.commit(actor, JAVA, batch);
        }
        {
            let mut b = self.rw_lock.write();
            b.closed = true;
            actor.step_with(JAVA, || format!("{why}: close batch {}", b.id));
        }
        {
            let mut b = self.rw_lock.write();
            *b = b.next();
            let id = b.id;
            actor.step_with(JAVA, || {
                format!("{why}: currentBatchOperation = new batch {id}")
            });
        }
        self.flushing.update(|n| *n -= 1);
    }

    /// A concurrent caller's flush, along `path`. The probe fires when it is attempted while
    /// an apply is in flight.
    pub fn flush_from(&self, actor: &Actor, path: FlushPath, why: &str) {
        match path {
            FlushPath::Unguarded => {
                self.applying_ghost
                    .probe_if(actor, &FLUSH_DURING_APPLY, |n| *n > 0);
                self.flush(actor, why);
            }
            FlushPath::Guarded => {
                self.flush_if_needed(actor, why);
            }
        }
    }

    /// `flushIfNeeded(0)`: under the write lock, defer while an apply is in flight, else
    /// flush if something is pending (and, abstracted, a millisecond has passed since the
    /// last flush). Returns whether it flushed.
    pub fn flush_if_needed(&self, actor: &Actor, why: &str) -> bool {
        const JAVA: &Citation = &java::SCMHADBTransactionBufferImpl::flushIfNeeded;
        let mut b = self.rw_lock.write();
        let applying = self.applying.get();
        if applying > 0 {
            actor.probe(&FLUSH_DURING_APPLY);
            actor.step_with(JAVA, || {
                format!("{why}: applyingTransactions = {applying}: defer")
            });
            return false;
        }
        if b.pending == 0 {
            actor.step_with(JAVA, || format!("{why}: nothing pending"));
            return false;
        }
        self.flush_under_write_lock(&mut b, actor, why);
        true
    }

    /// One tick of the leader's `SCMHATransactionBufferMonitorTask.run`,
    /// `flushIfNeeded(interval)`, less than the interval after the last flush: under the
    /// write lock it returns without flushing, either because an apply is in flight or
    /// because the interval has not elapsed. It changes nothing; it only takes the lock.
    pub fn monitor_tick_within_interval(&self, actor: &Actor) {
        let _b = self.rw_lock.write();
        let applying = self.applying.get();
        actor.step_with(&java::SCMHADBTransactionBufferImpl::flushIfNeeded, || {
            if applying > 0 {
                format!("monitor task: applyingTransactions = {applying}: return")
            } else {
                "monitor task: flush interval not elapsed: return".to_string()
            }
        });
    }

    fn flush_under_write_lock(&self, b: &mut Batch<R>, actor: &Actor, why: &str) {
        b.pending = 0;
        self.staged_mid_apply
            .probe_if(actor, &STAGED_FLUSHED_MID_APPLY, |staged| *staged);
        self.staged_mid_apply.update(|staged| *staged = false);
        let citation = &java::SCMHADBTransactionBufferImpl::flushUnderWriteLock;
        self.commit_staged(b, actor, why, citation);
    }

    /// Under the write lock: take the staged batch, stage `TX = latestTrxInfo` into it and
    /// commit it, the step cited to `citation` (the pinned `flushUnderWriteLock`, or
    /// HDDS-8036's `flush`).
    fn commit_staged(
        &self,
        b: &mut Batch<R>,
        actor: &Actor,
        why: &str,
        citation: &'static Citation,
    ) {
        let (term, index) = self.latest_trx_info.get();
        let mut batch = std::mem::take(&mut b.ops);
        stage_tx_info(&mut batch, term, index);
        actor.step_with(citation, || {
            format!("{why}: write lock; stage TX = {index}")
        });
        self.store.commit(actor, citation, batch);
    }
}
