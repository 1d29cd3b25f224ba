//! Random playouts of an example game, with their speed.
//!
//!     cargo run --release -p gdl-examples --example playouts -- [GAME] [SECONDS]
//!
//! GAME is tictactoe, connectfour, breakthrough or chess (default: the first three).

use std::time::Duration;

use gdl_examples::{with_game, WithGame, GAMES};
use gdl_runtime::{measure, Game};

struct Playouts(Duration);

impl WithGame for Playouts {
    type Output = ();
    fn run<G: Game>(self, game: &G) {
        let stats = measure(game, self.0, 42, 10_000);
        let goals: Vec<String> = game
            .role_names()
            .iter()
            .zip(stats.average_goals())
            .map(|(r, g)| format!("{r} {:.1}", g.unwrap_or(f64::NAN)))
            .collect();
        println!(
            "{} playouts in {:.2} s: {:.0} playouts/s, {:.0} states/s; average length {:.1}; average goals: {}",
            stats.playouts,
            stats.elapsed.as_secs_f64(),
            stats.playouts_per_sec(),
            stats.states_per_sec(),
            stats.average_length(),
            goals.join(", ")
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: Vec<&str> = match args.first() {
        Some(g) => vec![g.as_str()],
        None => GAMES.to_vec(),
    };
    let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    for name in games {
        print!("{name}: ");
        if with_game(name, Playouts(Duration::from_secs_f64(secs))).is_none() {
            eprintln!("unknown game `{name}`; the games are {}", GAMES.join(", "));
            std::process::exit(2);
        }
    }
}
