//! The infix reader, for `.hrf` rulesheets in the syntax of the Stanford GGP
//! notes:
//!
//! ```text
//! role(xplayer)
//! legal(P,mark(X,Y)) :-
//!   true(cell(X,Y,b)) &
//!   true(control(P))
//! terminal :- ~open
//! ```
//!
//! - Names made of letters, digits and `_`. A name starting with an
//!   upper-case letter or `_` is a variable (given a `?` in the AST, so that
//!   `X` reads as `?X` and prints as valid KIF); `_` on its own is a fresh
//!   variable at each occurrence. Anything else is a constant, a function or
//!   a relation name.
//! - A rule is `head :- l1 & .. & ln`, a fact is a sentence on its own; both
//!   may end with `.`. `,` also separates body literals. A rule with a body
//!   ends at the end of its last literal, so the next rule must start on a
//!   new line (or after a `.`); several facts may share a line.
//! - Literals: sentences (`p`, `p(a,X)`, `p()`), negation `~l`, `-l` or
//!   `not l`, `distinct(s,t)` or `s != t`, disjunction `or(l1,..,ln)` or
//!   `l1 | .. | ln` (in parentheses when mixed with `&`: `p & (q | r)`), and
//!   parentheses for grouping.
//! - `%` and `//` start comments to the end of the line.
//!
//! Syntax errors are reported with [`codes::INFIX_SYNTAX`]; after one, the
//! reader skips to the next rule (the next line that does not continue the
//! current rule, or the token after a `.`) so that one run reports every
//! broken rule. The parser is recursive but counts its depth: nesting deeper
//! than [`MAX_DEPTH`] is reported with [`codes::TOO_DEEP`] instead of
//! overflowing the stack.

use super::ast::{Description, Ident, Literal, Rule, Sentence, Term};
use crate::front::diag::{codes, Diagnostic, Diagnostics};
use crate::front::source::Span;

/// Deepest nesting of terms, parentheses and negations the reader accepts
/// (the same limit as the KIF reader's).
pub const MAX_DEPTH: usize = super::kif::MAX_DEPTH;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    /// A constant or relation name (lower case or digit first).
    Name,
    /// A variable (upper case or `_` first).
    Var,
    LParen,
    RParen,
    Comma,
    /// `&`
    Amp,
    /// `:-`
    If,
    /// `~` or `-`
    Neg,
    /// `!=`
    Neq,
    /// `|`
    Bar,
    /// `.`
    Dot,
    /// Text that is no token; already reported by the lexer.
    Bad,
    Eof,
}

#[derive(Copy, Clone, Debug)]
struct Token {
    kind: Kind,
    span: Span,
    /// The first token of its line.
    line_start: bool,
}

/// Tokens after which a rule goes on (so a new line does not start a rule).
fn continues(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Amp | Kind::Comma | Kind::If | Kind::Neg | Kind::Neq | Kind::Bar | Kind::LParen
    )
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits `text` into tokens, reporting characters that start none.
fn lex(text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let mut toks = Vec::new();
    let mut line_start = true;
    let mut reported_binary = false;
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, c)| c);
        let push = |kind: Kind, end: usize, toks: &mut Vec<Token>| {
            toks.push(Token {
                kind,
                span: Span::new(i, end),
                line_start,
            });
        };
        let kind = match c {
            '\n' => {
                line_start = true;
                continue;
            }
            c if c.is_whitespace() => continue,
            '%' => {
                while it.next_if(|&(_, c)| c != '\n').is_some() {}
                continue;
            }
            '/' if next == Some('/') => {
                while it.next_if(|&(_, c)| c != '\n').is_some() {}
                continue;
            }
            '(' => Kind::LParen,
            ')' => Kind::RParen,
            ',' => Kind::Comma,
            '&' => Kind::Amp,
            '|' => Kind::Bar,
            '.' => Kind::Dot,
            '~' | '-' => Kind::Neg,
            ':' if next == Some('-') => {
                it.next();
                push(Kind::If, i + 2, &mut toks);
                line_start = false;
                continue;
            }
            '!' if next == Some('=') => {
                it.next();
                push(Kind::Neq, i + 2, &mut toks);
                line_start = false;
                continue;
            }
            c if is_name_char(c) => {
                let mut end = i + c.len_utf8();
                while let Some((j, d)) = it.next_if(|&(_, d)| is_name_char(d)) {
                    end = j + d.len_utf8();
                }
                let kind = if c.is_uppercase() || c == '_' {
                    Kind::Var
                } else {
                    Kind::Name
                };
                push(kind, end, &mut toks);
                line_start = false;
                continue;
            }
            c => {
                // A run of characters that start no token: one report.
                let mut end = i + c.len_utf8();
                let starts_token =
                    |d: char| d.is_whitespace() || is_name_char(d) || "()&|,.~-%:!".contains(d);
                while let Some((j, d)) = it.next_if(|&(_, d)| !starts_token(d)) {
                    end = j + d.len_utf8();
                }
                let span = Span::new(i, end);
                let word = &text[i..end];
                let binary = word.chars().find(|&d| d.is_control() || d == '\u{FFFD}');
                if let Some(bad) = binary {
                    if !reported_binary {
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
                                .with_note("GDL files are text: names, variables, numbers, punctuation and comments"),
                        );
                        // One report is enough for a binary file.
                        reported_binary = true;
                    }
                } else {
                    diags.push(bad_text(word, span));
                }
                push(Kind::Bad, end, &mut toks);
                line_start = false;
                continue;
            }
        };
        push(kind, i + c.len_utf8(), &mut toks);
        line_start = false;
    }
    toks.push(Token {
        kind: Kind::Eof,
        span: Span::new(text.len(), text.len()),
        line_start: true,
    });
    toks
}

/// The report for text that starts no infix token.
fn bad_text(word: &str, span: Span) -> Diagnostic {
    let d = Diagnostic::error(codes::INFIX_SYNTAX, format!("unexpected `{word}`"), span)
        .with_label("not part of infix GDL");
    if word.starts_with('?') {
        d.with_note(
            "`?x` is a KIF variable; infix variables start with an upper-case letter or `_`",
        )
        .with_help("write `X` instead of `?x`")
    } else if word.starts_with("<=") {
        d.with_note("`<=` is KIF; infix rules are written `head :- body`")
    } else if word.starts_with(':') {
        d.with_help("rules are written `head :- body`")
    } else if word.starts_with('!') {
        d.with_help("`!=` says two terms differ; negation is `~`")
    } else if word.starts_with(';') {
        d.with_note("comments in infix GDL start with `%` or `//`")
    } else {
        d
    }
}

/// A syntax error, already reported.
struct Fail;

type PResult<T> = Result<T, Fail>;

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Set when the depth limit was hit, until the parser recovers.
    too_deep: bool,
    /// Counter for fresh names of anonymous variables `_`.
    anon: u32,
    diags: &'a mut Diagnostics,
}

impl Parser<'_> {
    fn peek(&self) -> Token {
        self.toks[self.pos]
    }

    fn peek_at(&self, ahead: usize) -> Token {
        self.toks[(self.pos + ahead).min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos];
        if t.kind != Kind::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: Kind) -> Option<Token> {
        (self.peek().kind == kind).then(|| self.bump())
    }

    fn word(&self, t: Token) -> &str {
        &self.text[t.span.range()]
    }

    fn is_word(&self, t: Token, w: &str) -> bool {
        t.kind == Kind::Name && self.word(t) == w
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Kind::Eof => "the end of the file".to_owned(),
            _ => format!("`{}`", self.word(t)),
        }
    }

    /// Reports an error at the current token (unless the lexer already
    /// reported it) and fails.
    fn error(&mut self, message: String, label: &str) -> Fail {
        self.error_with(message, label, |d| d)
    }

    fn error_with(
        &mut self,
        message: String,
        label: &str,
        more: impl FnOnce(Diagnostic) -> Diagnostic,
    ) -> Fail {
        let t = self.peek();
        if t.kind != Kind::Bad {
            let d = Diagnostic::error(codes::INFIX_SYNTAX, message, t.span).with_label(label);
            self.diags.push(more(d));
        }
        Fail
    }

    /// An error for an unexpected token, where `expected` says what would fit.
    fn expected(&mut self, expected: &str) -> Fail {
        let found = self.describe(self.peek());
        self.error(
            format!("expected {expected}, found {found}"),
            "unexpected here",
        )
    }

    /// Counts one level of nesting, failing beyond [`MAX_DEPTH`].
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let span = self.peek().span;
            self.diags.push(
                Diagnostic::error(
                    codes::TOO_DEEP,
                    format!("terms nested more than {MAX_DEPTH} deep"),
                    span,
                )
                .with_label("this is too deep")
                .with_note(format!(
                    "the reader accepts at most {MAX_DEPTH} levels of nesting; real games use fewer than 20"
                )),
            );
            self.too_deep = true;
            return Err(Fail);
        }
        Ok(())
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn ident(&mut self, t: Token) -> Ident {
        let word = self.word(t);
        let text: Box<str> = match t.kind {
            Kind::Var if word == "_" => {
                self.anon += 1;
                format!("?_#{}", self.anon).into()
            }
            Kind::Var => format!("?{word}").into(),
            _ => word.into(),
        };
        Ident { text, span: t.span }
    }

    /// Whether token `j` may start the next rule after an error.
    fn is_rule_start(&self, j: usize) -> bool {
        let t = self.toks[j];
        if t.kind == Kind::Eof || (j > 0 && self.toks[j - 1].kind == Kind::Dot) {
            return true;
        }
        t.line_start
            && j > 0
            && !continues(self.toks[j - 1].kind)
            && matches!(t.kind, Kind::Name | Kind::Var | Kind::Bad)
    }

    /// Skips what is left of a broken rule that started at token `start`.
    fn recover(&mut self, start: usize) {
        let mut j = self.pos.max(start + 1).min(self.toks.len() - 1);
        if self.too_deep {
            // Skip the over-deep term as a whole: to where the parentheses
            // opened since the rule's start are closed again.
            let mut open: usize = self.toks[start..j]
                .iter()
                .map(|t| match t.kind {
                    Kind::LParen => 1isize,
                    Kind::RParen => -1,
                    _ => 0,
                })
                .sum::<isize>()
                .max(0) as usize;
            while open > 0 && self.toks[j].kind != Kind::Eof {
                match self.toks[j].kind {
                    Kind::LParen => open += 1,
                    Kind::RParen => open -= 1,
                    _ => {}
                }
                j += 1;
            }
            self.too_deep = false;
        }
        while !self.is_rule_start(j) {
            j += 1;
        }
        self.pos = j;
        self.depth = 0;
    }

    fn description(&mut self) -> Description {
        let mut rules = Vec::new();
        while self.peek().kind != Kind::Eof {
            let start = self.pos;
            match self.rule() {
                Ok(r) => rules.push(r),
                Err(Fail) => self.recover(start),
            }
        }
        Description { rules }
    }

    fn rule(&mut self) -> PResult<Rule> {
        let first = self.peek();
        match first.kind {
            Kind::If => {
                return Err(self.error(
                    "rule without a head".to_owned(),
                    "expected a head such as `legal(P,noop)` before `:-`",
                ))
            }
            Kind::LParen => {
                return Err(self.error_with(
                    "expected a fact or a rule, found `(`".to_owned(),
                    "a rule starts with its head, such as `legal(P,noop)`",
                    |d| {
                        d.with_note(
                        "this looks like KIF (prefix) GDL, which the infix reader does not read",
                    )
                    .with_help("read the file as KIF (`--syntax kif`, or a `.kif` file name)")
                    },
                ))
            }
            Kind::RParen => {
                return Err(self.error(
                    "unmatched closing parenthesis".to_owned(),
                    "no `(` to close here",
                ))
            }
            _ => {}
        }
        let what = if self.peek_after_sentence_is_if() {
            "the head of a rule"
        } else {
            "a fact"
        };
        let head = self.sentence(what)?;
        let mut span = head.span;
        let mut body = Vec::new();
        let implication = if let Some(arrow) = self.eat(Kind::If) {
            span = span.to(arrow.span);
            body = self.body()?;
            if let Some(last) = body.last() {
                span = span.to(last.span());
            }
            true
        } else {
            false
        };
        if let Some(dot) = self.eat(Kind::Dot) {
            span = span.to(dot.span);
        } else {
            let next = self.peek();
            let ok = next.kind == Kind::Eof
                || (next.line_start && next.kind != Kind::RParen)
                || (!implication && matches!(next.kind, Kind::Name | Kind::Var));
            if !ok {
                let what = if implication {
                    "`&` or the end of the rule"
                } else {
                    "the end of the fact"
                };
                return Err(match next.kind {
                    Kind::RParen => self.error(
                        "unmatched closing parenthesis".to_owned(),
                        "no `(` to close here",
                    ),
                    Kind::Name | Kind::Var | Kind::Neg => self.error_with(
                        format!("expected {what}, found {}", self.describe(next)),
                        "a new rule must start on a new line",
                        |d| d.with_help("join the literals with `&`, or end the rule with `.`"),
                    ),
                    _ => self.expected(what),
                });
            }
        }
        Ok(Rule {
            head,
            body,
            implication,
            span,
        })
    }

    /// Whether `:-` follows the sentence at the current position (for
    /// wording errors only; a cheap scan over balanced parentheses).
    fn peek_after_sentence_is_if(&self) -> bool {
        let mut j = self.pos + 1;
        if self.toks.get(j).is_some_and(|t| t.kind == Kind::LParen) {
            let mut open = 0usize;
            let limit = j + 10_000;
            while let Some(t) = self.toks.get(j).filter(|_| j < limit) {
                match t.kind {
                    Kind::LParen => open += 1,
                    Kind::RParen => open -= 1,
                    Kind::Eof => return false,
                    _ => {}
                }
                j += 1;
                if open == 0 {
                    break;
                }
            }
        }
        self.toks.get(j).is_some_and(|t| t.kind == Kind::If)
    }

    /// A sentence: `p`, `p()` or `p(t1,..,tn)`.
    fn sentence(&mut self, what: &str) -> PResult<Sentence> {
        let t = self.peek();
        match t.kind {
            Kind::Name => {
                let w = self.word(t);
                if ["not", "or", "distinct"].contains(&w) {
                    return Err(self.error(
                        format!("`{w}` cannot be {what}"),
                        "a logical operator is not a relation",
                    ));
                }
                let term = self.term()?;
                Ok(to_sentence(term))
            }
            Kind::Var => Err(self.error_with(
                format!("a variable cannot be {what}"),
                "expected a relation such as `cell(X,Y)` or `terminal`",
                |d| {
                    d.with_note("names starting with an upper-case letter or `_` are variables in infix GDL")
                },
            )),
            _ => Err(self.expected(&format!("{what} (a relation such as `role(white)`)"))),
        }
    }

    fn body(&mut self) -> PResult<Vec<Literal>> {
        let mut lits = Vec::new();
        let mut bare_or = None;
        loop {
            let (lit, bare) = self.disjunction()?;
            if bare && bare_or.is_none() {
                bare_or = Some(lit.span());
            }
            lits.push(lit);
            if self.eat(Kind::Amp).is_none() && self.eat(Kind::Comma).is_none() {
                break;
            }
        }
        if let (Some(span), true) = (bare_or, lits.len() > 1) {
            self.diags.push(
                Diagnostic::error(
                    codes::INFIX_SYNTAX,
                    "`|` and `&` mixed without parentheses",
                    span,
                )
                .with_label("this disjunction")
                .with_help("put the disjunction in parentheses: `p & (q | r)`"),
            );
            return Err(Fail);
        }
        Ok(lits)
    }

    /// `l1 | .. | ln`; the flag tells whether a `|` was used.
    fn disjunction(&mut self) -> PResult<(Literal, bool)> {
        let first = self.unary()?;
        if self.peek().kind != Kind::Bar {
            return Ok((first, false));
        }
        let mut span = first.span();
        let mut alts = vec![first];
        while self.eat(Kind::Bar).is_some() {
            let alt = self.unary()?;
            span = span.to(alt.span());
            alts.push(alt);
        }
        Ok((Literal::Or(alts, span), true))
    }

    fn unary(&mut self) -> PResult<Literal> {
        self.nested(|p| {
            let t = p.peek();
            if t.kind == Kind::Neg || p.is_word(t, "not") {
                p.bump();
                let inner = p.unary()?;
                let span = t.span.to(inner.span());
                return Ok(Literal::Not(Box::new(inner), span));
            }
            p.primary()
        })
    }

    fn primary(&mut self) -> PResult<Literal> {
        let t = self.peek();
        match t.kind {
            Kind::LParen => {
                self.bump();
                let (lit, _) = self.disjunction()?;
                if matches!(self.peek().kind, Kind::Amp | Kind::Comma) {
                    return Err(self.error_with(
                        "`&` inside parentheses".to_owned(),
                        "a parenthesised group holds one literal or a disjunction",
                        |d| {
                            d.with_note("GDL has no conjunction inside a disjunction")
                                .with_help("define a helper relation for the conjunction")
                        },
                    ));
                }
                let close = self.close(t)?;
                Ok(match lit {
                    Literal::Or(alts, _) => Literal::Or(alts, t.span.to(close.span)),
                    other => other,
                })
            }
            Kind::Name if self.peek_at(1).kind == Kind::LParen && self.is_word(t, "or") => {
                self.bump();
                let open = self.bump();
                let mut alts = Vec::new();
                if self.peek().kind != Kind::RParen {
                    loop {
                        alts.push(self.disjunction()?.0);
                        if self.eat(Kind::Comma).is_none() {
                            break;
                        }
                    }
                }
                let close = self.close(open)?;
                let span = t.span.to(close.span);
                if alts.is_empty() {
                    self.diags.push(
                        Diagnostic::error(codes::INFIX_SYNTAX, "`or` with no alternatives", span)
                            .with_label("an empty `or` never holds"),
                    );
                    return Err(Fail);
                }
                Ok(Literal::Or(alts, span))
            }
            Kind::Name if self.peek_at(1).kind == Kind::LParen && self.is_word(t, "distinct") => {
                self.bump();
                let open = self.bump();
                let mut args = Vec::new();
                if self.peek().kind != Kind::RParen {
                    loop {
                        args.push(self.term()?);
                        if self.eat(Kind::Comma).is_none() {
                            break;
                        }
                    }
                }
                let close = self.close(open)?;
                let span = t.span.to(close.span);
                if args.len() != 2 {
                    self.diags.push(
                        Diagnostic::error(
                            codes::INFIX_SYNTAX,
                            "`distinct` takes exactly two terms",
                            span,
                        )
                        .with_label(format!("`distinct` applied to {} arguments", args.len())),
                    );
                    return Err(Fail);
                }
                let b = args.pop().expect("two arguments");
                let a = args.pop().expect("two arguments");
                Ok(Literal::Distinct(a, b, span))
            }
            Kind::Name if ["or", "distinct"].contains(&self.word(t)) => {
                let w = self.word(t).to_owned();
                Err(self.error(
                    format!("`{w}` needs its arguments in parentheses"),
                    "a logical operator, not a relation",
                ))
            }
            Kind::Name | Kind::Var => {
                let term = self.term()?;
                if self.eat(Kind::Neq).is_some() {
                    let other = self.term()?;
                    let span = term.span().to(other.span());
                    return Ok(Literal::Distinct(term, other, span));
                }
                if let Term::Var(v) = &term {
                    let span = v.span;
                    self.diags.push(
                        Diagnostic::error(
                            codes::INFIX_SYNTAX,
                            "a variable cannot be a literal",
                            span,
                        )
                        .with_label("expected a sentence such as `true(cell(X,Y,b))`")
                        .with_note("names starting with an upper-case letter or `_` are variables in infix GDL"),
                    );
                    return Err(Fail);
                }
                Ok(Literal::Atom(to_sentence(term)))
            }
            _ => Err(self.expected("a literal")),
        }
    }

    /// Expects the `)` closing `open`.
    fn close(&mut self, open: Token) -> PResult<Token> {
        if let Some(t) = self.eat(Kind::RParen) {
            return Ok(t);
        }
        let next = self.peek();
        if next.kind == Kind::Eof {
            self.diags.push(
                Diagnostic::error(codes::INFIX_SYNTAX, "unclosed parenthesis", open.span)
                    .with_label("this `(` is never closed")
                    .with_help("add the missing `)`"),
            );
            return Err(Fail);
        }
        let found = self.describe(next);
        Err(self.error_with(
            format!("expected `,` or `)`, found {found}"),
            "unexpected here",
            |d| d.with_related(open.span, "to close this `(`"),
        ))
    }

    /// A term: `c`, `X`, `f(t1,..,tn)` or `f()`.
    fn term(&mut self) -> PResult<Term> {
        self.nested(|p| {
            let t = p.peek();
            match t.kind {
                Kind::Var => {
                    p.bump();
                    if p.peek().kind == Kind::LParen {
                        return Err(p.error_with(
                            format!("the variable `{}` cannot take arguments", p.word(t)),
                            "unexpected `(`",
                            |d| {
                                d.with_note("names starting with an upper-case letter or `_` are variables; function and relation names start with a lower-case letter")
                            },
                        ));
                    }
                    Ok(Term::Var(p.ident(t)))
                }
                Kind::Name => {
                    p.bump();
                    let name = p.ident(t);
                    let Some(open) = p.eat(Kind::LParen) else {
                        return Ok(Term::Const(name));
                    };
                    let mut args = Vec::new();
                    if p.peek().kind != Kind::RParen {
                        loop {
                            args.push(p.term()?);
                            if p.eat(Kind::Comma).is_none() {
                                break;
                            }
                        }
                    }
                    let close = p.close(open)?;
                    Ok(Term::Func {
                        name,
                        args,
                        span: t.span.to(close.span),
                    })
                }
                _ => Err(p.expected("a term")),
            }
        })
    }
}

/// A term in sentence position: `p`, `p()`, `p(a,b)`.
fn to_sentence(term: Term) -> Sentence {
    match term {
        Term::Const(name) => Sentence {
            span: name.span,
            name,
            args: Vec::new(),
            parens: false,
        },
        Term::Func { name, args, span } => Sentence {
            parens: args.is_empty(),
            name,
            args,
            span,
        },
        Term::Var(name) => Sentence {
            span: name.span,
            name,
            args: Vec::new(),
            parens: false,
        },
    }
}

/// Reads an infix game description. Returns the rules that could be read and
/// every problem found; the description is usable only if no error was
/// reported.
pub fn parse(text: &str) -> (Description, Diagnostics) {
    let mut diags = Diagnostics::new();
    let toks = lex(text, &mut diags);
    let mut parser = Parser {
        text,
        toks,
        pos: 0,
        depth: 0,
        too_deep: false,
        anon: 0,
        diags: &mut diags,
    };
    let desc = parser.description();
    (desc, diags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::syntax::print::to_kif;

    fn ok(text: &str) -> String {
        let (d, diags) = parse(text);
        assert!(diags.is_empty(), "{text}: {diags:#?}");
        to_kif(&d)
    }

    fn errs(text: &str) -> Vec<(&'static str, String)> {
        let (_, diags) = parse(text);
        diags
            .iter()
            .map(|d| (d.code, text[d.span.range()].to_owned()))
            .collect()
    }

    #[test]
    fn facts_and_rules() {
        assert_eq!(ok("role(white)"), "(role white)\n");
        assert_eq!(ok("index(1)   filler(x)\n"), "(index 1)\n(filler x)\n");
        assert_eq!(ok("terminal :- ~open."), "(<= terminal\n    (not open))\n");
        assert_eq!(
            ok("legal(P,mark(X,Y)) :-\n  true(cell(X,Y,b)) &\n  true(control(P))"),
            "(<= (legal ?P (mark ?X ?Y))\n    (true (cell ?X ?Y b))\n    (true (control ?P)))\n"
        );
        assert_eq!(
            ok("p() :- -q & X != Y & distinct(a, f())"),
            "(<= (p)\n    (not q)\n    (distinct ?X ?Y)\n    (distinct a (f)))\n"
        );
        assert_eq!(ok("p :- q | r"), "(<= p\n    (or q r))\n");
        assert_eq!(
            ok("p :- s & (q | ~r) % c\n// c2\n"),
            "(<= p\n    s\n    (or q (not r)))\n"
        );
        assert_eq!(
            ok("p :- or(q, r(a)), not s"),
            "(<= p\n    (or q (r a))\n    (not s))\n"
        );
        assert_eq!(ok("p :- q(_, _)"), "(<= p\n    (q ?_#1 ?_#2))\n");
    }

    #[test]
    fn spans_point_at_the_source() {
        let text = "p(X) :- q(X)";
        let (d, _) = parse(text);
        let r = &d.rules[0];
        assert_eq!(&text[r.span.range()], text);
        assert_eq!(&text[r.head.span.range()], "p(X)");
        let Term::Var(v) = &r.head.args[0] else {
            panic!()
        };
        assert_eq!(&text[v.span.range()], "X");
        assert_eq!(&*v.text, "?X");
    }

    #[test]
    fn errors_are_collected_and_recovered() {
        let e = errs("p(a :- q\nr :- & s\ngood(x)\n?x\nt :- u v\n");
        let codes: Vec<_> = e.iter().map(|e| e.0).collect();
        assert!(codes.iter().all(|&c| c == codes::INFIX_SYNTAX), "{e:?}");
        assert_eq!(e.len(), 4, "{e:?}");
        assert_eq!(e[3].1, "v");
        let (d, _) = parse("p(a :- q\ngood(x)\n");
        assert_eq!(d.rules.len(), 1);
    }

    #[test]
    fn unclosed_paren_at_eof() {
        let e = errs("p :- q(a, f(b)");
        assert_eq!(e, vec![(codes::INFIX_SYNTAX, "(".to_owned())]);
    }

    #[test]
    fn deep_nesting_is_reported() {
        let n = 100_000;
        let text = format!("p(x) :- q({}a{})\nr(b)\n", "f(".repeat(n), ")".repeat(n));
        let (d, diags) = parse(&text);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].code, codes::TOO_DEEP);
        assert_eq!(d.rules.len(), 1);
        let text = format!("p :- {}q\n", "~".repeat(n));
        let (_, diags) = parse(&text);
        assert_eq!(diags[0].code, codes::TOO_DEEP);
        let text = format!("p :- {}q{}\n", "(".repeat(n), ")".repeat(n));
        let (_, diags) = parse(&text);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, codes::TOO_DEEP);
    }
}
