//! What runs on the host toolchain: the build cache of compiled games, which
//! writes a crate and runs cargo on it. Not compiled into the `gdl!` macro.

pub mod cache;
