//! gdl-codegen: a compiler from the Game Description Language (GDL) to Rust,
//! and the interpreted reasoners it is measured and tested against.
//!
//! The pipeline, one stage a module:
//! - [`front`]: read KIF or infix GDL into an AST with spans, lower it
//!   (expand `or`, normalise `(not (distinct ..))`, intern names) and check
//!   it (arity, safety, stratification, the recursion restriction, keyword
//!   restrictions);
//! - [`analysis`]: the relation dependency graph, its components and strata;
//! - [`ground`]: instantiate the rules over the reachable atoms and simplify;
//! - [`backend`]: generate Rust from the ground program;
//! - [`reasoner`]: the interpreter and the propnet, baselines and oracles;
//! - [`session`]: the driver, a game through those stages; [`builder`]: the
//!   build-script API; [`host`]: the build cache that runs cargo.

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
pub mod reasoner;
pub mod session;

pub use builder::Builder;
pub use session::{CodegenError, CodegenOptions, Session};
