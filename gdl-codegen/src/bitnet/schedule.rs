//! The schedule of each query: which atoms it computes, in which order, and
//! under which shared tests.
//!
//! A query computes the cone of its outputs, component by component in
//! level order (a valid topological order: a unit only reads units of lower
//! levels). Atoms are computed only when they can matter: units needed only
//! when one of a few bits holds (their demand) sit under one test of those
//! bits, and units whose bodies share a literal sit under one test of it
//! (the side to move, then the piece on a move's square). Every derived atom
//! starts false, so an atom that a failed test skips needs no write.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

use super::conj::{by_word, common_literals, disj_cost, words_of, BitLit, Conj};
use super::families;
use super::layout::{Layout, TRUE_BIT};
use super::planes::Plane;
use super::{Atoms, Bodies};
use crate::ground::{AtomId, GroundProgram, Output};

/// The analyses a schedule is made from.
pub(crate) struct Net<'a> {
    /// The ground program.
    pub gp: &'a GroundProgram,
    /// The value layout.
    pub layout: &'a Layout,
    /// Facts about the atoms.
    pub atoms: &'a Atoms,
    /// The final bodies.
    pub bodies: &'a Bodies,
    /// The demand of each derived atom.
    pub demand: &'a [Option<Vec<u32>>],
    /// The level of each derived atom.
    pub level: &'a [u32],
    /// The classes computed as units.
    pub planes: &'a [Plane],
}

/// The computation of one query.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Groups in order.
    pub groups: Vec<Group>,
}

/// Units of one level sharing one demand.
#[derive(Clone, Debug)]
pub struct Group {
    /// The level of its units.
    pub level: u32,
    /// When the group is computed.
    pub demand: Demand,
    /// Its units, under shared tests.
    pub blocks: Vec<Block>,
}

/// When a group of units is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Demand {
    /// Always (no demand known, or its test costs about what it saves).
    Always,
    /// Never: nothing that matters reads the units.
    Never,
    /// When one of these bits holds.
    When(Vec<u32>),
}

/// Units, or units under a test.
#[derive(Clone, Debug)]
pub enum Block {
    /// A unit computed unconditionally.
    Unit(Unit),
    /// Blocks computed only when a literal holds.
    Guarded {
        /// The literal tested.
        guard: BitLit,
        /// What the test guards.
        body: Vec<Block>,
    },
}

/// A component to compute.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Its atoms: bit position and bodies (as the bitnet has them).
    pub atoms: Vec<(u32, Vec<Conj>)>,
    /// Whether the component is cyclic: iterated to its least fixpoint.
    pub cyclic: bool,
    /// Literals enclosing tests have checked: left out of the bodies.
    pub tested: Vec<BitLit>,
    /// Whether the unit is a plane's ([`super::planes`]): its atoms are
    /// computed word by word where their bodies allow.
    pub plane: bool,
    /// Whether the unit is a plane reading moves (a ray seeded by the
    /// move: empty but near the move's square).
    pub seeded: bool,
    /// The bodies of its atom that a gathered family computes, when it
    /// has several and a family takes some ([`unguard_gathered`]): the
    /// size of its code counts only the others.
    pub by_family: Vec<usize>,
    level: u32,
    demand: Option<Vec<u32>>,
    guard: Option<BitLit>,
    guard2: Option<BitLit>,
}

impl Unit {
    /// The atoms with the bodies left to test (enclosing tests left out).
    pub fn bodies(&self) -> impl Iterator<Item = (u32, Vec<Conj>)> + '_ {
        self.atoms.iter().map(|(pos, conjs)| {
            let conjs = conjs
                .iter()
                .map(|c| self.tested.iter().fold(c.clone(), |c, &g| c.without(g)))
                .collect();
            (*pos, conjs)
        })
    }
}

impl Block {
    /// The units of the block, in order.
    pub fn units(&self) -> Vec<&Unit> {
        match self {
            Block::Unit(u) => vec![u],
            Block::Guarded { body, .. } => body.iter().flat_map(Block::units).collect(),
        }
    }
}

impl Group {
    /// The bits the group reads, by word: its demand, its guards and its
    /// atoms' bodies. An atom of the group changes between two states only
    /// if one of these bits does (the incremental evaluation's test).
    pub fn reads(&self) -> BTreeMap<u32, u64> {
        let mut bits: Vec<u32> = match &self.demand {
            Demand::When(bits) => bits.clone(),
            _ => Vec::new(),
        };
        fn block_reads(b: &Block, bits: &mut Vec<u32>) {
            match b {
                Block::Unit(u) => bits.extend(
                    u.atoms
                        .iter()
                        .flat_map(|(_, conjs)| conjs)
                        .flat_map(|c| c.lits.iter().map(|l| l.0).chain(c.any.iter().copied())),
                ),
                Block::Guarded { guard, body } => {
                    bits.push(guard.0);
                    body.iter().for_each(|b| block_reads(b, bits));
                }
            }
        }
        self.blocks.iter().for_each(|b| block_reads(b, &mut bits));
        // The constants are no bits of the vector.
        by_word(bits.into_iter().filter(|&b| b < TRUE_BIT))
    }

    /// The number of literals of the group's atoms' bodies.
    pub fn num_literals(&self) -> usize {
        self.blocks
            .iter()
            .flat_map(Block::units)
            .flat_map(|u| &u.atoms)
            .flat_map(|(_, conjs)| conjs)
            .map(|c| c.lits.len() + 1)
            .sum()
    }

    /// The bits the group writes, by word: its atoms.
    pub fn writes(&self) -> BTreeMap<u32, u64> {
        by_word(
            self.blocks
                .iter()
                .flat_map(Block::units)
                .flat_map(|u| u.atoms.iter().map(|(p, _)| *p)),
        )
    }
}

/// The schedules of the three queries: `eval` (legal and terminal), `goal`
/// and `next`, the last two less what `eval` computes (they start from its
/// values). `next` also computes the atoms that dispatched bodies read.
pub(crate) fn queries(net: &Net, dispatch_reads: &[Output]) -> (Schedule, Schedule, Schedule) {
    let gp = net.gp;
    let eval_need = cone(net, gp.legal.iter().flatten().copied().chain([gp.terminal]));
    let goal_need = not_in(
        cone(net, gp.goal.iter().flatten().map(|&(_, o)| o)),
        &eval_need,
    );
    let next_need = not_in(
        cone(
            net,
            gp.next
                .iter()
                .copied()
                .chain(dispatch_reads.iter().copied()),
        ),
        &eval_need,
    );
    (
        schedule(net, &eval_need),
        schedule(net, &goal_need),
        schedule(net, &next_need),
    )
}

/// The atoms of `need` that `done` does not hold.
fn not_in(need: Vec<bool>, done: &[bool]) -> Vec<bool> {
    need.into_iter().zip(done).map(|(n, &d)| n && !d).collect()
}

/// The derived atoms a set of outputs needs, by derived index.
pub(crate) fn cone(net: &Net, outputs: impl IntoIterator<Item = Output>) -> Vec<bool> {
    let ni = net.atoms.inputs;
    let mut need = vec![false; net.bodies.len()];
    let mut stack: Vec<u32> = outputs
        .into_iter()
        .filter_map(|o| match o {
            Output::Atom(a) if a.0 >= ni => Some(a.0),
            _ => None,
        })
        .collect();
    while let Some(a) = stack.pop() {
        let i = (a - ni) as usize;
        if need[i] {
            continue;
        }
        need[i] = true;
        for c in &net.bodies[i] {
            stack.extend(
                c.lits
                    .iter()
                    .filter_map(|(p, _)| net.atoms.at_pos.get(p).copied()),
            );
        }
    }
    need
}

/// The schedule computing the derived atoms in `need`.
fn schedule(net: &Net, need: &[bool]) -> Schedule {
    let mut units = units(net, need);
    // Order: by level, then by demand so that units needed under the same
    // bits are adjacent, then by guard likewise, then (the sort is stable)
    // as the ground program ordered them.
    units.sort_by(|u, w| {
        let key = |u: &Unit| (u.guard.is_none(), u.guard, u.guard2.is_none(), u.guard2);
        (u.level, u.demand.is_none(), &u.demand)
            .cmp(&(w.level, w.demand.is_none(), &w.demand))
            .then_with(|| key(u).cmp(&key(w)))
    });
    let groups = runs(&units, |u| Some((u.level, u.demand.clone())))
        .into_iter()
        .map(|group| Group {
            level: group[0].level,
            demand: demand_test(group),
            blocks: guard_blocks(group),
        })
        .collect();
    Schedule { groups }
}

/// The cost of computing a unit, in word operations.
fn unit_cost(unit: &Unit) -> usize {
    unit.atoms.iter().map(|(_, c)| disj_cost(c) + 1).sum()
}

/// Whether a group is tested for its demand: the test costs a word
/// operation per word it reads, so it pays only in front of atoms costing
/// clearly more.
fn demand_test(group: &[Unit]) -> Demand {
    let cost: usize = group.iter().map(unit_cost).sum();
    match &group[0].demand {
        // Read by nothing that matters.
        Some(bits) if bits.is_empty() => Demand::Never,
        Some(bits) if cost > 2 * words_of(bits) => Demand::When(bits.clone()),
        _ => Demand::Always,
    }
}

/// Splits `units` into runs of consecutive units with the same key; a unit
/// without a key is a run of its own.
fn runs<K: PartialEq>(units: &[Unit], key: impl Fn(&Unit) -> Option<K>) -> Vec<&[Unit]> {
    let mut out = Vec::new();
    let mut rest = units;
    while let Some(first) = rest.first() {
        let n = match key(first) {
            Some(k) => rest
                .iter()
                .take_while(|u| key(u).as_ref() == Some(&k))
                .count(),
            None => 1,
        };
        let (run, tail) = rest.split_at(n);
        out.push(run);
        rest = tail;
    }
    out
}

/// Units of one group, those sharing a guard under one test of it, and
/// within, those sharing a second guard under a test of that.
fn guard_blocks(units: &[Unit]) -> Vec<Block> {
    let mut blocks = Vec::new();
    for run in runs(units, |u| u.guard) {
        match run[0].guard {
            // A guard shared by several atoms: when it fails they are all
            // false (the vector starts at zero) and none is computed.
            Some(guard) if run.len() > 1 => blocks.push(Block::Guarded {
                guard,
                body: second_guard_blocks(run, guard),
            }),
            _ => blocks.extend(run.iter().cloned().map(Block::Unit)),
        }
    }
    blocks
}

/// Units sharing `guard`, split further by their second guards.
fn second_guard_blocks(units: &[Unit], guard: BitLit) -> Vec<Block> {
    let tested = |u: &Unit, t: Vec<BitLit>| {
        Block::Unit(Unit {
            tested: t,
            ..u.clone()
        })
    };
    let mut blocks = Vec::new();
    for run in runs(units, |u| u.guard2) {
        match run[0].guard2 {
            Some(g2) if run.len() > 1 => blocks.push(Block::Guarded {
                guard: g2,
                body: run.iter().map(|u| tested(u, vec![guard, g2])).collect(),
            }),
            _ => blocks.extend(run.iter().map(|u| tested(u, vec![guard]))),
        }
    }
    blocks
}

/// The demand of a component: the union of its atoms' (`None` if any is).
fn component_demand(demand: &[Option<Vec<u32>>], atoms: std::ops::Range<u32>) -> Option<Vec<u32>> {
    let mut all = Vec::new();
    for a in atoms {
        all.extend(demand.get(a as usize)?.as_ref()?.iter().copied());
    }
    all.sort_unstable();
    all.dedup();
    Some(all)
}

/// The components needed by a query, with their levels and guards.
fn units(net: &Net, need: &[bool]) -> Vec<Unit> {
    let ni = net.atoms.inputs;
    let mut units = Vec::new();
    let plane_of: HashMap<u32, usize> = net
        .planes
        .iter()
        .enumerate()
        .flat_map(|(k, p)| p.atoms.iter().map(move |&a| (a, k)))
        .collect();
    let mut plane_units: Vec<Option<Unit>> = vec![None; net.planes.len()];
    for comp in &net.gp.components {
        let atoms = comp.start..comp.end;
        if !atoms.clone().any(|a| need[(a - ni) as usize]) {
            continue;
        }
        let atoms: Vec<(u32, Vec<Conj>)> = atoms
            .map(|a| {
                (
                    net.layout.pos(AtomId(a)),
                    net.bodies[(a - ni) as usize].clone(),
                )
            })
            .filter(|(_, conjs)| !conjs.is_empty())
            .collect();
        if atoms.is_empty() {
            continue;
        }
        if let Some(&k) = plane_of.get(&comp.start) {
            let unit = plane_units[k].get_or_insert_with(|| Unit {
                level: net.level[(comp.start - ni) as usize],
                demand: None,
                guard: None,
                guard2: None,
                atoms: Vec::new(),
                cyclic: net.planes[k].cyclic,
                tested: Vec::new(),
                plane: true,
                seeded: net.planes[k].reads_moves,
                by_family: Vec::new(),
            });
            unit.atoms.extend(atoms);
            continue;
        }
        let guards = if comp.cyclic || atoms.len() != 1 {
            Vec::new()
        } else {
            common_literals(&atoms[0].1)
        };
        units.push((
            Unit {
                level: net.level[(comp.start - ni) as usize],
                // A component is needed when any of its atoms is.
                demand: component_demand(net.demand, comp.start - ni..comp.end - ni),
                guard: None,
                guard2: None,
                atoms,
                cyclic: comp.cyclic,
                tested: Vec::new(),
                plane: false,
                seeded: false,
                by_family: Vec::new(),
            },
            guards,
        ));
    }
    units.extend(plane_units.into_iter().flatten().map(|u| (u, Vec::new())));
    unguard_gathered(&mut units);
    choose_guards(net.layout, units)
}

/// Units that a gathered family will compute, whole or some of their bodies
/// ([`families::find_gathered_split`], among the one-atom units of a level
/// and demand, as the back end looks for them) get no guard: a guard would
/// split the family into blocks of an atom or two (draughts' frame rules,
/// each under its square's test).
fn unguard_gathered(units: &mut [(Unit, Vec<BitLit>)]) {
    let mut runs: BTreeMap<(u32, Option<Vec<u32>>), Vec<usize>> = BTreeMap::new();
    for (i, (u, _)) in units.iter().enumerate() {
        if !u.cyclic && !u.plane && u.atoms.len() == 1 {
            runs.entry((u.level, u.demand.clone())).or_default().push(i);
        }
    }
    for idx in runs.into_values() {
        let atoms: Vec<(u32, Vec<Conj>)> =
            idx.iter().map(|&i| units[i].0.atoms[0].clone()).collect();
        let (_, rest) = families::find(&atoms);
        let (_, left) = families::find_gathered_split(&atoms, &rest);
        for (k, bodies) in left {
            let n = atoms[k].1.len();
            if bodies.len() < n {
                units[idx[k]].1.clear();
                if n > 1 {
                    units[idx[k]].0.by_family = (0..n).filter(|j| !bodies.contains(j)).collect();
                }
            }
        }
    }
}

/// Each unit is guarded by its shared literal that most units share, so
/// that one test skips as many atoms as possible (in turn-taking games:
/// `(true (control ..))`). A second guard splits a large guarded group
/// further (in chess: the piece on a move's source square under the side to
/// move). It should fail often: a fluent that must hold (a piece on a
/// square) rather than one that must not (no own piece on the target),
/// which holds in most states and skips nothing.
fn choose_guards(layout: &Layout, units: Vec<(Unit, Vec<BitLit>)>) -> Vec<Unit> {
    let mut freq: HashMap<BitLit, usize> = HashMap::new();
    for (_, guards) in &units {
        for g in guards {
            *freq.entry(*g).or_default() += 1;
        }
    }
    let class = |g: &BitLit| match *g {
        (p, false) if p < layout.fluents => 2,
        (_, false) => 1,
        _ => 0,
    };
    units
        .into_iter()
        .map(|(mut u, guards)| {
            u.guard = guards
                .iter()
                .copied()
                .max_by_key(|g| (freq[g], Reverse(*g)));
            u.guard2 = guards
                .iter()
                .copied()
                .filter(|g| Some(*g) != u.guard && freq[g] > 1)
                .max_by_key(|g| (class(g), freq[g], Reverse(*g)));
            u
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::{fluent, net, pos, SMALL, TINY};
    use crate::bitnet::Params;

    fn positions(s: &Schedule) -> Vec<u32> {
        s.groups
            .iter()
            .flat_map(|g| &g.blocks)
            .flat_map(Block::units)
            .flat_map(|u| u.atoms.iter().map(|(p, _)| *p))
            .collect()
    }

    /// The legal moves of the side to move share its `(control ..)` test:
    /// one guarded block, bodies without the guard.
    #[test]
    fn atoms_sharing_a_literal_sit_under_one_test() {
        let (gp, net) = net(TINY, &Params::COMPILED);
        let control_x = fluent(&gp, "(control x)");
        let guarded: Vec<&Block> = net
            .eval
            .groups
            .iter()
            .flat_map(|g| &g.blocks)
            .filter(|b| matches!(b, Block::Guarded { guard, .. } if *guard == (control_x, false)))
            .collect();
        assert_eq!(guarded.len(), 1);
        let units = guarded[0].units();
        assert_eq!(units.len(), 3);
        for u in units {
            for (_, conjs) in u.bodies() {
                assert!(conjs.iter().all(|c| !c.lits.contains(&(control_x, false))));
            }
        }
    }

    /// Each query computes its cone, less what the evaluation computed.
    #[test]
    fn queries_compute_their_cones_once() {
        let (gp, net) = net(SMALL, &Params::COMPILED);
        let eval = positions(&net.eval);
        let goal = positions(&net.goal);
        let won = net
            .layout
            .output_pos(gp.goal[0].iter().find(|g| g.0 == 100).unwrap().1);
        assert!(eval.contains(&net.layout.output_pos(gp.legal[0][2])));
        assert!(goal.contains(&won));
        assert!(!eval.contains(&won));
        assert!(goal.iter().all(|p| !eval.contains(p)));
        // `three` moved into the goal: nothing computes it.
        assert!(!goal.contains(&pos(&gp, &net, "three")));
    }
}
