//! Rule bodies printed as word-mask tests.
//!
//! A conjunction of literals becomes one `&` of tests, a test per word of
//! the value vector it touches: `v[w] & P == P` for the positive bits,
//! `v[w] & N == 0` for the negated ones, `v[w] & (P | N) == P` for both.

use std::collections::BTreeMap;

use proc_macro2::{Delimiter, Literal, TokenStream, TokenTree};
use quote::quote;

use crate::bitnet::conj::{by_word, disj_cost, BitLit, Conj};
use crate::bitnet::families::{self, Shape};
use crate::bitnet::planes::PlaneWord;

use super::gathers::GatherTables;

pub(super) fn hex(m: u64) -> Literal {
    // Hexadecimal reads better for masks.
    format!("{m:#x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(m))
}

fn word(w: u32) -> Literal {
    Literal::usize_unsuffixed(w as usize)
}

/// The test of one conjunction, as a `bool` expression without branches:
/// tests are joined with `&`, not `&&`, since in random playouts the
/// outcomes are unpredictable and mispredicted branches cost more than the
/// few extra word operations.
pub fn conj_expr(c: &Conj) -> TokenStream {
    let pos = by_word(c.lits.iter().filter(|l| !l.1).map(|l| l.0));
    let neg = by_word(c.lits.iter().filter(|l| l.1).map(|l| l.0));
    let mut words: Vec<u32> = pos.keys().chain(neg.keys()).copied().collect();
    words.sort_unstable();
    words.dedup();
    let tests: Vec<TokenStream> = words
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
    debug_assert!(c.any.is_empty(), "move sets are bits by now");
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
///
/// `short`: the atom is most often true ([`short_circuit_or`]).
pub fn disj_expr(conjs: &[Conj], gathers: &mut GatherTables, short: bool) -> TokenStream {
    match disj_terms(conjs, gathers).as_slice() {
        [] => quote!(false),
        exprs if short => short_circuit_or(exprs),
        exprs => balanced_or(exprs),
    }
}

/// The alternatives of [`disj_expr`], each a test.
fn disj_terms(conjs: &[Conj], gathers: &mut GatherTables) -> Vec<TokenStream> {
    let mut exprs: Vec<TokenStream> = Vec::new();
    let (singles, others): (Vec<&Conj>, Vec<&Conj>) = conjs.iter().partition(|c| c.is_single());
    match singles.as_slice() {
        [] => {}
        [one] => exprs.push(conj_expr(one)),
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
    let (families, others) = disjunct_families(&others);
    exprs.extend(families);
    let (gathered, others) = gathered_disjuncts(&others, gathers);
    exprs.extend(gathered);
    exprs.extend(factored(&others, gathers));
    exprs
}

/// Fewest alternatives of a short-circuit group ([`short_circuit_or`]).
pub const MIN_SHORT_CIRCUIT: usize = 32;

/// The disjunction of an atom most often true: at most `2 *
/// MIN_SHORT_CIRCUIT` alternatives branch-free, more in groups joined by
/// `||`, so that the test ends at the first group that holds. Branch-free,
/// every alternative is evaluated: chess's `canmove`, any of 1 900 moves,
/// took 8% of a playout's instructions. For every atom of many
/// alternatives, true or not, it gained chess 7.5% and Crisscross 45%, but
/// cost the games whose long disjunctions seldom hold up to 39% (Chinese
/// checkers' goals); only the top level of the test, and groups of at least
/// 32, still cost golden_rectangle 16% and QuartoSuicide 10%. Which atoms
/// are most often true is sampled ([`super::incremental::often_true`]).
fn short_circuit_or(exprs: &[TokenStream]) -> TokenStream {
    if exprs.len() < 2 * MIN_SHORT_CIRCUIT {
        return balanced_or(exprs);
    }
    let size = MIN_SHORT_CIRCUIT.max(exprs.len().div_ceil(FLAT_OR));
    let groups: Vec<TokenStream> = exprs.chunks(size).map(balanced_or).collect();
    quote!(#((#groups))||*)
}

/// `x` shifted by `shift` bits toward the high end (left when positive,
/// right when negative, itself when zero): a word moved from source bits to
/// destination bits `shift` higher.
pub fn shifted_by(x: &TokenStream, shift: i32) -> TokenStream {
    let s = Literal::u32_unsuffixed(shift.unsigned_abs());
    match shift {
        0 => x.clone(),
        1.. => quote!((#x << #s)),
        _ => quote!((#x >> #s)),
    }
}

/// The AND of word `x` shifted right by each offset of `shape`, negated
/// where its literal is: bit `b` of the result holds when the shape holds
/// with its lowest literal at bit `b`.
pub fn shifted_and(shape: &Shape, x: &TokenStream) -> TokenStream {
    let terms: Vec<TokenStream> = shape
        .iter()
        .map(|&(off, neg)| {
            let x = if neg { quote!(!#x) } else { x.clone() };
            if off == 0 {
                x
            } else {
                let off = Literal::u32_unsuffixed(off);
                quote!((#x >> #off))
            }
        })
        .collect();
    match terms.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many)&*)),
    }
}

/// The 64 bits of the value vector (`nv` words) from bit `start`, bits
/// outside it zero, where `mask` says which of them are read: a word, or the
/// two words it straddles shifted together (only the one the read bits lie
/// in, where they lie in one).
pub fn window(start: i64, nv: usize, mask: u64) -> TokenStream {
    let word = |k: i64| {
        (0..nv as i64).contains(&k).then(|| {
            let k = Literal::usize_unsuffixed(k as usize);
            quote!(v[#k])
        })
    };
    let (q, r) = (start.div_euclid(64), start.rem_euclid(64) as u32);
    if r == 0 {
        return word(q).unwrap_or(quote!(0u64));
    }
    let (rl, rh) = (Literal::u32_unsuffixed(r), Literal::u32_unsuffixed(64 - r));
    // Bit b of the window is bit b + r of word q, or of word q + 1 past 64.
    let low = word(q)
        .filter(|_| mask & (u64::MAX >> r) != 0)
        .map(|w| quote!((#w >> #rl)));
    let high = word(q + 1)
        .filter(|_| mask >> (64 - r) != 0)
        .map(|w| quote!((#w << #rh)));
    match (low, high) {
        (Some(l), Some(h)) => quote!((#l | #h)),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => quote!(0u64),
    }
}

/// The word of a plane ([`crate::bitnet::planes`]): per rule shape, the AND
/// of its windows masked with the members having it, ORed.
pub fn plane_word(word: &PlaneWord, nv: usize) -> TokenStream {
    let terms: Vec<TokenStream> = word
        .shapes
        .iter()
        .map(|s| {
            let mut ands: Vec<TokenStream> = s
                .windows
                .iter()
                .map(|&(start, neg)| {
                    let w = window(start, nv, s.mask);
                    if neg {
                        quote!(!#w)
                    } else {
                        w
                    }
                })
                .collect();
            // A fixed bit as all ones or all zeros: `0 - bit` when it must
            // hold, `bit - 1` when it must not.
            ands.extend(s.fixed.iter().map(|&(p, neg)| {
                let w = Literal::usize_unsuffixed((p >> 6) as usize);
                // No `>> 0` (clippy's `identity_op`).
                let bit = match p & 63 {
                    0 => quote!(v[#w] & 1),
                    b => {
                        let b = Literal::u32_unsuffixed(b);
                        quote!((v[#w] >> #b) & 1)
                    }
                };
                if neg {
                    quote!((#bit).wrapping_sub(1))
                } else {
                    quote!(0u64.wrapping_sub(#bit))
                }
            }));
            // A whole word needs no mask (clippy's `identity_op`).
            if s.mask != u64::MAX {
                let mask = Literal::u64_unsuffixed(s.mask);
                ands.push(format!("{:#x}", s.mask).parse().unwrap_or(quote!(#mask)));
            }
            // Nothing left to test (a ray's step with no other factor).
            if ands.is_empty() {
                ands.push(quote!(u64::MAX));
            }
            quote!(#(#ands)&*)
        })
        .collect();
    match terms.as_slice() {
        [one] => one.clone(),
        many => quote!(#((#many))|*),
    }
}

/// Alternatives of one shape within one word (lines of a board: the same
/// offsets from different cells), tested together: the word shifted by each
/// offset, ANDed, masked with the alternatives' lowest bits. Returns those
/// tests and the alternatives left.
fn disjunct_families<'a>(conjs: &[&'a Conj]) -> (Vec<TokenStream>, Vec<&'a Conj>) {
    // Per word and shape, each alternative with its lowest bit.
    let mut groups: BTreeMap<(u32, Shape), Vec<(usize, u32)>> = BTreeMap::new();
    for (i, c) in conjs.iter().enumerate() {
        if !c.any.is_empty() || c.lits.len() < 2 {
            continue;
        }
        // Within 64 bits of the lowest: one word, or two read as a u128.
        if let Some((low, shape)) = families::shape_of(&c.lits, 64) {
            groups.entry((low >> 6, shape)).or_default().push((i, low));
        }
    }
    let mut used = vec![false; conjs.len()];
    let mut tests = Vec::new();
    for ((w, shape), members) in groups {
        if members.len() < families::MIN_MEMBERS {
            continue;
        }
        let mut mask = 0u64;
        let mut wide = false;
        for &(i, low) in &members {
            used[i] = true;
            mask |= 1 << (low & 63);
            wide |= conjs[i].lits.iter().any(|l| l.0 >> 6 != low >> 6);
        }
        let (wl, w1) = (word(w), word(w + 1));
        let all = shifted_and(&shape, &quote!(x));
        let m = hex(mask);
        tests.push(if wide {
            quote!({
                let x = u128::from(v[#wl]) | (u128::from(v[#w1]) << 64);
                #all & #m != 0
            })
        } else {
            let all = if mask == u64::MAX {
                all
            } else {
                quote!(#all & #m)
            };
            quote!({
                let x = v[#wl];
                #all != 0
            })
        });
    }
    let rest = conjs
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(c, _)| *c)
        .collect();
    (tests, rest)
}

/// Alternatives of the same words and signs but in no one shape (a piece on
/// a square and the move made from it, numbered in another order), tested
/// together as a gathered family ([`families::find_gathered`]) whose
/// members are the alternatives, each at the bit of its first literal: the
/// family's word is not zero when one of them holds. Two alternatives with
/// the same first literal go to different families, so that each member's
/// gathered bits are its own. Returns the tests and the alternatives left.
///
/// Two passes. The first puts the n-th alternative with a first literal in
/// the n-th round and keeps families of any kind. The second groups what
/// is left by the words it reads first (a piece's square ANDed with each
/// of eight direction planes is then eight rounds of every square, not
/// eight rounds mixing the planes square by square) and keeps only the
/// families of shifts ([`families::find_gathered_alternatives`]): its
/// tables, eight of 8 KB for draughts' capturing piece, made draughts 7%
/// slower with 8% fewer instructions.
fn gathered_disjuncts<'a>(
    conjs: &[&'a Conj],
    gathers: &mut GatherTables,
) -> (Vec<TokenStream>, Vec<&'a Conj>) {
    let (mut tests, rest) = gathered_in_rounds(conjs, gathers, false);
    let (more, rest) = gathered_in_rounds(&rest, gathers, true);
    tests.extend(more);
    (tests, rest)
}

/// One pass of [`gathered_disjuncts`]: rounds by first literal alone, any
/// family; or, `by_words`, by the words read and then first literal, only
/// families of shifts.
fn gathered_in_rounds<'a>(
    conjs: &[&'a Conj],
    gathers: &mut GatherTables,
    by_words: bool,
) -> (Vec<TokenStream>, Vec<&'a Conj>) {
    /// Alternatives tried together: each as an atom at its first
    /// literal's bit, with its index in `conjs`.
    #[derive(Default)]
    struct Round {
        /// The words and signs its alternatives read (empty: any).
        words: Vec<(u32, bool)>,
        atoms: Vec<(u32, Vec<Conj>)>,
        index: Vec<usize>,
    }
    let mut rounds: Vec<Round> = Vec::new();
    for (i, c) in conjs.iter().enumerate() {
        let Some(first) = c.lits.iter().min_by_key(|&&(b, neg)| (b >> 6, neg, b)) else {
            continue;
        };
        if c.lits.len() < 2 || !c.any.is_empty() {
            continue;
        }
        let mut words: Vec<(u32, bool)> = Vec::new();
        if by_words {
            words = c.lits.iter().map(|&(b, neg)| (b >> 6, neg)).collect();
            words.sort_unstable();
        }
        let round = rounds
            .iter()
            .position(|r| r.words == words && r.atoms.iter().all(|a| a.0 != first.0))
            .unwrap_or_else(|| {
                rounds.push(Round {
                    words,
                    ..Round::default()
                });
                rounds.len() - 1
            });
        rounds[round].atoms.push((first.0, vec![(*c).clone()]));
        rounds[round].index.push(i);
    }
    let mut used = vec![false; conjs.len()];
    let mut tests = Vec::new();
    for Round { atoms, index, .. } in &rounds {
        let atoms = atoms.as_slice();
        let all: Vec<usize> = (0..atoms.len()).collect();
        let (fams, rest) = if by_words {
            families::find_gathered_alternatives(atoms, &all)
        } else {
            families::find_gathered(atoms, &all)
        };
        let mut taken = vec![true; atoms.len()];
        rest.iter().for_each(|&k| taken[k] = false);
        for (k, _) in taken.iter().enumerate().filter(|(_, &t)| t) {
            used[index[k]] = true;
        }
        for g in &fams {
            let (word, fixed) = gathers.family_word(g);
            let any = quote!((#word) != 0);
            tests.push(if fixed.is_empty() {
                any
            } else {
                let fixed = fixed.iter().map(|&l| lit_test(l));
                quote!(#((#fixed))&* & (#any))
            });
        }
    }
    let rest = conjs
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(c, _)| *c)
        .collect();
    (tests, rest)
}

/// Alternatives sharing a literal, tested once for all of them:
/// `(a ∧ x) ∨ (a ∧ y)` is `a ∧ (x ∨ y)`, and the rests, often one literal
/// each ("a piece here, and one of its moves open"), become a masked OR.
fn factored(conjs: &[&Conj], gathers: &mut GatherTables) -> Vec<TokenStream> {
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
            None => out.push(conj_expr(c)),
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
            // Nested under a common literal: branch-free.
            let inner = disj_expr(&rests, gathers, false);
            out.push(quote!((#test) & (#inner)));
        } else {
            // Literals in the key's word cost nothing more unfactored.
            out.extend(whole.iter().map(conj_expr));
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
pub fn lit_test((pos, negated): BitLit) -> TokenStream {
    let w = word(pos >> 6);
    let m = hex(1u64 << (pos & 63));
    if negated {
        quote!(v[#w] & #m == 0)
    } else {
        quote!(v[#w] & #m != 0)
    }
}

/// `if test { stmts }`, one `if` of both tests when `stmts` is a lone `if`
/// of its own (clippy's `collapsible_if`): a demand around a screen, a
/// guard around a family's fixed literals.
pub fn if_stmt(test: TokenStream, stmts: Vec<TokenStream>) -> TokenStream {
    if let [only] = stmts.as_slice() {
        let tts: Vec<TokenTree> = only.clone().into_iter().collect();
        if let (Some(TokenTree::Ident(kw)), Some(TokenTree::Group(body))) =
            (tts.first(), tts.last())
        {
            let cond = &tts[1..tts.len().saturating_sub(1).max(1)];
            // `else`, `if let` or `||` at the top level would change the
            // meaning of `test && cond`.
            let plain = !cond.is_empty()
                && !cond.iter().enumerate().any(|(i, t)| match t {
                    TokenTree::Ident(x) => x == "else" || x == "let",
                    TokenTree::Punct(p) => {
                        p.as_char() == '|'
                            && matches!(cond.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '|')
                    }
                    _ => false,
                });
            if kw == "if" && body.delimiter() == Delimiter::Brace && plain {
                let cond: TokenStream = cond.iter().cloned().collect();
                let inner = body.stream();
                return quote!(if #test && #cond { #inner });
            }
        }
    }
    quote!(if #test { #(#stmts)* })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Alternatives "a piece on square `s`, and a capture from `s` in
    /// plane A (word 1) or plane B (word 2)", each square listing its two
    /// planes in its own order: the alternatives of each plane are one
    /// family tested as a word, whatever the order they come in.
    #[test]
    fn alternatives_over_the_same_words_are_one_family_in_any_order() {
        let alt = |s: u32, plane: u32| Conj {
            lits: vec![(s, false), (64 * plane + s, false)],
            any: Vec::new(),
        };
        let conjs: Vec<Conj> = (0..16)
            .flat_map(|s| {
                let (first, second) = if s % 2 == 0 { (1, 2) } else { (2, 1) };
                [alt(s, first), alt(s, second)]
            })
            .collect();
        let text = disj_expr(&conjs, &mut GatherTables::default(), false).to_string();
        // Two family words, each the piece's word ANDed with a plane: no
        // test of one square's bit alone.
        assert_eq!(text.matches("!= 0").count(), 2, "{text}");
        assert!(text.contains("v [1]") && text.contains("v [2]"), "{text}");
        assert!(!text.contains("0x1 =="), "{text}");
    }

    /// Conjunctions of two literals each, none sharing a word pattern with
    /// another (no family, no common factor).
    fn scattered(n: u32) -> Vec<Conj> {
        (0..n)
            .map(|k| Conj {
                lits: vec![(64 * k + 3, false), (64 * (k + n) + 5 + k % 7, true)],
                any: Vec::new(),
            })
            .collect()
    }

    /// The disjunction of an atom most often true, of many alternatives, is
    /// a chain of groups that stops at the first group that holds; a
    /// shorter one, or one of an atom seldom true, is branch-free.
    #[test]
    fn a_long_disjunction_stops_at_the_first_group_that_holds() {
        let short = disj_expr(
            &scattered(2 * MIN_SHORT_CIRCUIT as u32 - 1),
            &mut GatherTables::default(),
            true,
        );
        assert!(!short.to_string().contains("||"), "{short}");
        let n = 4 * MIN_SHORT_CIRCUIT;
        let long = disj_expr(&scattered(n as u32), &mut GatherTables::default(), true);
        let text = long.to_string();
        assert_eq!(text.matches("||").count(), 3, "{text}");
        assert_eq!(text.matches("v [").count(), 2 * n, "{text}");
        let seldom = disj_expr(&scattered(n as u32), &mut GatherTables::default(), false);
        assert!(!seldom.to_string().contains("||"), "{seldom}");
    }
}
