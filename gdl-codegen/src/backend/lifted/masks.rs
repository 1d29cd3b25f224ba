//! The state's masks by argument values: for a scan of `true(f(..))` with
//! some arguments bound, the fluents of `f` with those values there, so
//! that the scan reads them and not every fluent of `f`.
//!
//! A mask covers one or several arguments ([`super::Estimates::
//! scan_positions`] picks them): `(cell ?x ?y ?piece)` with `?x` and `?y`
//! bound reads the one or two fluents of that square, where a mask on `?x`
//! alone would give the whole column to test `?y` on.

use super::cost::MAX_FIXED_RANKS;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::facts::Facts;
use super::state_layout::Layout;
use super::tables::mask_span;
use super::term_tables::{column_ranks, consecutive, domains, Dense};
use crate::backend::common::format::DataArray;

/// Whether a mask whose positions' fluents hold `domains` (each position's
/// values, sorted) finds its span through a `SpanIndex` (each value's rank
/// by a subtraction where a position's values are consecutive ids, else by
/// a table spanning at most [`MAX_FIXED_RANKS`] ids), where a search of
/// the sorted values took a step per halving each (englishDraughts' and
/// speedChess's two-position masks).
pub fn indexed(domains: &[&[u32]]) -> bool {
    domains.iter().all(|d| match (d.first(), d.last()) {
        (Some(&lo), Some(&hi)) => consecutive(d) || ((hi - lo) as usize) < MAX_FIXED_RANKS,
        _ => false,
    })
}

/// The names of the value tables of `positions` of functor `fid` (one per
/// position), of its masks and of their index.
fn names(fid: u32, positions: &[usize]) -> (Vec<Ident>, Ident, Ident) {
    let vals = positions
        .iter()
        .map(|p| format_ident!("VALS_{}_{}", fid, p))
        .collect();
    let suffix: Vec<String> = positions.iter().map(usize::to_string).collect();
    let masks = format!("MASKS_{}_{}", fid, suffix.join("_"));
    (
        vals,
        format_ident!("{}", masks),
        format_ident!("{}_INDEX", masks),
    )
}

/// The span of the masks of `positions` of functor `fid` for the values
/// `values` of those positions: through their index where [`indexed`],
/// else by searching the sorted values.
pub fn lookup(fid: u32, positions: &[usize], values: &[TokenStream], indexed: bool) -> TokenStream {
    let (vals, masks, index) = names(fid, positions);
    match (vals.as_slice(), values) {
        _ if indexed => quote!(#index.span([#(#values),*])),
        ([v], [x]) => quote!(value_span(&#v, &#masks, #x)),
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
/// table once (or an index and its rank tables, into `arrays`), and a mask
/// per combination of values.
pub fn items<'a>(
    facts: &Facts,
    layout: &Layout,
    nw: usize,
    used: impl IntoIterator<Item = &'a (u32, Vec<usize>)>,
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let mut items = TokenStream::new();
    let mut vals_done = std::collections::BTreeSet::new();
    for (fid, positions) in used {
        let (values, by_combination) = combinations(facts, *fid, positions);
        let (vals_names, masks_name, index_name) = names(*fid, positions);
        let domains: Vec<&[u32]> = values.iter().map(Vec::as_slice).collect();
        if indexed(&domains) {
            items.extend(span_index(&index_name, &masks_name, &values, arrays));
        } else {
            for ((name, v), p) in vals_names.iter().zip(&values).zip(positions) {
                if vals_done.insert((*fid, *p)) {
                    let k = Literal::usize_unsuffixed(v.len());
                    let v = v.iter().map(|&x| Literal::u32_unsuffixed(x));
                    items.extend(quote! {
                        /// The values of one argument among one functor's fluents, sorted.
                        static #name: [u32; #k] = [#(#v),*];
                    });
                }
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

/// The `SpanIndex` of the masks `masks` over positions whose values are
/// `values` ([`indexed`]), its rank tables pushed on `arrays`.
fn span_index(
    index: &Ident,
    masks: &Ident,
    values: &[Vec<u32>],
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let (los, ranks) = column_ranks(&index.to_string(), values, arrays);
    let n = Literal::usize_unsuffixed(values.len());
    quote! {
        /// The masks beside, found by their arguments' values.
        static #index: SpanIndex<#n> = SpanIndex {
            lo: [#(#los),*],
            ranks: [#(#ranks),*],
            spans: &#masks,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_of_consecutive_or_near_ids_are_indexed_others_searched() {
        assert!(indexed(&[&[3, 40, 4095]]));
        assert!(indexed(&[&[9000, 9001, 9002], &[5, 7]]));
        assert!(!indexed(&[&[3, 20_000]]));
        assert!(!indexed(&[&[9000, 9001], &[]]));
        let x = [quote!(v1)];
        let by_index = lookup(7, &[2], &x, true).to_string();
        assert_eq!(by_index, "MASKS_7_2_INDEX . span ([v1])");
        let searched = lookup(7, &[2], &x, false).to_string();
        assert_eq!(searched, "value_span (& VALS_7_2 , & MASKS_7_2 , v1)");
        let two = lookup(7, &[0, 2], &[quote!(v0), quote!(v1)], false).to_string();
        assert!(
            two.starts_with("value_spans ([& VALS_7_0 , & VALS_7_2]"),
            "{two}"
        );
    }
}
