//! The planner: every decision about a game's lifted module, made before
//! anything is printed, as a [`LiftedPlan`].
//!
//! It starts from the queries and plans each function they reach, in the
//! order the printer prints them: what the function is (see [`Shape`]), its
//! memo, and each rule's join order ([`plan_rule`]). The calls in the plans
//! make the call graph, from which two facts follow that change the plans:
//! the relations a function reads from their whole list
//! ([`CallGraph::whole`]) and the calls asked once per key of their callers
//! ([`CallGraph::asked_once`]). Reading a whole list changes the calls, so
//! the facts are not monotone: the planner plans again with the facts the
//! last round gave (the whole lists accumulated over the rounds) until they
//! settle, at most [`cost::MAX_PLAN_ROUNDS`] times.

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;

use super::call_graph::{Asked, CallGraph, Node, Whole};
use super::closure::{unguarded, Closure};
use super::cost;
use super::estimates::Estimates;
use super::facts::Facts;
use super::join_order::{
    free_arguments, plan_rule, step_costs, Adorn, Catalog, Source, Step, EXISTS,
};
use super::plan::{
    Bodies, ClosurePlan, ClosureWhy, CompPlan, Cost, Fallback, FnPlan, Item, LegalPlan, LiftedPlan,
    Memo, Opening, QueryLit, QueryPlans, RulePlan, Shape,
};
use super::reads::{body_reads, Read};
use super::run_time_tables::{self, OverBudget, RunTimeTable};
use super::walk::never_meets_itself;
use crate::front::ir::{Keyword, Program};
use crate::rules::{CRule, Pat};
use crate::stages::{stage, Stage};

/// Plans the module of `facts`; `legal` says whether `legal`'s query is
/// printed (its moves are not fixed at compile time).
pub fn plan(program: &Program, facts: &Facts, legal: bool) -> Result<LiftedPlan, OverBudget> {
    let (mut whole, mut once) = (Whole::default(), FxHashSet::default());
    let mut round = 1;
    loop {
        let (mut r, queries, items) = stage(Stage::Joins, || {
            let mut r = Round::new(program, facts, whole.clone(), once.clone());
            let (queries, items) = r.plan(program, legal);
            (r, queries, items)
        });
        // Whole lists only accumulate: a function reading a list calls the
        // relation with nothing bound, so the next graph no longer shows
        // the bound call that made it read the list, and the facts of the
        // last round alone would alternate.
        let mut next_whole = whole.clone();
        for (from, rels) in r.graph.whole() {
            next_whole.entry(from).or_default().extend(rels);
        }
        let next_once = r.graph.asked_once(&r.reg.arity);
        let settled = next_whole == whole && next_once == once;
        if settled || round == cost::MAX_PLAN_ROUNDS {
            let mut plan = LiftedPlan {
                queries,
                items,
                whole,
                once,
                rounds: round,
                settled,
                dense_keys: std::mem::take(&mut r.reg.dense_keys),
                rels: r.reg.rels.clone(),
                tables: Default::default(),
            };
            super::inline_widened::inline_widened(&mut plan, &r.reg);
            let comp_of = &r.reg.comp_of;
            super::openings::share_openings(&mut plan, |rel| comp_of[rel as usize].is_some());
            let tables = (&comp_of[..], &r.reg.static_tuples[..]);
            super::reads::drop_memos_asked_once(&mut plan, facts, tables);
            return stage(Stage::Tables, || {
                super::access::plan_tables(&mut plan, facts);
                let built = r.run_time_tables(&plan)?;
                super::access::add_run_time_tables(&mut plan, built);
                Ok(plan)
            });
        }
        (whole, once, round) = (next_whole, next_once, round + 1);
    }
}

/// One round of planning, with the call-graph facts of the last.
struct Round<'f> {
    facts: &'f Facts,
    reg: Estimates,
    /// The calls planned or asked for, in order of first call.
    calls: Vec<(u32, Adorn)>,
    known: FxHashSet<(u32, Adorn)>,
    /// The components whose tables are read.
    comps: BTreeSet<usize>,
    graph: CallGraph,
}

impl<'f> Round<'f> {
    fn new(
        program: &Program,
        facts: &'f Facts,
        whole: Whole,
        once: FxHashSet<(u32, Adorn)>,
    ) -> Self {
        let mut reg = Estimates::new(program, facts);
        reg.whole = whole;
        reg.once = once;
        Round {
            facts,
            reg,
            calls: Vec::new(),
            known: FxHashSet::default(),
            comps: BTreeSet::new(),
            graph: CallGraph::default(),
        }
    }

    /// The queries' plans, then every function and component they reach,
    /// transitively, in the order they are printed: the calls in order of
    /// first call, existence tests last (by then the calls listing answers
    /// are known, and a test without keys whose relation is listed whole
    /// reads that list), components when no call is left.
    fn plan(&mut self, program: &Program, legal: bool) -> (QueryPlans, Vec<Item>) {
        let queries = self.queries(program, legal);
        let mut items = Vec::new();
        let (mut done, mut comps_done) = (0, BTreeSet::new());
        let mut planned = Vec::new();
        loop {
            planned.resize(self.calls.len(), false);
            let pending = |exists: bool| {
                (done..self.calls.len())
                    .find(|&i| !planned[i] && (self.calls[i].1 & EXISTS != 0) == exists)
            };
            if let Some(i) = pending(false).or_else(|| pending(true)) {
                planned[i] = true;
                while done < planned.len() && planned[done] {
                    done += 1;
                }
                let (rel, adorn) = self.calls[i];
                items.push(Item::Fn(self.function(rel, adorn)));
                continue;
            }
            let Some(&comp) = self.comps.iter().find(|c| !comps_done.contains(*c)) else {
                break;
            };
            comps_done.insert(comp);
            items.push(Item::Comp(self.component(comp)));
        }
        (queries, items)
    }

    /// Records a call of `rel` with `adorn` from `from`.
    fn call(&mut self, from: Node, call: (u32, Adorn), asked: Asked) {
        self.graph.call(from, call, asked);
        if self.known.insert(call) {
            self.calls.push(call);
        }
    }

    /// Records that `from` reads the table of component `comp`.
    fn table(&mut self, from: Node, comp: usize) {
        self.graph.add(from, Node::Comp(comp));
        self.comps.insert(comp);
    }

    /// Records the calls and tables that `steps`, a body of `from`, reads,
    /// each call with how often it is asked per key of `from` (see
    /// [`asked`]); without estimates of the steps' rows.
    fn record(&mut self, from: Node, steps: &[Step]) {
        self.record_from(from, (steps, &[]), 0);
    }

    /// [`Round::record`] of the steps from `start` on (those before, an
    /// opening shared with other rules, recorded with the first of them),
    /// `costs` the steps' estimates where known.
    fn record_from(&mut self, from: Node, (steps, costs): (&[Step], &[Cost]), start: usize) {
        let tables = (&self.reg.comp_of[..], &self.reg.static_tuples[..]);
        for read in body_reads((steps, costs), start, tables) {
            match read {
                Read::Call(call, asked) => self.call(from, call, asked),
                Read::Table(comp) => self.table(from, comp),
            }
        }
    }

    /// The join order of `rule` called with `adorn` from `from`.
    fn steps(&mut self, from: Node, rule: &CRule, adorn: Adorn) -> Vec<Step> {
        self.reg.caller = from;
        plan_rule(rule, adorn, &self.reg)
    }

    /// The plan of `rule` called with `adorn`, ordered as `steps`, each
    /// step priced.
    fn priced(&self, rule: CRule, adorn: Adorn, steps: Vec<Step>) -> RulePlan {
        let costs = step_costs(&rule, &steps, &self.reg);
        RulePlan {
            rule,
            adorn,
            steps,
            costs,
            access: Default::default(),
            lazy: Vec::new(),
        }
    }

    /// The static relations of `plan` to compute at run time (see
    /// [`super::run_time_tables`]), their rules planned with nothing bound.
    fn run_time_tables(&mut self, plan: &LiftedPlan) -> Result<Vec<RunTimeTable>, OverBudget> {
        let chosen = run_time_tables::choose(plan, self.facts)?;
        let facts = self.facts;
        Ok((chosen.into_iter())
            .map(|(rel, numbers)| RunTimeTable {
                rel,
                rules: (facts.rules.iter())
                    .filter(|r| r.head_rel == rel)
                    .map(|r| self.rule(Node::State, r.clone(), 0))
                    .collect(),
                numbers,
            })
            .collect())
    }

    /// The plan of `rule` called with `adorn` from `from`.
    fn rule(&mut self, from: Node, rule: CRule, adorn: Adorn) -> RulePlan {
        let steps = self.steps(from, &rule, adorn);
        self.priced(rule, adorn, steps)
    }

    /// [`Round::rule`], its calls recorded.
    fn recorded_rule(&mut self, from: Node, rule: CRule, adorn: Adorn) -> RulePlan {
        let plan = self.rule(from, rule, adorn);
        self.record_from(from, (&plan.steps, &plan.costs), 0);
        plan
    }

    /// The queries: `legal` (unless its moves are fixed), then `next`,
    /// `terminal` and `goal`.
    fn queries(&mut self, program: &Program, legal: bool) -> QueryPlans {
        let kw = |k| program.keyword_pred(k).map(|p| p.0);
        let legal = kw(Keyword::Legal).filter(|_| legal).map(|rel| {
            if super::queries::read_by_rules(self.facts, rel) {
                LegalPlan::Call(self.query(rel, 2))
            } else {
                let rules = self.rules_of(rel);
                let plans = (rules.into_iter())
                    .map(|r| self.recorded_rule(Node::State, r, 1))
                    .collect();
                LegalPlan::Rules(plans)
            }
        });
        let next = kw(Keyword::Next).map_or_else(Vec::new, |rel| {
            let rules = self.rules_of(rel);
            (rules.into_iter())
                .map(|r| self.recorded_rule(Node::Next, r, 0))
                .collect()
        });
        self.reg.caller = Node::State;
        let terminal = kw(Keyword::Terminal).map(|rel| self.query(rel, 0));
        let goals = kw(Keyword::Goal).map(|rel| self.query(rel, 2));
        QueryPlans {
            legal,
            next,
            terminal,
            goals,
        }
    }

    /// The query of `rel` with `arity` arguments, the first bound (the
    /// role) if it has any.
    fn query(&mut self, rel: u32, arity: usize) -> QueryLit {
        let bound = u32::from(arity > 0);
        let source = self.reg.source(rel);
        let step = Step::Lit {
            source,
            rel,
            args: (0..arity as u32).map(Pat::Var).collect(),
            negated: false,
            bound,
        };
        self.record(Node::State, &[step]);
        QueryLit { rel, source, bound }
    }

    /// The rules of `rel`.
    fn rules_of(&self, rel: u32) -> Vec<CRule> {
        (self.facts.rules.iter())
            .filter(|r| r.head_rel == rel)
            .cloned()
            .collect()
    }

    /// The plan of the function of `rel` called with `adorn`.
    fn function(&mut self, rel: u32, adorn: Adorn) -> FnPlan {
        let me = Node::Fn(rel, adorn);
        self.reg.caller = me;
        // A function names itself (a site the call graph leaves out).
        self.call(me, (rel, adorn), Asked::Repeatedly);
        let shape = self.shape(rel, adorn);
        FnPlan { rel, adorn, shape }
    }

    /// What the function of `rel` called with `adorn` is.
    fn shape(&mut self, rel: u32, adorn: Adorn) -> Shape {
        let me = Node::Fn(rel, adorn);
        let facts = self.facts;
        let arity = self.reg.arity[rel as usize];
        if exists_from_list(facts, &mut self.reg, &self.known, (rel, adorn)) {
            self.call(me, (rel, 0), Asked::Repeatedly);
            return Shape::ExistsFromList;
        }
        if test_from_list(facts, &mut self.reg, (rel, adorn)) {
            self.call(me, (rel, 0), Asked::Repeatedly);
            return Shape::TestFromList;
        }
        let name = self.reg.call_name(rel, adorn);
        if let Some(c) = (self.reg.alone_on_cycle(rel))
            .then(|| self.reg.closure(&facts.rules, (rel, adorn), false))
            .flatten()
        {
            // Asked once per key of its callers, a closure's memo would
            // only be written.
            let memo = (!self.reg.once.contains(&(rel, adorn))).then(|| Memo {
                dense: (self.reg.dense_keys(facts, rel, adorn, &name)).map(|k| k.to_string()),
            });
            let closure = self.closure(me, rel, c, adorn);
            return Shape::Closure { closure, memo };
        }
        let has_free = !free_arguments(arity, adorn).is_empty();
        let cyclic = self.reg.comp_of[rel as usize].is_some();
        if let Some((sub, why)) = (cyclic && !has_free)
            .then(|| self.branching_closure(rel, adorn))
            .flatten()
        {
            self.call(me, (rel, sub), Asked::Repeatedly);
            let guard = guard_of(facts, rel, adorn);
            return Shape::TestFromClosure { sub, guard, why };
        }
        // Off any cycle, a call cannot meet itself while it runs: its
        // answers go straight to the end of its arena.
        let direct = !cyclic && has_free;
        let bodies = self.bodies(rel, adorn, direct);
        let guard = guard_of(facts, rel, adorn);
        if !has_free && !cyclic {
            let memo = test_memoized(facts, &self.reg, rel, adorn).then(|| Memo {
                dense: (self.reg.dense_keys(facts, rel, adorn, &name)).map(|k| k.to_string()),
            });
            return Shape::Test {
                bodies,
                memo,
                guard,
            };
        }
        let stateless = facts.stateless.get(rel as usize).copied() == Some(true);
        let once = direct && !stateless && self.reg.once.contains(&(rel, adorn));
        let memo = (!once).then(|| Memo {
            dense: (self.reg.dense_keys(facts, rel, adorn, &name)).map(|k| k.to_string()),
        });
        let fallback = cyclic.then(|| self.fallback(rel, adorn, &bodies));
        match fallback {
            Some(fallback) if !has_free => Shape::RecursiveTest {
                bodies,
                memo: memo.expect("a call on a cycle is memoized"),
                fallback,
                guard,
            },
            fallback => Shape::Answers {
                bodies,
                memo,
                direct,
                fallback,
                listed: self.reg.listed.contains(&rel),
            },
        }
    }

    /// The rules of a call of `rel` with `adorn` (see [`Bodies`]).
    fn bodies(&mut self, rel: u32, adorn: Adorn, direct: bool) -> Bodies {
        let me = Node::Fn(rel, adorn);
        let facts = self.facts;
        if let Some(w) = direct.then(|| self.widening(rel, adorn)).flatten() {
            self.call(me, (rel, w.wider), Asked::Repeatedly);
            let source = self.reg.source(w.rel);
            return Bodies::Widened {
                widening: w,
                source,
                access: Default::default(),
            };
        }
        let plain = adorn & !EXISTS;
        if let Some(h) = (facts.hybrid.iter().position(|h| h.of == rel))
            .filter(|_| self.reg.is_ground(facts, rel, plain))
        {
            return Bodies::Ground(h);
        }
        let (shared, rules) = self.hoisted_rules(rel, adorn);
        self.record_rules(me, rel, &rules);
        self.record(me, &shared);
        Bodies::Rules {
            shared,
            shared_access: Default::default(),
            rules,
            openings: Vec::new(),
        }
    }

    /// Records the calls of `rules`, the rules of `rel` called from `me`,
    /// as they will be printed: those opening alike (off any cycle, see
    /// [`super::openings`]) in one body, whose calls are recorded once.
    fn record_rules(&mut self, me: Node, rel: u32, rules: &[RulePlan]) {
        let mut rules = rules.to_vec();
        let openings = match self.reg.comp_of[rel as usize] {
            None => super::openings::group(&mut rules),
            Some(_) => Vec::new(),
        };
        for (i, rule) in rules.iter().enumerate() {
            let start = Opening::taken_by(&openings, i);
            self.record_from(me, (&rule.steps, &rule.costs), start);
        }
    }

    /// The rules of a call of `rel` with `adorn`, planned and priced once
    /// the tests every rule opens with are hoisted out (returned first);
    /// nothing recorded.
    fn hoisted_rules(&mut self, rel: u32, adorn: Adorn) -> (Vec<Step>, Vec<RulePlan>) {
        let me = Node::Fn(rel, adorn);
        let rules = self.rules_of(rel);
        let mut steps: Vec<Vec<Step>> = (rules.iter()).map(|r| self.steps(me, r, adorn)).collect();
        let shared = super::hoist::common_tests(&mut steps);
        let rules = (rules.into_iter().zip(steps))
            .map(|(r, steps)| self.priced(r, adorn, steps))
            .collect();
        (shared, rules)
    }

    /// For a call of `rel` with `adorn` (answers, off any cycle, not compiled
    /// ground), the literal of its rules that leads to a wider call made
    /// anyway (see [`super::widen`]).
    fn widening(&mut self, rel: u32, adorn: Adorn) -> Option<super::widen::Widening> {
        if adorn & EXISTS != 0 || self.reg.is_ground(self.facts, rel, adorn) {
            return None;
        }
        let rules: Vec<&CRule> = (self.facts.rules.iter())
            .filter(|r| r.head_rel == rel)
            .collect();
        let reg = &self.reg;
        let scannable = |r: u32| matches!(reg.source(r), Source::True | Source::Static);
        let wanted = |wider: Adorn| self.known.contains(&(rel, wider));
        super::widen::widening(&rules, (reg.arity[rel as usize], adorn), scannable, wanted)
    }

    /// A closure's rules planned: its base rules (without their guard's
    /// test, see [`unguarded`]), then its recursive ones.
    fn closure(&mut self, me: Node, rel: u32, c: Closure, adorn: Adorn) -> ClosurePlan {
        let arity = self.reg.arity[rel as usize];
        let facts = self.facts;
        let (base_adorn, step_adorn, base, steps) = match &c {
            Closure::Answers {
                base,
                steps,
                step_adorn,
                ..
            } => {
                let own = step_adorn & ((1 << arity) - 1);
                (own, *step_adorn, base, steps)
            }
            Closure::Keys { base, steps, .. } => {
                // An existence test binds what it does not output: all.
                let keyed = if adorn & EXISTS != 0 {
                    (1 << arity) - 1
                } else {
                    adorn
                };
                (keyed, keyed, base, steps)
            }
        };
        let guard = self.reg.guard_rel(rel);
        let base = (base.iter())
            .map(|&i| self.recorded_rule(me, unguarded(&facts.rules[i], guard), base_adorn))
            .collect();
        let steps = (steps.iter())
            .map(|r| self.recorded_rule(me, r.clone(), step_adorn))
            .collect();
        ClosurePlan {
            closure: c,
            base,
            steps,
        }
    }

    /// The closure a test of `rel` (on a cycle) with `adorn` is answered
    /// from, if it has one, the base rules answer a call less than
    /// [`cost::SEARCH_BASE_ANSWERS`] times, and either its recursion
    /// branches (a recursive rule enumerates more than
    /// [`cost::BRANCHING_ROWS`] rows per run before its recursive call) or
    /// its answers come at the end of the walk (see
    /// [`Round::answers_at_end`]). Searched call by call, such a recursion
    /// walks every path before it finds an answer (a memo comes only after
    /// [`cost::UNMEMOIZED_CALLS_LOG2`]); the closure finds each answer
    /// once.
    fn branching_closure(&mut self, rel: u32, adorn: Adorn) -> Option<(Adorn, ClosureWhy)> {
        let sub = closure_fallback(self.facts, &self.reg, rel, adorn)?;
        let (mut branches, mut base) = (false, 0.0);
        // Planned as the function's bodies are: the tests every rule opens
        // with reject a call before any search, and count for neither.
        for plan in self.hoisted_rules(rel, adorn).1 {
            let recursive = (plan.steps.iter())
                .position(|s| matches!(s, Step::Lit { rel: r, .. } if *r == rel));
            match recursive {
                Some(j) => {
                    branches |= (plan.costs[..j].iter())
                        .any(|c| c.is_some_and(|(_, rows)| rows > cost::BRANCHING_ROWS));
                }
                None => base += self.answers(rel, &plan),
            }
        }
        if base >= cost::SEARCH_BASE_ANSWERS {
            return None;
        }
        if branches {
            return Some((sub, ClosureWhy::Branches));
        }
        self.answers_at_end(rel, sub)
            .then_some((sub, ClosureWhy::AnswersAtEnd))
    }

    /// Whether the closure of `rel` with `sub` passes its answers through
    /// the recursion unchanged ([`Closure::Keys`]) and finds them at given
    /// keys only: each base rule's head has a constant among the keys (the
    /// last row, a count of zero), and no step answers too. A test with
    /// those answers given walks the keys the closure walks to the end,
    /// once for every answer it is asked about, where the closure walks
    /// them once. QUEENS's `knoterephall(row, count, total)`, a total
    /// summed row by row and given at the last row, tested for each total
    /// a goal asks about, took a third more instructions a playout
    /// searched; chess.kif's `clear_row_ig(u, y, x, ..)`, a ray whose every
    /// square answers, stops at `x`, where its closure lists the ray.
    fn answers_at_end(&self, rel: u32, sub: Adorn) -> bool {
        let rules = &self.facts.rules;
        let arity = self.reg.arity[rel as usize];
        let closure = self.reg.closure(rules, (rel, sub), true);
        let Some(Closure::Keys {
            base, answering, ..
        }) = closure
        else {
            return false;
        };
        let keyed = |i: usize| {
            (0..arity).any(|k| sub >> k & 1 == 1 && matches!(rules[i].head[k], Pat::Ground(_)))
        };
        !base.is_empty() && base.iter().all(|&i| keyed(i)) && !answering.contains(&true)
    }

    /// The answers `plan`, a rule of `rel`, is expected to give a call: its
    /// steps' rows, and for each argument the head requires a value of (a
    /// constant, a variable met before), one in the values of the argument.
    fn answers(&self, rel: u32, plan: &RulePlan) -> f64 {
        let values = |i: usize| {
            (self.reg)
                .head_domain(self.facts, rel, i, cost::MAX_DOMAIN_DEPTH)
                .map(|d| d.len())
        };
        // The argument each variable was first matched at.
        let mut seen: Vec<(u32, usize)> = Vec::new();
        let mut answers = 1.0;
        for (step, cost) in plan.steps.iter().zip(&plan.costs) {
            if let Some((_, rows)) = cost {
                answers *= rows;
            }
            let Step::Param { index, pat } = step else {
                continue;
            };
            // Two arguments agree once in the values of the larger domain.
            let tested = match pat {
                Pat::Var(v) => match seen.iter().find(|(w, _)| w == v) {
                    Some(&(_, first)) => values(first).max(values(*index)),
                    None => {
                        seen.push((*v, *index));
                        continue;
                    }
                },
                _ => values(*index),
            };
            answers /= tested.unwrap_or(1).max(1) as f64;
        }
        answers
    }

    /// What a call of `rel` (on a cycle) with `adorn`, its rules planned as
    /// `bodies`, met again while it runs returns: nothing where it never
    /// meets itself, a closure's answers that contain it, or else the
    /// component's table.
    fn fallback(&mut self, rel: u32, adorn: Adorn, bodies: &Bodies) -> Fallback {
        let me = Node::Fn(rel, adorn);
        let statics = &self.reg.static_tuples;
        if self.reg.alone_on_cycle(rel) && never_meets_itself(rel, bodies, statics) {
            return Fallback::Never;
        }
        if let Some(sub) = closure_fallback(self.facts, &self.reg, rel, adorn) {
            self.call(me, (rel, sub), Asked::Repeatedly);
            return Fallback::Closure { sub };
        }
        let comp = self.reg.comp_of[rel as usize].expect("a relation on a cycle");
        self.table(me, comp);
        Fallback::Table { comp }
    }

    /// The plan of component `comp`: its relations' rules, reading the
    /// component's own relations from its tables.
    fn component(&mut self, comp: usize) -> CompPlan {
        let me = Node::Comp(comp);
        let rels: Vec<u32> = (0..self.reg.comp_of.len() as u32)
            .filter(|&p| self.reg.comp_of[p as usize] == Some(comp))
            .collect();
        let mut planned = Vec::new();
        for rel in rels {
            self.table(me, comp);
            let mut rules = Vec::new();
            for rule in self.rules_of(rel) {
                self.reg.within = Some(comp);
                let plan = self.rule(me, rule, 0);
                self.reg.within = None;
                self.record(me, &plan.steps);
                rules.push(plan);
            }
            planned.push((rel, rules));
        }
        CompPlan {
            comp,
            rels: planned,
        }
    }
}

/// The guard of `rel` (by number) tested before a call with `adorn`, if
/// it has one and the call binds its columns.
fn guard_of(facts: &Facts, rel: u32, adorn: Adorn) -> Option<usize> {
    let k = facts.guards.iter().position(|g| g.of == rel)?;
    (facts.guards[k].columns.iter())
        .all(|&c| adorn >> c & 1 == 1)
        .then_some(k)
}

/// Whether an existence test of `rel` without keys is answered by the call
/// listing all its answers, where the queries make that call too and the
/// test would be memoized (asked again in a state): alexChess's `anyCheck`
/// asks whether `check ?piece ?king ?dir` has a solution, its legal rules
/// list every `check`, and a state without a check, the common case,
/// walked the same rules twice. Not where the test keeps its own rules: no
/// such call, a test compiled ground (sudoku's `emptyCell`: one atom found
/// ends it), or a test with keys (reversi's `playerCanMoveAt ?player`,
/// asked for both players where the list is made for the one to move: +34%
/// instructions a playout), where the first solution ends the walk and a
/// list would be walked whole.
fn exists_from_list(
    facts: &Facts,
    reg: &mut Estimates,
    known: &FxHashSet<(u32, Adorn)>,
    (rel, adorn): (u32, Adorn),
) -> bool {
    // Without keys: the flag alone.
    if adorn != EXISTS || !known.contains(&(rel, 0)) {
        return false;
    }
    let repeated = reg.comp_of[rel as usize].is_some() || test_memoized(facts, reg, rel, adorn);
    repeated && !reg.is_ground(facts, rel, adorn)
}

/// Whether a test of `rel` with keys is answered from the list of all its
/// answers, where that list is short and its rules cost about as much run
/// for every answer as for the keys: speedChess's frame rule asks, for each
/// piece, whether a move affects its square, and each test walked the joint
/// move and a dozen castling rules, where the list (the one or two squares
/// the move affects) is made once in the evaluation. Not on a cycle,
/// compiled ground, with a free argument (see [`exists_from_list`] for
/// tests without keys), a long list, rules the keys make cheaper, a cheap
/// test, or one that often holds.
pub(super) fn test_from_list(
    facts: &Facts,
    reg: &mut Estimates,
    (rel, adorn): (u32, Adorn),
) -> bool {
    let arity = reg.arity[rel as usize];
    let keys = (0..arity).filter(|i| adorn >> i & 1 == 1).count();
    if arity == 0
        || keys != arity
        || reg.comp_of[rel as usize].is_some()
        || reg.source(rel) != Source::Derived
        || !reg.short_list(rel)
        || reg.is_ground(facts, rel, adorn)
    {
        return false;
    }
    let (list_work, test_work) = (
        reg.rules_work(facts, rel, 0),
        reg.test_work(facts, rel, adorn & !EXISTS),
    );
    // Seen in some sampled state (the cost of a list never seen is a
    // guess), and false for most keys.
    let rare =
        (reg.samples.holds(rel, arity)).is_some_and(|h| h > 0.0 && h <= cost::LIST_TEST_HOLDS);
    test_work >= cost::LIST_TEST_MIN_WORK && list_work <= cost::LIST_TEST_RATIO * test_work && rare
}

/// Whether a test of `rel` (off any cycle) with `adorn` is memoized. A
/// test may be asked again and again in a state (alexChess's `check`,
/// without arguments, by each legal move's rule: 1 500 times a playout,
/// 390 K instructions each): memoized where it costs more than its memo,
/// one slot without arguments, a table by them with. `terminal` is asked
/// once.
pub(super) fn test_memoized(facts: &Facts, reg: &Estimates, rel: u32, adorn: Adorn) -> bool {
    if reg.is_part(rel) {
        return true;
    }
    let work = reg.test_work(facts, rel, adorn & !EXISTS);
    if adorn & !EXISTS == 0 {
        reg.terminal_rel != Some(rel) && work >= cost::MEMO_TEST_WORK
    } else if reg.dense_domains(facts, rel, adorn).is_some() {
        work >= cost::MEMO_TEST_WORK
    } else {
        work >= cost::MEMO_KEYED_TEST_WORK
    }
}

/// For a test of `rel` (every argument in `adorn` bound) alone on its
/// cycle, the adornment of a closure with fewer arguments bound whose
/// answers a call met again searches, if one has a closure (a torus's row,
/// all of it clear) without the component's whole fixpoint: the closure
/// leaving the fewest arguments free, the first of equals.
fn closure_fallback(facts: &Facts, reg: &Estimates, rel: u32, adorn: Adorn) -> Option<Adorn> {
    let arity = reg.arity[rel as usize];
    let all = (1 << arity) - 1;
    if adorn != all || arity > cost::MAX_CLOSURE_SEARCH || !reg.alone_on_cycle(rel) {
        return None;
    }
    (1..1u32 << arity)
        .map(|drop| adorn & !drop)
        .filter(|&sub| sub != adorn)
        .filter(|&sub| reg.closure(&facts.rules, (rel, sub), true).is_some())
        .max_by_key(|&sub| (sub.count_ones(), std::cmp::Reverse(sub)))
}
