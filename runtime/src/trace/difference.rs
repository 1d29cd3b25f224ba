//! How a reasoner departs from a trace: [`Mismatch`] (what differs) and
//! [`Difference`] (where), with a readable message.

use std::fmt;

use crate::Goal;

/// What differs between a reasoner and a trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Mismatch {
    /// The role names (or, for a trace in game order, their order) differ.
    Roles {
        /// The trace's roles.
        expected: Vec<String>,
        /// The game's roles.
        got: Vec<String>,
    },
    /// The state's fluents differ.
    State {
        /// Fluents of the trace that the game lacks.
        missing: Vec<String>,
        /// Fluents of the game that the trace lacks.
        extra: Vec<String>,
    },
    /// The terminal flag differs.
    Terminal {
        /// The trace's flag.
        expected: bool,
        /// The game's flag.
        got: bool,
    },
    /// A role's legal moves differ.
    Legal {
        /// The role.
        role: String,
        /// Legal moves of the trace that the game lacks.
        missing: Vec<String>,
        /// Legal moves of the game that the trace lacks.
        extra: Vec<String>,
    },
    /// A role's goal value in a terminal state differs.
    Goal {
        /// The role.
        role: String,
        /// The trace's value (`None` for `?`).
        expected: Option<u8>,
        /// The game's goal.
        got: Goal,
    },
    /// The game could not read a move of the trace's joint move.
    JointParse {
        /// The role whose move was refused.
        role: String,
        /// The move's text in the trace.
        mv: String,
        /// The game's error message.
        error: String,
    },
}

impl Mismatch {
    /// A one-word name of what differs: `roles`, `state`, `terminal`,
    /// `legal`, `goals` or `joint-parse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Mismatch::Roles { .. } => "roles",
            Mismatch::State { .. } => "state",
            Mismatch::Terminal { .. } => "terminal",
            Mismatch::Legal { .. } => "legal",
            Mismatch::Goal { .. } => "goals",
            Mismatch::JointParse { .. } => "joint-parse",
        }
    }

    /// The role concerned, when the mismatch is about one role.
    pub fn role(&self) -> Option<&str> {
        match self {
            Mismatch::Legal { role, .. }
            | Mismatch::Goal { role, .. }
            | Mismatch::JointParse { role, .. } => Some(role),
            _ => None,
        }
    }
}

/// The first point where a reasoner departs from a trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Difference {
    /// Index of the match in [`Trace::matches`](super::Trace::matches).
    pub match_index: usize,
    /// The match's number in the file (`PLAYOUT k`).
    pub playout: usize,
    /// Depth of the state where the difference shows.
    pub depth: usize,
    /// What differs.
    pub mismatch: Mismatch,
}

/// Writes at most a few items of a list, so that a difference in a state of
/// hundreds of fluents stays readable.
fn write_list(f: &mut fmt::Formatter<'_>, items: &[String]) -> fmt::Result {
    const SHOWN: usize = 8;
    if items.is_empty() {
        return f.write_str("(none)");
    }
    for (i, s) in items.iter().take(SHOWN).enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(s)?;
    }
    if items.len() > SHOWN {
        write!(f, " ... ({} more)", items.len() - SHOWN)?;
    }
    Ok(())
}

fn write_missing_extra(
    f: &mut fmt::Formatter<'_>,
    missing: &[String],
    extra: &[String],
) -> fmt::Result {
    if !missing.is_empty() {
        f.write_str("missing ")?;
        write_list(f, missing)?;
    }
    if !extra.is_empty() {
        if !missing.is_empty() {
            f.write_str("; ")?;
        }
        f.write_str("extra ")?;
        write_list(f, extra)?;
    }
    Ok(())
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Mismatch::Roles { expected, got } = &self.mismatch {
            f.write_str("roles differ: expected ")?;
            write_list(f, expected)?;
            f.write_str(", got ")?;
            return write_list(f, got);
        }
        write!(
            f,
            "match {} (PLAYOUT {}), depth {}: ",
            self.match_index, self.playout, self.depth
        )?;
        match &self.mismatch {
            Mismatch::Roles { .. } => Ok(()),
            Mismatch::State { missing, extra } => {
                f.write_str("state differs: ")?;
                write_missing_extra(f, missing, extra)
            }
            Mismatch::Terminal { expected, got } => {
                write!(f, "terminal differs: expected {expected}, got {got}")
            }
            Mismatch::Legal {
                role,
                missing,
                extra,
            } => {
                write!(f, "legal moves of {role} differ: ")?;
                write_missing_extra(f, missing, extra)
            }
            Mismatch::Goal {
                role,
                expected,
                got,
            } => {
                write!(f, "goal of {role} differs: expected ")?;
                match expected {
                    Some(v) => write!(f, "{v}")?,
                    None => f.write_str("? (no value or several)")?,
                }
                match got {
                    Goal::Value(v) => write!(f, ", got {v}"),
                    Goal::None => f.write_str(", got no value"),
                    Goal::Ambiguous => f.write_str(", got several values"),
                }
            }
            Mismatch::JointParse { role, mv, error } => {
                write!(f, "the game cannot read move {mv} of {role}: {error}")
            }
        }
    }
}

impl std::error::Error for Difference {}
