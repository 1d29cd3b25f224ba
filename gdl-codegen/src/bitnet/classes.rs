//! Anchors and classes: where each derived atom sits on the board, and
//! which atoms share the shape of their rules.
//!
//! Each derived atom of a board relation is *anchored* at a fluent bit (the
//! square's first `cell` fluent): the bit of a literal all its rules share,
//! or the lowest fluent its rules read. Atoms of one relation whose rules
//! have the same shapes (every literal at the same distance from the
//! anchor) form a *class*, which the layout places as a plane
//! ([`super::planes`]).

use std::collections::{BTreeMap, HashMap};

use rustc_hash::{FxHashMap, FxHashSet};

use super::planes::{plane_span, MIN_PLANE_MEMBERS};
use crate::ground::{AtomId, GroundProgram};

/// A literal of a class's rule: a fluent, a derived atom of a relation
/// (both at a distance from the anchor), or one fixed atom read by every
/// member (no anchor of its own).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum LitKey {
    Fluent(i64, bool),
    Move(usize, i64, bool),
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
    /// Per role, per move, the fluent bit the move is anchored at (see
    /// [`move_anchors`]), if any.
    pub move_anchor: Vec<Vec<Option<u32>>>,
    /// How many of the classes are parts of groups of copies
    /// ([`collisions_are_copies`]).
    pub copies: usize,
}

/// The anchor of each move: the fluent a `next` rule of the move alone
/// makes true (`next(cell(x, y, c)) <= does(c, move(x, y))`), the lowest if
/// several. A role's moves keep their anchors only when no two share one:
/// a plane of the role's moves then holds the move made at its anchor.
pub fn move_anchors(gp: &GroundProgram) -> Vec<Vec<Option<u32>>> {
    let mut anchors: Vec<Vec<Option<u32>>> = gp.moves.iter().map(|m| vec![None; m.len()]).collect();
    for (f, out) in gp.next.iter().enumerate() {
        let crate::ground::Output::Atom(a) = out else {
            continue;
        };
        for rule in gp.rules_of(*a) {
            let [l] = &rule.body[..] else { continue };
            let Some((r, m)) = gp.does_of(l.atom().0).filter(|_| !l.is_negated()) else {
                continue;
            };
            let slot = &mut anchors[r][m as usize];
            *slot = Some(slot.map_or(f as u32, |x| x.min(f as u32)));
        }
    }
    for role in &mut anchors {
        let mut seen: Vec<u32> = role.iter().flatten().copied().collect();
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != n {
            role.iter_mut().for_each(|a| *a = None);
        }
    }
    anchors
}

/// The relation name of an atom's text: `(rel a b)` or `rel`.
pub(super) fn relation(text: &str) -> &str {
    let t = text.trim_start_matches('(');
    t.split([' ', ')']).next().unwrap_or(t)
}

/// Finds the anchors and classes of `gp`'s derived atoms. Atoms reading a
/// move without an anchor are left out: its `does` bit is not laid out like
/// the board.
pub fn classes(gp: &GroundProgram) -> Classes {
    classes_sharing(gp, true)
}

/// [`classes`], with the fluents a relation shares ([`shared_fluents`])
/// read as distances like any other when `share` is false. The relayout
/// scores its splits so: counted with them, connectFourLarge's relations
/// reading the side to move become classes under another split, which the
/// relayout then prefers, and that layout took 3 times the instructions a
/// playout.
pub fn classes_sharing(gp: &GroundProgram, share: bool) -> Classes {
    classes_with(gp, share, true)
}

/// [`classes_sharing`], groups of copies split into parts only when
/// `copies` is true (else left out, as any group whose anchors collide).
pub fn classes_with(gp: &GroundProgram, share: bool, copies: bool) -> Classes {
    let ni = gp.num_inputs;
    let mut an = Anchors {
        gp,
        anchor: vec![None; gp.num_derived() as usize],
        move_anchor: move_anchors(gp),
        names: HashMap::new(),
        shared: if share {
            shared_fluents(gp)
        } else {
            FxHashMap::default()
        },
    };
    let mut found = Vec::new();
    for a in ni..gp.num_atoms() {
        let rules = gp.rules_of(AtomId(a));
        let Some(anc) = an.choose(rules, relation(&gp.atom_text[a as usize])) else {
            continue;
        };
        an.anchor[(a - ni) as usize] = Some(anc);
        let next_name = an.names.len() as u32;
        let rel = *an
            .names
            .entry(relation(&gp.atom_text[a as usize]))
            .or_insert(next_name);
        let own = relation(&gp.atom_text[a as usize]);
        let shapes = rules.iter().map(|r| an.shape(r, anc, own)).collect();
        // Atoms of the relation its rules read (`Derived` of its own tag).
        let tails: Vec<u32> = rules
            .iter()
            .flat_map(|r| r.body.iter())
            .map(|l| l.atom().0)
            .filter(|&b| {
                b >= ni
                    && relation(&gp.atom_text[b as usize]) == relation(&gp.atom_text[a as usize])
            })
            .map(|b| b - ni)
            .collect();
        found.push(Found {
            atom: a - ni,
            rel,
            shapes,
            tails,
        });
    }
    let mut parent: Vec<u32> = (0..gp.num_derived()).collect();
    unite(&found, &mut parent);
    let (classes, copies) = collect_classes(gp, &mut parent, &an.anchor, copies);
    Classes {
        classes,
        anchor: an.anchor,
        move_anchor: an.move_anchor,
        copies,
    }
}

/// The anchors found so far, and the relations' tags.
struct Anchors<'a> {
    gp: &'a GroundProgram,
    /// Per derived atom (`atom - inputs`), its anchor.
    anchor: Vec<Option<u32>>,
    /// Per role, per move, its anchor.
    move_anchor: Vec<Vec<Option<u32>>>,
    /// The tag of each relation name met.
    names: HashMap<&'a str, u32>,
    /// The fluents each relation reads as one bit for all its atoms
    /// ([`shared_fluents`]).
    shared: FxHashMap<&'a str, FxHashSet<u32>>,
}

impl Anchors<'_> {
    /// The anchor of atom `b`: its own bit for a fluent, none for a move.
    fn of(&self, b: u32) -> Option<u32> {
        let (nf, ni) = (self.gp.fluents.len() as u32, self.gp.num_inputs);
        if b < nf {
            Some(b)
        } else if b >= ni {
            self.anchor[(b - ni) as usize]
        } else {
            None
        }
    }

    /// The role and anchor of move atom `b`, if it has one.
    fn of_move(&self, b: u32) -> Option<(usize, u32)> {
        let (r, m) = self.gp.does_of(b)?;
        Some((r, self.move_anchor[r][m as usize]?))
    }

    /// The anchor of an atom of relation `own` with `rules`: the anchor of
    /// a literal all of them share, else the lowest fluent they read, else
    /// the lowest anchor of the derived atoms of other relations they read,
    /// else of its own relation. `None` for an atom reading a move without
    /// an anchor.
    ///
    /// Its own relation comes last because a ray read square after square
    /// (`aray(n, a, 5) <= aray(n, a, 4) & emptyk(a, 4)`) would otherwise
    /// take its predecessor's anchor wherever that one is lower, down to the
    /// first square of the ray: a whole file at one anchor, no plane. Read
    /// from its other literals, each member sits one square from the last.
    fn choose(&self, rules: &[crate::ground::GroundRule], own: &str) -> Option<u32> {
        let shared = self.shared.get(own);
        let is_shared = |b: u32| shared.is_some_and(|s| s.contains(&b));
        let own = Some(own);
        let (nf, ni) = (self.gp.fluents.len() as u32, self.gp.num_inputs);
        let lits = || rules.iter().flat_map(|r| r.body.iter()).map(|l| l.atom().0);
        if rules.is_empty() || lits().any(|b| (nf..ni).contains(&b) && self.of_move(b).is_none()) {
            return None;
        }
        let common = rules[0]
            .body
            .iter()
            .filter(|l| rules[1..].iter().all(|r| r.body.contains(l)))
            .filter(|l| !is_shared(l.atom().0))
            .find_map(|l| self.of(l.atom().0));
        let lowest = || lits().filter(|&b| b < nf && !is_shared(b)).min();
        let derived = |other: bool| {
            lits()
                .filter(|&b| b >= ni)
                .filter(|&b| !other || Some(relation(&self.gp.atom_text[b as usize])) != own)
                .filter_map(|b| self.of(b))
                .min()
        };
        common
            .or_else(lowest)
            .or_else(|| derived(true))
            .or_else(|| derived(false))
    }

    /// The shape of `rule` for an atom of relation `own` anchored at
    /// `anc`, sorted. A fluent the relation shares is fixed.
    fn shape(&self, rule: &crate::ground::GroundRule, anc: u32, own: &str) -> Vec<LitKey> {
        let nf = self.gp.fluents.len() as u32;
        let shared = self.shared.get(own);
        let off = |x: u32| i64::from(x) - i64::from(anc);
        let mut shape: Vec<LitKey> = rule
            .body
            .iter()
            .map(|l| {
                let (b, neg) = (l.atom().0, l.is_negated());
                if let Some((r, x)) = self.of_move(b) {
                    return LitKey::Move(r, off(x), neg);
                }
                match self.of(b) {
                    Some(_) if b < nf && shared.is_some_and(|s| s.contains(&b)) => {
                        LitKey::Fixed(b, neg)
                    }
                    Some(x) if b < nf => LitKey::Fluent(off(x), neg),
                    Some(x) => {
                        let n = relation(&self.gp.atom_text[b as usize]);
                        let tag = self.names.get(n).copied().unwrap_or(u32::MAX);
                        LitKey::Derived(tag, off(x), neg)
                    }
                    None => LitKey::Fixed(b, neg),
                }
            })
            .collect();
        shape.sort_unstable();
        shape
    }
}

/// Whether some relation of `gp` reads a fluent as one bit for all its atoms
/// ([`shared_fluents`]): else [`classes_sharing`] finds the same classes
/// whether it shares or not.
pub fn shares_fluents(gp: &GroundProgram) -> bool {
    !shared_fluents(gp).is_empty()
}

/// Per relation, the fluents it reads as one bit for all its atoms: those
/// read by at least half its atoms, and by [`MIN_PLANE_MEMBERS`]. A
/// square's fluent is read by the atoms of a few squares around it; the
/// side to move (`own(x, y, t) <= control(p) & cell(x, y, pc)`) by all of
/// them, at a different distance from each square. As an anchor it would
/// put every atom at one bit, and as a distance give each its own shape:
/// fixed instead, the class is the board's, and its plane reads the bit
/// broadcast over the word ([`plane_words`]).
fn shared_fluents(gp: &GroundProgram) -> FxHashMap<&str, FxHashSet<u32>> {
    let (nf, ni) = (gp.fluents.len() as u32, gp.num_inputs);
    let mut atoms: FxHashMap<&str, usize> = FxHashMap::default();
    let mut readers: FxHashMap<(&str, u32), usize> = FxHashMap::default();
    for a in ni..gp.num_atoms() {
        let rel = relation(&gp.atom_text[a as usize]);
        *atoms.entry(rel).or_default() += 1;
        let mut read: Vec<u32> = gp
            .rules_of(AtomId(a))
            .iter()
            .flat_map(|r| r.body.iter().map(|l| l.atom().0))
            .filter(|&b| b < nf)
            .collect();
        read.sort_unstable();
        read.dedup();
        for b in read {
            *readers.entry((rel, b)).or_default() += 1;
        }
    }
    let mut shared: FxHashMap<&str, FxHashSet<u32>> = FxHashMap::default();
    for ((rel, b), n) in readers {
        if n >= MIN_PLANE_MEMBERS && 2 * n >= atoms[rel] {
            shared.entry(rel).or_default().insert(b);
        }
    }
    shared
}

/// An anchored atom's rule shapes, as [`classes`] finds them.
struct Found {
    /// The atom, less the inputs.
    atom: u32,
    /// Its relation's tag.
    rel: u32,
    /// Its rules' shapes.
    shapes: Vec<Vec<LitKey>>,
    /// The atoms of its own relation its rules read, less the inputs.
    tails: Vec<u32>,
}

/// Unites atoms into classes. A recursive atom's class is that of its
/// recursive rules: the base rules of a ray are symmetric (two cells of
/// opposite colours), the same for opposite directions, whose anchors
/// collide. The end of a ray, an atom of the relation without recursive
/// rules, joins the class of the atom reading it; other atoms unite by
/// their shapes.
fn unite(found: &[Found], parent: &mut [u32]) {
    let recursive = |f: &Found, sh: &Vec<LitKey>| {
        sh.iter()
            .any(|k| matches!(k, LitKey::Derived(t, _, _) if *t == f.rel))
    };
    let is_recursive: std::collections::HashSet<u32> = found
        .iter()
        .filter(|f| f.shapes.iter().any(|sh| recursive(f, sh)))
        .map(|f| f.atom)
        .collect();
    let mut first: HashMap<(u32, &Vec<LitKey>), u32> = HashMap::new();
    let mut attached = std::collections::HashSet::new();
    for f in found.iter().filter(|f| is_recursive.contains(&f.atom)) {
        for sh in f.shapes.iter().filter(|sh| recursive(f, sh)) {
            let j = *first.entry((f.rel, sh)).or_insert(f.atom);
            union(parent, f.atom, j);
        }
        for &t in &f.tails {
            if !is_recursive.contains(&t) && attached.insert(t) {
                union(parent, t, f.atom);
            }
        }
    }
    for f in found
        .iter()
        .filter(|f| !is_recursive.contains(&f.atom) && !attached.contains(&f.atom))
    {
        for sh in &f.shapes {
            let j = *first.entry((f.rel, sh)).or_insert(f.atom);
            union(parent, f.atom, j);
        }
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
/// distinct. A group whose anchors collide is kept in parts, split by one
/// argument ([`by_distinct_anchors`]) where its atoms are copies and
/// `copies` allows. Returns the classes and how many are such parts.
fn collect_classes(
    gp: &GroundProgram,
    parent: &mut [u32],
    anchor: &[Option<u32>],
    copies: bool,
) -> (Vec<Vec<u32>>, usize) {
    let ni = gp.num_inputs;
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for i in 0..anchor.len() as u32 {
        if anchor[i as usize].is_some() {
            let r = find(parent, i);
            groups.entry(r).or_default().push(i);
        }
    }
    let anchor_of = |i: u32| anchor[i as usize].unwrap_or(u32::MAX);
    let (mut out, mut parts) = (Vec::new(), 0);
    for g in groups
        .into_values()
        .filter(|g| g.len() >= MIN_PLANE_MEMBERS)
    {
        let atoms: Vec<u32> = g.iter().map(|&i| i + ni).collect();
        if distinct(&g, &anchor_of) {
            out.push(atoms);
        } else if copies && collisions_are_copies(gp, &atoms, &|a| anchor_of(a - ni)) {
            let split = by_distinct_anchors(gp, &atoms, &|a| anchor_of(a - ni));
            parts += split.len();
            out.extend(split);
        }
    }
    (out, parts)
}

/// Whether the atoms of `group` that share an anchor are copies of one
/// another: the same rule bodies, literal for literal. Such atoms come from
/// rules that do not read an argument (each direction's `enemyslider(d, x,
/// y)` is a bishop or queen on the square); split by that argument, each
/// part is the board's plane. Atoms that collide otherwise read different
/// atoms at the same distances (a queen's lines of different lengths): the
/// parts of a split there are small and unlike each other, and cost
/// instructions (Queens +24%, amazons_10x10 +7.5%).
fn collisions_are_copies(gp: &GroundProgram, group: &[u32], anchor: &dyn Fn(u32) -> u32) -> bool {
    let bodies = |a: u32| {
        let mut b: Vec<Vec<crate::ground::Lit>> = (gp.rules_of(AtomId(a)).iter())
            .map(|r| {
                let mut body = r.body.to_vec();
                body.sort_unstable();
                body
            })
            .collect();
        b.sort_unstable();
        b
    };
    let mut first: FxHashMap<u32, u32> = FxHashMap::default();
    group.iter().all(|&a| match first.entry(anchor(a)) {
        std::collections::hash_map::Entry::Vacant(e) => {
            e.insert(a);
            true
        }
        std::collections::hash_map::Entry::Occupied(e) => bodies(*e.get()) == bodies(a),
    })
}

/// Whether the atoms of `group` have distinct anchors.
fn distinct(group: &[u32], anchor: &dyn Fn(u32) -> u32) -> bool {
    let mut a: Vec<u32> = group.iter().map(|&i| anchor(i)).collect();
    a.sort_unstable();
    a.dedup();
    a.len() == group.len()
}

/// A group (atom ids) whose anchors collide, split by one argument into
/// parts of distinct anchors ([`by_one_arg_where`]). The atoms of a
/// relation over directions whose rules do not read the direction
/// (`enemyslider(d, x, y)`, a bishop or queen on the square for each
/// diagonal) share their shapes and anchors: one plane per direction.
fn by_distinct_anchors(
    gp: &GroundProgram,
    group: &[u32],
    anchor: &dyn Fn(u32) -> u32,
) -> Vec<Vec<u32>> {
    by_one_arg_where(gp, group, &|g| {
        g.len() >= MIN_PLANE_MEMBERS && distinct(g, anchor)
    })
}

/// A class (atom ids) too wide for one plane, split by the values of one
/// argument into parts that each fit one ([`plane_span`] of their
/// `anchor`s; see [`by_one_arg_where`]). A relation over a board of
/// several pieces (`own(x, y, type)`, anchored at the square's fluent of
/// each piece) is one plane per piece.
pub fn by_one_arg(gp: &GroundProgram, class: &[u32], anchor: &dyn Fn(u32) -> u32) -> Vec<Vec<u32>> {
    by_one_arg_where(gp, class, &|g| {
        let anchors: Vec<u32> = g.iter().map(|&a| anchor(a)).collect();
        g.len() >= MIN_PLANE_MEMBERS && plane_span(&anchors).is_some()
    })
}

/// `atoms` split by the values of one argument into parts that each
/// satisfy `fits`: the argument giving the fewest parts, if any does; else
/// nothing.
fn by_one_arg_where(
    gp: &GroundProgram,
    atoms: &[u32],
    fits: &dyn Fn(&[u32]) -> bool,
) -> Vec<Vec<u32>> {
    let args: Vec<Vec<&str>> = atoms
        .iter()
        .map(|&a| super::relayout::split(&gp.atom_text[a as usize]).1)
        .collect();
    let arity = args.first().map_or(0, Vec::len);
    if args.iter().any(|a| a.len() != arity) {
        return Vec::new();
    }
    (0..arity)
        .filter_map(|p| {
            let mut parts: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
            for (k, &a) in atoms.iter().enumerate() {
                parts.entry(args[k][p]).or_default().push(a);
            }
            (parts.values().all(|g| fits(g))).then(|| parts.into_values().collect::<Vec<_>>())
        })
        .min_by_key(Vec::len)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of twelve squares whose relations read the side to move
    /// (`own`, `slider`) and are rays running up the row as well as down
    /// it.
    const ROW: &str = r#"; A row of twelve squares; each side places its slider on an empty square
; the other side's sliders do not attack along the row.
(role x) (role o)
(owner xs x) (owner os o)
(dir l) (dir r)
(succ a b) (succ b c) (succ c d) (succ d e) (succ e f) (succ f g)
(succ g h) (succ h i) (succ i j) (succ j k) (succ k l)
(init (control x))
(init (cell a b)) (init (cell b b)) (init (cell c b)) (init (cell d b))
(init (cell e b)) (init (cell f b)) (init (cell g b)) (init (cell h b))
(init (cell i b)) (init (cell j b)) (init (cell k b)) (init (cell l b))
(<= (own ?i) (true (control ?p)) (true (cell ?i ?c)) (owner ?c ?p))
(<= (enemy ?i) (true (control ?p)) (true (cell ?i ?c)) (owner ?c ?q) (distinct ?p ?q))
(<= (slider ?d ?i) (true (control ?p)) (true (cell ?i ?c)) (owner ?c ?q)
    (distinct ?p ?q) (dir ?d))
(<= (empty ?i) (true (cell ?i b)))
(<= (clear ?i) (empty ?i))
(<= (clear ?i) (own ?i))
(<= (ray r ?j) (slider r ?i) (succ ?i ?j))
(<= (ray r ?j) (ray r ?i) (clear ?i) (succ ?i ?j))
(<= (ray l ?i) (slider l ?j) (succ ?i ?j))
(<= (ray l ?i) (ray l ?j) (clear ?j) (succ ?i ?j))
(<= (attacked ?i) (ray ?d ?i))
(<= (legal ?p (place ?i)) (true (control ?p)) (empty ?i) (not (attacked ?i)))
(<= (legal ?p (place ?i)) (true (control ?p)) (empty ?i) (own ?i))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (cell ?i xs)) (does x (place ?i)))
(<= (next (cell ?i os)) (does o (place ?i)))
(<= (next (cell ?i ?c)) (true (cell ?i ?c)) (not (placed ?i)))
(<= (placed ?i) (does ?p (place ?i)))
(<= (next (control o)) (true (control x)))
(<= (next (control x)) (true (control o)))
(<= can (legal ?p (place ?i)))
(<= terminal (not can))
(<= (goal ?p 50) (role ?p))
"#;

    /// The class of the atom of text `t`, if it has one.
    fn class_of(gp: &GroundProgram, found: &Classes, t: &str) -> Option<Vec<u32>> {
        let a = crate::bitnet::testing::atom(gp, t);
        found.classes.iter().find(|c| c.contains(&a)).cloned()
    }

    /// The anchor of the atom of text `t`.
    fn anchor_of(gp: &GroundProgram, found: &Classes, t: &str) -> Option<u32> {
        found.anchor[(crate::bitnet::testing::atom(gp, t) - gp.num_inputs) as usize]
    }

    /// The classes of ROW: each a relation's twelve squares (or a ray's
    /// eleven), at distinct anchors.
    #[test]
    fn classes_follow_the_board_whatever_else_the_rules_read() {
        use crate::bitnet::testing::{atom, ground};
        let gp = ground(ROW);
        let found = classes(&gp);
        let class_of = |t: &str| class_of(&gp, &found, t);
        let anchor = |t: &str| anchor_of(&gp, &found, t);
        // `(control x)`, read by every `own`, is neither the anchor nor a
        // distance: `own` is one class at its squares' fluents.
        let own = class_of("(own a)").expect("own is a class");
        assert_eq!(own.len(), 12);
        assert_ne!(anchor("(own a)"), anchor("(own b)"));
        // A class wider than a plane is split by the argument that makes
        // each part fit: here none is needed.
        assert!(plane_span(
            &own.iter()
                .map(|&a| found.anchor[(a - gp.num_inputs) as usize].unwrap())
                .collect::<Vec<_>>()
        )
        .is_some());
        // The ray up the row is anchored square by square, not at its
        // first square: one class, as the ray down it is. (Where a ray
        // starts, grounding inlines its first atom, and the next two read
        // their neighbours at other distances.)
        for (d, squares) in [("l", "abcdefghi"), ("r", "efghijkl")] {
            let ray = class_of(&format!("(ray {d} e)")).expect("a ray is a class");
            for sq in squares.chars() {
                assert!(
                    ray.contains(&atom(&gp, &format!("(ray {d} {sq})"))),
                    "(ray {d} {sq})"
                );
            }
        }
        assert_ne!(anchor("(ray r e)"), anchor("(ray r f)"));
    }

    /// `slider ?d ?i` does not read its direction: the atoms of both
    /// directions share their square's anchor and shape, one group of
    /// colliding anchors, kept as a class per direction.
    #[test]
    fn atoms_that_share_their_anchors_are_classes_split_by_an_argument() {
        use crate::bitnet::testing::ground;
        let gp = ground(ROW);
        let found = classes(&gp);
        let class_of = |t: &str| class_of(&gp, &found, t);
        let anchor = |t: &str| anchor_of(&gp, &found, t);
        assert_eq!(anchor("(slider l c)"), anchor("(slider r c)"));
        let left = class_of("(slider l c)").expect("the left sliders are a class");
        let right = class_of("(slider r c)").expect("the right sliders are a class");
        assert_ne!(left, right);
        // Each class is all of its direction's atoms (those grounding kept).
        let count = |d: &str| {
            let prefix = format!("(slider {d} ");
            gp.atom_text
                .iter()
                .filter(|t| t.starts_with(&prefix))
                .count()
        };
        assert_eq!((left.len(), right.len()), (count("l"), count("r")));
        assert!(left
            .iter()
            .all(|&a| gp.atom_text[a as usize].starts_with("(slider l ")));
    }

    /// `shared_fluents`: the side to move for `own`, no square's fluent.
    #[test]
    fn the_side_to_move_is_shared_and_a_square_is_not() {
        use crate::bitnet::testing::{fluent, ground};
        let gp = ground(ROW);
        let shared = shared_fluents(&gp);
        let own = &shared["own"];
        assert!(own.contains(&fluent(&gp, "(control x)")));
        assert!(own.contains(&fluent(&gp, "(control o)")));
        assert!(!own.contains(&fluent(&gp, "(cell c xs)")));
        assert!(!shared.contains_key("empty"));
    }

    #[test]
    fn relation_names() {
        assert_eq!(relation("(empty 1 2)"), "empty");
        assert_eq!(relation("terminal"), "terminal");
    }
}
