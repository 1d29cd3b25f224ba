//! The generated module, assembled: tables, the per-thread evaluation, the
//! query functions and the `Game` impl.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use super::incremental;
use super::queries::{hex_lit, inline_attr, lit_u32, lit_usize, Printer, CHUNK_WEIGHT};
use super::tables::Tables;
use super::{moves, step, EmitOptions};
use crate::backend::common::{self, names};
use crate::bitnet::churn;
use crate::bitnet::layout::{FALSE_BIT, TRUE_BIT};
use crate::bitnet::Bitnet;
use crate::ground::GroundProgram;

/// How a query's outputs are read from the value vector into an `out` array.
struct Gather {
    /// Copies the output region (a statement reading `v`, writing `out`).
    copy: TokenStream,
    /// Functions `fn(v: &Values, out: &mut [u64; N])` patching the rest.
    patches: Vec<Ident>,
    /// Length of `out` in words.
    words: usize,
}

/// The statement `out[dw] |= bit(src) << ds` of one output patch.
fn patch_stmt(dst: usize, src: u32) -> TokenStream {
    let (dw, ds) = (lit_usize(dst / 64), (dst % 64) as u32);
    if src == TRUE_BIT {
        let m = hex_lit(1u64 << ds);
        return quote!(out[#dw] |= #m;);
    }
    let (sw, ss) = (lit_usize((src >> 6) as usize), src & 63);
    let bit = if ss == 0 {
        quote!(v[#sw] & 1)
    } else {
        let ss = lit_u32(ss);
        quote!((v[#sw] >> #ss) & 1)
    };
    if ds == 0 {
        quote!(out[#dw] |= #bit;)
    } else {
        let ds = lit_u32(ds);
        quote!(out[#dw] |= (#bit) << #ds;)
    }
}

impl Printer {
    /// Emits functions that copy the bits at `sources` (positions in the
    /// value vector, or the constants) into bits `0..sources.len()` of an
    /// output array, straight-line and without branches. The region holds
    /// every output computed by a rule of its own in place: copy its words,
    /// then patch the outputs that are constants, inputs or atoms placed in
    /// another region.
    fn gather_fns(&mut self, prefix: &str, sources: &[u32], region: u32) -> Gather {
        let out_words = sources.len().div_ceil(64).max(1);
        let n = lit_usize(out_words);
        let first = lit_usize((region / 64) as usize);
        let last = lit_usize((region / 64) as usize + out_words);
        let patches: Vec<(usize, u32)> = sources
            .iter()
            .enumerate()
            .filter(|&(i, &src)| src != FALSE_BIT && src != region + i as u32)
            .map(|(i, &src)| (i, src))
            .collect();
        let mut names = Vec::new();
        for (chunk_index, chunk) in patches.chunks(CHUNK_WEIGHT).enumerate() {
            let stmts = chunk.iter().map(|&(dst, src)| patch_stmt(dst, src));
            let name = format_ident!("{}_{}", prefix, chunk_index);
            // Constant patches do not read the value vector.
            let v = if chunk.iter().all(|&(_, src)| src == TRUE_BIT) {
                format_ident!("_v")
            } else {
                format_ident!("v")
            };
            let inline = inline_attr(chunk.len());
            self.fns.push(quote! {
                #inline
                fn #name(#v: &Values, out: &mut [u64; #n]) {
                    #(#stmts)*
                }
            });
            names.push(name);
        }
        Gather {
            copy: quote!(out.copy_from_slice(&v[#first..#last]);),
            patches: names,
            words: out_words,
        }
    }

    /// Per role, the block that gathers its legal moves' bits into `bits`
    /// (move `m` is bit `m`), reading `v`.
    fn legal_bits(&mut self, gp: &GroundProgram, net: &Bitnet) -> Vec<TokenStream> {
        let layout = &net.layout;
        let mut arms = Vec::new();
        for (r, legal) in gp.legal.iter().enumerate() {
            let legal: Vec<u32> = legal.iter().map(|o| layout.output_pos(*o)).collect();
            let gather = self.gather_fns(&format!("legal_bits_{r}"), &legal, layout.regions[r]);
            let (lw, copy, patches) = (lit_usize(gather.words), gather.copy, gather.patches);
            arms.push(quote! {
                let mut bits = [0u64; #lw];
                {
                    let out = &mut bits;
                    #copy
                }
                #(#patches(v, &mut bits);)*
            });
        }
        arms
    }
}

/// Per role, its goal values and the bits that hold them.
fn goal_tables(gp: &GroundProgram, net: &Bitnet) -> Vec<TokenStream> {
    gp.goal
        .iter()
        .map(|gs| {
            let vals = gs.iter().map(|&(v, _)| Literal::u8_unsuffixed(v));
            let bits = gs.iter().map(|&(_, o)| lit_u32(net.layout.output_pos(o)));
            quote!(&[#((#vals, #bits)),*])
        })
        .collect()
}

/// The initial state's words.
fn init_words(gp: &GroundProgram, net: &Bitnet) -> Vec<Literal> {
    let mut init = vec![0u64; net.layout.state_words];
    for &f in &gp.init {
        init[(f / 64) as usize] |= 1 << (f % 64);
    }
    init.into_iter().map(hex_lit).collect()
}

/// The rule tables' loop, when some atom uses them.
fn table_fn(tables: &Tables) -> TokenStream {
    if tables.is_empty() {
        return quote!();
    }
    quote! {
        /// Whether one of the bodies `from..to` of the rule tables
        /// holds.
        #[inline(never)]
        fn any_body(v: &Values, from: usize, to: usize) -> bool {
            BODY_START[from..=to].windows(2).any(|w| {
                BODY_LITERALS[w[0] as usize..w[1] as usize].iter().all(|&l| {
                    let p = (l >> 1) as usize;
                    ((v[p >> 6] >> (p & 63)) & 1) as u32 != (l & 1)
                })
            })
        }

        /// Computes the atoms `from..to` of the atom table, in order.
        #[allow(dead_code, reason = "used where whole atoms are in the tables")]
        #[inline(never)]
        fn tabled_atoms(v: &mut Values, from: usize, to: usize) {
            for atom in ATOM_TABLE[from * 3..to * 3].chunks_exact(3) {
                if any_body(v, atom[1] as usize, atom[2] as usize) {
                    let p = atom[0] as usize;
                    v[p >> 6] |= 1 << (p & 63);
                }
            }
        }
    }
}

/// The query functions' names, in the order a module calls them.
pub(super) struct Calls {
    /// Per role, the block gathering its legal moves' bits into `bits`.
    pub(super) legal_bits: Vec<TokenStream>,
    eval: Vec<Ident>,
    /// The estimate that made the evaluation incremental, if it is.
    incremental: Option<churn::Estimate>,
    goal: Vec<Ident>,
    /// The functions of `next`'s schedule.
    pub(super) next: Vec<Ident>,
    /// The statements running the move dispatch functions.
    pub(super) dispatch: Vec<TokenStream>,
    /// The statement copying the next state's region into `out`.
    pub(super) next_copy: TokenStream,
    /// The functions patching the rest of the next state.
    pub(super) next_patches: Vec<Ident>,
}

/// Prints every function of the module, in order.
fn print_queries(
    p: &mut Printer,
    gp: &GroundProgram,
    net: &Bitnet,
    opts: &EmitOptions,
    sample: &incremental::Sample,
) -> Calls {
    let legal_bits = p.legal_bits(gp, net);
    let incremental = incremental::decide(sample, opts.incremental);
    let eval = p.schedule_fns("eval", &net.eval, incremental.is_some());
    let goal = p.schedule_fns("goal", &net.goal, false);
    let next = p.schedule_fns("next", &net.next, false);
    let dispatch = p.dispatch_calls(net);
    let region = net.layout.regions[gp.roles.len()];
    let gather = p.gather_fns("next_state", &net.next_bits, region);
    Calls {
        legal_bits,
        eval,
        incremental,
        goal,
        next,
        dispatch,
        next_copy: gather.copy,
        next_patches: gather.patches,
    }
}

/// The length of the printed code that evaluates a state and its moves
/// (the schedules of eval, goal and next, the move dispatch, the legal
/// moves' bits and the next state's gathers), as unformatted text: what a
/// playout runs through, as the printer finds it (planes, word families,
/// gathers). Two layouts of one game are compared by it
/// ([`super::Compiled`]).
pub(super) fn printed_size(gp: &GroundProgram, net: &Bitnet) -> usize {
    let threshold = Tables::default_threshold(gp.num_literals());
    let mut p = Printer::new(net, threshold, Default::default());
    let mut calls = p.legal_bits(gp, net);
    p.schedule_fns("eval", &net.eval, false);
    p.schedule_fns("goal", &net.goal, false);
    p.schedule_fns("next", &net.next, false);
    calls.extend(p.dispatch_calls(net));
    let region = net.layout.regions[gp.roles.len()];
    calls.push(p.gather_fns("next_state", &net.next_bits, region).copy);
    let len = |t: &TokenStream| t.to_string().len();
    calls
        .iter()
        .chain(&p.fns)
        .chain(&p.gathers.items)
        .map(len)
        .sum()
}

/// The module's tokens, and its rule tables (printed apart: they are data).
pub(super) fn tokens(
    gp: &GroundProgram,
    net: &Bitnet,
    opts: &EmitOptions,
    rt: &syn::Path,
) -> (TokenStream, Tables) {
    let threshold = super::table_threshold(gp, opts);
    let sample = incremental::Sample::new(gp, net);
    let mut p = Printer::new(net, threshold, incremental::often_true(&sample));
    let calls = print_queries(&mut p, gp, net, opts, &sample);
    let game = Ident::new(&names::type_name(&opts.type_name), Span::call_site());
    let state = format_ident!("{}State", game);
    let scratch = format_ident!("{}Scratch", game);
    let strings = common::Strings::new(&common::Texts::of(gp), rt);
    let items = items(gp, net, opts, &game, &state, &strings);
    let runtime = runtime_items(net, (&scratch, &state), &strings, &calls);
    let step_fns = step::fns(gp, net, rt, &state, &calls);
    let queries = common::Queries {
        scratch: &scratch,
        const_new: true,
        methods: methods(gp, rt, (&scratch, &state), &calls),
    };
    let game_impl = common::game_impl(
        rt,
        &game,
        &state,
        net.layout.state_words,
        gp.roles.len(),
        queries,
    );
    let fns = p.fns.iter().chain(&p.gathers.items);
    let table_fn = table_fn(&p.tables);
    let module = quote! {
        #items
        #runtime
        #step_fns
        #(#fns)*

        #table_fn

        #game_impl
    };
    (module, p.tables)
}

/// The types and tables of the module, up to the per-thread evaluation.
fn items(
    gp: &GroundProgram,
    net: &Bitnet,
    opts: &EmitOptions,
    game: &Ident,
    state: &Ident,
    strings: &common::Strings,
) -> TokenStream {
    let layout = &net.layout;
    let nw = lit_usize(layout.state_words);
    let nv = lit_usize(layout.total_words());
    let nr = lit_usize(gp.roles.len());
    let init = init_words(gp, net);
    let goal_tables = goal_tables(gp, net);
    let terminal_bit = lit_u32(layout.output_pos(gp.terminal));
    let moves_count = gp.moves.iter().map(|m| lit_u32(m.len() as u32));
    let does_base = layout.role_moves.iter().map(|&(start, _)| lit_u32(start));
    let (frame_items, _) = moves::frame_items(net);
    let (move_set_items, _) = moves::move_set_items(net);
    let (move_plane_items, _) = moves::move_plane_items(net, gp.roles.len());
    let game_doc = format!(
        " The game of `{}`, compiled by gdl-codegen.",
        opts.source_name
    );
    let types = common::type_decls(strings, game, state, layout.state_words, &game_doc);
    let common::Strings {
        role_names,
        fluents,
        moves,
        move_tables,
        ..
    } = strings;
    quote! {
        #types

        /// The value vector of one query: state words, `does` words, derived atoms.
        type Values = [u64; #nv];

        #role_names
        #fluents
        static INIT: [u64; #nw] = [#(#init),*];
        static GOALS: [&[(u8, u32)]; #nr] = [#(#goal_tables),*];
        #moves
        static NUM_MOVES: [u32; #nr] = [#(#moves_count),*];
        static DOES_BASE: [u32; #nr] = [#(#does_base),*];
        const TERMINAL: u32 = #terminal_bit;
        #(#frame_items)*
        #(#move_set_items)*
        #move_plane_items
        #move_tables
    }
}

/// The helpers of the queries: bit tests, move lists, the per-thread
/// evaluation, the text key.
fn runtime_items(
    net: &Bitnet,
    (scratch, state): (&Ident, &Ident),
    strings: &common::Strings,
    calls: &Calls,
) -> TokenStream {
    let nv = lit_usize(net.layout.total_words());
    let false_bit = lit_u32(FALSE_BIT);
    let true_bit = lit_u32(TRUE_BIT);
    let key_fn = &strings.key_fn;
    let nw = lit_usize(net.layout.state_words);
    let evaluation = incremental::runtime_items(
        (scratch, state),
        &nw,
        &nv,
        &calls.eval,
        calls.incremental.as_ref(),
    );
    quote! {
        /// Whether bit `bit` of the value vector holds (with the constants).
        #[inline(always)]
        fn test(v: &Values, bit: u32) -> bool {
            match bit {
                #false_bit => false,
                #true_bit => true,
                _ => v.get((bit >> 6) as usize).is_some_and(|w| (w >> (bit & 63)) & 1 != 0),
            }
        }

        #evaluation

        #key_fn
    }
}

/// The `Scratched` methods: legal moves and terminal from the scratch's
/// evaluations, goals from them and their own, `next` from them and the
/// joint move.
fn methods(
    gp: &GroundProgram,
    rt: &syn::Path,
    (scratch, state): (&Ident, &Ident),
    calls: &Calls,
) -> TokenStream {
    // With one role, an empty catch-all arm would be clippy's `single_match`.
    let other_roles = if gp.roles.len() == 1 {
        quote!(_ => out.clear(),)
    } else {
        quote!(_ => {})
    };
    let roles = (0..gp.roles.len()).map(lit_usize);
    let legal_arms = roles
        .clone()
        .zip(&calls.legal_bits)
        .map(|(r, bits)| quote!(#r => { #bits #rt::move_bits::push_moves_of_bits(&bits, out); }));
    let Calls {
        goal: goal_calls,
        incremental,
        ..
    } = calls;
    let step_methods = step::methods(gp.roles.len(), rt, (scratch, state), incremental.is_none());
    let goal_body = quote! {
        let cache = &mut scratch.goal;
        if cache.state.as_ref() != Some(state) {
            cache.v = with_values(&mut scratch.evals, state, |e| *e);
            #(#goal_calls(&mut cache.v);)*
            cache.state = Some(*state);
        }
        let mut found = None;
        for &(value, bit) in goals.iter() {
            if test(&cache.v, bit) {
                if found.is_some() {
                    return #rt::Goal::Ambiguous;
                }
                found = Some(value);
            }
        }
        found.map_or(#rt::Goal::None, #rt::Goal::Value)
    };
    // The per-ply queries are `#[inline]`: the drivers that call them
    // (playouts, perft, search) are generic, instantiated in another codegen
    // unit, and a call they cannot inline costs its frame and keeps the move
    // vector's fields in memory (connect four: 13.0 K instructions a playout
    // against 11.6 K).
    quote! {
        #[inline]
        fn legal_moves_in(
            &self,
            scratch: &mut #scratch,
            state: &#state,
            role: #rt::Role,
            out: &mut ::std::vec::Vec<#rt::Move>,
        ) {
            out.clear();
            with_values(&mut scratch.evals, state, |v| match role {
                #(#legal_arms)*
                #other_roles
            });
        }

        #[inline]
        fn is_terminal_in(&self, scratch: &mut #scratch, state: &#state) -> bool {
            with_values(&mut scratch.evals, state, |v| test(v, TERMINAL))
        }

        fn goal_in(&self, scratch: &mut #scratch, state: &#state, role: #rt::Role) -> #rt::Goal {
            let Some(goals) = GOALS.get(role) else {
                return #rt::Goal::None;
            };
            #goal_body
        }

        #step_methods

    }
}
