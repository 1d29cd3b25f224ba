//! Move-set bits: every set of moves that a remaining body tests ("one of
//! these moves is made") becomes one bit of the value vector, set when a move
//! is applied from a per-role table listing, for each move, the bits of the
//! sets holding it. A body then tests one bit instead of the words of the
//! set: in chess, "a move touches this square" is a set of a hundred moves
//! per square.
//!
//! After this pass no body has a move set left: a set holding every move of
//! a role always holds and is dropped.

use std::collections::HashMap;

use super::conj::any_always;
use super::layout::Layout;
use super::{Atoms, Bodies};
use crate::ground::AtomId;

/// The move-set bits of a bitnet.
#[derive(Clone, Debug, Default)]
pub struct MoveSets {
    /// The `does` bit positions of each move-set bit, by set number (bit
    /// [`Layout::move_set_base`] + number).
    pub sets: Vec<Vec<u32>>,
    /// Per role, per move: the bits the move sets (move-set bits and the bits
    /// of atoms that [`MoveSets::direct`] lists), in increasing order.
    pub table: Vec<Vec<Vec<u32>>>,
    /// Atoms whose bit the table sets directly ("one of these moves is made"
    /// was their whole body), with the `does` bits of those moves.
    pub direct: HashMap<u32, Vec<u32>>,
}

/// Replaces every move set of a body by a move-set bit, and widens the
/// layout by the bits.
pub(crate) fn take_move_sets(layout: &mut Layout, atoms: &Atoms, bodies: &mut Bodies) -> MoveSets {
    let base = layout.move_set_base();
    let mut numbers: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut table: Vec<Vec<Vec<u32>>> = layout
        .role_moves
        .iter()
        .map(|&(_, n)| vec![Vec::new(); n as usize])
        .collect();
    let mut direct_of = HashMap::new();
    let role_moves = layout.role_moves.clone();
    let add = |table: &mut Vec<Vec<Vec<u32>>>, any: &[u32], bit: u32| {
        for &p in any {
            for (r, &(start, n)) in role_moves.iter().enumerate() {
                if (start..start + n).contains(&p) {
                    table[r][(p - start) as usize].push(bit);
                }
            }
        }
    };
    // In atom order, so that set numbers (and the code) are the same every run.
    for (i, conjs) in bodies.iter_mut().enumerate() {
        let a = atoms.inputs + i as u32;
        let pos = layout.pos(AtomId(a));
        let cyclic = atoms.cyclic[i];
        let mut direct = Vec::new();
        conjs.retain_mut(|c| {
            if c.any.is_empty() {
                return true;
            }
            let any = std::mem::take(&mut c.any);
            if any_always(&any, layout) {
                return true;
            }
            if c.lits.is_empty() && !cyclic {
                // "One of these moves is made", alone: the table sets the
                // atom's own bit, and no code tests anything.
                add(&mut table, &any, pos);
                direct.extend(any);
                return false;
            }
            let next = numbers.len() as u32;
            let k = *numbers.entry(any.clone()).or_insert_with(|| {
                add(&mut table, &any, base + next);
                next
            });
            c.lits.push((base + k, false));
            c.lits.sort_unstable();
            true
        });
        if !direct.is_empty() {
            direct.sort_unstable();
            direct.dedup();
            direct_of.insert(a, direct);
        }
    }
    for row in table.iter_mut().flatten() {
        row.sort_unstable();
        row.dedup();
    }
    layout.move_set_words = numbers.len().div_ceil(64);
    let mut sets = vec![Vec::new(); numbers.len()];
    for (set, k) in numbers {
        sets[k as usize] = set;
    }
    MoveSets {
        sets,
        table,
        direct: direct_of,
    }
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, fluent, net, pos, GO, TINY};
    use crate::bitnet::Params;

    /// After the pass no body tests a move set: each is a bit set from the
    /// per-move tables.
    #[test]
    fn no_move_set_is_left() {
        for src in [TINY, GO] {
            check_sets(src);
        }
    }

    fn check_sets(src: &str) {
        let (_, net) = net(
            src,
            &Params {
                dispatch_max: 0,
                planes: false,
                share: false,
                mirrors: false,
                copies: false,
            },
        );
        assert!(net.bodies.iter().flatten().all(|c| c.any.is_empty()));
        assert!(net
            .dispatch
            .arms
            .iter()
            .flatten()
            .all(|a| a.body.any.is_empty()));
        // Every set bit is listed by the moves of its set, and only by them.
        let base = net.layout.move_set_base();
        for (k, set) in net.move_sets.sets.iter().enumerate() {
            let bit = base + k as u32;
            for (r, rows) in net.move_sets.table.iter().enumerate() {
                let (start, _) = net.layout.role_moves[r];
                for (m, row) in rows.iter().enumerate() {
                    let in_set = set.contains(&(start + m as u32));
                    assert_eq!(row.contains(&bit), in_set, "set {k}, role {r}, move {m}");
                }
            }
        }
        assert!(net.layout.move_set_words * 64 >= net.move_sets.sets.len());
    }

    /// "One of the `go` moves, and `(q)`" tests one set bit; "one of the `go`
    /// moves" alone is set by the tables directly and tests nothing.
    #[test]
    fn sets_become_bits_and_lone_sets_are_set_directly() {
        // Five moves: more than the compiled back end dispatches.
        let (gp, net) = net(GO, &Params::COMPILED);
        assert_eq!(net.move_sets.sets.len(), 1);
        let bit = net.layout.move_set_base();
        let p = atom(&gp, "(next (p))");
        let q = fluent(&gp, "(q)");
        assert_eq!(net.bodies_of(p)[0].lits, vec![(q, false), (bit, false)]);
        let s = atom(&gp, "(next (s))");
        assert!(net.bodies_of(s).is_empty());
        assert_eq!(net.move_sets.direct[&s].len(), 5);
        let go1 = 0;
        assert!(net.move_sets.table[0][go1].contains(&pos(&gp, &net, "(next (s))")));
    }
}
