//! Limits on grounding, so that a game too large to ground fails fast with
//! a clear error (and callers can fall back to a lifted reasoner) instead of
//! exhausting memory; and the budgets a user can raise ([`Knob`]), each
//! named the way the front end in use ([`Caller`]) raises it.

use std::fmt;
use std::time::{Duration, Instant};

/// How much the grounder may produce before giving up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most ground rules (instances before simplification), and most atoms
    /// the domain fixpoint may derive.
    pub max_rules: usize,
    /// Most memory, in bytes (an estimate of the grounder's own data).
    pub max_memory: usize,
    /// Most join work (candidate atoms tried), so that joins that derive
    /// little but search much also fail fast. Derived from `max_rules`.
    pub max_work: u64,
    /// When to give up, if ever: the `auto` back end's estimate of whether
    /// a game grounds quickly.
    pub deadline: Option<(Instant, Duration)>,
}

impl Budget {
    /// Default rule limit: generous for real games (the largest corpus games
    /// that ground have a few million instances), small enough to stop
    /// quickly on games that would need tens of gigabytes.
    pub const DEFAULT_MAX_RULES: usize = 8_000_000;
    /// Default memory limit: 4 GiB.
    pub const DEFAULT_MAX_MEMORY: usize = 4 << 30;

    /// Join work allowed per unit of `max_rules`.
    pub const WORK_PER_RULE: u64 = 20;

    /// A budget with the given limits (and join work proportional to the
    /// rule limit).
    pub fn new(max_rules: usize, max_memory: usize) -> Self {
        Budget {
            max_rules,
            max_memory,
            max_work: (max_rules as u64).saturating_mul(Self::WORK_PER_RULE),
            deadline: None,
        }
    }

    /// This budget, also giving up `time` from now.
    pub fn within(self, time: Duration) -> Self {
        Budget {
            deadline: Some((Instant::now() + time, time)),
            ..self
        }
    }

    /// Fails once the deadline has passed, or once the tracker of the
    /// compile on this thread says it must stop (cancelled, or out of its
    /// time: see [`crate::stages`]); the session tells the two apart.
    pub fn check_time(&self, relation: &str) -> Result<(), GroundError> {
        let late = match self.deadline {
            Some((at, time)) if Instant::now() > at => Some(time),
            _ => {
                crate::stages::interrupted().map(|_| self.deadline.map_or(Duration::ZERO, |d| d.1))
            }
        };
        match late {
            Some(time) => Err(GroundError::Budget {
                relation: relation.to_owned(),
                what: Limit::Time,
                limit: time.as_secs() as usize,
            }),
            None => Ok(()),
        }
    }

    /// The error of a join that ran out of work while evaluating rules of
    /// `relation`.
    pub fn work_error(&self, relation: &str) -> GroundError {
        GroundError::Budget {
            relation: relation.to_owned(),
            what: Limit::Work,
            limit: self.max_work.min(usize::MAX as u64) as usize,
        }
    }

    /// Fails when `tuples` atoms exceed the limit.
    pub fn check_tuples(&self, tuples: usize, relation: &str) -> Result<(), GroundError> {
        if tuples > self.max_rules {
            return Err(GroundError::Budget {
                relation: relation.to_owned(),
                what: Limit::Atoms,
                limit: self.max_rules,
            });
        }
        Ok(())
    }

    /// Fails when `rules` ground rules exceed the limit.
    pub fn check_rules(&self, rules: usize, relation: &str) -> Result<(), GroundError> {
        if rules > self.max_rules {
            return Err(GroundError::Budget {
                relation: relation.to_owned(),
                what: Limit::Rules,
                limit: self.max_rules,
            });
        }
        Ok(())
    }

    /// Fails when `bytes` exceed the memory limit.
    pub fn check_memory(&self, bytes: usize, relation: &str) -> Result<(), GroundError> {
        if bytes > self.max_memory {
            return Err(GroundError::Budget {
                relation: relation.to_owned(),
                what: Limit::Memory,
                limit: self.max_memory,
            });
        }
        Ok(())
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Self::DEFAULT_MAX_RULES, Self::DEFAULT_MAX_MEMORY)
    }
}

/// Which limit of a [`Budget`] was hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Atoms derived by the domain fixpoint.
    Atoms,
    /// Ground rule instances.
    Rules,
    /// Memory.
    Memory,
    /// Join work (atoms tried while matching rule bodies).
    Work,
    /// Time (seconds), for an estimate.
    Time,
}

/// Why a game could not be ground. Its message names no way to raise the
/// budget: each front end names its own (see
/// [`crate::session::CodegenError::message`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroundError {
    /// The game exceeds the budget; `relation` is the relation whose growth
    /// hit the limit (GDL text such as `next/1`).
    Budget {
        /// The relation being derived or instantiated when the limit was hit.
        relation: String,
        /// Which limit.
        what: Limit,
        /// The limit's value.
        limit: usize,
    },
}

impl fmt::Display for GroundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroundError::Budget {
                relation,
                what,
                limit,
            } => match what {
                Limit::Atoms => write!(
                    f,
                    "grounding budget exceeded: more than {limit} ground atoms while deriving relation `{relation}`"
                ),
                Limit::Rules => write!(
                    f,
                    "grounding budget exceeded: more than {limit} ground rules while instantiating rules of `{relation}`"
                ),
                Limit::Work => write!(
                    f,
                    "grounding budget exceeded: more than {limit} join steps while evaluating rules of `{relation}`"
                ),
                Limit::Time => write!(
                    f,
                    "grounding takes more than {limit} s (still deriving `{relation}`)"
                ),
                Limit::Memory => write!(
                    f,
                    "grounding budget exceeded: more than {} MB of memory while deriving `{relation}`",
                    limit >> 20
                ),
            },
        }
    }
}

impl std::error::Error for GroundError {}

/// Which front end drives the compiler: a budget message names that front
/// end's own way to raise the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Caller {
    /// The `gdl-codegen` command: its flags.
    #[default]
    Cli,
    /// The `gdl!` macro: its options.
    Macro,
    /// The build-script API: the [`crate::builder::Builder`] methods.
    Builder,
}

/// A budget a user can raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// Ground rules and atoms ([`Budget::max_rules`]).
    MaxRules,
    /// The grounder's memory ([`Budget::max_memory`]).
    MaxMemory,
    /// Rule literals compiled ([`EmitOptions::max_literals`](crate::backend::common::EmitOptions::max_literals)).
    MaxCompileLiterals,
    /// Tests of ground code printed ([`EmitOptions::max_code_tests`](crate::backend::common::EmitOptions::max_code_tests)).
    MaxCodeTests,
    /// Answers of one interpreter query
    /// ([`QueryBudget::max_answers`](crate::reasoner::interp::QueryBudget::max_answers)).
    MaxAnswers,
    /// Memory of one interpreter query
    /// ([`QueryBudget::max_memory`](crate::reasoner::interp::QueryBudget::max_memory)):
    /// the command line's memory flag, a field of its own elsewhere.
    MaxQueryMemory,
}

impl Caller {
    /// How this front end raises `knob`.
    pub fn knob(self, knob: Knob) -> &'static str {
        match (self, knob) {
            (Caller::Cli, Knob::MaxRules) => "--max-rules",
            (Caller::Cli, Knob::MaxMemory | Knob::MaxQueryMemory) => "--max-memory-mb",
            (Caller::Cli, Knob::MaxAnswers) => "--max-answers",
            (Caller::Cli, Knob::MaxCompileLiterals) => "--max-compile-literals",
            (Caller::Cli, Knob::MaxCodeTests) => "--max-code-tests",
            (Caller::Macro, Knob::MaxCodeTests) => "`max_code_tests = N;`",
            (Caller::Builder, Knob::MaxCodeTests) => "`Builder::max_code_tests`",
            (Caller::Macro, Knob::MaxRules) => "`max_rules = N;`",
            (Caller::Macro, Knob::MaxMemory) => "`max_memory_mb = N;`",
            (Caller::Macro, Knob::MaxCompileLiterals) => "`max_literals = N;`",
            (Caller::Builder, Knob::MaxRules | Knob::MaxMemory) => "`Builder::budget`",
            (Caller::Builder, Knob::MaxCompileLiterals) => "`Builder::max_compile_literals`",
            // The macro and the build script compile games; only a program
            // that builds an interpreter meets these, through its budget.
            (Caller::Macro | Caller::Builder, Knob::MaxAnswers) => "`QueryBudget::max_answers`",
            (Caller::Macro | Caller::Builder, Knob::MaxQueryMemory) => "`QueryBudget::max_memory`",
        }
    }
}
