//! What two OM write requests do at apply time: `validateAndUpdateCache`.
//!
//! Java: `OMKeyCreateRequest.validateAndUpdateCache` (adds the open key) and
//! `OMKeyCommitRequest.validateAndUpdateCache` (moves the open key to the key table, and does
//! `usedNamespace += 1` and `usedBytes += size` on the bucket, a read-modify-write with no
//! replay guard: `OMKeyCommitRequest.java:375,407`). The apply thread reads and updates the
//! OM's table cache, here the [`View`]; the response carries the rows that the double buffer
//! later writes into its batch.
//!
//! Abstracted away: locks held inside the request (the bucket lock orders requests that the
//! single apply thread already runs in order), ACLs, multipart keys, block allocation,
//! replication, the response's protobuf.

use super::{OmRow, BUCKET, BUCKET_TABLE, KEY_TABLE, OPEN_KEY_TABLE};
use crate::cite::{java, Citation};
use crate::kit::store::{Tables, WriteBatch};
use std::fmt;

/// A request in the replicated log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OmRequest {
    /// `CreateKey`: open a key of `size` bytes.
    CreateKey {
        /// Key name.
        key: String,
        /// Size in bytes.
        size: u64,
    },
    /// `CommitKey`: commit the open key and count its bytes in the bucket's quota.
    CommitKey {
        /// Key name.
        key: String,
    },
}

impl fmt::Display for OmRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OmRequest::CreateKey { key, size } => write!(f, "CreateKey {key} ({size} bytes)"),
            OmRequest::CommitKey { key } => write!(f, "CommitKey {key}"),
        }
    }
}

/// The OM's in-memory view of its tables (DB plus the table cache), as the apply thread
/// sees it.
pub type View = Tables<OmRow>;

/// The result of applying one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The rows its response will write.
    pub rows: WriteBatch<OmRow>,
    /// One line for the trace.
    pub summary: String,
}

impl OmRequest {
    /// The Java method this request's apply stands for.
    pub fn java(&self) -> &'static Citation {
        match self {
            OmRequest::CreateKey { .. } => &java::OMKeyCreateRequest::validateAndUpdateCache,
            OmRequest::CommitKey { .. } => &java::OMKeyCommitRequest::validateAndUpdateCache,
        }
    }

    /// Apply the request at log `index` to `view`, returning the response's rows.
    pub fn apply(&self, index: u64, view: &mut View) -> Applied {
        let mut rows = WriteBatch::new();
        let summary = match self {
            OmRequest::CreateKey { key, size } => {
                let row = OmRow::Key {
                    size: *size,
                    update_id: index,
                };
                view.put(OPEN_KEY_TABLE, key, row);
                rows.put(OPEN_KEY_TABLE, key, row);
                format!("open {key}")
            }
            OmRequest::CommitKey { key } => match view.get(OPEN_KEY_TABLE, key).copied() {
                Some(OmRow::Key { size, .. }) => {
                    let Some(OmRow::Bucket {
                        used_bytes,
                        used_namespace,
                        ..
                    }) = view.get(BUCKET_TABLE, BUCKET).copied()
                    else {
                        return Applied {
                            rows,
                            summary: "BUCKET_NOT_FOUND".into(),
                        };
                    };
                    let bucket = OmRow::Bucket {
                        used_bytes: used_bytes + size,
                        used_namespace: used_namespace + 1,
                        update_id: index,
                    };
                    let committed = OmRow::Key {
                        size,
                        update_id: index,
                    };
                    view.delete(OPEN_KEY_TABLE, key);
                    view.put(KEY_TABLE, key, committed);
                    view.put(BUCKET_TABLE, BUCKET, bucket);
                    rows.delete(OPEN_KEY_TABLE, key);
                    rows.put(KEY_TABLE, key, committed);
                    rows.put(BUCKET_TABLE, BUCKET, bucket);
                    format!(
                        "commit {key}: usedBytes {used_bytes} -> {}",
                        used_bytes + size
                    )
                }
                _ => format!("{key}: KEY_NOT_FOUND (error response, no rows)"),
            },
        };
        Applied { rows, summary }
    }
}
