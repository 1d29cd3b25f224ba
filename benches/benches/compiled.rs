//! Compiled code against the propnet: random playouts on one core, on the
//! six games the issue compares with the GGP-Base prover, Sancho, the RBG
//! compiler and hand-coded players. The games are compiled by `gdl!` when
//! this bench builds (speedChess takes about a minute in release mode).
//! Criterion reports the time of a batch of 10 playouts per reasoner and
//! game; playouts per second = 10 / time, and the ratio of the two
//! reasoners' times is the speed-up, measured in one run.
//! `scripts/bench-games.sh` gives the same figures with the interpreter too.

use criterion::{criterion_group, criterion_main, Criterion};
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

/// Benchmarks 10 seeded playouts of `game` as `reasoner/name`.
fn bench_game<G: Game>(c: &mut Criterion, reasoner: &str, name: &str, game: &G) {
    let init = game.initial_state();
    let mut rng = Rng::new(1);
    let mut buf = PlayoutBuffers::new();
    let mut group = c.benchmark_group(format!("10_playouts/{name}"));
    group.sample_size(10);
    group.bench_function(reasoner, |b| {
        b.iter(|| {
            for _ in 0..10 {
                let mut s = init.clone();
                playout_in_place(game, &mut s, &mut rng, 10_000, &mut buf);
            }
        })
    });
    group.finish();
}

fn playouts(c: &mut Criterion) {
    bench_game(c, "compiled", "ticTacToe", &tic_tac_toe::TicTacToe);
    bench_game(c, "propnet", "ticTacToe", &propnet("ticTacToe"));
    bench_game(c, "compiled", "connectFour", &connect_four::ConnectFour);
    bench_game(c, "propnet", "connectFour", &propnet("connectFour"));
    bench_game(c, "compiled", "breakthrough", &breakthrough::Breakthrough);
    bench_game(c, "propnet", "breakthrough", &propnet("breakthrough"));
    bench_game(c, "compiled", "reversi", &reversi::Reversi);
    bench_game(c, "propnet", "reversi", &propnet("reversi"));
    bench_game(
        c,
        "compiled",
        "englishDraughts",
        &english_draughts::EnglishDraughts,
    );
    bench_game(c, "propnet", "englishDraughts", &propnet("englishDraughts"));
    bench_game(c, "compiled", "speedChess", &speed_chess::SpeedChess);
    bench_game(c, "propnet", "speedChess", &propnet("speedChess"));
}

criterion_group!(benches, playouts);
criterion_main!(benches);
