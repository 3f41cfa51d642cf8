//! The Storage Container Manager's Ratis persistence path: the transaction buffer, the state
//! machine, the deleted-block log's DB writes, and the inter-SCM checkpoint download.
//!
//! Java: `hadoop-hdds/server-scm/.../scm/ha/` (`SCMHADBTransactionBufferImpl`,
//! `SCMStateMachine`, `InterSCMGrpcService`) and `.../scm/block/`
//! (`DeletedBlockLogStateManagerImpl`). Jira: HDDS-16452.

pub mod deleted_blocks;
pub mod inter_scm;
pub mod state_machine;
pub mod tx_buffer;

use crate::kit::store::{TableName, Tables};
use crate::kit::tx_info::{put_tx_info, TxRow};
use std::fmt;

/// `SCMDBDefinition.DELETED_BLOCKS`: deleted-block transactions keyed by txID.
pub const DELETED_BLOCKS_TABLE: TableName = "deletedBlocks";
/// The table of the model's deleted-block summary row (synthetic, see [`ScmRow::Summary`]).
pub const SUMMARY_TABLE: TableName = "deletedBlocksSummary";
/// The key of the summary row.
pub const SUMMARY_KEY: &str = "summary";

/// A row of the SCM's DB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScmRow {
    /// A `DeletedBlocksTransaction`: the blocks of one container to delete.
    DeletedTxn {
        /// How many blocks it deletes.
        blocks: u64,
    },
    /// A summary of the deleted-block log: `pending_deletes` counts the blocks of every
    /// transaction added. SYNTHETIC: the apply does `pending_deletes += n`, a read-modify-write
    /// with no replay guard, so that re-applying an entry shows as replica drift. Real SCM
    /// transactions are mostly replay-safe (puts keyed by txID, compare-and-set counters);
    /// there the demonstrable break is a checkpoint whose TX understates its content, or
    /// that holds half a transaction.
    Summary {
        /// Blocks waiting for deletion.
        pending_deletes: u64,
    },
    /// `TransactionInfo`: the term and index the DB's content is claimed to cover.
    TxInfo {
        /// Term.
        term: u64,
        /// Index.
        index: u64,
    },
}

impl fmt::Display for ScmRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScmRow::DeletedTxn { blocks } => write!(f, "txn({blocks} blocks)"),
            ScmRow::Summary { pending_deletes } => {
                write!(f, "summary(pendingDeletes {pending_deletes})")
            }
            ScmRow::TxInfo { index, .. } => write!(f, "TX {index}"),
        }
    }
}

impl TxRow for ScmRow {
    /// `SCMDBDefinition.TRANSACTIONINFO`.
    const TABLE: TableName = "scmTransactionInfos";

    fn tx_info(term: u64, index: u64) -> Self {
        ScmRow::TxInfo { term, index }
    }

    fn tx_index(&self) -> Option<u64> {
        match self {
            ScmRow::TxInfo { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// The rows a fresh SCM starts with: an empty summary and `TransactionInfo` 0.
pub fn initial_tables() -> Tables<ScmRow> {
    let mut t = Tables::default();
    t.put(
        SUMMARY_TABLE,
        SUMMARY_KEY,
        ScmRow::Summary { pending_deletes: 0 },
    );
    put_tx_info(&mut t, 0, 0);
    t
}
