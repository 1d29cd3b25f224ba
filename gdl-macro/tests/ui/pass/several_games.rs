// Several games in one crate: one read from a file, one inline, each in a
// module of its own with a visibility, attributes, a type name and options.
use gdl_runtime::Game;

gdl_macro::gdl! {
    /// Tic-tac-toe.
    #[allow(dead_code)]
    pub mod tictactoe;
    struct TicTacToe;
    include "games/tictactoe.kif";
    max_rules = 100_000;
}

gdl_macro::gdl! {
    pub(crate) mod nim;
    r#"
    ; Comments, names with dashes, ?variables and "quotes" survive a raw string.
    (role first) (role second)
    (init (sticks 3)) (init (control first))
    (succ 0 1) (succ 1 2) (succ 2 3)
    (<= (legal ?p (take 1)) (true (control ?p)) (true (sticks ?n)) (succ ?m ?n))
    (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
    (<= (next (sticks ?m)) (does ?p (take 1)) (true (sticks ?n)) (succ ?m ?n))
    (<= (next (control first)) (true (control second)))
    (<= (next (control second)) (true (control first)))
    (<= (prev-goal ?p) (true (control ?p)))
    (<= terminal (true (sticks 0)))
    (<= (goal ?p 100) (prev-goal ?p) (true (sticks 0)))
    (<= (goal ?p 0) (role ?p) (not (prev-goal ?p)))
    "#;
    case_sensitive;
}

fn main() {
    let ttt = tictactoe::TicTacToe;
    let state: tictactoe::TicTacToeState = ttt.initial_state();
    assert_eq!(gdl_runtime::perft(&ttt, &state, 2), 72);
    let game = nim::Nim;
    assert_eq!(game.role_names(), ["first", "second"]);
    assert_eq!(gdl_runtime::perft(&game, &game.initial_state(), 3), 1);
}
