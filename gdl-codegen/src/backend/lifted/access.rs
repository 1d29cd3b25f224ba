//! How the planned bodies read the state and the static tables: for each
//! scan of the state, the value mask that narrows it, the filters it takes
//! from the static tests after it (see [`super::filters`]) and the static
//! join it walks instead of the static steps after it (see
//! [`super::prejoin`]); and the tables all of them read, within their
//! budgets ([`cost::MAX_FILTERS_WORDS`], [`cost::MAX_PREJOINS_WORDS`]).
//!
//! The planner decides this once its functions are planned ([`plan_tables`]),
//! visiting the bodies in the order they are printed: a budget goes to the
//! first tables asked for, and tables are numbered in that order. The
//! printer ([`super::body`]) then prints each scan as its [`ScanPlan`] says.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

use super::cost;
use super::facts::Facts;
use super::filters::{self, Filter};
use super::join_order::{Adorn, Source, Step, EXISTS};
use super::masks;
use super::plan::{Bodies, Item, LegalPlan, LiftedPlan, RulePlan, Shape};
use super::prejoin::{self, Column, Prejoin};
use super::relations::Relations;
use super::run_time_tables::RunTimeTable;
use super::state_layout::Layout;
use crate::rules::Pat;

/// The tables the planned bodies read: filters and static joins, numbered
/// in the order the bodies are printed, and the value masks of scans.
#[derive(Default)]
pub struct TablePlan {
    /// Filters of scans, by number.
    pub filters: Vec<Filter>,
    /// Static joins of scanned fluents, by number.
    pub prejoins: Vec<Prejoin>,
    /// Fluent masks by argument values: (functor id, the arguments as
    /// [`Relations::scan_positions`] orders them). The state layout groups
    /// the fluents they select (see [`super::state_layout`]).
    pub value_masks: BTreeSet<(u32, Vec<usize>)>,
    /// Static tables read by rows, by (relation, bound arguments): sorted
    /// bound columns first (see [`super::statics`]).
    pub statics: BTreeSet<(u32, Adorn)>,
    /// Static relations whose tuples are tested (`in_<rel>`), guards
    /// included.
    pub checks: BTreeSet<u32>,
    /// The words of the filters' tables, summed.
    pub filter_words: usize,
    /// The numbers in the static joins' tables, summed.
    pub prejoin_words: usize,
    /// Filters and joins asked for but over their budgets.
    pub refused: usize,
    /// Value masks whose tables, under the layout, were over
    /// [`cost::MAX_VALUE_MASK_WORDS`]: their scans read the functor's
    /// mask (see [`plan_tables`]).
    pub refused_masks: BTreeSet<(u32, Vec<usize>)>,
    /// The state's layout, which groups the fluents the value masks
    /// select.
    pub layout: Layout,
    /// The static relations computed at run time, their tables over the
    /// code-size budget (see [`super::run_time_tables`]).
    pub run_time: Vec<RunTimeTable>,
    filter_ids: FxHashMap<Filter, usize>,
    prejoin_ids: FxHashMap<Prejoin, usize>,
    mode: Mode,
}

/// How a body's scans read the state, by the step that scans.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyAccess {
    /// Each scan's plan, by its step's index, in order.
    pub scans: Vec<(usize, ScanPlan)>,
    /// In a `next` rule that is one scan, the offset from each fluent's bit
    /// it meets to its head's, where it is one for all (see
    /// [`super::shift`]): the rule copies the scan's words shifted.
    pub shift: Option<i64>,
}

/// How a scan of the state runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanPlan {
    /// The arguments whose values select the fluents through a value mask
    /// (none: the functor's mask).
    pub value_mask: Option<Vec<usize>>,
    /// The filters it takes from the steps after it.
    pub filters: Vec<FilterUse>,
    /// The static join it walks, if any.
    pub prejoin: Option<PrejoinUse>,
}

/// A filter a scan reads.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterUse {
    /// The step it comes from (its index in the body).
    pub step: usize,
    /// The filter's number.
    pub filter: usize,
    /// The variables of its keys, in order.
    pub keys: Vec<u32>,
    /// Whether the step leaves the body (a guard's call stays).
    pub absorbs: bool,
}

/// A static join a scan walks.
#[derive(Clone, Debug, PartialEq)]
pub struct PrejoinUse {
    /// The join's number.
    pub join: usize,
    /// The steps it takes (their indices in the body).
    pub steps: Vec<usize>,
    /// Its rows' columns.
    pub columns: Vec<Column>,
}

impl TablePlan {
    /// Whether static relation `rel` is computed at run time (see
    /// [`super::run_time_tables`]).
    pub fn built_at_run_time(&self, rel: u32) -> bool {
        self.run_time.iter().any(|t| t.rel == rel)
    }
}

impl ScanPlan {
    /// The steps after the scan it takes out of the body, by their index
    /// from the step after it: those its filters absorb and those its
    /// static join walks.
    pub fn taken(&self) -> impl Iterator<Item = usize> + '_ {
        let filters = self.filters.iter().filter(|u| u.absorbs).map(|u| u.step);
        filters.chain(self.prejoin.iter().flat_map(|j| j.steps.iter().copied()))
    }
}

impl BodyAccess {
    /// The plan of the scan at step `i`, if it is one.
    pub fn scan(&self, i: usize) -> Option<&ScanPlan> {
        self.scans.iter().find(|(j, _)| *j == i).map(|(_, s)| s)
    }
}

/// Decides the scans of every body of `plan` over `facts` and the tables
/// they read, visiting the bodies in the order they are printed.
///
/// [`Relations::scan_positions`] takes a mask's table to be as small as
/// the layout can make it; the layout follows the masks chosen, so the
/// tables are measured under it, and the walk runs again without those
/// over their budget until none is (each run refuses more).
pub fn plan_tables(plan: &mut LiftedPlan, facts: &Facts) {
    let mut refused = BTreeSet::new();
    loop {
        plan.tables = TablePlan {
            refused_masks: refused.clone(),
            ..TablePlan::default()
        };
        walk(plan, facts, Mode::Decide);
        let t = &plan.tables;
        let bit_of = t.layout.bit_of_term();
        let over: Vec<(u32, Vec<usize>)> = (t.value_masks.iter())
            .filter(|(fid, ps)| {
                masks::table_words(facts, &bit_of, *fid, ps) > cost::MAX_VALUE_MASK_WORDS
            })
            .cloned()
            .collect();
        if over.is_empty() {
            return;
        }
        refused.extend(over);
    }
}

/// Adds to `plan` the static relations computed at run time, with their
/// rules' plans, and the tables those read.
pub fn add_run_time_tables(plan: &mut LiftedPlan, built: Vec<RunTimeTable>) {
    let rels = plan.rels.clone();
    let t = &mut plan.tables;
    t.mode = Mode::Decide;
    for mut b in built {
        (b.rules.iter_mut()).for_each(|r| t.rule(&rels, r, &[]));
        t.run_time.push(b);
    }
}

/// The static tables and value masks of `plan`'s bodies read again from
/// its scans as they stand: after an edit of a plan's scans (a filter or
/// static join taken out leaves its steps to the body, which then reads
/// their tables). The filters and joins stay as numbered.
pub fn reread_tables(plan: &mut LiftedPlan, facts: &Facts) {
    let t = &mut plan.tables;
    t.statics.clear();
    t.checks.clear();
    t.value_masks.clear();
    walk(plan, facts, Mode::Keep);
}

/// Whether a walk decides the scans or keeps those of the plan.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Decide,
    Keep,
}

/// The walk of [`plan_tables`] and [`reread_tables`], adding to the plan's
/// tables.
fn walk(plan: &mut LiftedPlan, facts: &Facts, mode: Mode) {
    let rels = plan.rels.clone();
    let mut t = std::mem::take(&mut plan.tables);
    t.mode = mode;
    // A query's literal has its role bound (`legal`, `goal`) or no
    // arguments (`terminal`).
    let queries = [&plan.queries.terminal, &plan.queries.goals];
    let legal = match &plan.queries.legal {
        Some(LegalPlan::Call(q)) => Some(q),
        _ => None,
    };
    for q in queries.into_iter().flatten().chain(legal) {
        if q.source == Source::Static && rels.arity[q.rel as usize] > 0 {
            t.statics.insert((q.rel, 1));
        }
    }
    if let Some(LegalPlan::Rules(rules)) = &mut plan.queries.legal {
        for r in rules {
            t.rule(&rels, r, &[Column::Term(r.rule.head[1].clone())]);
        }
    }
    for r in &mut plan.queries.next {
        t.rule(&rels, r, &[Column::Bit(r.rule.head[0].clone())]);
    }
    for item in &mut plan.items {
        match item {
            Item::Fn(f) => t.function(&rels, facts, (f.rel, f.adorn), &mut f.shape),
            Item::Comp(c) => {
                (c.rels.iter_mut().flat_map(|(_, rules)| rules)).for_each(|r| t.rule(&rels, r, &[]))
            }
        }
    }
    t.layout = Layout::new(
        facts,
        &t.value_masks,
        |fid, pos| rels.values_at(fid, pos),
        |fid, positions| rels.mask_words(fid, positions).1,
        &super::shift::moved_functors(&plan.queries.next, &rels),
    );
    super::shift::mark(&mut plan.queries.next, &rels, facts, &t.layout);
    plan.tables = t;
}

impl TablePlan {
    /// Walks the body of rule `r`, whose solution builds the `wanted`
    /// columns.
    fn rule(&mut self, rels: &Relations, r: &mut RulePlan, wanted: &[Column]) {
        r.access = self.body(rels, (&r.steps, &r.access), (r.rule.num_vars, 0), wanted);
    }

    /// Decides the bodies of the function of `rel` called with `adorn`.
    fn function(
        &mut self,
        rels: &Relations,
        facts: &Facts,
        (rel, adorn): (u32, Adorn),
        shape: &mut Shape,
    ) {
        if let Shape::Test { guard: Some(k), .. }
        | Shape::RecursiveTest { guard: Some(k), .. }
        | Shape::TestFromClosure { guard: Some(k), .. } = shape
        {
            self.checks.insert((rels.program_rels + *k) as u32);
        }
        let bodies = match shape {
            Shape::ExistsFromList | Shape::TestFromList | Shape::TestFromClosure { .. } => return,
            Shape::Closure { closure, .. } => {
                for r in closure.base.iter_mut().chain(&mut closure.steps) {
                    self.rule(rels, r, &[]);
                }
                return;
            }
            Shape::Test { bodies, .. }
            | Shape::RecursiveTest { bodies, .. }
            | Shape::Answers { bodies, .. } => bodies,
        };
        let arity = rels.arity[rel as usize];
        match bodies {
            Bodies::Ground(h) => {
                // Its atoms by the bound arguments (the atom's number, the
                // last column, is free).
                let h = &facts.hybrid[*h];
                let mask = (1 << h.arity) - 1;
                self.statics.insert((h.table, adorn & !EXISTS & mask));
            }
            Bodies::Widened {
                widening,
                source,
                access,
            } => {
                let steps = widening.steps(arity, adorn, *source);
                *access = self.body(rels, (&steps, access), (arity, 0), &[]);
            }
            Bodies::Rules {
                shared,
                shared_access,
                rules,
                openings,
            } => {
                for (i, r) in rules.iter_mut().enumerate() {
                    // A scan of an opening takes no step of a rule's own.
                    let opening = (openings.iter()).find(|o| o.has(i)).map_or(0, |o| o.steps);
                    let given = (&r.steps[..], &r.access);
                    r.access = self.body(rels, given, (r.rule.num_vars, opening), &[]);
                }
                let given = (&shared[..], &*shared_access);
                *shared_access = self.body(rels, given, (arity, 0), &[]);
            }
        }
    }

    /// The scans of a body of `steps` over `num_vars` variables whose
    /// solution builds the `wanted` columns: decided, or `given` kept
    /// ([`Mode`]); the tables they read added. A scan among the first
    /// `opening` steps (shared with other rules, see
    /// [`super::openings`]) takes none after them.
    fn body(
        &mut self,
        rels: &Relations,
        (steps, given): (&[Step], &BodyAccess),
        (num_vars, opening): (usize, usize),
        wanted: &[Column],
    ) -> BodyAccess {
        let mut bound = vec![false; num_vars];
        let mut absorbed = vec![false; steps.len()];
        let mut access = BodyAccess::default();
        for (i, s) in steps.iter().enumerate() {
            if absorbed[i] {
                continue;
            }
            match s {
                Step::Param { pat, .. } => bind(pat, &mut bound),
                Step::Distinct(..) => {}
                Step::Lit {
                    source: Source::True,
                    args,
                    negated: false,
                    ..
                } if !args[0].bound_by(&bound) => {
                    let end = if i < opening { opening } else { steps.len() };
                    let rest = (&steps[i + 1..end], &mut absorbed[i + 1..end]);
                    let scan = match self.mode {
                        Mode::Decide => self.scan(rels, &args[0], rest, &mut bound, wanted),
                        Mode::Keep => {
                            let scan = given.scan(i).cloned().unwrap_or_default();
                            self.kept_scan(rels, &args[0], &scan, rest.1, &mut bound);
                            scan
                        }
                    };
                    access.scans.push((i, scan));
                }
                Step::Lit {
                    source,
                    rel,
                    args,
                    negated,
                    bound: adorn,
                } => {
                    if *source == Source::Static && !args.is_empty() {
                        if args.iter().all(|a| a.bound_by(&bound)) {
                            self.checks.insert(*rel);
                        } else {
                            self.statics.insert((*rel, *adorn));
                        }
                    }
                    // An existence test binds nothing; a negated literal
                    // has its arguments bound.
                    let exists = *source == Source::Derived && adorn & EXISTS != 0;
                    if !negated && !exists {
                        args.iter().for_each(|a| bind(a, &mut bound));
                    }
                }
            }
        }
        access
    }

    /// The plan of a scan of `p`, `bound` the variables bound before it
    /// (then those it binds), the steps after it `rest` (those it takes
    /// marked absorbed).
    fn scan(
        &mut self,
        rels: &Relations,
        p: &Pat,
        (rest, absorbed): (&[Step], &mut [bool]),
        bound: &mut [bool],
        wanted: &[Column],
    ) -> ScanPlan {
        let fluent = fluent_functor(rels, p);
        let value_mask = match p {
            Pat::Func(f, args) => rels
                .functor(*f, args.len())
                .and_then(|fid| Some((fid, rels.scan_positions(fid, args, bound)?))),
            _ => None,
        }
        .filter(|mask| !self.refused_masks.contains(mask));
        if let Some((fid, positions)) = &value_mask {
            self.value_masks.insert((*fid, positions.clone()));
        }
        let mut plan = ScanPlan {
            value_mask: value_mask.map(|(_, positions)| positions),
            ..ScanPlan::default()
        };
        if let Some((fid, args)) = fluent {
            plan.filters = self.filters(rels, (fid, args), rest, absorbed, bound);
        }
        let before = bound.to_vec();
        bind(p, bound);
        if let Some((fid, args)) = fluent {
            plan.prejoin = self.prejoin(rels, (p, fid, args), &before, (rest, absorbed), wanted);
            for c in plan.prejoin.iter().flat_map(|j| &j.columns) {
                if let Column::Var(v) = c {
                    bound[*v as usize] = true;
                }
            }
        }
        plan
    }

    /// A scan of `p` as `scan` plans it: its value mask read, the steps it
    /// takes marked `absorbed` (the steps after it), the variables it binds
    /// marked `bound`.
    fn kept_scan(
        &mut self,
        rels: &Relations,
        p: &Pat,
        scan: &ScanPlan,
        absorbed: &mut [bool],
        bound: &mut [bool],
    ) {
        if let (Some(positions), Pat::Func(f, args)) = (&scan.value_mask, p) {
            if let Some(fid) = rels.functor(*f, args.len()) {
                self.value_masks.insert((fid, positions.clone()));
            }
        }
        scan.taken().for_each(|k| absorbed[k] = true);
        bind(p, bound);
        if let Some(j) = &scan.prejoin {
            for c in &j.columns {
                if let Column::Var(v) = c {
                    bound[*v as usize] = true;
                }
            }
        }
    }

    /// The filters a scan of the fluents of `fid` with arguments `args`
    /// takes from the steps `rest`, marking those it absorbs.
    fn filters(
        &mut self,
        rels: &Relations,
        (fid, args): (u32, &[Pat]),
        rest: &[Step],
        absorbed: &mut [bool],
        bound: &[bool],
    ) -> Vec<FilterUse> {
        let mut uses = Vec::new();
        for (step, (s, done)) in rest.iter().zip(absorbed.iter_mut().enumerate()) {
            // A call's guard filters the scan; the call stays.
            let guard = filters::guard_step(rels, step);
            let test = guard.as_ref().unwrap_or(step);
            let Some((filter, keys)) = filters::of_step(rels, fid, args, test, bound) else {
                continue;
            };
            let Some(k) = self.filter(rels, filter) else {
                continue;
            };
            *done = guard.is_none();
            uses.push(FilterUse {
                step: s,
                filter: k,
                keys,
                absorbs: *done,
            });
        }
        uses
    }

    /// The number of `filter`, unless its table would pass the budgets
    /// ([`cost::MAX_FILTER_WORDS`], [`cost::MAX_FILTERS_WORDS`]).
    fn filter(&mut self, rels: &Relations, filter: Filter) -> Option<usize> {
        if let Some(&k) = self.filter_ids.get(&filter) {
            return Some(k);
        }
        let words = rels.fluents_per_functor.get(&filter.fid)?.div_ceil(64) + 1;
        let size = filter.rows().saturating_mul(words);
        if size > cost::MAX_FILTER_WORDS || self.filter_words + size > cost::MAX_FILTERS_WORDS {
            self.refused += 1;
            return None;
        }
        self.filter_words += size;
        let k = self.filters.len();
        self.filter_ids.insert(filter.clone(), k);
        self.filters.push(filter);
        Some(k)
    }

    /// After a scan of `p` (functor `fid`, arguments `args`), the static
    /// steps at the start of `rest` (see [`prejoin::group`]) as a join, with
    /// the terms and bits the later steps and the solution build from
    /// them, marking the steps absorbed; `before` are the variables bound
    /// before the scan. None where there are no such steps or the table
    /// would pass its budget.
    fn prejoin(
        &mut self,
        rels: &Relations,
        (p, fid, args): (&Pat, u32, &[Pat]),
        before: &[bool],
        (rest, absorbed): (&[Step], &mut [bool]),
        wanted: &[Column],
    ) -> Option<PrejoinUse> {
        if args.iter().any(|a| matches!(a, Pat::Func(..))) {
            return None;
        }
        let mut scanned = Vec::new();
        args.iter()
            .for_each(|a| a.for_each_var(&mut |v| scanned.push(v)));
        let (taken, binds) = prejoin::group(rest, absorbed, before, &scanned);
        if binds.is_empty() {
            return None;
        }
        let last = taken.last().map_or(0, |&last| last + 1);
        let later = (rest.iter().zip(absorbed.iter()))
            .skip(last)
            .filter(|(_, &done)| !done)
            .map(|(s, _)| s);
        let known: Vec<u32> = scanned.iter().chain(&binds).copied().collect();
        let mut columns: Vec<Column> = binds.iter().map(|&v| Column::Var(v)).collect();
        columns.extend(prejoin::built(
            p,
            &known,
            later,
            wanted,
            !rels.run_time_terms,
        ));
        let join = Prejoin {
            fid,
            scan: args.to_vec(),
            steps: taken.iter().map(|&i| rest[i].clone()).collect(),
            columns: columns.clone(),
            num_vars: before.len(),
        };
        let k = self.prejoin_number(rels, join)?;
        taken.iter().for_each(|&i| absorbed[i] = true);
        Some(PrejoinUse {
            join: k,
            steps: taken,
            columns,
        })
    }

    /// The number of `join`, unless its table would pass the budgets
    /// ([`cost::MAX_PREJOIN_WORDS`], [`cost::MAX_PREJOINS_WORDS`]) or its
    /// join the compile-time work's.
    fn prejoin_number(&mut self, rels: &Relations, join: Prejoin) -> Option<usize> {
        if let Some(&k) = self.prejoin_ids.get(&join) {
            return Some(k);
        }
        let mut work = cost::MAX_JOIN_WORK;
        let mut rows = 0;
        let fluents = rels.fluent_args.get(&join.fid)?;
        for args in fluents {
            rows += join.bindings(args, &rels.static_tuples, &mut work)?.len();
        }
        // The rows, and where each fluent's start.
        let size = rows * join.columns.len() + fluents.len() + 1;
        if size > cost::MAX_PREJOIN_WORDS || self.prejoin_words + size > cost::MAX_PREJOINS_WORDS {
            self.refused += 1;
            return None;
        }
        self.prejoin_words += size;
        let k = self.prejoins.len();
        self.prejoin_ids.insert(join.clone(), k);
        self.prejoins.push(join);
        Some(k)
    }
}

/// Marks the variables of `p` bound.
fn bind(p: &Pat, bound: &mut [bool]) {
    p.for_each_var(&mut |v| bound[v as usize] = true);
}

/// The functor id and arguments of a compound `true` pattern whose functor
/// some fluent has.
pub fn fluent_functor<'p>(rels: &Relations, p: &'p Pat) -> Option<(u32, &'p [Pat])> {
    let Pat::Func(f, args) = p else { return None };
    let fid = rels.functor(*f, args.len())?;
    rels.has_fluents(fid).then_some((fid, &args[..]))
}
