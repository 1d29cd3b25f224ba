//! Recursive relations: closures computed by worklists, and components
//! computed bottom-up to their fixpoint.

use super::rule_bodies::rule_body;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::body::{param, Body};
use super::closure::Closure;
use super::functions::Signature;
use super::join_order::Adorn;
use super::module::usize_lit;
use super::needs::Needs;
use super::plan::{ClosurePlan, CompPlan, Fallback, RulePlan};

/// What a call of `rel` (the function `sig`) met again while it runs
/// returns, as `fallback` plans it: whether a closure's answers contain
/// its tuple, or the rows of its component's table matching its keys;
/// nothing for a call that never meets itself.
pub(super) fn fallback(
    reg: &Needs,
    sig: &Signature,
    rel: u32,
    fallback: &Fallback,
    arena: &proc_macro2::Ident,
) -> Option<TokenStream> {
    match *fallback {
        Fallback::Closure { sub } => {
            let search = closure_search(reg, sig, rel, sub);
            Some(quote!({ #search }))
        }
        Fallback::Table { .. } => Some(from_table(reg, rel, &sig.keys, &sig.free, arena)),
        Fallback::Never => None,
    }
}

/// The statements of a test that searches the answers of `rel`'s closure
/// with adornment `sub` for the test's tuple.
pub(super) fn closure_search(reg: &Needs, sig: &Signature, rel: u32, sub: Adorn) -> TokenStream {
    let name = reg.call_name(rel, sub);
    let arena = format_ident!("arena_{}", name);
    let keys = (0..sig.arity).filter(|i| sub >> i & 1 == 1).map(param);
    let free = (0..sig.arity).filter(|i| sub >> i & 1 == 0).map(param);
    quote! {
        let (start, end) = self.#name(#(#keys),*);
        self.#arena[start as usize..end as usize].contains(&[#(#free),*])
    }
}

/// A call's answers computed as a [`Closure`], a range of its arena,
/// memoized unless `memo_ty` is `None` (asked once per key). `arity` is
/// the relation's and `free` its unbound arguments.
///
/// The answers go straight to the end of the arena as found, where a
/// buffer moved there at the end cost a pool's pop and push and a copy a
/// call (chess.kif's rays, listed from each piece's square). Nothing else
/// pushes to that arena while the closure runs: its rules have no call of
/// the relation with the same arguments bound, the recursive literal taken
/// out.
pub(super) fn closure_fn(
    reg: &mut Needs,
    sig: &Signature,
    c: &ClosurePlan,
    memo_ty: Option<TokenStream>,
) -> (TokenStream, Vec<TokenStream>) {
    let Signature {
        name,
        params,
        doc,
        free,
        arity,
        ..
    } = sig;
    let (arity, free) = (*arity, &free[..]);
    let (memo, arena) = (
        format_ident!("memo_{}", name),
        format_ident!("arena_{}", name),
    );
    let (w, k) = (usize_lit(free.len()), usize_lit(params.len()));
    let mut fields = vec![quote!(#arena: ::std::vec::Vec<[u32; #w]>)];
    let walk = c.closure.is_walk();
    let (worklist, first_key) = match &c.closure {
        Closure::Answers { .. } => (answers_worklist(reg, c, (arity, free), &arena), false),
        Closure::Keys {
            kept, answering, ..
        } => {
            let keys = format_ident!("pool_keys_{}", name);
            let shape = KeysShape {
                kept,
                answering,
                params,
                arity,
                free,
            };
            if walk {
                (keys_walk(reg, c, &shape, &arena), !kept.is_empty())
            } else {
                fields.push(quote!(#keys: ::std::vec::Vec<[u32; #k]>));
                (keys_worklist(reg, c, &shape, (&keys, &arena)), true)
            }
        }
    };
    // The key is the memo's, and the first of the keys.
    let key =
        (memo_ty.is_some() || first_key).then(|| quote!(let key: [u32; #k] = [#(#params),*];));
    let (lookup, store) = match memo_ty {
        Some(ty) => {
            fields.push(quote!(#memo: #ty));
            (
                quote! {
                    if let Some(hit) = self.#memo.get(&key) {
                        return *hit;
                    }
                },
                quote!(self.#memo.insert(key, answers);),
            )
        }
        None => (quote!(), quote!()),
    };
    // A walk meets no answer twice: no set of those seen.
    let seen = (!walk).then(|| quote!(let mut seen = Memo::default();));
    let how = if walk {
        " found by a walk through its recursive rule."
    } else {
        " found by a worklist through its recursive rules."
    };
    let f = quote! {
        #[doc = #doc]
        /// Its answers are rows `start..end` of its arena,
        #[doc = #how]
        fn #name(&mut self, #(#params: u32),*) -> (u32, u32) {
            #key
            #lookup
            let start = self.#arena.len();
            #seen
            #worklist
            let answers = (start as u32, self.#arena.len() as u32);
            #store
            answers
        }
    };
    (f, fields)
}

/// The statement pushing an answer `row` to the end of `arena`, unless
/// there since `start` (a walk's answers, which do not repeat, are pushed
/// as they come). The row is built first: its terms may be made by the
/// evaluation (`self.make_term`), which the arena's borrow excludes.
fn push_answer(arena: &proc_macro2::Ident, row: TokenStream, walk: bool) -> TokenStream {
    if walk {
        return quote! {
            let answer = #row;
            self.#arena.push(answer);
        };
    }
    quote! {
        let answer = #row;
        push_new_from(&mut self.#arena, start, &mut seen, answer);
    }
}

/// [`Closure::Answers`]: the base rules' answers, then, once for each
/// answer, what the recursive rules derive from it.
pub(super) fn answers_worklist(
    reg: &mut Needs,
    c: &ClosurePlan,
    (arity, free): (usize, &[usize]),
    arena: &proc_macro2::Ident,
) -> TokenStream {
    let walk = c.closure.is_walk();
    let push = |row: TokenStream| push_answer(arena, row, walk);
    let base: Vec<TokenStream> = (c.base.iter())
        .map(|rule| rule_body(reg, rule, free, push))
        .collect();
    let steps: Vec<TokenStream> = (c.steps.iter())
        .map(|rule| rule_body(reg, rule, free, push))
        .collect();
    let delta: Vec<_> = (0..free.len()).map(|j| param(arity + j)).collect();
    quote! {
        #({ #base })*
        let mut next = start;
        while let Some(&[#(#delta),*]) = self.#arena.get(next) {
            next += 1;
            #({ #steps })*
        }
    }
}

/// What [`keys_worklist`] prints from: the [`Closure::Keys`] fields and
/// the function's parameters, the relation's arity and its free arguments.
pub(super) struct KeysShape<'a> {
    kept: &'a [(usize, usize)],
    answering: &'a [bool],
    params: &'a [proc_macro2::Ident],
    arity: usize,
    free: &'a [usize],
}

impl KeysShape<'_> {
    /// The code pushing an answer `row` of a key's, unless the key is
    /// not the first (`first` says whether it is) and the answer disagrees
    /// with the first key (`key`) where the recursion keeps a variable.
    fn answer(
        &self,
        arena: &proc_macro2::Ident,
        (row, first): (TokenStream, &TokenStream),
        walk: bool,
    ) -> TokenStream {
        if self.kept.is_empty() {
            return push_answer(arena, row, walk);
        }
        let agrees = self.kept.iter().map(|&(fi, ki)| {
            let (fi, ki) = (usize_lit(fi), usize_lit(ki));
            quote!(row[#fi] == key[#ki])
        });
        let push = push_answer(arena, quote!(row), walk);
        quote! {
            let row = #row;
            if #first || (#(#agrees)&&*) {
                #push
            }
        }
    }

    /// The code of step `rule`, which computes the next key (handed to
    /// `new_key`) and, if it `answers` too, an answer after it (handed to
    /// `answer`).
    fn step(
        &self,
        reg: &mut Needs,
        (rule, answers): (&RulePlan, bool),
        answer: impl Fn(TokenStream) -> TokenStream,
        new_key: impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let (k, arity, f) = (self.params.len(), self.arity, self.free.len());
        if !answers {
            let computed: Vec<usize> = (arity..arity + k).collect();
            return rule_body(reg, rule, &computed, new_key);
        }
        let computed: Vec<usize> = (arity..arity + k + f).collect();
        let (key_part, answer_part) = ((0..k).map(usize_lit), (k..k + f).map(usize_lit));
        let next_key = new_key(quote!([#(both[#key_part]),*]));
        let push_answer = answer(quote!([#(both[#answer_part]),*]));
        rule_body(reg, rule, &computed, |row| {
            quote! {
                let both = #row;
                #next_key
                #push_answer
            }
        })
    }
}

/// [`Closure::Keys`]: from the first key, the keys the recursive rules
/// derive, each once, and every key's base answers (from a later key, those
/// agreeing with the first where the recursion keeps a variable); a step
/// that answers too pushes both parts of its row. The worklist is the
/// buffer in field `keys`, kept from call to call: a list of its own each
/// call, grown key by key, spent a fifth of amazons_8x8's instructions in
/// `malloc` and `realloc`.
pub(super) fn keys_worklist(
    reg: &mut Needs,
    c: &ClosurePlan,
    shape: &KeysShape,
    (keys, arena): (&proc_macro2::Ident, &proc_macro2::Ident),
) -> TokenStream {
    let KeysShape {
        answering,
        params,
        free,
        ..
    } = *shape;
    let first = quote!(next == 1);
    let answer = |row: TokenStream| shape.answer(arena, (row, &first), false);
    let base: Vec<TokenStream> = (c.base.iter())
        .map(|rule| rule_body(reg, rule, free, answer))
        .collect();
    let new_key = |row: TokenStream| quote!(push_new(&mut keys, &mut seen_keys, #row););
    let steps: Vec<TokenStream> = (c.steps.iter().zip(answering))
        .map(|(rule, &answers)| shape.step(reg, (rule, answers), answer, new_key))
        .collect();
    quote! {
        let mut keys = ::core::mem::take(&mut self.#keys);
        keys.clear();
        keys.push(key);
        let mut seen_keys = Memo::default();
        let mut next = 0;
        while let Some(&[#(#params),*]) = keys.get(next) {
            next += 1;
            #({ #base })*
            #({ #steps })*
        }
        self.#keys = keys;
    }
}

/// [`Closure::Keys`] whose one step is a walk: the key is the parameters,
/// replaced by the one the step derives until it derives none. No key
/// comes back, so none is looked for.
fn keys_walk(
    reg: &mut Needs,
    c: &ClosurePlan,
    shape: &KeysShape,
    arena: &proc_macro2::Ident,
) -> TokenStream {
    let KeysShape {
        kept,
        answering,
        params,
        free,
        ..
    } = *shape;
    let first = quote!(first);
    let answer = |row: TokenStream| shape.answer(arena, (row, &first), true);
    let base: Vec<TokenStream> = (c.base.iter())
        .map(|rule| rule_body(reg, rule, free, answer))
        .collect();
    let new_key = |row: TokenStream| quote!(step = Some(#row););
    let step = shape.step(reg, (&c.steps[0], answering[0]), answer, new_key);
    let width = usize_lit(params.len());
    let (first_init, first_done) = if kept.is_empty() {
        (quote!(), quote!())
    } else {
        (quote!(let mut first = true;), quote!(first = false;))
    };
    quote! {
        #(let mut #params = #params;)*
        #first_init
        loop {
            #({ #base })*
            let mut step: Option<[u32; #width]> = None;
            { #step }
            #first_done
            match step {
                Some(next) => [#(#params),*] = next,
                None => break,
            }
        }
    }
}

/// The answers of a call of `rel` on a cycle, read from its component's
/// table: rows whose `keys` columns are the parameters, their `free`
/// columns.
pub(super) fn from_table(
    reg: &Needs,
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
pub(super) fn component_fn(reg: &mut Needs, c: &CompPlan) -> (TokenStream, Vec<TokenStream>) {
    let comp = c.comp;
    let name = format_ident!("component_{}", comp);
    let done = format_ident!("done_{}", comp);
    let mut fields = vec![quote!(#done: bool)];
    let mut rounds = Vec::new();
    for (rel, rules) in &c.rels {
        let (_, table) = reg.table(*rel);
        let a = usize_lit(reg.arity[*rel as usize]);
        fields.push(quote!(#table: ::std::vec::Vec<[u32; #a]>));
        let mut bodies = Vec::new();
        for plan in rules {
            let mut body = Body::new(reg, plan.rule.num_vars, Some(comp));
            body.steps(&plan.steps, &plan.access);
            let row = body.row(&plan.rule.head);
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
    let rels: Vec<u32> = c.rels.iter().map(|(r, _)| *r).collect();
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
