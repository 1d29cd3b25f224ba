//! The compiled rule base: the rules in lifted form ([`crate::rules`]),
//! the dependency analysis (static vs state-dependent relations and strongly
//! connected components, from [`crate::analysis`] and [`crate::scc`]), the
//! subgoal orders ("plans") and the tables of static relations.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::dynamic::state_dependent;
use crate::front::ir::{Keyword, Literal, Program};
use crate::rules::{CRule, Lit, Pat};
use crate::scc::{tarjan, Sccs};

use super::overlay::{tuple_hash, TermStore, TupleSet};

/// One subgoal of a plan: which body literal, and (for atoms) which of its
/// arguments are ground when it runs, as a bit mask.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub lit: u32,
    pub mask: u64,
    /// For an atom of a relation proved by rules: the call id to use (the
    /// relation, with [`EXIST`] when only the existence of an answer matters).
    pub call: u32,
}

/// Marks an existential call: one whose unbound arguments are variables the
/// rule never uses again, so that one answer is as good as all (negations,
/// fully bound calls, `(line ?p)`-style checks). Such a call stops at its
/// first answer, the "cut" that keeps path searches (laikLee_hex's
/// `connection`) from enumerating every path.
pub(crate) const EXIST: u32 = 1 << 31;

/// A rule with its body in evaluation order, for one call pattern.
#[derive(Clone, Debug)]
pub(crate) struct CallPlan {
    pub rule: u32,
    pub steps: Box<[Step]>,
}

/// How a relation's atoms are proved.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `true`: looked up in the state.
    True,
    /// `does`: looked up in the joint move.
    Does,
    /// Everything else: by its rules (or its table, once static and computed).
    Rules,
}

/// A static relation, computed once: its tuples and hash indexes on the
/// argument positions that plans bind.
#[derive(Debug)]
pub(crate) struct StaticTable {
    pub tuples: TupleSet,
    /// `(mask, hash of the masked values → tuple indices)`.
    indexes: Vec<(u64, FxHashMap<u64, Vec<u32>>)>,
    all: Vec<u32>,
}

/// Hash of the values of `vals` at the positions of `mask`.
pub(crate) fn masked_hash(mask: u64, vals: impl Iterator<Item = u32>) -> u64 {
    let mut buf = [0u32; 64];
    let mut n = 0;
    for (j, v) in vals.enumerate().take(64) {
        if mask >> j & 1 == 1 {
            buf[n] = v;
            n += 1;
        }
    }
    tuple_hash(&buf[..n])
}

impl StaticTable {
    fn new(tuples: TupleSet, masks: &FxHashSet<u64>) -> Self {
        let all = (0..tuples.len() as u32).collect();
        let mut indexes = Vec::new();
        for &mask in masks {
            if mask == 0 {
                continue;
            }
            let mut index: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
            for i in 0..tuples.len() {
                let h = masked_hash(mask, tuples.get(i).iter().copied());
                index.entry(h).or_default().push(i as u32);
            }
            indexes.push((mask, index));
        }
        StaticTable {
            tuples,
            indexes,
            all,
        }
    }

    /// Indices of the tuples that may agree with a call whose arguments at
    /// `mask` hash to `hash` (a superset: callers still match every tuple).
    pub fn candidates(&self, mask: u64, hash: u64) -> &[u32] {
        if mask != 0 {
            if let Some((_, index)) = self.indexes.iter().find(|(m, _)| *m == mask) {
                return index.get(&hash).map_or(&[], |v| v.as_slice());
            }
        }
        &self.all
    }
}

/// The compiled program.
#[derive(Debug)]
pub(crate) struct Kb {
    pub arity: Vec<usize>,
    pub kind: Vec<Kind>,
    /// Depends on `true` or `does` (directly or not).
    pub dynamic: Vec<bool>,
    pub rules: Vec<CRule>,
    pub rules_of: Vec<Vec<u32>>,
    /// Plans of each relation's rules per call mask (bound argument positions).
    pub plans: FxHashMap<(u32, u64), Box<[CallPlan]>>,
    /// The strongly connected components of the dependency graph, callees
    /// before callers.
    pub sccs: Sccs,
    /// Static relations too large to compute in full (or not computed yet):
    /// proved call by call, their complete call tables shared across queries.
    pub lazy: Vec<bool>,
    /// Tables of the static relations, once computed.
    pub rels: Vec<Option<StaticTable>>,
    /// Argument masks under which plans look static relations up.
    pub index_masks: Vec<FxHashSet<u64>>,
}

/// The mask of the ground positions of a call key.
pub(crate) fn key_mask(key: &[u32]) -> u64 {
    let mut m = 0;
    for (j, &v) in key.iter().enumerate().take(64) {
        if v != super::overlay::FREE {
            m |= 1 << j;
        }
    }
    m
}

impl Kb {
    /// Compiles `program`, interning its ground terms into `store`. Static
    /// relations are left uncomputed (see `prove::compute_static`).
    pub fn new(program: &Program, store: &mut TermStore) -> Kb {
        let n = program.preds.len();
        let arity: Vec<usize> = program.preds.iter().map(|p| p.arity).collect();
        let kind: Vec<Kind> = (0..n)
            .map(
                |p| match program.pred_keyword(crate::front::ir::PredId(p as u32)) {
                    Some(Keyword::True) => Kind::True,
                    Some(Keyword::Does) => Kind::Does,
                    _ => Kind::Rules,
                },
            )
            .collect();
        let mut rules = Vec::new();
        let mut rules_of = vec![Vec::new(); n];
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n];
        for rule in &program.rules {
            let hp = rule.head.pred.0;
            // `true` and `does` are given by the state and the joint move;
            // rules for them (invalid GDL) are ignored.
            if kind[hp as usize] != Kind::Rules {
                continue;
            }
            let head: Box<[Pat]> = rule
                .head
                .args
                .iter()
                .map(|t| Pat::compile(store, t))
                .collect();
            let body: Vec<Lit> = rule
                .body
                .iter()
                .map(|l| match l {
                    Literal::Pos(a) => {
                        edges[hp as usize].push(a.pred.0);
                        Lit::Pos(
                            a.pred.0,
                            a.args.iter().map(|t| Pat::compile(store, t)).collect(),
                        )
                    }
                    Literal::Neg(a) => {
                        edges[hp as usize].push(a.pred.0);
                        Lit::Neg(
                            a.pred.0,
                            a.args.iter().map(|t| Pat::compile(store, t)).collect(),
                        )
                    }
                    Literal::Distinct(a, b, _) => {
                        Lit::Distinct(Pat::compile(store, a), Pat::compile(store, b))
                    }
                })
                .collect();
            rules_of[hp as usize].push(rules.len() as u32);
            rules.push(CRule {
                head_rel: hp,
                head,
                body,
                num_vars: rule.num_vars(),
            });
        }

        let dynamic = state_dependent(program);
        let sccs = tarjan(&edges, |&q| q as usize);
        let mut kb = Kb {
            arity,
            kind,
            dynamic,
            rules,
            rules_of,
            plans: FxHashMap::default(),
            sccs,
            lazy: vec![false; n],
            rels: (0..n).map(|_| None).collect(),
            index_masks: vec![FxHashSet::default(); n],
        };
        kb.make_plans(program);
        kb
    }

    /// Plans every (relation, call mask) pair reachable from the queries the
    /// game makes, starting with the all-free call of every relation (used to
    /// compute static relations, and as the fallback for any other mask).
    fn make_plans(&mut self, program: &Program) {
        let mut work: Vec<(u32, u64)> = (0..self.arity.len() as u32).map(|p| (p, 0)).collect();
        // Entry queries with every argument bound (`terminal`) are existential.
        for p in 0..self.arity.len() {
            let full = if self.arity[p] >= 64 {
                u64::MAX
            } else {
                (1u64 << self.arity[p]) - 1
            };
            work.push((p as u32 | EXIST, full));
        }
        for kw in [Keyword::Legal, Keyword::Goal] {
            if let Some(p) = program.keyword_pred(kw) {
                work.push((p.0, 1));
            }
        }
        let mut seen: FxHashSet<(u32, u64)> = FxHashSet::default();
        while let Some((call, mask)) = work.pop() {
            let p = call & !EXIST;
            if self.kind[p as usize] != Kind::Rules || !seen.insert((call, mask)) {
                continue;
            }
            let mut plans = Vec::new();
            for &r in &self.rules_of[p as usize] {
                let rule = &self.rules[r as usize];
                let mut bound = vec![false; rule.num_vars];
                for (j, h) in rule.head.iter().enumerate().take(64) {
                    if mask >> j & 1 == 1 {
                        h.for_each_var(&mut |v| bound[v as usize] = true);
                    }
                }
                let mut steps = self.order_body(rule, &mut bound);
                // Variables the answer needs: the head's (unless this call is
                // existential itself), then those of later subgoals.
                let mut needed = vec![false; rule.num_vars];
                if call & EXIST == 0 {
                    for h in rule.head.iter() {
                        h.for_each_var(&mut |v| needed[v as usize] = true);
                    }
                }
                for k in (0..steps.len()).rev() {
                    let s = &mut steps[k];
                    match &rule.body[s.lit as usize] {
                        Lit::Pos(q, args) | Lit::Neg(q, args) => {
                            if self.kind[*q as usize] == Kind::Rules {
                                let exist = existential(args, s.mask, &needed);
                                s.call = if exist { *q | EXIST } else { *q };
                                work.push((s.call, s.mask));
                                self.index_masks[*q as usize].insert(s.mask);
                            }
                            for a in args.iter() {
                                a.for_each_var(&mut |v| needed[v as usize] = true);
                            }
                        }
                        Lit::Distinct(a, b) => {
                            a.for_each_var(&mut |v| needed[v as usize] = true);
                            b.for_each_var(&mut |v| needed[v as usize] = true);
                        }
                    }
                }
                plans.push(CallPlan {
                    rule: r,
                    steps: steps.into(),
                });
            }
            self.plans.insert((call, mask), plans.into());
        }
    }

    /// Orders a rule body for evaluation given the variables bound on entry:
    /// a negation or `distinct` runs as soon as its variables are bound (they
    /// only filter, and negation as failure is only sound on ground atoms);
    /// otherwise a positive atom whose arguments are all bound (a test), then
    /// a `true` or `does` atom with a bound argument (a narrow look-up in the
    /// state), then the first remaining atom in the author's order. Greedily
    /// picking the atom with the most bound arguments looks attractive but
    /// can call a derived relation with a large argument still free
    /// (laikLee_hex's `connection2` before the `append_el` that builds its
    /// list, which then asks for every list there is); the author's order is
    /// the one the game was tested with on Prolog-style provers. A negation
    /// or `distinct` whose variables never get bound (an unsafe rule) runs
    /// last.
    fn order_body(&self, rule: &CRule, bound: &mut [bool]) -> Vec<Step> {
        let mut left: Vec<u32> = (0..rule.body.len() as u32).collect();
        let mut steps = Vec::with_capacity(left.len());
        while !left.is_empty() {
            let filter = left.iter().position(|&i| match &rule.body[i as usize] {
                Lit::Neg(_, args) => args.iter().all(|a| a.bound_by(bound)),
                Lit::Distinct(a, b) => a.bound_by(bound) && b.bound_by(bound),
                Lit::Pos(..) => false,
            });
            let pick = filter.or_else(|| {
                let mut best: Option<(usize, (bool, bool))> = None;
                for (k, &i) in left.iter().enumerate() {
                    if let Lit::Pos(p, args) = &rule.body[i as usize] {
                        let ground = args.iter().filter(|a| a.bound_by(bound)).count();
                        let state = matches!(self.kind[*p as usize], Kind::True | Kind::Does);
                        let score = (ground == args.len(), state && ground > 0);
                        if best.is_none_or(|(_, b)| score > b) {
                            best = Some((k, score));
                        }
                    }
                }
                best.map(|(k, _)| k)
            });
            let k = pick.unwrap_or(0);
            let i = left.remove(k);
            let mut mask = 0u64;
            match &rule.body[i as usize] {
                Lit::Pos(_, args) | Lit::Neg(_, args) => {
                    for (j, a) in args.iter().enumerate().take(64) {
                        if a.bound_by(bound) {
                            mask |= 1 << j;
                        }
                    }
                    if let Lit::Pos(..) = &rule.body[i as usize] {
                        for a in args.iter() {
                            a.for_each_var(&mut |v| bound[v as usize] = true);
                        }
                    }
                }
                Lit::Distinct(..) => {}
            }
            steps.push(Step {
                lit: i,
                mask,
                call: 0,
            });
        }
        steps
    }

    /// Stores the computed table of static relation `p`, indexed for the
    /// masks its callers use.
    pub fn set_relation(&mut self, p: u32, tuples: TupleSet) {
        let rel = StaticTable::new(tuples, &self.index_masks[p as usize]);
        self.rels[p as usize] = Some(rel);
    }
}

/// Whether a call with arguments `args`, ground at `mask`, only needs one
/// answer: every other argument is a variable occurring once in it and not
/// `needed` afterwards.
fn existential(args: &[Pat], mask: u64, needed: &[bool]) -> bool {
    let mut seen = Vec::new();
    for (j, a) in args.iter().enumerate() {
        if j < 64 && mask >> j & 1 == 1 {
            continue;
        }
        match a {
            Pat::Var(v) if !needed[*v as usize] && !seen.contains(v) => seen.push(*v),
            _ => return false,
        }
    }
    true
}
