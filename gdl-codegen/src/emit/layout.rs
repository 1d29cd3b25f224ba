//! Where each atom of a ground program lives in the generated code's value
//! vector, and which atoms each query needs.
//!
//! The generated code keeps one `[u64; NV]` per query: first the state's
//! fluent words (so a state is copied in with one `copy_from_slice`), then the
//! words of the joint move's `does` atoms, then the derived atoms. An atom is
//! a bit position in that vector.

use crate::ground::{AtomId, GroundProgram, Lit, Output};

/// Bit position standing for a constant false output.
pub const FALSE_BIT: u32 = u32::MAX;
/// Bit position standing for a constant true output.
pub const TRUE_BIT: u32 = u32::MAX - 1;

/// The value-vector layout of a ground program.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Number of fluents.
    pub fluents: u32,
    /// Number of input atoms (fluents and moves).
    pub inputs: u32,
    /// Words of the state.
    pub state_words: usize,
    /// Words of the `does` atoms.
    pub does_words: usize,
    /// Words of the derived atoms.
    pub derived_words: usize,
    /// Per role, the bit position of its first move and its number of moves.
    pub role_moves: Vec<(u32, u32)>,
}

fn words(bits: u32) -> usize {
    (bits as usize).div_ceil(64)
}

impl Layout {
    /// The layout of `gp`.
    pub fn new(gp: &GroundProgram) -> Self {
        let fluents = gp.fluents.len() as u32;
        let mut layout = Layout {
            fluents,
            inputs: gp.num_inputs,
            state_words: words(fluents).max(1),
            does_words: words(gp.num_inputs - fluents).max(1),
            derived_words: words(gp.num_derived()).max(1),
            role_moves: Vec::new(),
        };
        layout.role_moves = (0..gp.roles.len())
            .map(|r| (layout.pos(gp.does_atom(r, 0)), gp.moves[r].len() as u32))
            .collect();
        layout
    }

    /// Total words of the value vector.
    pub fn total_words(&self) -> usize {
        self.state_words + self.does_words + self.derived_words
    }

    /// The bit position of an atom.
    pub fn pos(&self, atom: AtomId) -> u32 {
        let a = atom.0;
        if a < self.fluents {
            a
        } else if a < self.inputs {
            self.state_words as u32 * 64 + (a - self.fluents)
        } else {
            (self.state_words + self.does_words) as u32 * 64 + (a - self.inputs)
        }
    }

    /// The bit position of an output, with the constants' reserved positions.
    pub fn output_pos(&self, out: Output) -> u32 {
        match out {
            Output::False => FALSE_BIT,
            Output::True => TRUE_BIT,
            Output::Atom(a) => self.pos(a),
        }
    }
}

/// The derived atoms a set of outputs needs, as a membership vector indexed
/// by derived atom (`atom - num_inputs`).
pub fn cone(gp: &GroundProgram, outputs: impl IntoIterator<Item = Output>) -> Vec<bool> {
    let n = gp.num_derived() as usize;
    let mut need = vec![false; n];
    let mut stack: Vec<u32> = outputs
        .into_iter()
        .filter_map(|o| match o {
            Output::Atom(a) if a.0 >= gp.num_inputs => Some(a.0),
            _ => None,
        })
        .collect();
    while let Some(a) = stack.pop() {
        let i = (a - gp.num_inputs) as usize;
        if need[i] {
            continue;
        }
        need[i] = true;
        for rule in gp.rules_of(AtomId(a)) {
            stack.extend(
                rule.body
                    .iter()
                    .map(|l: &Lit| l.atom().0)
                    .filter(|&b| b >= gp.num_inputs && !need[(b - gp.num_inputs) as usize]),
            );
        }
    }
    need
}
