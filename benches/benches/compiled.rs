//! Compiled code against the propnet and the hand-coded references: random
//! playouts on one core, on the six games the issue compares with the
//! GGP-Base prover, Sancho, the RBG compiler and hand-coded players. Each
//! game is one criterion group, so the HTML report
//! (`target/criterion/report/index.html`) sets its reasoners side by side. The games are compiled by `gdl!` when
//! this bench builds (speedChess takes about a minute in release mode).
//! Criterion reports the time of a batch of 10 playouts per reasoner and
//! game; playouts per second = 10 / time, and the ratio of the two
//! reasoners' times is the speed-up, measured in one run.
//! `scripts/bench-games.sh` gives the same figures with the interpreter too.

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use gdl_benches::propnet;
use gdl_runtime::{playout_in_place, Game, PlayoutBuffers, Rng};

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

/// Benchmarks 10 seeded playouts of `game` as `reasoner` in `group` (one
/// group a game, so that criterion's HTML report sets the reasoners of a
/// game side by side).
fn bench_game<G: Game>(group: &mut BenchmarkGroup<'_, WallTime>, reasoner: &str, game: &G) {
    let init = game.initial_state();
    let mut rng = Rng::new(1);
    let mut buf = PlayoutBuffers::new();
    group.bench_function(reasoner, |b| {
        b.iter(|| {
            for _ in 0..10 {
                let mut s = init.clone();
                playout_in_place(game, &mut s, &mut rng, 10_000, &mut buf);
            }
        })
    });
}

/// The group of game `name`, with its propnet benchmarked.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(format!("10_playouts/{name}"));
    group.sample_size(10);
    bench_game(&mut group, "propnet", &propnet(name));
    group
}

fn playouts(c: &mut Criterion) {
    let mut g = group(c, "ticTacToe");
    bench_game(&mut g, "compiled", &tic_tac_toe::TicTacToe);
    g.finish();
    let mut g = group(c, "connectFour");
    bench_game(&mut g, "compiled", &connect_four::ConnectFour);
    bench_game(
        &mut g,
        "reference",
        &gdl_references::connect_four::ConnectFour,
    );
    g.finish();
    let mut g = group(c, "breakthrough");
    bench_game(&mut g, "compiled", &breakthrough::Breakthrough);
    bench_game(
        &mut g,
        "reference",
        &gdl_references::breakthrough::Breakthrough,
    );
    g.finish();
    let mut g = group(c, "reversi");
    bench_game(&mut g, "compiled", &reversi::Reversi);
    bench_game(&mut g, "reference", &gdl_references::reversi::Reversi);
    g.finish();
    let mut g = group(c, "englishDraughts");
    bench_game(&mut g, "compiled", &english_draughts::EnglishDraughts);
    let reference = gdl_references::english_draughts::EnglishDraughts;
    bench_game(&mut g, "reference", &reference);
    g.finish();
    let mut g = group(c, "speedChess");
    bench_game(&mut g, "compiled", &speed_chess::SpeedChess);
    g.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
