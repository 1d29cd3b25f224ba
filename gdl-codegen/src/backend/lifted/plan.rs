//! Join plans of the lifted back end: for each relation a query needs and
//! each pattern of bound arguments it is called with (an adornment), the
//! order in which each rule's body is evaluated.
//!
//! The order is fixed at compile time, greedily: tests as soon as their
//! variables are bound (`distinct`, negations, fully bound literals), then
//! the literal expected to produce fewest solutions given what is bound.

use crate::lifted::order::next_literal;
use crate::lifted::{CRule, Lit, Pat};

/// Which arguments of a call are bound: bit `i` for argument `i`.
pub type Adorn = u32;

/// Where a literal's tuples come from at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A static relation: a constant table.
    Static,
    /// `true`: the state's bits.
    True,
    /// `does`: the joint move.
    Does,
    /// A derived relation outside any cycle: a memoized function.
    Derived,
    /// A derived relation on a cycle: the table its component computes.
    Table,
}

/// One step of a plan.
#[derive(Clone, Debug)]
pub enum Step {
    /// Argument `index` of the call, matched against the head's pattern.
    Param {
        /// Which argument.
        index: usize,
        /// The head's pattern there.
        pat: Pat,
    },
    /// A literal (its arguments fully bound ones tested, the rest bound by
    /// matching), `bound` being the arguments bound before it runs.
    Lit {
        /// Where its tuples come from.
        source: Source,
        /// Its relation.
        rel: u32,
        /// Its arguments.
        args: Box<[Pat]>,
        /// Under `not`.
        negated: bool,
        /// The arguments ground when it runs.
        bound: Adorn,
    },
    /// The two (bound) terms differ.
    Distinct(Pat, Pat),
}

/// What the planner needs to know of relations.
pub trait Catalog {
    /// Where `rel`'s tuples come from.
    fn source(&self, rel: u32) -> Source;
    /// An estimate of the number of tuples of `rel` matching a literal of
    /// which `leaves` constants or bound variables are known.
    fn estimate(&self, rel: u32, args: &[Pat], leaves: i32) -> f64;
}

/// The plan of `rule` called with the head arguments in `adorn` bound.
pub fn plan_rule(rule: &CRule, adorn: Adorn, catalog: &impl Catalog) -> Vec<Step> {
    let mut bound = vec![false; rule.num_vars];
    let mut steps = Vec::with_capacity(rule.body.len() + rule.head.len());
    for (index, pat) in rule.head.iter().enumerate() {
        if adorn >> index & 1 == 1 {
            steps.push(Step::Param {
                index,
                pat: pat.clone(),
            });
            pat.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    let mut done = vec![false; rule.body.len()];
    let cost = |rel, args: &[Pat], known| catalog.estimate(rel, args, known);
    while let Some(i) = next_literal(&rule.body, &done, &bound, cost) {
        done[i] = true;
        steps.push(step(&rule.body[i], &bound, catalog));
        rule.body[i].for_each_var(&mut |v| bound[v as usize] = true);
    }
    steps
}

/// The step of a literal evaluated with `bound` variables known.
fn step(lit: &Lit, bound: &[bool], catalog: &impl Catalog) -> Step {
    match lit {
        Lit::Pos(rel, args) | Lit::Neg(rel, args) => Step::Lit {
            source: catalog.source(*rel),
            rel: *rel,
            args: args.clone(),
            negated: matches!(lit, Lit::Neg(..)),
            bound: adornment(args, bound),
        },
        Lit::Distinct(a, b) => Step::Distinct(a.clone(), b.clone()),
    }
}

/// The arguments of `args` that are ground once `bound` variables are.
pub fn adornment(args: &[Pat], bound: &[bool]) -> Adorn {
    args.iter()
        .enumerate()
        .filter(|(_, a)| a.bound_by(bound))
        .fold(0, |m, (i, _)| m | 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sizes;

    impl Catalog for Sizes {
        fn source(&self, rel: u32) -> Source {
            if rel == 0 {
                Source::Static
            } else {
                Source::True
            }
        }

        fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
            let base = if rel == 0 { 1000.0 } else { 10.0 };
            base / 10f64.powi(leaves)
        }
    }

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    #[test]
    fn tests_run_as_soon_as_bound_and_small_relations_first() {
        // h(X) :- big(X, Y), small(Y), distinct(Y, 3).
        let rule = CRule {
            head_rel: 9,
            head: vec![var(0)].into(),
            body: vec![
                Lit::Pos(0, vec![var(0), var(1)].into()),
                Lit::Pos(1, vec![var(1)].into()),
                Lit::Distinct(var(1), Pat::Ground(3)),
            ],
            num_vars: 2,
        };
        let steps = plan_rule(&rule, 0, &Sizes);
        let order: Vec<String> = steps
            .iter()
            .map(|s| match s {
                Step::Lit { rel, bound, .. } => format!("{rel}:{bound:b}"),
                Step::Distinct(..) => "distinct".into(),
                Step::Param { index, .. } => format!("param{index}"),
            })
            .collect();
        assert_eq!(order, ["1:0", "distinct", "0:10"]);
        // With the head bound, the big relation is keyed on both arguments.
        let steps = plan_rule(&rule, 1, &Sizes);
        assert!(matches!(steps[0], Step::Param { index: 0, .. }));
        assert!(matches!(steps[1], Step::Lit { rel: 1, .. }));
    }
}
