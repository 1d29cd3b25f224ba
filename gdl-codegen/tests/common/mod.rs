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
