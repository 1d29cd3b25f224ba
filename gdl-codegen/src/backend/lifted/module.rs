//! The generated module of the lifted back end: a function per derived
//! relation and adornment, a function per recursive component, the query
//! entry points, the constant tables and the `Game` impl.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::body::{param, Body};
use super::closure::{closure, Closure};
use super::facts::{Facts, Universe};
use super::hybrid::Hybrid;
use super::layout::Layout;
use super::memo::{self, memo_type};
use super::plan::{argument_params, plan_rule, Adorn, Catalog, Source, Step, EXISTS};
use super::prejoin::Column;
use super::whole::{Caller, Whole};
use super::widen::Widening;
use super::{mask_name, Registry};
use crate::backend::common::format::{DataArray, Module};
use crate::backend::common::EmitOptions;
use crate::backend::common::{self, names, Texts};
use crate::front::ir::{Keyword, Program};
use crate::ground::db::NONE;
use crate::lifted::{CRule, Lit, Pat};

/// `n` as an unsuffixed literal.
pub fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

fn hex(w: u64) -> Literal {
    Literal::u64_unsuffixed(w)
}

/// The module of `facts`.
///
/// Its functions are printed twice where the first printing lists some
/// relation whole and also asks it for the answers of given arguments (the
/// second may read those from the list: see
/// [`crate::backend::lifted::plan::Catalog::reads_whole`]), or asks some
/// call once per key of its callers (the second prints it without a memo:
/// see [`Registry::asked_once`]).
pub fn build(program: &Program, facts: &Facts, opts: &EmitOptions, rt: &syn::Path) -> Module {
    let fixed = fixed_legal_moves(program, facts);
    let sink = MoveSink::of(facts);
    let legal_sink = fixed.is_none().then_some(sink);
    let (mut reg, mut queries, mut fns, mut fields) = functions(
        program,
        facts,
        legal_sink,
        rt,
        (Whole::default(), Default::default()),
    );
    let (whole, once) = (reg.graph.whole(), reg.asked_once());
    if !whole.is_empty() {
        (reg, queries, fns, fields) = functions(
            program,
            facts,
            legal_sink,
            rt,
            (whole.clone(), once.clone()),
        );
    }
    // Reading whole lists changes the calls: what is asked once is read
    // from the printing that reads them (printing without memos changes
    // no call).
    let asked = reg.asked_once();
    if asked != reg.once {
        (reg, queries, fns, fields) = functions(program, facts, legal_sink, rt, (whole, asked));
    }
    fields.of_state.push(quote! {
        #[doc = " A buffer for the goal value terms of a role."]
        pool_values: ::std::vec::Vec<u32>
    });
    let layout = Layout::new(facts, &reg.value_masks, |fid, pos| reg.values_at(fid, pos));
    let texts = texts(facts);
    let strings = common::Strings::new(
        &Texts {
            roles: &texts.0,
            fluents: &texts.1,
            fluent_bits: (!layout.is_identity()).then_some(&layout.bit_of),
            moves: &texts.2,
            case_sensitive: facts.case_sensitive,
        },
        rt,
    );
    let nw = facts.fluents.len().div_ceil(64).max(1);
    let game = proc_macro2::Ident::new(
        &names::type_name(&opts.type_name),
        proc_macro2::Span::call_site(),
    );
    let state = format_ident!("{}State", game);
    let (mut data, consts) = tables(facts, &reg, &layout, nw);
    // Legal moves listed at compile time map no term to a move.
    let move_of = fixed.is_none().then(|| {
        let nr = usize_lit(facts.roles.len());
        let refs = (0..facts.roles.len()).map(|r| format_ident!("MOVE_OF_{}", r));
        quote!(static MOVE_OF: [&[u32]; #nr] = [#(&#refs),*];)
    });
    let (key_arrays, key_items) = memo::dense_key_items(&reg, rt);
    data.extend(key_arrays);
    let specific = methods(facts, rt, (&state, nw), fixed.as_deref(), sink);
    let game_impl = common::game_impl(rt, &game, &state, nw, facts.roles.len(), specific);
    let run = run_time_term_items(reg.run_time_terms, rt);
    let ev = ev_items(nw, facts.roles.len(), &fields, &fns, &queries, &run, rt);
    let items = header_items(opts, &game, &state, nw, &strings);
    Module {
        items: quote! {
            #items
            #consts
            #move_of
            #key_items
            #ev
            #game_impl
        },
        data,
        source_name: opts.source_name.clone(),
    }
}

/// The queries and the relations' functions (with their evaluation's
/// fields) printed with `whole` for [`Registry::whole`] and `once` for
/// [`Registry::once`], and the registry
/// that records what they need (after them only read).
fn functions(
    program: &Program,
    facts: &Facts,
    legal_sink: Option<MoveSink>,
    rt: &syn::Path,
    (whole, once): (Whole, rustc_hash::FxHashSet<(u32, Adorn)>),
) -> (Registry, TokenStream, Vec<TokenStream>, Fields) {
    let mut reg = Registry::new(program, facts);
    reg.whole = whole;
    reg.once = once;
    let queries = queries(program, facts, legal_sink, &mut reg, rt);
    let (fns, fields) = relation_fns(facts, &mut reg);
    (reg, queries, fns, fields)
}

/// The text tables' contents: role names, fluent texts, move texts.
fn texts(facts: &Facts) -> (Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let text = |t: &u32| facts.universe.text[*t as usize].clone();
    (
        facts.role_names.clone(),
        facts.fluents.iter().map(text).collect(),
        facts
            .moves
            .iter()
            .map(|m| m.iter().map(text).collect())
            .collect(),
    )
}

/// The query methods of the evaluation: `legal`, `next`, `terminal`,
/// `goals`, each a one-literal body over its keyword relation.
fn queries(
    program: &Program,
    facts: &Facts,
    legal_sink: Option<MoveSink>,
    reg: &mut Registry,
    rt: &syn::Path,
) -> TokenStream {
    let kw = |k| program.keyword_pred(k).map(|p| p.0);
    let one = |reg: &mut Registry,
               rel: Option<u32>,
               args: Vec<Pat>,
               preset: Option<TokenStream>,
               solution: TokenStream| {
        let Some(rel) = rel else {
            return quote!();
        };
        let source = reg.source(rel);
        let mut body = Body::new(reg, 2, None);
        if let Some(p) = preset {
            body.matching(&Pat::Var(0), p);
        }
        body.literal_now(source, rel, &args, false);
        body.finish(solution)
    };
    reg.caller = Caller::State;
    let legal = kw(Keyword::Legal).filter(|_| legal_sink.is_some());
    // Without a sink `legal` is not printed: the sink read is then moot.
    let sink = legal_sink.unwrap_or(MoveSink::List);
    let legal = match legal {
        // Read by a rule (`has_legal_move`), its answers are a call's, kept
        // for both.
        Some(rel) if read_by_rules(facts, rel) => one(
            reg,
            Some(rel),
            vec![Pat::Var(0), Pat::Var(1)],
            Some(quote!(a0)),
            push_move(&quote!(v1), sink, rt),
        ),
        Some(rel) => legal_rules(facts, rel, reg, sink, rt),
        None => quote!(),
    };
    reg.caller = Caller::Next;
    let next = next_rules(program, facts, reg);
    reg.caller = Caller::State;
    let terminal = one(
        reg,
        kw(Keyword::Terminal),
        vec![],
        None,
        quote!(return true;),
    );
    let goals = one(
        reg,
        kw(Keyword::Goal),
        vec![Pat::Var(0), Pat::Var(1)],
        Some(quote!(role)),
        quote!(out.push(v1);),
    );
    let legal = legal_sink.map(|sink| {
        let out = match sink {
            MoveSink::Bits(_) => quote!(&mut [u64]),
            MoveSink::List => quote!(&mut ::std::vec::Vec<#rt::Move>),
        };
        quote! {
            /// The moves `legal(a0, m)` gives, as the ids `ids` (the
            /// role's, by move term rank) gives them: bits set in `out`,
            /// or pushed on it unsorted.
            fn legal(&mut self, a0: u32, ids: &[u32], out: #out) {
                #legal
            }
        }
    });
    quote! {
        #legal

        /// The fluents `next` gives, as bits.
        fn next(&mut self, out: &mut [u64]) {
            #next
        }

        /// Whether `terminal` holds.
        fn terminal(&mut self) -> bool {
            #terminal
            false
        }

        /// The value terms `goal(role, v)` gives.
        fn goals(&mut self, role: u32, out: &mut ::std::vec::Vec<u32>) {
            #goals
        }
    }
}

/// The rules of `next`, each setting the bit of its head's fluent: no
/// call of its own, as nothing else reads `next` (a body may not), so no
/// memo and no list of terms to convert to bits.
fn next_rules(program: &Program, facts: &Facts, reg: &mut Registry) -> TokenStream {
    let Some(next) = program.keyword_pred(Keyword::Next) else {
        return quote!();
    };
    let rules = facts.rules.iter().filter(|r| r.head_rel == next.0);
    let bodies = rules.map(|rule| {
        let steps = plan_rule(rule, 0, reg);
        let mut body = Body::new(reg, rule.num_vars, None);
        body.want(Column::Bit(rule.head[0].clone()));
        body.steps(&steps);
        if let Some(copy) = body.copy_scan(&rule.head[0]) {
            return body.finish(copy);
        }
        let bit = body.fluent_bit(&rule.head[0]);
        body.finish(quote! {
            let f = #bit;
            if f != NONE {
                out[(f >> 6) as usize] |= 1 << (f & 63);
            }
        })
    });
    quote!(#({ #bodies })*)
}

/// Whether a rule's body reads relation `rel`.
fn read_by_rules(facts: &Facts, rel: u32) -> bool {
    let reads = |l: &Lit| matches!(l, Lit::Pos(r, _) | Lit::Neg(r, _) if *r == rel);
    facts.rules.iter().any(|r| r.body.iter().any(reads))
}

/// Where `legal`'s rules put the moves they find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSink {
    /// A bit per move id, in this many words (every role's moves fit):
    /// read in order, with no sort and no repeats.
    Bits(usize),
    /// A list, sorted afterwards: where a role has too many moves for the
    /// words to be cleared and read at each call.
    List,
}

/// Most words of a legal move set: 4 096 moves a role.
const MAX_MOVE_WORDS: usize = 64;

impl MoveSink {
    /// The sink of `facts`' moves.
    fn of(facts: &Facts) -> MoveSink {
        let words = (facts.moves.iter())
            .map(|m| m.len().div_ceil(64))
            .max()
            .unwrap_or(0)
            .max(1);
        if words <= MAX_MOVE_WORDS {
            MoveSink::Bits(words)
        } else {
            MoveSink::List
        }
    }
}

/// The code putting the id of move term `t` (in `ids`, the role's ids by
/// move term rank) in `out`, if it is one of the role's moves.
fn push_move(t: &TokenStream, sink: MoveSink, rt: &syn::Path) -> TokenStream {
    let put = match sink {
        // `NONE`'s word is past the end: no bit.
        MoveSink::Bits(_) => quote! {
            if let Some(w) = out.get_mut((m >> 6) as usize) {
                *w |= 1 << (m & 63);
            }
        },
        MoveSink::List => quote! {
            if m != NONE {
                out.push(#rt::Move(m));
            }
        },
    };
    quote! {
        let t: u32 = #t;
        let rank = MOVE_RANK.get(t as usize).copied().unwrap_or(NONE);
        if let Some(&m) = ids.get(rank as usize) {
            #put
        }
    }
}

/// The rules of `legal`, relation `rel`, for a role bound to `a0`, each
/// putting the move id of its head's move in `sink`: like [`next_rules`], no call of
/// its own, so no memo and no list of move terms.
fn legal_rules(
    facts: &Facts,
    rel: u32,
    reg: &mut Registry,
    sink: MoveSink,
    rt: &syn::Path,
) -> TokenStream {
    let rules = facts.rules.iter().filter(|r| r.head_rel == rel);
    let bodies = rules.map(|rule| {
        let steps = plan_rule(rule, 1, reg);
        let mut body = Body::new(reg, rule.num_vars, None);
        body.want(Column::Term(rule.head[1].clone()));
        body.steps(&steps);
        let t = body.value(&rule.head[1]);
        body.finish(push_move(&t, sink, rt))
    });
    quote!(#({ #bodies })*)
}

/// Where `legal` reads neither the state nor the joint move (the number
/// guessing games): each role's legal move ids, sorted, known at compile
/// time. Its tuples are its relaxed extension, exact where no literal
/// reads the state.
fn fixed_legal_moves(program: &Program, facts: &Facts) -> Option<Vec<Vec<u32>>> {
    let legal = program.keyword_pred(Keyword::Legal)?.0 as usize;
    if crate::analysis::dynamic::state_dependent(program)[legal] {
        return None;
    }
    let tuples = facts.relaxed.get(legal)?.as_ref()?;
    let lists = (facts.roles.iter().zip(&facts.moves))
        .map(|(&role, moves)| {
            let mut ids: Vec<u32> = (tuples.iter())
                .filter(|t| t[0] == role)
                .filter_map(|t| moves.iter().position(|&m| m == t[1]))
                .map(|i| i as u32)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        })
        .collect();
    Some(lists)
}

/// Every function the queries call, transitively, and the fields of the
/// evaluation they use (memo tables, component tables): those of
/// relations that depend on the state or the move, then those of the
/// others (see [`Fields`]).
fn relation_fns(facts: &Facts, reg: &mut Registry) -> (Vec<TokenStream>, Fields) {
    let stateless = |rel: u32| facts.stateless.get(rel as usize).copied() == Some(true);
    let mut fns = Vec::new();
    let mut fields = Fields::default();
    let (mut done, mut comps_done) = (0, std::collections::BTreeSet::new());
    let mut printed = Vec::new();
    loop {
        // Existence tests last: by then the calls listing answers are
        // known, and a test without keys whose relation is listed whole
        // reads that list (see `answered_by_list`).
        printed.resize(reg.calls.len(), false);
        let pending = |exists: bool| {
            (done..reg.calls.len())
                .find(|&i| !printed[i] && (reg.calls[i].1 & EXISTS != 0) == exists)
        };
        if let Some(i) = pending(false).or_else(|| pending(true)) {
            printed[i] = true;
            while done < printed.len() && printed[done] {
                done += 1;
            }
            let (rel, adorn) = reg.calls[i];
            let (f, field) = derived_fn(facts, reg, rel, adorn);
            fns.push(f);
            fields.add(stateless(rel), field);
            continue;
        }
        let Some(&comp) = reg.comps.iter().find(|c| !comps_done.contains(*c)) else {
            break;
        };
        comps_done.insert(comp);
        let (f, fs) = component_fn(facts, reg, comp);
        fns.push(f);
        let of_state = (0..reg.comp_of.len() as u32)
            .any(|p| reg.comp_of[p as usize] == Some(comp) && !stateless(p));
        fields.add(!of_state, fs);
    }
    (fns, fields)
}

/// The fields of an evaluation: those reset with every state, and those
/// of relations that hold in every state (deferred ones computed at run
/// time), which may be kept from state to state.
#[derive(Default)]
struct Fields {
    of_state: Vec<TokenStream>,
    stateless: Vec<TokenStream>,
}

impl Fields {
    fn add(&mut self, stateless: bool, fields: Vec<TokenStream>) {
        if stateless {
            self.stateless.extend(fields);
        } else {
            self.of_state.extend(fields);
        }
    }
}

/// The memoized function of derived relation `rel` called with `adorn`.
fn derived_fn(
    facts: &Facts,
    reg: &mut Registry,
    rel: u32,
    adorn: Adorn,
) -> (TokenStream, Vec<TokenStream>) {
    reg.caller = Caller::Fn(rel, adorn);
    let name = reg.call(rel, adorn);
    let eval = format_ident!("eval_{}", name);
    let memo = format_ident!("memo_{}", name);
    let pool = format_ident!("pool_{}", name);
    let arity = reg.arity[rel as usize];
    let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
    // An existence test outputs nothing: a test, as if all were bound.
    let exists = adorn & EXISTS != 0;
    let free: Vec<usize> = (0..arity)
        .filter(|i| adorn >> i & 1 == 0 && !exists)
        .collect();
    let params: Vec<_> = keys.iter().map(|&i| param(i)).collect();
    let (k, w) = (usize_lit(keys.len()), usize_lit(free.len()));
    let doc = format!(
        " `{}` with arguments `{}` bound.",
        reg.names[rel as usize],
        super::adorn_text(adorn, arity)
    );
    if let Some(f) = answered_by_list(facts, reg, (rel, adorn), (&name, &doc)) {
        return (f, Vec::new());
    }
    if let Some(f) = test_of_list(facts, reg, (rel, adorn), (&name, &doc)) {
        return (f, Vec::new());
    }
    if let Some(c) = reg
        .alone_on_cycle(rel)
        .then(|| closure(&facts.rules, rel, arity, adorn))
        .flatten()
    {
        let keys_ty = reg.dense_keys(facts, rel, adorn, &name);
        let memo_ty = memo_type(keys_ty.as_ref(), &k, quote!((u32, u32)));
        return closure_fn(
            facts,
            reg,
            (&name, &params, &doc),
            (arity, &free),
            &c,
            memo_ty,
        );
    }
    let cyclic = reg.comp_of[rel as usize].is_some();
    let arena = format_ident!("arena_{}", name);
    // Off any cycle, a call cannot meet itself while it runs: its answers
    // go straight to the end of its arena, with no buffer between.
    let direct = !cyclic && !free.is_empty();
    let widening = direct.then(|| widening(facts, reg, (rel, adorn))).flatten();
    let bodies = match widening {
        Some(w) => vec![widened_body(reg, (rel, adorn), &free, &arena, &w)],
        None => rule_bodies(facts, reg, (rel, adorn), &free, direct.then_some(&arena)),
    };
    if free.is_empty() && !cyclic {
        let precheck = guard_precheck(facts, reg, rel, adorn).unwrap_or_default();
        let memo_ty = test_memoized(facts, reg, rel, adorn).then(|| {
            let keys_ty = reg.dense_keys(facts, rel, adorn, &name);
            memo_type(keys_ty.as_ref(), &k, quote!(bool))
        });
        return off_cycle_test(memo_ty, (&name, &params, &doc), &bodies, precheck);
    }
    let stateless = facts.stateless.get(rel as usize).copied() == Some(true);
    let once = direct && !stateless && reg.once.contains(&(rel, adorn));
    let keys_ty = (!once)
        .then(|| reg.dense_keys(facts, rel, adorn, &name))
        .flatten();
    // On a cycle, a call met again while it runs falls back to a closure
    // that answers it, or else to the component's fixpoint, computed whole
    // (`None` marks a running call).
    let fallback = cyclic.then(|| {
        closure_test(facts, reg, rel, adorn)
            .unwrap_or_else(|| from_table(reg, rel, &keys, &free, &arena))
    });
    let (lookup, pending, store, store_answers) = memo_access(&memo, fallback.as_ref());
    let m = Memoized {
        name,
        eval,
        memo,
        params,
        k,
        keys_ty,
        bodies,
        doc,
        lookup,
        pending,
        store,
        cyclic,
    };
    match fallback {
        Some(fallback) if free.is_empty() => {
            let active = format_ident!("active_{}", m.name);
            let precheck = guard_precheck(facts, reg, rel, adorn);
            recursive_test_fn(&m, active, fallback, precheck)
        }
        _ => {
            let collect = if direct {
                Collect::Direct { memoized: !once }
            } else {
                Collect::Buffered {
                    pool,
                    stored: store_answers,
                }
            };
            answers_fn(&m, arena, w, collect, reg.listed.contains(&rel))
        }
    }
}

/// For a call of `rel` with `adorn` (answers, off any cycle, not compiled
/// ground), the literal of its rules that leads to a wider call made
/// anyway (see [`super::widen`]).
fn widening(facts: &Facts, reg: &mut Registry, (rel, adorn): (u32, Adorn)) -> Option<Widening> {
    if adorn & EXISTS != 0 || reg.is_ground(facts, rel, adorn) {
        return None;
    }
    let rules: Vec<&CRule> = facts.rules.iter().filter(|r| r.head_rel == rel).collect();
    let scannable = |r: u32| matches!(reg.source(r), Source::True | Source::Static);
    let wanted = |wider: Adorn| reg.call_names.contains_key(&(rel, wider));
    super::widen::widening(&rules, (reg.arity[rel as usize], adorn), scannable, wanted)
}

/// The code of a call of `rel` with `adorn` answered through the wider
/// call `w` leads to: for each solution of its literal, the wider call's
/// answers, pushed to `arena` as rows of the `free` arguments.
fn widened_body(
    reg: &mut Registry,
    (rel, adorn): (u32, Adorn),
    free: &[usize],
    arena: &proc_macro2::Ident,
    w: &Widening,
) -> TokenStream {
    let arity = reg.arity[rel as usize];
    let is = |a: Adorn, i: usize| a >> i & 1 == 1;
    // Variables numbered by argument: `Var(i)` is argument `i`.
    let mut steps = argument_params(arity, adorn);
    let bound: Vec<bool> = (0..arity).map(|i| is(adorn, i)).collect();
    steps.push(Step::Lit {
        source: reg.source(w.rel),
        rel: w.rel,
        args: w.args.clone(),
        negated: false,
        bound: super::plan::adornment(&w.args, &bound),
    });
    let wide = reg.call(rel, w.wider);
    let keys: Vec<_> = (0..arity)
        .filter(|&i| is(w.wider, i))
        .map(|i| super::body::var(i as u32))
        .collect();
    let wide_free: Vec<usize> = (0..arity).filter(|&i| !is(w.wider, i)).collect();
    let row = free
        .iter()
        .map(|&j| match wide_free.iter().position(|&k| k == j) {
            Some(k) => {
                let k = usize_lit(k);
                quote!(row[#k])
            }
            None => {
                let v = super::body::var(j as u32);
                quote!(#v)
            }
        });
    let solution = if wide_free.is_empty() {
        quote! {
            if self.#wide(#(#keys),*) {
                self.#arena.push([#(#row),*]);
            }
        }
    } else {
        let wide_arena = format_ident!("arena_{}", wide);
        quote! {
            let (start, end) = self.#wide(#(#keys),*);
            for i in start..end {
                let row = self.#wide_arena[i as usize];
                self.#arena.push([#(#row),*]);
            }
        }
    };
    let mut body = Body::new(reg, arity, None);
    body.steps(&steps);
    body.finish(solution)
}

/// An existence test of `rel` without keys answered by the call listing
/// all its answers, where the queries make that call too and the test
/// would be memoized (asked again in a state): alexChess's `anyCheck`
/// asks whether `check ?piece ?king ?dir` has a solution, its legal rules
/// list every `check`, and a state without a check, the common case,
/// walked the same rules twice. `None` where the test keeps its own
/// rules: not such a test, no such call, a test compiled ground (sudoku's
/// `emptyCell`: one atom found ends it), or a test with keys (reversi's
/// `playerCanMoveAt ?player`, asked for both players where the list is
/// made for the one to move: +34% instructions a playout), where the first
/// solution ends the walk and a list would be walked whole.
fn answered_by_list(
    facts: &Facts,
    reg: &mut Registry,
    (rel, adorn): (u32, Adorn),
    (name, doc): (&proc_macro2::Ident, &str),
) -> Option<TokenStream> {
    // Without keys: the flag alone.
    let listed = 0;
    if adorn != EXISTS || !reg.call_names.contains_key(&(rel, listed)) {
        return None;
    }
    let repeated = reg.comp_of[rel as usize].is_some() || test_memoized(facts, reg, rel, adorn);
    if !repeated || reg.is_ground(facts, rel, adorn) {
        return None;
    }
    let list = reg.call(rel, listed);
    Some(quote! {
        #[doc = #doc]
        /// Answered by the list of answers, which the queries ask for.
        fn #name(&mut self) -> bool {
            let (start, end) = self.#list();
            start != end
        }
    })
}

/// A test of `rel` with keys answered from the list of all its answers,
/// where that list is short and its rules cost about as much run for every
/// answer as for the keys: speedChess's frame rule asks, for each piece,
/// whether a move affects its square, and each test walked the joint move
/// and a dozen castling rules, where the list (the one or two squares the
/// move affects) is made once in the evaluation. `None` where the test
/// keeps its own rules: on a cycle, compiled ground, with a free argument
/// (see [`answered_by_list`] for tests without keys), a long list, rules
/// the keys make cheaper, a cheap test, or one that often holds.
fn test_of_list(
    facts: &Facts,
    reg: &mut Registry,
    (rel, adorn): (u32, Adorn),
    (name, doc): (&proc_macro2::Ident, &str),
) -> Option<TokenStream> {
    let arity = reg.arity[rel as usize];
    let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
    if arity == 0
        || keys.len() != arity
        || reg.comp_of[rel as usize].is_some()
        || reg.source(rel) != Source::Derived
        || !reg.short_list(rel)
        || reg.is_ground(facts, rel, adorn)
    {
        return None;
    }
    let (list_work, test_work) = (
        reg.rules_work(facts, rel, 0),
        reg.test_work(facts, rel, adorn & !EXISTS),
    );
    // Seen in some sampled state (the cost of a list never seen is a
    // guess), and false for most keys.
    let rare = (reg.samples.holds(rel, arity)).is_some_and(|h| h > 0.0 && h <= LIST_TEST_HOLDS);
    if test_work < LIST_TEST_MIN_WORK || list_work > LIST_TEST_RATIO * test_work || !rare {
        return None;
    }
    let list = reg.call(rel, 0);
    let arena = format_ident!("arena_{}", list);
    let params: Vec<_> = keys.iter().map(|&i| param(i)).collect();
    // Every argument is a key: the row is the tuple asked for.
    let tuple = quote!([#(#params),*]);
    Some(quote! {
        #[doc = #doc]
        /// Read from the list of all answers.
        fn #name(&mut self, #(#params: u32),*) -> bool {
            let (start, end) = self.#list();
            self.#arena[start as usize..end as usize].contains(&#tuple)
        }
    })
}

/// A test reads the list of all answers (see [`test_of_list`]) where the
/// rules' estimated work run for every answer is at most this many times
/// their work run for the keys.
const LIST_TEST_RATIO: f64 = 1.5;

/// A test reads the list of all answers only where its rules' estimated
/// work is at least this: reading the list costs a memo lookup and a scan
/// of up to [`super::WHOLE_ROWS`] rows (reversi's `affectedCell`, a scan of
/// a table its component computes, ran 1.1% slower from the list).
const LIST_TEST_MIN_WORK: f64 = 16.0;

/// A test reads the list of all answers only where it holds at most this
/// often in the sampled states (see [`super::sample::Samples::holds`]):
/// a test that holds ends at its first solution, where the list is made
/// whole (chess's `has_legal_move` of a player, nearly always true, stops
/// at the player's first move).
const LIST_TEST_HOLDS: f64 = 0.25;

/// Whether a test of `rel` (off any cycle) with `adorn` is memoized. A
/// test may be asked again and again in a state (alexChess's `check`,
/// without arguments, by each legal move's rule: 1 500 times a playout,
/// 390 K instructions each): memoized where it costs more than its memo,
/// one slot without arguments, a table by them with. `terminal` is asked
/// once.
fn test_memoized(facts: &Facts, reg: &Registry, rel: u32, adorn: Adorn) -> bool {
    if reg.is_part(rel) {
        return true;
    }
    let work = reg.test_work(facts, rel, adorn & !EXISTS);
    if adorn & !EXISTS == 0 {
        reg.terminal_rel != Some(rel) && work >= MEMO_TEST_WORK
    } else if reg.dense_domains(facts, rel, adorn).is_some() {
        work >= MEMO_TEST_WORK
    } else {
        work >= MEMO_KEYED_TEST_WORK
    }
}

/// How a memoized call reads and writes `memo`: the lookup returning a hit
/// (on a cycle, a call met again while it runs returns `fallback`), what
/// it writes before it runs (on a cycle, `None`: running), and what it
/// stores of a test's `found` and of an answer list's `answers`.
fn memo_access(
    memo: &proc_macro2::Ident,
    fallback: Option<&TokenStream>,
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    match fallback {
        Some(fallback) => (
            quote! {
                match self.#memo.get(&key) {
                    Some(Some(hit)) => return *hit,
                    Some(None) => return #fallback,
                    None => {}
                }
            },
            quote!(self.#memo.insert(key, None);),
            quote!(Some(found)),
            quote!(Some(answers)),
        ),
        None => (
            quote! {
                if let Some(hit) = self.#memo.get(&key) {
                    return *hit;
                }
            },
            quote!(),
            quote!(found),
            quote!(answers),
        ),
    }
}

/// The estimated work (in table lookups, see [`super::plan::plan_work`])
/// from which a test without arguments is memoized: a call of a derived
/// relation with free arguments is estimated at 160 at least, a scan of a
/// functor's fluents at a quarter of them. A memo costs about what a
/// short scan does, which returns at its first fluent: connectFour's
/// `boardOpen` (126 fluents) and breakthrough's `whitecell` memoized
/// cost 1.2% and 0.5% more instructions a playout.
const MEMO_TEST_WORK: f64 = 100.0;

/// The same for a test with arguments whose memo is a hash table by them
/// (a dense table, indexed by their ranks, costs about what one slot
/// does: [`MEMO_TEST_WORK`]): laikLee_hex's `isList`, 25 rules each taking
/// the list apart to a given depth (650 leaves), is asked of the same
/// lists again and again.
const MEMO_KEYED_TEST_WORK: f64 = 400.0;

/// A test off any cycle: memoized if it is a part of a rule made a
/// relation (calls that vary the rule's other arguments repeat it) or is
/// estimated to cost well above a memo lookup ([`MEMO_TEST_WORK`],
/// [`MEMO_KEYED_TEST_WORK`]), else evaluated each time; `precheck` (its
/// guard, if any) first. `memo_ty`, the memo table's type, is given for
/// those memoized.
fn off_cycle_test(
    memo_ty: Option<TokenStream>,
    (name, params, doc): (&proc_macro2::Ident, &[proc_macro2::Ident], &str),
    bodies: &[TokenStream],
    precheck: TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let Some(memo_ty) = memo_ty else {
        let f = quote! {
            #[doc = #doc]
            fn #name(&mut self, #(#params: u32),*) -> bool {
                #precheck
                #({ #bodies })*
                false
            }
        };
        return (f, Vec::new());
    };
    let (eval, memo) = (
        format_ident!("eval_{}", name),
        format_ident!("memo_{}", name),
    );
    let f = quote! {
        #[doc = #doc]
        fn #name(&mut self, #(#params: u32),*) -> bool {
            #precheck
            let key = [#(#params),*];
            if let Some(&hit) = self.#memo.get(&key) {
                return hit;
            }
            let found = self.#eval(#(#params),*);
            self.#memo.insert(key, found);
            found
        }

        fn #eval(&mut self, #(#params: u32),*) -> bool {
            #({ #bodies })*
            false
        }
    };
    (f, vec![quote!(#memo: #memo_ty)])
}

/// What the functions of one memoized call share: its names, parameters,
/// rule bodies, and how it reads and writes its memo (on a cycle, a call
/// met again while it runs falls back to the component's fixpoint).
struct Memoized {
    name: proc_macro2::Ident,
    eval: proc_macro2::Ident,
    memo: proc_macro2::Ident,
    params: Vec<proc_macro2::Ident>,
    /// The width of its keys.
    k: Literal,
    /// The key type of its dense memo table, if it has one.
    keys_ty: Option<proc_macro2::Ident>,
    bodies: Vec<TokenStream>,
    doc: String,
    /// The memo lookup, returning a hit (or a running call's fallback).
    lookup: TokenStream,
    /// What a call writes to the memo before it runs, and what it stores.
    pending: TokenStream,
    store: TokenStream,
    /// On a cycle: the memo's values are options (`None` while running).
    cyclic: bool,
}

impl Memoized {
    /// The memo's value type for answers of type `ty`.
    fn value_type(&self, ty: TokenStream) -> TokenStream {
        if self.cyclic {
            quote!(Option<#ty>)
        } else {
            ty
        }
    }

    /// The memo's type for answers of type `ty`.
    fn memo_type(&self, ty: TokenStream) -> TokenStream {
        memo_type(self.keys_ty.as_ref(), &self.k, self.value_type(ty))
    }
}

/// A recursive test: unmemoized while the evaluation's budget of such
/// calls lasts (a cycle met falls back to the component's fixpoint), then
/// memoized.
fn recursive_test_fn(
    m: &Memoized,
    active: proc_macro2::Ident,
    fallback: TokenStream,
    precheck: Option<TokenStream>,
) -> (TokenStream, Vec<TokenStream>) {
    let Memoized {
        name,
        eval,
        memo,
        params,
        k,
        bodies,
        doc,
        lookup,
        pending,
        store,
        ..
    } = m;
    // The guard is tested where the call is made (most calls stop
    // there), the memo and the cycle check in a function of their own.
    let (entry, memoized) = match precheck {
        Some(precheck) => {
            let memoized = format_ident!("memoized_{}", name);
            let entry = quote! {
                #[doc = #doc]
                #[inline(always)]
                fn #name(&mut self, #(#params: u32),*) -> bool {
                    #precheck
                    self.#memoized(#(#params),*)
                }

                #[inline(never)]
            };
            (entry, memoized)
        }
        None => (quote!(#[doc = #doc]), name.clone()),
    };
    let f = quote! {
        #entry
        fn #memoized(&mut self, #(#params: u32),*) -> bool {
            let key = [#(#params),*];
            if self.calls < UNMEMOIZED_CALLS {
                if self.#active.contains(&key) {
                    return #fallback;
                }
                self.calls += 1;
                self.#active.push(key);
                let found = self.#eval(#(#params),*);
                self.#active.pop();
                return found;
            }
            #lookup
            #pending
            let found = self.#eval(#(#params),*);
            self.#memo.insert(key, #store);
            found
        }

        fn #eval(&mut self, #(#params: u32),*) -> bool {
            #({ #bodies })*
            false
        }
    };
    let memo_ty = m.memo_type(quote!(bool));
    (
        f,
        vec![
            quote!(#memo: #memo_ty),
            quote!(#active: ::std::vec::Vec<[u32; #k]>),
        ],
    )
}

/// How a call with answers collects them: in a buffer from a pool, moved
/// to its arena at the end and memoized as `stored` (`answers` or, on a
/// cycle, `Some(answers)`); or, off any cycle, pushed straight to the end
/// of its arena as found (the range from where they start is theirs, as no
/// call of the same function runs meanwhile).
enum Collect {
    Buffered {
        pool: proc_macro2::Ident,
        stored: TokenStream,
    },
    /// Straight to the arena; memoized unless asked once per key (see
    /// [`Registry::asked_once`]).
    Direct { memoized: bool },
}

/// A call with answers: memoized, its answers a range of its arena.
fn answers_fn(
    m: &Memoized,
    arena: proc_macro2::Ident,
    w: Literal,
    collect: Collect,
    listed: bool,
) -> (TokenStream, Vec<TokenStream>) {
    let Memoized {
        name,
        memo,
        params,
        bodies,
        doc,
        lookup,
        pending,
        ..
    } = m;
    let memo_ty = m.memo_type(quote!((u32, u32)));
    let once = matches!(collect, Collect::Direct { memoized: false });
    // The queries' own relations are read by the queries, which set bits
    // or sort their answers anyway, and by tests: duplicates cost less
    // than sorting every list to remove them. Other lists are sorted only
    // when long: a reader walks a short list's duplicates for less than
    // the sort would cost, and a long list, deduplicated, cannot make its
    // readers' lists grow with the duplicates of the lists they read.
    let (begin, dedup, end, fields) = match collect {
        Collect::Buffered { pool, stored } => (
            // A buffer from the pool (a stack, as calls nest), which
            // keeps its capacity from state to state.
            quote!(let mut out = self.#pool.pop().unwrap_or_default();),
            quote! {
                if out.len() > UNSORTED_ANSWERS {
                    out.sort_unstable();
                    out.dedup();
                }
            },
            store_in_arena((memo, &pool, &arena), stored),
            answer_fields((memo, &pool, &arena), &w, memo_ty),
        ),
        Collect::Direct { memoized } => {
            let arena_field = quote!(#arena: ::std::vec::Vec<[u32; #w]>);
            let (end, fields) = if memoized {
                (
                    quote! {
                        let answers = (start as u32, self.#arena.len() as u32);
                        self.#memo.insert(key, answers);
                        answers
                    },
                    vec![quote!(#memo: #memo_ty), arena_field],
                )
            } else {
                (
                    quote!((start as u32, self.#arena.len() as u32)),
                    vec![arena_field],
                )
            };
            (
                quote!(let start = self.#arena.len();),
                quote! {
                    if self.#arena.len() - start > UNSORTED_ANSWERS {
                        dedup_from(&mut self.#arena, start);
                    }
                },
                end,
                fields,
            )
        }
    };
    let dedup = if listed { quote!() } else { dedup };
    let (lookup, note) = if once {
        (
            quote!(),
            quote! {
                /// Its answers are rows `start..end` of its arena; asked once
                /// per key, it has no memo.
            },
        )
    } else {
        (
            quote! {
                let key = [#(#params),*];
                #lookup
                #pending
            },
            quote! {
                /// Its answers are rows `start..end` of its arena.
            },
        )
    };
    let f = quote! {
        #[doc = #doc]
        #note
        fn #name(&mut self, #(#params: u32),*) -> (u32, u32) {
            #lookup
            #begin
            #({ #bodies })*
            #dedup
            #end
        }
    };
    (f, fields)
}

/// The end of a call with answers: its answers `out` moved to its arena,
/// the range memoized (as `stored(answers)`) and returned, the buffer back
/// to the pool.
fn store_in_arena(
    (memo, pool, arena): (
        &proc_macro2::Ident,
        &proc_macro2::Ident,
        &proc_macro2::Ident,
    ),
    stored: TokenStream,
) -> TokenStream {
    // Answer lists of one state follow each other in the arena, which only
    // grows until the state is reset: a range stays valid while its reader
    // calls on.
    quote! {
        let start = self.#arena.len() as u32;
        self.#arena.extend_from_slice(&out);
        let answers = (start, self.#arena.len() as u32);
        out.clear();
        self.#pool.push(out);
        self.#memo.insert(key, #stored);
        answers
    }
}

/// The fields of a call with answers: its memo (of type `memo_ty`), its
/// pool of buffers and its arena, for answers of `w` numbers.
fn answer_fields(
    (memo, pool, arena): (
        &proc_macro2::Ident,
        &proc_macro2::Ident,
        &proc_macro2::Ident,
    ),
    w: &Literal,
    memo_ty: TokenStream,
) -> Vec<TokenStream> {
    vec![
        quote!(#memo: #memo_ty),
        quote!(#pool: ::std::vec::Vec<::std::vec::Vec<[u32; #w]>>),
        quote!(#arena: ::std::vec::Vec<[u32; #w]>),
    ]
}

/// For a test of a guarded relation (the guard's arguments bound): its guard,
/// tested before the memo and the cycle check, which it spares the calls
/// that cannot succeed (most of them, or the guard would not be kept).
fn guard_precheck(
    facts: &Facts,
    reg: &mut Registry,
    rel: u32,
    adorn: Adorn,
) -> Option<TokenStream> {
    let n = reg.program_rels;
    let k = facts.guards.iter().position(|g| g.of == rel)?;
    if facts.guards[k].columns.iter().any(|&c| adorn >> c & 1 == 0) {
        return None;
    }
    let check = reg.static_check((n + k) as u32);
    let args = facts.guards[k].columns.iter().map(|&c| param(c));
    Some(quote! {
        if !#check(#(#args),*) {
            return false;
        }
    })
}

/// The code of each rule of `rel` called with `adorn`: a solution returns
/// `true` if `free` is empty, else pushes the `free` head arguments to `out`.
/// The rules of an existence test ([`EXISTS`]) are planned as such: their
/// calls whose answers only the head's free arguments read ask only
/// whether one exists.
fn rule_bodies(
    facts: &Facts,
    reg: &mut Registry,
    (rel, asked): (u32, Adorn),
    free: &[usize],
    arena: Option<&proc_macro2::Ident>,
) -> Vec<TokenStream> {
    let adorn = asked & !EXISTS;
    let rules = facts.rules.iter().filter(|r| r.head_rel == rel);
    let push = |row: TokenStream| match arena {
        Some(arena) => quote!(self.#arena.push(#row);),
        None => quote!(out.push(#row);),
    };
    if let Some(h) = facts
        .hybrid_of(rel)
        .filter(|_| reg.is_ground(facts, rel, adorn))
    {
        return vec![hybrid_body(reg, h, adorn, free, push)];
    }
    let rules: Vec<&CRule> = rules.collect();
    let mut plans: Vec<Vec<Step>> = rules.iter().map(|r| plan_rule(r, asked, reg)).collect();
    let shared = super::hoist::common_tests(&mut plans);
    let bodies: Vec<TokenStream> = (rules.iter().zip(&plans))
        .map(|(rule, steps)| planned_body(reg, rule, steps, free, push))
        .collect();
    if shared.is_empty() {
        return bodies;
    }
    // The tests every rule opens with, over the call's arguments, around
    // the rules.
    let mut body = Body::new(reg, reg.arity[rel as usize], None);
    body.steps(&shared);
    vec![body.finish(quote!(#({ #bodies })*))]
}

/// The code of `rule` called with `adorn`: a solution returns `true` if
/// `free` is empty, else `push`es the row of its `free` head arguments.
fn rule_body(
    reg: &mut Registry,
    rule: &CRule,
    adorn: Adorn,
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let steps = plan_rule(rule, adorn, reg);
    planned_body(reg, rule, &steps, free, push)
}

/// [`rule_body`] of a rule planned as `steps`.
fn planned_body(
    reg: &mut Registry,
    rule: &CRule,
    steps: &[Step],
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let mut body = Body::new(reg, rule.num_vars, None);
    body.steps(steps);
    solved(body, &rule.head, free, push)
}

/// Closes `body` around its solution: `return true` if `free` is empty,
/// else the row of the `free` arguments of `head` pushed.
fn solved(
    mut body: Body,
    head: &[Pat],
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let solution = if free.is_empty() {
        quote!(return true;)
    } else {
        let heads: Vec<Pat> = free.iter().map(|&i| head[i].clone()).collect();
        push(body.row(&heads))
    };
    body.finish(solution)
}

/// The code of relation `h.of`, compiled ground, called with `adorn`: its
/// atoms with the bound arguments, from its atom table, each tested on the
/// state; a solution as in [`rule_body`].
fn hybrid_body(
    reg: &mut Registry,
    h: &Hybrid,
    adorn: Adorn,
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let n = h.arity;
    let vars: Vec<Pat> = (0..=n).map(|i| Pat::Var(i as u32)).collect();
    let steps = argument_params(n, adorn);
    let holds = reg.hybrid_test(h.of);
    let mut body = Body::new(reg, n + 1, None);
    body.steps(&steps);
    body.literal_now(Source::Static, h.table, &vars, false);
    let atom = super::body::var(n as u32);
    body.test(quote!(#holds(&self.state, #atom)));
    solved(body, &vars, free, push)
}

/// Most arguments of a relation whose closures [`closure_test`] tries, one
/// per subset of them.
const MAX_CLOSURE_SEARCH: usize = 10;

/// For a test of `rel` (every argument in `adorn` bound) alone on its
/// cycle, a search of the answers of a closure with fewer arguments bound,
/// if one has a closure: the answers of a call that met itself again (a
/// torus's row, all of it clear) without the component's whole fixpoint.
fn closure_test(facts: &Facts, reg: &mut Registry, rel: u32, adorn: Adorn) -> Option<TokenStream> {
    let arity = reg.arity[rel as usize];
    let all = (1 << arity) - 1;
    if adorn != all || arity > MAX_CLOSURE_SEARCH || !reg.alone_on_cycle(rel) {
        return None;
    }
    // The closure leaving the fewest arguments free, the first of equals.
    let sub = (1..1u32 << arity)
        .map(|drop| adorn & !drop)
        .filter(|&sub| sub != adorn)
        .filter(|&sub| closure(&facts.rules, rel, arity, sub).is_some())
        .max_by_key(|&sub| (sub.count_ones(), std::cmp::Reverse(sub)))?;
    let name = reg.call(rel, sub);
    let arena = format_ident!("arena_{}", name);
    let keys = (0..arity).filter(|i| sub >> i & 1 == 1).map(param);
    let free = (0..arity).filter(|i| sub >> i & 1 == 0).map(param);
    Some(quote!({
        let (start, end) = self.#name(#(#keys),*);
        self.#arena[start as usize..end as usize].contains(&[#(#free),*])
    }))
}

/// A call's answers computed as a [`Closure`], memoized, a range of its
/// arena. `arity` is the relation's and `free` its unbound arguments.
fn closure_fn(
    facts: &Facts,
    reg: &mut Registry,
    (name, params, doc): (&proc_macro2::Ident, &[proc_macro2::Ident], &str),
    (arity, free): (usize, &[usize]),
    c: &Closure,
    memo_ty: TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let worklist = match c {
        Closure::Answers {
            base,
            steps,
            step_adorn,
        } => answers_worklist(facts, reg, (base, steps, *step_adorn), arity, free),
        Closure::Keys { base, steps, kept } => {
            keys_worklist(facts, reg, (base, steps, kept), params, arity, free)
        }
    };
    let (memo, pool, arena) = (
        format_ident!("memo_{}", name),
        format_ident!("pool_{}", name),
        format_ident!("arena_{}", name),
    );
    let w = usize_lit(free.len());
    let store = store_in_arena((&memo, &pool, &arena), quote!(answers));
    let f = quote! {
        #[doc = #doc]
        /// Its answers are rows `start..end` of its arena, found by a
        /// worklist through its recursive rules.
        fn #name(&mut self, #(#params: u32),*) -> (u32, u32) {
            let key = [#(#params),*];
            if let Some(hit) = self.#memo.get(&key) {
                return *hit;
            }
            let mut out = self.#pool.pop().unwrap_or_default();
            let mut seen = Memo::default();
            #worklist
            #store
        }
    };
    let fields = answer_fields((&memo, &pool, &arena), &w, memo_ty);
    (f, fields)
}

/// [`Closure::Answers`]: the base rules' answers, then, once for each
/// answer, what the recursive rules derive from it.
fn answers_worklist(
    facts: &Facts,
    reg: &mut Registry,
    (base, steps, step_adorn): (&[usize], &[CRule], Adorn),
    arity: usize,
    free: &[usize],
) -> TokenStream {
    let adorn = step_adorn & ((1 << arity) - 1);
    let push = |row: TokenStream| quote!(push_new(&mut out, &mut seen, #row););
    let base: Vec<TokenStream> = base
        .iter()
        .map(|&i| rule_body(reg, &facts.rules[i], adorn, free, push))
        .collect();
    let steps: Vec<TokenStream> = steps
        .iter()
        .map(|rule| rule_body(reg, rule, step_adorn, free, push))
        .collect();
    let delta: Vec<_> = (0..free.len()).map(|j| param(arity + j)).collect();
    quote! {
        #({ #base })*
        let mut next = 0;
        while let Some(&[#(#delta),*]) = out.get(next) {
            next += 1;
            #({ #steps })*
        }
    }
}

/// [`Closure::Keys`]: from the first key, the keys the recursive rules
/// derive, each once, and every key's base answers (from a later key, those
/// agreeing with the first where the recursion keeps a variable).
fn keys_worklist(
    facts: &Facts,
    reg: &mut Registry,
    (base, steps, kept): (&[usize], &[CRule], &[(usize, usize)]),
    params: &[proc_macro2::Ident],
    arity: usize,
    free: &[usize],
) -> TokenStream {
    let adorn: Adorn = (0..arity)
        .filter(|i| !free.contains(i))
        .fold(0, |a, i| a | 1 << i);
    let agrees: Vec<TokenStream> = kept
        .iter()
        .map(|&(fi, ki)| {
            let (fi, ki) = (usize_lit(fi), usize_lit(ki));
            quote!(row[#fi] == key[#ki])
        })
        .collect();
    let push = |row: TokenStream| {
        if agrees.is_empty() {
            return quote!(push_new(&mut out, &mut seen, #row););
        }
        quote! {
            let row = #row;
            if next == 1 || (#(#agrees)&&*) {
                push_new(&mut out, &mut seen, row);
            }
        }
    };
    let base: Vec<TokenStream> = base
        .iter()
        .map(|&i| rule_body(reg, &facts.rules[i], adorn, free, push))
        .collect();
    let new_key = |row: TokenStream| quote!(push_new(&mut keys, &mut seen_keys, #row););
    let computed: Vec<usize> = (arity..arity + params.len()).collect();
    let steps: Vec<TokenStream> = steps
        .iter()
        .map(|rule| rule_body(reg, rule, adorn, &computed, new_key))
        .collect();
    quote! {
        let mut keys = ::std::vec![key];
        let mut seen_keys = Memo::default();
        let mut next = 0;
        while let Some(&[#(#params),*]) = keys.get(next) {
            next += 1;
            #({ #base })*
            #({ #steps })*
        }
    }
}

/// The answers of a call of `rel` on a cycle, read from its component's
/// table: rows whose `keys` columns are the parameters, their `free`
/// columns.
fn from_table(
    reg: &mut Registry,
    rel: u32,
    keys: &[usize],
    free: &[usize],
    arena: &proc_macro2::Ident,
) -> TokenStream {
    let (comp, table) = reg.table(rel);
    let f = format_ident!("component_{}", comp);
    let params: Vec<_> = keys.iter().map(|&i| param(i)).collect();
    let key_cols = keys.iter().map(|&i| usize_lit(i));
    let free_cols = free.iter().map(|&i| usize_lit(i));
    let tests: Vec<TokenStream> = key_cols
        .zip(&params)
        .map(|(c, p)| quote!(row[#c] == #p))
        .collect();
    let test = if tests.is_empty() {
        quote!(true)
    } else {
        quote!(#(#tests)&&*)
    };
    let matches = quote!(self.#table.iter().filter(|row| #test));
    if free.is_empty() {
        quote!({
            self.#f();
            self.#table.iter().any(|row| #test)
        })
    } else {
        quote!({
            self.#f();
            let start = self.#arena.len() as u32;
            for row in #matches {
                self.#arena.push([#(row[#free_cols]),*]);
            }
            (start, self.#arena.len() as u32)
        })
    }
}

/// The function computing every relation of a recursive component,
/// bottom-up to its fixpoint, and the fields of their tables.
fn component_fn(facts: &Facts, reg: &mut Registry, comp: usize) -> (TokenStream, Vec<TokenStream>) {
    let rels: Vec<u32> = (0..reg.comp_of.len() as u32)
        .filter(|&p| reg.comp_of[p as usize] == Some(comp))
        .collect();
    reg.caller = Caller::Comp(comp);
    let name = format_ident!("component_{}", comp);
    let done = format_ident!("done_{}", comp);
    let mut fields = vec![quote!(#done: bool)];
    let mut rounds = Vec::new();
    for &rel in &rels {
        let (_, table) = reg.table(rel);
        let a = usize_lit(reg.arity[rel as usize]);
        fields.push(quote!(#table: ::std::vec::Vec<[u32; #a]>));
        let mut bodies = Vec::new();
        for rule in facts.rules.iter().filter(|r| r.head_rel == rel) {
            reg.within = Some(comp);
            let steps = plan_rule(rule, 0, reg);
            reg.within = None;
            let mut body = Body::new(reg, rule.num_vars, Some(comp));
            body.steps(&steps);
            let row = body.row(&rule.head);
            bodies.push(body.finish(quote!(out.push(#row);)));
        }
        rounds.push(quote! {
            let mut out: ::std::vec::Vec<[u32; #a]> = ::std::vec::Vec::new();
            #({ #bodies })*
            out.extend_from_slice(&self.#table);
            out.sort_unstable();
            out.dedup();
            if out.len() != self.#table.len() {
                changed = true;
                self.#table = out;
            }
        });
    }
    let doc = format!(
        " The recursive relations {} to their fixpoint.",
        rels.iter()
            .map(|&r| format!("`{}`", reg.names[r as usize]))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let f = quote! {
        #[doc = #doc]
        fn #name(&mut self) {
            if self.#done {
                return;
            }
            loop {
                let mut changed = false;
                #({ #rounds })*
                if !changed {
                    break;
                }
            }
            self.#done = true;
        }
    };
    (f, fields)
}

/// The evaluation's constants: when recursive tests start being memoized,
/// and how long an answer list may grow before it is deduplicated.
fn evaluation_limits() -> TokenStream {
    quote! {
        /// A recursive test runs without a memo, guarding against cycles by
        /// the calls in progress only, until the evaluation has made this
        /// many such calls: most recursions of game rules walk a line or a
        /// count and never meet the same call twice, and a memo insert costs
        /// more than such a step. Past it, calls are memoized, which bounds
        /// the work of recursions that would repeat themselves.
        #[allow(dead_code, reason = "used by games with recursive tests")]
        const UNMEMOIZED_CALLS: u32 = 1 << 16;

        /// Answer lists up to this long keep their duplicates, if any (see
        /// the functions that sort longer ones).
        #[allow(dead_code, reason = "used by games with answer lists")]
        const UNSORTED_ANSWERS: usize = 64;
    }
}

/// The evaluation of one state (and joint move): its memo tables, the
/// relations' functions and the queries.
fn ev_items(
    nw: usize,
    nr: usize,
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
    let fields: Vec<&TokenStream> = fields.of_state.iter().chain(&fields.stateless).collect();
    let limits = evaluation_limits();
    let access = ev_access(&nw, &nr);
    let term_fns = term_fns();
    quote! {
        #[allow(unused_imports, reason = "the helpers a game's rules need vary")]
        use #rt::lifted::{bit_set, dedup_from, or_bits_in, push_new, rows, set_bits_filtered, set_bits_in, ranked_span, value_span, value_spans, DenseMemo, Index, Keyed, Memo, Span, NONE};

        /// The evaluation of the rules in one state, with one joint move
        /// (none for `legal`, `terminal` and `goal`: all `NONE`): what has
        /// been computed so far, by relation and bound arguments.
        struct Ev {
            /// The state, shared with the scans running over it (a scan
            /// holds a count, not a copy, while its loop calls on).
            state: ::std::rc::Rc<[u64; #nw]>,
            joint: [u32; #nr],
            /// Recursive tests run without a memo so far (see
            /// `UNMEMOIZED_CALLS`).
            calls: u32,
            #(#fields,)*
            #run_field
        }

        #limits

        #access

        #[allow(unused_variables, unused_mut, clippy::collapsible_if, clippy::needless_range_loop, clippy::too_many_arguments, clippy::never_loop, reason = "rule bodies are printed as they come (an existence test returns from its first solution's loop)")]
        impl Ev {
            fn new() -> Self {
                Ev {
                    state: ::std::rc::Rc::new([!0; #nw]),
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
                // No scan runs between states: the count is one, and
                // the state is written in place.
                #rt::lifted::overwrite(&mut self.state, state);
                self.joint = *joint;
                self.calls = 0;
                #(#resets)*
                #run_reset
            }

            #run_methods

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

            #queries
            #(#fns)*
        }

        #term_fns
    }
}

/// The evaluations of each thread and `with_ev`, which runs a query on one.
fn ev_access(nw: &Literal, nr: &Literal) -> TokenStream {
    let with_ev_body = common::thread_local_with(
        &quote!(cell),
        quote! {
            |cell| {
                let mut ev = cell.borrow_mut();
                if *ev.state != *state || ev.joint != *joint {
                    ev.reset(state, joint);
                }
                f(&mut ev)
            }
        },
    );
    quote! {
        ::std::thread_local! {
            /// Each thread's evaluation of the state it last queried: the
            /// queries of one state (every role's legal moves, terminal,
            /// goals) share what they compute.
            static STATE_EV: ::core::cell::RefCell<Ev> = ::core::cell::RefCell::new(Ev::new());
            /// Each thread's evaluation of its last transition.
            static MOVE_EV: ::core::cell::RefCell<Ev> = ::core::cell::RefCell::new(Ev::new());
        }

        /// Runs `f` on `cell`'s evaluation, reset unless it is of `state`
        /// and `joint` already.
        fn with_ev<R>(
            cell: &'static ::std::thread::LocalKey<::core::cell::RefCell<Ev>>,
            state: &[u64; #nw],
            joint: &[u32; #nr],
            f: impl FnOnce(&mut Ev) -> R,
        ) -> R {
            #with_ev_body
        }
    }
}

/// The term helpers over the universe's tables: a term's functor, its
/// arguments, its fluent id.
fn term_fns() -> TokenStream {
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
fn field_name(f: &TokenStream) -> proc_macro2::Ident {
    (f.clone().into_iter())
        .find_map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => Some(i),
            _ => None,
        })
        .expect("a field name")
}

/// The statement resetting field `n` for a new state.
fn field_reset(n: &proc_macro2::Ident) -> TokenStream {
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
struct RunTimeTerms {
    field: TokenStream,
    init: TokenStream,
    reset: TokenStream,
    methods: TokenStream,
}

fn run_time_term_items(on: bool, rt: &syn::Path) -> RunTimeTerms {
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
            const KEPT_TERMS: usize = 1 << 16;

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
fn header_items(
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

/// A data array of one number a row, named `name`, with its doc comment.
pub fn data(doc: &str, name: impl Into<String>, data: Vec<u32>) -> DataArray {
    DataArray {
        doc: doc.to_owned(),
        name: name.into(),
        data,
        may_be_unused: true,
        width: 1,
    }
}

/// The constant tables: terms, fluents, moves, goals, static relations,
/// term builders (as data arrays), masks and the initial state (as items).
fn tables(
    facts: &Facts,
    reg: &Registry,
    layout: &Layout,
    nw: usize,
) -> (Vec<DataArray>, TokenStream) {
    let u = &facts.universe;
    let mut arrays = Vec::new();
    let mut starts = vec![0u32];
    let mut args = Vec::new();
    for a in &u.args {
        args.extend_from_slice(a);
        starts.push(args.len() as u32);
    }
    arrays.push(data(
        "Functor of each term (`NONE` for constants).",
        "FUNCTOR",
        u.functor.clone(),
    ));
    arrays.push(data(
        "Where each term's arguments start in [`ARGS`].",
        "ARG_START",
        starts,
    ));
    arrays.push(data("The terms' arguments.", "ARGS", args));
    arrays.push(data(
        "The term of the fluent at each bit of the state.",
        "FLUENT_TERM",
        layout.terms.clone(),
    ));
    let mut fluent_of = vec![NONE; u.len()];
    for (i, &t) in layout.terms.iter().enumerate() {
        fluent_of[t as usize] = i as u32;
    }
    arrays.push(data(
        "The state's bit of each term (`NONE` if not a fluent).",
        "FLUENT_OF",
        fluent_of,
    ));
    let nr = facts.roles.len();
    let mut move_refs = Vec::new();
    // Every role's move terms, ranked: a term's rank, then the role's move
    // id at that rank, in two array reads (a search per legal move took
    // 8% of chess.kif's playouts).
    let mut all_moves: Vec<u32> = facts.moves.iter().flatten().copied().collect();
    all_moves.sort_unstable();
    all_moves.dedup();
    let mut move_rank = vec![NONE; u.len()];
    for (k, &t) in all_moves.iter().enumerate() {
        move_rank[t as usize] = k as u32;
    }
    arrays.push(data(
        "The rank of each term among the move terms of every role (`NONE` if not a move).",
        "MOVE_RANK",
        move_rank,
    ));
    for (r, ms) in facts.moves.iter().enumerate() {
        arrays.push(data(
            "The term of each move of a role.",
            format!("MOVE_TERMS_{r}"),
            ms.clone(),
        ));
        let mut of = vec![NONE; all_moves.len()];
        for (i, &t) in ms.iter().enumerate() {
            if let Ok(k) = all_moves.binary_search(&t) {
                of[k] = i as u32;
            }
        }
        arrays.push(data(
            "A role's move id of each move term by rank (`NONE`: not the role's).",
            format!("MOVE_OF_{r}"),
            of,
        ));
        let m = format_ident!("MOVE_TERMS_{}", r);
        move_refs.push(quote!(&#m));
    }
    let goal_value = goal_values(u, &mut arrays);
    let mut makers = Vec::new();
    for &fid in &reg.made {
        let (f, mut tables) = super::terms::maker(u, fid);
        makers.push(f);
        arrays.append(&mut tables);
    }
    for &rel in &reg.checks {
        let tuples = facts.statics[rel as usize].as_deref().unwrap_or_default();
        let (f, mut tables) =
            super::terms::static_check(&reg.names[rel as usize], tuples, reg.arity[rel as usize]);
        makers.push(f);
        arrays.append(&mut tables);
    }
    super::statics::static_tables(facts, reg, &mut arrays, &mut makers);
    super::hybrid::items(facts, reg, layout, nw, &mut makers);
    let nwl = usize_lit(nw);
    let masks = reg.masks.iter().map(|&fid| {
        let name = mask_name(fid);
        let span = mask_span(layout, nw, |t| {
            fid.is_none_or(|f| u.functor[t as usize] == f)
        });
        quote!(static #name: Span = #span;)
    });
    let value_masks = super::masks::items(facts, layout, nw, &reg.value_masks);
    let filters = super::filters::items(facts, layout, &reg.filters, &mut arrays);
    let prejoins = super::prejoin::items(facts, layout, &reg.prejoins, &mut arrays);
    let fluent_items = fluent_tables(facts, reg, layout, nw, &mut arrays);
    let init = {
        let mut words = vec![0u64; nw];
        for &f in &facts.init {
            let b = layout.bit_of[f as usize];
            words[b as usize / 64] |= 1 << (b % 64);
        }
        words.into_iter().map(hex)
    };
    let role_terms = facts.roles.iter().map(|&t| Literal::u32_unsuffixed(t));
    let nrl = usize_lit(nr);
    let consts = quote! {
        #(#makers)*
        #(#masks)*
        #value_masks
        #filters
        #prejoins
        #fluent_items
        static INIT: [u64; #nwl] = [#(#init),*];
        static ROLE_TERM: [u32; #nrl] = [#(#role_terms),*];
        static MOVE_TERMS: [&[u32]; #nrl] = [#(#move_refs),*];
        #goal_value
    };
    (arrays, consts)
}

/// Most entries of the goal value table read by term: past it (number
/// terms far apart in the universe), a sorted table is searched.
const MAX_GOAL_SPAN: usize = 4096;

/// `goal_value(t)`, the goal value of term `t` (`None`: not a number from 0
/// to 255), and the table it reads. The number terms usually lie close
/// together, so a table indexed by the term from the first of them is
/// read without a search: a goal query is a few table reads in fast games.
fn goal_values(u: &Universe, arrays: &mut Vec<DataArray>) -> TokenStream {
    let goals: Vec<(u32, u32)> = (0..u.len())
        .filter(|&t| u.functor[t] == NONE)
        .filter_map(|t| {
            u.text[t]
                .parse::<u8>()
                .ok()
                .map(|v| (t as u32, u32::from(v)))
        })
        .collect();
    let (first, last) = match (goals.first(), goals.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => (0, 0),
    };
    if ((last - first) as usize) < MAX_GOAL_SPAN {
        let mut dense = vec![NONE; (last - first) as usize + usize::from(!goals.is_empty())];
        for &(t, v) in &goals {
            dense[(t - first) as usize] = v;
        }
        arrays.push(data(
            "Goal values by term, from the first number term (`NONE`: not a number).",
            "GOAL_VALUES",
            dense,
        ));
        let first = Literal::u32_unsuffixed(first);
        quote! {
            /// The goal value of term `t`, if it is a number from 0 to 255.
            fn goal_value(t: u32) -> Option<u32> {
                GOAL_VALUES.get(t.wrapping_sub(#first) as usize).copied().filter(|&v| v != NONE)
            }
        }
    } else {
        let pairs = goals.iter().flat_map(|&(t, v)| [t, v]).collect();
        arrays.push(data(
            "Goal values by term: (term, value), sorted.",
            "GOAL_VALUES",
            pairs,
        ));
        quote! {
            /// The goal value of term `t`, if it is a number from 0 to 255.
            fn goal_value(t: u32) -> Option<u32> {
                rows(&GOAL_VALUES, 2, &[t]).get(1).copied()
            }
        }
    }
}

/// A fluent mask as an array literal: the bits of the fluents whose term
/// satisfies `holds`.
pub fn mask_span(layout: &Layout, nw: usize, holds: impl Fn(u32) -> bool) -> TokenStream {
    let mut words = vec![0u64; nw];
    for (i, &t) in layout.terms.iter().enumerate() {
        if holds(t) {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    let first = words.iter().position(|&w| w != 0).unwrap_or(0);
    let end = words.iter().rposition(|&w| w != 0).map_or(first, |i| i + 1);
    let words = words[first..end].iter().map(|&w| hex(w));
    let first = usize_lit(first);
    quote!(Span { first: #first, words: &[#(#words),*] })
}

/// The items that read fluents by functor: `holds_f` for each functor
/// tested from its arguments, `FLUENT_FIRST_f` for each whose rows scans
/// read; their tables go to `arrays`.
fn fluent_tables(
    facts: &Facts,
    reg: &Registry,
    layout: &Layout,
    nw: usize,
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let mut items = Vec::new();
    for &fid in reg.held.union(&reg.bits) {
        let holds = reg.held.contains(&fid);
        let (f, mut tables) = super::terms::holds(&facts.universe, layout, (fid, holds), nw);
        items.push(f);
        arrays.append(&mut tables);
    }
    for &fid in &reg.fluent_rows {
        let (first, rows) = fluent_rows(facts, layout, fid);
        items.push(first);
        arrays.push(rows);
    }
    quote!(#(#items)*)
}

/// `FLUENT_FIRST_f`, the first bit of functor `fid`'s fluents, and the
/// data of `FLUENT_ROWS_f`: per bit from there to its last fluent, the
/// fluent's arguments and then its term (the layout keeps a functor's
/// fluents together; a bit of another functor between, if any, is a row
/// of `NONE`).
fn fluent_rows(facts: &Facts, layout: &Layout, fid: u32) -> (TokenStream, DataArray) {
    let u = &facts.universe;
    let of_functor = |t: u32| u.functor[t as usize] == fid;
    let first = layout
        .terms
        .iter()
        .position(|&t| of_functor(t))
        .unwrap_or(0);
    let end = layout
        .terms
        .iter()
        .rposition(|&t| of_functor(t))
        .map_or(first, |i| i + 1);
    let arity = u.functors[fid as usize].1;
    let mut data = Vec::with_capacity((end - first) * (arity + 1));
    for &t in &layout.terms[first..end] {
        if of_functor(t) {
            data.extend_from_slice(&u.args[t as usize]);
            data.push(t);
        } else {
            data.extend(std::iter::repeat_n(NONE, arity + 1));
        }
    }
    let name = format_ident!("FLUENT_FIRST_{}", fid);
    let first = Literal::u32_unsuffixed(first as u32);
    let doc = format!(
        " The first bit of the fluents `({} ..)`.",
        u.functor_name(fid)
    );
    let item = quote! {
        #[doc = #doc]
        const #name: u32 = #first;
    };
    let rows = DataArray {
        doc: format!(
            "Per bit from `FLUENT_FIRST_{fid}`, the arguments and the term of a fluent `({} ..)`.",
            u.functor_name(fid)
        ),
        name: format!("FLUENT_ROWS_{fid}"),
        data,
        may_be_unused: false,
        width: arity + 1,
    };
    (item, rows)
}

/// The `Game` methods that evaluate rules; `fixed`, each role's legal
/// move ids where they are the same in every state, else `sink`, where
/// `legal`'s rules put them.
fn methods(
    facts: &Facts,
    rt: &syn::Path,
    (state, nw): (&proc_macro2::Ident, usize),
    fixed: Option<&[Vec<u32>]>,
    sink: MoveSink,
) -> TokenStream {
    let nw = usize_lit(nw);
    let nr = usize_lit(facts.roles.len());
    let legal_moves = match fixed {
        Some(lists) => {
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
        None => {
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
    };
    quote! {
        fn initial_state(&self) -> #state {
            #state(INIT)
        }

        #legal_moves

        fn is_terminal(&self, state: &#state) -> bool {
            with_ev(&STATE_EV, &state.0, &[NONE; #nr], |ev| ev.terminal())
        }

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

#[cfg(test)]
mod tests {
    use super::super::tests::{module_and_code, program_and_facts};

    /// The code of `text`'s module, without spaces.
    fn code(text: &str) -> String {
        let (program, facts) = program_and_facts(text);
        module_and_code(&program, &facts).1
    }

    const GAME: &str = "(role r) (init (cell 1 b)) (init (cell 2 b))
        (<= (legal r (mark ?a)) (true (cell ?a b)))
        (<= (next (cell ?a x)) (does r (mark ?a)))
        (<= (next (cell ?a ?c)) (true (cell ?a ?c)) (does r (mark ?b)) (distinct ?a ?b))
        (<= terminal (not open))
        (<= open (true (cell ?a b)))
        (<= (goal r 100) terminal)";

    #[test]
    fn legal_s_rules_push_move_ids_unless_a_rule_reads_legal() {
        let inline = code(GAME);
        assert!(
            inline.contains("fnlegal(&mutself,a0:u32,ids:&[u32]"),
            "{inline}"
        );
        assert!(!inline.contains("fnlegal_2_bf"), "{inline}");
        // A rule reading `legal`: its answers are a call's, which both
        // share.
        let read = code(&GAME.replace("(not open)", "(not (legal r (mark 1)))"));
        assert!(read.contains("self.legal_2_bf("), "{read}");
        assert!(read.contains("fnlegal_2_bf"), "{read}");
    }

    #[test]
    fn legal_moves_are_bits_read_in_order_unless_a_role_has_thousands() {
        let few = code(GAME);
        assert!(few.contains("out:&mut[u64]"), "{few}");
        assert!(few.contains("push_moves_of_bits(&bits,out)"), "{few}");
        assert!(!few.contains("sort_moves"), "{few}");
        // A playout draws its move from the bits, without listing them.
        assert!(few.contains("random_move_of_bits(&bits,rng)"), "{few}");
        // 17^3 = 4 913 moves: 77 words to clear and read at each call.
        let nums: String = (1..=17)
            .map(|n| format!("(num {n}) (init (cell {n} b)) "))
            .collect();
        let many = format!(
            "(role r) {nums}
            (<= (legal r (mark ?a ?b ?c)) (true (cell ?a b)) (num ?b) (num ?c))
            (<= (next (cell ?a x)) (does r (mark ?a ?b ?c)))
            (<= terminal (not open)) (<= open (true (cell ?a b)))
            (<= (goal r 100) terminal)"
        );
        let many = code(&many);
        assert!(many.contains("sort_moves(out,MOVES[role].len())"), "{many}");
        assert!(!many.contains("push_moves_of_bits"), "{many}");
        assert!(!many.contains("fnrandom_move"), "{many}");
    }

    #[test]
    fn goal_values_are_read_by_term_unless_the_numbers_lie_far_apart() {
        let near = code(GAME);
        assert!(near.contains("GOAL_VALUES.get(t.wrapping_sub("), "{near}");
        // Five thousand names that sort between `0` and `9` in the universe.
        let names: String = (0..5000).map(|n| format!("(name 1x{n}) ")).collect();
        let far = format!(
            "{GAME} {names} (<= (goal r 0) (not terminal) (name 1x7)) (<= (goal r 9) (not terminal))"
        );
        let far = code(&far);
        assert!(
            far.contains("rows(&GOAL_VALUES,2,&[t])"),
            "goal value search missing"
        );
        assert!(
            !far.contains("GOAL_VALUES.get("),
            "a table of 5 000 entries"
        );
    }

    /// `anynear` asks whether `near` has a solution; a legal rule lists
    /// `near`'s answers (its compound argument keeps it from ground form).
    const NEAR: &str = "(role r) (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 x))
        (<= (near (pos ?a) ?c) (true (cell ?a ?c)) (true (cell ?b ?c)) (distinct ?a ?b)
            (same ?a ?b) (same ?b ?d) (same ?d ?e) (same ?e ?a))
        (<= (same ?a ?b) (true (cell ?a ?c)) (true (cell ?b ?c)))
        (<= (legal r (mark ?a)) (true (cell ?a b)) (not anynear))
        (<= (legal r (mark ?a)) (near (pos ?a) ?c))
        (<= anynear (near ?p ?c))
        (<= (next (cell ?a ?c)) (true (cell ?a ?c)))
        (<= terminal (not open))
        (<= open (true (cell ?a b)))
        (<= (goal r 100) terminal)";

    #[test]
    fn an_existence_test_without_keys_reads_the_list_the_queries_make() {
        let listed = code(NEAR);
        let delegate = "fnnear_2_ee(&mutself)->bool{let(start,end)=self.near_2_ff();start!=end}";
        assert!(listed.contains(delegate), "{listed}");
        // Nothing lists `near`: the test keeps its rules.
        let alone = code(&NEAR.replace("(near (pos ?a) ?c))", "(true (cell ?a x)))"));
        assert!(alone.contains("fnnear_2_ee"), "{alone}");
        assert!(!alone.contains("near_2_ff"), "{alone}");
    }

    #[test]
    fn a_test_is_memoized_from_less_work_where_its_memo_is_dense() {
        use super::super::tests::relation_named;
        use super::*;
        // `near` and `far` do the same work (a scan of the state and a list
        // of `pair`); `near`'s key takes 3 values (a dense table), `far`'s
        // 100 times 100 (a hash table).
        let nums: String = (0..100).map(|i| format!("(num {i}) ")).collect();
        let text = format!(
            "(role r) (coord 1) (coord 2) (coord 3) {nums}
            (init (cell 1 1)) (init (cell 2 2))
            (<= (pair ?y ?z) (true (cell ?y ?z)))
            (<= (near ?x) (coord ?x) (pair ?y ?z) (distinct ?y ?x))
            (<= (far ?a ?b) (num ?a) (num ?b) (pair ?y ?z) (distinct ?y ?a))
            (<= (legal r (go ?x)) (coord ?x) (not (near ?x)) (not (far ?x ?x)))
            (<= (next (cell ?x ?x)) (does r (go ?x)))
            (<= terminal (true (cell 3 3)))
            (<= (goal r 100) (true (cell 3 3)))"
        );
        let (p, facts) = program_and_facts(&text);
        let reg = Registry::new(&p, &facts);
        let (near, far) = (relation_named(&p, "near"), relation_named(&p, "far"));
        let work = reg.test_work(&facts, near, 1);
        assert!(
            (MEMO_TEST_WORK..MEMO_KEYED_TEST_WORK).contains(&work),
            "{work}"
        );
        let work = reg.test_work(&facts, far, 0b11);
        assert!(
            (MEMO_TEST_WORK..MEMO_KEYED_TEST_WORK).contains(&work),
            "{work}"
        );
        assert!(reg.dense_domains(&facts, near, 1).is_some());
        assert!(reg.dense_domains(&facts, far, 0b11).is_none());
        assert!(test_memoized(&facts, &reg, near, 1));
        assert!(!test_memoized(&facts, &reg, far, 0b11));
    }

    #[test]
    fn a_test_rarely_true_reads_the_list_its_rules_make_as_cheaply() {
        use super::super::tests::relation_named;
        use super::*;
        // The frame rule asks, for each marked cell, whether the move
        // affects it: one or two of sixteen cells, whose rules walk the
        // move with or without the cell. `mover` holds of the only role
        // whenever it moves; `reachable`'s rules, asked for a pair, scan
        // the cells of that pair, not all of them; `from` is one rule, as
        // cheap as reading a list.
        let text = "(role r) (c 1) (c 2) (c 3) (c 4)
            (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
            (init (cell 1 1)) (init (cell 2 2)) (init (cell 3 3)) (init (step 0))
            (<= (affected ?x ?y) (does r (move ?x ?y ?u ?v)))
            (<= (affected ?u ?v) (does r (move ?x ?y ?u ?v)))
            (<= (affected 1 1) (does r reset)) (<= (affected 2 2) (does r reset))
            (<= (affected 3 3) (does r reset)) (<= (affected 4 4) (does r reset))
            (<= (mover ?p) (does ?p (move ?x ?y ?u ?v)))
            (<= (mover ?p) (does ?p reset))
            (<= (mover ?p) (does ?p (move 1 ?y ?u ?v)) (true (cell 1 ?y)))
            (<= (mover ?p) (does ?p (move 2 ?y ?u ?v)) (true (cell 2 ?y)))
            (<= (mover ?p) (does ?p (move 3 ?y ?u ?v)) (true (cell 3 ?y)))
            (<= (mover ?p) (does ?p (move 4 ?y ?u ?v)) (true (cell 4 ?y)))
            (<= (mover ?p) (does ?p (move ?x 4 ?u ?v)) (true (cell ?x 4)))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?x ?a)) (true (cell ?b ?y))
                (true (cell ?a ?b)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?a ?x)) (true (cell ?y ?b))
                (true (cell ?b ?a)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?x ?a)) (true (cell ?y ?b))
                (true (cell ?b ?a)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?a ?x)) (true (cell ?b ?y))
                (true (cell ?a ?b)) (distinct ?a ?b))
            (<= (legal r (move ?x ?y ?u ?v)) (true (cell ?x ?y)) (c ?u) (c ?v) (not (true (cell ?u ?v))))
            (<= (legal r reset) (true (step 0)))
            (<= (next (cell ?x ?y)) (true (cell ?x ?y)) (not (affected ?x ?y)))
            (<= (next (cell ?u ?v)) (does r (move ?x ?y ?u ?v)))
            (<= (next (cell 1 1)) (does r reset))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (moved ?p)) (mover ?p))
            (<= (next (near ?x ?y)) (reachable ?x ?y) (true (cell ?x ?x)))
            (<= (from ?x ?y) (does r (move ?x ?y ?u ?v)))
            (<= (next (left ?x ?y)) (true (cell ?x ?y)) (from ?x ?y))
            (<= terminal (true (step 6)))
            (<= (goal r 100) (true (step 6)))";
        let (p, facts) = program_and_facts(text);
        let mut reg = Registry::new(&p, &facts);
        let doc = "";
        let mut test = |name: &str, adorn: Adorn| {
            let rel = relation_named(&p, name);
            let f = reg.call(rel, adorn);
            test_of_list(&facts, &mut reg, (rel, adorn), (&f, doc)).map(|t| t.to_string())
        };
        let affected = test("affected", 0b11).expect("read from the list");
        assert!(affected.contains("affected_2_ff"), "{affected}");
        assert_eq!(test("mover", 0b1), None);
        assert_eq!(test("reachable", 0b11), None);
        assert_eq!(test("from", 0b11), None);
    }

    #[test]
    fn a_call_asked_once_per_key_of_memoized_callers_has_no_memo() {
        use super::super::tests::{module_and_code, program_and_facts};
        // `walk` counts the marked cells of a row, asking `add_one` once
        // for each cell and count on the way (twice for the last cell, its
        // rule run for it only); `goal` asks `pairs` in a loop over the
        // neighbours of each cell; `walk2` asks `add_two` from two rules
        // run for every key.
        let (p, facts) = program_and_facts(
            "(role r) (num 0) (num 1) (num 2) (num 3) (num 4)
            (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
            (right 1 2) (right 2 3) (right 3 4) (right 4 1) (mark x) (mark o)
            (init (cell 1 x)) (init (cell 2 o)) (init (cell 3 x)) (init (cell 4 b))
            (<= (add_one ?c ?n ?m) (true (cell ?c x)) (succ ?n ?m))
            (<= (add_one ?c ?n ?n) (true (cell ?c o)) (num ?n))
            (<= (add_one ?c ?n ?n) (true (cell ?c b)) (num ?n))
            (<= (walk 4 ?n ?m) (add_one 4 ?n ?m))
            (<= (walk ?c ?n ?m) (add_one ?c ?n ?k) (walk_on ?c ?k ?m))
            (<= (walk_on ?c ?k ?m) (right ?c ?d) (walk ?d ?k ?m))
            (<= (colour ?c ?k) (true (cell ?c ?k)) (mark ?k))
            (<= (pairs ?c ?k) (right ?c ?d) (colour ?d ?k) (colour ?c ?k))
            (<= (legal r (put ?c)) (true (cell ?c b)))
            (<= (next (cell ?c x)) (does r (put ?c)))
            (<= (next (cell ?c ?k)) (true (cell ?c ?k)) (not (does r (put ?c))))
            (<= terminal (walk 1 0 ?m) (distinct ?m 2))
            (<= (goal r 100) (right ?c ?d) (pairs ?d ?k) (distinct ?c ?k))
            (last 4)
            (<= (add_two ?c ?n ?m) (true (cell ?c o)) (succ ?n ?m))
            (<= (add_two ?c ?n ?n) (true (cell ?c x)) (num ?n))
            (<= (add_two ?c ?n ?n) (true (cell ?c b)) (num ?n))
            (<= (walk2 ?c ?n ?m) (last ?c) (add_two ?c ?n ?m))
            (<= (walk2 ?c ?n ?m) (add_two ?c ?n ?k) (walk2_on ?c ?k ?m))
            (<= (walk2_on ?c ?k ?m) (right ?c ?d) (walk2 ?d ?k ?m))
            (<= terminal (walk2 1 0 ?m) (distinct ?m 3))",
        );
        let (_, code) = module_and_code(&p, &facts);
        assert!(code.contains("fnadd_one_3_bbf("), "{code}");
        assert!(!code.contains("memo_add_one_3_bbf"), "{code}");
        assert!(code.contains("memo_pairs_2_bf"), "{code}");
        assert!(code.contains("memo_add_two_3_bbf"), "{code}");
    }
}
