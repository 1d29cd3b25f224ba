//! Malformed descriptions, each with the diagnostics it must produce: code,
//! 1-based line and column of the primary span, and severity. The
//! expectations are written by hand from the rules of GDL and the span each
//! check documents (see `src/check.rs`), not recorded from a run.
//!
//! Every case lists *all* the diagnostics of its file, so noise (a second,
//! spurious report) fails as much as a missing one.

use gdl_codegen::front::diag::{codes, Diagnostic, Severity};
use gdl_codegen::front::source::SourceFile;
use gdl_codegen::front::syntax::Syntax;
use gdl_codegen::front::{self, Frontend, Options};

use Severity::{Error, Warning};

/// A small valid game, six lines; most cases append their problem after it,
/// so that it starts on line 7.
const BASE: &str = "\
(role r)
(init s)
(<= (legal r go) (true s))
(<= (next s) (does r go))
(<= terminal (true s))
(goal r 100)
";

/// One expected diagnostic: code, line, column, severity, and a piece of its
/// message (empty: not checked).
type Expect = (&'static str, usize, usize, Severity, &'static str);

struct Case {
    name: &'static str,
    syntax: Syntax,
    text: String,
    expect: Vec<Expect>,
}

fn kif(name: &'static str, text: impl Into<String>, expect: &[Expect]) -> Case {
    Case {
        name,
        syntax: Syntax::Kif,
        text: text.into(),
        expect: expect.to_vec(),
    }
}

/// A case whose problem follows [`BASE`] (so starts on line 7).
fn after_base(name: &'static str, extra: &str, expect: &[Expect]) -> Case {
    kif(name, format!("{BASE}{extra}"), expect)
}

fn infix(name: &'static str, text: &str, expect: &[Expect]) -> Case {
    Case {
        name,
        syntax: Syntax::Infix,
        text: text.to_owned(),
        expect: expect.to_vec(),
    }
}

fn check(name: &str, fe: &Frontend, expect: &[Expect]) {
    let got: Vec<(&str, usize, usize, Severity)> = fe
        .diagnostics
        .iter()
        .map(|d| {
            let (line, col) = fe.source.line_col(d.span.start as usize);
            (d.code, line, col, d.severity)
        })
        .collect();
    let want: Vec<_> = expect.iter().map(|e| (e.0, e.1, e.2, e.3)).collect();
    assert_eq!(
        got,
        want,
        "case `{name}`:\n{}",
        fe.render_diagnostics(false)
    );
    for (d, e) in fe.diagnostics.iter().zip(expect) {
        assert!(
            d.message.contains(e.4),
            "case `{name}`: message {:?} should contain {:?}",
            d.message,
            e.4
        );
        assert!(!d.label.is_empty(), "case `{name}`: {d:?} has no label");
    }
}

fn run(name: &str, text: &str, syntax: Syntax) -> Frontend {
    front::run(
        SourceFile::new(name, text),
        &Options {
            syntax: Some(syntax),
            ..Options::default()
        },
    )
}

fn cases() -> Vec<Case> {
    vec![
        // Reading.
        kif("base game is valid", BASE, &[]),
        after_base(
            "unclosed rule",
            "(<= (foo ?x)\n    (true (cell ?x))\n",
            &[(codes::UNCLOSED_PAREN, 7, 1, Error, "unclosed")],
        ),
        after_base(
            "unclosed literal inside an unclosed rule: the innermost is named",
            "(<= (foo ?x)\n    (true (cell ?x)\n",
            &[(codes::UNCLOSED_PAREN, 8, 5, Error, "unclosed")],
        ),
        after_base(
            "stray close",
            "(foo a))\n",
            &[(codes::STRAY_CLOSE, 7, 8, Error, "unmatched")],
        ),
        after_base(
            "stray variable at top level",
            "(foo a)\n  ?x\n",
            &[(codes::BAD_TOP_LEVEL, 8, 3, Error, "`?x`")],
        ),
        after_base(
            "stray arrow at top level",
            "<=\n",
            &[(codes::BAD_TOP_LEVEL, 7, 1, Error, "`<=`")],
        ),
        after_base(
            "rule without a head",
            "(<=)\n",
            &[(codes::BAD_FORM, 7, 1, Error, "head")],
        ),
        after_base(
            "variable as relation name",
            "(<= (foo a) (?x a))\n",
            &[(codes::BAD_FORM, 7, 14, Error, "relation name")],
        ),
        after_base(
            "a rule with an unreadable literal is dropped, not kept without it",
            "(<= (foo ?x) (true s) (?y ?x))\n",
            // Not also: `?x` unsafe (its binding literal is gone).
            &[(codes::BAD_FORM, 7, 24, Error, "relation name")],
        ),
        after_base(
            "a control character inside a fact",
            "(foo ab\u{1}c)\n",
            // Not also: a truncated `(foo)` with a zero-argument warning.
            &[(codes::BAD_CHAR, 7, 6, Error, "unexpected character")],
        ),
        after_base(
            "not with two arguments",
            "(<= (foo a) (true s) (not (true s) (true s)))\n",
            &[(codes::BAD_FORM, 7, 22, Error, "`not`")],
        ),
        after_base(
            "distinct with one argument",
            "(<= (foo a) (true s) (distinct a))\n",
            &[(codes::BAD_FORM, 7, 22, Error, "`distinct`")],
        ),
        kif("empty file", "", &[(codes::EMPTY, 1, 1, Error, "no rules")]),
        kif(
            "comments only",
            "; nothing here\n;; at all\n",
            &[(codes::EMPTY, 1, 1, Error, "no rules")],
        ),
        // Safety.
        after_base(
            "unsafe head variable",
            "(<= (foo ?x) (true s))\n",
            &[(codes::UNSAFE_HEAD, 7, 5, Error, "`?x`")],
        ),
        after_base(
            "unsafe variable in not",
            "(bar b)\n(<= (foo a) (true s) (not (bar ?y)))\n",
            // The span is the negated sentence.
            &[(codes::UNSAFE_NOT, 8, 27, Error, "`?y`")],
        ),
        after_base(
            "unsafe variable in distinct",
            "(<= (foo a) (true s) (distinct ?z a))\n",
            &[(codes::UNSAFE_DISTINCT, 7, 22, Error, "`?z`")],
        ),
        // Stratification and recursion.
        after_base(
            "negation cycle",
            "(<= p (true s) (not q))\n(<= q (true s) p)\n",
            &[(codes::NEG_CYCLE, 7, 21, Error, "p -> not q -> p")],
        ),
        after_base(
            "negation cycle through arguments only is a warning",
            "(<= (v 100) (true s) (not (v 0)))\n(<= (v 0) (true s))\n",
            &[(codes::NEG_CYCLE_NAMES, 7, 27, Warning, "`not v`")],
        ),
        after_base(
            "recursion restriction",
            "(<= (count z) (true s))\n(<= (count (f ?x)) (count ?x))\n",
            &[(codes::RECURSION, 8, 20, Error, "`?x`")],
        ),
        // Keywords.
        after_base(
            "true in a head",
            "(true q)\n",
            &[(codes::KEYWORD_MISUSE, 7, 1, Error, "`true` in the head")],
        ),
        after_base(
            "does in a head",
            "(<= (does r stop) (true s))\n",
            &[(codes::KEYWORD_MISUSE, 7, 5, Error, "`does` in the head")],
        ),
        after_base(
            "next in a body",
            "(<= (foo a) (next s))\n",
            &[(codes::KEYWORD_MISUSE, 7, 13, Error, "`next` in the body")],
        ),
        after_base(
            "init in a body",
            "(<= (foo a) (init s))\n",
            &[(codes::KEYWORD_MISUSE, 7, 13, Error, "`init` in the body")],
        ),
        after_base(
            "init depends on true",
            "(<= (init q) (true s))\n",
            &[(
                codes::KEYWORD_DEPENDENCY,
                7,
                14,
                Error,
                "`init` depends on `true`",
            )],
        ),
        after_base(
            "init depends on true through a helper",
            "(<= (init q) helper)\n(<= helper (true s))\n",
            &[(
                codes::KEYWORD_DEPENDENCY,
                8,
                12,
                Error,
                "init -> helper -> true",
            )],
        ),
        after_base(
            "legal depends on does",
            "(<= (legal r stop) (does r go))\n",
            &[(
                codes::KEYWORD_DEPENDENCY,
                7,
                20,
                Error,
                "`legal` depends on `does`",
            )],
        ),
        after_base(
            "role with a body",
            "(<= (role q) (true s))\n",
            &[(
                codes::KEYWORD_MISUSE,
                7,
                5,
                Error,
                "`role` defined by a rule",
            )],
        ),
        after_base(
            "keyword as a function",
            "(foo (true x))\n",
            &[(codes::KEYWORD_AS_FUNCTION, 7, 1, Error, "`true`")],
        ),
        after_base(
            "keyword with the wrong arity",
            "(<= (legal r) (true s))\n",
            &[(codes::KEYWORD_ARITY, 7, 5, Error, "`legal` takes 2")],
        ),
        after_base(
            "goal value above 100",
            "(goal r 101)\n",
            &[(codes::GOAL_VALUE, 7, 1, Error, "`101`")],
        ),
        after_base(
            "goal value not a number",
            "(goal r abc)\n",
            &[(codes::GOAL_VALUE, 7, 1, Error, "`abc`")],
        ),
        kif(
            "missing role",
            BASE.replace("(role r)\n", ""),
            &[(codes::MISSING, 1, 1, Error, "`role`")],
        ),
        kif(
            "missing legal",
            BASE.replace("(<= (legal r go) (true s))\n", ""),
            &[(codes::MISSING, 1, 1, Error, "`legal`")],
        ),
        kif(
            "missing terminal",
            BASE.replace("(<= terminal (true s))\n", ""),
            &[(codes::MISSING, 1, 1, Error, "`terminal`")],
        ),
        kif(
            "missing goal",
            BASE.replace("(goal r 100)\n", ""),
            &[(codes::MISSING, 1, 1, Error, "`goal`")],
        ),
        kif(
            "missing everything but a fact",
            "(foo a)\n",
            &[
                (codes::MISSING, 1, 1, Error, "`goal`"),
                (codes::MISSING, 1, 1, Error, "`legal`"),
                (codes::MISSING, 1, 1, Error, "`role`"),
                (codes::MISSING, 1, 1, Error, "`terminal`"),
            ],
        ),
        // Arities.
        after_base(
            "relation arity clash",
            "(foo a)\n(foo a b)\n",
            &[(codes::ARITY, 8, 1, Error, "relation `foo`")],
        ),
        after_base(
            "function arity clash",
            "(bar (f a))\n(bar (f a b))\n",
            &[(codes::ARITY, 8, 1, Error, "function `f`")],
        ),
        after_base(
            "relation used as a function",
            "(foo a)\n(bar (foo a))\n",
            &[(codes::REL_AND_FUNC, 8, 1, Warning, "`foo`")],
        ),
        // Infix.
        infix(
            "infix: missing `)`",
            "role(r)\nlegal(r, go :- true(s)\n",
            &[(codes::INFIX_SYNTAX, 2, 13, Error, "expected `,` or `)`")],
        ),
        infix(
            "infix: unclosed at the end of the file",
            "role(r)\nlegal(r,go) :- true(cell(1,2)\n",
            // `cell(1,2)` is closed; `true(` is not.
            &[(codes::INFIX_SYNTAX, 2, 20, Error, "unclosed")],
        ),
        infix(
            "infix: KIF variable",
            "role(r)\nlegal(r,?x) :- true(s)\n",
            &[(codes::INFIX_SYNTAX, 2, 9, Error, "`?`")],
        ),
        infix(
            "infix: missing `&`",
            "role(r)\nlegal(r,go) :- true(s) true(t)\n",
            &[(codes::INFIX_SYNTAX, 2, 24, Error, "`&`")],
        ),
        infix(
            "infix: unsafe head variable, checked like KIF",
            "role(r)\nlegal(r,X) :- true(s)\nterminal :- true(s)\ngoal(r,100)\n",
            &[(codes::UNSAFE_HEAD, 2, 1, Error, "`?X`")],
        ),
    ]
}

#[test]
fn each_malformed_input_gets_its_diagnostics() {
    for case in cases() {
        let fe = run(case.name, &case.text, case.syntax);
        check(case.name, &fe, &case.expect);
    }
}

#[test]
fn the_unclosed_paren_names_the_outer_form_too() {
    let fe = run(
        "t.kif",
        &format!("{BASE}(<= (foo ?x)\n    (true (cell ?x)\n"),
        Syntax::Kif,
    );
    let d = &fe.diagnostics[0];
    let related: Vec<_> = d
        .related
        .iter()
        .map(|(s, _)| fe.source.line_col(s.start as usize))
        .collect();
    assert_eq!(related, vec![(7, 1)]);
}

#[test]
fn the_negation_cycle_points_at_each_step() {
    let fe = run(
        "t.kif",
        &format!("{BASE}(<= p (true s) (not q))\n(<= q (true s) p)\n"),
        Syntax::Kif,
    );
    let d = &fe.diagnostics[0];
    let related: Vec<_> = d
        .related
        .iter()
        .map(|(s, _)| fe.source.line_col(s.start as usize))
        .collect();
    assert_eq!(related, vec![(8, 16)], "{d:#?}");
}

#[test]
fn binary_garbage_is_one_error() {
    let bytes = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\xff\xfe(((";
    let fe = front::run_bytes("a.out", bytes, &Options::default());
    let codes: Vec<_> = fe.diagnostics.iter().map(|d| d.code).collect();
    assert!(!fe.is_valid());
    assert_eq!(
        codes[0],
        codes::BAD_CHAR,
        "{}",
        fe.render_diagnostics(false)
    );
    assert_eq!(
        fe.source.line_col(fe.diagnostics[0].span.start as usize),
        (1, 1)
    );
    // One report for the bytes; the open parentheses at the end are a second.
    assert_eq!(codes, vec![codes::BAD_CHAR, codes::UNCLOSED_PAREN]);
}

#[test]
fn invalid_utf8_is_reported_where_it_is() {
    let mut bytes = BASE.as_bytes().to_vec();
    bytes.extend_from_slice(b"(foo caf\xe9)\n");
    let fe = front::run_bytes("latin1.kif", &bytes, &Options::default());
    check(
        "invalid utf-8",
        &fe,
        &[(codes::INVALID_UTF8, 7, 6, Error, "UTF-8")],
    );
}

#[test]
fn invalid_utf8_in_a_comment_is_reported_too() {
    let mut bytes = BASE.as_bytes().to_vec();
    bytes.extend_from_slice(b"; caf\xe9 au lait\n");
    let fe = front::run_bytes("latin1.kif", &bytes, &Options::default());
    check(
        "invalid utf-8 in a comment",
        &fe,
        &[(codes::INVALID_UTF8, 7, 6, Error, "UTF-8")],
    );
    let fe = front::run_bytes("latin1.hrf", b"role(r) % caf\xe9\n", &Options::default());
    assert_eq!(fe.diagnostics[0].code, codes::INVALID_UTF8);
}

/// Runs `f` on a thread with an ordinary 1 MiB stack, so that a reader that
/// recursed once per level of nesting would overflow.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic")
}

#[test]
fn deep_nesting_is_too_deep_not_a_stack_overflow() {
    const N: usize = 100_000;
    // KIF terms: the 513th `(` is the first too deep.
    let fe = on_small_stack(|| {
        let text = format!("(p {}a{})\n{BASE}", "(f ".repeat(N), ")".repeat(N));
        run("deep.kif", &text, Syntax::Kif)
    });
    check(
        "deep kif term",
        &fe,
        &[(codes::TOO_DEEP, 1, 1 + 512 * 3, Error, "nested")],
    );
    // KIF negations.
    let fe = on_small_stack(|| {
        let text = format!(
            "{BASE}(<= p (true s) {}q{})\n",
            "(not ".repeat(N),
            ")".repeat(N)
        );
        run("deep.kif", &text, Syntax::Kif)
    });
    assert_eq!(fe.diagnostics[0].code, codes::TOO_DEEP);
    assert!(fe.diagnostics.iter().all(|d| d.code == codes::TOO_DEEP));
    // Infix terms, negations and parentheses.
    for (open, close) in [("f(", ")"), ("~", ""), ("(", ")")] {
        let fe = on_small_stack(move || {
            let text = format!(
                "role(r)\np(x) :- {}q(a){}\nterminal :- p(x)\n",
                open.repeat(N),
                close.repeat(N)
            );
            run("deep.hrf", &text, Syntax::Infix)
        });
        let codes: Vec<_> = fe.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![codes::TOO_DEEP], "{open}");
    }
}

#[test]
fn a_50_mb_file_is_accepted() {
    let constant = "c".repeat(200);
    let mut text = String::with_capacity(51 << 20);
    text.push_str(BASE);
    let mut i = 0u64;
    while text.len() < 50 << 20 {
        use std::fmt::Write as _;
        let _ = writeln!(text, "(data {i} {constant})");
        i += 1;
    }
    let fe = front::run_bytes("big.kif", text.as_bytes(), &Options::default());
    assert!(
        fe.diagnostics.is_empty(),
        "{}",
        fe.render_diagnostics(false)
    );
    assert_eq!(fe.program.rules.len() as u64, 6 + i);
}

#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    let text =
        format!("{BASE}(<= (foo ?x) (true s))\n(goal r 101)\n(foo a))\n(<= (bar a) (next s))\n");
    let fe = run("many.kif", &text, Syntax::Kif);
    check(
        "three problems",
        &fe,
        &[
            (codes::UNSAFE_HEAD, 7, 5, Error, "`?x`"),
            (codes::GOAL_VALUE, 8, 1, Error, "`101`"),
            (codes::STRAY_CLOSE, 9, 8, Error, "unmatched"),
            (codes::KEYWORD_MISUSE, 10, 13, Error, "`next`"),
        ],
    );
}

#[test]
fn json_diagnostics_have_line_and_column() {
    let fe = run(
        "t.kif",
        &format!("{BASE}(<= (foo ?x) (true s))\n"),
        Syntax::Kif,
    );
    let d: &Diagnostic = &fe.diagnostics[0];
    let json = d.to_json(&fe.source);
    assert_eq!(json["code"], codes::UNSAFE_HEAD);
    assert_eq!(json["severity"], "error");
    assert_eq!(json["file"], "t.kif");
    assert_eq!(json["span"]["line"], 7);
    assert_eq!(json["span"]["column"], 5);
    assert_eq!(json["span"]["end_line"], 7);
    assert_eq!(json["span"]["end_column"], 13);
    assert!(json["message"].as_str().unwrap().contains("?x"));
    // And it is valid JSON text.
    let text = serde_json::to_string(&json).unwrap();
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, json);
}
