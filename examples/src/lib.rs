//! Example games written for this project, compiled to Rust by the `gdl!`
//! macro, and helpers for the example programs in `examples/`.
//!
//! | module | game | type |
//! |---|---|---|
//! | [`tictactoe`] | tic-tac-toe, 3x3 | [`tictactoe::TicTacToe`] |
//! | [`connectfour`] | connect four, 7 columns x 6 rows, with gravity | [`connectfour::ConnectFour`] |
//! | [`breakthrough`] | breakthrough, 8x8, two rows of pawns each | [`breakthrough::Breakthrough`] |
//! | [`chess`] | chess with the full rules and a 100-move limit | [`chess::Chess`] |

use gdl_runtime::Game;

/// Directory holding the example game files shipped with the repository.
pub const GAMES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/games");

gdl_macro::gdl! {
    /// Tic-tac-toe (`games/tictactoe.kif`).
    pub mod tictactoe;
    struct TicTacToe;
    include "games/tictactoe.kif";
}

gdl_macro::gdl! {
    /// Connect four (`games/connectfour.kif`).
    pub mod connectfour;
    struct ConnectFour;
    include "games/connectfour.kif";
}

gdl_macro::gdl! {
    /// Breakthrough (`games/breakthrough.kif`).
    pub mod breakthrough;
    struct Breakthrough;
    include "games/breakthrough.kif";
}

gdl_macro::gdl! {
    /// Chess (`games/chess.kif`): castling, en passant, promotion to any
    /// piece, check, checkmate, stalemate, and a limit of 100 moves a side.
    pub mod chess;
    struct Chess;
    include "games/chess.kif";
}

/// The names of the small example games, which the agreement test replays on
/// the interpreter. Chess is checked by `gdl-codegen/tests/chess_perft.rs`.
pub const GAMES: [&str; 3] = ["tictactoe", "connectfour", "breakthrough"];

/// Something to do with a game of any type (the example programs are generic
/// over [`Game`]).
pub trait WithGame {
    /// What it returns.
    type Output;
    /// Does it with `game`.
    fn run<G: Game>(self, game: &G) -> Self::Output;
}

/// Runs `f` with the example game called `name` (one of [`GAMES`]).
pub fn with_game<F: WithGame>(name: &str, f: F) -> Option<F::Output> {
    match name {
        "tictactoe" => Some(f.run(&tictactoe::TicTacToe)),
        "connectfour" => Some(f.run(&connectfour::ConnectFour)),
        "breakthrough" => Some(f.run(&breakthrough::Breakthrough)),
        "chess" => Some(f.run(&chess::Chess)),
        _ => None,
    }
}

/// The path of the example game called `name`.
pub fn game_path(name: &str) -> String {
    format!("{GAMES_DIR}/{name}.kif")
}

/// Draws the board of a state of one of the example games as text, one line
/// per row, top row first; other games get their fluents, one per line.
pub fn board<G: Game>(game: &G, state: &G::State) -> String {
    let fluents = game.fluents(state);
    let cells: Vec<Vec<&str>> = fluents
        .iter()
        .map(|f| {
            f.trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .collect()
        })
        .collect();
    let num = |s: &str| s.parse::<usize>().ok();
    let roles = game.role_names();
    // (fluent name, columns, rows, whether the first argument is the row)
    let layout = if roles == ["xplayer", "oplayer"] {
        ("cell", 3, 3, true)
    } else if roles == ["red", "yellow"] {
        ("cell", 7, 6, false)
    } else if roles == ["white", "black"] {
        ("cellholds", 8, 8, false)
    } else {
        return fluents.join("\n") + "\n";
    };
    let (name, cols, rows, row_first) = layout;
    let mut grid = vec![vec!['.'; cols]; rows];
    for cell in cells.iter().filter(|c| c.len() == 4 && c[0] == name) {
        let (Some(a), Some(b)) = (num(cell[1]), num(cell[2])) else {
            continue;
        };
        let (row, col) = if row_first { (a, b) } else { (b, a) };
        if (1..=rows).contains(&row) && (1..=cols).contains(&col) {
            let mark = match cell[3] {
                "b" => '.',
                other => other.chars().next().unwrap_or('?').to_ascii_uppercase(),
            };
            grid[row - 1][col - 1] = mark;
        }
    }
    // Tic-tac-toe's row 1 is at the top; the other boards have row 1 at the
    // bottom.
    if !row_first {
        grid.reverse();
    }
    grid.iter()
        .map(|r| {
            let line: Vec<String> = r.iter().map(char::to_string).collect();
            line.join(" ") + "\n"
        })
        .collect()
}
