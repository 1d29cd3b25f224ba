//! A whole match between two flat Monte Carlo players, printing the board
//! after each move.
//!
//!     cargo run --release -p gdl-examples --example montecarlo -- [GAME] [PLAYOUTS PER MOVE] [SEED]
//!
//! GAME is tictactoe, connectfour (default) or breakthrough.

use gdl_examples::{board, with_game, WithGame, GAMES};
use gdl_runtime::{flat_monte_carlo, Budget, Game, Move};

struct Match {
    playouts: u64,
    seed: u64,
}

impl WithGame for Match {
    type Output = ();
    fn run<G: Game>(self, game: &G) {
        let mut state = game.initial_state();
        let mut legal = Vec::new();
        print!("{}", board(game, &state));
        let mut ply = 0u64;
        while !game.is_terminal(&state) {
            let mut joint = vec![Move::default(); game.num_roles()];
            let mut shown = Vec::new();
            for (role, slot) in joint.iter_mut().enumerate() {
                game.legal_moves(&state, role, &mut legal);
                if legal.len() == 1 {
                    *slot = legal[0];
                    let text = game.move_text(role, legal[0]);
                    if text != "noop" {
                        shown.push(format!("{} plays {text} (forced)", game.role_name(role)));
                    }
                    continue;
                }
                let seed = self.seed ^ (ply << 8) ^ role as u64;
                let Some(choice) = flat_monte_carlo(
                    game,
                    &state,
                    role,
                    Budget::Playouts(self.playouts),
                    seed,
                    10_000,
                ) else {
                    println!("{} has no legal move", game.role_name(role));
                    return;
                };
                *slot = choice.best;
                let eval = choice.evaluations.iter().find(|e| e.mv == choice.best);
                shown.push(format!(
                    "{} plays {} (expects {:.1})",
                    game.role_name(role),
                    game.move_text(role, choice.best),
                    eval.map_or(0.0, |e| e.average)
                ));
            }
            state = game.next_state_unchecked(&state, &joint);
            ply += 1;
            println!("\nmove {ply}: {}", shown.join(", "));
            print!("{}", board(game, &state));
        }
        let goals: Vec<String> = (0..game.num_roles())
            .map(|r| format!("{} {:?}", game.role_name(r), game.goal(&state, r)))
            .collect();
        println!("\nfinal goals: {}", goals.join(", "));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("connectfour", String::as_str);
    let playouts = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    if with_game(name, Match { playouts, seed }).is_none() {
        eprintln!("unknown game `{name}`; the games are {}", GAMES.join(", "));
        std::process::exit(2);
    }
}
