//! Building terms at run time: `make_<f>(args..)` gives the id of the term
//! `(f args..)`, or `NONE` when the universe has no such term.
//!
//! Where the arguments of `f`'s terms take few values per position, the
//! term is read from a dense table indexed by the arguments' ranks (one
//! load per argument and one for the term); elsewhere a lookup in the
//! sorted (arguments, term) rows through a directory built on first use.

use super::cost::{MAX_BITS, MAX_DENSE};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::facts::Universe;
use crate::backend::common::format::DataArray;
use crate::ground::db::NONE;

/// The builder function of functor `fid` and the tables it reads.
pub fn maker(u: &Universe, fid: u32) -> (TokenStream, Vec<DataArray>) {
    let arity = u.functors[fid as usize].1;
    let terms: Vec<usize> = (0..u.len()).filter(|&t| u.functor[t] == fid).collect();
    let name = format_ident!("make_{}", fid);
    let params: Vec<_> = (0..arity).map(|i| format_ident!("x{}", i)).collect();
    let domains = domains(arity, terms.iter().map(|&t| u.args[t].as_slice()));
    let size = dense_size(&domains, MAX_DENSE);
    match size {
        Some(n) => dense(u, fid, &terms, &domains, n),
        _ => sorted(u, fid, &terms, arity, &name, &params),
    }
}

/// `bit_<f>(args..)`, the state's bit of the fluent `(f args..)` (`NONE`
/// when there is no such fluent), and `holds_<f>(state, args..)`, whether
/// it holds in `state`. The bit is read from a dense table indexed by the
/// arguments' ranks among the functor's fluents (one load per argument and
/// one for the bit), or else searched in the sorted (arguments, bit) rows:
/// no term is built. `holds_<f>` only `with_holds`.
pub fn holds(
    u: &Universe,
    layout: &super::state_layout::Layout,
    (fid, with_holds): (u32, bool),
    nw: usize,
) -> (TokenStream, Vec<DataArray>) {
    let arity = u.functors[fid as usize].1;
    let fluents: Vec<(usize, u32)> = (layout.terms.iter().enumerate())
        .filter(|&(_, &t)| u.functor[t as usize] == fid)
        .map(|(bit, &t)| (bit, t))
        .collect();
    let name = format_ident!("holds_{}", fid);
    let bit_fn = format_ident!("bit_{}", fid);
    let params: Vec<_> = (0..arity).map(|i| format_ident!("x{}", i)).collect();
    let domains = domains(
        arity,
        fluents.iter().map(|&(_, t)| u.args[t as usize].as_slice()),
    );
    let (find, arrays) = find_bit(u, fid, &fluents, &domains, &params);
    let nw = Literal::usize_unsuffixed(nw);
    let doc = format!(
        " Whether the fluent `({} ..)` of these arguments holds in `state`.",
        u.functor_name(fid)
    );
    let bit_doc = format!(
        " The state's bit of the fluent `({} ..)` of these arguments (`NONE`: no such fluent).",
        u.functor_name(fid)
    );
    // Always inlined: `holds_f` calls it, and a game with many `next`
    // rules calls it from each (alexChess's 28 M calls a playout were
    // left out of line).
    let bit = quote! {
        #[doc = #bit_doc]
        #[inline(always)]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the fluent")]
        fn #bit_fn(#(#params: u32),*) -> u32 {
            #find
        }
    };
    if !with_holds {
        return (bit, arrays);
    }
    let f = quote! {
        #bit
        #[doc = #doc]
        #[inline]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the fluent")]
        fn #name(state: &[u64; #nw], #(#params: u32),*) -> bool {
            bit_set(state, #bit_fn(#(#params),*))
        }
    };
    (f, arrays)
}

/// How `bit_<f>` (functor `fid`, its `fluents` by bit, their arguments'
/// `domains`, its parameters `params`) finds a fluent's bit, and the table
/// it reads: dense by the arguments' ranks when small enough, else sorted
/// (arguments, bit) rows searched.
fn find_bit(
    u: &Universe,
    fid: u32,
    fluents: &[(usize, u32)],
    domains: &[Vec<u32>],
    params: &[proc_macro2::Ident],
) -> (TokenStream, Vec<DataArray>) {
    let prefix = format!("HOLDS_{fid}");
    let bits_name = format!("{prefix}_BIT");
    let bits = format_ident!("{}", bits_name);
    match dense_size(domains, MAX_DENSE) {
        Some(n) => {
            let Dense {
                lookups,
                index,
                mut arrays,
            } = Dense::new(&prefix, domains, &quote!(return NONE));
            let mut table = vec![NONE; n];
            for &(bit, t) in fluents {
                table[Dense::position(domains, &u.args[t as usize])] = bit as u32;
            }
            arrays.push(DataArray {
                doc: "The state's bit of each fluent of one functor, by its arguments' ranks."
                    .into(),
                name: bits_name,
                data: table,
                may_be_unused: false,
                rows: None,
            });
            (quote!(#(#lookups)* #bits[#index]), arrays)
        }
        None => {
            let mut rows: Vec<Vec<u32>> = fluents
                .iter()
                .map(|&(bit, t)| {
                    let mut row = u.args[t as usize].clone();
                    row.push(bit as u32);
                    row
                })
                .collect();
            rows.sort_unstable();
            let array = DataArray {
                doc: "The fluents of one functor: (arguments, bit), sorted.".into(),
                name: bits_name,
                data: rows.concat(),
                may_be_unused: false,
                rows: Some(params.len() + 1),
            };
            (searched_id(&bits, params.len(), params), vec![array])
        }
    }
}

/// A dense index over tuples whose position `i` takes the values
/// `domains[i]`: the statements binding each argument `x<i>`'s share of
/// the index (or running `fail` when it is outside its domain), the index
/// expression, and the rank tables (named `<prefix>_RANK_<i>`).
pub struct Dense {
    /// The statements finding the index.
    pub lookups: Vec<TokenStream>,
    /// The index of the tuple, once the lookups ran.
    pub index: TokenStream,
    /// The rank tables.
    pub arrays: Vec<DataArray>,
}

impl Dense {
    /// The index over `domains` (each sorted, none empty), tuples in
    /// row-major order.
    ///
    /// A position whose term ids are consecutive finds its rank by a
    /// subtraction; another reads a table of its ranks already multiplied
    /// by the position's stride, `NONE` for an id outside the domain, so
    /// that the index is a sum and one comparison with the tuples' count
    /// tests every such position at once (chess.kif's `holds` of a cell by
    /// file, rank and piece: three tables of term ids; 2.3% fewer
    /// instructions a playout, englishDraughts 5.1%).
    pub fn new(prefix: &str, domains: &[Vec<u32>], fail: &TokenStream) -> Dense {
        let mut lookups = Vec::new();
        let mut arrays = Vec::new();
        let mut terms = Vec::new();
        let mut stride = 1usize;
        let summed = domains.iter().any(|d| !consecutive(d));
        for (i, d) in domains.iter().enumerate().rev() {
            let lo = d[0];
            let (x, r) = (format_ident!("x{}", i), format_ident!("r{}", i));
            let len = Literal::usize_unsuffixed(d.len());
            let lo_lit = Literal::u32_unsuffixed(lo);
            if consecutive(d) {
                // Consecutive term ids: the rank is the distance from the
                // first, with no table to read.
                lookups.push(quote! {
                    let #r = #x.wrapping_sub(#lo_lit) as usize;
                    if #r >= #len {
                        #fail;
                    }
                });
                let r = match summed {
                    // Summed with the tables' shares in 64 bits.
                    true => quote!((#r as u64)),
                    false => quote!(#r),
                };
                // clippy's `identity_op` on `* 1`.
                terms.push(match stride {
                    1 => r,
                    _ => {
                        let s = Literal::usize_unsuffixed(stride);
                        quote!(#r * #s)
                    }
                });
            } else {
                let ranks = rank_table(d, lo, stride);
                let rank_table = format!("{prefix}_RANK_{i}");
                let rt = format_ident!("{}", rank_table);
                arrays.push(DataArray {
                    doc: "Rank of each term id in one argument position's domain (from the \
                          smallest id), times the position's stride; `NONE` outside it."
                        .into(),
                    name: rank_table,
                    data: ranks,
                    may_be_unused: false,
                    rows: None,
                });
                lookups.push(quote! {
                    let #r = #rt.get(#x.wrapping_sub(#lo_lit) as usize).map_or(NONE, |&r| r) as u64;
                });
                terms.push(quote!(#r));
            }
            stride *= d.len();
        }
        lookups.reverse();
        terms.reverse();
        let sum = match terms.as_slice() {
            [] => quote!(0),
            _ => quote!(#(#terms)+*),
        };
        let index = if summed {
            // A `NONE` share (above 2^32 - 2) puts the sum past the count;
            // summed in 64 bits, whatever the target's word.
            let count = Literal::u64_unsuffixed(stride as u64);
            lookups.push(quote! {
                let at = #sum;
                if at >= #count {
                    #fail;
                }
            });
            quote!(at as usize)
        } else {
            sum
        };
        Dense {
            lookups,
            index,
            arrays,
        }
    }

    /// The index of a tuple (each value in its domain).
    pub fn position(domains: &[Vec<u32>], tuple: &[u32]) -> usize {
        tuple.iter().enumerate().fold(0, |acc, (i, a)| {
            acc * domains[i].len() + domains[i].binary_search(a).expect("in its domain")
        })
    }
}

/// Per id from `lo` to the last of `domain` (sorted), its rank in `domain`
/// times `stride`, `NONE` for an id not in it: the rank tables of dense
/// indexes, static directories and masks.
pub fn rank_table(domain: &[u32], lo: u32, stride: usize) -> Vec<u32> {
    let mut ranks = vec![NONE; domain.last().map_or(0, |&hi| (hi - lo) as usize + 1)];
    for (k, &a) in domain.iter().enumerate() {
        ranks[(a - lo) as usize] = (k * stride) as u32;
    }
    ranks
}

/// Whether the term ids of `domain` (sorted, not empty) are consecutive.
pub fn consecutive(domain: &[u32]) -> bool {
    (*domain.last().expect("a value") - domain[0]) as usize + 1 == domain.len()
}

/// Per column of `domains` (each sorted), as a printed `Index` or
/// `SpanIndex` reads it: its lowest value, and how a value's rank times the
/// column's stride (the combinations of the later columns) is found, a
/// `Ranks::Run` where its ids are consecutive, else a `Ranks::Table` of the
/// rank table `{prefix}_RANK_{c}`, pushed on `arrays`.
pub fn column_ranks(
    prefix: &str,
    domains: &[Vec<u32>],
    arrays: &mut Vec<DataArray>,
) -> (Vec<Literal>, Vec<TokenStream>) {
    let (mut los, mut ranks) = (Vec::new(), Vec::new());
    for (c, d) in domains.iter().enumerate() {
        let lo = d.first().copied().unwrap_or(0);
        let stride: usize = domains[c + 1..].iter().map(|d| d.len().max(1)).product();
        los.push(Literal::u32_unsuffixed(lo));
        if !d.is_empty() && consecutive(d) {
            // Consecutive ids: the rank is a subtraction.
            let len = Literal::usize_unsuffixed(d.len());
            let stride = Literal::usize_unsuffixed(stride);
            ranks.push(quote!(Ranks::Run { len: #len, stride: #stride }));
            continue;
        }
        let rank_name = format!("{prefix}_RANK_{c}");
        let rank_ident = format_ident!("{}", rank_name);
        ranks.push(quote!(Ranks::Table(&#rank_ident)));
        arrays.push(super::tables::data(
            "Rank of each value of a key column (from the smallest) times the column's stride.",
            rank_name,
            rank_table(d, lo, stride),
        ));
    }
    (los, ranks)
}

/// The sorted values each position of `tuples` takes.
pub fn domains<'a>(arity: usize, tuples: impl Iterator<Item = &'a [u32]>) -> Vec<Vec<u32>> {
    let mut domains: Vec<Vec<u32>> = vec![Vec::new(); arity];
    for t in tuples {
        for (i, &a) in t.iter().enumerate() {
            domains[i].push(a);
        }
    }
    domains.iter_mut().for_each(|d| {
        d.sort_unstable();
        d.dedup();
    });
    domains
}

/// The number of tuples a dense index over `domains` spans, if at most
/// `max`.
pub fn dense_size(domains: &[Vec<u32>], max: usize) -> Option<usize> {
    domains
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(d.len().max(1)))
        .filter(|&n| n <= max)
}

/// A dense table indexed by the arguments' ranks in their positions'
/// domains.
fn dense(
    u: &Universe,
    fid: u32,
    terms: &[usize],
    domains: &[Vec<u32>],
    n: usize,
) -> (TokenStream, Vec<DataArray>) {
    let name = format_ident!("make_{}", fid);
    let prefix = format!("MAKE_{fid}");
    let Dense {
        lookups,
        index,
        mut arrays,
    } = Dense::new(&prefix, domains, &quote!(return NONE));
    let mut table = vec![NONE; n];
    for &t in terms {
        table[Dense::position(domains, &u.args[t])] = t as u32;
    }
    let terms_table = format!("{prefix}_TERMS");
    let tt = format_ident!("{}", terms_table);
    arrays.push(DataArray {
        doc: "The terms of one functor, by their arguments' ranks.".into(),
        name: terms_table,
        data: table,
        may_be_unused: false,
        rows: None,
    });
    let params = (0..domains.len()).map(|i| format_ident!("x{}", i));
    let doc = format!(
        " The term `({} ..)` of these arguments.",
        u.functor_name(fid)
    );
    let f = quote! {
        #[doc = #doc]
        #[inline]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the term")]
        fn #name(#(#params: u32),*) -> u32 {
            #(#lookups)*
            #tt[#index]
        }
    };
    (f, arrays)
}

/// Sorted (arguments, term) rows, searched.
fn sorted(
    u: &Universe,
    fid: u32,
    terms: &[usize],
    arity: usize,
    name: &proc_macro2::Ident,
    params: &[proc_macro2::Ident],
) -> (TokenStream, Vec<DataArray>) {
    let mut rows: Vec<Vec<u32>> = terms
        .iter()
        .map(|&t| {
            let mut row = u.args[t].clone();
            row.push(t as u32);
            row
        })
        .collect();
    rows.sort_unstable();
    let table = format!("MAKE_{fid}");
    let tt = format_ident!("{}", table);
    let doc = format!(
        " The term `({} ..)` of these arguments.",
        u.functor_name(fid)
    );
    let find = searched_id(&tt, arity, params);
    let f = quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the term")]
        fn #name(#(#params: u32),*) -> u32 {
            #find
        }
    };
    let array = DataArray {
        doc: "Terms of one functor: (arguments, term), sorted.".into(),
        name: table,
        data: rows.concat(),
        may_be_unused: false,
        rows: Some(arity + 1),
    };
    (f, vec![array])
}

/// The expression reading the id in the last column of `table`'s row
/// (rows of the `arity` arguments and the id, sorted) whose arguments are
/// `params`, `NONE` if none: through a directory over the leading columns
/// ([`gdl_runtime::lifted::Keyed`]), which leaves a run of a few rows to
/// search, where a binary search over the whole table takes a step per
/// halving (amazons' moves, 6 arguments and 130 K rows: 19% fewer
/// instructions a playout through the directory).
fn searched_id(
    table: &proc_macro2::Ident,
    arity: usize,
    params: &[proc_macro2::Ident],
) -> TokenStream {
    let w = Literal::usize_unsuffixed(arity + 1);
    let k = Literal::usize_unsuffixed(arity);
    quote! {
        /// The table, looked up by its arguments.
        static INDEX: Keyed<#w> = Keyed::new(&#table, #k);
        INDEX.rows(&[#(#params),*]).first().map_or(NONE, |row| row[#k])
    }
}

/// The test `in_<rel>(args..)` of static relation `rel`'s `tuples`: a bit
/// set indexed by the arguments' ranks where it is small, else a binary
/// search in the sorted tuples.
pub fn static_check(
    name: &str,
    tuples: &[Vec<u32>],
    arity: usize,
) -> (TokenStream, Vec<DataArray>) {
    let f = format_ident!("in_{}", name);
    let params: Vec<_> = (0..arity).map(|i| format_ident!("x{}", i)).collect();
    let doc = format!(" Whether `{name}` holds of these arguments (a static relation).");
    let prefix = format!("IN_{}", name.to_ascii_uppercase());
    if tuples.is_empty() {
        // No tuple: the arguments go unread.
        let params: Vec<_> = (0..arity).map(|i| format_ident!("_x{}", i)).collect();
        let f = quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, reason = "one argument per argument of the relation")]
            fn #f(#(#params: u32),*) -> bool {
                false
            }
        };
        return (f, Vec::new());
    }
    let domains = domains(arity, tuples.iter().map(Vec::as_slice));
    if let Some(n) = dense_size(&domains, MAX_BITS) {
        let Dense {
            lookups,
            index,
            mut arrays,
        } = Dense::new(&prefix, &domains, &quote!(return false));
        let mut bits = vec![0u32; n.div_ceil(32)];
        for t in tuples {
            let i = Dense::position(&domains, t);
            bits[i / 32] |= 1 << (i % 32);
        }
        let bt = format_ident!("{}_BITS", prefix);
        arrays.push(DataArray {
            doc: "A static relation's tuples, one bit each, by their arguments' ranks.".into(),
            name: bt.to_string(),
            data: bits,
            may_be_unused: false,
            rows: None,
        });
        let f = quote! {
            #[doc = #doc]
            #[inline]
            #[allow(clippy::too_many_arguments, reason = "one argument per argument of the relation")]
            fn #f(#(#params: u32),*) -> bool {
                #(#lookups)*
                let i = #index;
                (#bt[i >> 5] >> (i & 31)) & 1 != 0
            }
        };
        return (f, arrays);
    }
    let mut rows = tuples.to_vec();
    rows.sort_unstable();
    rows.dedup();
    let tt = format_ident!("{}_ROWS", prefix);
    let index = format_ident!("{}_INDEX", prefix);
    let w = Literal::usize_unsuffixed(arity);
    // A directory over the leading columns leaves a run of a few rows to
    // search, where a binary search over the whole table would take a
    // dozen steps (Othello's `adj`, 5 columns: 54% of the time).
    let f = quote! {
        /// The table beside, looked up by all its columns.
        static #index: Keyed<#w> = Keyed::new(&#tt, #w);
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the relation")]
        fn #f(#(#params: u32),*) -> bool {
            #index.holds(&[#(#params),*])
        }
    };
    let array = DataArray {
        doc: "A static relation's tuples, sorted.".into(),
        name: tt.to_string(),
        data: rows.concat(),
        may_be_unused: false,
        rows: Some(arity),
    };
    (f, vec![array])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_index_sums_each_position_s_share_in_row_major_order() {
        // Positions 0 and 2 by tables (ids apart), position 1 by distance.
        let domains = [vec![2, 5, 9], vec![3, 4], vec![7, 8, 20]];
        let dense = Dense::new("T", &domains, &quote!(return NONE));
        let table = |name: &str| {
            let a = dense.arrays.iter().find(|a| a.name == name);
            a.expect("a rank table").data.clone()
        };
        assert_eq!(dense.arrays.len(), 2);
        let (first, last) = (table("T_RANK_0"), table("T_RANK_2"));
        // Ranks times strides (6 and 1), `NONE` for the ids between.
        assert_eq!(first[0], 0);
        assert_eq!(first[3], 6);
        assert_eq!(first[7], 12);
        assert_eq!(first.iter().filter(|&&r| r == NONE).count(), 5);
        assert_eq!((last[0], last[1], last[13]), (0, 1, 2));
        for a in &domains[0] {
            for b in &domains[1] {
                for c in &domains[2] {
                    let share = first[(a - 2) as usize] + (b - 3) * 3 + last[(c - 7) as usize];
                    assert_eq!(share as usize, Dense::position(&domains, &[*a, *b, *c]));
                }
            }
        }
        // One sum and one test of it, which an id outside a domain fails.
        let code = dense
            .lookups
            .iter()
            .map(|l| l.to_string())
            .collect::<String>();
        assert!(
            code.contains("let at = r0 + (r1 as u64) * 3 + r2"),
            "{code}"
        );
        assert!(code.contains("if at >= 18"), "{code}");
        assert_eq!(dense.index.to_string(), "at as usize");
        // Consecutive ids only: no table, no sum test.
        let plain = Dense::new("U", &[vec![4, 5], vec![1, 2, 3]], &quote!(return NONE));
        assert!(plain.arrays.is_empty());
        assert_eq!(plain.index.to_string(), "r0 * 3 + r1");
        // One table: its share summed and tested the same way.
        let one = Dense::new("V", &[vec![2, 5], vec![1, 2]], &quote!(return NONE));
        assert_eq!(one.arrays[0].data, [0, NONE, NONE, 2]);
        assert_eq!(one.index.to_string(), "at as usize");
    }
}
