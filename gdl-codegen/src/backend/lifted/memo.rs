//! The types of the memo tables: a call whose bound arguments take few
//! values over all states (by the relaxed fixpoint's extension of its
//! relation, or else by what its rules' heads take) gets a dense table,
//! `gdl_runtime::lifted::DenseMemo`, indexed by their ranks; other calls a
//! hash table.
//!
//! A dense table reads a slot where a hash table hashes and probes, and is
//! cleared between states by a counter where a hash table writes its
//! control bytes. Keys outside the domains (which the relaxed extension
//! should rule out) still work: the dense table keeps them in a hash table
//! of its own, so that no answer depends on the extension being complete.

use super::cost::{MAX_DENSE_SLOTS, MAX_DOMAIN_DEPTH};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::estimates::Estimates;
use super::facts::Facts;
use super::join_order::Adorn;
use super::term_tables::{domains, Dense};
use crate::backend::common::format::DataArray;
use crate::rules::{CRule, Lit, Pat};

/// A dense key type to print: its name, the call it serves and its
/// arguments' domains.
pub struct DenseKeys {
    ty: Ident,
    call: Ident,
    domains: Vec<Vec<u32>>,
}

impl DenseKeys {
    /// The key type's name.
    pub fn name(&self) -> String {
        self.ty.to_string()
    }
}

impl Estimates {
    /// The key type of the dense memo table of `rel` called with `adorn`
    /// (bound arguments in `adorn`), if its bound arguments' combinations
    /// are few enough: over the relation's relaxed extension, or else over
    /// what its rules' heads take there (parts of rules made relations,
    /// relations too large for an extension). `call` names the call, for
    /// the type's doc comment.
    pub fn dense_keys(
        &mut self,
        facts: &Facts,
        rel: u32,
        adorn: Adorn,
        call: &Ident,
    ) -> Option<Ident> {
        let keyed = self.dense_domains(facts, rel, adorn)?;
        let ty = format_ident!("Keys{}", self.dense_keys.len());
        self.dense_keys.push(DenseKeys {
            ty: ty.clone(),
            call: call.clone(),
            domains: keyed,
        });
        Some(ty)
    }
}

impl Estimates {
    /// The domains of the bound arguments of `rel` called with `adorn`, if
    /// their combinations are few enough for a dense memo table (see
    /// [`Estimates::dense_keys`]).
    pub fn dense_domains(&self, facts: &Facts, rel: u32, adorn: Adorn) -> Option<Vec<Vec<u32>>> {
        let arity = self.arity[rel as usize];
        let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
        let keyed: Vec<Vec<u32>> = match self.relaxed_tuples.get(rel as usize) {
            Some(Some(tuples)) => {
                let all = domains(arity, tuples.iter().map(Vec::as_slice));
                keys.iter().map(|&i| all[i].clone()).collect()
            }
            _ => keys
                .iter()
                .map(|&i| self.head_domain(facts, rel, i, MAX_DOMAIN_DEPTH))
                .collect::<Option<_>>()?,
        };
        let mut slots = 1usize;
        for d in &keyed {
            slots = slots
                .checked_mul(d.len())
                .filter(|&n| n <= MAX_DENSE_SLOTS)?;
        }
        (slots != 0).then_some(keyed)
    }

    /// The values argument `i` of `rel`'s heads takes, over its rules: a
    /// constant's, or a variable's by the body literal that limits it most
    /// (a static relation's column, a relaxed extension's, a fluent
    /// argument's values, a derived relation's heads', `depth` relations
    /// deep at most); `None` where a head builds a term there or a variable
    /// is limited by none of those.
    pub(super) fn head_domain(
        &self,
        facts: &Facts,
        rel: u32,
        i: usize,
        depth: u32,
    ) -> Option<Vec<u32>> {
        if depth == 0 {
            return None;
        }
        let mut values = Vec::new();
        for rule in facts.rules.iter().filter(|r| r.head_rel == rel) {
            match &rule.head[i] {
                Pat::Ground(t) => values.push(*t),
                Pat::Var(v) => values.extend(self.var_domain(facts, rule, *v, depth)?),
                Pat::Func(..) => return None,
            }
        }
        values.sort_unstable();
        values.dedup();
        Some(values)
    }

    /// The fewest values variable `v` of `rule` may take by one positive
    /// body literal where it is an argument (of a fluent, under `true`).
    fn var_domain(&self, facts: &Facts, rule: &CRule, v: u32, depth: u32) -> Option<Vec<u32>> {
        let mut best: Option<Vec<u32>> = None;
        for lit in &rule.body {
            let Lit::Pos(r, args) = lit else { continue };
            let found = if Some(*r) == self.true_rel {
                match args.first() {
                    Some(Pat::Func(f, a)) => fluent_column(facts, self.functor(*f, a.len()), a, v),
                    _ => None,
                }
            } else {
                let tuples = match &self.static_tuples[*r as usize] {
                    Some(t) => Some(t),
                    None => self
                        .relaxed_tuples
                        .get(*r as usize)
                        .and_then(Option::as_ref),
                };
                match tuples {
                    Some(t) => column(t.iter().map(Vec::as_slice), args, v),
                    None if Some(*r) == self.does_rel => None,
                    None => args
                        .iter()
                        .position(|a| *a == Pat::Var(v))
                        .and_then(|j| self.head_domain(facts, *r, j, depth - 1)),
                }
            };
            if let Some(d) = found {
                if best.as_ref().is_none_or(|b| d.len() < b.len()) {
                    best = Some(d);
                }
            }
        }
        best
    }
}

/// The values of the first argument of `args` that is variable `v`, over
/// `tuples`.
fn column<'a>(tuples: impl Iterator<Item = &'a [u32]>, args: &[Pat], v: u32) -> Option<Vec<u32>> {
    let j = args.iter().position(|a| *a == Pat::Var(v))?;
    domains(1, tuples.map(|t| std::slice::from_ref(&t[j]))).pop()
}

/// [`column`] over the fluents of functor `fid`.
fn fluent_column(facts: &Facts, fid: Option<u32>, args: &[Pat], v: u32) -> Option<Vec<u32>> {
    let fid = fid?;
    let u = &facts.universe;
    let of = facts
        .fluents
        .iter()
        .filter(|&&t| u.functor[t as usize] == fid)
        .map(|&t| u.args[t as usize].as_slice());
    column(of, args, v)
}

/// The type of a memo table of values `value` for keys of `k` numbers:
/// dense over `keys` if there is such a type.
pub fn memo_type(keys: Option<&Ident>, k: &Literal, value: TokenStream) -> TokenStream {
    match keys {
        Some(keys) => quote!(DenseMemo<#keys, #value>),
        None => quote!(Memo<[u32; #k], #value>),
    }
}

/// The items of the dense key types asked for: a type per table, its
/// `Slots` implementation, and its rank tables (as data arrays).
pub fn dense_key_items<'k>(
    keys: impl IntoIterator<Item = &'k DenseKeys>,
    rt: &syn::Path,
) -> (Vec<DataArray>, TokenStream) {
    let mut arrays = Vec::new();
    let mut items = TokenStream::new();
    for DenseKeys { ty, call, domains } in keys {
        let prefix = ty.to_string().to_uppercase();
        let dense = Dense::new(&prefix, domains, &quote!(return None));
        arrays.extend(dense.arrays);
        let (lookups, index) = (&dense.lookups, &dense.index);
        let params: Vec<Ident> = (0..domains.len())
            .map(|i| format_ident!("x{}", i))
            .collect();
        let k = Literal::usize_unsuffixed(domains.len());
        let slots = Literal::usize_unsuffixed(domains.iter().map(Vec::len).product());
        let doc = format!(" The slots of the memo table of `{call}`: one per combination of its bound arguments' values.");
        items.extend(quote! {
            #[doc = #doc]
            struct #ty;

            impl #rt::lifted::Slots for #ty {
                type Key = [u32; #k];
                const SLOTS: usize = #slots;

                #[inline]
                fn slot(&[#(#params),*]: &[u32; #k]) -> Option<usize> {
                    #(#lookups)*
                    Some(#index)
                }
            }
        });
    }
    (arrays, items)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{program_and_facts, relation_named};
    use super::*;

    /// `near` has a relaxed extension; `far` (9·9·10·10·10 tuples) has
    /// none, so its keys' values come from its rule's body.
    const GAME: &str = "(role r)
        (coord 1) (coord 2) (coord 3) (coord 4) (coord 5) (coord 6) (coord 7) (coord 8) (coord 9)
        (digit 0) (digit 1) (digit 2) (digit 3) (digit 4)
        (digit 5) (digit 6) (digit 7) (digit 8) (digit 9)
        (init (cell 1 1))
        (<= (near ?x ?y) (true (cell ?x ?y)) (coord ?x))
        (<= (far ?a ?b ?c ?d ?e) (true (cell ?a ?b)) (digit ?c) (digit ?d) (digit ?e))
        (<= (legal r (go ?x)) (near ?x ?x))
        (<= (next (cell ?x ?y)) (does r (go ?x)) (coord ?y))
        (<= terminal (far 1 1 1 1 1))
        (<= (goal r 100) (true (cell 1 1)))";

    #[test]
    fn calls_with_few_key_combinations_get_dense_memo_tables() {
        let (p, facts) = program_and_facts(GAME);
        let rel = |name: &str| relation_named(&p, name);
        let mut reg = Estimates::new(&p, &facts);
        let (near, far) = (rel("near"), rel("far"));
        assert!(reg.relaxed_tuples[near as usize].is_some());
        assert!(reg.relaxed_tuples[far as usize].is_none());
        let call = format_ident!("c");
        // Both arguments of `near`: 9 · 9 combinations at most.
        assert!(reg.dense_keys(&facts, near, 0b11, &call).is_some());
        // Two of `far`'s, from its rule: the cells' coordinates.
        assert!(reg.dense_keys(&facts, far, 0b00011, &call).is_some());
        // All five: 81 000 combinations, over the dense tables' limit.
        assert!(reg.dense_keys(&facts, far, 0b11111, &call).is_none());
        // Two dense tables, each with its key type; `far`'s keys range over
        // the fluents' coordinates: `(cell 1 y)` for y in 1..9 (the moves
        // keep the first at 1).
        assert_eq!(reg.dense_keys.len(), 2);
        let far_domains: Vec<usize> = reg.dense_keys[1].domains.iter().map(Vec::len).collect();
        assert_eq!(far_domains, vec![1, 9]);
    }
}
