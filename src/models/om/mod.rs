//! The Ozone Manager's Ratis persistence path: requests, the double buffer, the state machine.
//!
//! Java: `hadoop-ozone/ozone-manager/.../om/ratis/` (`OzoneManagerStateMachine`,
//! `OzoneManagerDoubleBuffer`) and `.../om/request/key/` (`OMKeyCreateRequest`,
//! `OMKeyCommitRequest`). Jira: HDDS-16092.

pub mod double_buffer;
pub mod node;
pub mod persist;
pub mod requests;
pub mod startup;
pub mod state_machine;

use crate::kit::store::{TableName, Tables};
use crate::kit::tx_info::{put_tx_info, TxRow};
use std::fmt;

/// `OmMetadataManagerImpl.OPEN_KEY_TABLE`.
pub const OPEN_KEY_TABLE: TableName = "openKeyTable";
/// `OmMetadataManagerImpl.KEY_TABLE`.
pub const KEY_TABLE: TableName = "keyTable";
/// `OmMetadataManagerImpl.BUCKET_TABLE`.
pub const BUCKET_TABLE: TableName = "bucketTable";
/// The one bucket the models write to.
pub const BUCKET: &str = "/vol1/bucket1";

/// A row of the OM's DB. `update_id` is the log index of the transaction that last wrote the
/// row, as Ozone's `WithObjectID.updateID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmRow {
    /// An `OmKeyInfo` in the open-key or key table.
    Key {
        /// Data size in bytes.
        size: u64,
        /// Index of the last writer.
        update_id: u64,
    },
    /// An `OmBucketInfo` with its quota usage.
    Bucket {
        /// `usedBytes`.
        used_bytes: u64,
        /// `usedNamespace`.
        used_namespace: u64,
        /// Index of the last writer.
        update_id: u64,
    },
    /// `TransactionInfo`: the term and index the DB's content is claimed to cover.
    TxInfo {
        /// Term.
        term: u64,
        /// Index.
        index: u64,
    },
}

impl fmt::Display for OmRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OmRow::Key { size, update_id } => write!(f, "key(size {size}, upd {update_id})"),
            OmRow::Bucket {
                used_bytes,
                used_namespace,
                update_id,
            } => write!(
                f,
                "bucket(usedBytes {used_bytes}, usedNamespace {used_namespace}, upd {update_id})"
            ),
            OmRow::TxInfo { index, .. } => write!(f, "TX {index}"),
        }
    }
}

impl TxRow for OmRow {
    /// `OmMetadataManagerImpl.TRANSACTION_INFO_TABLE`.
    const TABLE: TableName = "transactionInfoTable";

    fn tx_info(term: u64, index: u64) -> Self {
        OmRow::TxInfo { term, index }
    }

    fn tx_index(&self) -> Option<u64> {
        match self {
            OmRow::TxInfo { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// The rows a fresh OM starts with: an empty bucket and `TransactionInfo` 0.
pub fn initial_tables() -> Tables<OmRow> {
    let mut t = Tables::default();
    t.put(
        BUCKET_TABLE,
        BUCKET,
        OmRow::Bucket {
            used_bytes: 0,
            used_namespace: 0,
            update_id: 0,
        },
    );
    put_tx_info(&mut t, 0, 0);
    t
}
