//! Verdicts of every (variant, plan) under shuttle's random and PCT schedulers, replayed
//! regression counterexamples, and deterministic reproductions of the seeds' staged values.
#![cfg(not(any(loom, ohc_threads)))]

mod fixtures;
mod hdds_11152;
mod hdds_11453;
mod hdds_16092;
mod hdds_16452;
mod hdds_16900;
mod hdds_17215;
mod hdds_7279;
mod hdds_8681;
mod matrix;
mod probes;
mod stateful;
mod support;
