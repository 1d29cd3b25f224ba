//! gdl-codegen: a compiler from the Game Description Language (GDL) to Rust,
//! and the interpreted reasoners it is measured and tested against.
//!
//! A General Game Playing player is handed a game's rules at the start of a
//! match; this crate compiles them into a Rust module implementing
//! `gdl_runtime::Game` (legal moves, next state, terminal, goals).
//!
//! The pipeline, one stage a module:
//! - [`front`] (the front end): read KIF or infix GDL into an AST with spans,
//!   lower it (expand `or`, normalise `(not (distinct ..))`, intern names) and
//!   check it (arity, safety, stratification, the recursion restriction,
//!   keyword restrictions), with located diagnostics;
//! - [`analysis`]: which relations depend on the state or the move (the
//!   relation dependency graph lives with the checker, in `front`);
//! - [`rules`]: the rule form (non-ground rules over one term store) that the
//!   grounder, the lifted back end and the interpreter all evaluate;
//! - [`ground`]: the grounder: reachable fluents and moves by the relaxed
//!   fixpoint, the rules instantiated over them and simplified into a
//!   [`ground::GroundProgram`];
//! - [`bitnet`]: the ground program as word-level rules over one bit vector,
//!   with the passes that decide what each query computes and when, and the
//!   compiled code's board layout ([`bitnet::relayout`]);
//! - [`backend`]: the two code generators, over [`backend::common`] (what
//!   every generated module has): [`backend::ground`], the ground back end,
//!   prints a bitnet; [`backend::lifted`], the lifted back end, compiles the
//!   rules themselves, for games whose ground program is too large: it
//!   plans ([`backend::lifted::planner`]), then prints the plan;
//! - [`reasoner`]: the reasoners that generate no code, baselines and
//!   oracles: the tabled interpreter of the lifted rules
//!   ([`reasoner::interp`]) and the propnet, which interprets a bitnet
//!   ([`reasoner::propnet`]);
//! - [`session`]: the driver, a game through those stages, choosing the back
//!   end under [`Backend::Auto`];
//! - [`stages`]: the stages of a compile, each timed, bounded and
//!   cancellable, with the events observers (`--timings`, progress) receive;
//! - [`builder`]: the build-script API ([`Builder`]);
//! - `expand`: the `gdl!` macro's input grammar and expansion (feature
//!   `macro`; the `gdl-macro` crate is a few lines over it);
//! - `player`: a GGP player over HTTP, UCT on any reasoner (feature
//!   `player`, part of `cli`);
//! - `host`: the build cache of compiled games, which runs cargo (feature
//!   `host`);
//! - [`store`]: the user's private cache directory and the keys of every
//!   cache of generated code (the macro's, the CLI's, the loaded games');
//! - [`scc`]: strongly connected components, the one graph algorithm every
//!   stage shares (below them all).
//!
//! The command-line tool is the `gdl-codegen` binary (feature `cli`). The
//! design of each part is described in the repository's `docs/` folder
//! (`pipeline.md`, `ground-backend.md`, `lifted-backend.md`, `runtime.md`).

#![warn(missing_docs)]

pub mod analysis;
pub mod backend;
pub mod bitnet;
pub mod builder;
#[cfg(feature = "macro")]
pub mod expand;
pub mod front;
pub mod ground;
#[cfg(feature = "host")]
pub mod host;
#[cfg(feature = "player")]
pub mod player;
pub mod reasoner;
pub mod rules;
pub mod scc;
pub mod session;
pub mod stages;
pub mod store;

pub use builder::Builder;
pub use reasoner::interp::Interpreter;
pub use reasoner::propnet::Propnet;
pub use session::{Backend, CodegenError, CodegenOptions, Session};
