//! Planes: the atoms of one relation over a board, laid out like the board
//! and computed word-parallel.
//!
//! A board game's derived relations are mostly per square: `occupied(x, y)`,
//! a ray `hasOtherColorInDir(x, y, dir)`, a move `canMoveAt(color, x, y)`.
//! Each such atom is *anchored* at a fluent bit (the square's first `cell`
//! fluent): the bit of a literal all its rules share, or the lowest fluent
//! its rules read. Atoms of one relation whose rules have the same shapes
//! (every literal at the same distance from the anchor) form a *class*; the
//! layout places a class's atoms at their anchors in words of their own (a
//! plane), so that a rule shape is the same shift for every member. A class
//! whose final bodies stay regular is then computed as a whole: per plane
//! word, an OR over its rule shapes of the AND of windows of the value
//! vector, masked with the members having that shape. A class reading
//! itself (a ray: each square's atom reads its neighbour's) is one
//! recursive unit, iterated to its fixpoint a word at a time instead of an
//! atom at a time.

use std::collections::{BTreeMap, HashMap};

use super::conj::Conj;
use crate::ground::{AtomId, GroundProgram};

/// Members a class needs to be laid out as a plane.
pub const MIN_PLANE_MEMBERS: usize = 8;

/// Members a plane word needs on average to be computed word by word: the
/// atoms one by one sit under tests of the side to move or of a piece on
/// their square, which skip most of a sparse class.
pub const MIN_WORD_MEMBERS: usize = 8;

/// Widest plane, in words: a class spread over more of the state would
/// cost more words of the value vector than its word operations save.
pub const MAX_PLANE_WORDS: u32 = 4;

/// A literal of a class's rule: a fluent, a derived atom of a relation
/// (both at a distance from the anchor), or one fixed atom read by every
/// member (no anchor of its own).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum LitKey {
    Fluent(i64, bool),
    Derived(u32, i64, bool),
    Fixed(u32, bool),
}

/// The classes of a ground program, found from its rules.
#[derive(Clone, Debug, Default)]
pub struct Classes {
    /// Per derived atom (`atom - inputs`), its anchor: a fluent's bit.
    pub anchor: Vec<Option<u32>>,
    /// The classes: derived atom ids of distinct anchors.
    pub classes: Vec<Vec<u32>>,
}

/// The relation name of an atom's text: `(rel a b)` or `rel`.
fn relation(text: &str) -> &str {
    let t = text.trim_start_matches('(');
    t.split([' ', ')']).next().unwrap_or(t)
}

/// Finds the anchors and classes of `gp`'s derived atoms. Atoms reading a
/// move are left out: `does` bits are not laid out like the board.
pub fn classes(gp: &GroundProgram) -> Classes {
    let (ni, nf) = (gp.num_inputs, gp.fluents.len() as u32);
    let mut anchor: Vec<Option<u32>> = vec![None; gp.num_derived() as usize];
    let mut names: HashMap<&str, u32> = HashMap::new();
    // (relation, rule shape) -> the first atom with it: atoms sharing one
    // are one class.
    let mut first: HashMap<(u32, Vec<LitKey>), u32> = HashMap::new();
    let mut parent: Vec<u32> = (0..gp.num_derived()).collect();
    for a in ni..gp.num_atoms() {
        let i = (a - ni) as usize;
        let rules = gp.rules_of(AtomId(a));
        let reads_move =
            |r: &crate::ground::GroundRule| r.body.iter().any(|l| (nf..ni).contains(&l.atom().0));
        if rules.is_empty() || rules.iter().any(reads_move) {
            continue;
        }
        let anchor_of = |b: u32| anchor_at(&anchor, b, nf, ni);
        let common = rules[0]
            .body
            .iter()
            .filter(|l| rules[1..].iter().all(|r| r.body.contains(l)))
            .find_map(|l| anchor_of(l.atom().0));
        let lowest = rules
            .iter()
            .flat_map(|r| r.body.iter())
            .map(|l| l.atom().0)
            .filter(|&b| b < nf)
            .min();
        let Some(anc) = common.or(lowest) else {
            continue;
        };
        anchor[i] = Some(anc);
        let anchor_of = |b: u32| anchor_at(&anchor, b, nf, ni);
        let next_name = names.len() as u32;
        let rel = *names
            .entry(relation(&gp.atom_text[a as usize]))
            .or_insert(next_name);
        let shapes: Vec<Vec<LitKey>> = rules
            .iter()
            .map(|rule| {
                let mut shape: Vec<LitKey> = rule
                    .body
                    .iter()
                    .map(|l| {
                        let (b, neg) = (l.atom().0, l.is_negated());
                        match anchor_of(b) {
                            Some(x) if b < nf => LitKey::Fluent(i64::from(x) - i64::from(anc), neg),
                            Some(x) => {
                                let n = relation(&gp.atom_text[b as usize]);
                                let tag = names.get(n).copied().unwrap_or(u32::MAX);
                                LitKey::Derived(tag, i64::from(x) - i64::from(anc), neg)
                            }
                            None => LitKey::Fixed(b, neg),
                        }
                    })
                    .collect();
                shape.sort_unstable();
                shape
            })
            .collect();
        // A recursive atom's class is that of its recursive rules: the base
        // rules of a ray are symmetric (two cells of opposite colours), the
        // same for opposite directions, whose anchors collide.
        let recursive = |sh: &Vec<LitKey>| {
            sh.iter()
                .any(|k| matches!(k, LitKey::Derived(t, _, _) if *t == rel))
        };
        let any_recursive = shapes.iter().any(recursive);
        for shape in shapes {
            if any_recursive && !recursive(&shape) {
                continue;
            }
            let j = *first.entry((rel, shape)).or_insert(a - ni);
            union(&mut parent, i as u32, j);
        }
    }
    Classes {
        classes: collect_classes(&mut parent, &anchor, ni),
        anchor,
    }
}

/// The anchor of atom `b`: its own bit for a fluent, none for a move.
fn anchor_at(anchor: &[Option<u32>], b: u32, nf: u32, ni: u32) -> Option<u32> {
    if b < nf {
        Some(b)
    } else if b >= ni {
        anchor[(b - ni) as usize]
    } else {
        None
    }
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// The groups of anchored atoms, kept when large enough and their anchors
/// distinct.
fn collect_classes(parent: &mut [u32], anchor: &[Option<u32>], ni: u32) -> Vec<Vec<u32>> {
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for i in 0..anchor.len() as u32 {
        if anchor[i as usize].is_some() {
            let r = find(parent, i);
            groups.entry(r).or_default().push(i);
        }
    }
    groups
        .into_values()
        .filter(|g| g.len() >= MIN_PLANE_MEMBERS)
        .filter(|g| {
            let mut a: Vec<u32> = g.iter().filter_map(|&i| anchor[i as usize]).collect();
            a.sort_unstable();
            a.dedup();
            a.len() == g.len()
        })
        .map(|g| g.into_iter().map(|i| i + ni).collect())
        .collect()
}

/// A literal of a plane word's rule shape: the 64 bits of the value vector
/// from bit `start` (negative: below the vector), negated or not.
pub type Window = (i64, bool);

/// One rule shape of a plane word: the windows to AND, and the members (bits
/// of the word) whose atom has a rule of that shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeMask {
    /// The windows.
    pub windows: Vec<Window>,
    /// The members having it.
    pub mask: u64,
}

/// A word of a plane, computed as an OR of masked ANDs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaneWord {
    /// The word of the value vector.
    pub word: u32,
    /// Its rule shapes.
    pub shapes: Vec<ShapeMask>,
}

/// The plane words computing `atoms` (bit position and final bodies), if
/// their bodies are regular enough for word operations to pay: every body a
/// plain conjunction, at least two members per rule shape and word on
/// average, and [`MIN_WORD_MEMBERS`] per word.
pub fn plane_words(atoms: &[(u32, Vec<Conj>)]) -> Option<Vec<PlaneWord>> {
    let mut words: BTreeMap<u32, BTreeMap<Vec<Window>, u64>> = BTreeMap::new();
    for (pos, conjs) in atoms {
        if conjs.is_empty() || conjs.iter().any(|c| !c.any.is_empty() || c.lits.is_empty()) {
            return None;
        }
        let word_base = i64::from(pos & !63);
        let shapes = words.entry(pos >> 6).or_default();
        for c in conjs {
            let mut w: Vec<Window> = c
                .lits
                .iter()
                .map(|&(p, neg)| (i64::from(p) - i64::from(*pos) + word_base, neg))
                .collect();
            w.sort_unstable();
            *shapes.entry(w).or_default() |= 1 << (pos & 63);
        }
    }
    let pairs: usize = words.values().map(BTreeMap::len).sum();
    if pairs * 2 > atoms.len() || atoms.len() < MIN_WORD_MEMBERS * words.len() {
        return None;
    }
    Some(
        words
            .into_iter()
            .map(|(word, shapes)| PlaneWord {
                word,
                shapes: shapes
                    .into_iter()
                    .map(|(windows, mask)| ShapeMask { windows, mask })
                    .collect(),
            })
            .collect(),
    )
}

/// A class computed as one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plane {
    /// The first atom of its class (the class's name in
    /// [`super::layout::Layout::with_planes`]).
    pub class: u32,
    /// Its atoms (ids).
    pub atoms: Vec<u32>,
    /// Whether an atom of the class reads one of the class: then the unit
    /// is iterated to its fixpoint.
    pub cyclic: bool,
}

/// The classes the layout placed whose final bodies are regular
/// ([`plane_words`]) and whose components lie within the class: each is
/// then one unit.
pub fn regular(
    gp: &GroundProgram,
    layout: &super::layout::Layout,
    bodies: &super::Bodies,
) -> Vec<Plane> {
    let ni = gp.num_inputs;
    let mut comp_of = vec![usize::MAX; gp.num_derived() as usize];
    for (k, c) in gp.components.iter().enumerate() {
        for a in c.start..c.end {
            comp_of[(a - ni) as usize] = k;
        }
    }
    let mut out = Vec::new();
    for class in &layout.planes {
        let atoms: Vec<u32> = class
            .iter()
            .copied()
            .filter(|&a| !bodies[(a - ni) as usize].is_empty())
            .collect();
        let within = atoms.iter().all(|&a| {
            let c = &gp.components[comp_of[(a - ni) as usize]];
            (c.start..c.end).all(|b| class.contains(&b))
        });
        let with_bodies: Vec<(u32, Vec<Conj>)> = atoms
            .iter()
            .map(|&a| (layout.pos(AtomId(a)), bodies[(a - ni) as usize].clone()))
            .collect();
        if atoms.len() < MIN_PLANE_MEMBERS || !within || plane_words(&with_bodies).is_none() {
            continue;
        }
        let positions: std::collections::HashSet<u32> =
            with_bodies.iter().map(|(p, _)| *p).collect();
        let cyclic = with_bodies
            .iter()
            .flat_map(|(_, c)| c)
            .flat_map(|c| &c.lits)
            .any(|(p, _)| positions.contains(p));
        out.push(Plane {
            class: class[0],
            atoms,
            cyclic,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conj(lits: &[(u32, bool)]) -> Conj {
        Conj {
            lits: lits.to_vec(),
            any: Vec::new(),
        }
    }

    /// "Both bits of a pair set" over eight pairs at bits 200..216, read
    /// from bits 0..16: one word, one shape, the window of bit 0 and of
    /// bit 1 relative to the plane word.
    #[test]
    fn a_regular_relation_is_one_shape_per_word() {
        let atoms: Vec<(u32, Vec<Conj>)> = (0..8)
            .map(|k| {
                (
                    192 + 2 * k,
                    vec![conj(&[(2 * k, false), (2 * k + 1, false)])],
                )
            })
            .collect();
        let words = plane_words(&atoms).expect("regular");
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].word, 3);
        assert_eq!(words[0].shapes.len(), 1);
        assert_eq!(words[0].shapes[0].windows, vec![(0, false), (1, false)]);
        assert_eq!(words[0].shapes[0].mask, 0x5555);
    }

    /// Atoms whose bodies all differ are not worth a plane.
    #[test]
    fn irregular_bodies_are_refused() {
        let atoms: Vec<(u32, Vec<Conj>)> = (0..8)
            .map(|k| (192 + k, vec![conj(&[(3 * k * k, false)])]))
            .collect();
        assert!(plane_words(&atoms).is_none());
    }

    /// In the one-row reversi, the ray `flank` is one recursive plane and
    /// `taken` one plane read by others; the propnet keeps its units.
    #[test]
    fn a_ray_is_one_recursive_plane() {
        use crate::bitnet::testing::{atom, net};
        use crate::bitnet::Params;
        const RAYS: &str = include_str!("../../tests/games/rays.kif");
        let (gp, n) = net(RAYS, &Params::COMPILED);
        let plane_of = |t: &str| {
            let a = atom(&gp, t);
            n.planes.iter().find(|p| p.atoms.contains(&a))
        };
        let flank = plane_of("(flank a)").expect("flank is a plane");
        assert!(flank.cyclic);
        assert!(flank.atoms.contains(&atom(&gp, "(flank m)")));
        let taken = plane_of("(taken a)").expect("taken is a plane");
        assert!(!taken.cyclic);
        assert_eq!(taken.atoms.len(), 16);
        // A plane's atoms lie at their anchors: `(taken c)` two bits
        // (the fluents of cell b) above `(taken b)`.
        let pos = |t: &str| n.layout.pos(AtomId(atom(&gp, t)));
        assert_eq!(pos("(taken c)") - pos("(taken b)"), 2);
        // One level for the whole ray, above what it reads.
        let level = |t: &str| n.level[(atom(&gp, t) - gp.num_inputs) as usize];
        assert_eq!(level("(flank a)"), level("(flank m)"));
        assert!(level("(canput x f)") > level("(flank a)"));
        let (_, propnet) = net(RAYS, &Params::PROPNET);
        assert!(propnet.planes.is_empty());
    }

    #[test]
    fn relation_names() {
        assert_eq!(relation("(empty 1 2)"), "empty");
        assert_eq!(relation("terminal"), "terminal");
    }
}
