//! The KIF (prefix) reader, for `.kif` and `.lisp` rulesheets.
//!
//! Reading happens in two steps. The first turns text into s-expressions with
//! an explicit stack, so that no input, however deeply nested, can overflow
//! the call stack; nesting beyond [`MAX_DEPTH`] is reported and skipped. The
//! second turns s-expressions into the [`ast`](super::ast) and is recursive,
//! but only over trees the first step has bounded.
//!
//! Tokens: `(`, `)`, and atoms (any run of characters other than whitespace,
//! parentheses and `;`). `;` starts a comment to the end of the line. Atoms
//! starting with `?` are variables. `<=`, `not`, `distinct` and `or` are
//! recognised in any case.

use super::ast::{Description, Ident, Literal, Rule, Sentence, Term};
use crate::front::diag::{codes, Diagnostic, Diagnostics};
use crate::front::source::Span;

/// Deepest nesting of parentheses the reader accepts. Real rulesheets stay
/// below 20; the limit only guards against pathological input.
pub const MAX_DEPTH: usize = 512;

/// An s-expression: an atom or a parenthesised list.
#[derive(Clone, Debug)]
enum SExpr {
    Atom(Span),
    List(Vec<SExpr>, Span),
}

impl SExpr {
    fn span(&self) -> Span {
        match self {
            SExpr::Atom(s) | SExpr::List(_, s) => *s,
        }
    }
}

fn is_delimiter(c: u8) -> bool {
    c.is_ascii_whitespace() || c == b'(' || c == b')' || c == b';'
}

/// Reads the s-expressions of `text`, reporting lexical and bracket errors.
fn read_sexprs(text: &str, diags: &mut Diagnostics) -> Vec<SExpr> {
    let bytes = text.as_bytes();
    let mut top = Vec::new();
    // Open lists: (items, start of the `(`).
    let mut stack: Vec<(Vec<SExpr>, usize)> = Vec::new();
    // Depth of lists being skipped because they are too deep.
    let mut skipping = 0usize;
    // The open top-level form lost a part (a list too deep, an unreadable
    // atom): it is dropped when it closes, since what is left of it would
    // only draw misleading reports (a truncated `(f)`, a missing argument).
    let mut poisoned = false;
    let mut reported_bad = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                if skipping > 0 {
                    skipping += 1;
                } else if stack.len() >= MAX_DEPTH {
                    diags.push(
                        Diagnostic::error(
                            codes::TOO_DEEP,
                            format!("terms nested more than {MAX_DEPTH} deep"),
                            Span::new(i, i + 1),
                        )
                        .with_label("this parenthesis is too deep")
                        .with_note(format!(
                            "the reader accepts at most {MAX_DEPTH} levels of parentheses; real games use fewer than 20"
                        )),
                    );
                    skipping = 1;
                    poisoned = true;
                } else {
                    stack.push((Vec::new(), i));
                }
                i += 1;
            }
            b')' => {
                if skipping > 0 {
                    skipping -= 1;
                } else if let Some((items, start)) = stack.pop() {
                    let list = SExpr::List(items, Span::new(start, i + 1));
                    match stack.last_mut() {
                        Some((parent, _)) => parent.push(list),
                        None if poisoned => poisoned = false,
                        None => top.push(list),
                    }
                } else {
                    diags.push(
                        Diagnostic::error(
                            codes::STRAY_CLOSE,
                            "unmatched closing parenthesis",
                            Span::new(i, i + 1),
                        )
                        .with_label("no `(` to close here")
                        .with_help("remove this `)` or add the missing `(`"),
                    );
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len() && !is_delimiter(bytes[i]) {
                    i += 1;
                }
                let span = Span::new(start, i);
                let word = &text[start..i];
                if let Some(bad) = word.chars().find(|&ch| ch.is_control() || ch == '\u{FFFD}') {
                    if !reported_bad {
                        let (code, what) = if bad == '\u{FFFD}' {
                            (
                                codes::INVALID_UTF8,
                                "the file is not valid UTF-8".to_owned(),
                            )
                        } else {
                            (codes::BAD_CHAR, format!("unexpected character {bad:?}"))
                        };
                        diags.push(
                            Diagnostic::error(code, what, span)
                                .with_label("here")
                                .with_note("GDL files are text: names, variables, numbers, parentheses and `;` comments"),
                        );
                        // One report is enough for a binary file.
                        reported_bad = true;
                    }
                    poisoned |= !stack.is_empty();
                    continue;
                }
                if skipping > 0 {
                    continue;
                }
                match stack.last_mut() {
                    Some((parent, _)) => parent.push(SExpr::Atom(span)),
                    None => top.push(SExpr::Atom(span)),
                }
            }
        }
    }
    if let Some(&(_, innermost)) = stack.last() {
        let outermost = stack[0].1;
        let mut d = Diagnostic::error(
            codes::UNCLOSED_PAREN,
            "unclosed parenthesis",
            Span::new(innermost, innermost + 1),
        )
        .with_label("this `(` is never closed")
        .with_help("add the missing `)`");
        if outermost != innermost {
            d = d.with_related(
                Span::new(outermost, outermost + 1),
                "inside this form, also unclosed",
            );
        }
        diags.push(d);
    }
    top
}

/// Turns s-expressions into the AST.
struct Builder<'a> {
    text: &'a str,
    diags: &'a mut Diagnostics,
}

impl Builder<'_> {
    fn word(&self, span: Span) -> &str {
        &self.text[span.range()]
    }

    fn ident(&self, span: Span) -> Ident {
        Ident {
            text: self.word(span).into(),
            span,
        }
    }

    fn is_word(&self, e: &SExpr, kw: &str) -> bool {
        matches!(e, SExpr::Atom(s) if self.word(*s).eq_ignore_ascii_case(kw))
    }

    fn is_var(&self, span: Span) -> bool {
        self.word(span).starts_with('?')
    }

    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(codes::BAD_FORM, message, span).with_label(label));
    }

    fn top(&mut self, e: &SExpr) -> Option<Rule> {
        match e {
            SExpr::List(items, span) if items.first().is_some_and(|h| self.is_word(h, "<=")) => {
                let Some(head) = items.get(1) else {
                    self.error(
                        *span,
                        "rule without a head",
                        "`(<= head body..)` needs a head",
                    );
                    return None;
                };
                let head = self.sentence(head, "the head of a rule");
                // Every literal is read (and its errors reported), but a rule
                // missing one is dropped: without it the rule would draw
                // misleading reports (an unsafe variable, an empty body).
                let body: Vec<_> = items[2..].iter().map(|b| self.literal(b)).collect();
                Some(Rule {
                    head: head?,
                    body: body.into_iter().collect::<Option<_>>()?,
                    implication: true,
                    span: *span,
                })
            }
            SExpr::Atom(span) if self.is_var(*span) || self.word(*span) == "<=" => {
                self.diags.push(
                    Diagnostic::error(
                        codes::BAD_TOP_LEVEL,
                        format!("stray `{}` at top level", self.word(*span)),
                        *span,
                    )
                    .with_label("expected a fact or a rule")
                    .with_note("a description is a list of facts such as `(role white)` and rules such as `(<= head body..)`"),
                );
                None
            }
            _ => {
                let head = self.sentence(e, "a fact")?;
                Some(Rule {
                    span: head.span,
                    head,
                    body: Vec::new(),
                    implication: false,
                })
            }
        }
    }

    fn sentence(&mut self, e: &SExpr, what: &str) -> Option<Sentence> {
        match e {
            SExpr::Atom(span) if self.is_var(*span) => {
                self.error(
                    *span,
                    format!("a variable cannot be {what}"),
                    "expected a relation such as `(cell ?x ?y)` or `terminal`",
                );
                None
            }
            SExpr::Atom(span) => Some(Sentence {
                name: self.ident(*span),
                args: Vec::new(),
                parens: false,
                span: *span,
            }),
            SExpr::List(items, span) => {
                let Some(first) = items.first() else {
                    self.error(
                        *span,
                        format!("empty list as {what}"),
                        "expected a relation name after `(`",
                    );
                    return None;
                };
                let name = match first {
                    SExpr::Atom(s) if !self.is_var(*s) => self.ident(*s),
                    other => {
                        self.error(
                            other.span(),
                            format!("{what} must start with a relation name"),
                            "expected a name here",
                        );
                        return None;
                    }
                };
                if ["<=", "not", "or", "distinct"]
                    .iter()
                    .any(|kw| name.text.eq_ignore_ascii_case(kw))
                {
                    self.error(
                        name.span,
                        format!("`{}` cannot be {what}", name.text),
                        "a logical operator is not a relation",
                    );
                    return None;
                }
                let args: Option<Vec<_>> = items[1..].iter().map(|a| self.term(a)).collect();
                Some(Sentence {
                    name,
                    parens: items.len() == 1,
                    args: args?,
                    span: *span,
                })
            }
        }
    }

    fn literal(&mut self, e: &SExpr) -> Option<Literal> {
        let SExpr::List(items, span) = e else {
            return self.sentence(e, "a literal").map(Literal::Atom);
        };
        let span = *span;
        let Some(first) = items.first() else {
            self.error(
                span,
                "empty list as a literal",
                "expected a literal such as `(true (cell ?x))`",
            );
            return None;
        };
        if self.is_word(first, "not") {
            if items.len() != 2 {
                self.error(
                    span,
                    "`not` takes exactly one literal",
                    format!("`not` applied to {} arguments", items.len() - 1),
                );
                return None;
            }
            return Some(Literal::Not(Box::new(self.literal(&items[1])?), span));
        }
        if self.is_word(first, "distinct") {
            if items.len() != 3 {
                self.error(
                    span,
                    "`distinct` takes exactly two terms",
                    format!("`distinct` applied to {} arguments", items.len() - 1),
                );
                return None;
            }
            let a = self.term(&items[1]);
            let b = self.term(&items[2]);
            return Some(Literal::Distinct(a?, b?, span));
        }
        if self.is_word(first, "or") {
            let alts: Vec<_> = items[1..].iter().map(|i| self.literal(i)).collect();
            if items.len() == 1 {
                self.error(
                    span,
                    "`or` with no alternatives",
                    "an empty `or` never holds",
                );
                return None;
            }
            return Some(Literal::Or(alts.into_iter().collect::<Option<_>>()?, span));
        }
        self.sentence(e, "a literal").map(Literal::Atom)
    }

    fn term(&mut self, e: &SExpr) -> Option<Term> {
        match e {
            SExpr::Atom(span) if self.is_var(*span) => {
                if self.word(*span).len() == 1 {
                    self.error(
                        *span,
                        "`?` without a variable name",
                        "write a name after `?`, as in `?x`",
                    );
                    return None;
                }
                Some(Term::Var(self.ident(*span)))
            }
            SExpr::Atom(span) => Some(Term::Const(self.ident(*span))),
            SExpr::List(items, span) => {
                let name = match items.first() {
                    Some(SExpr::Atom(s)) if !self.is_var(*s) => self.ident(*s),
                    Some(other) => {
                        self.error(
                            other.span(),
                            "a function term must start with a function name",
                            "expected a name here",
                        );
                        return None;
                    }
                    None => {
                        self.error(
                            *span,
                            "empty list as a term",
                            "expected a term such as `(cell 1 2)`",
                        );
                        return None;
                    }
                };
                let args: Option<Vec<_>> = items[1..].iter().map(|a| self.term(a)).collect();
                Some(Term::Func {
                    name,
                    args: args?,
                    span: *span,
                })
            }
        }
    }
}

/// Reads a KIF game description. Returns the rules that could be read and
/// every problem found; the description is usable only if no error was
/// reported.
pub fn parse(text: &str) -> (Description, Diagnostics) {
    let mut diags = Diagnostics::new();
    let sexprs = read_sexprs(text, &mut diags);
    let mut builder = Builder {
        text,
        diags: &mut diags,
    };
    let rules = sexprs.iter().filter_map(|e| builder.top(e)).collect();
    (Description { rules }, diags)
}
