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
use rustc_hash::FxHashSet;

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
    // The one step of each word, for a ray doubled (see [`doubled`]).
    let mut rays: Vec<Option<RayStep>> = Vec::new();
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
            if let [(start, false)] = inner[..] {
                let shift = start - 64 * i64::from(sp.word);
                rays.push(Some((sp.word, p.clone(), shift, mask)));
            } else {
                rays.push(None);
            }
        }
        if sp.steps.len() > 1 {
            rays.push(None);
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
    let doubled = (rays.iter().map(Option::as_ref))
        .collect::<Option<Vec<&RayStep>>>()
        .filter(|_| pure)
        .and_then(|steps| doubled(&steps, &members));
    let iterate = match doubled {
        Some(doubled) => quote! {
            #(#factors)*
            #doubled
        },
        None => quote! {
        #(#factors)*
        loop {
            let before = [#(v[#ws]),*];
            #(#body)*
            if before == [#(v[#ws]),*] {
                break;
            }
        }
        },
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

/// A plane word's one step: its word, the local holding its factor, the
/// offset of the bit its window reads (from the bit it sets) and the bits
/// the factor may set.
type RayStep = (u32, proc_macro2::Ident, i64, u64);

/// The plane's largest words, as one integer, doubled: at most two.
const MAX_DOUBLED_WORDS: u32 = 2;

/// A ray's fixpoint by doubling (a Kogge-Stone fill), where each plane
/// word reads the plane through one window at the same offset: `x |= p &
/// (x >> d)`, then `p &= p >> d` and again with twice the offset, as many
/// rounds as the longest run of the factors' bits needs. Each word is
/// doubled alone where no window reads another word (a row's ray), else
/// the plane, of at most [`MAX_DOUBLED_WORDS`] consecutive words, as one
/// integer. The loop took a round per square of the longest run found,
/// and a last one to see nothing change, ending on a branch that depends
/// on the board: the rounds cost about as many instructions (reversi
/// +1.3% a playout) and no branch (15% more playouts a second).
fn doubled(steps: &[&RayStep], members: &[(u32, u64)]) -> Option<TokenStream> {
    let shift = steps.first()?.2;
    if shift == 0 || steps.iter().any(|s| s.2 != shift) {
        return None;
    }
    let bits = |&&(w, _, _, mask): &&RayStep| {
        (0..64)
            .filter(move |b| mask >> b & 1 == 1)
            .map(move |b| 64 * i64::from(w) + b)
    };
    let within =
        (steps.iter().flat_map(bits)).all(|i| (i + shift).div_euclid(64) == i.div_euclid(64));
    if within {
        let words = steps.iter().filter_map(|step| {
            let (w, p) = (Literal::usize_unsuffixed(step.0 as usize), &step.1);
            let rounds = rounds(shift, longest_run(bits(step), shift), 64);
            let (let_p, let_x) = bindings(&rounds)?;
            Some(quote!({
                #let_p p = #p;
                #let_x x = v[#w];
                #(#rounds)*
                v[#w] = x;
            }))
        });
        return Some(quote!(#(#words)*));
    }
    let lo = members.iter().map(|&(w, _)| w).min()?;
    let n = members.iter().map(|&(w, _)| w).max()? - lo + 1;
    if n > MAX_DOUBLED_WORDS || members.len() as u32 != n || n == 1 {
        return None;
    }
    let longest = longest_run(steps.iter().flat_map(bits), shift);
    let rounds = rounds(shift, longest, 64 * i64::from(n));
    // Word `k` of the plane in its place in the integer, in parentheses
    // when ORed with others (alone, they would be a lint's warning).
    let word = |e: TokenStream, k: u32, alone: bool| match k {
        0 => quote!(u128::from(#e)),
        _ if alone => {
            let k = Literal::u32_unsuffixed(64 * k);
            quote!(u128::from(#e) << #k)
        }
        _ => {
            let k = Literal::u32_unsuffixed(64 * k);
            quote!((u128::from(#e) << #k))
        }
    };
    let of_words = |f: &dyn Fn(u32) -> Option<TokenStream>| {
        let found: Vec<(u32, TokenStream)> =
            (0..n).filter_map(|k| f(lo + k).map(|e| (k, e))).collect();
        let alone = found.len() == 1;
        let parts = found.into_iter().map(|(k, e)| word(e, k, alone));
        quote!(#(#parts)|*)
    };
    let p = of_words(&|w| {
        (steps.iter()).find(|s| s.0 == w).map(|s| {
            let p = &s.1;
            quote!(#p)
        })
    });
    let x = of_words(&|w| {
        let w = Literal::usize_unsuffixed(w as usize);
        Some(quote!(v[#w]))
    });
    let stores = (0..n).map(|k| {
        let w = Literal::usize_unsuffixed((lo + k) as usize);
        match k {
            0 => quote!(v[#w] = x as u64;),
            _ => {
                let k = Literal::u32_unsuffixed(64 * k);
                quote!(v[#w] = (x >> #k) as u64;)
            }
        }
    });
    let (let_p, let_x) = bindings(&rounds)?;
    Some(quote! {
        #let_p p: u128 = #p;
        #let_x x: u128 = #x;
        #(#rounds)*
        #(#stores)*
    })
}

/// The longest run of `bits` (flat positions), each reading the next at
/// `shift`: the steps a base is carried along it.
fn longest_run(bits: impl Iterator<Item = i64>, shift: i64) -> usize {
    let bits: FxHashSet<i64> = bits.collect();
    let run = |i: i64| {
        (0..)
            .take_while(|k| bits.contains(&(i + k * shift)))
            .count()
    };
    bits.iter().map(|&i| run(i)).max().unwrap_or(0)
}

/// How the doubling's `p` and `x` are bound for `rounds`: mutable only
/// where a round assigns them (one round reads `p` and never halves it);
/// `None` for no rounds, where the word stays as its base left it.
fn bindings(rounds: &[TokenStream]) -> Option<(TokenStream, TokenStream)> {
    match rounds.len() {
        0 => None,
        1 => Some((quote!(let), quote!(let mut))),
        _ => Some((quote!(let mut), quote!(let mut))),
    }
}

/// The rounds of a doubling that carry a base `longest` steps of `shift`
/// over `width` bits: round `k` reads at `2^k` steps, and the factor is
/// doubled for the next round.
fn rounds(shift: i64, longest: usize, width: i64) -> Vec<TokenStream> {
    let mut rounds = Vec::new();
    let (mut step, mut carried) = (shift.unsigned_abs(), 1);
    while carried <= longest && step < width.unsigned_abs() {
        let k = Literal::u64_unsuffixed(step);
        let read = |e: TokenStream| match shift > 0 {
            true => quote!(#e >> #k),
            false => quote!(#e << #k),
        };
        let (rx, rp) = (read(quote!(x)), read(quote!(p)));
        rounds.push(quote!(x |= p & (#rx);));
        carried *= 2;
        if carried <= longest {
            rounds.push(quote!(p &= #rp;));
        }
        step *= 2;
    }
    rounds
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

    /// The ray with a second window set: each member also reads the one
    /// before it (a fill both ways, not a ray).
    fn both_ways() -> Vec<PlaneWord> {
        let mut words = ray();
        words[0].shapes.push(ShapeMask {
            windows: vec![(0, false), (191, false)],
            fixed: Vec::new(),
            mask: 0xfe,
        });
        words
    }

    /// The base is computed first, the factors that do not change (the
    /// state window, the fixed bit) once into a local, and the ray is
    /// doubled: the factor's longest run is 7 bits, carried in 3 rounds
    /// (by 1, 2 and 4 bits), with no loop.
    #[test]
    fn a_ray_is_doubled_over_its_longest_run() {
        let code = fixpoint(&ray(), 8, false)
            .expect("a positive ray")
            .to_string();
        assert!(!code.contains("loop"), "{code}");
        let (head, rounds) = code.split_once("let mut x").expect("the plane doubled");
        assert!(head.contains("v [3] |= v [0] & (v [0] >> 1)"), "{head}");
        assert!(head.contains("let mut p = p3_0"), "{head}");
        for k in [1, 2, 4] {
            assert!(rounds.contains(&format!("x |= p & (x >> {k})")), "{rounds}");
        }
        assert!(!rounds.contains("x >> 8"), "{rounds}");
        assert!(rounds.contains("v [3] = x"), "{rounds}");
    }

    /// A ray down a column of 8-bit rows: word 3 reads the row after it,
    /// its last row word 4's first, which only has a base. The two words
    /// are doubled as one integer, over the longest run of 8 rows.
    #[test]
    fn a_ray_across_words_is_doubled_as_one_integer() {
        let words = vec![
            PlaneWord {
                word: 3,
                shapes: vec![ShapeMask {
                    windows: vec![(0, false), (200, false)],
                    fixed: Vec::new(),
                    mask: u64::MAX,
                }],
            },
            PlaneWord {
                word: 4,
                shapes: vec![ShapeMask {
                    windows: vec![(0, false), (1, false)],
                    fixed: Vec::new(),
                    mask: 0xff,
                }],
            },
        ];
        let code = fixpoint(&words, 8, false)
            .expect("a positive ray")
            .to_string();
        assert!(!code.contains("loop"), "{code}");
        assert!(
            code.contains("let mut p : u128 = u128 :: from (p3_0) ;"),
            "{code}"
        );
        for k in [8, 16, 32, 64] {
            assert!(code.contains(&format!("x |= p & (x >> {k})")), "{code}");
        }
        assert!(code.contains("v [4] = (x >> 64) as u64"), "{code}");
    }

    /// A plane read through two window sets is iterated: the loop ANDs the
    /// hoisted factors with the plane shifted by one either way.
    #[test]
    fn the_loop_reads_only_the_plane_and_hoisted_factors() {
        let code = fixpoint(&both_ways(), 8, false)
            .expect("a positive plane")
            .to_string();
        let (head, body) = code.split_once("loop").expect("a loop");
        assert!(head.contains("v [3] |= v [0] & (v [0] >> 1)"), "{head}");
        assert!(
            head.contains("let p3_0 = v [0] & 0u64 . wrapping_sub"),
            "{head}"
        );
        assert!(
            body.contains("v [3] |= (p3_0 & (v [3] >> 1)) | (p3_1 & (v [3] << 1))"),
            "{body}"
        );
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
