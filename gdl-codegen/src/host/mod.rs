//! What runs on the host toolchain: the build cache of compiled games, which
//! writes a crate and runs cargo on it, and the loaded games built there as
//! libraries and loaded into the running process. Not compiled into the `gdl!` macro.

pub mod cache;
pub mod loaded;
