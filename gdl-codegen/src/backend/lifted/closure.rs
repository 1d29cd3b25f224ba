//! Answer lists of a self-recursive relation whose recursion keeps the key.
//!
//! chess.kif's `clear_diagonal_ne(?u, ?v, x, y)` asks for the squares from
//! which the diagonal to a known `(x, y)` is clear. Its recursive rule
//! calls itself with the same `(x, y)`:
//!
//! ```text
//! (<= (clear_diagonal_ne ?u ?v ?x ?y)
//!     (next_file ?u ?u2) (next_rank ?v ?v2) (true (cell ?u2 ?v2 b))
//!     (clear_diagonal_ne ?u2 ?v2 ?x ?y))
//! ```
//!
//! Evaluated top-down, that call is the call itself again (it falls back to
//! the component's whole fixpoint), so the planner binds `?u2 ?v2` first and
//! tests every square. Here the answers for one key are a closure instead,
//! computed semi-naively: the base rules give the first answers, and each
//! answer, once, is the recursive literal's solution from which the
//! recursive rules derive more (from `(u2, v2)`, the square before it). The
//! recursive literal's free arguments become parameters of the rule, bound
//! from the answer, and the rest of the body is planned as usual.

use crate::lifted::{CRule, Lit, Pat};

use super::plan::{Adorn, EXISTS};

/// How a list of `rel` with a key is computed as a closure.
pub struct Closure {
    /// Rules of `rel` without a recursive literal.
    pub base: Vec<usize>,
    /// The recursive rules, each with the recursive literal taken out and
    /// its free arguments appended to the head as bound parameters.
    pub steps: Vec<CRule>,
    /// The adornment the step rules are planned with: the key's, and the
    /// appended parameters.
    pub step_adorn: Adorn,
}

/// The closure of `rel` called with `adorn`, if `rel` is alone on its cycle,
/// the call has answers, and every recursive rule has one recursive literal
/// passing the head's key arguments through unchanged.
pub fn closure(rules: &[CRule], rel: u32, arity: usize, adorn: Adorn) -> Option<Closure> {
    let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
    let free: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 0).collect();
    if adorn & EXISTS != 0 || free.is_empty() || arity + free.len() >= 31 {
        return None;
    }
    let mut base = Vec::new();
    let mut steps = Vec::new();
    for (i, rule) in rules.iter().enumerate().filter(|(_, r)| r.head_rel == rel) {
        let on_rel: Vec<usize> = (0..rule.body.len())
            .filter(|&j| matches!(&rule.body[j], Lit::Pos(p, _) | Lit::Neg(p, _) if *p == rel))
            .collect();
        match on_rel[..] {
            [] => base.push(i),
            [j] => steps.push(step_rule(rule, j, &keys, &free)?),
            _ => return None,
        }
    }
    let extra = ((1u32 << free.len()) - 1) << arity;
    (!steps.is_empty()).then_some(Closure {
        base,
        steps,
        step_adorn: adorn | extra,
    })
}

/// `rule` with its recursive literal `j` taken out, the literal's `free`
/// arguments appended to the head; `None` unless the literal is positive and
/// passes the head's `keys` arguments through.
fn step_rule(rule: &CRule, j: usize, keys: &[usize], free: &[usize]) -> Option<CRule> {
    let Lit::Pos(_, args) = &rule.body[j] else {
        return None;
    };
    if keys.iter().any(|&k| args[k] != rule.head[k]) {
        return None;
    }
    let head: Vec<Pat> = rule
        .head
        .iter()
        .cloned()
        .chain(free.iter().map(|&f| args[f].clone()))
        .collect();
    let mut body = rule.body.clone();
    body.remove(j);
    Some(CRule {
        head_rel: rule.head_rel,
        head: head.into_boxed_slice(),
        body,
        num_vars: rule.num_vars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    /// `reach(?a, b) :- edge(?a, b)` and `reach(?a, b) :- edge(?a, ?c),
    /// reach(?c, b)`: asked with `b` known, the recursion keeps `b`.
    fn reach(recursive_key: Pat) -> Vec<CRule> {
        vec![
            CRule {
                head_rel: 0,
                head: vec![var(0), var(1)].into(),
                body: vec![Lit::Pos(1, [var(0), var(1)].into())],
                num_vars: 2,
            },
            CRule {
                head_rel: 0,
                head: vec![var(0), var(1)].into(),
                body: vec![
                    Lit::Pos(1, [var(0), var(2)].into()),
                    Lit::Pos(0, [var(2), recursive_key].into()),
                ],
                num_vars: 3,
            },
        ]
    }

    #[test]
    fn a_recursion_that_keeps_the_key_is_a_closure_from_the_answers() {
        let c = closure(&reach(var(1)), 0, 2, 0b10).expect("a closure");
        assert_eq!(c.base, vec![0]);
        assert_eq!(c.steps.len(), 1);
        assert!(
            matches!(&c.steps[0].body[..], [Lit::Pos(1, args)] if args[..] == [var(0), var(2)])
        );
        assert_eq!(&c.steps[0].head[..], &[var(0), var(1), var(2)]);
        assert_eq!(c.step_adorn, 0b110);
    }

    #[test]
    fn no_closure_when_the_recursion_changes_the_key_or_nothing_is_free() {
        assert!(closure(&reach(var(0)), 0, 2, 0b10).is_none());
        assert!(closure(&reach(var(1)), 0, 2, 0b01).is_none());
        assert!(closure(&reach(var(1)), 0, 2, 0b11).is_none());
        assert!(closure(&reach(var(1)), 0, 2, 0b10 | EXISTS).is_none());
    }
}
