//! The module's constant tables: static relations, masks, fluent rows,
//! goal values, text tables.

use super::cost::MAX_GOAL_SPAN;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::access::TablePlan;
use super::facts::{Facts, Universe};
use super::mask_name;
use super::module::{hex, usize_lit};
use super::needs::Needs;
use super::state_layout::Layout;
use crate::backend::common::format::DataArray;
use crate::ground::db::NONE;

/// A data array of one number a row, named `name`, with its doc comment.
pub fn data(doc: &str, name: impl Into<String>, data: Vec<u32>) -> DataArray {
    DataArray {
        doc: doc.to_owned(),
        name: name.into(),
        data,
        may_be_unused: true,
        rows: None,
    }
}

/// The constant tables: terms, fluents, moves, goals, static relations,
/// term builders (as data arrays), masks and the initial state (as items).
pub(super) fn tables(
    facts: &Facts,
    (reg, planned): (&Needs, &TablePlan),
    layout: &Layout,
    nw: usize,
) -> (Vec<DataArray>, TokenStream) {
    let u = &facts.universe;
    let mut arrays = Vec::new();
    term_arrays(u, layout, &mut arrays);
    let nr = facts.roles.len();
    let move_refs = move_arrays(facts, &mut arrays);
    let goal_value = goal_values(u, &mut arrays);
    let mut makers = makers_and_checks(facts, (reg, planned), &mut arrays);
    super::statics::static_tables(facts, (reg, planned), &mut arrays, &mut makers);
    super::hybrid::items(facts, reg, layout, nw, &mut makers);
    let nwl = usize_lit(nw);
    let masks = reg.masks.iter().map(|&fid| {
        let name = mask_name(fid);
        let span = mask_span(layout, nw, |t| {
            fid.is_none_or(|f| u.functor[t as usize] == f)
        });
        quote!(static #name: Span = #span;)
    });
    let value_masks = super::masks::items(facts, layout, nw, &planned.value_masks, &mut arrays);
    let filters = super::filters::items(facts, layout, &planned.filters, &mut arrays);
    let prejoins = super::prejoin::items(facts, layout, &planned.prejoins, &mut arrays);
    let fluent_items = fluent_tables(facts, reg, layout, nw, &mut arrays);
    let init = {
        let mut words = vec![0u64; nw];
        for &f in &facts.init {
            let b = layout.bit_of[f as usize];
            words[b as usize / 64] |= 1 << (b % 64);
        }
        words.into_iter().map(hex)
    };
    let role_terms = facts.roles.iter().map(|&t| Literal::u32_unsuffixed(t));
    let nrl = usize_lit(nr);
    let consts = quote! {
        #(#makers)*
        #(#masks)*
        #value_masks
        #filters
        #prejoins
        #fluent_items
        static INIT: [u64; #nwl] = [#(#init),*];
        static ROLE_TERM: [u32; #nrl] = [#(#role_terms),*];
        static MOVE_TERMS: [&[u32]; #nrl] = [#(#move_refs),*];
        #goal_value
    };
    (arrays, consts)
}

/// Adds the terms' arrays to `arrays`: each term's functor and arguments,
/// the fluent term at each bit of the state and each term's bit.
fn term_arrays(u: &Universe, layout: &Layout, arrays: &mut Vec<DataArray>) {
    let mut starts = vec![0u32];
    let mut args = Vec::new();
    for a in &u.args {
        args.extend_from_slice(a);
        starts.push(args.len() as u32);
    }
    arrays.push(data(
        "Functor of each term (`NONE` for constants).",
        "FUNCTOR",
        u.functor.clone(),
    ));
    arrays.push(data(
        "Where each term's arguments start in [`ARGS`].",
        "ARG_START",
        starts,
    ));
    arrays.push(data("The terms' arguments.", "ARGS", args));
    arrays.push(data(
        "The term of the fluent at each bit of the state.",
        "FLUENT_TERM",
        layout.terms.clone(),
    ));
    let mut fluent_of = vec![NONE; u.len()];
    for (i, &t) in layout.terms.iter().enumerate() {
        fluent_of[t as usize] = i as u32;
    }
    arrays.push(data(
        "The state's bit of each term (`NONE` if not a fluent).",
        "FLUENT_OF",
        fluent_of,
    ));
}

/// Adds the moves' arrays to `arrays` (each term's rank among the move
/// terms, per role its move terms and its move id by rank); the
/// references to each role's move terms, in role order.
fn move_arrays(facts: &Facts, arrays: &mut Vec<DataArray>) -> Vec<TokenStream> {
    let u = &facts.universe;
    let mut move_refs = Vec::new();
    // Every role's move terms, ranked: a term's rank, then the role's move
    // id at that rank, in two array reads (a search per legal move took
    // 8% of chess.kif's playouts).
    let mut all_moves: Vec<u32> = facts.moves.iter().flatten().copied().collect();
    all_moves.sort_unstable();
    all_moves.dedup();
    let mut move_rank = vec![NONE; u.len()];
    for (k, &t) in all_moves.iter().enumerate() {
        move_rank[t as usize] = k as u32;
    }
    arrays.push(data(
        "The rank of each term among the move terms of every role (`NONE` if not a move).",
        "MOVE_RANK",
        move_rank,
    ));
    for (r, ms) in facts.moves.iter().enumerate() {
        arrays.push(data(
            "The term of each move of a role.",
            format!("MOVE_TERMS_{r}"),
            ms.clone(),
        ));
        let mut of = vec![NONE; all_moves.len()];
        for (i, &t) in ms.iter().enumerate() {
            if let Ok(k) = all_moves.binary_search(&t) {
                of[k] = i as u32;
            }
        }
        arrays.push(data(
            "A role's move id of each move term by rank (`NONE`: not the role's).",
            format!("MOVE_OF_{r}"),
            of,
        ));
        let m = format_ident!("MOVE_TERMS_{}", r);
        move_refs.push(quote!(&#m));
    }
    move_refs
}

/// The term builders the code needs (`make_<f>`) and the static relations'
/// checks, their tables added to `arrays`.
fn makers_and_checks(
    facts: &Facts,
    (reg, planned): (&Needs, &TablePlan),
    arrays: &mut Vec<DataArray>,
) -> Vec<TokenStream> {
    let u = &facts.universe;
    let mut makers = Vec::new();
    for &fid in &reg.made {
        let (f, mut tables) = super::term_tables::maker(u, fid);
        makers.push(f);
        arrays.append(&mut tables);
    }
    for &rel in &planned.checks {
        if planned.built_at_run_time(rel) {
            // Built at run time (see [`super::run_time_tables`]).
            continue;
        }
        let tuples = facts.statics[rel as usize].as_deref().unwrap_or_default();
        let (f, mut tables) = super::term_tables::static_check(
            &reg.names[rel as usize],
            tuples,
            reg.arity[rel as usize],
        );
        makers.push(f);
        arrays.append(&mut tables);
    }
    makers
}

/// `goal_value(t)`, the goal value of term `t` (`None`: not a number from 0
/// to 255), and the table it reads. The number terms usually lie close
/// together, so a table indexed by the term from the first of them is
/// read without a search: a goal query is a few table reads in fast games.
pub(super) fn goal_values(u: &Universe, arrays: &mut Vec<DataArray>) -> TokenStream {
    let goals: Vec<(u32, u32)> = (0..u.len())
        .filter(|&t| u.functor[t] == NONE)
        .filter_map(|t| {
            u.text[t]
                .parse::<u8>()
                .ok()
                .map(|v| (t as u32, u32::from(v)))
        })
        .collect();
    let (first, last) = match (goals.first(), goals.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => (0, 0),
    };
    if ((last - first) as usize) < MAX_GOAL_SPAN {
        let mut dense = vec![NONE; (last - first) as usize + usize::from(!goals.is_empty())];
        for &(t, v) in &goals {
            dense[(t - first) as usize] = v;
        }
        arrays.push(data(
            "Goal values by term, from the first number term (`NONE`: not a number).",
            "GOAL_VALUES",
            dense,
        ));
        let first = Literal::u32_unsuffixed(first);
        quote! {
            /// The goal value of term `t`, if it is a number from 0 to 255.
            fn goal_value(t: u32) -> Option<u32> {
                GOAL_VALUES.get(t.wrapping_sub(#first) as usize).copied().filter(|&v| v != NONE)
            }
        }
    } else {
        let pairs = goals.iter().flat_map(|&(t, v)| [t, v]).collect();
        arrays.push(data(
            "Goal values by term: (term, value), sorted.",
            "GOAL_VALUES",
            pairs,
        ));
        quote! {
            /// The goal value of term `t`, if it is a number from 0 to 255.
            fn goal_value(t: u32) -> Option<u32> {
                rows(&GOAL_VALUES, 2, &[t]).get(1).copied()
            }
        }
    }
}

/// A fluent mask as an array literal: the bits of the fluents whose term
/// satisfies `holds`.
pub fn mask_span(layout: &Layout, nw: usize, holds: impl Fn(u32) -> bool) -> TokenStream {
    let mut words = vec![0u64; nw];
    for (i, &t) in layout.terms.iter().enumerate() {
        if holds(t) {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    let first = words.iter().position(|&w| w != 0).unwrap_or(0);
    let end = words.iter().rposition(|&w| w != 0).map_or(first, |i| i + 1);
    let words = words[first..end].iter().map(|&w| hex(w));
    let first = usize_lit(first);
    quote!(Span { first: #first, words: &[#(#words),*] })
}

/// The items that read fluents by functor: `holds_f` for each functor
/// tested from its arguments, `FLUENT_FIRST_f` for each whose rows scans
/// read; their tables go to `arrays`.
pub(super) fn fluent_tables(
    facts: &Facts,
    reg: &Needs,
    layout: &Layout,
    nw: usize,
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let mut items = Vec::new();
    for &fid in reg.held.union(&reg.bits) {
        let holds = reg.held.contains(&fid);
        let (f, mut tables) = super::term_tables::holds(&facts.universe, layout, (fid, holds), nw);
        items.push(f);
        arrays.append(&mut tables);
    }
    for &fid in &reg.fluent_rows {
        let (first, rows) = fluent_rows(facts, layout, fid);
        items.push(first);
        arrays.push(rows);
    }
    quote!(#(#items)*)
}

/// `FLUENT_FIRST_f`, the first bit of functor `fid`'s fluents, and the
/// data of `FLUENT_ROWS_f`: per bit from there to its last fluent, the
/// fluent's arguments and then its term (the layout keeps a functor's
/// fluents together; a bit of another functor between, if any, is a row
/// of `NONE`).
pub(super) fn fluent_rows(facts: &Facts, layout: &Layout, fid: u32) -> (TokenStream, DataArray) {
    let u = &facts.universe;
    let of_functor = |t: u32| u.functor[t as usize] == fid;
    let first = layout
        .terms
        .iter()
        .position(|&t| of_functor(t))
        .unwrap_or(0);
    let end = layout
        .terms
        .iter()
        .rposition(|&t| of_functor(t))
        .map_or(first, |i| i + 1);
    let arity = u.functors[fid as usize].1;
    let mut data = Vec::with_capacity((end - first) * (arity + 1));
    for &t in &layout.terms[first..end] {
        if of_functor(t) {
            data.extend_from_slice(&u.args[t as usize]);
            data.push(t);
        } else {
            data.extend(std::iter::repeat_n(NONE, arity + 1));
        }
    }
    let name = format_ident!("FLUENT_FIRST_{}", fid);
    let first = Literal::u32_unsuffixed(first as u32);
    let doc = format!(
        " The first bit of the fluents `({} ..)`.",
        u.functor_name(fid)
    );
    let item = quote! {
        #[doc = #doc]
        const #name: u32 = #first;
    };
    let rows = DataArray {
        doc: format!(
            "Per bit from `FLUENT_FIRST_{fid}`, the arguments and the term of a fluent `({} ..)`.",
            u.functor_name(fid)
        ),
        name: format!("FLUENT_ROWS_{fid}"),
        data,
        may_be_unused: false,
        // One number a row (no arguments) stays flat, as its readers expect.
        rows: (arity > 0).then_some(arity + 1),
    };
    (item, rows)
}
