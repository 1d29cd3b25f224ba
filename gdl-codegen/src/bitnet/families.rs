//! Rule families: atoms of one shape over different bits, computed
//! word-parallel.
//!
//! An atom whose body is one conjunction of literals in one word of the
//! value vector reads bits `p + o_1, .., p + o_k` (each maybe negated) and
//! sets bit `q`. Atoms with the same offsets and signs, reading the same
//! word, writing the same word, and with the same distance `q - p` are one
//! family: the AND of the source word shifted by each offset, shifted by the
//! distance and masked with their output bits, computes all of them in a few
//! word operations. The frame rules of a board (`next(cell) <= true(cell)`,
//! a copy per cell) are the common case: one masked shift per word instead
//! of a test per cell.

use std::collections::BTreeMap;

use super::conj::{common_literals, BitLit, Conj};
use super::layout::TRUE_BIT;

/// Members a family needs before it is computed word-parallel: with fewer,
/// the tests one by one cost no more.
pub const MIN_MEMBERS: usize = 3;

/// One family: atoms computed by one word operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// The word every member reads.
    pub src_word: u32,
    /// The word every member writes.
    pub dst_word: u32,
    /// Offsets of the literals from the lowest one, and whether negated.
    pub shape: Shape,
    /// Bit (within the word) written minus the lowest bit read.
    pub shift: i32,
    /// The bits (within `dst_word`) of the members.
    pub mask: u64,
    /// The members' bit positions in the value vector.
    pub members: Vec<u32>,
}

/// Literals as offsets from the lowest bit they read, each with whether it
/// is negated, sorted: what the members of a family share.
pub type Shape = Vec<(u32, bool)>;

/// The lowest bit `lits` read and their shape, if they lie within `span`
/// bits of it (64: one word, or two read as one `u128`; [`word_shape`]
/// asks for one word).
pub fn shape_of(lits: &[BitLit], span: u32) -> Option<(u32, Shape)> {
    let low = lits.iter().map(|l| l.0).min()?;
    if lits.iter().any(|l| l.0 - low >= span) {
        return None;
    }
    let mut shape: Shape = lits.iter().map(|&(p, n)| (p - low, n)).collect();
    shape.sort_unstable();
    Some((low, shape))
}

/// Whether `lits` all lie in one word of the value vector.
fn one_word(lits: &[BitLit]) -> bool {
    lits.windows(2).all(|w| w[0].0 >> 6 == w[1].0 >> 6)
}

/// The lowest bit `lits` read and their shape, if they all lie in one word
/// of the value vector.
pub fn word_shape(lits: &[BitLit]) -> Option<(u32, Shape)> {
    if !one_word(lits) {
        return None;
    }
    shape_of(lits, 64)
}

/// What members of one family share: source word, destination word, shape
/// and shift.
type Key = (u32, u32, Shape, i32);

/// The family key of an atom at `pos` with bodies `conjs`; `None` when it
/// is not a candidate.
fn key(pos: u32, conjs: &[Conj]) -> Option<Key> {
    let [c] = conjs else { return None };
    if !c.any.is_empty() {
        return None;
    }
    let (low, shape) = word_shape(&c.lits)?;
    let shift = (pos & 63) as i32 - (low & 63) as i32;
    Some((low >> 6, pos >> 6, shape, shift))
}

/// The families among `atoms` (bit position and bodies, none reading
/// another), and the atoms left to compute one by one, in their order.
pub fn find(atoms: &[(u32, Vec<Conj>)]) -> (Vec<Family>, Vec<usize>) {
    let mut groups: BTreeMap<Key, Vec<(usize, u32)>> = BTreeMap::new();
    for (i, (pos, conjs)) in atoms.iter().enumerate() {
        if let Some(k) = key(*pos, conjs) {
            groups.entry(k).or_default().push((i, *pos));
        }
    }
    let mut in_family = vec![false; atoms.len()];
    let mut families = Vec::new();
    for ((src_word, dst_word, shape, shift), members) in groups {
        if members.len() < MIN_MEMBERS {
            continue;
        }
        let mut mask = 0u64;
        for &(i, p) in &members {
            in_family[i] = true;
            mask |= 1 << (p & 63);
        }
        families.push(Family {
            src_word,
            dst_word,
            shape,
            shift,
            mask,
            members: members.iter().map(|m| m.1).collect(),
        });
    }
    let rest = (0..atoms.len()).filter(|&i| !in_family[i]).collect();
    (families, rest)
}

/// Members a gathered family needs. Fewer instructions are not enough:
/// a table lookup's load costs more time than the few tests it replaces
/// (tic-tac-toe's nine legal moves as one gather ran 20% slower with 3%
/// fewer instructions). Measured on one core, playouts/s against 4 members:
/// draughts +21%, our chess +15%, reversi +3%, breakthrough the same; 10
/// and 24 members were slower than 16 on draughts.
pub const MIN_GATHERED: usize = 16;

/// Members a gathered family needs when each literal is its word shifted
/// by one distance and at least two of them vary: a few operations on
/// registers, no loads. Eight members of peg's "a jump over here" as one
/// family cut 20% of its instructions a playout. The others keep
/// [`MIN_GATHERED`]: at eight members, a family of two-distance slots cost
/// gomoku_swap2_11x11 4.6% more instructions (its members lost the literals
/// they shared one by one), and one of a single varying literal under a
/// fixed one cost amazons_8x8 8.7% more (the factoring of alternatives
/// had tested the fixed literal once for more of them).
pub const MIN_SHIFTED: usize = 8;

/// How a gathered family reads one literal of its members' bodies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The same bit for every member: all of them or none.
    Fixed(BitLit),
    /// Each member's bit at one distance from its own: the word shifted by
    /// `shift` (destination bit minus source bit).
    Shifted {
        /// The word read.
        word: u32,
        /// Destination bit minus source bit.
        shift: i32,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// Members' bits at a few distances from their own (a board's
    /// neighbour in the next row, the same distance but for the squares
    /// that wrap around an edge): the word shifted by each distance and
    /// masked with the members at it, ORed.
    Shifts {
        /// The word read.
        word: u32,
        /// Whether the literal is negated.
        negated: bool,
        /// Per distance (destination bit minus source bit), the members'
        /// bits at it within the destination word, ascending by distance.
        parts: Vec<(i32, u64)>,
    },
    /// Bits in no regular order: moved to the members' bits through a
    /// table ([`gdl_runtime::GatherTable`] in the generated code).
    Gathered {
        /// The word read.
        word: u32,
        /// Whether the literal is negated.
        negated: bool,
        /// (source bit, destination bit) within the words, per member.
        pairs: Vec<(u8, u8)>,
    },
}

impl Slot {
    /// About how many word operations reading the slot costs.
    fn cost(&self) -> usize {
        match self {
            Slot::Fixed(_) => 3,
            Slot::Shifted { .. } => 2,
            Slot::Shifts { parts, .. } => shifts_cost(parts.len()),
            Slot::Gathered { pairs, .. } => gather_cost(pairs),
        }
    }
}

/// Word operations of a slot read as `parts` masked shifts: a shift, a
/// mask (a 64-bit constant, one more instruction to load) and an OR each,
/// and the negation.
fn shifts_cost(parts: usize) -> usize {
    1 + 4 * parts
}

/// Word operations of a gather through a table: a shift, a mask, a load
/// and an OR a byte, and the negation.
fn gather_cost(pairs: &[(u8, u8)]) -> usize {
    2 + 3 * gather_bytes(pairs).1 as usize
}

/// The first byte of the source word a gather reads, and how many.
pub fn gather_bytes(pairs: &[(u8, u8)]) -> (u32, u32) {
    let lo = pairs.iter().map(|p| p.0 / 8).min().unwrap_or(0);
    let hi = pairs.iter().map(|p| p.0 / 8).max().unwrap_or(0);
    (u32::from(lo), u32::from(hi - lo + 1))
}

/// Atoms of one conjunction each, whose literals come from the same words
/// with the same signs but in no single shape: computed together, each
/// literal a word shifted or gathered to the members' bits and ANDed.
/// The frame rules of a board whose moves are not laid out like it are the
/// common case: `next(cell x y p) <= true(cell x y p), not affected(x, y)`,
/// where `affected` is numbered by square in some other order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gathered {
    /// The word every member writes.
    pub dst_word: u32,
    /// The literals, in the same order for every member.
    pub slots: Vec<Slot>,
    /// The members' bits within `dst_word`.
    pub mask: u64,
    /// The members' bit positions in the value vector.
    pub members: Vec<u32>,
}

/// The literals of an atom's single body in a canonical order (by word,
/// sign, bit), if it has one body of literals of the value vector.
fn gather_lits(conjs: &[Conj]) -> Option<Vec<BitLit>> {
    let [c] = conjs else { return None };
    if !c.any.is_empty() || c.lits.is_empty() || c.lits.iter().any(|l| l.0 >= TRUE_BIT) {
        return None;
    }
    let mut lits = c.lits.clone();
    lits.sort_unstable_by_key(|&(b, neg)| (b >> 6, neg, b));
    Some(lits)
}

/// The gathered families among atoms `candidates` of `atoms`, and the
/// candidates left over, in order. A family is kept only where it costs
/// fewer word operations than its members one by one.
pub fn find_gathered(
    atoms: &[(u32, Vec<Conj>)],
    candidates: &[usize],
) -> (Vec<Gathered>, Vec<usize>) {
    gathered_with(atoms, candidates, false, None)
}

/// [`find_gathered`] where an atom of several bodies may give each body to
/// a different family (or keep it): the atom is the OR of its bodies, and
/// the printer ORs into its bit what each family and its own statement
/// compute. A king's step in chess is both a queen's move (the pseudo-legal
/// body most moves share) and the king's own; only the shared body is
/// regular with the other moves of its word.
///
/// An atom's bodies are split only
/// - when each reads its own words and signs: two in one family would share
///   the member's bit;
/// - when no literal is common to all of them: the schedule tests that one
///   once for the atom (a guard), which skips all its bodies at once. Split
///   anyway, Chinese checkers' jumps (six bodies under the piece's square)
///   ran 12.8% more instructions a playout.
///
/// A split body pays only for what the atom's own statement stops testing:
/// its literals no other body has (the printer factors shared ones out) and
/// an OR. Counted as a whole atom's, BIRD_S and BODIE_S, whose bodies share
/// most literals, ran 4-5% more instructions a playout.
///
/// Returns the families and, per candidate (in order: the atom's index),
/// the indices of its bodies left to compute one by one.
pub fn find_gathered_split(
    atoms: &[(u32, Vec<Conj>)],
    candidates: &[usize],
) -> (Vec<Gathered>, Vec<(usize, Vec<usize>)>) {
    let mut pseudo: Vec<(u32, Vec<Conj>)> = Vec::new();
    // Per pseudo atom: its candidate's index in `candidates` and body.
    let mut origin: Vec<(usize, Option<usize>)> = Vec::new();
    // Per split body, the tests a family taking it saves (a whole atom:
    // its own tests, as [`find_gathered`] counts them).
    let mut saved: Vec<Option<usize>> = Vec::new();
    for (k, &i) in candidates.iter().enumerate() {
        let (pos, conjs) = &atoms[i];
        let sigs: Vec<Option<Vec<(u32, bool)>>> = conjs
            .iter()
            .map(|c| {
                gather_lits(std::slice::from_ref(c))
                    .map(|l| l.iter().map(|&(b, n)| (b >> 6, n)).collect())
            })
            .collect();
        let mut distinct: Vec<&Vec<(u32, bool)>> = sigs.iter().flatten().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if conjs.len() > 1 && distinct.len() == conjs.len() && common_literals(conjs).is_empty() {
            for (j, c) in conjs.iter().enumerate() {
                // What the atom's own statement no longer tests: the
                // body's literals no other body has (the printer factors
                // shared ones out), and the OR joining it.
                let own: Vec<BitLit> = (c.lits.iter().copied())
                    .filter(|l| {
                        !conjs
                            .iter()
                            .enumerate()
                            .any(|(o, d)| o != j && d.lits.contains(l))
                    })
                    .collect();
                saved.push(Some(by_words(&own) + 1));
                pseudo.push((*pos, vec![c.clone()]));
                origin.push((k, Some(j)));
            }
        } else {
            saved.push(None);
            pseudo.push((*pos, conjs.clone()));
            origin.push((k, None));
        }
    }
    let all: Vec<usize> = (0..pseudo.len()).collect();
    let (fams, rest) = gathered_with(&pseudo, &all, false, Some(&saved));
    let mut left: Vec<Vec<usize>> = vec![Vec::new(); candidates.len()];
    let mut whole = vec![false; candidates.len()];
    for &r in &rest {
        match origin[r] {
            (k, Some(j)) => left[k].push(j),
            (k, None) => whole[k] = true,
        }
    }
    let left = candidates
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let l = if whole[k] {
                (0..atoms[i].1.len()).collect()
            } else {
                std::mem::take(&mut left[k])
            };
            (i, l)
        })
        .collect();
    (fams, left)
}

/// [`find_gathered`] among alternatives grouped by the words they read: no
/// family reads a table (see `gathered_disjuncts` in the ground back end's
/// `expr.rs`), and one of single shifts needs only [`MIN_SHIFTED`]
/// members. Among the atoms of a schedule the minimum stays
/// [`MIN_GATHERED`]: there the schedule drops the guards of the members it
/// expects (`schedule::unguard_gathered`) before the printer looks, so both
/// would have to agree on the smaller families, and allowing them there
/// was mixed (jointbuttonsandlights25 32% fewer instructions a playout,
/// QuartoSuicide 1.6% more).
pub fn find_gathered_alternatives(
    atoms: &[(u32, Vec<Conj>)],
    candidates: &[usize],
) -> (Vec<Gathered>, Vec<usize>) {
    gathered_with(atoms, candidates, true, None)
}

/// [`find_gathered`], or with `alternatives` [`find_gathered_alternatives`].
fn gathered_with(
    atoms: &[(u32, Vec<Conj>)],
    candidates: &[usize],
    alternatives: bool,
    saved: Option<&[Option<usize>]>,
) -> (Vec<Gathered>, Vec<usize>) {
    let fewest = if alternatives {
        MIN_SHIFTED
    } else {
        MIN_GATHERED
    };
    type Sig = (u32, Vec<(u32, bool)>);
    let mut groups: BTreeMap<Sig, Vec<(usize, Vec<BitLit>)>> = BTreeMap::new();
    for &i in candidates {
        let (pos, conjs) = &atoms[i];
        if let Some(lits) = gather_lits(conjs) {
            let sig = lits.iter().map(|&(b, neg)| (b >> 6, neg)).collect();
            groups.entry((pos >> 6, sig)).or_default().push((i, lits));
        }
    }
    let mut taken = vec![false; atoms.len()];
    let mut out = Vec::new();
    for ((dst_word, sig), members) in groups {
        if members.len() < fewest {
            continue;
        }
        let slots: Vec<Slot> = (0..sig.len())
            .map(|k| slot(sig[k], members.iter().map(|(i, l)| (atoms[*i].0, l[k].0))))
            .collect();
        let shifted = slots
            .iter()
            .all(|s| matches!(s, Slot::Fixed(_) | Slot::Shifted { .. }));
        // One literal that varies is a masked word under the fixed ones,
        // which the factoring of alternatives prints as well or better.
        let varying = slots
            .iter()
            .filter(|s| !matches!(s, Slot::Fixed(_)))
            .count();
        if (!shifted || varying < 2) && members.len() < MIN_GATHERED {
            continue;
        }
        if alternatives && slots.iter().any(|s| matches!(s, Slot::Gathered { .. })) {
            continue;
        }
        let single: usize = members
            .iter()
            .map(|(i, l)| saved.and_then(|s| s[*i]).unwrap_or(by_words(l) + 2))
            .sum();
        let together: usize = 3 + slots.iter().map(Slot::cost).sum::<usize>();
        if together >= single {
            continue;
        }
        members.iter().for_each(|(i, _)| taken[*i] = true);
        out.push(Gathered {
            dst_word,
            slots,
            mask: members
                .iter()
                .fold(0, |m, (i, _)| m | 1 << (atoms[*i].0 & 63)),
            members: members.iter().map(|(i, _)| atoms[*i].0).collect(),
        });
    }
    let rest = candidates.iter().copied().filter(|&i| !taken[i]).collect();
    (out, rest)
}

/// How a family reads the literal of word and sign `(word, negated)` whose
/// bit is `src` in the member at bit `dst`, over `(dst, src)` pairs.
fn slot((word, negated): (u32, bool), pairs: impl Iterator<Item = (u32, u32)>) -> Slot {
    let pairs: Vec<(u32, u32)> = pairs.collect();
    if pairs.iter().all(|p| p.1 == pairs[0].1) {
        return Slot::Fixed((pairs[0].1, negated));
    }
    let shift = |&(d, s): &(u32, u32)| (d & 63) as i32 - (s & 63) as i32;
    if pairs.iter().all(|p| shift(p) == shift(&pairs[0])) {
        return Slot::Shifted {
            word,
            shift: shift(&pairs[0]),
            negated,
        };
    }
    let pairs: Vec<(u8, u8)> = pairs
        .iter()
        .map(|&(d, s)| ((s & 63) as u8, (d & 63) as u8))
        .collect();
    let mut parts: BTreeMap<i32, u64> = BTreeMap::new();
    for &(s, d) in &pairs {
        *parts.entry(i32::from(d) - i32::from(s)).or_default() |= 1 << d;
    }
    // Shifts only where they cost fewer operations: at the same count the
    // masked shifts took 8% more instructions a playout than the table
    // (guess.kif, eight bytes against six to eight distances).
    if shifts_cost(parts.len()) < gather_cost(&pairs) {
        return Slot::Shifts {
            word,
            negated,
            parts: parts.into_iter().collect(),
        };
    }
    Slot::Gathered {
        word,
        negated,
        pairs,
    }
}

/// The number of words that `lits` touch.
fn by_words(lits: &[BitLit]) -> usize {
    let mut w: Vec<u32> = lits.iter().map(|l| l.0 >> 6).collect();
    w.dedup();
    w.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(dst: u32, src: u32) -> (u32, Vec<Conj>) {
        let c = Conj {
            lits: vec![(src, false)],
            any: Vec::new(),
        };
        (dst, vec![c])
    }

    /// Copies of bits 0..4 to bits 130..134 are one family; a copy at
    /// another distance and an atom of two bodies are not.
    #[test]
    fn copies_at_one_distance_are_one_family() {
        let mut atoms: Vec<(u32, Vec<Conj>)> = (0..4).map(|i| copy(130 + i, i)).collect();
        atoms.push(copy(140, 20));
        let two = vec![atoms[0].1[0].clone(), atoms[1].1[0].clone()];
        atoms.push((150, two));
        let (fams, rest) = find(&atoms);
        assert_eq!(fams.len(), 1);
        let f = &fams[0];
        assert_eq!((f.src_word, f.dst_word, f.shift), (0, 2, 2));
        assert_eq!(f.mask, 0b1111 << 2);
        assert_eq!(f.shape, vec![(0, false)]);
        assert_eq!(rest, vec![4, 5]);
    }

    /// "Both bits clear" over pairs of bits is a two-literal shape.
    #[test]
    fn negated_pairs_form_a_shape() {
        let empty = |dst: u32, p: u32| {
            let c = Conj {
                lits: vec![(p, true), (p + 1, true)],
                any: Vec::new(),
            };
            (dst, vec![c])
        };
        let atoms: Vec<_> = (0..5).map(|i| empty(64 + 2 * i, 2 * i)).collect();
        let (fams, rest) = find(&atoms);
        assert_eq!(fams.len(), 1);
        assert_eq!(fams[0].shape, vec![(0, true), (1, true)]);
        assert_eq!(fams[0].shift, 0);
        assert!(rest.is_empty());
    }

    /// Frame rules whose second literal is numbered in another order are
    /// one gathered family: the piece's word shifted, the other gathered;
    /// a literal shared by all is fixed.
    #[test]
    fn frames_over_another_numbering_are_gathered() {
        // Member k: bit 64 + k from bit k (same place in the next word),
        // unless bit 128 + (15 - k) (reversed), and the shared bit 200.
        let frame = |k: u32| {
            let c = Conj {
                lits: vec![(k, false), (128 + 15 - k, true), (200, false)],
                any: Vec::new(),
            };
            (64 + k, vec![c])
        };
        let atoms: Vec<_> = (0..16).map(frame).collect();
        let all: Vec<usize> = (0..16).collect();
        let (fams, rest) = find_gathered(&atoms, &all);
        assert!(rest.is_empty());
        assert_eq!(fams.len(), 1);
        let f = &fams[0];
        assert_eq!((f.dst_word, f.mask), (1, 0xffff));
        assert_eq!(
            f.slots[0],
            Slot::Shifted {
                word: 0,
                shift: 0,
                negated: false
            }
        );
        let Slot::Gathered {
            word: 2,
            negated: true,
            pairs,
        } = &f.slots[1]
        else {
            panic!("{:?}", f.slots[1]);
        };
        assert!(pairs.iter().all(|&(s, d)| s == 15 - d));
        assert_eq!(f.slots[2], Slot::Fixed((200, false)));
        // Too few members to pay.
        let (fams, rest) = find_gathered(&atoms, &all[..3]);
        assert!(fams.is_empty());
        assert_eq!(rest, vec![0, 1, 2]);
    }

    /// Twenty frame-like atoms, five of which have a second body of their
    /// own words (a king's step beside a queen's move): the shared bodies
    /// are one family, and those five keep only their second body. An atom
    /// whose two bodies read the same words is not split.
    #[test]
    fn an_atom_of_two_bodies_gives_the_regular_one_to_the_family() {
        let frame = |k: u32| Conj {
            lits: vec![(k, false), (128 + 19 - k, true)],
            any: Vec::new(),
        };
        let other = |k: u32| Conj {
            lits: vec![(300 + k, false), (400 + k, true)],
            any: Vec::new(),
        };
        let mut atoms: Vec<(u32, Vec<Conj>)> = (0..20)
            .map(|k| {
                let mut bodies = vec![frame(k)];
                if k % 4 == 0 {
                    bodies.push(other(k));
                }
                (64 + k, bodies)
            })
            .collect();
        let all: Vec<usize> = (0..20).collect();
        // Whole atoms only: the five of two bodies stay out, and the
        // fifteen left are too few to pay.
        assert!(find_gathered(&atoms, &all).0.is_empty());
        let (fams, left) = find_gathered_split(&atoms, &all);
        assert_eq!(fams.len(), 1);
        assert_eq!(fams[0].mask, 0xfffff);
        for (i, bodies) in &left {
            let expect: Vec<usize> = if i % 4 == 0 { vec![1] } else { vec![] };
            assert_eq!(bodies, &expect, "atom {i}");
        }
        // Two bodies reading the same words and signs: kept whole.
        atoms[0].1[1] = frame(1);
        let (fams, left) = find_gathered_split(&atoms, &all);
        assert_eq!(fams[0].mask, 0xffffe);
        assert_eq!(left[0], (0, vec![0, 1]));
    }

    /// A literal whose bit is at one of two distances from the member's
    /// (a neighbour one row on, but for the squares that wrap an edge) is
    /// read as two masked shifts, not through a table.
    #[test]
    fn a_literal_at_two_distances_is_two_masked_shifts() {
        // Member k at bit 64 + k reads bit k + 7 of word 2, or bit k - 9
        // for the last four members.
        let member = |k: u32| {
            let src = if k < 12 { 128 + k + 7 } else { 128 + k - 9 };
            let c = Conj {
                lits: vec![(k, false), (src, true)],
                any: Vec::new(),
            };
            (64 + k, vec![c])
        };
        let atoms: Vec<_> = (0..16).map(member).collect();
        let all: Vec<usize> = (0..16).collect();
        let (fams, rest) = find_gathered(&atoms, &all);
        assert!(rest.is_empty());
        assert_eq!(
            fams[0].slots[1],
            Slot::Shifts {
                word: 2,
                negated: true,
                parts: vec![(-7, 0x0fff), (9, 0xf000)],
            }
        );
    }

    /// Eight alternatives whose two literals each lie at one distance are
    /// a family among alternatives, not among a schedule's atoms; with one
    /// varying literal under a fixed one they are not.
    #[test]
    fn eight_alternatives_of_single_shifts_are_a_family() {
        // Member k at bit k: bit k of word 1 and bit k + 7 of word 2, or
        // the fixed bit 200 and bit k of word 1.
        let two = |k: u32| {
            let c = Conj {
                lits: vec![(64 + k, false), (128 + k + 7, false)],
                any: Vec::new(),
            };
            (k, vec![c])
        };
        let fixed = |k: u32| {
            let c = Conj {
                lits: vec![(64 + k, false), (200, false)],
                any: Vec::new(),
            };
            (k, vec![c])
        };
        let all: Vec<usize> = (0..MIN_SHIFTED).collect();
        let atoms: Vec<_> = (0..MIN_SHIFTED as u32).map(two).collect();
        let (fams, rest) = find_gathered_alternatives(&atoms, &all);
        assert_eq!((fams.len(), rest.len()), (1, 0));
        assert!(find_gathered(&atoms, &all).0.is_empty());
        let atoms: Vec<_> = (0..MIN_SHIFTED as u32).map(fixed).collect();
        assert!(find_gathered_alternatives(&atoms, &all).0.is_empty());
    }
}
