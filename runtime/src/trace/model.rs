//! What a trace holds: the roles and the recorded matches of one game, each
//! match a list of steps, and the invariant every reader checks.

/// A parsed trace: the roles and the recorded matches of one game.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Trace {
    /// The game's name, when the trace gives it (Dresden XML traces do).
    pub game: Option<String>,
    /// Role names, as written in the trace.
    pub roles: Vec<String>,
    /// Whether [`Trace::roles`] is the game's role order. The line format
    /// lists roles in game order; Dresden XML traces only name roles in
    /// attributes (sorted by name), so their roles are matched by name.
    pub roles_in_game_order: bool,
    /// The matches, in file order.
    pub matches: Vec<TraceMatch>,
}

/// One recorded match.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TraceMatch {
    /// The match's number in the file (`PLAYOUT k`).
    pub index: usize,
    /// The steps; `steps[d].depth == d`, and every step but the last has a
    /// joint move.
    pub steps: Vec<TraceStep>,
    /// The depth at which the recorder cut the match off (`ABORT d`), if it did.
    pub abort: Option<usize>,
    /// The final depth given by `END k depth`, if present.
    pub end: Option<usize>,
}

/// What a trace records about the state at one depth of a match. Fields are
/// `None` where the trace does not give the information; the replayer only
/// compares what is there. Terms are in canonical spelling
/// ([`crate::text::canonical`]) with their case as written.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TraceStep {
    /// Number of joint moves played before this state.
    pub depth: usize,
    /// Every fluent true in the state.
    pub state: Option<Vec<String>>,
    /// Every role's legal moves, indexed like [`Trace::roles`] (non-terminal
    /// states only).
    pub legal: Option<Vec<Vec<String>>>,
    /// Whether the state is terminal.
    pub terminal: Option<bool>,
    /// Every role's goal value, indexed like [`Trace::roles`]; `None` for a
    /// `?` (no value or several values), or a role an XML trace omits.
    pub goals: Option<Vec<Option<u8>>>,
    /// The joint move played from this state, one move a role, indexed like
    /// [`Trace::roles`].
    pub joint: Option<Vec<String>>,
}

/// Checks that every step but the last has a joint move, so that a replay
/// never has to guess how the match went on.
pub(super) fn check_match(m: &TraceMatch) -> Result<(), String> {
    let n = m.steps.len();
    for s in m.steps.iter().take(n.saturating_sub(1)) {
        if s.joint.is_none() {
            return Err(format!(
                "match {}: depth {} has no joint move but the match goes on",
                m.index, s.depth
            ));
        }
    }
    Ok(())
}
