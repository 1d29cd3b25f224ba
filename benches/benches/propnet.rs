//! Propnet reasoner speed: random playouts on one core, on the games the
//! issue compares with Sancho's propnet (ticTacToe, connectFour,
//! breakthrough, reversi, englishDraughts). Criterion reports the time of
//! a batch of 10 playouts; playouts per second = 10 / time.

use criterion::{criterion_group, criterion_main, Criterion};
use gdl_benches::propnet;
use gdl_runtime::{playout_in_place, Game, PlayoutBuffers, Rng};

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("propnet_10_playouts");
    group.sample_size(10);
    for rel in [
        "ticTacToe",
        "connectFour",
        "breakthrough",
        "reversi",
        "englishDraughts",
    ] {
        let net = propnet(rel);
        let init = net.initial_state();
        let mut rng = Rng::new(1);
        let mut buf = PlayoutBuffers::new();
        group.bench_function(rel, |b| {
            b.iter(|| {
                for _ in 0..10 {
                    let mut s = init.clone();
                    playout_in_place(&net, &mut s, &mut rng, 10_000, &mut buf);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
