//! Reads under demand guards: a reader whose value matters only when the
//! fluent literal `g` holds may read an atom `l` defined as `g ∧ x` alone in
//! place of `x`, since there the two are equal.
//!
//! In turn-taking games this turns "the side to move has a legal move" into
//! a test of the legal-move bits already computed, instead of a second
//! evaluation of every move's rule.

use std::collections::HashMap;

use super::conj::BitLit;
use super::layout::Layout;
use super::{Atoms, Bodies};
use crate::ground::{AtomId, GroundProgram};

/// Demand guards: for each derived atom, fluent literals under which alone
/// its value matters. Every rule reading the atom has the literal in its
/// body, or its head has it as a demand guard; outputs have none. When such
/// a literal is false, every reader is false or unread whatever the atom's
/// value.
pub fn demand_guards(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
) -> Vec<Vec<BitLit>> {
    let ni = gp.num_inputs;
    let nd = gp.num_derived() as usize;
    // For each atom, its readers: (reader, the other literals' fluents).
    let mut readers: Vec<Vec<(u32, Vec<BitLit>)>> = vec![Vec::new(); nd];
    for (i, conjs) in bodies.iter().enumerate() {
        for c in conjs {
            for &(p, neg) in &c.lits {
                if let Some(&b) = atoms.at_pos.get(&p) {
                    let others = c
                        .lits
                        .iter()
                        .copied()
                        .filter(|&l| l != (p, neg) && l.0 < layout.fluents)
                        .collect();
                    readers[(b - ni) as usize].push((ni + i as u32, others));
                }
            }
        }
    }
    let mut guards: Vec<Vec<BitLit>> = vec![Vec::new(); nd];
    // Readers come in later components: walk them backwards.
    for comp in gp.components.iter().rev().filter(|c| !c.cyclic) {
        for a in comp.start..comp.end {
            let i = (a - ni) as usize;
            if atoms.outputs.contains(&a) || readers[i].is_empty() {
                continue;
            }
            let mut common: Option<Vec<BitLit>> = None;
            for (r, others) in &readers[i] {
                let mut set: Vec<BitLit> = others.clone();
                set.extend(guards[(r - ni) as usize].iter().copied());
                common = Some(match common {
                    None => set,
                    Some(c) => c.into_iter().filter(|l| set.contains(l)).collect(),
                });
            }
            let mut g = common.unwrap_or_default();
            g.sort_unstable();
            g.dedup();
            guards[i] = g;
        }
    }
    guards
}

/// For each `x`, the atoms `l` defined by the one body `g ∧ x` with `g` a
/// fluent literal: `x` -> [(g, l)].
fn aliases(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
) -> HashMap<u32, Vec<(BitLit, u32)>> {
    let ni = gp.num_inputs;
    let mut aliases: HashMap<u32, Vec<(BitLit, u32)>> = HashMap::new();
    for a in ni..gp.num_atoms() {
        if atoms.is_cyclic(a) {
            continue;
        }
        let [c] = bodies[(a - ni) as usize].as_slice() else {
            continue;
        };
        if !c.any.is_empty() {
            continue;
        }
        if let [l1, l2] = c.lits.as_slice() {
            for (g, x) in [(*l1, *l2), (*l2, *l1)] {
                let derived = atoms.at_pos.get(&x.0).copied();
                if g.0 < layout.fluents && !x.1 && derived.is_some_and(|b| !atoms.is_cyclic(b)) {
                    aliases
                        .entry(x.0)
                        .or_default()
                        .push((g, layout.pos(AtomId(a))));
                }
            }
        }
    }
    aliases
}

/// Rewrites reads of `x` into reads of `l = g ∧ x` in the bodies of atoms
/// whose demand guards include `g`.
pub fn under_guards(gp: &GroundProgram, layout: &Layout, atoms: &Atoms, bodies: &mut Bodies) {
    let ni = gp.num_inputs;
    let guards = demand_guards(gp, layout, atoms, bodies);
    let aliases = aliases(gp, layout, atoms, bodies);
    if aliases.is_empty() {
        return;
    }
    for a in ni..gp.num_atoms() {
        let i = (a - ni) as usize;
        if atoms.cyclic[i] || guards[i].is_empty() {
            continue;
        }
        let own = layout.pos(AtomId(a));
        for c in bodies[i].iter_mut() {
            for lit in c.lits.iter_mut() {
                let Some(alts) = aliases.get(&lit.0) else {
                    continue;
                };
                if let Some(&(_, l)) = alts
                    .iter()
                    .find(|(g, l)| *l != own && guards[i].contains(g))
                {
                    lit.0 = l;
                }
            }
            c.lits.sort_unstable();
            c.lits.dedup();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, fluent, net, pos, SMALL};
    use crate::bitnet::Params;

    /// `three` matters only where `(control)` holds (its one reader, a goal,
    /// tests it), and `(legal r mark)` is `(control) ∧ two`: `three` reads
    /// the legal move's bit in place of `two`.
    #[test]
    fn readers_under_a_guard_read_the_guarded_atom() {
        let (gp, net) = net(SMALL, &Params::COMPILED);
        let three = atom(&gp, "three");
        let mark = pos(&gp, &net, "(legal r mark)");
        let k = fluent(&gp, "(k)");
        assert_eq!(
            net.bodies_of(three)[0].lits,
            vec![(k, false), (mark, false)]
        );
    }
}
