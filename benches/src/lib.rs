//! Shared helpers for the benchmarks in `benches/`.

/// Path of the shared game corpus, relative to the workspace root.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");

/// The propnet of the repository game `ggp-repository-base/{rel}.kif` of
/// the shared corpus; panics if the game cannot be read or does not ground.
pub fn propnet(rel: &str) -> gdl_codegen::reasoner::propnet::Propnet {
    use gdl_codegen::front::{self, Options};
    use gdl_codegen::ground::{self, Budget};
    let path = format!("{CORPUS}/ggp-repository-base/{rel}.kif");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    let program = fe.valid_program().expect("valid game");
    gdl_codegen::reasoner::propnet::Propnet::new(
        &ground::ground(program, &Budget::default()).expect("grounds"),
    )
}
