//! `gdl-codegen emit GAME` (and the bare `gdl-codegen GAME.kif`): print the
//! compiled Rust module of a game.

use std::io::{IsTerminal, Write};
use std::path::Path;

use clap::Args;
use gdl_codegen::backend::ground::EmitOptions;
use gdl_codegen::ground::Budget;
use gdl_codegen::session::{self, Backend, CodegenError, CodegenOptions, Session};

use crate::watch::{Watch, WatchArgs};
use crate::{status, ReadArgs};

/// Arguments of `emit`.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The game description.
    pub game: String,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Write the module to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Name of the generated game type (default: from the file name).
    #[arg(long)]
    pub type_name: Option<String>,
    /// Path of the runtime crate in the generated code.
    #[arg(long, default_value = "::gdl_runtime")]
    pub runtime_path: String,
    /// Print the lifted back end's plan instead of the module: each
    /// function's shape and memo, each rule's join order with the estimates
    /// that chose it, the call-graph facts and what is deferred to run time.
    #[arg(long)]
    pub dump_plan: bool,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub watch: WatchArgs,
}

/// The grounding and compile budgets.
#[derive(Args, Debug, Clone)]
pub struct BudgetArgs {
    /// Most ground rules (and domain atoms) before grounding gives up.
    #[arg(long, default_value_t = Budget::DEFAULT_MAX_RULES)]
    pub max_rules: usize,
    /// Most memory for grounding, or for one query of the interpreter, in MB.
    #[arg(long, default_value_t = Budget::DEFAULT_MAX_MEMORY >> 20)]
    pub max_memory_mb: usize,
    /// Largest ground program to compile, in rule-body literals.
    #[arg(long, default_value_t = EmitOptions::default().max_literals)]
    pub max_compile_literals: usize,
    /// Largest ground code to print, in tests (a body literal, or a word of
    /// one-literal bodies): about 60 s of rustc at the default. `auto`
    /// compiles a game over it with the lifted back end.
    #[arg(long, default_value_t = EmitOptions::default().max_code_tests)]
    pub max_code_tests: usize,
    /// Literals of an atom's rule bodies above which they are compiled into
    /// data tables read by a loop (default: from the game's size).
    #[arg(long)]
    pub rule_table_threshold: Option<usize>,
    /// The back end of compiled code: `ground` compiles the ground program,
    /// `lifted` the rules themselves, `auto` the ground one when the game
    /// grounds within the budgets, else the lifted one.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Whether the ground back end evaluates a state from the nearer of the
    /// last two evaluated (recomputing only what changed): `auto` when an
    /// estimate on sample matches says it pays.
    #[arg(long, value_enum, default_value_t = IncrementalArg::Auto)]
    pub incremental: IncrementalArg,
}

/// The values of `--incremental`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncrementalArg {
    /// When the estimate on sample matches says it pays.
    Auto,
    /// Always.
    On,
    /// Never: every state evaluated from scratch.
    Off,
}

/// The values of `--backend`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    /// Ground when it fits the budgets, else lifted.
    Auto,
    /// The ground program, as bit-level code.
    Ground,
    /// The rules themselves.
    Lifted,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Backend {
        match b {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Ground => Backend::Ground,
            BackendArg::Lifted => Backend::Lifted,
        }
    }
}

impl BudgetArgs {
    /// The pipeline options for a game file.
    pub fn options(
        &self,
        read: &ReadArgs,
        game: &str,
        type_name: Option<&str>,
        runtime_path: &str,
    ) -> CodegenOptions {
        CodegenOptions {
            frontend: read.options(),
            budget: Budget::new(self.max_rules, self.max_memory_mb.saturating_mul(1 << 20)),
            emit: EmitOptions {
                type_name: type_name
                    .map_or_else(|| session::type_name_for(Path::new(game)), str::to_owned),
                runtime_path: runtime_path.to_owned(),
                source_name: game.to_owned(),
                max_literals: self.max_compile_literals,
                max_code_tests: self.max_code_tests,
                rule_table_threshold: self.rule_table_threshold,
                incremental: match self.incremental {
                    IncrementalArg::Auto => None,
                    IncrementalArg::On => Some(true),
                    IncrementalArg::Off => Some(false),
                },
            },
            backend: self.backend.into(),
        }
    }
}

/// Prints why a game could not be compiled; returns the exit status.
pub fn report(e: &CodegenError) -> u8 {
    eprint!("{}", e.render(std::io::stderr().is_terminal()));
    match e {
        CodegenError::Io(_) => status::USAGE,
        _ => status::INVALID,
    }
}

/// Runs `emit`, watched as its flags ask (progress, `--timings`).
pub fn run(args: &EmitArgs) -> u8 {
    let watch = args.watch.watch();
    let code = watch.enter(|| emit(args, &watch));
    watch.report();
    code
}

fn emit(args: &EmitArgs, watch: &Watch) -> u8 {
    let options = args.budget.options(
        &args.read,
        &args.game,
        args.type_name.as_deref(),
        &args.runtime_path,
    );
    let session = match Session::open(Path::new(&args.game), options) {
        Ok(s) => s,
        Err(e) => return report(&e),
    };
    eprint!(
        "{}",
        session
            .frontend()
            .render_diagnostics(std::io::stderr().is_terminal())
    );
    if args.dump_plan {
        return match session.lifted_plan() {
            Ok(plan) => write_out(args.output.as_deref(), &plan),
            Err(CodegenError::Invalid(fe)) => {
                eprintln!("error: {} is not valid GDL", fe.source.name);
                status::INVALID
            }
            Err(e) => report(&e),
        };
    }
    if args.budget.backend == BackendArg::Auto {
        if let Ok((backend, why)) = session.backend() {
            watch.note(&format!("{} back end: {why}", backend.name()));
        }
    }
    let code = match session.code() {
        Ok(code) => code,
        Err(CodegenError::Invalid(fe)) => {
            eprintln!("error: {} is not valid GDL", fe.source.name);
            return status::INVALID;
        }
        Err(e) => return report(&e),
    };
    write_out(args.output.as_deref(), &code)
}

/// Writes `text` to the file `output`, or else to standard output.
fn write_out(output: Option<&str>, text: &str) -> u8 {
    let written = match output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}")),
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    };
    match written {
        Ok(()) => status::OK,
        Err(e) => {
            eprintln!("error: {e}");
            status::USAGE
        }
    }
}
