//! Limits on one query of the interpreter, so that a game whose rules derive
//! far too much (a `legal` rule joining eight relations of ten values: 10^8
//! moves) stops with a clear error instead of taking the machine's memory.
//!
//! A query counts what it keeps: the answers it tables and an estimate of
//! the bytes of its tables and of the terms it builds. The prover looks at
//! the counts every [`CHECK_INTERVAL`] body steps, on the step counter it
//! keeps anyway, so that the hot path pays nothing for the budget.

use std::fmt;

use crate::ground::budget::{Caller, Knob};

/// How much one query of the interpreter may hold before it gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryBudget {
    /// Most answers one query may table, over all the calls it makes.
    pub max_answers: usize,
    /// Most memory one query may use, in bytes (an estimate of its answer
    /// tables and of the terms it builds).
    pub max_memory: usize,
}

impl QueryBudget {
    /// Default answer limit: 30 times the largest query of the 450 corpus
    /// games (33 k answers, the first legal moves of ggp-repository-base's
    /// amazonsTorus; no other tables 20 k), and reached by the 10^8-move
    /// game in about two seconds and 200 MB.
    pub const DEFAULT_MAX_ANSWERS: usize = 1_000_000;
    /// Default memory limit: 4 GiB, the grounder's (the command line sets
    /// both with one flag).
    pub const DEFAULT_MAX_MEMORY: usize = crate::ground::Budget::DEFAULT_MAX_MEMORY;

    /// No limit (the build-time computation of static relations, which has
    /// its own work limit).
    pub const UNLIMITED: QueryBudget = QueryBudget {
        max_answers: usize::MAX,
        max_memory: usize::MAX,
    };
}

impl Default for QueryBudget {
    fn default() -> Self {
        QueryBudget {
            max_answers: Self::DEFAULT_MAX_ANSWERS,
            max_memory: Self::DEFAULT_MAX_MEMORY,
        }
    }
}

/// Body steps between two looks at a query's counts. Each step adds at most
/// one answer and a few terms, so a query overshoots its budget by little.
pub(crate) const CHECK_INTERVAL: u64 = 1 << 12;

/// Estimated bytes of one tabled answer beyond its ids: its hash-chain link
/// and hash-table entry.
pub(crate) const ANSWER_BYTES: usize = 32;
/// Estimated bytes of one table (a call) beyond its key.
pub(crate) const TABLE_BYTES: usize = 112;

/// Which limit of a [`QueryBudget`] a query hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryLimit {
    /// [`QueryBudget::max_answers`].
    Answers,
    /// [`QueryBudget::max_memory`].
    Memory,
}

impl QueryLimit {
    /// The knob that raises this limit.
    pub fn knob(self) -> Knob {
        match self {
            QueryLimit::Answers => Knob::MaxAnswers,
            QueryLimit::Memory => Knob::MaxQueryMemory,
        }
    }
}

/// Why a query of the interpreter gave up. Its [`fmt::Display`] names no way
/// to raise the budget: [`QueryBudgetError::message`] adds the one of a front
/// end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryBudgetError {
    /// What was asked, for a person: `the legal moves of robot`.
    pub query: String,
    /// The relation with the most answers when the query gave up, the one
    /// that blew up (`name/arity`, as in grounding errors).
    pub relation: String,
    /// Which limit.
    pub what: QueryLimit,
    /// The limit's value (bytes for [`QueryLimit::Memory`]).
    pub limit: usize,
}

impl QueryBudgetError {
    /// The message for a person using `caller`: what happened, and how that
    /// front end raises the limit.
    pub fn message(&self, caller: Caller) -> String {
        format!("{self}; raise it with {}", caller.knob(self.what.knob()))
    }
}

impl fmt::Display for QueryBudgetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let QueryBudgetError {
            query,
            relation,
            what,
            limit,
        } = self;
        match what {
            QueryLimit::Answers => write!(
                f,
                "interpreter budget exceeded: more than {limit} answers in one query ({query}), \
                 most of them of relation `{relation}`"
            ),
            QueryLimit::Memory => write!(
                f,
                "interpreter budget exceeded: more than {} MB of memory in one query ({query}), \
                 most of it for relation `{relation}`",
                limit >> 20
            ),
        }
    }
}

impl std::error::Error for QueryBudgetError {}
