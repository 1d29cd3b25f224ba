//! Each reference engine against the project's interpreter of its corpus
//! file, move for move: seeded random matches drive both with the same
//! choices (an index into the byte-ordered legal list, drawn as the playout
//! driver draws it), and every step compares the fluents, terminal, every
//! role's legal moves and the goals. The references also replay the
//! conformance traces recorded with GGP-Base's prover.
//!
//! Every match is played to its end. The interpreter is slowest on reversi
//! (its goal rules count the pieces cell by cell), which takes about 2.5 s
//! for 20 matches; the whole file runs in about 4 s, well within the
//! suite's budget.

mod common;

use std::path::PathBuf;

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_references::breakthrough::Breakthrough;
use gdl_references::connect_four::ConnectFour;
use gdl_references::english_draughts::EnglishDraughts;
use gdl_references::reversi::Reversi;
use gdl_references::CORPUS;
use gdl_runtime::trace::{self, Trace};
use gdl_runtime::Game;

use common::{agree, assert_all_finished, Plan};

/// The interpreter of `ggp-repository-base/{name}.kif`.
fn interpreter(name: &str) -> Interpreter {
    let path = format!("{CORPUS}/ggp-repository-base/{name}.kif");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    let program = fe
        .valid_program()
        .unwrap_or_else(|| panic!("{path} is invalid:\n{}", fe.render_diagnostics(false)));
    Interpreter::new(program).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Replays the conformance trace of `ggp-repository-base/{name}` on `game`.
fn replay_trace<G: Game>(game: &G, name: &str) {
    let path = PathBuf::from(CORPUS)
        .join("../conformance/ggp-repository-base")
        .join(format!("{name}.trace"));
    let trace = Trace::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summary = trace::replay(game, &trace).unwrap_or_else(|d| panic!("{name}: {d}"));
    assert!(summary.states > 0, "{name}: nothing replayed");
}

#[test]
fn connect_four_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 100,
        goals_every_step: true,
    };
    let seen = agree(&ConnectFour, &interpreter("connectFour"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn connect_four_replays_trace() {
    replay_trace(&ConnectFour, "connectFour");
}

#[test]
fn breakthrough_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 400,
        goals_every_step: true,
    };
    let seen = agree(&Breakthrough, &interpreter("breakthrough"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn breakthrough_replays_trace() {
    replay_trace(&Breakthrough, "breakthrough");
}

#[test]
fn reversi_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 200,
        goals_every_step: true,
    };
    let seen = agree(&Reversi, &interpreter("reversi"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn reversi_replays_trace() {
    replay_trace(&Reversi, "reversi");
}

/// More matches than the other games: about one random match in ten ends
/// at the step limit, and jump chains and crowning captures are rarer still.
#[test]
fn english_draughts_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..60,
        max_plies: 400,
        goals_every_step: true,
    };
    let seen = agree(&EnglishDraughts, &interpreter("englishDraughts"), &plan);
    assert_all_finished(&seen, 60);
}

#[test]
fn english_draughts_replays_trace() {
    replay_trace(&EnglishDraughts, "englishDraughts");
}
