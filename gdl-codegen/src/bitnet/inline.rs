//! Inlining: an atom defined by one conjunction of literals (no move set) is
//! replaced, where it is read positively, by those literals (at most
//! [`MAX_INLINE`] of them, or any number if it is read once), and where it is
//! read negatively, if it is a single literal, by that literal negated.
//!
//! The literals then join the reader's word-mask tests and its guard, and
//! the atom itself is only computed if something still reads it.
//!
//! An atom laid out in a plane is not inlined into a reader in another
//! plane: the reader's plane is computed a word at a time only while every
//! member reads its neighbours at the same distances, and the ends of a ray
//! (reversi's `affected` next to the move, with one body) would otherwise
//! put their own literals in a few of `affectedCell`'s bodies only. Read as
//! a window of its plane, it costs one shift for the whole word. Within one
//! plane (a ray reading its own end) it is kept only in a ray seeded by the
//! move, whose loop is skipped when the move seeds nothing; a ray of the
//! state keeps its ends inlined as before: in NOTHELLO_S a short ray is
//! cheaper atom by atom, in one pass, than iterated as a plane (+9%
//! instructions a playout when it was not).
//!
//! Nor is an atom of a mirror's chain ([`super::mirrors`]) inlined into
//! another: laid out at the same bits, the reader computes a word of them as
//! one word operation over the atoms it reads, not over their literals
//! (inlined, our chess ran 7.8% more instructions a playout).

use std::collections::HashMap;

use super::conj::Conj;
use super::layout::Layout;
use super::{Atoms, Bodies};
use crate::ground::GroundProgram;

/// Most literals of a conjunction inlined into its readers.
pub const MAX_INLINE: usize = 4;

/// Inlines small conjunctions into their readers, component by component in
/// topological order, so that a reader sees its inputs already inlined.
pub fn inline_conjunctions(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &mut Bodies,
) {
    let ni = gp.num_inputs;
    let reads = read_counts(gp, atoms, bodies);
    let class_of: HashMap<u32, usize> = layout
        .planes
        .iter()
        .enumerate()
        .flat_map(|(k, c)| c.iter().map(move |&a| (a, k)))
        .collect();
    // The planes seeded by a move (a body reads a `does` bit).
    let does = layout.does_bits();
    let seeded: Vec<bool> = (layout.planes.iter())
        .map(|c| {
            c.iter().any(|&a| {
                (bodies[(a - ni) as usize].iter())
                    .any(|c| c.lits.iter().any(|l| does.contains(&l.0)))
            })
        })
        .collect();
    let mirrors = &layout.mirrors.atoms;
    for comp in &gp.components {
        if comp.cyclic {
            continue;
        }
        for a in comp.start..comp.end {
            let keep = |b: u32| match (class_of.get(&a), class_of.get(&b)) {
                (Some(x), Some(y)) => x != y || seeded[*x],
                _ => mirrors.contains(&a) && mirrors.contains(&b),
            };
            let conjs = std::mem::take(&mut bodies[(a - ni) as usize]);
            let conjs = conjs
                .into_iter()
                .filter_map(|c| inline_conj(c, atoms, bodies, &reads, keep))
                .collect();
            bodies[(a - ni) as usize] = conjs;
        }
    }
}

/// Per derived atom, how many bodies read it.
fn read_counts(gp: &GroundProgram, atoms: &Atoms, bodies: &Bodies) -> Vec<u32> {
    let ni = gp.num_inputs;
    let mut reads = vec![0u32; gp.num_derived() as usize];
    for c in bodies.iter().flatten() {
        for (p, _) in &c.lits {
            if let Some(&b) = atoms.at_pos.get(p) {
                reads[(b - ni) as usize] += 1;
            }
        }
    }
    reads
}

/// One conjunction with its inlinable literals replaced; `None` when it can
/// never hold.
/// `keep(b)`: atom `b` stays a literal whatever its bodies.
fn inline_conj(
    c: Conj,
    atoms: &Atoms,
    bodies: &Bodies,
    reads: &[u32],
    keep: impl Fn(u32) -> bool,
) -> Option<Conj> {
    let ni = atoms.inputs;
    let mut lits = Vec::with_capacity(c.lits.len());
    for (p, neg) in c.lits {
        let Some(&b) = atoms.at_pos.get(&p) else {
            lits.push((p, neg));
            continue;
        };
        // An output is computed anyway: reading it is cheaper than repeating
        // its rule.
        if atoms.is_cyclic(b) || atoms.outputs.contains(&b) || keep(b) {
            lits.push((p, neg));
            continue;
        }
        match (bodies[(b - ni) as usize].as_slice(), neg) {
            // Never true: a positive read fails, a negative one holds.
            ([], false) => return None,
            ([], true) => {}
            // Read once, it moves whole into its reader: nothing is computed
            // twice, and the reader's guards see its literals.
            ([one], false)
                if one.any.is_empty()
                    && (one.lits.len() <= MAX_INLINE || reads[(b - ni) as usize] == 1) =>
            {
                lits.extend(one.lits.iter().copied());
            }
            ([one], true) if one.any.is_empty() && one.lits.len() == 1 => {
                let (q, n) = one.lits[0];
                lits.push((q, !n));
            }
            ([one], true) if one.any.is_empty() && one.lits.is_empty() => return None,
            _ => lits.push((p, neg)),
        }
    }
    lits.sort_unstable();
    lits.dedup();
    if lits.windows(2).any(|w| w[0].0 == w[1].0) {
        // Both `q` and `not q`.
        return None;
    }
    Some(Conj { lits, any: c.any })
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, fluent, net, SMALL};
    use crate::bitnet::Params;
    use crate::ground::{AtomId, Output};

    /// `three`, one body of two literals (after substitution: `(k)` and
    /// the legal move `mark`), moves into the goal that reads it; `x`, of
    /// two bodies, stays an atom.
    #[test]
    fn one_body_conjunctions_move_into_their_readers() {
        let (gp, net) = net(SMALL, &Params::COMPILED);
        let Output::Atom(won) = gp.goal[0].iter().find(|g| g.0 == 100).unwrap().1 else {
            panic!("the goal is an atom")
        };
        let (control, k) = (fluent(&gp, "(control)"), fluent(&gp, "(k)"));
        let Output::Atom(mark) = gp.legal[0][1] else {
            panic!("legal mark is an atom")
        };
        let mark = net.layout.pos(mark);
        assert_eq!(
            net.bodies_of(won.0)[0].lits,
            vec![(control, false), (k, false), (mark, false)]
        );
        let Output::Atom(try_) = gp.legal[0][2] else {
            panic!("legal try is an atom")
        };
        let x = net.layout.pos(AtomId(atom(&gp, "x")));
        assert!(net.bodies_of(try_.0)[0].lits.contains(&(x, false)));
    }
}
