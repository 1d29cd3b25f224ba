//! The lowered program: what every stage after the front end works on.
//!
//! Lowering (`front::lower`) turns the surface AST into this form: `or`
//! is expanded into one rule per alternative, `(not (distinct a b))` becomes a
//! unification applied to the rule, names are interned symbols, variables are
//! numbered per rule, and every relation is identified by a [`PredId`] (its
//! name, arity, and whether it was written `(foo)` rather than `foo`).

use std::fmt::{self, Write as _};

use crate::front::source::Span;
pub use crate::front::symbols::Keyword;
use crate::front::symbols::{Sym, Symbols};

/// A term: variable, constant, or function application.
///
/// `Func(f, [])` is the zero-argument term `(f)`, distinct from the constant
/// `f`, as GGP-Base reads it.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Term {
    /// A variable, numbered within its rule (`0..rule.num_vars()`).
    Var(u32),
    /// A constant (an atom: a name or an integer).
    Const(Sym),
    /// A function symbol applied to arguments.
    Func(Sym, Box<[Term]>),
}

impl Term {
    /// Whether the term contains no variable.
    pub fn is_ground(&self) -> bool {
        match self {
            Term::Var(_) => false,
            Term::Const(_) => true,
            Term::Func(_, args) => args.iter().all(Term::is_ground),
        }
    }

    /// Calls `f` on every variable of the term, left to right, with repeats.
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Term::Var(v) => f(*v),
            Term::Const(_) => {}
            Term::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// Identifies a relation: index into [`Program::preds`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct PredId(pub u32);

/// What a [`PredId`] stands for.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct PredInfo {
    /// The relation's name.
    pub name: Sym,
    /// Its number of arguments.
    pub arity: usize,
    /// Written `(foo)` with no arguments: a relation apart from `foo`.
    pub parens: bool,
}

/// A relation applied to arguments.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Atom {
    /// The relation.
    pub pred: PredId,
    /// Its arguments (`pred`'s arity of them).
    pub args: Vec<Term>,
    /// Where the atom was written.
    pub span: Span,
}

/// A body literal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Literal {
    /// An atom that must hold.
    Pos(Atom),
    /// An atom that must not hold (negation as failure).
    Neg(Atom),
    /// Two terms that must differ syntactically once bound.
    Distinct(Term, Term, Span),
}

impl Literal {
    /// Where the literal was written.
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => a.span,
            Literal::Distinct(_, _, s) => *s,
        }
    }
}

/// A rule `head <= body`; a fact has an empty body.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rule {
    /// The head atom.
    pub head: Atom,
    /// The body literals, in source order.
    pub body: Vec<Literal>,
    /// Names of the rule's variables, indexed by [`Term::Var`] number.
    pub var_names: Vec<Sym>,
    /// The whole rule in the source.
    pub span: Span,
}

impl Rule {
    /// Number of distinct variables of the rule.
    pub fn num_vars(&self) -> usize {
        self.var_names.len()
    }
}

/// A lowered GDL program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Interned names.
    pub symbols: Symbols,
    /// Every relation, indexed by [`PredId`].
    pub preds: Vec<PredInfo>,
    /// The rules (facts included), in source order, `or` expanded.
    pub rules: Vec<Rule>,
}

impl Program {
    /// An empty program over `symbols`.
    pub fn new(symbols: Symbols) -> Self {
        Program {
            symbols,
            preds: Vec::new(),
            rules: Vec::new(),
        }
    }

    /// The id of relation `name/arity` (with `parens` for `(foo)`), adding it
    /// when new.
    pub fn intern_pred(&mut self, name: Sym, arity: usize, parens: bool) -> PredId {
        let info = PredInfo {
            name,
            arity,
            parens: parens && arity == 0,
        };
        if let Some(i) = self.preds.iter().position(|p| *p == info) {
            return PredId(i as u32);
        }
        self.preds.push(info);
        PredId(self.preds.len() as u32 - 1)
    }

    /// The id of relation `name/arity`, if the program mentions it.
    pub fn find_pred(&self, name: Sym, arity: usize) -> Option<PredId> {
        self.preds
            .iter()
            .position(|p| p.name == name && p.arity == arity && !p.parens)
            .map(|i| PredId(i as u32))
    }

    /// The relation of a keyword, if the program mentions it (with its fixed arity).
    pub fn keyword_pred(&self, kw: Keyword) -> Option<PredId> {
        self.find_pred(self.symbols.keyword(kw), kw.arity())
    }

    /// What `pred` stands for.
    pub fn pred(&self, pred: PredId) -> &PredInfo {
        &self.preds[pred.0 as usize]
    }

    /// Which keyword `pred` is, if any (with the keyword's own arity).
    pub fn pred_keyword(&self, pred: PredId) -> Option<Keyword> {
        let info = self.pred(pred);
        let kw = self.symbols.as_keyword(info.name)?;
        (kw.arity() == info.arity && !info.parens).then_some(kw)
    }

    /// The roles, in the order of their `role` facts.
    pub fn roles(&self) -> Vec<Sym> {
        let Some(role) = self.keyword_pred(Keyword::Role) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for rule in &self.rules {
            if rule.head.pred == role && rule.body.is_empty() {
                if let Some(Term::Const(s)) = rule.head.args.first() {
                    if !out.contains(s) {
                        out.push(*s);
                    }
                }
            }
        }
        out
    }

    /// Writes `term` as KIF, naming variables after `rule` when given.
    pub fn write_term(&self, out: &mut String, term: &Term, rule: Option<&Rule>) {
        match term {
            Term::Var(v) => match rule.and_then(|r| r.var_names.get(*v as usize)) {
                Some(name) => out.push_str(self.symbols.name(*name)),
                None => {
                    let _ = write!(out, "?_{v}");
                }
            },
            Term::Const(s) => out.push_str(self.symbols.name(*s)),
            Term::Func(f, args) => {
                out.push('(');
                out.push_str(self.symbols.name(*f));
                for a in args.iter() {
                    out.push(' ');
                    self.write_term(out, a, rule);
                }
                out.push(')');
            }
        }
    }

    /// Writes `atom` as KIF.
    pub fn write_atom(&self, out: &mut String, atom: &Atom, rule: Option<&Rule>) {
        let info = self.pred(atom.pred);
        let name = self.symbols.name(info.name);
        if atom.args.is_empty() && !info.parens {
            out.push_str(name);
            return;
        }
        out.push('(');
        out.push_str(name);
        for a in &atom.args {
            out.push(' ');
            self.write_term(out, a, Some(rule).flatten());
        }
        out.push(')');
    }

    /// Writes `rule` as one line of KIF.
    pub fn write_rule(&self, out: &mut String, rule: &Rule) {
        if rule.body.is_empty() {
            self.write_atom(out, &rule.head, Some(rule));
            return;
        }
        out.push_str("(<= ");
        self.write_atom(out, &rule.head, Some(rule));
        for lit in &rule.body {
            out.push(' ');
            match lit {
                Literal::Pos(a) => self.write_atom(out, a, Some(rule)),
                Literal::Neg(a) => {
                    out.push_str("(not ");
                    self.write_atom(out, a, Some(rule));
                    out.push(')');
                }
                Literal::Distinct(a, b, _) => {
                    out.push_str("(distinct ");
                    self.write_term(out, a, Some(rule));
                    out.push(' ');
                    self.write_term(out, b, Some(rule));
                    out.push(')');
                }
            }
        }
        out.push(')');
    }

    /// The whole program as KIF, one rule a line (the `--dump lowered` view).
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for rule in &self.rules {
            self.write_rule(&mut out, rule);
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}
