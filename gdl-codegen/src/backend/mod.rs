//! Code generators: Rust from a compiled game. [`common`] holds what every
//! generated module has; [`ground`] prints a bitnet.

pub mod common;
pub mod ground;
