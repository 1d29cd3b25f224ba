//! Lowering: from the surface AST to the [`ir::Program`].
//!
//! - names are interned (case-independently unless asked otherwise; the
//!   keywords are recognised in any case in prefix GDL);
//! - variables are numbered per rule;
//! - `or` is expanded into one rule per combination of alternatives, and
//!   `(not (or a b))` into `(not a) (not b)`; an alternative after a
//!   `distinct` one also says that its two terms are equal, so that the
//!   rules an `or` becomes are disjoint there: `(or (distinct ?x ?x1)
//!   (distinct ?y ?y1))` becomes `?x ≠ ?x1` and `?x = ?x1, ?y ≠ ?y1`, and a
//!   cell that differs in both coordinates is derived once, not twice;
//! - `(not (distinct s t))` says `s = t`: the two terms are unified and the
//!   unifier applied to the whole rule (a rule whose terms cannot unify can
//!   never fire and is dropped with a warning);
//! - `(not (not l))` is `l`.

use rustc_hash::FxHashMap;

use crate::front::diag::{codes, Diagnostic, Diagnostics};
use crate::front::ir::{self, Atom, Keyword, Literal, Program, Rule, Term};
use crate::front::source::Span;
use crate::front::symbols::{Sym, Symbols};
use crate::front::syntax::ast;

/// Most rules one source rule may expand into through `or`.
pub const MAX_OR_EXPANSION: usize = 65_536;

/// A literal during lowering: the IR literals plus equality.
#[derive(Clone, Debug)]
enum Lit {
    Ir(Literal),
    /// `(not (distinct s t))`, written so: a rule where the two cannot be
    /// equal is reported.
    Eq(Term, Term),
    /// The two terms of an earlier `distinct` alternative of an `or` are
    /// equal: where they cannot be, the alternative is covered by that one
    /// and its rule is dropped without a word.
    Covered(Term, Term),
}

struct Lowerer<'a> {
    program: Program,
    diags: &'a mut Diagnostics,
    /// Variables of the rule being lowered: name symbol → number.
    vars: FxHashMap<Sym, u32>,
    var_names: Vec<Sym>,
}

impl Lowerer<'_> {
    fn name(&mut self, ident: &ast::Ident) -> Sym {
        // Keywords are case-independent even when other names are not.
        if self.program.symbols.is_case_sensitive() {
            if let Some(kw) = Keyword::ALL
                .iter()
                .find(|k| ident.text.eq_ignore_ascii_case(k.name()))
            {
                return self.program.symbols.keyword(*kw);
            }
        }
        self.program.symbols.intern(&ident.text)
    }

    fn zero_arg_warning(&mut self, name: &ast::Ident, span: Span, what: &str) {
        self.diags.push(
            Diagnostic::warning(
                codes::ZERO_ARG_PARENS,
                format!("`({})` is a {what} with no arguments, not the constant `{}`", name.text, name.text),
                span,
            )
            .with_label("parentheses around a lone name")
            .with_note(format!(
                "GDL reads `({0})` and `{0}` as different things; GGP-Base and the reference traces keep them apart",
                name.text
            ))
            .with_help(format!("write `{}` unless a zero-argument {what} is really meant", name.text)),
        );
    }

    fn term(&mut self, t: &ast::Term) -> Term {
        match t {
            ast::Term::Var(i) => {
                let sym = self.program.symbols.intern(&i.text);
                let next = self.var_names.len() as u32;
                let v = *self.vars.entry(sym).or_insert(next);
                if v == next {
                    self.var_names.push(sym);
                }
                Term::Var(v)
            }
            ast::Term::Const(i) => Term::Const(self.name(i)),
            ast::Term::Func { name, args, span } => {
                if args.is_empty() {
                    self.zero_arg_warning(name, *span, "function term");
                }
                let f = self.name(name);
                Term::Func(f, args.iter().map(|a| self.term(a)).collect())
            }
        }
    }

    fn atom(&mut self, s: &ast::Sentence) -> Atom {
        if s.parens {
            self.zero_arg_warning(&s.name, s.span, "relation");
        }
        let name = self.name(&s.name);
        let args: Vec<Term> = s.args.iter().map(|a| self.term(a)).collect();
        let pred = self.program.intern_pred(name, args.len(), s.parens);
        Atom {
            pred,
            args,
            span: s.span,
        }
    }

    /// The alternatives of a literal: each a conjunction.
    fn literal(&mut self, l: &ast::Literal, negated: bool) -> Vec<Vec<Lit>> {
        match (l, negated) {
            (ast::Literal::Atom(s), neg) => {
                let atom = self.atom(s);
                vec![vec![Lit::Ir(if neg {
                    Literal::Neg(atom)
                } else {
                    Literal::Pos(atom)
                })]]
            }
            (ast::Literal::Not(inner, _), neg) => self.literal(inner, !neg),
            (ast::Literal::Distinct(a, b, span), false) => {
                let (a, b) = (self.term(a), self.term(b));
                vec![vec![Lit::Ir(Literal::Distinct(a, b, *span))]]
            }
            (ast::Literal::Distinct(a, b, span), true) => {
                self.diags.push(
                    Diagnostic::warning(codes::NOT_DISTINCT, "`not` applied to `distinct`", *span)
                        .with_label("read as: these two terms are equal")
                        .with_note("GDL only negates sentences; this is accepted and normalised by unifying the two terms")
                        .with_help("use the same variable for both terms instead"),
                );
                let (a, b) = (self.term(a), self.term(b));
                vec![vec![Lit::Eq(a, b)]]
            }
            (ast::Literal::Or(alts, _), false) => {
                // a or b = a or (not a and b): with `a` a `distinct`, its
                // negation is a substitution, and the rules do not overlap.
                let mut covered = Vec::new();
                let mut out = Vec::new();
                for alt in alts {
                    for mut conj in self.literal(alt, false) {
                        let mut c = covered.clone();
                        c.append(&mut conj);
                        out.push(c);
                    }
                    if let ast::Literal::Distinct(a, b, _) = alt {
                        covered.push(Lit::Covered(self.term(a), self.term(b)));
                    }
                }
                out
            }
            (ast::Literal::Or(alts, span), true) => {
                // De Morgan: not (a or b) = (not a) and (not b).
                let parts: Vec<_> = alts.iter().map(|a| self.literal(a, true)).collect();
                self.product(parts, *span)
            }
        }
    }

    /// Every combination picking one alternative of each part.
    fn product(&mut self, parts: Vec<Vec<Vec<Lit>>>, span: Span) -> Vec<Vec<Lit>> {
        let total = parts
            .iter()
            .try_fold(1usize, |acc, p| acc.checked_mul(p.len()))
            .unwrap_or(usize::MAX);
        if total > MAX_OR_EXPANSION {
            self.diags.push(
                Diagnostic::error(
                    codes::OR_BLOWUP,
                    format!("expanding `or` here gives {} rules, more than the limit of {MAX_OR_EXPANSION}", if total == usize::MAX { "too many".to_owned() } else { total.to_string() }),
                    span,
                )
                .with_label("this rule's disjunctions multiply out")
                .with_help("split the rule, moving each `or` into a helper relation of its own"),
            );
            return Vec::new();
        }
        let mut acc: Vec<Vec<Lit>> = vec![Vec::new()];
        for part in parts {
            let mut next = Vec::with_capacity(acc.len() * part.len());
            for prefix in &acc {
                for alt in &part {
                    let mut v = prefix.clone();
                    v.extend(alt.iter().cloned());
                    next.push(v);
                }
            }
            acc = next;
        }
        acc
    }

    fn rule(&mut self, r: &ast::Rule) {
        self.vars.clear();
        self.var_names.clear();
        if r.implication && r.body.is_empty() {
            self.diags.push(
                Diagnostic::warning(codes::EMPTY_BODY, "rule with an empty body", r.span)
                    .with_label("`(<= head)` with nothing after the head")
                    .with_help("write the head on its own as a fact"),
            );
        }
        if r.head.name.text.eq_ignore_ascii_case("sees") && r.head.args.len() == 2 {
            self.diags.push(
                Diagnostic::error(
                    codes::GDL2_SEES,
                    "`sees` is GDL-II, which is not supported yet",
                    r.head.name.span,
                )
                .with_label("GDL-II keyword")
                .with_note(
                    "games with imperfect information (`sees`, `random`) need GDL-II support",
                ),
            );
        }
        let head = self.atom(&r.head);
        let parts: Vec<_> = r.body.iter().map(|l| self.literal(l, false)).collect();
        let bodies = self.product(parts, r.span);
        let var_names = self.var_names.clone();
        for body in bodies {
            let mut subst: Vec<Option<Term>> = vec![None; var_names.len()];
            let mut ok = true;
            let mut uncovered = true;
            let mut lits = Vec::with_capacity(body.len());
            for lit in body {
                match lit {
                    Lit::Ir(l) => lits.push(l),
                    Lit::Eq(a, b) => ok &= unify(&a, &b, &mut subst),
                    Lit::Covered(a, b) => uncovered &= unify(&a, &b, &mut subst),
                }
            }
            if !uncovered {
                continue;
            }
            if !ok {
                self.diags.push(
                    Diagnostic::warning(codes::DEAD_RULE, "this rule can never fire", r.span)
                        .with_label(
                            "a `(not (distinct ..))` here compares terms that can never be equal",
                        )
                        .with_help("remove the rule, or correct the terms"),
                );
                continue;
            }
            let rule = Rule {
                head: apply_atom(&head, &subst),
                body: lits
                    .iter()
                    .map(|l| match l {
                        Literal::Pos(a) => Literal::Pos(apply_atom(a, &subst)),
                        Literal::Neg(a) => Literal::Neg(apply_atom(a, &subst)),
                        Literal::Distinct(a, b, s) => {
                            Literal::Distinct(apply(a, &subst), apply(b, &subst), *s)
                        }
                    })
                    .collect(),
                var_names: var_names.clone(),
                span: r.span,
            };
            self.program.rules.push(renumber(rule));
        }
    }
}

fn resolve<'t>(t: &'t Term, subst: &'t [Option<Term>]) -> &'t Term {
    let mut t = t;
    while let Term::Var(v) = t {
        match &subst[*v as usize] {
            Some(bound) => t = bound,
            None => break,
        }
    }
    t
}

fn occurs(v: u32, t: &Term, subst: &[Option<Term>]) -> bool {
    match resolve(t, subst) {
        Term::Var(w) => *w == v,
        Term::Const(_) => false,
        Term::Func(_, args) => args.iter().any(|a| occurs(v, a, subst)),
    }
}

/// Unifies two terms under `subst` (a triangular substitution).
fn unify(a: &Term, b: &Term, subst: &mut Vec<Option<Term>>) -> bool {
    let (a, b) = (resolve(a, subst).clone(), resolve(b, subst).clone());
    match (&a, &b) {
        (Term::Var(x), Term::Var(y)) if x == y => true,
        (Term::Var(x), t) | (t, Term::Var(x)) => {
            if occurs(*x, t, subst) {
                return false;
            }
            subst[*x as usize] = Some(t.clone());
            true
        }
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Func(f, xs), Term::Func(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && xs.iter().zip(ys.iter()).all(|(x, y)| unify(x, y, subst))
        }
        _ => false,
    }
}

fn apply(t: &Term, subst: &[Option<Term>]) -> Term {
    match resolve(t, subst) {
        Term::Func(f, args) => Term::Func(*f, args.iter().map(|a| apply(a, subst)).collect()),
        other => other.clone(),
    }
}

fn apply_atom(a: &Atom, subst: &[Option<Term>]) -> Atom {
    Atom {
        pred: a.pred,
        args: a.args.iter().map(|t| apply(t, subst)).collect(),
        span: a.span,
    }
}

/// Renumbers a rule's variables densely in order of first occurrence (head
/// first), dropping the names of variables a unifier removed.
fn renumber(mut rule: Rule) -> Rule {
    let mut map: Vec<Option<u32>> = vec![None; rule.var_names.len()];
    let mut names = Vec::new();
    let mut visit = |t: &mut Term| renumber_term(t, &mut map, &mut names, &rule.var_names);
    rule.head.args.iter_mut().for_each(&mut visit);
    for lit in &mut rule.body {
        match lit {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter_mut().for_each(&mut visit),
            Literal::Distinct(a, b, _) => {
                visit(a);
                visit(b);
            }
        }
    }
    rule.var_names = names;
    rule
}

fn renumber_term(t: &mut Term, map: &mut [Option<u32>], names: &mut Vec<Sym>, old: &[Sym]) {
    match t {
        Term::Var(v) => {
            let i = *v as usize;
            let n = *map[i].get_or_insert_with(|| {
                names.push(old[i]);
                names.len() as u32 - 1
            });
            *v = n;
        }
        Term::Const(_) => {}
        Term::Func(_, args) => args
            .iter_mut()
            .for_each(|a| renumber_term(a, map, names, old)),
    }
}

/// Lowers a description. Problems are appended to `diags`; the program is
/// meaningful only if none of them is an error.
pub fn lower(desc: &ast::Description, symbols: Symbols, diags: &mut Diagnostics) -> ir::Program {
    let mut l = Lowerer {
        program: Program::new(symbols),
        diags,
        vars: FxHashMap::default(),
        var_names: Vec::new(),
    };
    for rule in &desc.rules {
        l.rule(rule);
    }
    l.program
}

#[cfg(test)]
mod tests {
    use crate::front::diag::codes;
    use crate::front::{run_bytes, Options};

    /// The rules of relation `rel`, as the program prints them, and the
    /// codes of the diagnostics.
    fn lowered(src: &str, rel: &str) -> (Vec<String>, Vec<String>) {
        let fe = run_bytes("t.kif", src.as_bytes(), &Options::default());
        let p = &fe.program;
        let rules = p
            .rules
            .iter()
            .filter(|r| p.symbols.name(p.pred(r.head.pred).name) == rel)
            .map(|r| {
                let mut s = String::new();
                p.write_rule(&mut s, r);
                s
            })
            .collect();
        let codes = fe.diagnostics.iter().map(|d| d.code.to_owned()).collect();
        (rules, codes)
    }

    const BOARD: &str = "(role r) (cell 1 1) (cell 1 2) (cell 2 1) (cell 2 2)";

    #[test]
    fn an_or_of_distincts_becomes_rules_that_do_not_overlap() {
        let src = format!(
            "{BOARD} (<= (other ?x ?y ?a ?b) (cell ?x ?y) (cell ?a ?b) \
             (or (distinct ?x ?a) (distinct ?y ?b)))"
        );
        let (rules, found) = lowered(&src, "other");
        assert_eq!(rules.len(), 2, "{rules:?}");
        assert!(rules[0].contains("(distinct ?x ?a)"), "{}", rules[0]);
        // The second alternative holds where the first does not: ?x = ?a.
        let head = &rules[1][..rules[1].find(") (").unwrap_or(0)];
        assert!(
            head.ends_with("(other ?a ?y ?a ?b") || head.ends_with("(other ?x ?y ?x ?b"),
            "{}",
            rules[1]
        );
        assert!(rules[1].contains("(distinct ?y ?b)"), "{}", rules[1]);
        assert!(!found.iter().any(|c| c == codes::DEAD_RULE), "{found:?}");
    }

    #[test]
    fn an_alternative_an_earlier_distinct_covers_is_dropped_without_a_warning() {
        // `(distinct 1 2)` always holds: the second alternative adds nothing.
        let src = format!("{BOARD} (<= (p ?x) (cell ?x ?y) (or (distinct 1 2) (distinct ?y 1)))");
        let (rules, found) = lowered(&src, "p");
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert!(!found.iter().any(|c| c == codes::DEAD_RULE), "{found:?}");
        // An alternative that is not a `distinct` covers nothing.
        let src = format!("{BOARD} (<= (p ?x) (cell ?x ?y) (or (cell ?y ?x) (distinct ?y 1)))");
        let (rules, _) = lowered(&src, "p");
        assert_eq!(rules.len(), 2, "{rules:?}");
        assert!(rules[1].contains("(distinct ?y 1)"), "{}", rules[1]);
    }
}
