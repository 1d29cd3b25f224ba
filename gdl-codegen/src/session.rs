//! The compiler's driver: a game through its stages (front end → ground →
//! back end), each stage's result kept for the next and for whoever asks.
//!
//! The CLI, the build-script API ([`crate::builder`]) and the `gdl!` macro
//! all drive a [`Session`]: the front end runs when it is made, the grounder
//! only when a stage needs the ground program (never for the interpreter),
//! and code is formatted only when text is written.

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use crate::backend::common::names;
use crate::backend::ground::{self as emit, EmitError, EmitOptions, Module};
use crate::backend::lifted::{self, LiftedError};
use crate::front::{self, Frontend, Options};
use crate::ground::{self, Budget, GroundError, GroundProgram, Limit};
use crate::stages::{self, Interrupted, Stage};

pub use crate::ground::budget::{Caller, Knob};

/// Options of the whole pipeline.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// How to read the description.
    pub frontend: Options,
    /// The grounding budget.
    pub budget: Budget,
    /// Code generation options (the type name, runtime path, compile budget).
    pub emit: EmitOptions,
    /// Which back end compiles the game.
    pub backend: Backend,
}

/// How much grounding `auto` allows before it compiles a game with the
/// lifted back end instead: at most this many ground rules (and domain
/// atoms) and join steps, and this much time. The counts make the choice
/// the same on every machine for all but extreme games; the deadline only
/// stops games whose grounding is slow without counting (the join steps
/// run at about 20 M/s here, so 60 M is about 3 s).
///
/// A million rules, since the ground code of a program that large runs
/// slower than the lifted code, and builds slower: every corpus game
/// between one and two million ground rules (four, each in one
/// `scripts/latency.sh` run of both back ends, playouts/s and seconds
/// from rules to built game) ran 36-128x faster lifted: FRED 57 against
/// 7 353 (33.4 s against 8.3 s), EMERSON 156 against 13 842, GHANA 950
/// against 59 678, COTEDIVOIRE 1 872 against 67 896. Below it either may
/// be the faster (`scripts/corpus-results-{ground,lifted}.tsv`: at 0.47 M
/// rules cylinder-checkers runs 2.6x faster ground, its mustjump variant
/// 2.4x faster lifted; bandl10, 0.59 M, 2.9x faster ground).
pub const AUTO_MAX_RULES: usize = 1_000_000;
/// See [`AUTO_MAX_RULES`].
pub const AUTO_MAX_WORK: u64 = 60_000_000;
/// See [`AUTO_MAX_RULES`].
pub const AUTO_GROUND_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// Rule-table literals above which `auto` compiles a game lifted: the
/// ground code would loop over them on every state. Measured in one run
/// each (`play --playouts 50`, ground against lifted, playouts/s): 1.1 M
/// literals (quartoSuicide) 49 against 6 011, 1.6 M (crossers3) 1 943
/// against 5 536, 1.7 M (hex) 16 against 617, 3.2 M (vectorracer6) 11
/// against 432.
pub const AUTO_MAX_TABLE_LITERALS: usize = 1_000_000;

/// Most rule-table literals per test of the code with every rule in tables
/// for `auto` to compile it ground: past it, the ground code is mostly a
/// loop over its tables, an interpreter of the rules, where the lifted
/// code stays compiled. In one `scripts/latency.sh` sweep of each back end
/// (playouts/s), the games with their rules in tables ran, ground against
/// lifted: at 0.3 to 5.3 literals a test, from 8.1x faster (blokbox_simple,
/// 742 against 92) to 60x slower (snakeAssemblit, 1 129 against 68 542:
/// this share does not explain that one); at 106 and 164 (wargame03,
/// wargame02), 48x and 58x slower.
pub const AUTO_MAX_TABLE_SHARE: usize = 10;

/// The rule-table threshold of a ground program whose unrolled code would
/// be over the build budget: every atom with bodies of more than one
/// literal is read from the rule tables. Othello: 342 K tests unrolled
/// (223 s to build, about 4 000 playouts/s), 57 K tests and 294 K table
/// literals this way (29 s to generate and build on a loaded machine, 169
/// to 324 playouts/s), against 25 to 31 playouts/s lifted.
pub const ALL_IN_TABLES: usize = 1;

/// The back end that compiles a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The ground back end when the game grounds within the grounding budget
    /// and its ground program within the compile budget, else the lifted one.
    #[default]
    Auto,
    /// Compile the ground program (bit-level code; fastest where it fits).
    Ground,
    /// Compile the rules themselves (any valid game whose fluents and moves
    /// can be enumerated).
    Lifted,
}

impl Backend {
    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Ground => "ground",
            Backend::Lifted => "lifted",
        }
    }
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
    /// The lifted back end could not compile the game.
    Lifted(LiftedError),
    /// The file could not be read.
    Io(String),
    /// The compile was cancelled or ran out of time (see [`crate::stages`]).
    Interrupted(Interrupted),
}

impl CodegenError {
    /// The budget the error asks to raise, if any.
    pub fn knob(&self) -> Option<Knob> {
        match self {
            CodegenError::Ground(GroundError::Budget { what, .. }) => Some(match what {
                Limit::Memory => Knob::MaxMemory,
                Limit::Atoms | Limit::Rules | Limit::Work | Limit::Time => Knob::MaxRules,
            }),
            CodegenError::Emit(EmitError::TooLarge { .. }) => Some(Knob::MaxCompileLiterals),
            CodegenError::Emit(EmitError::TooSlowToBuild { .. }) => Some(Knob::MaxCodeTests),
            CodegenError::Lifted(LiftedError::Domains(GroundError::Budget { what, .. })) => {
                Some(match what {
                    Limit::Memory => Knob::MaxMemory,
                    Limit::Atoms | Limit::Rules | Limit::Work | Limit::Time => Knob::MaxRules,
                })
            }
            _ => None,
        }
    }

    /// The message for a person using the command-line tool: rendered
    /// diagnostics, or the error line.
    pub fn render(&self, color: bool) -> String {
        self.render_for(color, Caller::Cli)
    }

    /// The message for a person using `caller`: rendered diagnostics, or the
    /// error line with how to raise the budget it names.
    pub fn render_for(&self, color: bool, caller: Caller) -> String {
        match self {
            CodegenError::Invalid(fe) => format!(
                "{}error: {} is not valid GDL\n",
                fe.render_diagnostics(color),
                fe.source.name
            ),
            other => format!("error: {}\n", other.message(caller)),
        }
    }

    /// The one-line message, naming `caller`'s way to raise a budget.
    pub fn message(&self, caller: Caller) -> String {
        match (self, self.knob()) {
            (CodegenError::Ground(e), Some(k)) => format!("{e} (raise {})", caller.knob(k)),
            (CodegenError::Lifted(e), Some(k)) => format!("{e} (raise {})", caller.knob(k)),
            (CodegenError::Emit(e @ EmitError::TooLarge { .. }), Some(k)) => {
                let other = match caller {
                    Caller::Cli => ", or use --reasoner propnet or interpreter",
                    _ => ", or use an interpreted reasoner",
                };
                format!("{e}; raise it with {}{other}", caller.knob(k))
            }
            (CodegenError::Emit(e @ EmitError::TooSlowToBuild { .. }), Some(k)) => {
                let other = match caller {
                    Caller::Cli => "--backend lifted",
                    Caller::Macro => "`backend = lifted;`",
                    Caller::Builder => "`Builder::backend(Backend::Lifted)`",
                };
                format!("{e}; raise it with {}, or use {other}", caller.knob(k))
            }
            _ => self.to_string(),
        }
    }
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodegenError::Invalid(fe) => write!(f, "{} is not valid GDL", fe.source.name),
            CodegenError::Ground(e) => write!(f, "{e}"),
            CodegenError::Emit(e) => write!(f, "{e}"),
            CodegenError::Lifted(e) => write!(f, "{e}"),
            CodegenError::Io(e) => f.write_str(e),
            CodegenError::Interrupted(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CodegenError {}

/// One game through the compiler: the front end's result, and the later
/// stages' once asked for.
#[derive(Debug)]
pub struct Session {
    options: CodegenOptions,
    frontend: Frontend,
    ground: OnceLock<Result<GroundProgram, GroundError>>,
    /// The rule-table threshold `auto` chose, when not the default.
    tables: OnceLock<Option<usize>>,
    /// `auto`'s choice and why, made once: a grounding attempt that failed
    /// keeps no ground program, and asking again would ground again (chess:
    /// 5 s, twice per `emit`).
    chosen: OnceLock<(Backend, String)>,
    /// The ground program laid out for the compiled code, with its bitnet,
    /// built once for `auto`'s size estimate and the ground module.
    compiled: OnceLock<emit::Compiled>,
}

impl Session {
    /// Reads and checks a description held in memory; `name` is used in
    /// diagnostics and in the generated code's header.
    pub fn new(name: &str, bytes: &[u8], mut options: CodegenOptions) -> Session {
        let frontend = stages::stage(Stage::Check, || {
            front::run_bytes(name, bytes, &options.frontend)
        });
        if options.emit.source_name == EmitOptions::default().source_name {
            options.emit.source_name = name.to_owned();
        }
        Session {
            options,
            frontend,
            ground: OnceLock::new(),
            tables: OnceLock::new(),
            chosen: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// Reads and checks a description file.
    pub fn open(path: &Path, options: CodegenOptions) -> Result<Session, CodegenError> {
        let bytes = std::fs::read(path)
            .map_err(|e| CodegenError::Io(format!("cannot read {}: {e}", path.display())))?;
        Ok(Session::new(&path.display().to_string(), &bytes, options))
    }

    /// A session over a front end's result (already read and checked).
    pub fn from_frontend(frontend: Frontend, options: CodegenOptions) -> Session {
        Session {
            options,
            frontend,
            ground: OnceLock::new(),
            tables: OnceLock::new(),
            chosen: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// The options.
    pub fn options(&self) -> &CodegenOptions {
        &self.options
    }

    /// The front end's result (warnings included).
    pub fn frontend(&self) -> &Frontend {
        &self.frontend
    }

    /// The front end's result, the session ended.
    pub fn into_frontend(self) -> Frontend {
        self.frontend
    }

    /// Fails unless the description is valid GDL.
    pub fn valid(&self) -> Result<&Frontend, CodegenError> {
        if self.frontend.is_valid() {
            Ok(&self.frontend)
        } else {
            Err(CodegenError::Invalid(Box::new(self.frontend.clone())))
        }
    }

    /// Whether the grounder has run (it runs only when a stage needs it).
    pub fn is_grounded(&self) -> bool {
        self.ground.get().is_some()
    }

    /// The ground program, grounded the first time it is asked for.
    pub fn ground(&self) -> Result<&GroundProgram, CodegenError> {
        let program = &self.valid()?.program;
        let result = match self.ground.get() {
            Some(result) => result,
            None => {
                let result = staged_ground(program, &self.options.budget)?;
                self.ground.get_or_init(|| result)
            }
        };
        result.as_ref().map_err(|e| CodegenError::Ground(e.clone()))
    }

    /// The back end that compiles the game, and why: the one asked for, or
    /// for [`Backend::Auto`] the ground one when the game grounds within the
    /// grounding budget and its program within the compile budget.
    pub fn backend(&self) -> Result<(Backend, String), CodegenError> {
        match self.options.backend {
            Backend::Auto => {}
            b => return Ok((b, "asked for".to_owned())),
        }
        if let Some(chosen) = self.chosen.get() {
            return Ok(chosen.clone());
        }
        let chosen = self.choose()?;
        Ok(self.chosen.get_or_init(|| chosen).clone())
    }

    /// [`Session::backend`]'s choice under [`Backend::Auto`].
    fn choose(&self) -> Result<(Backend, String), CodegenError> {
        let program = &self.valid()?.program;
        if self.ground.get().is_none() {
            // An estimate: ground for a few seconds at most, and keep the
            // result only when it is the ground program.
            let b = self.options.budget;
            let trial = Budget {
                max_rules: b.max_rules.min(AUTO_MAX_RULES),
                max_work: b.max_work.min(AUTO_MAX_WORK),
                ..b
            }
            .within(AUTO_GROUND_TIME);
            match staged_ground(program, &trial)? {
                Ok(gp) => {
                    let _ = self.ground.set(Ok(gp));
                }
                Err(e) => return Ok((Backend::Lifted, e.to_string())),
            }
        }
        match self.ground() {
            Ok(gp) if gp.num_literals() <= self.options.emit.max_literals => {
                let (backend, why, tables) = self.ground_fits(gp);
                let _ = self.tables.set(tables);
                Ok((backend, why))
            }
            Ok(gp) => Ok((
                Backend::Lifted,
                format!(
                    "its ground program has {} literals, over the compile budget of {}",
                    gp.num_literals(),
                    self.options.emit.max_literals
                ),
            )),
            Err(CodegenError::Ground(e)) => Ok((Backend::Lifted, format!("{e}"))),
            Err(e) => Err(e),
        }
    }

    /// Whether the ground program's code fits the build budget, and its rule
    /// tables stay small enough to scan on every state: as printed, else
    /// with every atom of more than one body literal in the rule tables
    /// (the rule-table threshold to use, if not the default), else not (the
    /// lifted back end). The bitnet costs a fraction of printing it
    /// (Othello: 0.4 s against 11 s).
    fn ground_fits(&self, gp: &GroundProgram) -> (Backend, String, Option<usize>) {
        let net = &self.compiled(gp).net;
        let opts = &self.options.emit;
        let limit = opts.max_code_tests;
        let size = emit::code_size(net, emit::table_threshold(gp, opts));
        if size.tests <= limit && size.table_literals <= AUTO_MAX_TABLE_LITERALS {
            return (
                Backend::Ground,
                "the game grounds within budget".to_owned(),
                None,
            );
        }
        let over = if size.tests > limit {
            format!(
                "its ground code would be {} tests, over the build budget of {limit}",
                size.tests
            )
        } else {
            format!(
                "its rule tables would hold {} literals, scanned on every state (more than \
                 {AUTO_MAX_TABLE_LITERALS}: the lifted code runs faster)",
                size.table_literals
            )
        };
        if size.tests > limit && opts.rule_table_threshold.is_none() {
            let tabled = emit::code_size(net, ALL_IN_TABLES);
            let in_tables = format!(
                "{over}; with its rules in tables, {} tests and {} table literals",
                tabled.tests, tabled.table_literals
            );
            let fits = tabled.tests <= limit && tabled.table_literals <= AUTO_MAX_TABLE_LITERALS;
            if fits && tabled.table_literals > tabled.tests.saturating_mul(AUTO_MAX_TABLE_SHARE) {
                let why = format!(
                    "{in_tables}, more than {AUTO_MAX_TABLE_SHARE} a test (the lifted code runs faster)"
                );
                return (Backend::Lifted, why, None);
            }
            if fits {
                return (Backend::Ground, in_tables, Some(ALL_IN_TABLES));
            }
        }
        (Backend::Lifted, over, None)
    }

    /// `gp` (the session's ground program) as the compiled code computes
    /// it, built once.
    fn compiled(&self, gp: &GroundProgram) -> &emit::Compiled {
        self.compiled
            .get_or_init(|| stages::stage(Stage::Plan, || emit::Compiled::new(gp)))
    }

    /// The lifted back end's plan of the game as text (see
    /// [`lifted::plan::LiftedPlan::summary`]), whichever back end the
    /// session chose.
    pub fn lifted_plan(&self) -> Result<String, CodegenError> {
        let program = &self.valid()?.program;
        checkpoint()?;
        stages::stage(Stage::Plan, || {
            lifted::plan_summary(program, &self.options.budget)
        })
        .map_err(lifted_error)
    }

    /// The generated module as tokens.
    pub fn module(&self) -> Result<Module, CodegenError> {
        match self.backend()?.0 {
            Backend::Lifted => {
                let program = &self.valid()?.program;
                checkpoint()?;
                let planned =
                    stages::stage(Stage::Plan, || lifted::plan(program, &self.options.budget))
                        .map_err(lifted_error)?;
                checkpoint()?;
                stages::stage(Stage::Print, || planned.module(&self.options.emit))
                    .map_err(CodegenError::Lifted)
            }
            _ => {
                let gp = self.ground()?;
                let mut opts = self.options.emit.clone();
                // `auto` chose the tables already; a forced ground back end
                // chooses them the same way, so that code over the build
                // budget goes into the rule tables where that fits, and
                // fails with the budget's error where it does not.
                let tables = *self.tables.get_or_init(|| self.ground_fits(gp).2);
                if let Some(t) = tables {
                    opts.rule_table_threshold = Some(t);
                }
                let compiled = self.compiled(gp);
                checkpoint()?;
                stages::stage(Stage::Print, || {
                    emit::module_with(compiled.program(gp), &compiled.net, &opts)
                })
                .map_err(CodegenError::Emit)
            }
        }
    }

    /// The generated module as the text of a file.
    pub fn code(&self) -> Result<String, CodegenError> {
        let module = self.module()?;
        checkpoint()?;
        stages::stage(Stage::Format, || module.to_text()).map_err(CodegenError::Emit)
    }
}

/// Fails with [`CodegenError::Interrupted`] when this thread's tracker says
/// the compile must stop (see [`crate::stages`]).
fn checkpoint() -> Result<(), CodegenError> {
    match stages::interrupted() {
        Some(i) => Err(CodegenError::Interrupted(i)),
        None => Ok(()),
    }
}

/// Grounds `program` within `budget` as the [`Stage::Ground`] stage. The
/// outer error is an interruption, which is no result of grounding (a
/// session keeps the inner one).
fn staged_ground(
    program: &crate::front::ir::Program,
    budget: &Budget,
) -> Result<Result<GroundProgram, GroundError>, CodegenError> {
    checkpoint()?;
    let result = stages::stage(Stage::Ground, || ground::ground(program, budget));
    checkpoint()?;
    Ok(result)
}

/// A lifted back end's error, or the interruption that caused it (the
/// fixpoints stop through their time check).
fn lifted_error(e: LiftedError) -> CodegenError {
    match stages::interrupted() {
        Some(i) => CodegenError::Interrupted(i),
        None => CodegenError::Lifted(e),
    }
}

/// The output of a successful compilation.
#[derive(Debug)]
pub struct Generated {
    /// The Rust module.
    pub code: String,
    /// The front end's result (warnings included).
    pub frontend: Frontend,
}

/// Compiles a description held in memory to the text of a module; `name` is
/// used in diagnostics.
pub fn generate(
    name: &str,
    bytes: &[u8],
    options: &CodegenOptions,
) -> Result<Generated, CodegenError> {
    finish(Session::new(name, bytes, options.clone()))
}

/// Compiles a description file to the text of a module.
pub fn generate_file(path: &Path, options: &CodegenOptions) -> Result<Generated, CodegenError> {
    finish(Session::open(path, options.clone())?)
}

fn finish(session: Session) -> Result<Generated, CodegenError> {
    let code = session.code()?;
    Ok(Generated {
        code,
        frontend: session.into_frontend(),
    })
}

/// A type name for a game from its file name: `games/tic-tac-toe.kif` gives
/// `TicTacToe`.
pub fn type_name_for(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("game");
    names::type_name(stem)
}
