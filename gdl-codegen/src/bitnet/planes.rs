//! Planes: the atoms of one relation over a board, laid out like the board
//! and computed word-parallel.
//!
//! A board game's derived relations are mostly per square: `occupied(x, y)`,
//! a ray `hasOtherColorInDir(x, y, dir)`, a move `canMoveAt(color, x, y)`.
//! Each such atom is *anchored* at a fluent bit (the square's first `cell`
//! fluent): the bit of a literal all its rules share, or the lowest fluent
//! its rules read. Atoms of one relation whose rules have the same shapes
//! (every literal at the same distance from the anchor) form a *class*
//! ([`super::classes`] finds them); the layout places a class's atoms at their anchors in words of their own (a
//! plane), so that a rule shape is the same shift for every member. A class
//! whose final bodies stay regular is then computed as a whole: per plane
//! word, an OR over its rule shapes of the AND of windows of the value
//! vector, masked with the members having that shape. A class reading
//! itself (a ray: each square's atom reads its neighbour's) is one
//! recursive unit, iterated to its fixpoint a word at a time instead of an
//! atom at a time. A move that places a piece is copied to its square's bit
//! (a move plane), so that rays seeded by the move are classes too.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::{FxHashMap, FxHashSet};

use super::conj::Conj;
use super::families::{word_shape, MIN_GATHERED};
use super::layout::TRUE_BIT;
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

/// The words a class with `anchors` (one per member) would span as a
/// plane: its first state word and number of words, or `None` when it
/// spans more than [`MAX_PLANE_WORDS`] or has too few members per word.
pub fn plane_span(anchors: &[u32]) -> Option<(u32, u32)> {
    let lo = anchors.iter().min().map_or(0, |a| a >> 6);
    let hi = anchors.iter().max().map_or(0, |a| a >> 6);
    let n = hi - lo + 1;
    (n <= MAX_PLANE_WORDS && anchors.len() >= MIN_WORD_MEMBERS * n as usize).then_some((lo, n))
}

/// Derived atoms, each with the bit of the fluent of its square.
pub type SquareGroup = Vec<(u32, u32)>;

/// The derived atoms of a relaid program that name a square of its board,
/// by relation: each with the bit of a fluent of the same arguments
/// (`(affected c 3)` at `(capturingPiece c 3)`), of one functor. The
/// layout moves there those it places in turn, with no plane of their own:
/// atoms set by the joint move alone (the squares a move touches) have no
/// anchor from their rules, and laid out at these bits they lie on the
/// board like the fluents they are read with.
///
/// Of the functors, the one kept has the most atoms read with a fluent a
/// whole number of words from their bit (see [`read_in_step`]): those are
/// the reads the printer then makes by one word operation. It needs as
/// many as a gathered family ([`MIN_GATHERED`]), at distinct bits within
/// [`MAX_PLANE_WORDS`]: with fewer, the printer reads them bit by bit
/// wherever they lie, and their plane only takes a word more (read at one
/// distance by 8 to 15 atoms, such planes cost two games 1.9% and 2.7% more
/// instructions). Fluents whose arguments only begin with the atom's
/// (`(cell c 3 white pawn)`) are not used: they reached more games, and
/// cost queens and Chinese checkers boards 2.9% to 5.3%.
pub fn text_anchored(gp: &GroundProgram) -> Vec<SquareGroup> {
    if gp.logical.is_none() {
        return Vec::new();
    }
    // Per argument list (as text), the lowest fluent of each functor with it.
    let mut at: FxHashMap<&str, BTreeMap<&str, u32>> = FxHashMap::default();
    for (b, text) in gp.fluents.iter().enumerate() {
        if let Some((functor, args)) = functor_and_args(text) {
            at.entry(args)
                .or_default()
                .entry(functor)
                .or_insert(b as u32);
        }
    }
    let mut groups: BTreeMap<(&str, usize, &str), SquareGroup> = BTreeMap::new();
    for a in gp.num_inputs..gp.num_atoms() {
        let text = &gp.atom_text[a as usize];
        let Some((rel, args)) = functor_and_args(text) else {
            continue;
        };
        let Some(fluents) = at.get(args) else {
            continue;
        };
        let arity = super::relayout::split(text).1.len();
        for (&f, &bit) in fluents {
            groups.entry((rel, arity, f)).or_default().push((a, bit));
        }
    }
    let mut best: BTreeMap<(&str, usize), (usize, SquareGroup)> = BTreeMap::new();
    for ((rel, arity, _), g) in groups {
        let mut bits: Vec<u32> = g.iter().map(|m| m.1).collect();
        bits.sort_unstable();
        bits.dedup();
        if bits.len() != g.len() || g.len() < MIN_GATHERED || plane_span(&bits).is_none() {
            continue;
        }
        let read = read_in_step(gp, &g);
        let kept = best.entry((rel, arity)).or_insert((0, Vec::new()));
        if read >= MIN_GATHERED && read > kept.0 {
            *kept = (read, g);
        }
    }
    best.into_values()
        .filter(|(read, _)| *read > 0)
        .map(|(_, g)| g)
        .collect()
}

/// A compound term's functor and the text of its arguments: `(cell c 3
/// b)` is `cell` and `c 3 b`. Compared as text, without splitting the
/// arguments, since every derived atom is looked up.
fn functor_and_args(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    inner.split_once(' ')
}

/// The most atoms of `group` (atom, bit) that some rule reads with a fluent
/// at one distance from the atom's bit, a whole number of words: the same
/// bit of another word, read by one word operation. At other distances a
/// plane of more than a word's squares is read by a shift per part, which
/// cost a 10-by-10 board 0.4% more instructions.
fn read_in_step(gp: &GroundProgram, group: &[(u32, u32)]) -> usize {
    let bit: FxHashMap<u32, u32> = group.iter().copied().collect();
    let nf = gp.fluents.len() as u32;
    let mut read: FxHashMap<i64, FxHashSet<u32>> = FxHashMap::default();
    for rule in &gp.rules {
        for l in &rule.body {
            let Some(&b) = bit.get(&l.atom().0) else {
                continue;
            };
            for f in rule.body.iter().map(|l| l.atom().0).filter(|&f| f < nf) {
                let d = i64::from(f) - i64::from(b);
                if d % 64 == 0 {
                    read.entry(d).or_default().insert(l.atom().0);
                }
            }
        }
    }
    read.values().map(FxHashSet::len).max().unwrap_or(0)
}

/// A literal of a plane word's rule shape: the 64 bits of the value vector
/// from bit `start` (negative: below the vector), negated or not.
pub type Window = (i64, bool);

/// One rule shape of a plane word: the windows to AND, the bits every
/// member reads at the same place (each all ones or all zeros over the
/// word), and the members (bits of the word) whose atom has a rule of that
/// shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeMask {
    /// The windows.
    pub windows: Vec<Window>,
    /// The fixed bits (position, negated): a frame rule's "this side
    /// moved", the same bit for every square.
    pub fixed: Vec<(u32, bool)>,
    /// The members having it.
    pub mask: u64,
}

impl ShapeMask {
    /// Its cost in word operations: a window or fixed bit each, and the
    /// mask.
    pub fn ops(&self) -> usize {
        self.windows.len() + self.fixed.len() + 1
    }
}

/// A word of a plane, computed as an OR of masked ANDs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaneWord {
    /// The word of the value vector.
    pub word: u32,
    /// Its rule shapes.
    pub shapes: Vec<ShapeMask>,
}

/// A rule shape's literals: windows relative to the plane word, and fixed
/// bits.
type ShapeKey = (Vec<Window>, Vec<(u32, bool)>);

/// The plane words computing `atoms` (bit position and final bodies), if
/// their bodies are regular enough for word operations to pay: every body a
/// plain conjunction, at least two members per rule shape and word on
/// average, and [`MIN_WORD_MEMBERS`] per word.
///
/// A literal is read as a window (at the same distance from every member)
/// unless more members read its bit than read it at its distance, and at
/// least [`MIN_WORD_MEMBERS`]: then it is a fixed bit, broadcast over the
/// word. (A bit read by a few members only, one disk of Hanoi's for its
/// pegs' frame rules, splits the plane into shapes of a few members each;
/// atom by atom, those members share a guard on it instead.)
pub fn plane_words(atoms: &[(u32, Vec<Conj>)]) -> Option<Vec<PlaneWord>> {
    if atoms.iter().any(|(_, conjs)| {
        conjs.is_empty()
            || conjs.iter().any(|c| {
                !c.any.is_empty() || c.lits.is_empty() || c.lits.iter().any(|l| l.0 >= TRUE_BIT)
            })
    }) {
        return None;
    }
    let window = |pos: u32, p: u32| i64::from(p) - i64::from(pos) + i64::from(pos & !63);
    // Members reading each bit, and each window of each word.
    let mut by_bit: HashMap<u32, u32> = HashMap::new();
    let mut by_window: HashMap<(u32, i64), u32> = HashMap::new();
    for (pos, conjs) in atoms {
        let mut bits: Vec<u32> = conjs
            .iter()
            .flat_map(|c| c.lits.iter().map(|l| l.0))
            .collect();
        bits.sort_unstable();
        bits.dedup();
        for p in bits {
            *by_bit.entry(p).or_default() += 1;
            *by_window.entry((pos >> 6, window(*pos, p))).or_default() += 1;
        }
    }
    let mut words: BTreeMap<u32, BTreeMap<ShapeKey, u64>> = BTreeMap::new();
    for (pos, conjs) in atoms {
        let shapes = words.entry(pos >> 6).or_default();
        for c in conjs {
            let (mut w, mut fixed) = (Vec::new(), Vec::new());
            for &(p, neg) in &c.lits {
                let at = window(*pos, p);
                let readers = by_bit[&p];
                if readers > by_window[&(pos >> 6, at)] && readers as usize >= MIN_WORD_MEMBERS {
                    fixed.push((p, neg));
                } else {
                    w.push((at, neg));
                }
            }
            w.sort_unstable();
            fixed.sort_unstable();
            *shapes.entry((w, fixed)).or_default() |= 1 << (pos & 63);
        }
    }
    // Members per shape: the rule bodies of all members (each in one
    // shape), over the shapes of all words.
    let pairs: usize = words.values().map(BTreeMap::len).sum();
    let bodies: u32 = words
        .values()
        .flat_map(|w| w.values())
        .map(|m| m.count_ones())
        .sum();
    if pairs * 2 > bodies as usize || atoms.len() < MIN_WORD_MEMBERS * words.len() {
        return None;
    }
    Some(
        words
            .into_iter()
            .map(|(word, shapes)| PlaneWord {
                word,
                shapes: shapes
                    .into_iter()
                    .map(|((windows, fixed), mask)| ShapeMask {
                        windows,
                        fixed,
                        mask,
                    })
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
    /// Whether its atoms read moves (from their move planes).
    pub reads_moves: bool,
}

/// `c` reading each `does` bit that has a move plane from its move plane.
fn via_move_planes(c: &Conj, layout: &super::layout::Layout) -> (Conj, bool) {
    let does = layout.does_bits();
    let mut moved = false;
    let lits = c
        .lits
        .iter()
        .map(|&(p, neg)| {
            if !does.contains(&p) {
                return (p, neg);
            }
            let r = layout
                .role_moves
                .iter()
                .rposition(|&(start, _)| start <= p)
                .unwrap_or(0);
            match layout.move_plane_bit(r, p - layout.role_moves[r].0) {
                Some(b) => {
                    moved = true;
                    (b, neg)
                }
                None => (p, neg),
            }
        })
        .collect();
    (
        Conj {
            lits,
            any: c.any.clone(),
        },
        moved,
    )
}

/// `conjs` without the bodies another body's literals are a subset of
/// (`a | (a & !b)` is `a`): a frame rule kept "unless a move" and also
/// kept outright would otherwise cost a shape, and a move plane, for
/// nothing.
fn absorbed(conjs: &[Conj]) -> Vec<Conj> {
    let plain = |c: &Conj| c.any.is_empty();
    let covers =
        |a: &Conj, b: &Conj| plain(a) && plain(b) && a.lits.iter().all(|l| b.lits.contains(l));
    conjs
        .iter()
        .enumerate()
        .filter(|&(i, c)| {
            !conjs
                .iter()
                .enumerate()
                .any(|(j, d)| j != i && covers(d, c) && (d.lits.len() < c.lits.len() || j < i))
        })
        .map(|(_, c)| c.clone())
        .collect()
}

/// The classes the layout placed whose final bodies are regular
/// ([`plane_words`]), whose components lie within the class, and which are
/// not word families already ([`super::families`]): each is then one unit.
/// Their bodies read moves from the move planes.
pub fn regular(
    gp: &GroundProgram,
    layout: &super::layout::Layout,
    bodies: &mut super::Bodies,
) -> Vec<Plane> {
    let ni = gp.num_inputs;
    let comp_of = gp.component_of();
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
        let mut reads_moves = false;
        let with_bodies: Vec<(u32, Vec<Conj>)> = atoms
            .iter()
            .map(|&a| {
                let conjs = absorbed(&bodies[(a - ni) as usize])
                    .iter()
                    .map(|c| {
                        let (c, moved) = via_move_planes(c, layout);
                        reads_moves |= moved;
                        c
                    })
                    .collect();
                (layout.pos(AtomId(a)), conjs)
            })
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
        // One conjunction within one word each: the families of the level
        // compute these already (as one masked shift of the word).
        let family = with_bodies.iter().all(
            |(_, c)| matches!(&c[..], [c] if c.any.is_empty() && word_shape(&c.lits).is_some()),
        );
        if !cyclic && family {
            continue;
        }
        for (&a, (_, conjs)) in atoms.iter().zip(with_bodies) {
            bodies[(a - ni) as usize] = conjs;
        }
        out.push(Plane {
            class: class[0],
            atoms,
            cyclic,
            reads_moves,
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

    /// Members of many rules each (reversi's `affectedCell`, one rule per
    /// direction and colour): regular when each shape has two members on
    /// average, however many shapes a member has.
    #[test]
    fn atoms_of_many_rules_are_counted_by_their_bodies() {
        let atoms: Vec<(u32, Vec<Conj>)> = (0..8)
            .map(|k| {
                let bodies = (0..5).map(|d| conj(&[(64 * d + k, false)])).collect();
                (640 + k, bodies)
            })
            .collect();
        let words = plane_words(&atoms).expect("regular");
        assert_eq!(words[0].shapes.len(), 5);
        assert!(words[0].shapes.iter().all(|s| s.mask == 0xff));
    }

    /// A bit every member reads at the same place (a frame rule's "this
    /// side moved") is fixed, not a window: one shape for all.
    #[test]
    fn a_bit_read_by_every_member_is_fixed() {
        let atoms: Vec<(u32, Vec<Conj>)> = (0..8)
            .map(|k| (192 + 2 * k, vec![conj(&[(2 * k, false), (500, true)])]))
            .collect();
        let words = plane_words(&atoms).expect("regular");
        assert_eq!(words[0].shapes.len(), 1);
        assert_eq!(words[0].shapes[0].windows, vec![(0, false)]);
        assert_eq!(words[0].shapes[0].fixed, vec![(500, true)]);
        assert_eq!(words[0].shapes[0].mask, 0x5555);
    }

    /// A bit read by a few members only (one Hanoi disk's, for its pegs'
    /// frame rules) is not broadcast: each member reads it at another
    /// distance, so the bodies are not regular.
    #[test]
    fn a_bit_read_by_few_members_is_not_fixed() {
        let atoms: Vec<(u32, Vec<Conj>)> = (0..8)
            .map(|k| {
                (
                    192 + 2 * k,
                    vec![conj(&[(2 * k, false), (500 + k / 4, true)])],
                )
            })
            .collect();
        assert!(plane_words(&atoms).is_none());
    }

    /// A body implied by another of the same atom adds nothing.
    #[test]
    fn bodies_implied_by_others_are_absorbed() {
        let a = conj(&[(3, false)]);
        let a_not_b = conj(&[(3, false), (9, true)]);
        let c = conj(&[(4, false), (9, false)]);
        let twice = absorbed(&[a_not_b.clone(), a.clone(), c.clone(), a.clone()]);
        assert_eq!(twice, vec![a, c]);
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
        use crate::bitnet::testing::{atom, net, RAYS};
        use crate::bitnet::Params;
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
        // The flips a move seeds: a plane reading the move plane of `put`,
        // the end of the ray (`flipped o`, no recursive rule) in it.
        let flipped = plane_of("(flipped b)").expect("flipped is a plane");
        assert!(flipped.cyclic && flipped.reads_moves);
        assert!(flipped.atoms.contains(&atom(&gp, "(flipped o)")));
        let put = |p: usize, m: &str| {
            let mv = gp.moves[p].iter().position(|t| t == m).expect("a move") as u32;
            n.layout.move_plane_bit(p, mv).expect("anchored")
        };
        // `(put c)` is anchored at `(cell c x)` for x, `(cell c o)` for o.
        assert_eq!(put(0, "(put d)") - put(0, "(put c)"), 2);
        assert!(put(1, "(put c)") / 64 != put(0, "(put c)") / 64);
        let (_, propnet) = net(RAYS, &Params::PROPNET);
        assert!(propnet.planes.is_empty());
    }

    /// `next (cell ?i ?c)` keeps a cell not flipped and gives a flipped one
    /// to the side in control. Its atoms sit in `next`'s region as the
    /// cells do in the state, so they are a plane, computed after `flipped`;
    /// `(control x)`, the same bit for every cell, is read as a fixed bit.
    #[test]
    fn frame_rules_are_a_plane_with_fixed_bits() {
        use crate::bitnet::testing::{fluent, net, RAYS};
        use crate::bitnet::Params;
        use crate::ground::Output;
        let (gp, n) = net(RAYS, &Params::COMPILED);
        let Output::Atom(kept) = gp.next[fluent(&gp, "(cell c x)") as usize] else {
            panic!("next (cell c x) is an atom")
        };
        let plane = n
            .planes
            .iter()
            .find(|p| p.atoms.contains(&kept.0))
            .expect("next (cell ..) is a plane");
        assert!(!plane.cyclic);
        let bodies: Vec<(u32, Vec<Conj>)> = plane
            .atoms
            .iter()
            .map(|&a| (n.layout.pos(AtomId(a)), n.bodies_of(a).to_vec()))
            .collect();
        let words = plane_words(&bodies).expect("regular");
        let control = fluent(&gp, "(control x)");
        assert!(words
            .iter()
            .flat_map(|w| &w.shapes)
            .any(|s| s.fixed == vec![(control, false)]));
    }
}
