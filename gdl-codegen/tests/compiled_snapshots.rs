//! Snapshots of the generated code of a few small games, so that every
//! change to the emitter shows in review. After an intended change, update
//! them with `INSTA_UPDATE=always cargo test -p gdl-codegen --test
//! compiled_snapshots` (or `cargo insta review`) and commit
//! `tests/snapshots/`.

use gdl_codegen::backend::ground::EmitOptions;
use gdl_codegen::session::{self, CodegenOptions};

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
    session::generate(path, &bytes, &options)
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

/// The bitnet summary and the generated module of a fixture of
/// `tests/fixtures/`, with the rule tables taking atoms of more than
/// `table_threshold` body literals (`None`: the default).
fn fixture(name: &str, table_threshold: Option<usize>) -> (String, String) {
    let path = format!("gdl-codegen/tests/fixtures/{name}.kif");
    let full = format!("{}/tests/fixtures/{name}.kif", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let fe = gdl_codegen::front::run_bytes(&path, &bytes, &Default::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    let gp = gdl_codegen::ground::ground(&fe.program, &Default::default()).expect("grounds");
    let net = gdl_codegen::backend::ground::Compiled::new(&gp).net;
    let options = CodegenOptions {
        emit: EmitOptions {
            type_name: "Fixture".to_owned(),
            rule_table_threshold: table_threshold,
            ..EmitOptions::default()
        },
        ..CodegenOptions::default()
    };
    let code = session::generate(&path, &bytes, &options)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .code;
    (net.summary(), code)
}

/// Frame rules as keep tables, one-move bodies dispatched, legal moves
/// under the side to move.
#[test]
fn fixture_marks() {
    let (summary, code) = fixture("marks", None);
    insta::assert_snapshot!("marks_bitnet", summary);
    insta::assert_snapshot!("marks_code", code);
}

/// Move sets as bits, a body set by the move tables alone.
#[test]
fn fixture_moves() {
    let (summary, code) = fixture("moves", None);
    insta::assert_snapshot!("moves_bitnet", summary);
    insta::assert_snapshot!("moves_code", code);
}

/// Inlining, substitution under a guard, demand tests; with the rule-table
/// threshold at one literal, atoms of several bodies go to the rule tables.
#[test]
fn fixture_demand_with_rule_tables() {
    let (summary, code) = fixture("demand", Some(1));
    insta::assert_snapshot!("demand_bitnet", summary);
    assert!(code.contains("static BODY_LITERALS"), "the rule-table path");
    insta::assert_snapshot!("demand_code_tables", code);
}
