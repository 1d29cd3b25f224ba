//! Reversi as `ggp-repository-base/reversi.kif` plays it: 8x8, black moves
//! first, a move must flip at least one run of enemy pieces, a player without
//! a move passes with `noop` (as does the player out of turn), the game ends
//! when neither player can move, and the player with more pieces wins
//! (100/0; 50/50 on equal counts). There is no step limit.
//!
//! The board is one bitboard per role, column-major: cell `(x, y)` is bit
//! `8 (x - 1) + (y - 1)`. Move generation and flips fill along the eight
//! directions with shifts, the classic way.

use gdl_runtime::{Game, Goal, Move, ParseError, Role};

use crate::util::{goal_of, name_index, number, state_terms, term_atoms, unknown, Bits};

/// The role names, in the order of the `role` facts.
const ROLES: [&str; 2] = ["black", "red"];
/// Row 1 of every column.
const ROW1: u64 = 0x0101_0101_0101_0101;
/// Row 8 of every column.
const ROW8: u64 = 0x8080_8080_8080_8080;
/// The id of `noop`; `(move x y)` is the square `8 (x - 1) + (y - 1)`, so
/// ids sort as the move texts do.
const NOOP: Move = Move(64);

/// The reversi reference engine.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reversi;

/// A reversi state: exactly the fluents of the GDL state.
///
/// Every state that play reaches is representable, and so is any set of
/// fluents that [`Game::parse_state`] accepts; it refuses a cell held by both
/// colours and `control` held by both roles, which no play reaches and whose
/// flips the rules would mix across colours.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// `(cell x y role)`, one bitboard per role.
    cells: [u64; 2],
    /// `(control role)`: bit `r` is set when role `r` has control.
    control: u8,
}

/// The bit of cell `(x, y)`, both counted from 1.
fn bit(x: u32, y: u32) -> u64 {
    1 << (8 * (x - 1) + (y - 1))
}

/// `playerCanMoveAt`: the free cells where the player owning `own` can move,
/// each next to a run of `theirs` that ends at one of `own`.
fn moves(own: u64, theirs: u64) -> u64 {
    let free = !(own | theirs);
    // In the directions that change rows, only enemy pieces off the first
    // and last rows can be inside a run: masking those out once stops every
    // shift of the fill from wrapping into the next column, without masking
    // each shift.
    let inner = theirs & !(ROW1 | ROW8);
    let mut out = 0;
    for (step, runs) in [(8, theirs), (1, inner), (7, inner), (9, inner)] {
        out |= fill(own, runs, free, |b| b << step) | fill(own, runs, free, |b| b >> step);
    }
    out
}

/// The free cells one `shift` past a run of `runs` that starts one `shift`
/// from `own`.
#[inline(always)]
fn fill(own: u64, runs: u64, free: u64, shift: impl Fn(u64) -> u64) -> u64 {
    // A run has at most six pieces.
    let mut run = shift(own) & runs;
    for _ in 0..5 {
        run |= shift(run) & runs;
    }
    shift(run) & free
}

/// The enemy pieces that a piece put on `square` by the owner of `own`
/// flips (`affectedCell`): every run of `theirs` from it that ends at one of
/// `own`.
fn flips(square: u64, own: u64, theirs: u64) -> u64 {
    // The same edge masking as in `moves`.
    let inner = theirs & !(ROW1 | ROW8);
    let mut out = 0;
    for (step, runs) in [(8, theirs), (1, inner), (7, inner), (9, inner)] {
        out |= flanked(square, own, runs, |b| b << step);
        out |= flanked(square, own, runs, |b| b >> step);
    }
    out
}

/// The run of `runs` that starts one `shift` from `square`, if the cell
/// past its end holds one of `own`; else nothing.
#[inline(always)]
fn flanked(square: u64, own: u64, runs: u64, shift: impl Fn(u64) -> u64) -> u64 {
    let mut run = shift(square) & runs;
    for _ in 0..5 {
        run |= shift(run) & runs;
    }
    // Shifting the whole run lands inside it except past its end.
    if shift(run) & own != 0 {
        run
    } else {
        0
    }
}

impl State {
    /// `playerCanMove` for `role`.
    fn can_move(&self, role: Role) -> bool {
        moves(self.cells[role], self.cells[1 - role]) != 0
    }

    /// `winner`: the role with more pieces, if either has more.
    fn winner(&self) -> Option<Role> {
        let black = self.cells[0].count_ones();
        let red = self.cells[1].count_ones();
        match black.cmp(&red) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        }
    }
}

impl Game for Reversi {
    type State = State;

    fn num_roles(&self) -> usize {
        ROLES.len()
    }

    fn role_name(&self, role: Role) -> &str {
        ROLES[role]
    }

    fn initial_state(&self) -> State {
        State {
            cells: [bit(4, 4) | bit(5, 5), bit(4, 5) | bit(5, 4)],
            control: 1,
        }
    }

    fn legal_moves(&self, state: &State, role: Role, out: &mut Vec<Move>) {
        out.clear();
        let in_control = state.control & (1 << role) != 0;
        let opponent_in_control = state.control & (1 << (1 - role)) != 0;
        // The player out of turn passes without looking at the board.
        let targets = if in_control || !opponent_in_control {
            moves(state.cells[role], state.cells[1 - role])
        } else {
            0
        };
        if in_control {
            out.extend(Bits(targets).map(Move));
        }
        if opponent_in_control || targets == 0 {
            out.push(NOOP);
        }
    }

    fn is_terminal(&self, state: &State) -> bool {
        !state.can_move(0) && !state.can_move(1)
    }

    fn goal(&self, state: &State, role: Role) -> Goal {
        let winner = state.winner();
        goal_of([
            (winner == Some(role), 100),
            (winner == Some(1 - role), 0),
            (winner.is_none(), 50),
        ])
    }

    fn apply_unchecked(&self, state: &mut State, joint: &[Move]) {
        for (role, &mv) in joint.iter().enumerate().take(2) {
            if mv.0 < NOOP.0 {
                let square = 1 << mv.0;
                let (own, theirs) = (state.cells[role], state.cells[1 - role]);
                let flipped = flips(square, own, theirs);
                state.cells[role] = own | square | flipped;
                state.cells[1 - role] = theirs & !flipped & !square;
                // Play never has both roles in control, so the first move
                // found is the only one.
                break;
            }
        }
        state.control = ((state.control & 1) << 1) | ((state.control >> 1) & 1);
    }

    fn move_text(&self, _role: Role, mv: Move) -> String {
        match mv.0 {
            s if s < NOOP.0 => format!("(move {} {})", s / 8 + 1, s % 8 + 1),
            s if s == NOOP.0 => "noop".to_owned(),
            s => format!("<invalid move {s}>"),
        }
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let mut out = Vec::new();
        for (role, name) in ROLES.iter().enumerate() {
            for s in Bits(state.cells[role]) {
                out.push(format!("(cell {} {} {name})", s / 8 + 1, s % 8 + 1));
            }
            if state.control & (1 << role) != 0 {
                out.push(format!("(control {name})"));
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
        match atoms.as_slice() {
            [noop] if noop == "noop" => Ok(NOOP),
            [mv, x, y] if mv == "move" => match (number(x, 1, 8), number(y, 1, 8)) {
                (Some(x), Some(y)) => Ok(Move(8 * (x - 1) + (y - 1))),
                _ => Err(unknown("move", &atoms)),
            },
            _ => Err(unknown("move", &atoms)),
        }
    }

    fn parse_state(&self, text: &str) -> Result<State, ParseError> {
        let mut state = State {
            cells: [0, 0],
            control: 0,
        };
        for atoms in state_terms(text)? {
            match atoms.as_slice() {
                [cell, x, y, p] if cell == "cell" => {
                    let (Some(x), Some(y), Some(p)) =
                        (number(x, 1, 8), number(y, 1, 8), name_index(p, &ROLES))
                    else {
                        return Err(unknown("fluent", &atoms));
                    };
                    state.cells[p] |= bit(x, y);
                }
                [control, p] if control == "control" => {
                    let p = name_index(p, &ROLES).ok_or_else(|| unknown("fluent", &atoms))?;
                    state.control |= 1 << p;
                }
                _ => return Err(unknown("fluent", &atoms)),
            }
        }
        if state.cells[0] & state.cells[1] != 0 || state.control == 3 {
            return Err(ParseError::new(
                "a cell held by both colours or control held by both roles is not supported",
            ));
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(g: &Reversi, s: &State, role: Role) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_moves(s, role, &mut out);
        out.iter().map(|&m| g.move_text(role, m)).collect()
    }

    #[test]
    fn opening_moves() {
        let g = Reversi;
        let s = g.initial_state();
        assert_eq!(
            texts(&g, &s, 0),
            ["(move 3 5)", "(move 4 6)", "(move 5 3)", "(move 6 4)"]
        );
        assert_eq!(texts(&g, &s, 1), ["noop"]);
        let mv = g.parse_move(0, "(move 5 3)").unwrap();
        let t = g.next_state(&s, &[mv, NOOP]).unwrap();
        assert_eq!(
            g.fluents(&t),
            [
                "(cell 4 4 black)",
                "(cell 4 5 red)",
                "(cell 5 3 black)",
                "(cell 5 4 black)",
                "(cell 5 5 black)",
                "(control red)"
            ]
        );
        assert_eq!(g.goal(&t, 0), Goal::Value(100));
    }

    #[test]
    fn pass_when_stuck() {
        let g = Reversi;
        // Black to move but has no move; red has one: black passes.
        let s = g
            .parse_state("(cell 1 1 red) (cell 1 2 black) (control black)")
            .unwrap();
        assert_eq!(texts(&g, &s, 0), ["noop"]);
        assert_eq!(texts(&g, &s, 1), ["noop"]);
        assert!(!g.is_terminal(&s));
        let t = g.next_state(&s, &[NOOP, NOOP]).unwrap();
        assert_eq!(texts(&g, &t, 1), ["(move 1 3)"]);
    }

    #[test]
    fn unsupported_states_are_refused() {
        let g = Reversi;
        assert!(g.parse_state("(cell 1 1 red) (cell 1 1 black)").is_err());
        assert!(g.parse_state("(control red) (control black)").is_err());
    }
}
