//! Reusable pieces the component models share: a RocksDB-like [`store`], a Raft-like
//! replicated [`raft_log`], the [`replica`] bookkeeping of several replicas over one log, and
//! an [`external_store`] shared by every replica (with fault injection). With the `rocksdb`
//! feature, `rocks` holds the same store over real RocksDB.
//!
//! All are deterministic: ordered maps only, no clock, no randomness.

pub mod external_store;
pub mod raft_log;
pub mod replica;
#[cfg(feature = "rocksdb")]
pub mod rocks;
pub mod store;
pub mod tx_info;
