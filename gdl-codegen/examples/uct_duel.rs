//! Two UCT trees over one compiled game, one thread each in turn, playing
//! matches against each other with different search times a move, sides
//! alternated: the search's strength apart from any server, clock or
//! reasoner. Prints each match's goals and the strong side's mean score.
//!
//! `cargo run --release -p gdl-codegen --example uct_duel -- GAME [STRONG_MS] [WEAK_MS] [MATCHES]`
//! (defaults 200, 2, 10).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gdl_codegen::host::loaded::{self, LoadOptions};
use gdl_codegen::player::uct::Tree;
use gdl_runtime::{Game, Move};

/// The most visited move of `role` at the root of `tree`.
fn best(tree: &Tree<impl Clone + Eq + std::hash::Hash>, role: usize) -> Move {
    tree.root_stats(role)
        .max_by_key(|(_, st)| st.visits)
        .map_or(Move::default(), |(mv, _)| mv)
}

/// One match: `strong` plays role `side`; the strong side's goal.
fn duel<G: Game>(game: &G, times: [Duration; 2], side: usize, seed: u64) -> Option<u8>
where
    G::State: Send + 'static,
{
    let stop = AtomicBool::new(false);
    let mut trees: Vec<Tree<G::State>> = (0..2)
        .map(|i| Tree::new(game, game.initial_state(), 256 << 20, seed * 2 + i))
        .collect();
    let mut state = game.initial_state();
    while !game.is_terminal(&state) {
        let mut joint = vec![Move::default(); game.num_roles()];
        for (who, tree) in trees.iter_mut().enumerate() {
            tree.search(game, Instant::now() + times[who], &stop);
        }
        for (role, mv) in joint.iter_mut().enumerate() {
            // The strong tree chooses for its role, the weak one for the others.
            let who = usize::from(role != side);
            *mv = best(&trees[who], role);
        }
        for tree in &mut trees {
            tree.advance(game, &joint);
        }
        game.apply_unchecked(&mut state, &joint);
    }
    game.goal(&state, side).value()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: uct_duel GAME [STRONG_MS] [WEAK_MS] [MATCHES]");
        std::process::exit(2);
    };
    let ms = |i: usize, d: u64| {
        Duration::from_millis(args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d))
    };
    let times = [ms(1, 200), ms(2, 2)];
    let matches: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(10);
    let rules = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let game = loaded::load(path, &rules, &LoadOptions::default()).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let mut total = 0.0;
    for i in 0..matches {
        let side = (i % game.num_roles() as u64) as usize;
        let goal = duel(&game, times, side, i);
        println!("match {i}: strong side plays role {side}: goal {goal:?}");
        total += goal.map_or(50.0, f64::from);
    }
    println!(
        "strong side's mean score {:.1} over {matches} matches",
        total / matches as f64
    );
}
