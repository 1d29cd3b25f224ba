//! Playouts per second of every reference engine, measured by the runtime's
//! playout driver as the `bench` command of `gdl-codegen` measures the
//! generated reasoners (one thread, seeded random playouts from the initial
//! state).
//!
//! `cargo run --release -p gdl-references --example speed [SECONDS [GAME...]]`
//! (default 3 seconds a game, every game).

use std::time::Duration;

use gdl_references::breakthrough::Breakthrough;
use gdl_references::connect_four::ConnectFour;
use gdl_references::english_draughts::EnglishDraughts;
use gdl_references::reversi::Reversi;
use gdl_runtime::{measure, Game, DEFAULT_MAX_DEPTH};

/// Measures `game` for `secs` seconds and prints one line, if `games` is
/// empty or names it.
fn report<G: Game>(name: &str, game: &G, secs: f64, games: &[String]) {
    if !games.is_empty() && !games.iter().any(|g| g == name) {
        return;
    }
    let stats = measure(game, Duration::from_secs_f64(secs), 1, DEFAULT_MAX_DEPTH);
    println!("{name:16} {stats}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs = match args.first() {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: speed [SECONDS [GAME...]]");
            std::process::exit(2)
        }),
        None => 3.0,
    };
    let games = args.get(1..).unwrap_or_default();
    report("connectFour", &ConnectFour, secs, games);
    report("breakthrough", &Breakthrough, secs, games);
    report("reversi", &Reversi, secs, games);
    report("englishDraughts", &EnglishDraughts, secs, games);
}
