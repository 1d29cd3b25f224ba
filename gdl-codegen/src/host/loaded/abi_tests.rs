//! The ABI checked in-process: a tiny game behind the same descriptor a
//! library exports (`gdl_runtime::abi::descriptor`), so that a version,
//! layout or build mismatch and a panic inside the game are tested without
//! building a library.

use std::path::PathBuf;
use std::sync::OnceLock;

use gdl_runtime::abi::{self, GameAbi, Words};
use gdl_runtime::{Game, Goal, Move, ParseError, Role, Scratched};

use super::library::{check, checked};
use super::{LoadError, LoadedGame};

/// One role, one move; counting to 3 ends it; its goal panics.
#[derive(Clone, Copy, Debug, Default)]
struct Counter;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CounterState([u64; 1]);

impl Words for CounterState {
    const WORDS: usize = 1;
    fn words(&self) -> &[u64] {
        &self.0
    }
    fn from_words(words: &[u64]) -> Self {
        CounterState([words[0]])
    }
}

impl Game for Counter {
    type State = CounterState;
    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _: Role) -> &str {
        "counter"
    }
    fn initial_state(&self) -> CounterState {
        CounterState([0])
    }
    fn legal_moves(&self, state: &CounterState, _: Role, out: &mut Vec<Move>) {
        out.clear();
        if state.0[0] < 3 {
            out.push(Move(0));
        }
    }
    fn is_terminal(&self, state: &CounterState) -> bool {
        state.0[0] >= 3
    }
    fn goal(&self, _: &CounterState, _: Role) -> Goal {
        panic!("no goal in this game")
    }
    fn apply_unchecked(&self, state: &mut CounterState, _: &[Move]) {
        state.0[0] += 1;
    }
    fn move_text(&self, _: Role, _: Move) -> String {
        "count".to_owned()
    }
    fn fluents(&self, state: &CounterState) -> Vec<String> {
        vec![format!("(count {})", state.0[0])]
    }
    fn parse_move(&self, _: Role, text: &str) -> Result<Move, ParseError> {
        (text == "count")
            .then_some(Move(0))
            .ok_or_else(|| ParseError::new(format!("`{text}` is not a move")))
    }
    fn parse_state(&self, _: &str) -> Result<CounterState, ParseError> {
        Ok(CounterState([0]))
    }
}

/// No caches: each query asks the `Game` methods.
impl Scratched for Counter {
    type Scratch = ();
    fn new_scratch(&self) {}
    fn legal_moves_in(&self, _: &mut (), state: &CounterState, role: Role, out: &mut Vec<Move>) {
        self.legal_moves(state, role, out);
    }
    fn is_terminal_in(&self, _: &mut (), state: &CounterState) -> bool {
        self.is_terminal(state)
    }
    fn goal_in(&self, _: &mut (), state: &CounterState, role: Role) -> Goal {
        self.goal(state, role)
    }
    fn apply_in(&self, _: &mut (), state: &mut CounterState, joint: &[Move]) {
        self.apply_unchecked(state, joint);
    }
}

fn counter_abi() -> &'static GameAbi {
    static CELL: OnceLock<GameAbi> = OnceLock::new();
    // SAFETY: the descriptor is a static, never null for this game.
    unsafe { &*abi::descriptor::<Counter>(&CELL, "build-a") }
}

fn counter() -> LoadedGame {
    LoadedGame::new(counter_abi(), "counter".to_owned(), PathBuf::new()).unwrap()
}

#[test]
fn a_panic_inside_the_game_is_an_error_not_an_unwind() {
    let game = counter();
    let mut state = game.initial_state();
    assert_eq!(game.goal(&state, 0), Goal::None);
    let failure = game.failure().unwrap();
    assert!(failure.contains("no goal in this game"), "{failure}");
    // Batch playouts end with goals: the panic is an error.
    let err = game.playouts(&state, 1, 2, 10).unwrap_err();
    assert!(
        matches!(err, LoadError::Game(ref m) if m.contains("no goal")),
        "{err}"
    );
    // The rest of the game still answers.
    game.apply_unchecked(&mut state, &[Move(0)]);
    assert_eq!(game.fluents(&state), ["(count 1)"]);
    assert!(game.parse_move(0, "jump").is_err());
}

#[test]
fn a_position_keeps_what_its_step_computed() {
    let game = counter();
    let mut position = game.position().unwrap();
    assert_eq!(position.legal(0), [Move(0)]);
    for _ in 0..3 {
        assert!(!position.is_terminal());
        position.step(&[Move(0)]).unwrap();
    }
    assert!(position.is_terminal());
    assert_eq!(position.legal(0), []);
    assert_eq!(position.words(), [3]);
}

#[test]
fn another_version_layout_or_build_is_a_clear_error() {
    let good = *counter_abi();
    assert!(check(&good, "build-a").is_ok());
    let err = check(&good, "build-b").unwrap_err().to_string();
    assert!(err.contains("build-a") && err.contains("build-b"), "{err}");

    let mut version = good;
    version.abi_version = abi::ABI_VERSION + 1;
    let err = checked(&version, "test", "build-a")
        .unwrap_err()
        .to_string();
    assert!(err.contains("ABI version"), "{err}");

    let mut size = good;
    size.size -= 8;
    let err = checked(&size, "test", "build-a").unwrap_err().to_string();
    assert!(err.contains("bytes"), "{err}");

    let mut endian = good;
    endian.endian = abi::ENDIAN_PROBE.swap_bytes();
    assert!(matches!(
        check(&endian, "build-a"),
        Err(LoadError::Mismatch(_))
    ));
    assert!(matches!(
        checked(std::ptr::null(), "test", "build-a"),
        Err(LoadError::Game(_))
    ));
}
