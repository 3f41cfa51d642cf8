//! The five requests: what each does at apply time (`validateAndUpdateCache`) and at flush
//! time (the response's `addToDBBatch`), as grounding §4's table says:
//!
//! | request | at apply time | at flush time |
//! |---|---|---|
//! | `S3GetSecretRequest` | getSecret (cache miss -> store); if absent: update cache, then storeSecret in the store (HDDS-10469) | nothing |
//! | `OMSetSecretRequest` | hasS3Secret (cache miss -> store), update cache | storeSecret |
//! | `S3RevokeSecretRequest` | hasS3Secret, invalidate cache | revokeSecret |
//! | `OMTenantAssignUserAccessIdRequest` | tenant entries, hasS3Secret -> TENANT_USER_ACCESS_ID_ALREADY_EXISTS if present, update cache | storeSecret + tenant puts |
//! | `OMTenantRevokeUserAccessIdRequest` | `requireNonNull(omDBAccessIdInfo)` (NPE if absent), invalidate cache | revokeSecret + tenant deletes |
//!
//! The tenant assign's tenant-table cache entries are added only when the assign is
//! accepted: the table lists them before the store check, but the seed's test shows the
//! follower's tables without the access id after the rejected assign (its NPE at the revoke
//! needs exactly that), so a rejected assign leaves none here.
//!
//! The outcome of applying: a response (rows for the OM's DB, and at most one store call for
//! the flush), an error response (no rows), or one of the two termination paths: a store
//! `IOException` that `exceptionToResponseStatus` maps to INTERNAL_ERROR, which
//! `processResponse` terminates on after `handleWriteRequest` queued the error response; and
//! a `Throwable` (the NPE) that `runCommand` catches and terminates on, with no response.

use super::{AccessId, Secret};
use crate::cite::{java, Citation};
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
    /// `storeSecret`.
    Store(AccessId, Secret),
    /// `revokeSecret`.
    Revoke(AccessId),
}

impl fmt::Display for FlushCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlushCall::Store(id, s) => write!(f, "storeSecret {id}={s}"),
            FlushCall::Revoke(id) => write!(f, "revokeSecret {id}"),
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
