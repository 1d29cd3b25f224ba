//! Relations left to run time: those whose relaxed extension is too large
//! to derive at compile time, where nothing the compile time needs depends
//! on them.
//!
//! The lifted back end derives at compile time the static relations (they
//! become tables) and an over-approximation of what `base` and `input`
//! depend on (to enumerate fluents and moves). Some games name relations
//! whose extension explodes although every use of them is a test with its
//! arguments bound: sudoku's `exactlyFirst/10` (nine digits, 9^9 tuples),
//! the rule-depth stress test's 22-ary `prereq22`, merrills' counting loop
//! over the relaxed state. Such a relation can be evaluated by the generated
//! code on demand instead, as the dynamic relations are, when
//! - no rule needs it to bind a variable, except rules whose head is
//!   deferred as well (leaving the literal out of the relaxed rule then only
//!   makes the over-approximation larger);
//! - no static relation depends on it (static tables must be exact: such a
//!   relation is deferred too);
//! - none of `role`, `init`, `legal`, `next`, `base`, `input` is deferred;
//! - no deferred rule builds a term with a variable in its head, so that
//!   every tuple it derives at run time is made of terms of the universe;
//!   or else, as a last resort, the generated code builds such terms at run
//!   time ([`builds_terms`]): laikLee_hex's `append_el` and `isList` over
//!   lists of up to 25 cells, which no compile-time universe can hold. The
//!   terms stay within the deferred relations and the tests that read them:
//!   no move or fluent can be one, since none of the relations above is
//!   deferred and no rule outside may bind a variable through them.

use crate::front::ir::{Literal, Program, Rule, Term};
use crate::front::symbols::Keyword;

/// Marks `failed` (the relation whose derivation went over the budget) and
/// what must go with it in `deferred`; `dynamic` is
/// [`dynamic_relations`](crate::ground::domains::dynamic_relations) of the
/// program; `run_time_terms` allows deferred rules to build terms. Returns
/// false, leaving `deferred` unusable, when the game cannot do without
/// deriving them.
pub fn defer(
    program: &Program,
    dynamic: &[bool],
    failed: usize,
    deferred: &mut [bool],
    run_time_terms: bool,
) -> bool {
    deferred[failed] = true;
    loop {
        let mut changed = false;
        for rule in &program.rules {
            let head = rule.head.pred.0 as usize;
            if deferred[head] || !uses_deferred(rule, deferred) {
                continue;
            }
            if !dynamic[head] || !droppable(rule, deferred, dynamic) {
                deferred[head] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let kept = [
        Keyword::Role,
        Keyword::Init,
        Keyword::Legal,
        Keyword::Next,
        Keyword::Base,
        Keyword::Input,
    ];
    let core = kept
        .iter()
        .filter_map(|&k| program.keyword_pred(k))
        .any(|p| deferred[p.0 as usize]);
    !core && (run_time_terms || !builds_terms(program, deferred))
}

/// Whether a rule of a deferred relation builds a term at run time: a head
/// argument with a variable inside a function term.
pub fn builds_terms(program: &Program, deferred: &[bool]) -> bool {
    program
        .rules
        .iter()
        .filter(|r| deferred[r.head.pred.0 as usize])
        .any(|r| !r.head.args.iter().all(flat))
}

/// Whether the rule's body names a deferred relation.
fn uses_deferred(rule: &Rule, deferred: &[bool]) -> bool {
    rule.body.iter().any(|l| match l {
        Literal::Pos(a) | Literal::Neg(a) => deferred[a.pred.0 as usize],
        Literal::Distinct(..) => false,
    })
}

/// Whether the rule stays safe without its literals on deferred relations:
/// every variable of its head, of its `distinct`s and of its negations of
/// static relations (what the relaxed rule keeps) occurs in a positive
/// literal on a relation that is not deferred.
fn droppable(rule: &Rule, deferred: &[bool], dynamic: &[bool]) -> bool {
    let mut bound = vec![false; rule.num_vars()];
    let mut needed = vec![false; rule.num_vars()];
    let mark = |v: &mut Vec<bool>, t: &Term| t.for_each_var(&mut |x| v[x as usize] = true);
    for t in &rule.head.args {
        mark(&mut needed, t);
    }
    for l in &rule.body {
        match l {
            Literal::Pos(a) if !deferred[a.pred.0 as usize] => {
                a.args.iter().for_each(|t| mark(&mut bound, t));
            }
            Literal::Neg(a) if !deferred[a.pred.0 as usize] && !dynamic[a.pred.0 as usize] => {
                a.args.iter().for_each(|t| mark(&mut needed, t));
            }
            Literal::Distinct(a, b, _) => {
                mark(&mut needed, a);
                mark(&mut needed, b);
            }
            _ => {}
        }
    }
    needed.iter().zip(&bound).all(|(&n, &b)| !n || b)
}

/// Whether a head argument builds no term at run time: a variable, a
/// constant, or a ground term.
fn flat(t: &Term) -> bool {
    matches!(t, Term::Var(_) | Term::Const(_)) || t.is_ground()
}

#[cfg(test)]
mod tests {
    use super::super::tests::checked_program as program;
    use super::*;
    use crate::ground::domains;

    fn pred(p: &Program, name: &str) -> usize {
        (0..p.preds.len())
            .find(|&i| {
                let info = &p.preds[i];
                p.symbols.name(info.name) == name
            })
            .expect("a relation of that name")
    }

    /// Whether [`defer`] allows relation `name` of `p` to run at run time,
    /// and the relations it marks.
    fn try_defer(p: &Program, name: &str) -> (bool, Vec<bool>) {
        let mut d = vec![false; p.preds.len()];
        let ok = defer(
            p,
            &domains::dynamic_relations(p),
            pred(p, name),
            &mut d,
            false,
        );
        (ok, d)
    }

    const GAME: &str = "(role r) (init (c 1)) (n 1) (n 2) (n 3)
        (<= (big ?a ?b ?c) (n ?a) (n ?b) (n ?c))
        (<= (legal r (go ?x)) (true (c ?x)) (big ?x ?x ?x))
        (<= (next (c ?x)) (does r (go ?x)))
        (<= (uses ?a) (big ?a ?a ?a))
        (<= terminal (true (c 3)))
        (<= (goal r 100) (uses 1))";

    #[test]
    fn a_filter_is_deferred_with_the_static_relations_over_it() {
        let p = program(GAME);
        let (ok, d) = try_defer(&p, "big");
        assert!(ok);
        assert!(d[pred(&p, "big")]);
        // `uses` is static: its table would be exact only with `big`.
        assert!(d[pred(&p, "uses")]);
        assert!(!d[pred(&p, "legal")]);
        assert!(!d[pred(&p, "n")]);
    }

    #[test]
    fn a_relation_that_binds_a_move_cannot_be_deferred() {
        let p = program(
            "(role r) (init (c 1)) (n 1) (n 2)
             (<= (pick ?a) (n ?a))
             (<= (legal r (go ?x)) (pick ?x))
             (<= (next (c ?x)) (does r (go ?x)))
             (<= terminal (true (c 2)))
             (<= (goal r 100) (true (c 2)))",
        );
        assert!(!try_defer(&p, "pick").0);
    }

    #[test]
    fn a_relation_building_terms_cannot_be_deferred() {
        let p = program(
            "(role r) (init (c 1)) (n 1) (n 2)
             (<= (wrap (f ?a)) (n ?a))
             (<= (legal r (go ?x)) (true (c ?x)) (wrap (f ?x)))
             (<= (next (c ?x)) (does r (go ?x)))
             (<= terminal (true (c 2)))
             (<= (goal r 100) (true (c 2)))",
        );
        assert!(!try_defer(&p, "wrap").0);
        // Unless the generated code may build terms at run time.
        let mut d = vec![false; p.preds.len()];
        let dynamic = domains::dynamic_relations(&p);
        assert!(defer(&p, &dynamic, pred(&p, "wrap"), &mut d, true));
        assert!(builds_terms(&p, &d));
    }
}
