//! Frame rules: a fluent's `next` atom holding when the fluent holds and one
//! of a set of moves is made, `(true f) ∧ (does r m)` for m in a set, the way
//! board games say "a cell keeps its piece unless a move touches it".
//!
//! Such bodies leave the atom and are applied for all fluents at once, word
//! by word: `next |= state & (KEEP_0[m_0] | ..)`, where `KEEP_r[m]` has the
//! bits of the fluents that role `r`'s move `m` keeps.

use super::layout::Layout;
use super::{Atoms, Bodies};
use crate::ground::{GroundProgram, Output};

/// Takes the frame bodies out of `next` atoms that nothing else reads.
/// Returns the keep tables, per role, per move, a state's words (empty when
/// no atom had a frame body).
pub fn take_frames(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &mut Bodies,
) -> Vec<Vec<Vec<u64>>> {
    let ni = gp.num_inputs;
    let nw = layout.state_words;
    let mut tables: Vec<Vec<Vec<u64>>> = layout
        .role_moves
        .iter()
        .map(|&(_, n)| vec![vec![0u64; nw]; n as usize])
        .collect();
    let mut any_frame = false;
    for (f, out) in gp.next.iter().enumerate() {
        let Output::Atom(a) = *out else { continue };
        // Atoms read anywhere but as a `next` output must keep their rules.
        if a.0 < ni || atoms.used[a.0 as usize] != 1 {
            continue;
        }
        let conjs = &mut bodies[(a.0 - ni) as usize];
        let Some(k) = conjs
            .iter()
            .position(|c| c.lits == [(f as u32, false)] && !c.any.is_empty())
        else {
            continue;
        };
        let frame = conjs.remove(k);
        for &p in &frame.any {
            for (r, &(start, n)) in layout.role_moves.iter().enumerate() {
                if (start..start + n).contains(&p) {
                    tables[r][(p - start) as usize][f / 64] |= 1 << (f % 64);
                }
            }
        }
        any_frame = true;
    }
    if !any_frame {
        return Vec::new();
    }
    tables
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, net, TINY};
    use crate::bitnet::Params;

    /// A cell is kept by every move that marks another cell: the keep rows of
    /// those moves have its bit, and its `next` atom keeps only the body
    /// that marks it.
    #[test]
    fn frame_bodies_become_keep_tables() {
        let (gp, net) = net(TINY, &Params::COMPILED);
        // (cell 1 x) is fluent 2; x's moves are (mark 1), (mark 2), (mark 3), noop.
        let kept_by = |r: usize| -> Vec<usize> {
            (0..4)
                .filter(|&m| net.keep[r][m][0] & (1 << 2) != 0)
                .collect()
        };
        assert_eq!(kept_by(0), vec![1, 2]);
        assert_eq!(kept_by(1), vec![1, 2]);
        let a = atom(&gp, "(next (cell 1 x))");
        assert!(net
            .bodies_of(a)
            .iter()
            .all(|c| !c.lits.contains(&(2, false))));
    }

    /// No frame body: no tables at all.
    #[test]
    fn no_frame_rules_no_tables() {
        let (_, net) = net(
            "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (p)) (does r a))
             (<= terminal (not (true (p)))) (goal r 100)",
            &Params::COMPILED,
        );
        assert!(net.keep.is_empty());
    }
}
