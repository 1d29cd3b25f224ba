//! Loaded games against statically linked ones (`gdl!`), on the six
//! benchmark games, in one run: batch playouts (inside the library) and a
//! tree-search step through the simulation API (apply a joint move, list
//! every role's legal moves, test terminal), each as a ratio loaded /
//! static of the rate (the best of three alternating rounds of SECONDS
//! each); the time `prepare` takes to hand out a reasoner, and
//! the time `load` takes (from the cache when the libraries are built: run
//! it twice).
//!
//!     GDL_CODEGEN_TARGET_CPU=baseline cargo run --release -p gdl-benches --features loaded --example loaded -- [SECONDS [GAME...]]
//!
//! With GAME names (`connectFour`), only those rows.
//!
//! `baseline`: the libraries are built for the CPU the static games are
//! (this workspace sets no `target-cpu`), so the ratio is the boundary's
//! cost alone.

use std::time::{Duration, Instant};

use gdl_benches::CORPUS;
use gdl_codegen::host::loaded::{self, LoadOptions, LoadedGame};
use gdl_runtime::{run_playouts, Budget, Game, Move, Rng};

gdl_macro::gdl! {
    mod tic_tac_toe;
    struct TicTacToe;
    include "../../shared/games/ggp-repository-base/ticTacToe.kif";
}

gdl_macro::gdl! {
    mod connect_four;
    struct ConnectFour;
    include "../../shared/games/ggp-repository-base/connectFour.kif";
}

gdl_macro::gdl! {
    mod breakthrough;
    struct Breakthrough;
    include "../../shared/games/ggp-repository-base/breakthrough.kif";
}

gdl_macro::gdl! {
    mod reversi;
    struct Reversi;
    include "../../shared/games/ggp-repository-base/reversi.kif";
}

gdl_macro::gdl! {
    mod english_draughts;
    struct EnglishDraughts;
    include "../../shared/games/ggp-repository-base/englishDraughts.kif";
}

gdl_macro::gdl! {
    mod speed_chess;
    struct SpeedChess;
    include "../../shared/games/ggp-repository-base/speedChess.kif";
}

const MAX_DEPTH: usize = 10_000;
/// Rounds of each measurement (see [`row`]).
const ROUNDS: usize = 3;

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let time = Duration::from_secs_f64(seconds);
    let only: Vec<String> = std::env::args().skip(2).collect();
    let row = |name: &str, run: &dyn Fn(&str, Duration)| {
        if only.is_empty() || only.iter().any(|o| o == name) {
            run(name, time);
        }
    };
    println!("| game | prepare s | load s | static playouts/s | loaded batch playouts/s | ratio | static steps/s | loaded position steps/s | ratio |");
    println!("|---|---|---|---|---|---|---|---|---|");
    row("ticTacToe", &|n, t| game_row(n, &tic_tac_toe::TicTacToe, t));
    row("connectFour", &|n, t| {
        game_row(n, &connect_four::ConnectFour, t)
    });
    row("breakthrough", &|n, t| {
        game_row(n, &breakthrough::Breakthrough, t)
    });
    row("reversi", &|n, t| game_row(n, &reversi::Reversi, t));
    row("englishDraughts", &|n, t| {
        game_row(n, &english_draughts::EnglishDraughts, t)
    });
    row("speedChess", &|n, t| {
        game_row(n, &speed_chess::SpeedChess, t)
    });
}

/// One game's line of the table.
fn game_row<G: Game>(name: &str, game: &G, time: Duration) {
    let path = format!("{CORPUS}/ggp-repository-base/{name}.kif");
    let rules = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // `load` first: after `prepare`, the library would be loaded already.
    let start = Instant::now();
    let loaded = loaded::load(name, &rules, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let load = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let far = start + Duration::from_secs(3600);
    let prepared = loaded::prepare(name, &rules, &LoadOptions::default(), far).unwrap();
    let prepare = start.elapsed().as_secs_f64();
    drop(prepared);
    // Static and loaded alternate, three rounds, the best of each kept:
    // on a shared machine the load changes from second to second.
    let (mut static_rate, mut loaded_rate) = (0f64, 0f64);
    let (mut static_steps, mut loaded_steps) = (0f64, 0f64);
    for _ in 0..ROUNDS {
        let fixed = run_playouts(game, Budget::Time(time), 1, MAX_DEPTH);
        static_rate = static_rate.max(fixed.playouts_per_sec());
        let count = (fixed.playouts_per_sec() * time.as_secs_f64()).max(1.0) as u64;
        let batch = loaded
            .playouts(&loaded.initial_state(), 1, count, MAX_DEPTH as u64)
            .unwrap();
        loaded_rate = loaded_rate.max(batch.playouts_per_sec());
        static_steps = static_steps.max(steps_static(game, time));
        loaded_steps = loaded_steps.max(steps_loaded(&loaded, time));
    }
    println!(
        "| {name} | {prepare:.3} | {load:.3} | {static_rate:.0} | {loaded_rate:.0} | {:.2} | {static_steps:.0} | {loaded_steps:.0} | {:.2} |",
        loaded_rate / static_rate,
        loaded_steps / static_steps
    );
}

/// Random walks through the `Game` trait: steps per second, each step a
/// joint move applied, every role's legal moves listed, terminal tested.
fn steps_static<G: Game>(game: &G, time: Duration) -> f64 {
    let init = game.initial_state();
    let (mut rng, mut state, mut steps) = (Rng::new(1), init.clone(), 0u64);
    let mut legal: Vec<Vec<Move>> = vec![Vec::new(); game.num_roles()];
    let mut joint = Vec::new();
    let start = Instant::now();
    while steps % 1024 != 0 || start.elapsed() < time {
        if game.is_terminal(&state) {
            state.clone_from(&init);
        }
        for (role, moves) in legal.iter_mut().enumerate() {
            game.legal_moves(&state, role, moves);
        }
        joint.clear();
        joint.extend(legal.iter().map(|m| m[rng.below(m.len())]));
        game.apply_unchecked(&mut state, &joint);
        steps += 1;
    }
    steps as f64 / start.elapsed().as_secs_f64()
}

/// The same random walks through a loaded game's position.
fn steps_loaded(game: &LoadedGame, time: Duration) -> f64 {
    let init = game.initial_state();
    let mut position = game.position().unwrap();
    let (mut rng, mut steps, mut joint) = (Rng::new(1), 0u64, Vec::new());
    let start = Instant::now();
    while steps % 1024 != 0 || start.elapsed() < time {
        if position.is_terminal() {
            position.set(&init).unwrap();
        }
        joint.clear();
        for role in 0..game.num_roles() {
            let moves = position.legal(role);
            joint.push(moves[rng.below(moves.len())]);
        }
        position.step(&joint).unwrap();
        steps += 1;
    }
    steps as f64 / start.elapsed().as_secs_f64()
}
