//! Every game of the shared corpus is read and checked, and the verdict is
//! compared, file by file, with GGP-Base's static validator
//! (`shared/games/notes/ggp-base-validator.tsv`).

mod common;

use gdl_codegen::front::diag::codes;
use gdl_codegen::front::{self, Options};

/// What we expect of a file, from the validator's verdict.
#[derive(Debug, PartialEq)]
enum Expect {
    Accept,
    /// Accepted, with the warning that normalises `(not (distinct ..))`.
    AcceptNotDistinct,
    /// Rejected with at least one error of one of these codes.
    Reject(&'static [&'static str]),
}

const UNSAFE: &[&str] = &[
    codes::UNSAFE_HEAD,
    codes::UNSAFE_NOT,
    codes::UNSAFE_DISTINCT,
];

fn expectation(file: &str, verdict: &str) -> Expect {
    if file.contains("test_invalid_") && file.contains("arities_differ") {
        // GGP-Base only warns; we reject arity clashes.
        return Expect::Reject(&[codes::ARITY]);
    }
    let Some(reason) = verdict.strip_prefix("INVALID") else {
        return Expect::Accept;
    };
    if reason.contains("Unsafe rule") {
        Expect::Reject(UNSAFE)
    } else if reason.contains("keyword") {
        Expect::Reject(&[codes::KEYWORD_AS_FUNCTION, codes::KEYWORD_MISUSE])
    } else if reason.contains("Recursion") {
        Expect::Reject(&[codes::RECURSION])
    } else if reason.contains("Only sentences may be negated") {
        Expect::AcceptNotDistinct
    } else {
        panic!("{file}: verdict not understood by this test: {verdict}")
    }
}

#[test]
fn every_corpus_file_gets_the_validator_verdict() {
    let tsv = std::fs::read_to_string(common::games().join("notes/ggp-base-validator.tsv"))
        .expect("validator verdicts");
    let verdicts: std::collections::HashMap<&str, &str> = tsv
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once('\t'))
        .collect();
    let files = common::corpus_files();
    assert!(files.len() >= 450, "corpus has {} files", files.len());
    let mut failures = Vec::new();
    let (mut accepted, mut rejected) = (0, 0);
    for file in &files {
        let verdict = verdicts
            .get(file.as_str())
            .unwrap_or_else(|| panic!("{file} has no validator verdict"));
        let bytes = std::fs::read(common::games().join(file)).expect("read game");
        let fe = front::run_bytes(file, &bytes, &Options::default());
        let errors: Vec<&str> = fe
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        let expect = expectation(file, verdict);
        let ok = match &expect {
            Expect::Accept => errors.is_empty(),
            Expect::AcceptNotDistinct => {
                errors.is_empty() && fe.diagnostics.iter().any(|d| d.code == codes::NOT_DISTINCT)
            }
            Expect::Reject(wanted) => errors.iter().any(|c| wanted.contains(c)),
        };
        if errors.is_empty() {
            accepted += 1;
        } else {
            rejected += 1;
        }
        if !ok {
            failures.push(format!(
                "{file}: expected {expect:?}, got errors {errors:?}\n{}",
                fe.render_diagnostics(false)
                    .lines()
                    .take(12)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} file(s) disagree:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // 11 files the validator rejects (two of them only for `not distinct`,
    // which we accept) plus the two arity test files.
    assert_eq!(rejected, 13, "accepted {accepted}, rejected {rejected}");
}

#[test]
fn case_is_folded_by_default_and_kept_apart_on_request() {
    let text = "(ROLE White) (role white) (init (Cell 1)) (<= terminal (TRUE (cell 1))) \
                (<= (legal white noop)) (<= (goal white 100))";
    let fe = front::run(
        gdl_codegen::front::source::SourceFile::new("t.kif", text),
        &Options::default(),
    );
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    let roles = fe.program.roles();
    assert_eq!(roles.len(), 1);
    assert_eq!(
        fe.program.symbols.name(roles[0]),
        "White",
        "first spelling is shown"
    );

    let cs = Options {
        case_sensitive: true,
        ..Options::default()
    };
    let fe = front::run(
        gdl_codegen::front::source::SourceFile::new("t.kif", text),
        &cs,
    );
    assert_eq!(fe.program.roles().len(), 2, "White and white are two roles");
}
