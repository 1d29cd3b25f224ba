//! The lifted (non-ground) rule form that the evaluators of rules share:
//! rules over relation indices whose terms are patterns with their ground
//! parts interned in the one term store ([`terms::TermStore`]). The
//! grounder's bottom-up fixpoint ([`crate::ground`]), the lifted back end's
//! compile-time facts and the interpreter's top-down prover
//! ([`crate::reasoner::interp`]) all compile a program into it, and plan and
//! run it with their own executors.
//!
//! The grounder and the lifted back end order a body's literals with one
//! heuristic ([`order::next_literal`]). What stays with each evaluator is
//! what genuinely differs: the grounder
//! joins bottom-up over append-only relations with exact hash indexes
//! (`ground::join_plan::JoinPlan`, cost-ordered, semi-naive ranges), the
//! interpreter proves calls top-down with tabling and static tables indexed
//! by argument masks (`reasoner::interp::kb::CallPlan`, in the author's
//! order, with existential cuts). The interpreter shares its store between
//! threads and gives each query a private overlay store, which keeps writes
//! off its hot path.

pub mod order;
pub mod rule;
pub mod terms;

pub use rule::{CRule, Interner, Lit, Pat};
pub use terms::TermStore;
