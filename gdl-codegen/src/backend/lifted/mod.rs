//! The lifted back end: Rust generated from the rules themselves, not from
//! their ground instances, for games whose ground program is too large.
//!
//! Stages, one a file:
//! - [`flatten`]: compound arguments of helper relations made arguments;
//! - [`facts`]: the compile-time facts (term universe, fluents and moves by
//!   the relaxed fixpoint over what they depend on, static relations);
//! - [`hybrid`]: relations of the state and static tables grounded, each
//!   atom a disjunction of conjunctions of fluents, for the calls where
//!   that costs less than the rules' plans;
//! - [`join_order`]: a join order per rule and per adornment (pattern of bound
//!   arguments) a query calls it with;
//! - [`body`]: a plan as nested loops and tests, a scan's static tests as
//!   masks ([`filters`]) and its static joins as tables by fluent
//!   ([`prejoin`]);
//! - [`closure`]: answer lists of a recursion that keeps its key;
//! - [`layout`]: the state's bit of each fluent;
//! - [`module`]: the relations' functions, the tables and the `Game` impl.
//!
//! At run time a query evaluates top-down from `legal`, `next`, `terminal`
//! or `goal`: each derived relation is a function per adornment, memoized
//! for the state; a relation on a cycle is computed whole, bottom-up, by its
//! component; static relations are sorted constant tables; the state is a
//! bit set over the fluents (their bits laid out for the scans, their ids in
//! text order) and a move an id in text order, as in the ground back end, so
//! matches replay identically on both.

mod answers;
pub mod body;
pub mod call_graph;
pub mod closure;
pub mod cost;
pub mod defer;
mod evaluation;
pub mod factor;
pub mod facts;
pub mod filters;
pub mod flatten;
mod functions;
mod game_impl;
pub mod guards;
pub mod hoist;
pub mod hybrid;
pub mod implied;
pub mod join_order;
pub mod layout;
pub mod masks;
pub mod memo;
pub mod module;
pub mod plan;
pub mod planner;
pub mod prejoin;
mod queries;
mod recursion;
mod rule_bodies;
pub mod sample;
pub mod statics;
pub mod summary;
mod tables;
pub mod terms;
pub mod widen;

use cost::{
    FEW_ROWS, FEW_SAMPLED_ROWS, GROUND_MARGIN, MAX_VALUE_MASK_WORDS, MOVE_SEEDED_ROWS,
    VALUES_FROM_ROWS, WHOLE_RELAXED, WHOLE_ROWS,
};
use std::collections::BTreeSet;
use std::fmt;

use proc_macro2::Ident;
use quote::format_ident;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::backend::common::format::Module;
use crate::backend::common::EmitOptions;
use crate::front::ir::{Keyword, Program};
use crate::front::symbols::Sym;
use crate::ground::budget::{Budget, GroundError};
use facts::Facts;
use join_order::{Adorn, Catalog, Source};

/// Why the lifted back end could not compile a game.
#[derive(Clone, Debug)]
pub enum LiftedError {
    /// The fluents and moves could not be enumerated within the budget.
    Domains(GroundError),
    /// The runtime path is not a Rust path.
    BadRuntimePath(String),
    /// The generated code did not parse (a bug).
    Internal(String),
}

impl fmt::Display for LiftedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiftedError::Domains(e) => write!(f, "lifted back end: {e}"),
            LiftedError::BadRuntimePath(p) => write!(f, "`{p}` is not a Rust path"),
            LiftedError::Internal(e) => write!(f, "internal error in the lifted back end: {e}"),
        }
    }
}

impl std::error::Error for LiftedError {}

/// Compiles a valid program with the lifted back end: plans it, then
/// prints the plan.
pub fn module(
    program: &Program,
    opts: &EmitOptions,
    budget: &Budget,
) -> Result<Module, LiftedError> {
    plan(program, budget)?.module(opts)
}

/// The plan of a valid program's lifted module, as text (see
/// [`plan::LiftedPlan::summary`]).
pub fn plan_summary(program: &Program, budget: &Budget) -> Result<String, LiftedError> {
    Ok(plan(program, budget)?.summary())
}

/// Plans a valid program's lifted module: the decisions, before any code
/// is printed. The plan may be read (and, in tests, edited) before
/// [`Planned::module`] prints it.
pub fn plan(program: &Program, budget: &Budget) -> Result<Planned, LiftedError> {
    let program = flatten::flatten(program).into_owned();
    let facts = Facts::compute(&program, budget).map_err(LiftedError::Domains)?;
    let fixed = queries::fixed_legal_moves(&program, &facts);
    let (plan, reg) = planner::plan(&program, &facts, fixed.is_none());
    Ok(Planned {
        plan,
        program,
        facts,
        reg,
        fixed,
    })
}

/// A planned lifted module: its plan, and what printing it reads.
pub struct Planned {
    /// The plan.
    pub plan: plan::LiftedPlan,
    program: Program,
    facts: Facts,
    reg: Registry,
    fixed: Option<Vec<Vec<u32>>>,
}

impl Planned {
    /// The plan as text (see [`plan::LiftedPlan::summary`]).
    pub fn summary(&self) -> String {
        self.plan.summary(&self.program, &self.facts)
    }

    /// The module the plan plans, printed once.
    pub fn module(self, opts: &EmitOptions) -> Result<Module, LiftedError> {
        let rt: syn::Path = syn::parse_str(&opts.runtime_path)
            .map_err(|_| LiftedError::BadRuntimePath(opts.runtime_path.clone()))?;
        let Planned {
            plan,
            facts,
            reg,
            fixed,
            ..
        } = self;
        Ok(module::print(&facts, &plan, reg, opts, &rt, fixed))
    }
}

/// A call in the planner's memos: the relation, its bound arguments and
/// the component being printed (which changes where relations are read
/// from).
type CallKey = (u32, Adorn, Option<usize>);

/// What the generated code needs, registered while rule bodies are
/// printed: functions per relation and adornment, tables, masks.
pub struct Registry {
    /// Relation names, sanitized for identifiers.
    names: Vec<String>,
    /// Arity of each relation.
    arity: Vec<usize>,
    /// Functor ids by (name, arity).
    functors: FxHashMap<(Sym, usize), u32>,
    /// Functor ids whose terms are built at run time.
    made: BTreeSet<u32>,
    /// Static tables read, by (relation, bound arguments).
    statics: BTreeSet<(u32, Adorn)>,
    /// Static relations whose tuples are tested.
    checks: BTreeSet<u32>,
    /// Whether each static relation has tuples.
    nonempty: Vec<bool>,
    /// Fluent masks used: by functor id, `None` for every fluent.
    masks: BTreeSet<Option<u32>>,
    /// Fluent masks by argument values used: (functor id, arguments), the
    /// arguments as [`Registry::scan_positions`] orders them.
    value_masks: BTreeSet<(u32, Vec<usize>)>,
    /// Filters of scans (see [`filters`]), by number.
    filters: Vec<filters::Filter>,
    /// Their numbers.
    filter_ids: FxHashMap<filters::Filter, usize>,
    /// The words of their tables, summed.
    filter_words: usize,
    /// Functors whose fluents' rows (arguments and term, by bit) scans read.
    fluent_rows: BTreeSet<u32>,
    /// Functors whose fluents are tested from their arguments (`holds_f`).
    held: BTreeSet<u32>,
    /// Functors whose fluents' bits are found from their arguments
    /// (`bit_f`; `holds_f` calls it too).
    bits: BTreeSet<u32>,
    /// Distinct values of each (functor id, argument) among the fluents,
    /// sorted.
    fluent_values: FxHashMap<(u32, usize), Vec<u32>>,
    /// The key types of the dense memo tables, in order of creation.
    dense_keys: Vec<memo::DenseKeys>,
    /// Per relation, its component when it is on a cycle.
    comp_of: Vec<Option<usize>>,
    /// Components every base rule of which reads the joint move: their
    /// tables hold what one move sets off (reversi's flipped discs), small
    /// enough to compute whole from the move on, where asking for each
    /// tuple from the state (every disc) would walk the board many times.
    move_seeded: BTreeSet<usize>,
    true_rel: Option<u32>,
    does_rel: Option<u32>,
    /// `terminal`, which its query asks once a state.
    pub terminal_rel: Option<u32>,
    /// The relations the queries list in full (`legal`, `next`, `goal`).
    listed: Vec<u32>,
    /// Estimated sizes for the planner: fluents per functor.
    fluents_per_functor: FxHashMap<u32, usize>,
    num_fluents: usize,
    /// Number of the program's relations: the guards come after them.
    program_rels: usize,
    /// Per guarded relation, its guard's relation and the columns it keeps.
    guard_of: FxHashMap<u32, (u32, Vec<usize>)>,
    /// Number of guards: the parts of rules come after them.
    guard_rels: usize,
    /// Each relation's rules, for the price of calls: by their literals or
    /// from their plans.
    rules_of: Vec<Vec<crate::lifted::CRule>>,
    /// Prices of calls of relations no sampled state has, by relation,
    /// adornment and the component being printed (see
    /// [`Registry::unseen_call_cost`]).
    unseen_costs: std::cell::RefCell<FxHashMap<CallKey, f64>>,
    /// The static relations' tuples (`None` for a relation that is not
    /// static), for estimates.
    static_tuples: Vec<Option<Vec<Vec<u32>>>>,
    /// Relaxed extensions of the dynamic relations (`None` where unknown or
    /// too large), for estimates.
    relaxed_tuples: Vec<Option<Vec<Vec<u32>>>>,
    /// Tuples of the dynamic relations in sampled states, for estimates.
    pub samples: std::rc::Rc<sample::Samples>,
    /// Per relation, the literals all its rules share (see [`implied`]).
    common: Vec<Vec<implied::Common>>,
    /// Distinct projections of static or relaxed relations on sets of
    /// columns, as estimates ask for them.
    distinct: std::cell::RefCell<FxHashMap<(u32, Adorn), usize>>,
    /// The component whose fixpoint is being printed: its relations are
    /// read from their tables.
    pub within: Option<usize>,
    /// Whether rules build terms at run time (see [`defer`]): terms outside
    /// the universe live in the evaluation's store.
    pub run_time_terms: bool,
    /// [`Facts::built_leaves`], for estimates.
    built_leaves: Vec<Option<Vec<u32>>>,
    /// Functors with terms in the universe (`make_<f>` exists).
    in_universe: Vec<bool>,
    /// The initial state's fluents by functor, as tuples of arguments.
    init_tuples: FxHashMap<u32, Vec<Vec<u32>>>,
    /// The sampled states' fluents of functors absent from the initial
    /// state, as tuples of arguments, and the number of states (see
    /// [`sampled_fluents`]).
    sampled_fluents: Option<SampledFluents>,
    /// The relations compiled ground whose atoms are tested.
    hybrids: BTreeSet<u32>,
    /// Static joins of scanned fluents (see [`prejoin`]), by number.
    prejoins: Vec<prejoin::Prejoin>,
    /// Their numbers.
    prejoin_ids: FxHashMap<prejoin::Prejoin, usize>,
    /// The numbers of their tables, summed.
    prejoin_words: usize,
    /// The fluents' arguments, by functor.
    fluent_args: FxHashMap<u32, Vec<Vec<u32>>>,
    /// Whether each relation with a ground form (see [`hybrid`]), called
    /// with an adornment, is compiled ground, as chosen so far.
    ground: FxHashMap<(u32, Adorn), bool>,
    /// The function being planned, whose whole lists [`Catalog::reads_whole`]
    /// reads (set by [`planner`]).
    pub caller: call_graph::Node,
    /// Per function, the relations whose whole list it reads where it asks
    /// for some bound arguments, as the last round of the planner found
    /// (see [`planner`]), for [`Catalog::reads_whole`].
    pub whole: call_graph::Whole,
}

impl Registry {
    fn new(program: &Program, facts: &Facts) -> Registry {
        let n = program.preds.len();
        let names = (0..n)
            .map(|p| {
                let name = program.symbols.name(program.preds[p].name);
                // Runs of other characters become one underscore, so that
                // names stay snake case (`++` would give `___2`).
                let words: Vec<String> = name
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_ascii_lowercase)
                    .collect();
                let clean = if words.is_empty() {
                    format!("rel{p}")
                } else {
                    words.join("_")
                };
                format!("{clean}_{}", program.preds[p].arity)
            })
            .collect::<Vec<_>>();
        let mut arity: Vec<usize> = program.preds.iter().map(|p| p.arity).collect();
        let guard_names: Vec<String> = facts
            .guards
            .iter()
            .map(|g| format!("guard_{}", names[g.of as usize]))
            .collect();
        arity.extend(facts.guards.iter().map(|g| g.columns.len()));
        let part_names: Vec<String> = facts
            .parts
            .iter()
            .enumerate()
            .map(|(k, p)| format!("{}_part{k}", names[p.of as usize]))
            .collect();
        arity.extend(facts.parts.iter().map(|p| p.arity));
        let hybrid_names: Vec<String> = facts
            .hybrid
            .iter()
            .map(|h| {
                let of = h.of as usize;
                let name = match of.checked_sub(n + guard_names.len()) {
                    Some(k) => &part_names[k],
                    None => &names[of],
                };
                format!("atoms_{name}")
            })
            .collect();
        arity.extend(facts.hybrid.iter().map(|h| h.arity + 1));
        let program_rels = n;
        let guard_rels = facts.guards.len();
        let names = unique(
            names
                .into_iter()
                .chain(guard_names)
                .chain(part_names)
                .chain(hybrid_names)
                .collect(),
        );
        let n = names.len();
        let functors = facts.universe.functor_ids();
        let mut fluents_per_functor = FxHashMap::default();
        for &t in &facts.fluents {
            *fluents_per_functor
                .entry(facts.universe.functor[t as usize])
                .or_insert(0) += 1;
        }
        let kw = |k| program.keyword_pred(k).map(|p| p.0);
        let fluent_values = fluent_values(facts);
        let init_tuples = functional_init(facts, &fluent_values);
        let mut fluent_args: FxHashMap<u32, Vec<Vec<u32>>> = FxHashMap::default();
        for &t in &facts.fluents {
            let u = &facts.universe;
            (fluent_args.entry(u.functor[t as usize]).or_default())
                .push(u.args[t as usize].clone());
        }
        Registry {
            hybrids: BTreeSet::new(),
            prejoins: Vec::new(),
            prejoin_ids: FxHashMap::default(),
            prejoin_words: 0,
            fluent_args,
            ground: FxHashMap::default(),
            caller: call_graph::Node::State,
            whole: call_graph::Whole::default(),
            init_tuples,
            sampled_fluents: sampled_fluents(facts),
            names,
            arity,
            program_rels,
            guard_of: (facts.guards.iter().enumerate())
                .map(|(k, g)| (g.of, ((program_rels + k) as u32, g.columns.clone())))
                .collect(),
            guard_rels,
            functors,
            made: BTreeSet::new(),
            statics: BTreeSet::new(),
            checks: BTreeSet::new(),
            nonempty: facts
                .statics
                .iter()
                .map(|s| s.as_ref().is_some_and(|t| !t.is_empty()))
                .collect(),
            masks: BTreeSet::new(),
            value_masks: BTreeSet::new(),
            filters: Vec::new(),
            filter_ids: FxHashMap::default(),
            filter_words: 0,
            fluent_rows: BTreeSet::new(),
            held: BTreeSet::new(),
            bits: BTreeSet::new(),
            fluent_values,
            dense_keys: Vec::new(),
            move_seeded: move_seeded(facts, &cycles(facts, n), kw(Keyword::Does)),
            comp_of: cycles(facts, n),
            true_rel: kw(Keyword::True),
            terminal_rel: kw(Keyword::Terminal),
            does_rel: kw(Keyword::Does),
            listed: [Keyword::Legal, Keyword::Next, Keyword::Goal]
                .into_iter()
                .filter_map(kw)
                .collect(),
            fluents_per_functor,
            num_fluents: facts.fluents.len(),
            static_tuples: facts.statics.clone(),
            relaxed_tuples: facts.relaxed.clone(),
            samples: facts.samples.clone(),
            common: implied::common_literals(&facts.rules, n),
            distinct: Default::default(),
            rules_of: rules_by_head(&facts.rules, n),
            unseen_costs: Default::default(),
            within: None,
            run_time_terms: facts.built_leaves.iter().any(Option::is_some),
            built_leaves: facts.built_leaves.clone(),
            in_universe: {
                let mut has = vec![false; facts.universe.functors.len()];
                for &f in &facts.universe.functor {
                    if let Some(h) = has.get_mut(f as usize) {
                        *h = true;
                    }
                }
                has
            },
        }
    }

    /// The functor id of `f` with `arity` arguments, if any term has it.
    pub fn functor(&self, f: Sym, arity: usize) -> Option<u32> {
        self.functors.get(&(f, arity)).copied()
    }

    /// The function that builds terms of functor `f`/`arity` at run time
    /// (`None` when there is none: no term of the universe has it).
    pub fn make_table(&mut self, f: Sym, arity: usize) -> Option<Ident> {
        let fid = self.functor(f, arity)?;
        if !self.in_universe[fid as usize] {
            return None;
        }
        self.made.insert(fid);
        Some(format_ident!("make_{}", fid))
    }

    /// Whether static relation `rel` has a tuple.
    pub fn static_nonempty(&self, rel: u32) -> bool {
        self.nonempty[rel as usize]
    }

    /// The table of static relation `rel` sorted for lookups on `bound`.
    pub fn static_table(&mut self, rel: u32, bound: Adorn) -> Ident {
        self.statics.insert((rel, bound));
        static_table_name(&self.names[rel as usize], bound, self.arity[rel as usize])
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
            let atoms = h.atoms.len().max(1);
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
            // Finding the atoms: a rank lookup per bound argument.
            let lookup = 1.0 + keys_bound as f64;
            GROUND_MARGIN * (lookup + found * hybrid::test_work(h)) < lifted
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

    /// [`Registry::rules_work`] with the matching of the bound head
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

    /// The function testing an atom (by number) of relation `rel`, compiled
    /// ground (see [`hybrid`]), on a state.
    pub fn hybrid_test(&mut self, rel: u32) -> Ident {
        self.hybrids.insert(rel);
        format_ident!("holds_{}", self.names[rel as usize])
    }

    /// The function testing a tuple of static relation `rel`.
    pub fn static_check(&mut self, rel: u32) -> Ident {
        self.checks.insert(rel);
        format_ident!("in_{}", self.names[rel as usize])
    }

    /// The function computing derived relation `rel` called with `bound`.
    pub fn call_name(&self, rel: u32, bound: Adorn) -> Ident {
        format_ident!(
            "{}_{}",
            self.names[rel as usize],
            adorn_text(bound, self.arity[rel as usize])
        )
    }

    /// The component of `rel` (on a cycle) and the field of its table.
    pub fn table(&self, rel: u32) -> (usize, Ident) {
        let comp = self.comp_of[rel as usize].expect("a relation on a cycle");
        (comp, format_ident!("table_{}", self.names[rel as usize]))
    }

    /// The arguments of a scan of `true(f(args..))` (functor `fid`) whose
    /// value masks it reads, with the variables in `bound` known: the bound
    /// arguments of several values, most values first (the most selective;
    /// the first of equals), as many as keep the masks within
    /// [`MAX_VALUE_MASK_WORDS`] (a mask per combination of values, each at
    /// most the state's words); none if not even one does.
    pub fn scan_positions(
        &self,
        fid: u32,
        args: &[crate::lifted::Pat],
        bound: &[bool],
    ) -> Option<Vec<usize>> {
        use crate::lifted::Pat;
        let mut candidates: Vec<usize> = (0..args.len())
            .filter(|&i| matches!(args[i], Pat::Var(_) | Pat::Ground(_)) && args[i].bound_by(bound))
            .filter(|&i| self.values_at(fid, i) >= 2)
            .collect();
        candidates.sort_by_key(|&i| (std::cmp::Reverse(self.values_at(fid, i)), i));
        let words = self.num_fluents.div_ceil(64).max(1);
        let mut masks = words;
        let mut positions = Vec::new();
        for i in candidates {
            masks *= self.values_at(fid, i);
            if masks > MAX_VALUE_MASK_WORDS {
                break;
            }
            positions.push(i);
        }
        (!positions.is_empty()).then_some(positions)
    }

    /// The span of the fluents of functor `fid` whose arguments
    /// `positions` ([`Registry::scan_positions`] chose them) have `values`
    /// (see [`masks`]).
    pub fn value_mask(
        &mut self,
        fid: u32,
        positions: &[usize],
        values: &[proc_macro2::TokenStream],
    ) -> proc_macro2::TokenStream {
        self.value_masks.insert((fid, positions.to_vec()));
        let ranked = match positions {
            [p] => self
                .fluent_values
                .get(&(fid, *p))
                .is_some_and(|v| masks::ranked(v)),
            _ => false,
        };
        masks::lookup(fid, positions, values, ranked)
    }

    /// Distinct values of argument `pos` among the fluents of functor `fid`.
    pub fn values_at(&self, fid: u32, pos: usize) -> usize {
        self.fluent_values.get(&(fid, pos)).map_or(0, Vec::len)
    }

    /// Whether some fluent has functor `fid`.
    pub fn has_fluents(&self, fid: u32) -> bool {
        self.fluents_per_functor.contains_key(&fid)
    }

    /// The table of functor `fid`'s fluents by bit (`FLUENT_ROWS_f`: per
    /// bit from the functor's first, its arguments and then its term) and
    /// that first bit (`FLUENT_FIRST_f`).
    pub fn fluent_rows(&mut self, fid: u32) -> (Ident, Ident) {
        self.fluent_rows.insert(fid);
        fluent_rows_names(fid)
    }

    /// The function testing whether the fluent of functor `fid` with given
    /// arguments holds (`holds_f(state, args..)`): the arguments' ranks
    /// give its bit, without building the term.
    pub fn holds_fn(&mut self, fid: u32) -> Ident {
        self.held.insert(fid);
        format_ident!("holds_{}", fid)
    }

    /// The function giving the mask of the fluents that pass `filter` for
    /// its keys' values, unless its table would pass the budgets
    /// ([`cost::MAX_FILTER_WORDS`], [`cost::MAX_FILTERS_WORDS`]).
    pub fn filter(&mut self, filter: filters::Filter) -> Option<Ident> {
        if let Some(&k) = self.filter_ids.get(&filter) {
            return Some(filters::name(k));
        }
        let words = self.fluents_per_functor.get(&filter.fid)?.div_ceil(64) + 1;
        let size = filter.rows().saturating_mul(words);
        if size > cost::MAX_FILTER_WORDS || self.filter_words + size > cost::MAX_FILTERS_WORDS {
            return None;
        }
        self.filter_words += size;
        let k = self.filters.len();
        self.filter_ids.insert(filter.clone(), k);
        self.filters.push(filter);
        Some(filters::name(k))
    }

    /// The function giving the rows of `join` for a fluent's bit, unless its
    /// table would pass the budgets ([`cost::MAX_PREJOIN_WORDS`],
    /// [`cost::MAX_PREJOINS_WORDS`]) or its join the compile-time work's.
    pub fn prejoin(&mut self, join: prejoin::Prejoin) -> Option<Ident> {
        if let Some(&k) = self.prejoin_ids.get(&join) {
            return Some(prejoin::name(k));
        }
        let mut work = cost::MAX_JOIN_WORK;
        let mut rows = 0;
        let fluents = self.fluent_args.get(&join.fid)?;
        for args in fluents {
            rows += join.bindings(args, &self.static_tuples, &mut work)?.len();
        }
        // The rows, and where each fluent's start.
        let size = rows * join.columns.len() + fluents.len() + 1;
        if size > cost::MAX_PREJOIN_WORDS || self.prejoin_words + size > cost::MAX_PREJOINS_WORDS {
            return None;
        }
        self.prejoin_words += size;
        let k = self.prejoins.len();
        self.prejoin_ids.insert(join.clone(), k);
        self.prejoins.push(join);
        Some(prejoin::name(k))
    }

    /// The function giving the state's bit of the fluent of functor `fid`
    /// with given arguments (`bit_f(args..)`, `NONE` if there is none).
    pub fn bit_fn(&mut self, fid: u32) -> Ident {
        self.bits.insert(fid);
        format_ident!("bit_{}", fid)
    }

    /// The mask of the fluents a `true` pattern can match.
    pub fn mask(&mut self, p: &crate::lifted::Pat) -> Ident {
        let fid = match p {
            crate::lifted::Pat::Func(f, args) => self.functor(*f, args.len()),
            _ => None,
        };
        self.masks.insert(fid);
        mask_name(fid)
    }
}

impl Catalog for Registry {
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

    fn estimate(&self, rel: u32, args: &[crate::lifted::Pat], leaves: i32) -> f64 {
        let size = match self.source(rel) {
            Source::Static => self.static_tuples[rel as usize]
                .as_ref()
                .map_or(0, Vec::len) as f64,
            // About a quarter of a functor's fluents hold at once.
            Source::True => {
                let n = match args.first() {
                    Some(crate::lifted::Pat::Func(f, a)) => self
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
    fn static_rows(&self, rel: u32, args: &[crate::lifted::Pat], bound: &[bool]) -> Option<f64> {
        let tuples = self.static_tuples.get(rel as usize)?.as_ref()?;
        Some(self.rows_in(rel, tuples, args, bound))
    }

    /// A scan with arguments bound reads the mask of their values (see
    /// [`body::Body`]): the fluents holding with them, after a pass over
    /// the mask's words.
    fn scan_price(&self, rel: u32, args: &[crate::lifted::Pat], bound: &[bool]) -> f64 {
        let every = 1.0 + self.estimate(rel, args, 0);
        let Some(crate::lifted::Pat::Func(f, a)) = args.first() else {
            return every;
        };
        let Some(fid) = self.functor(*f, a.len()) else {
            return every;
        };
        let words = self.num_fluents.div_ceil(64).max(1);
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
    fn derived_rows(&self, rel: u32, args: &[crate::lifted::Pat], bound: &[bool]) -> Option<f64> {
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
        if self.comp_of[rel as usize].is_some() {
            // A recursive call that enumerates may meet itself.
            return None;
        }
        let known = u64::from(join_order::adornment(args, bound));
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
    /// From the sampled states for a functor absent from the initial state.
    /// Bound variables count only the values their static literals allow.
    fn state_rows(
        &self,
        args: &[crate::lifted::Pat],
        bound: &[bool],
        values: &join_order::Values,
    ) -> Option<f64> {
        use crate::lifted::Pat;
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
    fn var_values(&self, body: &[crate::lifted::Lit], num_vars: usize) -> Vec<Option<Vec<u32>>> {
        use crate::lifted::{Lit, Pat};
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

    fn implies(&self, call: &crate::lifted::Lit, lit: &crate::lifted::Lit) -> bool {
        match call {
            crate::lifted::Lit::Pos(rel, args) => {
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
            if let Some(steps) = self.samples.call_work(rel, known) {
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
fn rules_by_head(rules: &[crate::lifted::CRule], n: usize) -> Vec<Vec<crate::lifted::CRule>> {
    let mut by_head = vec![Vec::new(); n];
    for r in rules {
        by_head[r.head_rel as usize].push(r.clone());
    }
    by_head
}

impl Registry {
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

    /// Whether `rel` is a part of a rule made a relation: its tests are
    /// memoized, as calls that vary the rule's other arguments repeat them.
    pub fn is_part(&self, rel: u32) -> bool {
        rel as usize >= self.program_rels + self.guard_rels
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
        args: &[crate::lifted::Pat],
        bound: &[bool],
    ) -> f64 {
        let size = tuples.len() as f64;
        let known = |a: &crate::lifted::Pat| {
            matches!(a, crate::lifted::Pat::Ground(_))
                || matches!(a, crate::lifted::Pat::Var(v) if bound[*v as usize])
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

/// `b`/`f` per argument: which are bound (`e` for the free arguments of
/// an existence test).
fn adorn_text(bound: Adorn, arity: usize) -> String {
    let free = if bound & join_order::EXISTS != 0 {
        'e'
    } else {
        'f'
    };
    (0..arity)
        .map(|i| if bound >> i & 1 == 1 { 'b' } else { free })
        .collect()
}

fn static_table_name(name: &str, bound: Adorn, arity: usize) -> Ident {
    format_ident!(
        "{}_{}",
        name.to_ascii_uppercase(),
        adorn_text(bound, arity).to_ascii_uppercase()
    )
}

/// Distinct values of each (functor id, argument) among the fluents.
fn fluent_values(facts: &Facts) -> FxHashMap<(u32, usize), Vec<u32>> {
    let mut seen: FxHashMap<(u32, usize), BTreeSet<u32>> = FxHashMap::default();
    for &t in &facts.fluents {
        let u = &facts.universe;
        for (i, &a) in u.args[t as usize].iter().enumerate() {
            seen.entry((u.functor[t as usize], i))
                .or_default()
                .insert(a);
        }
    }
    seen.into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect()
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
/// arguments, by functor, for the functors absent from the initial state
/// (chess's `check`, which holds in few states; the initial state already
/// tells how many fluents the others have, better than a few samples of a
/// match played at random), and the number of states; `None` without
/// samples.
fn sampled_fluents(facts: &Facts) -> Option<SampledFluents> {
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
    for &f in &facts.init {
        by_functor.remove(&facts.universe.functor[facts.fluents[f as usize] as usize]);
    }
    for text in states.iter().flatten() {
        if let Some(&t) = by_text.get(text.as_str()) {
            if let Some(v) = by_functor.get_mut(&facts.universe.functor[t as usize]) {
                v.push(facts.universe.args[t as usize].clone());
            }
        }
    }
    Some(SampledFluents {
        by_functor,
        states: states.len(),
    })
}

/// Fluents of sampled states (see [`sampled_fluents`]).
struct SampledFluents {
    /// By functor, the arguments of its fluents in every sampled state.
    by_functor: FxHashMap<u32, Vec<Vec<u32>>>,
    /// The number of states sampled.
    states: usize,
}

/// The names of the row table of functor `fid`'s fluents and of its first
/// bit (see [`Registry::fluent_rows`]).
fn fluent_rows_names(fid: u32) -> (Ident, Ident) {
    (
        format_ident!("FLUENT_ROWS_{}", fid),
        format_ident!("FLUENT_FIRST_{}", fid),
    )
}

fn mask_name(fid: Option<u32>) -> Ident {
    match fid {
        Some(f) => format_ident!("MASK_{}", f),
        None => format_ident!("MASK_ALL"),
    }
}

/// Per relation, the index of its component when it is a derived relation
/// on a cycle of the dependency graph.
fn cycles(facts: &Facts, n: usize) -> Vec<Option<usize>> {
    crate::lifted::rule::cyclic_components(&facts.rules, n)
        .into_iter()
        .enumerate()
        .map(|(p, c)| c.filter(|_| facts.dynamic[p]))
        .collect()
}

/// The components (of `comp_of`) every base rule of which (no body
/// literal in the component) reads `does`.
fn move_seeded(facts: &Facts, comp_of: &[Option<usize>], does: Option<u32>) -> BTreeSet<usize> {
    let Some(does) = does else {
        return BTreeSet::new();
    };
    let mut seeded: BTreeSet<usize> = comp_of.iter().flatten().copied().collect();
    for r in &facts.rules {
        let Some(c) = comp_of[r.head_rel as usize] else {
            continue;
        };
        let rel_of = |l: &crate::lifted::Lit| match l {
            crate::lifted::Lit::Pos(rel, _) | crate::lifted::Lit::Neg(rel, _) => Some(*rel),
            crate::lifted::Lit::Distinct(..) => None,
        };
        let base = !r
            .body
            .iter()
            .any(|l| rel_of(l).is_some_and(|p| comp_of[p as usize] == Some(c)));
        let reads_move = r
            .body
            .iter()
            .any(|l| matches!(l, crate::lifted::Lit::Pos(p, _) if *p == does));
        if base && !reads_move {
            seeded.remove(&c);
        }
    }
    seeded
}

/// Number of leaves (constants and variables) of a pattern.
fn count_leaves(p: &crate::lifted::Pat) -> i32 {
    match p {
        crate::lifted::Pat::Func(_, args) => args.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

/// Names made unique: a name that sanitizing made equal to an earlier one
/// (`piece-type` and `piece_type`) gets its relation's index appended.
fn unique(names: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .enumerate()
        .map(|(p, n)| {
            if seen.insert(n.clone()) {
                n
            } else {
                let n = format!("{n}_r{p}");
                seen.insert(n.clone());
                n
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::{self, Options};
    use crate::ground::budget::Budget;
    use crate::lifted::Pat;
    use join_order::Catalog;

    /// A row of cells: a move at `?m` turns over the run of opponent discs
    /// after it (`flip`, seeded by the move); `open` is a run of empty
    /// cells (seeded by the board).
    const ROW: &str = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
        (init (cell 2 o)) (init (cell 3 o)) (init (cell 4 x))
        (<= (flip ?b) (does r (put ?a)) (succ ?a ?b) (true (cell ?b o)))
        (<= (flip ?c) (flip ?b) (succ ?b ?c) (true (cell ?c o)))
        (<= (open ?a ?a) (succ ?a ?b) (not (true (cell ?a o))) (not (true (cell ?a x))))
        (<= (open ?a ?c) (open ?a ?b) (succ ?b ?c) (not (true (cell ?c o))))
        (<= (legal r (put ?a)) (open ?a ?b))
        (<= (next (cell ?b x)) (flip ?b))
        (<= (next (cell ?b ?c)) (true (cell ?b ?c)) (not (flip ?b)))
        (<= terminal (true (cell 1 x)))
        (<= (goal r 100) (true (cell 1 x)))";

    #[test]
    fn the_initial_state_estimates_scans_of_a_functor_it_lists_for_every_key() {
        let text = "(role r) (succ 1 2) (succ 2 3)
            (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 x)) (init (score 0))
            (init (mark 1 x))
            (<= (next (cell ?a x)) (does r (put ?a)))
            (<= (next (cell ?a ?c)) (true (cell ?a ?c)) (not (does r (put ?a))))
            (<= (next (score ?b)) (true (score ?a)) (succ ?a ?b))
            (<= (next (mark ?b x)) (true (mark ?a x)) (succ ?a ?b))
            (<= (next (mark ?a x)) (true (mark ?a x)))
            (<= (legal r (put ?a)) (true (cell ?a b)))
            (<= terminal (true (score 3)))
            (<= (goal r 100) (true (score 3)))";
        let (program, facts) = program_and_facts(text);
        let reg = Registry::new(&program, &facts);
        let fid = |name: &str, arity| {
            let sym = program.symbols.lookup(name).expect("a functor");
            reg.functor(sym, arity).expect("a functor id")
        };
        // Every square once, and one score: their counts per key hold.
        assert!(reg.init_tuples.contains_key(&fid("cell", 2)));
        assert!(reg.init_tuples.contains_key(&fid("score", 1)));
        // Marks accumulate: one of three squares in the initial state.
        assert!(!reg.init_tuples.contains_key(&fid("mark", 2)));
        let cell = |a: Pat, b: Pat| {
            [Pat::Func(
                program.symbols.lookup("cell").unwrap(),
                vec![a, b].into(),
            )]
        };
        let b = facts.universe.text.iter().position(|t| t == "b").unwrap() as u32;
        // A square's fluent: one; the blank squares: two of three.
        let rows = reg.state_rows(&cell(Pat::Var(0), Pat::Var(1)), &[true, false], &[]);
        assert_eq!(rows, Some(1.0));
        let rows = reg.state_rows(&cell(Pat::Var(0), Pat::Ground(b)), &[false], &[]);
        assert_eq!(rows, Some(2.0));
    }

    #[test]
    fn sampled_states_estimate_functors_the_initial_state_lacks() {
        // `flash` holds in the third state only; a king is one of five
        // things a square holds.
        let text = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
            (kind k king) (kind p pawn) (kind q pawn) (kind s pawn)
            (init (at 1 k)) (init (at 2 p)) (init (at 3 q)) (init (at 4 s))
            (init (at 5 b)) (init (at 6 b)) (init (at 7 b)) (init (at 8 b))
            (init (step 1))
            (<= (legal r wait) (true (step ?m)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (at ?c ?x)) (true (at ?c ?x)))
            (<= (next (flash ?n)) (true (step ?m)) (succ ?m ?n) (succ ?n 4))
            (<= terminal (true (step 4)))
            (<= (goal r 100) (true (step 4)))";
        let (program, facts) = program_and_facts(text);
        let reg = Registry::new(&program, &facts);
        let sym = |name: &str| program.symbols.lookup(name).expect("a symbol");
        let id = |text: &str| facts.universe.text.iter().position(|t| t == text).unwrap() as u32;
        let flash = [Pat::Func(sym("flash"), vec![Pat::Var(0)].into())];
        let rows = reg.state_rows(&flash, &[false], &[]).expect("sampled");
        assert!(
            (rows - 1.0 / 3.0).abs() < 1e-9,
            "one flash in three states: {rows}"
        );
        // `(at ?c ?x)` with `?x` known: 8 squares over 5 values; with `?x`
        // a king (`(kind ?x king)`), the one square.
        let kind = relation_named(&program, "kind");
        let body = [crate::lifted::Lit::Pos(
            kind,
            vec![Pat::Var(1), Pat::Ground(id("king"))].into(),
        )];
        let values = reg.var_values(&body, 2);
        assert_eq!(values, [None, Some(vec![id("k")])]);
        let at = [Pat::Func(sym("at"), vec![Pat::Var(0), Pat::Var(1)].into())];
        assert_eq!(
            reg.state_rows(&at, &[false, true], &[None, None]),
            Some(8.0 / 5.0)
        );
        assert_eq!(reg.state_rows(&at, &[false, true], &values), Some(1.0));
    }

    #[test]
    fn a_relation_no_sampled_state_has_is_priced_by_its_rules() {
        // `threat` needs a queen, which the match never makes (`promote`
        // is not legal before step 9): sampled empty, so cheap in the
        // sampled states, ten thousand rows where a queen stands. Listed
        // whole, it is priced by its rules' plans, above a call with an
        // argument bound and above a price by its literals.
        let digits: String = (0..10).map(|i| format!("(d {i}) ")).collect();
        let text = format!(
            "(role r) {digits} (succ 1 2) (succ 2 3) (succ 3 4)
            (init (step 1)) (init (piece p))
            (<= (legal r (go ?x)) (true (step ?m)) (d ?x))
            (<= (legal r promote) (true (step 9)))
            (<= (next (piece q)) (does r promote))
            (<= (next (piece ?p)) (true (piece ?p)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (threat ?x ?y ?z ?w) (true (piece q)) (d ?x) (d ?y) (d ?z) (d ?w))
            (<= (next (hit ?x)) (does r (go ?x)) (threat ?x ?y ?z ?w))
            (<= terminal (true (step 4)))
            (<= (goal r 100) (true (step 4)))"
        );
        let (program, facts) = program_and_facts(&text);
        assert!(facts.samples.states > 0, "the match is sampled");
        let threat = relation_named(&program, "threat");
        assert!(facts.samples.never_seen(threat));
        let reg = Registry::new(&program, &facts);
        let whole = reg.call_cost(threat, 0);
        let one = reg.call_cost(threat, 0b0001);
        let by_literals = 4.0 + 4.0 * 5.0;
        assert!(whole > one && whole > by_literals, "{whole} {one}");
    }

    #[test]
    fn a_bound_call_of_a_short_relation_listed_whole_reads_the_list() {
        // `threat` is listed whole by `legal`; `terminal` (on the same
        // evaluation) asks for the threats of a given king, which the
        // second build reads from that list; `next`, on an evaluation of
        // its own, keeps its call.
        let text = "(role r) (init (piece p1)) (init (piece p2)) (init (king k1))
            (init (step 1)) (succ 1 2) (succ 2 3) (succ 3 4)
            (<= (threat ?p ?k) (true (piece ?p)) (true (king ?k)))
            (<= (legal r (go ?p)) (threat ?p ?k))
            (<= (next (seen ?k ?p)) (true (king ?k)) (threat ?p ?k))
            (<= (next (piece ?p)) (true (piece ?p)))
            (<= (next (king ?k)) (true (king ?k)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= terminal (true (step 4)) (true (king ?k)) (threat ?p ?k) (true (seen ?k ?p)))
            (<= (goal r 100) (true (step 4)))";
        let (program, facts) = program_and_facts(text);
        let (_, code) = module_and_code(&program, &facts);
        let body = |f: &str| {
            let at = code
                .find(&format!("fn{f}("))
                .unwrap_or_else(|| panic!("{f}: {code}"));
            let end = code[at + 3..].find("fn").map_or(code.len(), |e| at + 3 + e);
            code[at..end].to_string()
        };
        assert!(body("terminal_0_").contains("self.threat_2_ff()"), "{code}");
        assert!(body("next").contains("self.threat_2_fb("), "{code}");
    }

    /// The checked program of `text` (for the back end's unit tests).
    pub(super) fn checked_program(text: &str) -> Program {
        let fe = front::run_bytes("test.kif", text.as_bytes(), &Options::default());
        assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
        fe.program
    }

    /// The module of `program` with `facts`, default options, and its items
    /// as text without spaces.
    pub(super) fn module_and_code(
        program: &Program,
        facts: &Facts,
    ) -> (crate::backend::common::format::Module, String) {
        let rt: syn::Path = syn::parse_str("::gdl_runtime").unwrap();
        let opts = crate::backend::common::EmitOptions::default();
        let fixed = queries::fixed_legal_moves(program, facts);
        let (plan, reg) = planner::plan(program, facts, fixed.is_none());
        let module = module::print(facts, &plan, reg, &opts, &rt, fixed);
        let code = module.items.to_string().replace(' ', "");
        (module, code)
    }

    /// The term of `text` in `facts`' universe.
    pub(super) fn term(facts: &Facts, text: &str) -> u32 {
        facts.universe.text.iter().position(|t| t == text).unwrap() as u32
    }

    /// A step testing or joining static relation `rel` with all of `args`
    /// bound.
    pub(super) fn static_step(rel: u32, args: Vec<Pat>, negated: bool) -> join_order::Step {
        join_order::Step::Lit {
            source: Source::Static,
            rel,
            bound: (1 << args.len()) - 1 as Adorn,
            args: args.into(),
            negated,
        }
    }

    /// The checked program of `text` and its facts.
    pub(super) fn program_and_facts(text: &str) -> (Program, Facts) {
        let program = checked_program(text);
        let facts = Facts::compute(&program, &Budget::default()).expect("facts");
        (program, facts)
    }

    /// The relation of `p` named `name`.
    pub(super) fn relation_named(p: &Program, name: &str) -> u32 {
        (0..p.preds.len() as u32)
            .find(|&i| p.symbols.name(p.preds[i as usize].name) == name)
            .expect("a relation of that name")
    }

    #[test]
    fn only_components_every_base_rule_of_which_reads_the_move_are_move_seeded() {
        let (program, facts) = program_and_facts(ROW);
        let p = &program;
        let rel = |name: &str| relation_named(p, name) as usize;
        let n = facts.statics.len();
        let comp_of = cycles(&facts, n);
        let does = p.keyword_pred(Keyword::Does).map(|d| d.0);
        let seeded = move_seeded(&facts, &comp_of, does);
        let flip = comp_of[rel("flip")].expect("flip is recursive");
        let open = comp_of[rel("open")].expect("open is recursive");
        assert!(seeded.contains(&flip));
        assert!(!seeded.contains(&open));
    }
}
