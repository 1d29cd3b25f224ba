//! gdl-codegen: a compiler from the Game Description Language (GDL) to Rust,
//! and the interpreted reasoners it is measured and tested against.
//!
//! The pipeline, one stage a module: [`syntax`] (read KIF or infix GDL into an
//! AST with spans) → [`lower`] (expand `or`, normalise `(not (distinct ..))`,
//! intern names) → [`check`] (arity, safety, stratification, the recursion
//! restriction, keyword restrictions) → reasoners.

#![warn(missing_docs)]

pub mod build;
pub mod cache;
pub mod check;
pub mod codegen;
pub mod deps;
pub mod diag;
pub mod emit;
pub mod frontend;
pub mod ground;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod propnet;
pub mod source;
pub mod symbols;
pub mod syntax;
