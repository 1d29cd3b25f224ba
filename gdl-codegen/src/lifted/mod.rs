//! The lifted (non-ground) rule form that the evaluators of rules share:
//! rules over relation indices whose terms are patterns with their ground
//! parts interned. The grounder's bottom-up fixpoint ([`crate::ground`]) and
//! the interpreter's top-down prover ([`crate::reasoner::interp`]) both
//! compile a program into it, each into its own term store (through
//! [`rule::Interner`]), and plan and run it with their own executors.

pub mod rule;

pub use rule::{CRule, Interner, Lit, Pat};
