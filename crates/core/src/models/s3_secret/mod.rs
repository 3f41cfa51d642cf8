//! The OM's S3 secret paths over an external secret store that every OM shares.
//!
//! Java (`om/...`): the OM's secret manager is
//! `S3SecretLockedManager(S3SecretManagerImpl(store, S3InMemoryCache), lock)`
//! (`OzoneManager.instantiateServices`), and `getS3SecretManager()` hands out the locked one:
//! its [`getSecret`](crate::citation::java::S3SecretLockedManager::getSecret),
//! [`storeSecret`](crate::citation::java::S3SecretLockedManager::storeSecret) and
//! [`revokeSecret`](crate::citation::java::S3SecretLockedManager::revokeSecret) take the
//! S3_SECRET_LOCK write lock of the access id, and
//! [`doUnderLock`](crate::citation::java::S3SecretLockedManager::doUnderLock) takes it and passes
//! the inner, unlocked manager to the request's lambda; `updateCache`, `invalidateCacheEntry`
//! and `clearCache` are not overridden and take no lock. Under it,
//! [`S3SecretManagerImpl.getSecret`](crate::citation::java::S3SecretManagerImpl::getSecret) reads
//! the cache and, on a miss, the store, and caches a store hit;
//! [`storeSecret`](crate::citation::java::S3SecretManagerImpl::storeSecret) and
//! [`revokeSecret`](crate::citation::java::S3SecretManagerImpl::revokeSecret) call the store, then
//! update or invalidate the cache. The store is `VaultS3SecretStore` (no batch support, so
//! `S3SecretManager.isBatchSupported` is false and every call goes to the store at once). The
//! requests `S3GetSecretRequest`, `OMSetSecretRequest`, `S3RevokeSecretRequest`,
//! `OMTenantAssignUserAccessIdRequest`, `OMTenantRevokeUserAccessIdRequest` and their
//! responses, `OzoneManagerDoubleBuffer`, and the termination paths of
//! `OzoneManagerStateMachine.runCommand` / `processResponse`. Jira: HDDS-17215.
//!
//! - [`cache`]: each OM's `S3InMemoryCache` and its `tenantAccessIdTable` table cache.
//! - [`requests`]: what each request does at apply time and at flush time, per [`Design`].
//! - [`node`]: one OM: its DB, cache, secret lock, double buffer, flush thread, restart.
//!
//! Abstracted away: Ranger (the multi-tenancy authorizer calls are mocked in the seed's test
//! too), the principal and tenant-state tables (one access-id table stands for the tenant
//! tables), ACLs, Kerberos, the secret's generation (the leader's `preExecute` draws it; the
//! log entry carries it, so it is a constant of the plan here), Vault's own replication.

pub mod cache;
pub mod node;
pub mod requests;

use crate::kit::store::{TableName, Tables};
use crate::kit::tx_info::{put_tx_info, TxRow};
use std::fmt;

/// An S3 access id (`kerberosID` / tenant access id).
pub type AccessId = &'static str;

/// An S3 secret value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Secret(pub &'static str);

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// What the external store holds for an id: the secret, and the log index of the request
/// that wrote it (read only by the `index-per-secret` design), or, in that design, a
/// tombstone that keeps the index of the delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredSecret {
    /// The secret.
    pub secret: Secret,
    /// The log index of its writer.
    pub index: u64,
    /// `index-per-secret`'s tombstone: the id was deleted at `index` and has no secret.
    pub revoked: bool,
}

impl StoredSecret {
    /// The secret, unless a tombstone.
    pub fn live(&self) -> Option<Secret> {
        (!self.revoked).then_some(self.secret)
    }
}

impl fmt::Display for StoredSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.revoked {
            write!(f, "revoked@{}", self.index)
        } else {
            write!(f, "{}@{}", self.secret, self.index)
        }
    }
}

/// How the OMs use the external store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// The Java today: every OM calls the store while applying (and the responses at flush
    /// time), deciding from what the store holds then.
    PerOm,
    /// As [`Design::PerOm`], but the store keeps the log index with each secret and refuses a
    /// write or a delete from a lower index than the one it holds; a delete leaves a
    /// tombstone with its index, so a lower write after it is refused too.
    IndexPerSecret,
    /// The leader calls the store once in `preExecute`, before the entry is replicated, and
    /// puts its decision in the entry; applying only updates caches and the OM's DB (a
    /// replicated row per access id); a store failure is a clean per-request error and the
    /// entry is not replicated. The id's lock is held for the `preExecute` only, so RPC
    /// handlers pre-execute ahead of the apply and may append in another order.
    LeaderSide,
    /// As [`Design::LeaderSide`], with the lock held from `preExecute` until the leader
    /// applies the entry (or the request fails), as the tenant requests hold the authorizer
    /// lock; and a new leader, once ready, makes the store equal the replicated rows, once.
    LeaderSideReconciled,
    /// As [`Design::LeaderSideReconciled`], and the ready leader reconciles again
    /// periodically, as `OMRangerBGSyncService` does.
    LeaderSidePeriodic,
}

impl Design {
    /// Whether the leader decides in `preExecute`.
    pub fn leader_side(self) -> bool {
        matches!(
            self,
            Design::LeaderSide | Design::LeaderSideReconciled | Design::LeaderSidePeriodic
        )
    }

    /// Whether the leader holds the id's lock from `preExecute` until it applies the entry.
    pub fn locks_to_apply(self) -> bool {
        matches!(
            self,
            Design::LeaderSideReconciled | Design::LeaderSidePeriodic
        )
    }

    /// Whether a leader reconciles the store with its replicated rows once it is ready.
    pub fn reconciles(self) -> bool {
        self.locks_to_apply()
    }
}

/// `OMMetadataManager.getTenantAccessIdTable()`: access id -> `OmDBAccessIdInfo`.
pub const TENANT_ACCESS_ID_TABLE: TableName = "tenantAccessIdTable";
/// `S3_SECRET_TABLE`: written only by the `leader-side` designs here (the Vault-backed OM keeps
/// its secrets in the external store), one row per access id.
pub const S3_SECRET_TABLE: TableName = "s3SecretTable";

/// A row of an OM's own RocksDB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// `OmDBAccessIdInfo`: the tenant an access id is assigned in.
    AccessIdInfo {
        /// Tenant.
        tenant: &'static str,
    },
    /// `leader-side`'s replicated secret of an access id: the secret, or `None` once revoked.
    Secret {
        /// The secret.
        secret: Option<Secret>,
        /// The index of the entry that wrote it.
        index: u64,
    },
    /// `TransactionInfo`.
    TxInfo {
        /// The last flushed index.
        index: u64,
    },
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Row::AccessIdInfo { tenant } => write!(f, "accessIdInfo(tenant {tenant})"),
            Row::Secret {
                secret: Some(s),
                index,
            } => write!(f, "secret({s}@{index})"),
            Row::Secret {
                secret: None,
                index,
            } => write!(f, "revoked(@{index})"),
            Row::TxInfo { index } => write!(f, "TX {index}"),
        }
    }
}

impl TxRow for Row {
    /// `TRANSACTION_INFO_TABLE`.
    const TABLE: TableName = "transactionInfoTable";

    fn tx_info(_term: u64, index: u64) -> Self {
        Row::TxInfo { index }
    }

    fn tx_index(&self) -> Option<u64> {
        match self {
            Row::TxInfo { index } => Some(*index),
            Row::AccessIdInfo { .. } | Row::Secret { .. } => None,
        }
    }
}

/// A fresh OM's DB: `TransactionInfo` 0.
pub fn initial_tables() -> Tables<Row> {
    let mut t = Tables::default();
    put_tx_info(&mut t, 0, 0);
    t
}
