//! The infix reader against the KIF one: the example tic-tac-toe written in
//! infix (`examples/games/tictactoe.hrf`) reads without errors, prints as
//! KIF that reads back, and all three lower to the same program as the KIF
//! version (`examples/games/tictactoe.kif`).

use gdl_codegen::front::diag::{codes, Severity};
use gdl_codegen::front::ir::{Literal, Program};
use gdl_codegen::front::source::SourceFile;
use gdl_codegen::front::syntax::{self, print, Syntax};
use gdl_codegen::front::{self, Frontend, Options};

fn example(name: &str) -> SourceFile {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/games/").to_owned() + name;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    SourceFile::new(name, text)
}

fn run(source: SourceFile, syntax: Option<Syntax>) -> Frontend {
    let fe = front::run(
        source,
        &Options {
            syntax,
            ..Options::default()
        },
    );
    assert!(
        fe.diagnostics.is_empty(),
        "{}:\n{}",
        fe.source.name,
        fe.render_diagnostics(false)
    );
    fe
}

/// Each rule as one line of KIF with variables named by position (`?_0`,
/// `?_1` in order of first occurrence) and names lowercased, sorted: equal
/// for programs that differ only in rule order, variable names and case.
fn canonical(p: &Program) -> Vec<String> {
    let mut rules: Vec<String> = p
        .rules
        .iter()
        .map(|r| {
            let mut out = String::new();
            p.write_atom(&mut out, &r.head, None);
            out.push_str(" :-");
            for lit in &r.body {
                out.push(' ');
                match lit {
                    Literal::Pos(a) => p.write_atom(&mut out, a, None),
                    Literal::Neg(a) => {
                        out.push_str("(not ");
                        p.write_atom(&mut out, a, None);
                        out.push(')');
                    }
                    Literal::Distinct(a, b, _) => {
                        out.push_str("(distinct ");
                        p.write_term(&mut out, a, None);
                        out.push(' ');
                        p.write_term(&mut out, b, None);
                        out.push(')');
                    }
                }
            }
            out.to_lowercase()
        })
        .collect();
    rules.sort();
    rules
}

#[test]
fn hrf_files_are_read_as_infix() {
    assert_eq!(Syntax::from_path("games/tictactoe.hrf"), Syntax::Infix);
    assert_eq!(Syntax::from_path("GAMES/TICTACTOE.HRF"), Syntax::Infix);
    assert_eq!(Syntax::from_path("tictactoe.kif"), Syntax::Kif);
    assert_eq!(Syntax::from_path("hrf"), Syntax::Kif);
    assert!(Syntax::Infix.is_case_sensitive());
    // The syntax is picked from the name when none is given.
    let fe = run(example("tictactoe.hrf"), None);
    assert_eq!(fe.program.roles().len(), 2);
}

#[test]
fn infix_tictactoe_is_the_kif_tictactoe() {
    let kif = run(example("tictactoe.kif"), Some(Syntax::Kif));
    let infix = run(example("tictactoe.hrf"), Some(Syntax::Infix));
    let expected = canonical(&kif.program);
    assert_eq!(canonical(&infix.program), expected);

    // Infix → KIF text → KIF reader: the same AST printed, the same program.
    let printed = print::to_kif(&infix.ast);
    assert!(printed.contains("(<= (legal ?P (mark ?X ?Y))"), "{printed}");
    let (reread, diags) = syntax::parse(&printed, Syntax::Kif);
    assert!(diags.is_empty(), "{diags:#?}\n{printed}");
    assert_eq!(print::to_kif(&reread), printed);
    let via_kif = run(SourceFile::new("printed.kif", printed), Some(Syntax::Kif));
    assert_eq!(canonical(&via_kif.program), expected);
}

#[test]
fn infix_spans_point_at_the_source() {
    let fe = run(example("tictactoe.hrf"), None);
    for rule in &fe.ast.rules {
        let text = fe.source.slice(rule.head.span);
        assert!(text.starts_with(&*rule.head.name.text), "{text}");
        assert_eq!(fe.source.slice(rule.head.name.span), &*rule.head.name.text);
    }
    let legal = fe
        .ast
        .rules
        .iter()
        .find(|r| r.head.name.text.as_ref() == "legal")
        .expect("a legal rule");
    assert_eq!(
        fe.source.slice(legal.span),
        "legal(P,mark(X,Y)) :-\n    true(cell(X,Y,b)) &\n    true(control(P))"
    );
    let (line, col) = fe.source.line_col(legal.span.start as usize);
    assert_eq!((line, col), (20, 1));
}

#[test]
fn infix_errors_have_positions_and_are_all_reported() {
    let text = "role(a)\nlegal(a, noop :- true(x)\nrole(b)\nnext(x) :- ~\n?x\ngoal(a,100) :- p q\n";
    let (_, diags) = syntax::parse(text, Syntax::Infix);
    let file = SourceFile::new("bad.hrf", text);
    let mut got: Vec<_> = diags
        .iter()
        .map(|d| {
            let (l, c) = file.line_col(d.span.start as usize);
            (d.code, l, c, d.severity)
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (codes::INFIX_SYNTAX, 2, 15, Severity::Error),
            // `?x` on the next line: the lexer's report covers the broken rule.
            (codes::INFIX_SYNTAX, 5, 1, Severity::Error),
            (codes::INFIX_SYNTAX, 6, 18, Severity::Error),
        ],
        "{diags:#?}"
    );
}

#[test]
fn kif_given_to_the_infix_reader_gets_a_hint() {
    let (_, diags) = syntax::parse("(role white)\n(role black)\n", Syntax::Infix);
    // One report: the rest of a KIF file is skipped, not reported line by line.
    assert_eq!(diags.len(), 1);
    assert!(diags[0].notes[0].contains("KIF"), "{diags:#?}");
}
