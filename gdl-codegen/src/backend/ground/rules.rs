//! Rule bodies as word-mask tests.
//!
//! A conjunction of literals becomes one `&&` of tests, a test per word of
//! the value vector it touches: `v[w] & P == P` for the positive bits,
//! `v[w] & N == 0` for the negated ones, `v[w] & (P | N) == P` for both.
//! Rules of one atom that differ only in a `does` literal are merged: the
//! disjunction of their moves is one "any of these bits" test, which turns
//! the frame rules of board games (one rule per cell and move) into one test
//! per cell.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::layout::Layout;
use crate::ground::{GroundRule, Lit};

/// A conjunction after merging: its literals, and optionally a set of bits of
/// which at least one must hold.
#[derive(Clone, Debug)]
pub struct Conj {
    /// Literals that must all hold (bit position, negated).
    pub lits: Vec<(u32, bool)>,
    /// Bit positions of which one must hold (empty: no such test).
    pub any: Vec<u32>,
}

impl Conj {
    /// The conjunction without one literal (checked elsewhere).
    pub fn without(&self, lit: (u32, bool)) -> Conj {
        Conj {
            lits: self.lits.iter().copied().filter(|&l| l != lit).collect(),
            any: self.any.clone(),
        }
    }

    /// Number of tests, for splitting code into functions.
    pub fn weight(&self) -> usize {
        self.lits.len() + self.any.len().div_ceil(8)
    }
}

/// The bodies of one atom's rules, with rules differing only in one `does`
/// literal merged.
pub fn merge(rules: &[GroundRule], layout: &Layout) -> Vec<Conj> {
    let is_does =
        |l: &Lit| !l.is_negated() && l.atom().0 >= layout.fluents && l.atom().0 < layout.inputs;
    let mut groups: BTreeMap<Vec<(u32, bool)>, Vec<u32>> = BTreeMap::new();
    let mut out = Vec::new();
    for rule in rules {
        let lits = || {
            rule.body
                .iter()
                .map(|l| (layout.pos(l.atom()), l.is_negated()))
        };
        let does: Vec<&Lit> = rule.body.iter().filter(|l| is_does(l)).collect();
        if let [d] = does.as_slice() {
            let rest: Vec<(u32, bool)> = rule
                .body
                .iter()
                .filter(|l| !is_does(l))
                .map(|l| (layout.pos(l.atom()), l.is_negated()))
                .collect();
            groups.entry(rest).or_default().push(layout.pos(d.atom()));
        } else {
            out.push(Conj {
                lits: lits().collect(),
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

fn hex(m: u64) -> Literal {
    // Hexadecimal reads better for masks.
    format!("{m:#x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(m))
}

fn word(w: u32) -> Literal {
    Literal::usize_unsuffixed(w as usize)
}

/// Groups bit positions by word: `(word, mask)` in word order.
fn by_word(bits: impl IntoIterator<Item = u32>) -> BTreeMap<u32, u64> {
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

/// The test "one of the `does` bits at `any` holds". Each role makes exactly
/// one move, so per role the test is either "the move is in the set" or
/// "the move is not in the complement", whichever touches fewer words; a set
/// holding every move of some role always holds (`None`).
fn any_expr(any: &[u32], layout: &Layout) -> Option<TokenStream> {
    let mut parts = Vec::new();
    for &(start, count) in &layout.role_moves {
        let range = start..start + count;
        let mine: Vec<u32> = any.iter().copied().filter(|p| range.contains(p)).collect();
        if mine.is_empty() {
            continue;
        }
        if mine.len() as u32 == count {
            return None;
        }
        let complement: Vec<u32> = range.filter(|p| mine.binary_search(p).is_err()).collect();
        let pos = by_word(mine.iter().copied());
        let neg = by_word(complement.iter().copied());
        if neg.len() < pos.len() {
            let tests: Vec<TokenStream> = neg
                .into_iter()
                .map(|(w, m)| {
                    let (wl, m) = (word(w), hex(m));
                    quote!(v[#wl] & #m == 0)
                })
                .collect();
            parts.push(match tests.as_slice() {
                [one] => one.clone(),
                many => quote!(#((#many))&*),
            });
        } else {
            let ors: Vec<TokenStream> = pos
                .into_iter()
                .map(|(w, m)| {
                    let (wl, m) = (word(w), hex(m));
                    quote!(v[#wl] & #m)
                })
                .collect();
            parts.push(quote!((#(#ors)|*) != 0));
        }
    }
    Some(match parts.as_slice() {
        [] => quote!(false),
        [one] => one.clone(),
        many => quote!(#((#many))|*),
    })
}

/// The test of one conjunction, as a `bool` expression without branches:
/// tests are joined with `&`, not `&&`, since in random playouts the
/// outcomes are unpredictable and mispredicted branches cost more than the
/// few extra word operations.
pub fn conj_expr(c: &Conj, layout: &Layout) -> TokenStream {
    let pos = by_word(c.lits.iter().filter(|l| !l.1).map(|l| l.0));
    let neg = by_word(c.lits.iter().filter(|l| l.1).map(|l| l.0));
    let mut words: Vec<u32> = pos.keys().chain(neg.keys()).copied().collect();
    words.sort_unstable();
    words.dedup();
    let mut tests: Vec<TokenStream> = words
        .iter()
        .map(|w| {
            let p = pos.get(w).copied().unwrap_or(0);
            let n = neg.get(w).copied().unwrap_or(0);
            let wl = word(*w);
            if n == 0 {
                let p = hex(p);
                quote!(v[#wl] & #p == #p)
            } else if p == 0 {
                let n = hex(n);
                quote!(v[#wl] & #n == 0)
            } else {
                let both = hex(p | n);
                let p = hex(p);
                quote!(v[#wl] & #both == #p)
            }
        })
        .collect();
    if !c.any.is_empty() {
        if let Some(test) = any_expr(&c.any, layout) {
            tests.push(test);
        }
    }
    match tests.as_slice() {
        [] => quote!(true),
        [one] => one.clone(),
        // `&` binds tighter than `==`: each comparison needs parentheses.
        many => quote!(#((#many))&*),
    }
}

/// The disjunction of several conjunctions' tests, for one atom.
///
/// Alternatives that are one positive literal each are tested together, a
/// masked word per word they touch: "any of these moves is legal" over a
/// legal region is then a few dozen word operations, not thousands of tests.
pub fn disj_expr(conjs: &[Conj], layout: &Layout) -> TokenStream {
    let single = super::tables::is_single;
    let mut exprs: Vec<TokenStream> = Vec::new();
    let (singles, others): (Vec<&Conj>, Vec<&Conj>) = conjs.iter().partition(|c| single(c));
    match singles.as_slice() {
        [] => {}
        [one] => exprs.push(conj_expr(one, layout)),
        many => {
            let terms: Vec<TokenStream> = by_word(many.iter().map(|c| c.lits[0].0))
                .into_iter()
                .map(|(w, m)| {
                    let (wl, m) = (word(w), hex(m));
                    quote!(v[#wl] & #m)
                })
                .collect();
            exprs.push(balanced_mask_or(&terms));
        }
    }
    exprs.extend(factored(&others, layout));
    match exprs.as_slice() {
        [] => quote!(false),
        _ => balanced_or(&exprs),
    }
}

/// Alternatives sharing a literal, tested once for all of them:
/// `(a ∧ x) ∨ (a ∧ y)` is `a ∧ (x ∨ y)`, and the rests, often one literal
/// each ("a piece here, and one of its moves open"), become a masked OR.
fn factored(conjs: &[&Conj], layout: &Layout) -> Vec<TokenStream> {
    let mut freq: BTreeMap<(u32, bool), usize> = BTreeMap::new();
    for c in conjs.iter().filter(|c| c.any.is_empty()) {
        for l in &c.lits {
            *freq.entry(*l).or_default() += 1;
        }
    }
    let mut groups: BTreeMap<(u32, bool), Vec<Conj>> = BTreeMap::new();
    let mut out = Vec::new();
    for c in conjs {
        let key = c
            .lits
            .iter()
            .filter(|l| c.any.is_empty() && freq[l] > 1)
            .max_by_key(|l| (freq[l], std::cmp::Reverse(**l)));
        match key {
            Some(&k) => groups.entry(k).or_default().push(c.without(k)),
            None => out.push(conj_expr(c, layout)),
        }
    }
    for (key, rests) in groups {
        let test = lit_test(key);
        let whole: Vec<Conj> = rests
            .iter()
            .map(|r| {
                let mut c = r.clone();
                c.lits.push(key);
                c.lits.sort_unstable();
                c
            })
            .collect();
        // A rest that is empty makes the key alone enough.
        if rests.iter().any(|r| r.lits.is_empty() && r.any.is_empty()) {
            out.push(test);
        } else if disj_cost(&rests) < disj_cost(&whole) {
            let inner = disj_expr(&rests, layout);
            out.push(quote!((#test) & (#inner)));
        } else {
            // Literals in the key's word cost nothing more unfactored.
            out.extend(whole.iter().map(|c| conj_expr(c, layout)));
        }
    }
    out
}

/// `(m_1 | m_2 | ..) != 0` over masked words, nested like [`balanced_or`]
/// when long.
fn balanced_mask_or(terms: &[TokenStream]) -> TokenStream {
    if terms.len() <= FLAT_OR {
        return quote!((#(#terms)|*) != 0);
    }
    let group = terms.len().div_ceil(FLAT_OR);
    let groups: Vec<TokenStream> = terms.chunks(group).map(balanced_mask_or).collect();
    quote!(#((#groups))|*)
}

/// Alternatives in one flat `a | b | ...` chain at most; longer
/// disjunctions become a tree of parenthesized groups of this many, so that
/// nesting grows with the logarithm of their length: a chain of 250 000
/// alternatives (a goal of pacman2p) overflows the stack of the parser and
/// the pretty-printer.
const FLAT_OR: usize = 16;

fn balanced_or(exprs: &[TokenStream]) -> TokenStream {
    match exprs {
        [one] => one.clone(),
        // `|` binds tighter than `==`: parenthesize each alternative.
        many if many.len() <= FLAT_OR => quote!(#((#many))|*),
        many => {
            let group = many.len().div_ceil(FLAT_OR);
            let groups: Vec<TokenStream> = many.chunks(group).map(balanced_or).collect();
            quote!(#((#groups))|*)
        }
    }
}

/// The literals every conjunction shares: each is a guard under which the
/// atom can hold at all.
pub fn common_literals(conjs: &[Conj]) -> Vec<(u32, bool)> {
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

/// About how many word operations [`disj_expr`] spends on `conjs`: a word
/// per word the single-literal alternatives touch, and per word each other
/// alternative touches.
pub fn disj_cost(conjs: &[Conj]) -> usize {
    let single = super::tables::is_single;
    let singles = by_word(conjs.iter().filter(|c| single(c)).map(|c| c.lits[0].0)).len();
    singles
        + conjs
            .iter()
            .filter(|c| !single(c))
            .map(|c| by_word(c.lits.iter().map(|l| l.0)).len() + c.any.len().div_ceil(64))
            .sum::<usize>()
}

/// The number of words that `bits` touch.
pub fn words_of(bits: &[u32]) -> usize {
    by_word(bits.iter().copied()).len()
}

/// The test "one of the bits at `bits` holds", a masked word per word.
pub fn any_of(bits: &[u32]) -> TokenStream {
    let terms: Vec<TokenStream> = by_word(bits.iter().copied())
        .into_iter()
        .map(|(w, m)| {
            let (wl, m) = (word(w), hex(m));
            quote!(v[#wl] & #m)
        })
        .collect();
    quote!((#(#terms)|*) != 0)
}

/// The test of one literal.
pub fn lit_test((pos, negated): (u32, bool)) -> TokenStream {
    let w = word(pos >> 6);
    let m = hex(1u64 << (pos & 63));
    if negated {
        quote!(v[#w] & #m == 0)
    } else {
        quote!(v[#w] & #m != 0)
    }
}
