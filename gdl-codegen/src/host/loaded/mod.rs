//! Loaded games: rules text compiled at run time into a shared library and
//! loaded into the running process, implementing `gdl_runtime::Game`.
//!
//! A GGP player learns a game's rules at the start of a match. [`load`]
//! turns them into compiled code it can call in its own process: the cache
//! ([`crate::host::cache`]) writes the generated module into a crate whose
//! library exports the C ABI of [`gdl_runtime::abi`], cargo builds it (once
//! per game, compiler build and options: the key of [`crate::store`]), and
//! `libloading` loads it. [`prepare`] does the same in the background,
//! handing out the interpreter (then the propnet) at once.
//!
//! ```no_run
//! use gdl_codegen::host::loaded::{load, LoadOptions};
//! use gdl_runtime::Game;
//!
//! let rules = std::fs::read("tictactoe.kif").unwrap();
//! let game = load("tictactoe.kif", &rules, &LoadOptions::default()).unwrap();
//! let state = game.initial_state();
//! let stats = game.playouts(&state, 1, 1000, 10_000).unwrap(); // inside the library
//! assert_eq!(stats.playouts, 1000);
//! let mut position = game.position().unwrap(); // the simulation API
//! let joint: Vec<_> = (0..game.num_roles()).map(|r| position.legal(r)[0]).collect();
//! position.step(&joint).unwrap();
//! ```
//!
//! Safety of loading: the library must be the one the key names, built by
//! this compiler; the cache is private to the user (mode 0700), and the
//! descriptor's ABI version, layout and compiler build id are checked
//! before any entry point is called ([`LoadError::Mismatch`]). Libraries
//! stay loaded for the life of the process and are reused by key: the
//! generated code's `thread_local!` caches have destructors that would run
//! after an unload, and a player meets a bounded number of games (each
//! costs its library's mapped pages, some hundred kilobytes to a few
//! megabytes). Linux only; elsewhere [`LoadError::Unsupported`].

#[cfg(test)]
mod abi_tests;
mod bounds;
mod cdylib;
mod library;
mod loaded_game;
mod position;
mod prepare;

pub use cdylib::Toolchain;
pub use loaded_game::{LoadedGame, LoadedState};
pub use position::Position;
pub use prepare::{prepare, Prepared, Reasoner, Status};

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use crate::session::{Caller, CodegenError, CodegenOptions, Session};
use crate::stages::Cancel;
use crate::store::StoreError;

/// How a game is compiled, built and loaded.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// The compiler's options (the type name is the loader's own).
    pub codegen: CodegenOptions,
    /// The cache directory (default: see [`crate::store::locate`]).
    pub cache_dir: Option<PathBuf>,
    /// How cargo runs: its path, priority and jobs.
    pub toolchain: Toolchain,
    /// Cancels the whole load (check, grounding, planning, printing and
    /// cargo, killed with its process group): [`LoadError::Cancelled`].
    pub cancel: Option<Cancel>,
    /// When the whole load gives up: [`LoadError::Deadline`].
    pub deadline: Option<Instant>,
}

/// Why a game could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The rules are invalid, or over a budget of the compiler.
    Codegen(CodegenError),
    /// The cache directory cannot be used.
    Store(StoreError),
    /// cargo could not be run (missing toolchain): use the interpreter or
    /// the propnet instead.
    Toolchain(String),
    /// cargo ran and failed.
    Build(String),
    /// The load (compile or build) passed its deadline and was stopped.
    Deadline,
    /// The load (compile or build) was cancelled.
    Cancelled,
    /// The library could not be opened.
    Open(String),
    /// The library is of another ABI version, layout or compiler build.
    Mismatch(String),
    /// The game failed inside the library (a panic, caught there).
    Game(String),
    /// Loading compiled games is not supported on this platform.
    Unsupported(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Codegen(e) => f.write_str(&e.message(Caller::Builder)),
            LoadError::Store(e) => write!(f, "{e}"),
            LoadError::Toolchain(e) => write!(
                f,
                "{e}: compiled games need cargo and rustc at run time; \
                 the interpreter or the propnet can run the game instead"
            ),
            LoadError::Build(e) => write!(f, "building the compiled game failed: {e}"),
            LoadError::Deadline => f.write_str("the compiled game's build passed its deadline"),
            LoadError::Cancelled => f.write_str("the compiled game's build was cancelled"),
            LoadError::Open(e) => write!(f, "cannot load the compiled game: {e}"),
            LoadError::Mismatch(e) => write!(f, "the compiled game's library does not match: {e}"),
            LoadError::Game(e) => write!(f, "the compiled game failed: {e}"),
            LoadError::Unsupported(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<CodegenError> for LoadError {
    fn from(e: CodegenError) -> Self {
        match e {
            // Stopped by the load's own bounds: say so, not "invalid".
            CodegenError::Interrupted(i) => LoadError::from(i),
            e => LoadError::Codegen(e),
        }
    }
}

impl From<StoreError> for LoadError {
    fn from(e: StoreError) -> Self {
        LoadError::Store(e)
    }
}

/// Compiles `rules` (a game description; `name` names it in messages),
/// builds it as a library in the cache unless there, and loads it. A game
/// already loaded in this process, or built in the cache, is neither
/// grounded nor emitted again. The options' cancel token and deadline bound
/// every step (see [`LoadOptions::cancel`]).
pub fn load(name: &str, rules: &[u8], options: &LoadOptions) -> Result<LoadedGame, LoadError> {
    load_with(name, rules, options, |codegen| {
        Session::new(name, rules, codegen).code()
    })
}

/// [`load`] for the game `session` has read (its name is its source name,
/// its rules its source text): when the library must be built and the
/// session's options are those [`load`] compiles with ([`compile_options`]
/// of `options.codegen`), the session generates the code, so that what it
/// has already done is not done again: `auto`'s choice of back end and the
/// grounding attempt behind it (chess: 1.5 s), the ground program. The key
/// is [`load`]'s (the rules and the options asked for, never the back end
/// `auto` chose), so either function finds what the other built. With
/// other options, a session of its own generates the code, as in [`load`].
pub fn load_session(session: &Session, options: &LoadOptions) -> Result<LoadedGame, LoadError> {
    let name = &session.options().emit.source_name;
    let rules = session.frontend().source.text.as_bytes();
    load_with(name, rules, options, |codegen| {
        let key = crate::store::options_key;
        if key(&codegen) == key(session.options()) {
            session.code()
        } else {
            Session::new(name, rules, codegen).code()
        }
    })
}

/// The options [`load`] compiles `name` with, given the options asked for
/// (its own type name; `name` as the source name): a [`Session`] made with
/// them generates code [`load_session`] reuses.
pub fn compile_options(name: &str, options: &CodegenOptions) -> CodegenOptions {
    cdylib::codegen_options(name, options)
}

/// [`load`], with `code` generating the module from the options the
/// library is keyed by when it is not built yet.
fn load_with(
    name: &str,
    rules: &[u8],
    options: &LoadOptions,
    code: impl FnOnce(CodegenOptions) -> Result<String, CodegenError>,
) -> Result<LoadedGame, LoadError> {
    library::supported()?;
    let cache = crate::host::cache::Cache::locate(options.cache_dir.as_deref())?;
    let codegen = cdylib::codegen_options(name, &options.codegen);
    let entry = cdylib::LibraryEntry::new(&cache, rules, &codegen);
    if let Some(game) = library::loaded(&entry.key) {
        return Ok(game);
    }
    bounds::within(options, || {
        if !entry.is_built() {
            let code = code(codegen)?;
            cdylib::build(&cache, &entry, &code, &options.toolchain)?;
        }
        library::open(&entry, crate::store::build_id())
    })
}

/// Whether [`load`] would find the game built (in this process or in the
/// cache), without grounding or emitting anything.
pub fn is_cached(name: &str, rules: &[u8], options: &LoadOptions) -> bool {
    let Ok(cache) = crate::host::cache::Cache::locate(options.cache_dir.as_deref()) else {
        return false;
    };
    let codegen = cdylib::codegen_options(name, &options.codegen);
    let entry = cdylib::LibraryEntry::new(&cache, rules, &codegen);
    library::loaded(&entry.key).is_some() || entry.is_built()
}

/// Opens the library file of a loaded game directly (outside this
/// process's registry of loaded games), checking that compiler build
/// `build` generated it: for tools that keep libraries, and for tests.
pub fn open_library(path: &std::path::Path, build: &str) -> Result<LoadedGame, LoadError> {
    library::supported()?;
    library::open_library(path, &path.display().to_string(), build)
}

/// Builds and loads a module of generated code as [`load`] would (a module
/// as `emit` prints it, with `--type-name CompiledGame`, perhaps edited):
/// `key` tells it from other modules in the cache.
pub fn load_module(key: &str, code: &str, options: &LoadOptions) -> Result<LoadedGame, LoadError> {
    library::supported()?;
    let cache = crate::host::cache::Cache::locate(options.cache_dir.as_deref())?;
    let entry = cdylib::LibraryEntry::for_module(&cache, key, code);
    if let Some(game) = library::loaded(&entry.key) {
        return Ok(game);
    }
    bounds::within(options, || {
        if !entry.is_built() {
            cdylib::build(&cache, &entry, code, &options.toolchain)?;
        }
        library::open(&entry, crate::store::build_id())
    })
}
