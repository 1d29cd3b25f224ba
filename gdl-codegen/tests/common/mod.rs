//! Helpers shared by the integration tests: where the shared corpus lives.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

/// The shared directory (`../shared` next to the repository).
pub fn shared() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"))
}

/// The game corpus.
pub fn games() -> PathBuf {
    shared().join("games")
}

/// Every `.kif`/`.lisp` file of the corpus, as paths relative to `games()`, sorted.
pub fn corpus_files() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![games()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("kif" | "lisp")
            ) {
                let rel = path.strip_prefix(games()).expect("prefix");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// A small game whose rules `n` tells apart (nim from `n` sticks): as many
/// distinct games as numbers, for the loader's tests.
pub fn nim(n: u32) -> String {
    let succ: String = (0..n).map(|i| format!("(succ {i} {})", i + 1)).collect();
    format!(
        "(role a) (role b) (init (sticks {n})) (init (control a)) {succ}
         (<= (legal ?p take) (true (control ?p)))
         (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
         (<= (next (sticks ?m)) (does ?p take) (true (sticks ?k)) (succ ?m ?k))
         (<= (next (control b)) (true (control a)))
         (<= (next (control a)) (true (control b)))
         (<= terminal (true (sticks 0)))
         (<= (goal ?p 100) (true (control ?p)) (true (sticks 0)))
         (<= (goal ?p 0) (role ?p) (not (true (control ?p))))"
    )
}

/// Runs the `gdl-codegen` binary with `args`, which must succeed.
pub fn gdl_codegen(args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gdl-codegen"))
        .args(args)
        .output()
        .expect("run gdl-codegen");
    assert!(
        out.status.success(),
        "gdl-codegen {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
