//! The `gdl!` macro's expansion, as a library function so that the macro
//! crate stays a few lines (as `logos-derive` over `logos-codegen`): read the
//! input, run a [`Session`], expand to the generated module's tokens, or to
//! located `compile_error!`s naming the macro's own options.

mod input;
mod stored;

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;

use crate::backend::common::names;
use crate::backend::ground::EmitError;
use crate::backend::lifted::LiftedError;
use crate::front::diag::Diagnostic;
use crate::front::source::SourceFile;
use crate::front::syntax::Syntax;
use crate::front::Frontend;
use crate::ground::{Budget, GroundError, Limit};
use crate::session::{self, Caller, CodegenError, CodegenOptions, Session};
use input::{Input, ModDecl, Source};
pub use stored::{ExpansionCache, Outcome, MACRO_CACHE_ENV};

/// Expands `gdl! { .. }`: the generated items, or the errors found. The
/// generated module is taken from the user's expansion cache when there
/// (see [`ExpansionCache`]).
pub fn gdl(input: TokenStream) -> TokenStream {
    gdl_with(input, ExpansionCache::from_env().as_ref()).0
}

/// [`gdl`] with the expansion cache `cache` (none: the compiler always
/// runs), and what it did with the cache.
pub fn gdl_with(input: TokenStream, cache: Option<&ExpansionCache>) -> (TokenStream, Outcome) {
    let expanded = syn::parse2::<Input>(input).and_then(|input| expand(input, cache));
    expanded.unwrap_or_else(|e| (e.to_compile_error(), Outcome::Uncached))
}

/// The generated module's tokens: from `cache` when it holds them, else
/// from the compiler, then stored.
fn module_tokens(
    name: &str,
    bytes: &[u8],
    options: CodegenOptions,
    cache: Option<&ExpansionCache>,
) -> Result<(TokenStream, Outcome), CodegenError> {
    let entry = cache.map(|c| c.entry(name, bytes, &options));
    if let Some(tokens) = entry.as_deref().and_then(ExpansionCache::get) {
        return Ok((tokens, Outcome::Hit));
    }
    let tokens = Session::new(name, bytes, options).module()?.into_tokens();
    Ok(match entry {
        Some(entry) => {
            ExpansionCache::put(&entry, &tokens);
            (tokens, Outcome::Miss)
        }
        None => (tokens, Outcome::Uncached),
    })
}

fn expand(input: Input, cache: Option<&ExpansionCache>) -> syn::Result<(TokenStream, Outcome)> {
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
    if let Some(n) = input.max_code_tests {
        options.emit.max_code_tests = n;
    }
    if let Some(b) = input.backend {
        options.backend = b;
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
        (None, Some(_), _) => session::type_name_for(Path::new(&name)),
        (None, None, Some(m)) => names::type_name(&m.name.to_string()),
        (None, None, None) => "Game".to_owned(),
    };

    let max_rules = options.budget.max_rules;
    let (code, outcome) = module_tokens(&name, &bytes, options, cache)
        .map_err(|e| error_for(&e, lit, file.is_none(), max_rules))?;
    let rebuild = file.map(|path| {
        let path = path.to_string_lossy().into_owned();
        quote!(
            const _: &str = include_str!(#path);
        )
    });
    let tokens = match &input.module {
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
    };
    Ok((tokens, outcome))
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
fn error_for(e: &CodegenError, lit: &LitStr, inline: bool, max_rules: usize) -> syn::Error {
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
        // The lifted back end enumerates fluents and moves with the
        // grounder's fixpoint, under the same budget.
        CodegenError::Ground(GroundError::Budget {
            relation,
            what,
            limit,
        })
        | CodegenError::Lifted(LiftedError::Domains(GroundError::Budget {
            relation,
            what,
            limit,
        })) => {
            let (what, now) = match what {
                Limit::Atoms => ("ground atoms", *limit),
                Limit::Rules => ("ground rules", *limit),
                Limit::Work => ("join steps", max_rules),
                Limit::Memory => ("bytes of memory", *limit >> 20),
                Limit::Time => ("seconds", *limit),
            };
            let raise = e.knob().map_or("", |k| Caller::Macro.knob(k));
            syn::Error::new(
                span,
                format!(
                    "the game is too large to ground: more than {limit} {what} while grounding `{relation}`\n\
                     help: raise the budget with {raise} in the gdl! invocation (now {now})"
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
        e @ CodegenError::Emit(EmitError::TooSlowToBuild { .. }) => {
            syn::Error::new(span, e.message(Caller::Macro))
        }
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
