//! Where each atom of a ground program lives in the value vector.
//!
//! Generated code and the propnet keep one `[u64; NV]` per query: first the
//! state's fluent words (so a state is copied in with one `copy_from_slice`),
//! then the words of the joint move's `does` atoms, then the derived atoms,
//! then the bits of the sets of moves that rule bodies test. An atom is a bit
//! position in that vector.

use std::collections::BTreeMap;

use super::counters;
use super::families::{word_shape, Shape, MIN_MEMBERS};
use super::mirrors::{mirror_words, Mirrors};
use super::{classes, planes};
use crate::ground::{AtomId, GroundProgram, Output};

/// Bit position standing for a constant false output.
pub const FALSE_BIT: u32 = u32::MAX;
/// Bit position standing for a constant true output.
pub const TRUE_BIT: u32 = u32::MAX - 1;

/// The value-vector layout of a ground program.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Number of fluents.
    pub fluents: u32,
    /// Number of input atoms (fluents and moves).
    pub inputs: u32,
    /// Words of the state.
    pub state_words: usize,
    /// Words of the `does` atoms.
    pub does_words: usize,
    /// Words of the derived atoms.
    pub derived_words: usize,
    /// Words of the move-set bits after the derived atoms: bit `k` holds
    /// when the joint move has a move in the `k`th set that rule bodies test
    /// (set from per-move tables, see [`super::move_sets`]).
    pub move_set_words: usize,
    /// Per role, the bit position of its first move and its number of moves.
    pub role_moves: Vec<(u32, u32)>,
    /// Position of each derived atom, relative to the derived words.
    derived_pos: Vec<u32>,
    /// Word-aligned regions of the derived words holding query outputs in
    /// output order: one per role for its legal moves (bit `m` is move `m`),
    /// then one for `next` (bit `f` is fluent `f`). Reading a query's
    /// outputs is then a copy of words, not a gather of bits.
    pub regions: Vec<u32>,
    /// The classes laid out as planes ([`super::planes`]): derived atom ids.
    pub planes: Vec<Vec<u32>>,
    /// Per role, per move, the bit of its move plane (relative to the
    /// derived words; [`FALSE_BIT`]: none): a copy of the move's `does`
    /// bit at its anchor, set with it, so that planes read moves as they
    /// read the board.
    move_plane: Vec<Vec<u32>>,
    /// The relations laid out at their readers' bits ([`mirrors`]).
    pub mirrors: Mirrors,
}

/// Which classes a layout lays out as planes.
#[derive(Clone, Copy, Debug)]
pub struct PlaneChoice<'a> {
    /// The classes and anchors of the program ([`classes::classes`]).
    pub found: &'a classes::Classes,
    /// The classes to lay out, by first atom (`None`: every class).
    pub classes: Option<&'a [u32]>,
    /// Whether the anchored moves get move planes.
    pub moves: bool,
    /// The groups of the program's counters ([`counters::find`]), laid out
    /// along their count whatever `classes` says: a group is regular only
    /// when the group it reads lies along its count too.
    pub counters: &'a [counters::Group],
    /// Whether a class wider than a plane is laid out in parts that fit
    /// ([`classes::by_one_arg`]).
    pub split_wide: bool,
    /// Whether relations read atom for atom by another are laid out at
    /// their reader's bits ([`mirrors`](super::mirrors)).
    pub mirrors: bool,
}

/// Per role with anchored moves, `state_words` words from `next_free`
/// holding each move at its anchor. Returns the bits and the next free
/// position.
fn move_planes(
    anchors: &[Vec<Option<u32>>],
    state_words: u32,
    next_free: u32,
) -> (Vec<Vec<u32>>, u32) {
    let mut base = next_free.div_ceil(64) * 64;
    let mut bits = Vec::new();
    let mut used = false;
    for role in anchors {
        if role.iter().all(Option::is_none) {
            bits.push(vec![FALSE_BIT; role.len()]);
            continue;
        }
        used = true;
        bits.push(
            role.iter()
                .map(|a| a.map_or(FALSE_BIT, |x| base + x))
                .collect(),
        );
        base += state_words * 64;
    }
    (bits, if used { base } else { next_free })
}

fn words(bits: u32) -> usize {
    (bits as usize).div_ceil(64)
}

/// The family of a derived atom as its ground rules make it (see
/// [`super::families`]): one rule whose literals are fluents of one state
/// word; the key is the word and the literals' offsets from the lowest, and
/// the lowest bit read is returned with it.
fn family_key(gp: &GroundProgram, a: u32) -> Option<((u32, Shape), u32)> {
    let [rule] = gp.rules_of(AtomId(a)) else {
        return None;
    };
    let fluents = gp.fluents.len() as u32;
    // Fluent `f` is bit `f` of the state words.
    let lits: Vec<(u32, bool)> = rule
        .body
        .iter()
        .map(|l| (l.atom().0, l.is_negated()))
        .collect();
    if lits.iter().any(|l| l.0 >= fluents) {
        return None;
    }
    let (low, shape) = word_shape(&lits)?;
    Some(((low >> 6, shape), low))
}

/// Places the derived atoms not placed yet that form families (atoms of one
/// shape over one state word) at the bit of the lowest fluent they read, in
/// words of their own from `next_free`, so that a family is computed by one
/// masked word operation. Families share a word where their bits do not
/// collide. Returns the next free position.
fn family_words(gp: &GroundProgram, derived_pos: &mut [u32], next_free: u32) -> u32 {
    let ni = gp.num_inputs;
    let mut groups: BTreeMap<(u32, Shape), Vec<(usize, u32)>> = BTreeMap::new();
    for (i, _) in derived_pos
        .iter()
        .enumerate()
        .filter(|(_, p)| **p == u32::MAX)
    {
        if let Some((key, low)) = family_key(gp, ni + i as u32) {
            groups.entry(key).or_default().push((i, low & 63));
        }
    }
    let base = next_free.div_ceil(64) * 64;
    // Per family word, the bits taken.
    let mut taken: Vec<u64> = Vec::new();
    for members in groups.into_values() {
        let mask = members.iter().fold(0u64, |m, &(_, b)| m | 1 << b);
        if members.len() < MIN_MEMBERS || mask.count_ones() as usize != members.len() {
            continue;
        }
        let w = match taken.iter().position(|t| t & mask == 0) {
            Some(w) => w,
            None => {
                taken.push(0);
                taken.len() - 1
            }
        };
        taken[w] |= mask;
        for (i, b) in members {
            derived_pos[i] = base + w as u32 * 64 + b;
        }
    }
    if taken.is_empty() {
        next_free
    } else {
        base + taken.len() as u32 * 64
    }
}

/// Moves the atoms of [`planes::text_anchored`] laid out in turn
/// (`in_turn`, per derived atom) to the bits of the fluents of the same
/// squares, in words of their own from `next_free` (shared where their
/// bits do not collide), so that the printer reads them with the board by
/// shifts. Their old bits stay holes: every other atom keeps its place,
/// and with it the families the printer finds among them (laid out before
/// the others instead, they shifted the atoms after them and cost a game
/// 1.9% more instructions in its goals). Returns the next free position.
fn square_words(
    gp: &GroundProgram,
    derived_pos: &mut [u32],
    next_free: u32,
    in_turn: &[bool],
) -> u32 {
    let ni = gp.num_inputs;
    let base = next_free.div_ceil(64) * 64;
    // Per word made: its first state word and the bits taken.
    let mut made: Vec<(u32, u64)> = Vec::new();
    for group in planes::text_anchored(gp) {
        let free: Vec<(u32, u32)> = group
            .into_iter()
            .filter(|&(a, _)| in_turn[(a - ni) as usize])
            .collect();
        let bits: Vec<u32> = free.iter().map(|m| m.1).collect();
        if free.len() < planes::MIN_PLANE_MEMBERS || planes::plane_span(&bits).is_none() {
            continue;
        }
        let lo = bits.iter().min().map_or(0, |b| b >> 6);
        let hi = bits.iter().max().map_or(0, |b| b >> 6);
        let masks: Vec<u64> = (lo..=hi)
            .map(|w| {
                bits.iter()
                    .filter(|&&b| b >> 6 == w)
                    .fold(0, |m, b| m | 1 << (b & 63))
            })
            .collect();
        let fits = |at: usize| {
            masks.iter().enumerate().all(|(k, m)| {
                made.get(at + k)
                    .is_none_or(|&(w, taken)| w == lo + k as u32 && taken & m == 0)
            })
        };
        let at = (0..=made.len()).find(|&at| fits(at)).unwrap_or(made.len());
        for (k, m) in masks.iter().enumerate() {
            match made.get_mut(at + k) {
                Some(word) => word.1 |= m,
                None => made.push((lo + k as u32, *m)),
            }
        }
        for (a, b) in free {
            let word = at as u32 + (b >> 6) - lo;
            derived_pos[(a - ni) as usize] = base + word * 64 + (b & 63);
        }
    }
    if made.is_empty() {
        next_free
    } else {
        base + made.len() as u32 * 64
    }
}

/// Places the classes of [`classes::classes`] not placed yet at their
/// anchors, in words of their own from `next_free`: a class of anchors in
/// state words `lo..=hi` takes `hi - lo + 1` words, shared with other
/// classes of the same words where their bits do not collide. A class
/// wider than a plane is laid out in parts that fit
/// ([`classes::by_one_arg`]): split earlier, a `next` class that sits in
/// place, mirroring the state however wide, would be broken up (majorities
/// took 3.5 times the instructions a playout). Returns the classes placed
/// and the next free position.
fn plane_layout(
    gp: &GroundProgram,
    derived_pos: &mut [u32],
    next_free: u32,
    choice: &PlaneChoice,
) -> (Vec<Vec<u32>>, u32) {
    let ni = gp.num_inputs;
    let (found, only) = (choice.found, choice.classes);
    let base = next_free.div_ceil(64) * 64;
    // Planes made so far: first state word, words, and bits taken per word.
    let mut made: Vec<(u32, u32, Vec<u64>, u32)> = Vec::new();
    let mut words_used = 0u32;
    let mut placed = Vec::new();
    // A class is chosen by its first atom, a part of one by the part's.
    let chosen = |c: &[u32]| only.is_none_or(|o| o.contains(&c[0]));
    for class in &found.classes {
        if class
            .iter()
            .any(|&a| derived_pos[(a - ni) as usize] != u32::MAX)
        {
            if chosen(class) && in_place(class, found, derived_pos, ni) {
                placed.push(class.clone());
            }
            continue;
        }
        let anchor = |a: u32| found.anchor[(a - ni) as usize].unwrap_or(u32::MAX);
        let anchors: Vec<u32> = class.iter().map(|&a| anchor(a)).collect();
        let parts = if planes::plane_span(&anchors).is_some() || !choice.split_wide {
            vec![class.clone()]
        } else {
            classes::by_one_arg(gp, class, &anchor)
        };
        for part in parts.into_iter().filter(|p| chosen(p)) {
            let anchors: Vec<u32> = part.iter().map(|&a| anchor(a)).collect();
            let Some((lo, n)) = planes::plane_span(&anchors) else {
                continue;
            };
            let mut masks = vec![0u64; n as usize];
            for &x in &anchors {
                masks[((x >> 6) - lo) as usize] |= 1 << (x & 63);
            }
            let fits = |m: &(u32, u32, Vec<u64>, u32)| {
                m.0 == lo && m.1 == n && m.2.iter().zip(&masks).all(|(a, b)| a & b == 0)
            };
            let first = match made.iter_mut().find(|m| fits(m)) {
                Some(m) => {
                    m.2.iter_mut().zip(&masks).for_each(|(a, b)| *a |= b);
                    m.3
                }
                None => {
                    made.push((lo, n, masks, words_used));
                    words_used += n;
                    words_used - n
                }
            };
            for (&a, &x) in part.iter().zip(&anchors) {
                derived_pos[(a - ni) as usize] = base + (first + (x >> 6) - lo) * 64 + (x & 63);
            }
            placed.push(part);
        }
    }
    let free = if words_used == 0 {
        next_free
    } else {
        base + words_used * 64
    };
    (placed, free)
}

/// Places the counter groups of `choice` whose atoms are not placed yet
/// along their count, from `next_free`: each group a run of bits by index
/// (holes where an index has no atom), packed one after the other, a run
/// of up to 64 bits never across two words (a plane word needs
/// [`planes::MIN_WORD_MEMBERS`] members). The groups large enough to be
/// planes and chosen are added to `planes`. Returns the next free
/// position.
fn counter_layout(
    gp: &GroundProgram,
    derived_pos: &mut [u32],
    next_free: u32,
    choice: &PlaneChoice,
    planes: &mut Vec<Vec<u32>>,
) -> u32 {
    let ni = gp.num_inputs;
    let mut at = next_free;
    for group in choice.counters {
        if group
            .iter()
            .any(|&(a, _)| derived_pos[(a - ni) as usize] != u32::MAX)
        {
            continue;
        }
        let first = group[0].1;
        let span = group[group.len() - 1].1 - first + 1;
        if (at % 64) + span.min(64) > 64 {
            at = at.div_ceil(64) * 64;
        }
        for &(a, index) in group {
            derived_pos[(a - ni) as usize] = at + index - first;
        }
        at += span;
        let atoms: Vec<u32> = group.iter().map(|&(a, _)| a).collect();
        let chosen = choice.classes.is_none_or(|c| c.contains(&atoms[0]));
        if chosen && atoms.len() >= planes::MIN_PLANE_MEMBERS {
            planes.push(atoms);
        }
    }
    at
}

/// Whether a class whose atoms are placed already (outputs: `next`'s region
/// mirrors the state) lies as a plane would: every atom a whole number of
/// words from its anchor, the same for all.
fn in_place(class: &[u32], found: &classes::Classes, derived_pos: &[u32], ni: u32) -> bool {
    let offset = |a: u32| {
        let pos = derived_pos[(a - ni) as usize];
        let anchor = found.anchor[(a - ni) as usize]?;
        let d = i64::from(pos) - i64::from(anchor);
        (pos != u32::MAX && d.rem_euclid(64) == 0).then_some(d)
    };
    let first = offset(class[0]);
    first.is_some() && class.iter().all(|&a| offset(a) == first)
}

impl Layout {
    /// The layout of `gp`, every class laid out as a plane (no mirror).
    pub fn new(gp: &GroundProgram) -> Self {
        let found = classes::classes(gp);
        let counters = counters::find(gp);
        let choice = PlaneChoice {
            found: &found,
            classes: None,
            moves: true,
            counters: &counters,
            split_wide: true,
            mirrors: false,
        };
        Self::with_planes(gp, Some(choice))
    }

    /// The layout of `gp` with the planes and mirrors of `choice` (`None`:
    /// none: the propnet's layout).
    pub fn with_planes(gp: &GroundProgram, choice: Option<PlaneChoice>) -> Self {
        let fluents = gp.fluents.len() as u32;
        let ni = gp.num_inputs;
        // Output regions first, each word-aligned; an atom serving as several
        // outputs sits in the first region that claims it.
        let mut derived_pos = vec![u32::MAX; gp.num_derived() as usize];
        let mut regions = Vec::new();
        let mut next_free = 0u32;
        let outputs: Vec<&[Output]> = gp
            .legal
            .iter()
            .map(Vec::as_slice)
            .chain([gp.next.as_slice()])
            .collect();
        for outs in outputs {
            regions.push(next_free);
            for (i, o) in outs.iter().enumerate() {
                if let Output::Atom(a) = o {
                    if a.0 >= ni && derived_pos[(a.0 - ni) as usize] == u32::MAX {
                        derived_pos[(a.0 - ni) as usize] = next_free + i as u32;
                    }
                }
            }
            next_free += (outs.len() as u32).div_ceil(64) * 64;
        }
        let state_words = words(fluents).max(1) as u32;
        let mirrored = choice.as_ref().is_some_and(|c| c.mirrors);
        let (planes, move_plane, free) = match choice {
            Some(choice) => {
                let (mut placed, free) = plane_layout(gp, &mut derived_pos, next_free, &choice);
                let (bits, free) = if choice.moves && !placed.is_empty() {
                    move_planes(&choice.found.move_anchor, state_words, free)
                } else {
                    (Vec::new(), free)
                };
                let free = counter_layout(gp, &mut derived_pos, free, &choice, &mut placed);
                (placed, bits, free)
            }
            None => (Vec::new(), Vec::new(), next_free),
        };
        next_free = family_words(gp, &mut derived_pos, free);
        let in_turn: Vec<bool> = derived_pos.iter().map(|&p| p == u32::MAX).collect();
        for p in derived_pos.iter_mut().filter(|p| **p == u32::MAX) {
            *p = next_free;
            next_free += 1;
        }
        next_free = square_words(gp, &mut derived_pos, next_free, &in_turn);
        let mut mirrors = Mirrors::default();
        if mirrored {
            (mirrors, next_free) = mirror_words(gp, &mut derived_pos, next_free, &in_turn);
        }
        let mut layout = Layout {
            fluents,
            inputs: ni,
            state_words: words(fluents).max(1),
            does_words: words(ni - fluents).max(1),
            derived_words: words(next_free).max(1),
            move_set_words: 0,
            role_moves: Vec::new(),
            derived_pos,
            regions: Vec::new(),
            planes,
            move_plane,
            mirrors,
        };
        let base = (layout.state_words + layout.does_words) as u32 * 64;
        layout.regions = regions.iter().map(|r| base + r).collect();
        layout.role_moves = (0..gp.roles.len())
            .map(|r| (layout.pos(gp.does_atom(r, 0)), gp.moves[r].len() as u32))
            .collect();
        layout
    }

    /// Total words of the value vector.
    pub fn total_words(&self) -> usize {
        self.state_words + self.does_words + self.derived_words + self.move_set_words
    }

    /// The bit position of the first move-set bit.
    pub fn move_set_base(&self) -> u32 {
        (self.state_words + self.does_words + self.derived_words) as u32 * 64
    }

    /// The bit position of an atom.
    pub fn pos(&self, atom: AtomId) -> u32 {
        let a = atom.0;
        if a < self.fluents {
            a
        } else if a < self.inputs {
            self.state_words as u32 * 64 + (a - self.fluents)
        } else {
            (self.state_words + self.does_words) as u32 * 64
                + self.derived_pos[(a - self.inputs) as usize]
        }
    }

    /// The bit of move `mv` of `role` in its move plane, if it has one.
    pub fn move_plane_bit(&self, role: usize, mv: u32) -> Option<u32> {
        let rel = *self.move_plane.get(role)?.get(mv as usize)?;
        (rel != FALSE_BIT).then(|| (self.state_words + self.does_words) as u32 * 64 + rel)
    }

    /// The bit positions of the `does` atoms.
    pub fn does_bits(&self) -> std::ops::Range<u32> {
        self.state_words as u32 * 64..(self.state_words + self.does_words) as u32 * 64
    }

    /// Whether some move has a move plane.
    pub fn has_move_planes(&self) -> bool {
        self.move_plane.iter().flatten().any(|&b| b != FALSE_BIT)
    }

    /// The bit position of an output, with the constants' reserved positions.
    pub fn output_pos(&self, out: Output) -> u32 {
        match out {
            Output::False => FALSE_BIT,
            Output::True => TRUE_BIT,
            Output::Atom(a) => self.pos(a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::relayout::relaid;
    use crate::bitnet::testing::{atom, ground};

    #[test]
    fn atoms_set_by_the_move_alone_lie_at_the_fluents_of_their_squares() {
        let gp = relaid(&ground(include_str!("../../tests/fixtures/touched.kif")))
            .expect("the strip is relaid");
        let layout = Layout::new(&gp);
        let fluent = |text: &str| gp.fluents.iter().position(|t| t == text).expect("fluent");
        // `(touched k)` is set by the moves to square k alone; laid out at
        // `(seen k)`'s bit of another word, the frame rule of `seen` reads
        // both with one word operation.
        let from_seen: Vec<i64> = (2..=20)
            .map(|k| {
                let touched = layout.pos(AtomId(atom(&gp, &format!("(touched {k})"))));
                i64::from(touched) - fluent(&format!("(seen {k})")) as i64
            })
            .collect();
        assert!(
            from_seen.iter().all(|&d| d == from_seen[0]),
            "{from_seen:?}"
        );
        assert_eq!(from_seen[0] % 64, 0, "{from_seen:?}");
    }
}
