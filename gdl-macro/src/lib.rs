//! The `gdl!` macro: compiles a game written in the Game Description Language
//! (GDL) into Rust while your crate builds.
//!
//! The macro is a thin layer over the `gdl-codegen` library (read, check,
//! ground, emit); it holds no compiler logic of its own. The generated code
//! depends only on `gdl-runtime`, so a crate using the macro needs both:
//!
//! ```toml
//! [dependencies]
//! gdl-macro = "0.1"
//! gdl-runtime = "0.1"
//! ```
//!
//! See [`gdl!`] for the syntax, the options and the error messages.
//!
//! # Build time
//!
//! The macro runs the whole compiler inside `rustc`, once per build of the
//! calling crate. Cargo builds proc macros without optimisation in the `dev`
//! profile, which makes the compiler several times slower than it need be.
//! Optimise it (and every other build-time dependency) in your workspace's
//! `Cargo.toml`:
//!
//! ```toml
//! [profile.dev.build-override]
//! opt-level = 3
//!
//! [profile.release.build-override]
//! opt-level = 3
//! ```
//!
//! This costs one optimised build of the compiler, done once; every
//! expansion afterwards is fast.

use std::path::{Path, PathBuf};

use gdl_codegen::backend::common::names;
use gdl_codegen::backend::ground::EmitError;
use gdl_codegen::codegen::{self, CodegenError, CodegenOptions};
use gdl_codegen::front::diag::Diagnostic;
use gdl_codegen::front::source::SourceFile;
use gdl_codegen::front::syntax::Syntax;
use gdl_codegen::front::Frontend;
use gdl_codegen::ground::{Budget, GroundError, Limit};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitInt, LitStr, Token, Visibility};

/// Compiles a GDL game into a Rust type implementing `gdl_runtime::Game`.
///
/// # Syntax
///
/// The input is a list of statements, each ended by `;`, in any order:
///
/// | statement | meaning |
/// |---|---|
/// | `include "games/x.kif";` | read the game from a file, relative to the calling crate's `CARGO_MANIFEST_DIR` (`.hrf` files are read as infix GDL) |
/// | `r#"(role a) ..."#;` | the game itself, inline, as a string literal |
/// | `#[attr] VIS mod name;` | put the generated items in a module `name` with this visibility and these attributes (without it they are placed where the macro is called) |
/// | `struct Name;` | name the game type (default: from the file name, else from the module name, else `Game`); the state type is `NameState` |
/// | `case_sensitive;` | keep names of different case apart (prefix GDL folds case by default) |
/// | `syntax = infix;` / `syntax = prefix;` | how to read the game (default: from the file extension, prefix for inline GDL) |
/// | `max_rules = N;` | the grounding budget in ground rules (default 8 000 000) |
/// | `max_memory_mb = N;` | the grounding memory budget (default 4096) |
/// | `max_literals = N;` | the compile budget in rule literals (default 8 000 000) |
///
/// Exactly one of `include` and an inline literal is required.
///
/// A game read from a file:
///
/// ```
/// gdl_macro::gdl! {
///     pub mod tictactoe;
///     struct TicTacToe;
///     include "tests/games/tictactoe.kif";
/// }
///
/// use gdl_runtime::Game;
/// let game = tictactoe::TicTacToe;
/// assert_eq!(game.role_names(), ["xplayer", "oplayer"]);
/// assert!(!game.is_terminal(&game.initial_state()));
/// ```
///
/// Editing `tests/games/tictactoe.kif` rebuilds the crate: the expansion holds an
/// `include_str!` of the file.
///
/// # Inline GDL
///
/// Inline GDL is a string literal, best a raw one (`r#"..."#`): GDL is not made
/// of Rust tokens. Its `;` comments, names such as `prev-goal` or `3x`, and
/// `?variables` would not survive Rust's lexer, so the macro does not take GDL
/// as bare tokens. In a raw string everything is kept as written; only the
/// closing `"#` ends it (use `r##"..."##` if the game holds `"#`, which GDL
/// never needs).
///
/// ```
/// gdl_macro::gdl! {
///     mod nim;
///     struct Nim;
///     r#"
///     ; Two players take one or two sticks; who takes the last one wins.
///     (role first) (role second)
///     (init (sticks 4)) (init (control first))
///     (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
///     (<= (legal ?p (take 1)) (true (control ?p)) (true (sticks ?n)) (succ ?m ?n))
///     (<= (legal ?p (take 2)) (true (control ?p)) (true (sticks ?n)) (succ ?m ?n) (succ ?k ?m))
///     (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
///     (<= (next (sticks ?m)) (does ?p (take 1)) (true (sticks ?n)) (succ ?m ?n))
///     (<= (next (sticks ?k)) (does ?p (take 2)) (true (sticks ?n)) (succ ?m ?n) (succ ?k ?m))
///     (<= (next (control first)) (true (control second)))
///     (<= (next (control second)) (true (control first)))
///     (<= (prev-goal ?p) (true (control ?p)))
///     (<= terminal (true (sticks 0)))
///     (<= (goal ?p 100) (prev-goal ?p) (true (sticks 0)))
///     (<= (goal ?p 0) (role ?p) (not (prev-goal ?p)))
///     "#
/// }
///
/// use gdl_runtime::Game;
/// let game = nim::Nim;
/// assert_eq!(gdl_runtime::perft(&game, &game.initial_state(), 2), 4);
/// ```
///
/// GDL written as tokens is refused with a message saying how to write it:
///
/// ```compile_fail
/// gdl_macro::gdl! { mod bad; (role a) }
/// ```
///
/// # Several games in one crate
///
/// Give each game its own module (the generated items have fixed names, such as
/// its tables, so two games cannot share a module):
///
/// ```
/// // The type name comes from the file name: `Tictactoe`.
/// gdl_macro::gdl! { pub(crate) mod ttt; include "tests/games/tictactoe.kif"; }
/// gdl_macro::gdl! {
///     mod tiny;
///     struct Tiny;
///     r#"(role a) (init p) (legal a go) (<= (next q) (true p)) (<= terminal (true q)) (goal a 100)"#;
/// }
///
/// use gdl_runtime::Game;
/// assert_eq!(ttt::Tictactoe.num_roles(), 2);
/// assert_eq!(gdl_runtime::perft(&tiny::Tiny, &tiny::Tiny.initial_state(), 1), 1);
/// ```
///
/// # Errors
///
/// Every problem of the game is a compile error, all of them at once. For a
/// game read from a file, the error points at the path and its message holds
/// the file's own line, column and a caret under the offending text:
///
/// ```text
/// error: [E0203]: unsafe rule: variable(s) `?y` of the head are not bound by any positive body literal
///          ┌─ games/unsafe.kif:4:5
///          │
///        4 │ (<= (next (cell ?y)) (true (cell ?x)))
///          │     ^^^^^^^^^^^^^^^^ head variables without a binding
///          │
///          = GDL requires every variable of a rule to occur in a positive body literal (Definition 3, allowedness)
///          = help: add a positive literal that binds them, such as a domain relation
///  --> src/main.rs:3:13
///   |
/// 3 |     include "games/unsafe.kif";
///   |             ^^^^^^^^^^^^^^^^^^
/// ```
///
/// For inline GDL the error points at the literal and gives the line and
/// column within it. A game too large to ground or to compile says which
/// budget it exceeded and how to raise it (`max_rules = N;` and friends).
/// Warnings of the checker are not shown (a proc macro cannot emit warnings on
/// stable Rust): run `gdl-codegen check` on the file to see them.
#[proc_macro]
pub fn gdl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as Input);
    match expand(input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Where the game comes from.
enum Source {
    File(LitStr),
    Inline(LitStr),
}

struct ModDecl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
}

#[derive(Default)]
struct Input {
    module: Option<ModDecl>,
    type_name: Option<Ident>,
    source: Option<Source>,
    case_sensitive: bool,
    syntax: Option<Syntax>,
    max_rules: Option<usize>,
    max_memory_mb: Option<usize>,
    max_literals: Option<usize>,
}

mod kw {
    syn::custom_keyword!(include);
    syn::custom_keyword!(case_sensitive);
    syn::custom_keyword!(syntax);
    syn::custom_keyword!(max_rules);
    syn::custom_keyword!(max_memory_mb);
    syn::custom_keyword!(max_literals);
    syn::custom_keyword!(infix);
    syn::custom_keyword!(prefix);
}

const EXPECTED: &str = "expected one of: `include \"file.kif\";`, an inline game as a string \
     literal (`r#\"(role a) ...\"#`), `mod name;`, `struct Name;`, `case_sensitive;`, \
     `syntax = infix;`, `max_rules = N;`, `max_memory_mb = N;`, `max_literals = N;`";

fn duplicate(span: Span, what: &str) -> syn::Error {
    syn::Error::new(span, format!("{what} is given twice"))
}

fn parse_usize(input: ParseStream) -> syn::Result<(usize, Span)> {
    input.parse::<Token![=]>()?;
    let lit: LitInt = input.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut out = Input::default();
        while !input.is_empty() {
            let attrs = input.call(Attribute::parse_outer)?;
            let la = input.lookahead1();
            if !(attrs.is_empty() || la.peek(Token![mod]) || la.peek(Token![pub])) {
                return Err(syn::Error::new_spanned(
                    &attrs[0],
                    "attributes apply to the generated module: write them before `mod name;`",
                ));
            }
            if la.peek(Token![mod]) || la.peek(Token![pub]) {
                let vis: Visibility = input.parse()?;
                let mod_token: Token![mod] = input.parse()?;
                let name: Ident = input.parse()?;
                if out.module.is_some() {
                    return Err(duplicate(mod_token.span, "the module"));
                }
                out.module = Some(ModDecl { attrs, vis, name });
            } else if la.peek(Token![struct]) {
                let token: Token![struct] = input.parse()?;
                let name: Ident = input.parse()?;
                if out.type_name.is_some() {
                    return Err(duplicate(token.span, "the type name"));
                }
                let wanted = names::type_name(&name.to_string());
                if name != wanted {
                    return Err(syn::Error::new(
                        name.span(),
                        format!("the game type name must be UpperCamelCase: write `{wanted}`"),
                    ));
                }
                out.type_name = Some(name);
            } else if la.peek(kw::include) {
                let token: kw::include = input.parse()?;
                let path: LitStr = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "expected the game file's path as a string literal: `include \"games/x.kif\";`",
                    )
                })?;
                if out.source.is_some() {
                    return Err(duplicate(token.span, "the game"));
                }
                out.source = Some(Source::File(path));
            } else if la.peek(LitStr) {
                let text: LitStr = input.parse()?;
                if out.source.is_some() {
                    return Err(duplicate(text.span(), "the game"));
                }
                out.source = Some(Source::Inline(text));
            } else if la.peek(kw::case_sensitive) {
                input.parse::<kw::case_sensitive>()?;
                out.case_sensitive = true;
            } else if la.peek(kw::syntax) {
                input.parse::<kw::syntax>()?;
                input.parse::<Token![=]>()?;
                let la = input.lookahead1();
                out.syntax = Some(if la.peek(kw::infix) {
                    input.parse::<kw::infix>()?;
                    Syntax::Infix
                } else if la.peek(kw::prefix) {
                    input.parse::<kw::prefix>()?;
                    Syntax::Kif
                } else {
                    return Err(la.error());
                });
            } else if la.peek(kw::max_rules) {
                input.parse::<kw::max_rules>()?;
                out.max_rules = Some(parse_usize(input)?.0);
            } else if la.peek(kw::max_memory_mb) {
                input.parse::<kw::max_memory_mb>()?;
                out.max_memory_mb = Some(parse_usize(input)?.0);
            } else if la.peek(kw::max_literals) {
                input.parse::<kw::max_literals>()?;
                out.max_literals = Some(parse_usize(input)?.0);
            } else {
                return Err(unexpected(input));
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![;]>()?;
        }
        if out.source.is_none() {
            return Err(syn::Error::new(
                Span::call_site(),
                "no game given: write `include \"games/x.kif\";` or the game inline as a raw string literal `r#\"(role a) ...\"#`",
            ));
        }
        Ok(out)
    }
}

/// The error for a statement the macro does not know, with a hint for GDL
/// written as tokens.
fn unexpected(input: ParseStream) -> syn::Error {
    match input.fork().parse::<TokenTree>() {
        Ok(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis => {
            syn::Error::new(
                g.span(),
                "inline GDL must be a string literal, such as r#\"(role a) ...\"#: \
                 GDL is not made of Rust tokens (`;` starts a GDL comment, `prev-goal` \
                 would be split into three tokens, a lone `\"` or `'` does not lex)",
            )
        }
        Ok(tt) => syn::Error::new(tt.span(), EXPECTED),
        Err(e) => e,
    }
}

fn expand(input: Input) -> syn::Result<TokenStream> {
    let Some(source) = &input.source else {
        return Err(syn::Error::new(Span::call_site(), "no game given"));
    };
    let mut options = CodegenOptions::default();
    options.frontend.case_sensitive = input.case_sensitive;
    options.frontend.syntax = input.syntax;
    let defaults = Budget::default();
    options.budget = Budget::new(
        input.max_rules.unwrap_or(defaults.max_rules),
        input
            .max_memory_mb
            .map_or(defaults.max_memory, |mb| mb.saturating_mul(1 << 20)),
    );
    if let Some(n) = input.max_literals {
        options.emit.max_literals = n;
    }

    let (name, bytes, lit, file) = match source {
        Source::File(lit) => {
            let rel = lit.value();
            let path = resolve(&rel);
            let bytes = std::fs::read(&path).map_err(|e| {
                syn::Error::new(
                    lit.span(),
                    format!(
                        "cannot read the game file `{rel}`: {e}\n\
                         note: `include` paths are relative to the calling crate's directory \
                         (its CARGO_MANIFEST_DIR)"
                    ),
                )
            })?;
            (rel, bytes, lit, Some(path))
        }
        Source::Inline(lit) => ("inline GDL".to_owned(), lit.value().into_bytes(), lit, None),
    };
    if options.frontend.syntax.is_none() && file.is_none() {
        options.frontend.syntax = Some(Syntax::Kif);
    }

    options.emit.type_name = match (&input.type_name, &file, &input.module) {
        (Some(t), _, _) => t.to_string(),
        (None, Some(_), _) => codegen::type_name_for(Path::new(&name)),
        (None, None, Some(m)) => names::type_name(&m.name.to_string()),
        (None, None, None) => "Game".to_owned(),
    };

    let generated = codegen::generate(&name, &bytes, &options)
        .map_err(|e| error_for(&e, lit, file.is_none(), &input))?;
    let code: TokenStream = generated.code.parse().map_err(|e| {
        syn::Error::new(
            lit.span(),
            format!("internal error: the generated code does not lex: {e}"),
        )
    })?;
    let rebuild = file.map(|path| {
        let path = path.to_string_lossy().into_owned();
        quote!(
            const _: &str = include_str!(#path);
        )
    });
    Ok(match &input.module {
        Some(ModDecl { attrs, vis, name }) => {
            let doc = (!attrs.iter().any(|a| a.path().is_ident("doc"))).then(|| {
                let doc = format!("The game compiled from `{}`.", source_label(source));
                quote!(#[doc = #doc])
            });
            quote! {
                #doc
                #(#attrs)*
                #vis mod #name {
                    #code
                    #rebuild
                }
            }
        }
        None => quote! {
            #code
            #rebuild
        },
    })
}

fn source_label(source: &Source) -> String {
    match source {
        Source::File(lit) => lit.value(),
        Source::Inline(_) => "inline GDL".to_owned(),
    }
}

/// The path of an included file: relative paths are taken from the calling
/// crate's directory.
fn resolve(rel: &str) -> PathBuf {
    let path = Path::new(rel);
    if path.is_absolute() {
        return path.to_owned();
    }
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(dir) => Path::new(&dir).join(path),
        None => path.to_owned(),
    }
}

/// The compile errors for a game the compiler rejected, all combined.
fn error_for(e: &CodegenError, lit: &LitStr, inline: bool, input: &Input) -> syn::Error {
    let span = lit.span();
    match e {
        CodegenError::Invalid(fe) => {
            let mut errors = fe
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| diagnostic_error(d, fe, lit, inline));
            let mut first = errors
                .next()
                .unwrap_or_else(|| syn::Error::new(span, e.to_string()));
            for more in errors {
                first.combine(more);
            }
            first
        }
        CodegenError::Ground(GroundError::Budget {
            relation,
            what,
            limit,
        }) => {
            let (what, raise, now) = match what {
                Limit::Atoms => ("ground atoms", "max_rules", *limit),
                Limit::Rules => ("ground rules", "max_rules", *limit),
                Limit::Work => (
                    "join steps",
                    "max_rules",
                    input.max_rules.unwrap_or(Budget::DEFAULT_MAX_RULES),
                ),
                Limit::Memory => ("bytes of memory", "max_memory_mb", *limit >> 20),
            };
            syn::Error::new(
                span,
                format!(
                    "the game is too large to ground: more than {limit} {what} while grounding `{relation}`\n\
                     help: raise the budget with `{raise} = N;` in the gdl! invocation (now {now})"
                ),
            )
        }
        CodegenError::Emit(EmitError::TooLarge { literals, limit }) => syn::Error::new(
            span,
            format!(
                "the ground game has {literals} rule literals, more than the compile budget of {limit}\n\
                 help: raise it with `max_literals = {literals};` in the gdl! invocation \
                 (the generated code grows with it), or use an interpreted reasoner"
            ),
        ),
        other => syn::Error::new(span, other.to_string()),
    }
}

/// One diagnostic as a compile error: for a file, the rendered text (file,
/// line, column, caret); for inline GDL, the same with positions inside the
/// literal.
fn diagnostic_error(d: &Diagnostic, fe: &Frontend, lit: &LitStr, inline: bool) -> syn::Error {
    let rendered = d.render(&fe.source, false);
    // rustc prints `error: ` before the message: drop the renderer's own.
    let text = rendered
        .trim_end()
        .strip_prefix("error")
        .unwrap_or(rendered.trim_end());
    if !inline {
        return syn::Error::new(lit.span(), text);
    }
    let (line, col) = fe.source.line_col(d.span.start as usize);
    let at = inline_location(lit, &fe.source, line, col)
        .map(|loc| format!("\nnote: at {loc}"))
        .unwrap_or_default();
    syn::Error::new(lit.span(), format!("{text}{at}"))
}

/// Where a position of inline GDL is in the Rust file, when the literal is
/// written without escapes and the compiler tells span locations (Rust 1.88+).
fn inline_location(lit: &LitStr, source: &SourceFile, line: usize, col: usize) -> Option<String> {
    let token = lit.token().to_string();
    let prefix = if let Some(rest) = token.strip_prefix('r') {
        rest.len() - rest.trim_start_matches('#').len() + 2
    } else if token.get(1..token.len().saturating_sub(1)) == Some(&*source.text) {
        1
    } else {
        return None;
    };
    let start = lit.span().start();
    if start.line == 0 {
        return None;
    }
    let file = lit.span().file();
    let (abs_line, abs_col) = if line == 1 {
        (start.line, start.column + prefix + col)
    } else {
        (start.line + line - 1, col)
    };
    Some(format!("{file}:{abs_line}:{abs_col}"))
}
