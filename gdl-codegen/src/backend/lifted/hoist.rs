//! Tests shared by every rule of a call, run once before them.
//!
//! The rules of a relation often open with the same test of the call's
//! arguments: chess.kif's eight `legal2` rules each test `(true (cell ?u
//! ?v ?piece))` before their own piece type, so a call with the piece and
//! its square bound tested that bit eight times. A test that every rule's
//! plan may run first (it is among the tests its plan runs before any
//! enumeration, which commute) is run once, around all of them.

use super::join_order::{argument_params, Adorn, Step};
use crate::rules::Pat;

/// The tests every one of `plans` (each a rule's plan for one call) runs
/// before its first enumeration, with the call's arguments in common,
/// removed from the plans. They are returned as a plan of their own over
/// variables numbered by argument (`Var(i)` is argument `i`), opened by
/// the arguments they read; empty when there are none, or fewer than two
/// plans to share them.
pub fn common_tests(plans: &mut [Vec<Step>]) -> Vec<Step> {
    if plans.len() < 2 {
        return Vec::new();
    }
    // Per plan, its leading tests by argument, with each one's step index.
    let leading: Vec<Vec<(usize, Step)>> = plans.iter().map(|p| leading_tests(p)).collect();
    let mut hoisted = Vec::new();
    let mut removed: Vec<Vec<usize>> = vec![Vec::new(); plans.len()];
    for (_, test) in &leading[0] {
        // The occurrence of `test` in each plan not yet taken by another.
        let found: Option<Vec<usize>> = (leading.iter().zip(&removed))
            .map(|(tests, taken)| {
                tests
                    .iter()
                    .find(|(i, t)| t == test && !taken.contains(i))
                    .map(|&(i, _)| i)
            })
            .collect();
        if let Some(found) = found {
            (removed.iter_mut().zip(found)).for_each(|(taken, i)| taken.push(i));
            hoisted.push(test.clone());
        }
    }
    if hoisted.is_empty() {
        return hoisted;
    }
    for (plan, taken) in plans.iter_mut().zip(&removed) {
        let mut i = 0;
        plan.retain(|_| {
            i += 1;
            !taken.contains(&(i - 1))
        });
    }
    // The arguments the tests read, as an adornment.
    let (mut read, mut arity): (Adorn, usize) = (0, 0);
    for s in &hoisted {
        for_each_pat(s, |p| {
            p.for_each_var(&mut |v| {
                read |= 1 << v;
                arity = arity.max(v as usize + 1);
            })
        });
    }
    let mut steps = argument_params(arity, read);
    steps.extend(hoisted);
    steps
}

/// The tests `plan` runs after its arguments and before anything that
/// binds a variable, each with its index, their variables renamed to the
/// arguments that bind them; those reading a variable no argument is
/// (matched inside an argument's term) are left out.
fn leading_tests(plan: &[Step]) -> Vec<(usize, Step)> {
    let mut arg_of = std::collections::BTreeMap::new();
    for s in plan {
        if let Step::Param {
            index,
            pat: Pat::Var(v),
        } = s
        {
            arg_of.entry(*v).or_insert(*index as u32);
        }
    }
    let tests = plan
        .iter()
        .enumerate()
        .skip_while(|(_, s)| matches!(s, Step::Param { .. }))
        .take_while(|(_, s)| is_test(s));
    tests
        .filter_map(|(i, s)| Some((i, by_argument(s, &arg_of)?)))
        .collect()
}

/// Whether step `s` binds nothing: `distinct`, or a literal with every
/// argument bound.
fn is_test(s: &Step) -> bool {
    match s {
        Step::Distinct(..) => true,
        Step::Lit { args, bound, .. } => *bound == (1 << args.len()) - 1,
        Step::Param { .. } => false,
    }
}

/// `s` with each variable renamed to the argument in `arg_of` that binds
/// it, if every one is.
fn by_argument(s: &Step, arg_of: &std::collections::BTreeMap<u32, u32>) -> Option<Step> {
    if matches!(s, Step::Param { .. }) {
        return None;
    }
    s.map_pats(|p| p.renamed(&|v| arg_of.get(&v).copied()))
}

/// Calls `f` on each pattern of a test step.
fn for_each_pat(s: &Step, mut f: impl FnMut(&Pat)) {
    match s {
        Step::Distinct(a, b) => {
            f(a);
            f(b);
        }
        Step::Lit { args, .. } => args.iter().for_each(f),
        Step::Param { pat, .. } => f(pat),
    }
}

#[cfg(test)]
mod tests {
    use super::super::join_order::Source;
    use super::*;

    fn param(index: usize, v: u32) -> Step {
        Step::Param {
            index,
            pat: Pat::Var(v),
        }
    }

    fn test(rel: u32, args: &[Pat]) -> Step {
        Step::Lit {
            source: Source::True,
            rel,
            args: args.into(),
            negated: false,
            bound: (1 << args.len()) - 1,
        }
    }

    fn scan(rel: u32, args: &[Pat]) -> Step {
        Step::Lit {
            source: Source::Static,
            rel,
            args: args.into(),
            negated: false,
            bound: 1,
        }
    }

    #[test]
    fn a_test_every_rule_opens_with_is_run_once_by_argument() {
        use Pat::{Ground, Var};
        // r(A, B) :- cell(A, B), kind(B, 7), ...   (variables 0, 1)
        // r(A, B) :- kind(B, 8), cell(A, B), ...   (variables 3, 2)
        let mut plans = vec![
            vec![
                param(0, 0),
                param(1, 1),
                test(5, &[Var(0), Var(1)]),
                test(6, &[Var(1), Ground(7)]),
                scan(9, &[Var(1), Var(4)]),
            ],
            vec![
                param(0, 3),
                param(1, 2),
                test(6, &[Var(2), Ground(8)]),
                test(5, &[Var(3), Var(2)]),
                scan(9, &[Var(2), Var(4)]),
            ],
        ];
        let hoisted = common_tests(&mut plans);
        assert_eq!(
            hoisted,
            vec![param(0, 0), param(1, 1), test(5, &[Var(0), Var(1)])]
        );
        assert_eq!(plans[0].len(), 4);
        assert_eq!(plans[0][2], test(6, &[Var(1), Ground(7)]));
        assert_eq!(plans[1][2], test(6, &[Var(2), Ground(8)]));
        assert_eq!(plans[1][3], scan(9, &[Var(2), Var(4)]));
    }

    #[test]
    fn tests_after_an_enumeration_or_in_one_rule_only_stay() {
        use Pat::Var;
        let mut plans = vec![
            vec![param(0, 0), scan(9, &[Var(0), Var(1)]), test(5, &[Var(0)])],
            vec![param(0, 0), test(5, &[Var(0)])],
        ];
        let before = plans.clone();
        assert!(common_tests(&mut plans).is_empty());
        assert_eq!(plans, before);
        // One rule: nothing to share.
        let mut one = vec![vec![param(0, 0), test(5, &[Var(0)])]];
        assert!(common_tests(&mut one).is_empty());
        // A test of a variable no argument binds is not by argument.
        let mut inner = vec![
            vec![test(5, &[Var(3)]), param(0, 0)],
            vec![param(0, 0), test(5, &[Var(3)])],
        ];
        assert!(common_tests(&mut inner).is_empty());
    }
}
