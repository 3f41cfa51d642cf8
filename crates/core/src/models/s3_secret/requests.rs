//! The five requests: what each does at apply time (`validateAndUpdateCache`) and at flush
//! time (the response's `addToDBBatch`, called only for an OK response:
//! [`OMClientResponse.checkAndUpdateDB`](java::OMClientResponse::checkAndUpdateDB)), at
//! 78d5650c313. "Assigned to a tenant" is
//! [`getTenantForAccessID`](java::OMMultiTenantManagerImpl::getTenantForAccessID), a read of
//! `tenantAccessIdTable`; `multiTenantManager` is null without multi-tenancy, which counts as
//! not assigned.
//!
//! | request | at apply time | at flush time |
//! |---|---|---|
//! | [`S3GetSecretRequest`](java::S3GetSecretRequest::validateAndUpdateCache) | under the id's lock: `getSecret` (cache; on a miss the store, and a hit is cached at index 0); absent: cache the new secret, then the inner `storeSecret` (store, then cache again); present and the id assigned to a tenant: return it; present otherwise: `S3_SECRET_ALREADY_EXISTS` | nothing (no batch support) |
//! | [`OMSetSecretRequest`](java::OMSetSecretRequest::validateAndUpdateCache) | under the id's lock: `hasS3Secret` (as `getSecret`); absent: `ACCESS_ID_NOT_FOUND`; present: cache the new secret | the inner manager's `storeSecret`, with no lock |
//! | [`S3RevokeSecretRequest`](java::S3RevokeSecretRequest::validateAndUpdateCache) | under the id's lock: `hasS3Secret`; present: `invalidateCacheEntry` (a tombstone keeping the old index, if cached); absent: status `S3_SECRET_NOT_FOUND` | the inner manager's `revokeSecret` (store, then invalidate), with no lock |
//! | [`OMTenantAssignUserAccessIdRequest`](java::OMTenantAssignUserAccessIdRequest::validateAndUpdateCache) | the id in `tenantAccessIdTable`: `TENANT_USER_ACCESS_ID_ALREADY_EXISTS`; else add the tenant-table cache entries, then under the id's lock `hasS3Secret`: present, `TENANT_USER_ACCESS_ID_ALREADY_EXISTS` with the cache entries left in place; absent, cache the new secret | the locked manager's `storeSecret` (under the id's lock), tenant rows |
//! | [`OMTenantRevokeUserAccessIdRequest`](java::OMTenantRevokeUserAccessIdRequest::validateAndUpdateCache) | `requireNonNull(omDBAccessIdInfo)` (an NPE if absent, uncaught: `runCommand` terminates the OM); a tenant-table tombstone; `invalidateCacheEntry` with no lock | the locked manager's `revokeSecret` (under the id's lock), tenant row deleted |
//!
//! Every one of these responses names `S3_SECRET_TABLE` for cleanup, success or error
//! ([`addCleanupEntry`](java::OzoneManagerDoubleBuffer::addCleanupEntry) reads the response
//! class's annotation), so the flush evicts the secret-cache entry of each flushed index; the
//! tenant responses also name the tenant tables, whose table cache is evicted by epoch,
//! asynchronously.
//!
//! The outcome of applying: a response (rows for the OM's DB, and at most one store call for
//! the flush), an error response (no rows), or one of the two termination paths: a store
//! `IOException` that `exceptionToResponseStatus` maps to INTERNAL_ERROR, which
//! `processResponse` terminates on after `handleWriteRequest` queued the error response; and
//! a `Throwable` (the NPE) that `runCommand` catches and terminates on, with no response.

use super::{AccessId, Secret};
use crate::citation::{java, Citation};
use std::fmt;

/// A request in the replicated log. Secrets in it were drawn by the leader's `preExecute`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S3Request {
    /// `S3GetSecretRequest` with createIfNotExist.
    GetSecret {
        /// Access id.
        id: AccessId,
        /// The secret to create if none exists.
        secret: Secret,
    },
    /// `OMSetSecretRequest`.
    SetSecret {
        /// Access id.
        id: AccessId,
        /// The new secret.
        secret: Secret,
    },
    /// `S3RevokeSecretRequest`.
    RevokeSecret {
        /// Access id.
        id: AccessId,
    },
    /// `OMTenantAssignUserAccessIdRequest`.
    TenantAssign {
        /// Access id.
        id: AccessId,
        /// Tenant.
        tenant: &'static str,
        /// The secret to create.
        secret: Secret,
    },
    /// `OMTenantRevokeUserAccessIdRequest`.
    TenantRevoke {
        /// Access id.
        id: AccessId,
    },
}

impl S3Request {
    /// The access id it acts on.
    pub fn id(&self) -> AccessId {
        match self {
            S3Request::GetSecret { id, .. }
            | S3Request::SetSecret { id, .. }
            | S3Request::RevokeSecret { id }
            | S3Request::TenantAssign { id, .. }
            | S3Request::TenantRevoke { id } => id,
        }
    }

    /// The Java method its apply stands for.
    pub fn java(&self) -> &'static Citation {
        match self {
            S3Request::GetSecret { .. } => &java::S3GetSecretRequest::validateAndUpdateCache,
            S3Request::SetSecret { .. } => &java::OMSetSecretRequest::validateAndUpdateCache,
            S3Request::RevokeSecret { .. } => &java::S3RevokeSecretRequest::validateAndUpdateCache,
            S3Request::TenantAssign { .. } => {
                &java::OMTenantAssignUserAccessIdRequest::validateAndUpdateCache
            }
            S3Request::TenantRevoke { .. } => {
                &java::OMTenantRevokeUserAccessIdRequest::validateAndUpdateCache
            }
        }
    }

    /// The Java method its `preExecute` stands for.
    pub fn pre_execute_java(&self) -> &'static Citation {
        match self {
            S3Request::GetSecret { .. } => &java::S3GetSecretRequest::preExecute,
            S3Request::SetSecret { .. } => &java::OMSetSecretRequest::preExecute,
            S3Request::RevokeSecret { .. } => &java::S3RevokeSecretRequest::preExecute,
            S3Request::TenantAssign { .. } => &java::OMTenantAssignUserAccessIdRequest::preExecute,
            S3Request::TenantRevoke { .. } => &java::OMTenantRevokeUserAccessIdRequest::preExecute,
        }
    }
}

impl fmt::Display for S3Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            S3Request::GetSecret { id, secret } => write!(f, "GetSecret {id} (new {secret})"),
            S3Request::SetSecret { id, secret } => write!(f, "SetSecret {id}={secret}"),
            S3Request::RevokeSecret { id } => write!(f, "RevokeSecret {id}"),
            S3Request::TenantAssign { id, tenant, secret } => {
                write!(f, "TenantAssign {id} to {tenant} (new {secret})")
            }
            S3Request::TenantRevoke { id } => write!(f, "TenantRevoke {id}"),
        }
    }
}

/// What the leader's `preExecute` did to a request on its RPC handler thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreExecuted {
    /// `Some(status)`: refused; the client gets the error and nothing is replicated.
    pub refused: Option<&'static str>,
    /// `leader-side`: the decision the entry carries.
    pub decision: Option<Decision>,
    /// Whether it called the external store.
    pub called_store: bool,
    /// Whether it called the store to change it (the change may have taken effect even
    /// when the call failed: a lost reply).
    pub wrote_store: bool,
}

/// The `leader-side` design's decision, taken by the leader's `preExecute` and carried in
/// the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Accepted; the secret the id now has (`None` after a revoke).
    Accepted(Option<Secret>),
    /// Rejected with this status; applying changes nothing.
    Rejected(&'static str),
    /// The store call failed: the client got an error and the entry was not replicated
    /// (kept in the plan's log as an entry every OM skips).
    NotReplicated,
}

/// What the client was told about an id's secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    /// The id has this secret.
    Secret(AccessId, Secret),
    /// The id has no secret.
    Revoked(AccessId),
}

/// A store call the flush thread makes for a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushCall {
    /// `storeSecret`; `locked` when the response holds the locked manager (the tenant
    /// requests), which takes the id's S3_SECRET_LOCK.
    Store {
        /// Access id.
        id: AccessId,
        /// The secret.
        secret: Secret,
        /// Whether the call takes the id's lock.
        locked: bool,
    },
    /// `revokeSecret`; `locked` as for [`FlushCall::Store`].
    Revoke {
        /// Access id.
        id: AccessId,
        /// Whether the call takes the id's lock.
        locked: bool,
    },
}

impl fmt::Display for FlushCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lock = |locked: bool| if locked { " (locked)" } else { " (no lock)" };
        match self {
            FlushCall::Store { id, secret, locked } => {
                write!(f, "storeSecret {id}={secret}{}", lock(*locked))
            }
            FlushCall::Revoke { id, locked } => write!(f, "revokeSecret {id}{}", lock(*locked)),
        }
    }
}

/// Why an OM terminated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// INTERNAL_ERROR from a store `IOException` while applying; the error response was queued
    /// first.
    InternalError(String),
    /// A `Throwable` in `runCommand` (the NPE); no response.
    Throwable(String),
    /// A failure in the flush thread (`addToBatch`).
    FlushFailure(String),
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::InternalError(e) => write!(f, "INTERNAL_ERROR ({e})"),
            Termination::Throwable(e) => write!(f, "Throwable in runCommand ({e})"),
            Termination::FlushFailure(e) => write!(f, "flush failure ({e})"),
        }
    }
}
