//! The lifted (non-ground) rule form that the evaluators of rules share:
//! rules over relation indices whose terms are patterns with their ground
//! parts interned. The grounder's bottom-up fixpoint ([`crate::ground`]) and
//! the interpreter's top-down prover ([`crate::reasoner::interp`]) both
//! compile a program into it, each into its own term store (through
//! [`rule::Interner`]), and plan and run it with their own executors.
//!
//! What stays with each evaluator is what genuinely differs: the grounder
//! joins bottom-up over append-only relations with exact hash indexes
//! (`ground::plan::JoinPlan`, cost-ordered, semi-naive ranges), the
//! interpreter proves calls top-down with tabling and static tables indexed
//! by argument masks (`reasoner::interp::kb::CallPlan`, in the author's
//! order, with existential cuts). Their term stores differ too: the
//! grounder's is a flat single-threaded table, the interpreter's a shared
//! store with per-query overlays that keeps writes off its hot path.

pub mod rule;

pub use rule::{CRule, Interner, Lit, Pat};
