//! Snapshots of the generated code of a few small games, so that every
//! change to the emitter shows in review. After an intended change, update
//! them with `INSTA_UPDATE=always cargo test -p gdl-codegen --test
//! compiled_snapshots` (or `cargo insta review`) and commit
//! `tests/snapshots/`.

use gdl_codegen::backend::ground::EmitOptions;
use gdl_codegen::codegen::{self, CodegenOptions};

/// The generated module of `path` (relative to the workspace), labelled by
/// that relative path so that the header does not depend on the checkout.
fn generated(path: &str, type_name: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let options = CodegenOptions {
        emit: EmitOptions {
            type_name: type_name.to_owned(),
            ..EmitOptions::default()
        },
        ..CodegenOptions::default()
    };
    codegen::generate(path, &bytes, &options)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .code
}

#[test]
fn tictactoe() {
    insta::assert_snapshot!(generated("examples/games/tictactoe.kif", "TicTacToe"));
}

/// A one-role GGP-Base test game.
#[test]
fn test_case_3a() {
    insta::assert_snapshot!(generated(
        "../shared/games/ggp-base/test/test_case_3a.kif",
        "TestCase3a"
    ));
}

/// A game without derived atoms: nothing to compute in any query.
#[test]
fn test_case_5a() {
    insta::assert_snapshot!(generated(
        "../shared/games/ggp-base/test/test_case_5a.kif",
        "TestCase5a"
    ));
}
