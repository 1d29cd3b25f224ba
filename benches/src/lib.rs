//! Shared helpers for the benchmarks in `benches/`.

/// Path of the shared game corpus, relative to the workspace root.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");
