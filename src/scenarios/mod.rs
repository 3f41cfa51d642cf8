//! One module per modelled bug.

pub mod hdds_16092;
