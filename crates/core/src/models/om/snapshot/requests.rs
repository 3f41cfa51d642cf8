//! The requests of the snapshot models, at apply ([`apply`]: `validateAndUpdateCache`, on the apply thread) and at flush
//! ([`add_to_batch`]: the response's `addToDBBatch`, on the double buffer's flush thread).
//!
//! - `CreateKey { key }` (`OMKeyCreateRequest`, reduced to what a snapshot sees): its
//!   response writes the open key's row into the batch.
//! - `CreateSnapshot { snapshot }` (`OMSnapshotCreateRequest`): the row goes into the
//!   `snapshotInfoTable` cache at apply; at flush the response takes a RocksDB checkpoint of
//!   the active DB's committed state into the snapshot's directory, or finds the directory
//!   there (`OmSnapshotManager.createOmSnapshotCheckpoint`), cleans the active DB's
//!   `deletedTable` in both cases, and stages the row before or after, as the
//!   [`CreateRevision`] says.
//! - `PurgeKeys { snapshot, keys }` (`OMKeyPurgeRequest` with a `snapshotTableKey`): delete
//!   `keys` from the snapshot's own `deletedTable`. The flush opens the snapshot's DB
//!   (`OmSnapshotManager.getSnapshot`) and commits a batch of its own to it, at once.
//! - `SnapshotPurge { snapshot }` (`OMSnapshotPurgeRequest`): at apply, a tombstone for the
//!   row in the `snapshotInfoTable` cache (and, before HDDS-11152, the id map and the
//!   snapshot cache entry dropped); at flush, read the row skipping the cache, delete the
//!   checkpoint directory at once, and stage the row's delete.

use super::{
    CreateCleanup, CreateRevision, ExistingDir, Failure, Lookup, PurgeKeysApply, RowStaged,
    Snapshots, Stage,
};
use crate::kit::store::{Store, WriteBatch};
use crate::models::om::double_buffer::Indexed;
use crate::models::om::{OmRow, OmTables, DELETED_TABLE, OPEN_KEY_TABLE, SNAPSHOT_INFO_TABLE};
use crate::properties::Probe;
use crate::recorder::Actor;
use std::fmt;

/// The flush of a purge of keys from a snapshot ran after the purge of that snapshot was
/// applied: the window of HDDS-11152.
pub const PURGE_APPLIED_BEFORE_KEYS_FLUSHED: Probe = Probe::new(
    "PurgeAppliedBeforeKeysFlushed",
    "the flush thread reached a purge of keys from a snapshot after the snapshot's purge was applied",
);

/// The probes the requests' apply and flush steps fire: a scenario that runs them inherits
/// them ([`Scenario::MODEL_PROBES`](crate::scenario::Scenario::MODEL_PROBES)).
pub const PROBES: &[Probe] = &[PURGE_APPLIED_BEFORE_KEYS_FLUSHED];

/// A request of the replicated log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotRequest {
    /// `CreateKey`: an open key of 10 bytes.
    CreateKey {
        /// The key.
        key: String,
    },
    /// `CreateSnapshot`.
    CreateSnapshot {
        /// The snapshot.
        snapshot: String,
    },
    /// `PurgeKeys` from a snapshot's `deletedTable`.
    PurgeKeys {
        /// The snapshot.
        snapshot: String,
        /// The deleted keys to purge.
        keys: Vec<String>,
    },
    /// `SnapshotPurge`.
    SnapshotPurge {
        /// The snapshot.
        snapshot: String,
    },
}

impl fmt::Display for SnapshotRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotRequest::CreateKey { key } => write!(f, "CreateKey {key}"),
            SnapshotRequest::CreateSnapshot { snapshot } => write!(f, "CreateSnapshot {snapshot}"),
            SnapshotRequest::PurgeKeys { snapshot, keys } => {
                write!(f, "PurgeKeys {keys:?} from {snapshot}")
            }
            SnapshotRequest::SnapshotPurge { snapshot } => write!(f, "SnapshotPurge {snapshot}"),
        }
    }
}

/// What a response writes at flush time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Rows for the active DB's batch.
    Rows(WriteBatch<OmRow>),
    /// Checkpoint the active DB into the snapshot's directory, then stage its row.
    CreateSnapshot {
        /// The snapshot.
        snapshot: String,
    },
    /// Purge `keys` from `from`'s DB (from the active DB when the apply found no snapshot
    /// row), and write the row with `lastTransactionInfo` = `record` into the batch.
    PurgeKeys {
        /// The snapshot whose DB is written; `None` writes the active DB.
        from: Option<String>,
        /// The keys.
        keys: Vec<String>,
        /// The index recorded in the snapshot's row, when the Java records one.
        record: Option<u64>,
    },
    /// Purge the snapshot: directory, row (and at flush, when so, the bookkeeping).
    PurgeSnapshot {
        /// The snapshot.
        snapshot: String,
    },
    /// An error response: `checkAndUpdateDB` writes nothing.
    Nothing,
}

/// A response waiting in the double buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapResponse {
    /// Log index.
    pub index: u64,
    /// Term.
    pub term: u64,
    /// What its flush does.
    pub effect: Effect,
}

impl Indexed for SnapResponse {
    fn index(&self) -> u64 {
        self.index
    }
}

impl SnapResponse {
    /// Whether it is a snapshot purge (5feb9eacd83 puts one alone in its batch).
    pub fn is_snapshot_purge(&self) -> bool {
        matches!(self.effect, Effect::PurgeSnapshot { .. })
    }

    /// Whether it is a snapshot create (alone in its batch from 6fe2ab80115 on).
    pub fn is_snapshot_create(&self) -> bool {
        matches!(self.effect, Effect::CreateSnapshot { .. })
    }
}

/// Why a flush stopped inside `addToDBBatch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// An exception: `addToBatch` terminates the OM.
    Terminate(Failure),
    /// The plan's crash fired: where.
    Crash(&'static str),
}

/// Where a plan's crash kills the OM process inside a flush, before its batch commits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// No crash.
    Never,
    /// Right after a snapshot purge deletes the checkpoint directory.
    AfterDirDelete,
    /// Right after a snapshot create's new checkpoint directory is complete (RocksDB renames
    /// it into place whole), before the cleanup.
    AfterCheckpoint,
    /// After a snapshot create's `addToDBBatch` returned (checkpoint and unbatched cleanup
    /// done), before its batch commits.
    BeforeCreateCommit,
}

/// `validateAndUpdateCache` of `request` at `index`, on the apply thread. `Err` is a runtime
/// exception out of it (a snapshot purge's, before HDDS-10408), which `runCommand` turns into
/// the OM's termination.
pub fn apply(
    snaps: &Snapshots,
    store: &Store<OmRow>,
    actor: &Actor,
    index: u64,
    term: u64,
    request: &SnapshotRequest,
) -> Result<SnapResponse, Failure> {
    let (java, c) = (snaps.java(), snaps.cites());
    let effect = match request {
        SnapshotRequest::CreateKey { key } => {
            let cc = c.creates();
            let row = OmRow::Key {
                size: 10,
                update_id: index,
            };
            let mut rows = WriteBatch::new();
            rows.put(OPEN_KEY_TABLE, key, row);
            let java = cc
                .key_request
                .expect("a model whose log has key writes cites OMKeyCreateRequest");
            actor.step_with(java, || format!("index {index} {request}: open {key}"));
            Effect::Rows(rows)
        }
        SnapshotRequest::CreateSnapshot { snapshot } => {
            let cc = c.creates();
            store.cache_put(
                actor,
                cc.create_request,
                SNAPSHOT_INFO_TABLE,
                snapshot,
                OmRow::Snapshot { last_tx: 0 },
            );
            Effect::CreateSnapshot {
                snapshot: snapshot.clone(),
            }
        }
        SnapshotRequest::PurgeKeys { snapshot, keys } => {
            let info = store.get(
                actor,
                c.purges().purge_keys_request,
                SNAPSHOT_INFO_TABLE,
                snapshot,
            );
            match (info, java.purge_keys_apply) {
                (None, PurgeKeysApply::MayBeAbsent) => {
                    actor.step_with(c.purges().purge_keys_request, || {
                        format!(
                            "index {index} {request}: no row, the response purges the active DB"
                        )
                    });
                    Effect::PurgeKeys {
                        from: None,
                        keys: keys.clone(),
                        record: None,
                    }
                }
                (None, _) => {
                    actor.step_with(c.purges().purge_keys_request, || {
                        format!("index {index} {request}: snapshot not found: error response")
                    });
                    Effect::Nothing
                }
                (Some(_), PurgeKeysApply::RequiredAndRecorded) => {
                    let row = OmRow::Snapshot { last_tx: index };
                    store.cache_put(
                        actor,
                        c.purges().purge_keys_request,
                        SNAPSHOT_INFO_TABLE,
                        snapshot,
                        row,
                    );
                    Effect::PurgeKeys {
                        from: Some(snapshot.clone()),
                        keys: keys.clone(),
                        record: Some(index),
                    }
                }
                (Some(_), _) => {
                    actor.step_with(c.purges().purge_keys_request, || {
                        format!("index {index} {request}")
                    });
                    Effect::PurgeKeys {
                        from: Some(snapshot.clone()),
                        keys: keys.clone(),
                        record: None,
                    }
                }
            }
        }
        // Before HDDS-10524 no tombstone: a second purge can still read the row.
        SnapshotRequest::SnapshotPurge { snapshot } if !java.purge.tombstone => {
            super::deleting_service::apply_purge(snaps, store, actor, index, snapshot)?;
            Effect::PurgeSnapshot {
                snapshot: snapshot.clone(),
            }
        }
        SnapshotRequest::SnapshotPurge { snapshot } => {
            if store
                .get(
                    actor,
                    c.purges().purge_request,
                    SNAPSHOT_INFO_TABLE,
                    snapshot,
                )
                .is_none()
            {
                actor.step_with(c.purges().purge_request, || {
                    format!("index {index} {request}: no row, purged before: skip")
                });
            } else {
                snaps.mark_purge_applied(snapshot);
                // 23f3e5b2e11^: `updateSnapshotChainAndCache` drops the id, then
                // `invalidateCacheEntry` closes the DB.
                if java.bookkeeping.id_map == Stage::Apply {
                    snaps.remove_id(actor, snapshot);
                }
                if java.bookkeeping.invalidate == Stage::Apply {
                    snaps.invalidate(actor, snapshot);
                }
                store.cache_delete(
                    actor,
                    c.purges().purge_request,
                    SNAPSHOT_INFO_TABLE,
                    snapshot,
                );
            }
            Effect::PurgeSnapshot {
                snapshot: snapshot.clone(),
            }
        }
    };
    Ok(SnapResponse {
        index,
        term,
        effect,
    })
}

/// The keys of `tables`' `deletedTable` (the snapshot's bucket is the only one modelled).
pub(super) fn deleted_keys(tables: &OmTables) -> Vec<String> {
    tables
        .iter()
        .filter(|(t, _, _)| *t == DELETED_TABLE)
        .map(|(_, k, _)| k.to_string())
        .collect()
}

/// `OMSnapshotCreateResponse.addToDBBatch`'s `putWithBatch` of the snapshot's row.
fn stage_create_row(
    actor: &Actor,
    create: &CreateRevision,
    snapshot: &str,
    batch: &mut WriteBatch<OmRow>,
) {
    actor.step_with(create.create_response, || {
        format!("snapshot {snapshot}'s row staged")
    });
    batch.put(
        SNAPSHOT_INFO_TABLE,
        snapshot,
        OmRow::Snapshot { last_tx: 0 },
    );
}

/// The response's `addToDBBatch`, on the flush thread: writes to snapshot DBs and deletes of
/// directories happen at once; the active DB's rows go into `batch`. `crash` is the plan's
/// fault, for this response.
pub fn add_to_batch(
    snaps: &Snapshots,
    store: &Store<OmRow>,
    actor: &Actor,
    response: &SnapResponse,
    batch: &mut WriteBatch<OmRow>,
    crash: Crash,
) -> Result<(), Stop> {
    let (java, c) = (snaps.java(), snaps.cites());
    match &response.effect {
        Effect::Nothing => {}
        Effect::Rows(rows) => batch.append(rows.clone()),
        Effect::CreateSnapshot { snapshot } => {
            let create = java.create;
            if create.row == RowStaged::BeforeCheckpoint {
                stage_create_row(actor, &create, snapshot, batch);
            }
            // `createOmSnapshotCheckpoint`: the checkpoint or the existing directory, then
            // (from 2f71ee00ab0 on) the cleanup in both cases.
            let deleted: Vec<String> = if snaps.dirs.exists(snapshot) {
                // A replay after a crash, or a follower that installed the directory.
                match create.existing {
                    ExistingDir::Reused => actor.step_with(create.checkpoint, || {
                        format!("{snapshot}'s directory exists: reuse it")
                    }),
                    ExistingDir::CheckpointFails(swallowed) => actor.step_with(swallowed, || {
                        format!(
                            "getSnapshot onto {snapshot}'s existing directory: RocksDB refuses (InvalidArgument: Directory exists), the IOException is logged and the checkpoint is null; the directory stays"
                        )
                    }),
                    ExistingDir::Throws => {
                        return Err(Stop::Terminate(format!(
                            "IOException: createCheckpoint {snapshot}: Directory exists"
                        )))
                    }
                }
                match create.cleanup {
                    CreateCleanup::Keep => Vec::new(),
                    // The cleanup's iterator reads the active DB as it is now.
                    CreateCleanup::Unbatched | CreateCleanup::Batched => {
                        deleted_keys(&store.scan(actor, create.checkpoint))
                    }
                }
            } else {
                // The checkpoint is the active DB as the cleanup's iterator then reads it
                // (only the flush thread writes it).
                let checkpoint = store.checkpoint(actor, create.checkpoint);
                let deleted = deleted_keys(&checkpoint);
                snaps.dirs.create(snapshot, checkpoint);
                if crash == Crash::AfterCheckpoint {
                    return Err(Stop::Crash(
                        "the OM process dies after the checkpoint directory is created, before the cleanup and the commit",
                    ));
                }
                deleted
            };
            match (create.cleanup, deleted.last()) {
                (CreateCleanup::Keep, _) | (_, None) => {}
                // `deleteRangeInclusive`: `deleteRange(bucket prefix, last key)`, then
                // `delete(last key)`; two writes, each durable at once.
                (CreateCleanup::Unbatched, Some(last)) => {
                    store.delete_range(actor, create.checkpoint, DELETED_TABLE, "", last);
                    store.delete(actor, create.checkpoint, DELETED_TABLE, last);
                }
                (CreateCleanup::Batched, Some(_)) => {
                    for key in &deleted {
                        batch.delete(DELETED_TABLE, key);
                    }
                }
            }
            if create.row == RowStaged::AfterCheckpoint {
                stage_create_row(actor, &create, snapshot, batch);
            }
            if crash == Crash::BeforeCreateCommit {
                return Err(Stop::Crash(
                    "the OM process dies after the create's addToDBBatch, before its batch commits",
                ));
            }
        }
        Effect::PurgeKeys {
            from: None, keys, ..
        } => {
            for key in keys {
                batch.delete(DELETED_TABLE, key);
            }
        }
        Effect::PurgeKeys {
            from: Some(snapshot),
            keys,
            record,
        } => {
            if snaps.purge_applied(snapshot) {
                actor.probe(&PURGE_APPLIED_BEFORE_KEYS_FLUSHED);
            }
            if java.lookup == Lookup::ByNameCacheFirst
                && store
                    .get(
                        actor,
                        c.purges().get_snapshot,
                        SNAPSHOT_INFO_TABLE,
                        snapshot,
                    )
                    .is_none()
            {
                return Err(Stop::Terminate(format!(
                    "OMException KEY_NOT_FOUND: Snapshot '{snapshot}' is not found."
                )));
            }
            let handle = snaps
                .get(actor, store, snapshot)
                .map_err(|why| Stop::Terminate(format!("IllegalStateException: {why}")))?;
            let mut deletes = WriteBatch::new();
            for key in keys {
                deletes.delete(DELETED_TABLE, key);
            }
            snaps
                .commit(actor, &handle, deletes)
                .map_err(Stop::Terminate)?;
            if let Some(index) = record {
                batch.put(
                    SNAPSHOT_INFO_TABLE,
                    snapshot,
                    OmRow::Snapshot { last_tx: *index },
                );
            }
        }
        Effect::PurgeSnapshot { snapshot } => {
            if store
                .get_skip_cache(
                    actor,
                    c.purges().purge_response,
                    SNAPSHOT_INFO_TABLE,
                    snapshot,
                )
                .is_none()
            {
                return Ok(());
            }
            // 23f3e5b2e11: `invalidateCacheEntry`, then `removeFromSnapshotIdToTable`.
            if java.bookkeeping.invalidate == Stage::Flush {
                snaps.invalidate(actor, snapshot);
            }
            if java.bookkeeping.id_map == Stage::Flush {
                snaps.remove_id(actor, snapshot);
            }
            snaps
                .dirs
                .delete(actor, c.purges().purge_response, snapshot);
            if crash == Crash::AfterDirDelete {
                return Err(Stop::Crash(
                    "the OM process dies after the directory deletion, before the batch commits",
                ));
            }
            batch.delete(SNAPSHOT_INFO_TABLE, snapshot);
        }
    }
    Ok(())
}
