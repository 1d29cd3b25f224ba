//! How much of a query an incremental evaluation recomputes, estimated on
//! sample states: whether evaluating a state from a nearby state's values
//! pays for its own tests.
//!
//! An incremental evaluation (the compiled back end's, `incremental.rs`
//! there) runs a schedule split into segments (its groups): a segment
//! runs again only if a bit it reads differs from the state it starts from,
//! a state bit or an atom an earlier segment changed. Where every state
//! differs from the last in bits that nearly every segment reads (a board
//! read word-parallel, as in breakthrough or connect four), the tests are
//! pure cost; where segments read few bits each and most atoms keep their
//! values (moves of pieces far from the last move), it pays. The difference
//! is in the game, not in the rules' shape, so it is measured: states of a
//! few random matches, each evaluated in full here, and for each the
//! segments the incremental evaluation would run.

use super::conj::{self, disj_cost, BitLit};
use super::planes;
use super::schedule::{Block, Demand, Group, Unit};

/// The estimated cost of evaluating the sample states, in word operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    /// Every state evaluated in full.
    pub full: u64,
    /// Every state evaluated from the nearer of the two states before it.
    pub incremental: u64,
    /// States evaluated.
    pub states: u32,
}

impl Estimate {
    /// Whether the incremental evaluation is clearly cheaper: by 15% at
    /// least, since the model leaves out its costs outside the segments
    /// (the second cached evaluation, cache misses on a larger vector).
    pub fn pays(&self) -> bool {
        self.incremental * 100 < self.full * 85
    }
}

/// The costs of evaluating `matches` (each a sequence of states, as state
/// words) with the groups of a schedule, over a value vector of `words`
/// words, a segment costing `overhead` besides its atoms and tests.
pub fn estimate(
    groups: &[Group],
    words: usize,
    overhead: u64,
    matches: &[Vec<Vec<u64>>],
) -> Estimate {
    let mut est = Estimate::default();
    let segments: Vec<&Group> = segments(groups).collect();
    let reads: Vec<Vec<(u32, u64)>> = segments
        .iter()
        .map(|g| g.reads().into_iter().collect())
        .collect();
    let writes: Vec<Vec<(u32, u64)>> = segments
        .iter()
        .map(|g| g.writes().into_iter().collect())
        .collect();
    for states in matches {
        let values: Vec<Vec<u64>> = states.iter().map(|s| evaluate(groups, words, s)).collect();
        for t in 0..values.len() {
            // What each segment costs on this state: the blocks that its
            // demand and guards let run.
            let costs: Vec<u64> = segments.iter().map(|g| run_cost(g, &values[t])).collect();
            let full_cost: u64 = costs.iter().sum();
            est.states += 1;
            est.full += full_cost;
            // The runtime keeps the last two evaluations and starts from
            // the nearer, the older on a tie (in turn-taking games the
            // state two plies back has the same side to move).
            let base = (t.saturating_sub(2)..t).min_by_key(|&b| distance(&states[b], &states[t]));
            let Some(base) = base else {
                est.incremental += full_cost;
                continue;
            };
            let (old, new) = (&values[base], &values[t]);
            let mut d = vec![0u64; words];
            for (i, s) in states[t].iter().enumerate() {
                d[i] = s ^ old[i];
            }
            // Setting up: the changed bits cleared, the state copied in.
            est.incremental += (words as u64).div_ceil(4) + 3 * states[t].len() as u64;
            for k in 0..segments.len() {
                est.incremental += reads[k].len() as u64;
                if reads[k].iter().any(|&(w, m)| d[w as usize] & m != 0) || reads[k].is_empty() {
                    est.incremental += costs[k] + overhead;
                    for &(w, m) in &writes[k] {
                        d[w as usize] |= (old[w as usize] ^ new[w as usize]) & m;
                    }
                }
            }
        }
    }
    est
}

/// The groups that are computed: the segments of an incremental
/// evaluation.
pub fn segments(groups: &[Group]) -> impl Iterator<Item = &Group> {
    groups.iter().filter(|g| g.demand != Demand::Never)
}

/// Fluents that differ between two states.
fn distance(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// The cost of running a segment on values `v`, in word operations: its
/// demand test, then the blocks whose guards hold.
fn run_cost(g: &Group, v: &[u64]) -> u64 {
    if let Demand::When(bits) = &g.demand {
        if !bits.iter().any(|&b| bit(v, b)) {
            return 1;
        }
    }
    fn block_cost(b: &Block, v: &[u64]) -> u64 {
        match b {
            Block::Unit(u) => unit_word_ops(u, v) as u64,
            Block::Guarded { guard, body } if lit(v, *guard) => {
                1 + body.iter().map(|b| block_cost(b, v)).sum::<u64>()
            }
            Block::Guarded { .. } => 1,
        }
    }
    g.blocks.iter().map(|b| block_cost(b, v)).sum()
}

/// The cost of a unit's atoms on values `v`, in word operations: a plane's
/// computed word by word where the back end can ([`planes::plane_words`]),
/// an atom whose screen fails one test ([`conj::screen`]).
fn unit_word_ops(u: &Unit, v: &[u64]) -> usize {
    let words = u
        .plane
        .then(|| planes::plane_words(&u.bodies().collect::<Vec<_>>()))
        .flatten();
    match words {
        Some(words) => words
            .iter()
            .flat_map(|w| &w.shapes)
            .map(planes::ShapeMask::ops)
            .sum(),
        None => u
            .bodies()
            .map(|(_, conjs)| match conj::screen(&conjs) {
                Some((w, m)) if v[w as usize] & m == 0 => 1,
                screen => disj_cost(&conjs) + 1 + usize::from(screen.is_some()),
            })
            .sum(),
    }
}

/// The value vector of `state` after a schedule's `groups`, as the
/// generated code computes it: a group whose demand fails, or that is never
/// needed, leaves its atoms false.
pub fn evaluate(groups: &[Group], words: usize, state: &[u64]) -> Vec<u64> {
    let mut v = vec![0u64; words];
    v[..state.len()].copy_from_slice(state);
    for g in segments(groups) {
        if let Demand::When(bits) = &g.demand {
            if !bits.iter().any(|&b| bit(&v, b)) {
                continue;
            }
        }
        for u in g.blocks.iter().flat_map(Block::units) {
            compute(u, &mut v);
        }
    }
    v
}

/// Computes a unit's atoms from their bodies (a cyclic one to its least
/// fixpoint). Guards need no test: a guard is a literal of every body.
fn compute(u: &Unit, v: &mut [u64]) {
    loop {
        let mut changed = false;
        for (pos, conjs) in &u.atoms {
            let holds = conjs.iter().any(|c| {
                c.lits.iter().all(|&l| lit(v, l))
                    && (c.any.is_empty() || c.any.iter().any(|&b| bit(v, b)))
            });
            if holds && !bit(v, *pos) {
                v[(*pos >> 6) as usize] |= 1 << (pos & 63);
                changed = true;
            }
        }
        if !u.cyclic || !changed {
            return;
        }
    }
}

fn bit(v: &[u64], b: u32) -> bool {
    match b {
        super::layout::FALSE_BIT => false,
        super::layout::TRUE_BIT => true,
        _ => v
            .get((b >> 6) as usize)
            .is_some_and(|w| (w >> (b & 63)) & 1 != 0),
    }
}

fn lit(v: &[u64], (b, negated): BitLit) -> bool {
    bit(v, b) != negated
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::{net, TINY};
    use crate::bitnet::Params;
    use crate::reasoner::propnet::Propnet;
    use gdl_runtime::{Game, Rng};

    /// States of a seeded random match of `gp`, as state words.
    fn states(gp: &crate::ground::GroundProgram, words: usize) -> Vec<Vec<u64>> {
        let pn = Propnet::new(gp);
        let (mut s, mut rng, mut out, mut legal) =
            (pn.initial_state(), Rng::new(7), Vec::new(), Vec::new());
        loop {
            let mut w = s.0.to_vec();
            w.resize(words, 0);
            out.push(w);
            if pn.is_terminal(&s) {
                return out;
            }
            let joint: Vec<_> = (0..pn.num_roles())
                .map(|r| {
                    pn.legal_moves(&s, r, &mut legal);
                    legal[rng.below(legal.len())]
                })
                .collect();
            pn.apply_unchecked(&mut s, &joint);
        }
    }

    /// The estimate's evaluation computes the legal moves and terminal the
    /// propnet does, state by state.
    #[test]
    fn evaluation_agrees_with_the_propnet() {
        let (gp, net) = net(TINY, &Params::COMPILED);
        let pn = Propnet::new(&gp);
        let words = net.layout.total_words();
        let mut legal = Vec::new();
        let mut s = pn.initial_state();
        for state in states(&gp, net.layout.state_words) {
            s.0.copy_from_slice(&state[..s.0.len()]);
            let v = evaluate(&net.eval.groups, words, &state);
            for (r, moves) in gp.legal.iter().enumerate() {
                pn.legal_moves(&s, r, &mut legal);
                let ours: Vec<u32> = (0..moves.len() as u32)
                    .filter(|&m| bit(&v, net.layout.output_pos(moves[m as usize])))
                    .collect();
                assert_eq!(ours, legal.iter().map(|m| m.0).collect::<Vec<_>>());
            }
        }
    }

    /// A state evaluated from itself runs no segment: the incremental
    /// estimate is the setup and the tests alone, below the full one; from
    /// changed states it is more.
    #[test]
    fn unchanged_states_rerun_nothing() {
        let (gp, net) = net(TINY, &Params::COMPILED);
        let words = net.layout.total_words();
        let sw = net.layout.state_words;
        let segs = &net.eval.groups;
        let tests: u64 = segments(segs).map(|g| g.reads().len() as u64).sum();
        let setup = (words as u64).div_ceil(4) + 3 * sw as u64;
        let first = states(&gp, sw).remove(0);
        let same = estimate(segs, words, 4, &[vec![first.clone(); 5]]);
        let full_one = same.full / 5;
        assert_eq!(same.incremental, full_one + 4 * (setup + tests));
        let moving = estimate(segs, words, 4, &[states(&gp, sw)]);
        assert!(moving.incremental > moving.states as u64 * (setup + tests));
    }
}
