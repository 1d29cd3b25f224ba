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

use super::layout::Layout;
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

/// The number of words that `bits` touch.
pub fn words_of(bits: &[u32]) -> usize {
    by_word(bits.iter().copied()).len()
}
