//! The bitnet: a ground program as word-level rules over one bit vector, the
//! IR under both bit-level back ends. The propnet interprets it; the ground
//! back end prints it as Rust.
//!
//! Every atom is a bit of a value vector ([`layout`]); every rule body is a
//! conjunction of bit literals ([`conj`]). [`build`] runs the passes, one a
//! file, in this order:
//! 1. [`conj::merge`]: rules differing only in the move made become one body
//!    with a move set;
//! 2. `frames`: frame rules (`next(f) <= true(f) ∧ does`) leave the bodies
//!    for per-move keep tables applied word by word;
//! 3. `substitute`: a reader that matters only when fluent `g` holds reads
//!    `l = g ∧ x` in place of `x`;
//! 4. `inline`: small conjunctions move into their readers;
//! 5. [`dispatch`]: `next` bodies needing one of a few moves run only when
//!    such a move is made;
//! 6. [`move_sets`]: every remaining move set becomes one bit, set from
//!    per-move tables;
//! 7. `demand`: the fluents or moves one of which must hold for an atom to
//!    matter;
//! 8. `levels`: a topological level per atom, over the final bodies;
//! 9. [`schedule`]: per query (legal and terminal, goal, next), the atoms it
//!    computes, in order, grouped under shared tests.
//!
//! [`Bitnet::summary`] prints the result. Before the compiled back end's
//! bitnet is built, [`relayout`] lays the program's boards out densely,
//! piece by piece, where that gives the [`planes`] more to do.
//! The layout also puts the groups of a counting relation ([`counters`])
//! along their count, so that the planes compute a step of the count as a
//! shift, and a relation read atom for atom by another at that reader's
//! bits ([`mirrors`]), computed with it at one level.

pub mod churn;
pub mod classes;
pub mod conj;
pub mod counters;
pub(crate) mod demand;
pub mod dispatch;
pub mod families;
pub(crate) mod frames;
pub(crate) mod inline;
pub mod layout;
pub(crate) mod levels;
pub mod mirrors;
pub mod move_sets;
pub mod planes;
pub mod relayout;
pub mod schedule;
pub(crate) mod substitute;
mod summary;
#[cfg(test)]
pub(crate) mod testing;

use std::collections::{HashMap, HashSet};

use crate::ground::{GroundProgram, Output};
use conj::Conj;
use dispatch::Dispatch;
use layout::{Layout, PlaneChoice, FALSE_BIT};
use move_sets::MoveSets;
use schedule::Schedule;

/// Thresholds of the passes that differ between back ends.
#[derive(Clone, Debug)]
pub struct Params {
    /// Largest set of one role's moves a `next` body may need to be run by
    /// move dispatch rather than tested.
    pub dispatch_max: usize,
    /// Whether regular classes ([`planes`]) are computed as units, word
    /// by word.
    pub planes: bool,
    /// Whether the classes read a fluent that half a relation's atoms read
    /// (the side to move) as one bit broadcast over the word, and a class
    /// wider than a plane is laid out in parts
    /// ([`classes::classes_with`], [`classes::by_one_arg`]).
    pub share: bool,
    /// Whether a relation read atom for atom by another is laid out at its
    /// reader's bits ([`mirrors`]).
    pub mirrors: bool,
    /// Whether a group of atoms that are copies of one another at each
    /// anchor is laid out in planes split by one argument
    /// ([`classes::classes_with`]).
    pub copies: bool,
}

impl Params {
    /// The compiled back end: dispatch is a `match` arm per move, code that
    /// grows with the set.
    pub const COMPILED: Params = Params {
        dispatch_max: 4,
        planes: true,
        share: true,
        mirrors: true,
        copies: true,
    };
    /// The propnet: dispatch is a table lookup, as cheap for a set of 24
    /// moves as for one.
    pub const PROPNET: Params = Params {
        dispatch_max: 24,
        planes: false,
        share: false,
        mirrors: false,
        copies: false,
    };
}

/// Facts about the atoms that the passes read and none changes.
#[derive(Clone, Debug)]
pub struct Atoms {
    /// Number of input atoms: derived atom `a` has index `a - inputs`.
    pub inputs: u32,
    /// The derived atom at each bit position.
    pub at_pos: HashMap<u32, u32>,
    /// Per derived atom, whether it is in a cyclic component.
    pub cyclic: Vec<bool>,
    /// The derived atoms that are query outputs: computed whatever reads them.
    pub outputs: HashSet<u32>,
    /// Per atom, how often it is read: by ground rule bodies and as an output.
    pub used: Vec<u32>,
}

impl Atoms {
    fn new(gp: &GroundProgram, layout: &Layout) -> Self {
        let ni = gp.num_inputs;
        let mut cyclic = vec![false; gp.num_derived() as usize];
        for comp in gp.components.iter().filter(|c| c.cyclic) {
            for a in comp.start..comp.end {
                cyclic[(a - ni) as usize] = true;
            }
        }
        let mut used = vec![0u32; gp.num_atoms() as usize];
        for rule in &gp.rules {
            for l in rule.body.iter() {
                used[l.atom().0 as usize] += 1;
            }
        }
        let mut outputs = HashSet::new();
        for o in gp.outputs() {
            if let Output::Atom(a) = o {
                used[a.0 as usize] += 1;
                if a.0 >= ni {
                    outputs.insert(a.0);
                }
            }
        }
        Atoms {
            inputs: ni,
            at_pos: (ni..gp.num_atoms())
                .map(|a| (layout.pos(crate::ground::AtomId(a)), a))
                .collect(),
            cyclic,
            outputs,
            used,
        }
    }

    /// Whether derived atom `a` is in a cyclic component.
    pub fn is_cyclic(&self, a: u32) -> bool {
        self.cyclic[(a - self.inputs) as usize]
    }
}

/// The bodies of every derived atom, indexed by `atom - inputs`.
pub type Bodies = Vec<Vec<Conj>>;

/// A ground program ready for a bit-level back end.
#[derive(Clone, Debug)]
pub struct Bitnet {
    /// Where each atom lives in the value vector.
    pub layout: Layout,
    /// Facts about the atoms.
    pub atoms: Atoms,
    /// The final bodies of each derived atom.
    pub bodies: Bodies,
    /// Per role, per move: the state words of the fluents a frame rule keeps
    /// when the move is made (empty: no frame rules).
    pub keep: Vec<Vec<Vec<u64>>>,
    /// Bodies run by move dispatch.
    pub dispatch: Dispatch,
    /// The move-set bits and their tables.
    pub move_sets: MoveSets,
    /// Per derived atom, the bits one of which must hold for it to matter.
    pub demand: Vec<Option<Vec<u32>>>,
    /// Per derived atom, its level (inputs are level 0).
    pub level: Vec<u32>,
    /// The classes computed as units, word by word.
    pub planes: Vec<planes::Plane>,
    /// Computes the outputs of `legal` and `terminal` from a state.
    pub eval: Schedule,
    /// Computes the rest of the outputs of `goal`, after `eval`.
    pub goal: Schedule,
    /// Computes the rest of `next` after `eval`, with the joint move's bits.
    pub next: Schedule,
    /// Whether the classes offered to the layout include parts of groups
    /// of copies ([`Params::copies`]): without them it may print shorter.
    pub copies: bool,
    /// Per fluent, the bit holding its `next` output ([`FALSE_BIT`]: only
    /// the keep tables can make it true; an atom that dispatched bodies or
    /// the move tables set keeps its bit).
    pub next_bits: Vec<u32>,
}

impl Bitnet {
    /// The final bodies of derived atom `a`.
    pub fn bodies_of(&self, a: u32) -> &[Conj] {
        &self.bodies[(a - self.atoms.inputs) as usize]
    }
}

/// Builds the bitnet of a ground program. Classes are laid out as planes
/// only where their final bodies are regular: when some are not, the
/// bitnet is built again without them (a plane that is not computed word by
/// word only spreads its atoms over more words).
pub fn build(gp: &GroundProgram, params: &Params) -> Bitnet {
    if !params.planes {
        return build_with(gp, params, None);
    }
    let found = classes::classes_with(gp, params.share, params.copies);
    let counters = counters::find(gp);
    let all = PlaneChoice {
        found: &found,
        classes: None,
        moves: true,
        counters: &counters,
        split_wide: params.share,
        mirrors: params.mirrors,
    };
    let mut net = build_with(gp, params, Some(all));
    net.copies = found.copies > 0;
    let regular: Vec<u32> = net.planes.iter().map(|p| p.class).collect();
    let moves = net.planes.iter().any(|p| p.reads_moves);
    if regular.len() == net.layout.planes.len() && moves == net.layout.has_move_planes() {
        return net;
    }
    let choice = PlaneChoice {
        found: &found,
        classes: Some(&regular),
        moves,
        counters: &counters,
        split_wide: params.share,
        mirrors: params.mirrors,
    };
    let mut net = build_with(gp, params, Some(choice));
    net.copies = found.copies > 0;
    net
}

/// The passes in their order, with the planes of `choice` (`None`: none).
fn build_with(gp: &GroundProgram, params: &Params, choice: Option<PlaneChoice>) -> Bitnet {
    let mut layout = Layout::with_planes(gp, choice);
    let atoms = Atoms::new(gp, &layout);
    let mut bodies: Bodies = (gp.num_inputs..gp.num_atoms())
        .map(|a| conj::merge(gp.rules_of(crate::ground::AtomId(a)), &layout))
        .collect();
    let keep = frames::take_frames(gp, &layout, &atoms, &mut bodies);
    substitute::under_guards(gp, &layout, &atoms, &mut bodies);
    inline::inline_conjunctions(gp, &layout, &atoms, &mut bodies);
    let dispatch = dispatch::take_dispatched(gp, &layout, &atoms, &mut bodies, params);
    let move_sets = move_sets::take_move_sets(&mut layout, &atoms, &mut bodies);
    let demand = demand::compute(gp, &layout, &atoms, &bodies, &move_sets, &dispatch.reads);
    let mut planes = if params.planes {
        planes::regular(gp, &layout, &mut bodies)
    } else {
        Vec::new()
    };
    let level = levels::levels(gp, &atoms, &bodies, &mut planes, &layout.mirrors.units);
    let net = schedule::Net {
        planes: &planes,
        gp,
        layout: &layout,
        atoms: &atoms,
        bodies: &bodies,
        demand: &demand,
        level: &level,
    };
    let (eval, goal, next) = schedule::queries(&net, &dispatch.reads);
    let next_bits = next_bits(gp, &layout, &atoms, &bodies, &move_sets, &dispatch);
    Bitnet {
        layout,
        atoms,
        bodies,
        keep,
        dispatch,
        move_sets,
        demand,
        level,
        planes,
        eval,
        goal,
        next,
        next_bits,
        copies: false,
    }
}

/// The bit of each fluent's `next` output; an atom left with no rules of its
/// own (frame rules taken out) is never true by them.
fn next_bits(
    gp: &GroundProgram,
    layout: &Layout,
    atoms: &Atoms,
    bodies: &Bodies,
    move_sets: &MoveSets,
    dispatch: &Dispatch,
) -> Vec<u32> {
    let dispatched: HashSet<u32> = dispatch.arms.iter().flatten().map(|a| a.pos).collect();
    gp.next
        .iter()
        .map(|o| match o {
            Output::Atom(a)
                if a.0 >= atoms.inputs
                    && bodies[(a.0 - atoms.inputs) as usize].is_empty()
                    && !move_sets.direct.contains_key(&a.0)
                    && !dispatched.contains(&layout.pos(*a)) =>
            {
                FALSE_BIT
            }
            o => layout.output_pos(*o),
        })
        .collect()
}
