//! A bottom-up Datalog evaluator over interned ground terms: relations with
//! hash indexes, join plans, and semi-naive evaluation of strongly connected
//! components.
//!
//! The grounder runs it twice over the same relations: once to compute the
//! domains (the relaxed fixpoint of [`super::domains`]), then once per rule
//! to enumerate the rule's instances ([`super::instantiate`]).
//!
//! Relations are append-only lists of atom ids, so a *range* of positions is
//! a snapshot: semi-naive evaluation reads "old" tuples (before the last
//! round), the "delta" (added by the last round) and "full" through ranges,
//! with no copying. Indexes are built lazily for the access patterns the
//! join plans ask for, and catch up with appended tuples before each join.

use rustc_hash::FxHashMap;

use super::budget::{Budget, GroundError};
use super::terms::{header, Kind, Terms};
use crate::analysis::deps::tarjan_adj;
use crate::front::ir::Term;

/// Position value of an atom that is in no relation.
pub const NONE: u32 = u32::MAX;

/// A term pattern of a rule: variables, ground subterms (interned) and
/// function applications with at least one variable inside.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Pat {
    /// A rule variable.
    Var(u32),
    /// A ground term (its id).
    Ground(u32),
    /// `(f args..)` with a variable somewhere inside.
    Func(u32, Box<[Pat]>),
}

impl Pat {
    /// Compiles a lowered term, interning its ground parts.
    pub fn compile(terms: &mut Terms, t: &Term) -> Pat {
        match t {
            Term::Var(v) => Pat::Var(*v),
            Term::Const(s) => Pat::Ground(terms.constant(*s)),
            Term::Func(f, args) => {
                let ps: Vec<Pat> = args.iter().map(|a| Pat::compile(terms, a)).collect();
                if ps.iter().all(|p| matches!(p, Pat::Ground(_))) {
                    let mut key = vec![header(Kind::Func, f.0)];
                    key.extend(ps.iter().map(|p| match p {
                        Pat::Ground(id) => *id,
                        _ => unreachable!(),
                    }));
                    Pat::Ground(terms.intern(&key))
                } else {
                    Pat::Func(f.0, ps.into())
                }
            }
        }
    }

    /// Calls `f` on every variable, with repeats.
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Ground(_) => {}
            Pat::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// A body literal of a compiled rule.
#[derive(Clone, Debug)]
pub enum Lit {
    /// The atom `rel(args)` holds.
    Pos(usize, Box<[Pat]>),
    /// The atom `rel(args)` does not hold (`rel` must be complete by then).
    Neg(usize, Box<[Pat]>),
    /// The two terms differ.
    Distinct(Pat, Pat),
}

impl Lit {
    fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Lit::Pos(_, args) | Lit::Neg(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
            Lit::Distinct(a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

/// A rule over relation indices, ready for evaluation.
#[derive(Clone, Debug)]
pub struct CRule {
    /// Relation of the head.
    pub head_rel: usize,
    /// Head arguments.
    pub head: Box<[Pat]>,
    /// Body literals that filter the rule's instances.
    pub body: Vec<Lit>,
    /// Number of variables.
    pub num_vars: usize,
}

/// Shape of an index: the pattern with each argument position marked as a
/// key (bound when the index is used), free, a ground term, or a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Spec {
    Key,
    Free,
    Ground(u32),
    Func(u32, Box<[Spec]>),
}

/// A hash index of one relation: key values → positions, ascending.
#[derive(Debug)]
struct Index {
    spec: Box<[Spec]>,
    covered: usize,
    map: FxHashMap<Box<[u32]>, Vec<u32>>,
}

/// One relation: its atoms (ids) in insertion order, and its indexes.
#[derive(Debug, Default)]
pub struct Relation {
    /// The atoms, in the order they were derived.
    pub tuples: Vec<u32>,
    indexes: Vec<Index>,
    index_of: FxHashMap<Box<[Spec]>, usize>,
}

/// Which tuples of a relation a plan step reads (semi-naive evaluation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Range {
    /// All tuples.
    Full,
    /// Tuples before the last round's.
    Old,
    /// Tuples of the last round.
    Delta,
}

#[derive(Clone, Debug)]
enum Step {
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
pub struct Plan {
    steps: Vec<Step>,
    /// From this step on every output variable is bound: the rest of the
    /// join only has to succeed once.
    exists_from: usize,
    /// The variables whose values each solution reports, in order.
    pub out_vars: Vec<u32>,
}

/// The database: interned terms and every relation.
#[derive(Debug)]
pub struct Db {
    /// Interned terms and atoms.
    pub terms: Terms,
    /// The relations, by index.
    pub rels: Vec<Relation>,
    /// Position of each atom in its relation, by atom id ([`NONE`] if absent).
    pos: Vec<u32>,
    /// Total tuples over all relations.
    pub total_tuples: usize,
    /// Approximate bytes held by indexes.
    index_bytes: usize,
    /// Display names of the relations, for errors.
    pub rel_names: Vec<String>,
    /// Join work done so far (atoms tried), for the budget.
    pub work: u64,
    /// Join work allowed.
    pub max_work: u64,
}

const UNBOUND: u32 = u32::MAX;

impl Db {
    /// An empty database with the given relations.
    pub fn new(terms: Terms, rel_names: Vec<String>) -> Self {
        Db {
            terms,
            rels: rel_names.iter().map(|_| Relation::default()).collect(),
            pos: Vec::new(),
            total_tuples: 0,
            index_bytes: 0,
            rel_names,
            work: 0,
            max_work: u64::MAX,
        }
    }

    /// Approximate bytes in use, for the memory budget.
    pub fn bytes(&self) -> usize {
        self.terms.bytes() + self.pos.len() * 4 + self.total_tuples * 4 + self.index_bytes
    }

    /// Position of atom `id` in its relation, or [`NONE`].
    #[inline]
    pub fn pos(&self, id: u32) -> u32 {
        self.pos.get(id as usize).copied().unwrap_or(NONE)
    }

    /// Whether atom `id` is in its relation.
    pub fn contains(&self, id: u32) -> bool {
        self.pos(id) != NONE
    }

    /// Interns the atom `rel(args)`.
    pub fn atom(&mut self, rel: usize, args: &[u32]) -> u32 {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        key.extend_from_slice(args);
        self.terms.intern(&key)
    }

    /// The atom `rel(args)` if interned.
    pub fn lookup_atom(&self, rel: usize, args: &[u32]) -> Option<u32> {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        key.extend_from_slice(args);
        self.terms.lookup(&key)
    }

    /// Adds atom `id` to relation `rel`; returns whether it is new.
    pub fn insert(&mut self, rel: usize, id: u32, budget: &Budget) -> Result<bool, GroundError> {
        if self.pos.len() <= id as usize {
            self.pos.resize(self.terms.len().max(id as usize + 1), NONE);
        }
        if self.pos[id as usize] != NONE {
            return Ok(false);
        }
        let r = &mut self.rels[rel];
        self.pos[id as usize] = r.tuples.len() as u32;
        r.tuples.push(id);
        self.total_tuples += 1;
        if self.total_tuples & 1023 == 0 {
            budget.check_memory(self.bytes(), &self.rel_names[rel])?;
        }
        budget.check_tuples(self.total_tuples, &self.rel_names[rel])?;
        Ok(true)
    }

    /// Interns the ground term `pat` under `binds` (every variable bound).
    pub fn ground(&mut self, pat: &Pat, binds: &[u32]) -> u32 {
        match pat {
            Pat::Var(v) => binds[*v as usize],
            Pat::Ground(id) => *id,
            Pat::Func(f, args) => {
                let mut key = Vec::with_capacity(args.len() + 1);
                key.push(header(Kind::Func, *f));
                for a in args.iter() {
                    let id = self.ground(a, binds);
                    key.push(id);
                }
                self.terms.intern(&key)
            }
        }
    }

    /// Interns the atom `rel(args)` under `binds`.
    pub fn ground_atom(&mut self, rel: usize, args: &[Pat], binds: &[u32]) -> u32 {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        for a in args {
            let id = self.ground(a, binds);
            key.push(id);
        }
        self.terms.intern(&key)
    }

    /// The id of the ground term `pat` under `binds`, if it is interned.
    pub fn lookup(&self, pat: &Pat, binds: &[u32]) -> Option<u32> {
        match pat {
            Pat::Var(v) => Some(binds[*v as usize]),
            Pat::Ground(id) => Some(*id),
            Pat::Func(f, args) => self.lookup_node(header(Kind::Func, *f), args, binds),
        }
    }

    /// The atom `rel(args)` under `binds`, if interned.
    pub fn lookup_atom_pat(&self, rel: usize, args: &[Pat], binds: &[u32]) -> Option<u32> {
        self.lookup_node(header(Kind::Atom, rel as u32), args, binds)
    }

    /// The node `head(args)` under `binds`, if interned. Keys of up to 15
    /// arguments are built on the stack: this is the join's hot path.
    fn lookup_node(&self, head: u32, args: &[Pat], binds: &[u32]) -> Option<u32> {
        let mut buf = [0u32; 16];
        if args.len() < buf.len() {
            buf[0] = head;
            for (k, a) in args.iter().enumerate() {
                buf[k + 1] = self.lookup(a, binds)?;
            }
            return self.terms.lookup(&buf[..=args.len()]);
        }
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(head);
        for a in args {
            key.push(self.lookup(a, binds)?);
        }
        self.terms.lookup(&key)
    }

    fn index_for(&mut self, rel: usize, spec: Box<[Spec]>) -> usize {
        let r = &mut self.rels[rel];
        if let Some(&i) = r.index_of.get(&spec) {
            return i;
        }
        r.indexes.push(Index {
            spec: spec.clone(),
            covered: 0,
            map: FxHashMap::default(),
        });
        r.index_of.insert(spec, r.indexes.len() - 1);
        r.indexes.len() - 1
    }

    /// Brings every index a plan uses up to date with its relation.
    fn catch_up(&mut self, plan: &Plan) {
        for step in &plan.steps {
            if let Step::Scan {
                rel,
                index: Some(ix),
                ..
            } = step
            {
                let r = &mut self.rels[*rel];
                let idx = &mut r.indexes[*ix];
                let mut key = Vec::new();
                while idx.covered < r.tuples.len() {
                    let p = idx.covered;
                    idx.covered += 1;
                    key.clear();
                    let args = self.terms.args(r.tuples[p]);
                    if spec_key(&self.terms, &idx.spec, args, &mut key) {
                        self.index_bytes += 4;
                        idx.map
                            .entry(key.as_slice().into())
                            .or_insert_with(|| {
                                self.index_bytes += 48 + key.len() * 4;
                                Vec::new()
                            })
                            .push(p as u32);
                    }
                }
            }
        }
    }

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
    ) -> Plan {
        let mut bound = vec![false; num_vars];
        let mut done = vec![false; body.len()];
        let mut steps = Vec::with_capacity(body.len());
        let range_of = |i: usize, rel: usize| match delta {
            Some(d) if d == i => Range::Delta,
            Some(d) if i < d && in_scc(rel) => Range::Old,
            _ => Range::Full,
        };
        let all_bound = |lit: &Lit, bound: &[bool]| {
            let mut ok = true;
            lit.for_each_var(&mut |v| ok &= bound[v as usize]);
            ok
        };
        let mut exists_from = if out_vars.iter().all(|&v| bound[v as usize]) {
            Some(0)
        } else {
            None
        };
        let mut next_first = delta;
        while done.iter().any(|d| !d) {
            // Checks first: cheap, and they prune early.
            let check = (0..body.len())
                .find(|&i| !done[i] && next_first.is_none() && all_bound(&body[i], &bound));
            let i = match check {
                Some(i) => i,
                None => match next_first.take() {
                    Some(d) => d,
                    None => {
                        let mut best = None;
                        let mut best_cost = f64::INFINITY;
                        for (i, lit) in body.iter().enumerate() {
                            if done[i] {
                                continue;
                            }
                            if let Lit::Pos(rel, args) = lit {
                                let size = self.rels[*rel].tuples.len().max(1) as f64;
                                let mut k = 0;
                                for a in args.iter() {
                                    k += bound_leaves(a, &bound);
                                }
                                let cost = size * 0.05f64.powi(k);
                                if cost < best_cost {
                                    best_cost = cost;
                                    best = Some(i);
                                }
                            }
                        }
                        // Only unsafe bodies (negative literals or distinct
                        // with unbound variables) get here without a scan;
                        // the checker rules them out, but stay total.
                        match best {
                            Some(i) => i,
                            None => (0..body.len()).find(|&i| !done[i]).unwrap_or(0),
                        }
                    }
                },
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
                    let index = constrained.then(|| self.index_for(*rel, spec.into()));
                    steps.push(Step::Scan {
                        rel: *rel,
                        args: args.clone(),
                        index,
                        key_vars: key_vars.into(),
                        range: range_of(i, *rel),
                    });
                }
                Lit::Pos(rel, args) => steps.push(Step::Check {
                    rel: *rel,
                    args: args.clone(),
                    negated: false,
                    range: range_of(i, *rel),
                }),
                Lit::Neg(rel, args) => steps.push(Step::Check {
                    rel: *rel,
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
        Plan {
            exists_from: exists_from.unwrap_or(steps.len()),
            steps,
            out_vars,
        }
    }

    /// Runs `plan`: appends the values of `plan.out_vars` of each solution
    /// to `out`. `delta` gives, per relation, the range of the last round
    /// (used by `Old` and `Delta` steps). Returns whether any solution
    /// exists, or `None` when the join work exceeds `max_work`.
    pub fn run(
        &mut self,
        plan: &Plan,
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

    /// Evaluates `rules` to their least fixpoint, component by component in
    /// dependency order, semi-naively within recursive components. Negative
    /// literals must refer to relations of lower components (stratification).
    pub fn solve(&mut self, rules: &[CRule], budget: &Budget) -> Result<(), GroundError> {
        let n = self.rels.len();
        let mut succ = vec![Vec::new(); n];
        for r in rules {
            for lit in &r.body {
                if let Lit::Pos(rel, _) | Lit::Neg(rel, _) = lit {
                    succ[r.head_rel].push(*rel);
                }
            }
        }
        let (comp, num) = tarjan_adj(&succ);
        let mut by_comp: Vec<Vec<usize>> = vec![Vec::new(); num];
        for (i, r) in rules.iter().enumerate() {
            by_comp[comp[r.head_rel] as usize].push(i);
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
            // Round one: every rule over everything known.
            let mut full_plans = Vec::new();
            for &ri in rule_ids {
                let r = &rules[ri];
                let plan = self.plan(&r.body, None, &in_scc, head_vars(r), r.num_vars);
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
                    .any(|l| matches!(l, Lit::Pos(rel, _) if in_scc(*rel)))
            });
            if !recursive {
                continue;
            }
            let mut delta_plans: FxHashMap<(usize, usize), Plan> = FxHashMap::default();
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
                        if !in_scc(*rel) || delta[*rel].0 == delta[*rel].1 {
                            continue;
                        }
                        let plan = delta_plans
                            .entry((ri, li))
                            .or_insert_with(|| {
                                self.plan(&r.body, Some(li), &in_scc, head_vars(r), r.num_vars)
                            })
                            .clone();
                        self.fire(r, &plan, &delta, &mut out, &mut binds, budget)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs one rule's plan and adds the head atoms it derives.
    fn fire(
        &mut self,
        rule: &CRule,
        plan: &Plan,
        delta: &[(u32, u32)],
        out: &mut Vec<u32>,
        binds: &mut Vec<u32>,
        budget: &Budget,
    ) -> Result<(), GroundError> {
        out.clear();
        let Some(found) = self.run(plan, delta, out, rule.num_vars) else {
            return Err(budget.work_error(&self.rel_names[rule.head_rel]));
        };
        binds.clear();
        binds.resize(rule.num_vars, UNBOUND);
        let w = plan.out_vars.len();
        if w == 0 {
            // A ground head: derived when at least one solution exists.
            if found {
                let atom = self.ground_atom(rule.head_rel, &rule.head, binds);
                self.insert(rule.head_rel, atom, budget)?;
            }
            return Ok(());
        }
        for chunk in out.chunks_exact(w) {
            for (k, &v) in plan.out_vars.iter().enumerate() {
                binds[v as usize] = chunk[k];
            }
            let atom = self.ground_atom(rule.head_rel, &rule.head, binds);
            self.insert(rule.head_rel, atom, budget)?;
        }
        Ok(())
    }
}

/// The distinct variables of a rule's head, in order.
pub fn head_vars(r: &CRule) -> Vec<u32> {
    let mut vs = Vec::new();
    for a in r.head.iter() {
        a.for_each_var(&mut |v| {
            if !vs.contains(&v) {
                vs.push(v)
            }
        });
    }
    vs
}

/// Number of leaves of `p` known before matching (ground or bound).
fn bound_leaves(p: &Pat, bound: &[bool]) -> i32 {
    match p {
        Pat::Var(v) => bound[*v as usize] as i32,
        Pat::Ground(_) => 1,
        Pat::Func(_, args) => args.iter().map(|a| bound_leaves(a, bound)).sum(),
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
                *f,
                args.iter()
                    .map(|a| make_spec(a, bound, key_vars, constrained, newly))
                    .collect(),
            )
        }
    }
}

/// Matches `args` (ground ids) against `spec`, collecting the key values.
fn spec_key(terms: &Terms, spec: &[Spec], args: &[u32], key: &mut Vec<u32>) -> bool {
    spec.len() == args.len()
        && spec
            .iter()
            .zip(args)
            .all(|(s, &a)| spec_key1(terms, s, a, key))
}

fn spec_key1(terms: &Terms, spec: &Spec, id: u32, key: &mut Vec<u32>) -> bool {
    match spec {
        Spec::Key => {
            key.push(id);
            true
        }
        Spec::Free => true,
        Spec::Ground(g) => *g == id,
        Spec::Func(f, args) => {
            terms.head(id) == header(Kind::Func, *f) && spec_key(terms, args, terms.args(id), key)
        }
    }
}

struct Exec<'a> {
    db: &'a Db,
    plan: &'a Plan,
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
                let mut found = false;
                match index {
                    None => {
                        for p in lo..hi {
                            if self.work > self.max_work {
                                return false;
                            }
                            if self.try_atom(args, r.tuples[p as usize], s) {
                                found = true;
                                if stop_early {
                                    return true;
                                }
                            }
                        }
                    }
                    Some(ix) => {
                        self.key.clear();
                        for &v in key_vars.iter() {
                            self.key.push(self.binds[v as usize]);
                        }
                        let Some(list) = r.indexes[*ix].map.get(self.key.as_slice()) else {
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
                        for &p in &list[a..b] {
                            if self.work > self.max_work {
                                return false;
                            }
                            if self.try_atom(args, r.tuples[p as usize], s) {
                                found = true;
                                if stop_early {
                                    return true;
                                }
                            }
                        }
                    }
                }
                found
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

fn match_pat(terms: &Terms, p: &Pat, id: u32, binds: &mut [u32], trail: &mut Vec<u32>) -> bool {
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
            terms.head(id) == header(Kind::Func, *f) && {
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
