//! The Storage Container Manager's Ratis persistence path: the transaction buffer, the state
//! machine, the replicated requests and what they write at apply time, the deleted-block
//! summary the leader keeps in memory, and the inter-SCM checkpoint download.
//!
//! Java: `hadoop-hdds/server-scm/.../scm/ha/` (`SCMHADBTransactionBufferImpl`,
//! `SCMStateMachine`, `InterSCMGrpcService`, `StatefulServiceStateManagerImpl`),
//! `.../scm/block/` (`DeletedBlockLogStateManagerImpl`,
//! `SCMDeletedBlockTransactionStatusManager`), `.../scm/container/`
//! (`ContainerStateManagerImpl`) and `.../scm/server/` (`SCMCertStore`). Jira: HDDS-16452.
//!
//! - [`tx_buffer`]: the batch of staged writes, the index it claims, its two flushes; generic
//!   over the rows, and also the buffer of [`crate::models::scm_cert`]'s SCMs.
//! - [`request`]: the replicated requests of the plans and what each one's apply writes.
//! - [`deleted_blocks`]: the leader's in-memory deleted-block summary, its load from the DB
//!   and the summary argument of the requests it submits.
//! - [`state_machine`]: `applyTransaction`, `notifyTermIndexUpdated`, `notifyLeaderChanged`,
//!   the new leader's startup entry (`notifyConfigurationChanged`, Ratis's ready flag,
//!   `notifyLeaderReady`), `takeSnapshot`, and a follower's install of a checkpoint.
//! - [`inter_scm`]: the checkpoint download.

pub mod deleted_blocks;
pub mod inter_scm;
pub mod request;
pub mod state_machine;
pub mod tx_buffer;

use crate::kit::store::{TableName, Tables};
use crate::kit::tx_info::{put_tx_info, TxRow};
use std::fmt;

/// `SCMDBDefinition.DELETED_BLOCKS`: deleted-block transactions keyed by txID.
pub const DELETED_BLOCKS_TABLE: TableName = "deletedBlocks";
/// `SCMDBDefinition.STATEFUL_SERVICE_CONFIG`: the stateful services' configurations, and the
/// deleted-block summary.
pub const STATEFUL_SERVICE_CONFIG_TABLE: TableName = "statefulServiceConfig";
/// The key of the deleted-block summary in [`STATEFUL_SERVICE_CONFIG_TABLE`]
/// (`DeletedBlockLogStateManagerImpl.SERVICE_NAME`).
pub const SUMMARY_KEY: &str = "DeletedBlockLogStateManager";
/// `SCMDBDefinition.CONTAINERS`: containers keyed by container ID.
pub const CONTAINERS_TABLE: TableName = "containers";
/// `SCMDBDefinition.VALID_CERTS`: the certificates the SCM's CA issued, keyed by serial.
pub const VALID_CERTS_TABLE: TableName = "validCerts";

/// The container life-cycle states the plans use (`HddsProtos.LifeCycleState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LifeCycleState {
    /// `DELETING`: its blocks are being deleted.
    Deleting,
    /// `CLOSED`.
    Closed,
}

/// The deleted-block summary (`DeletedBlocksTransactionSummary`), reduced to the two
/// counters the plans move: transactions and blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// `totalTransactionCount`.
    pub tx_count: u64,
    /// `totalBlockCount`.
    pub blocks: u64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "summary({} txns, {} blocks)", self.tx_count, self.blocks)
    }
}

/// A row of the SCM's DB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScmRow {
    /// A `DeletedBlocksTransaction`: the blocks of one container to delete.
    DeletedTxn {
        /// How many blocks it deletes.
        blocks: u64,
    },
    /// The deleted-block summary, as the leader computed it and every replica put it.
    Summary(Summary),
    /// A stateful service's configuration (`ContainerBalancer`'s, in the plans).
    Config(u64),
    /// A container's `ContainerInfo`, reduced to its state.
    Container(LifeCycleState),
    /// An issued certificate (`X509Certificate`), reduced to its presence.
    Certificate,
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
            ScmRow::Summary(s) => write!(f, "{s}"),
            ScmRow::Config(v) => write!(f, "config({v})"),
            ScmRow::Container(LifeCycleState::Deleting) => write!(f, "DELETING"),
            ScmRow::Container(LifeCycleState::Closed) => write!(f, "CLOSED"),
            ScmRow::Certificate => write!(f, "certificate"),
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

/// The key of container `id` in [`CONTAINERS_TABLE`].
pub fn container_key(id: u64) -> String {
    format!("#{id}")
}

/// The key of the certificate with serial `serial` in [`VALID_CERTS_TABLE`].
pub fn cert_key(serial: u64) -> String {
    format!("serial{serial}")
}

/// The key of deleted-block transaction `tx_id` in [`DELETED_BLOCKS_TABLE`].
pub fn txn_key(tx_id: u64) -> String {
    format!("tx{tx_id}")
}

/// The summary row of `tables`, `None` when absent (a new cluster has none).
pub fn stored_summary(tables: &Tables<ScmRow>) -> Option<Summary> {
    match tables.get(STATEFUL_SERVICE_CONFIG_TABLE, SUMMARY_KEY) {
        Some(ScmRow::Summary(s)) => Some(*s),
        _ => None,
    }
}

/// The summary that the deleted-block table itself gives: its transactions and their blocks.
pub fn table_summary(tables: &Tables<ScmRow>) -> Summary {
    tables
        .iter()
        .filter(|(t, _, _)| *t == DELETED_BLOCKS_TABLE)
        .fold(Summary::default(), |s, (_, _, row)| match row {
            ScmRow::DeletedTxn { blocks } => Summary {
                tx_count: s.tx_count + 1,
                blocks: s.blocks + blocks,
            },
            _ => s,
        })
}

/// The rows a fresh SCM of the plans starts with: containers `1..=containers` in DELETING
/// (a datanode is about to report a replica of each, see
/// [`request::ScmRequest::TransitionToClosed`]) and `TransactionInfo` 0. No summary row:
/// a new cluster has none.
pub fn initial_tables(containers: u64) -> Tables<ScmRow> {
    let mut t = Tables::default();
    for id in 1..=containers {
        t.put(
            CONTAINERS_TABLE,
            &container_key(id),
            ScmRow::Container(LifeCycleState::Deleting),
        );
    }
    put_tx_info(&mut t, 0, 0);
    t
}
