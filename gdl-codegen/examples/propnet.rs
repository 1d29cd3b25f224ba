//! The propnet reasoner used as a library, on its own (the tool runs it with
//! `gdl-codegen play|replay|bench --reasoner propnet`).
//!
//! - `propnet replay GAME...`: replays each game's conformance trace
//!   (`<same path>.trace` under `../shared/conformance/` next to the
//!   workspace, or under `$GDL_CONFORMANCE`).
//! - `propnet bench SECONDS GAME...`: random playouts per second on one core.

use std::time::{Duration, Instant};

use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_runtime::{measure, replay, Trace};

fn load(path: &str) -> Option<Propnet> {
    let bytes = std::fs::read(path).ok()?;
    let fe = front::run_bytes(path, &bytes, &Options::default());
    let program = fe.valid_program()?;
    match ground::ground(program, &Budget::default()) {
        Ok(gp) => Some(Propnet::new(&gp)),
        Err(e) => {
            println!("{path}: {e}");
            None
        }
    }
}

fn trace_path(game: &str) -> String {
    let root = std::env::var("GDL_CONFORMANCE").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/conformance").into()
    });
    let rel = game.split("/games/").nth(1).unwrap_or(game);
    let stem = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    format!("{root}/{stem}.trace")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("replay") => {
            let (mut ok, mut bad, mut none) = (0, 0, 0);
            for game in &args[1..] {
                let tp = trace_path(game);
                let Ok(trace) = Trace::read(&tp) else {
                    none += 1;
                    continue;
                };
                let Some(net) = load(game) else {
                    none += 1;
                    continue;
                };
                match replay(&net, &trace) {
                    Ok(s) => {
                        ok += 1;
                        println!("OK {game}: {} matches, {} states", s.matches, s.states);
                    }
                    Err(d) => {
                        bad += 1;
                        println!("DIFF {game}: {d}");
                    }
                }
            }
            println!("replayed: {ok} agree, {bad} differ, {none} skipped");
        }
        Some("bench") => {
            let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
            for game in &args[2..] {
                let t = Instant::now();
                let Some(net) = load(game) else { continue };
                let build = t.elapsed();
                let stats = measure(&net, Duration::from_secs_f64(secs), 1, 10_000);
                println!(
                    "{game}: {:.0} playouts/s, {:.0} states/s, average length {:.1} (ground+build {:.3} s)",
                    stats.playouts_per_sec(),
                    stats.states_per_sec(),
                    stats.average_length(),
                    build.as_secs_f64()
                );
            }
        }
        _ => eprintln!("usage: propnet replay GAME... | propnet bench SECONDS GAME..."),
    }
}
