//! The `Scratched` methods, which evaluate rules through the evaluations
//! of a scratch.

use super::queries::MoveSink;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::facts::Facts;
use super::module::usize_lit;
use crate::backend::common::draw;

/// The `Scratched` methods, which evaluate rules; `fixed`, each role's
/// legal move ids where they are the same in every state, else `sink`,
/// where `legal`'s rules put them.
pub(super) fn methods(
    facts: &Facts,
    rt: &syn::Path,
    (scratch, state, nw): (&proc_macro2::Ident, &proc_macro2::Ident, usize),
    fixed: Option<&[Vec<u32>]>,
    sink: MoveSink,
) -> TokenStream {
    let nw = usize_lit(nw);
    let nr = usize_lit(facts.roles.len());
    let legal_moves = match fixed {
        Some(lists) => legal_moves_from_table(rt, (scratch, state), &nr, lists),
        None => legal_moves_from_rules(rt, (scratch, state), &nr, sink),
    };
    let goal = goal_method(rt, (scratch, state), &nr);
    quote! {
        #legal_moves

        fn is_terminal_in(&self, scratch: &mut #scratch, state: &#state) -> bool {
            with_ev(&mut scratch.state_ev, &state.0, &[NONE; #nr], |ev| ev.terminal())
        }

        #goal

        fn apply_in(&self, scratch: &mut #scratch, state: &mut #state, joint: &[#rt::Move]) {
            let mut terms = [NONE; #nr];
            for (r, (t, mv)) in terms.iter_mut().zip(joint).enumerate() {
                *t = MOVE_TERMS[r].get(mv.0 as usize).copied().unwrap_or(NONE);
            }
            let mut next = [0u64; #nw];
            with_ev(&mut scratch.move_ev, &state.0, &terms, |ev| ev.next(&mut next));
            state.0 = next;
        }
    }
}

/// `legal_moves` when each role's legal moves are the same in every state
/// (`lists`, per role of `nr`): read from a table.
fn legal_moves_from_table(
    rt: &syn::Path,
    (scratch, state): (&proc_macro2::Ident, &proc_macro2::Ident),
    nr: &Literal,
    lists: &[Vec<u32>],
) -> TokenStream {
    let lists = lists.iter().map(|ids| {
        let ids = ids.iter().map(|&m| Literal::u32_unsuffixed(m));
        quote!(&[#(#ids),*])
    });
    quote! {
        fn legal_moves_in(
            &self,
            _scratch: &mut #scratch,
            _state: &#state,
            role: #rt::Role,
            out: &mut ::std::vec::Vec<#rt::Move>,
        ) {
            /// Each role's legal moves: `legal` reads neither the
            /// state nor the move.
            static LEGAL: [&[u32]; #nr] = [#(#lists),*];
            out.clear();
            if let Some(ids) = LEGAL.get(role) {
                out.extend(ids.iter().map(|&m| #rt::Move(m)));
            }
        }
    }
}

/// `legal_moves` (and, with a sink of bits, `random_move`) evaluating
/// `legal`'s rules into `sink`.
fn legal_moves_from_rules(
    rt: &syn::Path,
    (scratch, state): (&proc_macro2::Ident, &proc_macro2::Ident),
    nr: &Literal,
    sink: MoveSink,
) -> TokenStream {
    // `legal`'s rules fill the sink, which is then read in order.
    let (fill_and_read, random_move) = match sink {
        MoveSink::Bits(words) => {
            let draw = draw::random_move(rt, words);
            let buf = draw::buffer(draw::lists(words));
            let words = usize_lit(words);
            let fill = quote! {
                let mut bits = [0u64; #words];
                with_ev(&mut scratch.state_ev, &state.0, &[NONE; #nr], |ev| ev.legal(r, ids, &mut bits));
            };
            let random_move = quote! {
                fn random_move_in(
                    &self,
                    scratch: &mut #scratch,
                    state: &#state,
                    role: #rt::Role,
                    rng: &mut #rt::Rng,
                    #buf: &mut ::std::vec::Vec<#rt::Move>,
                ) -> ::core::option::Option<#rt::Move> {
                    let (Some(&r), Some(ids)) = (ROLE_TERM.get(role), MOVE_OF.get(role)) else {
                        return None;
                    };
                    #fill
                    #draw
                }
            };
            let read = quote! {
                #fill
                #rt::move_bits::push_moves_of_bits(&bits, out);
            };
            (read, random_move)
        }
        MoveSink::List => (
            quote! {
                with_ev(&mut scratch.state_ev, &state.0, &[NONE; #nr], |ev| ev.legal(r, ids, out));
                #rt::lifted::sort_moves(out, MOVES[role].len());
            },
            TokenStream::new(),
        ),
    };
    quote! {
        fn legal_moves_in(
            &self,
            scratch: &mut #scratch,
            state: &#state,
            role: #rt::Role,
            out: &mut ::std::vec::Vec<#rt::Move>,
        ) {
            out.clear();
            let (Some(&r), Some(ids)) = (ROLE_TERM.get(role), MOVE_OF.get(role)) else {
                return;
            };
            #fill_and_read
        }

        #random_move
    }
}

/// `goal`: a role's goal value, from the values `goal`'s rules give it
/// (none, one, or ambiguous).
fn goal_method(
    rt: &syn::Path,
    (scratch, state): (&proc_macro2::Ident, &proc_macro2::Ident),
    nr: &Literal,
) -> TokenStream {
    quote! {
        fn goal_in(&self, scratch: &mut #scratch, state: &#state, role: #rt::Role) -> #rt::Goal {
            let Some(&r) = ROLE_TERM.get(role) else {
                return #rt::Goal::None;
            };
            with_ev(&mut scratch.state_ev, &state.0, &[NONE; #nr], |ev| {
                // The evaluation's buffer, kept from call to call.
                let mut terms = ::core::mem::take(&mut ev.pool_values);
                terms.clear();
                ev.goals(r, &mut terms);
                terms.sort_unstable();
                terms.dedup();
                let mut found = Some(#rt::Goal::None);
                for &t in &terms {
                    if let Some(v) = goal_value(t) {
                        found = match found {
                            Some(#rt::Goal::None) => Some(#rt::Goal::Value(v as u8)),
                            _ => None,
                        };
                    }
                }
                ev.pool_values = terms;
                found.unwrap_or(#rt::Goal::Ambiguous)
            })
        }
    }
}
