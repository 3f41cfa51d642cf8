//! One module per modelled bug.

pub mod hdds_16092;
pub mod hdds_16900;
