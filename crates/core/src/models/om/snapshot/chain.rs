//! The snapshot chain: `SnapshotChainManager`'s global and per-bucket chains of snapshots
//! (each with its previous and next), the `SnapshotInfo` rows that persist each snapshot's
//! previous ids, and the two requests that change them, a snapshot create and a snapshot
//! purge, on one OM with its apply thread and its double buffer's flush thread.
//!
//! [`Chain`] is the manager's in-memory state and its methods the Java's, one for one:
//! [`Chain::add`] (`addSnapshot`: `addSnapshotGlobal` then `addSnapshotPath`), [`Chain::delete`]
//! (`deleteSnapshot`), [`Chain::load`] (`loadFromSnapshotInfoTable`, what an OM start runs:
//! the rows in creation-time order, each through `addSnapshot`, which throws when a row's
//! previous is not in the chain yet). [`ChainOm`] runs the requests: the create's
//! `validateAndUpdateCache` reads the chain's tails, links the snapshot and puts its
//! `SnapshotInfo` into the table cache; the purge unlinks the snapshot and rewrites the next
//! snapshot's previous ids, at flush (`OMSnapshotPurgeResponse.cleanupSnapshotChain`, up to
//! HDDS-8665) or at apply (`OMSnapshotPurgeRequest.updateSnapshotChainAndCache`, from
//! HDDS-8665 on). [`ChainJava`] says which.
//!
//! `SnapshotInfo` is a mutable Java object: the table cache holds the object the create's
//! response will write, and up to HDDS-8665 `Table.get` hands out that same object
//! (`DelegatedCodec.CopyType.SHALLOW`, SnapshotInfo.java:56-63 at 5306f65603f), so a purge
//! that rewrites the next snapshot's previous id through it also changes what the create's
//! response writes. HDDS-8665 made `get` return a copy (`SnapshotInfo.copyObject`). The heap of
//! `Objects` keeps that identity: a row is serialized when it is put into a batch.
//!
//! Abstracted away: snapshot names stand for both the snapshot id and the table key; the
//! checkpoint directories, the snapshot cache and everything else a create or purge does
//! besides the chain and the rows (the other snapshot models hold them); `TransactionInfo`
//! (the plans restart only after every entry is flushed); each of `addSnapshot`,
//! `deleteSnapshot` and the two `hasNext…` reads is one atomic step, also where the Java does
//! not synchronize it (the finer interleavings of the parent are a superset; the race shown
//! needs none of them).

use super::Stage;
use crate::citation::Citation;
use crate::kit::store::{Store, Tables, WriteBatch};
use crate::models::om::double_buffer::{BufferCites, DoubleBuffer, Indexed};
use crate::models::om::SNAPSHOT_INFO_TABLE;
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::{Ghost, Witness};
use crate::sync::{Mutex, MutexGuard};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A `SnapshotInfo` as the chain reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// `snapshotPath` (`/volume/bucket`).
    pub path: String,
    /// `pathPreviousSnapshotId`.
    pub path_prev: Option<String>,
    /// `globalPreviousSnapshotId`.
    pub global_prev: Option<String>,
    /// `creationTime` (the order `loadFromSnapshotInfoTable` adds rows in).
    pub created: u64,
    /// `deepClean`: the `KeyDeletingService` deep cleaned the snapshot; a purge of its previous
    /// snapshot clears it so that the service cleans it again.
    pub deep_clean: bool,
    /// `sstFiltered`: the `SstFilteringService` dropped its SST files of other buckets.
    pub sst_filtered: bool,
    /// `exclusiveSize`, which `OMSnapshotSetPropertyRequest` adds to.
    pub exclusive_size: u64,
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |p: &Option<String>| p.clone().unwrap_or_else(|| "-".into());
        write!(
            f,
            "{{path {}, pathPrev {}, globalPrev {}, created {}",
            self.path,
            show(&self.path_prev),
            show(&self.global_prev),
            self.created
        )?;
        // The flags only when set: the chain's plans never set them.
        if self.deep_clean {
            write!(f, ", deepClean")?;
        }
        if self.sst_filtered {
            write!(f, ", sstFiltered")?;
        }
        if self.exclusive_size != 0 {
            write!(f, ", exclusiveSize {}", self.exclusive_size)?;
        }
        write!(f, "}}")
    }
}

/// `SnapshotChainInfo`: a snapshot's neighbours in one chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Link {
    prev: Option<String>,
    next: Option<String>,
}

/// `SnapshotChainManager`'s state: `globalSnapshotChain`, `snapshotChainByPath`,
/// `latestGlobalSnapshotId`, `latestSnapshotIdByPath`. Not `snapshotIdToTableKey`: a name
/// stands for its table key, and the purge's `getTableKey` looks up the next snapshot, which
/// is in the chain and so in that map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    global: BTreeMap<String, Link>,
    paths: BTreeMap<String, BTreeMap<String, Link>>,
    latest_global: Option<String>,
    latest_path: BTreeMap<String, String>,
}

/// An `IOException` ("Snapshot chain corruption. …") or a `NoSuchElementException`.
pub type ChainError = String;

impl Chain {
    /// [`loadFromSnapshotInfoTable`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::loadFromSnapshotInfoTable):
    /// every row, by creation time, through `addSnapshot`; the first failure fails the OM's
    /// start (an `IOException` out of the constructor at 57d8a4144a2^, a `RuntimeException`
    /// from [57d8a4144a2](crate::citation::java::hdds_8832::SnapshotChainManager::loadFromSnapshotInfoTable) on).
    pub fn load<'a>(
        rows: impl IntoIterator<Item = (&'a str, &'a Info)>,
    ) -> Result<Chain, ChainError> {
        let mut by_time: Vec<(&str, &Info)> = rows.into_iter().collect();
        by_time.sort_by_key(|(_, i)| i.created);
        let mut chain = Chain::default();
        for (id, info) in by_time {
            chain.add(id, info)?;
        }
        Ok(chain)
    }

    /// [`addSnapshot`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::addSnapshot):
    /// `addSnapshotGlobal`, then `addSnapshotPath`, then the table key. A failure of the path
    /// half leaves the global half in place, as in the Java. Unsynchronized up to
    /// 57d8a4144a2^, [`synchronized`](crate::citation::java::hdds_8832::SnapshotChainManager::addSnapshot) from
    /// 57d8a4144a2 on (the callers here decide which).
    pub fn add(&mut self, id: &str, info: &Info) -> Result<(), ChainError> {
        let corrupt = |prev: &str| {
            format!("IOException: Snapshot chain corruption. Previous snapshotId: {prev} is set for snapshotId: {id} but no associated snapshot found in snapshot chain.")
        };
        // addSnapshotGlobal
        if let Some(prev) = &info.global_prev {
            match self.global.get_mut(prev) {
                Some(l) => l.next = Some(id.to_string()),
                None => return Err(corrupt(prev)),
            }
        }
        self.global.insert(
            id.to_string(),
            Link {
                prev: info.global_prev.clone(),
                next: None,
            },
        );
        self.latest_global = Some(id.to_string());
        // addSnapshotPath
        if let Some(prev) = &info.path_prev {
            match self.paths.get_mut(&info.path).and_then(|p| p.get_mut(prev)) {
                Some(l) => l.next = Some(id.to_string()),
                None => return Err(corrupt(prev)),
            }
        }
        self.paths.entry(info.path.clone()).or_default().insert(
            id.to_string(),
            Link {
                prev: info.path_prev.clone(),
                next: None,
            },
        );
        self.latest_path.insert(info.path.clone(), id.to_string());
        Ok(())
    }

    /// [`deleteSnapshot`](crate::citation::java::hdds_8832_parent::SnapshotChainManager::deleteSnapshot):
    /// `deleteSnapshotGlobal && deleteSnapshotPath`, each relinking the neighbours and moving
    /// the tail back; `false` (a warning) when absent.
    pub fn delete(&mut self, id: &str, path: &str) -> Result<bool, ChainError> {
        let Some(link) = self.global.get(id).cloned() else {
            return Ok(false);
        };
        for n in [&link.prev, &link.next].into_iter().flatten() {
            if !self.global.contains_key(n) {
                return Err(format!(
                    "IOException: Snapshot chain corruption. SnapshotId: {id} to be deleted has neighbour {n} not found in snapshot chain."
                ));
            }
        }
        self.global.remove(id);
        if let Some(n) = &link.next {
            self.global.get_mut(n).expect("checked").prev = link.prev.clone();
        }
        if let Some(p) = &link.prev {
            self.global.get_mut(p).expect("checked").next = link.next.clone();
        }
        if self.latest_global.as_deref() == Some(id) {
            self.latest_global = link.prev.clone();
        }
        // deleteSnapshotPath
        let Some(link) = self.paths.get(path).and_then(|p| p.get(id)).cloned() else {
            return Ok(false);
        };
        let chain = self.paths.get_mut(path).expect("checked");
        for n in [&link.prev, &link.next].into_iter().flatten() {
            if !chain.contains_key(n) {
                return Err(format!(
                    "IOException: Snapshot chain corruption. SnapshotId: {id} at {path} to be deleted has neighbour {n} not found in snapshot chain."
                ));
            }
        }
        chain.remove(id);
        if let Some(n) = &link.next {
            chain.get_mut(n).expect("checked").prev = link.prev.clone();
        }
        if let Some(p) = &link.prev {
            chain.get_mut(p).expect("checked").next = link.next.clone();
        }
        if chain.is_empty() {
            self.paths.remove(path);
        }
        if self.latest_path.get(path).map(String::as_str) == Some(id) {
            self.latest_path.remove(path);
            if let Some(p) = link.prev {
                self.latest_path.insert(path.to_string(), p);
            }
        }
        Ok(true)
    }

    /// `getLatestGlobalSnapshotId`.
    pub fn latest_global(&self) -> Option<String> {
        self.latest_global.clone()
    }

    /// `getLatestPathSnapshotId`.
    pub fn latest_path(&self, path: &str) -> Option<String> {
        self.latest_path.get(path).cloned()
    }

    /// `nextPathSnapshot` after `hasNextPathSnapshot`: `Ok(None)` when it has none.
    pub fn next_path(&self, path: &str, id: &str) -> Result<Option<String>, ChainError> {
        match self.paths.get(path).and_then(|p| p.get(id)) {
            Some(l) => Ok(l.next.clone()),
            None => Err(format!(
                "NoSuchElementException: SnapshotId: {id} is not found in snapshot chain for snapshotPath: {path}."
            )),
        }
    }

    /// `nextGlobalSnapshot` after `hasNextGlobalSnapshot`: `Ok(None)` when it has none.
    pub fn next_global(&self, id: &str) -> Result<Option<String>, ChainError> {
        match self.global.get(id) {
            Some(l) => Ok(l.next.clone()),
            None => Err(format!(
                "NoSuchElementException: SnapshotId: {id} is not found in snapshot chain."
            )),
        }
    }

    /// Every snapshot with its (path previous, global previous) as the chain links them.
    pub fn previous_ids(&self) -> BTreeMap<String, (Option<String>, Option<String>)> {
        let mut out = BTreeMap::new();
        for chain in self.paths.values() {
            for (id, l) in chain {
                let global = self.global.get(id).and_then(|g| g.prev.clone());
                out.insert(id.clone(), (l.prev.clone(), global));
            }
        }
        for (id, l) in &self.global {
            out.entry(id.clone()).or_insert((None, l.prev.clone()));
        }
        out
    }
}

/// How the create's chain section is guarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateGuard {
    /// 57d8a4144a2^: the tails' reads, `addSnapshot` and the cache put, each on its own.
    Unsynchronized,
    /// 57d8a4144a2 (HDDS-8832): `addSnapshotInfoToSnapshotChainAndCache`, one block
    /// `synchronized` on the chain manager, which also guards `addSnapshot` and `deleteSnapshot`.
    ChainMonitor,
}

/// Which previous id of the purged snapshot becomes the next global snapshot's
/// `globalPreviousSnapshotId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalPrevOfNext {
    /// Up to e374aae82db^ (HDDS-9073 fixed it): the purged snapshot's path previous.
    PathPrevious,
    /// e374aae82db on: its global previous.
    GlobalPrevious,
}

/// The Java the chain model follows.
#[derive(Clone, Copy, Debug)]
pub struct ChainJava {
    /// The create's guard.
    pub create: CreateGuard,
    /// Where the purge unlinks the snapshot and rewrites its next's previous ids.
    pub purge_chain: Stage,
    /// The next global snapshot's new previous.
    pub global_prev_of_next: GlobalPrevOfNext,
    /// Whether `Table.get` hands out a copy of a cached `SnapshotInfo` (HDDS-8665 on).
    pub get_copies: bool,
    /// Whether the purge takes the write `SNAPSHOT_LOCK` of the purged snapshot and of its
    /// next ones before it reads and rewrites their rows, and the set-property request that of
    /// its snapshot (7da5ecb5855, HDDS-10590 on), each until its apply returns.
    pub snapshot_locks_taken: bool,
    /// Whether the purge puts a delete of the purged snapshot's row into the table cache and
    /// its response reads that row skipping the cache (7559e1f6b90, HDDS-10524 on).
    pub purge_tombstone: bool,
    /// The cited methods.
    pub cites: &'static ChainCites,
}

/// The methods a snapshot create's steps cite in the chain model.
#[derive(Clone, Copy, Debug)]
pub struct CreateCites {
    /// `OMSnapshotCreateRequest.validateAndUpdateCache` (or the fix's
    /// `addSnapshotInfoToSnapshotChainAndCache`).
    pub request: &'static Citation,
    /// `OMSnapshotCreateResponse.addToDBBatch`.
    pub response: &'static Citation,
    /// `SnapshotChainManager.addSnapshot`.
    pub add: &'static Citation,
}

/// The methods the chain model's steps cite.
#[derive(Clone, Copy, Debug)]
pub struct ChainCites {
    /// A snapshot create's methods, for a log that has creates.
    pub create: Option<CreateCites>,
    /// `SnapshotChainManager.deleteSnapshot`.
    pub delete: &'static Citation,
    /// `OMSnapshotPurgeResponse.cleanupSnapshotChain` or
    /// `OMSnapshotPurgeRequest.updateSnapshotChainAndCache`.
    pub purge_chain: &'static Citation,
    /// `OMSnapshotPurgeRequest.validateAndUpdateCache`.
    pub purge_request: &'static Citation,
    /// `OMSnapshotPurgeResponse.addToDBBatch`.
    pub purge_response: &'static Citation,
    /// `OzoneManagerDoubleBuffer.flushBatch`.
    pub flush_batch: &'static Citation,
    /// `OzoneManagerDoubleBuffer.addToBatch` (where an exception terminates the OM).
    pub add_to_batch: &'static Citation,
    /// The double buffer's own methods (`add`, `stop`, the flush loop, the swap).
    pub buffer: &'static BufferCites,
    /// `SnapshotChainManager.loadFromSnapshotInfoTable` (an OM start).
    pub load: &'static Citation,
    /// `OMSnapshotSetPropertyRequest.validateAndUpdateCache` and
    /// `OMSnapshotSetPropertyResponse.addToDBBatch`, for a log that has one.
    pub set_property: Option<(&'static Citation, &'static Citation)>,
}

/// A request of the chain model's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainRequest {
    /// `OMSnapshotCreateRequest` of `snapshot` in bucket `path`.
    Create {
        /// The snapshot.
        snapshot: String,
        /// Its bucket.
        path: String,
    },
    /// `OMSnapshotPurgeRequest` of `snapshot` (sent by the `SnapshotDeletingService`).
    Purge {
        /// The snapshot.
        snapshot: String,
    },
    /// `OMSnapshotSetPropertyRequest` adding `exclusive_size` to `snapshot`'s (sent by the
    /// `SnapshotDeletingService` or the `KeyDeletingService`).
    SetProperty {
        /// The snapshot.
        snapshot: String,
        /// The exclusive size to add.
        exclusive_size: u64,
    },
}

/// A response waiting in the double buffer.
#[derive(Clone, Debug)]
pub struct ChainResponse {
    /// Log index.
    pub index: u64,
    effect: Effect,
}

impl Indexed for ChainResponse {
    fn index(&self) -> u64 {
        self.index
    }
}

#[derive(Clone, Debug)]
enum Effect {
    /// Write the `SnapshotInfo` object `object` under `snapshot`.
    Create { snapshot: String, object: usize },
    /// Rewrite the rows `updated` (objects), then delete `snapshot`'s row (cleaning up the
    /// chain first when the purge does so at flush).
    Purge {
        snapshot: String,
        updated: Vec<(String, usize)>,
    },
    /// Write the object `object` under `snapshot` (`OMSnapshotSetPropertyResponse`).
    Put { snapshot: String, object: usize },
    /// An error response.
    Nothing,
}

/// The `SnapshotInfo` objects alive in the OM and the `snapshotInfoTable` cache, which maps a
/// key to one of them (or to a delete).
#[derive(Default)]
struct Objects {
    heap: Vec<Info>,
    cache: BTreeMap<String, Option<usize>>,
}

/// A create linked its snapshot after a purge on the flush thread had found that the purged
/// snapshot has no next, and before that purge's `deleteSnapshot`: the window of HDDS-8832.
pub const LINKED_AFTER_PURGE_CHECKED: Probe = Probe::new(
    "LinkedAfterPurgeChecked",
    "a create linked to a snapshot between its purge's hasNext check and its deleteSnapshot",
);

/// A create failed because the previous id it read was purged before it linked.
pub const CREATE_FAILED_ON_PURGED_PREVIOUS: Probe = Probe::new(
    "CreateFailedOnPurgedPrevious",
    "a create read a tail that a purge unlinked before addSnapshot: the create failed",
);

/// One OM: its DB of `SnapshotInfo` rows, its chain, its double buffer.
pub struct ChainOm {
    java: ChainJava,
    store: Store<Info>,
    objects: Mutex<Objects>,
    chain: Mutex<Chain>,
    /// The chain manager's object monitor (`synchronized`), from HDDS-8832 on.
    monitor: Mutex<()>,
    buffer: DoubleBuffer<ChainResponse>,
    /// The flush thread is inside a purge's flush (for a probe).
    purge_flushing: Witness<bool>,
    /// Purges on the flush thread past their `hasNext` check that found no next (for a
    /// probe).
    checked_no_next: Witness<BTreeSet<String>>,
    /// `OzoneManagerLock`'s write `SNAPSHOT_LOCK`, one per snapshot of the rows the OM
    /// started on (the revisions that lock snapshots create none).
    snapshot_locks: BTreeMap<String, Mutex<()>>,
    /// A purge (or a set-property request) began its apply and its flush has not committed
    /// (for a probe).
    purge_pending: Witness<bool>,
    /// Ghost: purges and set-property requests applied so far.
    purges_applied: Ghost<u32>,
    exits: Ghost<Vec<String>>,
}

impl ChainOm {
    /// An OM whose DB holds `rows` and whose chain was loaded from them.
    pub fn new(rows: &[(&str, Info)], java: ChainJava) -> Self {
        let mut t = Tables::default();
        for (id, info) in rows {
            t.put(SNAPSHOT_INFO_TABLE, id, info.clone());
        }
        let chain =
            Chain::load(rows.iter().map(|(k, v)| (*k, v))).expect("the initial rows form a chain");
        Self::started(t, chain, java, rows.iter().map(|(id, _)| *id))
    }

    /// The OM stops once every entry it applied is flushed, and starts again on its committed
    /// rows: `OmMetadataManagerImpl.start` builds a `SnapshotChainManager`, whose constructor
    /// runs [`Chain::load`] (`loadFromSnapshotInfoTable`). `Err` when the load throws: the OM
    /// does not start. The started OM's table cache is empty and its double buffer new.
    ///
    /// Call it only at rest (every entry flushed, the threads joined): a kill, which would
    /// need the `TransactionInfo` and the replay, is not modelled.
    pub fn restart(&self, actor: &Actor) -> Result<ChainOm, ChainError> {
        let rows = self.rows();
        let loaded = Chain::load(rows.iter().map(|(k, v)| (k.as_str(), v)));
        actor.step_with(self.java.cites.load, || match &loaded {
            Ok(_) => format!("restart: the chain loads from {} rows", rows.len()),
            Err(why) => format!("restart: {why}: the OM does not start"),
        });
        let chain = loaded?;
        let mut t = Tables::default();
        for (id, info) in &rows {
            t.put(SNAPSHOT_INFO_TABLE, id, info.clone());
        }
        Ok(Self::started(
            t,
            chain,
            self.java,
            rows.keys().map(|id| id.as_str()),
        ))
    }

    /// An OM on tables `t` and `chain`, with a `SNAPSHOT_LOCK` for each of `snapshots`.
    fn started<'a>(
        t: Tables<Info>,
        chain: Chain,
        java: ChainJava,
        snapshots: impl Iterator<Item = &'a str>,
    ) -> Self {
        Self {
            java,
            store: Store::with_state(t, None),
            objects: Mutex::labelled("snapshotInfoTable cache", Objects::default()),
            chain: Mutex::labelled("snapshot chain", chain),
            monitor: Mutex::labelled("SnapshotChainManager monitor", ()),
            buffer: DoubleBuffer::with_cites(java.cites.buffer),
            purge_flushing: Witness::new(false),
            checked_no_next: Witness::new(BTreeSet::new()),
            snapshot_locks: snapshots
                .map(|id| (id.to_string(), Mutex::labelled("SNAPSHOT_LOCK", ())))
                .collect(),
            purge_pending: Witness::new(false),
            purges_applied: Ghost::new(0),
            exits: Ghost::new(Vec::new()),
        }
    }

    /// `acquireWriteLock(SNAPSHOT_LOCK, volume, bucket, snapshot)`.
    fn lock_snapshot(
        &self,
        actor: &Actor,
        java: &'static Citation,
        id: &str,
    ) -> Option<MutexGuard<'_, ()>> {
        let lock = self.snapshot_locks.get(id)?;
        let guard = lock.lock();
        actor.step_with(java, || format!("write SNAPSHOT_LOCK of {id} acquired"));
        Some(guard)
    }

    /// Every termination (ghost).
    pub fn exits(&self) -> Vec<String> {
        self.exits.get()
    }

    /// The committed rows.
    pub fn rows(&self) -> BTreeMap<String, Info> {
        self.store
            .durable()
            .iter()
            .filter(|(t, _, _)| *t == SNAPSHOT_INFO_TABLE)
            .map(|(_, k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    /// The in-memory chain.
    pub fn chain(&self) -> Chain {
        self.chain.lock().clone()
    }

    /// `Table.get` through the cache: the cached object itself (a copy from HDDS-8665 on), or
    /// a new object deserialized from the DB.
    fn get(&self, actor: &Actor, java: &'static Citation, key: &str) -> Option<usize> {
        let cached = self.objects.lock().cache.get(key).copied();
        let copy = |o: &mut Objects, h: usize| {
            let info = o.heap[h].clone();
            o.heap.push(info);
            o.heap.len() - 1
        };
        match cached {
            Some(None) => None,
            Some(Some(h)) => {
                let mut o = self.objects.lock();
                let h = if self.java.get_copies {
                    copy(&mut o, h)
                } else {
                    h
                };
                actor.step_with(java, || {
                    format!("get {key} from the table cache: {}", o.heap[h])
                });
                Some(h)
            }
            None => {
                let info = self.store.get(actor, java, SNAPSHOT_INFO_TABLE, key)?;
                let mut o = self.objects.lock();
                o.heap.push(info);
                Some(o.heap.len() - 1)
            }
        }
    }

    fn object(&self, h: usize) -> Info {
        self.objects.lock().heap[h].clone()
    }

    /// `addCacheEntry`.
    fn cache_put(&self, actor: &Actor, java: &'static Citation, key: &str, h: Option<usize>) {
        let mut o = self.objects.lock();
        o.cache.insert(key.to_string(), h);
        actor.step_with(java, || match h {
            Some(h) => format!("table cache: {key} = {}", o.heap[h]),
            None => format!("table cache: {key} deleted"),
        });
    }

    /// `validateAndUpdateCache` of `request` at `index`, then queue the response; `false`
    /// once the process is gone.
    pub fn apply(&self, actor: &Actor, index: u64, request: &ChainRequest) -> bool {
        let effect = match request {
            ChainRequest::Create { snapshot, path } => {
                self.apply_create(actor, index, snapshot, path)
            }
            ChainRequest::Purge { snapshot } => self.apply_purge(actor, index, snapshot),
            ChainRequest::SetProperty {
                snapshot,
                exclusive_size,
            } => self.apply_set_property(actor, snapshot, *exclusive_size),
        };
        self.buffer.add(actor, ChainResponse { index, effect })
    }

    fn apply_create(&self, actor: &Actor, index: u64, snapshot: &str, path: &str) -> Effect {
        let c = self
            .java
            .cites
            .create
            .expect("a log with a create cites the create");
        // HDDS-8832: the whole section under the chain manager's monitor.
        let _monitor = (self.java.create == CreateGuard::ChainMonitor).then(|| self.monitor.lock());
        let (path_prev, global_prev) = {
            let chain = self.chain.lock();
            let read = (chain.latest_path(path), chain.latest_global());
            actor.step_with(c.request, || {
                format!(
                    "create {snapshot}: latest of {path} = {:?}, latest global = {:?}",
                    read.0, read.1
                )
            });
            read
        };
        let info = Info {
            path: path.to_string(),
            path_prev,
            global_prev,
            created: index,
            deep_clean: false,
            sst_filtered: false,
            exclusive_size: 0,
        };
        let added = {
            let mut chain = self.chain.lock();
            let added = chain.add(snapshot, &info);
            actor.step_with(c.add, || match &added {
                Ok(()) => format!("addSnapshot {snapshot} {info}"),
                Err(why) => format!("addSnapshot {snapshot}: {why}"),
            });
            if added.is_ok() {
                if let Some(p) = &info.global_prev {
                    self.checked_no_next
                        .probe_if(actor, &LINKED_AFTER_PURGE_CHECKED, |s| s.contains(p));
                }
            }
            added
        };
        if let Err(why) = added {
            actor.probe(&CREATE_FAILED_ON_PURGED_PREVIOUS);
            // The catch: the parent removes the snapshot only when it is the global tail; the
            // fix removes it always.
            let mut chain = self.chain.lock();
            let remove = self.java.create == CreateGuard::ChainMonitor
                || chain.latest_global().as_deref() == Some(snapshot);
            if remove {
                let _ = chain.delete(snapshot, path);
            }
            actor.step_with(c.request, || {
                format!("create {snapshot} fails: {why} (removed from the chain: {remove})")
            });
            return Effect::Nothing;
        }
        let object = {
            let mut o = self.objects.lock();
            o.heap.push(info);
            o.heap.len() - 1
        };
        // Checked at the table cache, which the purge's flush also locks: a point where the
        // two threads' order is explored (a ghost alone is no scheduling point).
        self.purge_flushing
            .probe_if(actor, &CREATE_DURING_PURGE_FLUSH, |f| *f);
        self.cache_put(actor, c.request, snapshot, Some(object));
        Effect::Create {
            snapshot: snapshot.to_string(),
            object,
        }
    }

    /// `OMSnapshotSetPropertyRequest.validateAndUpdateCache`: (the fix's lock,) `get`, add the
    /// size, put the object into the table cache; the response writes that object.
    fn apply_set_property(&self, actor: &Actor, snapshot: &str, exclusive_size: u64) -> Effect {
        let (request, _) = self
            .java
            .cites
            .set_property
            .expect("a log with a set-property request cites it");
        self.purge_pending.update(|p| *p = true);
        let _lock = if self.java.snapshot_locks_taken {
            self.lock_snapshot(actor, request, snapshot)
        } else {
            None
        };
        let Some(h) = self.get(actor, request, snapshot) else {
            actor.step_with(request, || format!("{snapshot}: not found: error response"));
            return Effect::Nothing;
        };
        self.objects.lock().heap[h].exclusive_size += exclusive_size;
        self.cache_put(actor, request, snapshot, Some(h));
        self.purges_applied.with(|n| *n += 1);
        Effect::Put {
            snapshot: snapshot.to_string(),
            object: h,
        }
    }

    fn apply_purge(&self, actor: &Actor, index: u64, snapshot: &str) -> Effect {
        let c = self.java.cites;
        let mut updated = Vec::new();
        self.purge_pending.update(|p| *p = true);
        // HDDS-10590: the locks of the purged snapshot and of its next ones, held to the end
        // of the apply (not to the flush).
        let mut locks = Vec::new();
        if self.java.purge_chain == Stage::Apply {
            let mut found = self.get(actor, c.purge_request, snapshot);
            if found.is_some() && self.java.snapshot_locks_taken {
                locks.extend(self.lock_snapshot(actor, c.purge_request, snapshot));
                let nexts = {
                    let chain = self.chain.lock();
                    chain
                        .paths
                        .values()
                        .find_map(|p| p.get(snapshot))
                        .map(|l| l.next.clone())
                        .into_iter()
                        .chain(chain.global.get(snapshot).map(|l| l.next.clone()))
                        .flatten()
                        .collect::<BTreeSet<_>>()
                };
                for next in nexts {
                    locks.extend(self.lock_snapshot(actor, c.purge_chain, &next));
                }
                // Read again under the lock.
                found = self.get(actor, c.purge_request, snapshot);
            }
            if let Some(h) = found {
                let info = self.object(h);
                let mut write = |key: &str, h: usize| {
                    self.cache_put(actor, c.purge_chain, key, Some(h));
                    updated.retain(|(k, _): &(String, usize)| k != key);
                    updated.push((key.to_string(), h));
                };
                if let Err(why) = self.cleanup_chain(actor, snapshot, &info, &mut write) {
                    actor.step_with(c.purge_request, || {
                        format!("purge {snapshot}: {why}: error response")
                    });
                    return Effect::Nothing;
                }
                if self.java.purge_tombstone {
                    self.cache_put(actor, c.purge_request, snapshot, None);
                }
            }
            self.purges_applied.with(|n| *n += 1);
            drop(locks);
        } else {
            actor.step_with(c.purge_request, || {
                format!("index {index} purge {snapshot}: the response does it all")
            });
        }
        Effect::Purge {
            snapshot: snapshot.to_string(),
            updated,
        }
    }

    /// `cleanupSnapshotChain` / `updateSnapshotChainAndCache`: find the purged snapshot's
    /// next (path and global), give each the purged one's previous through `write`, then
    /// `deleteSnapshot`.
    fn cleanup_chain(
        &self,
        actor: &Actor,
        snapshot: &str,
        info: &Info,
        write: &mut dyn FnMut(&str, usize),
    ) -> Result<(), ChainError> {
        let c = self.java.cites;
        let nexts = {
            let chain = self.chain.lock();
            let nexts = chain
                .next_path(&info.path, snapshot)
                .and_then(|p| Ok((p, chain.next_global(snapshot)?)));
            actor.step_with(c.purge_chain, || match &nexts {
                Ok((p, g)) => format!("{snapshot}: next in its path {p:?}, next global {g:?}"),
                Err(why) => format!("{snapshot}: {why}: deleted in a previous run, skip"),
            });
            nexts
        };
        let Ok((next_path, next_global)) = nexts else {
            return Ok(());
        };
        if next_global.is_none() {
            self.checked_no_next.update(|s| {
                s.insert(snapshot.to_string());
            });
        }
        let mut path_obj = None;
        if let Some(next) = next_path {
            let got = self.get(actor, c.purge_chain, &next);
            if got.is_none() {
                actor.probe(&NEXT_ROW_UNSEEN_BY_PURGE);
            }
            if let Some(h) = got {
                {
                    let mut o = self.objects.lock();
                    o.heap[h].path_prev = info.path_prev.clone();
                    // `updateSnapshotInfoAndCache`: the next (active) snapshot is deep cleaned
                    // again.
                    o.heap[h].deep_clean = false;
                }
                write(&next, h);
                path_obj = Some((next, h));
            }
        }
        if let Some(next) = next_global {
            let got = self.get(actor, c.purge_chain, &next);
            if got.is_none() {
                actor.probe(&NEXT_ROW_UNSEEN_BY_PURGE);
            }
            if let Some(h) = got {
                let prev = match self.java.global_prev_of_next {
                    GlobalPrevOfNext::PathPrevious => info.path_prev.clone(),
                    GlobalPrevOfNext::GlobalPrevious => info.global_prev.clone(),
                };
                // The same snapshot next in both chains: update the path one's object.
                let h = match &path_obj {
                    Some((p, ph)) if *p == next => *ph,
                    _ => h,
                };
                self.objects.lock().heap[h].global_prev = prev;
                write(&next, h);
            }
        }
        let _monitor = (self.java.create == CreateGuard::ChainMonitor).then(|| self.monitor.lock());
        let mut chain = self.chain.lock();
        let deleted = chain.delete(snapshot, &info.path);
        actor.step_with(c.delete, || {
            format!("deleteSnapshot {snapshot}: {deleted:?}")
        });
        self.checked_no_next.update(|s| {
            s.remove(snapshot);
        });
        deleted.map(|_| ())
    }

    /// The flush thread, until index `last` is committed or the OM terminated: the ready
    /// responses cut as `splitReadyBufferAtCreateSnapshot` cuts them
    /// (OzoneManagerDoubleBuffer.java:446-473 at 5306f65603f), each cut committed by
    /// [`flushBatch`](crate::citation::java::hdds_8832_parent::OzoneManagerDoubleBuffer::flushBatch): a successful create
    /// alone in its batch, the responses between creates together in one, each batch's
    /// `addToDBBatch`s in log order, then its commit. A `Table.get` in a later response of
    /// the same batch reads the committed rows, not what an earlier one staged.
    pub fn flush_thread(&self, actor: &Actor, last: u64) {
        let c = self.java.cites;
        let mut flushed = 0;
        while flushed < last {
            let Some(ready) = self.buffer.next_batch(actor) else {
                return;
            };
            let mut batches: Vec<Vec<ChainResponse>> = Vec::new();
            let mut after_create = false;
            for response in ready {
                let create = matches!(response.effect, Effect::Create { .. });
                match batches.last_mut() {
                    Some(open) if !create && !after_create => open.push(response),
                    _ => batches.push(vec![response]),
                }
                after_create = create;
            }
            for responses in batches {
                let mut batch = WriteBatch::new();
                for response in &responses {
                    if let Err(why) = self.add_to_batch(actor, response, &mut batch) {
                        actor.step_with(c.add_to_batch, || {
                            format!("addToDBBatch of index {} threw: terminate", response.index)
                        });
                        self.buffer.terminate();
                        self.exits.with(|e| e.push(why));
                        return;
                    }
                }
                self.store.commit(actor, c.flush_batch, batch);
                self.purge_flushing.update(|f| *f = false);
                self.purge_pending.update(|p| *p = false);
                for response in &responses {
                    self.buffer.flushed(response.index);
                    flushed = response.index;
                }
            }
        }
    }

    fn add_to_batch(
        &self,
        actor: &Actor,
        response: &ChainResponse,
        batch: &mut WriteBatch<Info>,
    ) -> Result<(), ChainError> {
        let c = self.java.cites;
        match &response.effect {
            Effect::Nothing => {}
            Effect::Put { snapshot, object } => {
                let info = self.object(*object);
                let (_, response) = c.set_property.expect("cited with its request");
                actor.step_with(response, || format!("{snapshot}'s row {info} staged"));
                batch.put(SNAPSHOT_INFO_TABLE, snapshot, info);
            }
            Effect::Create { snapshot, object } => {
                // `putWithBatch` serializes the object as it is now.
                let info = self.object(*object);
                let create = c.create.expect("a log with a create cites the create");
                actor.step_with(create.response, || {
                    format!("{snapshot}'s row {info} staged")
                });
                batch.put(SNAPSHOT_INFO_TABLE, snapshot, info);
            }
            Effect::Purge { snapshot, updated } => {
                self.purge_flushing.update(|f| *f = true);
                for (key, h) in updated {
                    batch.put(SNAPSHOT_INFO_TABLE, key, self.object(*h));
                }
                let found = if self.java.purge_tombstone {
                    // `getSkipCache`: the request left a delete in the cache.
                    self.store
                        .get_skip_cache(actor, c.purge_response, SNAPSHOT_INFO_TABLE, snapshot)
                        .map(|info| {
                            let mut o = self.objects.lock();
                            o.heap.push(info);
                            o.heap.len() - 1
                        })
                } else {
                    self.get(actor, c.purge_response, snapshot)
                };
                let Some(h) = found else {
                    return Ok(());
                };
                if self.java.purge_chain == Stage::Flush {
                    let info = self.object(h);
                    let mut staged = Vec::new();
                    self.cleanup_chain(actor, snapshot, &info, &mut |key, h| {
                        staged.push((key.to_string(), h));
                    })?;
                    for (key, h) in staged {
                        let row = self.object(h);
                        actor.step_with(c.purge_chain, || format!("{key}'s row {row} staged"));
                        batch.put(SNAPSHOT_INFO_TABLE, &key, row);
                    }
                }
                actor.step_with(c.purge_response, || {
                    format!("{snapshot}'s row deleted in the batch")
                });
                batch.delete(SNAPSHOT_INFO_TABLE, snapshot);
            }
        }
        Ok(())
    }
}

/// The methods the `SstFilteringService` model cites.
#[derive(Clone, Copy, Debug)]
pub struct FilterCites {
    /// `SstFilteringService.SstFilteringTask.call`: the iteration over `snapshotInfoTable`.
    pub call: &'static Citation,
    /// `SstFilteringTask.markSSTFilteredFlagForSnapshot`: lock, `get`, set, `put`.
    pub mark: &'static Citation,
    /// `TypedTable.put`: the unbatched write to RocksDB, outside Ratis and the table cache.
    pub put: &'static Citation,
}

/// The filter's `markSSTFilteredFlagForSnapshot` read a row under the snapshot's lock while a
/// snapshot purge had begun its apply and its flush had not committed: the window in which the
/// purge's rewrite of that row and the filter's meet.
pub const FILTER_DURING_PURGE: Probe = Probe::new(
    "FilterDuringPurge",
    "the SST filter read a SnapshotInfo under its SNAPSHOT_LOCK between a purge's (or set-property's) apply and its flush",
);

/// The filter's read preceded a purge's apply and its put followed it: a read-modify-write
/// that straddles the purge's.
pub const FILTER_STRADDLED_PURGE: Probe = Probe::new(
    "FilterStraddledPurge",
    "the SST filter read a SnapshotInfo before a purge's (or set-property's) apply and wrote it back after",
);

/// `markSSTFilteredFlagForSnapshot` found no row and dereferenced null.
pub const FILTER_NPE: Probe = Probe::new(
    "FilterNpe",
    "markSSTFilteredFlagForSnapshot read null for a purged snapshot: a NullPointerException ends the run",
);

impl ChainOm {
    /// One run of [`SstFilteringTask.call`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::call)
    /// on this OM (each OM runs its own, outside Ratis): every row of RocksDB in key order
    /// not yet `sstFiltered` (the filtering of its SST files abstracted away) gets
    /// [`markSSTFilteredFlagForSnapshot`](crate::citation::java::hdds_10590_parent::SstFilteringService::SstFilteringTask::markSSTFilteredFlagForSnapshot):
    /// the snapshot's write `SNAPSHOT_LOCK`, `Table.get` (the table cache first, a copy),
    /// `setSstFiltered(true)`, `Table.put` straight to RocksDB. The snapshots it marked.
    ///
    /// The iterator reads RocksDB; the model reads each row when the loop reaches it (the
    /// Java's iterator sees the rows as of its creation: a row deleted meanwhile is still
    /// visited there, which only adds executions to the NPE below). A null `get` throws a
    /// `NullPointerException`, which the task's `catch (RocksDBException | IOException)` does
    /// not catch: the run ends.
    pub fn sst_filter_run(&self, actor: &Actor, cites: &FilterCites) -> Vec<String> {
        let keys: Vec<String> = self.snapshot_locks.keys().cloned().collect();
        let mut marked = Vec::new();
        for key in keys {
            let Some(row) = self
                .store
                .get_skip_cache(actor, cites.call, SNAPSHOT_INFO_TABLE, &key)
            else {
                continue;
            };
            if row.sst_filtered {
                continue;
            }
            let Some(_lock) = self.lock_snapshot(actor, cites.mark, &key) else {
                continue;
            };
            self.purge_pending
                .probe_if(actor, &FILTER_DURING_PURGE, |p| *p);
            let applied = self.purges_applied.get();
            let Some(h) = self.get(actor, cites.mark, &key) else {
                actor.probe(&FILTER_NPE);
                actor.step_with(cites.mark, || {
                    format!("{key}: get returned null: NullPointerException, the run ends")
                });
                return marked;
            };
            let info = {
                let mut o = self.objects.lock();
                o.heap[h].sst_filtered = true;
                o.heap[h].clone()
            };
            if self.purges_applied.get() != applied {
                actor.probe(&FILTER_STRADDLED_PURGE);
            }
            self.store
                .put(actor, cites.put, SNAPSHOT_INFO_TABLE, &key, info);
            marked.push(key);
        }
        marked
    }
}

/// A create linked its snapshot and put it into the table cache while the flush thread was
/// inside a snapshot purge's flush (from its `addToDBBatch` to its batch's commit): the window
/// in which the purge's chain update at flush and the create's interleave.
pub const CREATE_DURING_PURGE_FLUSH: Probe = Probe::new(
    "CreateDuringPurgeFlush",
    "a snapshot create put its SnapshotInfo into the table cache while the flush thread was inside a snapshot purge's flush",
);

/// A purge found a next snapshot in the chain whose row it could not read: the create had
/// linked it (`addSnapshot`) and not yet put its `SnapshotInfo` into the table cache, so the
/// purge skips the next's rewrite (`nextPathSnapInfo != null`, `nextGlobalSnapInfo != null`,
/// OMSnapshotPurgeResponse.java:121, 141-148 at 57d8a4144a2) and the next keeps the purged
/// snapshot as its previous. The fix's monitor does not cover the purge's reads.
pub const NEXT_ROW_UNSEEN_BY_PURGE: Probe = Probe::new(
    "NextRowUnseenByPurge",
    "a purge found a next snapshot linked in the chain but not yet in the table, and skipped its rewrite",
);

/// The probes [`ChainOm`] fires.
pub const PROBES: &[Probe] = &[
    CREATE_DURING_PURGE_FLUSH,
    FILTER_DURING_PURGE,
    FILTER_STRADDLED_PURGE,
    FILTER_NPE,
    LINKED_AFTER_PURGE_CHECKED,
    CREATE_FAILED_ON_PURGED_PREVIOUS,
    NEXT_ROW_UNSEEN_BY_PURGE,
];
