//! The fixpoint of a recursive plane (a ray: each square's atom reads its
//! neighbour's), with what does not change hoisted out of the loop.
//!
//! A plane word is an OR of rule shapes ([`PlaneWord`]); a shape whose
//! windows read none of the plane's own words is a *base* (reversi's "the
//! next cell has the other colour"), computed once; the others read the
//! plane through one or more windows, ANDed with factors that do not change
//! while it is iterated (the cells of the ray's colour). Those factors are
//! ORed per set of plane windows into a local before the loop, so each
//! iteration costs a shift, an AND and an OR per window set and word, where
//! it cost every shape's every window.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr;
use crate::bitnet::planes::{PlaneWord, ShapeMask, Window};

/// A plane word's shapes split: the base shapes, and per set of windows
/// reading the plane, the shapes reading it through them (those windows
/// taken out).
struct Split {
    word: u32,
    base: Vec<ShapeMask>,
    steps: Vec<(Vec<Window>, Vec<ShapeMask>)>,
}

/// The bits the window from bit `start` reads, at the bits of `mask`: per
/// word, the word and its bits (the word the window starts in, and the
/// next one when it is not aligned).
fn read_bits(start: i64, mask: u64) -> [(i64, u64); 2] {
    let (q, r) = (start.div_euclid(64), start.rem_euclid(64) as u32);
    let high = if r == 0 { 0 } else { mask >> (64 - r) };
    [(q, mask << r), (q + 1, high)]
}

/// The members' bits of word `word` of the plane (`members`: per plane
/// word, its members' bits; other relations may share the words, and do
/// not change in the loop).
fn members_of(word: i64, members: &[(u32, u64)]) -> Option<u64> {
    (members.iter())
        .find(|&&(w, _)| i64::from(w) == word)
        .map(|&(_, m)| m)
}

/// Whether the window from bit `start`, read at the bits of `mask`, reads a
/// member of the plane.
fn reads_members(start: i64, mask: u64, members: &[(u32, u64)]) -> bool {
    (read_bits(start, mask).iter())
        .any(|&(w, bits)| members_of(w, members).is_some_and(|m| bits & m != 0))
}

/// Whether the window from bit `start`, read at the bits of `mask`, reads
/// members of the plane only.
fn reads_only_members(start: i64, mask: u64, members: &[(u32, u64)]) -> bool {
    (read_bits(start, mask).iter())
        .all(|&(w, bits)| bits == 0 || members_of(w, members).is_some_and(|m| bits & !m == 0))
}

/// `pw`'s shapes split into base and steps; `None` when a shape reads the
/// plane negatively.
fn split(pw: &PlaneWord, members: &[(u32, u64)]) -> Option<Split> {
    let mut out = Split {
        word: pw.word,
        base: Vec::new(),
        steps: Vec::new(),
    };
    for s in &pw.shapes {
        let (inner, rest): (Vec<Window>, Vec<Window>) = s
            .windows
            .iter()
            .partition(|(start, _)| reads_members(*start, s.mask, members));
        if inner.is_empty() {
            out.base.push(s.clone());
            continue;
        }
        // A plane read negatively is not a least fixpoint (stratification
        // forbids it; nothing to hoist then).
        if inner.iter().any(|&(_, neg)| neg) {
            return None;
        }
        let rest = ShapeMask {
            windows: rest,
            fixed: s.fixed.clone(),
            mask: s.mask,
        };
        match out.steps.iter_mut().find(|(w, _)| *w == inner) {
            Some((_, shapes)) => shapes.push(rest),
            None => out.steps.push((inner, vec![rest])),
        }
    }
    Some(out)
}

/// The statements iterating a recursive plane of `words` to its least
/// fixpoint (`nv` value words), base and loop-invariant factors computed
/// once; `None` when a window reads the plane negatively. A plane `seeded`
/// by the move (reversi's flips) is mostly empty after its base: then its
/// loop is skipped, where the plane windows read its members only (a plane
/// read everywhere, a ray of the state, would only pay for the test).
pub fn fixpoint(words: &[PlaneWord], nv: usize, seeded: bool) -> Option<TokenStream> {
    let members: Vec<(u32, u64)> = words
        .iter()
        .map(|pw| (pw.word, pw.shapes.iter().fold(0, |m, s| m | s.mask)))
        .collect();
    let splits: Vec<Split> = words
        .iter()
        .map(|pw| split(pw, &members))
        .collect::<Option<_>>()?;
    let (mut base, mut factors, mut body) = (Vec::new(), Vec::new(), Vec::new());
    // Whether every plane window reads members only: then a plane with no
    // member after its base stays empty, and the loop is skipped.
    let mut pure = true;
    for sp in &splits {
        let w = Literal::usize_unsuffixed(sp.word as usize);
        if !sp.base.is_empty() {
            let x = expr::plane_word(
                &PlaneWord {
                    word: sp.word,
                    shapes: sp.base.clone(),
                },
                nv,
            );
            base.push(quote!(v[#w] |= #x;));
        }
        let mut terms = Vec::new();
        for (k, (inner, shapes)) in sp.steps.iter().enumerate() {
            let p = format_ident!("p{}_{}", sp.word, k);
            let factor = expr::plane_word(
                &PlaneWord {
                    word: sp.word,
                    shapes: shapes.clone(),
                },
                nv,
            );
            factors.push(quote!(let #p = #factor;));
            let mask = shapes.iter().fold(0, |m, s| m | s.mask);
            pure &= inner
                .iter()
                .all(|&(start, _)| reads_only_members(start, mask, &members));
            let windows = inner
                .iter()
                .map(|&(start, _)| expr::window(start, nv, mask));
            terms.push(quote!(#p #(& #windows)*));
        }
        match terms.as_slice() {
            [] => {}
            [one] => body.push(quote!(v[#w] |= #one;)),
            many => body.push(quote!(v[#w] |= #((#many))|*;)),
        }
    }
    let ws: Vec<Literal> = (members.iter())
        .map(|&(w, _)| Literal::usize_unsuffixed(w as usize))
        .collect();
    let iterate = quote! {
        #(#factors)*
        loop {
            let before = [#(v[#ws]),*];
            #(#body)*
            if before == [#(v[#ws]),*] {
                break;
            }
        }
    };
    if !(seeded && pure) {
        return Some(quote!({ #(#base)* #iterate }));
    }
    let any = members.iter().map(|&(w, m)| {
        let w = Literal::usize_unsuffixed(w as usize);
        if m == u64::MAX {
            quote!(v[#w])
        } else {
            let m: TokenStream = format!("{m:#x}").parse().unwrap_or_else(|_| quote!(#m));
            quote!((v[#w] & #m))
        }
    });
    Some(quote! {
        #(#base)*
        if #(#any)|* != 0 {
            #iterate
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ray over word 3 read from state word 0: `x(i) <= a(i) & a(i+1)`
    /// (base) or `a(i) & x(i+1)`, plus one bit every member reads.
    fn ray() -> Vec<PlaneWord> {
        vec![PlaneWord {
            word: 3,
            shapes: vec![
                ShapeMask {
                    windows: vec![(0, false), (1, false)],
                    fixed: Vec::new(),
                    mask: 0xff,
                },
                ShapeMask {
                    windows: vec![(0, false), (193, false)],
                    fixed: vec![(300, false)],
                    mask: 0x7f,
                },
            ],
        }]
    }

    /// The base is computed before the loop, the factors that do not change
    /// (the state window, the fixed bit) once into a local, and the loop
    /// ANDs that local with the plane shifted by one.
    #[test]
    fn the_loop_reads_only_the_plane_and_hoisted_factors() {
        let code = fixpoint(&ray(), 8, false)
            .expect("a positive ray")
            .to_string();
        let (head, body) = code.split_once("loop").expect("a loop");
        assert!(head.contains("v [3] |= v [0] & (v [0] >> 1)"), "{head}");
        assert!(
            head.contains("let p3_0 = v [0] & 0u64 . wrapping_sub"),
            "{head}"
        );
        assert!(body.contains("v [3] |= p3_0 & (v [3] >> 1)"), "{body}");
        assert!(!body.contains("v [0]"), "{body}");
        assert!(!code.contains("!= 0"), "{code}");
    }

    /// Seeded by the move, a ray whose windows read only its members is
    /// skipped when its base leaves it empty.
    #[test]
    fn a_seeded_ray_is_skipped_when_empty() {
        let code = fixpoint(&ray(), 8, true)
            .expect("a positive ray")
            .to_string();
        let (head, rest) = code.split_once("if").expect("a test");
        assert!(!head.contains("let p3_0"), "{head}");
        assert!(rest.starts_with(" (v [3] & 0xff) != 0"), "{rest}");
    }

    /// A plane read negatively by itself has no least fixpoint to hoist.
    #[test]
    fn a_plane_read_negatively_is_refused() {
        let mut words = ray();
        words[0].shapes[1].windows[1].1 = true;
        assert!(fixpoint(&words, 8, false).is_none());
    }
}
