//! The `Game` methods that evaluate rules through an evaluation.

use super::queries::MoveSink;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::facts::Facts;
use super::module::usize_lit;

/// The `Game` methods that evaluate rules; `fixed`, each role's legal
/// move ids where they are the same in every state, else `sink`, where
/// `legal`'s rules put them.
pub(super) fn methods(
    facts: &Facts,
    rt: &syn::Path,
    (state, nw): (&proc_macro2::Ident, usize),
    fixed: Option<&[Vec<u32>]>,
    sink: MoveSink,
) -> TokenStream {
    let nw = usize_lit(nw);
    let nr = usize_lit(facts.roles.len());
    let legal_moves = match fixed {
        Some(lists) => legal_moves_from_table(rt, state, &nr, lists),
        None => legal_moves_from_rules(rt, state, &nr, sink),
    };
    let goal = goal_method(rt, state, &nr);
    quote! {
        fn initial_state(&self) -> #state {
            #state(INIT)
        }

        #legal_moves

        fn is_terminal(&self, state: &#state) -> bool {
            with_ev(&STATE_EV, &state.0, &[NONE; #nr], |ev| ev.terminal())
        }

        #goal

        fn apply_unchecked(&self, state: &mut #state, joint: &[#rt::Move]) {
            let mut terms = [NONE; #nr];
            for (r, (t, mv)) in terms.iter_mut().zip(joint).enumerate() {
                *t = MOVE_TERMS[r].get(mv.0 as usize).copied().unwrap_or(NONE);
            }
            let mut next = [0u64; #nw];
            with_ev(&MOVE_EV, &state.0, &terms, |ev| ev.next(&mut next));
            state.0 = next;
        }
    }
}

/// `legal_moves` when each role's legal moves are the same in every state
/// (`lists`, per role of `nr`): read from a table.
fn legal_moves_from_table(
    rt: &syn::Path,
    state: &proc_macro2::Ident,
    nr: &Literal,
    lists: &[Vec<u32>],
) -> TokenStream {
    let lists = lists.iter().map(|ids| {
        let ids = ids.iter().map(|&m| Literal::u32_unsuffixed(m));
        quote!(&[#(#ids),*])
    });
    quote! {
        fn legal_moves(&self, _state: &#state, role: #rt::Role, out: &mut ::std::vec::Vec<#rt::Move>) {
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
    state: &proc_macro2::Ident,
    nr: &Literal,
    sink: MoveSink,
) -> TokenStream {
    // `legal`'s rules fill the sink, which is then read in order.
    let (fill_and_read, random_move) = match sink {
        MoveSink::Bits(words) => {
            let words = usize_lit(words);
            let fill = quote! {
                let mut bits = [0u64; #words];
                with_ev(&STATE_EV, &state.0, &[NONE; #nr], |ev| ev.legal(r, ids, &mut bits));
            };
            let random_move = quote! {
                fn random_move(
                    &self,
                    state: &#state,
                    role: #rt::Role,
                    rng: &mut #rt::Rng,
                    _buf: &mut ::std::vec::Vec<#rt::Move>,
                ) -> ::core::option::Option<#rt::Move> {
                    let (Some(&r), Some(ids)) = (ROLE_TERM.get(role), MOVE_OF.get(role)) else {
                        return None;
                    };
                    #fill
                    #rt::lifted::random_move_of_bits(&bits, rng)
                }
            };
            let read = quote! {
                #fill
                #rt::lifted::push_moves_of_bits(&bits, out);
            };
            (read, random_move)
        }
        MoveSink::List => (
            quote! {
                with_ev(&STATE_EV, &state.0, &[NONE; #nr], |ev| ev.legal(r, ids, out));
                #rt::lifted::sort_moves(out, MOVES[role].len());
            },
            TokenStream::new(),
        ),
    };
    quote! {
        fn legal_moves(&self, state: &#state, role: #rt::Role, out: &mut ::std::vec::Vec<#rt::Move>) {
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
fn goal_method(rt: &syn::Path, state: &proc_macro2::Ident, nr: &Literal) -> TokenStream {
    quote! {
        fn goal(&self, state: &#state, role: #rt::Role) -> #rt::Goal {
            let Some(&r) = ROLE_TERM.get(role) else {
                return #rt::Goal::None;
            };
            with_ev(&STATE_EV, &state.0, &[NONE; #nr], |ev| {
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
