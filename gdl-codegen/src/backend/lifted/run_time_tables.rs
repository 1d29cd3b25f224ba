//! Static tables built at run time: the code-size budget of the static
//! tables ([`cost::STATIC_NUMBERS_BUDGET`], [`cost::MAX_STATIC_NUMBERS`]).
//!
//! A static relation is a constant table of the generated module, one per
//! pattern of bound arguments its readers look it up by. A relation of
//! millions of tuples (a five-argument relation over board coordinates)
//! would print a module rustc takes minutes to build. The plan counts the
//! numbers its static tables print ([`static_numbers`]); over the budget,
//! the largest relations whose rules read only printed static tables are
//! computed from those rules the first time they are read instead
//! ([`choose`]), each table then sorted from the tuples at run time
//! (`LazyLock`). Recursive relations cannot be (their rules would read
//! the table being built): if what is left passes the maximum, planning
//! fails with the relations named rather than printing a module that
//! rustc cannot build.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

use super::access::TablePlan;
use super::body::Body;
use super::cost;
use super::facts::Facts;
use super::module::usize_lit;
use super::needs::Needs;
use super::plan::{LiftedPlan, RulePlan};
use super::relations::Relations;
use super::static_table_name;
use super::term_tables;
use crate::rules::Lit;

/// A static relation computed at run time: its rules' plans and the
/// numbers its tables would have printed.
pub struct RunTimeTable {
    /// The relation.
    pub rel: u32,
    /// Its rules, planned with nothing bound.
    pub rules: Vec<RulePlan>,
    /// The numbers its tables would have printed.
    pub numbers: usize,
}

/// The static tables printed over the budget, with the relations that
/// could not be built at run time instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverBudget {
    /// The numbers the static tables would print.
    pub numbers: usize,
    /// The largest relations, named, with their numbers.
    pub largest: Vec<(String, usize)>,
}

/// The numbers each static relation's tables print: its tuples times its
/// arity per table by bound arguments, and its test `in_<rel>`'s table (a
/// bit per combination of its arguments' values where that is dense, as
/// [`super::term_tables::static_check`] prints it, else its tuples).
pub fn static_numbers(plan: &LiftedPlan, facts: &Facts) -> BTreeMap<u32, usize> {
    let tuples = |rel: u32| facts.statics[rel as usize].as_deref().unwrap_or_default();
    let rows = |rel: u32| {
        tuples(rel)
            .len()
            .saturating_mul(plan.rels.arity[rel as usize])
    };
    let mut numbers = BTreeMap::new();
    for &(rel, _) in &plan.tables.statics {
        *numbers.entry(rel).or_insert(0) += rows(rel);
    }
    for &rel in &plan.tables.checks {
        let arity = plan.rels.arity[rel as usize];
        let domains = term_tables::domains(arity, tuples(rel).iter().map(Vec::as_slice));
        let check = match term_tables::dense_size(&domains, cost::MAX_BITS) {
            Some(bits) => bits.div_ceil(32),
            None => rows(rel),
        };
        *numbers.entry(rel).or_insert(0) += check;
    }
    numbers
}

/// The static relations to compute at run time, largest first, until the
/// rest print within [`cost::STATIC_NUMBERS_BUDGET`] (none smaller than
/// [`cost::MIN_RUN_TIME_NUMBERS`]); an error naming the
/// largest when what is left passes [`cost::MAX_STATIC_NUMBERS`]. Each
/// with the numbers its tables would have printed.
pub fn choose(plan: &LiftedPlan, facts: &Facts) -> Result<Vec<(u32, usize)>, OverBudget> {
    let numbers = static_numbers(plan, facts);
    let mut total: usize = numbers.values().sum();
    let mut by_size: Vec<(u32, usize)> = numbers.into_iter().collect();
    by_size.sort_by_key(|&(rel, n)| (std::cmp::Reverse(n), rel));
    let mut chosen = Vec::new();
    for &(rel, n) in &by_size {
        if total <= cost::STATIC_NUMBERS_BUDGET || n < cost::MIN_RUN_TIME_NUMBERS {
            break;
        }
        if computable(&plan.rels, facts, rel, &chosen) {
            chosen.push(rel);
            total -= n;
        }
    }
    if total <= cost::MAX_STATIC_NUMBERS {
        let sized = (by_size.into_iter()).filter(|(rel, _)| chosen.contains(rel));
        return Ok(sized.collect());
    }
    let largest = (by_size.iter())
        .filter(|(rel, _)| !chosen.contains(rel))
        .take(3)
        .map(|&(rel, n)| (plan.rels.names[rel as usize].clone(), n))
        .collect();
    Err(OverBudget {
        numbers: total,
        largest,
    })
}

/// Whether static relation `rel` can be computed at run time: it has rules
/// (not only facts), and they read only static relations printed as
/// tables (not itself, none of those `chosen`), building no term outside
/// the universe.
fn computable(rels: &Relations, facts: &Facts, rel: u32, chosen: &[u32]) -> bool {
    let mut rules = facts.rules.iter().filter(|r| r.head_rel == rel).peekable();
    let printed = |r: u32| {
        r != rel
            && !chosen.contains(&r)
            && facts.statics.get(r as usize).is_some_and(Option::is_some)
    };
    (rel as usize) < rels.program_rels
        && !rels.run_time_terms
        && rules.peek().is_some()
        && rules.all(|r| {
            r.body.iter().all(|l| match l {
                Lit::Pos(r, _) | Lit::Neg(r, _) => printed(*r),
                _ => true,
            })
        })
}

/// The items of the static relations of `planned` built at run time: per
/// relation, a function evaluating its rules, the sorted tuples it gives on
/// first use, its tables by bound arguments and its test.
pub fn items(reg: &mut Needs, planned: &TablePlan, rt: &syn::Path) -> TokenStream {
    let mut items = TokenStream::new();
    let built = |rel: u32| planned.built_at_run_time(rel);
    for &(rel, bound) in planned.statics.iter().filter(|(rel, _)| built(*rel)) {
        let arity = reg.arity[rel as usize];
        items.extend(lazy_table(&reg.names[rel as usize], bound, arity, rt));
    }
    for &rel in planned.checks.iter().filter(|&&rel| built(rel)) {
        items.extend(lazy_check(
            &reg.names[rel as usize],
            reg.arity[rel as usize],
        ));
    }
    for t in &planned.run_time {
        let name = reg.names[t.rel as usize].clone();
        let f = format_ident!("rows_{}", name);
        let rows = rows_name(&name);
        let a = usize_lit(reg.arity[t.rel as usize]);
        let bodies: Vec<TokenStream> = (t.rules.iter())
            .map(|plan| {
                let mut body = Body::new(reg, plan.rule.num_vars, None);
                body.steps(&plan.steps, &plan.access);
                let row = body.row(&plan.rule.head);
                body.finish(quote!(out.push(#row);))
            })
            .collect();
        let doc = format!(
            " The tuples of `{name}`, from its rules: a static relation computed at run time, its tables being over the code-size budget."
        );
        items.extend(quote! {
            #[doc = #doc]
            fn #f() -> ::std::vec::Vec<[u32; #a]> {
                let mut out: ::std::vec::Vec<[u32; #a]> = ::std::vec::Vec::new();
                #({ #bodies })*
                out.sort_unstable();
                out.dedup();
                out
            }
            static #rows: ::std::sync::LazyLock<::std::vec::Vec<[u32; #a]>> =
                ::std::sync::LazyLock::new(#f);
        });
    }
    items
}

/// The static whose `LazyLock` holds the sorted tuples of relation `name`.
fn rows_name(name: &str) -> proc_macro2::Ident {
    format_ident!("ROWS_{}", name.to_ascii_uppercase())
}

/// The table of relation `rel` (named `name`, of `arity` arguments) by
/// `bound` arguments, sorted from its tuples at run time, with its index
/// where some argument is bound.
fn lazy_table(name: &str, bound: u32, arity: usize, rt: &syn::Path) -> TokenStream {
    let table = static_table_name(name, bound, arity);
    let rows = rows_name(name);
    let order = (super::statics::bound_first(bound, arity).into_iter()).map(usize_lit);
    let a = usize_lit(arity);
    let mut items = quote! {
        /// A static relation's tuples, bound columns first, sorted at
        /// their first use.
        static #table: ::std::sync::LazyLock<::std::vec::Vec<[u32; #a]>> =
            ::std::sync::LazyLock::new(|| #rt::lifted::reordered(&#rows, [#(#order),*]));
    };
    if bound != 0 {
        let index = format_ident!("{}_INDEX", table);
        let (w, k) = (usize_lit(arity), usize_lit(bound.count_ones() as usize));
        items.extend(quote! {
            /// The table beside, looked up by its bound columns.
            static #index: ::std::sync::LazyLock<Keyed<#w>> =
                ::std::sync::LazyLock::new(|| Keyed::new(#table.as_slice(), #k));
        });
    }
    items
}

/// The test `in_<name>(args..)` of a relation built at run time: a binary
/// search in its sorted tuples.
fn lazy_check(name: &str, arity: usize) -> TokenStream {
    let f = format_ident!("in_{}", name);
    let rows = rows_name(name);
    let params: Vec<_> = (0..arity).map(|i| format_ident!("x{}", i)).collect();
    let doc = format!(" Whether `{name}` holds of these arguments (a static relation).");
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, reason = "one argument per argument of the relation")]
        fn #f(#(#params: u32),*) -> bool {
            #rows.binary_search(&[#(#params),*]).is_ok()
        }
    }
}
