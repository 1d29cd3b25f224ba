//! The relations of a lifted module as both the planner and the printer
//! see them: their names in the generated code, arities, components, the
//! functors and their fluents' argument values, the guards. Fixed once the
//! facts are computed; shared by the planner's catalogue
//! ([`super::Estimates`]) and the printer's record ([`super::needs::Needs`]).

use proc_macro2::Ident;
use quote::format_ident;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

use super::cost::MAX_VALUE_MASK_WORDS;
use super::facts::Facts;
use super::join_order::Adorn;
use crate::front::ir::{Keyword, Program};
use crate::front::symbols::Sym;

/// The relations of a module: names, shapes, and what naming and scans
/// read of the fluents.
pub struct Relations {
    /// Relation names, sanitized for identifiers.
    pub names: Vec<String>,
    /// Arity of each relation.
    pub arity: Vec<usize>,
    /// Functor ids by (name, arity).
    pub functors: FxHashMap<(Sym, usize), u32>,
    /// Whether each static relation has tuples.
    pub nonempty: Vec<bool>,
    /// Distinct values of each (functor id, argument) among the fluents,
    /// sorted.
    pub fluent_values: FxHashMap<(u32, usize), Vec<u32>>,
    /// Per relation, its component when it is on a cycle.
    pub comp_of: Vec<Option<usize>>,
    /// Components every base rule of which reads the joint move: their
    /// tables hold what one move sets off (reversi's flipped discs), small
    /// enough to compute whole from the move on, where asking for each
    /// tuple from the state (every disc) would walk the board many times.
    pub move_seeded: BTreeSet<usize>,
    /// `true_rel`.
    pub true_rel: Option<u32>,
    /// `does_rel`.
    pub does_rel: Option<u32>,
    /// `terminal`, which its query asks once a state.
    pub terminal_rel: Option<u32>,
    /// The relations the queries list in full (`legal`, `next`, `goal`).
    pub listed: Vec<u32>,
    /// Estimated sizes for the planner: fluents per functor.
    pub fluents_per_functor: FxHashMap<u32, usize>,
    /// `num_fluents`.
    pub num_fluents: usize,
    /// Number of the program's relations: the guards come after them.
    pub program_rels: usize,
    /// Per guarded relation, its guard's relation and the columns it keeps.
    pub guard_of: FxHashMap<u32, (u32, Vec<usize>)>,
    /// Number of guards: the parts of rules come after them.
    pub guard_rels: usize,
    /// The static relations' tuples (`None` for a relation that is not
    /// static), for estimates.
    pub static_tuples: Vec<Option<Vec<Vec<u32>>>>,
    /// Whether rules build terms at run time (see [`defer`]): terms outside
    /// the universe live in the evaluation's store.
    pub run_time_terms: bool,
    /// Functors with terms in the universe (`make_<f>` exists).
    pub in_universe: Vec<bool>,
    /// The fluents' arguments, by functor.
    pub fluent_args: FxHashMap<u32, Vec<Vec<u32>>>,
}

impl Relations {
    /// The relation of `rel`'s guard, if it has one.
    pub fn guard_rel(&self, rel: u32) -> Option<u32> {
        self.guard_of.get(&rel).map(|&(g, _)| g)
    }

    /// The relations of `program` with `facts`.
    pub fn new(program: &Program, facts: &Facts) -> Relations {
        let program_rels = program.preds.len();
        let guard_rels = facts.guards.len();
        let (names, arity) = names_and_arities(program, facts);
        let n = names.len();
        let functors = facts.universe.functor_ids();
        let fluents_per_functor = fluents_per_functor(facts);
        let fluent_args = fluent_args(facts);
        let kw = |k| program.keyword_pred(k).map(|p| p.0);
        let fluent_values = super::fluent_values(facts);
        Relations {
            fluent_args,
            names,
            arity,
            program_rels,
            guard_of: (facts.guards.iter().enumerate())
                .map(|(k, g)| (g.of, ((program_rels + k) as u32, g.columns.clone())))
                .collect(),
            guard_rels,
            functors,
            nonempty: facts
                .statics
                .iter()
                .map(|s| s.as_ref().is_some_and(|t| !t.is_empty()))
                .collect(),
            fluent_values,
            move_seeded: super::move_seeded(facts, &super::cycles(facts, n), kw(Keyword::Does)),
            comp_of: super::cycles(facts, n),
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
            run_time_terms: facts.built_leaves.iter().any(Option::is_some),
            in_universe: functors_in_universe(facts),
        }
    }

    /// The functor id of `f` with `arity` arguments, if any term has it.
    pub fn functor(&self, f: Sym, arity: usize) -> Option<u32> {
        self.functors.get(&(f, arity)).copied()
    }

    /// Whether static relation `rel` has a tuple.
    pub fn static_nonempty(&self, rel: u32) -> bool {
        self.nonempty[rel as usize]
    }

    /// The function computing derived relation `rel` called with `bound`.
    pub fn call_name(&self, rel: u32, bound: Adorn) -> Ident {
        format_ident!(
            "{}_{}",
            self.names[rel as usize],
            super::adorn_text(bound, self.arity[rel as usize])
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
    /// [`MAX_VALUE_MASK_WORDS`] (see [`Relations::mask_words`]); none if not
    /// even one does. [`super::access`] checks the tables under the layout
    /// and refuses those over the budget.
    pub fn scan_positions(
        &self,
        fid: u32,
        args: &[crate::rules::Pat],
        bound: &[bool],
    ) -> Option<Vec<usize>> {
        use crate::rules::Pat;
        let mut candidates: Vec<usize> = (0..args.len())
            .filter(|&i| matches!(args[i], Pat::Var(_) | Pat::Ground(_)) && args[i].bound_by(bound))
            .filter(|&i| self.values_at(fid, i) >= 2)
            .collect();
        candidates.sort_by_key(|&i| (std::cmp::Reverse(self.values_at(fid, i)), i));
        let fluents = self.fluents_per_functor.get(&fid).copied().unwrap_or(0);
        let state_words = self.state_words();
        let mut positions = Vec::new();
        let mut combinations = 1;
        for i in candidates {
            positions.push(i);
            let words = self.mask_words(fid, &positions).0;
            // Past a mask of the state's words for each combination, an
            // argument is added only while the fluents of one combination
            // of the others take more than a word: past it, the scan reads
            // no fewer words, and a mask of several arguments is found by
            // searching their values (alexChess's pieces by id and rank:
            // 1.3% more instructions).
            let state_wide = combinations * self.values_at(fid, i) * state_words;
            let narrows = state_wide <= MAX_VALUE_MASK_WORDS
                || positions.len() == 1
                || fluents > 64 * combinations;
            if words > MAX_VALUE_MASK_WORDS || !narrows {
                positions.pop();
                break;
            }
            combinations *= self.values_at(fid, i);
        }
        (!positions.is_empty()).then_some(positions)
    }

    /// The words of the masks of `positions` of functor `fid`, at most, and
    /// whether the layout must sort the functor's fluents by them to keep
    /// them so few. A mask is the span of words from its first fluent to
    /// its last: at most the state's words and the functor's, one for
    /// each value where the fluents lie in any order. Masks whose first
    /// argument is the functor's of the most values (the first of equals)
    /// may lead the layout (see [`super::state_layout`]), which makes the
    /// fluents of each combination of values lie side by side: together
    /// the functor's words and two per combination.
    pub fn mask_words(&self, fid: u32, positions: &[usize]) -> (usize, bool) {
        let words = self.state_words();
        let functor_words = (self.fluents_per_functor.get(&fid).copied())
            .unwrap_or(0)
            .div_ceil(64);
        let combinations: usize = positions.iter().map(|&p| self.values_at(fid, p)).product();
        let spread = combinations.saturating_mul(words.min(functor_words + 1));
        let lead = (0..)
            .map_while(|p| self.fluent_values.get(&(fid, p)).map(|v| (p, v.len())))
            .fold(
                (0, 0),
                |best, (p, n)| if n > best.1 { (p, n) } else { best },
            )
            .0;
        let sorted = functor_words + 2 * combinations;
        if positions.first() == Some(&lead) && sorted < spread {
            (sorted, spread > MAX_VALUE_MASK_WORDS)
        } else {
            (spread, false)
        }
    }

    /// The words of the state: a mask of fluents spans at most these.
    pub fn state_words(&self) -> usize {
        self.num_fluents.div_ceil(64).max(1)
    }

    /// Distinct values of argument `pos` among the fluents of functor `fid`.
    pub fn values_at(&self, fid: u32, pos: usize) -> usize {
        self.fluent_values.get(&(fid, pos)).map_or(0, Vec::len)
    }

    /// Whether some fluent has functor `fid`.
    pub fn has_fluents(&self, fid: u32) -> bool {
        self.fluents_per_functor.contains_key(&fid)
    }

    /// Whether `rel` is a part of a rule made a relation: its tests are
    /// memoized, as calls that vary the rule's other arguments repeat them.
    pub fn is_part(&self, rel: u32) -> bool {
        rel as usize >= self.program_rels + self.guard_rels
    }
}

/// The name of program relation `p`, sanitized for identifiers: its words
/// in lower case joined by underscores, then its arity.
fn program_rel_name(program: &Program, p: usize) -> String {
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
}

/// Every relation's name (unique) and arity: the program's relations, then
/// the guards, the parts of rules and the atom tables of the relations
/// compiled ground.
fn names_and_arities(program: &Program, facts: &Facts) -> (Vec<String>, Vec<usize>) {
    let n = program.preds.len();
    let names = (0..n)
        .map(|p| program_rel_name(program, p))
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
    let names = super::unique(
        names
            .into_iter()
            .chain(guard_names)
            .chain(part_names)
            .chain(hybrid_names)
            .collect(),
    );
    (names, arity)
}

/// Per functor, how many fluents have it.
fn fluents_per_functor(facts: &Facts) -> FxHashMap<u32, usize> {
    let mut fluents_per_functor = FxHashMap::default();
    for &t in &facts.fluents {
        *fluents_per_functor
            .entry(facts.universe.functor[t as usize])
            .or_insert(0) += 1;
    }
    fluents_per_functor
}

/// Per functor, the arguments of its fluents.
fn fluent_args(facts: &Facts) -> FxHashMap<u32, Vec<Vec<u32>>> {
    let mut fluent_args: FxHashMap<u32, Vec<Vec<u32>>> = FxHashMap::default();
    for &t in &facts.fluents {
        let u = &facts.universe;
        (fluent_args.entry(u.functor[t as usize]).or_default()).push(u.args[t as usize].clone());
    }
    fluent_args
}

/// Per functor, whether the universe has a term of it.
fn functors_in_universe(facts: &Facts) -> Vec<bool> {
    let mut has = vec![false; facts.universe.functors.len()];
    for &f in &facts.universe.functor {
        if let Some(h) = has.get_mut(f as usize) {
            *h = true;
        }
    }
    has
}
