//! The build-time constants of every cited method (`java::Class::method`), generated from
//! `citations.toml` by the build script: nested classes as nested modules, overloads with a
//! suffix made from their parameter types, a historical source's constants in a module of
//! its own, and [`ALL`] in the manifest's order.

include!(concat!(env!("OUT_DIR"), "/citations.rs"));
