//! Rules of a call that open alike: their common opening printed once, a
//! loop nest with each rule's own steps inside.
//!
//! chess.kif's legal moves without a capture and with one are two rules
//! that both walk the player's king, each other piece, its square and its
//! `legal2` moves, then test the move's target (empty; an opponent's). As
//! two loop nests they walked the pieces twice and asked for each piece's
//! moves twice (the second time from the memo). Printed as one, the moves
//! are listed once and each target tested for both rules.
//!
//! Rules seldom open in the very same order: the first rule tests `not
//! (threatened ..)` (the king safe once the piece leaves its square) as
//! soon as the piece is bound, before listing its moves. A derived test
//! may move later, after steps that bind none of its variables, if it is
//! run at most once per binding of its variables ([`Lazy`]): its answer is
//! kept where they are bound. It then runs only for pieces that have a
//! move to an empty square, once each, where it ran for every piece.
//!
//! A rule joins a run only when the opening they share lists something (a
//! loop, not tests alone: those the rules open with are hoisted, see
//! [`super::hoist`]) and the runs of it the rules after the first save
//! are worth it ([`MIN_OPENING_WORK`]), and moves a test only past such a
//! loop. Only
//! functions off any cycle: a test moved past a recursive call would no
//! longer guard it.

use super::cost::MIN_OPENING_WORK;
use super::join_order::{Adorn, Source, Step, EXISTS};
use super::plan::{Bodies, Cost, Item, Lazy, LiftedPlan, Opening, RulePlan, Shape};
use crate::rules::{CRule, Lit, Pat};

/// Groups the rules of each call of `plan` off any cycle (`cyclic` says
/// which relations are on one) into runs that open alike, reordering them
/// and moving their derived tests as [`align`] finds.
pub fn share_openings(plan: &mut LiftedPlan, cyclic: impl Fn(u32) -> bool) {
    for item in &mut plan.items {
        let Item::Fn(f) = item else { continue };
        if cyclic(f.rel) {
            continue;
        }
        let (Shape::Test { bodies, .. } | Shape::Answers { bodies, .. }) = &mut f.shape else {
            continue;
        };
        if let Bodies::Rules {
            rules, openings, ..
        } = bodies
        {
            *openings = group(rules);
        }
    }
}

/// Reorders `rules` so that each run opening alike is consecutive, and
/// returns the runs: each rule, in order, leads a run that the later rules
/// sharing at least its opening join (renamed to its variables).
pub fn group(rules: &mut Vec<RulePlan>) -> Vec<Opening> {
    let n = rules.len();
    let mut taken = vec![false; n];
    let (mut order, mut openings) = (Vec::with_capacity(n), Vec::new());
    for lead in 0..n {
        if taken[lead] {
            continue;
        }
        taken[lead] = true;
        let first = order.len();
        order.push(lead);
        // The plans as they were, to restore if the run saves too little.
        let mut originals: Vec<(usize, RulePlan)> = Vec::new();
        let mut shared: Option<usize> = None;
        for m in lead + 1..n {
            if taken[m] {
                continue;
            }
            let Some(a) = align(&rules[lead], &rules[m], shared) else {
                continue;
            };
            if shared.is_none() {
                originals.push((lead, rules[lead].clone()));
                apply(&mut rules[lead], &a.a, a.lazy_a.clone(), None);
            }
            originals.push((m, rules[m].clone()));
            let renaming = (a.renaming.clone(), rules[lead].rule.num_vars);
            apply(&mut rules[m], &a.b, a.lazy_b.clone(), Some(renaming));
            shared = Some(a.prefix);
            taken[m] = true;
            order.push(m);
        }
        let Some(steps) = shared else { continue };
        // Each rule after the first saves a run of the opening.
        let runs = (order.len() - first - 1) as f64;
        let saved = runs * opening_work(&rules[lead].costs[..steps]);
        if saved < MIN_OPENING_WORK {
            for (i, plan) in originals {
                rules[i] = plan;
            }
            openings.push(Opening {
                first,
                rules: 0,
                steps: 0,
            });
            continue;
        }
        openings.push(Opening {
            first,
            rules: order.len() - first,
            steps,
        });
    }
    openings.retain(|o| o.rules > 0);
    let mut old: Vec<Option<RulePlan>> = rules.drain(..).map(Some).collect();
    rules.extend(
        order
            .iter()
            .map(|&i| old[i].take().expect("each rule once")),
    );
    openings
}

/// Two rules aligned: each one's steps as a permutation of its own (new
/// step to old), the number of steps they open with, the tests each moved,
/// and the second rule's variables as the first's (`None`: a variable of
/// its own).
#[derive(Debug, PartialEq)]
pub struct Aligned {
    /// The first rule's steps, by their old indices.
    pub a: Vec<usize>,
    /// The second's.
    pub b: Vec<usize>,
    /// The steps they share.
    pub prefix: usize,
    /// The first rule's moved tests.
    pub lazy_a: Vec<Lazy>,
    /// The second's.
    pub lazy_b: Vec<Lazy>,
    /// Per variable of the second rule, the first's it is.
    pub renaming: Vec<Option<u32>>,
}

/// Aligns rule `b` on rule `a`: walks both plans while their steps are
/// the same up to renaming `b`'s variables, moving a derived test of
/// either out of the way when they differ. `opened`: `a` already leads a
/// run sharing that many steps, which `b` must share too, and `a`'s steps
/// stay as they are. `None` when they share no loop (or fewer steps than
/// `opened`).
pub fn align(a: &RulePlan, b: &RulePlan, opened: Option<usize>) -> Option<Aligned> {
    let (sa, sb) = (&a.steps, &b.steps);
    let mut to_a: Vec<Option<u32>> = vec![None; b.rule.num_vars];
    let mut taken = vec![false; a.rule.num_vars];
    // Matched pairs, and the tests passed over (with the pairs matched
    // before each).
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let (mut moved_a, mut moved_b) = (Vec::<(usize, usize)>::new(), Vec::<(usize, usize)>::new());
    let (mut i, mut j) = (0, 0);
    let stop = opened.unwrap_or(usize::MAX);
    while i < sa.len() && j < sb.len() && pairs.len() < stop {
        if let Some((t, k)) = same_step(&sa[i], &sb[j], (&to_a, &taken)) {
            (to_a, taken) = (t, k);
            pairs.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if opened.is_none() && movable(&sa[i]) {
            moved_a.push((i, pairs.len()));
            i += 1;
        } else if movable(&sb[j]) {
            moved_b.push((j, pairs.len()));
            j += 1;
        } else {
            break;
        }
    }
    // The opening ends with its last loop and the tests both rules run
    // after it, up to a test moved out of the way after it (which goes
    // back where it was: nothing shared lies past it).
    let last_loop = pairs.iter().rposition(|&(i, _)| lists(&sa[i]))?;
    let undone = (moved_a.iter().chain(&moved_b))
        .map(|&(_, before)| before)
        .filter(|&before| before > last_loop)
        .min();
    let prefix = match opened {
        Some(k) if pairs.len() < k => return None,
        Some(k) => k,
        None => undone.unwrap_or(pairs.len()).min(pairs.len()),
    };
    pairs.truncate(prefix);
    moved_a.retain(|&(_, before)| before < prefix);
    moved_b.retain(|&(_, before)| before < prefix);
    let (a_order, lazy_a) = reordered(sa, pairs.iter().map(|p| p.0), &moved_a);
    let (b_order, lazy_b) = reordered(sb, pairs.iter().map(|p| p.1), &moved_b);
    Some(Aligned {
        a: a_order,
        b: b_order,
        prefix,
        lazy_a,
        lazy_b,
        renaming: to_a,
    })
}

/// The estimated work of a run of an opening whose steps cost `costs`:
/// each step's price times the runs the steps before it give.
fn opening_work(costs: &[Cost]) -> f64 {
    let (mut work, mut runs) = (0.0, 1.0);
    for (price, rows) in costs.iter().flatten() {
        work += runs * price;
        runs *= rows;
    }
    work
}

/// A rule's steps in their new order: the `opening` ones first, then the
/// rest in order with the `moved` tests (each with the number of opening
/// steps before its old place) after the leading cheap tests of the rest;
/// and the moved tests as [`Lazy`] steps.
fn reordered(
    steps: &[Step],
    opening: impl Iterator<Item = usize>,
    moved: &[(usize, usize)],
) -> (Vec<usize>, Vec<Lazy>) {
    let mut order: Vec<usize> = opening.collect();
    let prefix = order.len();
    let rest: Vec<usize> = (0..steps.len())
        .filter(|i| !order.contains(i) && !moved.iter().any(|(m, _)| m == i))
        .collect();
    // Tests of the state and static tables cost less than a derived call:
    // they run first.
    let cheap = rest
        .iter()
        .take_while(|&&i| is_test(&steps[i]) && !derived(&steps[i]))
        .count();
    order.extend(&rest[..cheap]);
    let mut lazy = Vec::new();
    for &(m, before) in moved {
        lazy.push(Lazy {
            step: order.len(),
            anchor: before,
        });
        order.push(m);
    }
    order.extend(&rest[cheap..]);
    debug_assert!(order.len() == steps.len() && prefix <= order.len());
    (order, lazy)
}

/// `plan` with its steps (and their costs) in `order` (new to old), `lazy`
/// its moved tests, and its variables renamed as `renaming` says (each
/// variable to the other rule's, or past that rule's `num_vars` if none).
fn apply(
    plan: &mut RulePlan,
    order: &[usize],
    lazy: Vec<Lazy>,
    renaming: Option<(Vec<Option<u32>>, usize)>,
) {
    plan.steps = order.iter().map(|&i| plan.steps[i].clone()).collect();
    if plan.costs.len() == order.len() {
        plan.costs = order.iter().map(|&i| plan.costs[i]).collect();
    }
    plan.lazy = lazy;
    let Some((mut to, base)) = renaming else {
        return;
    };
    let mut next = base as u32;
    for t in to.iter_mut().filter(|t| t.is_none()) {
        *t = Some(next);
        next += 1;
    }
    let rename = |p: &Pat| {
        p.renamed(&|v| to[v as usize])
            .expect("every variable renamed")
    };
    plan.rule = rename_rule(&plan.rule, &rename, next as usize);
    for s in &mut plan.steps {
        *s = s
            .map_pats(|p| Some(rename(p)))
            .expect("every pattern renamed");
    }
}

fn rename_rule(r: &CRule, rename: &impl Fn(&Pat) -> Pat, num_vars: usize) -> CRule {
    let body = (r.body.iter())
        .map(|l| match l {
            Lit::Pos(rel, args) => Lit::Pos(*rel, args.iter().map(rename).collect()),
            Lit::Neg(rel, args) => Lit::Neg(*rel, args.iter().map(rename).collect()),
            Lit::Distinct(a, b) => Lit::Distinct(rename(a), rename(b)),
        })
        .collect();
    CRule {
        head_rel: r.head_rel,
        head: r.head.iter().map(rename).collect(),
        body,
        num_vars,
    }
}

/// Whether steps `a` (of the first rule) and `b` (of the second) are the
/// same once `b`'s variables are renamed as `to_a` says, extended to the
/// variables `b` binds (each to one of `a`'s not yet `taken`): the
/// renaming and taken variables extended, if so.
fn same_step(
    a: &Step,
    b: &Step,
    (to_a, taken): (&[Option<u32>], &[bool]),
) -> Option<(Vec<Option<u32>>, Vec<bool>)> {
    let (mut to, mut tk) = (to_a.to_vec(), taken.to_vec());
    let ok = match (a, b) {
        (Step::Param { index: i, pat: p }, Step::Param { index: j, pat: q }) => {
            i == j && same_pat(p, q, &mut to, &mut tk)
        }
        (Step::Distinct(a0, a1), Step::Distinct(b0, b1)) => {
            same_pat(a0, b0, &mut to, &mut tk) && same_pat(a1, b1, &mut to, &mut tk)
        }
        (
            Step::Lit {
                source: s,
                rel: r,
                args: xs,
                negated: n,
                bound: d,
            },
            Step::Lit {
                source: s2,
                rel: r2,
                args: ys,
                negated: n2,
                bound: d2,
            },
        ) => {
            (s, r, n, d) == (s2, r2, n2, d2)
                && xs.len() == ys.len()
                && (xs.iter().zip(ys.iter())).all(|(x, y)| same_pat(x, y, &mut to, &mut tk))
        }
        _ => false,
    };
    ok.then_some((to, tk))
}

fn same_pat(a: &Pat, b: &Pat, to: &mut [Option<u32>], taken: &mut [bool]) -> bool {
    match (a, b) {
        (Pat::Ground(x), Pat::Ground(y)) => x == y,
        (Pat::Var(x), Pat::Var(y)) => match to[*y as usize] {
            Some(z) => z == *x,
            None if !taken[*x as usize] => {
                to[*y as usize] = Some(*x);
                taken[*x as usize] = true;
                true
            }
            None => false,
        },
        (Pat::Func(f, xs), Pat::Func(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && (xs.iter().zip(ys.iter())).all(|(x, y)| same_pat(x, y, to, taken))
        }
        _ => false,
    }
}

/// Whether step `s` binds nothing: `distinct`, a literal with every
/// argument bound, or an existence test.
fn is_test(s: &Step) -> bool {
    match s {
        Step::Distinct(..) => true,
        Step::Lit { args, bound, .. } => all_bound(*bound, args.len()) || bound & EXISTS != 0,
        Step::Param { .. } => false,
    }
}

fn all_bound(bound: Adorn, arity: usize) -> bool {
    let full = ((1u64 << arity) - 1) as Adorn;
    bound & full == full
}

fn derived(s: &Step) -> bool {
    matches!(
        s,
        Step::Lit {
            source: Source::Derived,
            ..
        }
    )
}

/// Whether step `s` may move later: a derived test.
fn movable(s: &Step) -> bool {
    derived(s) && is_test(s)
}

/// Whether step `s` lists something: a literal that binds variables.
fn lists(s: &Step) -> bool {
    matches!(s, Step::Lit { negated: false, .. }) && !is_test(s)
}

#[cfg(test)]
#[path = "openings_tests.rs"]
mod tests;
