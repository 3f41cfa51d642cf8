//! One OM: its own DB, its secret cache, its S3_SECRET_LOCK, its double buffer and flush
//! thread; and the shared external store it calls.
//!
//! The apply path stands for `OzoneManagerStateMachine.runCommand` ->
//! `RequestHandler.handleWriteRequest` -> `validateAndUpdateCache`, then
//! `OzoneManagerDoubleBuffer.add`; the flush path for `flushTransactions`: each response's
//! `addToDBBatch` (where the non-batch store is called at once), the batch commit with
//! `TRANSACTION_INFO_KEY`, then `cleanupCache` (the secret cache's `clearCache`).
//!
//! A terminated OM (`ExitUtils.terminate`) is a flag: its apply thread stops applying and its
//! flush thread stops at its next swap. A flush already swapped completes: the JVM's exit is
//! not instant, and a commit that lands before it is exactly what the seed's "error response
//! flushed before the termination" needs. A crash ([`Om::stop`] without a final flush) loses
//! every response not yet swapped. A restart is a new [`Om`] over the same DB: the cache and
//! the table cache are gone, and the OM replays the log after its stored index.
//!
//! Abstracted away: the S3_SECRET_LOCK is one lock per OM (the plans use at most two ids, and
//! the lock orders only one OM's apply against its own flush: the OMs do not share it); the
//! volume lock of the tenant requests (the single apply thread already orders them); Ratis
//! (the log is committed up front; per OM only how far it applied differs).

use super::cache::{Lookup, SecretCache};
use super::requests::{Decision, FlushCall, Issued, S3Request, Termination};
use super::{initial_tables, AccessId, Design, Row, Secret, StoredSecret, TENANT_ACCESS_ID_TABLE};
use crate::cite::{java, Citation, Label};
use crate::kit::external_store::{ExternalStore, Fault, StoreError};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::models::om::double_buffer::{DoubleBuffer, Indexed, Life};
use crate::models::om::startup::{data_after, load_snapshot_info};
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex};
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

/// What every OM of a plan shares: the external store, and ghost bookkeeping of what the
/// clients were told, the terminations, and the leader's decisions (part of the entries).
pub struct Shared {
    store: ExternalStore<StoredSecret>,
    design: Design,
    issued: Ghost<BTreeMap<AccessId, Option<Secret>>>,
    terminations: Ghost<Vec<String>>,
    decisions: Ghost<BTreeMap<u64, Decision>>,
    error_flushed: Ghost<Vec<u64>>,
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
            terminations: Ghost::new(Vec::new()),
            decisions: Ghost::new(BTreeMap::new()),
            error_flushed: Ghost::new(Vec::new()),
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

    /// Every termination so far, as `om: why`.
    pub fn terminations(&self) -> Vec<String> {
        self.terminations.get()
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
    /// The store call its `addToDBBatch` makes, if any.
    pub call: Option<FlushCall>,
    /// Whether it is an INTERNAL_ERROR response.
    pub internal_error: bool,
}

impl Indexed for Response {
    fn index(&self) -> u64 {
        self.index
    }
}

/// One OM.
pub struct Om {
    name: &'static str,
    leader: bool,
    shared: Arc<Shared>,
    db: Arc<Store<Row>>,
    cache: Mutex<SecretCache>,
    secret_lock: Mutex<()>,
    buffer: DoubleBuffer<Response>,
}

impl Om {
    /// An OM called `name` over `db`. A `leader`'s applies (or, in `leader-side`, its
    /// `preExecute`s) are what the clients are told.
    pub fn new(name: &'static str, leader: bool, shared: Arc<Shared>, db: Arc<Store<Row>>) -> Self {
        Self {
            name,
            leader,
            shared,
            db,
            cache: Mutex::new(SecretCache::default()),
            secret_lock: Mutex::new(()),
            buffer: DoubleBuffer::new(),
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its DB.
    pub fn db(&self) -> &Arc<Store<Row>> {
        &self.db
    }

    fn late_probe(&self, actor: &Actor, index: u64) {
        if self.shared.store.high_water() > index {
            actor.probe(&LATE_APPLY);
        }
    }

    /// `S3SecretManager.getSecret` / `hasS3Secret`: the cache, else the store.
    fn lookup(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        index: u64,
        id: AccessId,
    ) -> Result<(Option<Secret>, Lookup), StoreError> {
        let java: Label = java.into();
        let found = self.cache.lock().lookup(id);
        match found {
            Lookup::Hit(v) => {
                let shown = v.map_or("tombstone".to_string(), |s| s.to_string());
                actor.step(java, format!("index {index}: cache hit {id} = {shown}"));
                Ok((v, found))
            }
            Lookup::Miss => {
                let v = self
                    .shared
                    .store
                    .get(actor, java, self.name, index, id)?
                    .map(|s| s.secret);
                Ok((v, found))
            }
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
        let value = StoredSecret { secret, index };
        let guarded = self.shared.design == Design::IndexPerSecret;
        let wrote =
            self.shared
                .store
                .put_unless(actor, java, self.name, index, id, value, |old| {
                    guarded && old.index > index
                })?;
        if !wrote {
            actor.probe(&STALE_WRITE_REFUSED);
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
        self.shared
            .store
            .delete_unless(actor, java, self.name, index, id, |old| {
                newer.set(old.index > index);
                guarded && old.index > index
            })?;
        if newer.get() {
            actor.probe(&FLUSH_REVOKES_NEWER_SECRET);
            if guarded {
                actor.probe(&STALE_WRITE_REFUSED);
            }
        }
        Ok(())
    }

    /// `leader-side`: the leader's `preExecute` calls the store once and decides; the decision
    /// goes into the entry. A store failure is a clean error: the entry is not replicated.
    pub fn pre_execute(&self, actor: &Actor, index: u64, request: &S3Request) -> Decision {
        let java = request.pre_execute_java();
        let _lock = self.secret_lock.lock();
        let store = &self.shared.store;
        let id = request.id();
        let decided = (|| -> Result<Decision, StoreError> {
            let held = store
                .get(actor, java, self.name, index, id)?
                .map(|s| s.secret);
            Ok(match (*request, held) {
                (S3Request::GetSecret { .. }, Some(s)) => Decision::Accepted(Some(s)),
                (S3Request::GetSecret { secret, .. }, None)
                | (S3Request::SetSecret { secret, .. }, Some(_))
                | (S3Request::TenantAssign { secret, .. }, None) => {
                    store.put(
                        actor,
                        java,
                        self.name,
                        index,
                        id,
                        StoredSecret { secret, index },
                    )?;
                    Decision::Accepted(Some(secret))
                }
                (S3Request::RevokeSecret { .. } | S3Request::TenantRevoke { .. }, Some(_)) => {
                    store.delete_unless(actor, java, self.name, index, id, |_| false)?;
                    Decision::Accepted(None)
                }
                (S3Request::SetSecret { .. }, None) => Decision::Rejected("ACCESS_ID_NOT_FOUND"),
                (S3Request::TenantAssign { .. }, Some(_)) => {
                    Decision::Rejected("TENANT_USER_ACCESS_ID_ALREADY_EXISTS")
                }
                (S3Request::RevokeSecret { .. } | S3Request::TenantRevoke { .. }, None) => {
                    Decision::Rejected("S3_SECRET_NOT_FOUND")
                }
            })
        })();
        let decision = decided.unwrap_or(Decision::NotReplicated);
        actor.step(
            java,
            format!("index {index} {request}: leader decides {decision:?}"),
        );
        if self.leader {
            if let Decision::Accepted(v) = decision {
                self.shared.issue(match v {
                    Some(s) => Issued::Secret(id, s),
                    None => Issued::Revoked(id),
                });
            }
        }
        self.shared.decisions.with(|d| d.insert(index, decision));
        decision
    }

    /// `validateAndUpdateCache` of the entry at `index` on this OM, against `view` (the OM's
    /// tables with their table cache). `Err` is a termination.
    pub fn apply(
        &self,
        actor: &Actor,
        view: &mut Tables<Row>,
        index: u64,
        request: &S3Request,
    ) -> Result<Response, Termination> {
        self.late_probe(actor, index);
        let mut response = Response {
            index,
            rows: WriteBatch::new(),
            call: None,
            internal_error: false,
        };
        let java = request.java();
        let id = request.id();
        if self.shared.design == Design::LeaderSide {
            let decision = self.shared.decisions.with(|d| d.get(&index).copied());
            return match decision {
                Some(Decision::Accepted(v)) => {
                    self.apply_decided(actor, view, &mut response, request, v)?;
                    Ok(response)
                }
                other => {
                    actor.step(
                        java,
                        format!("index {index} {request}: {other:?}, nothing to apply"),
                    );
                    Ok(response)
                }
            };
        }
        let internal = |e: StoreError| Termination::InternalError(e.0);
        let mut told = None;
        let summary = match *request {
            S3Request::GetSecret { secret, .. } => {
                let _lock = self.secret_lock.lock();
                let (held, found) = self.lookup(actor, java, index, id).map_err(internal)?;
                match held {
                    Some(s) => {
                        told = Some(Issued::Secret(id, s));
                        format!("{id} exists: return {s}")
                    }
                    None => {
                        self.cache.lock().update(id, secret, index);
                        actor.step(java, format!("index {index}: cache {id} = {secret}"));
                        self.store_write(actor, java, index, id, secret)
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
                let (held, _) = self.lookup(actor, java, index, id).map_err(internal)?;
                if held.is_some() {
                    self.cache.lock().update(id, secret, index);
                    response.call = Some(FlushCall::Store(id, secret));
                    told = Some(Issued::Secret(id, secret));
                    format!("accepted: cache {id} = {secret}, store at flush")
                } else {
                    "ACCESS_ID_NOT_FOUND (error response)".to_string()
                }
            }
            S3Request::RevokeSecret { .. } => {
                let _lock = self.secret_lock.lock();
                let (held, _) = self.lookup(actor, java, index, id).map_err(internal)?;
                if held.is_some() {
                    let tomb = self.cache.lock().invalidate(id, index);
                    response.call = Some(FlushCall::Revoke(id));
                    told = Some(Issued::Revoked(id));
                    format!(
                        "accepted: {}, revoke at flush",
                        if tomb {
                            "cache tombstone"
                        } else {
                            "not cached, no tombstone"
                        }
                    )
                } else {
                    "S3_SECRET_NOT_FOUND (error response)".to_string()
                }
            }
            S3Request::TenantAssign { tenant, secret, .. } => {
                if view.get(TENANT_ACCESS_ID_TABLE, id).is_some() {
                    "TENANT_USER_ACCESS_ID_ALREADY_EXISTS in tenant table (error response)"
                        .to_string()
                } else {
                    let _lock = self.secret_lock.lock();
                    let (held, _) = self.lookup(actor, java, index, id).map_err(internal)?;
                    if held.is_some() {
                        "store holds a secret: TENANT_USER_ACCESS_ID_ALREADY_EXISTS (error response)".to_string()
                    } else {
                        let row = Row::AccessIdInfo { tenant };
                        view.put(TENANT_ACCESS_ID_TABLE, id, row);
                        response.rows.put(TENANT_ACCESS_ID_TABLE, id, row);
                        self.cache.lock().update(id, secret, index);
                        response.call = Some(FlushCall::Store(id, secret));
                        told = Some(Issued::Secret(id, secret));
                        format!("accepted: tenant entries, cache {id} = {secret}, store at flush")
                    }
                }
            }
            S3Request::TenantRevoke { .. } => {
                delete_access_id_info(actor, java, view, &mut response, id)?;
                let _lock = self.secret_lock.lock();
                self.cache.lock().invalidate(id, index);
                response.call = Some(FlushCall::Revoke(id));
                told = Some(Issued::Revoked(id));
                "accepted: tenant entries deleted, cache invalidated, revoke at flush".to_string()
            }
        };
        actor.step(java, format!("index {index} {request}: {summary}"));
        if self.leader {
            if let Some(t) = told {
                self.shared.issue(t);
            }
        }
        Ok(response)
    }

    /// `leader-side` apply of an accepted entry: caches and the OM's DB only.
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
                delete_access_id_info(actor, java, view, response, id)?;
            }
            _ => {}
        }
        let _lock = self.secret_lock.lock();
        let mut cache = self.cache.lock();
        match value {
            Some(s) => cache.update(id, s, index),
            None => {
                cache.invalidate(id, index);
            }
        }
        actor.step(java, format!("index {index} {request}: apply the leader's decision {value:?} (caches and DB only)"));
        Ok(())
    }

    /// `OzoneManagerDoubleBuffer.add`; false once the OM stopped or terminated.
    pub fn add(&self, actor: &Actor, response: Response) -> bool {
        self.buffer.add(actor, response)
    }

    /// `ExitUtils.terminate`.
    pub fn terminate(&self, actor: &Actor, why: &Termination) {
        self.buffer.terminate();
        actor.step(
            &java::ExitUtils::terminate__int_String_Throwable_Logger,
            format!("{} terminates: {why}", self.name),
        );
        self.shared
            .terminations
            .with(|t| t.push(format!("{}: {why}", self.name)));
    }

    /// Stop the flush thread (a crash, or the start of an orderly stop).
    pub fn stop(&self, actor: &Actor, why: &str) {
        self.buffer.stop(actor, why);
    }

    /// Whether the OM terminated.
    pub fn terminated(&self) -> bool {
        self.buffer.life() == Life::Terminated
    }

    /// After an orderly stop: the responses never swapped, for a final flush.
    pub fn take_unflushed(&self) -> Vec<Response> {
        self.buffer.take_unflushed()
    }

    /// `flushTransactions` of `ready`: the store calls of `addToDBBatch`, the batch commit
    /// with the last index, then the secret cache's `clearCache`.
    pub fn flush(&self, actor: &Actor, ready: Vec<Response>) -> Result<(), Termination> {
        const JAVA: &Citation = &java::OzoneManagerDoubleBuffer::flushTransactions;
        let Some(last) = ready.last().map(|r| r.index) else {
            return Ok(());
        };
        let mut batch = WriteBatch::new();
        let mut errors = Vec::new();
        for r in ready {
            self.late_probe(actor, r.index);
            if let Some(call) = r.call {
                let java = match call {
                    FlushCall::Store(..) => &java::S3SecretManager::storeSecret,
                    FlushCall::Revoke(..) => &java::S3SecretManager::revokeSecret,
                };
                let _lock = self.secret_lock.lock();
                let done = match call {
                    FlushCall::Store(id, s) => self.store_write(actor, java, r.index, id, s),
                    FlushCall::Revoke(id) => self.store_revoke(actor, java, r.index, id),
                };
                done.map_err(|e| Termination::FlushFailure(e.0))?;
            }
            if r.internal_error {
                errors.push(r.index);
            }
            batch.append(r.rows);
        }
        stage_tx_info(&mut batch, 0, last);
        self.db.commit(actor, JAVA, batch);
        if !errors.is_empty() {
            actor.probe(&ERROR_FLUSHED);
            self.shared.error_flushed.with(|e| e.extend(errors));
        }
        self.cache.lock().evict_through(last);
        actor.step(
            &java::S3SecretCache::clearCache,
            format!("evict secret cache entries at or below {last}"),
        );
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
                    self.add(actor, error_response(index));
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

fn error_response(index: u64) -> Response {
    Response {
        index,
        rows: WriteBatch::new(),
        call: None,
        internal_error: true,
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

/// `OMTenantRevokeUserAccessIdRequest`'s `requireNonNull(omDBAccessIdInfo)`: delete the
/// tenant entry, or terminate the OM with the NPE when it is absent.
fn delete_access_id_info(
    actor: &Actor,
    java: impl Into<Label>,
    view: &mut Tables<Row>,
    response: &mut Response,
    id: &str,
) -> Result<(), Termination> {
    let java: Label = java.into();
    if view.get(TENANT_ACCESS_ID_TABLE, id).is_none() {
        let npe = format!("NullPointerException: omDBAccessIdInfo == null for {id}");
        actor.step(java, format!("index {}: {npe}", response.index));
        return Err(Termination::Throwable(npe));
    }
    view.delete(TENANT_ACCESS_ID_TABLE, id);
    response.rows.delete(TENANT_ACCESS_ID_TABLE, id);
    Ok(())
}
