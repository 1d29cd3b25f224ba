//! gdl-codegen: a compiler from the Game Description Language (GDL) to Rust,
//! and the interpreted reasoners it is measured and tested against.
//!
//! The pipeline, one stage a module:
//! - [`front`]: read KIF or infix GDL into an AST with spans, lower it
//!   (expand `or`, normalise `(not (distinct ..))`, intern names) and check
//!   it (arity, safety, stratification, the recursion restriction, keyword
//!   restrictions);
//! - [`analysis`]: the relation dependency graph, its components and strata;
//! - [`lifted`]: the non-ground rule form the grounder and the interpreter
//!   both evaluate;
//! - [`ground`]: instantiate the rules over the reachable atoms and simplify;
//! - [`backend`]: generate Rust from the ground program;
//! - [`reasoner`]: the interpreter and the propnet, baselines and oracles;
//! - [`codegen`] and [`builder`]: the whole compiler as one call, and its
//!   build-script API; [`host`]: the build cache that runs cargo.

#![warn(missing_docs)]

pub mod analysis;
pub mod backend;
pub mod bitnet;
pub mod builder;
pub mod codegen;
pub mod front;
pub mod ground;
#[cfg(feature = "host")]
pub mod host;
pub mod lifted;
pub mod reasoner;
