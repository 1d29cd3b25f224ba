//! Gathered families in the generated code: each literal of the family a
//! word shifted or gathered through a static table to the members' bits
//! ([`families::find_gathered`]).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr;
use crate::bitnet::conj::BitLit;
use crate::bitnet::families::{self, Gathered, Slot};

/// The gather tables of a module, each printed once as a static.
#[derive(Default)]
pub struct GatherTables {
    /// The tables so far, by their sorted pairs.
    tables: Vec<Vec<(u8, u8)>>,
    /// Their statics.
    pub items: Vec<TokenStream>,
}

impl GatherTables {
    /// The literals of family `g` that differ between members, as words
    /// aligned with the members' bits, ANDed with its mask; and the fixed
    /// literals, for the caller to test around it.
    pub fn family_word(&mut self, g: &Gathered) -> (TokenStream, Vec<BitLit>) {
        let mut fixed = Vec::new();
        let mut terms = Vec::new();
        for slot in &g.slots {
            match slot {
                Slot::Fixed(l) => fixed.push(*l),
                _ => terms.push(self.slot_term(slot)),
            }
        }
        let m = expr::hex(g.mask);
        terms.push(quote!(#m));
        (quote!(#(#terms)&*), fixed)
    }

    /// A literal that differs between members, aligned with their bits.
    fn slot_term(&mut self, slot: &Slot) -> TokenStream {
        match slot {
            Slot::Fixed(_) => quote!(!0u64),
            Slot::Shifted {
                word,
                shift,
                negated,
            } => {
                let w = Literal::usize_unsuffixed(*word as usize);
                let x = if *negated {
                    quote!((!v[#w]))
                } else {
                    quote!(v[#w])
                };
                expr::shifted_by(&x, *shift)
            }
            Slot::Shifts {
                word,
                negated,
                parts,
            } => {
                let w = Literal::usize_unsuffixed(*word as usize);
                let terms = parts.iter().map(|&(shift, mask)| {
                    let moved = expr::shifted_by(&quote!(v[#w]), shift);
                    let m = expr::hex(mask);
                    quote!((#moved & #m))
                });
                let any = quote!((#(#terms)|*));
                if *negated {
                    quote!(!#any)
                } else {
                    any
                }
            }
            Slot::Gathered {
                word,
                negated,
                pairs,
            } => {
                let table = self.table(pairs);
                let w = Literal::usize_unsuffixed(*word as usize);
                if *negated {
                    quote!(!#table.get(v[#w]))
                } else {
                    quote!(#table.get(v[#w]))
                }
            }
        }
    }

    /// The static gathering bits by `pairs`, printed the first time.
    fn table(&mut self, pairs: &[(u8, u8)]) -> Ident {
        let mut pairs = pairs.to_vec();
        pairs.sort_unstable();
        let k = match self.tables.iter().position(|p| *p == pairs) {
            Some(k) => k,
            None => {
                let name = format_ident!("GATHER_{}", self.tables.len());
                let (first, n) = families::gather_bytes(&pairs);
                let (first, n) = (
                    Literal::u32_unsuffixed(first),
                    Literal::usize_unsuffixed(n as usize),
                );
                let list = pairs.iter().map(|&(s, d)| {
                    let (s, d) = (Literal::u8_unsuffixed(s), Literal::u8_unsuffixed(d));
                    quote!((#s, #d))
                });
                self.items.push(quote! {
                    /// Bits of one numbering of the board moved to another's.
                    static #name: ::gdl_runtime::GatherTable<#first, #n> =
                        ::gdl_runtime::GatherTable::new(&[#(#list),*]);
                });
                self.tables.push(pairs);
                self.tables.len() - 1
            }
        };
        format_ident!("GATHER_{}", k)
    }
}

/// `fixed` literals tested before `body`: `test1 && test2 && ..`.
pub fn fixed_test(fixed: &[BitLit]) -> TokenStream {
    let tests = fixed.iter().map(|&l| expr::lit_test(l));
    quote!(#(#tests)&&*)
}
