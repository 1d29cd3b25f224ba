//! The function of each derived relation and adornment, printed as its
//! plan says (see [`super::plan::Shape`]), and the evaluation's fields it
//! uses.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::access::BodyAccess;
use super::answers::{
    answers_fn, guard_precheck, memo_access, off_cycle_test, recursive_test_fn, Collect, Memoized,
};
use super::body::{param, Body};
use super::facts::Facts;
use super::join_order::{free_arguments, Adorn, Source};
use super::memo::memo_type;
use super::module::usize_lit;
use super::needs::Needs;
use super::plan::{FnPlan, Item, LiftedPlan, Memo, Shape};
use super::recursion::{closure_fn, closure_search, component_fn, fallback};
use super::rule_bodies::rule_bodies;
use super::widen::Widening;

/// Every function of `plan`, and the fields of the evaluation they use
/// (memo tables, component tables): those of relations that depend on the
/// state or the move, then those of the others (see [`Fields`]).
pub(super) fn relation_fns(
    facts: &Facts,
    reg: &mut Needs,
    plan: &LiftedPlan,
) -> (Vec<TokenStream>, Fields) {
    let stateless = |rel: u32| facts.stateless.get(rel as usize).copied() == Some(true);
    let mut fns = Vec::new();
    let mut fields = Fields::default();
    for item in &plan.items {
        match item {
            Item::Fn(f) => {
                let (code, field) = derived_fn(facts, reg, f);
                fns.push(code);
                fields.add(stateless(f.rel), field);
            }
            Item::Comp(c) => {
                let (code, fs) = component_fn(reg, c);
                fns.push(code);
                let of_state = (c.rels.iter()).any(|(p, _)| !stateless(*p));
                fields.add(!of_state, fs);
            }
        }
    }
    (fns, fields)
}

/// The fields of an evaluation: those reset with every state, and those
/// of relations that hold in every state (deferred ones computed at run
/// time), which may be kept from state to state.
#[derive(Default)]
pub(super) struct Fields {
    pub(super) of_state: Vec<TokenStream>,
    pub(super) stateless: Vec<TokenStream>,
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

/// The names and parameters of a relation's function.
pub(super) struct Signature {
    pub(super) name: proc_macro2::Ident,
    pub(super) params: Vec<proc_macro2::Ident>,
    pub(super) doc: String,
    /// The bound arguments and the free ones (none for a test).
    pub(super) keys: Vec<usize>,
    pub(super) free: Vec<usize>,
    pub(super) arity: usize,
}

impl Signature {
    fn of(reg: &Needs, rel: u32, adorn: Adorn) -> Signature {
        let arity = reg.arity[rel as usize];
        let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
        // An existence test outputs nothing: a test, as if all were bound.
        let free = free_arguments(arity, adorn);
        Signature {
            name: reg.call_name(rel, adorn),
            params: keys.iter().map(|&i| param(i)).collect(),
            doc: format!(
                " `{}` with arguments `{}` bound.",
                reg.names[rel as usize],
                super::adorn_text(adorn, arity)
            ),
            keys,
            free,
            arity,
        }
    }
}

/// The type of a memo whose keys are `k` numbers and values `value`.
fn memo_ty(memo: &Memo, k: usize, value: TokenStream) -> TokenStream {
    let keys_ty = memo.dense.as_ref().map(|d| format_ident!("{}", d));
    memo_type(keys_ty.as_ref(), &usize_lit(k), value)
}

/// The function of `f`, and its fields.
pub(super) fn derived_fn(
    facts: &Facts,
    reg: &mut Needs,
    f: &FnPlan,
) -> (TokenStream, Vec<TokenStream>) {
    let (rel, adorn) = (f.rel, f.adorn);
    let sig = Signature::of(reg, rel, adorn);
    let Signature {
        name, params, doc, ..
    } = &sig;
    let k = sig.keys.len();
    let arena = format_ident!("arena_{}", name);
    match &f.shape {
        Shape::ExistsFromList => (exists_from_list(reg, rel, name, doc), Vec::new()),
        Shape::TestFromList => (test_from_list(reg, &sig, rel), Vec::new()),
        Shape::TestFromClosure { sub, guard, why } => {
            let search = closure_search(reg, &sig, rel, *sub);
            let precheck = guard_precheck(facts, reg, rel, *guard).unwrap_or_default();
            let why = format!(" Searched in a closure's answers: {}.", why.text());
            let code = quote! {
                #[doc = #doc]
                #[doc = #why]
                fn #name(&mut self, #(#params: u32),*) -> bool {
                    #precheck
                    #search
                }
            };
            (code, Vec::new())
        }
        Shape::Closure { closure, memo } => {
            let memo_ty = memo.as_ref().map(|m| memo_ty(m, k, quote!((u32, u32))));
            closure_fn(reg, &sig, closure, memo_ty)
        }
        Shape::Test {
            bodies,
            memo,
            guard,
        } => {
            let bodies = rule_bodies(facts, reg, (rel, adorn), &sig.free, None, bodies);
            let precheck = guard_precheck(facts, reg, rel, *guard).unwrap_or_default();
            let memo_ty = memo.as_ref().map(|m| memo_ty(m, k, quote!(bool)));
            off_cycle_test(memo_ty, (name, params, doc), &bodies, precheck)
        }
        Shape::RecursiveTest {
            bodies,
            memo,
            fallback: fb,
            guard,
        } => {
            let bodies = rule_bodies(facts, reg, (rel, adorn), &sig.free, None, bodies);
            let fallback = fallback(reg, &sig, rel, fb, &arena);
            let m = memoized(&sig, Some(memo), bodies, fallback.as_ref());
            let active = fallback.map(|f| (format_ident!("active_{}", m.name), f));
            let precheck = guard_precheck(facts, reg, rel, *guard);
            recursive_test_fn(&m, active, precheck)
        }
        Shape::Answers {
            bodies,
            memo,
            direct,
            fallback: fb,
            listed,
        } => {
            let into = direct.then_some(&arena);
            let bodies = rule_bodies(facts, reg, (rel, adorn), &sig.free, into, bodies);
            let fallback = (fb.as_ref()).and_then(|fb| fallback(reg, &sig, rel, fb, &arena));
            let m = memoized(&sig, memo.as_ref(), bodies, fallback.as_ref());
            let collect = if *direct {
                Collect::Direct {
                    memoized: memo.is_some(),
                }
            } else {
                Collect::Buffered {
                    pool: format_ident!("pool_{}", name),
                    stored: memo_access(&m.memo, fallback.as_ref()).3,
                }
            };
            let w = usize_lit(sig.free.len());
            answers_fn(&m, arena, w, collect, *listed)
        }
    }
}

/// What the functions of a memoized call share (see [`Memoized`]).
fn memoized(
    sig: &Signature,
    memo: Option<&Memo>,
    bodies: Vec<TokenStream>,
    fallback: Option<&TokenStream>,
) -> Memoized {
    let name = &sig.name;
    let memo_field = format_ident!("memo_{}", name);
    let (lookup, pending, store, _) = memo_access(&memo_field, fallback);
    Memoized {
        name: name.clone(),
        eval: format_ident!("eval_{}", name),
        memo: memo_field,
        params: sig.params.clone(),
        k: usize_lit(sig.keys.len()),
        keys_ty: memo
            .and_then(|m| m.dense.as_ref())
            .map(|d| format_ident!("{}", d)),
        bodies,
        doc: sig.doc.clone(),
        lookup,
        pending,
        store,
        cyclic: fallback.is_some(),
    }
}

/// The code of a call of `rel` with `adorn` answered through the wider
/// call `w` leads to: for each solution of its literal, the wider call's
/// answers, pushed to `arena` as rows of the `free` arguments.
pub(super) fn widened_body(
    reg: &mut Needs,
    (rel, adorn): (u32, Adorn),
    free: &[usize],
    arena: &proc_macro2::Ident,
    (w, source, access): (&Widening, Source, &BodyAccess),
) -> TokenStream {
    let arity = reg.arity[rel as usize];
    let is = |a: Adorn, i: usize| a >> i & 1 == 1;
    let steps = w.steps(arity, adorn, source);
    let wide = reg.call_name(rel, w.wider);
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
    body.steps(&steps, access);
    body.finish(solution)
}

/// An existence test of `rel` without keys answered by the call listing
/// all its answers (see [`super::planner`]).
fn exists_from_list(reg: &Needs, rel: u32, name: &proc_macro2::Ident, doc: &str) -> TokenStream {
    let list = reg.call_name(rel, 0);
    quote! {
        #[doc = #doc]
        /// Answered by the list of answers, which the queries ask for.
        fn #name(&mut self) -> bool {
            let (start, end) = self.#list();
            start != end
        }
    }
}

/// A test of `rel` with every argument a key answered from the list of
/// all its answers (see [`super::planner`]).
fn test_from_list(reg: &Needs, sig: &Signature, rel: u32) -> TokenStream {
    let list = reg.call_name(rel, 0);
    let arena = format_ident!("arena_{}", list);
    let Signature {
        name, params, doc, ..
    } = sig;
    // Every argument is a key: the row is the tuple asked for.
    let tuple = quote!([#(#params),*]);
    quote! {
        #[doc = #doc]
        /// Read from the list of all answers.
        fn #name(&mut self, #(#params: u32),*) -> bool {
            let (start, end) = self.#list();
            self.#arena[start as usize..end as usize].contains(&#tuple)
        }
    }
}
