//! Each OM's in-memory caches: the S3 secret cache (`S3InMemoryCache`) and the table cache of
//! `tenantAccessIdTable` (a `PartialTableCache`).
//!
//! [`S3InMemoryCache`](crate::citation::java::S3InMemoryCache::put) holds an `S3SecretValue` per
//! access id, each with the transaction index it was written for:
//! - [`put`](crate::citation::java::S3InMemoryCache::put) replaces the entry. A value read from the
//!   external store carries index 0
//!   ([`VaultS3SecretStore.getSecret`](crate::citation::java::VaultS3SecretStore::getSecret) builds
//!   it with `S3SecretValue.of(id, secret)`), one written by a request carries the request's
//!   index.
//! - [`invalidate`](crate::citation::java::S3InMemoryCache::invalidate) is `computeIfPresent`: an
//!   entry becomes a tombstone that KEEPS the old entry's index (`S3SecretValue.deleted()`); an
//!   uncached id stays uncached ([`S3SecretValue.deleted`](crate::citation::java::S3SecretValue::deleted)
//!   keeps `transactionLogIndex`).
//! - [`clearCache`](crate::citation::java::S3InMemoryCache::clearCache) evicts after a flush: it
//!   first maps each cached entry's index to its key (one key per index), then invalidates the
//!   key of each flushed index, unconditionally. An entry at index 0, or a tombstone whose index
//!   was flushed earlier, is never evicted; and an entry rewritten between the two phases is
//!   evicted all the same. [`SecretCache::keys_at`] and [`SecretCache::evict`] are the two
//!   phases.
//!
//! The table cache of `tenantAccessIdTable` ([`TenantCache`]) holds the entries requests add
//! at apply time, each with its epoch (the request's index); a read finds an entry there before
//! it reads the DB. After a flush the entries of exactly the flushed epochs are removed
//! ([`PartialTableCache.evictCache`](crate::citation::java::PartialTableCache::evictCache)), on a
//! cleanup executor, asynchronously
//! ([`PartialTableCache.cleanup`](crate::citation::java::PartialTableCache::cleanup)).

use super::{AccessId, Row, Secret};
use std::collections::BTreeMap;

/// What a cache lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not cached: the caller reads the store.
    Miss,
    /// Cached: the secret, or `None` for a tombstone.
    Hit(Option<Secret>),
}

/// One OM's `S3InMemoryCache`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecretCache {
    entries: BTreeMap<AccessId, (Option<Secret>, u64)>,
}

impl SecretCache {
    /// `get`.
    pub fn lookup(&self, id: AccessId) -> Lookup {
        self.entries
            .get(id)
            .map_or(Lookup::Miss, |(v, _)| Lookup::Hit(*v))
    }

    /// The entry's index, if cached.
    pub fn index_of(&self, id: AccessId) -> Option<u64> {
        self.entries.get(id).map(|(_, i)| *i)
    }

    /// `put`.
    pub fn put(&mut self, id: AccessId, secret: Secret, index: u64) {
        self.entries.insert(id, (Some(secret), index));
    }

    /// `invalidate` (`computeIfPresent(id, deleted())`): a tombstone with the old entry's
    /// index, only if `id` is cached. Returns whether it wrote one.
    pub fn invalidate(&mut self, id: AccessId) -> bool {
        match self.entries.get_mut(id) {
            Some(e) => {
                e.0 = None;
                true
            }
            None => false,
        }
    }

    /// `clearCache`, first phase: the key cached at each of the `flushed` indices (the map
    /// from index to key keeps one key per index: the last in iteration order).
    pub fn keys_at(&self, flushed: &[u64]) -> Vec<AccessId> {
        let mut by_index: BTreeMap<u64, AccessId> = BTreeMap::new();
        for (id, (_, index)) in &self.entries {
            by_index.insert(*index, id);
        }
        let mut keys: Vec<AccessId> = flushed
            .iter()
            .filter_map(|i| by_index.get(i).copied())
            .collect();
        keys.dedup();
        keys
    }

    /// `clearCache`, second phase: `cache.invalidate(key)`, whatever the entry is now.
    pub fn evict(&mut self, id: AccessId) {
        self.entries.remove(id);
    }
}

/// One OM's table cache of `tenantAccessIdTable`: entries with their epoch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TenantCache {
    entries: BTreeMap<AccessId, (Option<Row>, u64)>,
}

/// What a table-cache lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableLookup {
    /// Not cached (`MAY_EXIST`): read the DB.
    Miss,
    /// Cached: the row, or `None` for a delete (`NOT_EXIST`).
    Hit(Option<Row>),
}

impl TenantCache {
    /// `lookup`.
    pub fn lookup(&self, id: AccessId) -> TableLookup {
        self.entries
            .get(id)
            .map_or(TableLookup::Miss, |(v, _)| TableLookup::Hit(*v))
    }

    /// The epoch of the cached entry, if any.
    pub fn epoch_of(&self, id: AccessId) -> Option<u64> {
        self.entries.get(id).map(|(_, e)| *e)
    }

    /// `addCacheEntry(key, value or delete, epoch)`.
    pub fn add(&mut self, id: AccessId, row: Option<Row>, epoch: u64) {
        self.entries.insert(id, (row, epoch));
    }

    /// `evictCache(epochs)`: remove every entry whose epoch is one of `epochs`. Returns the
    /// keys removed.
    pub fn evict(&mut self, epochs: &[u64]) -> Vec<AccessId> {
        let gone: Vec<AccessId> = self
            .entries
            .iter()
            .filter(|(_, (_, e))| epochs.contains(e))
            .map(|(k, _)| *k)
            .collect();
        for k in &gone {
            self.entries.remove(k);
        }
        gone
    }
}
