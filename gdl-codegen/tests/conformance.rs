//! Conformance: the interpreter replays traces recorded by GGP-Base's prover
//! (`shared/conformance/`) and by the Dresden GameController, move for move.
//!
//! The set covers every kind of game: all `ggp-base/test/` games the checker
//! accepts, the classic board games, an upper-case 2006 game with `or`, a
//! `.lisp` game, games with four and six roles, simultaneous moves, a trace
//! with `?` goals and one cut off with ABORT. `scripts/replay-corpus.sh`
//! replays every trace.

mod common;

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_runtime::trace::{self, Trace};

/// Replays `trace` (relative to `shared/`) on `game` (relative to `shared/games/`).
fn replay(game: &str, trace_path: &str) -> Result<trace::ReplaySummary, String> {
    let bytes = std::fs::read(common::games().join(game)).map_err(|e| format!("{game}: {e}"))?;
    let fe = front::run_bytes(game, &bytes, &Options::default());
    if !fe.is_valid() {
        return Err(format!(
            "{game} rejected:\n{}",
            fe.render_diagnostics(false)
        ));
    }
    let interp = Interpreter::new(&fe.program).map_err(|e| format!("{game}: {e}"))?;
    let trace =
        Trace::read(common::shared().join(trace_path)).map_err(|e| format!("{trace_path}: {e}"))?;
    trace::replay(&interp, &trace).map_err(|d| format!("{trace_path}: {d}"))
}

/// The game file a conformance trace belongs to.
fn game_of(trace: &str) -> String {
    let rel = trace
        .trim_start_matches("conformance/")
        .trim_end_matches(".trace");
    if common::games().join(format!("{rel}.lisp")).exists() {
        format!("{rel}.lisp")
    } else {
        format!("{rel}.kif")
    }
}

fn replay_all(traces: &[&str]) {
    let mut failures = Vec::new();
    for t in traces {
        match replay(&game_of(t), t) {
            Ok(s) => assert!(s.states > 0, "{t}: nothing replayed"),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ggp_base_test_games() {
    let dir = common::shared().join("conformance/ggp-base/test");
    let mut traces: Vec<String> = std::fs::read_dir(dir)
        .expect("trace directory")
        .map(|e| {
            format!(
                "conformance/ggp-base/test/{}",
                e.expect("entry").file_name().to_string_lossy()
            )
        })
        .collect();
    traces.sort();
    // The games the checker rejects (unsafe rules, arity clashes) are the
    // expected exclusions; every other trace must replay.
    let rejected = [
        "test_case_3b",
        "test_case_3e",
        "test_case_3f",
        "test_invalid_function_arities_differ",
        "test_invalid_sentence_arities_differ",
    ];
    let mut checked = 0;
    for t in &traces {
        let game = game_of(t);
        let bytes = std::fs::read(common::games().join(&game)).expect("game");
        let valid = front::run_bytes(&game, &bytes, &Options::default()).is_valid();
        let expected_invalid = rejected.iter().any(|r| t.contains(&format!("/{r}.trace")));
        assert_eq!(valid, !expected_invalid, "{game}: validity");
        if valid {
            replay(&game, t).unwrap_or_else(|e| panic!("{e}"));
            checked += 1;
        }
    }
    assert_eq!(checked, traces.len() - rejected.len());
}

#[test]
fn classic_board_games() {
    replay_all(&[
        "conformance/ggp-repository-base/ticTacToe.trace",
        "conformance/ggp-repository-base/connectFour.trace",
        "conformance/ggp-repository-base/breakthrough.trace",
        "conformance/ggp-base/games/connectFour.trace",
    ]);
}

#[test]
fn upper_case_2006_game_with_or() {
    let game = game_of(
        "conformance/dresden-ggpserver/aaai2006-competition/CHICKENTICTACTOE_S.3357418559.trace",
    );
    let text = std::fs::read_to_string(common::games().join(&game)).expect("game");
    assert!(
        text.contains("(OR ") && text.contains("(ROLE "),
        "the chosen game uses upper case and `or`"
    );
    replay_all(&[
        "conformance/dresden-ggpserver/aaai2006-competition/CHICKENTICTACTOE_S.3357418559.trace",
    ]);
}

#[test]
fn lisp_game() {
    assert!(
        game_of("conformance/dresden-ggpserver/gamecontroller-testdata/games/8puzzle.trace")
            .ends_with(".lisp")
    );
    replay_all(&["conformance/dresden-ggpserver/gamecontroller-testdata/games/8puzzle.trace"]);
}

#[test]
fn many_roles() {
    replay_all(&[
        "conformance/ggp-repository-base/smallest_4player.trace",
        "conformance/ggp-repository-base/4pffa.trace",
        "conformance/ggp-repository-base/tictactoe_3d_small_6player.trace",
    ]);
}

#[test]
fn simultaneous_moves() {
    replay_all(&[
        "conformance/ggp-repository-base/roshambo2.trace",
        "conformance/ggp-repository-base/gt_prisoner.trace",
        "conformance/ggp-repository-base/connectFourSimultaneous.trace",
    ]);
}

#[test]
fn unknown_goal_and_abort() {
    let anon =
        std::fs::read_to_string(common::shared().join("conformance/sancho-all-games/anon.trace"))
            .expect("trace");
    assert!(
        anon.lines()
            .any(|l| l.starts_with("GOALS") && l.contains('?')),
        "trace has a `?` goal"
    );
    let factoring = "conformance/ggp-repository-base/factoringImpossibleTurtleBrain.trace";
    let text = std::fs::read_to_string(common::shared().join(factoring)).expect("trace");
    assert!(
        text.lines().any(|l| l.starts_with("ABORT")),
        "trace has an ABORT"
    );
    replay_all(&["conformance/sancho-all-games/anon.trace", factoring]);
}

#[test]
fn dresden_gamecontroller_traces() {
    for name in ["maze", "8puzzle", "checkers"] {
        let game = format!("dresden-ggpserver/gamecontroller-testdata/games/{name}.lisp");
        let t = format!("games/dresden-ggpserver/gamecontroller-testdata/traces/{name}.trace.xml");
        let summary = replay(&game, &t).unwrap_or_else(|e| panic!("{e}"));
        assert!(summary.states >= 10, "{name}: {summary:?}");
    }
}

#[test]
fn a_wrong_reasoner_is_caught() {
    // Replaying ticTacToe's trace on a different game must report a difference.
    let err = replay(
        "ggp-repository-base/ticTacToeLarge.kif",
        "conformance/ggp-repository-base/ticTacToe.trace",
    )
    .expect_err("a different game cannot replay this trace");
    assert!(err.contains("depth 0"), "{err}");
}
