//! gdl-codegen: a compiler from the Game Description Language (GDL) to Rust,
//! and the interpreted reasoners it is measured and tested against.
//!
//! The pipeline, one stage a module:
//! - [`front`]: read KIF or infix GDL into an AST with spans, lower it
//!   (expand `or`, normalise `(not (distinct ..))`, intern names) and check
//!   it (arity, safety, stratification, the recursion restriction, keyword
//!   restrictions);
//! - [`analysis`]: which relations depend on the state or the move;
//! - [`lifted`]: the non-ground rule form the grounder and the interpreter
//!   both evaluate;
//! - [`ground`]: instantiate the rules over the reachable atoms and simplify;
//! - [`bitnet`]: the ground program as word-level rules over one bit vector,
//!   with the analyses that decide what each query computes and when;
//! - [`backend`]: generate Rust (the ground back end prints a bitnet; the
//!   parts every generated module has are common);
//! - [`reasoner`]: the interpreter (lifted rules) and the propnet (a bitnet),
//!   baselines and oracles;
//! - [`session`]: the driver, a game through those stages; [`builder`]: the
//!   build-script API; `expand`: the `gdl!` macro's expansion (feature
//!   `macro`); `host`: the build cache that runs cargo (feature `host`);
//! - [`scc`]: strongly connected components, the one graph algorithm every
//!   stage shares (below them all).

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
pub mod lifted;
pub mod reasoner;
pub mod scc;
pub mod session;

pub use builder::Builder;
pub use reasoner::interp::Interpreter;
pub use reasoner::propnet::Propnet;
pub use session::{Backend, CodegenError, CodegenOptions, Session};
