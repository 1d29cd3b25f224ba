//! Properties of the readers:
//!
//! - no input, however broken, makes the front end panic (arbitrary bytes,
//!   and strings over GDL's own punctuation, in both syntaxes), and every
//!   diagnostic renders;
//! - a random well-formed description, printed as KIF by `print::to_kif`,
//!   or written out with random whitespace, comments and keyword case, or
//!   written as infix, reads back as the same AST (spans aside).

use gdl_codegen::front::source::Span;
use gdl_codegen::front::syntax::ast::{Description, Ident, Literal, Rule, Sentence, Term};
use gdl_codegen::front::syntax::{self, print, Syntax};
use gdl_codegen::front::{self, Options};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Nothing panics.

fn run_all(bytes: &[u8]) {
    for (name, syntax) in [("p.kif", Syntax::Kif), ("p.hrf", Syntax::Infix)] {
        let fe = front::run_bytes(
            name,
            bytes,
            &Options {
                syntax: Some(syntax),
                ..Options::default()
            },
        );
        for d in &fe.diagnostics {
            assert!(d.span.start <= d.span.end);
            assert!(d.span.end as usize <= fe.source.text.len(), "{d:?}");
            let _ = d.render(&fe.source, false);
            let _ = d.to_json(&fe.source);
        }
        if fe.is_valid() {
            // A valid description prints as KIF that is valid too.
            let printed = print::to_kif(&fe.ast);
            let again = front::run_bytes(
                "again.kif",
                printed.as_bytes(),
                &Options {
                    syntax: Some(Syntax::Kif),
                    // Infix names are case-sensitive; keep them apart in KIF too.
                    case_sensitive: syntax == Syntax::Infix,
                },
            );
            assert!(
                again.is_valid(),
                "{printed}\n{}",
                again.render_diagnostics(false)
            );
        }
    }
}

/// Text made mostly of the characters both syntaxes care about.
fn gdl_noise() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("("),
            Just(")"),
            Just("(<= "),
            Just("<="),
            Just(":-"),
            Just("?x"),
            Just("X"),
            Just("_"),
            Just("p"),
            Just("role"),
            Just("(role r)"),
            Just("legal"),
            Just("true"),
            Just("not"),
            Just("or"),
            Just("distinct"),
            Just("~"),
            Just("-"),
            Just("&"),
            Just("|"),
            Just(","),
            Just("."),
            Just("!="),
            Just("101"),
            Just(" "),
            Just("\n"),
            Just(";"),
            Just("%"),
            Just("//"),
            Just("\u{0}"),
            Just("é"),
            Just("\u{FFFD}"),
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        run_all(&bytes);
    }

    #[test]
    fn gdl_like_noise_never_panics(text in gdl_noise()) {
        run_all(text.as_bytes());
    }
}

// ---------------------------------------------------------------------------
// Well-formed descriptions read back.

fn ident(text: &str) -> Ident {
    Ident {
        text: text.into(),
        span: Span::default(),
    }
}

/// Gives a name a random case after its first character (which decides
/// between variable and constant in infix).
fn cased(name: &'static str) -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<bool>(), name.len()).prop_map(move |upper| {
        name.chars()
            .zip(upper)
            .enumerate()
            .map(|(i, (c, u))| {
                if i > 0 && u {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    })
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        cased("cell"),
        cased("mark"),
        cased("p"),
        cased("q2"),
        cased("line_x"),
        cased("f"),
        cased("control"),
    ]
}

fn constant() -> impl Strategy<Value = String> {
    prop_oneof![
        name(),
        Just("0".to_owned()),
        Just("100".to_owned()),
        Just("3".to_owned())
    ]
}

fn variable() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("?X"),
        Just("?Y2"),
        Just("?Zed"),
        Just("?_w"),
        Just("?P")
    ]
    .prop_map(str::to_owned)
}

fn term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        variable().prop_map(|v| Term::Var(ident(&v))),
        constant().prop_map(|c| Term::Const(ident(&c))),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        (name(), proptest::collection::vec(inner, 0..4)).prop_map(|(f, args)| Term::Func {
            name: ident(&f),
            args,
            span: Span::default(),
        })
    })
}

fn sentence() -> impl Strategy<Value = Sentence> {
    (
        name(),
        proptest::collection::vec(term(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(n, args, parens)| Sentence {
            name: ident(&n),
            parens: parens && args.is_empty(),
            args,
            span: Span::default(),
        })
}

fn literal() -> impl Strategy<Value = Literal> {
    let leaf = prop_oneof![
        3 => sentence().prop_map(Literal::Atom),
        1 => (term(), term()).prop_map(|(a, b)| Literal::Distinct(a, b, Span::default())),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|l| Literal::Not(Box::new(l), Span::default())),
            proptest::collection::vec(inner, 1..4).prop_map(|ls| Literal::Or(ls, Span::default())),
        ]
    })
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        sentence(),
        proptest::collection::vec(literal(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(head, body, implication)| Rule {
            implication: implication || !body.is_empty(),
            head,
            body,
            span: Span::default(),
        })
}

fn description() -> impl Strategy<Value = Description> {
    proptest::collection::vec(rule(), 0..8).prop_map(|rules| Description { rules })
}

// Span erasure.

fn erase_ident(i: &Ident) -> Ident {
    ident(&i.text)
}

fn erase_term(t: &Term) -> Term {
    match t {
        Term::Var(i) => Term::Var(erase_ident(i)),
        Term::Const(i) => Term::Const(erase_ident(i)),
        Term::Func { name, args, .. } => Term::Func {
            name: erase_ident(name),
            args: args.iter().map(erase_term).collect(),
            span: Span::default(),
        },
    }
}

fn erase_sentence(s: &Sentence) -> Sentence {
    Sentence {
        name: erase_ident(&s.name),
        args: s.args.iter().map(erase_term).collect(),
        parens: s.parens,
        span: Span::default(),
    }
}

fn erase_literal(l: &Literal) -> Literal {
    let none = Span::default();
    match l {
        Literal::Atom(s) => Literal::Atom(erase_sentence(s)),
        Literal::Not(inner, _) => Literal::Not(Box::new(erase_literal(inner)), none),
        Literal::Distinct(a, b, _) => Literal::Distinct(erase_term(a), erase_term(b), none),
        Literal::Or(ls, _) => Literal::Or(ls.iter().map(erase_literal).collect(), none),
    }
}

fn erase(d: &Description) -> Description {
    Description {
        rules: d
            .rules
            .iter()
            .map(|r| Rule {
                head: erase_sentence(&r.head),
                body: r.body.iter().map(erase_literal).collect(),
                implication: r.implication,
                span: Span::default(),
            })
            .collect(),
    }
}

/// Checks that every span of `d` lies in `text` and covers what it names.
fn check_spans(d: &Description, text: &str) {
    for r in &d.rules {
        assert!(r.span.end as usize <= text.len());
        let head = &text[r.head.name.span.range()];
        let name = r.head.name.text.trim_start_matches('?');
        assert_eq!(head, name);
        assert!(r.head.span.start >= r.span.start && r.head.span.end <= r.span.end);
    }
}

// A noisy KIF writer: random whitespace, comments and keyword case.

struct Noise<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Noise<'_> {
    fn next(&mut self) -> u8 {
        let b = self.bytes.get(self.at % self.bytes.len().max(1)).copied();
        self.at += 1;
        b.unwrap_or(0)
    }

    fn space(&mut self, out: &mut String, required: bool) {
        let s = match self.next() % 8 {
            0 => "\n",
            1 => "\t",
            2 => "  ",
            3 => " ; a comment (with (parens\n",
            4 => "\r\n ",
            5 if !required => "",
            _ => " ",
        };
        out.push_str(if required && s.is_empty() { " " } else { s });
    }

    fn infix_space(&mut self, out: &mut String) {
        out.push_str(match self.next() % 6 {
            0 => "\n",
            1 => "\t",
            2 => " % a comment (with (parens\n",
            3 => " // another ~ & |\n  ",
            4 => "",
            _ => " ",
        });
    }

    fn keyword(&mut self, kw: &str) -> String {
        match self.next() % 3 {
            0 => kw.to_owned(),
            1 => kw.to_ascii_uppercase(),
            _ => {
                let mut s = kw.to_owned();
                s[..1].make_ascii_uppercase();
                s
            }
        }
    }

    fn term(&mut self, out: &mut String, t: &Term) {
        match t {
            Term::Var(i) | Term::Const(i) => out.push_str(&i.text),
            Term::Func { name, args, .. } => {
                out.push('(');
                self.space(out, false);
                out.push_str(&name.text);
                for a in args {
                    self.space(out, true);
                    self.term(out, a);
                }
                self.space(out, false);
                out.push(')');
            }
        }
    }

    fn sentence(&mut self, out: &mut String, s: &Sentence) {
        if s.args.is_empty() && !s.parens {
            out.push_str(&s.name.text);
            return;
        }
        self.term(
            out,
            &Term::Func {
                name: s.name.clone(),
                args: s.args.clone(),
                span: s.span,
            },
        );
    }

    fn literal(&mut self, out: &mut String, l: &Literal) {
        let (kw, parts): (&str, Vec<&Literal>) = match l {
            Literal::Atom(s) => return self.sentence(out, s),
            Literal::Distinct(a, b, _) => {
                out.push('(');
                out.push_str(&self.keyword("distinct"));
                self.space(out, true);
                self.term(out, a);
                self.space(out, true);
                self.term(out, b);
                self.space(out, false);
                out.push(')');
                return;
            }
            Literal::Not(inner, _) => ("not", vec![inner]),
            Literal::Or(ls, _) => ("or", ls.iter().collect()),
        };
        out.push('(');
        out.push_str(&self.keyword(kw));
        for p in parts {
            self.space(out, true);
            self.literal(out, p);
        }
        self.space(out, false);
        out.push(')');
    }

    fn description(&mut self, d: &Description) -> String {
        let mut out = String::new();
        for r in &d.rules {
            // A fact written as a bare name right after another would read
            // as one longer name (`cell` then `cell`: `cellcell`).
            let after_name = out
                .chars()
                .last()
                .is_some_and(|c| !c.is_whitespace() && c != ')');
            self.space(&mut out, after_name);
            if !r.implication {
                self.sentence(&mut out, &r.head);
                continue;
            }
            out.push('(');
            out.push_str("<=");
            self.space(&mut out, true);
            self.sentence(&mut out, &r.head);
            for l in &r.body {
                self.space(&mut out, true);
                self.literal(&mut out, l);
            }
            self.space(&mut out, false);
            out.push(')');
        }
        self.space(&mut out, false);
        out
    }

    // Infix.

    fn infix_term(&mut self, out: &mut String, t: &Term) {
        match t {
            Term::Var(i) => out.push_str(&i.text[1..]),
            Term::Const(i) => out.push_str(&i.text),
            Term::Func { name, args, .. } => {
                out.push_str(&name.text);
                out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                        self.infix_space(out);
                    }
                    self.infix_term(out, a);
                }
                out.push(')');
            }
        }
    }

    fn infix_sentence(&mut self, out: &mut String, s: &Sentence) {
        if s.args.is_empty() && !s.parens {
            out.push_str(&s.name.text);
        } else {
            self.infix_term(
                out,
                &Term::Func {
                    name: s.name.clone(),
                    args: s.args.clone(),
                    span: s.span,
                },
            );
        }
    }

    fn infix_literal(&mut self, out: &mut String, l: &Literal) {
        match l {
            Literal::Atom(s) => self.infix_sentence(out, s),
            Literal::Not(inner, _) => {
                match self.next() % 4 {
                    0 => out.push('~'),
                    1 => out.push('-'),
                    2 => out.push_str("not "),
                    _ => {
                        out.push_str("not(");
                        self.infix_literal(out, inner);
                        out.push(')');
                        return;
                    }
                }
                self.infix_literal(out, inner);
            }
            Literal::Distinct(a, b, _) => {
                if self.next() % 2 == 0 {
                    out.push_str("distinct(");
                    self.infix_term(out, a);
                    out.push(',');
                    self.infix_term(out, b);
                    out.push(')');
                } else {
                    // `~` would bind to the left term alone: keep the
                    // comparison in parentheses when it is negated.
                    out.push('(');
                    self.infix_term(out, a);
                    out.push_str(" != ");
                    self.infix_term(out, b);
                    out.push(')');
                }
            }
            Literal::Or(ls, _) => {
                let bar = ls.len() > 1 && self.next() % 2 == 0;
                out.push_str(if bar { "(" } else { "or(" });
                for (k, a) in ls.iter().enumerate() {
                    if k > 0 {
                        out.push_str(if bar { " |" } else { "," });
                        self.infix_space(out);
                    }
                    self.infix_literal(out, a);
                }
                out.push(')');
            }
        }
    }

    fn infix(&mut self, d: &Description) -> String {
        let mut out = String::new();
        for r in &d.rules {
            out.push_str("% a rule\n");
            self.infix_sentence(&mut out, &r.head);
            if !r.body.is_empty() {
                out.push_str(" :-");
                for (k, l) in r.body.iter().enumerate() {
                    if k > 0 {
                        out.push_str(if self.next() % 2 == 0 { " &" } else { "," });
                    }
                    out.push_str(if self.next() % 2 == 0 { "\n    " } else { " " });
                    self.infix_literal(&mut out, l);
                }
            }
            if self.next() % 3 == 0 {
                out.push('.');
            }
            out.push('\n');
        }
        out
    }
}

/// What the infix reader gives for `d`: infix has no `p :-` with an empty
/// body, so such rules are written (and read) as facts.
fn as_infix_reads(d: &Description) -> Description {
    let mut d = d.clone();
    for r in &mut d.rules {
        r.implication = !r.body.is_empty();
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn printed_kif_reads_back(d in description()) {
        let printed = print::to_kif(&d);
        let (back, diags) = syntax::parse(&printed, Syntax::Kif);
        prop_assert!(diags.is_empty(), "{diags:?}\n{printed}");
        check_spans(&back, &printed);
        prop_assert_eq!(erase(&back), d.clone());
        prop_assert_eq!(print::to_kif(&back), printed);
    }

    #[test]
    fn noisy_kif_reads_back(d in description(), noise in proptest::collection::vec(any::<u8>(), 1..64)) {
        let text = Noise { bytes: &noise, at: 0 }.description(&d);
        let (back, diags) = syntax::parse(&text, Syntax::Kif);
        prop_assert!(diags.is_empty(), "{diags:?}\n{text}");
        check_spans(&back, &text);
        prop_assert_eq!(erase(&back), d);
    }

    #[test]
    fn infix_reads_back(d in description(), noise in proptest::collection::vec(any::<u8>(), 1..64)) {
        let text = Noise { bytes: &noise, at: 0 }.infix(&d);
        let (back, diags) = syntax::parse(&text, Syntax::Infix);
        prop_assert!(diags.is_empty(), "{diags:?}\n{text}");
        check_spans(&back, &text);
        prop_assert_eq!(erase(&back), as_infix_reads(&d), "{}", text);
    }
}
