//! OM snapshots as the double buffer's flush thread meets them: each snapshot's own RocksDB
//! in its checkpoint directory, the `SnapshotChainManager`'s id map, the `SnapshotCache` of
//! open snapshot DBs and its loader, and the requests that purge a snapshot's deleted keys and
//! then the snapshot itself (`OMKeyPurgeRequest`, `OMSnapshotPurgeRequest`).
//!
//! The Java changed under these models: HDDS-11152 (23f3e5b2e11) moved what the purge's apply
//! did to its flush and changed how the flush finds a snapshot, HDDS-11440 (d2210657055) made
//! the purge of keys record its index in the snapshot's row, HDDS-11453 (5feb9eacd83) put the
//! snapshot purge in a batch of its own. The snapshot create's flush changed too: 2f71ee00ab0
//! stages the row before the checkpoint and cleans the active DB's `deletedTable` unbatched
//! (whether or not the directory already exists), HDDS-11183 (1996f3aeb4e) moved that cleanup
//! into the batch. What the flush does when the checkpoint directory already exists (a replay
//! after a crash between the checkpoint and the commit) is an [`ExistingDir`]: up to HDDS-8685
//! (9b59ade990a) `getSnapshot` fails onto it and the failure is swallowed, from then on the
//! directory is reused. [`Java`] says which behaviour a model follows, knob by knob, with the
//! create's flush as a [`CreateRevision`] value (the behaviour and the citations of one
//! commit), and [`Cites`] which commit's other methods its trace steps cite; the scenarios
//! choose.
//!
//! A snapshot is named by its table key (`/vol1/bucket1/s1` is `s1` here): the Java's
//! snapshot id and table key are one name, and the id map is the set of names it maps.
//!
//! Abstracted away (each scenario's Abstractions table says why no verdict depends on it):
//! the snapshot chain's order and neighbours (modelled apart, with the `SnapshotInfo` rows'
//! previous ids, in [`chain`]), the next snapshot's deep-clean flags, exclusive
//! sizes, `SnapshotCache` reference counts and its soft size limit, the SST filtering service
//! and the snapshot lock around the directory deletion, table-cache eviction.

pub mod bootstrap;
pub mod chain;
pub mod deleting_service;
pub mod node;
pub mod reference;
pub mod requests;
pub mod restarts;

pub use deleting_service::PurgeRevision;

use super::double_buffer::BufferCites;
use super::{OmRow, OmTables};
use crate::citation::{java, Citation};
use crate::kit::store::{Store, WriteBatch};
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex};
use std::collections::{BTreeMap, BTreeSet};

/// Which Java the snapshot code follows, knob by knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Java {
    /// What `OMKeyPurgeRequest.validateAndUpdateCache` does with the snapshot it purges from.
    pub purge_keys_apply: PurgeKeysApply,
    /// How `OMKeyPurgeResponse.addToDBBatch` finds the snapshot.
    pub lookup: Lookup,
    /// How the `SnapshotCache` loader reads the snapshot's row.
    pub loader: Loader,
    /// Where the snapshot purge drops the snapshot from the id map and the snapshot cache.
    pub bookkeeping: Bookkeeping,
    /// How `flushCurrentBuffer` splits the ready buffer into batches.
    pub split: Split,
    /// A snapshot create's flush, as at one Java commit.
    pub create: CreateRevision,
    /// What a snapshot purge's apply does with a snapshot an earlier purge took (a second
    /// purge of it), as at one Java commit.
    pub purge: PurgeRevision,
}

/// What `createOmSnapshotCheckpoint` does to the active DB's `deletedTable` rows of the
/// snapshot's bucket (they now live in the snapshot). From 2f71ee00ab0 on it does so in both
/// of its branches: after a new checkpoint, and when the directory already exists (a replay
/// of the create); the rows are those the active DB holds when it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateCleanup {
    /// 4d09962a659 and before: nothing.
    Keep,
    /// 2f71ee00ab0, 1ae0401b1ac (and up to 1996f3aeb4e^): `deleteRangeInclusive`, unbatched and
    /// durable at once, before the create's batch commits.
    Unbatched,
    /// 1996f3aeb4e (HDDS-11183) on: `deleteWithBatch` into the create's own batch.
    Batched,
}

/// Where `OMSnapshotCreateResponse.addToDBBatch` stages the snapshot's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStaged {
    /// 4d09962a659 and before: `createOmSnapshotCheckpoint`, then `putWithBatch`.
    AfterCheckpoint,
    /// 2f71ee00ab0 on: `putWithBatch`, then `createOmSnapshotCheckpoint` (the response says so
    /// on purpose, for the compaction DAG's listeners).
    BeforeCheckpoint,
}

/// What `createOmSnapshotCheckpoint` does when the snapshot's checkpoint directory already
/// exists (the create replayed after a crash between its checkpoint and its batch's commit).
/// The cleanup and the row follow in every case but `Throws`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExistingDir {
    /// 9b59ade990a^ and before: `getSnapshot` tries a new checkpoint there; RocksDB's
    /// `CreateCheckpoint` refuses with `InvalidArgument` ("Directory exists"), which does not
    /// close the DB (`closeOnError` closes on `Corruption` and `IOError` only); the cited
    /// `RDBCheckpointManager.createCheckpoint` catches the `IOException`, logs it and returns
    /// null, which the response ignores. The directory, from the crashed flush, stays.
    CheckpointFails(&'static Citation),
    /// 9b59ade990a (HDDS-8685) on: `Files.exists`, then a `RocksDBCheckpoint` over the
    /// directory as it is.
    Reused,
    /// No commit: the Jira's one-line story, in which the failed checkpoint reaches
    /// `addToBatch` and terminates the OM.
    Throws,
}

/// A snapshot create's flush (`OMSnapshotCreateResponse.addToDBBatch` and
/// `OmSnapshotManager.createOmSnapshotCheckpoint`) as at one Java commit, with that commit's
/// citations. The row is staged into the batch either way, so its place against the
/// checkpoint shows in the trace only: a checkpoint holds what is committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreateRevision {
    /// The commit, for listings and docs.
    pub commit: &'static str,
    /// The `deletedTable` cleanup.
    pub cleanup: CreateCleanup,
    /// Where the row is staged.
    pub row: RowStaged,
    /// What it does when the checkpoint directory already exists.
    pub existing: ExistingDir,
    /// `OMSnapshotCreateResponse.addToDBBatch` at that commit.
    pub create_response: &'static Citation,
    /// `OmSnapshotManager.createOmSnapshotCheckpoint` at that commit.
    pub checkpoint: &'static Citation,
}

impl CreateRevision {
    /// 67e67250bd0 (HDDS-7279's parent): a checkpoint, then the row; no cleanup, no check
    /// for an existing directory (`getSnapshot` onto one fails, is logged, and the directory
    /// stays).
    pub const HDDS_7279_PARENT: CreateRevision = CreateRevision {
        commit: "67e67250bd0 (HDDS-7279's parent)",
        cleanup: CreateCleanup::Keep,
        row: RowStaged::AfterCheckpoint,
        existing: ExistingDir::CheckpointFails(
            &java::hdds_7279_parent::RDBCheckpointManager::createCheckpoint__String_String,
        ),
        create_response: &java::hdds_7279_parent::OMSnapshotCreateResponse::addToDBBatch,
        checkpoint: &java::hdds_7279_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
    };

    /// 6fe2ab80115 (HDDS-7279) and 4d09962a659 (HDDS-7906): the create's flush as at the
    /// parent (neither touches it).
    pub const HDDS_7279: CreateRevision = CreateRevision {
        commit: "6fe2ab80115 (HDDS-7279), 4d09962a659 (HDDS-7906): as 67e67250bd0",
        ..Self::HDDS_7279_PARENT
    };

    /// 534160f96c5 (HDDS-8685's parent): the row, then the checkpoint, then the unbatched
    /// cleanup; onto an existing directory `getSnapshot` fails and is swallowed, and the
    /// cleanup still runs.
    pub const HDDS_8685_PARENT: CreateRevision = CreateRevision {
        commit: "534160f96c5 (HDDS-8685's parent)",
        cleanup: CreateCleanup::Unbatched,
        row: RowStaged::BeforeCheckpoint,
        existing: ExistingDir::CheckpointFails(
            &java::hdds_8685_parent::RDBCheckpointManager::createCheckpoint__String_String,
        ),
        create_response: &java::hdds_8685_parent::OMSnapshotCreateResponse::addToDBBatch,
        checkpoint: &java::hdds_8685_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
    };

    /// 9b59ade990a (HDDS-8685): as the parent, but an existing directory is reused
    /// (`Files.exists`); the cleanup still runs, the compaction-log append is skipped.
    pub const HDDS_8685: CreateRevision = CreateRevision {
        commit: "9b59ade990a (HDDS-8685)",
        existing: ExistingDir::Reused,
        checkpoint: &java::hdds_8685::OmSnapshotManager::createOmSnapshotCheckpoint,
        ..Self::HDDS_8685_PARENT
    };

    /// 2f71ee00ab0 (HDDS-8681's parent): the row, then the checkpoint (or the existing
    /// directory), then in both cases the unbatched cleanup.
    pub const HDDS_8681_PARENT: CreateRevision = CreateRevision {
        commit: "2f71ee00ab0 (HDDS-8681's parent)",
        cleanup: CreateCleanup::Unbatched,
        row: RowStaged::BeforeCheckpoint,
        existing: ExistingDir::Reused,
        create_response: &java::hdds_8681_parent::OMSnapshotCreateResponse::addToDBBatch,
        checkpoint: &java::hdds_8681_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
    };

    /// 1ae0401b1ac (HDDS-8681): the create's flush as at the parent (the fix changes the
    /// servlet only).
    pub const HDDS_8681: CreateRevision = CreateRevision {
        commit: "1ae0401b1ac (HDDS-8681): as 2f71ee00ab0",
        ..Self::HDDS_8681_PARENT
    };

    /// 1996f3aeb4e (HDDS-11183): the row, then the checkpoint (or the existing directory),
    /// then in both cases the cleanup into the create's batch. 5659b7e90e7 and 23f3e5b2e11
    /// (HDDS-11152 and its parent) have it unchanged.
    pub const HDDS_11183: CreateRevision = CreateRevision {
        commit: "1996f3aeb4e (HDDS-11183)",
        cleanup: CreateCleanup::Batched,
        row: RowStaged::BeforeCheckpoint,
        existing: ExistingDir::Reused,
        create_response: &java::hdds_11183::OMSnapshotCreateResponse::addToDBBatch,
        checkpoint: &java::hdds_11183::OmSnapshotManager::createOmSnapshotCheckpoint,
    };
}

impl Java {
    /// The knobs of a log without purges: `split` and `create` as given; the purge knobs are
    /// never read, and take their earliest values.
    pub const fn without_purges(split: Split, create: CreateRevision) -> Self {
        Self {
            purge_keys_apply: PurgeKeysApply::MayBeAbsent,
            lookup: Lookup::ByNameCacheFirst,
            loader: Loader::CacheFirst,
            bookkeeping: Bookkeeping::AT_APPLY,
            split,
            create,
            purge: PurgeRevision::HDDS_10524,
        }
    }
}

/// `OMKeyPurgeRequest.validateAndUpdateCache`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PurgeKeysApply {
    /// 23f3e5b2e11^: `getSnapshotInfoTable().get(name)`, which may be null (the response
    /// then purges the keys from the active DB).
    MayBeAbsent,
    /// 23f3e5b2e11: `SnapshotUtils.getSnapshotInfo`, an error response when absent.
    Required,
    /// d2210657055 on (5feb9eacd83^): as `Required`, then the row with its
    /// `lastTransactionInfo` set to this index goes into the table cache, and the response
    /// writes it into the batch.
    RequiredAndRecorded,
}

/// How the purge-keys response finds its snapshot at flush time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// 23f3e5b2e11^: `getSnapshot(volume, bucket, name)`: the row through the table cache
    /// (absent: `KEY_NOT_FOUND`), then the snapshot cache.
    ByNameCacheFirst,
    /// 23f3e5b2e11: `getSnapshot(snapshotId)`: straight to the snapshot cache.
    ById,
}

/// How the `SnapshotCache` loader reads the snapshot's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loader {
    /// 23f3e5b2e11^: through the table cache only.
    CacheFirst,
    /// 23f3e5b2e11: through the table cache, then `getSkipCache`.
    SkipCacheFallback,
}

/// Where a snapshot purge drops the snapshot from the id map and where it closes its DB:
/// 23f3e5b2e11 moved both, from `OMSnapshotPurgeRequest.validateAndUpdateCache` to
/// `OMSnapshotPurgeResponse.addToDBBatch`; they are separate knobs so that a variant can move
/// one alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bookkeeping {
    /// Where `SnapshotCache.invalidate` closes the DB.
    pub invalidate: Stage,
    /// Where the id leaves `snapshotIdToTableKey`.
    pub id_map: Stage,
}

/// The thread a snapshot purge's bookkeeping step runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// At apply (`validateAndUpdateCache`, the apply thread).
    Apply,
    /// At flush (`addToDBBatch`, the flush thread).
    Flush,
}

impl Bookkeeping {
    /// 23f3e5b2e11^: both at apply.
    pub const AT_APPLY: Bookkeeping = Bookkeeping {
        invalidate: Stage::Apply,
        id_map: Stage::Apply,
    };
    /// 23f3e5b2e11: both at flush.
    pub const AT_FLUSH: Bookkeeping = Bookkeeping {
        invalidate: Stage::Flush,
        id_map: Stage::Flush,
    };
}

/// How the ready buffer is split into batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// 6fe2ab80115^: the whole ready buffer is one batch.
    OneBatch,
    /// 6fe2ab80115 as committed: every response alone in its batch (the split's test,
    /// `getCreateSnapshotResponse() != null`, holds for every proto2 response).
    Every,
    /// 4d09962a659 to 5feb9eacd83^: a snapshot create alone in its batch.
    AtCreate,
    /// 5feb9eacd83: a snapshot create or a snapshot purge alone in its batch.
    AtCreateAndPurge,
}

/// The methods a log with key writes and snapshot creates cites, besides those of its
/// [`CreateRevision`].
#[derive(Clone, Copy, Debug)]
pub struct CreateCites {
    /// `OMKeyCreateRequest.validateAndUpdateCache`, for logs with key writes.
    pub key_request: Option<&'static Citation>,
    /// `OMSnapshotCreateRequest.validateAndUpdateCache`.
    pub create_request: &'static Citation,
}

/// The Java methods a model's steps cite: the commit each comes from follows the knobs.
#[derive(Clone, Copy, Debug)]
pub struct Cites {
    /// `OzoneManagerDoubleBuffer.addToBatch` (where an exception terminates the OM).
    pub add_to_batch: &'static Citation,
    /// `OzoneManagerDoubleBuffer.flushBatch` (the commit).
    pub flush_batch: &'static Citation,
    /// `OzoneManagerDoubleBuffer.splitReadyBufferAtCreateSnapshot`.
    pub split: &'static Citation,
    /// The double buffer's own methods (`add`, `stop`, the flush loop, the swap).
    pub buffer: &'static BufferCites,
    /// For logs with snapshot purges.
    pub purge: Option<&'static PurgeCites>,
    /// For logs with key writes and snapshot creates.
    pub create: Option<&'static CreateCites>,
}

impl Cites {
    /// The purge methods; a model whose log purges cites them.
    pub fn purges(&self) -> &'static PurgeCites {
        self.purge
            .expect("a model whose log has snapshot purges cites their methods")
    }

    /// The create methods; a model whose log creates cites them.
    pub fn creates(&self) -> &'static CreateCites {
        self.create
            .expect("a model whose log has key writes or snapshot creates cites their methods")
    }
}

/// The methods a log with snapshot purges cites.
#[derive(Clone, Copy, Debug)]
pub struct PurgeCites {
    /// `OMKeyPurgeRequest.validateAndUpdateCache`.
    pub purge_keys_request: &'static Citation,
    /// `OMKeyPurgeResponse.addToDBBatch`.
    pub purge_keys_response: &'static Citation,
    /// `OmSnapshotManager.getSnapshot` as the response calls it.
    pub get_snapshot: &'static Citation,
    /// `OmSnapshotManager.createCacheLoader` (the loader).
    pub loader: &'static Citation,
    /// How the loader reads the row (`SnapshotUtils.getSnapshotInfo` or the manager's own).
    pub loader_info: &'static Citation,
    /// `SnapshotCache.get`.
    pub cache_get: &'static Citation,
    /// `SnapshotCache.invalidate`.
    pub cache_invalidate: &'static Citation,
    /// `SnapshotUtils.checkSnapshotDirExist`.
    pub dir_exists: &'static Citation,
    /// `OMSnapshotPurgeRequest.validateAndUpdateCache`.
    pub purge_request: &'static Citation,
    /// `OMSnapshotPurgeResponse.addToDBBatch`.
    pub purge_response: &'static Citation,
    /// What drops the id: `SnapshotChainManager.deleteSnapshot` or `removeFromSnapshotIdToTable`.
    pub chain_remove: &'static Citation,
}

/// A snapshot's own DB: its `deletedTable` is what the purge of keys deletes from.
pub type SnapshotDb = Store<OmRow>;

/// The snapshot checkpoint directories on one OM's disk (`db.snapshots/checkpointState`):
/// they outlive restarts.
pub struct Dirs {
    dirs: Mutex<BTreeMap<String, Arc<SnapshotDb>>>,
}

impl Dirs {
    /// The directories `initial` names, each with its DB.
    pub fn new(initial: impl IntoIterator<Item = (String, Arc<SnapshotDb>)>) -> Self {
        Self {
            dirs: Mutex::labelled("snapshot dirs", initial.into_iter().collect()),
        }
    }

    /// The directory's DB, if the directory exists.
    fn open(&self, name: &str) -> Option<Arc<SnapshotDb>> {
        self.dirs.lock().get(name).cloned()
    }

    /// `FileUtils.deleteDirectory`: the directory is gone at once (no batch, no undo).
    pub fn delete(&self, actor: &Actor, java: &'static Citation, name: &str) {
        let existed = self.dirs.lock().remove(name).is_some();
        actor.step_with(java, || {
            if existed {
                format!("delete snapshot directory {name}")
            } else {
                format!("delete snapshot directory {name}: already gone")
            }
        });
    }

    /// A new checkpoint directory holding `checkpoint` (a RocksDB checkpoint of the active DB).
    pub fn create(&self, name: &str, checkpoint: OmTables) -> Arc<SnapshotDb> {
        let db = Arc::new(SnapshotDb::with_state(checkpoint, None));
        self.dirs.lock().insert(name.to_string(), Arc::clone(&db));
        db
    }

    /// The names of the directories that exist (a listing of `checkpointState`).
    pub fn names(&self) -> Vec<String> {
        self.dirs.lock().keys().cloned().collect()
    }

    /// The committed rows of `name`'s DB, if its directory exists (a copy of its files).
    pub fn content(&self, name: &str) -> Option<OmTables> {
        let db = self.dirs.lock().get(name).cloned();
        db.map(|db| db.durable())
    }

    /// Whether the directory exists now (`Files.exists`).
    pub fn exists(&self, name: &str) -> bool {
        self.dirs.lock().contains_key(name)
    }
}

/// An open snapshot DB, as `SnapshotCache.get` hands it out.
#[derive(Clone)]
pub struct Handle {
    name: String,
    generation: u64,
    db: Arc<SnapshotDb>,
}

#[derive(Default)]
struct Memory {
    /// `SnapshotChainManager.snapshotIdToTableKey`.
    ids: BTreeSet<String>,
    /// `SnapshotCache.dbMap`: name -> its open DB.
    open: BTreeMap<String, Handle>,
    /// Generations closed by `invalidate`.
    closed: BTreeSet<u64>,
    next_generation: u64,
}

/// Why a snapshot could not be used: the exception the Java throws.
pub type Failure = String;

/// One OM's in-memory snapshot state: the chain's id map and the snapshot cache. It is lost
/// at a restart; [`Snapshots::new`] rebuilds the id map from the durable rows.
pub struct Snapshots {
    memory: Mutex<Memory>,
    /// The directories on disk.
    pub dirs: Arc<Dirs>,
    java: Java,
    cites: &'static Cites,
    /// Ghost: snapshots a flush opened after their directory had been deleted.
    opened_purged: Ghost<Vec<String>>,
    /// Ghost: snapshots whose purge was applied.
    purge_applied: Ghost<BTreeSet<String>>,
}

impl Snapshots {
    /// The state of an OM that knows the snapshots `ids` (its `snapshotInfoTable` rows), with
    /// the DBs of `open` already in the snapshot cache.
    pub fn new(
        dirs: Arc<Dirs>,
        ids: impl IntoIterator<Item = String>,
        open: &[&str],
        java: Java,
        cites: &'static Cites,
    ) -> Self {
        let mut memory = Memory {
            ids: ids.into_iter().collect(),
            ..Memory::default()
        };
        for name in open {
            if let Some(db) = dirs.open(name) {
                memory.next_generation += 1;
                let handle = Handle {
                    name: (*name).to_string(),
                    generation: memory.next_generation,
                    db,
                };
                memory.open.insert(handle.name.clone(), handle);
            }
        }
        Self {
            memory: Mutex::labelled("snapshot cache", memory),
            dirs,
            java,
            cites,
            opened_purged: Ghost::new(Vec::new()),
            purge_applied: Ghost::new(BTreeSet::new()),
        }
    }

    /// Note that the purge of `name` was applied (ghost).
    pub fn mark_purge_applied(&self, name: &str) {
        self.purge_applied.with(|p| p.insert(name.to_string()));
    }

    /// Whether the purge of `name` was applied (ghost).
    pub fn purge_applied(&self, name: &str) -> bool {
        self.purge_applied.with(|p| p.contains(name))
    }

    /// The knobs.
    pub fn java(&self) -> Java {
        self.java
    }

    /// The citations.
    pub fn cites(&self) -> &'static Cites {
        self.cites
    }

    /// Snapshots opened after their directory was deleted (ghost).
    pub fn opened_purged(&self) -> Vec<String> {
        self.opened_purged.get()
    }

    /// `SnapshotCache.get`: the open DB, or the loader's. The loader runs inside the cache
    /// map's `compute` (one lock held throughout, as here); its failures reach the caller as
    /// `IllegalStateException`.
    pub fn get(&self, actor: &Actor, store: &Store<OmRow>, name: &str) -> Result<Handle, Failure> {
        let c = self.cites.purges();
        let mut m = self.memory.lock();
        if let Some(handle) = m.open.get(name) {
            actor.step_with(c.cache_get, || {
                format!("{name} is open in the snapshot cache")
            });
            return Ok(handle.clone());
        }
        actor.step_with(c.cache_get, || format!("{name} not open: load it"));
        if !m.ids.contains(name) {
            let why = format!("IOException: No snapshot exist with snapshotId: {name}");
            actor.step_with(c.loader, || format!("id map has no {name}: {why}"));
            return Err(why);
        }
        let mut info = store.get(actor, c.loader_info, super::SNAPSHOT_INFO_TABLE, name);
        if info.is_none() && self.java.loader == Loader::SkipCacheFallback {
            info = store.get_skip_cache(actor, c.loader_info, super::SNAPSHOT_INFO_TABLE, name);
        }
        if info.is_none() {
            let why = format!("OMException: Snapshot '{name}' is not found.");
            actor.step_with(c.loader_info, || why.clone());
            return Err(why);
        }
        let in_cache = matches!(
            store.cache_entry(actor, c.loader, super::SNAPSHOT_INFO_TABLE, name),
            Some(Some(_))
        );
        let db = match self.dirs.open(name) {
            Some(db) => db,
            None => {
                self.opened_purged.with(|o| o.push(name.to_string()));
                if in_cache {
                    let why = format!(
                        "IOException: snapshot directory of {name} does not exist (the row is in the table cache: wait, then fail)"
                    );
                    actor.step_with(c.dir_exists, || why.clone());
                    return Err(why);
                }
                actor.step_with(c.loader, || {
                    format!(
                        "no directory for {name}: createIfMissing opens an empty DB in its place"
                    )
                });
                // `loadDB` with `createIfMissing`: an empty DB where the directory was.
                self.dirs.create(name, OmTables::default())
            }
        };
        m.next_generation += 1;
        let handle = Handle {
            name: name.to_string(),
            generation: m.next_generation,
            db,
        };
        m.open.insert(name.to_string(), handle.clone());
        actor.step_with(c.loader, || {
            format!("{name} loaded into the snapshot cache")
        });
        Ok(handle)
    }

    /// `SnapshotCache.invalidate`: close the open DB (also while a flush holds it).
    pub fn invalidate(&self, actor: &Actor, name: &str) {
        let mut m = self.memory.lock();
        let closed = m.open.remove(name);
        if let Some(h) = &closed {
            m.closed.insert(h.generation);
        }
        actor.step_with(self.cites.purges().cache_invalidate, || match closed {
            Some(_) => format!("close {name}'s DB and drop it from the snapshot cache"),
            None => format!("{name} is not in the snapshot cache"),
        });
    }

    /// Whether the chain still has the snapshot (`SnapshotChainManager.hasNextPathSnapshot`'s
    /// membership check: the id map stands for the chain, which the purge's
    /// `deleteSnapshot` leaves together with the id map at the commits that ask).
    pub fn in_chain(&self, actor: &Actor, java: &'static Citation, name: &str) -> bool {
        let known = self.memory.lock().ids.contains(name);
        actor.step_with(java, || {
            if known {
                format!("{name} is in the snapshot chain")
            } else {
                format!("{name} is not in the snapshot chain")
            }
        });
        known
    }

    /// Drop the snapshot from the id map.
    pub fn remove_id(&self, actor: &Actor, name: &str) {
        let mut m = self.memory.lock();
        m.ids.remove(name);
        actor.step_with(self.cites.purges().chain_remove, || {
            format!("snapshotIdToTableKey drops {name}")
        });
    }

    /// Commit `batch` to an open snapshot DB; a DB closed since it was handed out fails.
    pub fn commit(
        &self,
        actor: &Actor,
        handle: &Handle,
        batch: WriteBatch<OmRow>,
    ) -> Result<(), Failure> {
        let m = self.memory.lock();
        if m.closed.contains(&handle.generation) {
            let why = format!("IOException: {}'s RocksDB is closed", handle.name);
            actor.step_with(self.cites.purges().purge_keys_response, || why.clone());
            return Err(why);
        }
        handle
            .db
            .commit(actor, self.cites.purges().purge_keys_response, batch);
        Ok(())
    }
}
