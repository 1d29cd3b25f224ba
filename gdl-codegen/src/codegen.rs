//! The whole compiler as one call: GDL text in, a Rust module out
//! (read → lower → check → ground → emit). The CLI's `emit`, the build-script
//! API ([`crate::builder`]) and the `gdl!` macro all go through here.

use std::fmt;
use std::path::Path;

use crate::backend::ground::{self as emit, EmitError, EmitOptions};
use crate::front::{self, Frontend, Options};
use crate::ground::{self, Budget, GroundError};

/// Options of the whole pipeline.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// How to read the description.
    pub frontend: Options,
    /// The grounding budget.
    pub budget: Budget,
    /// Code generation options (the type name, runtime path, compile budget).
    pub emit: EmitOptions,
}

/// Why a game could not be compiled.
#[derive(Debug)]
pub enum CodegenError {
    /// The description is not valid GDL; the front end holds the diagnostics.
    Invalid(Box<Frontend>),
    /// Grounding exceeded its budget.
    Ground(GroundError),
    /// Code generation failed (compile budget exceeded).
    Emit(EmitError),
    /// The file could not be read.
    Io(String),
}

impl CodegenError {
    /// The message for a person: rendered diagnostics, or the error line.
    pub fn render(&self, color: bool) -> String {
        match self {
            CodegenError::Invalid(fe) => {
                format!(
                    "{}error: {} is not valid GDL\n",
                    fe.render_diagnostics(color),
                    fe.source.name
                )
            }
            other => format!("error: {other}\n"),
        }
    }
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodegenError::Invalid(fe) => write!(f, "{} is not valid GDL", fe.source.name),
            CodegenError::Ground(e) => write!(f, "{e}"),
            CodegenError::Emit(e) => write!(f, "{e}"),
            CodegenError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for CodegenError {}

/// The output of a successful compilation.
#[derive(Debug)]
pub struct Generated {
    /// The Rust module.
    pub code: String,
    /// The front end's result (warnings included).
    pub frontend: Frontend,
}

/// Compiles a description held in memory; `name` is used in diagnostics.
pub fn generate(
    name: &str,
    bytes: &[u8],
    options: &CodegenOptions,
) -> Result<Generated, CodegenError> {
    let fe = front::run_bytes(name, bytes, &options.frontend);
    if !fe.is_valid() {
        return Err(CodegenError::Invalid(Box::new(fe)));
    }
    let gp = ground::ground(&fe.program, &options.budget).map_err(CodegenError::Ground)?;
    let mut emit_options = options.emit.clone();
    emit_options.case_sensitive = fe.program.symbols.is_case_sensitive();
    if emit_options.source_name == EmitOptions::default().source_name {
        emit_options.source_name = name.to_owned();
    }
    let code = emit::emit(&gp, &emit_options).map_err(CodegenError::Emit)?;
    Ok(Generated { code, frontend: fe })
}

/// Compiles a description file.
pub fn generate_file(path: &Path, options: &CodegenOptions) -> Result<Generated, CodegenError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CodegenError::Io(format!("cannot read {}: {e}", path.display())))?;
    generate(&path.display().to_string(), &bytes, options)
}

/// A type name for a game from its file name: `games/tic-tac-toe.kif` gives
/// `TicTacToe`.
pub fn type_name_for(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("game");
    crate::backend::common::names::type_name(stem)
}
