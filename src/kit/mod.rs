//! Reusable pieces the component models share: a RocksDB-like [`store`] and a Raft-like
//! replicated [`raft_log`].
//!
//! Both are deterministic: ordered maps only, no clock, no randomness.

pub mod external_store;
pub mod raft_log;
#[cfg(feature = "rocksdb")]
pub mod rocks;
pub mod store;
