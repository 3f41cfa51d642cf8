//! `S3SecretCache` (`InMemoryS3SecretCache`): each OM's in-memory cache of S3 secrets.
//!
//! `updateCache(id, secret)` stores the value with the transaction index of the request;
//! `invalidateCacheEntry(id)` writes a tombstone only if the id is cached (an uncached id
//! stays uncached, so the next read goes to the store); `clearCache(flushedTransactionIds)`
//! evicts, after a flush, the entries whose transaction index the flush covered. A read that
//! misses the cache goes to the store and does not fill the cache (assumed: the grounding
//! note lists no fill on read).
//!
//! The cache is shared by the apply thread and the flush thread's cleanup; here it sits in
//! the OM's facade `Mutex`, one lock per access, as the Java's concurrent map is.

use super::{AccessId, Secret};
use std::collections::BTreeMap;

/// What a cache lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not cached: the caller reads the store.
    Miss,
    /// Cached: the secret, or `None` for a tombstone.
    Hit(Option<Secret>),
}

/// One OM's secret cache.
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

    /// `updateCache`.
    pub fn update(&mut self, id: AccessId, secret: Secret, index: u64) {
        self.entries.insert(id, (Some(secret), index));
    }

    /// `invalidateCacheEntry`: a tombstone only if `id` is cached. Returns whether it wrote one.
    pub fn invalidate(&mut self, id: AccessId, index: u64) -> bool {
        match self.entries.get_mut(id) {
            Some(e) => {
                *e = (None, index);
                true
            }
            None => false,
        }
    }

    /// `clearCache`: evict the entries written at or below the flushed index.
    pub fn evict_through(&mut self, flushed: u64) {
        self.entries.retain(|_, (_, index)| *index > flushed);
    }
}
