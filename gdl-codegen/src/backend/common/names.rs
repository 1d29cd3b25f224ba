//! Rust identifiers from GDL names.
//!
//! GDL names are arbitrary: scrambled games use dictionary words that are Rust
//! keywords, names start with digits or hold `-` and `+`, and names may differ
//! only by case. Every name the generated code takes from a game goes through
//! here, and no behaviour of the generated code depends on a name.

use std::collections::HashSet;

/// Rust's keywords (strict and reserved, all editions) that cannot be raw
/// identifiers, or that would read badly as one.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Words that are keywords in some edition.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Names of the prelude and of the items a generated module defines or uses
/// unqualified; avoided so that a game type never shadows them.
const RESERVED_TYPES: &[&str] = &[
    "Some",
    "None",
    "Ok",
    "Err",
    "Option",
    "Result",
    "Vec",
    "String",
    "Box",
    "std",
    "core",
    "alloc",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "bool",
    "char",
    "str",
    "State",
    "Move",
    "Game",
    "Goal",
    "Role",
    "Copy",
    "Clone",
    "Default",
    "Debug",
    "Hash",
    "Eq",
    "PartialEq",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "ToString",
    "Values",
];

/// Splits a GDL name into alphanumeric words.
fn words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An `UpperCamelCase` type name for a GDL name, never a keyword, a prelude
/// name or an item of the generated code, and never starting with a digit.
/// Upper-case words are capitalized (`CHIMPANZEE` gives `Chimpanzee`), so
/// that a type is never spelled like a constant of the generated code
/// (`INIT`) nor trips clippy's `upper_case_acronyms`.
pub fn type_name(name: &str) -> String {
    let mut out: String = words(name)
        .iter()
        .map(|w| {
            let rest = if w.bytes().any(|b| b.is_ascii_lowercase()) {
                w[1..].to_owned()
            } else {
                w[1..].to_ascii_lowercase()
            };
            w[..1].to_ascii_uppercase() + &rest
        })
        .collect();
    if out.is_empty() {
        out.push_str("UnnamedGame");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Game");
    }
    if RESERVED_TYPES.contains(&out.as_str())
        || KEYWORDS.contains(&out.as_str())
        || NOT_RAW.contains(&out.as_str())
    {
        out.push_str("Game");
    }
    out
}

/// A `SCREAMING_SNAKE_CASE` constant name for a GDL name, unique within
/// `taken` (names that differ only by case or punctuation get a numeric
/// suffix) and added to it.
pub fn const_name(prefix: &str, name: &str, taken: &mut HashSet<String>) -> String {
    let mut base = prefix.to_owned();
    for w in words(name) {
        base.push('_');
        base.push_str(&w.to_ascii_uppercase());
    }
    if base == prefix {
        base.push_str("_X");
    }
    let mut out = base.clone();
    let mut n = 2;
    while !taken.insert(out.clone()) {
        out = format!("{base}_{n}");
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_valid_identifiers() {
        assert_eq!(type_name("ticTacToe"), "TicTacToe");
        assert_eq!(type_name("connect-four"), "ConnectFour");
        assert_eq!(type_name("3pffa"), "Game3pffa");
        assert_eq!(type_name("Vec"), "VecGame");
        assert_eq!(type_name("state"), "StateGame");
        assert_eq!(type_name("+-+"), "UnnamedGame");
        assert_eq!(type_name("self"), "SelfGame");
        assert_eq!(type_name("CHIMPANZEE.3361621913"), "Chimpanzee3361621913");
        assert_eq!(type_name("INIT"), "Init");
        assert_eq!(type_name("VEC"), "VecGame");
        assert_eq!(type_name("values"), "ValuesGame");
    }

    #[test]
    fn const_names_never_collide() {
        let mut taken = HashSet::new();
        let a = const_name("ROLE", "white", &mut taken);
        let b = const_name("ROLE", "White", &mut taken);
        let c = const_name("ROLE", "white+", &mut taken);
        let d = const_name("ROLE", "---", &mut taken);
        assert_eq!(a, "ROLE_WHITE");
        assert_eq!(b, "ROLE_WHITE_2");
        assert_eq!(c, "ROLE_WHITE_3");
        assert_eq!(d, "ROLE_X");
    }
}
