//! The surface syntax tree: what was written, with spans, before any
//! desugaring. Both readers (KIF and infix) produce it.

use crate::front::source::Span;

/// A name as written: a constant, function, relation or variable name.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ident {
    /// The text; variables keep their `?` in KIF (`?x`), infix variables are
    /// given one by the infix reader so both syntaxes agree.
    pub text: Box<str>,
    /// Where it was written.
    pub span: Span,
}

/// A term.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Term {
    /// A variable (`?x`).
    Var(Ident),
    /// A constant (a name or an integer).
    Const(Ident),
    /// A function application `(f t1 .. tn)`; `(f)` has no arguments.
    Func {
        /// The function symbol.
        name: Ident,
        /// The arguments.
        args: Vec<Term>,
        /// The whole term.
        span: Span,
    },
}

impl Term {
    /// Where the term was written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(i) | Term::Const(i) => i.span,
            Term::Func { span, .. } => *span,
        }
    }
}

/// A relation applied to arguments: `(cell 1 1 b)`, `terminal`, `(open2)`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Sentence {
    /// The relation name.
    pub name: Ident,
    /// The arguments.
    pub args: Vec<Term>,
    /// Written in parentheses with no arguments: `(foo)`.
    pub parens: bool,
    /// The whole sentence.
    pub span: Span,
}

/// A body literal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Literal {
    /// A sentence that must hold.
    Atom(Sentence),
    /// `(not L)`.
    Not(Box<Literal>, Span),
    /// `(distinct t1 t2)`.
    Distinct(Term, Term, Span),
    /// `(or L1 .. Ln)`.
    Or(Vec<Literal>, Span),
}

impl Literal {
    /// Where the literal was written.
    pub fn span(&self) -> Span {
        match self {
            Literal::Atom(s) => s.span,
            Literal::Not(_, s) | Literal::Distinct(_, _, s) | Literal::Or(_, s) => *s,
        }
    }
}

/// A rule `(<= head body..)`, or a fact (a sentence on its own).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rule {
    /// The head.
    pub head: Sentence,
    /// The body; empty for facts.
    pub body: Vec<Literal>,
    /// Written with `<=` (so `(<= (foo))` is a rule with an empty body).
    pub implication: bool,
    /// The whole rule.
    pub span: Span,
}

/// A parsed game description.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Description {
    /// Rules and facts in source order.
    pub rules: Vec<Rule>,
}
