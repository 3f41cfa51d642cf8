//! What an SCM deleted-block request writes at apply time.
//!
//! Java: `DeletedBlockLogStateManagerImpl.addTransactionsToDB` (:147-155), reached from
//! `SCMStateMachine.applyTransaction` through the replicated-invocation proxy. It loops over
//! the transactions, one `addToBuffer` put each, then writes a summary. Each put is a separate
//! call into the transaction buffer, which takes and releases the read lock per call: that is
//! why a concurrent flush can land between two puts of one transaction.
//!
//! Abstracted away: the deleted-block log's in-memory state other than the summary, the
//! containers' replica bookkeeping, retry counts, and what the summary is in the Java: the
//! model's summary is a plain counter incremented by each transaction, which is NOT
//! replay-safe (see [`ScmRow::Summary`]).

use super::{ScmRow, DELETED_BLOCKS_TABLE, SUMMARY_KEY, SUMMARY_TABLE};
use crate::cite::{java, Citation};
use crate::kit::store::{TableName, Tables};
use std::fmt;

/// A request in the replicated log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScmRequest {
    /// `addTransactionsToDB`: add deleted-block transactions `(txID, blocks)`.
    AddTransactionsToDb {
        /// The transactions, in the order they are put.
        txns: Vec<(u64, u64)>,
    },
}

impl fmt::Display for ScmRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScmRequest::AddTransactionsToDb { txns } => {
                let ids: Vec<u64> = txns.iter().map(|t| t.0).collect();
                write!(f, "addTransactionsToDB txIDs {ids:?}")
            }
        }
    }
}

/// One `addToBuffer` call: a put into the current batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Put {
    /// Table.
    pub table: TableName,
    /// Key.
    pub key: String,
    /// Row.
    pub row: ScmRow,
}

impl ScmRequest {
    /// The Java method this request's apply stands for.
    pub fn java(&self) -> &'static Citation {
        &java::DeletedBlockLogStateManagerImpl::addTransactionsToDB
    }

    /// Apply the request to the in-memory `view`, returning the puts it hands to the buffer,
    /// in order: one per transaction, then the summary.
    pub fn apply(&self, view: &mut Tables<ScmRow>) -> Vec<Put> {
        let ScmRequest::AddTransactionsToDb { txns } = self;
        let mut puts = Vec::new();
        let mut added = 0;
        for &(tx_id, blocks) in txns {
            puts.push(Put {
                table: DELETED_BLOCKS_TABLE,
                key: format!("tx{tx_id}"),
                row: ScmRow::DeletedTxn { blocks },
            });
            added += blocks;
        }
        let pending = match view.get(SUMMARY_TABLE, SUMMARY_KEY) {
            Some(ScmRow::Summary { pending_deletes }) => *pending_deletes,
            _ => 0,
        };
        puts.push(Put {
            table: SUMMARY_TABLE,
            key: SUMMARY_KEY.to_string(),
            row: ScmRow::Summary {
                pending_deletes: pending + added,
            },
        });
        for p in &puts {
            view.put(p.table, &p.key, p.row);
        }
        puts
    }
}
