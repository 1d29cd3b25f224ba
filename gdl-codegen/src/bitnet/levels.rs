//! Levels: a topological order of the components over the final bodies.

use super::planes::Plane;
use super::{Atoms, Bodies};
use crate::ground::GroundProgram;

/// The level of every derived atom: 1 + the highest level of an atom of
/// another unit its bodies read (inputs are level 0), where a unit is a
/// component, or the components of a plane's atoms together, or those of
/// one of `together` (the mirrors' units, [`super::mirrors`]). Bodies as
/// rewritten (inlined, substituted) may read atoms of later components; the
/// reads stay acyclic. A plane that would close a cycle through atoms
/// outside it is dropped from `planes`; a group of `together` that would is
/// left apart (the planes come first: they were there before mirrors).
pub fn levels(
    gp: &GroundProgram,
    atoms: &Atoms,
    bodies: &Bodies,
    planes: &mut Vec<Plane>,
    together: &[Vec<u32>],
) -> Vec<u32> {
    let mut lv = try_levels(gp, atoms, bodies, planes, &[]);
    if lv.is_none() {
        let mut kept: Vec<Plane> = Vec::new();
        for p in planes.drain(..) {
            kept.push(p);
            if try_levels(gp, atoms, bodies, &kept, &[]).is_none() {
                kept.pop();
            }
        }
        *planes = kept;
        lv = try_levels(gp, atoms, bodies, planes, &[]);
    }
    let mut kept: Vec<&[u32]> = Vec::new();
    for g in together {
        kept.push(g);
        match try_levels(gp, atoms, bodies, planes, &kept) {
            Some(with) => lv = Some(with),
            None => {
                kept.pop();
            }
        }
    }
    lv.expect("the reads of components are acyclic")
}

/// The root of `x` in the union-find `unit`, paths halved on the way.
fn find(unit: &mut [usize], mut x: usize) -> usize {
    while unit[x] != x {
        unit[x] = unit[unit[x]];
        x = unit[x];
    }
    x
}

/// The levels with `planes` and `together` merged, or `None` if the merged
/// reads have a cycle: longest paths by Kahn's algorithm.
fn try_levels(
    gp: &GroundProgram,
    atoms: &Atoms,
    bodies: &Bodies,
    planes: &[Plane],
    together: &[&[u32]],
) -> Option<Vec<u32>> {
    let ni = gp.num_inputs;
    let comp_of = gp.component_of();
    // Per component, its unit (a union-find over the merged groups).
    let mut unit: Vec<usize> = (0..gp.components.len()).collect();
    let groups = planes.iter().map(|p| &p.atoms[..]);
    for g in groups.chain(together.iter().copied()) {
        let first = find(&mut unit, comp_of[(g[0] - ni) as usize]);
        for &a in g {
            let r = find(&mut unit, comp_of[(a - ni) as usize]);
            if r != first {
                unit[r] = first;
            }
        }
    }
    for k in 0..unit.len() {
        unit[k] = find(&mut unit, k);
    }
    let n = unit.len();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for (k, comp) in gp.components.iter().enumerate() {
        let u = unit[k];
        let mut d: Vec<usize> = (comp.start..comp.end)
            .flat_map(|a| &bodies[(a - ni) as usize])
            .flat_map(|c| &c.lits)
            .filter_map(|(p, _)| atoms.at_pos.get(p))
            .map(|&b| unit[comp_of[(b - ni) as usize]])
            .filter(|&j| j != u)
            .collect();
        d.sort_unstable();
        d.dedup();
        for j in d {
            readers[j].push(u);
        }
    }
    for r in &mut readers {
        r.sort_unstable();
        r.dedup();
        for &u in r.iter() {
            indegree[u] += 1;
        }
    }
    let mut level = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n)
        .filter(|&u| unit[u] == u && indegree[u] == 0)
        .collect();
    let mut done = 0;
    while let Some(u) = ready.pop() {
        done += 1;
        for &r in &readers[u] {
            level[r] = level[r].max(level[u] + 1);
            indegree[r] -= 1;
            if indegree[r] == 0 {
                ready.push(r);
            }
        }
    }
    let units = (0..n).filter(|&u| unit[u] == u).count();
    (done == units).then(|| comp_of.iter().map(|&k| level[unit[k]]).collect())
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
