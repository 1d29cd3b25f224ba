//! Whether a closure's recursion is a walk: each item (a key or an answer)
//! derives at most one next item, and no item comes back.
//!
//! chess.kif's rays are: `clear_column(u, v, ?y)` steps from `(u, v)` to
//! `(u, v2)` by `(next_rank v v2)`, which has one row per rank, and ranks
//! never come back along it. Such a closure needs no set of the items seen
//! (nothing repeats), and a worklist of keys is one key, replaced as the
//! walk goes (see [`super::recursion`]). A torus's `next` comes back, and
//! othello's `adj ?dir ?i ?j ?x ?y` steps from a square to the next only
//! for a kept `?dir`: the check below follows the item's positions that a
//! static literal relates, the kept ones among them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::cost::MAX_WALK_TABLE_ROWS;
use super::join_order::{Source, Step};
use super::plan::Bodies;
use crate::rules::{CRule, Lit, Pat};

/// Per relation, its tuples if it is static (see
/// [`super::facts::Facts::statics`]).
pub type StaticTuples = [Option<Vec<Vec<u32>>>];

/// Whether `step`, a closure's recursive rule with the recursive literal
/// taken out, derives from the item `old` at most one `new` item, and
/// along a static relation on which no item comes back. `known` are the
/// step's bound arguments (the item's among them), and `statics` holds
/// each static relation's tuples. Every variable of the step's positive
/// literals must follow from `known` through static literals that have at
/// most one row for what is bound (so that one item makes at most one run
/// of the body); the other literals test.
pub fn is_walk(
    step: &CRule,
    known: &[Pat],
    (old, new): (&[Pat], &[Pat]),
    statics: &StaticTuples,
) -> bool {
    old.len() == new.len()
        && functional(step, known, statics)
        && progresses(step, old, new, statics)
}

/// The tuples of `rel` if it is static and small enough to read.
fn table(statics: &StaticTuples, rel: u32) -> Option<&Vec<Vec<u32>>> {
    (statics.get(rel as usize)?.as_ref()).filter(|t| t.len() <= MAX_WALK_TABLE_ROWS)
}

/// Whether every variable of `step`'s positive literals follows from the
/// variables of `known` through static literals with at most one row per
/// combination of their bound columns.
fn functional(step: &CRule, known: &[Pat], statics: &StaticTuples) -> bool {
    let mut bound = vec![false; step.num_vars];
    for p in known {
        p.for_each_var(&mut |v| bound[v as usize] = true);
    }
    let is_bound = |p: &Pat, bound: &[bool]| {
        let mut all = true;
        p.for_each_var(&mut |v| all &= bound[v as usize]);
        all
    };
    loop {
        let mut grew = false;
        for lit in &step.body {
            let Lit::Pos(rel, args) = lit else { continue };
            if args.iter().all(|a| is_bound(a, &bound)) {
                continue;
            }
            let Some(tuples) = table(statics, *rel) else {
                continue;
            };
            let keys: Vec<usize> = (0..args.len())
                .filter(|&c| is_bound(&args[c], &bound))
                .collect();
            if at_most_one_row(tuples, &keys) {
                args.iter().for_each(|a| {
                    a.for_each_var(&mut |v| bound[v as usize] = true);
                });
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    (step.body.iter())
        .filter(|l| matches!(l, Lit::Pos(..)))
        .all(|l| {
            let mut all = true;
            l.for_each_var(&mut |v| all &= bound[v as usize]);
            all
        })
}

/// Whether static relation `rel`, if small enough to read, has at most
/// one row per combination of its `keys` columns.
pub fn at_most_one_row_in(statics: &StaticTuples, rel: u32, keys: &[usize]) -> bool {
    table(statics, rel).is_some_and(|t| at_most_one_row(t, keys))
}

/// Whether `tuples` have at most one row per combination of the `keys`
/// columns (the values of ground arguments are not told apart: a
/// combination with them is at most as many rows as without).
fn at_most_one_row(tuples: &[Vec<u32>], keys: &[usize]) -> bool {
    let mut seen = FxHashSet::default();
    (tuples.iter()).all(|t| seen.insert(keys.iter().map(|&c| t[c]).collect::<Vec<u32>>()))
}

/// Whether some static literal of `step` relates the old item to the new
/// one on positions (a variable of `old` at one of its columns, the same
/// position's variable of `new` at another, or the same variable kept)
/// along which no item comes back: the graph of its rows, from the old
/// positions' values to the new ones', has no cycle, so neither has the
/// walk, whose items project onto a path of it.
fn progresses(step: &CRule, old: &[Pat], new: &[Pat], statics: &StaticTuples) -> bool {
    step.body.iter().any(|lit| {
        let Lit::Pos(rel, args) = lit else {
            return false;
        };
        let Some(tuples) = table(statics, *rel) else {
            return false;
        };
        let column = |p: &Pat| match p {
            Pat::Var(v) => args.iter().position(|a| *a == Pat::Var(*v)),
            _ => None,
        };
        let pairs: Vec<(usize, usize)> = (old.iter().zip(new))
            .filter_map(|(o, n)| Some((column(o)?, column(n)?)))
            .collect();
        pairs.iter().any(|(a, b)| a != b) && acyclic(tuples, &pairs)
    })
}

/// A way a recursive call progresses: from the caller's argument at a
/// position to the call's, along two columns of a static relation whose
/// rows, as edges between those columns, have no cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// The argument position.
    pub position: usize,
    /// The static relation.
    pub rel: u32,
    /// Its columns holding the caller's value and the call's.
    pub columns: (usize, usize),
}

/// The [`Order`]s along which a call with arguments `new` progresses from
/// a caller's `old`, each proved by one of `lits` (the literals that run
/// before the call, as relation and arguments).
pub fn orders<'a>(
    lits: impl Iterator<Item = (u32, &'a [Pat])> + Clone,
    (old, new): (&[Pat], &[Pat]),
    statics: &StaticTuples,
) -> Vec<Order> {
    let mut found = Vec::new();
    for (position, (o, n)) in old.iter().zip(new).enumerate() {
        let (Pat::Var(o), Pat::Var(n)) = (o, n) else {
            continue;
        };
        if o == n {
            continue;
        }
        for (rel, args) in lits.clone() {
            let column = |v: u32| args.iter().position(|a| *a == Pat::Var(v));
            let (Some(a), Some(b)) = (column(*o), column(*n)) else {
                continue;
            };
            let order = Order {
                position,
                rel,
                columns: (a, b),
            };
            if !found.contains(&order) && table(statics, rel).is_some_and(|t| acyclic(t, &[(a, b)]))
            {
                found.push(order);
            }
        }
    }
    found
}

/// Whether a call of `rel`, alone on its cycle, never meets itself while
/// it runs, as `bodies` plan its rules: every recursive call progresses
/// from its caller's arguments along one [`Order`] that all of them share,
/// proved by a static literal that runs before it. chess.kif's
/// `clear_col_ig(u, v, ..)` steps from `v` to the next rank in each of
/// its recursive rules; such a test needs no stack of the calls running.
pub fn never_meets_itself(rel: u32, bodies: &Bodies, statics: &StaticTuples) -> bool {
    let Bodies::Rules { shared, rules, .. } = bodies else {
        return false;
    };
    fn static_lit(s: &Step) -> Option<(u32, &[Pat])> {
        match s {
            Step::Lit {
                source: Source::Static,
                rel,
                args,
                negated: false,
                ..
            } => Some((*rel, &args[..])),
            _ => None,
        }
    }
    let mut common: Option<Vec<Order>> = None;
    for plan in rules {
        for (j, step) in plan.steps.iter().enumerate() {
            let Step::Lit { rel: r, args, .. } = step else {
                continue;
            };
            if *r != rel {
                continue;
            }
            let before = (shared.iter().chain(&plan.steps[..j])).filter_map(static_lit);
            let found = orders(before, (&plan.rule.head, args), statics);
            let kept = match common.take() {
                None => found,
                Some(c) => c.into_iter().filter(|o| found.contains(o)).collect(),
            };
            if kept.is_empty() {
                return false;
            }
            common = Some(kept);
        }
    }
    common.is_some()
}

/// Whether the graph with an edge per row of `tuples`, from its values at
/// the first columns of `pairs` to those at the second, has no cycle.
fn acyclic(tuples: &[Vec<u32>], pairs: &[(usize, usize)]) -> bool {
    let mut ids: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let mut id = |node: Vec<u32>| {
        let n = ids.len();
        *ids.entry(node).or_insert(n)
    };
    let edges: Vec<(usize, usize)> = (tuples.iter())
        .map(|t| {
            let from = id(pairs.iter().map(|&(a, _)| t[a]).collect());
            let to = id(pairs.iter().map(|&(_, b)| t[b]).collect());
            (from, to)
        })
        .collect();
    let n = ids.len();
    let mut out = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for &(a, b) in &edges {
        out[a].push(b);
        indegree[b] += 1;
    }
    // Kahn's order: every node is removed exactly when there is no cycle.
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut removed = 0;
    while let Some(v) = ready.pop() {
        removed += 1;
        for &w in &out[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    removed == n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    /// `next(1, 2), next(2, 3)`, as relation 1; relation 2 comes back
    /// (`next(3, 1)` too); relation 3 branches (`next(1, 3)` too).
    fn statics() -> Vec<Option<Vec<Vec<u32>>>> {
        let line = vec![vec![1, 2], vec![2, 3]];
        let mut torus = line.clone();
        torus.push(vec![3, 1]);
        let mut branching = line.clone();
        branching.push(vec![1, 3]);
        vec![None, Some(line), Some(torus), Some(branching)]
    }

    /// A ray's step from key `(?0, ?1)` to `(?0, ?2)`: `next(?1, ?2)`, and
    /// relation 0 (the state) tests `(?0, ?2)`.
    fn step(next: u32) -> CRule {
        CRule {
            head_rel: 9,
            head: vec![var(0), var(1), var(0), var(2)].into(),
            body: vec![
                Lit::Pos(next, [var(1), var(2)].into()),
                Lit::Pos(0, [var(0), var(2)].into()),
            ],
            num_vars: 3,
        }
    }

    #[test]
    fn a_step_along_a_line_is_a_walk() {
        let (old, new) = ([var(0), var(1)], [var(0), var(2)]);
        assert!(is_walk(&step(1), &old, (&old, &new), &statics()));
    }

    #[test]
    fn a_step_that_comes_back_or_branches_is_no_walk() {
        let (old, new) = ([var(0), var(1)], [var(0), var(2)]);
        assert!(!is_walk(&step(2), &old, (&old, &new), &statics()));
        assert!(!is_walk(&step(3), &old, (&old, &new), &statics()));
    }

    #[test]
    fn a_step_that_binds_from_the_state_is_no_walk() {
        // Relation 0 (no table) binds ?3: the state may hold several.
        let mut rule = step(1);
        rule.body.push(Lit::Pos(0, [var(2), var(3)].into()));
        rule.num_vars = 4;
        let (old, new) = ([var(0), var(1)], [var(0), var(2)]);
        assert!(!is_walk(&rule, &old, (&old, &new), &statics()));
    }

    #[test]
    fn a_call_progresses_along_a_literal_before_it() {
        let rule = step(1);
        let lits = rule.body.iter().filter_map(|l| match l {
            Lit::Pos(rel, args) => Some((*rel, &args[..])),
            _ => None,
        });
        let (old, new) = ([var(0), var(1)], [var(0), var(2)]);
        let found = orders(lits.clone(), (&old, &new), &statics());
        assert_eq!(
            found,
            vec![Order {
                position: 1,
                rel: 1,
                columns: (0, 1)
            }]
        );
        // Along a relation that comes back, no order.
        let back = [(2, &[var(1), var(2)][..])];
        assert!(orders(back.into_iter(), (&old, &new), &statics()).is_empty());
    }

    #[test]
    fn a_kept_position_tells_directions_apart() {
        // adj(?dir, ?i, ?j): forward for direction 1, back for 2; the
        // item (?dir, ?i) keeps ?dir.
        let adj = vec![vec![1, 1, 2], vec![1, 2, 3], vec![2, 3, 2], vec![2, 2, 1]];
        let statics = vec![None, Some(adj)];
        let rule = CRule {
            head_rel: 9,
            head: vec![var(0), var(1), var(0), var(2)].into(),
            body: vec![Lit::Pos(1, [var(0), var(1), var(2)].into())],
            num_vars: 3,
        };
        let (old, new) = ([var(0), var(1)], [var(0), var(2)]);
        assert!(is_walk(&rule, &old, (&old, &new), &statics));
        // Without the direction, ?i has two rows, back and forth.
        let (old, new) = ([var(1)], [var(2)]);
        assert!(!is_walk(&rule, &old, (&old, &new), &statics));
    }
}
