//! The evaluation struct (memo tables, arenas, the state and joint move),
//! its limits, its term store, and the module's header items.

use super::functions::Fields;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::cost;
use super::module::usize_lit;
use crate::backend::common::EmitOptions;
use crate::backend::common::{self};

/// The evaluation's constants: when recursive tests start being memoized,
/// and how long an answer list may grow before it is deduplicated.
pub(super) fn evaluation_limits() -> TokenStream {
    let unmemoized = Literal::u32_unsuffixed(cost::UNMEMOIZED_CALLS_LOG2);
    let unsorted = Literal::usize_unsuffixed(cost::UNSORTED_ANSWERS);
    quote! {
        /// A recursive test runs without a memo, guarding against cycles by
        /// the calls in progress only, until the evaluation has made this
        /// many such calls: most recursions of game rules walk a line or a
        /// count and never meet the same call twice, and a memo insert costs
        /// more than such a step. Past it, calls are memoized, which bounds
        /// the work of recursions that would repeat themselves.
        #[allow(dead_code, reason = "used by games with recursive tests")]
        const UNMEMOIZED_CALLS: u32 = 1 << #unmemoized;

        /// Answer lists up to this long keep their duplicates, if any (see
        /// the functions that sort longer ones).
        #[allow(dead_code, reason = "used by games with answer lists")]
        const UNSORTED_ANSWERS: usize = #unsorted;
    }
}

/// The evaluation of one state (and joint move): its memo tables, the
/// relations' functions and the queries; `scratch` names the type that
/// holds a caller's evaluations, of states of `nw` words and `nr` roles.
pub(super) fn ev_items(
    (scratch, nw, nr): (&Ident, usize, usize),
    fields: &Fields,
    fns: &[TokenStream],
    queries: &TokenStream,
    run: &RunTimeTerms,
    rt: &syn::Path,
) -> TokenStream {
    let RunTimeTerms {
        field: run_field,
        init: run_init,
        reset: run_reset,
        methods: run_methods,
    } = run;
    let nw = usize_lit(nw);
    let nr = usize_lit(nr);
    let (names, resets, run_reset) = ev_resets(fields, run_reset);
    let ev_struct = ev_struct(&nw, &nr, fields, run_field, rt);
    let limits = evaluation_limits();
    let access = ev_access(scratch, &nw, &nr);
    let term_fns = term_fns();
    let state_tests = ev_state_tests();
    quote! {
        #ev_struct

        #limits

        #access

        #[allow(unused_variables, unused_mut, clippy::collapsible_if, clippy::needless_range_loop, clippy::too_many_arguments, clippy::never_loop, reason = "rule bodies are printed as they come (an existence test returns from its first solution's loop)")]
        impl Ev {
            fn new() -> Self {
                Ev {
                    state: [!0; #nw],
                    joint: [NONE; #nr],
                    calls: 0,
                    #(#names: ::core::default::Default::default(),)*
                    #run_init
                }
            }

            /// Forgets what was computed (keeping the tables' memory).
            // Out of line: inlined into each query's test of its state, it
            // cost ticTacToe 4% more instructions a playout.
            #[inline(never)]
            fn reset(&mut self, state: &[u64; #nw], joint: &[u32; #nr]) {
                self.state = *state;
                self.joint = *joint;
                self.calls = 0;
                #(#resets)*
                #run_reset
            }

            #run_methods

            #state_tests

            #queries
            #(#fns)*
        }

        #term_fns
    }
}

/// The names of the evaluation's fields, what `Ev::reset` clears of them
/// each state, and what it clears once the run-time terms (reset by
/// `run_reset`, if any) grow too many.
fn ev_resets(
    fields: &Fields,
    run_reset: &TokenStream,
) -> (
    Vec<proc_macro2::Ident>,
    Vec<TokenStream>,
    Option<TokenStream>,
) {
    let of_state: Vec<proc_macro2::Ident> = fields.of_state.iter().map(field_name).collect();
    let stateless: Vec<proc_macro2::Ident> = fields.stateless.iter().map(field_name).collect();
    let names: Vec<proc_macro2::Ident> = of_state.iter().chain(&stateless).cloned().collect();
    // With terms built at run time, what the stateless relations computed
    // is kept with the terms it names (laikLee_hex's `isList` and
    // `append_el` over lists of cells, asked again in every state) until
    // the store grows past `KEPT_TERMS`; without, it is reset each state.
    let keeps = !run_reset.is_empty();
    let none = Vec::new();
    let (each_state, kept) = if keeps {
        (&of_state, &stateless)
    } else {
        (&names, &none)
    };
    let resets: Vec<TokenStream> = each_state.iter().map(field_reset).collect();
    let kept: Vec<TokenStream> = kept.iter().map(field_reset).collect();
    let run_reset = keeps.then(|| {
        quote! {
            if self.run_terms.get_mut().len() > Self::KEPT_TERMS {
                #run_reset
                #(#kept)*
            }
        }
    });
    (names, resets, run_reset)
}

/// The run-time helpers' import and the evaluation struct `Ev`: the state
/// (`nw` words), the joint move (`nr` roles), the `fields` and the
/// run-time terms' `run_field`.
fn ev_struct(
    nw: &Literal,
    nr: &Literal,
    fields: &Fields,
    run_field: &TokenStream,
    rt: &syn::Path,
) -> TokenStream {
    let fields: Vec<&TokenStream> = fields.of_state.iter().chain(&fields.stateless).collect();
    quote! {
        #[allow(unused_imports, reason = "the helpers a game's rules need vary")]
        use #rt::lifted::{bit_set, dedup_from, or_bits_in, or_bits_shifted, push_new, push_new_from, rows, run, set_bits_filtered, set_bits_in, value_span, value_spans, DenseMemo, Index, Keyed, Memo, Ranks, Span, SpanIndex, NONE};

        /// The evaluation of the rules in one state, with one joint move
        /// (none for `legal`, `terminal` and `goal`: all `NONE`): what has
        /// been computed so far, by relation and bound arguments.
        struct Ev {
            /// The state (a scan of it borrows it a step at a time, while
            /// its loop calls on the evaluation).
            state: [u64; #nw],
            joint: [u32; #nr],
            /// Recursive tests run without a memo so far (see
            /// `UNMEMOIZED_CALLS`).
            calls: u32,
            #(#fields,)*
            #run_field
        }
    }
}

/// `Ev`'s tests of the state and joint move: whether a fluent holds,
/// whether a role plays a move.
fn ev_state_tests() -> TokenStream {
    quote! {
        #[allow(dead_code, reason = "the helpers a game's rules need vary")]
        /// Whether the fluent term `t` holds.
        fn holds(&self, t: u32) -> bool {
            bit_set(&self.state[..], fluent_of(t))
        }

        #[allow(dead_code, reason = "the helpers a game's rules need vary")]
        /// Whether role term `r` plays move term `m`.
        fn does(&self, r: u32, m: u32) -> bool {
            self.joint
                .iter()
                .enumerate()
                .any(|(i, &x)| x != NONE && ROLE_TERM.get(i) == Some(&r) && x == m)
        }
    }
}

/// The scratch (the evaluations of one caller: a thread's, or a driver's
/// own, see `Scratched`) and `with_ev`, which runs a query on one.
pub(super) fn ev_access(scratch: &Ident, nw: &Literal, nr: &Literal) -> TokenStream {
    quote! {
        /// The evaluations of one caller's queries (a thread's, or a
        /// driver's own: see `Scratched`): that of the state it last
        /// queried, which the queries of one state (every role's legal
        /// moves, terminal, goals) share, and that of its last transition.
        pub struct #scratch {
            state_ev: Ev,
            move_ev: Ev,
        }

        impl #scratch {
            /// Nothing evaluated yet.
            fn new() -> Self {
                #scratch { state_ev: Ev::new(), move_ev: Ev::new() }
            }
        }

        /// Runs `f` on evaluation `ev`, reset unless it is of `state` and
        /// `joint` already.
        #[inline]
        fn with_ev<R>(
            ev: &mut Ev,
            state: &[u64; #nw],
            joint: &[u32; #nr],
            f: impl FnOnce(&mut Ev) -> R,
        ) -> R {
            if ev.state != *state || ev.joint != *joint {
                ev.reset(state, joint);
            }
            f(ev)
        }
    }
}

/// The term helpers over the universe's tables: a term's functor, its
/// arguments, its fluent id.
pub(super) fn term_fns() -> TokenStream {
    quote! {
        #[allow(dead_code, reason = "the helpers a game's rules need vary")]
        /// The functor of term `t` (`NONE` for a constant).
        fn functor(t: u32) -> u32 {
            FUNCTOR.get(t as usize).copied().unwrap_or(NONE)
        }

        #[allow(dead_code, reason = "the helpers a game's rules need vary")]
        /// The arguments of term `t`.
        fn args(t: u32) -> &'static [u32] {
            let t = t as usize;
            match (ARG_START.get(t), ARG_START.get(t + 1)) {
                (Some(&a), Some(&b)) => &ARGS[a as usize..b as usize],
                _ => &[],
            }
        }

        #[allow(dead_code, reason = "the helpers a game's rules need vary")]
        /// The fluent id of term `t` (`NONE` if it is not a fluent).
        fn fluent_of(t: u32) -> u32 {
            FLUENT_OF.get(t as usize).copied().unwrap_or(NONE)
        }
    }
}

/// The name of the field `f` declares (after its attributes).
pub(super) fn field_name(f: &TokenStream) -> proc_macro2::Ident {
    (f.clone().into_iter())
        .find_map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => Some(i),
            _ => None,
        })
        .expect("a field name")
}

/// The statement resetting field `n` for a new state.
pub(super) fn field_reset(n: &proc_macro2::Ident) -> TokenStream {
    let n_text = n.to_string();
    if n_text.starts_with("done_") {
        quote!(self.#n = false;)
    } else if n_text.starts_with("pool_") {
        // Buffer pools keep their buffers from state to state.
        quote!()
    } else {
        // Clearing an empty hash table still writes its control bytes.
        quote!(if !self.#n.is_empty() { self.#n.clear(); })
    }
}

/// What an evaluation needs to build terms at run time (nothing unless
/// `on`): its store (a field, its initial value and its reset) and the
/// methods the rules call in place of `make_<f>`, `functor` and `args`.
pub(super) struct RunTimeTerms {
    field: TokenStream,
    init: TokenStream,
    reset: TokenStream,
    methods: TokenStream,
}

pub(super) fn run_time_term_items(on: bool, rt: &syn::Path) -> RunTimeTerms {
    let kept = Literal::u32_unsuffixed(cost::KEPT_TERMS_LOG2);
    if !on {
        return RunTimeTerms {
            field: quote!(),
            init: quote!(),
            reset: quote!(),
            methods: quote!(),
        };
    }
    RunTimeTerms {
        field: quote! {
            /// The terms the rules built in this evaluation that the
            /// universe does not hold (ids after the universe's).
            run_terms: ::core::cell::RefCell<#rt::lifted::TermStore>,
        },
        init: quote! {
            run_terms: ::core::cell::RefCell::new(#rt::lifted::TermStore::new(FUNCTOR.len() as u32)),
        },
        reset: quote!(self.run_terms.get_mut().clear();),
        methods: quote! {
            /// Terms built at run time are kept from state to state, with
            /// what the relations that hold in every state computed over
            /// them, until the store holds this many; then both are
            /// forgotten. A few megabytes at most.
            const KEPT_TERMS: usize = 1 << #kept;

            /// The term `(f args..)`: `made`, the universe's term, unless
            /// the universe has none; then the store's.
            fn make_term(&self, made: u32, f: u32, args: &[u32]) -> u32 {
                if made != NONE || args.contains(&NONE) {
                    made
                } else {
                    self.run_terms.borrow_mut().make(f, args)
                }
            }

            /// The functor of term `t` (`NONE` for a constant).
            #[inline]
            fn functor_of(&self, t: u32) -> u32 {
                match FUNCTOR.get(t as usize) {
                    Some(&f) => f,
                    None => self.run_terms.borrow().functor(t),
                }
            }

            /// The arguments of term `t`, of a functor of arity `N`.
            #[inline]
            fn args_of<const N: usize>(&self, t: u32) -> [u32; N] {
                if (t as usize) < FUNCTOR.len() {
                    args(t).try_into().unwrap_or([NONE; N])
                } else {
                    self.run_terms.borrow().args::<N>(t)
                }
            }
        },
    }
}

/// Role constants, the game and state types, the text tables.
pub(super) fn header_items(
    opts: &EmitOptions,
    game: &proc_macro2::Ident,
    state: &proc_macro2::Ident,
    nw: usize,
    strings: &common::Strings,
) -> TokenStream {
    let game_doc = format!(
        " The game of `{}`, compiled by gdl-codegen's lifted back end.",
        opts.source_name
    );
    let types = common::type_decls(strings, game, state, nw, &game_doc);
    let common::Strings {
        role_names,
        fluents,
        moves,
        move_tables,
        key_fn,
        ..
    } = strings;
    quote! {
        #types

        #role_names
        #fluents
        #moves
        #move_tables
        #key_fn
    }
}
