//! The compiled back end's physical order of the fluents: boards laid out
//! densely, piece by piece.
//!
//! Fluent ids are text order, and the ground program numbers its fluent
//! atoms by id. A board's cells in text order are not regular: the
//! neighbours of `(cell a 2 white pawn)` lie at distances that vary with
//! which pieces can stand on which squares (a pawn never reaches its last
//! rank), so the planes ([`crate::bitnet::planes`]) find few rule shapes a
//! whole board shares. Here a fluent functor whose arguments nearly fill
//! their product is laid out densely instead: per value of its *major*
//! arguments (the piece), a *plane* indexed by its *minor* arguments (the
//! square) in value order, with holes where no fluent is reachable. A
//! neighbour is then the same distance from every square, and a per-square
//! relation anchored in the first plane is one word for 64 squares.
//!
//! A plane of at most a word never straddles two: a word holds as many
//! whole planes as fit, the rest of it a hole.
//!
//! Which arguments are minor is chosen by trying each split and keeping
//! the one whose program has the most atoms in plane classes
//! ([`crate::bitnet::planes::classes`]), and of those the one whose planes
//! and state span the fewest words (see [`score`]); text order stays where
//! no split does better. [`relaid`] rewrites the program over the physical bits
//! (holes are fluents that never hold) and keeps the logical ids and texts
//! in [`GroundProgram::logical`] for the generated tables, so states are
//! still read and printed by logical id and matches replay identically.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::bitnet::{classes, planes};
use crate::ground::program::{AtomId, Component, GroundProgram, GroundRule, Lit, Logical, Output};

/// Most bits a dense block may take per reachable fluent: a sparser board
/// would spread the state over more words than its planes save.
const MAX_BITS_PER_FLUENT: usize = 4;

/// Most bits of one dense block.
const MAX_BLOCK_BITS: usize = 4096;

/// Most rule literals over all the splits tried: each try is a copy of
/// the program and a search for classes (about 0.5 s for chess's 68 K
/// literals and six splits), and a player compiles within a start clock.
const MAX_TRIED_LITERALS: usize = 600_000;

/// Most arguments of a functor whose splits are tried (2^n - 2 splits).
const MAX_TRIED_ARITY: usize = 5;

/// A fluent text as its functor and top-level arguments: `(cell a 2 b)` is
/// `cell` and `[a, 2, b]`; a constant has no arguments.
pub(crate) fn split(text: &str) -> (&str, Vec<&str>) {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return (text, Vec::new());
    };
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, None);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => {
                depth += 1;
                start.get_or_insert(i);
            }
            ')' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => {
                if let Some(s) = start.take() {
                    parts.push(&inner[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        parts.push(&inner[s..]);
    }
    if parts.is_empty() {
        return (inner, parts);
    }
    let functor = parts.remove(0);
    (functor, parts)
}

/// The fluents of one functor and arity, and their arguments' values.
#[derive(Clone)]
struct Group {
    /// Logical ids, ascending.
    ids: Vec<u32>,
    /// Per fluent, per argument, the value's rank.
    ranks: Vec<Vec<u32>>,
    /// Per argument, its number of values.
    sizes: Vec<usize>,
    /// Per argument, its values in rank order.
    values: Vec<Vec<String>>,
}

/// The rank of each value of one argument: numeric order when every value
/// is an integer (so that 10 follows 9), else text order.
pub(crate) fn ranks_of(values: &[&str]) -> BTreeMap<String, u32> {
    let mut distinct: Vec<&str> = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.iter().all(|v| v.parse::<i64>().is_ok()) {
        distinct.sort_by_key(|v| v.parse::<i64>().unwrap_or_default());
    }
    distinct
        .iter()
        .enumerate()
        .map(|(i, v)| ((*v).to_owned(), i as u32))
        .collect()
}

/// The fluents by functor and arity, in the order of their first fluent.
fn groups(fluents: &[String]) -> Vec<Group> {
    let mut by_key: BTreeMap<(&str, usize), usize> = BTreeMap::new();
    let mut members: Vec<(Vec<u32>, Vec<Vec<&str>>)> = Vec::new();
    for (id, text) in fluents.iter().enumerate() {
        let (functor, args) = split(text);
        let n = members.len();
        let g = *by_key.entry((functor, args.len())).or_insert(n);
        if g == n {
            members.push((Vec::new(), Vec::new()));
        }
        members[g].0.push(id as u32);
        members[g].1.push(args);
    }
    members
        .into_iter()
        .map(|(ids, args)| {
            let arity = args[0].len();
            let per_arg: Vec<BTreeMap<String, u32>> = (0..arity)
                .map(|k| ranks_of(&args.iter().map(|a| a[k]).collect::<Vec<_>>()))
                .collect();
            let ranks = args
                .iter()
                .map(|a| (0..arity).map(|k| per_arg[k][a[k]]).collect())
                .collect();
            let values = per_arg
                .iter()
                .map(|ranks| {
                    let mut v: Vec<(&String, &u32)> = ranks.iter().collect();
                    v.sort_by_key(|&(_, &r)| r);
                    v.into_iter().map(|(text, _)| text.clone()).collect()
                })
                .collect();
            Group {
                ids,
                ranks,
                sizes: per_arg.iter().map(BTreeMap::len).collect(),
                values,
            }
        })
        .collect()
}

impl Group {
    /// Whether the group is dense enough to lay out as a block at all: its
    /// unpadded block, the smallest any split gives, within the budgets.
    fn is_dense(&self) -> bool {
        self.sizes.len() >= 2 && self.within_budget(self.extent(0, false))
    }

    /// Whether a block of `bits` bits keeps to [`MAX_BLOCK_BITS`] and
    /// [`MAX_BITS_PER_FLUENT`].
    fn within_budget(&self, bits: usize) -> bool {
        bits <= MAX_BLOCK_BITS && bits <= MAX_BITS_PER_FLUENT * self.ids.len()
    }

    /// The argument positions in `minor` (a bit set of them) when
    /// `of_minor`, else the others, in argument order.
    fn args(&self, minor: u32, of_minor: bool) -> impl Iterator<Item = usize> {
        (0..self.sizes.len()).filter(move |k| (minor >> k & 1 == 1) == of_minor)
    }

    /// The product of the sizes of the arguments in `minor` (`of_minor`),
    /// or of the others: the bits of one plane, or the number of planes.
    fn extent(&self, minor: u32, of_minor: bool) -> usize {
        self.args(minor, of_minor)
            .map(|k| self.sizes[k])
            .try_fold(1usize, |acc, s| acc.checked_mul(s))
            .unwrap_or(usize::MAX)
    }

    /// The offset of fluent `i` in the dense block with the arguments of
    /// `minor` (a bit set of argument positions) varying fastest.
    fn offset(&self, i: usize, minor: u32) -> usize {
        let index = |of_minor: bool| {
            self.args(minor, of_minor)
                .fold(0, |acc, k| acc * self.sizes[k] + self.ranks[i][k] as usize)
        };
        self.plane_start(index(false), minor) + index(true)
    }

    /// Where the plane of major index `major` starts. Planes of at most a
    /// word never straddle two: a word holds as many whole planes as fit,
    /// so that a relation over one plane (a line of one colour's stones)
    /// is read from one word instead of a pair.
    fn plane_start(&self, major: usize, minor: u32) -> usize {
        let plane = self.extent(minor, true);
        if plane <= 64 && 64 % plane != 0 {
            let per_word = 64 / plane;
            major / per_word * 64 + major % per_word * plane
        } else {
            major * plane
        }
    }

    /// The values of the arguments of `minor`, in argument order: the
    /// squares of a plane.
    fn minor_values(&self, minor: u32) -> Vec<&[String]> {
        self.args(minor, true)
            .map(|k| self.values[k].as_slice())
            .collect()
    }

    /// This group with the arguments of `minor` ranked as the squares of
    /// `board` (each argument's values among the board's, in order), or
    /// `None` when some value is not one of the board's.
    fn on_board(&self, minor: u32, board: &[Vec<String>]) -> Option<Group> {
        let args: Vec<usize> = self.args(minor, true).collect();
        if args.len() != board.len() {
            return None;
        }
        let mut on = self.clone();
        for (&k, values) in args.iter().zip(board) {
            let rank: Vec<u32> = self.values[k]
                .iter()
                .map(|v| values.iter().position(|b| b == v).map(|r| r as u32))
                .collect::<Option<_>>()?;
            for ranks in &mut on.ranks {
                ranks[k] = rank[ranks[k] as usize];
            }
            on.sizes[k] = values.len();
            on.values[k].clone_from(values);
        }
        Some(on)
    }

    /// Bits of the dense block with `minor` fastest, padding included.
    fn block_bits(&self, minor: u32) -> usize {
        self.plane_start(self.extent(minor, false) - 1, minor) + self.extent(minor, true)
    }
}

/// A choice per group: `None` keeps text order, `Some(minor)` lays the
/// group out densely with the arguments of `minor` varying fastest.
type Choice = Vec<Option<u32>>;

/// The physical bit of each logical fluent under `choice`, and the number
/// of bits. Blocks start on a word when they span one.
fn bits_of(groups: &[Group], choice: &Choice, num_fluents: usize) -> (Vec<u32>, u32) {
    let mut bits = vec![0u32; num_fluents];
    let mut next = 0usize;
    for (g, c) in groups.iter().zip(choice) {
        match *c {
            Some(minor) => {
                let size = g.block_bits(minor);
                if size >= 64 {
                    next = next.div_ceil(64) * 64;
                }
                for (i, &id) in g.ids.iter().enumerate() {
                    bits[id as usize] = (next + g.offset(i, minor)) as u32;
                }
                next += size;
            }
            None => {
                for &id in &g.ids {
                    bits[id as usize] = next as u32;
                    next += 1;
                }
            }
        }
    }
    (bits, next as u32)
}

/// `gp` with its fluents at the physical bits `bits` (per logical fluent)
/// over `num_bits` fluent atoms; the holes never hold.
pub fn relaid_with(gp: &GroundProgram, bits: &[u32], num_bits: u32) -> GroundProgram {
    let nf = gp.fluents.len() as u32;
    let shift = num_bits - nf;
    let map = |a: u32| if a < nf { bits[a as usize] } else { a + shift };
    let map_out = |o: Output| match o {
        Output::Atom(a) => Output::Atom(AtomId(map(a.0))),
        o => o,
    };
    let mut fluents = vec![String::new(); num_bits as usize];
    let mut atom_text: Vec<String> = (0..num_bits)
        .map(|b| format!("(true (hole {b}))"))
        .collect();
    let mut next = vec![Output::False; num_bits as usize];
    for (f, &b) in bits.iter().enumerate() {
        let b = b as usize;
        fluents[b].clone_from(&gp.fluents[f]);
        atom_text[b].clone_from(&gp.atom_text[f]);
        next[b] = map_out(gp.next[f]);
    }
    atom_text.extend(gp.atom_text[nf as usize..].iter().cloned());
    let mut init: Vec<u32> = gp.init.iter().map(|&f| bits[f as usize]).collect();
    init.sort_unstable();
    let rules = gp
        .rules
        .iter()
        .map(|r| GroundRule {
            head: AtomId(map(r.head.0)),
            body: r
                .body
                .iter()
                .map(|l| Lit(map(l.atom().0) << 1 | l.0 & 1))
                .collect(),
        })
        .collect();
    GroundProgram {
        fluents,
        init,
        does_start: gp.does_start.iter().map(|&d| d + shift).collect(),
        num_inputs: gp.num_inputs + shift,
        atom_text,
        rules,
        components: gp
            .components
            .iter()
            .map(|c| Component {
                start: c.start + shift,
                end: c.end + shift,
                cyclic: c.cyclic,
            })
            .collect(),
        legal: gp
            .legal
            .iter()
            .map(|v| v.iter().map(|&o| map_out(o)).collect())
            .collect(),
        next,
        terminal: map_out(gp.terminal),
        goal: gp
            .goal
            .iter()
            .map(|v| v.iter().map(|&(g, o)| (g, map_out(o))).collect())
            .collect(),
        logical: Some(Logical {
            fluents: gp.fluents.clone(),
            bits: bits.to_vec(),
        }),
        roles: gp.roles.clone(),
        case_sensitive: gp.case_sensitive,
        moves: gp.moves.clone(),
        rule_start: gp.rule_start.clone(),
        stats: gp.stats.clone(),
    }
}

/// How well a layout suits the planes: first the atoms of `gp` in plane
/// classes that the layout can place (their anchors within a few words,
/// dense enough), then the fewer words a step works on. Those are the
/// words the planes span, each one more word operation per rule shape and
/// fixpoint step, and the state's words, copied and compared every step.
/// A board whose pieces are interleaved square by square (`cell(x, y,
/// colour)` in text order) spreads each per-square relation over twice
/// the words of the same board laid out colour by colour; a layout whose
/// holes widen the state for planes the schedule may not keep is not worth
/// its padding.
///
/// It is a proxy, blind to what the printer finds later: the word families
/// of `families.rs` (a layout that places more plane atoms can break a
/// gathered family into atoms one by one, as on a four-player Chinese
/// checkers board), and the classes that `planes::regular` turns down.
///
/// Planes of copies ([`classes::classes_with`]) are not counted: the
/// bitnet is built with and without them and the shorter kept, which only
/// chooses between the two where both share the layout (counted, a copy of
/// queens under other names took another layout, 2% more code).
fn score(gp: &GroundProgram, share: bool) -> (usize, Reverse<usize>) {
    let found = classes::classes_with(gp, share, false);
    let ni = gp.num_inputs;
    let (mut atoms, mut words) = (0, gp.fluents.len().div_ceil(64));
    for class in &found.classes {
        let anchors: Vec<u32> = class
            .iter()
            .filter_map(|&a| found.anchor[(a - ni) as usize])
            .collect();
        if let Some((_, n)) = planes::plane_span(&anchors) {
            atoms += class.len();
            words += n as usize;
        }
    }
    (atoms, Reverse(words))
}

/// The splits of an argument list of `arity` worth trying: every proper,
/// non-empty subset as the minor arguments.
fn splits(arity: usize) -> impl Iterator<Item = u32> {
    1..(1u32 << arity) - 1
}

/// `gp` with its boards laid out densely where that gives the planes more
/// atoms, else `None` (text order is best, or the program is too large to
/// try). Splits are tried group by group, in text order, as long as the
/// tries' literals stay within [`MAX_TRIED_LITERALS`]. A program already
/// relaid is left alone.
pub fn relaid(gp: &GroundProgram) -> Option<GroundProgram> {
    relaid_scoring(gp, false)
}

/// [`relaid`], its splits scored with the classes that share the side to
/// move ([`classes::classes_sharing`]) when `share` is true.
pub fn relaid_scoring(gp: &GroundProgram, share: bool) -> Option<GroundProgram> {
    let literals = gp.num_literals().max(1);
    if gp.logical.is_some() || literals > MAX_TRIED_LITERALS {
        return None;
    }
    let mut tries_left = MAX_TRIED_LITERALS / literals;
    let groups = groups(&gp.fluents);
    let nf = gp.fluents.len();
    let mut choice: Choice = vec![None; groups.len()];
    let mut best: Option<((usize, Reverse<usize>), GroundProgram)> = None;
    let base = score(gp, share);
    for g in 0..groups.len() {
        let arity = groups[g].sizes.len();
        if !groups[g].is_dense() || arity > MAX_TRIED_ARITY {
            continue;
        }
        // Padding widens a block: a split whose block outgrows the budgets
        // is not tried.
        let fitting: Vec<u32> = splits(arity)
            .filter(|&minor| groups[g].within_budget(groups[g].block_bits(minor)))
            .collect();
        for minor in fitting {
            if tries_left == 0 {
                return best.map(|(_, program)| program);
            }
            tries_left -= 1;
            let mut tried = choice.clone();
            tried[g] = Some(minor);
            let (bits, n) = bits_of(&groups, &tried, nf);
            let program = relaid_with(gp, &bits, n);
            let s = score(&program, share);
            if s > best.as_ref().map_or(base, |b| b.0) {
                choice = tried;
                best = Some((s, program));
            }
        }
    }
    let (score, program) = best?;
    Some(aligned(gp, &groups, choice, score.0, share).unwrap_or(program))
}

/// `gp` with every group left in text order whose arguments range over the
/// squares of a relaid board (all of them or some) laid out as a plane of
/// that board, where that keeps the state's words and the planes at least
/// `atoms` atoms; `None` when no group aligns.
///
/// A per-square fluent (the square of a piece that must capture again) is
/// tested against the board's per-square relations square by square. In
/// text order its bits lie at distances from theirs that vary with the
/// holes of the board, so the printer reads it one bit at a time; laid out
/// as a plane of the board, it is one shift for all squares
/// ([`crate::bitnet::families`]): 9.7% fewer instructions a playout on
/// English draughts. [`score`] cannot see that: the test is one atom, not
/// a plane class. The holes must fit in the words the state already has:
/// a state word more is copied and compared every step, and cost 4.8% on
/// a game whose aligned fluent was never read with the board.
fn aligned(
    gp: &GroundProgram,
    groups: &[Group],
    mut choice: Choice,
    atoms: usize,
    share: bool,
) -> Option<GroundProgram> {
    let nf = gp.fluents.len();
    let mut groups = groups.to_vec();
    let words = |groups: &[Group], choice: &Choice| bits_of(groups, choice, nf).1.div_ceil(64);
    let boards: Vec<Vec<Vec<String>>> = groups
        .iter()
        .zip(&choice)
        .filter_map(|(g, c)| c.map(|minor| g.minor_values(minor)))
        .map(|board| board.into_iter().map(<[String]>::to_vec).collect())
        .collect();
    let mut changed = false;
    for i in 0..groups.len() {
        if choice[i].is_some() || groups[i].sizes.is_empty() {
            continue;
        }
        let all = (1u32 << groups[i].sizes.len()) - 1;
        let Some((minor, on)) = (1..=all).find_map(|minor| {
            boards
                .iter()
                .filter_map(|board| groups[i].on_board(minor, board))
                .find(|on| on.within_budget(on.block_bits(minor)))
                .map(|on| (minor, on))
        }) else {
            continue;
        };
        let mut tried = (groups.clone(), choice.clone());
        tried.0[i] = on;
        tried.1[i] = Some(minor);
        if words(&tried.0, &tried.1) <= words(&groups, &choice) {
            (groups, choice) = tried;
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    let (bits, n) = bits_of(&groups, &choice, nf);
    let program = relaid_with(gp, &bits, n);
    (score(&program, share).0 >= atoms).then_some(program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::ground;
    use crate::reasoner::propnet::Propnet;
    use gdl_runtime::{Game, Move};

    const STRIP: &str = include_str!("../../tests/fixtures/strip.kif");
    const TRAIL: &str = include_str!("../../tests/fixtures/trail.kif");

    #[test]
    fn a_board_with_holes_is_laid_out_piece_by_piece() {
        let gp = ground(STRIP);
        let relaid = relaid(&gp).expect("the strip is relaid");
        let logical = relaid.logical.as_ref().expect("logical side kept");
        assert_eq!(logical.fluents, gp.fluents);
        for (f, text) in gp.fluents.iter().enumerate() {
            assert_eq!(&relaid.fluents[logical.bits[f] as usize], text);
        }
        // The runner's squares are one plane, one bit apart in square order.
        let bit = |text: &str| {
            let f = gp.fluents.iter().position(|t| t == text).expect("fluent");
            logical.bits[f] as i64
        };
        let runner: Vec<i64> = (1..=12).map(|k| bit(&format!("(cell {k} p)"))).collect();
        assert!(runner.windows(2).all(|w| w[1] - w[0] == 1), "{runner:?}");
        assert_eq!(
            bit("(cell 2 q)") - bit("(cell 1 p)"),
            bit("(cell 4 q)") - bit("(cell 3 p)")
        );
    }

    #[test]
    fn a_fluent_over_the_squares_of_a_board_is_laid_out_as_its_plane() {
        let gp = ground(TRAIL);
        let relaid = relaid(&gp).expect("the strip is relaid");
        let logical = relaid.logical.as_ref().expect("logical side kept");
        let bit = |text: &str| {
            let f = gp.fluents.iter().position(|t| t == text).expect("fluent");
            logical.bits[f] as i64
        };
        // In text order the trail's ten squares are ten bits in a row; as a
        // plane of the strip, each lies as far from its square's runner
        // bit as every other, one bit per square, the even ones holes.
        let from_runner: Vec<i64> = (1..=19)
            .step_by(2)
            .map(|k| bit(&format!("(trail {k})")) - bit(&format!("(cell {k} p)")))
            .collect();
        assert!(
            from_runner.windows(2).all(|w| w[0] == w[1]),
            "{from_runner:?}"
        );
        assert_eq!(
            relaid.fluents.len().div_ceil(64),
            1,
            "within the state's word"
        );
    }

    #[test]
    fn of_two_layouts_with_the_same_planes_the_narrower_is_kept() {
        let gp = ground(include_str!("../../tests/fixtures/two_colours.kif"));
        let relaid = relaid(&gp).expect("the board is relaid colour by colour");
        let logical = relaid.logical.as_ref().expect("logical side kept");
        let bit = |text: &str| {
            let f = gp.fluents.iter().position(|t| t == text).expect("fluent");
            logical.bits[f] as i64
        };
        // One colour's squares lie together in a word, the other colour's
        // in the next: a 36-bit plane does not straddle two words.
        assert_eq!(bit("(cell 1 2 o)") - bit("(cell 1 1 o)"), 1);
        assert_eq!(bit("(cell 6 6 o)") - bit("(cell 1 1 o)"), 35);
        assert_eq!(bit("(cell 1 1 x)") - bit("(cell 1 1 o)"), 64);
        assert!(score(&relaid, false) > score(&gp, false));
        assert_eq!(
            score(&relaid, false).0,
            score(&gp, false).0,
            "the same atoms in planes"
        );
    }

    /// The true fluents of a propnet state, by text.
    fn texts(game: &Propnet, state: &<Propnet as Game>::State) -> Vec<String> {
        let mut t = game.fluents(state);
        t.sort();
        t
    }

    #[test]
    fn a_relaid_program_plays_as_the_original() {
        plays_as_the_original(STRIP);
        plays_as_the_original(TRAIL);
    }

    fn plays_as_the_original(game: &str) {
        let gp = ground(game);
        let relaid = relaid(&gp).expect("the strip is relaid");
        let (a, b) = (Propnet::new(&gp), Propnet::new(&relaid));
        for seed in 0..20u64 {
            let (mut sa, mut sb) = (a.initial_state(), b.initial_state());
            let mut rng = seed;
            for _ in 0..30 {
                assert_eq!(texts(&a, &sa), texts(&b, &sb));
                assert_eq!(a.is_terminal(&sa), b.is_terminal(&sb));
                assert_eq!(a.goal(&sa, 0), b.goal(&sb, 0));
                if a.is_terminal(&sa) {
                    break;
                }
                let (mut ma, mut mb) = (Vec::new(), Vec::new());
                a.legal_moves(&sa, 0, &mut ma);
                b.legal_moves(&sb, 0, &mut mb);
                assert_eq!(ma, mb);
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m: Move = ma[(rng >> 33) as usize % ma.len()];
                a.apply_unchecked(&mut sa, &[m]);
                b.apply_unchecked(&mut sb, &[m]);
            }
        }
    }

    #[test]
    fn split_reads_top_level_arguments() {
        assert_eq!(
            split("(cell a 2 (piece white))"),
            ("cell", vec!["a", "2", "(piece white)"])
        );
        assert_eq!(split("control"), ("control", vec![]));
    }

    #[test]
    fn integers_rank_in_numeric_order() {
        let r = ranks_of(&["10", "9", "1"]);
        assert_eq!((r["1"], r["9"], r["10"]), (0, 1, 2));
    }

    #[test]
    fn a_dense_block_puts_the_minor_arguments_fastest() {
        let fluents: Vec<String> = [
            "(cell 1 1 x)",
            "(cell 1 2 o)",
            "(cell 2 1 o)",
            "(cell 2 2 x)",
            "turn",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let groups = groups(&fluents);
        // Squares minor (arguments 0 and 1), the mark major.
        let (bits, n) = bits_of(&groups, &vec![Some(0b011), None], fluents.len());
        // o plane first (o < x): (1,2) at 1, (2,1) at 2; x plane: (1,1) at 4, (2,2) at 7.
        assert_eq!(bits, vec![4, 1, 2, 7, 8]);
        assert_eq!(n, 9);
    }
}
