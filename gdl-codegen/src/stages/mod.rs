//! The stages of a compile, each timed, bounded by a budget and
//! cancellable, and the events observers receive as they start and end.
//!
//! A caller that wants to watch or bound a compile makes a [`Tracker`]
//! (observers, a [`Cancel`] token, a deadline for the whole compile, budgets
//! per stage) and drives the compile inside [`Tracker::enter`]. The
//! compiler's stages report to the tracker of the thread they run on through
//! [`stage`], and ask [`interrupted`] at safe points (between stages, and in
//! the fixpoints' loops through [`crate::ground::Budget::check_time`]). A
//! compile with no tracker runs as before: [`stage`] only calls its closure.
//!
//! Why a thread-local tracker rather than a parameter: the stages worth
//! timing are deep inside the back ends (the relaxed fixpoint and the
//! sampled states inside the lifted back end's facts); a context passed
//! through every signature would change every stage for the sake of
//! watching it. The compile runs on one thread; the one exception, the
//! lifted back end's sampled states, are played on a thread of their own
//! beside the relaxed fixpoint: the compiling thread tells it to stop when
//! it is interrupted, and [`Stage::Sample`] times its wait for them.
//!
//! Observers: [`Timings`] (the `--timings` table), the CLI's progress bars,
//! and whatever a caller implements ([`Observer`]).

mod timings;
mod tracker;

pub use timings::Timings;
pub use tracker::{interrupted, stage, Cancel, Interrupted, Reason, Tracker};

use std::time::Duration;

/// A stage of a compile, from the rules to a built game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Reading, lowering and checking the description (the front end).
    Check,
    /// Grounding: `auto`'s attempt within its trial budget, or the ground
    /// program a ground reasoner needs.
    Ground,
    /// The relaxed fixpoint: reachable fluents and moves, static relations.
    Fixpoint,
    /// The lifted back end's guards: static over-approximations of its
    /// recursive relations, each derived by a relaxed fixpoint of its own.
    Guards,
    /// Sampled states: the interpreter plays a seeded match for the lifted
    /// back end's estimates, beside the relaxed fixpoint; the stage is the
    /// wait for it after the guards.
    Sample,
    /// A round of the lifted planner: each function's shape, memo and join
    /// orders, and the estimates they read (counted from the sampled states
    /// and probed in them the first time a round asks).
    Joins,
    /// The tables the lifted plan scans: access paths, run-time tables.
    Tables,
    /// Planning: the ground back end's bitnet and layout, or the lifted back
    /// end's facts and join plans.
    Plan,
    /// Printing the module's tokens.
    Print,
    /// Formatting the tokens as the text of a file.
    Format,
    /// Building the generated crate with cargo (`--reasoner compiled`).
    Build,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::Check,
        Stage::Ground,
        Stage::Fixpoint,
        Stage::Guards,
        Stage::Sample,
        Stage::Joins,
        Stage::Tables,
        Stage::Plan,
        Stage::Print,
        Stage::Format,
        Stage::Build,
    ];

    /// The short name tables and scripts use.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Check => "check",
            Stage::Ground => "ground",
            Stage::Fixpoint => "fixpoint",
            Stage::Guards => "guards",
            Stage::Sample => "sample",
            Stage::Joins => "joins",
            Stage::Tables => "tables",
            Stage::Plan => "plan",
            Stage::Print => "print",
            Stage::Format => "format",
            Stage::Build => "build",
        }
    }

    /// What the stage does, for a person watching it.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Check => "reading and checking the rules",
            Stage::Ground => "grounding",
            Stage::Fixpoint => "the relaxed fixpoint (fluents and moves)",
            Stage::Guards => "deriving the guards of recursive relations",
            Stage::Sample => "sampling states",
            Stage::Joins => "planning join orders",
            Stage::Tables => "planning the tables the joins scan",
            Stage::Plan => "planning",
            Stage::Print => "printing the module",
            Stage::Format => "formatting the module",
            Stage::Build => "building with cargo",
        }
    }
}

/// What an observer is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `stage` started, inside `depth` stages still open.
    Start {
        /// The stage.
        stage: Stage,
        /// How many stages enclose it (0: a top-level stage).
        depth: usize,
    },
    /// `stage` ended after `elapsed`.
    End {
        /// The stage.
        stage: Stage,
        /// How many stages enclose it.
        depth: usize,
        /// Its wall time, enclosed stages included.
        elapsed: Duration,
        /// Whether the compile was interrupted (cancelled or out of time)
        /// when it ended.
        interrupted: bool,
    },
}

/// Receives the events of a [`Tracker`]'s compile, on the compiling thread.
pub trait Observer: Send + Sync {
    /// Called when a stage starts or ends.
    fn event(&self, event: &Event);
}
