//! What the OM's key, bucket and volume write requests do at apply time:
//! `validateAndUpdateCache`.
//!
//! [`OMKeyCreateRequest`](java::OMKeyCreateRequest::validateAndUpdateCache) first reads the
//! committed key (`keyTable.getIfExist`). With no committed key it builds a new one whose
//! `updateID` is the request's index. With one, it builds the open key from it
//! ([`prepareFileInfo`](java::OMKeyRequest::prepareFileInfo): `toBuilder()` with the new size,
//! the old block locations dropped when versioning is off, `setUpdateID(index)`), and the
//! builder's [`validate`](java::WithObjectID::Builder::validate) throws
//! `IllegalArgumentException` when the index is below the committed key's `updateID`. That
//! exception is neither an `IOException` nor an `InvalidPathException`, so the request does not
//! catch it, no response is queued, and
//! [`runCommand`](java::OzoneManagerStateMachine::runCommand) terminates the OM. On a log applied
//! once that cannot happen (a key is committed after its create); it happens when a create is
//! applied again after its key's commit was persisted, which is what a lowered
//! `TransactionInfo` makes a restart do.
//!
//! [`OMKeyCommitRequest`](java::OMKeyCommitRequest::validateAndUpdateCache) reads the
//! committed key (`keyToDelete`) and then the open key; without an open key it fails with
//! `KEY_NOT_FOUND` (an `OMException`: an error response, no rows). Otherwise the key's
//! `updateID` becomes the index; with no committed key the bucket gains the key's bytes and one
//! namespace entry; over a committed key (versioning off) the old key's bytes are subtracted and
//! the namespace is unchanged. The response writes the key, deletes the open key and writes the
//! bucket row. Neither request sets the bucket's `updateID`.
//!
//! [`OMKeyRenameRequest`](java::OMKeyRenameRequest::validateAndUpdateCache) fails with
//! `KEY_ALREADY_EXISTS` when the target name is a committed key, then with `KEY_NOT_FOUND`
//! when the source is not one (both `OMException`s: error responses, no rows); otherwise it
//! rebuilds the key with `toBuilder().setUpdateID(index)`, whose `build()` runs the same
//! [`validate`](java::WithObjectID::Builder::validate) (an index below the key's `updateID`
//! throws and terminates the OM), deletes the source from the table cache and puts the key
//! under its new name. Its [response](java::OMKeyRenameResponse::addToDBBatch) deletes the
//! source row and writes the target row; the bucket's counters do not change. So a replay
//! that meets a key already renamed fails with `KEY_ALREADY_EXISTS`, and the `CreateKey` and
//! `CommitKey` replayed before it find no key under the old name and count the key again.
//!
//! [`OMKeyDeleteRequest`](java::OMKeyDeleteRequest::validateAndUpdateCache) fails with
//! `KEY_NOT_FOUND` when the key is not committed (an error response, no rows); otherwise it
//! rebuilds the key with `toBuilder().setUpdateID(index)` (the same
//! [`validate`](java::WithObjectID::Builder::validate): an index below the key's `updateID`
//! throws and terminates the OM), puts a tombstone in the table cache and takes the key's
//! bytes and one namespace entry off the bucket. Its
//! [response](java::OMKeyDeleteResponse::addToDBBatch) deletes the key row, puts the key into
//! the `deletedTable` under its objectID and name, and writes the bucket row. The
//! `deletedTable` row is not modelled: a replayed delete of the same key puts the same row
//! (objectID from the create's index, `updateID` from the delete's), so no comparison of
//! replicas depends on it.
//!
//! [`OMAllocateBlockRequest`](java::OMAllocateBlockRequest::validateAndUpdateCache) reads the
//! open key and fails with `KEY_NOT_FOUND` when there is none (an error response, no rows);
//! otherwise it appends the new block to the latest version's locations
//! ([`appendNewBlocks`](java::OmKeyInfo::appendNewBlocks): a plain append, no check that the
//! block is already listed) and rebuilds the open key with `toBuilder().setUpdateID(index)`,
//! whose [`validate`](java::WithObjectID::Builder::validate) throws when the index is below the
//! open key's `updateID`. Its response writes the open key alone (the bucket is read for
//! the quota check, not written). So a replayed `AllocateBlock` over an open key its first
//! apply already wrote (same `updateID`, nothing to refuse) lists the block twice, and one
//! over an open key a later `AllocateBlock` wrote (a higher `updateID`) throws and
//! terminates the OM. A replayed `CreateKey` before it rebuilds the open key afresh from the
//! request (the create reads only the committed key), so a replay from below the create
//! repeats the allocations exactly. The key's `CommitKey` replaces the block list with the
//! client's ([`OMKeyCommitRequest`](java::OMKeyCommitRequest::validateAndUpdateCache) through
//! `updateLocationInfoList`) and deletes the open key, so a duplicate lasts only while the key
//! stays open.
//!
//! [`OMVolumeCreateRequest`](java::OMVolumeCreateRequest::validateAndUpdateCache) fails with
//! `VOLUME_ALREADY_EXISTS` when the volume row exists, and
//! [`OMBucketCreateRequest`](java::OMBucketCreateRequest::validateAndUpdateCache) with
//! `VOLUME_NOT_FOUND` without its volume and `BUCKET_ALREADY_EXISTS` when the bucket row exists
//! (`OMException`s: error responses, no rows). Otherwise the volume is written with
//! `updateID` the index and `usedNamespace` 0, and the bucket likewise, its volume's
//! `usedNamespace` one higher (both rows in the response). Neither compares an `updateID`:
//! the existence check is what a replay meets, so with no volume or bucket delete a replayed
//! create is an error response that writes nothing, and the replica agrees with its peer.
//!
//! The apply thread reads and updates the OM's table cache, here the [`View`]; the response
//! carries the rows that the double buffer later writes into its batch.
//!
//! Abstracted away (see the scenario's Abstractions table): locks held inside the request (one
//! apply thread orders the requests), ACLs, quota checks (no quota is set), a volume's owner
//! and its `userTable` row (written with the volume, in the same branch), bucket and volume
//! `updateID`s and object ids (no modelled request reads them), the block ids themselves and
//! a committed key's block list (a commit writes the client's list, the same on every
//! replica), atomic rewrite and
//! hsync (no such arguments), parent directories (the key is at the bucket root), object ids
//! and block ids, the deleted-table rows and `snapshotUsed*` counters of an overwrite (no
//! invariant reads them; a generated workload may overwrite a key, the bucket's counters
//! follow it), a rename's `snapshotRenamedTable` row (no snapshot of the bucket is taken),
//! modification times, empty key names (no workload has one), replication (10 bytes stand
//! for the replicated size). Without object ids, a key a replay builds afresh and the key
//! renamed away from its name are two rows alike; the Java would give both the objectID of
//! the same index.

use super::{OmRow, BUCKET, BUCKET_TABLE, KEY_TABLE, OPEN_KEY_TABLE, VOLUME, VOLUME_TABLE};
use crate::citation::{java, Citation};
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
    /// `RenameKey`: move a committed key to a new name.
    RenameKey {
        /// The key's name.
        from: String,
        /// Its new name.
        to: String,
    },
    /// `DeleteKey`: delete a committed key and take it off the bucket's counters.
    DeleteKey {
        /// Key name.
        key: String,
    },
    /// `AllocateBlock`: append a block to an open key.
    AllocateBlock {
        /// Key name.
        key: String,
    },
    /// `CreateVolume`: create a volume (its path, `/vol2`).
    CreateVolume {
        /// The volume's table key.
        volume: String,
    },
    /// `CreateBucket`: create a bucket in [`VOLUME`] (its path, `/vol1/bucket2`).
    CreateBucket {
        /// The bucket's table key.
        bucket: String,
    },
}

impl fmt::Display for OmRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OmRequest::CreateKey { key, size } => write!(f, "CreateKey {key} ({size} bytes)"),
            OmRequest::CommitKey { key } => write!(f, "CommitKey {key}"),
            OmRequest::RenameKey { from, to } => write!(f, "RenameKey {from} -> {to}"),
            OmRequest::DeleteKey { key } => write!(f, "DeleteKey {key}"),
            OmRequest::AllocateBlock { key } => write!(f, "AllocateBlock {key}"),
            OmRequest::CreateVolume { volume } => write!(f, "CreateVolume {volume}"),
            OmRequest::CreateBucket { bucket } => write!(f, "CreateBucket {bucket}"),
        }
    }
}

/// The OM's in-memory view of its tables (DB plus the table cache), as the apply thread
/// sees it.
pub type View = Tables<OmRow>;

/// The result of applying one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The rows its response will write (none for an error response).
    pub rows: WriteBatch<OmRow>,
    /// One line for the trace.
    pub summary: String,
}

/// A `Throwable` that is not an `IOException` escaped `validateAndUpdateCache`: no response is
/// queued and `runCommand` terminates the OM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thrown {
    /// The Java method that throws it.
    pub java: &'static Citation,
    /// The exception and its message.
    pub what: String,
}

impl fmt::Display for Thrown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl OmRequest {
    /// The Java method this request's apply stands for.
    pub fn java(&self) -> &'static Citation {
        match self {
            OmRequest::CreateKey { .. } => &java::OMKeyCreateRequest::validateAndUpdateCache,
            OmRequest::CommitKey { .. } => &java::OMKeyCommitRequest::validateAndUpdateCache,
            OmRequest::RenameKey { .. } => &java::OMKeyRenameRequest::validateAndUpdateCache,
            OmRequest::DeleteKey { .. } => &java::OMKeyDeleteRequest::validateAndUpdateCache,
            OmRequest::AllocateBlock { .. } => {
                &java::OMAllocateBlockRequest::validateAndUpdateCache
            }
            OmRequest::CreateVolume { .. } => &java::OMVolumeCreateRequest::validateAndUpdateCache,
            OmRequest::CreateBucket { .. } => &java::OMBucketCreateRequest::validateAndUpdateCache,
        }
    }

    /// Apply the request at log `index` to `view`, returning the response's rows; `Err` when a
    /// `Throwable` escapes the request (nothing in `view` changed).
    pub fn apply(&self, index: u64, view: &mut View) -> Result<Applied, Thrown> {
        let mut rows = WriteBatch::new();
        let summary = match self {
            OmRequest::CreateKey { key, size } => {
                let (row, how) = match view.get(KEY_TABLE, key).copied() {
                    Some(OmRow::Key { update_id, .. }) if index < update_id => {
                        return Err(Thrown {
                            java: &java::WithObjectID::Builder::validate,
                            what: format!(
                                "IllegalArgumentException: updateID {index} < current \
                                 updateID {update_id} of committed {key}"
                            ),
                        });
                    }
                    Some(OmRow::Key { .. }) => (
                        OmRow::Key {
                            size: *size,
                            update_id: index,
                        },
                        "from the committed key",
                    ),
                    _ => (
                        OmRow::Key {
                            size: *size,
                            update_id: index,
                        },
                        "new",
                    ),
                };
                view.put(OPEN_KEY_TABLE, key, row);
                rows.put(OPEN_KEY_TABLE, key, row);
                format!("open {key} ({how})")
            }
            OmRequest::CommitKey { key } => {
                let Some(OmRow::Bucket {
                    used_bytes,
                    used_namespace,
                }) = view.get(BUCKET_TABLE, BUCKET).copied()
                else {
                    return Ok(Applied {
                        rows,
                        summary: "BUCKET_NOT_FOUND (error response, no rows)".into(),
                    });
                };
                let to_delete = view.get(KEY_TABLE, key).copied();
                let (Some(OmRow::Key { size, .. }) | Some(OmRow::OpenKey { size, .. })) =
                    view.get(OPEN_KEY_TABLE, key).copied()
                else {
                    return Ok(Applied {
                        rows,
                        summary: format!("{key}: KEY_NOT_FOUND (error response, no rows)"),
                    });
                };
                let (bytes, namespace, how) = match to_delete {
                    Some(OmRow::Key { size: old, .. }) => (
                        (used_bytes + size).saturating_sub(old),
                        used_namespace,
                        "over the committed key",
                    ),
                    _ => (used_bytes + size, used_namespace + 1, "new key"),
                };
                let bucket = OmRow::Bucket {
                    used_bytes: bytes,
                    used_namespace: namespace,
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
                format!("commit {key} ({how}): usedBytes {used_bytes} -> {bytes}")
            }
            OmRequest::RenameKey { from, to } => {
                if view.get(KEY_TABLE, to).is_some() {
                    return Ok(Applied {
                        rows,
                        summary: format!("{to}: KEY_ALREADY_EXISTS (error response, no rows)"),
                    });
                }
                let Some(OmRow::Key { size, update_id }) = view.get(KEY_TABLE, from).copied()
                else {
                    return Ok(Applied {
                        rows,
                        summary: format!("{from}: KEY_NOT_FOUND (error response, no rows)"),
                    });
                };
                if index < update_id {
                    return Err(Thrown {
                        java: &java::WithObjectID::Builder::validate,
                        what: format!(
                            "IllegalArgumentException: updateID {index} < current \
                             updateID {update_id} of committed {from}"
                        ),
                    });
                }
                let renamed = OmRow::Key {
                    size,
                    update_id: index,
                };
                view.delete(KEY_TABLE, from);
                view.put(KEY_TABLE, to, renamed);
                rows.delete(KEY_TABLE, from);
                rows.put(KEY_TABLE, to, renamed);
                format!("rename {from} -> {to}")
            }
            OmRequest::DeleteKey { key } => {
                let Some(OmRow::Bucket {
                    used_bytes,
                    used_namespace,
                }) = view.get(BUCKET_TABLE, BUCKET).copied()
                else {
                    return Ok(Applied {
                        rows,
                        summary: "BUCKET_NOT_FOUND (error response, no rows)".into(),
                    });
                };
                let Some(OmRow::Key { size, update_id }) = view.get(KEY_TABLE, key).copied() else {
                    return Ok(Applied {
                        rows,
                        summary: format!("{key}: KEY_NOT_FOUND (error response, no rows)"),
                    });
                };
                if index < update_id {
                    return Err(Thrown {
                        java: &java::WithObjectID::Builder::validate,
                        what: format!(
                            "IllegalArgumentException: updateID {index} < current \
                             updateID {update_id} of committed {key}"
                        ),
                    });
                }
                let bucket = OmRow::Bucket {
                    used_bytes: used_bytes.saturating_sub(size),
                    used_namespace: used_namespace.saturating_sub(1),
                };
                view.delete(KEY_TABLE, key);
                view.put(BUCKET_TABLE, BUCKET, bucket);
                rows.delete(KEY_TABLE, key);
                rows.put(BUCKET_TABLE, BUCKET, bucket);
                format!(
                    "delete {key}: usedBytes {used_bytes} -> {}",
                    used_bytes.saturating_sub(size)
                )
            }
            OmRequest::AllocateBlock { key } => {
                let (size, update_id, blocks) = match view.get(OPEN_KEY_TABLE, key).copied() {
                    Some(OmRow::Key { size, update_id }) => (size, update_id, 1),
                    Some(OmRow::OpenKey {
                        size,
                        update_id,
                        blocks,
                    }) => (size, update_id, blocks),
                    _ => {
                        return Ok(Applied {
                            rows,
                            summary: format!("{key}: KEY_NOT_FOUND (error response, no rows)"),
                        });
                    }
                };
                if index < update_id {
                    return Err(Thrown {
                        java: &java::WithObjectID::Builder::validate,
                        what: format!(
                            "IllegalArgumentException: updateID {index} < current \
                             updateID {update_id} of open {key}"
                        ),
                    });
                }
                let open = OmRow::OpenKey {
                    size,
                    update_id: index,
                    blocks: blocks + 1,
                };
                view.put(OPEN_KEY_TABLE, key, open);
                rows.put(OPEN_KEY_TABLE, key, open);
                format!(
                    "append a block to open {key}: {blocks} -> {} blocks",
                    blocks + 1
                )
            }
            OmRequest::CreateVolume { volume } => {
                if view.get(VOLUME_TABLE, volume).is_some() {
                    return Ok(Applied {
                        rows,
                        summary: format!(
                            "{volume}: VOLUME_ALREADY_EXISTS (error response, no rows)"
                        ),
                    });
                }
                let row = OmRow::Volume { used_namespace: 0 };
                view.put(VOLUME_TABLE, volume, row);
                rows.put(VOLUME_TABLE, volume, row);
                format!("create volume {volume}")
            }
            OmRequest::CreateBucket { bucket } => {
                let Some(OmRow::Volume { used_namespace }) =
                    view.get(VOLUME_TABLE, VOLUME).copied()
                else {
                    return Ok(Applied {
                        rows,
                        summary: "VOLUME_NOT_FOUND (error response, no rows)".into(),
                    });
                };
                if view.get(BUCKET_TABLE, bucket).is_some() {
                    return Ok(Applied {
                        rows,
                        summary: format!(
                            "{bucket}: BUCKET_ALREADY_EXISTS (error response, no rows)"
                        ),
                    });
                }
                let row = OmRow::Bucket {
                    used_bytes: 0,
                    used_namespace: 0,
                };
                let volume = OmRow::Volume {
                    used_namespace: used_namespace + 1,
                };
                view.put(BUCKET_TABLE, bucket, row);
                view.put(VOLUME_TABLE, VOLUME, volume);
                rows.put(BUCKET_TABLE, bucket, row);
                rows.put(VOLUME_TABLE, VOLUME, volume);
                format!(
                    "create bucket {bucket}: {VOLUME} usedNamespace {used_namespace} -> {}",
                    used_namespace + 1
                )
            }
        };
        Ok(Applied { rows, summary })
    }
}
