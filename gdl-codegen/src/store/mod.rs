//! The user's private cache directory, shared by every cache of generated
//! code: the `gdl!` macro's expansions, the CLI's compiled games and the
//! loaded games' libraries.
//!
//! Loading a library from the cache runs its code, and a cached expansion
//! becomes part of the user's program: the directory must be the user's
//! alone. It is, in order, an explicit directory, `$GDL_CODEGEN_CACHE`,
//! `$XDG_CACHE_HOME/gdl-codegen` or `$HOME/.cache/gdl-codegen`, never a
//! predictable path in a shared temporary directory (another user could
//! create it first). [`private_dir`] creates it with mode 0700 and refuses
//! one owned by another user or open to others.
//!
//! Entries are keyed by [`Key`]: every input that changes the output and
//! the compiler's [`build_id`]; they are written by [`write_atomic`], so
//! that two processes filling one entry at once (cargo and rust-analyzer
//! expanding one macro) never read half a file.

mod atomic;
mod key;
mod private;

pub use atomic::write_atomic;
pub use key::{build_id, options_key, Key};
pub use private::{private_dir, StoreError};

use std::path::{Path, PathBuf};

/// Environment variable naming the cache directory.
pub const CACHE_ENV: &str = "GDL_CODEGEN_CACHE";

/// The cache directory: `explicit`, else where the environment says (see
/// the module documentation). Not created; [`private_dir`] does that.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, StoreError> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    explicit
        .map(Path::to_path_buf)
        .or_else(|| var(CACHE_ENV).map(PathBuf::from))
        .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("gdl-codegen")))
        .or_else(|| var("HOME").map(|d| PathBuf::from(d).join(".cache/gdl-codegen")))
        .ok_or(StoreError::NoHome)
}

/// The cache directory located and made private: [`locate`] then
/// [`private_dir`].
pub fn open(explicit: Option<&Path>) -> Result<PathBuf, StoreError> {
    let dir = locate(explicit)?;
    private_dir(&dir)?;
    Ok(dir)
}
