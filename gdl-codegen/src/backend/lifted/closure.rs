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

use crate::rules::{CRule, Lit, Pat};

use super::join_order::{Adorn, EXISTS};

/// How a list of `rel` with a key is computed as a closure.
pub enum Closure {
    /// The recursion keeps the key: a worklist of answers.
    Answers {
        /// Rules of `rel` without a recursive literal.
        base: Vec<usize>,
        /// The recursive rules, each with the recursive literal taken out
        /// and its free arguments appended to the head as bound parameters.
        steps: Vec<CRule>,
        /// The adornment the step rules are planned with: the key's, and
        /// the appended parameters.
        step_adorn: Adorn,
    },
    /// The recursion passes the answers through (amazonsTorus's
    /// `horizontalMove(x1, y, ?x3, ?y)` from the next square's): a worklist
    /// of keys, each key's base answers those of the first.
    Keys {
        /// Rules of `rel` without a recursive literal.
        base: Vec<usize>,
        /// The recursive rules, each with the recursive literal taken out
        /// and its key arguments appended to the head, to be computed.
        steps: Vec<CRule>,
        /// The free arguments (as indices among them) whose variable the
        /// recursion keeps in a key argument (as an index among the keys):
        /// answers from later keys must agree with the first key there.
        kept: Vec<(usize, usize)>,
    },
}

/// The closure of `rel` called with `adorn`, if `rel` is alone on its cycle
/// (which the caller checks), the call has answers, and every recursive rule
/// has one recursive literal that either passes the head's key arguments
/// through ([`Closure::Answers`]) or its answers ([`Closure::Keys`]).
pub fn closure(rules: &[CRule], rel: u32, arity: usize, adorn: Adorn) -> Option<Closure> {
    let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
    let free: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 0).collect();
    if adorn & EXISTS != 0 || free.is_empty() || arity + free.len().max(keys.len()) >= 31 {
        return None;
    }
    let mut base = Vec::new();
    let mut recursive = Vec::new();
    for (i, rule) in rules.iter().enumerate().filter(|(_, r)| r.head_rel == rel) {
        let on_rel: Vec<usize> = (0..rule.body.len())
            .filter(|&j| matches!(&rule.body[j], Lit::Pos(p, _) | Lit::Neg(p, _) if *p == rel))
            .collect();
        match on_rel[..] {
            [] => base.push(i),
            [j] if matches!(rule.body[j], Lit::Pos(..)) => recursive.push((rule, j)),
            _ => return None,
        }
    }
    if recursive.is_empty() {
        return None;
    }
    let answers: Option<Vec<CRule>> = recursive
        .iter()
        .map(|&(rule, j)| answers_step(rule, j, &keys, &free))
        .collect();
    if let Some(steps) = answers {
        let extra = ((1u32 << free.len()) - 1) << arity;
        return Some(Closure::Answers {
            base,
            steps,
            step_adorn: adorn | extra,
        });
    }
    let mut kept = None;
    let mut steps = Vec::new();
    for &(rule, j) in &recursive {
        let (step, rule_kept) = keys_step(rule, j, &keys, &free)?;
        if kept.get_or_insert_with(|| rule_kept.clone()) != &rule_kept {
            return None;
        }
        steps.push(step);
    }
    Some(Closure::Keys {
        base,
        steps,
        kept: kept.unwrap_or_default(),
    })
}

/// The recursive literal `j` of `rule`, if positive.
fn recursive_args(rule: &CRule, j: usize) -> &[Pat] {
    match &rule.body[j] {
        Lit::Pos(_, args) | Lit::Neg(_, args) => args,
        Lit::Distinct(..) => &[],
    }
}

/// `rule` with its recursive literal `j` taken out, the literal's `free`
/// arguments appended to the head; `None` unless the literal passes the
/// head's `keys` arguments through.
fn answers_step(rule: &CRule, j: usize, keys: &[usize], free: &[usize]) -> Option<CRule> {
    let args = recursive_args(rule, j);
    if keys.iter().any(|&k| args[k] != rule.head[k]) {
        return None;
    }
    Some(appended(rule, j, free.iter().map(|&f| args[f].clone())))
}

/// `rule` with its recursive literal `j` taken out, the literal's `keys`
/// arguments appended to the head, and the free arguments whose variable it
/// keeps in a key argument; `None` unless the literal passes the head's
/// `free` arguments through: each a variable, either found nowhere else in
/// the rule (once among them) or kept in a key argument, and every variable
/// of its key arguments bound by the rest of the rule.
fn keys_step(
    rule: &CRule,
    j: usize,
    keys: &[usize],
    free: &[usize],
) -> Option<(CRule, Vec<(usize, usize)>)> {
    let args = recursive_args(rule, j);
    let mut elsewhere = vec![0u32; rule.num_vars];
    let mut bound = vec![false; rule.num_vars];
    for &k in keys {
        rule.head[k].for_each_var(&mut |v| bound[v as usize] = true);
    }
    for (_, lit) in rule.body.iter().enumerate().filter(|&(i, _)| i != j) {
        lit.for_each_var(&mut |v| elsewhere[v as usize] += 1);
        if let Lit::Pos(..) = lit {
            lit.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    for &k in keys {
        rule.head[k].for_each_var(&mut |v| elsewhere[v as usize] += 1);
    }
    let mut kept = Vec::new();
    let mut pure = Vec::new();
    for (fi, &f) in free.iter().enumerate() {
        let Pat::Var(v) = args[f] else { return None };
        if rule.head[f] != args[f] {
            return None;
        }
        if let Some(ki) = keys
            .iter()
            .position(|&k| rule.head[k] == Pat::Var(v) && args[k] == Pat::Var(v))
        {
            kept.push((fi, ki));
        } else if elsewhere[v as usize] == 0 && !pure.contains(&v) {
            pure.push(v);
        } else {
            return None;
        }
    }
    let mut computable = true;
    for &k in keys {
        args[k].for_each_var(&mut |v| computable &= bound[v as usize]);
    }
    computable.then(|| {
        (
            appended(rule, j, keys.iter().map(|&k| args[k].clone())),
            kept,
        )
    })
}

/// `rule` without body literal `j`, with `extra` appended to its head.
fn appended(rule: &CRule, j: usize, extra: impl Iterator<Item = Pat>) -> CRule {
    let head: Vec<Pat> = rule.head.iter().cloned().chain(extra).collect();
    let mut body = rule.body.clone();
    body.remove(j);
    CRule {
        head_rel: rule.head_rel,
        head: head.into_boxed_slice(),
        body,
        num_vars: rule.num_vars,
    }
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
        let Some(Closure::Answers {
            base,
            steps,
            step_adorn,
        }) = closure(&reach(var(1)), 0, 2, 0b10)
        else {
            panic!("a closure from the answers");
        };
        assert_eq!(base, vec![0]);
        assert!(matches!(&steps[0].body[..], [Lit::Pos(1, args)] if args[..] == [var(0), var(2)]));
        assert_eq!(&steps[0].head[..], &[var(0), var(1), var(2)]);
        assert_eq!(step_adorn, 0b110);
    }

    #[test]
    fn a_recursion_that_passes_the_answers_through_is_a_closure_from_the_keys() {
        // Asked with `?a` known, `reach(?c, b)` passes `b` through.
        let Some(Closure::Keys { base, steps, kept }) = closure(&reach(var(1)), 0, 2, 0b01) else {
            panic!("a closure from the keys");
        };
        assert_eq!(base, vec![0]);
        assert_eq!(&steps[0].head[..], &[var(0), var(1), var(2)]);
        assert!(kept.is_empty());
    }

    #[test]
    fn no_closure_when_the_recursion_changes_what_it_would_pass_or_nothing_is_free() {
        // `reach(?c, ?a)`: neither the key nor the answer passes through.
        assert!(closure(&reach(var(0)), 0, 2, 0b10).is_none());
        assert!(closure(&reach(var(0)), 0, 2, 0b01).is_none());
        assert!(closure(&reach(var(1)), 0, 2, 0b11).is_none());
        assert!(closure(&reach(var(1)), 0, 2, 0b10 | EXISTS).is_none());
    }
}
