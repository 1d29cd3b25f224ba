//! Estimates from play: the tuples each dynamic relation has in a few
//! states of a seeded random match, played by the interpreter at compile
//! time.
//!
//! The relaxed fixpoint (see [`super::facts`]) counts every reachable
//! state's tuples at once: amazons' `queenMove` from a known square gives
//! the whole of its lines there, where a state's pieces and arrows stop
//! each ray after a few squares. The planner reads the samples for the rows
//! a call of a derived relation finds in a typical state.
//!
//! Everything here is deterministic (a fixed seed, budgets counted in the
//! interpreter's steps, not in time), so that a game compiles to the same
//! code on every run and machine.

use super::cost::{CALL_PROBES, CALL_WORK, MATCH_STEPS, PARALLEL_PROBES, PROBE_WORK, SEED, STATES};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use gdl_runtime::rng::Rng;
use gdl_runtime::{Game, Move};
use rustc_hash::FxHashMap;

use crate::front::ir::{PredId, Program};
use crate::reasoner::interp::{Interpreter, Probe, QueryBudget, State};

/// Most answers a probe or a move of the match may table, and most memory
/// it may hold.
const PROBE_BUDGET: QueryBudget = QueryBudget {
    max_answers: 1_000_000,
    max_memory: 256 << 20,
};

/// The sampled tuples of a game's relations.
#[derive(Default)]
pub struct Samples {
    /// Per program relation: its tuples in every sampled state, each
    /// preceded by the state's number (ids of terms are the interpreter's:
    /// equal within one state only). `None` for a relation not sampled:
    /// static, or one whose probe gave up in some state.
    pub tuples: Vec<Option<Vec<Vec<u32>>>>,
    /// The number of states sampled.
    pub states: usize,
    /// Per program relation, whether its probe with every argument free
    /// gave up in some state: listing it whole takes more than
    /// [`PROBE_WORK`] steps, or more answers than the probes' budget.
    pub gave_up: Vec<bool>,
    /// The fluents of each sampled state, as text.
    pub fluents: Vec<Vec<String>>,
    /// Distinct projections counted, by relation and columns.
    distinct: RefCell<FxHashMap<(u32, u64), usize>>,
    /// Work of a call measured, by relation and bound columns.
    work: RefCell<FxHashMap<(u32, u64), Option<f64>>>,
    /// The least work of a call whose measure stopped at a ceiling, by
    /// relation and bound columns.
    floor: RefCell<FxHashMap<(u32, u64), f64>>,
    /// The interpreter and the sampled states, for probes of calls.
    probes: Option<Probes>,
}

/// A measure of a call's work: done (`None` where no sampled tuple names
/// a key the probes can ask), or stopped at a ceiling, with the least the
/// average can be.
enum Measure {
    Done(Option<f64>),
    AtLeast(f64),
}

/// What probes of calls ask: the interpreter, and each sampled state with
/// the joint move played from it.
struct Probes {
    interp: Interpreter,
    states: Vec<(State, Vec<Move>)>,
}

/// Samples `program`'s relations marked in `dynamic`; none when the
/// interpreter cannot play the game within the probes' budget, or when
/// `stop` is set (or the compile on this thread is stopped) before the
/// end.
pub fn sample(program: &Program, dynamic: &[bool], stop: &AtomicBool) -> Samples {
    let stopped = || stop.load(Ordering::Relaxed) || crate::stages::interrupted().is_some();
    let Ok(interp) = Interpreter::with_budget(program, PROBE_BUDGET) else {
        return Samples::default();
    };
    let visited = random_match(&interp, &stopped);
    let n = STATES.min(visited.len());
    if n == 0 {
        // Not one state within the budget (a first state with 10^8 legal
        // moves): the estimates stay as they were.
        return Samples::default();
    }
    let picked: Vec<(State, Vec<Move>)> = (0..n)
        .map(|i| visited[i * visited.len() / n].clone())
        .collect();
    let mut tuples: Vec<Option<Vec<Vec<u32>>>> = (0..program.preds.len())
        .map(|p| dynamic.get(p).copied().unwrap_or(false).then(Vec::new))
        .collect();
    let mut gave_up = vec![false; tuples.len()];
    for (s, (state, joint)) in picked.iter().enumerate() {
        if stopped() {
            return Samples::default();
        }
        for (p, slot) in tuples.iter_mut().enumerate() {
            let Some(rows) = slot else { continue };
            let limits = (PROBE_BUDGET, PROBE_WORK);
            let found = interp.probe((state, joint), PredId(p as u32), &[], limits);
            match found.answers {
                Some(found) => rows.extend(found.into_iter().map(|mut t| {
                    t.insert(0, s as u32);
                    t
                })),
                None => {
                    *slot = None;
                    gave_up[p] = true;
                }
            }
        }
    }
    Samples {
        tuples,
        states: picked.len(),
        gave_up,
        fluents: picked.iter().map(|(s, _)| interp.fluents(s)).collect(),
        distinct: RefCell::default(),
        work: RefCell::default(),
        floor: RefCell::default(),
        probes: Some(Probes {
            interp,
            states: picked,
        }),
    }
}

/// The non-terminal states of a random match from the initial state (at
/// most [`MATCH_STEPS`]), each with the joint move played from it; fewer
/// once `stopped`.
///
/// `stopped` says whether the compile was stopped from outside (cancelled,
/// or out of its time: see [`crate::stages`]). Sampling then ends early:
/// its estimates are never used, since the compile fails at the next stage,
/// and sampling chess takes seconds that a cancelled compile must not wait
/// for.
fn random_match(interp: &Interpreter, stopped: &dyn Fn() -> bool) -> Vec<(State, Vec<Move>)> {
    let mut rng = Rng::new(SEED);
    let mut state = interp.initial_state();
    let mut visited = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..MATCH_STEPS {
        if stopped() || interp.is_terminal(&state) {
            break;
        }
        let mut joint = Vec::with_capacity(interp.num_roles());
        for role in 0..interp.num_roles() {
            interp.legal_moves(&state, role, &mut moves);
            if moves.is_empty() {
                break;
            }
            joint.push(moves[rng.below(moves.len())]);
        }
        if interp.budget_error().is_some() || joint.len() < interp.num_roles() {
            break;
        }
        let mut next = state.clone();
        interp.apply_unchecked(&mut next, &joint);
        visited.push((std::mem::replace(&mut state, next), joint));
        if interp.budget_error().is_some() {
            visited.pop();
            break;
        }
    }
    visited
}

impl std::fmt::Debug for Samples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Samples")
            .field("states", &self.states)
            .field("sampled", &self.tuples.iter().flatten().count())
            .finish_non_exhaustive()
    }
}

impl Samples {
    /// The rows a call of relation `rel` finds in a sampled state, with
    /// the arguments in `known` (a mask over its columns) known: the
    /// tuples over the distinct values of the known columns, per state (a
    /// call's rows, on average, among keys that have any); for a test of a
    /// whole tuple, the chance that it holds if columns were independent.
    /// `None` where `rel` was not sampled.
    pub fn rows(&self, rel: u32, known: u64, arity: usize) -> Option<f64> {
        let tuples = self.tuples.get(rel as usize)?.as_ref()?;
        let size = tuples.len() as f64;
        let states = self.states.max(1) as f64;
        if tuples.is_empty() {
            return Some(0.0);
        }
        let all = (1u64 << arity) - 1;
        if known & all == all && arity > 0 {
            // Per state, the tuples over the product of each column's
            // values (each column counted with the state's number).
            let space: f64 = (0..arity)
                .map(|i| self.distinct(rel, tuples, 1 | 1 << (i + 1)) as f64 / states)
                .product();
            return Some(size / states / space.max(1.0));
        }
        Some(size / self.distinct(rel, tuples, 1 | (known & all) << 1) as f64)
    }

    /// The chance that a tuple of `rel` (of `arity` columns) holds in a
    /// sampled state, each column drawn from the values it has in any
    /// sampled state: low for a relation of a few of many tuples (the
    /// squares a move affects), high for one true of most (the players
    /// with a legal move). `None` where `rel` was not sampled.
    pub fn holds(&self, rel: u32, arity: usize) -> Option<f64> {
        let tuples = self.tuples.get(rel as usize)?.as_ref()?;
        let states = self.states.max(1) as f64;
        let space: f64 = (0..arity)
            .map(|i| self.distinct(rel, tuples, 1 << (i + 1)) as f64)
            .product();
        Some(tuples.len() as f64 / states / space)
    }

    /// Whether relation `rel` was sampled and had no tuple in any sampled
    /// state: one the match did not reach, rare where the match is typical
    /// but of unknown size where it holds (FRANCE's `unghour`, empty in
    /// every sampled state, a hundred thousand tuples where a piece of some
    /// kind is on the board).
    pub fn never_seen(&self, rel: u32) -> bool {
        matches!(self.tuples.get(rel as usize), Some(Some(t)) if t.is_empty())
    }

    /// The interpreter's work (body steps) for a call of relation `rel`
    /// with the columns of `known` bound, on average over a few keys of
    /// its sampled tuples, each asked in the state it comes from: a
    /// backward search (chess's moves to a given square) costs many times
    /// a forward one (the moves of a given piece). `None` where `rel` was
    /// not sampled or has no tuple whose key the probes can name; the
    /// probes' limit for a whole listing of a relation whose probe gave up.
    pub fn call_work(&self, rel: u32, known: u64) -> Option<f64> {
        self.work_below(rel, known, f64::INFINITY)
    }

    /// [`Samples::call_work`], at most that of a call with one of the
    /// `known` arguments unknown plus a comparison per row it finds: the
    /// compiled call is planned by the join order, which with more keys
    /// finds a plan at least as cheap, where the interpreter that measures
    /// may search worse (and tables a recursion whole: BIRD's paths with
    /// both ends given measured 34 K steps, 296 from one end plus a
    /// comparison per path). CHINESECHECKERS4's
    /// moves of a given player's given piece measured 533 steps, as many
    /// as every player's moves and six times the given player's 91: its
    /// test of a piece that has a move read the list of all players'
    /// moves, 75% of the game's instructions a playout.
    pub fn bounded_call_work(&self, rel: u32, known: u64, arity: usize) -> Option<f64> {
        let own = self.call_work(rel, known)?;
        let mut best = own;
        for i in (0..arity).filter(|i| known >> i & 1 == 1) {
            let wider = known & !(1 << i);
            // Rows are never negative: a wider call whose work alone reaches
            // the best price so far cannot lower it, and its measure stops
            // there (chess's planner took 2.1 times as long measuring whole
            // wider calls that never won).
            let Some(work) = self.work_below(rel, wider, best) else {
                continue;
            };
            if let Some(rows) = self.rows(rel, wider, arity) {
                best = best.min(work + rows);
            }
        }
        Some(best)
    }

    /// [`Samples::call_work`] where it is below `ceiling`; `None` where it
    /// is not, or where `rel` was not sampled. The measure stops once its
    /// probes' total shows the average cannot fall below `ceiling`; a
    /// stopped measure is not kept, its least value is.
    fn work_below(&self, rel: u32, known: u64, ceiling: f64) -> Option<f64> {
        if known == 0 && self.gave_up.get(rel as usize) == Some(&true) {
            return Some(PROBE_WORK as f64).filter(|&w| w < ceiling);
        }
        if let Some(&w) = self.work.borrow().get(&(rel, known)) {
            return w.filter(|&w| w < ceiling);
        }
        if self
            .floor
            .borrow()
            .get(&(rel, known))
            .is_some_and(|&f| f >= ceiling)
        {
            return None;
        }
        match self.measure(rel, known, ceiling) {
            Measure::Done(w) => {
                self.work.borrow_mut().insert((rel, known), w);
                w.filter(|&w| w < ceiling)
            }
            Measure::AtLeast(floor) => {
                self.floor.borrow_mut().insert((rel, known), floor);
                None
            }
        }
    }

    /// The average work of [`CALL_PROBES`] calls of `rel` with the columns
    /// of `known` bound, keyed by sampled tuples; stopped once the total
    /// shows the average is at least `ceiling`.
    fn measure(&self, rel: u32, known: u64, ceiling: f64) -> Measure {
        let Some(Probes { interp, states }) = self.probes.as_ref() else {
            return Measure::Done(None);
        };
        let Some(tuples) = self.tuples.get(rel as usize).and_then(Option::as_ref) else {
            return Measure::Done(None);
        };
        let n = CALL_PROBES.min(tuples.len());
        let calls: Vec<(usize, Vec<Option<u32>>)> = (0..n)
            .map(|k| &tuples[k * tuples.len() / n])
            .map(|t| {
                let key = (1..t.len())
                    .map(|i| (known >> (i - 1) & 1 == 1).then_some(t[i]))
                    .collect();
                (t[0] as usize, key)
            })
            .filter(|(_, key): &(usize, Vec<Option<u32>>)| {
                key.iter().flatten().all(|&id| Interpreter::is_shared(id))
            })
            .collect();
        if calls.is_empty() {
            return Measure::Done(None);
        }
        // The total at which the average reaches the ceiling.
        let cap = ceiling * calls.len() as f64;
        let mut total = 0u64;
        // The probes of a measure are independent: two at a time, each
        // cut at what was left before the pair (a pair whose total passes
        // it stops the measure as a probe cut short would).
        for pair in calls.chunks(PARALLEL_PROBES) {
            let left = cap - total as f64;
            if left <= 0.0 {
                return Measure::AtLeast(total as f64 / calls.len() as f64);
            }
            // A probe cut short by the ceiling (below the probes' own
            // limit) gives up having spent at least what was left.
            let limit = CALL_WORK.min(left.ceil() as u64);
            let probe = |(s, key): &(usize, Vec<Option<u32>>)| {
                let (state, joint) = &states[*s];
                interp.probe((state, joint), PredId(rel), key, (PROBE_BUDGET, limit))
            };
            let found: Vec<Probe> = std::thread::scope(|scope| {
                let rest: Vec<_> = (pair[1..].iter())
                    .map(|call| scope.spawn(move || probe(call)))
                    .collect();
                let first = probe(&pair[0]);
                // A probe that panicked is a bug of the interpreter: it
                // panics here as it would have run alone.
                let rest = (rest.into_iter())
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
                std::iter::once(first).chain(rest).collect()
            });
            for p in found {
                if p.answers.is_none() && limit < CALL_WORK {
                    return Measure::AtLeast(ceiling);
                }
                total += p.work;
            }
        }
        let average = total as f64 / calls.len() as f64;
        if average >= ceiling {
            return Measure::AtLeast(average);
        }
        Measure::Done(Some(average))
    }

    /// The number of distinct projections of relation `rel`'s `tuples` on
    /// the columns of `mask` (counted once).
    fn distinct(&self, rel: u32, tuples: &[Vec<u32>], mask: u64) -> usize {
        *self
            .distinct
            .borrow_mut()
            .entry((rel, mask))
            .or_insert_with(|| distinct(tuples, mask))
    }
}

/// The number of distinct projections of `tuples` on the columns of `mask`
/// (at least one). Where the projection fits 128 bits (at most
/// [`PACKED_COLUMNS`] columns, each in every tuple) it is packed into one
/// integer and the integers sorted: chess's planner asks for the
/// projections of three sampled relations of 0.7 to 2.2 M tuples under
/// eight masks each, 3.9 s of its 5.3 s of join planning when each tuple
/// was compared through its slice; packed, about a tenth of that. Else
/// the tuples are sorted by their projections in place of copying each
/// projection out.
pub fn distinct(tuples: &[Vec<u32>], mask: u64) -> usize {
    let columns: Vec<usize> = (0..u64::BITS as usize)
        .filter(|i| mask >> i & 1 == 1)
        .collect();
    let shortest = tuples.iter().map(Vec::len).min().unwrap_or(0);
    if columns.len() <= PACKED_COLUMNS && columns.last().is_none_or(|&c| c < shortest) {
        let mut keys: Vec<u128> = tuples
            .iter()
            .map(|t| {
                columns
                    .iter()
                    .fold(0u128, |k, &i| k << 32 | u128::from(t[i]))
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        return keys.len().max(1);
    }
    distinct_by_slices(tuples, &columns)
}

/// [`distinct`] for any projection: the tuples sorted by it.
fn distinct_by_slices(tuples: &[Vec<u32>], columns: &[usize]) -> usize {
    let mut order: Vec<&[u32]> = tuples.iter().map(Vec::as_slice).collect();
    order.sort_unstable_by(|a, b| projection(columns, a).cmp(projection(columns, b)));
    order.dedup_by(|a, b| projection(columns, a).eq(projection(columns, b)));
    order.len().max(1)
}

/// Most columns of a projection [`distinct`] packs into one `u128`: as
/// many ids of 32 bits as it holds (a representation, not a threshold).
const PACKED_COLUMNS: usize = (u128::BITS / u32::BITS) as usize;

/// The values of `t` in `columns` (ascending; those past its end left out).
fn projection<'a>(columns: &'a [usize], t: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
    columns.iter().map_while(move |&i| t.get(i).copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::lifted::tests::{checked_program, relation_named};

    /// Three states before the end: `(step 1)`, `(step 2)`, `(step 3)`;
    /// two moves in each but the second, which has three.
    const STEPS: &str = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
        (init (step 1))
        (<= (legal r wait) (true (step ?m)))
        (<= (legal r (go ?n)) (true (step ?m)) (succ ?m ?n))
        (<= (legal r jump) (true (step ?m)) (succ 1 ?m))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 4)))
        (<= (goal r 100) (true (step 4)))";

    fn samples_of(text: &str) -> (Program, Samples) {
        let program = checked_program(text);
        let dynamic = crate::ground::domains::dynamic_relations(&program);
        let samples = sample(&program, &dynamic, &AtomicBool::new(false));
        (program, samples)
    }

    #[test]
    fn a_sampled_relation_counts_its_rows_per_state_and_key() {
        let (program, samples) = samples_of(STEPS);
        assert_eq!(samples.states, 3, "every state of the three-move match");
        assert_eq!(samples.fluents, [["(step 1)"], ["(step 2)"], ["(step 3)"]]);
        let legal = relation_named(&program, "legal");
        // Two moves, then three, then two: 7 tuples over 3 (state, role)
        // keys.
        let rows = samples.rows(legal, 0b01, 2).expect("legal is sampled");
        assert!((rows - 7.0 / 3.0).abs() < 1e-9, "{rows}");
        // Static relations are not sampled: the planner has their tables.
        assert_eq!(samples.rows(relation_named(&program, "succ"), 0, 2), None);
        // A call's work is measured in the interpreter's steps, and kept.
        let work = samples.call_work(legal, 0b01).expect("a measured call");
        assert!(work >= 3.0, "three rules at least: {work}");
        assert_eq!(samples.call_work(legal, 0b01), Some(work));
    }

    #[test]
    fn packed_projections_count_as_the_slices_do() {
        // Values past 16 bits, so that a packing that lost bits would merge
        // projections; a column past a short tuple's end takes the slices.
        let mut rng = Rng::new(7);
        let tuples: Vec<Vec<u32>> = (0..500)
            .map(|_| {
                (0..5)
                    .map(|_| (rng.below(4) as u32) << 20 | rng.below(3) as u32)
                    .collect()
            })
            .collect();
        for mask in [0b1, 0b11, 0b101, 0b1111, 0b11111, 0b10110] {
            let columns: Vec<usize> = (0..5).filter(|i| mask >> i & 1 == 1).collect();
            assert_eq!(
                distinct(&tuples, mask),
                distinct_by_slices(&tuples, &columns),
                "{mask:b}"
            );
        }
        assert_eq!(distinct(&[], 0b11), 1);
        let ragged = vec![vec![1, 2], vec![1]];
        assert_eq!(distinct(&ragged, 0b11), 2);
    }

    #[test]
    fn a_game_the_interpreter_cannot_play_within_budget_is_not_sampled() {
        // 10^7 legal moves in the first state, past the probes' answers.
        let digits: String = (0..10).map(|i| format!("(d {i}) ")).collect();
        let text = format!(
            "(role r) {digits} (init s)
            (<= (legal r (m ?a ?b ?c ?e ?f ?g ?h))
                (d ?a) (d ?b) (d ?c) (d ?e) (d ?f) (d ?g) (d ?h))
            (<= (next s) (true s))
            (<= terminal (not (true s)))
            (<= (goal r 100) (true s))"
        );
        let (program, samples) = samples_of(&text);
        assert_eq!(samples.states, 0);
        assert_eq!(samples.rows(relation_named(&program, "legal"), 1, 2), None);
    }

    #[test]
    fn a_relation_past_the_probes_limit_is_priced_at_it_listed_whole() {
        // `big` has 10^7 tuples in every state: not sampled, and a call
        // listing it whole costs at least what its probe was allowed.
        let digits: String = (0..10).map(|i| format!("(d {i}) ")).collect();
        let text = format!(
            "(role r) {digits} (init s)
            (<= (big ?a ?b ?c ?e ?f ?g ?h)
                (true s) (d ?a) (d ?b) (d ?c) (d ?e) (d ?f) (d ?g) (d ?h))
            (<= (legal r wait) (true s))
            (<= (next s) (true s))
            (<= terminal (not (true s)))
            (<= (goal r 100) (true s))"
        );
        let (program, samples) = samples_of(&text);
        assert!(samples.states > 0);
        let big = relation_named(&program, "big");
        assert!(samples.gave_up[big as usize]);
        assert_eq!(samples.rows(big, 0, 7), None);
        assert_eq!(samples.call_work(big, 0), Some(PROBE_WORK as f64));
        assert_eq!(samples.call_work(big, 1), None, "no tuple to name a key");
    }

    #[test]
    fn a_probe_that_gives_up_leaves_the_interpreter_usable() {
        let program = checked_program(STEPS);
        let interp = Interpreter::new(&program).expect("an interpreter");
        let state = interp.initial_state();
        let legal = PredId(relation_named(&program, "legal"));
        let probe = interp.probe((&state, &[]), legal, &[], (PROBE_BUDGET, 1));
        assert_eq!(probe.answers, None, "one step is not enough");
        let probe = interp.probe((&state, &[]), legal, &[], (PROBE_BUDGET, 1 << 10));
        assert_eq!(probe.answers.map(|a| a.len()), Some(2));
        let mut moves = Vec::new();
        interp.legal_moves(&state, 0, &mut moves);
        assert_eq!(moves.len(), 2);
        assert!(interp.budget_error().is_none());
    }
}
