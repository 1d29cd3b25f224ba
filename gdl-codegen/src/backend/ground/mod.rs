//! The compiled back end: a ground program's bitnet printed as a
//! self-contained Rust module that implements `gdl_runtime::Game`.
//!
//! The analyses that decide what the code computes, and when, are the
//! bitnet's ([`crate::bitnet`]); this module prints them:
//! - a state is a `[u64; N]` bit set over the reachable fluents, `Copy`;
//! - moves are ids in the byte order of their GDL text, so legal moves come
//!   out sorted with no run-time cost;
//! - each query (legal moves and terminal, goal, next) has its own functions
//!   computing the atoms of its schedule as word-mask tests over a value
//!   vector (`expr.rs`, `queries.rs`);
//! - legal moves and terminal read one evaluation of a state, kept per
//!   thread and computed incrementally from the nearer of the thread's last
//!   two (`incremental.rs`); goal and `next` start from it;
//! - the joint move sets its `does` bits and, from per-move tables, its
//!   move-set bits; bodies dispatched on a move run in a `match` on it; frame
//!   rules are applied word by word from per-move keep tables (`moves.rs`);
//! - code is split into functions of bounded size so that rustc stays fast,
//!   and its size is linear in the ground rules: atoms with very many bodies
//!   are evaluated by a loop over constant tables ([`tables`]);
//! - names from the game appear only in string tables and sanitized
//!   constants ([`super::common::names`]), never as behaviour.

mod expr;
mod gathers;
mod incremental;
mod module;
mod moves;
mod queries;
pub use queries::{code_size, CodeSize};
pub mod tables;

use std::fmt;

pub use crate::backend::common::format::Module;
use crate::bitnet::{self, Bitnet, Params};
use crate::ground::GroundProgram;

/// The build budget of ground code, in tests (a literal of a rule body,
/// or a word of one-literal bodies, as [`code_size`] counts them): about
/// 60 s of rustc in release on a 2-core machine. Measured builds of whole
/// generated crates (one game each, `gdl-runtime` built): 75 K tests
/// (amazonsTorus_10x10) 41 s, 77 K (kalaha5x2x3) 40 s, 90 K (NOTHELLO_S)
/// 66 s, 106 K (chess_200) 57 s, 195 K (kalaha6x2x4) 154 s, 342 K
/// (Othello) 223 s: about 0.6 s per thousand tests, a test about 50 bytes
/// of Rust. `auto` compiles a game over it with the lifted back end.
pub const BUILD_BUDGET_TESTS: usize = 80_000;

/// Options of the code generator.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Name of the generated game type (a state type `<Name>State` goes with it).
    pub type_name: String,
    /// Path of the runtime crate in the generated code.
    pub runtime_path: String,
    /// The source the game came from, for the header.
    pub source_name: String,
    /// Largest ground program to compile, in rule-body literals.
    pub max_literals: usize,
    /// Largest ground code to print, in tests (see [`BUILD_BUDGET_TESTS`]).
    pub max_code_tests: usize,
    /// Literals of an atom's bodies above which they go into the rule tables
    /// (`None`: chosen from the program's size, see [`tables`]).
    pub rule_table_threshold: Option<usize>,
    /// Whether legal moves and terminal are evaluated incrementally, from
    /// the nearer of a thread's last two evaluations (`None`: when an
    /// estimate on sample matches says it pays; see `incremental.rs`).
    pub incremental: Option<bool>,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            type_name: "Game".to_owned(),
            runtime_path: "::gdl_runtime".to_owned(),
            source_name: "game".to_owned(),
            max_literals: 8_000_000,
            max_code_tests: BUILD_BUDGET_TESTS,
            rule_table_threshold: None,
            incremental: None,
        }
    }
}

/// Why code could not be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The ground program is over the compile budget.
    TooLarge {
        /// Its size in rule-body literals.
        literals: usize,
        /// The budget.
        limit: usize,
    },
    /// The ground code is over the build budget.
    TooSlowToBuild {
        /// Its size in tests ([`CodeSize::tests`]).
        tests: usize,
        /// The budget.
        limit: usize,
    },
    /// The runtime path option is not a Rust path.
    BadRuntimePath(String),
    /// The generated tokens did not parse (a bug).
    Internal(String),
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::TooLarge { literals, limit } => write!(
                f,
                "the ground game has {literals} rule literals, more than the compile budget of {limit}"
            ),
            EmitError::TooSlowToBuild { tests, limit } => write!(
                f,
                "the ground game's code would be {tests} tests (about {} MB of Rust), more than the \
                 build budget of {limit} (about 60 s of rustc)",
                tests.div_ceil(20_000)
            ),
            EmitError::BadRuntimePath(p) => write!(f, "`{p}` is not a Rust path"),
            EmitError::Internal(e) => write!(f, "internal error: generated code does not parse: {e}"),
        }
    }
}

impl std::error::Error for EmitError {}

/// The rule-table threshold of `gp` under `opts`: the one asked for, else
/// one chosen from the program's size.
pub fn table_threshold(gp: &GroundProgram, opts: &EmitOptions) -> usize {
    opts.rule_table_threshold
        .unwrap_or_else(|| tables::Tables::default_threshold(gp.num_literals()))
}

/// A ground program as the compiled code computes it: with its boards laid
/// out densely where that gives the planes more to do
/// ([`crate::bitnet::relayout`]), and its bitnet.
#[derive(Debug)]
pub struct Compiled {
    /// The relaid program, if relaid.
    relaid: Option<GroundProgram>,
    /// The bitnet of the program printed.
    pub net: Bitnet,
}

impl Compiled {
    /// Lays out `gp` and builds its bitnet.
    pub fn new(gp: &GroundProgram) -> Compiled {
        let relaid = crate::bitnet::relayout::relaid(gp);
        let net = bitnet::build(relaid.as_ref().unwrap_or(gp), &Params::COMPILED);
        Compiled { relaid, net }
    }

    /// The program printed: the relaid one, else `gp` (the program this was
    /// built from).
    pub fn program<'a>(&'a self, gp: &'a GroundProgram) -> &'a GroundProgram {
        self.relaid.as_ref().unwrap_or(gp)
    }
}

/// Generates the module of a ground game as tokens: nothing is formatted
/// until [`Module::to_text`] writes it.
pub fn module(gp: &GroundProgram, opts: &EmitOptions) -> Result<Module, EmitError> {
    let compiled = Compiled::new(gp);
    module_with(compiled.program(gp), &compiled.net, opts)
}

/// [`module`] from the program to print and its bitnet (as [`Compiled`]
/// holds them), for a caller that has built them already.
pub fn module_with(
    gp: &GroundProgram,
    net: &Bitnet,
    opts: &EmitOptions,
) -> Result<Module, EmitError> {
    let literals = gp.num_literals();
    if literals > opts.max_literals {
        return Err(EmitError::TooLarge {
            literals,
            limit: opts.max_literals,
        });
    }
    let rt: syn::Path = syn::parse_str(&opts.runtime_path)
        .map_err(|_| EmitError::BadRuntimePath(opts.runtime_path.clone()))?;
    let tests = code_size(net, table_threshold(gp, opts)).tests;
    if tests > opts.max_code_tests {
        return Err(EmitError::TooSlowToBuild {
            tests,
            limit: opts.max_code_tests,
        });
    }
    let (items, tables) = module::tokens(gp, net, opts, &rt);
    Ok(Module {
        items,
        data: tables.arrays(),
        source_name: opts.source_name.clone(),
    })
}

/// Generates the Rust module of a ground game, formatted and with its header.
pub fn emit(gp: &GroundProgram, opts: &EmitOptions) -> Result<String, EmitError> {
    module(gp, opts)?.to_text()
}
