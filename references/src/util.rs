//! Helpers shared by the engines: reading GDL terms, turning derived goal
//! values into a [`Goal`], and walking the set bits of a bitboard.
//!
//! Everything here is off the hot path except [`Bits`], so it favours
//! clarity over speed.

use gdl_runtime::{text, Goal, Move, ParseError};

/// The atoms of one flat GDL term, lower-cased (prefix GDL names are
/// case-independent): `(Move 1 2)` gives `["move", "1", "2"]`, `noop` gives
/// `["noop"]`. Nested terms are refused: no move or fluent of these games
/// has one.
pub(crate) fn term_atoms(term: &str) -> Result<Vec<String>, ParseError> {
    let key = text::key(term)?;
    let inner = match key.strip_prefix('(') {
        Some(rest) => rest
            .strip_suffix(')')
            .ok_or_else(|| ParseError::new(format!("malformed term `{key}`")))?,
        None => return Ok(vec![key]),
    };
    if inner.contains(['(', ')']) {
        return Err(ParseError::new(format!(
            "unexpected nested term in `{key}`"
        )));
    }
    Ok(inner.split(' ').map(str::to_owned).collect())
}

/// The top-level terms of a state's text, each split by [`term_atoms`].
pub(crate) fn state_terms(state: &str) -> Result<Vec<Vec<String>>, ParseError> {
    text::split_terms(state)?
        .into_iter()
        .map(term_atoms)
        .collect()
}

/// The error for a term that is not a move or fluent of the game.
pub(crate) fn unknown(what: &str, atoms: &[String]) -> ParseError {
    ParseError::new(format!("not a {what} of this game: ({})", atoms.join(" ")))
}

/// Reads a decimal number in `lo..=hi`.
pub(crate) fn number(atom: &str, lo: u32, hi: u32) -> Option<u32> {
    // `parse` alone would accept `+3` and `03`, which are other GDL atoms.
    if atom.is_empty() || atom.starts_with(['0', '+']) && atom != "0" {
        return None;
    }
    let n: u32 = atom.parse().ok()?;
    (lo..=hi).contains(&n).then_some(n)
}

/// The index of `atom` in `names`.
pub(crate) fn name_index(atom: &str, names: &[&str]) -> Option<usize> {
    names.iter().position(|n| *n == atom)
}

/// The goal of a role from the values its goal rules derive: each candidate
/// is `(derived, value)`. GDL makes a set of the derived values, so the same
/// value derived twice is still one value.
pub(crate) fn goal_of<const N: usize>(candidates: [(bool, u8); N]) -> Goal {
    let mut found: Option<u8> = None;
    for (derived, value) in candidates {
        if !derived {
            continue;
        }
        match found {
            None => found = Some(value),
            Some(v) if v == value => {}
            Some(_) => return Goal::Ambiguous,
        }
    }
    found.map_or(Goal::None, Goal::Value)
}

/// Appends the moves of `sources` to `out`, where `sources[d]` holds the
/// squares with a move in direction `d` and that move's id is
/// `base + D s + d`: squares in increasing order, directions in order, so
/// that ids come sorted.
///
/// Branch-free in the directions: every candidate is written and the
/// cursor advances only past real moves, because which directions are open
/// is unpredictable and mispredicted branches dominated move generation.
#[inline]
pub(crate) fn push_moves<const D: usize>(sources: &[u64; D], base: u32, out: &mut Vec<Move>) {
    let all = sources.iter().fold(0, |a, &s| a | s);
    let start = out.len();
    out.resize(start + D * all.count_ones() as usize, Move(0));
    let mut k = start;
    for s in Bits(all) {
        for (d, set) in sources.iter().enumerate() {
            out[k] = Move(base + D as u32 * s + d as u32);
            k += ((set >> s) & 1) as usize;
        }
    }
    out.truncate(k);
}

pub(crate) use gdl_runtime::lifted::Bits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoms_of_terms() {
        assert_eq!(term_atoms("( Move 1  2 )").unwrap(), ["move", "1", "2"]);
        assert_eq!(term_atoms("NOOP").unwrap(), ["noop"]);
        assert!(term_atoms("(a (b))").is_err());
        assert!(term_atoms("a b").is_err());
        let terms = state_terms("(cell 1 1 x) (control o)").unwrap();
        assert_eq!(terms, [vec!["cell", "1", "1", "x"], vec!["control", "o"]]);
    }

    #[test]
    fn numbers_in_range() {
        assert_eq!(number("8", 1, 8), Some(8));
        assert_eq!(number("0", 0, 8), Some(0));
        assert_eq!(number("9", 1, 8), None);
        assert_eq!(number("08", 1, 8), None);
        assert_eq!(number("+1", 1, 8), None);
        assert_eq!(number("x", 1, 8), None);
    }

    #[test]
    fn goals_from_values() {
        assert_eq!(goal_of([(false, 0), (true, 50)]), Goal::Value(50));
        assert_eq!(goal_of([(true, 50), (true, 50)]), Goal::Value(50));
        assert_eq!(goal_of([(true, 0), (true, 100)]), Goal::Ambiguous);
        assert_eq!(goal_of([(false, 0)]), Goal::None);
    }

    #[test]
    fn moves_in_id_order() {
        let mut out = vec![Move(99)];
        push_moves(&[0b101, 0b100, 0], 10, &mut out);
        assert_eq!(out, [Move(99), Move(10), Move(10 + 6), Move(10 + 6 + 1)]);
        out.clear();
        push_moves(&[0; 4], 0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn bits_in_order() {
        assert_eq!(Bits(0b1010_0001).collect::<Vec<_>>(), [0, 5, 7]);
        assert_eq!(Bits(1 << 63).collect::<Vec<_>>(), [63]);
    }
}
