//! Each example game passes the checker without a warning, and its compiled
//! reasoner (from the `gdl!` macro) agrees with the interpreter on seeded
//! random matches.

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_examples::{game_path, with_game, WithGame, GAMES};
use gdl_runtime::{record, replay, Game};

fn interpreter(name: &str) -> Interpreter {
    let path = game_path(name);
    let bytes = std::fs::read(&path).expect("read the game");
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    assert!(
        fe.diagnostics.is_empty(),
        "{name} has diagnostics:\n{}",
        fe.render_diagnostics(false)
    );
    Interpreter::new(&fe.program).expect("the interpreter takes the game")
}

struct Agree<'a>(&'a Interpreter, u64);

impl WithGame for Agree<'_> {
    type Output = usize;
    fn run<G: Game>(self, game: &G) -> usize {
        let trace = record(game, 20, self.1, 500);
        if let Err(d) = replay(self.0, &trace) {
            panic!("the interpreter disagrees with the compiled game: {d}");
        }
        trace.matches.len()
    }
}

#[test]
fn example_games_are_valid_and_agree_with_the_interpreter() {
    for name in GAMES {
        let interp = interpreter(name);
        let matches = with_game(name, Agree(&interp, 7)).expect("a known game");
        assert_eq!(matches, 20, "{name}");
    }
}

#[test]
fn perft_of_known_positions() {
    use gdl_examples::connectfour::ConnectFour;
    use gdl_examples::tictactoe::TicTacToe;
    assert_eq!(
        gdl_runtime::perft(&TicTacToe, &TicTacToe.initial_state(), 3),
        504
    );
    // Connect four: seven drops a ply, no column fills in four plies.
    assert_eq!(
        gdl_runtime::perft(&ConnectFour, &ConnectFour.initial_state(), 4),
        7u64.pow(4)
    );
    // Breakthrough: 22 first moves (6 inner pawns with 3 moves, 2 edge pawns with 2).
    let bt = gdl_examples::breakthrough::Breakthrough;
    assert_eq!(gdl_runtime::perft(&bt, &bt.initial_state(), 1), 22);
}
