//! One OM: its own DB, its caches, its S3_SECRET_LOCK, its double buffer and flush thread;
//! and the shared external store it calls.
//!
//! The apply path stands for [`runCommand`](java::OzoneManagerStateMachine::runCommand) ->
//! [`handleWriteRequest`](java::RequestHandler::handleWriteRequest) -> `validateAndUpdateCache`,
//! then [`add`](java::OzoneManagerDoubleBuffer::add); the flush path for
//! [`flushBatch`](java::OzoneManagerDoubleBuffer::flushBatch): each OK response's
//! `addToDBBatch` (where the non-batch store is called at once, through the manager the
//! response holds: the inner, unlocked one for set and revoke, the locked one for the tenant
//! requests), the batch commit with `TRANSACTION_INFO_KEY`, then
//! [`cleanupCache`](java::OzoneManagerDoubleBuffer::cleanupCache): the secret cache's
//! `clearCache` on the flush thread, and the eviction of the tenant table's cache entries of
//! the flushed epochs, which `PartialTableCache.cleanup` hands to a cleanup executor (a later
//! step of the flush thread here).
//!
//! A terminated OM (`ExitUtils.terminate`) is a flag: its apply thread stops applying and its
//! flush thread stops at its next swap. A flush already swapped completes: the JVM's exit is
//! not instant, and a commit that lands before it is exactly what the seed's "error response
//! flushed before the termination" needs. A crash ([`Om::crash`]) loses every response not yet
//! swapped. A restart is a new [`Om`] over the same DB: the caches are gone, and the OM replays
//! the log after its stored index.
//!
//! Abstracted away: the S3_SECRET_LOCK is one lock per OM (the plans lock one id per OM at a
//! time, and the lock orders only one OM's threads: the OMs do not share it); the lock
//! [`clearS3Cache`](java::S3SecretLockedManager::clearS3Cache) takes is the resource id "cache",
//! which no request takes, so it is left out;
//! the volume lock of the tenant requests (one apply thread orders them); Ratis (the log is
//! committed up front, except in `leader-change`; per OM only how far it applied differs).

use super::cache::{Lookup, SecretCache, TableLookup, TenantCache};
use super::requests::{Decision, FlushCall, Issued, PreExecuted, S3Request, Termination};
use super::{
    initial_tables, AccessId, Design, Row, Secret, StoredSecret, S3_SECRET_TABLE,
    TENANT_ACCESS_ID_TABLE,
};
use crate::citation::{java, Citation, Label};
use crate::kit::external_store::{ExternalStore, Fault, StoreError};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::models::om::double_buffer::{DoubleBuffer, Indexed, Life};
use crate::models::om::startup::{data_after, load_snapshot_info};
use crate::properties::Probe;
use crate::recorder::{Actor, Recorder};
use crate::sync::ghost::{Ghost, Witness};
use crate::sync::{Arc, Concurrent, Condvar, Mutex, MutexGuard};
use std::cell::Cell;
use std::collections::BTreeMap;

/// An OM applied or flushed entry i after the shared store had served a call for a later
/// entry (the window in which a per-OM decision can differ from the leader's).
pub const LATE_APPLY: Probe = Probe::new(
    "LateApply",
    "an OM applied or flushed an entry after the store had served a call for a later entry",
);
/// A getsecret found a tombstone in the cache and wrote a new secret to the store.
pub const TOMBSTONE_THEN_STORE_WRITE: Probe = Probe::new(
    "TombstoneThenStoreWrite",
    "a getsecret hit a cache tombstone and stored a new secret at once",
);
/// A flush-time revoke found a secret written for a later index.
pub const FLUSH_REVOKES_NEWER_SECRET: Probe = Probe::new(
    "FlushRevokesNewerSecret",
    "a flush-time revoke found a secret written for a later index",
);
/// The store refused a write or delete from an older index (`index-per-secret`).
pub const STALE_WRITE_REFUSED: Probe = Probe::new(
    "StaleWriteRefused",
    "the store refused a write or delete from an older index",
);
/// An INTERNAL_ERROR response was flushed before its OM's termination took effect.
pub const ERROR_FLUSHED: Probe = Probe::new(
    "ErrorResponseFlushedBeforeTermination",
    "an INTERNAL_ERROR response was flushed before its OM's termination",
);
/// A request read a tenant-table cache entry that a rejected tenant assign left behind.
pub const LEAKED_TENANT_ENTRY: Probe = Probe::new(
    "LeakedTenantEntryRead",
    "a request read a tenant-table cache entry that a rejected tenant assign left behind",
);
/// A store write landed after a delete of the id from a higher index: the store keeps no
/// tombstone, so `index-per-secret` cannot refuse it and a revoked secret is back.
pub const REVOKED_SECRET_RESTORED: Probe = Probe::new(
    "RevokedSecretRestored",
    "a write from a lower index landed after the id was deleted from a higher index",
);
/// A `preExecute` waited for the lock an earlier pre-executed, not yet applied request of
/// the id held (the pipelining the lock to the apply prevents).
pub const WAITED_FOR_APPLY: Probe = Probe::new(
    "PreExecuteWaitedForApply",
    "a preExecute waited until an earlier pre-executed request of the id was applied",
);
/// A tenant revoke found the access id's tenant entry but not its principal's: the
/// principal table's cache entry was evicted, the access-id table's not yet.
pub const PRINCIPAL_EVICTED_FIRST: Probe = Probe::new(
    "PrincipalEvictedFirst",
    "a tenant revoke found the access id's entry but not its principal's (evicted first)",
);
/// A leader's `preExecute` changed the store for an entry that never committed.
pub const UNCOMMITTED_STORE_WRITE: Probe = Probe::new(
    "UncommittedStoreWrite",
    "a leader's preExecute changed the store for an entry that never committed",
);

const RECONCILE: Label = Label::model("reconcile the store with the replicated rows");

/// `leader-side`'s store calls happen in `preExecute`, before the entry has a log index; the
/// store counts them for no index (0 is never a log index: entries start at 1).
const NO_INDEX: u64 = 0;

/// What every OM of a plan shares: the external store, and ghost bookkeeping of what the
/// clients were told, the terminations, and the leader's decisions (part of the entries).
pub struct Shared {
    store: ExternalStore<StoredSecret>,
    design: Design,
    issued: Ghost<BTreeMap<AccessId, Option<Secret>>>,
    /// Every termination, as `om: why`: read only once the run quiesced, for whether there
    /// was one and which came first (detail text only), hence a witness.
    terminations: Witness<Vec<String>>,
    decisions: Ghost<BTreeMap<u64, Decision>>,
    deleted_at: Ghost<BTreeMap<AccessId, u64>>,
    /// What each OM's apply of each entry would tell its client (first apply only), and what
    /// the leaders told, by index: read only after every thread ended, by OM and by index
    /// (whichever thread wrote first), hence witnesses.
    outcomes: Witness<BTreeMap<(&'static str, u64), Issued>>,
    answers: Witness<Vec<(u64, Issued)>>,
}

impl Shared {
    /// A ring using `design`, whose store starts with `rows` and fails the call `fault` names;
    /// the clients start out told `issued`.
    pub fn new(
        design: Design,
        rows: &[(AccessId, StoredSecret)],
        fault: Option<Fault>,
        issued: &[(AccessId, Option<Secret>)],
    ) -> Self {
        Self {
            store: ExternalStore::new(
                rows.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                fault,
            ),
            design,
            issued: Ghost::new(issued.iter().copied().collect()),
            terminations: Witness::unprobed(Vec::new()),
            decisions: Ghost::new(BTreeMap::new()),
            deleted_at: Ghost::new(BTreeMap::new()),
            outcomes: Witness::unprobed(BTreeMap::new()),
            answers: Witness::unprobed(Vec::new()),
        }
    }

    /// The external store.
    pub fn store(&self) -> &ExternalStore<StoredSecret> {
        &self.store
    }

    /// The design.
    pub fn design(&self) -> Design {
        self.design
    }

    /// What the clients were last told per id.
    pub fn issued(&self) -> BTreeMap<AccessId, Option<Secret>> {
        self.issued.get()
    }

    /// Every termination, as `om: why`, once `recorder` has quiesced.
    pub fn terminations(&self, recorder: &Recorder) -> Vec<String> {
        self.terminations.settled(recorder)
    }

    /// The entry at `index` carries the leader's `decision` (`leader-side`).
    pub fn record_decision(&self, index: u64, decision: Decision) {
        self.decisions.with(|d| d.insert(index, decision));
    }

    /// What `om`'s first apply of entry `index` told or would have told its client, once
    /// `recorder` has quiesced.
    pub fn outcome(&self, om: &'static str, index: u64, recorder: &Recorder) -> Option<Issued> {
        self.outcomes.settled(recorder).get(&(om, index)).copied()
    }

    /// What the leaders told, with each entry's index, in the order told (the order of the
    /// recorded writes to what the clients were told, which each answer makes at once), once
    /// `recorder` has quiesced.
    pub fn answers(&self, recorder: &Recorder) -> Vec<(u64, Issued)> {
        self.answers.settled(recorder)
    }

    /// Replace what the clients were last told by `told`, folded in order.
    pub fn retell(&self, told: &[Issued]) {
        self.issued.with(|m| m.clear());
        for t in told {
            self.issue(*t);
        }
    }

    fn applied(&self, om: &'static str, index: u64, what: Issued, leader: bool) {
        self.outcomes.update(|o| {
            o.entry((om, index)).or_insert(what);
        });
        if leader {
            self.answers.update(|a| a.push((index, what)));
            self.issue(what);
        }
    }

    fn issue(&self, what: Issued) {
        self.issued.with(|m| match what {
            Issued::Secret(id, s) => {
                m.insert(id, Some(s));
            }
            Issued::Revoked(id) => {
                m.insert(id, None);
            }
        });
    }
}

/// One applied request's response, waiting for the flush.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// Log index.
    pub index: u64,
    /// Rows for the OM's DB.
    pub rows: WriteBatch<Row>,
    /// The store call its `addToDBBatch` makes, if any (an OK response only).
    pub call: Option<FlushCall>,
    /// Whether it is an INTERNAL_ERROR response.
    pub internal_error: bool,
    /// Whether its class names the tenant tables for cleanup (the tenant requests').
    pub tenant_epoch: bool,
}

impl Response {
    fn new(index: u64, request: &S3Request) -> Self {
        Self {
            index,
            rows: WriteBatch::new(),
            call: None,
            internal_error: false,
            tenant_epoch: matches!(
                request,
                S3Request::TenantAssign { .. } | S3Request::TenantRevoke { .. }
            ),
        }
    }
}

impl Indexed for Response {
    fn index(&self) -> u64 {
        self.index
    }
}

/// The lock a leader-side design holds from `preExecute` until the leader applies the entry
/// (one id per plan, so one lock per OM). It is released by another thread than the one that
/// took it (the apply thread), as the authorizer lock of the tenant requests is
/// ([`AuthorizerLockImpl.tryWriteLockInOMRequest`](java::AuthorizerLockImpl::tryWriteLockInOMRequest)
/// on the RPC handler, [`unlockWriteInOMRequest`](java::AuthorizerLockImpl::unlockWriteInOMRequest)
/// in `validateAndUpdateCache`), hence a flag and a condition variable rather than a guard.
struct Gate {
    held: Mutex<bool>,
    freed: Condvar,
}

impl Gate {
    fn new() -> Self {
        Self {
            held: Mutex::new(false),
            freed: Condvar::new(),
        }
    }

    /// Take it; returns whether it had to wait.
    fn acquire(&self) -> bool {
        let mut held = self.held.lock();
        let waited = *held;
        while *held {
            held = self.freed.wait(held);
        }
        *held = true;
        waited
    }

    fn release(&self) {
        *self.held.lock() = false;
        self.freed.notify_all();
    }
}

/// One OM.
pub struct Om {
    name: &'static str,
    /// Ghost: whether its applies are what the clients are told. Written only by the thread
    /// that applies for it (a follower taking over), so not a scheduling point; a ghost so
    /// that the stateful engine tells the two roles apart.
    leader: Ghost<bool>,
    shared: Arc<Shared>,
    db: Arc<Store<Row>>,
    /// `S3InMemoryCache`, a Guava `Cache`: each call is atomic and takes no lock of the OM's,
    /// so two lookups commute, and so do two calls on different access ids (`clearCache`
    /// reads every entry, then evicts one key at a time).
    cache: Concurrent<SecretCache>,
    /// The table cache of `tenantAccessIdTable` (a `PartialTableCache` over a
    /// `ConcurrentHashMap`), keyed by access id; `evictCache` (after a flush) is one step
    /// over the whole.
    tenant: Concurrent<TenantCache>,
    /// The table cache of `principalToAccessIdsTable`, keyed by access id (one principal per
    /// id in the plans); its DB row is written and deleted with the access id's.
    principal: Concurrent<TenantCache>,
    /// Ghost: the tenant-table cache entries a rejected assign left, by id and epoch.
    leaked: Ghost<Vec<(AccessId, u64)>>,
    secret_lock: Mutex<()>,
    gate: Gate,
    buffer: DoubleBuffer<Response>,
}

impl Om {
    /// An OM called `name` over `db`. A `leader`'s applies are what the clients are told.
    pub fn new(name: &'static str, leader: bool, shared: Arc<Shared>, db: Arc<Store<Row>>) -> Self {
        Self {
            name,
            leader: Ghost::new(leader),
            shared,
            db,
            cache: Concurrent::new("secret cache", SecretCache::default()),
            tenant: Concurrent::new("table cache", TenantCache::default()),
            principal: Concurrent::new("table cache", TenantCache::default()),
            leaked: Ghost::new(Vec::new()),
            secret_lock: Mutex::new(()),
            gate: Gate::new(),
            buffer: DoubleBuffer::new(),
        }
    }

    /// It won an election: from now on its applies are what the clients are told. Called by
    /// the thread that applies for it.
    pub fn become_leader(&self) {
        self.leader.with(|l| *l = true);
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its DB.
    pub fn db(&self) -> &Arc<Store<Row>> {
        &self.db
    }

    /// Its secret cache, as a final observation.
    pub fn secret_cache(&self) -> SecretCache {
        self.cache.read(|c| c.clone())
    }

    /// Take this OM's S3_SECRET_LOCK from outside, as another request holding the id's lock
    /// would (for staged tests of which calls wait for it).
    pub fn hold_secret_lock(&self) -> MutexGuard<'_, ()> {
        self.secret_lock.lock()
    }

    /// A leader-side design that locks to the apply: take the id's lock before `preExecute`
    /// (waits while an earlier pre-executed request of the id is not applied yet).
    pub fn lock_to_apply(&self, actor: &Actor) {
        if self.shared.design.locks_to_apply() {
            if self.gate.acquire() {
                actor.probe(&WAITED_FOR_APPLY);
            }
            actor.step_with(Label::model("take the id's lock until the apply"), || {
                format!(
                    "{}: lock held from preExecute until the leader applies",
                    self.name
                )
            });
        }
    }

    /// Release what [`Om::lock_to_apply`] took: the leader applied the entry, or the request
    /// failed before it was replicated.
    pub fn unlock_after_apply(&self, actor: &Actor, why: &str) {
        if self.shared.design.locks_to_apply() {
            self.gate.release();
            actor.step_with(Label::model("release the id's lock"), || {
                format!("{}: lock released ({why})", self.name)
            });
        }
    }

    fn late_probe(&self, actor: &Actor, index: u64) {
        self.shared
            .store
            .high_water()
            .probe_if(actor, &LATE_APPLY, |h| *h > index);
    }

    /// [`S3SecretManagerImpl.getSecret`](java::S3SecretManagerImpl::getSecret) (also what
    /// `hasS3Secret` calls): the cache (a tombstone is "no secret"), else the store; a store
    /// hit is cached with index 0, as `VaultS3SecretStore` returns it.
    fn get_secret(
        &self,
        actor: &Actor,
        index: u64,
        id: AccessId,
    ) -> Result<(Option<Secret>, Lookup), StoreError> {
        let found = self.cache.read_key(id, |c| c.lookup(id));
        if let Lookup::Hit(v) = found {
            actor.step_with(&java::S3InMemoryCache::get, || {
                let shown = v.map_or("tombstone".to_string(), |s| s.to_string());
                format!("{}: cache hit {id} = {shown}", at(index))
            });
            return Ok((v, found));
        }
        let held = self
            .shared
            .store
            .get(
                actor,
                &java::S3SecretManagerImpl::getSecret,
                self.name,
                index,
                id,
            )?
            .and_then(|s| s.live());
        if let Some(s) = held {
            self.cache.write_key(id, |c| c.put(id, s, 0));
            actor.step_with(&java::S3SecretManager::updateCache, || {
                format!("{}: cache the store's {id} = {s}@0", at(index))
            });
        }
        Ok((held, found))
    }

    /// `tenantAccessIdTable.get`: the table cache, else the DB (the rows this OM applied and
    /// will flush).
    fn tenant_get(&self, actor: &Actor, view: &Tables<Row>, id: AccessId) -> Option<Row> {
        let (found, epoch) = {
            self.tenant
                .read_key(id, |tenant| (tenant.lookup(id), tenant.epoch_of(id)))
        };
        match found {
            TableLookup::Hit(row) => {
                let leaked = epoch.is_some_and(|e| self.leaked.with(|l| l.contains(&(id, e))));
                if row.is_some() && leaked {
                    actor.probe(&LEAKED_TENANT_ENTRY);
                }
                row
            }
            TableLookup::Miss => view.get(TENANT_ACCESS_ID_TABLE, id).copied(),
        }
    }

    fn store_write(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        index: u64,
        id: AccessId,
        secret: Secret,
    ) -> Result<(), StoreError> {
        let java: Label = java.into();
        let value = StoredSecret {
            secret,
            index,
            revoked: false,
        };
        let guarded = self.shared.design == Design::IndexPerSecret;
        let wrote =
            self.shared
                .store
                .put_unless(actor, java, self.name, index, id, value, |old| {
                    guarded && old.index > index
                })?;
        if !wrote {
            actor.probe(&STALE_WRITE_REFUSED);
        } else if self
            .shared
            .deleted_at
            .with(|d| d.get(id).is_some_and(|&at| at > index))
        {
            actor.probe(&REVOKED_SECRET_RESTORED);
        }
        Ok(())
    }

    fn store_revoke(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        index: u64,
        id: AccessId,
    ) -> Result<(), StoreError> {
        let java: Label = java.into();
        let guarded = self.shared.design == Design::IndexPerSecret;
        let newer = Cell::new(false);
        let gone = if guarded {
            // A tombstone keeping the delete's index, refused over a newer entry.
            let tombstone = StoredSecret {
                secret: Secret("-"),
                index,
                revoked: true,
            };
            let wrote = self.shared.store.put_unless(
                actor,
                java,
                self.name,
                index,
                id,
                tombstone,
                |old| {
                    newer.set(old.index > index && old.live().is_some());
                    old.index > index
                },
            )?;
            wrote.then_some(tombstone)
        } else {
            self.shared
                .store
                .delete_unless(actor, java, self.name, index, id, |old| {
                    newer.set(old.index > index);
                    false
                })?
        };
        if gone.is_some() {
            self.shared.deleted_at.with(|d| {
                let at = d.entry(id).or_default();
                *at = (*at).max(index);
            });
        }
        if newer.get() {
            actor.probe(&FLUSH_REVOKES_NEWER_SECRET);
            if guarded {
                actor.probe(&STALE_WRITE_REFUSED);
            }
        }
        Ok(())
    }

    /// [`S3SecretManagerImpl.storeSecret`](java::S3SecretManagerImpl::storeSecret): the store,
    /// then the cache with the value's index.
    fn store_secret(
        &self,
        actor: &Actor,
        index: u64,
        id: AccessId,
        secret: Secret,
    ) -> Result<(), StoreError> {
        self.store_write(
            actor,
            &java::S3SecretManagerImpl::storeSecret,
            index,
            id,
            secret,
        )?;
        self.cache.write_key(id, |c| c.put(id, secret, index));
        actor.step_with(&java::S3InMemoryCache::put, || {
            format!("{}: cache {id} = {secret}@{index}", at(index))
        });
        Ok(())
    }

    /// [`S3SecretManagerImpl.revokeSecret`](java::S3SecretManagerImpl::revokeSecret): the
    /// store, then `invalidateCacheEntry`.
    fn revoke_secret(&self, actor: &Actor, index: u64, id: AccessId) -> Result<(), StoreError> {
        self.store_revoke(actor, &java::S3SecretManagerImpl::revokeSecret, index, id)?;
        let tomb = self.cache.write_key(id, |c| c.invalidate(id));
        actor.step_with(&java::S3InMemoryCache::invalidate, || {
            format!(
                "{}: {}",
                at(index),
                if tomb {
                    format!("cache tombstone for {id}, old index kept")
                } else {
                    format!("{id} not cached: nothing to invalidate")
                }
            )
        });
        Ok(())
    }

    /// The leader's `preExecute` of `request`, on an RPC handler thread, before the entry has
    /// an index. `view` is the leader's applied tenant table.
    ///
    /// The Java (`buggy`, `index-per-secret`):
    /// [`OMSetSecretRequest.preExecute`](java::OMSetSecretRequest::preExecute) reads
    /// `tenantAccessIdTable`, and for an id not assigned to a tenant calls `hasS3Secret` on the
    /// locked manager (the id's lock, the cache, the store on a miss, a store hit cached at
    /// index 0): no secret, `ACCESS_ID_NOT_FOUND`;
    /// [`OMTenantRevokeUserAccessIdRequest.preExecute`](java::OMTenantRevokeUserAccessIdRequest::preExecute)
    /// refuses an id not in `tenantAccessIdTable`; the others check permissions and draw
    /// secrets only. `leader-side`: the decision, with the store call.
    pub fn pre_execute(
        &self,
        actor: &Actor,
        view: &Tables<Row>,
        request: &S3Request,
    ) -> PreExecuted {
        if self.shared.design.leader_side() {
            return self.leader_decide(actor, view, request);
        }
        let java = request.pre_execute_java();
        let id = request.id();
        let mut done = PreExecuted {
            refused: None,
            decision: None,
            called_store: false,
            wrote_store: false,
        };
        match request {
            S3Request::SetSecret { .. } if self.tenant_get(actor, view, id).is_none() => {
                let _lock = self.secret_lock.lock();
                done.called_store = self.cache.read_key(id, |c| c.lookup(id)) == Lookup::Miss;
                match self.get_secret(actor, NO_INDEX, id) {
                    Ok((Some(_), _)) => {}
                    Ok((None, _)) => done.refused = Some("ACCESS_ID_NOT_FOUND"),
                    Err(_) => done.refused = Some("INTERNAL_ERROR"),
                }
            }
            S3Request::TenantRevoke { .. } if self.tenant_get(actor, view, id).is_none() => {
                done.refused = Some("ACCESS_ID_NOT_FOUND");
            }
            _ => {}
        }
        actor.step_with(java, || match done.refused {
            Some(status) => format!("{request}: {status}, not replicated"),
            None => format!("{request}: passes preExecute"),
        });
        done
    }

    /// `leader-side`: the leader's `preExecute` calls the store once and decides, under the
    /// id's lock. A store failure is a clean error: the entry is not replicated.
    fn leader_decide(&self, actor: &Actor, view: &Tables<Row>, request: &S3Request) -> PreExecuted {
        let java = request.pre_execute_java();
        let _lock = self.secret_lock.lock();
        let store = &self.shared.store;
        let id = request.id();
        let name = self.name;
        let wrote = Cell::new(false);
        let called = Cell::new(false);
        let tenant = self.tenant_get(actor, view, id).is_some();
        let decided = (|| -> Result<Decision, StoreError> {
            if let S3Request::TenantAssign { .. } = request {
                if tenant {
                    return Ok(Decision::Rejected("TENANT_USER_ACCESS_ID_ALREADY_EXISTS"));
                }
            }
            if let S3Request::TenantRevoke { .. } = request {
                if !tenant {
                    return Ok(Decision::Rejected("ACCESS_ID_NOT_FOUND"));
                }
            }
            called.set(true);
            let held = store
                .get(actor, java, name, NO_INDEX, id)?
                .and_then(|s| s.live());
            let put = |secret: Secret| -> Result<Decision, StoreError> {
                let value = StoredSecret {
                    secret,
                    index: NO_INDEX,
                    revoked: false,
                };
                // Set before the call: a write whose reply is lost may have taken effect.
                wrote.set(true);
                store.put(actor, java, name, NO_INDEX, id, value)?;
                Ok(Decision::Accepted(Some(secret)))
            };
            Ok(match (*request, held) {
                (S3Request::GetSecret { .. }, Some(s)) if tenant => Decision::Accepted(Some(s)),
                (S3Request::GetSecret { .. }, Some(_)) => {
                    Decision::Rejected("S3_SECRET_ALREADY_EXISTS")
                }
                (S3Request::GetSecret { secret, .. }, None)
                | (S3Request::SetSecret { secret, .. }, Some(_))
                | (S3Request::TenantAssign { secret, .. }, None) => put(secret)?,
                (S3Request::RevokeSecret { .. } | S3Request::TenantRevoke { .. }, Some(_)) => {
                    wrote.set(true);
                    store.delete_unless(actor, java, name, NO_INDEX, id, |_| false)?;
                    Decision::Accepted(None)
                }
                (S3Request::SetSecret { .. }, None) => Decision::Rejected("ACCESS_ID_NOT_FOUND"),
                (S3Request::TenantAssign { .. }, Some(_)) => {
                    Decision::Rejected("TENANT_USER_ACCESS_ID_ALREADY_EXISTS")
                }
                (S3Request::RevokeSecret { .. }, None) => Decision::Rejected("S3_SECRET_NOT_FOUND"),
                (S3Request::TenantRevoke { .. }, None) => Decision::Accepted(None),
            })
        })();
        let called_store = called.get();
        let decision = decided.unwrap_or(Decision::NotReplicated);
        actor.step_with(java, || format!("{request}: leader decides {decision:?}"));
        PreExecuted {
            refused: match decision {
                Decision::Accepted(_) => None,
                Decision::Rejected(status) => Some(status),
                Decision::NotReplicated => Some("store failure"),
            },
            decision: Some(decision),
            called_store,
            wrote_store: wrote.get(),
        }
    }

    /// `validateAndUpdateCache` of the entry at `index` on this OM, against `view` (the rows
    /// this OM applied; the table cache is read first). `Err` is a termination.
    pub fn apply(
        &self,
        actor: &Actor,
        view: &mut Tables<Row>,
        index: u64,
        request: &S3Request,
    ) -> Result<Response, Termination> {
        self.late_probe(actor, index);
        let mut response = Response::new(index, request);
        let java = request.java();
        let id = request.id();
        if self.shared.design.leader_side() {
            let decision = self.shared.decisions.with(|d| d.get(&index).copied());
            return match decision {
                Some(Decision::Accepted(v)) => {
                    self.apply_decided(actor, view, &mut response, request, v)?;
                    Ok(response)
                }
                other => {
                    actor.step_with(java, || {
                        format!("index {index} {request}: {other:?}, nothing to apply")
                    });
                    Ok(response)
                }
            };
        }
        let internal = |e: StoreError| Termination::InternalError(e.0);
        let mut told = None;
        let summary = match *request {
            S3Request::GetSecret { secret, .. } => {
                let _lock = self.secret_lock.lock();
                let (held, found) = self.get_secret(actor, index, id).map_err(internal)?;
                match held {
                    Some(s) if self.tenant_get(actor, view, id).is_some() => {
                        told = Some(Issued::Secret(id, s));
                        format!("{id} is a tenant's: return {s}")
                    }
                    Some(_) => "S3_SECRET_ALREADY_EXISTS (error response)".to_string(),
                    None => {
                        self.cache.write_key(id, |c| c.put(id, secret, index));
                        actor.step_with(&java::S3SecretManager::updateCache, || {
                            format!("index {index}: cache {id} = {secret}@{index}")
                        });
                        self.store_secret(actor, index, id, secret)
                            .map_err(internal)?;
                        if found == Lookup::Hit(None) {
                            actor.probe(&TOMBSTONE_THEN_STORE_WRITE);
                        }
                        told = Some(Issued::Secret(id, secret));
                        format!("created {secret} and stored it at once")
                    }
                }
            }
            S3Request::SetSecret { secret, .. } => {
                let _lock = self.secret_lock.lock();
                let (held, _) = self.get_secret(actor, index, id).map_err(internal)?;
                if held.is_some() {
                    self.cache.write_key(id, |c| c.put(id, secret, index));
                    response.call = Some(FlushCall::Store {
                        id,
                        secret,
                        locked: false,
                    });
                    told = Some(Issued::Secret(id, secret));
                    format!("accepted: cache {id} = {secret}@{index}, store at flush")
                } else {
                    "ACCESS_ID_NOT_FOUND (error response)".to_string()
                }
            }
            S3Request::RevokeSecret { .. } => {
                let _lock = self.secret_lock.lock();
                let (held, _) = self.get_secret(actor, index, id).map_err(internal)?;
                if held.is_some() {
                    let tomb = self.cache.write_key(id, |c| c.invalidate(id));
                    response.call = Some(FlushCall::Revoke { id, locked: false });
                    told = Some(Issued::Revoked(id));
                    format!(
                        "accepted: {}, revoke at flush",
                        if tomb {
                            "cache tombstone (old index kept)"
                        } else {
                            "not cached, no tombstone"
                        }
                    )
                } else {
                    "status S3_SECRET_NOT_FOUND (no store call)".to_string()
                }
            }
            S3Request::TenantAssign { tenant, secret, .. } => {
                if self.tenant_get(actor, view, id).is_some() {
                    "TENANT_USER_ACCESS_ID_ALREADY_EXISTS in tenant table (error response)"
                        .to_string()
                } else {
                    let row = Row::AccessIdInfo { tenant };
                    self.tenant.write_key(id, |c| c.add(id, Some(row), index));
                    self.principal
                        .write_key(id, |c| c.add(id, Some(row), index));
                    actor.step_with(&java::TypedTable::addCacheEntry, || {
                        format!("index {index}: tenant-table cache {id} = {row}@{index}")
                    });
                    let _lock = self.secret_lock.lock();
                    let (held, _) = self.get_secret(actor, index, id).map_err(|e| {
                        self.leaked.with(|l| l.push((id, index)));
                        internal(e)
                    })?;
                    if held.is_some() {
                        self.leaked.with(|l| l.push((id, index)));
                        "store holds a secret: TENANT_USER_ACCESS_ID_ALREADY_EXISTS (error \
                         response; the tenant-table cache entry stays)"
                            .to_string()
                    } else {
                        view.put(TENANT_ACCESS_ID_TABLE, id, row);
                        response.rows.put(TENANT_ACCESS_ID_TABLE, id, row);
                        self.cache.write_key(id, |c| c.put(id, secret, index));
                        response.call = Some(FlushCall::Store {
                            id,
                            secret,
                            locked: true,
                        });
                        told = Some(Issued::Secret(id, secret));
                        format!("accepted: cache {id} = {secret}@{index}, store at flush")
                    }
                }
            }
            S3Request::TenantRevoke { .. } => {
                self.delete_access_id_info(actor, java, view, &mut response, id)?;
                let tomb = self.cache.write_key(id, |c| c.invalidate(id));
                response.call = Some(FlushCall::Revoke { id, locked: true });
                told = Some(Issued::Revoked(id));
                format!(
                    "accepted: tenant entry deleted, {} (no lock), revoke at flush",
                    if tomb {
                        "cache tombstone"
                    } else {
                        "not cached"
                    }
                )
            }
        };
        actor.step_with(java, || format!("index {index} {request}: {summary}"));
        if let Some(t) = told {
            let leader = self.leader.with(|l| *l);
            self.shared.applied(self.name, index, t, leader);
        }
        Ok(response)
    }

    /// `OMTenantRevokeUserAccessIdRequest`'s `requireNonNull(omDBAccessIdInfo)`: delete the
    /// tenant entry (a table-cache tombstone and the row), or terminate the OM with the NPE
    /// when it is absent.
    fn delete_access_id_info(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        view: &mut Tables<Row>,
        response: &mut Response,
        id: AccessId,
    ) -> Result<(), Termination> {
        let java: Label = java.into();
        if self.tenant_get(actor, view, id).is_none() {
            let npe = format!("NullPointerException: omDBAccessIdInfo == null for {id}");
            actor.step_with(java, || format!("index {}: {npe}", response.index));
            return Err(Termination::Throwable(npe));
        }
        // `getPrincipalToAccessIdsTable().getIfExist`: its table cache, else the DB row,
        // written with the access id's.
        let principal = match self.principal.read_key(id, |c| c.lookup(id)) {
            TableLookup::Hit(row) => row.is_some(),
            TableLookup::Miss => view.get(TENANT_ACCESS_ID_TABLE, id).is_some(),
        };
        if !principal {
            actor.probe(&PRINCIPAL_EVICTED_FIRST);
            let npe = format!("NullPointerException: principalInfo == null for {id}");
            actor.step_with(java, || format!("index {}: {npe}", response.index));
            return Err(Termination::Throwable(npe));
        }
        self.principal
            .write_key(id, |c| c.add(id, None, response.index));
        self.tenant
            .write_key(id, |c| c.add(id, None, response.index));
        view.delete(TENANT_ACCESS_ID_TABLE, id);
        response.rows.delete(TENANT_ACCESS_ID_TABLE, id);
        Ok(())
    }

    /// `leader-side` apply of an accepted entry: caches and the OM's DB only, with the
    /// replicated secret row.
    fn apply_decided(
        &self,
        actor: &Actor,
        view: &mut Tables<Row>,
        response: &mut Response,
        request: &S3Request,
        value: Option<Secret>,
    ) -> Result<(), Termination> {
        let (java, id, index) = (request.java(), request.id(), response.index);
        match *request {
            S3Request::TenantAssign { tenant, .. } => {
                let row = Row::AccessIdInfo { tenant };
                view.put(TENANT_ACCESS_ID_TABLE, id, row);
                response.rows.put(TENANT_ACCESS_ID_TABLE, id, row);
            }
            S3Request::TenantRevoke { .. } => {
                self.delete_access_id_info(actor, java, view, response, id)?;
            }
            _ => {}
        }
        let row = Row::Secret {
            secret: value,
            index,
        };
        view.put(S3_SECRET_TABLE, id, row);
        response.rows.put(S3_SECRET_TABLE, id, row);
        {
            let _lock = self.secret_lock.lock();
            self.cache.write_key(id, |cache| match value {
                Some(s) => cache.put(id, s, index),
                None => {
                    cache.invalidate(id);
                }
            });
        }
        actor.step_with(
            java,
            || format!("index {index} {request}: apply the leader's decision {value:?} (caches and DB only)"),
        );
        let told = match value {
            Some(s) => Issued::Secret(id, s),
            None => Issued::Revoked(id),
        };
        let leader = self.leader.with(|l| *l);
        self.shared.applied(self.name, index, told, leader);
        Ok(())
    }

    /// `leader-side-reconciled` and `leader-side-periodic`: a ready leader makes the store
    /// equal its replicated rows (put the secret, or delete a revoked one), under the lock a
    /// request holds from `preExecute` to its apply, so that no pre-executed request of the
    /// id is between its store call and its apply (as `OMRangerBGSyncService` takes the
    /// authorizer lock: [`OMRangerBGSyncService.triggerRangerSyncOnce`](java::OMRangerBGSyncService::triggerRangerSyncOnce)).
    pub fn reconcile(&self, actor: &Actor) {
        self.gate.acquire();
        let rows = self.db.scan(actor, RECONCILE);
        self.reconcile_rows(actor, &rows);
    }

    /// [`Om::reconcile`] from the rows this OM has applied (`view`), flushed or not, as a
    /// leader with its own flush thread reads them through the table cache.
    pub fn reconcile_applied(&self, actor: &Actor, view: &Tables<Row>) {
        self.gate.acquire();
        actor.step_with(RECONCILE, || format!("read the applied rows {view}"));
        self.reconcile_rows(actor, view);
    }

    fn reconcile_rows(&self, actor: &Actor, rows: &Tables<Row>) {
        const JAVA: Label = RECONCILE;
        let lock = self.secret_lock.lock();
        let store = &self.shared.store;
        for (table, id, row) in rows.iter() {
            let (S3_SECRET_TABLE, Row::Secret { secret, index }) = (table, row) else {
                continue;
            };
            let _ = match secret {
                Some(s) => store.put(
                    actor,
                    JAVA,
                    self.name,
                    *index,
                    id,
                    StoredSecret {
                        secret: *s,
                        index: *index,
                        revoked: false,
                    },
                ),
                None => store
                    .delete_unless(actor, JAVA, self.name, *index, id, |_| false)
                    .map(|_| ()),
            };
        }
        drop(lock);
        self.gate.release();
    }

    /// `OzoneManagerDoubleBuffer.add`; false once the OM is gone.
    pub fn add(&self, actor: &Actor, response: Response) -> bool {
        self.buffer.add(actor, response)
    }

    /// `ExitUtils.terminate`.
    pub fn terminate(&self, actor: &Actor, why: &Termination) {
        self.buffer.terminate();
        actor.step_with(
            &java::ExitUtils::terminate__int_String_Throwable_Logger,
            || format!("{} terminates: {why}", self.name),
        );
        self.shared
            .terminations
            .update(|t| t.push(format!("{}: {why}", self.name)));
    }

    /// An orderly stop of the flush thread (`OzoneManagerDoubleBuffer.stop`).
    pub fn stop(&self, actor: &Actor, why: &str) {
        self.buffer.stop(actor, why);
    }

    /// The process crashes: responses not swapped are lost.
    pub fn crash(&self, actor: &Actor, why: &str) {
        self.buffer.crash(actor, why);
    }

    /// Whether the OM is gone: terminated or crashed.
    pub fn down(&self) -> bool {
        self.buffer.life().gone()
    }

    /// Whether the OM terminated.
    pub fn terminated(&self) -> bool {
        self.buffer.life() == Life::Terminated
    }

    /// After an orderly stop: the responses never swapped, for a final flush.
    pub fn take_unflushed(&self) -> Vec<Response> {
        self.buffer.take_unflushed()
    }

    /// `flushBatch` of `ready`: the store calls of `addToDBBatch`, the batch commit with the
    /// last index, then `cleanupCache`: the secret cache's `clearCache` of the flushed indices
    /// and the tenant table's eviction of the flushed epochs.
    pub fn flush(&self, actor: &Actor, ready: Vec<Response>) -> Result<(), Termination> {
        const JAVA: &Citation = &java::OzoneManagerDoubleBuffer::flushBatch;
        let Some(last) = ready.iter().map(|r| r.index).max() else {
            return Ok(());
        };
        let mut batch = WriteBatch::new();
        let mut errors = Vec::new();
        let mut epochs = Vec::new();
        let mut tenant_epochs = Vec::new();
        for r in ready {
            self.late_probe(actor, r.index);
            if let Some(call) = r.call {
                let (java, locked): (&Citation, bool) = match call {
                    FlushCall::Store { locked, .. } => (
                        if locked {
                            &java::OMTenantAssignUserAccessIdResponse::addToDBBatch
                        } else {
                            &java::OMSetSecretResponse::addToDBBatch
                        },
                        locked,
                    ),
                    FlushCall::Revoke { locked, .. } => (
                        if locked {
                            &java::OMTenantRevokeUserAccessIdResponse::addToDBBatch
                        } else {
                            &java::S3RevokeSecretResponse::addToDBBatch
                        },
                        locked,
                    ),
                };
                actor.step_with(java, || format!("index {}: {call}", r.index));
                let _lock = locked.then(|| self.secret_lock.lock());
                let done = match call {
                    FlushCall::Store { id, secret, .. } => {
                        self.store_secret(actor, r.index, id, secret)
                    }
                    FlushCall::Revoke { id, .. } => self.revoke_secret(actor, r.index, id),
                };
                done.map_err(|e| Termination::FlushFailure(e.0))?;
            }
            if r.internal_error {
                errors.push(r.index);
            }
            epochs.push(r.index);
            if r.tenant_epoch {
                tenant_epochs.push(r.index);
            }
            batch.append(r.rows);
        }
        stage_tx_info(&mut batch, 0, last);
        self.db.commit(actor, JAVA, batch);
        if !errors.is_empty() {
            actor.probe(&ERROR_FLUSHED);
        }
        // `clearS3Cache`: the index -> key map, then an unconditional invalidate per key.
        let keys = self.cache.read(|c| c.keys_at(&epochs));
        actor.step_with(&java::S3InMemoryCache::clearCache, || {
            format!("flushed {epochs:?}: evict secret cache entries {keys:?}")
        });
        for id in keys {
            self.cache.write_key(id, |c| c.evict(id));
        }
        if !tenant_epochs.is_empty() {
            // `PartialTableCache.cleanup` runs `evictCache` on each table's own executor, so
            // the two evictions are not ordered. The principal table's first: an apply
            // between the two then finds the access id without its principal; the other
            // order only adds states in which the access id is already gone, where the
            // revoke throws on it first.
            let gone = self.principal.write(|c| c.evict(&tenant_epochs));
            actor.step_with(
                Label::model("principal-table cache eviction (its cleanup executor)"),
                || format!("epochs {tenant_epochs:?}: evict {gone:?}"),
            );
            let gone = self.tenant.write(|c| c.evict(&tenant_epochs));
            self.leaked
                .with(|l| l.retain(|(_, epoch)| !tenant_epochs.contains(epoch)));
            actor.step_with(
                Label::model("access-id-table cache eviction (its cleanup executor)"),
                || format!("epochs {tenant_epochs:?}: evict {gone:?}"),
            );
        }
        Ok(())
    }

    /// The `OMDoubleBufferFlushThread` loop.
    pub fn flush_thread(&self, actor: &Actor) {
        while let Some(ready) = self.buffer.next_batch(actor) {
            if let Err(why) = self.flush(actor, ready) {
                self.terminate(actor, &why);
                return;
            }
        }
    }

    /// The apply thread's handling of one entry with a separate flush thread: apply and
    /// queue the response; on INTERNAL_ERROR queue the error response, then terminate; on a
    /// `Throwable`, terminate. Returns whether the OM is still applying.
    pub fn apply_and_queue(
        &self,
        actor: &Actor,
        view: &mut Tables<Row>,
        index: u64,
        request: &S3Request,
    ) -> bool {
        match self.apply(actor, view, index, request) {
            Ok(response) => self.add(actor, response),
            Err(why) => {
                if let Termination::InternalError(_) = why {
                    self.add(actor, error_response(index, request));
                }
                self.terminate(actor, &why);
                false
            }
        }
    }

    /// Apply and flush one entry on the calling thread (an OM whose flush keeps up, or a
    /// replay). An INTERNAL_ERROR terminates before its error response is flushed. Returns
    /// whether the OM is still applying.
    pub fn apply_and_flush(
        &self,
        actor: &Actor,
        view: &mut Tables<Row>,
        index: u64,
        request: &S3Request,
    ) -> bool {
        let done = self
            .apply(actor, view, index, request)
            .and_then(|response| self.flush(actor, vec![response]));
        match done {
            Ok(()) => true,
            Err(why) => {
                self.terminate(actor, &why);
                false
            }
        }
    }
}

fn at(index: u64) -> String {
    if index == NO_INDEX {
        "preExecute".to_string()
    } else {
        format!("index {index}")
    }
}

fn error_response(index: u64, request: &S3Request) -> Response {
    Response {
        internal_error: true,
        ..Response::new(index, request)
    }
}

/// Restart `name` over `db` (`OzoneManager.start`: reopen, `loadSnapshotInfoFromDB`) and
/// replay every entry after its stored index, each applied and flushed in order. Returns the
/// restarted OM (terminated again if the replay hit a termination).
pub fn restart_and_replay(
    name: &'static str,
    shared: &Arc<Shared>,
    db: &Arc<Store<Row>>,
    log: &RaftLog<S3Request>,
    actor: &Actor,
) -> Om {
    let (stored, mut view) = load_snapshot_info(db, actor, &format!("{name} restarts: "));
    let om = Om::new(name, false, Arc::clone(shared), Arc::clone(db));
    for (entry, request) in data_after(log, stored) {
        if !om.apply_and_flush(actor, &mut view, entry.index, request) {
            break;
        }
    }
    om
}

/// A fresh OM's DB.
pub fn fresh_db() -> Arc<Store<Row>> {
    Arc::new(Store::with_state(initial_tables(), None))
}

/// A fresh OM's DB holding `rows` of `S3_SECRET_TABLE` written at index 0: a leader-side
/// ring whose replicated rows match what the store starts with.
pub fn seeded_db(rows: &[(AccessId, StoredSecret)]) -> Arc<Store<Row>> {
    let mut t = initial_tables();
    for (id, v) in rows {
        t.put(
            S3_SECRET_TABLE,
            id,
            Row::Secret {
                secret: Some(v.secret),
                index: v.index,
            },
        );
    }
    Arc::new(Store::with_state(t, None))
}
