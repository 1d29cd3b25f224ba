//! Each reference engine against the project's interpreter of its corpus
//! file, move for move: seeded random matches drive both with the same
//! choices (an index into the byte-ordered legal list, drawn as the playout
//! driver draws it), and every step compares the fluents, terminal, every
//! role's legal moves and the goals. The references also replay the
//! conformance traces recorded with GGP-Base's prover, and agree with the
//! interpreter off the path of play too: in reached states with a few base
//! fluents toggled, and in their successors.
//!
//! Every match is played to its end. The interpreter is slowest on reversi
//! (its goal rules count the pieces cell by cell), which takes about 2.5 s
//! for 20 matches; the whole file runs in about 5 s, well within the
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

use common::{agree, agree_off_path, assert_all_finished, Plan};

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

/// Every `(name a b ... role)` text for the given argument lists, the last
/// one varying fastest.
fn product(name: &str, args: &[Vec<String>]) -> Vec<String> {
    let mut out = vec![String::new()];
    for values in args {
        out = out
            .iter()
            .flat_map(|prefix| values.iter().map(move |v| format!("{prefix} {v}")))
            .collect();
    }
    out.into_iter()
        .map(|rest| format!("({name}{rest})"))
        .collect()
}

/// The atoms `lo..=hi` as text.
fn range(lo: u32, hi: u32) -> Vec<String> {
    (lo..=hi).map(|n| n.to_string()).collect()
}

/// The given names as owned text.
fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn connect_four_agrees_off_path() {
    let roles = names(&["red", "black"]);
    let mut bases = product("cell", &[range(1, 8), range(1, 6), roles.clone()]);
    bases.extend(product("control", &[roles]));
    let n = agree_off_path(
        &ConnectFour,
        &interpreter("connectFour"),
        &bases,
        |_| true,
        0..1000,
    );
    assert!(n > 1000);
}

#[test]
fn breakthrough_agrees_off_path() {
    let roles = names(&["white", "black"]);
    let mut bases = product("cellHolds", &[range(1, 8), range(1, 8), roles.clone()]);
    bases.extend(product("control", &[roles]));
    let n = agree_off_path(
        &Breakthrough,
        &interpreter("breakthrough"),
        &bases,
        |_| true,
        0..1000,
    );
    assert!(n > 1000);
}

/// Reversi refuses states with a cell of both colours or both roles in
/// control (see `reversi::State`), so the toggles avoid them.
#[test]
fn reversi_agrees_off_path() {
    let roles = names(&["black", "red"]);
    let mut bases = product("cell", &[range(1, 8), range(1, 8), roles.clone()]);
    bases.extend(product("control", &[roles]));
    let supported = |fluents: &[String]| {
        let has = |f: &str| fluents.iter().any(|g| g == f);
        let cells_ok = fluents.iter().all(|f| {
            !f.ends_with(" black)")
                || !f.starts_with("(cell")
                || !has(&f.replace(" black)", " red)"))
        });
        cells_ok && !(has("(control black)") && has("(control red)"))
    };
    let n = agree_off_path(&Reversi, &interpreter("reversi"), &bases, supported, 0..500);
    assert!(n > 500);
}

#[test]
fn english_draughts_agrees_off_path() {
    let roles = names(&["white", "black"]);
    // The dark squares: files a, c, e, g with even ranks, the others odd.
    let squares: Vec<(String, String)> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .enumerate()
        .flat_map(|(f, x)| {
            (1..=8u32)
                .filter(move |r| (f as u32 + r) % 2 == 1)
                .map(move |r| (x.to_string(), r.to_string()))
        })
        .collect();
    let mut bases = Vec::new();
    for (x, y) in &squares {
        for role in &roles {
            for kind in ["king", "pawn"] {
                bases.push(format!("(cell {x} {y} {role} {kind})"));
            }
        }
        bases.push(format!("(capturingPiece {x} {y})"));
    }
    bases.extend(product("lastToMove", &[roles]));
    bases.extend(product("step", &[range(0, 20)]));
    let n = agree_off_path(
        &EnglishDraughts,
        &interpreter("englishDraughts"),
        &bases,
        |_| true,
        0..1000,
    );
    assert!(n > 1000);
}
