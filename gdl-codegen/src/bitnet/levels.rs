//! Levels: a topological order of the components over the final bodies.

use super::{Atoms, Bodies};
use crate::ground::GroundProgram;

/// The level of every derived atom: 1 + the highest level of an atom of
/// another component its bodies read (inputs are level 0). Bodies as
/// rewritten (inlined, substituted) may read atoms of later components, so
/// levels are relaxed until they settle; the reads stay acyclic.
pub fn levels(gp: &GroundProgram, atoms: &Atoms, bodies: &Bodies) -> Vec<u32> {
    let ni = gp.num_inputs;
    let mut comp_of = vec![0usize; gp.num_derived() as usize];
    for (k, comp) in gp.components.iter().enumerate() {
        for a in comp.start..comp.end {
            comp_of[(a - ni) as usize] = k;
        }
    }
    let deps: Vec<Vec<usize>> = gp
        .components
        .iter()
        .enumerate()
        .map(|(k, comp)| {
            let mut d: Vec<usize> = (comp.start..comp.end)
                .flat_map(|a| &bodies[(a - ni) as usize])
                .flat_map(|c| &c.lits)
                .filter_map(|(p, _)| atoms.at_pos.get(p))
                .map(|&b| comp_of[(b - ni) as usize])
                .filter(|&j| j != k)
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect();
    let mut comp_level = vec![0u32; deps.len()];
    // Each pass settles at least one more step of every chain of forward
    // reads; in the usual case the first pass is the last.
    for _ in 0..=deps.len() {
        let mut changed = false;
        for (k, d) in deps.iter().enumerate() {
            let lv = d.iter().map(|&j| comp_level[j] + 1).max().unwrap_or(0);
            if lv != comp_level[k] {
                comp_level[k] = lv;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    comp_of.iter().map(|&k| comp_level[k]).collect()
}

#[cfg(test)]
mod tests {
    use crate::bitnet::testing::{atom, net, SMALL};
    use crate::bitnet::Params;

    /// A reader is a level above what it reads.
    #[test]
    fn readers_come_after_what_they_read() {
        let (gp, net) = net(SMALL, &Params::COMPILED);
        let level = |t: &str| net.level[(atom(&gp, t) - gp.num_inputs) as usize];
        assert!(level("x") < level("(legal r try)"));
        assert!(level("(legal r mark)") < level("three"));
        assert_eq!(level("x"), 0);
    }
}
