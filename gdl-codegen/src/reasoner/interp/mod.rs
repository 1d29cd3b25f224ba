//! The interpreted reasoner: the oracle the compiled reasoners are tested
//! against.
//!
//! [`Interpreter`] implements [`gdl_runtime::Game`] directly on a lowered
//! [`Program`], by backward chaining as in the GGP book (chapter 13), with:
//!
//! - hash-consed ground terms (a query reads and adds them through its
//!   `overlay` of the one term store): a term is a `u32`, a state a sorted
//!   array of them;
//! - subgoal reordering per call pattern (`kb`): negations and `distinct`
//!   run once their variables are bound, positive atoms with the most bound
//!   arguments first;
//! - tabling (`prove`): each call is proved once per query, recursion is
//!   evaluated to a fixpoint per strongly connected component, so every
//!   stratified program terminates with the answers of its standard model;
//! - static relations (those not depending on `true` or `does`) computed once
//!   when the interpreter is built, then read from indexed tables;
//! - a budget per query (`budget`): a query that tables too many answers or
//!   too much memory gives up, and the interpreter reports it (see
//!   [`Interpreter::budget_error`]) instead of taking the machine's memory.
//!
//! Semantics of ill-formed input, where the checker would normally refuse the
//! program: rules with `true` or `does` in the head are ignored; a negation
//! whose variables no positive literal binds (unsafe rule) succeeds when no
//! instance of it holds; `distinct` with an unbound variable holds unless its
//! two terms are written identically; a head variable left unbound produces
//! no answer; an unstratified negation sees whatever answers were found so far.

mod game;
mod kb;
mod overlay;
mod prove;
mod query_budget;
mod read;

pub use game::{InterpError, Interpreter, Probe, State};
pub use query_budget::{QueryBudget, QueryBudgetError, QueryLimit};

use crate::front::ir::Program;

/// Builds the interpreter of `program` (shorthand for [`Interpreter::new`]).
pub fn interpret(program: &Program) -> Result<Interpreter, InterpError> {
    Interpreter::new(program)
}

#[cfg(test)]
mod tests;
