//! Breakthrough as `ggp-repository-base/breakthrough.kif` plays it: 8x8,
//! two rows of pieces each, white moves first and up. A piece steps one row
//! forward, straight onto a free cell or diagonally onto a cell its own side
//! does not hold (capturing what is there). Reaching the far row, or
//! capturing every enemy piece, wins (100/0); there is no draw and no step
//! limit. The player out of turn plays `noop`.
//!
//! The board is one bitboard per role, column-major: cell `(x, y)` is bit
//! `8 (x - 1) + (y - 1)`, so a step forward is a shift by 1 and a step
//! sideways a shift by 8.

use gdl_runtime::{Game, Goal, Move, ParseError, Role};

use crate::util::{
    goal_of, name_index, number, push_moves, state_terms, term_atoms, unknown, Bits,
};

/// The role names, in the order of the `role` facts.
const ROLES: [&str; 2] = ["white", "black"];
/// White's role index.
const WHITE: usize = 0;
/// Row 1 of every column (black's goal row).
const ROW1: u64 = 0x0101_0101_0101_0101;
/// Row 8 of every column (white's goal row).
const ROW8: u64 = 0x8080_8080_8080_8080;
/// Column 1.
const COL1: u64 = 0xFF;
/// Column 8.
const COL8: u64 = 0xFF << 56;
/// The id of `noop`. A move from square `s` in direction `d` is `3 s + d`,
/// where `d` is 0 towards column x - 1, 1 straight and 2 towards x + 1:
/// with the column-major square order, ids sort as the move texts do.
const NOOP: Move = Move(192);

/// The breakthrough reference engine.
#[derive(Copy, Clone, Debug, Default)]
pub struct Breakthrough;

/// A breakthrough state: exactly the fluents of the GDL state.
///
/// Any set of the game's fluents can be represented (even a cell held by both
/// roles, or no `control`), and the rules are evaluated on it as the GDL
/// rules would.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// `(cellHolds x y role)`, one bitboard per role.
    cells: [u64; 2],
    /// `(control role)`: bit `r` is set when role `r` has control.
    control: u8,
}

/// The bit of cell `(x, y)`, both counted from 1.
fn bit(x: u32, y: u32) -> u64 {
    1 << (8 * (x - 1) + (y - 1))
}

/// The row step of `role`: white moves up, black down.
fn forward(role: Role) -> i32 {
    if role == WHITE {
        1
    } else {
        -1
    }
}

/// The squares from which `role` can move in each direction (in id order),
/// given its own pieces and the free cells.
fn sources(role: Role, own: u64, free: u64) -> [u64; 3] {
    // A straight step needs a free cell, a diagonal one any cell not our
    // own. The row mask stops a step off the board from wrapping into the
    // next column; the column masks stop a diagonal step off the side.
    let not_own = !own;
    if role == WHITE {
        let own = own & !ROW8;
        [
            own & !COL1 & (not_own << 7),
            own & (free >> 1),
            own & !COL8 & (not_own >> 9),
        ]
    } else {
        let own = own & !ROW1;
        [
            own & !COL1 & (not_own << 9),
            own & (free << 1),
            own & !COL8 & (not_own >> 7),
        ]
    }
}

/// The source and destination squares of a move id, or `None` for `noop`
/// and for ids whose destination is off the board (no legal list holds
/// those).
fn squares(role: Role, mv: Move) -> Option<(u32, u32)> {
    if mv.0 >= NOOP.0 {
        return None;
    }
    let from = mv.0 / 3;
    let x = (from / 8) as i32 + (mv.0 % 3) as i32 - 1;
    let y = (from % 8) as i32 + forward(role);
    let on_board = (0..8).contains(&x) && (0..8).contains(&y);
    on_board.then_some((from, (8 * x + y) as u32))
}

impl State {
    /// `whiteWin`: a white piece on row 8, or no black piece left.
    fn white_wins(&self) -> bool {
        self.cells[0] & ROW8 != 0 || self.cells[1] == 0
    }

    /// `blackWin`: a black piece on row 1, or no white piece left.
    fn black_wins(&self) -> bool {
        self.cells[1] & ROW1 != 0 || self.cells[0] == 0
    }
}

impl Game for Breakthrough {
    type State = State;

    fn num_roles(&self) -> usize {
        ROLES.len()
    }

    fn role_name(&self, role: Role) -> &str {
        ROLES[role]
    }

    fn initial_state(&self) -> State {
        State {
            cells: [0x0303_0303_0303_0303, 0xC0C0_C0C0_C0C0_C0C0],
            control: 1,
        }
    }

    fn legal_moves(&self, state: &State, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if state.control & (1 << role) != 0 {
            let free = !(state.cells[0] | state.cells[1]);
            push_moves(&sources(role, state.cells[role], free), 0, out);
        }
        if state.control & (1 << (1 - role)) != 0 {
            out.push(NOOP);
        }
    }

    fn is_terminal(&self, state: &State) -> bool {
        state.white_wins() || state.black_wins()
    }

    fn goal(&self, state: &State, role: Role) -> Goal {
        let wins = if role == WHITE {
            state.white_wins()
        } else {
            state.black_wins()
        };
        goal_of([(wins, 100), (!wins, 0)])
    }

    fn apply_unchecked(&self, state: &mut State, joint: &[Move]) {
        // The GDL keeps a piece when some move has both its source and its
        // destination elsewhere: with one mover, every piece it does not
        // touch; with no mover (only in states no play reaches), none.
        let mut keep = 0u64;
        let mut placed = [0u64; 2];
        for (role, &mv) in joint.iter().enumerate().take(2) {
            if let Some((from, to)) = squares(role, mv) {
                keep |= !((1 << from) | (1 << to));
                placed[role] |= 1 << to;
            }
        }
        state.cells[0] = (state.cells[0] & keep) | placed[0];
        state.cells[1] = (state.cells[1] & keep) | placed[1];
        state.control = ((state.control & 1) << 1) | ((state.control >> 1) & 1);
    }

    fn move_text(&self, role: Role, mv: Move) -> String {
        match squares(role, mv) {
            Some((from, to)) => format!(
                "(move {} {} {} {})",
                from / 8 + 1,
                from % 8 + 1,
                to / 8 + 1,
                to % 8 + 1
            ),
            None if mv == NOOP => "noop".to_owned(),
            None => format!("<invalid move {}>", mv.0),
        }
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let mut out = Vec::new();
        for (role, name) in ROLES.iter().enumerate() {
            for s in Bits(state.cells[role]) {
                out.push(format!("(cellHolds {} {} {name})", s / 8 + 1, s % 8 + 1));
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
            [noop] if noop == "noop" => return Ok(NOOP),
            [mv, coords @ ..] if mv == "move" && coords.len() == 4 => {
                let n: Vec<Option<u32>> = coords.iter().map(|c| number(c, 1, 8)).collect();
                if let [Some(x1), Some(y1), Some(x2), Some(y2)] = n[..] {
                    let d = x2 as i32 - x1 as i32 + 1;
                    let from = 8 * (x1 - 1) + (y1 - 1);
                    let to = 8 * (x2 - 1) + (y2 - 1);
                    if (0..3).contains(&d) {
                        let mv = Move(3 * from + d as u32);
                        // The row step is the role's, or the text is no move
                        // of this role.
                        if squares(role, mv) == Some((from, to)) {
                            return Ok(mv);
                        }
                    }
                }
            }
            _ => {}
        }
        Err(unknown("move", &atoms))
    }

    fn parse_state(&self, text: &str) -> Result<State, ParseError> {
        let mut state = State {
            cells: [0, 0],
            control: 0,
        };
        for atoms in state_terms(text)? {
            match atoms.as_slice() {
                [cell, x, y, p] if cell == "cellholds" => {
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
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(g: &Breakthrough, s: &State, role: Role) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_moves(s, role, &mut out);
        out.iter().map(|&m| g.move_text(role, m)).collect()
    }

    #[test]
    fn opening_moves() {
        let g = Breakthrough;
        let s = g.initial_state();
        let white = texts(&g, &s, 0);
        // Eight front pieces: 3 moves each, 2 at the edges.
        assert_eq!(white.len(), 22);
        assert_eq!(
            &white[..3],
            ["(move 1 2 1 3)", "(move 1 2 2 3)", "(move 2 2 1 3)"]
        );
        assert_eq!(texts(&g, &s, 1), ["noop"]);
        assert_eq!(g.fluents(&s).len(), 33);
    }

    #[test]
    fn captures_and_wins() {
        let g = Breakthrough;
        let s = g
            .parse_state("(cellHolds 1 7 white) (cellHolds 2 8 black) (control white)")
            .unwrap();
        assert!(!g.is_terminal(&s));
        assert_eq!(texts(&g, &s, 0), ["(move 1 7 1 8)", "(move 1 7 2 8)"]);
        let capture = g.parse_move(0, "(move 1 7 2 8)").unwrap();
        let t = g.next_state(&s, &[capture, NOOP]).unwrap();
        assert_eq!(g.fluents(&t), ["(cellHolds 2 8 white)", "(control black)"]);
        assert!(g.is_terminal(&t));
        assert_eq!(g.goal(&t, 0), Goal::Value(100));
        assert_eq!(g.goal(&t, 1), Goal::Value(0));
    }

    #[test]
    fn moves_parse_only_for_their_role() {
        let g = Breakthrough;
        assert!(g.parse_move(0, "(move 1 2 1 3)").is_ok());
        assert!(g.parse_move(1, "(move 1 2 1 3)").is_err());
        assert!(g.parse_move(0, "(move 8 2 9 3)").is_err());
        assert!(g.parse_move(0, "(move 1 8 1 9)").is_err());
        assert!(g.parse_move(1, "(move 1 1 1 0)").is_err());
        assert_eq!(g.parse_move(1, "(move 1 2 1 1)").unwrap(), Move(3 + 1));
    }
}
