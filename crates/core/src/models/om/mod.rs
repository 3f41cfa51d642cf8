//! The Ozone Manager's Ratis persistence path: requests, the double buffer, the state machine.
//!
//! Java: `hadoop-ozone/ozone-manager/.../om/ratis/` (`OzoneManagerStateMachine`,
//! `OzoneManagerDoubleBuffer`), `.../om/request/key/` (`OMKeyCreateRequest`,
//! `OMKeyCommitRequest`, `OMKeyRenameRequest`, `OMKeyDeleteRequest`,
//! `OMAllocateBlockRequest`), `.../om/request/volume/OMVolumeCreateRequest` and
//! `.../om/request/bucket/OMBucketCreateRequest`. Jira: HDDS-16092.
//!
//! The tables are those of an OBJECT_STORE bucket (`keyTable`, `openKeyTable`): the layout S3
//! buckets get. The OM's default layout, FILE_SYSTEM_OPTIMIZED, keeps the same rows in
//! `fileTable` / `openFileTable`, and for a key at the bucket root its requests
//! ([`OMKeyCreateRequestWithFSO`](crate::citation::java::OMKeyCreateRequestWithFSO::validateAndUpdateCache),
//! [`OMKeyCommitRequestWithFSO`](crate::citation::java::OMKeyCommitRequestWithFSO::validateAndUpdateCache))
//! take the decisions modelled here on those tables.

pub mod actors;
pub mod double_buffer;
pub mod node;
pub mod persist;
pub mod requests;
pub mod snapshot;
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
/// `OmMetadataManagerImpl.VOLUME_TABLE`.
pub const VOLUME_TABLE: TableName = "volumeTable";
/// `OmMetadataManagerImpl.SNAPSHOT_INFO_TABLE`: one `SnapshotInfo` row per snapshot.
pub const SNAPSHOT_INFO_TABLE: TableName = "snapshotInfoTable";
/// `OmMetadataManagerImpl.DELETED_TABLE`: keys deleted but not yet purged.
pub const DELETED_TABLE: TableName = "deletedTable";
/// The one bucket the models write keys to.
pub const BUCKET: &str = "/vol1/bucket1";
/// The volume that holds [`BUCKET`].
pub const VOLUME: &str = "/vol1";

/// A row of the OM's DB. A key's `update_id` is the log index of the transaction that last
/// wrote it, as Ozone's `WithObjectID.updateID`; the key requests never set a bucket's, and
/// no modelled request reads a volume's or a bucket's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmRow {
    /// An `OmKeyInfo` in the open-key or key table.
    Key {
        /// Data size in bytes.
        size: u64,
        /// Index of the last writer.
        update_id: u64,
    },
    /// An open key (`openKeyTable`) written by `AllocateBlock`: an `OmKeyInfo` whose latest
    /// version lists `blocks` block locations. The other requests write open keys as
    /// [`OmRow::Key`], which stands for the one block `CreateKey` preallocates.
    OpenKey {
        /// Data size in bytes.
        size: u64,
        /// Index of the last writer.
        update_id: u64,
        /// Block locations in the latest version.
        blocks: u64,
    },
    /// An `OmVolumeArgs` with its namespace usage (its buckets).
    Volume {
        /// `usedNamespace`.
        used_namespace: u64,
    },
    /// An `OmBucketInfo` with its quota usage.
    Bucket {
        /// `usedBytes`.
        used_bytes: u64,
        /// `usedNamespace`.
        used_namespace: u64,
    },
    /// A `SnapshotInfo` (only what the models read: the index of the last purge that
    /// updated it, `lastTransactionInfo`; 0 when none did).
    Snapshot {
        /// `lastTransactionInfo`'s index.
        last_tx: u64,
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
            OmRow::OpenKey {
                size,
                update_id,
                blocks,
            } => write!(
                f,
                "key(size {size}, upd {update_id}, {blocks} block{})",
                if *blocks == 1 { "" } else { "s" }
            ),
            OmRow::Volume { used_namespace } => {
                write!(f, "volume(usedNamespace {used_namespace})")
            }
            OmRow::Bucket {
                used_bytes,
                used_namespace,
            } => write!(
                f,
                "bucket(usedBytes {used_bytes}, usedNamespace {used_namespace})"
            ),
            OmRow::Snapshot { last_tx } => write!(f, "snapshot(lastTx {last_tx})"),
            OmRow::TxInfo { term, index } => write!(f, "TX {index} (t{term})"),
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

impl OmRow {
    /// The `(term, index)` of a `TransactionInfo` row, ordered as Ratis' `TermIndex` (term
    /// first, then index).
    pub fn term_index(&self) -> Option<TermIndex> {
        match self {
            OmRow::TxInfo { term, index } => Some(TermIndex {
                term: *term,
                index: *index,
            }),
            _ => None,
        }
    }
}

/// Ratis' `TermIndex`: compared by term, then by index (`TermIndex.compareTo`), as the OM's
/// state machine and `TransactionInfo.compareTo` compare them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct TermIndex {
    /// The leader term. Declared first: the derived order compares it first.
    pub term: u64,
    /// The log index.
    pub index: u64,
}

impl TermIndex {
    /// `(term, index)`.
    pub const fn new(term: u64, index: u64) -> Self {
        Self { term, index }
    }
}

impl fmt::Display for TermIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(t{}, {})", self.term, self.index)
    }
}

/// The OM's tables.
pub type OmTables = Tables<OmRow>;

/// The rows a fresh OM starts with: a volume holding one empty bucket, and
/// `TransactionInfo` 0.
pub fn initial_tables() -> Tables<OmRow> {
    let mut t = Tables::default();
    t.put(VOLUME_TABLE, VOLUME, OmRow::Volume { used_namespace: 1 });
    t.put(
        BUCKET_TABLE,
        BUCKET,
        OmRow::Bucket {
            used_bytes: 0,
            used_namespace: 0,
        },
    );
    put_tx_info(&mut t, 0, 0);
    t
}
