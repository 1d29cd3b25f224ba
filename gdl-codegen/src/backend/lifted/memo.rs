//! The types of the memo tables: a call whose bound arguments take few
//! values over all states (the relaxed fixpoint's extension of its
//! relation) gets a dense table, `gdl_runtime::lifted::DenseMemo`, indexed
//! by their ranks; other calls a hash table.
//!
//! A dense table reads a slot where a hash table hashes and probes, and is
//! cleared between states by a counter where a hash table writes its
//! control bytes. Keys outside the domains (which the relaxed extension
//! should rule out) still work: the dense table keeps them in a hash table
//! of its own, so that no answer depends on the extension being complete.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::plan::Adorn;
use super::terms::{domains, Dense};
use super::Registry;
use crate::backend::common::format::DataArray;

/// Most slots of a dense memo table. A slot holds a stamp and a value (at
/// most 16 bytes), so a table stays within 64 KiB; a call whose bound
/// arguments could take more combinations keeps a hash table, sized by the
/// calls a state makes rather than by the combinations possible.
pub const MAX_DENSE_SLOTS: usize = 1 << 12;

/// A dense key type to print: its name, the call it serves and its
/// arguments' domains.
pub struct DenseKeys {
    ty: Ident,
    call: Ident,
    domains: Vec<Vec<u32>>,
}

impl Registry {
    /// The key type of the dense memo table of `rel` called with `adorn`
    /// (bound arguments in `adorn`), if its bound arguments' combinations
    /// over the relation's relaxed extension are few enough. `call` names
    /// the call, for the type's doc comment.
    pub fn dense_keys(&mut self, rel: u32, adorn: Adorn, call: &Ident) -> Option<Ident> {
        let tuples = self.relaxed_tuples.get(rel as usize)?.as_ref()?;
        let arity = self.arity[rel as usize];
        let all = domains(arity, tuples.iter().map(Vec::as_slice));
        let keyed: Vec<Vec<u32>> = (0..arity)
            .filter(|i| adorn >> i & 1 == 1)
            .map(|i| all[i].clone())
            .collect();
        let mut slots = 1usize;
        for d in &keyed {
            slots = slots
                .checked_mul(d.len())
                .filter(|&n| n <= MAX_DENSE_SLOTS)?;
        }
        if slots == 0 {
            return None;
        }
        let ty = format_ident!("Keys{}", self.dense_keys.len());
        self.dense_keys.push(DenseKeys {
            ty: ty.clone(),
            call: call.clone(),
            domains: keyed,
        });
        Some(ty)
    }
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
pub fn dense_key_items(reg: &Registry, rt: &syn::Path) -> (Vec<DataArray>, TokenStream) {
    let mut arrays = Vec::new();
    let mut items = TokenStream::new();
    for DenseKeys { ty, call, domains } in &reg.dense_keys {
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
