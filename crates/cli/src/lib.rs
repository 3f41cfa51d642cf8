//! The command line's library: how reports are presented (text, JSON, HTML, SVG) and the
//! benchmarks behind `bench/RESULTS.md`. The binary `ozone-ha-check` parses arguments and
//! calls into this crate, the core (`ozone_ha_check`) and the citation tool
//! (`ozone_ha_check_cite`).

#![deny(missing_docs)]

pub mod bench;
pub mod engines;
pub mod markup;
pub mod present;
