//! The leader's deleted-block summary: four counters in memory, loaded from the DB, moved by
//! the leader and passed as an argument to the requests it submits.
//!
//! Java: `SCMDeletedBlockTransactionStatusManager`. Its counters (`totalTxCount`,
//! `totalBlockCount`, and two sizes the model leaves out) are `AtomicLong`s that no apply
//! updates. They are loaded from `statefulServiceConfig/DeletedBlockLogStateManager` when the
//! manager is built, when it is reinitialised from an installed checkpoint, and in
//! [`onBecomeLeader`](crate::citation::java::SCMDeletedBlockTransactionStatusManager::onBecomeLeader),
//! which `SCMStateMachine.notifyLeaderChanged` calls right after its buffer flush. The load
//! (`initDataDistributionData`) reads RocksDB, in which the buffer's staged batch is
//! invisible, and SETS the counters only when the row is present: an absent row leaves them
//! as they were. The leader's
//! [`addTransactions`](crate::citation::java::SCMDeletedBlockTransactionStatusManager::addTransactions)
//! adds each transaction to the counters and submits `addTransactionsToDB(txs, getSummary())`.
//!
//! Abstracted away: the sizes (they move with the counts), `removeTransactions` (it
//! subtracts and submits the same way), the rollback on a failed submission, the
//! finalization gate (the plans run with STORAGE_SPACE_DISTRIBUTION finalized), and the
//! retry and command-status maps `onBecomeLeader` clears.

use super::request::ScmRequest;
use super::{stored_summary, ScmRow, Summary, STATEFUL_SERVICE_CONFIG_TABLE, SUMMARY_KEY};
use crate::citation::java;
use crate::kit::store::{Store, Tables};
use crate::recorder::Actor;
use crate::sync::Mutex;

/// The leader-side summary of one SCM.
#[derive(Debug)]
pub struct DeletedBlockStatus {
    counters: Mutex<Summary>,
}

impl DeletedBlockStatus {
    /// The manager as the SCM built it over `durable` (the constructor's load).
    pub fn new(durable: &Tables<ScmRow>) -> Self {
        Self {
            counters: Mutex::new(stored_summary(durable).unwrap_or_default()),
        }
    }

    /// The counters (`getSummary`).
    pub fn summary(&self) -> Summary {
        *self.counters.lock()
    }

    /// `onBecomeLeader` → `initDataDistributionData`: read the summary row from the DB and,
    /// if present, set the counters to it.
    pub fn on_become_leader(&self, actor: &Actor, store: &Store<ScmRow>) {
        let loaded = store.get(
            actor,
            &java::SCMDeletedBlockTransactionStatusManager::onBecomeLeader,
            STATEFUL_SERVICE_CONFIG_TABLE,
            SUMMARY_KEY,
        );
        let mut c = self.counters.lock();
        if let Some(ScmRow::Summary(s)) = loaded {
            *c = s;
        }
        let now = *c;
        drop(c);
        actor.step_with(
            &java::SCMDeletedBlockTransactionStatusManager::onBecomeLeader,
            || match loaded {
                Some(_) => format!("counters set to the loaded {now}"),
                None => format!("no summary row: counters stay {now}"),
            },
        );
    }

    /// `addTransactions`: add `txns` to the counters and build the request the leader
    /// submits, carrying the counters as its summary.
    pub fn add_transactions(&self, actor: &Actor, txns: Vec<(u64, u64)>) -> ScmRequest {
        let mut c = self.counters.lock();
        for &(_, blocks) in &txns {
            c.tx_count += 1;
            c.blocks += blocks;
        }
        let summary = *c;
        drop(c);
        let request = ScmRequest::AddTransactionsToDb {
            txns,
            summary: Some(summary),
        };
        actor.step_with(
            &java::SCMDeletedBlockTransactionStatusManager::addTransactions,
            || format!("counters -> {summary}; submit {request}"),
        );
        request
    }
}
