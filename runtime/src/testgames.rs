//! Small hand-written games for the unit tests of the drivers.

use crate::text;
use crate::{Game, Goal, Move, ParseError, Role};

/// Every role simultaneously adds 1..=`moves` to a shared counter; the game
/// ends when the counter reaches `target`. Role `r` wins (100) when the final
/// count is `r` modulo the number of roles; goals are undefined before the
/// end. With `stuck_at`, role 1 has no legal move when the count equals it.
pub struct Counter {
    pub roles: usize,
    pub moves: u32,
    pub target: u32,
    pub stuck_at: Option<u32>,
}

const COUNTER_ROLES: [&str; 4] = ["red", "green", "blue", "white"];

impl Game for Counter {
    type State = u32;

    fn num_roles(&self) -> usize {
        self.roles
    }
    fn role_name(&self, role: Role) -> &str {
        COUNTER_ROLES[role]
    }
    fn initial_state(&self) -> u32 {
        0
    }
    fn legal_moves(&self, state: &u32, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if role == 1 && self.stuck_at == Some(*state) {
            return;
        }
        out.extend((0..self.moves).map(Move));
    }
    fn is_terminal(&self, state: &u32) -> bool {
        *state >= self.target
    }
    fn goal(&self, state: &u32, role: Role) -> Goal {
        if *state < self.target {
            Goal::None
        } else if *state as usize % self.roles == role {
            Goal::Value(100)
        } else {
            Goal::Value(0)
        }
    }
    fn apply_unchecked(&self, state: &mut u32, joint: &[Move]) {
        *state += joint.iter().map(|m| m.0 + 1).sum::<u32>();
    }
    fn move_text(&self, _role: Role, mv: Move) -> String {
        format!("(add {})", mv.0 + 1)
    }
    fn fluents(&self, state: &u32) -> Vec<String> {
        vec![format!("(count {state})")]
    }
    fn parse_move(&self, _role: Role, t: &str) -> Result<Move, ParseError> {
        let k = text::key(t)?;
        (0..self.moves)
            .find(|&m| k == format!("(add {})", m + 1))
            .map(Move)
            .ok_or_else(|| ParseError::new(format!("no such move: {t}")))
    }
    fn parse_state(&self, t: &str) -> Result<u32, ParseError> {
        let k = text::key(t)?;
        k.strip_prefix("(count ")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| ParseError::new(format!("bad state: {t}")))
    }
}

/// Two-player Nim on one pile: the player in control takes 1 or 2 stones,
/// the other plays `noop`; whoever takes the last stone wins.
pub struct Nim {
    pub pile: u32,
}

/// Nim state: stones left, and whose turn it is.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NimState {
    pub pile: u32,
    pub control: Role,
}

const NIM_ROLES: [&str; 2] = ["white", "black"];
// Move ids in byte order of their text.
const NIM_MOVES: [&str; 3] = ["(take 1)", "(take 2)", "noop"];

impl Game for Nim {
    type State = NimState;

    fn num_roles(&self) -> usize {
        2
    }
    fn role_name(&self, role: Role) -> &str {
        NIM_ROLES[role]
    }
    fn initial_state(&self) -> NimState {
        NimState {
            pile: self.pile,
            control: 0,
        }
    }
    fn legal_moves(&self, s: &NimState, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if role == s.control {
            out.extend((0..s.pile.min(2)).map(Move));
        } else {
            out.push(Move(2));
        }
    }
    fn is_terminal(&self, s: &NimState) -> bool {
        s.pile == 0
    }
    fn goal(&self, s: &NimState, role: Role) -> Goal {
        if s.pile > 0 {
            Goal::Value(50)
        } else if role != s.control {
            Goal::Value(100)
        } else {
            Goal::Value(0)
        }
    }
    fn apply_unchecked(&self, s: &mut NimState, joint: &[Move]) {
        let taken = match joint.get(s.control) {
            Some(Move(0)) => 1,
            Some(Move(1)) => 2,
            _ => 0,
        };
        s.pile = s.pile.saturating_sub(taken);
        s.control = 1 - s.control;
    }
    fn move_text(&self, _role: Role, mv: Move) -> String {
        NIM_MOVES[mv.0 as usize].to_string()
    }
    fn fluents(&self, s: &NimState) -> Vec<String> {
        vec![
            format!("(control {})", NIM_ROLES[s.control]),
            format!("(pile {})", s.pile),
        ]
    }
    fn parse_move(&self, _role: Role, t: &str) -> Result<Move, ParseError> {
        let k = text::key(t)?;
        NIM_MOVES
            .iter()
            .position(|m| *m == k)
            .map(|i| Move(i as u32))
            .ok_or_else(|| ParseError::new(format!("no such move: {t}")))
    }
    fn parse_state(&self, _t: &str) -> Result<NimState, ParseError> {
        Err(ParseError::new("not supported"))
    }
}

/// Tic-tac-toe exactly as `ggp-repository-base/ticTacToe.kif` defines it.
pub struct TicTacToe;

/// Cells row by row (0 blank, 1 x, 2 o) and the role in control.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TttState {
    pub cells: [u8; 9],
    pub control: Role,
}

const TTT_LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    fn line(s: &TttState, mark: u8) -> bool {
        TTT_LINES
            .iter()
            .any(|l| l.iter().all(|&c| s.cells[c] == mark))
    }
    fn open(s: &TttState) -> bool {
        s.cells.contains(&0)
    }
}

// Moves 0..9 are `(mark r c)` row by row, 9 is `noop`: byte order of the text.
impl Game for TicTacToe {
    type State = TttState;

    fn num_roles(&self) -> usize {
        2
    }
    fn role_name(&self, role: Role) -> &str {
        ["xplayer", "oplayer"][role]
    }
    fn initial_state(&self) -> TttState {
        TttState {
            cells: [0; 9],
            control: 0,
        }
    }
    fn legal_moves(&self, s: &TttState, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if role == s.control {
            out.extend((0..9).filter(|&c| s.cells[c] == 0).map(|c| Move(c as u32)));
        } else {
            out.push(Move(9));
        }
    }
    fn is_terminal(&self, s: &TttState) -> bool {
        Self::line(s, 1) || Self::line(s, 2) || !Self::open(s)
    }
    fn goal(&self, s: &TttState, role: Role) -> Goal {
        let (mine, theirs) = if role == 0 { (1, 2) } else { (2, 1) };
        let mut values = Vec::new();
        if Self::line(s, mine) {
            values.push(100);
        }
        if !Self::line(s, 1) && !Self::line(s, 2) && !Self::open(s) {
            values.push(50);
        }
        if Self::line(s, theirs) {
            values.push(0);
        }
        match values[..] {
            [] => Goal::None,
            [v] => Goal::Value(v),
            _ => Goal::Ambiguous,
        }
    }
    fn apply_unchecked(&self, s: &mut TttState, joint: &[Move]) {
        for (role, mv) in joint.iter().enumerate() {
            if let Some(c) = s.cells.get_mut(mv.0 as usize) {
                if *c == 0 {
                    *c = role as u8 + 1;
                }
            }
        }
        s.control = 1 - s.control;
    }
    fn move_text(&self, _role: Role, mv: Move) -> String {
        if mv.0 >= 9 {
            "noop".into()
        } else {
            format!("(mark {} {})", mv.0 / 3 + 1, mv.0 % 3 + 1)
        }
    }
    fn fluents(&self, s: &TttState) -> Vec<String> {
        let mut v: Vec<String> = (0..9)
            .map(|c| {
                let m = ["b", "x", "o"][s.cells[c] as usize];
                format!("(cell {} {} {m})", c / 3 + 1, c % 3 + 1)
            })
            .collect();
        v.push(format!("(control {})", self.role_name(s.control)));
        v
    }
    fn parse_move(&self, role: Role, t: &str) -> Result<Move, ParseError> {
        let k = text::key(t)?;
        (0..10)
            .map(Move)
            .find(|&m| self.move_text(role, m) == k)
            .ok_or_else(|| ParseError::new(format!("no such move: {t}")))
    }
    fn parse_state(&self, _t: &str) -> Result<TttState, ParseError> {
        Err(ParseError::new("not supported"))
    }
}

/// Path of a file under the shared conformance directory.
pub fn conformance(rel: &str) -> String {
    format!(
        "{}/../../shared/conformance/{rel}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Path of a Dresden GameController XML trace.
pub fn dresden_trace(name: &str) -> String {
    format!(
        "{}/../../shared/games/dresden-ggpserver/gamecontroller-testdata/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The Dresden `maze.lisp`: a robot walks the cycle a-b-c-d, may grab the
/// gold where it stands and drop it; it wins by bringing the gold to a.
pub struct Maze;

/// Robot cell (0..4 = a..d), gold place (0..4, 4 = held: `i`), step 1..=10.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MazeState {
    pub cell: u8,
    pub gold: u8,
    pub step: u32,
}

const MAZE_PLACES: [&str; 5] = ["a", "b", "c", "d", "i"];
// Byte order of the move texts.
const MAZE_MOVES: [&str; 3] = ["drop", "grab", "move"];

impl Game for Maze {
    type State = MazeState;

    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _role: Role) -> &str {
        "robot"
    }
    fn initial_state(&self) -> MazeState {
        MazeState {
            cell: 0,
            gold: 2,
            step: 1,
        }
    }
    fn legal_moves(&self, s: &MazeState, _role: Role, out: &mut Vec<Move>) {
        out.clear();
        if s.gold == 4 {
            out.push(Move(0));
        }
        if s.cell == s.gold {
            out.push(Move(1));
        }
        out.push(Move(2));
    }
    fn is_terminal(&self, s: &MazeState) -> bool {
        s.step == 10 || s.gold == 0
    }
    fn goal(&self, s: &MazeState, _role: Role) -> Goal {
        Goal::Value(if s.gold == 0 { 100 } else { 0 })
    }
    fn apply_unchecked(&self, s: &mut MazeState, joint: &[Move]) {
        match joint.first() {
            Some(Move(0)) if s.gold == 4 => s.gold = s.cell,
            Some(Move(1)) if s.gold == s.cell => s.gold = 4,
            Some(Move(2)) => s.cell = (s.cell + 1) % 4,
            _ => {}
        }
        s.step += 1;
    }
    fn move_text(&self, _role: Role, mv: Move) -> String {
        MAZE_MOVES[mv.0 as usize].to_string()
    }
    fn fluents(&self, s: &MazeState) -> Vec<String> {
        vec![
            format!("(cell {})", MAZE_PLACES[s.cell as usize]),
            format!("(gold {})", MAZE_PLACES[s.gold as usize]),
            format!("(step {})", s.step),
        ]
    }
    fn parse_move(&self, _role: Role, t: &str) -> Result<Move, ParseError> {
        let k = text::key(t)?;
        MAZE_MOVES
            .iter()
            .position(|m| *m == k)
            .map(|i| Move(i as u32))
            .ok_or_else(|| ParseError::new(format!("no such move: {t}")))
    }
    fn parse_state(&self, _t: &str) -> Result<MazeState, ParseError> {
        Err(ParseError::new("not supported"))
    }
}

/// The text of a file of the test data.
pub fn read_file(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Number of lines of `text` starting with `prefix`.
pub fn count_lines(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

/// A reasoner that gives up (see [`Game::failure`]) at its first legal-move
/// query, and then answers trivially, as reasoners that give up do.
#[derive(Default)]
pub struct GivesUp {
    failed: std::sync::atomic::AtomicBool,
}

impl GivesUp {
    fn failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Game for GivesUp {
    type State = u32;

    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _role: Role) -> &str {
        "player"
    }
    fn initial_state(&self) -> u32 {
        0
    }
    fn legal_moves(&self, _s: &u32, _role: Role, out: &mut Vec<Move>) {
        out.clear();
        self.failed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    fn is_terminal(&self, _s: &u32) -> bool {
        self.failed()
    }
    fn goal(&self, _s: &u32, _role: Role) -> Goal {
        Goal::None
    }
    fn apply_unchecked(&self, s: &mut u32, _joint: &[Move]) {
        *s += 1;
    }
    fn move_text(&self, _role: Role, _mv: Move) -> String {
        "noop".to_owned()
    }
    fn fluents(&self, s: &u32) -> Vec<String> {
        vec![format!("(step {s})")]
    }
    fn parse_move(&self, _role: Role, _t: &str) -> Result<Move, ParseError> {
        Ok(Move(0))
    }
    fn parse_state(&self, _t: &str) -> Result<u32, ParseError> {
        Err(ParseError::new("not supported"))
    }
    fn failure(&self) -> Option<String> {
        self.failed().then(|| "out of budget".to_owned())
    }
}
