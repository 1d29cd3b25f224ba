//! Move dispatch: bodies of a `next` output that need one of a few moves of a
//! role (`(does r m)` for m in a small set) are taken out of the atom and run
//! only when such a move is made. A move's effects are then computed without
//! testing every other move's.

use super::conj::{BitLit, Conj};
use super::layout::Layout;
use super::{Atoms, Bodies, Params};
use crate::ground::{AtomId, GroundProgram, Output};

/// A body run when a role makes one move: it sets bit `pos` if `body` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// The move (an id of the role's moves).
    pub mv: u32,
    /// The bit of the atom the body defines.
    pub pos: u32,
    /// The body less its move test (no move set).
    pub body: Conj,
}

/// The bodies taken out for move dispatch.
#[derive(Clone, Debug, Default)]
pub struct Dispatch {
    /// Per role, the arms in the order they were found.
    pub arms: Vec<Vec<Arm>>,
    /// The atoms the arms read: the `next` evaluation must compute them.
    pub reads: Vec<Output>,
}

/// A body's `does` literal as a move set of one, so that it dispatches too.
fn as_move_set(c: Conj, layout: &Layout) -> Conj {
    let does_range = layout.does_bits();
    if c.any.is_empty() && c.lits.iter().filter(|l| does_range.contains(&l.0)).count() == 1 {
        let (d, rest): (Vec<BitLit>, Vec<BitLit>) =
            c.lits.iter().partition(|l| does_range.contains(&l.0));
        if !d[0].1 {
            return Conj {
                lits: rest,
                any: vec![d[0].0],
            };
        }
    }
    c
}

/// Per role, the moves of `c`'s move set.
fn moves_per_role(c: &Conj, layout: &Layout) -> Vec<Vec<u32>> {
    layout
        .role_moves
        .iter()
        .map(|&(start, n)| {
            c.any
                .iter()
                .filter(|p| (start..start + n).contains(p))
                .map(|p| p - start)
                .collect()
        })
        .collect()
}

/// Takes the dispatched bodies out of `next` atoms read only as outputs.
pub(crate) fn take_dispatched(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &mut Bodies,
    params: &Params,
) -> Dispatch {
    let ni = gp.num_inputs;
    let mut out = Dispatch {
        arms: vec![Vec::new(); gp.roles.len()],
        reads: Vec::new(),
    };
    for o in &gp.next {
        let Output::Atom(a) = *o else { continue };
        if a.0 < ni || atoms.used[a.0 as usize] != 1 || atoms.is_cyclic(a.0) {
            continue;
        }
        let pos = layout.pos(a);
        let mut kept = Vec::new();
        for c in std::mem::take(&mut bodies[(a.0 - ni) as usize]) {
            let c = as_move_set(c, layout);
            let per_role = moves_per_role(&c, layout);
            let small =
                !c.any.is_empty() && per_role.iter().all(|ms| ms.len() <= params.dispatch_max);
            if !small {
                kept.push(c);
                continue;
            }
            let body = Conj {
                lits: c.lits,
                any: Vec::new(),
            };
            out.reads.extend(
                body.lits
                    .iter()
                    .filter_map(|(p, _)| atoms.at_pos.get(p))
                    .map(|&b| Output::Atom(AtomId(b))),
            );
            for (r, ms) in per_role.iter().enumerate() {
                out.arms[r].extend(ms.iter().map(|&mv| Arm {
                    mv,
                    pos,
                    body: body.clone(),
                }));
            }
        }
        bodies[(a.0 - ni) as usize] = kept;
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{net, pos, TINY};
    use crate::bitnet::Params;

    /// "x marks cell 1" sets `(next (cell 1 x))` with no test: one arm of x's
    /// move 0, and the bit stays in the `next` output (not constant false).
    #[test]
    fn one_move_bodies_are_dispatched() {
        let (gp, net) = net(TINY, &Params::COMPILED);
        let p = pos(&gp, &net, "(next (cell 1 x))");
        let arm = net.dispatch.arms[0]
            .iter()
            .find(|a| a.pos == p)
            .expect("an arm for (next (cell 1 x))");
        assert_eq!(arm.mv, 0);
        assert!(arm.body.lits.is_empty());
        assert_eq!(net.next_bits[2], p);
    }

    /// The threshold is a parameter: with none allowed, nothing dispatches.
    #[test]
    fn the_threshold_bounds_dispatch() {
        let params = Params {
            dispatch_max: 0,
            planes: false,
            share: false,
            mirrors: false,
            copies: false,
        };
        let (_, narrow) = net(TINY, &params);
        assert!(narrow.dispatch.arms.iter().all(Vec::is_empty));
        let (_, wide) = net(TINY, &Params::PROPNET);
        assert!(wide.dispatch.arms.iter().any(|a| !a.is_empty()));
    }
}
