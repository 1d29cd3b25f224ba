//! Counters: a relation that counts along a chain, laid out along its count
//! so that a step of the chain is one shift of a word.
//!
//! Goal rules often count pieces square by square:
//! `pieceCount(x, y+1, c, n+1) <= pieceCount(x, y, c, n) ∧ cell(x, y+1, c)`
//! and `pieceCount(x, y+1, c, n) <= pieceCount(x, y, c, n) ∧ ¬cell(x, y+1, c)`.
//! Ground, that is one atom per square and count, each computed on its own
//! (reversi's 64 squares × 65 counts: about 30 K instructions a goal). The
//! atoms of one square (a *group*: the same arguments but the count) are
//! one-hot along the count. Laid out in count order, contiguously, every
//! member reads its predecessor group at the same distance, and the same
//! square's fluent (the same bit for all): the group is a plane
//! ([`super::planes`]) whose word is `prev << 1` where the square holds
//! and `prev` where it does not, a few word operations per square.
//!
//! A relation is a counter along argument `p` when every value at `p` is an
//! integer (its rank is the member's index); some member reads another
//! group at another index (the count steps: a relation that only passes
//! its index on, a ray from a fixed start, is no counter and stays with
//! the planes anchored on the board, under their guards); and in every
//! group large enough to be a plane, the atoms outside the relation that
//! the members' rules read are each read by at least half the members:
//! they are the group's fixed bits, not per-member windows. Whether the final bodies are
//! regular is [`super::planes::regular`]'s decision, as for any plane.

use std::collections::{BTreeMap, HashMap};

use super::planes::{MAX_PLANE_WORDS, MIN_PLANE_MEMBERS};
use super::relayout::{ranks_of, split};
use crate::ground::{AtomId, GroundProgram};

/// One group of a counter: derived atom ids with their index along the
/// count (its rank among the relation's values there), in index order.
pub type Group = Vec<(u32, u32)>;

/// The atoms of one relation (functor and arity): id and arguments.
type Relation<'a> = Vec<(u32, Vec<&'a str>)>;

/// The groups of every counter of `gp`, each relation along the first
/// argument that makes it one.
pub fn find(gp: &GroundProgram) -> Vec<Group> {
    let mut relations: BTreeMap<(&str, usize), Relation> = BTreeMap::new();
    for a in gp.num_inputs..gp.num_atoms() {
        let (functor, args) = split(&gp.atom_text[a as usize]);
        if !args.is_empty() {
            relations
                .entry((functor, args.len()))
                .or_default()
                .push((a, args));
        }
    }
    let mut out = Vec::new();
    for atoms in relations.values() {
        if atoms.len() < MIN_PLANE_MEMBERS {
            continue;
        }
        let arity = atoms[0].1.len();
        if let Some(groups) = (0..arity).find_map(|p| along(gp, atoms, p)) {
            out.extend(groups);
        }
    }
    out
}

/// The groups of `atoms` along argument `p`, if it is a counter there.
fn along(gp: &GroundProgram, atoms: &Relation, p: usize) -> Option<Vec<Group>> {
    let values: Vec<&str> = atoms.iter().map(|(_, args)| args[p]).collect();
    if values.iter().any(|v| v.parse::<i64>().is_err()) {
        return None;
    }
    let ranks = ranks_of(&values);
    if ranks.len() < MIN_PLANE_MEMBERS || ranks.len() > 64 * MAX_PLANE_WORDS as usize {
        return None;
    }
    let mut groups: BTreeMap<Vec<&str>, Group> = BTreeMap::new();
    for (a, args) in atoms {
        let mut key = args.clone();
        let value = key.remove(p);
        groups.entry(key).or_default().push((*a, ranks[value]));
    }
    let key_of: HashMap<u32, (&Vec<&str>, u32)> = groups
        .iter()
        .flat_map(|(k, g)| g.iter().map(move |&(a, i)| (a, (k, i))))
        .collect();
    let mut steps = false;
    for (key, group) in &groups {
        if group.len() < MIN_PLANE_MEMBERS {
            continue;
        }
        let (stepped, uniform) = group_reads(gp, group, key, &key_of)?;
        if !uniform {
            return None;
        }
        steps |= stepped;
    }
    steps.then(|| {
        groups
            .into_values()
            .filter(|g| g.len() > 1)
            .map(|mut g| {
                g.sort_unstable_by_key(|&(_, i)| i);
                g
            })
            .collect()
    })
}

/// Whether a member of `group` reads another group of the relation at
/// another index, and whether each atom outside the relation they read is
/// read by at least half the members. `None` when a member reads its own
/// group (a count that depends on itself is no chain).
fn group_reads(
    gp: &GroundProgram,
    group: &Group,
    key: &Vec<&str>,
    key_of: &HashMap<u32, (&Vec<&str>, u32)>,
) -> Option<(bool, bool)> {
    let mut steps = false;
    let mut readers: HashMap<u32, usize> = HashMap::new();
    for &(a, index) in group {
        let mut read: Vec<u32> = Vec::new();
        for lit in gp.rules_of(AtomId(a)).iter().flat_map(|r| r.body.iter()) {
            let b = lit.atom().0;
            match key_of.get(&b) {
                Some((k, _)) if *k == key => return None,
                Some(&(_, i)) => steps |= i != index,
                None => read.push(b),
            }
        }
        read.sort_unstable();
        read.dedup();
        for b in read {
            *readers.entry(b).or_default() += 1;
        }
    }
    let uniform = readers.values().all(|&n| 2 * n >= group.len());
    Some((steps, uniform))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::{atom, ground};

    /// Pieces counted over a row of ten cells: `count(i, n)`, the pieces
    /// among cells 1..=i, is a counter along `n`, one group per cell.
    const COUNT: &str = "
        (role p) (init (cell 1)) (init (cell 4))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10)
        (index 1) (index 2) (index 3) (index 4) (index 5)
        (index 6) (index 7) (index 8) (index 9) (index 10)
        (<= (legal p (put ?i)) (index ?i) (not (true (cell ?i))))
        (<= (next (cell ?i)) (does p (put ?i)))
        (<= (next (cell ?i)) (true (cell ?i)))
        (<= (count 1 1) (true (cell 1)))
        (<= (count 1 0) (not (true (cell 1))))
        (<= (count ?j ?m) (succ ?i ?j) (count ?i ?n) (succ ?n ?m) (true (cell ?j)))
        (<= (count ?j ?n) (succ ?i ?j) (count ?i ?n) (not (true (cell ?j))))
        (<= terminal (count 10 8))
        (<= (goal p ?n) (count 10 ?n))
    ";

    #[test]
    fn a_count_along_a_row_is_a_counter_per_cell() {
        let gp = ground(COUNT);
        let groups = find(&gp);
        let group_of = |t: &str| {
            let a = atom(&gp, t);
            groups.iter().find(|g| g.iter().any(|&(b, _)| b == a))
        };
        let last = group_of("(count 10 3)").expect("count is a counter");
        // Cell 10's counts are 0..=10, by rank: index is the count.
        assert_eq!(last.len(), 11);
        assert!(last
            .iter()
            .enumerate()
            .all(|(i, &(_, idx))| idx == i as u32));
        assert_eq!(last[7].0, atom(&gp, "(count 10 7)"));
        assert!(group_of("(count 10 3)") != group_of("(count 9 3)"));
        assert_eq!(group_of("(count 2 1)").map(Vec::len), Some(3));
    }

    #[test]
    fn a_relation_of_per_member_fluents_is_no_counter() {
        // `(filled i)` reads cell i, another for each member: no counter.
        let src = COUNT.replace(
            "(<= (goal p ?n)",
            "(<= (filled ?i) (index ?i) (true (cell ?i)) (not (true (cell 1))))
             (<= (goal p 50) (filled ?i))
             (<= (goal p ?n)",
        );
        let gp = ground(&src);
        let filled = atom(&gp, "(filled 3)");
        assert!(find(&gp).iter().flatten().all(|&(a, _)| a != filled));
    }

    /// In the compiled bitnet, a group large enough lies along its count,
    /// one bit per count, and is a plane: one shift of the group before.
    #[test]
    fn a_counter_group_is_a_plane_along_its_count() {
        use crate::bitnet::testing::{net, pos};
        use crate::bitnet::Params;
        let (gp, n) = net(COUNT, &Params::COMPILED);
        let at = |t: &str| pos(&gp, &n, t);
        assert_eq!(at("(count 10 4)") - at("(count 10 3)"), 1);
        assert_eq!(at("(count 10 10)") - at("(count 10 0)"), 10);
        assert_eq!(at("(count 10 0)") / 64, at("(count 10 10)") / 64);
        let a = atom(&gp, "(count 10 5)");
        let plane = n.planes.iter().find(|p| p.atoms.contains(&a));
        assert!(plane.is_some_and(|p| !p.cyclic && p.atoms.len() == 11));
        let (_, propnet) = net(COUNT, &Params::PROPNET);
        assert!(propnet.planes.is_empty());
    }
}
