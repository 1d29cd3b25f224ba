//! Compiling games from a build script, in the style of `prost-build`.
//!
//! ```no_run
//! // In build.rs, inside `fn main()`:
//! gdl_codegen::Builder::new()
//!     .compile("games/tictactoe.kif")
//!     .expect("tic-tac-toe compiles");
//! ```
//! and in the crate: `include!(concat!(env!("OUT_DIR"), "/tictactoe.rs"));`
//! defines `TicTacToe`, which implements `gdl_runtime::Game`.

use std::path::{Path, PathBuf};

use std::fmt;

use crate::ground::Budget;
use crate::session::{self, Backend, Caller, CodegenError, CodegenOptions, Session};

/// Compiles game files into `OUT_DIR`.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    out_dir: Option<PathBuf>,
    options: CodegenOptions,
    type_name: Option<String>,
}

impl Builder {
    /// A builder with the default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Names the generated game type (default: from the file name).
    pub fn type_name(mut self, name: impl Into<String>) -> Self {
        self.type_name = Some(name.into());
        self
    }

    /// Sets the grounding budget.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.options.budget = budget;
        self
    }

    /// Sets the compile budget: the largest ground program compiled, in rule
    /// literals.
    pub fn max_compile_literals(mut self, literals: usize) -> Self {
        self.options.emit.max_literals = literals;
        self
    }

    /// Sets the build budget: the largest ground code printed, in tests
    /// (see [`crate::backend::common::BUILD_BUDGET_TESTS`]). Under
    /// [`Backend::Auto`] a game over it is compiled lifted.
    pub fn max_code_tests(mut self, tests: usize) -> Self {
        self.options.emit.max_code_tests = tests;
        self
    }

    /// Sets the back end (default [`Backend::Auto`]: the ground one when the
    /// game grounds within the budgets, else the lifted one).
    pub fn backend(mut self, backend: Backend) -> Self {
        self.options.backend = backend;
        self
    }

    /// Sets the path of the runtime crate in generated code (default `::gdl_runtime`).
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.options.emit.runtime_path = path.into();
        self
    }

    /// Compiles `game` into `<out_dir>/<file stem>.rs`, returning that path.
    /// Prints `cargo:rerun-if-changed` for the game file.
    pub fn compile(&self, game: impl AsRef<Path>) -> Result<PathBuf, BuildError> {
        let game = game.as_ref();
        let io = |e: String| BuildError(CodegenError::Io(e));
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    io("OUT_DIR is not set: run from a build script or call out_dir()".into())
                })?,
        };
        println!("cargo:rerun-if-changed={}", game.display());
        let mut options = self.options.clone();
        options.emit.type_name = self
            .type_name
            .clone()
            .unwrap_or_else(|| session::type_name_for(game));
        let code = Session::open(game, options)
            .and_then(|s| s.code())
            .map_err(BuildError)?;
        let stem = game.file_stem().and_then(|s| s.to_str()).unwrap_or("game");
        let out = out_dir.join(format!("{stem}.rs"));
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| io(format!("cannot create {}: {e}", out_dir.display())))?;
        std::fs::write(&out, code)
            .map_err(|e| io(format!("cannot write {}: {e}", out.display())))?;
        Ok(out)
    }
}

/// Why [`Builder::compile`] failed; its message (also its `Debug`, which a
/// build script's `unwrap` prints) names the `Builder` method that raises
/// an exceeded budget.
pub struct BuildError(pub CodegenError);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.render_for(false, Caller::Builder).trim_end())
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}
