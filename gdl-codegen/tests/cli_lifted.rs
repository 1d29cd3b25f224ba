//! `--reasoner lifted` on the command line: the lifted back end's compiled
//! code beside the ground back end's in one run, with the same seeded
//! matches.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::gdl_codegen;

/// Our tic-tac-toe, which grounds, so both back ends compile it.
fn tictactoe() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/games/tictactoe.kif")
        .display()
        .to_string()
}

/// A compiled-game cache of test `name`'s own, shared by its commands (the
/// tests run in parallel).
fn cache_dir(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_lifted_{name}"));
    dir.display().to_string()
}

/// The summary line of `play`, without its timing: matches, length, goals.
fn outcome(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().expect("a summary line");
    let length = line.find("average length").expect("an average length");
    line[length..].to_owned()
}

/// `play game --reasoner reasoner` with `options`, in the compiled-game
/// cache `cache`.
fn play(game: &str, cache: &str, reasoner: &str, options: &[&str]) -> Output {
    let mut args = vec!["play", game, "--reasoner", reasoner, "--cache-dir", cache];
    args.extend_from_slice(options);
    gdl_codegen(&args)
}

#[test]
fn lifted_and_ground_play_the_same_seeded_matches() {
    let (game, cache) = (tictactoe(), cache_dir("play"));
    let options = ["--backend", "ground", "--playouts", "50", "--seed", "7"];
    let play = |reasoner: &str| play(&game, &cache, reasoner, &options);
    let (lifted, ground) = (play("lifted"), play("compiled"));
    assert_eq!(outcome(&lifted), outcome(&ground));
    assert!(outcome(&lifted).contains("goals"), "{}", outcome(&lifted));
}

#[test]
fn bench_reports_lifted_beside_ground() {
    let (game, cache) = (tictactoe(), cache_dir("bench"));
    let out = gdl_codegen(&[
        "bench",
        &game,
        "--reasoner",
        "lifted",
        "--reasoner",
        "compiled",
        "--backend",
        "ground",
        "--seconds",
        "0.2",
        "--json",
        "--cache-dir",
        &cache,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split("\"reasoner\":\"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(names, ["lifted", "compiled"], "{text}");
}

/// A static relation too large to derive at compile time, used only as a
/// bound test, is left to run time: the game compiles lifted and plays the
/// interpreter's matches.
#[test]
fn a_relation_too_large_to_derive_is_evaluated_at_run_time() {
    let game = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/deferred_filter.kif")
        .display()
        .to_string();
    let cache = cache_dir("deferred");
    let options = ["--max-rules", "200000", "--playouts", "200", "--seed", "3"];
    plays_as_interpreted(&game, &cache, &options, "goals: walker");
}

/// `play` with `options` gives the same matches lifted as interpreted, and
/// its summary reports `goals`.
fn plays_as_interpreted(game: &str, cache: &str, options: &[&str], goals: &str) {
    let play = |reasoner: &str| play(game, cache, reasoner, options);
    let (lifted, interpreted) = (play("lifted"), play("interpreter"));
    assert_eq!(outcome(&lifted), outcome(&interpreted));
    assert!(outcome(&lifted).contains(goals), "{}", outcome(&lifted));
}

/// laikLee_hex's rules build lists at run time: `connection` walks the
/// board keeping the cells it has visited in a list, which `append_el`
/// extends and `isList` (lists of up to 25 cells: no compile-time universe
/// holds them) checks. The lifted back end leaves them to run time, with
/// the terms they build in the evaluation's store, kept from state to state
/// with what `append_el` and `isList` (which hold in every state) computed
/// over them: the game compiles, plays the interpreter's seeded matches
/// (a thousand, some twenty thousand states reading the kept tables) and
/// replays GGP-Base's trace.
#[test]
fn a_game_building_lists_at_run_time_compiles_lifted() {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let game = shared.join("games/ggp-repository-base/laikLee_hex.kif");
    let trace = shared.join("conformance/ggp-repository-base/laikLee_hex.trace");
    let (game, trace) = (game.display().to_string(), trace.display().to_string());
    let cache = cache_dir("lists");
    let options = ["--playouts", "1000", "--seed", "5"];
    plays_as_interpreted(&game, &cache, &options, "goals: blue");
    let replay = gdl_codegen(&[
        "replay",
        &game,
        &trace,
        "--reasoner",
        "lifted",
        "--cache-dir",
        &cache,
    ]);
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(text.contains(": ok: 2 match(es)"), "{text}");
}
