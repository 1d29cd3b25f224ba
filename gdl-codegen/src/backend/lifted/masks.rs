//! The state's masks by argument values: for a scan of `true(f(..))` with
//! some arguments bound, the fluents of `f` with those values there, so
//! that the scan reads them and not every fluent of `f`.
//!
//! A mask covers one or several arguments ([`super::Estimates::
//! scan_positions`] picks them): `(cell ?x ?y ?piece)` with `?x` and `?y`
//! bound reads the one or two fluents of that square, where a mask on `?x`
//! alone would give the whole column to test `?y` on.

use super::cost::MAX_RANKED_ID;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::facts::Facts;
use super::state_layout::Layout;
use super::tables::mask_span;
use super::term_tables::{domains, rank_table, Dense};

/// Whether a mask on one position whose fluents hold `values` (sorted)
/// there finds a value's rank by a table indexed by id ([`MAX_RANKED_ID`]).
pub fn ranked(values: &[u32]) -> bool {
    values.last().is_some_and(|&hi| hi < MAX_RANKED_ID)
}

/// The names of the value tables of `positions` of functor `fid` (one per
/// position), of their rank tables and of its masks.
fn names(fid: u32, positions: &[usize]) -> (Vec<Ident>, Vec<Ident>, Ident) {
    let vals = positions
        .iter()
        .map(|p| format_ident!("VALS_{}_{}", fid, p))
        .collect();
    let ranks = positions
        .iter()
        .map(|p| format_ident!("RANKS_{}_{}", fid, p))
        .collect();
    let suffix: Vec<String> = positions.iter().map(usize::to_string).collect();
    (
        vals,
        ranks,
        format_ident!("MASKS_{}_{}", fid, suffix.join("_")),
    )
}

/// The span of the masks of `positions` of functor `fid` for the values
/// `values` of those positions: one position's by its rank table where
/// [`ranked`], else by searching the sorted values.
pub fn lookup(fid: u32, positions: &[usize], values: &[TokenStream], ranked: bool) -> TokenStream {
    let (vals, ranks, masks) = names(fid, positions);
    match (vals.as_slice(), ranks.as_slice(), values) {
        (_, [r], [x]) if ranked => quote!(ranked_span(&#r, &#masks, #x)),
        ([v], _, [x]) => quote!(value_span(&#v, &#masks, #x)),
        _ => quote!(value_spans([#(&#vals),*], &#masks, [#(#values),*])),
    }
}

/// The values of `positions` among the fluents of functor `fid` (sorted,
/// per position) and its fluents (terms) by combination of their ranks,
/// the first most significant.
fn combinations(
    facts: &Facts,
    fid: u32,
    positions: &[usize],
) -> (Vec<Vec<u32>>, BTreeMap<usize, Vec<u32>>) {
    let u = &facts.universe;
    let fluents: Vec<(u32, Vec<u32>)> = (facts.fluents.iter())
        .filter(|&&t| u.functor[t as usize] == fid)
        .map(|&t| {
            (
                t,
                positions.iter().map(|&p| u.args[t as usize][p]).collect(),
            )
        })
        .collect();
    let values = domains(positions.len(), fluents.iter().map(|(_, k)| k.as_slice()));
    let mut by_combination: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for (t, key) in &fluents {
        by_combination
            .entry(Dense::position(&values, key))
            .or_default()
            .push(*t);
    }
    (values, by_combination)
}

/// The words of the masks of `positions` of functor `fid` under a layout
/// (its [`Layout::bit_of_term`]): each combination's span, from the word
/// of its first fluent to that of its last.
pub fn table_words(
    facts: &Facts,
    bit_of: &FxHashMap<u32, u32>,
    fid: u32,
    positions: &[usize],
) -> usize {
    let (_, by_combination) = combinations(facts, fid, positions);
    (by_combination.values())
        .map(|ts| {
            let words = ts.iter().map(|t| bit_of[t] / 64);
            let (lo, hi) = words.fold((u32::MAX, 0), |(lo, hi), w| (lo.min(w), hi.max(w)));
            (hi - lo) as usize + 1
        })
        .sum()
}

/// The items of the masks `used` (by functor and positions): each value
/// table once, and a mask per combination of values.
pub fn items<'a>(
    facts: &Facts,
    layout: &Layout,
    nw: usize,
    used: impl IntoIterator<Item = &'a (u32, Vec<usize>)>,
) -> TokenStream {
    let mut items = TokenStream::new();
    let mut vals_done = std::collections::BTreeSet::new();
    for (fid, positions) in used {
        let (values, by_combination) = combinations(facts, *fid, positions);
        let (vals_names, ranks_names, masks_name) = names(*fid, positions);
        let by_rank = positions.len() == 1 && ranked(&values[0]);
        for (((name, rname), v), p) in vals_names
            .iter()
            .zip(&ranks_names)
            .zip(&values)
            .zip(positions)
        {
            if by_rank && vals_done.insert((*fid, *p, true)) {
                let ranks = rank_table(v, 0, 1);
                let n = Literal::usize_unsuffixed(ranks.len());
                let ranks = ranks.iter().map(|&x| Literal::u32_unsuffixed(x));
                items.extend(quote! {
                    /// The rank of each term id among the values of one argument of one
                    /// functor's fluents (`NONE`: not among them).
                    static #rname: [u32; #n] = [#(#ranks),*];
                });
            }
            if !by_rank && vals_done.insert((*fid, *p, false)) {
                let k = Literal::usize_unsuffixed(v.len());
                let v = v.iter().map(|&x| Literal::u32_unsuffixed(x));
                items.extend(quote! {
                    /// The values of one argument among one functor's fluents, sorted.
                    static #name: [u32; #k] = [#(#v),*];
                });
            }
        }
        let combinations: usize = values.iter().map(Vec::len).product();
        let rows = (0..combinations).map(|k| match by_combination.get(&k) {
            Some(ts) => mask_span(layout, nw, |t| ts.contains(&t)),
            None => quote!(Span::EMPTY),
        });
        let n = Literal::usize_unsuffixed(combinations);
        items.extend(quote! {
            /// Per value (or combination of values) of the arguments, the
            /// fluents with it there.
            static #masks_name: [Span; #n] = [#(#rows),*];
        });
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_position_of_small_ids_is_ranked_by_table_others_searched() {
        assert!(ranked(&[3, 40, 4095]));
        assert!(!ranked(&[3, 4096]));
        let x = [quote!(v1)];
        let by_table = lookup(7, &[2], &x, true).to_string();
        assert_eq!(by_table, "ranked_span (& RANKS_7_2 , & MASKS_7_2 , v1)");
        let searched = lookup(7, &[2], &x, false).to_string();
        assert_eq!(searched, "value_span (& VALS_7_2 , & MASKS_7_2 , v1)");
        let two = lookup(7, &[0, 2], &[quote!(v0), quote!(v1)], true).to_string();
        assert!(
            two.starts_with("value_spans ([& VALS_7_0 , & VALS_7_2]"),
            "{two}"
        );
    }
}
