//! Argument flattening: a compound argument of a relation becomes the
//! functor's arguments, in one relation per functor the heads spell there.
//!
//! `(legal2 ?player (move ?piece ?u ?v ?x ?y))`, written so in each of its
//! heads and each call, becomes `(legal2__move ?player ?piece ?u ?v ?x ?y)`.
//! The program means the same (a call unifies with a head exactly when it
//! does after the rewrite), but the planner now sees the move's parts as
//! arguments: a call that binds the piece and its square is a function of
//! those four values, memoized by them and computing only that piece's
//! moves, where before it listed every move of the player for each piece
//! and filtered the list on the sub-terms.
//!
//! Heads may spell several functors there: englishDraughts' `legal2` has
//! `move` heads and `capture` heads. It becomes `legal2__move` and
//! `legal2__capture`, and `(captureAvailable ?p)`, which asks for a
//! `capture`, computes only the captures (and, as nothing reads their
//! squares, only whether one exists), where before it listed every move
//! and kept the captures. A call naming a functor no head has cannot
//! succeed: its rule is dropped (a negated one is dropped from its rule).
//! A call with a variable there, `(anyLegalMove ?p) :- (legal2 ?p ?m)`,
//! is one copy of its rule per functor, the variable replaced by the
//! functor applied to new variables: every answer has one of these forms,
//! so the copies have the rule's answers.
//!
//! Only relations the queries do not name (no keyword) are rewritten; not
//! where a head has a variable or a constant at that position, nor where a
//! negated call has a variable there (the negation holds for the other
//! terms the variable may stand for), nor where a rule would be copied
//! more than [`MAX_COPIES`] times. The pass repeats for nested compounds.

use super::cost::{MAX_COPIES, MAX_SPLITS};
use crate::front::ir::{Atom, Literal, PredId, Program, Rule, Term};
use crate::front::symbols::Sym;

/// A position of a relation to flatten, with the functors its heads have
/// there (name and arity), in order.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Flat {
    pred: PredId,
    pos: usize,
    functors: Vec<(Sym, usize)>,
}

/// The program with the compound arguments that can be flattened flattened
/// (see the module doc); the same program when there are none.
pub fn flatten(program: &Program) -> std::borrow::Cow<'_, Program> {
    let mut out = std::borrow::Cow::Borrowed(program);
    for _ in 0..MAX_SPLITS {
        let Some(flat) = candidate(&out) else {
            break;
        };
        let p = out.to_mut();
        let to: Vec<PredId> = flat
            .functors
            .iter()
            .map(|&f| new_pred(p, flat.pred, f))
            .collect();
        let rules = std::mem::take(&mut p.rules);
        let symbols = &mut p.symbols;
        p.rules = rules
            .into_iter()
            .flat_map(|r| copies(r, &flat, symbols))
            .filter_map(|r| route(r, &flat, &to))
            .collect();
    }
    out
}

/// The functor and arity of a compound term.
fn functor(t: &Term) -> Option<(Sym, usize)> {
    match t {
        Term::Func(f, args) => Some((*f, args.len())),
        _ => None,
    }
}

/// The first flattenable position of the first relation that has one.
fn candidate(program: &Program) -> Option<Flat> {
    // Each relation's heads and calls, in one pass over the rules.
    let n = program.preds.len();
    let (mut heads, mut calls): (Vec<Vec<&Atom>>, Vec<Vec<&Literal>>) =
        (vec![Vec::new(); n], vec![Vec::new(); n]);
    for rule in &program.rules {
        heads[rule.head.pred.0 as usize].push(&rule.head);
        for lit in &rule.body {
            if let Literal::Pos(a) | Literal::Neg(a) = lit {
                calls[a.pred.0 as usize].push(lit);
            }
        }
    }
    (0..n).find_map(|i| {
        let pred = PredId(i as u32);
        if program.pred_keyword(pred).is_some() || heads[i].is_empty() {
            return None;
        }
        (0..program.pred(pred).arity)
            .filter_map(|pos| position(pred, pos, &heads[i], &calls[i]))
            .find(|flat| copies_at_most(program, flat, MAX_COPIES))
    })
}

/// `pred`'s position `pos` as a [`Flat`] if every head has a compound
/// there and every call a compound or (not negated) a variable, and some
/// call names a functor (else the rewrite only moves the building of the
/// terms from the relation's rules to its callers).
fn position(pred: PredId, pos: usize, heads: &[&Atom], calls: &[&Literal]) -> Option<Flat> {
    let mut functors = heads
        .iter()
        .map(|h| functor(&h.args[pos]))
        .collect::<Option<Vec<_>>>()?;
    functors.sort_unstable();
    functors.dedup();
    let mut named = false;
    for lit in calls {
        match lit {
            Literal::Pos(a) | Literal::Neg(a) if functor(&a.args[pos]).is_some() => named = true,
            Literal::Pos(a) if matches!(a.args[pos], Term::Var(_)) => {}
            _ => return None,
        }
    }
    named.then_some(Flat {
        pred,
        pos,
        functors,
    })
}

/// Whether no rule has more than `max` copies under `flat`.
fn copies_at_most(program: &Program, flat: &Flat, max: usize) -> bool {
    program.rules.iter().all(|r| {
        let vars = replaced_vars(r, flat).len() as u32;
        flat.functors
            .len()
            .checked_pow(vars)
            .is_some_and(|c| c <= max)
    })
}

/// The variables `rule`'s calls of `flat`'s relation pass at its position.
fn replaced_vars(rule: &Rule, flat: &Flat) -> Vec<u32> {
    let mut vars: Vec<u32> = rule
        .body
        .iter()
        .filter_map(|lit| match lit {
            Literal::Pos(a) if a.pred == flat.pred => match a.args[flat.pos] {
                Term::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        })
        .collect();
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// `rule`, once for each functor each replaced variable may stand for.
fn copies(rule: Rule, flat: &Flat, symbols: &mut crate::front::symbols::Symbols) -> Vec<Rule> {
    let vars = replaced_vars(&rule, flat);
    let mut out = vec![rule];
    for v in vars {
        out = out
            .into_iter()
            .flat_map(|r| {
                flat.functors
                    .iter()
                    .map(move |&f| (r.clone(), f))
                    .collect::<Vec<_>>()
            })
            .map(|(r, f)| substitute(r, v, f, symbols))
            .collect();
    }
    out
}

/// `rule` with variable `v` replaced by `functor` applied to new variables
/// (named after `v`).
fn substitute(
    mut rule: Rule,
    v: u32,
    (f, arity): (Sym, usize),
    symbols: &mut crate::front::symbols::Symbols,
) -> Rule {
    let base = symbols.name(rule.var_names[v as usize]).to_string();
    let first = rule.var_names.len() as u32;
    for i in 0..arity {
        rule.var_names
            .push(symbols.intern(&format!("{base}_{}", i + 1)));
    }
    let term = Term::Func(f, (first..first + arity as u32).map(Term::Var).collect());
    let put = |t: &mut Term| replace(t, v, &term);
    rule.head.args.iter_mut().for_each(put);
    for lit in &mut rule.body {
        match lit {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter_mut().for_each(put),
            Literal::Distinct(a, b, _) => {
                put(a);
                put(b);
            }
        }
    }
    rule
}

/// `t` with variable `v` replaced by `by`.
fn replace(t: &mut Term, v: u32, by: &Term) {
    match t {
        Term::Var(x) if *x == v => *t = by.clone(),
        Term::Func(_, args) => args.iter_mut().for_each(|a| replace(a, v, by)),
        _ => {}
    }
}

/// `rule` with `flat`'s relation replaced by the relation of the functor
/// at its position (`to`, in the order of `flat.functors`); `None` when a
/// positive call names a functor no head has.
fn route(mut rule: Rule, flat: &Flat, to: &[PredId]) -> Option<Rule> {
    let which = |a: &Atom| {
        functor(&a.args[flat.pos]).and_then(|f| flat.functors.iter().position(|&g| g == f))
    };
    if rule.head.pred == flat.pred {
        let i = which(&rule.head).expect("every head of a flattened relation has a functor");
        rewrite(&mut rule.head, flat.pos, to[i]);
    }
    let mut body = Vec::with_capacity(rule.body.len());
    for mut lit in rule.body {
        match &mut lit {
            Literal::Pos(a) | Literal::Neg(a) if a.pred == flat.pred => match which(a) {
                Some(i) => rewrite(a, flat.pos, to[i]),
                None if matches!(lit, Literal::Pos(_)) => return None,
                None => continue,
            },
            _ => {}
        }
        body.push(lit);
    }
    rule.body = body;
    Some(rule)
}

/// A new relation for `pred` with `functor`'s arguments in place of one
/// argument, named after the relation and the functor.
fn new_pred(program: &mut Program, pred: PredId, (functor, arity): (Sym, usize)) -> PredId {
    let info = program.pred(pred).clone();
    let base = format!(
        "{}__{}",
        program.symbols.name(info.name),
        program.symbols.name(functor)
    );
    let arity = info.arity - 1 + arity;
    let mut name = base.clone();
    let mut k = 1;
    while program.symbols.lookup(&name).is_some_and(|s| {
        program
            .preds
            .iter()
            .any(|p| p.name == s && p.arity == arity)
    }) {
        k += 1;
        name = format!("{base}{k}");
    }
    let sym = program.symbols.intern(&name);
    program.intern_pred(sym, arity, false)
}

/// `atom` as a call of `to`: the compound at `pos` spread into arguments.
fn rewrite(atom: &mut Atom, pos: usize, to: PredId) {
    let Term::Func(_, inner) = atom.args[pos].clone() else {
        unreachable!("the flattened position holds a compound")
    };
    atom.args.splice(pos..=pos, inner.into_vec());
    atom.pred = to;
}
#[cfg(test)]
mod tests {
    use super::super::tests::checked_program as program;
    use super::*;

    #[test]
    fn a_compound_every_head_and_call_spells_alike_is_flattened() {
        let p = program(
            "(role a) (init (at 1)) (<= (legal a (go ?x)) (true (at ?x)) (step (m ?x (n ?x))))
             (<= (step (m ?x (n ?y))) (succ ?x ?y)) (succ 1 2)
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (not (step (m 1 (n 1)))))
             (goal a 100)",
        );
        let t = flatten(&p).summary();
        assert!(t.contains("(step__m__n ?x ?y)"), "{t}");
        assert!(t.contains("(step__m__n ?x ?x)"), "{t}");
        assert!(t.contains("(not (step__m__n 1 1))"), "{t}");
        // Keywords keep their terms.
        assert!(t.contains("(legal a (go ?x))"), "{t}");
    }

    #[test]
    fn heads_with_several_functors_split_the_relation_by_functor() {
        let p = program(
            "(role a) (init (at 1)) (succ 1 2)
             (<= (mv (go ?x)) (true (at ?x))) (<= (mv (jump ?x ?y)) (true (at ?x)) (succ ?x ?y))
             (<= (legal a (go ?x)) (mv (go ?x)))
             (<= (any ?m) (mv ?m))
             (<= (legal a (stay ?x)) (true (at ?x)) (mv (stay ?x)))
             (<= (next (at ?y)) (does a (go ?y)) (not (mv (fly ?y))))
             (<= terminal (any (jump 1 2))) (goal a 100)",
        );
        let t = flatten(&p).summary();
        assert!(t.contains("(<= (mv__go ?x) (true (at ?x)))"), "{t}");
        assert!(
            t.contains("(<= (mv__jump ?x ?y) (true (at ?x)) (succ ?x ?y))"),
            "{t}"
        );
        assert!(t.contains("(<= (legal a (go ?x)) (mv__go ?x))"), "{t}");
        // A call with a variable there: a copy of its rule for each functor
        // (here `any`, so rewritten, is then flattened in turn).
        assert!(t.contains("(<= (any__go ?m_1) (mv__go ?m_1))"), "{t}");
        assert!(
            t.contains("(<= (any__jump ?m_1 ?m_2) (mv__jump ?m_1 ?m_2))"),
            "{t}"
        );
        assert!(t.contains("(<= terminal (any__jump 1 2))"), "{t}");
        // A functor no head has: the call fails, the negation holds.
        assert!(!t.contains("stay"), "{t}");
        assert!(t.contains("(<= (next (at ?y)) (does a (go ?y)))"), "{t}");
    }

    #[test]
    fn a_negated_call_with_a_variable_there_keeps_the_relation_whole() {
        let p = program(
            "(role a) (init (at 1)) (<= (legal a (go ?x)) (true (at ?x)) (step (m ?x)))
             (<= (step (m ?x)) (succ ?x ?y)) (succ 1 2) (<= (other ?s) (true (at ?s)) (not (step ?s)))
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (other 1))
             (goal a 100)",
        );
        assert!(matches!(flatten(&p), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_relation_no_call_names_a_functor_of_keeps_its_terms() {
        // Flattening would only move the building of `(m ..)` to `other`.
        let p = program(
            "(role a) (init (at 1)) (<= (legal a (go ?x)) (true (at ?x)) (step ?s))
             (<= (step (m ?x)) (succ ?x ?y)) (succ 1 2)
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (step ?s) (true (at 2)))
             (goal a 100)",
        );
        assert!(matches!(flatten(&p), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_rule_copied_more_than_the_limit_keeps_the_relation_whole() {
        // Three variables over two functors: eight copies of the rule.
        let p = program(
            "(role a) (init (at 1)) (succ 1 2)
             (<= (mv (go ?x)) (true (at ?x))) (<= (mv (stay ?x)) (true (at ?x)))
             (<= (three ?a ?b ?c) (mv ?a) (mv ?b) (mv ?c))
             (<= (legal a (go ?x)) (mv (go ?x)))
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (three ?a ?b ?c))
             (goal a 100)",
        );
        assert!(matches!(flatten(&p), std::borrow::Cow::Borrowed(_)));
    }
}
