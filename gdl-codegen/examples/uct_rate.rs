//! The player's search speed, apart from any match: one UCT tree (one
//! thread) searches a fixed time at each position of a seeded random match
//! (the same positions whatever the search finds), keeping its tree from
//! move to move as a player does, and prints the simulations a second of
//! each turn, then their median. A benchmark of the tree's own cost beside the reasoner's.
//!
//! `cargo run --release -p gdl-codegen --example uct_rate -- GAME [MS] [REASONER] [TURNS] [TREE_MB]`
//! (MS: milliseconds a turn, default 500; REASONER: compiled, default, or
//! propnet; TURNS: the most turns searched, default all; TREE_MB: the
//! tree's memory cap, default 1024, as the player's `--tree-mb`).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::host::loaded::{self, LoadOptions};
use gdl_codegen::player::uct::Tree;
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_runtime::{Game, Move, Rng};

/// Searches `per_turn` at each position of a seeded random match of `game`;
/// a line per turn.
fn play<G: Game>(game: &G, per_turn: Duration, max_turns: usize, tree_bytes: usize)
where
    G::State: Send + 'static,
{
    let stop = AtomicBool::new(false);
    let mut tree = Tree::new(game, game.initial_state(), tree_bytes, 1);
    let mut rates = Vec::new();
    let mut rng = Rng::new(7);
    let mut buf = Vec::new();
    for turn in 0..max_turns {
        if tree.root_is_terminal() {
            break;
        }
        let began = Instant::now();
        let done = tree.search(game, began + per_turn, &stop);
        let rate = done.simulations as f64 / began.elapsed().as_secs_f64();
        println!(
            "turn {turn:3}  {rate:10.0} simulations/s  {:9} nodes",
            done.nodes
        );
        rates.push(rate);
        let joint: Vec<Move> = (0..game.num_roles())
            .map(|role| {
                let state = tree.root_state();
                game.random_move(state, role, &mut rng, &mut buf)
                    .unwrap_or_default()
            })
            .collect();
        let moved = Instant::now();
        tree.advance(game, &joint);
        let took = moved.elapsed().as_secs_f64() * 1e3;
        if took > 1.0 {
            println!("          advance {took:.1} ms");
        }
    }
    // The first half of the match: later the tree holds most of what is
    // left of the game, and a simulation rarely leaves it.
    let mut first = rates[..rates.len().div_ceil(2)].to_vec();
    first.sort_by(f64::total_cmp);
    if let Some(median) = first.get(first.len() / 2) {
        println!(
            "median {median:.0} simulations/s over the first {} turns",
            first.len()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: uct_rate GAME [MS] [compiled|propnet] [TURNS] [TREE_MB]");
        std::process::exit(2);
    };
    let ms = args.get(1).and_then(|m| m.parse().ok()).unwrap_or(500);
    let per_turn = Duration::from_millis(ms);
    let max_turns = args
        .get(3)
        .and_then(|m| m.parse().ok())
        .unwrap_or(usize::MAX);
    let tree_mb: usize = args.get(4).and_then(|m| m.parse().ok()).unwrap_or(1024);
    let tree_bytes = tree_mb << 20;
    let rules = std::fs::read(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    match args.get(2).map_or("compiled", String::as_str) {
        "propnet" => {
            let fe = front::run_bytes(path, &rules, &Options::default());
            let program = fe.valid_program().expect("valid rules");
            let gp = ground::ground(program, &Budget::default()).expect("grounds");
            play(&Propnet::new(&gp), per_turn, max_turns, tree_bytes);
        }
        _ => match loaded::load(path, &rules, &LoadOptions::default()) {
            Ok(game) => play(&game, per_turn, max_turns, tree_bytes),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        },
    }
}
