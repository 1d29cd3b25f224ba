//! Random playouts on every corpus game that has a conformance trace, on the
//! interpreter: none may panic. Bounded by playouts and steps, not seconds.

mod common;

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_runtime::{playout, Rng};

/// Steps per playout: enough to reach the middle game of most games, small
/// enough for the slowest (arithmetic-heavy) games to stay quick.
const MAX_STEPS: usize = 40;

#[test]
fn every_game_with_a_trace_plays_without_panicking() {
    let mut played = 0;
    let mut invalid = 0;
    for rel in common::corpus_files() {
        let stem = rel.rsplit_once('.').map_or(rel.as_str(), |(s, _)| s);
        if !common::shared()
            .join(format!("conformance/{stem}.trace"))
            .exists()
        {
            continue;
        }
        let bytes = std::fs::read(common::games().join(&rel)).expect("read game");
        let fe = front::run_bytes(&rel, &bytes, &Options::default());
        let Some(program) = fe.valid_program() else {
            invalid += 1;
            continue;
        };
        let game = Interpreter::new(program).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let mut rng = Rng::new(7);
        let p = playout(
            &game,
            &gdl_runtime::Game::initial_state(&game),
            &mut rng,
            MAX_STEPS,
        );
        assert!(p.depth <= MAX_STEPS, "{rel}: played {} steps", p.depth);
        played += 1;
    }
    // 442 traces; the games the checker rejects (unsafe rules, arity clashes)
    // are not played.
    assert!(played >= 420, "played {played} games, {invalid} invalid");
    assert!(invalid <= 12, "{invalid} games with traces were rejected");
}
