//! Random playouts of each reference engine, as the compiled bench
//! (`benches/benches/compiled.rs`) measures the generated reasoners:
//! Criterion reports the time of a batch of 10 seeded playouts per game, so
//! playouts per second = 10 / time.

use criterion::{criterion_group, criterion_main, Criterion};
use gdl_references::breakthrough::Breakthrough;
use gdl_references::connect_four::ConnectFour;
use gdl_references::english_draughts::EnglishDraughts;
use gdl_references::reversi::Reversi;
use gdl_runtime::{playout_in_place, Game, PlayoutBuffers, Rng, DEFAULT_MAX_DEPTH};

/// Benchmarks 10 seeded playouts of `game` as `10_playouts/{name}/reference`.
fn bench_game<G: Game>(c: &mut Criterion, name: &str, game: &G) {
    let init = game.initial_state();
    let mut rng = Rng::new(1);
    let mut buf = PlayoutBuffers::new();
    let mut group = c.benchmark_group(format!("10_playouts/{name}"));
    group.bench_function("reference", |b| {
        b.iter(|| {
            for _ in 0..10 {
                let mut s = init.clone();
                playout_in_place(game, &mut s, &mut rng, DEFAULT_MAX_DEPTH, &mut buf);
            }
        })
    });
    group.finish();
}

fn playouts(c: &mut Criterion) {
    bench_game(c, "connectFour", &ConnectFour);
    bench_game(c, "breakthrough", &Breakthrough);
    bench_game(c, "reversi", &Reversi);
    bench_game(c, "englishDraughts", &EnglishDraughts);
}

criterion_group!(benches, playouts);
criterion_main!(benches);
