//! Models of Ozone components, one module per component, each citing the Java it stands for.

pub mod om;
pub mod s3_secret;
pub mod scm;
pub mod scm_cert;
