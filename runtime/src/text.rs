//! A minimal reader for GDL terms in prefix (KIF) syntax, for run-time use:
//! splitting a list of terms such as `(cell 1 1 x) (control oplayer) step`
//! and normalising a term's text so that two spellings of the same term
//! compare equal.
//!
//! It knows only parentheses, atoms and `;` comments: enough to compare the
//! text a reasoner prints with the text of a trace, without the full GDL
//! parser (which generated code must not depend on).

use crate::ParseError;

/// A lexical token of a term.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Token<'a> {
    /// `(`
    Open,
    /// `)`
    Close,
    /// A maximal run of characters that are not whitespace, parentheses or `;`.
    Atom(&'a str),
}

/// The tokens of `text` with their byte offsets, skipping whitespace and
/// `;` comments (which run to the end of the line, as in KIF files).
pub fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, pos: 0 }
}

/// Iterator returned by [`tokens`]: yields `(byte offset, token)`.
#[derive(Clone, Debug)]
pub struct Tokens<'a> {
    text: &'a str,
    pos: usize,
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b'(' || b == b')' || b == b';'
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, Token<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        // Only ASCII bytes are ever split on, so every slice boundary falls on
        // a UTF-8 character boundary and slicing cannot panic.
        let bytes = self.text.as_bytes();
        loop {
            let b = *bytes.get(self.pos)?;
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b';' {
                while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let start = self.pos;
        let token = match bytes[start] {
            b'(' => {
                self.pos += 1;
                Token::Open
            }
            b')' => {
                self.pos += 1;
                Token::Close
            }
            _ => {
                while self.pos < bytes.len() && !is_delimiter(bytes[self.pos]) {
                    self.pos += 1;
                }
                Token::Atom(&self.text[start..self.pos])
            }
        };
        Some((start, token))
    }
}

/// Splits `text` into its top-level terms, returned as slices of `text`
/// (comments and spacing inside a term are kept as written).
///
/// Empty or blank text gives no terms; unbalanced parentheses are an error.
pub fn split_terms(text: &str) -> Result<Vec<&str>, ParseError> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (pos, token) in tokens(text) {
        match token {
            Token::Open => {
                if depth == 0 {
                    start = pos;
                }
                depth += 1;
            }
            Token::Close => {
                if depth == 0 {
                    return Err(ParseError::new(format!(
                        "unbalanced parentheses: `)` at byte {pos} closes nothing"
                    )));
                }
                depth -= 1;
                if depth == 0 {
                    terms.push(&text[start..pos + 1]);
                }
            }
            Token::Atom(atom) => {
                if depth == 0 {
                    terms.push(atom);
                }
            }
        }
    }
    if depth > 0 {
        return Err(ParseError::new(format!(
            "unbalanced parentheses: {depth} `(` not closed (the term starting at byte {start})"
        )));
    }
    Ok(terms)
}

/// Appends the canonical spelling of `text`'s tokens to `out`: single spaces
/// between items, none after `(` or before `)`. Never fails: stray
/// parentheses are written as they come.
fn write_canonical(text: &str, out: &mut String) {
    // Whether the previous token ends an item, so that the next item needs a
    // separating space.
    let mut after_item = false;
    for (_, token) in tokens(text) {
        match token {
            Token::Open => {
                if after_item {
                    out.push(' ');
                }
                out.push('(');
                after_item = false;
            }
            Token::Close => {
                out.push(')');
                after_item = true;
            }
            Token::Atom(atom) => {
                if after_item {
                    out.push(' ');
                }
                out.push_str(atom);
                after_item = true;
            }
        }
    }
}

/// The canonical spelling of the one term in `text`: `( cell 1  1 x )`
/// becomes `(cell 1 1 x)`. Case is kept.
///
/// Errors when `text` holds no term, several terms, or unbalanced parentheses.
pub fn canonical(text: &str) -> Result<String, ParseError> {
    let terms = split_terms(text)?;
    match terms.len() {
        0 => Err(ParseError::new("empty term: the text holds no GDL term")),
        1 => Ok(canonical_lossy(terms[0])),
        n => Err(ParseError::new(format!(
            "expected one term, found {n}: `{}`",
            canonical_lossy(text)
        ))),
    }
}

/// The canonical spelling of each top-level term of `text`.
pub fn canonical_terms(text: &str) -> Result<Vec<String>, ParseError> {
    Ok(split_terms(text)?
        .into_iter()
        .map(canonical_lossy)
        .collect())
}

/// The canonical spelling of `text`'s tokens, without checking that they form
/// exactly one balanced term. Never fails; used on text that a reasoner
/// printed, where a malformed term should show up as a mismatch rather than
/// abort the comparison.
pub fn canonical_lossy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    write_canonical(text, &mut out);
    out
}

/// The comparison key of the one term in `text`: its canonical spelling in
/// ASCII lower case, since prefix GDL names are case-independent.
pub fn key(text: &str) -> Result<String, ParseError> {
    let mut s = canonical(text)?;
    s.make_ascii_lowercase();
    Ok(s)
}

/// Like [`key`], but never fails (see [`canonical_lossy`]).
pub fn key_lossy(text: &str) -> String {
    let mut s = canonical_lossy(text);
    s.make_ascii_lowercase();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_top_level_terms() {
        let terms = split_terms("(cell 1 1 x) (control oplayer) step").unwrap();
        assert_eq!(terms, ["(cell 1 1 x)", "(control oplayer)", "step"]);
        let terms = split_terms("correct_failure").unwrap();
        assert_eq!(terms, ["correct_failure"]);
        assert!(split_terms("").unwrap().is_empty());
        assert!(split_terms("  \n\t ; only a comment").unwrap().is_empty());
        let terms = split_terms("(a(b c)d)e(f)").unwrap();
        assert_eq!(terms, ["(a(b c)d)", "e", "(f)"]);
    }

    #[test]
    fn canonical_spacing() {
        assert_eq!(canonical("(  cell 1  1 x )").unwrap(), "(cell 1 1 x)");
        assert_eq!(canonical("(a(b c)d)").unwrap(), "(a (b c) d)");
        assert_eq!(canonical("((a) (b))").unwrap(), "((a) (b))");
        assert_eq!(canonical("\n(f ; comment ) (\n  x)").unwrap(), "(f x)");
        assert_eq!(canonical("noop").unwrap(), "noop");
        assert_eq!(canonical("(Mark 1 ?X)").unwrap(), "(Mark 1 ?X)");
        assert_eq!(
            canonical_terms("(cell 1  1 x)(control  xPlayer)").unwrap(),
            ["(cell 1 1 x)", "(control xPlayer)"]
        );
    }

    #[test]
    fn keys_fold_case() {
        assert_eq!(key("(Control XPlayer)").unwrap(), "(control xplayer)");
        assert_eq!(
            key("( control xplayer )").unwrap(),
            key("(CONTROL xPlayer)").unwrap()
        );
        assert_eq!(key_lossy("(a b"), "(a b");
    }

    #[test]
    fn errors_are_clear() {
        let e = canonical("").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = canonical("(a b").unwrap_err();
        assert!(e.message.contains("unbalanced"), "{e}");
        let e = canonical("a b)").unwrap_err();
        assert!(e.message.contains("unbalanced"), "{e}");
        let e = canonical("a b").unwrap_err();
        assert!(e.message.contains("found 2"), "{e}");
    }

    #[test]
    fn garbage_never_panics() {
        let samples = [
            ")))(((",
            "((((",
            "))",
            ";",
            "é(ü ;\n ß)",
            "\u{0}\u{7f}(\u{1F600} x)",
            "(a ;)\n)",
            "\t\r\n",
            "(((a)))))",
        ];
        for s in samples {
            let _ = split_terms(s);
            let _ = canonical(s);
            let _ = canonical_terms(s);
            let _ = key(s);
            let _ = key_lossy(s);
        }
        assert_eq!(
            canonical("é(ü ;\n ß)").unwrap_err().message,
            "expected one term, found 2: `é (ü ß)`"
        );
        // Every byte prefix of a mixed string (cut at char boundaries).
        let s = "(cell ü (b ; c\n)) x) ((";
        for (i, _) in s.char_indices() {
            let _ = split_terms(&s[..i]);
            let _ = canonical(&s[i..]);
        }
    }
}
