//! Where each fluent's bit lives in the lifted back end's state.
//!
//! A fluent keeps its logical id (its rank in text order, as in every back
//! end: the text methods read and print fluents by it), but its bit in the
//! state may be elsewhere. Scans of `true(p)` with an argument of `p` bound
//! read the fluents with that value there through a mask per value (see
//! [`super::Estimates::scan_positions`]); in text order those fluents are
//! spread over the whole state (chess.kif's `(cell ?x ?y wb)` over 13 of
//! its 17 words), so a scan walks every word. Here the fluents of each
//! functor are ordered first by the arguments of one of its masks, so that
//! the fluents of one value (or combination) lie side by side and a scan
//! reads a word or two.

use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

use super::facts::Facts;

/// The state's bit of each fluent.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// The term of the fluent at each bit.
    pub terms: Vec<u32>,
    /// The bit of each fluent, by logical id.
    pub bit_of: Vec<u32>,
}

impl Layout {
    /// The layout of `facts`' fluents, given the masks by values that
    /// scans read, by (functor id, arguments), the distinct values of
    /// each argument among the fluents, which masks fit their budget
    /// only where they lead (see [`super::relations::Relations::mask_words`]),
    /// and the functors whose fluents a `next` rule moves to others'
    /// (`aligned`, see [`super::shift::moved_functors`]).
    pub fn new(
        facts: &Facts,
        value_masks: &BTreeSet<(u32, Vec<usize>)>,
        values_at: impl Fn(u32, usize) -> usize,
        must_lead: impl Fn(u32, &[usize]) -> bool,
        aligned: &BTreeSet<u32>,
    ) -> Layout {
        let u = &facts.universe;
        // Per functor, the mask of the most combinations of values (the
        // most selective; the first of equals) leads: its arguments, in its
        // order, sort the fluents. The scans reading it find their fluents
        // side by side, and so do those reading a mask of a prefix of its
        // arguments. A mask that must lead goes before every other.
        let mut major: BTreeMap<u32, (&[usize], (bool, usize))> = BTreeMap::new();
        for (fid, positions) in value_masks {
            let values = positions.iter().map(|&p| values_at(*fid, p)).product();
            let rank = (must_lead(*fid, positions), values);
            let best = major.entry(*fid).or_insert((positions, rank));
            if rank > best.1 {
                *best = (positions, rank);
            }
        }
        // Functors stay in the order of their first fluent in text order.
        let mut functor_rank: BTreeMap<u32, usize> = BTreeMap::new();
        for &t in &facts.fluents {
            let n = functor_rank.len();
            functor_rank.entry(u.functor[t as usize]).or_insert(n);
        }
        // Within a combination of the leading mask's values, the fluents
        // stay in text order, but those of a functor a `next` rule moves
        // follow the rest of their arguments: the fluents of two
        // combinations then lie in the same order, so that a rule taking
        // each fluent of one to its twin in the other moves them all by one
        // offset (see `shift`). Not every functor's: connectFour's cells,
        // in that order, took 11% more instructions a playout (its masks
        // spanning more words).
        let key = |id: usize| {
            let t = facts.fluents[id] as usize;
            let fid = u.functor[t];
            let leading = major.get(&fid).map_or(&[][..], |&(positions, _)| positions);
            let values: Vec<u32> = leading.iter().map(|&p| u.args[t][p]).collect();
            let rest: Vec<u32> = (0..u.args[t].len())
                .filter(|p| aligned.contains(&fid) && !leading.contains(p))
                .map(|p| u.args[t][p])
                .collect();
            (functor_rank[&fid], values, rest, id)
        };
        let mut ids: Vec<usize> = (0..facts.fluents.len()).collect();
        ids.sort_by_key(|&id| key(id));
        let mut bit_of = vec![0; ids.len()];
        for (bit, &id) in ids.iter().enumerate() {
            bit_of[id] = bit as u32;
        }
        Layout {
            terms: ids.iter().map(|&id| facts.fluents[id]).collect(),
            bit_of,
        }
    }

    /// The bit of each fluent, by its term.
    pub fn bit_of_term(&self) -> FxHashMap<u32, u32> {
        (self.terms.iter().enumerate())
            .map(|(b, &t)| (t, b as u32))
            .collect()
    }

    /// Whether every fluent's bit is its logical id.
    pub fn is_identity(&self) -> bool {
        self.bit_of
            .iter()
            .enumerate()
            .all(|(i, &b)| b as usize == i)
    }
}
