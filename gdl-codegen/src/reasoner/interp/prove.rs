//! The prover: backward chaining with tabling.
//!
//! A query runs in a [`Ctx`] that holds everything that depends on the state:
//! the state and joint move, the overlay of new terms, and one answer table
//! per call (relation + ground arguments, unbound arguments left free). A call
//! is proved by evaluating every rule of its relation under the rule's plan
//! (subgoal order for that call pattern, see [`super::kb`]); positive subgoals
//! are calls themselves, so every call is proved once per query however often
//! it is asked: the memoisation that keeps tic-tac-toe's `line` from being
//! recomputed per move, and that makes recursion terminate.
//!
//! Recursion: calls are grouped by the strongly connected component of their
//! relation in the dependency graph. The first call of a component to start
//! (the leader) re-evaluates itself, and with it every call of the component
//! that it reaches, until a pass adds no answer; only then are the component's
//! tables complete. A call that meets a call of its component still being
//! evaluated uses the answers found so far, and marks the pass as needing
//! another one. Stratification guarantees that a negated call belongs to a
//! lower component, whose tables are complete when the negation is decided.
//!
//! Static relations (independent of `true` and `does`) are computed once, with
//! this same prover, component by component (callees first), and then read
//! from indexed tables (see [`compute_static`]).

use std::sync::{Arc, RwLock};

use rustc_hash::FxHashMap;

use super::kb::{key_mask, masked_hash, CallPlan, Kb, Kind, EXIST};
use super::overlay::{Terms, TupleSet, FREE};
use super::query_budget::{QueryBudget, QueryLimit, ANSWER_BYTES, CHECK_INTERVAL, TABLE_BYTES};
use crate::rules::terms::{header, Kind as TermKind};
use crate::rules::{CRule, Lit, Pat};

/// Where a call stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    /// Created, never evaluated.
    New,
    /// Being evaluated (on the call stack).
    Active,
    /// Evaluated in the given pass of its component's leader; not final yet.
    Done(u32),
    /// Final.
    Complete,
}

/// The answers of one call.
struct Table {
    pred: u32,
    key: Box<[u32]>,
    answers: TupleSet,
    /// The answers, when taken complete from the shared static cache
    /// (`answers` is then empty).
    shared: Option<Arc<TupleSet>>,
    status: Status,
    /// Already listed among its component's members.
    member: bool,
    /// Next table with the same key hash.
    next: u32,
}

/// A component being evaluated by its leader.
struct Run {
    scc: u32,
    epoch: u32,
    changed: bool,
    partial: bool,
    members: Vec<u32>,
}

impl Table {
    #[inline]
    fn answers(&self) -> &TupleSet {
        self.shared.as_deref().unwrap_or(&self.answers)
    }
}

/// Complete answer tables of calls of lazily evaluated static relations
/// (see [`Kb::lazy`]), shared by all queries: a static call is proved once
/// for the life of the game. Keys and answers hold shared-store ids only.
#[derive(Default, Debug)]
pub(crate) struct StaticCache {
    /// Hash of (relation, key) → entries with that hash.
    map: RwLock<FxHashMap<u64, Vec<CacheEntry>>>,
}

/// A cached call: (call id, key, complete answers).
type CacheEntry = (u32, Box<[u32]>, Arc<TupleSet>);

fn call_hash(pred: u32, key: &[u32]) -> u64 {
    super::overlay::tuple_hash(key) ^ (pred as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl StaticCache {
    fn get(&self, pred: u32, key: &[u32]) -> Option<Arc<TupleSet>> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let bucket = map.get(&call_hash(pred, key))?;
        bucket
            .iter()
            .find(|(p, k, _)| *p == pred && **k == *key)
            .map(|(_, _, t)| t.clone())
    }

    /// Adds a complete table (ids already in the shared store).
    pub fn insert(&self, pred: u32, key: Box<[u32]>, answers: TupleSet) {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        let bucket = map.entry(call_hash(pred, &key)).or_default();
        if !bucket.iter().any(|(p, k, _)| *p == pred && *k == key) {
            bucket.push((pred, key, Arc::new(answers)));
        }
    }
}

/// A complete table of a lazy static call made by a query, to be published
/// into the [`StaticCache`] once the query is over.
pub(crate) struct Pending {
    pub pred: u32,
    pub key: Box<[u32]>,
    pub answers: TupleSet,
}

/// How much stack one query may use before it is restarted on a thread with a
/// large stack (see `Interpreter::query`).
pub(crate) const STACK_BUDGET: usize = 256 * 1024;

/// A query that exceeded its [`QueryBudget`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exceeded {
    /// Which limit.
    pub what: QueryLimit,
    /// The relation with the most answers at the time: the one that blew up.
    pub relation: u32,
}

/// The state of one query.
pub(crate) struct Ctx<'a> {
    kb: &'a Kb,
    cache: Option<&'a StaticCache>,
    /// Lazy static tables completed by this query (indices into `tables`).
    fresh_static: Vec<u32>,
    /// Body steps tried, and the limit past which the query gives up
    /// (only used when computing static relations eagerly).
    pub work: u64,
    work_limit: u64,
    /// The step at which to look at the work limit and the budget next: the
    /// only test on the hot path.
    next_check: u64,
    budget: QueryBudget,
    /// Answers tabled, and the ids they hold, for the budget.
    answers: usize,
    answer_ids: usize,
    /// Set (with `aborted`) when the query exceeded its budget.
    pub exceeded: Option<Exceeded>,
    /// The terms, with the query's overlay.
    pub terms: Terms<'a>,
    /// The fluents of the state (sorted; see `state_key`).
    state: &'a [u32],
    /// The (functor, first argument) of each fluent, for binary search.
    state_keys: &'a [(u32, u32)],
    /// `(role, move)` pairs of the joint move.
    joint: &'a [(u32, u32)],
    tables: Vec<Table>,
    table_heads: FxHashMap<u64, u32>,
    runs: Vec<Run>,
    epoch: u32,
    binds: Vec<u32>,
    trail: Vec<u32>,
    /// Address near the bottom of the query's stack, and the allowance.
    stack_base: usize,
    stack_budget: usize,
    /// Set when the stack allowance ran out: every loop unwinds, and the
    /// answers are not to be trusted.
    pub aborted: bool,
}

fn stack_addr() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

impl<'a> Ctx<'a> {
    /// A query on `state` (sorted fluent ids) and `joint` (`(role, move)` ids),
    /// allowed `stack_budget` bytes of stack below the caller's frame.
    pub fn new(
        kb: &'a Kb,
        terms: Terms<'a>,
        state: Fluents<'a>,
        joint: &'a [(u32, u32)],
        stack_budget: usize,
    ) -> Self {
        Ctx {
            kb,
            cache: None,
            fresh_static: Vec::new(),
            work: 0,
            work_limit: u64::MAX,
            next_check: CHECK_INTERVAL,
            budget: QueryBudget::UNLIMITED,
            answers: 0,
            answer_ids: 0,
            exceeded: None,
            terms,
            state: state.ids,
            state_keys: state.keys,
            joint,
            tables: Vec::new(),
            table_heads: FxHashMap::default(),
            runs: Vec::new(),
            epoch: 0,
            binds: Vec::new(),
            trail: Vec::new(),
            stack_base: stack_addr(),
            stack_budget,
            aborted: false,
        }
    }

    /// Uses `cache` for the lazy static relations.
    pub fn with_cache(mut self, cache: &'a StaticCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// The body steps taken so far (partial solutions of rule bodies).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Gives up (`aborted`, not `exceeded`) after `limit` body steps.
    pub fn with_work_limit(mut self, limit: u64) -> Self {
        self.work_limit = limit;
        self.next_check = self.next_check.min(limit);
        self
    }

    /// Gives up (`aborted` and `exceeded`) when the query holds more than
    /// `budget` allows.
    pub fn with_budget(mut self, budget: QueryBudget) -> Self {
        self.budget = budget;
        self
    }

    /// Looks at the work limit and the budget (every [`CHECK_INTERVAL`]
    /// steps: cold, so that `solve` stays small).
    #[cold]
    #[inline(never)]
    fn checkpoint(&mut self) {
        if self.work > self.work_limit {
            self.aborted = true;
            return;
        }
        if let Some(what) = self.over_budget() {
            self.exceeded = Some(Exceeded {
                what,
                relation: self.largest_relation(),
            });
            self.aborted = true;
            return;
        }
        self.next_check = self
            .work
            .saturating_add(CHECK_INTERVAL)
            .min(self.work_limit);
    }

    /// The limit the query is past, if any.
    fn over_budget(&self) -> Option<QueryLimit> {
        if self.answers > self.budget.max_answers {
            Some(QueryLimit::Answers)
        } else if self.memory() > self.budget.max_memory {
            Some(QueryLimit::Memory)
        } else {
            None
        }
    }

    /// Estimated bytes the query holds: its tables, their answers and the
    /// terms it built.
    fn memory(&self) -> usize {
        self.answers * ANSWER_BYTES
            + self.answer_ids * 4
            + self.tables.len() * TABLE_BYTES
            + self.terms.local.bytes()
    }

    /// The relation of the table with the most answers.
    fn largest_relation(&self) -> u32 {
        self.tables
            .iter()
            .max_by_key(|t| t.answers.len())
            .map_or(0, |t| t.pred & !EXIST)
    }

    /// The lazy static tables this query completed, with their ids still
    /// possibly in the overlay.
    pub fn take_pending(&mut self) -> Vec<Pending> {
        let fresh = std::mem::take(&mut self.fresh_static);
        fresh
            .into_iter()
            .map(|t| {
                let table = &mut self.tables[t as usize];
                Pending {
                    pred: table.pred,
                    key: table.key.clone(),
                    answers: std::mem::replace(&mut table.answers, TupleSet::new(0)),
                }
            })
            .collect()
    }

    /// Every tuple of relation `pred` agreeing with `key` (ids, [`FREE`]
    /// where unbound), appended flat to `out`; returns their number (the
    /// only trace a relation of arity 0 leaves).
    pub fn query(&mut self, pred: u32, key: &[u32], out: &mut Vec<u32>) -> usize {
        let kb = self.kb;
        let before = out.len();
        let mut count = 0;
        let agrees = |t: &[u32]| t.iter().zip(key).all(|(&a, &k)| k == FREE || a == k);
        match kb.kind[pred as usize] {
            Kind::True => {
                for &f in self.state {
                    if agrees(&[f]) {
                        count += 1;
                        out.push(f);
                    }
                }
            }
            Kind::Does => {
                for &(r, m) in self.joint {
                    if agrees(&[r, m]) {
                        count += 1;
                        out.extend([r, m]);
                    }
                }
            }
            Kind::Rules => {
                if let Some(rel) = &kb.rels[pred as usize] {
                    for i in 0..rel.tuples.len() {
                        if agrees(rel.tuples.get(i)) {
                            count += 1;
                            out.extend_from_slice(rel.tuples.get(i));
                        }
                    }
                } else if let Some(t) = self.call(
                    if key.contains(&FREE) {
                        pred
                    } else {
                        pred | EXIST
                    },
                    key,
                ) {
                    let answers = self.tables[t as usize].answers();
                    for i in 0..answers.len() {
                        if agrees(answers.get(i)) {
                            count += 1;
                            out.extend_from_slice(answers.get(i));
                        }
                    }
                }
            }
        }
        debug_assert!(out.len() >= before);
        count
    }

    fn find_run(&self, scc: u32) -> Option<usize> {
        self.runs.iter().rposition(|r| r.scc == scc)
    }

    /// The table of call `pred(key)` (relation proved by rules, not static),
    /// evaluated as far as the current recursion allows.
    fn call(&mut self, call: u32, key: &[u32]) -> Option<u32> {
        let kb = self.kb;
        let mask = key_mask(key);
        let pred = call & !EXIST;
        // A call pattern no plan was made for is asked with every argument
        // free; the caller filters the answers, so this is only slower.
        let free;
        let (call, plans, key): (u32, &[CallPlan], &[u32]) = match kb.plans.get(&(call, mask)) {
            Some(p) => (call, p, key),
            None => {
                free = vec![FREE; key.len()];
                (pred, kb.plans.get(&(pred, 0))?, &free)
            }
        };
        let t = self.table(call, key);
        let scc = kb.sccs.comp[pred as usize];
        let run = self.find_run(scc);
        match self.tables[t as usize].status {
            Status::Complete => return Some(t),
            Status::Active => {
                if let Some(r) = run {
                    self.runs[r].partial = true;
                }
                return Some(t);
            }
            Status::Done(e) => {
                if let Some(r) = run {
                    if self.runs[r].epoch == e {
                        return Some(t);
                    }
                }
            }
            Status::New => {
                if kb.lazy[pred as usize] {
                    if let Some(cache) = self.cache {
                        let key = &self.tables[t as usize].key;
                        if key
                            .iter()
                            .all(|&k| k == FREE || k & super::overlay::LOCAL == 0)
                        {
                            if let Some(ans) = cache.get(call, key) {
                                let table = &mut self.tables[t as usize];
                                table.shared = Some(ans);
                                table.status = Status::Complete;
                                return Some(t);
                            }
                        }
                    }
                }
            }
        }
        match run {
            Some(r) => self.eval_table(t, plans, r),
            None => {
                let r = self.runs.len();
                self.runs.push(Run {
                    scc,
                    epoch: 0,
                    changed: false,
                    partial: false,
                    members: Vec::new(),
                });
                loop {
                    self.epoch += 1;
                    let run = &mut self.runs[r];
                    run.epoch = self.epoch;
                    run.changed = false;
                    run.partial = false;
                    self.eval_table(t, plans, r);
                    let run = &self.runs[r];
                    // Answers found with no partial answer used anywhere are
                    // final; otherwise iterate until a pass finds nothing new.
                    if !(run.changed && run.partial) || self.aborted {
                        break;
                    }
                }
                if let Some(run) = self.runs.pop() {
                    // Final: the tables evaluated in the last pass (which
                    // found nothing new, or used no partial answer) and the
                    // existential ones that have their answer. A member the
                    // last pass did not reach (its caller was cut short) may
                    // lack answers: it starts afresh when next called,
                    // keeping the answers found so far (all sound).
                    for m in run.members {
                        let table = &mut self.tables[m as usize];
                        let saturated = table.pred & EXIST != 0 && table.answers().len() > 0;
                        if saturated || table.status == Status::Done(run.epoch) {
                            table.status = Status::Complete;
                            if kb.lazy[(table.pred & !EXIST) as usize] && !self.aborted {
                                self.fresh_static.push(m);
                            }
                        } else {
                            table.status = Status::New;
                            table.member = false;
                        }
                    }
                }
            }
        }
        Some(t)
    }

    /// The table for `pred(key)`, created when new.
    fn table(&mut self, pred: u32, key: &[u32]) -> u32 {
        let mut h = super::overlay::tuple_hash(key);
        h ^= (pred as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let head = self.table_heads.get(&h).copied().unwrap_or(u32::MAX);
        let mut i = head;
        while i != u32::MAX {
            let t = &self.tables[i as usize];
            if t.pred == pred && *t.key == *key {
                return i;
            }
            i = t.next;
        }
        let id = self.tables.len() as u32;
        self.tables.push(Table {
            pred,
            key: key.into(),
            answers: TupleSet::new(key.len()),
            shared: None,
            status: Status::New,
            member: false,
            next: head,
        });
        self.table_heads.insert(h, id);
        id
    }

    /// Evaluates every rule of table `t`'s relation once, in pass `run`.
    fn eval_table(&mut self, t: u32, plans: &'a [CallPlan], run: usize) {
        if self.stack_base.abs_diff(stack_addr()) > self.stack_budget {
            self.aborted = true;
        }
        if self.aborted {
            return;
        }
        let table = &mut self.tables[t as usize];
        table.status = Status::Active;
        if !table.member {
            table.member = true;
            self.runs[run].members.push(t);
        }
        let kb = self.kb;
        for plan in plans {
            if self.cut(t) {
                break;
            }
            let rule = &kb.rules[plan.rule as usize];
            let base = self.binds.len();
            self.binds.resize(base + rule.num_vars, FREE);
            let trail = self.trail.len();
            let mut ok = true;
            for j in 0..rule.head.len() {
                let v = self.tables[t as usize].key[j];
                if v != FREE && !self.unify(&rule.head[j], v, base) {
                    ok = false;
                    break;
                }
            }
            if ok {
                self.solve(rule, plan, 0, base, t, run);
            }
            self.trail.truncate(trail);
            self.binds.truncate(base);
        }
        let epoch = self.runs[run].epoch;
        self.tables[t as usize].status = Status::Done(epoch);
    }

    /// Proves the body of `rule` from step `k` on, adding each head instance
    /// to table `t`.
    fn solve(
        &mut self,
        rule: &'a CRule,
        plan: &'a CallPlan,
        k: usize,
        base: usize,
        t: u32,
        run: usize,
    ) {
        self.work += 1;
        if self.work > self.next_check {
            self.checkpoint();
        }
        if self.aborted || self.cut(t) {
            return;
        }
        let Some(step) = plan.steps.get(k) else {
            self.emit(rule, base, t, run);
            return;
        };
        let kb = self.kb;
        match &rule.body[step.lit as usize] {
            Lit::Distinct(a, b) => {
                if !self.same(a, b, base) {
                    self.solve(rule, plan, k + 1, base, t, run);
                }
            }
            Lit::Neg(p, args) => {
                if !self.holds(*p, step.call, args, step.mask, base) {
                    self.solve(rule, plan, k + 1, base, t, run);
                }
            }
            Lit::Pos(p, args) => match kb.kind[*p as usize] {
                Kind::True => {
                    let (lo, hi) = self.state_range(&args[0], base);
                    for i in lo..hi {
                        let f = self.state[i];
                        let mark = self.trail.len();
                        if self.unify(&args[0], f, base) {
                            self.solve(rule, plan, k + 1, base, t, run);
                        }
                        self.undo(mark, base);
                        if self.cut(t) {
                            break;
                        }
                    }
                }
                Kind::Does => {
                    for i in 0..self.joint.len() {
                        let (r, m) = self.joint[i];
                        let mark = self.trail.len();
                        if self.unify(&args[0], r, base) && self.unify(&args[1], m, base) {
                            self.solve(rule, plan, k + 1, base, t, run);
                        }
                        self.undo(mark, base);
                        if self.cut(t) {
                            break;
                        }
                    }
                }
                Kind::Rules => {
                    if let Some(rel) = &kb.rels[*p as usize] {
                        let hash = self.args_hash(args, step.mask, base);
                        for &i in rel.candidates(step.mask, hash) {
                            let tuple = rel.tuples.get(i as usize);
                            let mark = self.trail.len();
                            if self.unify_all(args, tuple, base) {
                                self.solve(rule, plan, k + 1, base, t, run);
                            }
                            self.undo(mark, base);
                            if self.cut(t) {
                                break;
                            }
                        }
                    } else {
                        let key = self.make_key(args, base);
                        let Some(c) = self.call(step.call, &key) else {
                            return;
                        };
                        let arity = args.len();
                        let mut i = 0;
                        // By index: the table may grow while we iterate
                        // (recursion), and the new answers are wanted too.
                        while i < self.tables[c as usize].answers().len() {
                            let mark = self.trail.len();
                            let mut ok = true;
                            for j in 0..arity {
                                let v = self.tables[c as usize].answers().at(i, j);
                                if !self.unify(&args[j], v, base) {
                                    ok = false;
                                    break;
                                }
                            }
                            if ok {
                                self.solve(rule, plan, k + 1, base, t, run);
                            }
                            self.undo(mark, base);
                            if self.cut(t) {
                                break;
                            }
                            i += 1;
                        }
                    }
                }
            },
        }
    }

    /// Whether table `t` needs no more answers: the query was given up, or
    /// the call is existential and has its answer.
    #[inline]
    fn cut(&self, t: u32) -> bool {
        let table = &self.tables[t as usize];
        self.aborted || (table.pred & EXIST != 0 && table.answers.len() > 0)
    }

    /// Adds the head instance of `rule` under the current bindings to table `t`.
    fn emit(&mut self, rule: &CRule, base: usize, t: u32, run: usize) {
        let mut tuple = Vec::with_capacity(rule.head.len());
        for (j, h) in rule.head.iter().enumerate() {
            let k = self.tables[t as usize].key[j];
            if k != FREE {
                tuple.push(k);
            } else {
                match self.build(h, base) {
                    Some(id) => tuple.push(id),
                    // An unsafe rule whose head variable the body never
                    // binds has no ground instance: no answer.
                    None => return,
                }
            }
        }
        if self.tables[t as usize].answers.insert(&tuple) {
            self.runs[run].changed = true;
            self.answers += 1;
            self.answer_ids += tuple.len();
        }
    }

    /// Whether some instance of `p(args)` holds, for negation. With the
    /// arguments ground this is the membership test of negation as failure;
    /// arguments left unbound (unsafe rules) are read as "exists".
    fn holds(&mut self, p: u32, call: u32, args: &'a [Pat], mask: u64, base: usize) -> bool {
        let kb = self.kb;
        let mark = self.trail.len();
        let found = match kb.kind[p as usize] {
            Kind::True => {
                let (lo, hi) = self.state_range(&args[0], base);
                (lo..hi).any(|i| {
                    let ok = self.unify(&args[0], self.state[i], base);
                    self.undo(mark, base);
                    ok
                })
            }
            Kind::Does => (0..self.joint.len()).any(|i| {
                let (r, m) = self.joint[i];
                let ok = self.unify(&args[0], r, base) && self.unify(&args[1], m, base);
                self.undo(mark, base);
                ok
            }),
            Kind::Rules => {
                if let Some(rel) = &kb.rels[p as usize] {
                    let hash = self.args_hash(args, mask, base);
                    rel.candidates(mask, hash).iter().any(|&i| {
                        let ok = self.unify_all(args, rel.tuples.get(i as usize), base);
                        self.undo(mark, base);
                        ok
                    })
                } else {
                    let key = self.make_key(args, base);
                    match self.call(call, &key) {
                        None => false,
                        Some(c) => (0..self.tables[c as usize].answers().len()).any(|i| {
                            let mut ok = true;
                            for (j, a) in args.iter().enumerate() {
                                let v = self.tables[c as usize].answers().at(i, j);
                                if !self.unify(a, v, base) {
                                    ok = false;
                                    break;
                                }
                            }
                            self.undo(mark, base);
                            ok
                        }),
                    }
                }
            }
        };
        self.undo(mark, base);
        found
    }

    /// The call key of `args`: the id of each argument ground under the
    /// bindings, [`FREE`] for the others.
    fn make_key(&mut self, args: &[Pat], base: usize) -> Vec<u32> {
        args.iter()
            .map(|a| self.build(a, base).unwrap_or(FREE))
            .collect()
    }

    /// Hash of the arguments at `mask` (all ground there by the plan).
    fn args_hash(&mut self, args: &[Pat], mask: u64, base: usize) -> u64 {
        if mask == 0 {
            return 0;
        }
        let mut vals = [FREE; 64];
        for (j, a) in args.iter().enumerate().take(64) {
            if mask >> j & 1 == 1 {
                vals[j] = self.build(a, base).unwrap_or(FREE);
            }
        }
        masked_hash(mask, vals[..args.len().min(64)].iter().copied())
    }

    /// The id of `pat` under the bindings, if ground.
    fn build(&mut self, pat: &Pat, base: usize) -> Option<u32> {
        match pat {
            Pat::Ground(id) => Some(*id),
            Pat::Var(v) => {
                let b = self.binds[base + *v as usize];
                (b != FREE).then_some(b)
            }
            Pat::Func(f, args) => {
                let mut ids = Vec::with_capacity(args.len());
                for a in args.iter() {
                    ids.push(self.build(a, base)?);
                }
                Some(self.terms.intern(*f, true, &ids))
            }
        }
    }

    /// Whether two patterns are the same term under the bindings (for
    /// `distinct`). With unbound variables (unsafe rules) they are the same
    /// only when syntactically identical.
    fn same(&mut self, a: &Pat, b: &Pat, base: usize) -> bool {
        match (self.build(a, base), self.build(b, base)) {
            (Some(x), Some(y)) => x == y,
            _ => pat_eq(a, b),
        }
    }

    /// Matches `pat` against ground term `id`, binding variables (recorded on
    /// the trail).
    fn unify(&mut self, pat: &Pat, id: u32, base: usize) -> bool {
        match pat {
            Pat::Ground(g) => *g == id,
            Pat::Var(v) => {
                let slot = base + *v as usize;
                let b = self.binds[slot];
                if b == FREE {
                    self.binds[slot] = id;
                    self.trail.push(slot as u32);
                    true
                } else {
                    b == id
                }
            }
            Pat::Func(f, args) => {
                let node = self.terms.node(id);
                if node.head != header(TermKind::Func, f.0) || node.args.len() != args.len() {
                    return false;
                }
                for (j, a) in args.iter().enumerate() {
                    let sub = self.terms.arg(id, j);
                    if !self.unify(a, sub, base) {
                        return false;
                    }
                }
                true
            }
        }
    }

    fn unify_all(&mut self, args: &[Pat], tuple: &[u32], base: usize) -> bool {
        args.iter().zip(tuple).all(|(a, &v)| self.unify(a, v, base))
    }

    /// Unbinds the variables bound since trail position `mark`.
    fn undo(&mut self, mark: usize, _base: usize) {
        for &slot in &self.trail[mark..] {
            self.binds[slot as usize] = FREE;
        }
        self.trail.truncate(mark);
    }

    /// The range of state fluents that can match `pat`: the state is sorted
    /// by (functor, first argument), so a known functor and first argument
    /// narrow it by binary search.
    fn state_range(&mut self, pat: &Pat, base: usize) -> (usize, usize) {
        let (sym, first) = match pat {
            Pat::Var(v) => {
                let b = self.binds[base + *v as usize];
                if b == FREE {
                    return (0, self.state.len());
                }
                let n = self.terms.node(b);
                (n.sym().0, n.args.first().copied())
            }
            Pat::Ground(g) => {
                let n = self.terms.node(*g);
                (n.sym().0, n.args.first().copied())
            }
            Pat::Func(f, args) => (f.0, args.first().and_then(|a| self.build(a, base))),
        };
        let key = (sym, first.unwrap_or(0));
        let prefix = |&(s, a): &(u32, u32)| (s, if first.is_some() { a } else { 0 });
        let lo = self.state_keys.partition_point(|k| prefix(k) < key);
        let hi = lo + self.state_keys[lo..].partition_point(|k| prefix(k) <= key);
        (lo, hi)
    }
}

/// The sort key of a fluent in a state: functor, first argument (0 when
/// none), id.
pub(crate) fn state_key(terms: &Terms<'_>, f: u32) -> (u32, u32, u32) {
    (terms.head(f) >> 2, terms.first_arg(f).unwrap_or(0), f)
}

/// A state as a query reads it: fluent ids sorted by [`state_key`], and
/// each one's functor and first argument.
#[derive(Clone, Copy)]
pub(crate) struct Fluents<'a> {
    /// The fluent ids.
    pub ids: &'a [u32],
    /// `(functor, first argument or 0)` of each.
    pub keys: &'a [(u32, u32)],
}

impl Fluents<'_> {
    /// No fluent.
    pub const EMPTY: Fluents<'static> = Fluents {
        ids: &[],
        keys: &[],
    };
}

fn pat_eq(a: &Pat, b: &Pat) -> bool {
    match (a, b) {
        (Pat::Var(x), Pat::Var(y)) => x == y,
        (Pat::Ground(x), Pat::Ground(y)) => x == y,
        (Pat::Func(f, xs), Pat::Func(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys.iter()).all(|(x, y)| pat_eq(x, y))
        }
        _ => false,
    }
}
