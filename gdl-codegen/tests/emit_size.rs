//! Generated code stays linear in the ground rules, with a small constant,
//! on the corpus games whose unrolled code once grew far past it: Quarto's
//! line of four over every choice of pieces (rule tables), skirmish's capture
//! counters (one statement per move and counter value when every move had its
//! own copy), Stanford hex (7 000 fluents, 1.9 M literals).
//!
//! Sizes only: building and running such modules is the corpus run's job
//! (`scripts/compiled-corpus.sh`); `compiled_agreement.rs` builds Quarto.

use gdl_codegen::backend::ground::{self as emit, EmitOptions};
use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget};

/// Bytes of code allowed per ground rule literal, and in all besides: a
/// test of a few dozen bytes covers the literals of a word, and atoms with
/// many bodies go to the rule tables.
const CODE_BYTES_PER_LITERAL: usize = 1;
const FIXED_BYTES: usize = 1 << 20;

/// Bytes of rule tables allowed per ground rule literal: a number and a
/// comma.
const TABLE_BYTES_PER_LITERAL: usize = 12;

/// Generates `path` (under the shared corpus): the sizes of its code and of
/// its rule tables, in bytes, and its ground literals.
fn sizes(path: &str) -> (usize, usize, usize) {
    let full = format!("{}/../../shared/games/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let fe = front::run_bytes(path, &bytes, &Options::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    let gp = ground::ground(&fe.program, &Budget::default()).expect("grounds");
    // Sizes are asked of games over the build budget too (skirmish).
    let opts = EmitOptions {
        max_code_tests: usize::MAX,
        ..EmitOptions::default()
    };
    let code = emit::emit(&gp, &opts).expect("compiles");
    // The tables are printed last, after their doc comment.
    let tables = code
        .find("/// Where each body of the rule tables starts")
        .map_or(0, |at| code.len() - at);
    (code.len() - tables, tables, gp.num_literals())
}

fn assert_linear(path: &str) {
    let (code, tables, literals) = sizes(path);
    assert!(
        code <= CODE_BYTES_PER_LITERAL * literals + FIXED_BYTES,
        "{path}: {code} bytes of code for {literals} ground literals"
    );
    assert!(
        tables <= TABLE_BYTES_PER_LITERAL * literals,
        "{path}: {tables} bytes of rule tables for {literals} ground literals"
    );
}

#[test]
fn quarto_is_linear() {
    assert_linear("ggp-repository-base/quartoSuicide.kif");
}

#[test]
fn skirmish_is_linear() {
    assert_linear("ggp-repository-base/skirmish.kif");
}

#[test]
fn stanford_hex_is_linear() {
    assert_linear("stanford-via-chiaras/hex.kif");
}
