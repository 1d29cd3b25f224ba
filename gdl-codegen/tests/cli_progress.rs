//! What the command line shows of a compile: the `--timings` table of its
//! stages, and no progress lines when standard error is not a terminal or
//! with `--quiet` (the tests' standard error is a pipe).

mod common;

use std::path::PathBuf;

use common::gdl_codegen;

fn tictactoe() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/games/tictactoe.kif")
        .display()
        .to_string()
}

/// Whether `text` holds anything a progress line draws: a carriage return,
/// an escape sequence, or a stage's "done in" line.
fn has_progress(text: &str) -> bool {
    text.contains('\r') || text.contains('\u{1b}') || text.contains(" done in ")
}

/// The first word of each line of the `--timings` table in `stderr`.
fn table_rows(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .skip_while(|l| *l != "timings:")
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn emit_timings_list_every_stage_and_no_progress_off_a_terminal() {
    let out = gdl_codegen(&["emit", &tictactoe(), "--timings"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!has_progress(&stderr), "{stderr}");
    assert_eq!(
        table_rows(&stderr),
        ["check", "ground", "fixpoint", "plan", "print", "format", "total"],
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("impl ::gdl_runtime::Game for"));
}

#[test]
fn quiet_emit_shows_no_notes_and_no_progress() {
    let out = gdl_codegen(&["emit", &tictactoe(), "--quiet"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, "", "only diagnostics, and tic-tac-toe has none");
    let loud = gdl_codegen(&["emit", &tictactoe()]);
    assert!(String::from_utf8_lossy(&loud.stderr).contains("note: ground back end"));
}

#[test]
fn a_compiled_play_times_its_build_once() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_progress_play");
    let cache = cache.display().to_string();
    let game = tictactoe();
    let play = || {
        let args = [
            "play",
            &game,
            "--reasoner",
            "compiled",
            "--playouts",
            "10",
            "--timings",
            "-q",
            "--cache-dir",
            &cache,
        ];
        let out = gdl_codegen(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!has_progress(&stderr), "{stderr}");
        assert!(!stderr.contains("note:"), "{stderr}");
        table_rows(&stderr)
    };
    let first = play();
    assert!(first.contains(&"check".to_owned()), "{first:?}");
    // With its library taken out of the cache, the game is built again;
    // a third run finds it there: nothing to build.
    let _ = std::fs::remove_dir_all(PathBuf::from(&cache).join("libs"));
    let rebuilt = play();
    assert!(rebuilt.contains(&"build".to_owned()), "{rebuilt:?}");
    let cached = play();
    assert!(!cached.contains(&"build".to_owned()), "{cached:?}");
}
