//! The [`Game`] trait: the interface every reasoner implements, interpreted or
//! compiled, and that every driver (playouts, perft, Monte Carlo, trace replay)
//! runs on.

use std::fmt;
use std::hash::Hash;

/// A role's index in the game's role order (the order of the `role` facts).
pub type Role = usize;

/// A move of one role, as a small id interned per game.
///
/// Ids are only meaningful together with the game and role that produced them.
/// Reasoners list legal moves in byte order of their GDL text, so that the
/// same seed plays the same match on every reasoner.
///
/// `repr(transparent)`: a list of moves is a list of `u32`s, as the loaded
/// games' C ABI ([`crate::abi`]) passes them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
#[repr(transparent)]
pub struct Move(pub u32);

/// A role's goal value in a state.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Goal {
    /// Exactly one goal value holds.
    Value(u8),
    /// No goal value holds for the role (the game is ill-defined here).
    None,
    /// Several goal values hold for the role (the game is ill-defined here).
    Ambiguous,
}

impl Goal {
    /// The goal value when exactly one is defined.
    pub fn value(self) -> Option<u8> {
        match self {
            Goal::Value(v) => Some(v),
            Goal::None | Goal::Ambiguous => None,
        }
    }
}

impl fmt::Display for Goal {
    /// Prints the value, or `?` when it is missing or ambiguous (as the
    /// conformance traces do).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Goal::Value(v) => write!(f, "{v}"),
            Goal::None | Goal::Ambiguous => f.write_str("?"),
        }
    }
}

/// Why a joint move was refused by [`Game::next_state`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveError {
    /// The joint move does not have exactly one move per role.
    WrongArity {
        /// Number of roles of the game.
        expected: usize,
        /// Number of moves given.
        got: usize,
    },
    /// The state is terminal: no moves are legal.
    Terminal,
    /// A role's move is not legal in the state.
    Illegal {
        /// The role whose move is not legal.
        role: Role,
        /// The refused move.
        mv: Move,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::WrongArity { expected, got } => {
                write!(
                    f,
                    "joint move has {got} moves, the game has {expected} roles"
                )
            }
            MoveError::Terminal => f.write_str("the state is terminal"),
            MoveError::Illegal { role, mv } => {
                write!(f, "move {} of role {role} is not legal", mv.0)
            }
        }
    }
}

impl std::error::Error for MoveError {}

/// Why GDL text given to [`Game::parse_move`] or [`Game::parse_state`] was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError {
    /// What went wrong, for a person.
    pub message: String,
}

impl ParseError {
    /// An error with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        ParseError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// A game reasoner: the rules of one game, queried state by state.
///
/// States are plain values (`Clone + Eq + Hash`), so that tree search can store
/// and compare them; the game itself is immutable and `Send + Sync`, so that
/// playouts can run on many threads against one game.
pub trait Game: Send + Sync {
    /// A game state: the set of fluents that hold.
    type State: Clone + Eq + Hash + fmt::Debug + Send + Sync;

    /// Number of roles.
    fn num_roles(&self) -> usize;

    /// GDL text of a role's name.
    fn role_name(&self, role: Role) -> &str;

    /// The initial state.
    fn initial_state(&self) -> Self::State;

    /// Clears `out`, then writes the legal moves of `role` in `state`, in byte
    /// order of their GDL text. In a terminal state the result is unspecified
    /// (games often still define legal moves there).
    fn legal_moves(&self, state: &Self::State, role: Role, out: &mut Vec<Move>);

    /// One of the legal moves of `role` in `state` drawn at random (`None`:
    /// it has none): with `n` moves, the one [`Game::legal_moves`] lists at
    /// `rng.below(n)`, the generator untouched when `n` is 1, so that a
    /// playout draws the same moves from the same seed whichever way a
    /// game answers. `buf` is scratch space. Compiled games that hold the
    /// moves as bits pick one without listing them all.
    fn random_move(
        &self,
        state: &Self::State,
        role: Role,
        rng: &mut crate::rng::Rng,
        buf: &mut Vec<Move>,
    ) -> Option<Move> {
        self.legal_moves(state, role, buf);
        rng.pick(buf.len()).map(|i| buf[i])
    }

    /// Whether `state` is terminal.
    fn is_terminal(&self, state: &Self::State) -> bool;

    /// The goal value of `role` in `state`.
    fn goal(&self, state: &Self::State, role: Role) -> Goal;

    /// Replaces `state` by its successor under `joint` (one move per role, in
    /// role order), without checking that the moves are legal: the hot path of
    /// tree search. With an illegal joint move the resulting state is
    /// unspecified, but the call is memory-safe and does not panic.
    fn apply_unchecked(&self, state: &mut Self::State, joint: &[Move]);

    /// GDL text of a move of `role`.
    fn move_text(&self, role: Role, mv: Move) -> String;

    /// GDL text of every fluent of `state`, in byte order.
    fn fluents(&self, state: &Self::State) -> Vec<String>;

    /// Reads a move of `role` from GDL text such as `(mark 1 2)`. Names are
    /// matched as the game reads them (case-independently for prefix GDL).
    fn parse_move(&self, role: Role, text: &str) -> Result<Move, ParseError>;

    /// Reads a state from GDL text: the fluents that hold, such as
    /// `(cell 1 1 x) (control oplayer)`.
    fn parse_state(&self, text: &str) -> Result<Self::State, ParseError>;

    /// The successor of `state` under `joint`, without checking legality.
    fn next_state_unchecked(&self, state: &Self::State, joint: &[Move]) -> Self::State {
        let mut next = state.clone();
        self.apply_unchecked(&mut next, joint);
        next
    }

    /// The successor of `state` under `joint`, after checking that the state is
    /// not terminal and every move is legal for its role.
    fn next_state(&self, state: &Self::State, joint: &[Move]) -> Result<Self::State, MoveError> {
        if joint.len() != self.num_roles() {
            return Err(MoveError::WrongArity {
                expected: self.num_roles(),
                got: joint.len(),
            });
        }
        if self.is_terminal(state) {
            return Err(MoveError::Terminal);
        }
        let mut legal = Vec::new();
        for (role, &mv) in joint.iter().enumerate() {
            self.legal_moves(state, role, &mut legal);
            if !legal.contains(&mv) {
                return Err(MoveError::Illegal { role, mv });
            }
        }
        Ok(self.next_state_unchecked(state, joint))
    }

    /// Every role's goal value in `state`, written into `out` in role order.
    fn goals(&self, state: &Self::State, out: &mut Vec<Goal>) {
        out.clear();
        out.extend((0..self.num_roles()).map(|r| self.goal(state, r)));
    }

    /// Names of all roles, in role order.
    fn role_names(&self) -> Vec<&str> {
        (0..self.num_roles()).map(|r| self.role_name(r)).collect()
    }

    /// Seeded random playouts from `state` run by the game itself, where it
    /// has a faster way than a driver calling it move by move: the same
    /// playouts [`crate::run_playouts_from`] plays, or `None` (the default)
    /// to let the driver play them. A loaded game runs them inside its
    /// library (one call, not one a move), so `run_playouts` and
    /// everything over it cross the library's boundary once.
    fn native_playouts(
        &self,
        _state: &Self::State,
        _budget: crate::Budget,
        _seed: u64,
        _max_depth: usize,
    ) -> Option<crate::PlayoutStats> {
        None
    }

    /// Why the reasoner gave up, if it did: `None` for a reasoner that never
    /// gives up (the default).
    ///
    /// A reasoner with a resource budget (the interpreter's answer and memory
    /// limits on one query) that a query exceeds records the reason, and from
    /// then on answers every query trivially (every state terminal, no legal
    /// move, no goal), so that drivers finish at once instead of taking the
    /// machine's memory. Their results are then meaningless: drivers check
    /// this after running and report the failure instead.
    fn failure(&self) -> Option<String> {
        None
    }
}
