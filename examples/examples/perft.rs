//! Perft: the number of joint-move sequences of each length from the initial
//! state, with the time taken.
//!
//!     cargo run --release -p gdl-examples --example perft -- [GAME] [DEPTH]
//!
//! GAME is tictactoe (default), connectfour, breakthrough or chess.

use std::time::Instant;

use gdl_examples::{with_game, WithGame, GAMES};
use gdl_runtime::{perft, Game};

struct Perft(usize);

impl WithGame for Perft {
    type Output = ();
    fn run<G: Game>(self, game: &G) {
        let state = game.initial_state();
        for depth in 1..=self.0 {
            let start = Instant::now();
            let n = perft(game, &state, depth);
            let secs = start.elapsed().as_secs_f64();
            println!(
                "depth {depth}: {n} sequences in {secs:.3} s ({:.0}/s)",
                n as f64 / secs.max(1e-9)
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("tictactoe", String::as_str);
    let depth = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    if with_game(name, Perft(depth)).is_none() {
        eprintln!("unknown game `{name}`; the games are {}", GAMES.join(", "));
        std::process::exit(2);
    }
}
