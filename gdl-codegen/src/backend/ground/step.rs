//! A step of play, printed: a role's random move drawn from an evaluation
//! (`draw`), the next state from an evaluation and a joint move
//! (`advance`), and the queries built on them, among which the playout loop
//! that carries each step's evaluation into the next (`play_in`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::module::Calls;
use super::moves;
use super::queries::lit_usize;
use crate::backend::common::draw;
use crate::bitnet::Bitnet;
use crate::ground::GroundProgram;

/// The free functions of a step: `draw`, a role's random legal move in an
/// evaluation, and `advance`, the next state from an evaluation and a joint
/// move.
pub(super) fn fns(
    gp: &GroundProgram,
    net: &Bitnet,
    rt: &syn::Path,
    state: &Ident,
    calls: &Calls,
) -> TokenStream {
    let nw = lit_usize(net.layout.state_words);
    let words = |r: usize| gp.moves[r].len().div_ceil(64);
    let buf = draw::buffer((0..gp.roles.len()).any(|r| draw::lists(words(r))));
    let random_arms = calls.legal_bits.iter().enumerate().map(|(r, bits)| {
        let draw = draw::random_move(rt, words(r));
        let r = lit_usize(r);
        quote!(#r => { #bits #draw })
    });
    let (_, frame_stmt) = moves::frame_items(net);
    let (_, move_set_stmts) = moves::move_set_items(net);
    let (_, move_plane_stmt) = moves::move_plane_items(net, gp.roles.len());
    // The frame tables keep words of the state; without them it is unread.
    let state_arg = if frame_stmt.is_empty() {
        format_ident!("_state")
    } else {
        format_ident!("state")
    };
    let Calls {
        next,
        dispatch,
        next_copy,
        next_patches,
        ..
    } = calls;
    quote! {
        /// A uniformly random legal move of `role` in the state evaluated
        /// in `v` (`None`: it has none). Draws from the bits, without
        /// listing the moves, where they are few words: connect four's
        /// playouts spent a third of their instructions in `random_move`
        /// when it listed them. Always inlined: `play_in` calls it once a
        /// role with the role known, and as a call it cost breakthrough's
        /// playouts 5% more instructions.
        #[inline(always)]
        fn draw(
            v: &Values,
            role: #rt::Role,
            rng: &mut #rt::Rng,
            #buf: &mut ::std::vec::Vec<#rt::Move>,
        ) -> ::core::option::Option<#rt::Move> {
            match role {
                #(#random_arms)*
                _ => None,
            }
        }

        /// The next state of `state`, whose evaluation is `v`, under
        /// `joint`. `v` is overwritten on the way: it ends holding the joint
        /// move's bits and the atoms of `next`.
        #[inline]
        fn advance(v: &mut Values, #state_arg: &#state, joint: &[#rt::Move]) -> [u64; #nw] {
            for ((mv, &base), &count) in joint.iter().zip(DOES_BASE.iter()).zip(NUM_MOVES.iter()) {
                // An out-of-range move sets no bit: the result is
                // unspecified but memory-safe, as the trait allows.
                if mv.0 < count {
                    let bit = base + mv.0;
                    v[(bit >> 6) as usize] |= 1 << (bit & 63);
                }
            }
            #move_plane_stmt
            #(#move_set_stmts)*
            #(#next(v);)*
            #(#dispatch)*
            let mut next = [0u64; #nw];
            {
                let out = &mut next;
                #next_copy
            }
            #(#next_patches(v, &mut next);)*
            #frame_stmt
            next
        }
    }
}

/// The `Scratched` methods of a step: `random_move_in` and `apply_in` on
/// the scratch's evaluation of their state and, where the evaluation is
/// from scratch (`in_place`), `play_in`, which advances each step's
/// evaluation in place and evaluates the next state into it, with no look-up
/// and no copy of the value vector.
pub(super) fn methods(
    roles: usize,
    rt: &syn::Path,
    (scratch, state): (&Ident, &Ident),
    in_place: bool,
) -> TokenStream {
    let nr = lit_usize(roles);
    let play_in = in_place.then(|| {
        // One draw a role, written out: a loop over the roles cost connect
        // four's playouts about 15 instructions a ply, and pushing on the
        // `joint` vector (a length and a capacity in memory) 28 more.
        let draws = (0..roles).map(|r| {
            let role = lit_usize(r);
            quote! {
                drawn[#role] = match draw(&evals.v, #role, rng, legal) {
                    Some(mv) => mv,
                    None => {
                        joint.clear();
                        joint.extend_from_slice(&drawn[..#role]);
                        return (depth, #rt::PlayoutEnd::Stuck { role: #role });
                    }
                };
            }
        });
        quote! {
            fn play_in(
                &self,
                scratch: &mut #scratch,
                state: &mut #state,
                rng: &mut #rt::Rng,
                max_depth: usize,
                joint: &mut ::std::vec::Vec<#rt::Move>,
                legal: &mut ::std::vec::Vec<#rt::Move>,
            ) -> (usize, #rt::PlayoutEnd) {
                let evals = &mut scratch.evals;
                let mut depth = 0;
                // The joint move of the step, left in `joint` at the end.
                let mut drawn = [#rt::Move(0); #nr];
                let end = loop {
                    evaluate(evals, state);
                    if test(&evals.v, TERMINAL) {
                        break #rt::PlayoutEnd::Terminal;
                    }
                    if depth >= max_depth {
                        break #rt::PlayoutEnd::DepthLimit;
                    }
                    #(#draws)*
                    // `advance` overwrites the evaluation: it holds no
                    // state's until the next is evaluated into it.
                    evals.state = None;
                    state.0 = advance(&mut evals.v, state, &drawn);
                    depth += 1;
                };
                if depth > 0 {
                    joint.clear();
                    joint.extend_from_slice(&drawn);
                }
                (depth, end)
            }
        }
    });
    quote! {
        #[inline]
        fn random_move_in(
            &self,
            scratch: &mut #scratch,
            state: &#state,
            role: #rt::Role,
            rng: &mut #rt::Rng,
            buf: &mut ::std::vec::Vec<#rt::Move>,
        ) -> ::core::option::Option<#rt::Move> {
            with_values(&mut scratch.evals, state, |v| draw(v, role, rng, buf))
        }

        #[inline]
        fn apply_in(&self, scratch: &mut #scratch, state: &mut #state, joint: &[#rt::Move]) {
            let mut v = with_values(&mut scratch.evals, state, |e| *e);
            state.0 = advance(&mut v, state, joint);
        }

        #play_in
    }
}
