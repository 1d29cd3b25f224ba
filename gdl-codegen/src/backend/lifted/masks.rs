//! The state's masks by argument values: for a scan of `true(f(..))` with
//! some arguments bound, the fluents of `f` with those values there, so
//! that the scan reads them and not every fluent of `f`.
//!
//! A mask covers one or several arguments ([`super::Registry::
//! scan_positions`] picks them): `(cell ?x ?y ?piece)` with `?x` and `?y`
//! bound reads the one or two fluents of that square, where a mask on `?x`
//! alone would give the whole column to test `?y` on.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::facts::Facts;
use super::layout::Layout;
use super::module::mask_span;
use super::terms::{domains, Dense};

/// The names of the value tables of `positions` of functor `fid` (one per
/// position) and of its masks.
pub fn names(fid: u32, positions: &[usize]) -> (Vec<Ident>, Ident) {
    let vals = positions
        .iter()
        .map(|p| format_ident!("VALS_{}_{}", fid, p))
        .collect();
    let suffix: Vec<String> = positions.iter().map(usize::to_string).collect();
    (vals, format_ident!("MASKS_{}_{}", fid, suffix.join("_")))
}

/// The span of the masks `masks` (from [`names`]) for the values `values`
/// of their positions.
pub fn lookup(vals: &[Ident], masks: &Ident, values: &[TokenStream]) -> TokenStream {
    match (vals, values) {
        ([v], [x]) => quote!(value_span(&#v, &#masks, #x)),
        _ => quote!(value_spans([#(&#vals),*], &#masks, [#(#values),*])),
    }
}

/// The items of the masks `used` (by functor and positions): each value
/// table once, and a mask per combination of values.
pub fn items<'a>(
    facts: &Facts,
    layout: &Layout,
    nw: usize,
    used: impl IntoIterator<Item = &'a (u32, Vec<usize>)>,
) -> TokenStream {
    let u = &facts.universe;
    let mut items = TokenStream::new();
    let mut vals_done = std::collections::BTreeSet::new();
    for (fid, positions) in used {
        // The functor's fluents, each with its values at `positions`.
        let fluents: Vec<(u32, Vec<u32>)> = facts
            .fluents
            .iter()
            .filter(|&&t| u.functor[t as usize] == *fid)
            .map(|&t| {
                (
                    t,
                    positions.iter().map(|&p| u.args[t as usize][p]).collect(),
                )
            })
            .collect();
        let values = domains(positions.len(), fluents.iter().map(|(_, k)| k.as_slice()));
        let (vals_names, masks_name) = names(*fid, positions);
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
        // Each fluent's combination of ranks, the first most significant.
        let mut by_combination: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for (t, key) in &fluents {
            let k = Dense::position(&values, key);
            by_combination.entry(k).or_default().push(*t);
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
