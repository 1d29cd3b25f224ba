//! Connect four as `ggp-repository-base/connectFour.kif` plays it: 8 columns
//! of 6 cells, red moves first, a line of four wins (100/0), a full board
//! without a line is a draw (50/50). The player out of turn plays `noop`.
//!
//! The board is one bitboard per role, column-major with a stride of 8 bits:
//! cell `(x, y)` is bit `8 (x - 1) + (y - 1)`. Rows 7 and 8 of each column
//! stay empty, as guards that stop line shifts from wrapping into the next
//! column.

use gdl_runtime::{Game, Goal, Move, ParseError, Role};

use crate::util::{goal_of, name_index, number, state_terms, term_atoms, unknown};

/// The role names, in the order of the `role` facts.
const ROLES: [&str; 2] = ["red", "black"];
/// Number of columns (`x`).
const COLUMNS: u32 = 8;
/// Number of rows (`y`).
const ROWS: u32 = 6;
/// Every cell of the board (rows 1 to 6 of every column).
const BOARD: u64 = 0x3F3F_3F3F_3F3F_3F3F;
/// Row 1 of every column, where a drop into an empty column lands.
const BOTTOM: u64 = 0x0101_0101_0101_0101;
/// Row 6 of every column: a column is open while its top cell is.
const TOP: u64 = 0x2020_2020_2020_2020;
/// The id of `noop`; `(drop x)` is `x - 1`, so ids sort as the texts do.
const NOOP: Move = Move(COLUMNS);

/// The connect-four reference engine.
#[derive(Copy, Clone, Debug, Default)]
pub struct ConnectFour;

/// A connect-four state: exactly the fluents of the GDL state.
///
/// Any set of the game's fluents can be represented (even a cell held by both
/// roles, or no `control`), and the rules are evaluated on it as the GDL
/// rules would, so that [`Game::parse_state`] accepts every state the GDL
/// does.
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

/// Whether `b` holds four in a row in any direction.
#[inline]
fn has_line(b: u64) -> bool {
    four_in_a_row(b, 1) || four_in_a_row(b, 8) || four_in_a_row(b, 9) || four_in_a_row(b, 7)
}

/// Whether `b` holds four cells in a row `step` bits apart: 1 along a
/// column, 8 along a row, 9 and 7 along the diagonals. The empty guard rows
/// make a wrapped run impossible.
#[inline(always)]
fn four_in_a_row(b: u64, step: u32) -> bool {
    let two = b & (b >> step);
    two & (two >> (2 * step)) != 0
}

/// Swaps the two roles' bits of a control mask: `(next (control red))`
/// holds exactly when `(control black)` does, and the other way round.
fn swap_roles(mask: u8) -> u8 {
    ((mask & 1) << 1) | ((mask >> 1) & 1)
}

impl State {
    /// Cells held by either role.
    fn occupied(&self) -> u64 {
        self.cells[0] | self.cells[1]
    }

    /// `boardOpen`: some column's top cell is free.
    fn board_open(&self) -> bool {
        !self.occupied() & TOP != 0
    }
}

impl Game for ConnectFour {
    type State = State;

    fn num_roles(&self) -> usize {
        ROLES.len()
    }

    fn role_name(&self, role: Role) -> &str {
        ROLES[role]
    }

    fn initial_state(&self) -> State {
        State {
            cells: [0, 0],
            control: 1,
        }
    }

    fn legal_moves(&self, state: &State, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if state.control & (1 << role) != 0 {
            // Branch-free over the eight columns (which are open is
            // unpredictable): write every column, keep the open ones. Column
            // x's top cell is bit 8 (x - 1) + 5.
            let open = !state.occupied() & TOP;
            out.resize(COLUMNS as usize, NOOP);
            let mut k = 0;
            for x in 0..COLUMNS {
                out[k] = Move(x);
                k += ((open >> (8 * x + 5)) & 1) as usize;
            }
            out.truncate(k);
        }
        if state.control & (1 << (1 - role)) != 0 {
            out.push(NOOP);
        }
    }

    fn is_terminal(&self, state: &State) -> bool {
        has_line(state.cells[0]) || has_line(state.cells[1]) || !state.board_open()
    }

    fn goal(&self, state: &State, role: Role) -> Goal {
        let mine = has_line(state.cells[role]);
        let theirs = has_line(state.cells[1 - role]);
        let open = state.board_open();
        let no_line = !mine && !theirs;
        goal_of([
            (mine, 100),
            (no_line && !open, 50),
            (theirs, 0),
            (no_line && open, 0),
        ])
    }

    fn apply_unchecked(&self, state: &mut State, joint: &[Move]) {
        let occupied = state.occupied();
        // A piece lands on every free cell that is at the bottom or sits on
        // an occupied cell (exactly one cell a column in reachable states).
        let landing = !occupied & BOARD & (BOTTOM | (occupied << 1));
        let mut cells = state.cells;
        for (role, &mv) in joint.iter().enumerate().take(2) {
            if mv.0 < COLUMNS {
                cells[role] |= landing & (0xFF << (8 * mv.0));
            }
        }
        state.cells = cells;
        state.control = swap_roles(state.control);
    }

    fn move_text(&self, _role: Role, mv: Move) -> String {
        match mv.0 {
            x if x < COLUMNS => format!("(drop {})", x + 1),
            x if x == NOOP.0 => "noop".to_owned(),
            x => format!("<invalid move {x}>"),
        }
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let mut out = Vec::new();
        for (role, name) in ROLES.iter().enumerate() {
            for x in 1..=COLUMNS {
                for y in 1..=ROWS {
                    if state.cells[role] & bit(x, y) != 0 {
                        out.push(format!("(cell {x} {y} {name})"));
                    }
                }
            }
            if state.control & (1 << role) != 0 {
                out.push(format!("(control {name})"));
            }
        }
        // Sorting here is simpler than generating in byte order, and this is
        // not on the playout path.
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
            [drop, x] if drop == "drop" => number(x, 1, COLUMNS)
                .map(|x| Move(x - 1))
                .ok_or_else(|| unknown("move", &atoms)),
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
                    let (Some(x), Some(y), Some(p)) = (
                        number(x, 1, COLUMNS),
                        number(y, 1, ROWS),
                        name_index(p, &ROLES),
                    ) else {
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

    fn texts(g: &ConnectFour, s: &State, role: Role) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_moves(s, role, &mut out);
        out.iter().map(|&m| g.move_text(role, m)).collect()
    }

    #[test]
    fn opening_moves() {
        let g = ConnectFour;
        let s = g.initial_state();
        assert_eq!(g.fluents(&s), ["(control red)"]);
        assert_eq!(texts(&g, &s, 0).len(), 8);
        assert_eq!(texts(&g, &s, 0)[0], "(drop 1)");
        assert_eq!(texts(&g, &s, 1), ["noop"]);
        assert_eq!(g.goal(&s, 0), Goal::Value(0));
    }

    #[test]
    fn pieces_stack_and_lines_win() {
        let g = ConnectFour;
        let mut s = g.initial_state();
        let drop = |x: u32| g.parse_move(0, &format!("(drop {x})")).unwrap();
        // Red drops in column 1 four times, black in column 2 three times.
        for i in 0..7 {
            let joint = if i % 2 == 0 {
                [drop(1), NOOP]
            } else {
                [NOOP, drop(2)]
            };
            assert!(!g.is_terminal(&s));
            s = g.next_state(&s, &joint).unwrap();
        }
        assert!(g.is_terminal(&s));
        assert_eq!(g.goal(&s, 0), Goal::Value(100));
        assert_eq!(g.goal(&s, 1), Goal::Value(0));
        let text = g.fluents(&s).join(" ");
        assert!(text.contains("(cell 1 4 red)"), "{text}");
        assert_eq!(g.parse_state(&text).unwrap(), s);
    }

    #[test]
    fn parse_errors() {
        let g = ConnectFour;
        assert!(g.parse_move(0, "(drop 9)").is_err());
        assert!(g.parse_state("(cell 1 7 red)").is_err());
        assert!(g.parse_state("(control white)").is_err());
        assert_eq!(g.parse_move(1, "(DROP 8)").unwrap(), Move(7));
    }
}
