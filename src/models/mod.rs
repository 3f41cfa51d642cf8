//! Models of Ozone components, one module per component, each citing the Java it stands for.

pub mod om;
pub mod scm_cert;
