//! The cache of expansions: a game's generated module stored as token text
//! under a key of everything that changes it, so that a crate rebuilt
//! without changing its game (an edit of another file, `cargo check` after
//! `cargo build`, rust-analyzer) skips the compiler.
//!
//! Entries live in `<cache>/expand/<key>.rs` in the user's private cache
//! directory ([`crate::store`]), written whole by rename. Only successful
//! expansions are stored: errors are cheap to find again and must name the
//! current spans. `GDL_CODEGEN_MACRO_CACHE=off` turns the cache off.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::TokenStream;

use crate::session::CodegenOptions;
use crate::store::{self, Key};

/// Environment variable that turns the expansion cache off (`off` or `0`).
pub const MACRO_CACHE_ENV: &str = "GDL_CODEGEN_MACRO_CACHE";

/// What an expansion did with the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Found: the compiler did not run.
    Hit,
    /// Not found: the compiler ran and its output was stored.
    Miss,
    /// No cache (turned off or unusable), or the game was rejected: the
    /// compiler ran and nothing was stored.
    Uncached,
}

/// Where expansions are stored and under which compiler build.
#[derive(Clone, Debug)]
pub struct ExpansionCache {
    dir: PathBuf,
    build: String,
}

impl ExpansionCache {
    /// The expansion cache of the user's cache directory, unless turned off
    /// or unusable (a macro never fails for want of a cache).
    pub fn from_env() -> Option<ExpansionCache> {
        let off = std::env::var(MACRO_CACHE_ENV).is_ok_and(|v| v == "off" || v == "0");
        if off {
            return None;
        }
        let root = store::open(None).ok()?;
        ExpansionCache::in_dir(&root, store::build_id()).ok()
    }

    /// The expansion cache under the cache directory `root`, for compiler
    /// build `build` (tests pretend other builds).
    pub fn in_dir(root: &Path, build: &str) -> Result<ExpansionCache, store::StoreError> {
        store::private_dir(root)?;
        let dir = root.join("expand");
        store::private_dir(&dir)?;
        Ok(ExpansionCache {
            dir,
            build: build.to_owned(),
        })
    }

    /// The entry for a game read from `name` with `bytes` under `options`.
    pub(super) fn entry(&self, name: &str, bytes: &[u8], options: &CodegenOptions) -> PathBuf {
        let key = Key::new("expand", &self.build)
            .part(name.as_bytes())
            .part(bytes)
            .part(store::options_key(options).as_bytes());
        self.dir.join(format!("{}.rs", key.hex()))
    }

    /// The stored tokens of `entry`, when present and whole.
    pub(super) fn get(entry: &Path) -> Option<TokenStream> {
        let text = std::fs::read_to_string(entry).ok()?;
        TokenStream::from_str(&text).ok()
    }

    /// Stores `tokens` as `entry`; a failure only costs the next expansion.
    pub(super) fn put(entry: &Path, tokens: &TokenStream) {
        let _ = store::write_atomic(entry, tokens.to_string().as_bytes());
    }
}
