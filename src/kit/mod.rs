//! Reusable pieces the component models share: a RocksDB-like [`store`] and a Raft-like
//! replicated [`raft_log`], and
//! the [`replica`] bookkeeping of several replicas over one log.
//!
//! All are deterministic: ordered maps only, no clock, no randomness.

pub mod external_store;
pub mod raft_log;
pub mod replica;
pub mod store;
