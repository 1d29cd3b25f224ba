//! English draughts as `ggp-repository-base/englishDraughts.kif` plays it:
//! 8x8, pieces on the 32 dark squares, white moves first and up. Captures
//! are compulsory; a chain of jumps is played one jump a turn (the capturing
//! player keeps control while the piece that just jumped can jump again,
//! and then must jump with it), and becoming a king ends the chain. A
//! player in control without any move or capture loses (0/100); after 20
//! consecutive plies without a capture or a pawn move the game ends in a
//! draw (50/50). The player without control plays `noop`.
//!
//! Fluents: `(cell x y role type)`, `(lastToMove role)`,
//! `(capturingPiece x y)` (the square a capture just landed on, unless it
//! crowned) and `(step n)` (plies since the last capture or pawn move).
//!
//! The board is one bitboard per role and piece type, file-major: square
//! `(x, y)` is bit `8 file + (y - 1)` with file 0 for `a`. The four diagonal
//! steps are shifts by 7 and 9, masked at the first and last rank.

use gdl_runtime::{Game, Goal, Move, ParseError, Role};

use crate::util::{
    goal_of, name_index, number, push_moves, state_terms, term_atoms, unknown, Bits,
};

/// The role names, in the order of the `role` facts.
const ROLES: [&str; 2] = ["white", "black"];
/// White's role index.
const WHITE: usize = 0;
/// The piece types; a board index is `2 role + type`.
const TYPES: [&str; 2] = ["king", "pawn"];
/// The king type index.
const KING: usize = 0;
/// The pawn type index.
const PAWN: usize = 1;
/// The file names.
const FILES: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];
/// Rank 1 of every file.
const RANK1: u64 = 0x0101_0101_0101_0101;
/// Rank 8 of every file.
const RANK8: u64 = 0x8080_8080_8080_8080;
/// The step counter's bits: `(step n)` is bit `n`, for `n` in 0..=20.
const STEPS: u32 = (1 << 21) - 1;
/// The step at which the game ends in a draw.
const LAST_STEP: u32 = 20;

/// The four diagonal directions, in the byte order of the texts of the moves
/// from one square: towards file - 1 (rank - 1, then rank + 1), then towards
/// file + 1 (rank - 1, then rank + 1).
const DIRECTIONS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
/// The index of the opposite of each direction.
const OPPOSITE: [usize; 4] = [3, 2, 1, 0];

/// First id of the simple moves: a capture from square `s` in direction `d`
/// is `4 s + d`, a move `MOVES + 4 s + d`, and `noop` comes last, so that
/// ids sort as the texts do (`(capture` < `(move` < `noop`).
const MOVES: u32 = 256;
/// The id of `noop`.
const NOOP: Move = Move(512);

/// The English draughts reference engine.
#[derive(Copy, Clone, Debug, Default)]
pub struct EnglishDraughts;

/// An English draughts state: exactly the fluents of the GDL state.
///
/// Any set of the game's fluents can be represented (even several pieces on
/// one square, several `lastToMove` or `step` fluents, or none), and the
/// rules are evaluated on it as the GDL rules would.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// `(cell x y role type)`: one bitboard per role and type, at `2 role + type`.
    cells: [u64; 4],
    /// `(capturingPiece x y)`.
    capturing: u64,
    /// `(step n)`: bit `n`.
    step: u32,
    /// `(lastToMove role)`: bit `r` for role `r`.
    last: u8,
}

/// The square of `(file, rank)`, both counted from 0.
fn square(file: u32, rank: u32) -> u32 {
    8 * file + rank
}

/// Every cell of `b` moved one diagonal step in direction `d`, dropping the
/// cells that would leave the board.
#[inline(always)]
fn shift(b: u64, d: usize) -> u64 {
    // The rank masks stop a step from wrapping into the next file; a step
    // off the first or last file falls off the 64 bits.
    match d {
        0 => (b & !RANK1) >> 9,
        1 => (b & !RANK8) >> 7,
        2 => (b & !RANK1) << 7,
        _ => (b & !RANK8) << 9,
    }
}

/// The squares `n` steps from `from` in direction `d`, if on the board.
fn target(from: u32, d: usize, n: i32) -> Option<u32> {
    let (df, dr) = DIRECTIONS[d];
    let file = (from / 8) as i32 + n * df;
    let rank = (from % 8) as i32 + n * dr;
    let on_board = (0..8).contains(&file) && (0..8).contains(&rank);
    on_board.then(|| square(file as u32, rank as u32))
}

/// Source squares of `role`'s `legal2` moves or captures, one set a direction.
type Sources = [u64; 4];

/// Whether any direction has a source.
#[inline]
fn any_source(sources: &Sources) -> bool {
    sources[0] | sources[1] | sources[2] | sources[3] != 0
}

/// A decoded move: what it is, its square and direction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Action {
    /// `(capture x1 y1 x3 y3)` from a square in a direction.
    Capture(u32, usize),
    /// `(move x1 y1 x2 y2)` from a square in a direction.
    Step(u32, usize),
    /// `noop`, and ids that are no move.
    Pass,
}

impl Action {
    /// Decodes a move id.
    fn of(mv: Move) -> Action {
        let (kind, rest) = (mv.0 / MOVES, mv.0 % MOVES);
        let (from, d) = (rest / 4, (rest % 4) as usize);
        match kind {
            0 => Action::Capture(from, d),
            1 => Action::Step(from, d),
            _ => Action::Pass,
        }
    }

    /// The source and destination squares, if on the board.
    fn squares(self) -> Option<(u32, u32)> {
        match self {
            Action::Capture(from, d) => Some((from, target(from, d, 2)?)),
            Action::Step(from, d) => Some((from, target(from, d, 1)?)),
            Action::Pass => None,
        }
    }
}

impl State {
    /// Pieces of `role`, of either type.
    fn pieces(&self, role: Role) -> u64 {
        self.cells[2 * role] | self.cells[2 * role + 1]
    }

    /// Squares holding any piece (`hasPiece`).
    fn occupied(&self) -> u64 {
        self.cells[0] | self.cells[1] | self.cells[2] | self.cells[3]
    }

    /// The pieces of `role` that move in each direction: kings every way,
    /// pawns forward only.
    #[inline]
    fn movers(&self, role: Role) -> Sources {
        let all = self.pieces(role);
        let kings = self.cells[2 * role + KING];
        if role == WHITE {
            [kings, all, kings, all]
        } else {
            [all, kings, all, kings]
        }
    }

    /// Sources of `role`'s `legal2` captures: a piece that moves in the
    /// direction, an enemy piece next to it, a free square behind that.
    fn capture_sources(&self, role: Role) -> Sources {
        let free = !self.occupied();
        let enemy = self.pieces(1 - role);
        let movers = self.movers(role);
        std::array::from_fn(|d| {
            let back = OPPOSITE[d];
            movers[d] & shift(enemy & shift(free, back), back)
        })
    }

    /// Sources of `role`'s `legal2` moves: a piece that moves in the
    /// direction and a free square next to it.
    fn move_sources(&self, role: Role) -> Sources {
        let free = !self.occupied();
        let movers = self.movers(role);
        std::array::from_fn(|d| movers[d] & shift(free, OPPOSITE[d]))
    }

    /// `captureAvailableForLastCapturingPiece`: a piece on a
    /// `capturingPiece` square can capture (for whichever role owns it).
    fn capturing_can_continue(&self) -> bool {
        // Usually there is no capturing square, and then no need to look.
        if self.capturing == 0 {
            return false;
        }
        let jumps_from_capturing = |role: Role| {
            let s = self.capture_sources(role);
            (s[0] | s[1] | s[2] | s[3]) & self.capturing != 0
        };
        jumps_from_capturing(0) || jumps_from_capturing(1)
    }

    /// `control`, as a role mask, given [`State::capturing_can_continue`]:
    /// the last mover keeps control while the piece that just captured can
    /// capture again; otherwise the other role gets it.
    fn control(&self, can_continue: bool) -> u8 {
        if can_continue {
            self.last
        } else {
            ((self.last & 1) << 1) | ((self.last >> 1) & 1)
        }
    }

    /// `loser`, as a role mask: in control without any `legal2` move.
    fn losers(&self) -> u8 {
        let control = self.control(self.capturing_can_continue());
        let mut losers = 0;
        for role in 0..2 {
            if control & (1 << role) != 0
                && !any_source(&self.capture_sources(role))
                && !any_source(&self.move_sources(role))
            {
                losers |= 1 << role;
            }
        }
        losers
    }
}

impl Game for EnglishDraughts {
    type State = State;

    fn num_roles(&self) -> usize {
        ROLES.len()
    }

    fn role_name(&self, role: Role) -> &str {
        ROLES[role]
    }

    fn initial_state(&self) -> State {
        // Dark squares of ranks 1 to 3 (white) and 6 to 8 (black): on files
        // a, c, e, g the even ranks, on b, d, f, h the odd ones.
        let white = 0x0502_0502_0502_0502;
        let black = 0x40A0_40A0_40A0_40A0;
        State {
            cells: [0, white, 0, black],
            capturing: 0,
            step: 1,
            last: 1 << 1,
        }
    }

    fn legal_moves(&self, state: &State, role: Role, out: &mut Vec<Move>) {
        out.clear();
        let can_continue = state.capturing_can_continue();
        if state.control(can_continue) & (1 << role) == 0 {
            out.push(NOOP);
            return;
        }
        let mut captures = state.capture_sources(role);
        if any_source(&captures) {
            // Only the piece that just captured may go on, when it can.
            if can_continue {
                captures = captures.map(|s| s & state.capturing);
            }
            push_moves(&captures, 0, out);
        } else {
            push_moves(&state.move_sources(role), MOVES, out);
        }
    }

    fn is_terminal(&self, state: &State) -> bool {
        state.step & (1 << LAST_STEP) != 0 || state.losers() != 0
    }

    fn goal(&self, state: &State, role: Role) -> Goal {
        let losers = state.losers();
        goal_of([
            (losers & (1 << role) != 0, 0),
            (losers & (1 << (1 - role)) != 0, 100),
            (losers == 0, 50),
        ])
    }

    fn apply_unchecked(&self, state: &mut State, joint: &[Move]) {
        let old = *state;
        let mut affected = 0u64;
        let mut placed = [0u64; 4];
        let mut landed = 0u64;
        let mut crowning_capture = false;
        let mut reset = false;
        let mut last = 0u8;
        for (role, &mv) in joint.iter().enumerate().take(2) {
            let action = Action::of(mv);
            let Some((from, to)) = action.squares() else {
                continue;
            };
            let (from_bit, to_bit) = (1u64 << from, 1u64 << to);
            last |= 1 << role;
            affected |= from_bit | to_bit;
            let crown_rank = if role == WHITE { RANK8 } else { RANK1 };
            if to_bit & crown_rank != 0 {
                placed[2 * role + KING] |= to_bit;
            } else {
                for kind in [KING, PAWN] {
                    if old.cells[2 * role + kind] & from_bit != 0 {
                        placed[2 * role + kind] |= to_bit;
                    }
                }
            }
            match action {
                Action::Capture(..) => {
                    // The jumped square is the midpoint of the jump.
                    affected |= 1 << ((from + to) / 2);
                    landed |= to_bit;
                    reset = true;
                    let any_pawn = (old.cells[PAWN] | old.cells[2 + PAWN]) & from_bit != 0;
                    crowning_capture |= any_pawn && to_bit & (RANK1 | RANK8) != 0;
                }
                _ => reset |= old.cells[2 * role + PAWN] & from_bit != 0,
            }
        }
        for (cells, placed) in state.cells.iter_mut().zip(placed) {
            *cells = (*cells & !affected) | placed;
        }
        state.capturing = if crowning_capture { 0 } else { landed };
        state.last = last;
        state.step = if reset { 1 } else { (old.step << 1) & STEPS };
    }

    fn move_text(&self, _role: Role, mv: Move) -> String {
        let action = Action::of(mv);
        let name = match action {
            Action::Capture(..) => "capture",
            Action::Step(..) => "move",
            Action::Pass if mv == NOOP => return "noop".to_owned(),
            Action::Pass => return format!("<invalid move {}>", mv.0),
        };
        match action.squares() {
            Some((from, to)) => format!(
                "({name} {} {} {} {})",
                FILES[(from / 8) as usize],
                from % 8 + 1,
                FILES[(to / 8) as usize],
                to % 8 + 1
            ),
            None => format!("<invalid move {}>", mv.0),
        }
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let mut out = Vec::new();
        let at = |s: u32| format!("{} {}", FILES[(s / 8) as usize], s % 8 + 1);
        for (i, &cells) in state.cells.iter().enumerate() {
            let (role, kind) = (ROLES[i / 2], TYPES[i % 2]);
            for s in Bits(cells) {
                out.push(format!("(cell {} {role} {kind})", at(s)));
            }
        }
        for s in Bits(state.capturing) {
            out.push(format!("(capturingPiece {})", at(s)));
        }
        for n in Bits(u64::from(state.step)) {
            out.push(format!("(step {n})"));
        }
        for (role, name) in ROLES.iter().enumerate() {
            if state.last & (1 << role) != 0 {
                out.push(format!("(lastToMove {name})"));
            }
        }
        // Not on the playout path: sorting is simpler than merging orders.
        out.sort_unstable();
        out
    }

    fn parse_move(&self, role: Role, text: &str) -> Result<Move, ParseError> {
        if role >= ROLES.len() {
            return Err(ParseError::new(format!("no role {role}")));
        }
        let atoms = term_atoms(text)?;
        let (base, n) = match atoms.first().map(String::as_str) {
            Some("noop") if atoms.len() == 1 => return Ok(NOOP),
            Some("capture") => (0, 2),
            Some("move") => (MOVES, 1),
            _ => return Err(unknown("move", &atoms)),
        };
        let squares = match &atoms[1..] {
            [x1, y1, x2, y2] => parse_square(x1, y1).zip(parse_square(x2, y2)),
            _ => None,
        };
        let (from, to) = squares.ok_or_else(|| unknown("move", &atoms))?;
        (0..4)
            .find(|&d| target(from, d, n) == Some(to))
            .map(|d| Move(base + 4 * from + d as u32))
            .ok_or_else(|| unknown("move", &atoms))
    }

    fn parse_state(&self, text: &str) -> Result<State, ParseError> {
        let mut state = State {
            cells: [0; 4],
            capturing: 0,
            step: 0,
            last: 0,
        };
        for atoms in state_terms(text)? {
            let fluent = match atoms.as_slice() {
                [cell, x, y, p, t] if cell == "cell" => parse_square(x, y)
                    .zip(name_index(p, &ROLES))
                    .zip(name_index(t, &TYPES))
                    .map(|((s, p), t)| state.cells[2 * p + t] |= 1 << s),
                [capturing, x, y] if capturing == "capturingpiece" => {
                    parse_square(x, y).map(|s| state.capturing |= 1 << s)
                }
                [step, n] if step == "step" => {
                    number(n, 0, LAST_STEP).map(|n| state.step |= 1 << n)
                }
                [last, p] if last == "lasttomove" => {
                    name_index(p, &ROLES).map(|p| state.last |= 1 << p)
                }
                _ => None,
            };
            fluent.ok_or_else(|| unknown("fluent", &atoms))?;
        }
        Ok(state)
    }
}

/// Reads a square from its file letter and rank number.
fn parse_square(file: &str, rank: &str) -> Option<u32> {
    let file = name_index(file, &FILES)? as u32;
    let rank = number(rank, 1, 8)?;
    Some(square(file, rank - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(g: &EnglishDraughts, s: &State, role: Role) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_moves(s, role, &mut out);
        out.iter().map(|&m| g.move_text(role, m)).collect()
    }

    #[test]
    fn opening_position() {
        let g = EnglishDraughts;
        let s = g.initial_state();
        let fluents = g.fluents(&s);
        assert_eq!(fluents.len(), 26);
        assert!(fluents.contains(&"(cell a 2 white pawn)".to_owned()));
        assert!(fluents.contains(&"(cell h 7 black pawn)".to_owned()));
        assert_eq!(fluents[24..], ["(lastToMove black)", "(step 0)"]);
        assert_eq!(
            texts(&g, &s, 0),
            [
                "(move b 3 a 4)",
                "(move b 3 c 4)",
                "(move d 3 c 4)",
                "(move d 3 e 4)",
                "(move f 3 e 4)",
                "(move f 3 g 4)",
                "(move h 3 g 4)"
            ]
        );
        assert_eq!(texts(&g, &s, 1), ["noop"]);
    }

    #[test]
    fn chains_keep_control_and_crowning_ends_them() {
        let g = EnglishDraughts;
        let s = g
            .parse_state(
                "(cell a 2 white pawn) (cell b 3 black pawn) (cell d 5 black pawn) \
                 (cell f 7 black pawn) (lastToMove black) (step 3)",
            )
            .unwrap();
        assert_eq!(texts(&g, &s, 0), ["(capture a 2 c 4)"]);
        let jump = |s: &State, text: &str| {
            let mv = g.parse_move(0, text).unwrap();
            g.next_state(s, &[mv, NOOP]).unwrap()
        };
        let s = jump(&s, "(capture a 2 c 4)");
        assert_eq!(texts(&g, &s, 0), ["(capture c 4 e 6)"]);
        assert_eq!(texts(&g, &s, 1), ["noop"]);
        assert!(g.fluents(&s).contains(&"(step 0)".to_owned()));
        let s = jump(&s, "(capture c 4 e 6)");
        let s = jump(&s, "(capture e 6 g 8)");
        // Crowned: the chain ends, and black, without pieces, loses.
        assert_eq!(
            g.fluents(&s),
            ["(cell g 8 white king)", "(lastToMove white)", "(step 0)"]
        );
        assert!(g.is_terminal(&s));
        assert_eq!(g.goal(&s, 0), Goal::Value(100));
        assert_eq!(g.goal(&s, 1), Goal::Value(0));
    }

    #[test]
    fn step_limit_draws() {
        let g = EnglishDraughts;
        let s = g
            .parse_state("(cell a 8 white king) (cell h 1 black king) (lastToMove black) (step 19)")
            .unwrap();
        assert!(!g.is_terminal(&s));
        let mv = g.parse_move(0, "(move a 8 b 7)").unwrap();
        let t = g.next_state(&s, &[mv, NOOP]).unwrap();
        assert!(g.is_terminal(&t));
        assert_eq!(g.goal(&t, 0), Goal::Value(50));
    }
}
