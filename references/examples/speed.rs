//! Playouts per second of every reference engine, measured by the runtime's
//! playout driver as the `bench` command of `gdl-codegen` measures the
//! generated reasoners (one thread, seeded random playouts from the initial
//! state).
//!
//! `cargo run --release -p gdl-references --example speed [SECONDS]`
//! (default 3 seconds a game).

use std::time::Duration;

use gdl_references::breakthrough::Breakthrough;
use gdl_references::connect_four::ConnectFour;
use gdl_references::english_draughts::EnglishDraughts;
use gdl_references::reversi::Reversi;
use gdl_runtime::{measure, Game, DEFAULT_MAX_DEPTH};

/// Measures `game` for `secs` seconds and prints one line.
fn report<G: Game>(name: &str, game: &G, secs: f64) {
    let stats = measure(game, Duration::from_secs_f64(secs), 1, DEFAULT_MAX_DEPTH);
    println!("{name:16} {stats}");
}

fn main() {
    let secs = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: speed [SECONDS]");
            std::process::exit(2)
        }),
        None => 3.0,
    };
    report("connectFour", &ConnectFour, secs);
    report("breakthrough", &Breakthrough, secs);
    report("reversi", &Reversi, secs);
    report("englishDraughts", &EnglishDraughts, secs);
}
