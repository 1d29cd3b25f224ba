//! Incremental evaluation: a state is evaluated from a nearby state's
//! evaluation, recomputing only the groups of atoms whose inputs changed.
//!
//! Each thread keeps the evaluations of the last two states it evaluated. A
//! new state starts from the nearer of the two (fewer fluents differ): in a
//! random playout of a turn-taking game that is the state two plies back,
//! where the same side moves, so the side to move's atoms stay valid; in a
//! tree search that returns to a parent, the parent or a sibling. The
//! `eval` functions take the value vector and the changed bits `d` (the
//! state words that differ, as XOR). Each group of the schedule (atoms of one
//! level under one demand, [`Group`]) is a segment: it runs only if a bit it
//! reads changed; it clears its atoms' bits, computes them again, and marks
//! the bits that changed for the segments after it. A full evaluation is the
//! same code with every bit marked changed.
//!
//! Correctness does not depend on which state the evaluation starts from:
//! any two states give the same values, since every atom is recomputed
//! when any bit it reads, transitively, differs.

use std::collections::HashSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use gdl_runtime::{Game, Rng};

use super::queries::{hex_lit, lit_usize};
use crate::bitnet::churn::{self, Estimate};
use crate::bitnet::schedule::{Block, Group};
use crate::bitnet::Bitnet;
use crate::ground::GroundProgram;
use crate::reasoner::propnet::Propnet;

/// The weight of a segment's own code, in tests: its change test and the
/// save, clear and compare of the words it writes.
pub(super) const SEGMENT_WEIGHT: usize = 4;

/// `stmts`, the code of `group`, as an incremental segment.
pub(super) fn segment(group: &Group, stmts: Vec<TokenStream>) -> TokenStream {
    let reads = group.reads();
    let (ws, ms): (Vec<Literal>, Vec<Literal>) = group
        .writes()
        .into_iter()
        .map(|(w, m)| (lit_usize(w as usize), hex_lit(m)))
        .unzip();
    let olds: Vec<Literal> = (0..ws.len()).map(lit_usize).collect();
    let body = quote! {
        let old = [#(v[#ws]),*];
        #(v[#ws] &= !#ms;)*
        #(#stmts)*
        #(d[#ws] |= (v[#ws] ^ old[#olds]) & #ms;)*
    };
    if reads.is_empty() {
        // Constant atoms: computed on every evaluation (cheap, and the first
        // evaluation needs them).
        return quote!({ #body });
    }
    let tests = reads.into_iter().map(|(w, m)| {
        let w = lit_usize(w as usize);
        if m == !0 {
            quote!(d[#w])
        } else {
            let m = hex_lit(m);
            quote!(d[#w] & #m)
        }
    });
    quote! {
        if (#(#tests)|*) != 0 {
            #body
        }
    }
}

/// Whether the evaluation of `sample`'s game is printed incremental
/// (`choice`: forced either way, or `None`): the estimate, on the states of
/// a few seeded random matches played by the propnet ([`Sample`]), if it
/// [pays](Estimate::pays) or is forced (an estimate of no states where
/// none is made). The sample is bounded in literals evaluated
/// ([`SAMPLE_BUDGET`]), not in time, so that the choice, and the code, is
/// the same on every machine.
///
/// The segments are the evaluation's groups (`churn::segments`). Smaller
/// ones, runs of a group's blocks, were measured: on draughts, reversi,
/// connect four and breakthrough each costs more in tests than it saves.
pub(super) fn decide(sample: &Sample, choice: Option<bool>) -> Option<Estimate> {
    if choice == Some(false) {
        return None;
    }
    let forced = (choice == Some(true)).then(Estimate::default);
    let groups = &sample.net.eval.groups;
    if churn::segments(groups).count() < 2 {
        return forced;
    }
    let Some(matches) = sample.matches() else {
        return forced;
    };
    let words = sample.net.layout.total_words();
    let est = churn::estimate(groups, words, SEGMENT_WEIGHT as u64, matches);
    (est.pays() || forced.is_some()).then_some(est)
}

/// The states of a few seeded random matches of a game, played by its
/// propnet once for every choice made on them: whether the evaluation is
/// incremental ([`decide`]) and which atoms are most often true
/// ([`often_true`]). The sample costs a propnet of the program and, per
/// state, a pass over the evaluation's literals: both bounded.
pub(super) struct Sample<'a> {
    gp: &'a GroundProgram,
    net: &'a Bitnet,
    matches: std::cell::OnceCell<Option<Vec<Vec<Vec<u64>>>>>,
}

impl<'a> Sample<'a> {
    /// The sample of `gp` compiled to `net`, played when first asked for.
    pub(super) fn new(gp: &'a GroundProgram, net: &'a Bitnet) -> Self {
        Sample {
            gp,
            net,
            matches: std::cell::OnceCell::new(),
        }
    }

    /// The matches, as state words; `None` when the program is larger than
    /// [`SAMPLE_PROGRAM`] or [`SAMPLE_BUDGET`] allows fewer than 20 states.
    fn matches(&self) -> Option<&[Vec<Vec<u64>>]> {
        self.matches
            .get_or_init(|| {
                let (gp, net) = (self.gp, self.net);
                let program: usize = gp.rules.iter().map(|r| r.body.len()).sum();
                let literals: usize = churn::segments(&net.eval.groups)
                    .map(Group::num_literals)
                    .sum();
                let max_states = (SAMPLE_BUDGET / literals.max(1)).min(SAMPLE_STATES);
                (max_states >= 20 && program <= SAMPLE_PROGRAM)
                    .then(|| sample_matches(gp, net.layout.state_words, max_states))
            })
            .as_deref()
    }
}

/// The evaluation's atoms of at least `2 * MIN_SHORT_CIRCUIT` bodies of
/// several literals that hold in at least half the states of the sample:
/// their tests end at the first group of bodies that holds
/// ([`expr::disj_expr`]). None where no sample is made. Bodies of one
/// literal each are a few word tests whatever their number (gomoku's "a
/// cell is empty", always true: 4 to 7% more instructions a playout when
/// split into groups).
///
/// [`expr::disj_expr`]: super::expr::disj_expr
pub(super) fn often_true(sample: &Sample) -> HashSet<u32> {
    let min = 2 * super::expr::MIN_SHORT_CIRCUIT;
    let groups = &sample.net.eval.groups;
    let units = || groups.iter().flat_map(|g| &g.blocks).flat_map(Block::units);
    let candidates: Vec<u32> = units()
        .flat_map(|u| u.bodies())
        .filter(|(_, conjs)| conjs.iter().filter(|c| c.lits.len() > 1).count() >= min)
        .map(|(pos, _)| pos)
        .collect();
    if candidates.is_empty() {
        return HashSet::new();
    }
    let Some(matches) = sample.matches() else {
        return HashSet::new();
    };
    let words = sample.net.layout.total_words();
    let mut held = vec![0usize; candidates.len()];
    let mut states = 0;
    for state in matches.iter().flatten() {
        let v = churn::evaluate(groups, words, state);
        states += 1;
        for (k, &pos) in candidates.iter().enumerate() {
            held[k] += usize::from(v[(pos >> 6) as usize] >> (pos & 63) & 1 == 1);
        }
    }
    candidates
        .into_iter()
        .zip(held)
        .filter(|&(_, n)| 2 * n >= states && states > 0)
        .map(|(pos, _)| pos)
        .collect()
}

/// Literals the estimate may evaluate in all: a fraction of a second.
const SAMPLE_BUDGET: usize = 4_000_000;

/// Largest ground program, in rule-body literals, whose estimate is made
/// (the propnet playing the sample matches is built from it).
const SAMPLE_PROGRAM: usize = 200_000;

/// States sampled at most.
const SAMPLE_STATES: usize = 400;

/// Plies of one sample match at most.
const SAMPLE_DEPTH: usize = 200;

/// States of seeded random matches of `gp`, as state words, `max_states`
/// in all.
fn sample_matches(gp: &GroundProgram, state_words: usize, max_states: usize) -> Vec<Vec<Vec<u64>>> {
    let propnet = Propnet::new(gp);
    let mut rng = Rng::new(1);
    let mut matches = Vec::new();
    let mut total = 0;
    let mut legal = Vec::new();
    while total < max_states {
        let mut state = propnet.initial_state();
        let mut states = Vec::new();
        'plies: while states.len() < SAMPLE_DEPTH && total < max_states {
            let mut words = state.0.to_vec();
            words.resize(state_words, 0);
            states.push(words);
            total += 1;
            if propnet.is_terminal(&state) {
                break;
            }
            let mut joint = Vec::new();
            for role in 0..propnet.num_roles() {
                propnet.legal_moves(&state, role, &mut legal);
                if legal.is_empty() {
                    // No legal move: the match cannot go on.
                    break 'plies;
                }
                joint.push(legal[rng.below(legal.len())]);
            }
            propnet.apply_unchecked(&mut state, &joint);
        }
        matches.push(states);
    }
    matches
}

/// The evaluation's caches and `with_values`, which runs a closure on the
/// evaluation of a state: incremental if `incremental` holds, from scratch
/// otherwise. `scratch` is the scratch type that holds them (with the
/// goals' cache), `state` the state type, `nw` and `nv` the state's and
/// the value vector's words, `eval_calls` the `eval` functions.
pub(super) fn runtime_items(
    (scratch, state): (&Ident, &Ident),
    nw: &Literal,
    nv: &Literal,
    eval_calls: &[Ident],
    incremental: Option<&Estimate>,
) -> TokenStream {
    let evals = match incremental {
        Some(est) => incremental_items(state, nv, eval_calls, est),
        None => full_items(state, nw, eval_calls),
    };
    let (cache, scratch) = scratch_items(scratch, state, nv);
    quote! {
        #cache
        #evals
        #scratch
    }
}

/// `EvalCache`, the cache of one evaluation, and the scratch: the
/// evaluations (`Evals`) of the states last queried and the goals' own.
fn scratch_items(scratch: &Ident, state: &Ident, nv: &Literal) -> (TokenStream, TokenStream) {
    let cache = quote! {
        /// A state evaluated, with its value vector.
        struct EvalCache {
            state: ::core::option::Option<#state>,
            v: Values,
        }

        /// No state evaluated yet.
        const NO_EVAL: EvalCache = EvalCache { state: None, v: [0; #nv] };
    };
    let scratch = quote! {
        /// The caches of one caller's queries (a thread's, or a driver's
        /// own: see `Scratched`): the evaluations of the states last
        /// queried, and that of the goals.
        pub struct #scratch {
            evals: Evals,
            goal: EvalCache,
        }

        impl #scratch {
            /// Nothing evaluated yet.
            const fn new() -> Self {
                #scratch { evals: NO_EVALS, goal: NO_EVAL }
            }
        }
    };
    (cache, scratch)
}

/// The evaluation from scratch: one cached evaluation, the last.
fn full_items(state: &Ident, nw: &Literal, eval_calls: &[Ident]) -> TokenStream {
    quote! {
        /// The last state evaluated.
        type Evals = EvalCache;

        /// No state evaluated yet.
        const NO_EVALS: Evals = NO_EVAL;

        /// Evaluates `state` into `cache`, in place of what it held.
        #[inline]
        fn evaluate(cache: &mut Evals, state: &#state) {
            let v = &mut cache.v;
            v.fill(0);
            v[..#nw].copy_from_slice(&state.0);
            #(#eval_calls(v);)*
            cache.state = Some(*state);
        }

        /// Runs `f` on the evaluation of `state` (legal moves, terminal),
        /// computing it unless it is the last one of `cache`.
        #[inline]
        fn with_values<R>(cache: &mut Evals, state: &#state, f: impl FnOnce(&Values) -> R) -> R {
            if cache.state.as_ref() != Some(state) {
                evaluate(cache, state);
            }
            f(&cache.v)
        }
    }
}

/// The incremental evaluation: two cached evaluations, the new one computed
/// from the nearer.
fn incremental_items(
    state: &Ident,
    nv: &Literal,
    eval_calls: &[Ident],
    est: &Estimate,
) -> TokenStream {
    let mut doc = " Evaluates `state` in place of the nearer of the two cached evaluations, \
                   which becomes the latest."
        .to_owned();
    if est.states > 0 {
        doc += &format!(
            " On {} sample states, an estimated {}% of the word operations of \
             evaluating each in full.",
            est.states,
            est.incremental * 100 / est.full.max(1)
        );
    }
    quote! {
        /// The last two evaluations; `last` is the index of the latest.
        struct Evals {
            caches: [EvalCache; 2],
            last: usize,
        }

        /// No state evaluated yet.
        const NO_EVALS: Evals = Evals { caches: [NO_EVAL, NO_EVAL], last: 0 };

        /// The number of fluents that differ between `state` and the state
        /// of `cache` (none evaluated: more than any).
        #[inline]
        fn distance(cache: &EvalCache, state: &#state) -> u32 {
            cache.state.as_ref().map_or(u32::MAX, |s| {
                s.0.iter().zip(&state.0).map(|(a, b)| (a ^ b).count_ones()).sum()
            })
        }

        #[doc = #doc]
        #[inline(never)]
        fn evaluate(evals: &mut Evals, state: &#state) {
            // The older on a tie: in turn-taking games it has the same side
            // to move.
            let (last, older) = (evals.last, 1 - evals.last);
            let k = if distance(&evals.caches[older], state) <= distance(&evals.caches[last], state) {
                older
            } else {
                last
            };
            evals.last = k;
            let cache = &mut evals.caches[k];
            let v = &mut cache.v;
            let mut d: Values = [0; #nv];
            if cache.state.is_none() {
                // Nothing to start from (the values are all false): every
                // bit counts as changed.
                d.fill(!0);
            }
            for ((x, dx), &s) in v.iter_mut().zip(d.iter_mut()).zip(&state.0) {
                *dx |= *x ^ s;
                *x = s;
            }
            #(#eval_calls(v, &mut d);)*
            cache.state = Some(*state);
        }

        /// Runs `f` on the evaluation of `state` (legal moves, terminal),
        /// computing it unless it is one of the last two of `evals`.
        #[inline]
        fn with_values<R>(evals: &mut Evals, state: &#state, f: impl FnOnce(&Values) -> R) -> R {
            let last = evals.last;
            if evals.caches[last].state.as_ref() != Some(state) {
                if evals.caches[1 - last].state.as_ref() == Some(state) {
                    evals.last = 1 - last;
                } else {
                    evaluate(evals, state);
                }
            }
            f(&evals.caches[evals.last].v)
        }
    }
}
