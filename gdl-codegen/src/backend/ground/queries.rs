//! The functions computing a query: a bitnet schedule printed as straight-
//! line Rust, split into functions of bounded size so that rustc stays fast.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr;
use super::tables::Tables;
use crate::bitnet::conj::Conj;
use crate::bitnet::schedule::{Block, Demand, Schedule, Unit};

/// Tests per generated function before a new one is started.
pub const CHUNK_WEIGHT: usize = 1500;

pub(super) fn lit_u32(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

pub(super) fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

pub(super) fn hex_lit(n: u64) -> Literal {
    format!("{n:#x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(n))
}

/// `v[w] |= u64::from(test) << shift;` for the atom at bit `pos`.
pub(super) fn set_bit(pos: u32, test: TokenStream) -> TokenStream {
    let (w, shift) = (lit_usize((pos >> 6) as usize), pos & 63);
    if shift == 0 {
        quote!(v[#w] |= u64::from(#test);)
    } else {
        let shift = lit_u32(shift);
        quote!(v[#w] |= u64::from(#test) << #shift;)
    }
}

/// The generated functions of a module, and the rule tables they use.
pub(super) struct Printer {
    /// Generated functions, in order.
    pub fns: Vec<TokenStream>,
    /// Atoms with very many rule bodies, stored as data.
    pub tables: Tables,
}

impl Printer {
    /// Emits functions that compute a schedule, returning the names of the
    /// functions to call, in order.
    pub fn schedule_fns(&mut self, prefix: &str, schedule: &Schedule) -> Vec<Ident> {
        let mut names = Vec::new();
        let mut body: Vec<TokenStream> = Vec::new();
        let mut weight = 0;
        for group in &schedule.groups {
            weight += group
                .blocks
                .iter()
                .flat_map(Block::units)
                .map(|u| self.weight(u))
                .sum::<usize>();
            let stmts: Vec<TokenStream> = group.blocks.iter().map(|b| self.block(b)).collect();
            match &group.demand {
                Demand::Never => {}
                // Needed only when one of these bits holds: otherwise every
                // reader is false or unread, and the atoms stay false.
                Demand::When(bits) => {
                    let test = expr::any_of(bits);
                    body.push(quote! {
                        if #test {
                            #(#stmts)*
                        }
                    });
                }
                Demand::Always => body.extend(stmts),
            }
            if weight >= CHUNK_WEIGHT {
                self.flush(prefix, &mut body, &mut names);
                weight = 0;
            }
        }
        self.flush(prefix, &mut body, &mut names);
        names
    }

    /// The size of a unit's code, in tests (atoms in the rule tables count
    /// one).
    fn weight(&self, u: &Unit) -> usize {
        u.atoms
            .iter()
            .filter(|(_, c)| !self.tables.is_big(c))
            .flat_map(|(_, c)| c)
            .map(Conj::weight)
            .sum::<usize>()
            + u.atoms.len()
    }

    /// The statements of a block.
    fn block(&mut self, block: &Block) -> TokenStream {
        match block {
            Block::Unit(u) => self.unit_code(u),
            Block::Guarded { guard, body } => {
                let test = expr::lit_test(*guard);
                // One guard directly in another is one `if` of both
                // (clippy's `collapsible_if`).
                if let [Block::Guarded { guard: g2, body }] = body.as_slice() {
                    let test2 = expr::lit_test(*g2);
                    let inner: Vec<TokenStream> = body.iter().map(|b| self.block(b)).collect();
                    return quote! {
                        if #test && #test2 {
                            #(#inner)*
                        }
                    };
                }
                let stmts: Vec<TokenStream> = body.iter().map(|b| self.block(b)).collect();
                quote! {
                    if #test {
                        #(#stmts)*
                    }
                }
            }
        }
    }

    fn flush(&mut self, prefix: &str, body: &mut Vec<TokenStream>, names: &mut Vec<Ident>) {
        if body.is_empty() {
            return;
        }
        let name = format_ident!("{}_{}", prefix, names.len());
        let stmts = std::mem::take(body);
        self.fns.push(quote! {
            #[inline(never)]
            fn #name(v: &mut Values) {
                #(#stmts)*
            }
        });
        names.push(name);
    }

    /// The test of one atom's bodies: unrolled, or a loop over the rule
    /// tables for an atom with very many.
    fn atom_test(&mut self, pos: u32, conjs: Vec<Conj>) -> TokenStream {
        if !self.tables.is_big(&conjs) {
            return expr::disj_expr(&conjs);
        }
        // Alternatives of one literal stay one masked OR; the rest loop over
        // the rule tables.
        let (singles, rest): (Vec<Conj>, Vec<Conj>) = conjs.into_iter().partition(Conj::is_single);
        let (from, to) = self.tables.add(pos, &rest);
        let (from, to) = (lit_usize(from as usize), lit_usize(to as usize));
        if singles.is_empty() {
            quote!(any_body(v, #from, #to))
        } else {
            let masked = expr::disj_expr(&singles);
            quote!((#masked) | any_body(v, #from, #to))
        }
    }

    /// The statements computing a unit.
    fn unit_code(&mut self, unit: &Unit) -> TokenStream {
        let mut stmts = Vec::new();
        let mut words = Vec::new();
        for (pos, conjs) in unit.bodies() {
            let test = self.atom_test(pos, conjs);
            if !words.contains(&(pos >> 6)) {
                words.push(pos >> 6);
            }
            stmts.push(set_bit(pos, test));
        }
        if !unit.cyclic {
            return quote!(#(#stmts)*);
        }
        // Positive recursion within a state: iterate from all-false until
        // nothing changes (the least fixpoint).
        let ws: Vec<Literal> = words.iter().map(|&w| lit_usize(w as usize)).collect();
        quote! {
            loop {
                let before = [#(v[#ws]),*];
                #(#stmts)*
                if before == [#(v[#ws]),*] {
                    break;
                }
            }
        }
    }
}
