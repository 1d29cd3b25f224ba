//! What a planned body reads (the calls it makes, each with how often it
//! asks a key, and the components' tables), and the memos the finished
//! plan's call graph shows to be written only.
//!
//! The planner records a body's reads as it plans it ([`body_reads`]), and
//! its rounds drop the memo of a call asked once per key of its callers
//! ([`CallGraph::asked_once`]). Two passes then change the calls after the
//! rounds: calls answered through a wider call are inlined
//! ([`super::inline_widened`]) and rules opening alike share their opening
//! ([`super::openings`]). chess.kif's legal moves ask each piece's moves
//! from two rules, through a widened call, in the rounds; printed, they ask
//! them once, from one opening. [`drop_memos_asked_once`] reads the calls
//! of the finished plan again.

use rustc_hash::FxHashSet;

use super::call_graph::{Asked, CallGraph, Node};
use super::facts::Facts;
use super::join_order::{Adorn, Source, Step, EXISTS};
use super::plan::{Bodies, Cost, Fallback, Item, LegalPlan, LiftedPlan, Opening, RulePlan, Shape};
use super::walk::StaticTuples;
use crate::rules::Pat;

/// A read of a body.
pub enum Read {
    /// A call, and how it is asked per key of the body's function.
    Call((u32, Adorn), Asked),
    /// The table of a component.
    Table(usize),
}

/// The reads of the body `steps` from step `start` on (the steps before
/// read by another body: an opening shared with other rules), `costs` the
/// steps' estimates where known; `comp_of` each relation's component.
pub fn body_reads(
    (steps, costs): (&[Step], &[Cost]),
    start: usize,
    (comp_of, statics): (&[Option<usize>], &StaticTuples),
) -> Vec<Read> {
    let mut reads = Vec::new();
    let mut params: Vec<&Pat> = Vec::new();
    let mut loops: Vec<Loop> = Vec::new();
    let mut bound: FxHashSet<u32> = FxHashSet::default();
    for (i, s) in steps.iter().enumerate() {
        let Step::Lit {
            source,
            rel,
            args,
            bound: adorn,
            negated,
        } = s
        else {
            if let Step::Param { pat, .. } = s {
                params.push(pat);
                pat.for_each_var(&mut |v| {
                    bound.insert(v);
                });
            }
            continue;
        };
        let full = (1u64 << args.len()) - 1;
        let all = u64::from(*adorn) & full == full;
        let read = i >= start;
        let test = match source {
            Source::True | Source::Does => all,
            Source::Static => args.is_empty() || all,
            Source::Table => {
                let comp = comp_of[*rel as usize].expect("a relation on a cycle");
                if read {
                    reads.push(Read::Table(comp));
                }
                all
            }
            Source::Derived => {
                let test = all || adorn & EXISTS != 0;
                let asked = if test {
                    Asked::Repeatedly
                } else {
                    asked(
                        (!loops.is_empty()).then_some((&loops[..], statics)),
                        &params,
                        args,
                        *adorn,
                    )
                };
                if read {
                    reads.push(Read::Call((*rel, *adorn), asked));
                }
                test
            }
        };
        if !test && !negated {
            let given: Vec<bool> = (args.iter())
                .map(|a| {
                    let mut all = true;
                    a.for_each_var(&mut |v| all &= bound.contains(&v));
                    all
                })
                .collect();
            let mut new = Vec::new();
            for a in args.iter() {
                a.for_each_var(&mut |v| {
                    if bound.insert(v) {
                        new.push(v);
                    }
                });
            }
            loops.push(Loop {
                new,
                rows: costs.get(i).copied().flatten().map(|c| c.1),
                table: (*source == Source::Static).then(|| (*rel, &args[..], given)),
            });
        }
    }
    reads
}

/// A loop of a body before a call.
struct Loop<'s> {
    /// The variables it binds.
    new: Vec<u32>,
    /// Its rows a run, where estimated.
    rows: Option<f64>,
    /// A static literal's relation, arguments and those bound before it.
    table: Option<(u32, &'s [Pat], Vec<bool>)>,
}

/// How a call of `args` with `bound` is asked per key of its function,
/// whose parameters are `params`, after `loops` (`None`: no loop before
/// it): repeatedly where some parameter is not among its keys (nor a
/// constant); else once, for every key or for given constants, outside
/// any loop; else in loops, each key about as often as the loops give the
/// same keys again (see [`repeats`]).
fn asked(
    loops: Option<(&[Loop], &StaticTuples)>,
    params: &[&Pat],
    args: &[Pat],
    bound: Adorn,
) -> Asked {
    let is_key = |v: u32| (0..args.len()).any(|i| bound >> i & 1 == 1 && args[i] == Pat::Var(v));
    let keyed = |p: &Pat| match p {
        Pat::Ground(_) => true,
        Pat::Var(v) => is_key(*v),
        Pat::Func(..) => false,
    };
    if !params.iter().all(|p| keyed(p)) {
        return Asked::Repeatedly;
    }
    let Some((loops, statics)) = loops else {
        return if params.iter().any(|p| matches!(p, Pat::Ground(_))) {
            Asked::OnceForConstants
        } else {
            Asked::Once
        };
    };
    let mut times = 1.0;
    for l in loops {
        match repeats(l, &is_key, statics) {
            Some(r) => times *= r,
            None => return Asked::Repeatedly,
        }
    }
    Asked::InLoops(times)
}

/// How many times loop `l` gives each combination of the keys it binds
/// (`is_key` tells a call's key variables) per run: once where it binds
/// only keys, or a static table's other columns follow from its keys and
/// the columns bound before it; else its rows (`None` if not estimated).
fn repeats(l: &Loop, is_key: &impl Fn(u32) -> bool, statics: &StaticTuples) -> Option<f64> {
    if l.new.iter().all(|&v| is_key(v)) {
        return Some(1.0);
    }
    if let Some((rel, args, given)) = &l.table {
        let keyed = |p: &Pat| {
            let mut any = false;
            p.for_each_var(&mut |v| any |= is_key(v));
            any
        };
        let cols: Vec<usize> = (0..args.len())
            .filter(|&c| given[c] || keyed(&args[c]))
            .collect();
        let binds_key = l.new.iter().any(|&v| is_key(v));
        if binds_key && super::walk::at_most_one_row_in(statics, *rel, &cols) {
            return Some(1.0);
        }
    }
    l.rows.map(|r| r.max(0.0))
}

/// Drops the memo of every function listing answers off any cycle that
/// the finished `plan`'s calls ask once per key of their callers (see
/// [`CallGraph::asked_once`]), adding it to the plan's `once`.
pub fn drop_memos_asked_once(
    plan: &mut LiftedPlan,
    facts: &Facts,
    tables: (&[Option<usize>], &StaticTuples),
) {
    let once = call_graph(plan, tables).asked_once(&plan.rels.arity);
    for item in &mut plan.items {
        let Item::Fn(f) = item else { continue };
        let stateless = facts.stateless.get(f.rel as usize).copied() == Some(true);
        if let Shape::Answers {
            memo,
            direct: true,
            fallback: None,
            ..
        } = &mut f.shape
        {
            if memo.is_some() && !stateless && once.contains(&(f.rel, f.adorn)) {
                *memo = None;
                plan.once.insert((f.rel, f.adorn));
            }
        }
    }
}

/// The call graph of the finished `plan`: every call its printed code
/// makes, from where, and how often per key.
fn call_graph(plan: &LiftedPlan, tables: (&[Option<usize>], &StaticTuples)) -> CallGraph {
    let mut g = CallGraph::default();
    let body = |g: &mut CallGraph, from: Node, rule: &RulePlan, start: usize| {
        for read in body_reads((&rule.steps, &rule.costs), start, tables) {
            match read {
                Read::Call(call, asked) => g.call(from, call, asked),
                Read::Table(comp) => g.add(from, Node::Comp(comp)),
            }
        }
    };
    let queries = [&plan.queries.terminal, &plan.queries.goals];
    let legal = match &plan.queries.legal {
        Some(LegalPlan::Call(q)) => Some(q),
        _ => None,
    };
    for q in queries.into_iter().flatten().chain(legal) {
        g.call(Node::State, (q.rel, q.bound), Asked::Once);
    }
    if let Some(LegalPlan::Rules(rules)) = &plan.queries.legal {
        rules.iter().for_each(|r| body(&mut g, Node::State, r, 0));
    }
    (plan.queries.next.iter()).for_each(|r| body(&mut g, Node::Next, r, 0));
    for item in &plan.items {
        let f = match item {
            Item::Fn(f) => f,
            Item::Comp(c) => {
                let rules = c.rels.iter().flat_map(|(_, rules)| rules);
                rules.for_each(|r| body(&mut g, Node::Comp(c.comp), r, 0));
                continue;
            }
        };
        let me = Node::Fn(f.rel, f.adorn);
        let again = |g: &mut CallGraph, adorn: Adorn| {
            g.call(me, (f.rel, adorn), Asked::Repeatedly);
        };
        match &f.shape {
            Shape::ExistsFromList | Shape::TestFromList => again(&mut g, 0),
            Shape::TestFromClosure { sub, .. } => again(&mut g, *sub),
            Shape::Closure { closure, .. } => {
                let rules = closure.base.iter().chain(&closure.steps);
                rules.for_each(|r| body(&mut g, me, r, 0));
            }
            Shape::Test { bodies, .. }
            | Shape::RecursiveTest { bodies, .. }
            | Shape::Answers { bodies, .. } => match bodies {
                Bodies::Ground(_) => {}
                Bodies::Widened { widening, .. } => again(&mut g, widening.wider),
                Bodies::Rules {
                    shared,
                    rules,
                    openings,
                    ..
                } => {
                    for (i, r) in rules.iter().enumerate() {
                        body(&mut g, me, r, Opening::taken_by(openings, i));
                    }
                    for read in body_reads((shared, &[]), 0, tables) {
                        if let Read::Call(call, asked) = read {
                            g.call(me, call, asked);
                        }
                    }
                }
            },
        }
        let fallback = match &f.shape {
            Shape::RecursiveTest { fallback, .. } => Some(fallback),
            Shape::Answers { fallback, .. } => fallback.as_ref(),
            _ => None,
        };
        if let Some(Fallback::Closure { sub }) = fallback {
            again(&mut g, *sub);
        }
    }
    g
}
