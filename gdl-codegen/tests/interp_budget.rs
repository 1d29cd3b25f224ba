//! Issue 11: the interpreter's query budget stops a game whose first state
//! has 10^8 legal moves (`tests/fixtures/many_moves.kif`) with a clear error
//! and exit status 1, instead of taking the machine's memory. The default
//! budget stops it on its own in a second or two: no timeout needed.

use std::process::{Command, Output};

const MANY_MOVES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/many_moves.kif");

fn gdl_codegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdl-codegen"))
        .args(args)
        .output()
        .expect("run gdl-codegen")
}

/// Asserts that `out` is a clean budget failure: status 1, one `error:` line
/// naming the query, the relation, the limit and its value, and `flag`; no
/// panic, no results.
fn assert_budget_failure(out: &Output, limit: &str, flag: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {stderr}\nstdout: {stdout}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in: {stderr}"));
    for part in [
        "many_moves.kif: interpreter budget exceeded",
        limit,
        "(the legal moves of player)",
        "relation `legal/2`",
        &format!("raise it with {flag}"),
    ] {
        assert!(line.contains(part), "`{part}` missing from: {line}");
    }
    assert!(!stdout.contains("playouts/s"), "results printed: {stdout}");
}

#[test]
fn play_stops_the_many_moves_game_under_the_default_budget() {
    let out = gdl_codegen(&["play", MANY_MOVES, "--reasoner", "interpreter"]);
    assert_budget_failure(
        &out,
        "more than 1000000 answers in one query",
        "--max-answers",
    );
}

#[test]
fn max_answers_sets_the_answer_limit() {
    let out = gdl_codegen(&[
        "play",
        MANY_MOVES,
        "--reasoner",
        "interpreter",
        "--threads",
        "2",
        "--max-answers",
        "5000",
    ]);
    assert_budget_failure(&out, "more than 5000 answers in one query", "--max-answers");
}

#[test]
fn max_memory_mb_sets_the_memory_limit() {
    let out = gdl_codegen(&[
        "play",
        MANY_MOVES,
        "--reasoner",
        "interpreter",
        "--max-answers",
        "100000000",
        "--max-memory-mb",
        "20",
    ]);
    assert_budget_failure(
        &out,
        "more than 20 MB of memory in one query",
        "--max-memory-mb",
    );
}

#[test]
fn bench_and_simulate_stop_the_many_moves_game_too() {
    let bench = gdl_codegen(&[
        "bench",
        MANY_MOVES,
        "--reasoner",
        "interpreter",
        "--seconds",
        "0",
        "--max-answers",
        "5000",
    ]);
    assert_budget_failure(&bench, "more than 5000 answers", "--max-answers");
    let simulate = gdl_codegen(&[
        "check",
        MANY_MOVES,
        "--simulate",
        "3",
        "--reasoner",
        "interpreter",
        "--max-answers",
        "5000",
    ]);
    assert_budget_failure(&simulate, "more than 5000 answers", "--max-answers");
    let stdout = String::from_utf8_lossy(&simulate.stdout);
    assert!(!stdout.contains("simulated"), "findings printed: {stdout}");
}
