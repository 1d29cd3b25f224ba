//! gdl-codegen: a compiler from the Game Description Language to Rust.
