//! Rule bodies at bit level, and the merge of rules that differ only in
//! which move is made.
//!
//! Rules of one atom that differ only in a positive `does` literal become one
//! body with a set of moves of which one must be made: the frame rules of
//! board games (one rule per cell and move) become one body per cell. Two
//! cases are decided here once for every back end: a set of one move is the
//! plain literal `does`, and a set holding every move of a role always holds
//! (each role makes exactly one move), so it is no test at all.

use std::collections::BTreeMap;

use super::layout::{Layout, TRUE_BIT};
use crate::ground::{GroundRule, Lit};

/// A literal of a body: a bit position of the value vector, and whether it
/// is negated.
pub type BitLit = (u32, bool);

/// A conjunction after merging: its literals, and optionally a set of bits of
/// which at least one must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conj {
    /// Literals that must all hold (bit position, negated).
    pub lits: Vec<BitLit>,
    /// `does` bit positions of which one must hold (empty: no such test).
    pub any: Vec<u32>,
}

impl Conj {
    /// The conjunction without one literal (checked elsewhere).
    pub fn without(&self, lit: BitLit) -> Conj {
        Conj {
            lits: self.lits.iter().copied().filter(|&l| l != lit).collect(),
            any: self.any.clone(),
        }
    }

    /// Number of tests, for splitting code into functions.
    pub fn weight(&self) -> usize {
        self.lits.len() + self.any.len().div_ceil(8)
    }

    /// Whether the body is one positive literal: such alternatives of an
    /// atom are tested together, a masked word per word.
    pub fn is_single(&self) -> bool {
        self.any.is_empty() && matches!(self.lits.as_slice(), [(_, false)])
    }
}

/// The bodies of one atom's rules, with rules differing only in one `does`
/// literal merged.
pub fn merge(rules: &[GroundRule], layout: &Layout) -> Vec<Conj> {
    let is_does =
        |l: &Lit| !l.is_negated() && l.atom().0 >= layout.fluents && l.atom().0 < layout.inputs;
    let lit = |l: &Lit| (layout.pos(l.atom()), l.is_negated());
    let mut groups: BTreeMap<Vec<BitLit>, Vec<u32>> = BTreeMap::new();
    let mut out = Vec::new();
    for rule in rules {
        let does: Vec<&Lit> = rule.body.iter().filter(|l| is_does(l)).collect();
        if let [d] = does.as_slice() {
            let rest: Vec<BitLit> = rule.body.iter().filter(|l| !is_does(l)).map(lit).collect();
            groups.entry(rest).or_default().push(layout.pos(d.atom()));
        } else {
            out.push(Conj {
                lits: rule.body.iter().map(lit).collect(),
                any: Vec::new(),
            });
        }
    }
    for (lits, mut any) in groups {
        any.sort_unstable();
        any.dedup();
        if any.len() == 1 {
            let mut lits = lits;
            lits.push((any[0], false));
            out.push(Conj {
                lits,
                any: Vec::new(),
            });
        } else {
            out.push(Conj { lits, any });
        }
    }
    out
}

/// Groups bit positions by word: `(word, mask)` in word order.
pub fn by_word(bits: impl IntoIterator<Item = u32>) -> BTreeMap<u32, u64> {
    let mut m = BTreeMap::new();
    for b in bits {
        *m.entry(b >> 6).or_insert(0u64) |= 1u64 << (b & 63);
    }
    m
}

/// Whether a set of `does` bits always holds one: it has every move of some
/// role, and each role makes exactly one move.
pub fn any_always(any: &[u32], layout: &Layout) -> bool {
    layout.role_moves.iter().any(|&(start, count)| {
        count > 0
            && any
                .iter()
                .filter(|p| (start..start + count).contains(p))
                .count() as u32
                == count
    })
}

/// The literals every conjunction shares: each is a guard under which the
/// atom can hold at all.
pub fn common_literals(conjs: &[Conj]) -> Vec<BitLit> {
    let Some((first, rest)) = conjs.split_first() else {
        return Vec::new();
    };
    first
        .lits
        .iter()
        .copied()
        .filter(|l| rest.iter().all(|c| c.lits.contains(l)))
        .collect()
}

/// About how many word operations a disjunction of `conjs` costs: a word
/// per word the single-literal alternatives touch, and per word each other
/// alternative touches.
pub fn disj_cost(conjs: &[Conj]) -> usize {
    let singles = by_word(conjs.iter().filter(|c| c.is_single()).map(|c| c.lits[0].0)).len();
    singles
        + conjs
            .iter()
            .filter(|c| !c.is_single())
            .map(|c| by_word(c.lits.iter().map(|l| l.0)).len() + c.any.len().div_ceil(64))
            .sum::<usize>()
}

/// Disjunctions cheaper than this many word operations are computed
/// without a screen ([`screen`]): the test and its branch would cost about
/// what they save.
pub const SCREEN_COST: usize = 12;

/// A word test that every alternative of an atom needs, for atoms whose
/// bodies cost [`SCREEN_COST`] word operations or more: `(w, m)` such that
/// each conjunction has a positive literal among bits `m` of word `w`, so
/// the atom is false whenever `v[w] & m == 0`. Draughts' "the piece that
/// just captured can capture again" ORs thirty-two squares' tests, each
/// under `(true (capturingPiece x y))`, a fluent that is almost never set:
/// one test of its word skips them all. See [`screens`].
pub fn screen(conjs: &[Conj]) -> Option<(u32, u64)> {
    screens(std::slice::from_ref(&conjs))[0]
}

/// Screens shared by atoms computed side by side (none reading another),
/// by their bodies: per atom, the word test it sits under, if any. Each
/// atom picks, of the words in which every one of its bodies has a positive
/// literal, the one most of the atoms can pick (then the one with fewest
/// bits, likeliest zero); the atoms that picked a word share one test of
/// the union of their bits, if together they cost [`SCREEN_COST`] word
/// operations or more. Draughts' captures, each "a capture in this
/// direction from this square" and more, then sit under one test of the
/// direction's capture word, which is nearly always zero. An atom of one
/// body alone gets no screen: its own test is as cheap.
pub fn screens<C: AsRef<[Conj]>>(atoms: &[C]) -> Vec<Option<(u32, u64)>> {
    let candidates: Vec<BTreeMap<u32, u64>> =
        atoms.iter().map(|c| screen_words(c.as_ref())).collect();
    let mut count: BTreeMap<u32, usize> = BTreeMap::new();
    for c in &candidates {
        for &w in c.keys() {
            *count.entry(w).or_default() += 1;
        }
    }
    let pick: Vec<Option<u32>> = candidates
        .iter()
        .map(|c| {
            c.iter()
                .max_by_key(|&(w, m)| {
                    (
                        count[w],
                        std::cmp::Reverse(m.count_ones()),
                        std::cmp::Reverse(*w),
                    )
                })
                .map(|(w, _)| *w)
        })
        .collect();
    // Per picked word: its atoms' bits, cost, and atoms.
    let mut buckets: BTreeMap<u32, (u64, usize, Vec<usize>)> = BTreeMap::new();
    for (i, w) in pick.iter().enumerate() {
        if let Some(w) = w {
            let b = buckets.entry(*w).or_default();
            b.0 |= candidates[i][w];
            b.1 += disj_cost(atoms[i].as_ref());
            b.2.push(i);
        }
    }
    let mut out = vec![None; atoms.len()];
    for (w, (mask, cost, members)) in buckets {
        let alone = matches!(members.as_slice(), [i] if atoms[*i].as_ref().len() < 2);
        if cost >= SCREEN_COST && !alone {
            members.iter().for_each(|&i| out[i] = Some((w, mask)));
        }
    }
    out
}

/// The words in which every body of `conjs` has a positive literal, with
/// those literals' bits.
fn screen_words(conjs: &[Conj]) -> BTreeMap<u32, u64> {
    let positive = |c: &Conj| {
        by_word(
            c.lits
                .iter()
                .filter(|l| !l.1 && l.0 < TRUE_BIT)
                .map(|l| l.0),
        )
    };
    let Some((first, rest)) = conjs.split_first() else {
        return BTreeMap::new();
    };
    let mut words = positive(first);
    for c in rest {
        let p = positive(c);
        words.retain(|w, m| match p.get(w) {
            Some(n) => {
                *m |= n;
                true
            }
            None => false,
        });
    }
    words
}

/// The number of words that `bits` touch.
pub fn words_of(bits: &[u32]) -> usize {
    by_word(bits.iter().copied()).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::{atom, ground, TINY};
    use crate::ground::AtomId;

    /// `(does x (mark 1))` alone is one move: a plain literal, not a set.
    #[test]
    fn a_set_of_one_move_is_a_literal() {
        let gp = ground(TINY);
        let layout = Layout::new(&gp);
        let a = atom(&gp, "(next (cell 1 x))");
        let conjs = merge(gp.rules_of(AtomId(a)), &layout);
        let mark1 = layout.pos(gp.does_atom(0, 0));
        assert!(conjs.contains(&Conj {
            lits: vec![(mark1, false)],
            any: Vec::new(),
        }));
        assert!(conjs.iter().all(|c| c.any.len() != 1));
    }

    /// The frame rules of a cell, one per move marking another cell, are one
    /// body with a set of four moves.
    #[test]
    fn bodies_differing_only_in_the_move_merge() {
        let gp = ground(TINY);
        let layout = Layout::new(&gp);
        let a = atom(&gp, "(next (cell 1 x))");
        let conjs = merge(gp.rules_of(AtomId(a)), &layout);
        assert_eq!(conjs.len(), 2, "{conjs:?}");
        let frame = conjs
            .iter()
            .find(|c| !c.any.is_empty())
            .expect("a frame body");
        assert_eq!(
            frame.lits,
            vec![(2, false)],
            "(true (cell 1 x)) is fluent 2"
        );
        let moves: Vec<u32> = [(0, 1), (0, 2), (1, 1), (1, 2)]
            .iter()
            .map(|&(r, m)| layout.pos(gp.does_atom(r, m)))
            .collect();
        assert_eq!(frame.any, moves);
    }

    /// Each role makes exactly one move: a set with all of a role's moves
    /// always holds, one missing any does not.
    #[test]
    fn a_set_of_every_move_of_a_role_always_holds() {
        let gp = ground(TINY);
        let layout = Layout::new(&gp);
        let all: Vec<u32> = (0..4).map(|m| layout.pos(gp.does_atom(1, m))).collect();
        assert!(any_always(&all, &layout));
        assert!(!any_always(&all[1..], &layout));
        assert!(!any_always(&[], &layout));
    }

    #[test]
    fn costs_count_words() {
        let single = |p| Conj {
            lits: vec![(p, false)],
            any: Vec::new(),
        };
        // Two single literals in one word cost one masked word.
        assert_eq!(disj_cost(&[single(1), single(5)]), 1);
        let two_words = Conj {
            lits: vec![(1, false), (70, true)],
            any: Vec::new(),
        };
        assert_eq!(disj_cost(std::slice::from_ref(&two_words)), 2);
        assert_eq!(words_of(&[1, 2, 64, 200]), 3);
        assert_eq!(
            common_literals(&[two_words.clone(), two_words.without((70, true))]),
            vec![(1, false)]
        );
    }

    /// A word every alternative needs a bit of screens the atom; the word
    /// with fewer bits wins, and cheap or single bodies get no screen.
    #[test]
    fn screens_need_a_bit_of_one_word_in_every_alternative() {
        // Alternative k: a bit of word 0 (k), a bit of word 1 (64 + k), and
        // negated bits of words 2..8, so that the disjunction is costly.
        let alt = |k: u32| Conj {
            lits: [(k, false), (64 + 2 * k, false), (65 + 2 * k, false)]
                .into_iter()
                .chain((2..8).map(|w| (64 * w + k, true)))
                .collect(),
            any: Vec::new(),
        };
        let conjs: Vec<Conj> = (0..3).map(alt).collect();
        assert_eq!(screen(&conjs), Some((0, 0b111)));
        assert_eq!(screen(&conjs[..1]), None, "one body is its own test");
        let mut unscreened = conjs.clone();
        unscreened[2].lits.retain(|l| l.0 >= 64 * 2);
        assert_eq!(
            screen(&unscreened),
            None,
            "an alternative with no bit of words 0 or 1"
        );
        let cheap: Vec<Conj> = conjs
            .iter()
            .map(|c| Conj {
                lits: c.lits[..3].to_vec(),
                any: Vec::new(),
            })
            .collect();
        assert!(disj_cost(&cheap) < SCREEN_COST);
        assert_eq!(screen(&cheap), None);
    }

    /// Atoms side by side share the screen most of them can take: cheap
    /// atoms of one body each, all with a bit of word 2, sit under one test
    /// of the union of those bits; an atom with no such bit sits under none.
    #[test]
    fn atoms_side_by_side_share_a_screen() {
        // Atom k: a bit of word 2 (128 + k) and of word 0 (k), negated bits
        // of words 3 and 4.
        let atom = |k: u32| {
            vec![Conj {
                lits: vec![
                    (k, false),
                    (128 + k, false),
                    (192 + k, true),
                    (256 + k, true),
                ],
                any: Vec::new(),
            }]
        };
        let mut atoms: Vec<Vec<Conj>> = (0..4).map(atom).collect();
        atoms.push(vec![Conj {
            lits: vec![(300, true)],
            any: Vec::new(),
        }]);
        let s = screens(&atoms);
        // Words 0 and 2 tie on atoms and bits: the lower word.
        assert_eq!(&s[..4], &[Some((0, 0b1111)); 4]);
        assert_eq!(s[4], None);
        // One of them alone is its own test.
        assert_eq!(screens(&atoms[..1]), vec![None]);
    }
}
