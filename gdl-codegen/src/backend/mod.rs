//! Code generators: Rust from a compiled game.

pub mod ground;
