//! The input grammar of the `gdl!` macro: statements ended by `;`, in any
//! order (see the macro's documentation in `gdl-macro`).

use proc_macro2::{Span, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitInt, LitStr, Token, Visibility};

use crate::backend::common::names;
use crate::front::syntax::Syntax;
use crate::session::Backend;

/// Where the game comes from.
pub(super) enum Source {
    File(LitStr),
    Inline(LitStr),
}

pub(super) struct ModDecl {
    pub(super) attrs: Vec<Attribute>,
    pub(super) vis: Visibility,
    pub(super) name: Ident,
}

#[derive(Default)]
pub(super) struct Input {
    pub(super) module: Option<ModDecl>,
    pub(super) type_name: Option<Ident>,
    pub(super) source: Option<Source>,
    pub(super) case_sensitive: bool,
    pub(super) syntax: Option<Syntax>,
    pub(super) max_rules: Option<usize>,
    pub(super) max_memory_mb: Option<usize>,
    pub(super) max_literals: Option<usize>,
    pub(super) max_code_tests: Option<usize>,
    pub(super) backend: Option<Backend>,
}

mod kw {
    syn::custom_keyword!(include);
    syn::custom_keyword!(case_sensitive);
    syn::custom_keyword!(syntax);
    syn::custom_keyword!(max_rules);
    syn::custom_keyword!(max_memory_mb);
    syn::custom_keyword!(max_literals);
    syn::custom_keyword!(max_code_tests);
    syn::custom_keyword!(backend);
    syn::custom_keyword!(auto);
    syn::custom_keyword!(ground);
    syn::custom_keyword!(lifted);
    syn::custom_keyword!(infix);
    syn::custom_keyword!(prefix);
}

const EXPECTED: &str = "expected one of: `include \"file.kif\";`, an inline game as a string \
     literal (`r#\"(role a) ...\"#`), `mod name;`, `struct Name;`, `case_sensitive;`, \
     `syntax = infix;`, `max_rules = N;`, `max_memory_mb = N;`, `max_literals = N;`, `max_code_tests = N;`, \
     `backend = auto|ground|lifted;`";

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
            } else if la.peek(kw::max_code_tests) {
                input.parse::<kw::max_code_tests>()?;
                out.max_code_tests = Some(parse_usize(input)?.0);
            } else if la.peek(kw::backend) {
                input.parse::<kw::backend>()?;
                input.parse::<Token![=]>()?;
                let la = input.lookahead1();
                out.backend = Some(if la.peek(kw::auto) {
                    input.parse::<kw::auto>()?;
                    Backend::Auto
                } else if la.peek(kw::ground) {
                    input.parse::<kw::ground>()?;
                    Backend::Ground
                } else if la.peek(kw::lifted) {
                    input.parse::<kw::lifted>()?;
                    Backend::Lifted
                } else {
                    return Err(la.error());
                });
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
