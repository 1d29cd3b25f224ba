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

use super::conj::{BitLit, Conj};

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
}
