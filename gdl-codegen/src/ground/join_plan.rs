//! Join plans: the order in which a rule body's literals are evaluated, and
//! the index each scan uses.

use super::db::{Db, Spec};
use crate::rules::order::{all_bound, next_literal};
use crate::rules::{Lit, Pat};

/// Which tuples of a relation a plan step reads (semi-naive evaluation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Range {
    /// All tuples.
    Full,
    /// Tuples before the last round's.
    Old,
    /// Tuples of the last round.
    Delta,
}

/// One step of a join plan.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// Enumerate tuples matching a pattern (through an index, or all of them).
    Scan {
        rel: usize,
        args: Box<[Pat]>,
        index: Option<usize>,
        key_vars: Box<[u32]>,
        range: Range,
    },
    /// A literal whose variables are all bound: one lookup.
    Check {
        rel: usize,
        args: Box<[Pat]>,
        negated: bool,
        range: Range,
    },
    /// Two bound terms differ.
    Distinct(Pat, Pat),
}

/// An evaluation order for one rule (and one choice of delta literal).
#[derive(Clone, Debug)]
pub struct JoinPlan {
    /// The steps, in evaluation order.
    pub(crate) steps: Vec<Step>,
    /// From this step on every output variable is bound: the rest of the
    /// join only has to succeed once.
    pub(crate) exists_from: usize,
    /// The variables whose values each solution reports, in order.
    pub out_vars: Vec<u32>,
    /// The rule's head (relation, arguments) when solutions deriving an
    /// atom already in the relation can be skipped (a fixpoint only needs
    /// new atoms): checked once every output variable is bound.
    pub(crate) skip_known: Option<(usize, Box<[Pat]>)>,
}

impl JoinPlan {
    /// The relations the plan's scans read.
    pub(crate) fn scanned(&self) -> impl Iterator<Item = usize> + '_ {
        self.steps.iter().filter_map(|s| match s {
            Step::Scan { rel, .. } => Some(*rel),
            _ => None,
        })
    }
}

impl Db {
    /// Builds a join plan for `body` (greedy: checks as soon as their
    /// variables are bound, then the most selective scan). With `delta`, that
    /// literal reads the last round's tuples and is scanned first; literals
    /// of relations in `in_scc` before it read old tuples only.
    pub fn plan(
        &mut self,
        body: &[Lit],
        delta: Option<usize>,
        in_scc: &dyn Fn(usize) -> bool,
        out_vars: Vec<u32>,
        num_vars: usize,
    ) -> JoinPlan {
        let mut bound = vec![false; num_vars];
        let mut done = vec![false; body.len()];
        let mut steps = Vec::with_capacity(body.len());
        let range_of = |i: usize, rel: usize| match delta {
            Some(d) if d == i => Range::Delta,
            Some(d) if i < d && in_scc(rel) => Range::Old,
            _ => Range::Full,
        };
        let mut exists_from = if out_vars.iter().all(|&v| bound[v as usize]) {
            Some(0)
        } else {
            None
        };
        // The delta literal goes first; then the shared heuristic, a
        // relation's cost being its size shrunk 20x per known leaf.
        let mut next_first = delta;
        loop {
            let rels = &self.rels;
            let cost = |rel: u32, _: &[Pat], known: i32| {
                rels[rel as usize].tuples.len().max(1) as f64 * 0.05f64.powi(known)
            };
            let Some(i) = next_first
                .take()
                .or_else(|| next_literal(body, &done, &bound, cost))
            else {
                break;
            };
            done[i] = true;
            match &body[i] {
                Lit::Pos(rel, args) if !all_bound(&body[i], &bound) => {
                    let mut spec = Vec::with_capacity(args.len());
                    let mut key_vars = Vec::new();
                    let mut constrained = false;
                    let mut newly = Vec::new();
                    for a in args.iter() {
                        spec.push(make_spec(
                            a,
                            &bound,
                            &mut key_vars,
                            &mut constrained,
                            &mut newly,
                        ));
                    }
                    for v in newly {
                        bound[v as usize] = true;
                    }
                    let index = constrained.then(|| self.index_for(*rel as usize, spec.into()));
                    steps.push(Step::Scan {
                        rel: *rel as usize,
                        args: args.clone(),
                        index,
                        key_vars: key_vars.into(),
                        range: range_of(i, *rel as usize),
                    });
                }
                Lit::Pos(rel, args) => steps.push(Step::Check {
                    rel: *rel as usize,
                    args: args.clone(),
                    negated: false,
                    range: range_of(i, *rel as usize),
                }),
                Lit::Neg(rel, args) => steps.push(Step::Check {
                    rel: *rel as usize,
                    args: args.clone(),
                    negated: true,
                    range: Range::Full,
                }),
                Lit::Distinct(a, b) => steps.push(Step::Distinct(a.clone(), b.clone())),
            }
            if exists_from.is_none() && out_vars.iter().all(|&v| bound[v as usize]) {
                exists_from = Some(steps.len());
            }
        }
        JoinPlan {
            exists_from: exists_from.unwrap_or(steps.len()),
            steps,
            out_vars,
            skip_known: None,
        }
    }
}

fn make_spec(
    p: &Pat,
    bound: &[bool],
    key_vars: &mut Vec<u32>,
    constrained: &mut bool,
    newly: &mut Vec<u32>,
) -> Spec {
    match p {
        Pat::Var(v) if bound[*v as usize] => {
            key_vars.push(*v);
            *constrained = true;
            Spec::Key
        }
        Pat::Var(v) => {
            newly.push(*v);
            Spec::Free
        }
        Pat::Ground(id) => {
            *constrained = true;
            Spec::Ground(*id)
        }
        Pat::Func(f, args) => {
            *constrained = true;
            Spec::Func(
                f.0,
                args.iter()
                    .map(|a| make_spec(a, bound, key_vars, constrained, newly))
                    .collect(),
            )
        }
    }
}
