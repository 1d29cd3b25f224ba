//! Code generators: Rust from a compiled game. [`common`] holds what every
//! generated module has; [`ground`] prints a bitnet; [`lifted`] compiles the
//! rules themselves, for games whose ground program is too large.

pub mod common;
pub mod ground;
pub mod lifted;
