//! Semi-naive bottom-up evaluation of rules to their least fixpoint,
//! strongly connected component by component.
//!
//! The grounder runs it over the relaxed program to compute the domains
//! ([`super::domains`]); [`super::instantiate`] then runs single joins over
//! the final relations ([`Db::run`]).

use rustc_hash::FxHashMap;

use super::budget::{Budget, GroundError};
use super::db::Db;
use super::exec::UNBOUND;
use super::join_plan::JoinPlan;
use crate::rules::{CRule, Lit};
use crate::scc::tarjan;

/// A relation read by a delta plan may grow this many times over before
/// the plan is made again. A component's recursive relations start empty,
/// so a plan made in its first rounds prices them as free: chess's
/// `queen_threatens` (528 K tuples at the end), planned empty, was scanned
/// before the 12-tuple `piece_owner_type` that binds the head, up to 25 M
/// join steps a round, 496 M in all (the relaxed fixpoint of
/// `emit --backend lifted`, 17 s of its 31 s).
const REPLAN_GROWTH: usize = 4;

/// Growth below this many tuples never makes a plan stale (a relation of
/// a few tuples priced as one costs little either way).
const REPLAN_MIN_TUPLES: usize = 64;

/// A delta plan and the sizes of the relations it scans when it was made.
struct Sized {
    plan: JoinPlan,
    sizes: Vec<(usize, usize)>,
}

impl Sized {
    fn new(plan: JoinPlan, rels: &[super::db::Relation]) -> Sized {
        let sizes = plan
            .scanned()
            .map(|rel| (rel, rels[rel].tuples.len()))
            .collect();
        Sized { plan, sizes }
    }

    /// Whether a relation the plan scans has grown enough since it was made
    /// that another order may be much cheaper.
    fn is_stale(&self, rels: &[super::db::Relation]) -> bool {
        self.sizes.iter().any(|&(rel, then)| {
            let now = rels[rel].tuples.len();
            now >= REPLAN_MIN_TUPLES && now > then.saturating_mul(REPLAN_GROWTH)
        })
    }
}

impl Db {
    /// Evaluates `rules` to their least fixpoint, component by component in
    /// dependency order, semi-naively within recursive components. Negative
    /// literals must refer to relations of lower components (stratification).
    pub fn solve(&mut self, rules: &[CRule], budget: &Budget) -> Result<(), GroundError> {
        let n = self.rels.len();
        let mut succ = vec![Vec::new(); n];
        for r in rules {
            for lit in &r.body {
                if let Lit::Pos(rel, _) | Lit::Neg(rel, _) = lit {
                    succ[r.head_rel as usize].push(*rel as usize);
                }
            }
        }
        let sccs = tarjan(&succ, |&v| v);
        let num = sccs.count();
        let comp = sccs.comp;
        let mut by_comp: Vec<Vec<usize>> = vec![Vec::new(); num];
        for (i, r) in rules.iter().enumerate() {
            by_comp[comp[r.head_rel as usize] as usize].push(i);
        }
        let mut rels_of: Vec<Vec<usize>> = vec![Vec::new(); num];
        for (rel, &c) in comp.iter().enumerate() {
            rels_of[c as usize].push(rel);
        }
        let mut delta = vec![(0u32, 0u32); n];
        let mut out = Vec::new();
        let mut binds = Vec::new();
        for c in 0..num {
            let rule_ids = &by_comp[c];
            if rule_ids.is_empty() {
                continue;
            }
            let in_scc = |rel: usize| comp[rel] as usize == c;
            for &ri in rule_ids {
                let head = rules[ri].head_rel as usize;
                if self.fail_fast.get(head).copied().unwrap_or(false) {
                    if let Some(n) = self.cross_product_size(&rules[ri], &in_scc) {
                        let n = n.min(usize::MAX as f64) as usize;
                        budget.check_tuples(n, &self.rel_names[head])?;
                    }
                }
            }
            // Round one: every rule over everything known.
            let mut full_plans = Vec::new();
            for &ri in rule_ids {
                let r = &rules[ri];
                let mut plan = self.plan(&r.body, None, &in_scc, r.head_vars(), r.num_vars);
                plan.skip_known = Some((r.head_rel as usize, r.head.clone()));
                full_plans.push(plan);
            }
            let mut prev: Vec<u32> = rels_of[c]
                .iter()
                .map(|&r| self.rels[r].tuples.len() as u32)
                .collect();
            for (k, &ri) in rule_ids.iter().enumerate() {
                self.fire(
                    &rules[ri],
                    &full_plans[k],
                    &delta,
                    &mut out,
                    &mut binds,
                    budget,
                )?;
            }
            let recursive = rule_ids.iter().any(|&ri| {
                rules[ri]
                    .body
                    .iter()
                    .any(|l| matches!(l, Lit::Pos(rel, _) if in_scc(*rel as usize)))
            });
            if !recursive {
                continue;
            }
            let mut delta_plans: FxHashMap<(usize, usize), Sized> = FxHashMap::default();
            loop {
                let mut any = false;
                for (k, &rel) in rels_of[c].iter().enumerate() {
                    let len = self.rels[rel].tuples.len() as u32;
                    delta[rel] = (prev[k], len);
                    any |= len > prev[k];
                    prev[k] = len;
                }
                if !any {
                    break;
                }
                for &ri in rule_ids {
                    let r = &rules[ri];
                    for (li, lit) in r.body.iter().enumerate() {
                        let Lit::Pos(rel, _) = lit else { continue };
                        if !in_scc(*rel as usize)
                            || delta[*rel as usize].0 == delta[*rel as usize].1
                        {
                            continue;
                        }
                        let stale = delta_plans
                            .get(&(ri, li))
                            .is_none_or(|p| p.is_stale(&self.rels));
                        if stale {
                            let mut plan =
                                self.plan(&r.body, Some(li), &in_scc, r.head_vars(), r.num_vars);
                            plan.skip_known = Some((r.head_rel as usize, r.head.clone()));
                            delta_plans.insert((ri, li), Sized::new(plan, &self.rels));
                        }
                        let Some(planned) = delta_plans.get(&(ri, li)) else {
                            continue;
                        };
                        let plan = planned.plan.clone();
                        self.fire(r, &plan, &delta, &mut out, &mut binds, budget)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The number of head atoms `rule` derives, when it is a cross product
    /// of complete relations: its body only positive literals on relations
    /// outside its component, every argument a variable that occurs nowhere
    /// else in the body and does occur in the head. Each combination of the
    /// literals' tuples is then one solution, and a distinct head atom.
    /// laikLee_hex's `(<= (isList (list ?e1 .. (list ?e25 nil))) (le ?e1) ..
    /// (le ?e25))` derives 25^25: failing before the join saves the seconds
    /// of deriving atoms up to the budget.
    fn cross_product_size(&self, rule: &CRule, in_scc: &impl Fn(usize) -> bool) -> Option<f64> {
        let mut in_head = vec![false; rule.num_vars];
        for p in rule.head.iter() {
            p.for_each_var(&mut |v| in_head[v as usize] = true);
        }
        let mut seen = vec![false; rule.num_vars];
        let mut size = 1f64;
        for lit in &rule.body {
            let Lit::Pos(rel, args) = lit else {
                return None;
            };
            if in_scc(*rel as usize) {
                return None;
            }
            for a in args.iter() {
                let crate::rules::Pat::Var(v) = a else {
                    return None;
                };
                let v = *v as usize;
                if seen[v] || !in_head[v] {
                    return None;
                }
                seen[v] = true;
            }
            size *= self.rels[*rel as usize].tuples.len() as f64;
        }
        Some(size)
    }

    /// Runs one rule's plan and adds the head atoms it derives.
    fn fire(
        &mut self,
        rule: &CRule,
        plan: &JoinPlan,
        delta: &[(u32, u32)],
        out: &mut Vec<u32>,
        binds: &mut Vec<u32>,
        budget: &Budget,
    ) -> Result<(), GroundError> {
        out.clear();
        budget.check_time(&self.rel_names[rule.head_rel as usize])?;
        let Some(found) = self.run(plan, delta, out, rule.num_vars) else {
            return Err(budget.work_error(&self.rel_names[rule.head_rel as usize]));
        };
        binds.clear();
        binds.resize(rule.num_vars, UNBOUND);
        let w = plan.out_vars.len();
        if w == 0 {
            // A ground head: derived when at least one solution exists.
            if found {
                let atom = self.ground_atom(rule.head_rel as usize, &rule.head, binds);
                self.insert(rule.head_rel as usize, atom, budget)?;
            }
            return Ok(());
        }
        for chunk in out.chunks_exact(w) {
            for (k, &v) in plan.out_vars.iter().enumerate() {
                binds[v as usize] = chunk[k];
            }
            let atom = self.ground_atom(rule.head_rel as usize, &rule.head, binds);
            self.insert(rule.head_rel as usize, atom, budget)?;
        }
        Ok(())
    }
}
