//! # ozone-ha-check
//!
//! Models of Apache Ozone's OM and SCM persistence paths (RocksDB plus Ratis), each as the
//! Java is today, the partial fixes people proposed, and the fix, written against one set of
//! sync primitives ([`sync`]) that swap between shuttle, loom and real OS threads.
//! Exploring a model ([`explore`], under an [`engine`]) proves that each buggy variant
//! breaks a named invariant, with a readable counterexample, and that each fixed variant
//! holds them all after its race window was actually reached.
//!
//! Data flows one way: [`scenarios`] -> [`models`] -> [`kit`] -> [`sync`]; [`explore`] drives
//! a scenario under an [`engine`] and returns an [`explore::Report`]. Every layer names Java
//! methods through [`citation`], the lowest module.
//!
//! This is the core of a workspace of three crates: this one holds everything a loom or a
//! real-threads build needs; `ozone-ha-check-cite` (the citation tool, which parses Java) and
//! `ozone-ha-check` (the command line, its reports and the benchmarks) sit above it.

#![deny(missing_docs)]

pub mod citation;
pub mod counterexample;
pub mod engine;
pub mod explore;
pub mod jobs;
pub mod kit;
pub mod minimize;
pub mod models;
pub mod properties;
pub mod recorder;
pub mod scenario;
pub mod scenarios;
pub mod shards;
pub mod sync;
pub mod trace;
pub mod verify;
pub mod workload;
