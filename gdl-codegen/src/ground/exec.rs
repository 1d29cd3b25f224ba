//! The join executor: runs a plan over the database by backtracking,
//! reporting the output variables of each solution.

use super::db::{Db, NONE};
use super::join_plan::{JoinPlan, Range, Step};
use crate::rules::terms::{header, Kind, TermStore};
use crate::rules::Pat;

/// Value of a variable not bound yet.
pub(crate) const UNBOUND: u32 = u32::MAX;

impl Db {
    /// Brings every index a plan uses up to date with its relation.
    fn catch_up(&mut self, plan: &JoinPlan) {
        for step in &plan.steps {
            if let Step::Scan {
                rel,
                index: Some(ix),
                ..
            } = step
            {
                self.catch_up_index(*rel, *ix);
            }
        }
    }

    /// Runs `plan`: appends the values of `plan.out_vars` of each solution
    /// to `out`. `delta` gives, per relation, the range of the last round
    /// (used by `Old` and `Delta` steps). Returns whether any solution
    /// exists, or `None` when the join work exceeds `max_work`.
    pub fn run(
        &mut self,
        plan: &JoinPlan,
        delta: &[(u32, u32)],
        out: &mut Vec<u32>,
        num_vars: usize,
    ) -> Option<bool> {
        self.catch_up(plan);
        let ranges: Vec<(u32, u32)> = plan
            .steps
            .iter()
            .map(|s| {
                let (rel, range) = match s {
                    Step::Scan { rel, range, .. } | Step::Check { rel, range, .. } => {
                        (*rel, *range)
                    }
                    Step::Distinct(..) => return (0, 0),
                };
                let len = self.rels[rel].tuples.len() as u32;
                match range {
                    Range::Full => (0, len),
                    Range::Old => (0, delta[rel].0),
                    Range::Delta => delta[rel],
                }
            })
            .collect();
        let mut exec = Exec {
            db: self,
            plan,
            ranges: &ranges,
            binds: vec![UNBOUND; num_vars],
            trail: Vec::new(),
            key: Vec::new(),
            out,
            work: self.work,
            max_work: self.max_work,
        };
        let found = exec.run(0);
        let (work, aborted) = (exec.work, exec.work > exec.max_work);
        self.work = work;
        (!aborted).then_some(found)
    }
}

struct Exec<'a> {
    db: &'a Db,
    plan: &'a JoinPlan,
    ranges: &'a [(u32, u32)],
    binds: Vec<u32>,
    trail: Vec<u32>,
    key: Vec<u32>,
    out: &'a mut Vec<u32>,
    work: u64,
    max_work: u64,
}

impl Exec<'_> {
    /// Runs the plan from step `s`; returns whether a solution was found.
    fn run(&mut self, s: usize) -> bool {
        let db = self.db;
        self.work += 1;
        if self.work > self.max_work {
            return false;
        }
        let Some(step) = self.plan.steps.get(s) else {
            for &v in &self.plan.out_vars {
                self.out.push(self.binds[v as usize]);
            }
            return true;
        };
        if s == self.plan.exists_from {
            if let Some((rel, head)) = &self.plan.skip_known {
                if db
                    .lookup_atom_pat(*rel, head, &self.binds)
                    .is_some_and(|id| db.contains(id))
                {
                    return false;
                }
            }
        }
        let (lo, hi) = self.ranges[s];
        let stop_early = s >= self.plan.exists_from;
        match step {
            Step::Scan {
                rel,
                args,
                index,
                key_vars,
                ..
            } => {
                let r = &db.rels[*rel];
                match index {
                    None => self.scan(args, &r.tuples, lo..hi, s, stop_early),
                    Some(ix) => {
                        self.key.clear();
                        for &v in key_vars.iter() {
                            self.key.push(self.binds[v as usize]);
                        }
                        let Some(list) = r.index_lookup(*ix, self.key.as_slice()) else {
                            return false;
                        };
                        let a = if lo == 0 {
                            0
                        } else {
                            list.partition_point(|&p| p < lo)
                        };
                        let b = if hi as usize >= r.tuples.len() {
                            list.len()
                        } else {
                            list.partition_point(|&p| p < hi)
                        };
                        self.scan(args, &r.tuples, list[a..b].iter().copied(), s, stop_early)
                    }
                }
            }
            Step::Check {
                rel, args, negated, ..
            } => {
                let present = match db.lookup_atom_pat(*rel, args, &self.binds) {
                    Some(id) => {
                        let p = db.pos(id);
                        p != NONE && p >= lo && p < hi
                    }
                    None => false,
                };
                if present != *negated {
                    self.run(s + 1)
                } else {
                    false
                }
            }
            Step::Distinct(a, b) => {
                if !pats_equal(db, a, b, &self.binds) {
                    self.run(s + 1)
                } else {
                    false
                }
            }
        }
    }

    /// Tries the tuples at `positions` against `args`, running the rest of
    /// the plan for each match; with `stop_early`, up to the first solution.
    /// Returns whether a solution was found (false once out of budget).
    #[inline]
    fn scan(
        &mut self,
        args: &[Pat],
        tuples: &[u32],
        positions: impl Iterator<Item = u32>,
        s: usize,
        stop_early: bool,
    ) -> bool {
        let mut found = false;
        for p in positions {
            if self.work > self.max_work {
                return false;
            }
            if self.try_atom(args, tuples[p as usize], s) {
                found = true;
                if stop_early {
                    return true;
                }
            }
        }
        found
    }

    /// Matches atom `id`'s arguments against `args`, then runs the rest.
    fn try_atom(&mut self, args: &[Pat], id: u32, s: usize) -> bool {
        self.work += 1;
        if self.work > self.max_work {
            // Out of budget: unwind without further work.
            return false;
        }
        let mark = self.trail.len();
        let terms = &self.db.terms;
        let ok = args
            .iter()
            .zip(terms.args(id))
            .all(|(p, &t)| match_pat(terms, p, t, &mut self.binds, &mut self.trail));
        let found = ok && self.run(s + 1);
        for &v in &self.trail[mark..] {
            self.binds[v as usize] = UNBOUND;
        }
        self.trail.truncate(mark);
        found
    }
}

fn match_pat(terms: &TermStore, p: &Pat, id: u32, binds: &mut [u32], trail: &mut Vec<u32>) -> bool {
    match p {
        Pat::Var(v) => {
            let b = &mut binds[*v as usize];
            if *b == UNBOUND {
                *b = id;
                trail.push(*v);
                true
            } else {
                *b == id
            }
        }
        Pat::Ground(g) => *g == id,
        Pat::Func(f, args) => {
            terms.head(id) == header(Kind::Func, f.0) && {
                let targs = terms.args(id);
                targs.len() == args.len()
                    && args
                        .iter()
                        .zip(targs)
                        .all(|(a, &t)| match_pat(terms, a, t, binds, trail))
            }
        }
    }
}

/// Whether two bound patterns denote the same term. A term that is not
/// interned differs from every interned one, so lookups settle most cases.
fn pats_equal(db: &Db, a: &Pat, b: &Pat, binds: &[u32]) -> bool {
    match (db.lookup(a, binds), db.lookup(b, binds)) {
        (Some(x), Some(y)) => x == y,
        (Some(_), None) | (None, Some(_)) => false,
        (None, None) => match (a, b) {
            (Pat::Func(f, xs), Pat::Func(g, ys)) => {
                f == g
                    && xs.len() == ys.len()
                    && xs
                        .iter()
                        .zip(ys.iter())
                        .all(|(x, y)| pats_equal(db, x, y, binds))
            }
            _ => false,
        },
    }
}
