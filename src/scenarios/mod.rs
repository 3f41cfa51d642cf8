//! One module per modelled bug.

pub mod hdds_16092;
pub mod hdds_16452;
pub mod hdds_16900;
pub mod hdds_17215;
