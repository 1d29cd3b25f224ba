//! Reading ground terms from KIF text (moves and states given by a driver).

use gdl_runtime::text::{tokens, Token};
use gdl_runtime::ParseError;

use crate::front::symbols::{Sym, Symbols};

/// A ground term read from text, its names resolved to the game's symbols.
#[derive(Clone, Debug)]
pub(crate) enum Read {
    /// A constant.
    Const(Sym),
    /// `(f args..)`
    Func(Sym, Vec<Read>),
}

/// Reads every top-level term of `text`. Names are looked up as the game
/// reads them (case-independently unless the program is case-sensitive); a
/// name the game never mentions cannot occur in any of its terms and is an
/// error, and so are variables.
pub(crate) fn read_terms(text: &str, syms: &Symbols) -> Result<Vec<Read>, ParseError> {
    // An explicit stack of open lists: (function symbol if seen yet, args).
    let mut stack: Vec<(Option<Sym>, Vec<Read>)> = Vec::new();
    let mut out = Vec::new();
    let name = |a: &str| -> Result<Sym, ParseError> {
        if a.starts_with('?') {
            return Err(ParseError::new(format!("variable `{a}` in a ground term")));
        }
        syms.lookup(a)
            .ok_or_else(|| ParseError::new(format!("`{a}` is not a name of this game")))
    };
    for (pos, tok) in tokens(text) {
        match tok {
            Token::Open => stack.push((None, Vec::new())),
            Token::Close => {
                let Some((f, args)) = stack.pop() else {
                    return Err(ParseError::new(format!("unbalanced `)` at byte {pos}")));
                };
                let Some(f) = f else {
                    return Err(ParseError::new(format!("empty list `()` at byte {pos}")));
                };
                let t = Read::Func(f, args);
                match stack.last_mut() {
                    Some((None, _)) => {
                        return Err(ParseError::new(format!(
                            "a list cannot name a function (byte {pos})"
                        )))
                    }
                    Some((Some(_), args)) => args.push(t),
                    None => out.push(t),
                }
            }
            Token::Atom(a) => {
                let s = name(a)?;
                match stack.last_mut() {
                    Some((f @ None, _)) => *f = Some(s),
                    Some((Some(_), args)) => args.push(Read::Const(s)),
                    None => out.push(Read::Const(s)),
                }
            }
        }
    }
    if !stack.is_empty() {
        return Err(ParseError::new("unbalanced `(`"));
    }
    Ok(out)
}
