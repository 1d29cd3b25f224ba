//! A process that loads a hundred distinct games, each played compiled,
//! stays bounded in memory: its resident set after the hundredth is within
//! 100 MB of that after the tenth (libraries stay loaded, by key).
//!
//! A hundred cargo builds take minutes: run it with
//! `scripts/loaded-memory.sh`, not with every `cargo test` (`test = false`).

mod common;

use std::path::PathBuf;

use gdl_codegen::host::loaded::{self, LoadOptions};
use gdl_runtime::Game;

/// This process's resident set, in bytes.
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[test]
fn a_hundred_games_stay_within_100_mb_of_ten() {
    let mut options = LoadOptions {
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("loaded-cache")),
        ..LoadOptions::default()
    };
    options.toolchain.jobs = 2;
    let mut after_ten = 0;
    for n in 1..=100u32 {
        let rules = common::nim(n);
        let game = loaded::load(&format!("nim{n}"), rules.as_bytes(), &options)
            .unwrap_or_else(|e| panic!("nim{n}: {e}"));
        let stats = game.playouts(&game.initial_state(), 1, 1000, 1000).unwrap();
        assert_eq!(
            (stats.terminal, stats.states),
            (1000, 1000 * u64::from(n + 1))
        );
        if n == 10 {
            after_ten = resident();
        }
    }
    let after_hundred = resident();
    eprintln!(
        "resident set: {} MB after 10 games, {} MB after 100",
        after_ten >> 20,
        after_hundred >> 20
    );
    assert!(after_hundred < after_ten + (100 << 20));
}
