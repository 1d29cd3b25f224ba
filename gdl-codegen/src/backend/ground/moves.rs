//! How the joint move enters `next`, printed: move dispatch (bodies needing
//! one of a few moves run in a `match` on the move), move-set tables (one bit
//! per set of moves that bodies test, set from per-move tables) and frame
//! tables (per-move keep masks applied word by word).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr;
use super::queries::{hex_lit, inline_attr, lit_u32, lit_usize, set_bit, Printer, CHUNK_WEIGHT};
use crate::bitnet::dispatch::Arm;
use crate::bitnet::Bitnet;

/// `joint.first()` for role 0 (clippy's `get_first`), else `joint.get(r)`.
fn get(r: usize) -> TokenStream {
    if r == 0 {
        quote!(first())
    } else {
        let rl = lit_usize(r);
        quote!(get(#rl))
    }
}

/// The statement of a dispatched body.
fn arm_stmt(arm: &Arm) -> TokenStream {
    if arm.body.lits.is_empty() {
        let (w, bit) = (
            lit_usize((arm.pos >> 6) as usize),
            hex_lit(1 << (arm.pos & 63)),
        );
        return quote!(v[#w] |= #bit;);
    }
    set_bit(arm.pos, expr::conj_expr(&arm.body))
}

/// The move planes ([`crate::bitnet::planes`]): per role, the bit of each
/// move's copy at its anchor (`u32::MAX`: none), and the statement setting
/// the copies of the joint move. Nothing when the layout has none.
pub(super) fn move_plane_items(net: &Bitnet, roles: usize) -> (TokenStream, TokenStream) {
    let layout = &net.layout;
    if !layout.has_move_planes() {
        return (TokenStream::new(), TokenStream::new());
    }
    let nr = lit_usize(roles);
    let tables = (0..roles).map(|r| {
        let n = layout.role_moves[r].1;
        let bits = (0..n).map(|m| lit_u32(layout.move_plane_bit(r, m).unwrap_or(u32::MAX)));
        quote!(&[#(#bits),*])
    });
    let items = quote! {
        /// Per role, per move, the bit of the move's copy in its move plane
        /// (`u32::MAX`: none).
        static MOVE_PLANE_BITS: [&[u32]; #nr] = [#(#tables),*];
    };
    let stmt = quote! {
        for (r, mv) in joint.iter().enumerate() {
            if let Some(&bit) = MOVE_PLANE_BITS
                .get(r)
                .and_then(|t| t.get(mv.0 as usize))
                .filter(|&&b| b != u32::MAX)
            {
                v[(bit >> 6) as usize] |= 1 << (bit & 63);
            }
        }
    };
    (items, stmt)
}

impl Printer {
    /// The statements running the dispatch functions of every role.
    pub fn dispatch_calls(&mut self, net: &Bitnet) -> Vec<TokenStream> {
        let mut calls = Vec::new();
        for (r, arms) in net.dispatch.arms.iter().enumerate() {
            if arms.is_empty() {
                continue;
            }
            let fns = self.dispatch_fns(r, arms);
            let get = get(r);
            calls.push(quote! {
                if let Some(mv) = joint.#get {
                    #(#fns(v, mv.0);)*
                }
            });
        }
        calls
    }

    /// Emits the dispatch functions of one role: `fn(v, m)` matching on the
    /// move, split so that no function grows too large.
    fn dispatch_fns(&mut self, r: usize, arms: &[Arm]) -> Vec<Ident> {
        let mut arms: Vec<&Arm> = arms.iter().collect();
        arms.sort_by_key(|a| a.mv);
        let mut grouped: Vec<(u32, Vec<TokenStream>)> = Vec::new();
        for arm in arms {
            let stmt = arm_stmt(arm);
            match grouped.last_mut() {
                Some((last, stmts)) if *last == arm.mv => stmts.push(stmt),
                _ => grouped.push((arm.mv, vec![stmt])),
            }
        }
        let mut names = Vec::new();
        let mut chunk: Vec<(Literal, Vec<TokenStream>)> = Vec::new();
        let mut weight = 0;
        let total = grouped.len();
        for (i, (m, stmts)) in grouped.into_iter().enumerate() {
            // One move's own statements, when they are many, go into
            // functions of their own (kalaha's sowing: thousands a move).
            let (stmts, w) = self.pack(stmts.into_iter().map(|s| (s, 1)).collect());
            weight += w;
            chunk.push((lit_u32(m), stmts));
            if weight >= CHUNK_WEIGHT || i + 1 == total {
                let name = format_ident!("next_moves_{}_{}", r, names.len());
                let body = match_move(std::mem::take(&mut chunk));
                let inline = inline_attr(weight);
                self.fns.push(quote! {
                    #inline
                    fn #name(v: &mut Values, m: u32) {
                        #body
                    }
                });
                names.push(name);
                weight = 0;
            }
        }
        names
    }
}

/// A `match` on the move `m`; one move is an `if` (a match of one arm and
/// an empty catch-all would be clippy's `single_match`).
fn match_move(arms: Vec<(Literal, Vec<TokenStream>)>) -> TokenStream {
    match arms.as_slice() {
        [(ml, stmts)] => quote!(if m == #ml { #(#stmts)* }),
        _ => {
            let arms = arms.iter().map(|(ml, stmts)| quote!(#ml => { #(#stmts)* }));
            quote!(match m { #(#arms)* _ => {} })
        }
    }
}

/// The keep tables, and the statement applying them.
pub fn frame_items(net: &Bitnet) -> (Vec<TokenStream>, TokenStream) {
    let nw = lit_usize(net.layout.state_words);
    let mut items = Vec::new();
    let mut keep_terms = Vec::new();
    for (r, table) in net.keep.iter().enumerate() {
        if table.iter().all(|row| row.iter().all(|&w| w == 0)) {
            continue;
        }
        let name = format_ident!("KEEP_{}", r);
        let rows = table.iter().map(|row| {
            let ws = row.iter().map(|&w| hex_lit(w));
            quote!([#(#ws),*])
        });
        let n = lit_usize(table.len());
        items.push(quote!(static #name: [[u64; #nw]; #n] = [#(#rows),*];));
        let get = get(r);
        keep_terms.push(quote! {
            joint.#get.and_then(|m| #name.get(m.0 as usize)).map_or(0, |row| row[w])
        });
    }
    if keep_terms.is_empty() {
        return (items, quote!());
    }
    let stmt = quote! {
        for (w, word) in next.iter_mut().enumerate() {
            let keep = #(#keep_terms)|*;
            *word |= state.0[w] & keep;
        }
    };
    (items, stmt)
}

/// The move-set tables, and the statements setting a joint move's bits.
pub fn move_set_items(net: &Bitnet) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut items = Vec::new();
    let mut stmts = Vec::new();
    for (r, table) in net.move_sets.table.iter().enumerate() {
        if table.iter().all(Vec::is_empty) {
            continue;
        }
        let start_name = format_ident!("MOVE_SET_START_{}", r);
        let bits_name = format_ident!("MOVE_SET_BITS_{}", r);
        let mut starts = vec![0u32];
        let mut bits = Vec::new();
        for row in table {
            bits.extend(row.iter().copied());
            starts.push(bits.len() as u32);
        }
        let (ns, nb) = (lit_usize(starts.len()), lit_usize(bits.len()));
        let starts = starts.into_iter().map(lit_u32);
        // The narrowest type holding every bit position keeps the table small.
        let bit_ty = if net.layout.total_words() * 64 <= 1 << 16 {
            quote!(u16)
        } else {
            quote!(u32)
        };
        let bits = bits.into_iter().map(lit_u32);
        items.push(quote! {
            static #start_name: [u32; #ns] = [#(#starts),*];
            static #bits_name: [#bit_ty; #nb] = [#(#bits),*];
        });
        let get = get(r);
        stmts.push(quote! {
            if let Some(mv) = joint.#get {
                let m = mv.0 as usize;
                if let (Some(&from), Some(&to)) = (#start_name.get(m), #start_name.get(m + 1)) {
                    for &bit in #bits_name.get(from as usize..to as usize).unwrap_or(&[]) {
                        let bit = bit as usize;
                        v[bit >> 6] |= 1 << (bit & 63);
                    }
                }
            }
        });
    }
    (items, stmts)
}
