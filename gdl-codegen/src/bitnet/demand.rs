//! Demand: for each derived atom, bits one of which must hold for its value
//! to matter, or `None` when that is unknown.
//!
//! Each body reading the atom needs its rarest positive fluent literal to
//! hold (its witness), or else its head to matter; the atom's demand is the
//! union over its readers. When no fluent of the demand holds, every reader
//! is false or does not matter whatever the atom's value, so it need not be
//! computed. In chess, "the path from c1 to e3 is clear" matters only when a
//! bishop or a queen stands on c1. An atom reading the joint move can hold
//! only when one of a few moves is made (in reversi, "this disc flips" needs
//! a move on its ray): that set of `does` bits serves as well.

use std::collections::HashMap;

use super::conj::Conj;
use super::layout::Layout;
use super::move_sets::MoveSets;
use super::{Atoms, Bodies};
use crate::ground::{GroundProgram, Output};

/// Most words a demand may touch: a wider test costs about what it saves.
pub const MAX_DEMAND_WORDS: usize = 4;

/// The demand of every derived atom. Outputs and the atoms in
/// `read_by_code` (read by dispatched bodies) always matter.
pub fn compute(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
    move_sets: &MoveSets,
    read_by_code: &[Output],
) -> Vec<Option<Vec<u32>>> {
    let mut demand = fluent_demand(gp, layout, atoms, bodies, read_by_code);
    move_demand(gp, layout, atoms, bodies, move_sets, &mut demand);
    demand
}

/// Whether the sorted bits touch few enough words for a demand test.
fn few_words(set: &[u32]) -> bool {
    let mut words: Vec<u32> = set.iter().map(|f| f / 64).collect();
    words.dedup();
    words.len() <= MAX_DEMAND_WORDS
}

/// Per derived atom, its readers with their witnesses.
fn readers(layout: &Layout, atoms: &Atoms, bodies: &Bodies) -> Vec<Vec<(u32, Option<u32>)>> {
    let ni = atoms.inputs;
    let fl = layout.fluents;
    let mut freq: HashMap<u32, usize> = HashMap::new();
    for c in bodies.iter().flatten() {
        for &(p, neg) in &c.lits {
            if !neg && p < fl {
                *freq.entry(p).or_default() += 1;
            }
        }
    }
    let mut readers: Vec<Vec<(u32, Option<u32>)>> = vec![Vec::new(); bodies.len()];
    for (i, cs) in bodies.iter().enumerate() {
        for c in cs {
            let witness = c
                .lits
                .iter()
                .filter(|&&(p, neg)| !neg && p < fl)
                .min_by_key(|&&(p, _)| (freq[&p], p))
                .map(|&(p, _)| p);
            for (p, _) in &c.lits {
                if let Some(&b) = atoms.at_pos.get(p) {
                    readers[(b - ni) as usize].push((ni + i as u32, witness));
                }
            }
        }
    }
    readers
}

/// The fluent demand: from the readers' witnesses.
fn fluent_demand(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
    read_by_code: &[Output],
) -> Vec<Option<Vec<u32>>> {
    let ni = atoms.inputs;
    let readers = readers(layout, atoms, bodies);
    let mut always = atoms.outputs.clone();
    always.extend(read_by_code.iter().filter_map(|o| match o {
        Output::Atom(a) => Some(a.0),
        _ => None,
    }));
    let mut demand: Vec<Option<Vec<u32>>> = vec![None; bodies.len()];
    // Readers come in later components, or read by substitution an atom of
    // a later one; a reader not yet settled counts as always needed.
    for comp in gp.components.iter().rev().filter(|c| !c.cyclic) {
        'atoms: for a in comp.start..comp.end {
            if always.contains(&a) {
                continue;
            }
            let mut set = Vec::new();
            for &(r, witness) in &readers[(a - ni) as usize] {
                match (&demand[(r - ni) as usize], witness) {
                    (Some(d), _) if d.is_empty() => {}
                    (_, Some(f)) => set.push(f),
                    (Some(d), None) => set.extend(d.iter().copied()),
                    (None, None) => continue 'atoms,
                }
            }
            set.sort_unstable();
            set.dedup();
            if few_words(&set) {
                demand[(a - ni) as usize] = Some(set);
            }
        }
    }
    demand
}

/// The smallest move set one of whose moves a body needs, if any.
fn body_moves(
    c: &Conj,
    layout: &Layout,
    atoms: &Atoms,
    move_sets: &MoveSets,
    moves: &[Option<Vec<u32>>],
) -> Option<Vec<u32>> {
    let does_start = layout.state_words as u32 * 64;
    let does_end = does_start + layout.does_words as u32 * 64;
    let set_base = layout.move_set_base();
    c.lits
        .iter()
        .filter(|l| !l.1)
        .filter_map(|&(p, _)| {
            if (does_start..does_end).contains(&p) {
                Some(vec![p])
            } else if p >= set_base {
                move_sets.sets.get((p - set_base) as usize).cloned()
            } else {
                let b = *atoms.at_pos.get(&p)?;
                moves[(b - atoms.inputs) as usize].clone()
            }
        })
        .min_by_key(Vec::len)
}

/// The move demand: replaces an atom's demand by the moves one of which it
/// needs, where that set is smaller.
fn move_demand(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
    move_sets: &MoveSets,
    demand: &mut [Option<Vec<u32>>],
) {
    let ni = atoms.inputs;
    let mut moves: Vec<Option<Vec<u32>>> = vec![None; bodies.len()];
    for comp in gp.components.iter().filter(|c| !c.cyclic) {
        'atom: for a in comp.start..comp.end {
            let i = (a - ni) as usize;
            let mut set: Vec<u32> = move_sets.direct.get(&a).cloned().unwrap_or_default();
            for c in &bodies[i] {
                match body_moves(c, layout, atoms, move_sets, &moves) {
                    Some(m) => set.extend(m),
                    None => continue 'atom,
                }
            }
            set.sort_unstable();
            set.dedup();
            let own = move_sets.direct.get(&a).map_or(0, Vec::len);
            if few_words(&set) && set.len() > own {
                let better = match &demand[i] {
                    Some(d) => d.len() > set.len(),
                    None => true,
                };
                if better {
                    demand[i] = Some(set.clone());
                }
                moves[i] = Some(set);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, fluent, net, SMALL};
    use crate::bitnet::Params;

    /// `x` is read only by a body that needs `(k)`: it is computed only when
    /// `(k)` holds. Outputs always matter.
    #[test]
    fn an_atom_read_under_a_fluent_is_demanded_by_it() {
        let (gp, net) = net(SMALL, &Params::COMPILED);
        let x = atom(&gp, "x") - gp.num_inputs;
        assert_eq!(net.demand[x as usize], Some(vec![fluent(&gp, "(k)")]));
        let try_ = atom(&gp, "(legal r try)") - gp.num_inputs;
        assert_eq!(net.demand[try_ as usize], None);
    }
}
