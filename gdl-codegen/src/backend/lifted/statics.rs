//! The static relations' tables the rules read by bound columns: each
//! sorted, bound columns first, with its index, a directory computed here
//! where small (`gdl_runtime::lifted::Index`), else built at the first
//! lookup (`gdl_runtime::lifted::Keyed`).

use super::cost::{MAX_FIXED_CELLS, MAX_FIXED_RANKS};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::access::TablePlan;
use super::facts::Facts;
use super::module::usize_lit;
use super::needs::Needs;
use super::static_table_name;
use super::tables::data;
use crate::backend::common::format::DataArray;

/// The sorted constant table of static relation `rel` called with `bound`
/// (bound columns first) into `arrays`, and its lookup directory into
/// `makers` when some column is bound.
pub fn static_tables(
    facts: &Facts,
    (reg, planned): (&Needs, &TablePlan),
    arrays: &mut Vec<DataArray>,
    makers: &mut Vec<TokenStream>,
) {
    for &(rel, bound) in &planned.statics {
        let arity = reg.arity[rel as usize];
        if planned.built_at_run_time(rel) {
            // Built at run time (see [`super::run_time_tables`]).
            continue;
        }
        let order = bound_first(bound, arity);
        let mut rows: Vec<Vec<u32>> = facts.statics[rel as usize]
            .as_ref()
            .map(|ts| {
                ts.iter()
                    .map(|t| order.iter().map(|&i| t[i]).collect())
                    .collect()
            })
            .unwrap_or_default();
        rows.sort_unstable();
        rows.dedup();
        let name = static_table_name(&reg.names[rel as usize], bound, arity);
        if bound != 0 {
            let keys = bound.count_ones() as usize;
            let index = match fixed_index(&name, &rows, keys, arity) {
                Some((index, mut tables)) => {
                    arrays.append(&mut tables);
                    index
                }
                None => {
                    let index = format_ident!("{}_INDEX", name);
                    let (w, k) = (usize_lit(arity), usize_lit(keys));
                    quote! {
                        /// The table beside, looked up by its bound columns.
                        static #index: Keyed<#w> = Keyed::new(&#name, #k);
                    }
                }
            };
            makers.push(index);
        }
        arrays.push(DataArray {
            rows: (arity > 0).then_some(arity),
            ..data(
                "A static relation's tuples, bound columns first, sorted.",
                name.to_string(),
                rows.concat(),
            )
        });
    }
}

/// The index of static table `name` (`rows`, sorted, of `arity` numbers)
/// by its first `keys` columns, with its directory computed here
/// (`gdl_runtime::lifted::Index`) and its tables, if small enough.
fn fixed_index(
    name: &proc_macro2::Ident,
    rows: &[Vec<u32>],
    keys: usize,
    arity: usize,
) -> Option<(TokenStream, Vec<DataArray>)> {
    let domains = super::term_tables::domains(keys, rows.iter().map(|r| &r[..keys]));
    let cells = domains
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(d.len().max(1)))?;
    if cells > MAX_FIXED_CELLS {
        return None;
    }
    let span = |d: &Vec<u32>| d.last().map_or(0, |&hi| (hi - d[0]) as usize + 1);
    if domains.iter().any(|d| span(d) > MAX_FIXED_RANKS) {
        return None;
    }
    let mut arrays = Vec::new();
    let (los, ranks) = super::term_tables::column_ranks(&name.to_string(), &domains, &mut arrays);
    // Rows sorted by their keys: the rows of one combination of ranks
    // follow each other, combinations in order.
    let mut starts = vec![0u32; cells + 1];
    for row in rows {
        let cell = super::term_tables::Dense::position(&domains, &row[..keys]);
        starts[cell + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    // Each combination's rows, a slice of the table made in the static.
    let cells = starts.windows(2).map(|c| match c[1] - c[0] {
        0 => quote!(&[]),
        n => {
            let (a, n) = (Literal::u32_unsuffixed(c[0]), Literal::u32_unsuffixed(n));
            quote!(run(&#name, #a, #n))
        }
    });
    let index = format_ident!("{}_INDEX", name);
    let runs = format_ident!("{}_RUNS", name);
    let (k, w, c) = (
        usize_lit(keys),
        usize_lit(arity),
        usize_lit(starts.len() - 1),
    );
    let item = quote! {
        /// The table beside, looked up by its bound columns.
        static #index: Index<#k, #w> = Index {
            lo: [#(#los),*],
            ranks: [#(#ranks),*],
            runs: &#runs,
        };
        /// The rows of each combination of key ranks.
        static #runs: [&[[u32; #w]]; #c] = [#(#cells),*];
    };
    Some((item, arrays))
}

/// The columns of a table of `arity` arguments looked up by `bound` ones:
/// the bound first, then the others, each in order.
pub fn bound_first(bound: u32, arity: usize) -> Vec<usize> {
    (0..arity)
        .filter(|i| bound >> i & 1 == 1)
        .chain((0..arity).filter(|i| bound >> i & 1 == 0))
        .collect()
}
