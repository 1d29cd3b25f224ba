//! The chess of the GGP repository (`ggp-repository-base/chess.kif`), which
//! does not ground within any reasonable budget, compiled by the lifted back
//! end through the `gdl!` macro and through `Builder`: the macro's game
//! agrees with the interpreter on seeded random matches, and `Builder`
//! writes the same module.

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_codegen::{Backend, Builder};
use gdl_runtime::{record, replay, Game};

gdl_macro::gdl! {
    /// The GGP repository's chess, compiled by the lifted back end.
    mod ggp_chess;
    struct GgpChess;
    include "../../shared/games/ggp-repository-base/chess.kif";
    backend = lifted;
}

const CHESS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/games/ggp-repository-base/chess.kif"
);

#[test]
fn lifted_chess_agrees_with_the_interpreter() {
    let game = ggp_chess::GgpChess;
    let mut legal = Vec::new();
    game.legal_moves(&game.initial_state(), 0, &mut legal);
    assert_eq!(legal.len(), 20, "white's first moves");
    // Random matches end only at the step limit, 200 plies on: a few
    // dozen plies of two matches already cover captures and checks.
    let trace = record(&game, 2, 11, 40);
    let bytes = std::fs::read(CHESS).expect("read chess.kif");
    let fe = front::run_bytes(CHESS, &bytes, &Options::default());
    let interp = Interpreter::new(&fe.program).expect("the interpreter takes chess");
    if let Err(d) = replay(&interp, &trace) {
        panic!("the interpreter disagrees with the lifted chess: {d}");
    }
}

#[test]
fn builder_writes_the_lifted_chess() {
    let dir = std::env::temp_dir().join(format!("gdl-lifted-chess-{}", std::process::id()));
    let path = Builder::new()
        .out_dir(&dir)
        .type_name("GgpChess")
        .backend(Backend::Lifted)
        .compile(CHESS)
        .expect("Builder compiles chess.kif with the lifted back end");
    let code = std::fs::read_to_string(&path).expect("read the module");
    assert!(code.contains("compiled by gdl-codegen's lifted back end"));
    assert!(code.contains("impl ::gdl_runtime::Game for GgpChess"));
    let _ = std::fs::remove_dir_all(&dir);
}
