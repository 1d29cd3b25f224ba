//! Mirror layouts: a relation read atom for atom by a relation over the same
//! arguments is laid out at its reader's bits.
//!
//! In our chess, `okmove(x1, y1, x2, y2)` is read by `legal(p, move(x1, y1,
//! x2, y2))`, `pm` and `pinbroken` (the same four arguments) by `okmove`.
//! Laid out in their own grounding orders, no word of one lines up with a
//! word of another, so every `legal` and `okmove` atom is a statement of its
//! own. Laid out at the bits of the `legal` atom they lead to, the members of
//! a word of each read the same bits of the same words, and the printer's
//! families ([`super::families`]) compute them a word at a time.
//!
//! The reader is the atom that reads the mirrored atom with the same
//! arguments once compound arguments are opened, one more allowed (the
//! role); a chain of such readers ends at the relation every link is laid
//! out at (its *leader*). A mirrored relation is computed at one level,
//! and its leader at one: split over the levels of their grounding, the
//! members of one word were in different groups and fewer families formed
//! (our chess ran 6.5% more instructions a playout). Each atom keeps its own
//! demand: with a relation's demands united, Chinese checkers' moves, each
//! needed on its role's turn only, were computed on every turn (13% more).

use rustc_hash::{FxHashMap, FxHashSet};

use super::classes;
use super::relayout::split;
use crate::ground::GroundProgram;

/// Fewest atoms a relation needs to be mirrored, and fewest a mirror lays
/// out: below a word of atoms, there is no word to line up.
pub const MIN_MIRRORED: usize = 64;

/// Most links followed from an atom to its leader (a chain longer than
/// this, or a cycle, is not mirrored). Our chess's longest chain is two.
const MAX_CHAIN: usize = 8;

/// The relations laid out at another's bits.
#[derive(Debug, Default, Clone)]
pub struct Mirrors {
    /// Every atom on a mirror's chain: the atoms moved, the atoms between
    /// them and their leaders, and the leaders. Their readers do not
    /// inline them, so that each stays a word operation over the others.
    pub atoms: FxHashSet<u32>,
    /// The atoms computed at one level ([`super::levels`]): each mirrored
    /// relation's, and each leader relation's.
    pub units: Vec<Vec<u32>>,
    /// A line per mirror, for the bitnet's summary.
    pub lines: Vec<String>,
}

/// The relation of atom `a`.
fn relation(gp: &GroundProgram, a: u32) -> &str {
    classes::relation(&gp.atom_text[a as usize])
}

/// Atom `b`'s arguments, compound ones opened.
fn opened(gp: &GroundProgram, b: u32) -> Vec<&str> {
    let mut flat = Vec::new();
    for x in split(&gp.atom_text[b as usize]).1 {
        if x.starts_with('(') {
            flat.extend(split(x).1);
        } else {
            flat.push(x);
        }
    }
    flat
}

/// Whether `b`'s opened arguments are `a`'s, or `a`'s with one more
/// inserted.
fn covers(gp: &GroundProgram, a: u32, b: u32) -> bool {
    let a = split(&gp.atom_text[a as usize]).1;
    let b = opened(gp, b);
    match b.len().checked_sub(a.len()) {
        Some(0) => a == b,
        Some(1) => (0..b.len()).any(|k| b[..k] == a[..k] && b[k + 1..] == a[k..]),
        _ => false,
    }
}

/// Per derived atom laid out in turn (`in_turn`) of a relation of at least
/// [`MIN_MIRRORED`] such atoms, its reader: the atom of one other relation
/// covering its arguments, the first laid out, where that relation reads at
/// least half the atoms. Texts are split and rules read only where some
/// relation is that large: most games have none, and a compile builds
/// several layouts.
fn readers_of(gp: &GroundProgram, derived_pos: &[u32], in_turn: &[bool]) -> FxHashMap<u32, u32> {
    let ni = gp.num_inputs;
    let mut by_rel: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for a in ni..gp.num_atoms() {
        // `(rel arg ...)`: a relation with arguments.
        let text = &gp.atom_text[a as usize];
        if in_turn[(a - ni) as usize] && text.starts_with('(') && text.contains(' ') {
            by_rel.entry(relation(gp, a)).or_default().push(a);
        }
    }
    by_rel.retain(|_, atoms| atoms.len() >= MIN_MIRRORED);
    let mut reader = FxHashMap::default();
    if by_rel.is_empty() {
        return reader;
    }
    let candidates: FxHashSet<u32> = by_rel.values().flatten().copied().collect();
    let mut heads: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for rule in &gp.rules {
        for l in rule
            .body
            .iter()
            .filter(|l| candidates.contains(&l.atom().0))
        {
            let e = heads.entry(l.atom().0).or_default();
            if !e.contains(&rule.head.0) {
                e.push(rule.head.0);
            }
        }
    }
    let pos = |h: u32| derived_pos[(h - ni) as usize];
    let mut rels: Vec<_> = by_rel.into_iter().collect();
    rels.sort_unstable();
    for (rel, atoms) in rels {
        // Per reading relation, the atoms it covers with their first reader.
        let mut pairs: FxHashMap<&str, Vec<(u32, u32)>> = FxHashMap::default();
        for &a in &atoms {
            let mut first: FxHashMap<&str, u32> = FxHashMap::default();
            for &h in heads.get(&a).map_or(&[][..], |v| &v[..]) {
                if relation(gp, h) != rel && covers(gp, a, h) {
                    let e = first.entry(relation(gp, h)).or_insert(h);
                    if pos(h) < pos(*e) {
                        *e = h;
                    }
                }
            }
            for (r, h) in first {
                pairs.entry(r).or_default().push((a, h));
            }
        }
        let best = pairs
            .into_iter()
            .max_by_key(|(r, p)| (p.len(), std::cmp::Reverse(*r)));
        if let Some((_, pairs)) = best.filter(|(_, p)| 2 * p.len() >= atoms.len()) {
            reader.extend(pairs);
        }
    }
    reader
}

/// Lays out each relation with readers ([`readers_of`]) in words of its own
/// from `next_free`, each atom at its leader's bit; returns the mirrors and
/// the next free position. An atom whose leader's bit another atom of its
/// relation already takes keeps its place.
pub fn mirror_words(
    gp: &GroundProgram,
    derived_pos: &mut [u32],
    next_free: u32,
    in_turn: &[bool],
) -> (Mirrors, u32) {
    let ni = gp.num_inputs;
    let reader = readers_of(gp, derived_pos, in_turn);
    // Per atom, its chain to its leader (the leader last).
    let chain = |a: u32| {
        let mut path = vec![a];
        while let Some(&b) = reader.get(path.last().expect("a chain starts at its atom")) {
            if path.len() > MAX_CHAIN || path.contains(&b) {
                return None;
            }
            path.push(b);
        }
        Some(path)
    };
    let mut groups: std::collections::BTreeMap<(&str, &str), Vec<Vec<u32>>> = Default::default();
    let mut keys: Vec<u32> = reader.keys().copied().collect();
    keys.sort_unstable();
    for a in keys {
        if let Some(path) = chain(a) {
            let leader = *path.last().expect("a chain has a leader");
            groups
                .entry((relation(gp, a), relation(gp, leader)))
                .or_default()
                .push(path);
        }
    }
    let mut mirrors = Mirrors::default();
    let mut next_free = next_free;
    let mut leaders_done: Vec<&str> = Vec::new();
    for ((rel, leader), mut paths) in groups {
        let mut taken = FxHashSet::default();
        paths.retain(|p| taken.insert(p[p.len() - 1]));
        if paths.len() < MIN_MIRRORED {
            continue;
        }
        // A leader has no reader of its own: it stays where it is.
        let at: Vec<u32> = (paths.iter())
            .map(|p| derived_pos[(p[p.len() - 1] - ni) as usize])
            .collect();
        let lo = at.iter().min().map_or(0, |p| p >> 6);
        let hi = at.iter().max().map_or(0, |p| p >> 6);
        let base = next_free.div_ceil(64) * 64;
        for (p, at) in paths.iter().zip(at) {
            derived_pos[(p[0] - ni) as usize] = base + at - lo * 64;
            mirrors.atoms.extend(p.iter().copied());
        }
        mirrors.units.push(paths.iter().map(|p| p[0]).collect());
        if !leaders_done.contains(&leader) {
            leaders_done.push(leader);
            let mut lead: Vec<u32> = paths.iter().map(|p| p[p.len() - 1]).collect();
            lead.sort_unstable();
            mirrors.units.push(lead);
        }
        mirrors.lines.push(format!(
            "mirror: {} {rel} atoms at {leader}'s bits, words {}..{}",
            paths.len(),
            base / 64,
            base / 64 + hi - lo + 1
        ));
        next_free = base + (hi - lo + 1) * 64;
    }
    (mirrors, next_free)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{net, pos};
    use super::super::Params;

    /// `ok(x, y, c)` read by `legal(p, (put x y c))`: 72 atoms.
    const PUT: &str = include_str!("../../tests/fixtures/mirrors.kif");

    #[test]
    fn a_relation_read_by_legal_lies_at_legals_bits() {
        let (gp, net) = net(PUT, &Params::COMPILED);
        let lines = &net.layout.mirrors.lines;
        assert!(
            lines
                .iter()
                .any(|l| l.contains("72 ok atoms at legal's bits")),
            "{lines:?}"
        );
        let mut offsets = Vec::new();
        for x in 1..=6 {
            for y in 1..=4 {
                for c in 1..=3 {
                    let ok = pos(&gp, &net, &format!("(ok {x} {y} c{c})"));
                    let legal = pos(&gp, &net, &format!("(legal red (put {x} {y} c{c}))"));
                    assert_eq!(ok % 64, legal % 64, "(ok {x} {y} c{c})");
                    offsets.push(ok / 64 - legal / 64);
                }
            }
        }
        // One distance in words: a word of `legal` reads one word of `ok`.
        offsets.dedup();
        assert_eq!(offsets.len(), 1, "{offsets:?}");
    }

    #[test]
    fn the_propnet_mirrors_nothing() {
        let (_, net) = net(PUT, &Params::PROPNET);
        assert!(net.layout.mirrors.lines.is_empty());
        assert!(net.layout.mirrors.atoms.is_empty());
    }
}
