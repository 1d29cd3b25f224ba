//! How a relation's function reads and writes its memo and collects its
//! answers: tests, recursive tests, answer lists in arenas.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::body::param;
use super::facts::Facts;
use super::memo::memo_type;
use super::needs::Needs;

/// How a memoized call reads and writes `memo`: the lookup returning a hit
/// (on a cycle, a call met again while it runs returns `fallback`), what
/// it writes before it runs (on a cycle, `None`: running), and what it
/// stores of a test's `found` and of an answer list's `answers`.
pub(super) fn memo_access(
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

/// A test off any cycle: memoized if it is a part of a rule made a
/// relation (calls that vary the rule's other arguments repeat it) or is
/// estimated to cost well above a memo lookup ([`MEMO_TEST_WORK`],
/// [`MEMO_KEYED_TEST_WORK`]), else evaluated each time; `precheck` (its
/// guard, if any) first. `memo_ty`, the memo table's type, is given for
/// those memoized.
pub(super) fn off_cycle_test(
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
pub(super) struct Memoized {
    pub(super) name: proc_macro2::Ident,
    pub(super) eval: proc_macro2::Ident,
    pub(super) memo: proc_macro2::Ident,
    pub(super) params: Vec<proc_macro2::Ident>,
    /// The width of its keys.
    pub(super) k: Literal,
    /// The key type of its dense memo table, if it has one.
    pub(super) keys_ty: Option<proc_macro2::Ident>,
    pub(super) bodies: Vec<TokenStream>,
    pub(super) doc: String,
    /// The memo lookup, returning a hit (or a running call's fallback).
    pub(super) lookup: TokenStream,
    /// What a call writes to the memo before it runs, and what it stores.
    pub(super) pending: TokenStream,
    pub(super) store: TokenStream,
    /// On a cycle: the memo's values are options (`None` while running).
    pub(super) cyclic: bool,
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
pub(super) fn recursive_test_fn(
    m: &Memoized,
    active: Option<(proc_macro2::Ident, TokenStream)>,
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
    // A call that may meet itself keeps a stack of the calls running; one
    // that never does (see `walk::never_meets_itself`) needs none.
    let unmemoized = match &active {
        Some((active, fallback)) => quote! {
            if self.#active.contains(&key) {
                return #fallback;
            }
            self.calls += 1;
            self.#active.push(key);
            let found = self.#eval(#(#params),*);
            self.#active.pop();
            return found;
        },
        None => quote! {
            self.calls += 1;
            return self.#eval(#(#params),*);
        },
    };
    let f = quote! {
        #entry
        fn #memoized(&mut self, #(#params: u32),*) -> bool {
            let key = [#(#params),*];
            if self.calls < UNMEMOIZED_CALLS {
                #unmemoized
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
    let mut fields = vec![quote!(#memo: #memo_ty)];
    if let Some((active, _)) = active {
        fields.push(quote!(#active: ::std::vec::Vec<[u32; #k]>));
    }
    (f, fields)
}

/// How a call with answers collects them: in a buffer from a pool, moved
/// to its arena at the end and memoized as `stored` (`answers` or, on a
/// cycle, `Some(answers)`); or, off any cycle, pushed straight to the end
/// of its arena as found (the range from where they start is theirs, as no
/// call of the same function runs meanwhile).
pub(super) enum Collect {
    Buffered {
        pool: proc_macro2::Ident,
        stored: TokenStream,
    },
    /// Straight to the arena; memoized unless asked once per key (see
    /// [`Needs::asked_once`]).
    Direct { memoized: bool },
}

/// A call with answers: memoized, its answers a range of its arena.
pub(super) fn answers_fn(
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
    let (begin, dedup, end, fields) = collect_parts(collect, memo, &arena, &w, memo_ty);
    let dedup = if listed { quote!() } else { dedup };
    let (lookup, note) = answers_lookup(once, params, lookup, pending);
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

/// How a call with answers collects them, as `collect` says: the start of
/// its collecting, the deduplication of its answers, its end (storing and
/// returning the range) and the fields it needs (`memo_ty` its memo's type).
fn collect_parts(
    collect: Collect,
    memo: &proc_macro2::Ident,
    arena: &proc_macro2::Ident,
    w: &Literal,
    memo_ty: TokenStream,
) -> (TokenStream, TokenStream, TokenStream, Vec<TokenStream>) {
    // The queries' own relations are read by the queries, which set bits
    // or sort their answers anyway, and by tests: duplicates cost less
    // than sorting every list to remove them. Other lists are sorted only
    // when long: a reader walks a short list's duplicates for less than
    // the sort would cost, and a long list, deduplicated, cannot make its
    // readers' lists grow with the duplicates of the lists they read.
    match collect {
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
            store_in_arena((memo, &pool, arena), stored),
            answer_fields((memo, &pool, arena), w, memo_ty),
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
    }
}

/// The memo lookup of a call with answers (none when asked `once` per
/// key) and the doc note on where its answers are.
fn answers_lookup(
    once: bool,
    params: &[proc_macro2::Ident],
    lookup: &TokenStream,
    pending: &TokenStream,
) -> (TokenStream, TokenStream) {
    if once {
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
    }
}

/// The end of a call with answers: its answers `out` moved to its arena,
/// the range memoized (as `stored(answers)`) and returned, the buffer back
/// to the pool.
pub(super) fn store_in_arena(
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
pub(super) fn answer_fields(
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
pub(super) fn guard_precheck(
    facts: &Facts,
    reg: &mut Needs,
    rel: u32,
    guard: Option<usize>,
) -> Option<TokenStream> {
    let n = reg.program_rels;
    let k = guard?;
    debug_assert_eq!(facts.guards[k].of, rel);
    let check = reg.static_check((n + k) as u32);
    let args = facts.guards[k].columns.iter().map(|&c| param(c));
    Some(quote! {
        if !#check(#(#args),*) {
            return false;
        }
    })
}
