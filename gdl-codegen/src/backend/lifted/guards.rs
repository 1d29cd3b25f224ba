//! Guards of recursive relations: for each dynamic relation on a cycle, a
//! static over-approximation of its tuples (its rules with the state relaxed
//! to the reachable fluents and the other dynamic relations to their relaxed
//! domains or left out), computed at compile time and tested first by each of
//! its rules.
//!
//! A recursive search that cannot succeed then stops at its first call:
//! chess's `clear_diagonal_ne ?u ?v ?x ?y`, asked of a square off the
//! diagonal of `(?u, ?v)`, walks square by square to the board's edge before
//! it fails; its guard, the pairs of squares on one diagonal, refuses it at
//! once. Columns the over-approximation does not constrain (the `?ignorex
//! ?ignorey` of `clear_diagonal_ne_ig`, any square) are projected away, so
//! that a guard is a small table, and a guard that would refuse less than
//! half of the argument combinations is not kept.

use super::cost;
use super::cost::{MAX_GUARD_TUPLES, MAX_GUARD_WORK, MAX_PASSING_GROWTH, MAX_RELAYS};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ground::budget::Budget;
use crate::ground::db::Relation;
use crate::ground::domains::Domains;
use crate::rules::{CRule, Lit, Pat};
use crate::scc::tarjan;

/// A guard: a static relation of the domain database over some of the
/// guarded relation's arguments.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The guarded relation (a program relation).
    pub of: u32,
    /// The guarded relation's arguments the guard keeps, in order.
    pub columns: Vec<usize>,
    /// The guard's tuples, as domain term ids (projected on `columns`,
    /// deduplicated).
    pub tuples: Vec<Vec<u32>>,
}

impl Guard {
    /// The literal testing the guard in a rule of the guarded relation,
    /// the guard being relation `rel`.
    pub fn literal(&self, rel: u32, head: &[Pat]) -> Lit {
        Lit::Pos(rel, self.columns.iter().map(|&c| head[c].clone()).collect())
    }
}

/// The guards of `dom`'s program, among its first `n` relations (the
/// program's), each computed within a budget of its own: first those of
/// the recursive dynamic relations, then the relays (see [`relays`]); the
/// number of the first kind is returned beside them. Components whose
/// guards go over the budget, or whose rules cannot be relaxed safely, get
/// none.
pub fn compute(dom: &mut Domains, n: usize, budget: &Budget) -> (Vec<Guard>, usize) {
    let rules: Vec<CRule> = dom.rules.iter().map(|r| r.relaxed.clone()).collect();
    let mut guards = Vec::new();
    // The relation of the domain database holding each guarded relation's
    // over-approximation.
    let mut shadows: FxHashMap<u32, u32> = FxHashMap::default();
    for comp in cyclic_components(&rules, dom.db.rels.len(), n, &dom.dynamic) {
        let first = dom.db.rels.len();
        let own = |rel: u32| {
            comp.iter()
                .position(|&p| p == rel as usize)
                .map(|k| (first + k) as u32)
        };
        let Some(shadow) = shadow_rules(&rules, &comp, own, dom) else {
            continue;
        };
        if let Some(found) = solve_shadows(dom, &comp, &shadow, budget) {
            for (k, &p) in comp.iter().enumerate() {
                shadows.insert(p as u32, (first + k) as u32);
            }
            guards.extend(found);
        }
    }
    let recursive = guards.len();
    guards.extend(relays(dom, &rules, n, &mut shadows, budget));
    (guards, recursive)
}

/// The guards of the relays: dynamic relations off any cycle each rule of
/// which reads a guarded relation (chess's `bishop_move_ig`, four rules each
/// asking a guarded diagonal; then `queen_move_ig`, over it and the rook's).
/// Tested once where such a relation is called, a relay's guard refuses at
/// once what would otherwise be refused by each of its rules' callees in
/// turn (a square off both diagonals of another: one test in place of
/// four). Its over-approximation reads the guarded relations from theirs.
fn relays(
    dom: &mut Domains,
    rules: &[CRule],
    n: usize,
    shadows: &mut FxHashMap<u32, u32>,
    budget: &Budget,
) -> Vec<Guard> {
    let mut on_cycle = vec![false; dom.db.rels.len()];
    for comp in cyclic_components(rules, dom.db.rels.len(), n, &vec![true; n]) {
        comp.iter().for_each(|&p| on_cycle[p] = true);
    }
    let mut rules_of: Vec<Vec<&CRule>> = vec![Vec::new(); n];
    for r in rules.iter().filter(|r| (r.head_rel as usize) < n) {
        rules_of[r.head_rel as usize].push(r);
    }
    let mut guards = Vec::new();
    let mut tried = vec![false; n];
    for _ in 0..MAX_RELAYS {
        let next = (0..n).find(|&p| {
            !tried[p]
                && dom.dynamic[p]
                && !on_cycle[p]
                && !rules_of[p].is_empty()
                && rules_of[p].iter().all(|r| {
                    r.body
                        .iter()
                        .any(|l| matches!(l, Lit::Pos(rel, _) if shadows.contains_key(rel)))
                })
        });
        let Some(p) = next else { break };
        tried[p] = true;
        let first = dom.db.rels.len() as u32;
        let read = |rel: u32| {
            if rel as usize == p {
                Some(first)
            } else {
                shadows.get(&rel).copied()
            }
        };
        let Some(shadow) = shadow_rules(rules, &[p], read, dom) else {
            continue;
        };
        if let Some(found) = solve_shadows(dom, &[p], &shadow, budget) {
            shadows.insert(p as u32, first);
            guards.extend(found);
        }
    }
    guards
}

/// Derives the over-approximations of `comp` by `shadow` (into new
/// relations of the domain database, one per member in order, numbered
/// from its current count) within the guards' budget, and returns the
/// guards kept from them; `None` if the budget ran out.
fn solve_shadows(
    dom: &mut Domains,
    comp: &[usize],
    shadow: &[CRule],
    budget: &Budget,
) -> Option<Vec<Guard>> {
    let first = dom.db.rels.len();
    for &p in comp {
        dom.db.rels.push(Relation::default());
        let name = format!("guard of {}", dom.db.rel_names[p]);
        dom.db.rel_names.push(name);
    }
    let limit = Budget {
        max_rules: dom.db.total_tuples + MAX_GUARD_TUPLES,
        max_work: dom.db.work.saturating_add(MAX_GUARD_WORK),
        ..*budget
    };
    let max_work = std::mem::replace(&mut dom.db.max_work, limit.max_work);
    let solved = dom.db.solve(shadow, &limit);
    dom.db.max_work = max_work;
    solved.ok()?;
    let mut guards = Vec::new();
    for (k, &p) in comp.iter().enumerate() {
        let tuples: Vec<Vec<u32>> = dom.db.rels[first + k]
            .tuples
            .iter()
            .map(|&a| dom.db.terms.args(a).to_vec())
            .collect();
        if let Some(guard) = narrow(p as u32, tuples) {
            guards.push(guard);
        }
    }
    Some(guards)
}

/// The components of more than one relation, or of one that reads itself,
/// whose relations are all dynamic program relations.
fn cyclic_components(
    rules: &[CRule],
    num_rels: usize,
    n: usize,
    dynamic: &[bool],
) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new(); num_rels];
    for r in rules {
        for lit in &r.body {
            if let Lit::Pos(rel, _) = lit {
                succ[r.head_rel as usize].push(*rel as usize);
            }
        }
    }
    let sccs = tarjan(&succ, |&v| v);
    let mut members = vec![Vec::new(); sccs.count()];
    for (rel, &c) in sccs.comp.iter().enumerate() {
        members[c as usize].push(rel);
    }
    members
        .into_iter()
        .filter(|m| m.len() > 1 || succ[m[0]].contains(&m[0]))
        .filter(|m| m.iter().all(|&p| p < n && dynamic[p]))
        .collect()
}

/// The rules deriving the over-approximations of `comp`: each rule of a
/// member with its literals on relations `shadow` maps (the members, and
/// any already guarded) read from those relations, and those on dynamic
/// relations the domains did not derive left out; `None` if leaving them
/// out makes a rule unsafe.
fn shadow_rules(
    rules: &[CRule],
    comp: &[usize],
    shadow: impl Fn(u32) -> Option<u32>,
    dom: &Domains,
) -> Option<Vec<CRule>> {
    let known = |rel: u32| dom.solved[rel as usize];
    let mut out = Vec::new();
    for r in rules
        .iter()
        .filter(|r| comp.contains(&(r.head_rel as usize)))
    {
        let mut body = Vec::with_capacity(r.body.len());
        for lit in &r.body {
            match lit {
                Lit::Pos(rel, args) => match shadow(*rel) {
                    Some(g) => body.push(Lit::Pos(g, args.clone())),
                    None if known(*rel) => body.push(lit.clone()),
                    None => {}
                },
                _ => body.push(lit.clone()),
            }
        }
        let shadow = CRule {
            head_rel: shadow(r.head_rel)?,
            head: r.head.clone(),
            body,
            num_vars: r.num_vars,
        };
        if !safe(&shadow) {
            return None;
        }
        out.push(shadow);
    }
    Some(out)
}

/// Whether every variable of the head, of a negation and of a `distinct`
/// is bound by a positive literal.
fn safe(rule: &CRule) -> bool {
    let mut bound = vec![false; rule.num_vars];
    for lit in &rule.body {
        if let Lit::Pos(..) = lit {
            lit.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    let mut ok = true;
    for p in rule.head.iter() {
        p.for_each_var(&mut |v| ok &= bound[v as usize]);
    }
    for lit in &rule.body {
        if !matches!(lit, Lit::Pos(..)) {
            lit.for_each_var(&mut |v| ok &= bound[v as usize]);
        }
    }
    ok
}

/// The guard of relation `of` from its over-approximation `tuples`: the
/// columns that constrain the others kept, and `None` if what is left
/// refuses less than half of its argument combinations.
fn narrow(of: u32, tuples: Vec<Vec<u32>>) -> Option<Guard> {
    match Packed::new(&tuples) {
        Some(packed) => narrow_rows(of, packed),
        None => narrow_rows(of, tuples.into_iter().collect::<FxHashSet<Vec<u32>>>()),
    }
}

/// [`narrow`] over a set of rows of either form.
fn narrow_rows<R: Rows>(of: u32, mut rows: R) -> Option<Guard> {
    let mut columns: Vec<usize> = (0..rows.arity()).collect();
    if columns.is_empty() || rows.len() == 0 {
        return None;
    }
    let mut i = 0;
    while i < columns.len() {
        let rest = rows.without(i);
        let values = rows.distinct(i);
        if rest.len() * values == rows.len() {
            // Column `i` is a free factor: every value with every rest.
            columns.remove(i);
            rows = rest;
        } else {
            i += 1;
        }
    }
    let combinations: f64 = (0..columns.len())
        .map(|c| rows.distinct(c) as f64)
        .product();
    if columns.is_empty() || rows.len() as f64 * cost::GUARD_MIN_REFUSED > combinations {
        return None;
    }
    let density = rows.len() as f64 / combinations;
    drop_weak_columns(&mut columns, &mut rows, density);
    let mut tuples = rows.into_tuples();
    tuples.sort_unstable();
    Some(Guard {
        of,
        columns,
        tuples,
    })
}

/// Drops, one at a time, the columns without which the guard lets pass at
/// most [`MAX_PASSING_GROWTH`] times the share of its combinations it let
/// pass (`density`): `clear_row_ig`'s squares taken as empty
/// change little of which pairs of squares it lets through, and each
/// column costs a lookup at every test and multiplies the guard's bitmap
/// (eight squares' worth for chess: 400 KB where four columns need 512
/// bytes).
fn drop_weak_columns<R: Rows>(columns: &mut Vec<usize>, rows: &mut R, density: f64) {
    let most_passing = MAX_PASSING_GROWTH * density;
    while columns.len() > 1 {
        let values: Vec<f64> = (0..columns.len())
            .map(|c| rows.distinct(c) as f64)
            .collect();
        let best = (0..columns.len())
            .map(|i| {
                let rest = rows.without(i);
                let combinations: f64 = (values.iter().enumerate())
                    .filter(|&(c, _)| c != i)
                    .map(|(_, v)| v)
                    .product();
                (rest.len() as f64 / combinations, i, rest)
            })
            .filter(|(passing, ..)| *passing <= most_passing)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, i, rest)) = best else { break };
        columns.remove(i);
        *rows = rest;
    }
}

/// A set of distinct rows, its columns numbered from 0 as they remain.
trait Rows: Sized {
    /// Number of columns.
    fn arity(&self) -> usize;
    /// Number of rows.
    fn len(&self) -> usize;
    /// Number of distinct values in column `i`.
    fn distinct(&self, i: usize) -> usize;
    /// The distinct rows without column `i`.
    fn without(&self, i: usize) -> Self;
    /// The rows, in no order.
    fn into_tuples(self) -> Vec<Vec<u32>>;
}

impl Rows for FxHashSet<Vec<u32>> {
    fn arity(&self) -> usize {
        self.iter().next().map_or(0, Vec::len)
    }
    fn len(&self) -> usize {
        FxHashSet::len(self)
    }
    fn distinct(&self, i: usize) -> usize {
        self.iter().map(|t| t[i]).collect::<FxHashSet<u32>>().len()
    }
    fn without(&self, i: usize) -> Self {
        self.iter()
            .map(|t| {
                let mut t = t.clone();
                t.remove(i);
                t
            })
            .collect()
    }
    fn into_tuples(self) -> Vec<Vec<u32>> {
        self.into_iter().collect()
    }
}

/// Rows packed into one integer each: every column's values replaced by
/// their ranks, in as many bits as its distinct values need. Narrowing a
/// relaxed relation of hundreds of thousands of rows builds a set of the
/// rows without each column, column after column: as vectors that was
/// three quarters of the guards' time for chess (14 M vectors allocated and
/// hashed; the guards stage 18 s of a 89 s `emit` on a loaded machine).
#[derive(Clone)]
struct Packed {
    keys: FxHashSet<u128>,
    /// Per remaining column: its shift, mask and values by rank.
    columns: Vec<(u32, u128, std::rc::Rc<[u32]>)>,
}

impl Packed {
    /// The rows packed, if their columns' ranks fit in 128 bits.
    fn new(tuples: &[Vec<u32>]) -> Option<Packed> {
        let arity = tuples.first()?.len();
        let mut columns = Vec::with_capacity(arity);
        let mut ranks: Vec<FxHashMap<u32, u32>> = Vec::with_capacity(arity);
        let mut shift = 0u32;
        for c in 0..arity {
            let mut values: Vec<u32> = tuples.iter().map(|t| t[c]).collect();
            values.sort_unstable();
            values.dedup();
            let bits = usize::BITS - (values.len() - 1).leading_zeros();
            if shift + bits > u128::BITS {
                return None;
            }
            let mask = if bits == 0 {
                0
            } else {
                (u128::MAX >> (128 - bits)) << shift
            };
            ranks.push(
                values
                    .iter()
                    .enumerate()
                    .map(|(r, &v)| (v, r as u32))
                    .collect(),
            );
            columns.push((shift, mask, values.into()));
            shift += bits;
        }
        let keys = tuples
            .iter()
            .map(|t| {
                t.iter()
                    .zip(&ranks)
                    .zip(&columns)
                    .fold(0u128, |key, ((v, rank), (shift, ..))| {
                        key | u128::from(rank[v]) << shift
                    })
            })
            .collect();
        Some(Packed { keys, columns })
    }

    fn rank(&self, key: u128, c: usize) -> usize {
        let (shift, mask, _) = &self.columns[c];
        ((key & mask) >> shift) as usize
    }
}

impl Rows for Packed {
    fn arity(&self) -> usize {
        self.columns.len()
    }
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn distinct(&self, i: usize) -> usize {
        let mask = self.columns[i].1;
        self.keys
            .iter()
            .map(|k| k & mask)
            .collect::<FxHashSet<u128>>()
            .len()
    }
    fn without(&self, i: usize) -> Self {
        let mut columns = self.columns.clone();
        let (_, mask, _) = columns.remove(i);
        Packed {
            keys: self.keys.iter().map(|k| k & !mask).collect(),
            columns,
        }
    }
    fn into_tuples(self) -> Vec<Vec<u32>> {
        self.keys
            .iter()
            .map(|&k| {
                (0..self.columns.len())
                    .map(|c| self.columns[c].2[self.rank(k, c)])
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::program_and_facts;
    use super::*;
    use crate::backend::lifted::facts::Facts;

    /// A row of five cells: `clear ?a ?b` holds when every cell strictly
    /// between `a` and `b` (to the right) is empty; `?i` in `clear_ig`
    /// is a cell taken as empty, any cell.
    const ROW: &str = "(role r) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (cellid 1) (cellid 2) (cellid 3) (cellid 4) (cellid 5)
        (init (empty 2)) (init (empty 3)) (init (at 1))
        (<= (clear ?a ?b) (succ ?a ?b))
        (<= (clear ?a ?b) (succ ?a ?c) (true (empty ?c)) (clear ?c ?b))
        (<= (clear_ig ?a ?b ?i) (succ ?a ?b) (cellid ?i))
        (<= (clear_ig ?a ?b ?i) (succ ?a ?i) (clear_ig ?i ?b ?i))
        (<= (clear_ig ?a ?b ?i) (succ ?a ?c) (true (empty ?c)) (clear_ig ?c ?b ?i))
        (<= (legal r (go ?b)) (true (at ?a)) (clear ?a ?b))
        (<= (legal r (jump ?b ?i)) (true (at ?a)) (clear_ig ?a ?b ?i))
        (<= (next (at ?b)) (does r (go ?b)))
        (<= (next (at ?b)) (does r (jump ?b ?i)))
        (<= (next (empty ?c)) (true (empty ?c)))
        (<= terminal (true (at 5)))
        (<= (goal r 100) (true (at 5)))";

    /// The facts of `game`, its number of relations, and a relation's id
    /// by name.
    fn facts_of(game: &str) -> (Facts, usize, impl Fn(&str) -> u32) {
        let (p, facts) = program_and_facts(game);
        let names: Vec<String> = (p.preds.iter())
            .map(|r| p.symbols.name(r.name).to_owned())
            .collect();
        let rel = move |name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .expect("a relation of that name") as u32
        };
        (facts, p.preds.len(), rel)
    }

    #[test]
    fn recursive_relations_test_their_guard_first() {
        let (facts, n, rel) = facts_of(ROW);
        let of: Vec<u32> = facts.guards.iter().map(|g| g.of).collect();
        assert_eq!(of, [rel("clear"), rel("clear_ig")]);
        let cell = |t: u32| -> u32 { facts.universe.text[t as usize].parse().expect("a cell") };
        // `clear`: the pairs a < b joined by cells that can be empty (2
        // and 3, the only ones the state ever holds): 4 neighbours, then
        // (1, 3), (2, 4), (1, 4); not (1, 5), which passes cell 4.
        let clear = facts.statics[n].as_ref().expect("a static guard");
        let mut pairs: Vec<(u32, u32)> = clear.iter().map(|t| (cell(t[0]), cell(t[1]))).collect();
        pairs.sort_unstable();
        assert_eq!(
            pairs,
            [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4), (4, 5)]
        );
        // `clear_ig`: every tuple goes rightwards; each rule tests it first.
        let ig = facts.statics[n + 1].as_ref().expect("a static guard");
        assert!(ig.iter().all(|t| cell(t[0]) < cell(t[1])));
        for r in facts.rules.iter().filter(|r| r.head_rel == rel("clear_ig")) {
            assert!(
                matches!(&r.body[0], Lit::Pos(g, _) if *g == (n + 1) as u32),
                "every rule of clear_ig tests its guard first"
            );
        }
    }

    #[test]
    fn a_relay_over_guarded_relations_gets_a_guard_its_rules_do_not_test() {
        // `reach` is off any cycle and each of its rules asks a guarded
        // relation: a relay.
        let game = ROW.replace(
            "(<= terminal",
            "(<= (reach ?a ?b) (clear ?a ?b))
             (<= (reach ?a ?b) (clear_ig ?a ?b 3) (clear ?a 3))
             (<= (legal r (hop ?b)) (true (at ?a)) (cellid ?b) (reach ?a ?b))
             (<= terminal",
        );
        let (facts, n, rel) = facts_of(&game);
        let of: Vec<u32> = facts.guards.iter().map(|g| g.of).collect();
        assert_eq!(of, [rel("clear"), rel("clear_ig"), rel("reach")]);
        let cell = |t: u32| -> u32 { facts.universe.text[t as usize].parse().expect("a cell") };
        // Read from its callees' guards: `clear`'s pairs (the second rule
        // adds none), not every pair going rightwards.
        let reach = facts.statics[n + 2].as_ref().expect("a static guard");
        let mut pairs: Vec<(u32, u32)> = reach.iter().map(|t| (cell(t[0]), cell(t[1]))).collect();
        pairs.sort_unstable();
        assert_eq!(
            pairs,
            [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4), (4, 5)]
        );
        // Its rules do not test it: the call does, once.
        for r in facts.rules.iter().filter(|r| r.head_rel == rel("reach")) {
            assert!(
                !matches!(&r.body[0], Lit::Pos(g, _) if *g == (n + 2) as u32),
                "a relay's rules leave its guard to the call"
            );
        }
    }

    #[test]
    fn free_columns_are_projected_away_and_weak_guards_dropped() {
        // Pairs (x, x + 1) of 0..10, times any value of a third column.
        let tuples: Vec<Vec<u32>> = (0..9)
            .flat_map(|x| (0..5).map(move |z| vec![x, x + 1, z]))
            .collect();
        let g = narrow(7, tuples).expect("a selective guard");
        assert_eq!(g.columns, [0, 1]);
        assert_eq!(g.tuples.len(), 9);
        // Every combination of two columns: nothing to refuse.
        let all: Vec<Vec<u32>> = (0..4)
            .flat_map(|x| (0..4).map(move |y| vec![x, y]))
            .collect();
        assert!(narrow(7, all).is_none());
    }

    #[test]
    fn columns_that_refuse_little_beyond_the_others_are_dropped() {
        // Pairs (x, x + 1) of 0..20, with a third column that refuses one
        // value in twenty of it (the pair's own first square).
        let tuples: Vec<Vec<u32>> = (0..19)
            .flat_map(|x| {
                (0..20)
                    .filter(move |&z| z != x)
                    .map(move |z| vec![x, x + 1, z])
            })
            .collect();
        let g = narrow(7, tuples).expect("a selective guard");
        assert_eq!(g.columns, [0, 1]);
        assert_eq!(g.tuples.len(), 19);
        // A third column that halves what passes is kept.
        let tuples: Vec<Vec<u32>> = (0..19)
            .flat_map(|x| {
                (0..20)
                    .filter(move |z| (z + x) % 2 == 0)
                    .map(move |z| vec![x, x + 1, z])
            })
            .collect();
        assert_eq!(narrow(7, tuples).expect("a guard").columns, [0, 1, 2]);
    }

    #[test]
    fn a_relaxation_that_loses_a_binding_is_unsafe() {
        let v = Pat::Var;
        let rule = CRule {
            head_rel: 0,
            head: vec![v(0), v(1)].into(),
            body: vec![Lit::Pos(1, vec![v(0)].into())],
            num_vars: 2,
        };
        assert!(!safe(&rule));
        let rule = CRule {
            body: vec![Lit::Pos(1, vec![v(0), v(1)].into())],
            ..rule
        };
        assert!(safe(&rule));
    }
}
