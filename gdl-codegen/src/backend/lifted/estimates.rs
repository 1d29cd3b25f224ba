//! The planner's catalogue ([`Estimates`]): what it knows of each
//! relation's size and cost at compile time — the static tuples, the relaxed
//! extensions, the sampled states and the interpreter's steps in them — as
//! the [`Catalog`] the join orders and every choice of the plan read, with
//! their caches and the context of the function being planned. Its numbers
//! live in [`super::cost`].

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use super::call_graph;
use super::closure::{closure, Closure};
use super::cost;
use super::cost::{
    FEW_ROWS, FEW_SAMPLED_ROWS, GROUND_MARGIN, MOVE_SEEDED_ROWS, VALUES_FROM_ROWS, WHOLE_RELAXED,
    WHOLE_ROWS,
};
use super::facts::Facts;
use super::join_order::{self, Adorn, Catalog, Source};
use super::{count_leaves, hybrid, implied, memo, relations, sample};
use crate::front::ir::Program;
use crate::rules::CRule;

/// A call in the planner's memos: the relation, its bound arguments and
/// the component being printed (which changes where relations are read
/// from).
type CallKey = (u32, Adorn, Option<usize>);

/// The planner's catalogue: the estimates behind every choice of the plan
/// (relaxed extensions, sampled states, interpreter steps, static tuples),
/// their caches, and the context of the function being planned.
pub struct Estimates {
    /// The relations' names and shapes, shared with the printer.
    pub rels: std::rc::Rc<relations::Relations>,
    /// The key types of the dense memo tables, in order of creation.
    pub(super) dense_keys: Vec<memo::DenseKeys>,
    /// Each relation's rules, for the price of calls: by their literals or
    /// from their plans.
    pub(super) rules_of: Vec<Vec<crate::rules::CRule>>,
    /// Prices of calls of relations no sampled state has, by relation,
    /// adornment and the component being printed (see
    /// [`Estimates::unseen_call_cost`]).
    pub(super) unseen_costs: std::cell::RefCell<FxHashMap<CallKey, f64>>,
    /// Relaxed extensions of the dynamic relations (`None` where unknown or
    /// too large), for estimates.
    pub(super) relaxed_tuples: Vec<Option<Vec<Vec<u32>>>>,
    /// Tuples of the dynamic relations in sampled states, for estimates.
    pub samples: std::rc::Rc<sample::Samples>,
    /// Per relation, the literals all its rules share (see [`implied`]).
    pub(super) common: Vec<Vec<implied::Common>>,
    /// Distinct projections of static or relaxed relations on sets of
    /// columns, as estimates ask for them.
    pub(super) distinct: std::cell::RefCell<FxHashMap<(u32, Adorn), usize>>,
    /// Whether a closure answers each recursive relation with each set of
    /// bound arguments (see [`Estimates::is_closure`]): the join search
    /// prices a recursive call many times, and its rules do not change.
    pub(super) closures: std::cell::RefCell<FxHashMap<(u32, Adorn), bool>>,
    /// The component whose fixpoint is being printed: its relations are
    /// read from their tables.
    pub within: Option<usize>,
    /// [`Facts::built_leaves`], for estimates.
    pub(super) built_leaves: Vec<Option<Vec<u32>>>,
    /// The initial state's fluents by functor, as tuples of arguments.
    pub(super) init_tuples: FxHashMap<u32, Vec<Vec<u32>>>,
    /// The sampled states' fluents of functors absent from the initial
    /// state, as tuples of arguments, and the number of states (see
    /// [`sampled_fluents`]).
    pub(super) sampled_fluents: Option<SampledFluents>,
    /// Whether each relation with a ground form (see [`hybrid`]), called
    /// with an adornment, is compiled ground, as chosen so far.
    pub(super) ground: FxHashMap<(u32, Adorn), bool>,
    /// The function being planned, whose whole lists [`Catalog::reads_whole`]
    /// reads (set by [`planner`]).
    pub caller: call_graph::Node,
    /// Per function, the relations whose whole list it reads where it asks
    /// for some bound arguments, as the last round of the planner found
    /// (see [`planner`]), for [`Catalog::reads_whole`].
    pub whole: call_graph::Whole,
    /// The calls asked once per key of their callers, as the last round of
    /// the planner found ([`call_graph::CallGraph::asked_once`]).
    pub once: FxHashSet<(u32, Adorn)>,
}

impl std::ops::Deref for Estimates {
    type Target = relations::Relations;

    fn deref(&self) -> &relations::Relations {
        &self.rels
    }
}

impl Estimates {
    /// The catalogue of `program` with `facts`.
    pub fn new(program: &Program, facts: &Facts) -> Estimates {
        let rels = relations::Relations::new(program, facts);
        let n = rels.names.len();
        let init_tuples = functional_init(facts, &rels.fluent_values);
        let sampled_fluents = sampled_fluents(facts, &init_tuples);
        Estimates {
            rels: std::rc::Rc::new(rels),
            ground: FxHashMap::default(),
            caller: call_graph::Node::State,
            whole: call_graph::Whole::default(),
            once: FxHashSet::default(),
            init_tuples,
            sampled_fluents,
            dense_keys: Vec::new(),
            relaxed_tuples: facts.relaxed.clone(),
            samples: facts.samples.clone(),
            common: implied::common_literals(&facts.rules, n),
            distinct: Default::default(),
            closures: Default::default(),
            rules_of: rules_by_head(&facts.rules, n),
            unseen_costs: Default::default(),
            within: None,
            built_leaves: facts.built_leaves.clone(),
        }
    }

    /// Whether relation `rel` called with `adorn` is compiled ground: it
    /// has a ground form (see [`hybrid`]) and testing the atoms a call
    /// finds costs less than its rules' plans. A call with arguments free
    /// tests every atom with its bound ones (`curInstruction ?i` tests
    /// each instruction, where its rules read the one at the current step).
    pub fn is_ground(&mut self, facts: &Facts, rel: u32, adorn: Adorn) -> bool {
        if let Some(&known) = self.ground.get(&(rel, adorn)) {
            return known;
        }
        let chosen = facts.hybrid_of(rel).is_some_and(|h| {
            // No atom: the call finds none at the price of its lookups.
            let atoms = h.atoms.len();
            let keys_bound = (0..h.arity).filter(|i| adorn >> i & 1 == 1).count();
            let keys: FxHashSet<Vec<u32>> = h
                .atoms
                .iter()
                .map(|a| {
                    (0..h.arity)
                        .filter(|i| adorn >> i & 1 == 1)
                        .map(|i| a[i])
                        .collect()
                })
                .collect();
            let found = atoms as f64 / keys.len().max(1) as f64;
            let lifted = self.rules_work(facts, rel, adorn);
            // Finding the atoms: a rank lookup per bound argument. A call
            // that lists answers also pays each atom's row.
            let lookup = 1.0 + keys_bound as f64;
            let row = if keys_bound < h.arity {
                cost::ATOM_PRICE
            } else {
                0.0
            };
            GROUND_MARGIN * (lookup + found * (row + hybrid::test_work(h))) < lifted
        });
        self.ground.insert((rel, adorn), chosen);
        chosen
    }

    /// The estimated work of the rules of `rel` called with `adorn`, in
    /// table lookups (see [`join_order::plan_work`]).
    pub fn rules_work(&self, facts: &Facts, rel: u32, adorn: Adorn) -> f64 {
        (facts.rules.iter())
            .filter(|r| r.head_rel == rel)
            .map(|r| join_order::plan_work(r, adorn, self))
            .sum()
    }

    /// [`Estimates::rules_work`] with the matching of the bound head
    /// arguments: a lookup per leaf of each rule's pattern there
    /// (laikLee_hex's `isList`, 25 rules that take a list apart to a given
    /// depth, has bodies of no work).
    pub fn test_work(&self, facts: &Facts, rel: u32, adorn: Adorn) -> f64 {
        let heads: i32 = (facts.rules.iter())
            .filter(|r| r.head_rel == rel)
            .flat_map(|r| r.head.iter().enumerate())
            .filter(|&(i, _)| adorn >> i & 1 == 1)
            .map(|(_, p)| count_leaves(p))
            .sum();
        self.rules_work(facts, rel, adorn) + heads as f64
    }

    /// Whether a call of `rel` (on a cycle) with the columns of `known`
    /// bound is answered by a closure (see [`closure`]).
    fn is_closure(&self, rel: u32, known: u64) -> bool {
        // Whether a relation is alone on its cycle depends on the component
        // being printed (see [`Estimates::source`]); its closure does not.
        if !self.alone_on_cycle(rel) {
            return false;
        }
        let key = (rel, known as Adorn);
        if let Some(&found) = self.closures.borrow().get(&key) {
            return found;
        }
        // A walk that is a closure despite its guard is priced as the
        // memoized recursion it replaced, whose rows the samples count only
        // up to one: priced by its sampled rows (2.2 squares), chess_200's
        // open stretches from a square were listed to test one stretch,
        // where a search tested the guard first (44% more instructions a
        // playout).
        let found = self
            .closure(&self.rules_of[rel as usize], key, false)
            .is_some_and(|c| !c.despite_guard());
        self.closures.borrow_mut().insert(key, found);
        found
    }

    /// The closure of a call of `rel` with `adorn` (see [`closure`]) from
    /// `rules` (those of `rel` among them), with `rel`'s guard and whether
    /// the call is asked once per key of its callers. A closure `searched`
    /// by the tests met again (see [`super::plan::Fallback`]) is asked for
    /// every test: taken as asked once, it would be asked repeatedly in
    /// the round after, and the rounds would not settle.
    pub(super) fn closure(
        &self,
        rules: &[CRule],
        (rel, adorn): (u32, Adorn),
        searched: bool,
    ) -> Option<Closure> {
        let once = !searched && self.once.contains(&(rel, adorn));
        let arity = self.arity[rel as usize];
        closure(
            rules,
            (rel, arity, adorn),
            (self.guard_rel(rel), once),
            &self.static_tuples,
        )
    }

    /// Whether a call of `rel` is planned on its own cycle: in the rules of
    /// a relation of its component, or in the component's fixpoint.
    fn meets_itself(&self, rel: u32) -> bool {
        let comp = self.comp_of[rel as usize];
        match self.caller {
            call_graph::Node::Fn(r, _) => self.comp_of[r as usize] == comp,
            call_graph::Node::Comp(c) => Some(c) == comp,
            call_graph::Node::State | call_graph::Node::Next => false,
        }
    }

    /// Whether the list of all answers of `rel`, a relation of the program,
    /// is short: at most [`WHOLE_ROWS`] in the sampled states on average,
    /// or, where no sampled state has one, at most [`WHOLE_RELAXED`] tuples
    /// in its relaxed extension.
    pub fn short_list(&self, rel: u32) -> bool {
        let arity = self.arity[rel as usize];
        (rel as usize) < self.program_rels
            && match self.samples.rows(rel, 0, arity) {
                // Empty in every sampled state: rare, its size unknown but
                // for the relaxed extension's.
                Some(0.0) => (self.relaxed_tuples[rel as usize].as_ref())
                    .is_some_and(|t| t.len() <= WHOLE_RELAXED),
                Some(r) => r <= WHOLE_ROWS,
                None => false,
            }
    }
}

impl Catalog for Estimates {
    fn source(&self, rel: u32) -> Source {
        if Some(rel) == self.true_rel {
            Source::True
        } else if Some(rel) == self.does_rel {
            Source::Does
        } else if self.comp_of[rel as usize]
            .is_some_and(|c| Some(c) == self.within || self.move_seeded.contains(&c))
        {
            Source::Table
        } else if self.static_tuples[rel as usize].is_some() {
            Source::Static
        } else {
            Source::Derived
        }
    }

    fn estimate(&self, rel: u32, args: &[crate::rules::Pat], leaves: i32) -> f64 {
        let size = match self.source(rel) {
            Source::Static => self.static_tuples[rel as usize]
                .as_ref()
                .map_or(0, Vec::len) as f64,
            // About a quarter of a functor's fluents hold at once.
            Source::True => {
                let n = match args.first() {
                    Some(crate::rules::Pat::Func(f, a)) => self
                        .functor(*f, a.len())
                        .and_then(|fid| self.fluents_per_functor.get(&fid).copied())
                        .unwrap_or(0),
                    _ => self.num_fluents,
                };
                n as f64 * cost::HOLDING_SHARE
            }
            Source::Does => 1.0,
            // A derived relation is computed per call: each unbound
            // argument multiplies the work (a domain of ~8 values each, say),
            // so bind its arguments first through cheaper literals.
            // What one move sets off: a few tuples.
            Source::Table
                if self.comp_of[rel as usize].is_some_and(|c| self.move_seeded.contains(&c)) =>
            {
                MOVE_SEEDED_ROWS
            }
            Source::Derived | Source::Table => {
                let unknown = args.iter().map(count_leaves).sum::<i32>() - leaves;
                return cost::DERIVED_CALL_WORK * cost::FREE_ARGUMENT_VALUES.powi(unknown);
            }
        };
        (size * cost::BOUND_LEAF_SHARE.powi(leaves)).max(cost::MIN_ROWS)
    }

    /// From the table itself: its size over the distinct values of the
    /// bound columns (rows per key, on average), or for a test of a whole
    /// tuple the chance that it holds if columns were independent.
    fn static_rows(&self, rel: u32, args: &[crate::rules::Pat], bound: &[bool]) -> Option<f64> {
        let tuples = self.static_tuples.get(rel as usize)?.as_ref()?;
        Some(self.rows_in(rel, tuples, args, bound))
    }

    /// A scan with arguments bound reads the mask of their values (see
    /// [`body::Body`]): the fluents holding with them, after a pass over
    /// the mask's words.
    fn scan_price(&self, rel: u32, args: &[crate::rules::Pat], bound: &[bool]) -> f64 {
        let every = 1.0 + self.estimate(rel, args, 0);
        let Some(crate::rules::Pat::Func(f, a)) = args.first() else {
            return every;
        };
        let Some(fid) = self.functor(*f, a.len()) else {
            return every;
        };
        let words = self.state_words();
        // Priced by its most selective argument alone, as when a mask
        // covered one argument: the planner's estimates of what a bound
        // argument keeps (a tenth per leaf) were weighed against that
        // price, and a scan priced by all its arguments' combinations
        // wins over a lookup and a bit test it does not beat (connect
        // four's lines: 1.3 times the instructions).
        let values = self
            .scan_positions(fid, a, bound)
            .map(|ps| self.values_at(fid, ps[0]));
        match values {
            Some(v) => 1.0 + (every - 1.0) / v as f64 + words as f64 * cost::MASK_WORD_PRICE,
            None => every,
        }
    }

    /// From the relation's relaxed extension (a superset of its tuples in
    /// any state), when it gives a few rows per call: a relation such as
    /// a pawn's advance, one or two squares from a given one. Where it
    /// gives many, the extension says little of one state's tuples.
    fn derived_rows(&self, rel: u32, args: &[crate::rules::Pat], bound: &[bool]) -> Option<f64> {
        if let Some(Some(leaves)) = self.built_leaves.get(rel as usize) {
            // A relation that builds terms at run time: a free argument
            // where its heads build terms takes as many values as their
            // variables together (isList's lists of up to 25 cells), so
            // that what builds them runs before what enumerates them.
            let unknown: i32 = (args.iter().zip(leaves))
                .filter(|(a, _)| !a.bound_by(bound))
                .map(|(a, &l)| count_leaves(a).max(l as i32))
                .sum();
            return Some(cost::DERIVED_CALL_WORK * cost::FREE_ARGUMENT_VALUES.powi(unknown));
        }
        let known = u64::from(join_order::adornment(args, bound));
        if self.comp_of[rel as usize].is_some() {
            if self.meets_itself(rel) {
                // A recursive call that enumerates may meet itself.
                return None;
            }
            if !self.is_closure(rel, known) {
                // Answered by a memoized recursion: the samples count its
                // rows where it finds at most one answer a key (BIRD's path
                // from a given square to a given end, one; othello-comp2007's
                // line of discs from a given square, one). One that finds
                // more keeps the guess: its buffered answers cost more than
                // its rows say, and a test of one answer searches a closure
                // instead. chess_200's open lines from a given square (2.2
                // squares sampled), listed where each square was tested,
                // took 22% more instructions a playout; reversi's lines of
                // discs (3.6) 103% more.
                let rows = self.samples.rows(rel, known, args.len());
                return rows.filter(|&r| r <= 1.0);
            }
            // Elsewhere, answered by a closure, which finds each answer
            // once, its rows are sampled as any call's: nonogram's runs of
            // marked cells in a row, about 11, priced at the guess of 1 280,
            // made the run of each length asked apart the cheaper plan,
            // once the price of a call with more keys was bounded (+47%
            // instructions a playout).
        }
        if let Some(rows) = self.samples.rows(rel, known, args.len()) {
            // Sampled states count one state's tuples, as the relaxed
            // extension cannot; a call that finds many still varies too much
            // from state to state to be trusted.
            return (rows <= FEW_SAMPLED_ROWS).then_some(rows);
        }
        let tuples = self.relaxed_tuples.get(rel as usize)?.as_ref()?;
        let rows = self.rows_in(rel, tuples, args, bound);
        (rows <= FEW_ROWS).then_some(rows)
    }

    /// From the initial state, for a functor it gives a value for every key
    /// (see [`functional_init`]): one fluent per key, so `(velx ?p ?v)` with
    /// `?p` known meets one fluent where its relaxed fluents are a hundred.
    /// From the sampled states for the others (see [`sampled_fluents`]).
    /// Bound variables count only the values their static literals allow.
    fn state_rows(
        &self,
        args: &[crate::rules::Pat],
        bound: &[bool],
        values: &join_order::Values,
    ) -> Option<f64> {
        use crate::rules::Pat;
        let Some(Pat::Func(f, a)) = args.first() else {
            return None;
        };
        let fid = self.functor(*f, a.len())?;
        // The fluents of the sampled states, per state, for a functor the
        // initial state lacks, or else those of the initial state for a
        // functor that keeps their number.
        let sampled = (self.sampled_fluents.as_ref())
            .and_then(|s| Some((s.by_functor.get(&fid)?.as_slice(), s.states)));
        let (tuples, states) = match sampled {
            Some(s) => s,
            None => (self.init_tuples.get(&fid)?.as_slice(), 1),
        };
        // The values a bound variable at each argument may take, where its
        // static literals restrict them (chess's `?king`, one of two pieces
        // of the thirteen a cell holds).
        let allowed = |i: usize| match &a[i] {
            Pat::Var(v) if bound[*v as usize] => values.get(*v as usize)?.as_ref(),
            _ => None,
        };
        // Those fluents with the constants of `a` and the allowed values,
        // per combination of the bound variables' values.
        let matching = tuples
            .iter()
            .filter(|t| {
                (a.iter().zip(t.iter()).enumerate()).all(|(i, (p, &v))| match p {
                    Pat::Ground(g) => *g == v,
                    _ => allowed(i).is_none_or(|d| d.binary_search(&v).is_ok()),
                })
            })
            .count();
        let space: f64 = (0..a.len())
            .filter(|&i| matches!(&a[i], Pat::Var(v) if bound[*v as usize]))
            .map(|i| {
                let all = self.fluent_values.get(&(fid, i));
                let n = match (allowed(i), all) {
                    (Some(d), Some(all)) => {
                        d.iter().filter(|v| all.binary_search(v).is_ok()).count()
                    }
                    _ => self.values_at(fid, i),
                };
                n.max(1) as f64
            })
            .product();
        Some(matching as f64 / states as f64 / space)
    }

    /// The values of a variable in a static literal's column, among the
    /// tuples matching its constants, intersected over its static
    /// literals (tables of at most [`VALUES_FROM_ROWS`] tuples).
    fn var_values(&self, body: &[crate::rules::Lit], num_vars: usize) -> Vec<Option<Vec<u32>>> {
        use crate::rules::{Lit, Pat};
        let mut values: Vec<Option<Vec<u32>>> = vec![None; num_vars];
        for lit in body {
            let Lit::Pos(rel, args) = lit else { continue };
            let Some(Some(tuples)) = self.static_tuples.get(*rel as usize) else {
                continue;
            };
            if tuples.len() > VALUES_FROM_ROWS {
                continue;
            }
            let matching: Vec<&Vec<u32>> = (tuples.iter())
                .filter(|t| {
                    (args.iter().zip(t.iter()))
                        .all(|(p, &v)| !matches!(p, Pat::Ground(g) if *g != v))
                })
                .collect();
            for (i, arg) in args.iter().enumerate() {
                let Pat::Var(v) = arg else { continue };
                let mut col: Vec<u32> = matching.iter().map(|t| t[i]).collect();
                col.sort_unstable();
                col.dedup();
                let slot = &mut values[*v as usize];
                *slot = Some(match slot.take() {
                    None => col,
                    Some(d) => d
                        .into_iter()
                        .filter(|x| col.binary_search(x).is_ok())
                        .collect(),
                });
            }
        }
        values
    }

    fn may_ask_exists(&self, rel: u32) -> bool {
        !self.listed.contains(&rel)
    }

    fn reads_whole(&self, rel: u32, adorn: Adorn) -> bool {
        adorn != 0
            && adorn & join_order::EXISTS == 0
            && (self.whole.get(&self.caller)).is_some_and(|w| w.contains(&rel))
            && self.source(rel) == Source::Derived
            && self.short_list(rel)
    }

    fn filter_only(&self, rel: u32) -> bool {
        (self.program_rels..self.program_rels + self.guard_rels).contains(&(rel as usize))
    }

    fn implies(&self, call: &crate::rules::Lit, lit: &crate::rules::Lit) -> bool {
        match call {
            crate::rules::Lit::Pos(rel, args) => {
                matches!(self.source(*rel), Source::Derived | Source::Table)
                    && implied::implies(&self.common[*rel as usize], args, lit)
            }
            _ => false,
        }
    }
    /// A call runs every rule of its relation: as many steps as the
    /// interpreter takes for such a call in the sampled states (a backward
    /// search, chess's moves to a given square, costs many times a forward
    /// one), or else a few lookups per body literal, more on a cycle, where
    /// it recurses.
    fn call_cost(&self, rel: u32, adorn: Adorn) -> f64 {
        if self.source(rel) == Source::Table {
            // A table already computed: a search or a scan.
            return cost::TABLE_READ_PRICE;
        }
        let all = (1u64 << self.arity[rel as usize]) - 1;
        let known = u64::from(adorn) & all;
        // Only for a call that lists answers: a test of a recursive
        // relation is cheap to the interpreter, which tables the whole
        // relation once, and not to generated code, which asks for each
        // tuple (speedChess's open lines: 2.4 times the instructions).
        if known != all {
            let steps = self
                .samples
                .bounded_call_work(rel, known, self.arity[rel as usize]);
            if let Some(steps) = steps {
                return cost::CALL_PRICE + steps;
            }
            if self.samples.never_seen(rel) && self.comp_of[rel as usize].is_none() {
                return self.unseen_call_cost(rel, adorn);
            }
        }
        self.literal_price(rel)
    }
}

/// Each of `n` relations' rules among `rules`.
fn rules_by_head(rules: &[crate::rules::CRule], n: usize) -> Vec<Vec<crate::rules::CRule>> {
    let mut by_head = vec![Vec::new(); n];
    for r in rules {
        by_head[r.head_rel as usize].push(r.clone());
    }
    by_head
}

impl Estimates {
    /// The price of a call that lists answers of `rel`, a relation no
    /// sampled state has: the estimated work of its rules' plans. The
    /// samples show it rare, not cheap: where it holds, FRANCE's `unghour`
    /// with every argument free lists a hundred thousand moves, and a
    /// price by its three literals made `next` start from it.
    fn unseen_call_cost(&self, rel: u32, adorn: Adorn) -> f64 {
        let key = (rel, adorn, self.within);
        if let Some(&cost) = self.unseen_costs.borrow().get(&key) {
            return cost;
        }
        // Met again while its own price is computed: priced by its
        // literals meanwhile.
        self.unseen_costs
            .borrow_mut()
            .insert(key, self.literal_price(rel));
        let cost = cost::CALL_PRICE
            + (self.rules_of[rel as usize].iter())
                .map(|r| join_order::plan_work(r, adorn, self))
                .sum::<f64>();
        self.unseen_costs.borrow_mut().insert(key, cost);
        cost
    }

    /// The price of a call of `rel` by its rules' literals: a few lookups
    /// each, more on a cycle, where it recurses.
    fn literal_price(&self, rel: u32) -> f64 {
        let per_literal = if self.comp_of[rel as usize].is_some() {
            cost::CYCLE_LITERAL_PRICE
        } else {
            cost::LITERAL_PRICE
        };
        let literals: usize = self.rules_of[rel as usize]
            .iter()
            .map(|r| r.body.len())
            .sum();
        cost::CALL_PRICE + per_literal * literals as f64
    }

    /// Whether `rel` is on a cycle and the only relation of its component
    /// (and not read from a table computed whole).
    pub fn alone_on_cycle(&self, rel: u32) -> bool {
        let Some(c) = self.comp_of[rel as usize] else {
            return false;
        };
        self.source(rel) == Source::Derived
            && self.comp_of.iter().filter(|&&d| d == Some(c)).count() == 1
    }

    /// The rows of `tuples` (relation `rel`'s, static or relaxed) matching
    /// `args` with the variables in `bound` known: the table's size over
    /// the distinct values of the bound columns (rows per key, on average),
    /// or for a test of a whole tuple the chance that it holds if columns
    /// were independent.
    fn rows_in(
        &self,
        rel: u32,
        tuples: &[Vec<u32>],
        args: &[crate::rules::Pat],
        bound: &[bool],
    ) -> f64 {
        let size = tuples.len() as f64;
        let known = |a: &crate::rules::Pat| {
            matches!(a, crate::rules::Pat::Ground(_))
                || matches!(a, crate::rules::Pat::Var(v) if bound[*v as usize])
        };
        let mask: Adorn = (0..args.len())
            .filter(|&i| known(&args[i]))
            .fold(0, |m, i| m | 1 << i);
        if mask == 0 || tuples.is_empty() {
            return size;
        }
        if args.iter().all(|a| a.bound_by(bound)) {
            let space: f64 = (0..args.len())
                .map(|i| self.distinct_on(rel, tuples, 1 << i) as f64)
                .product();
            return size / space.max(1.0);
        }
        size / self.distinct_on(rel, tuples, mask) as f64
    }

    /// The number of distinct projections of relation `rel`'s `tuples`
    /// (static or relaxed) on the columns of `mask` (computed once).
    fn distinct_on(&self, rel: u32, tuples: &[Vec<u32>], mask: Adorn) -> usize {
        *self
            .distinct
            .borrow_mut()
            .entry((rel, mask))
            .or_insert_with(|| sample::distinct(tuples, u64::from(mask)))
    }
}

/// The initial fluents, as tuples of arguments, of each functor they give
/// a value (the last argument) for every combination of the other
/// arguments' values, once (a board listing every square, a counter per
/// player, the one `control`): the count per key
/// stays as play goes on, so the initial state tells how many fluents a
/// scan meets where the functor's relaxed fluents do not.
fn functional_init(
    facts: &Facts,
    values: &FxHashMap<(u32, usize), Vec<u32>>,
) -> FxHashMap<u32, Vec<Vec<u32>>> {
    let mut init: FxHashMap<u32, Vec<Vec<u32>>> = FxHashMap::default();
    for &f in &facts.init {
        let t = facts.fluents[f as usize] as usize;
        init.entry(facts.universe.functor[t])
            .or_default()
            .push(facts.universe.args[t].clone());
    }
    init.retain(|&fid, tuples| {
        // The value is the last argument, by convention (`(cell ?x ?y ?c)`).
        let keys = tuples.first().map_or(0, |t| t.len().saturating_sub(1));
        let distinct: BTreeSet<&[u32]> = tuples.iter().map(|t| &t[..keys]).collect();
        let space: usize = (0..keys)
            .map(|i| values.get(&(fid, i)).map_or(0, Vec::len))
            .product();
        distinct.len() == tuples.len() && distinct.len() == space
    });
    init
}

/// The fluents of the sampled states (see [`sample`]) as tuples of
/// arguments, by functor, for the functors the initial state does not
/// describe as a value per key (`functional`, from [`functional_init`]):
/// chess's `check`, absent from it and holding in few states, and
/// vectorracer's `(vel ?x ?y)`, one fluent in every state though its first
/// argument takes twenty values. The initial state tells how many fluents
/// the functional ones have, better than a few samples of a match played
/// at random. With the number of states; `None` without samples.
fn sampled_fluents(
    facts: &Facts,
    functional: &FxHashMap<u32, Vec<Vec<u32>>>,
) -> Option<SampledFluents> {
    let states = &facts.samples.fluents;
    if states.is_empty() {
        return None;
    }
    let by_text: FxHashMap<&str, u32> = (facts.fluents.iter())
        .map(|&t| (facts.universe.text[t as usize].as_str(), t))
        .collect();
    let mut by_functor: FxHashMap<u32, Vec<Vec<u32>>> = FxHashMap::default();
    for &t in &facts.fluents {
        by_functor
            .entry(facts.universe.functor[t as usize])
            .or_default();
    }
    by_functor.retain(|fid, _| !functional.contains_key(fid));
    // Per functor, how many of its fluents each sampled state holds.
    let mut counts: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (i, state) in states.iter().enumerate() {
        for text in state {
            if let Some(&t) = by_text.get(text.as_str()) {
                let fid = facts.universe.functor[t as usize];
                if let Some(v) = by_functor.get_mut(&fid) {
                    v.push(facts.universe.args[t as usize].clone());
                    counts.entry(fid).or_insert_with(|| vec![0; states.len()])[i] += 1;
                }
            }
        }
    }
    // A functor of the initial state is estimated from the samples only
    // when every sampled state holds exactly one of its fluents (a position,
    // `(vel ?x ?y)`): a count that varies over a random match (pieces
    // taken) is better left to the relaxed fluents, which do not
    // underestimate the start of a match.
    let initial: std::collections::HashSet<u32> = (facts.init.iter())
        .map(|&f| facts.universe.functor[facts.fluents[f as usize] as usize])
        .collect();
    by_functor.retain(|fid, _| {
        !initial.contains(fid) || counts.get(fid).is_some_and(|c| c.iter().all(|&n| n == 1))
    });
    Some(SampledFluents {
        by_functor,
        states: states.len(),
    })
}

/// Fluents of sampled states (see [`sampled_fluents`]).
pub(super) struct SampledFluents {
    /// By functor, the arguments of its fluents in every sampled state.
    by_functor: FxHashMap<u32, Vec<Vec<u32>>>,
    /// The number of states sampled.
    states: usize,
}
