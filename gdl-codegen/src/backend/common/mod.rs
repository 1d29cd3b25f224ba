//! What every generated module has, whatever the back end: the role
//! constants, the string tables of roles, fluents and moves, the text
//! parsers, the `Game` methods that only read those tables ([`Strings`],
//! [`game_impl`]), sanitized names ([`names`]), and the module as tokens or
//! formatted text ([`mod@format`]); and the code generators' options and
//! errors ([`EmitOptions`], [`EmitError`]).
//!
//! A state is a `[u64; N]` bit set over the fluents, and a move an id in the
//! text order of its role's moves, in every back end: matches replay
//! identically whichever back end compiled them. A fluent's id is its rank in
//! text order; its bit is its id unless the back end lays the state out
//! otherwise ([`Texts::fluent_bits`]).

pub mod draw;
pub mod format;
pub mod names;

use std::collections::HashSet;
use std::fmt;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ground::GroundProgram;

/// The build budget of ground code, in tests (a literal of a rule body,
/// or a word of one-literal bodies, as [`code_size`] counts them): about
/// 60 s of rustc in release on a 2-core machine. Measured builds of whole
/// generated crates (one game each, `gdl-runtime` built): 75 K tests
/// (amazonsTorus_10x10) 41 s, 77 K (kalaha5x2x3) 40 s, 90 K (NOTHELLO_S)
/// 66 s, 106 K (chess_200) 57 s, 195 K (kalaha6x2x4) 154 s, 342 K
/// (Othello) 223 s: about 0.6 s per thousand tests, a test about 50 bytes
/// of Rust. `auto` compiles a game over it with the lifted back end.
///
/// [`code_size`]: crate::backend::ground::code_size
pub const BUILD_BUDGET_TESTS: usize = 80_000;

/// Options of the code generator.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Name of the generated game type (a state type `<Name>State` goes with it).
    pub type_name: String,
    /// Path of the runtime crate in the generated code.
    pub runtime_path: String,
    /// The source the game came from, for the header.
    pub source_name: String,
    /// Largest ground program to compile, in rule-body literals.
    pub max_literals: usize,
    /// Largest ground code to print, in tests (see [`BUILD_BUDGET_TESTS`]).
    pub max_code_tests: usize,
    /// Literals of an atom's bodies above which they go into the rule tables
    /// (`None`: chosen from the program's size, see [`tables`]).
    ///
    /// [`tables`]: crate::backend::ground::tables
    pub rule_table_threshold: Option<usize>,
    /// Whether legal moves and terminal are evaluated incrementally, from
    /// the nearer of a thread's last two evaluations (`None`: when an
    /// estimate on sample matches says it pays; see `incremental.rs`).
    pub incremental: Option<bool>,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            type_name: "Game".to_owned(),
            runtime_path: "::gdl_runtime".to_owned(),
            source_name: "game".to_owned(),
            max_literals: 8_000_000,
            max_code_tests: BUILD_BUDGET_TESTS,
            rule_table_threshold: None,
            incremental: None,
        }
    }
}

/// Why code could not be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The ground program is over the compile budget.
    TooLarge {
        /// Its size in rule-body literals.
        literals: usize,
        /// The budget.
        limit: usize,
    },
    /// The ground code is over the build budget.
    TooSlowToBuild {
        /// Its size in tests ([`CodeSize::tests`]).
        ///
        /// [`CodeSize::tests`]: crate::backend::ground::CodeSize::tests
        tests: usize,
        /// The budget.
        limit: usize,
    },
    /// The runtime path option is not a Rust path.
    BadRuntimePath(String),
    /// The generated tokens did not parse (a bug).
    Internal(String),
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::TooLarge { literals, limit } => write!(
                f,
                "the ground game has {literals} rule literals, more than the compile budget of {limit}"
            ),
            EmitError::TooSlowToBuild { tests, limit } => write!(
                f,
                "the ground game's code would be {tests} tests (about {} MB of Rust), more than the \
                 build budget of {limit} (about 60 s of rustc)",
                tests.div_ceil(20_000)
            ),
            EmitError::BadRuntimePath(p) => write!(f, "`{p}` is not a Rust path"),
            EmitError::Internal(e) => write!(f, "internal error: generated code does not parse: {e}"),
        }
    }
}

impl std::error::Error for EmitError {}

/// The texts a generated module's tables hold, whatever the back end.
pub struct Texts<'a> {
    /// Role names, in role order.
    pub roles: &'a [String],
    /// Fluent texts, in text order.
    pub fluents: &'a [String],
    /// The state's bit of each fluent, by id, where it is not the id.
    pub fluent_bits: Option<&'a [u32]>,
    /// Per role, its move texts in text order.
    pub moves: &'a [Vec<String>],
    /// Whether names keep their case.
    pub case_sensitive: bool,
}

impl<'a> Texts<'a> {
    /// The texts of a ground program (in text order, with their bits if
    /// the program is relaid).
    pub fn of(gp: &'a GroundProgram) -> Self {
        let (fluents, fluent_bits) = match &gp.logical {
            Some(l) => (&l.fluents[..], Some(&l.bits[..])),
            None => (&gp.fluents[..], None),
        };
        Texts {
            roles: &gp.roles,
            fluents,
            fluent_bits,
            moves: &gp.moves,
            case_sensitive: gp.case_sensitive,
        }
    }
}

fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// The names and string tables of a generated module.
pub struct Strings {
    /// `pub const ROLE_<NAME>: Role = r;` per role.
    pub role_consts: TokenStream,
    /// `NUM_FLUENTS`.
    pub num_fluents: TokenStream,
    /// `ROLE_NAMES`.
    pub role_names: TokenStream,
    /// `FLUENTS`, `FLUENT_KEYS` and `fluent_bit`.
    pub fluents: TokenStream,
    /// `MOVES` and `MOVE_KEYS`.
    pub moves: TokenStream,
    /// `MOVES_<r>` and `MOVE_KEYS_<r>` per role.
    pub move_tables: TokenStream,
    /// `key` and `CASE_SENSITIVE`.
    pub key_fn: TokenStream,
}

/// `fluent_bit`: the state's bit of a fluent id.
fn fluent_bit_fn(bits: Option<&[u32]>) -> TokenStream {
    match bits {
        None => quote! {
            /// The state's bit of a fluent: its id.
            #[inline]
            fn fluent_bit(f: usize) -> usize {
                f
            }
        },
        Some(bits) => {
            let n = lit_usize(bits.len());
            let bits = bits.iter().map(|&b| Literal::u32_unsuffixed(b));
            quote! {
                /// The state's bit of each fluent, by id.
                static FLUENT_BIT: [u32; #n] = [#(#bits),*];

                /// The state's bit of a fluent.
                #[inline]
                fn fluent_bit(f: usize) -> usize {
                    FLUENT_BIT[f] as usize
                }
            }
        }
    }
}

/// Keys are the texts themselves unless case folding changes some: then a
/// table of their own.
fn keys(texts: &[String], case_sensitive: bool) -> Vec<String> {
    texts
        .iter()
        .map(|s| {
            if case_sensitive {
                s.to_owned()
            } else {
                s.to_ascii_lowercase()
            }
        })
        .collect()
}

impl Strings {
    /// The tables of `gp`, with `rt` the path of the runtime crate.
    pub fn new(gp: &Texts, rt: &syn::Path) -> Self {
        let nf = lit_usize(gp.fluents.len());
        let nr = lit_usize(gp.roles.len());
        let fluents = gp.fluents;
        let role_names = gp.roles;
        let fluent_keys = keys(fluents, gp.case_sensitive);
        let fluent_keys_item = if fluent_keys == fluents {
            quote!(static FLUENT_KEYS: &[&str; #nf] = &FLUENTS;)
        } else {
            quote!(static FLUENT_KEYS: [&str; #nf] = [#(#fluent_keys),*];)
        };
        let fluent_bit = fluent_bit_fn(gp.fluent_bits);
        let (move_refs, key_refs, move_tables) = move_items(gp);
        let case = gp.case_sensitive;
        Strings {
            role_consts: role_consts(gp, rt),
            num_fluents: quote! {
                #[doc = " Number of reachable fluents."]
                #[allow(dead_code, reason = "part of the generated API, used or not")]
                pub const NUM_FLUENTS: usize = #nf;
            },
            role_names: quote!(static ROLE_NAMES: [&str; #nr] = [#(#role_names),*];),
            fluents: quote! {
                static FLUENTS: [&str; #nf] = [#(#fluents),*];
                #fluent_keys_item
                #fluent_bit
            },
            moves: quote! {
                static MOVES: [&[&str]; #nr] = [#(#move_refs),*];
                static MOVE_KEYS: [&[&str]; #nr] = [#(#key_refs),*];
            },
            move_tables,
            key_fn: quote! {
                /// Case folding of the text parsers (prefix GDL is case-independent).
                fn key(text: &str) -> ::core::result::Result<::std::string::String, #rt::ParseError> {
                    #rt::text::canonical(text).map(|t| if CASE_SENSITIVE { t } else { t.to_ascii_lowercase() })
                }

                const CASE_SENSITIVE: bool = #case;
            },
        }
    }
}

/// The role constants. `ROLE_NAMES` is a table of the module: no role
/// constant may take it.
fn role_consts(gp: &Texts, rt: &syn::Path) -> TokenStream {
    let mut taken = HashSet::from(["ROLE_NAMES".to_owned()]);
    let consts = gp.roles.iter().enumerate().map(|(r, name)| {
        let c = Ident::new(
            &names::const_name("ROLE", name, &mut taken),
            Span::call_site(),
        );
        let r = lit_usize(r);
        let doc = format!(" The role `{name}`.");
        quote! {
            #[doc = #doc]
            #[allow(dead_code, reason = "part of the generated API, used or not")]
            pub const #c: #rt::Role = #r;
        }
    });
    quote!(#(#consts)*)
}

/// Per role, the reference to its move table and to its key table, and the
/// tables.
fn move_items(gp: &Texts) -> (Vec<TokenStream>, Vec<TokenStream>, TokenStream) {
    let mut move_tables = Vec::new();
    let mut move_refs = Vec::new();
    let mut key_refs = Vec::new();
    for (r, moves) in gp.moves.iter().enumerate() {
        let n = lit_usize(moves.len());
        let mt = format_ident!("MOVES_{}", r);
        let kt = format_ident!("MOVE_KEYS_{}", r);
        let keys = keys(moves, gp.case_sensitive);
        let same = keys == *moves;
        let keys_item = if same {
            quote!(static #kt: &[&str; #n] = &#mt;)
        } else {
            quote!(static #kt: [&str; #n] = [#(#keys),*];)
        };
        move_tables.push(quote! {
            static #mt: [&str; #n] = [#(#moves),*];
            #keys_item
        });
        move_refs.push(quote!(&#mt));
        key_refs.push(if same { quote!(#kt) } else { quote!(&#kt) });
    }
    (move_refs, key_refs, quote!(#(#move_tables)*))
}

/// `key.with(body)` for a `thread_local!` static `key`, printed as
/// `key.try_with(body).expect(..)`: `LocalKey::with` is not `#[inline]`, so
/// in a crate built with several codegen units it stays an outlined call
/// that reaches the thread's slot through the key's accessor pointer, about
/// 20 instructions a query (connect four: 13.9 K instructions a playout
/// against 13.2 K). `try_with` is inlined, and fails only after the
/// thread's locals are destroyed, where `with` panics as well.
pub fn thread_local_with(key: &TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        #key.try_with(#body).expect("a game query after its thread's locals were destroyed")
    }
}

/// The declarations every generated module opens with: the role constants,
/// the fluent count, the game type (documented with `game_doc`) and the
/// state type, one bit per reachable fluent in `nw` words.
pub fn type_decls(
    strings: &Strings,
    game: &Ident,
    state: &Ident,
    nw: usize,
    game_doc: &str,
) -> TokenStream {
    let Strings {
        role_consts,
        num_fluents,
        ..
    } = strings;
    let nw = lit_usize(nw);
    let state_doc = format!(" A state of [`{game}`]: one bit per reachable fluent.");
    quote! {
        #role_consts

        #num_fluents

        #[doc = #game_doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #game;

        #[doc = #state_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #state(pub [u64; #nw]);
    }
}

/// What a back end computes, for [`game_impl`]: the scratch type that holds
/// its evaluation's caches, whether `Scratch::new` is a `const fn`, and the
/// `Scratched` methods (`legal_moves_in`, `is_terminal_in`, `goal_in`,
/// `apply_in`, and `random_move_in` where it has a faster one).
pub struct Queries<'a> {
    /// The scratch type (`<Game>Scratch`), with a `new()`.
    pub scratch: &'a Ident,
    /// Whether `new()` is a `const fn` (a `const` thread-local then).
    pub const_new: bool,
    /// The `Scratched` methods.
    pub methods: TokenStream,
}

/// The `Scratched` impl of `game` with the back end's `queries`, and the
/// per-thread scratch (`with_scratch`) that the `Game` methods use.
fn scratched_impl(rt: &syn::Path, game: &Ident, queries: Queries) -> TokenStream {
    let Queries {
        scratch,
        const_new,
        methods,
    } = queries;
    let init = if const_new {
        quote!(const { ::core::cell::RefCell::new(#scratch::new()) })
    } else {
        quote!(::core::cell::RefCell::new(#scratch::new()))
    };
    let with = thread_local_with(&quote!(SCRATCH), quote!(|cell| f(&mut cell.borrow_mut())));
    quote! {
        ::std::thread_local! {
            static SCRATCH: ::core::cell::RefCell<#scratch> = #init;
        }

        /// Runs `f` on the scratch of this thread's `Game` queries.
        #[inline]
        fn with_scratch<R>(f: impl FnOnce(&mut #scratch) -> R) -> R {
            #with
        }

        #[automatically_derived]
        impl #rt::Scratched for #game {
            type Scratch = #scratch;

            fn new_scratch(&self) -> #scratch {
                #scratch::new()
            }

            #methods
        }
    }
}

/// The `Game` and `Scratched` impls, and the per-thread scratch that the
/// `Game` methods use: the back end's `queries` answer with a scratch the
/// caller holds (`Scratched`: a batch of playouts, a loaded game's
/// position); the `Game` methods with the thread's. The rest read the
/// string tables. `nw` is the state's length in words.
pub fn game_impl(
    rt: &syn::Path,
    game: &Ident,
    state: &Ident,
    nw: usize,
    num_roles: usize,
    queries: Queries,
) -> TokenStream {
    let nr = lit_usize(num_roles);
    let nw = lit_usize(nw);
    let scratched = scratched_impl(rt, game, queries);
    quote! {
        #scratched

        // The per-ply queries are `#[inline]`: the drivers that call them
        // (playouts, perft, search) are generic, instantiated in another
        // codegen unit, and a call they cannot inline costs its frame and
        // keeps the move vector's fields in memory.
        #[automatically_derived]
        impl #rt::Game for #game {
            type State = #state;

            fn num_roles(&self) -> usize {
                #nr
            }

            fn role_name(&self, role: #rt::Role) -> &str {
                ROLE_NAMES.get(role).copied().unwrap_or("")
            }

            fn initial_state(&self) -> #state {
                #state(INIT)
            }

            #[inline]
            fn legal_moves(&self, state: &#state, role: #rt::Role, out: &mut ::std::vec::Vec<#rt::Move>) {
                with_scratch(|s| #rt::Scratched::legal_moves_in(self, s, state, role, out))
            }

            #[inline]
            fn random_move(
                &self,
                state: &#state,
                role: #rt::Role,
                rng: &mut #rt::Rng,
                buf: &mut ::std::vec::Vec<#rt::Move>,
            ) -> ::core::option::Option<#rt::Move> {
                with_scratch(|s| #rt::Scratched::random_move_in(self, s, state, role, rng, buf))
            }

            #[inline]
            fn is_terminal(&self, state: &#state) -> bool {
                with_scratch(|s| #rt::Scratched::is_terminal_in(self, s, state))
            }

            fn goal(&self, state: &#state, role: #rt::Role) -> #rt::Goal {
                with_scratch(|s| #rt::Scratched::goal_in(self, s, state, role))
            }

            #[inline]
            fn apply_unchecked(&self, state: &mut #state, joint: &[#rt::Move]) {
                with_scratch(|s| #rt::Scratched::apply_in(self, s, state, joint))
            }

            /// Playouts with one scratch for the batch: no query looks for
            /// the thread's.
            fn native_playouts(
                &self,
                state: &#state,
                budget: #rt::Budget,
                seed: u64,
                max_depth: usize,
            ) -> ::core::option::Option<#rt::PlayoutStats> {
                ::core::option::Option::Some(#rt::run_playouts_in(self, state, budget, seed, max_depth))
            }

            fn move_text(&self, role: #rt::Role, mv: #rt::Move) -> ::std::string::String {
                MOVES
                    .get(role)
                    .and_then(|m| m.get(mv.0 as usize))
                    .map_or_else(::std::string::String::new, |m| (*m).to_owned())
            }

            fn fluents(&self, state: &#state) -> ::std::vec::Vec<::std::string::String> {
                FLUENTS
                    .iter()
                    .enumerate()
                    .filter(|&(f, _)| {
                        let b = fluent_bit(f);
                        (state.0[b >> 6] >> (b & 63)) & 1 != 0
                    })
                    .map(|(_, t)| (*t).to_owned())
                    .collect()
            }

            fn parse_move(&self, role: #rt::Role, text: &str) -> ::core::result::Result<#rt::Move, #rt::ParseError> {
                let k = key(text)?;
                let keys = MOVE_KEYS
                    .get(role)
                    .ok_or_else(|| #rt::ParseError::new(::std::format!("no role {role}")))?;
                keys.iter()
                    .position(|m| *m == k)
                    .map(|m| #rt::Move(m as u32))
                    .ok_or_else(|| #rt::ParseError::new(::std::format!("`{text}` is not a move of role {role}")))
            }

            fn parse_state(&self, text: &str) -> ::core::result::Result<#state, #rt::ParseError> {
                let mut words = [0u64; #nw];
                for term in #rt::text::split_terms(text)? {
                    let k = key(term)?;
                    let f = FLUENT_KEYS
                        .iter()
                        .position(|x| *x == k)
                        .ok_or_else(|| #rt::ParseError::new(::std::format!("`{term}` is not a fluent of this game")))?;
                    let b = fluent_bit(f);
                    words[b >> 6] |= 1 << (b & 63);
                }
                Ok(#state(words))
            }
        }
    }
}
