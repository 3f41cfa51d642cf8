//! The citation tool: checks the models' citations of Java methods against a source
//! checkout, records their fingerprints, and locates their line ranges for links.
//!
//! The citations themselves are data in the core ([`ozone_ha_check::citation`]): the
//! manifest `citations.toml`, one constant per cited method, [`Label`] and [`Links`]. This
//! crate sits above the scenarios, since it runs them to say which cases use a method.
//!
//! [`check()`] finds each method again by parsing Java ([`java`]) and says whether it is
//! unchanged, moved, changed, missing or not checked; [`render`] prints that with the
//! cases that use each changed or missing method ([`usage_from_traces`]); [`record()`]
//! rewrites the fingerprints and the pinned commit from a clean checkout;
//! [`resolve_links`] gives a trace's links the methods' line ranges; [`since()`] says
//! which cited Ozone methods a change (a pull request's base to its head) touches.
//!
//! The manifest is read when the tool runs ([`manifest_path`]: the repository's
//! `citations.toml` when there is one, else the copy built into the core), so `--record`
//! needs no rebuild before `cite` reads what it wrote. A historical source's citations
//! (ids ending in `@NAME`) are read from the checkout's git history at that source's commit,
//! never from its work tree: [`check()`] leaves them `not checked` when the history lacks
//! it; [`record()`] fills their fingerprints at that commit without moving it. The directory
//! given must be a checkout (a work tree with the root `pom.xml`).
//!
//! ```
//! use ozone_ha_check_cite::java::parse;
//! let f = parse("class A { void f(long x) { x++; } }").unwrap();
//! assert_eq!(f.methods[0].name, "f");
//! ```

#![deny(missing_docs)]

pub mod check;
mod git;
pub mod java;
pub mod links;
pub mod record;
pub mod render;
pub mod since;
pub mod usage;

pub use check::{check, check_trees, CiteReport, Status};
pub use links::resolve_links;
pub use ozone_ha_check::citation::{
    find, load_manifest, looks_like_java, manifest, Citation, CiteError, Label, Links, Source,
    MANIFEST,
};
pub use record::{record, Recorded};
pub use since::{since, Change, SinceError, SinceReport};
pub use usage::{usage_from_traces, CaseRef, Usage};

use std::path::PathBuf;

/// The manifest the tool reads by default: `citations.toml` at the repository root this
/// crate was built from, when it is there (so a `--record` is read back without a rebuild),
/// else `None`, which [`load_manifest`] reads as the copy built into the core.
pub fn manifest_path() -> Option<PathBuf> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../citations.toml");
    path.is_file().then_some(path)
}
