//! Where each atom of a ground program lives in the value vector.
//!
//! Generated code and the propnet keep one `[u64; NV]` per query: first the
//! state's fluent words (so a state is copied in with one `copy_from_slice`),
//! then the words of the joint move's `does` atoms, then the derived atoms,
//! then the bits of the sets of moves that rule bodies test. An atom is a bit
//! position in that vector.

use crate::ground::{AtomId, GroundProgram, Output};

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
    /// Words of the move-set bits after the derived atoms: bit `k` holds
    /// when the joint move has a move in the `k`th set that rule bodies test
    /// (set from per-move tables, see [`super::move_sets`]).
    pub move_set_words: usize,
    /// Per role, the bit position of its first move and its number of moves.
    pub role_moves: Vec<(u32, u32)>,
    /// Position of each derived atom, relative to the derived words.
    derived_pos: Vec<u32>,
    /// Word-aligned regions of the derived words holding query outputs in
    /// output order: one per role for its legal moves (bit `m` is move `m`),
    /// then one for `next` (bit `f` is fluent `f`). Reading a query's
    /// outputs is then a copy of words, not a gather of bits.
    pub regions: Vec<u32>,
}

fn words(bits: u32) -> usize {
    (bits as usize).div_ceil(64)
}

impl Layout {
    /// The layout of `gp`.
    pub fn new(gp: &GroundProgram) -> Self {
        let fluents = gp.fluents.len() as u32;
        let ni = gp.num_inputs;
        // Output regions first, each word-aligned; an atom serving as several
        // outputs sits in the first region that claims it.
        let mut derived_pos = vec![u32::MAX; gp.num_derived() as usize];
        let mut regions = Vec::new();
        let mut next_free = 0u32;
        let outputs: Vec<&[Output]> = gp
            .legal
            .iter()
            .map(Vec::as_slice)
            .chain([gp.next.as_slice()])
            .collect();
        for outs in outputs {
            regions.push(next_free);
            for (i, o) in outs.iter().enumerate() {
                if let Output::Atom(a) = o {
                    if a.0 >= ni && derived_pos[(a.0 - ni) as usize] == u32::MAX {
                        derived_pos[(a.0 - ni) as usize] = next_free + i as u32;
                    }
                }
            }
            next_free += (outs.len() as u32).div_ceil(64) * 64;
        }
        for p in derived_pos.iter_mut().filter(|p| **p == u32::MAX) {
            *p = next_free;
            next_free += 1;
        }
        let mut layout = Layout {
            fluents,
            inputs: ni,
            state_words: words(fluents).max(1),
            does_words: words(ni - fluents).max(1),
            derived_words: words(next_free).max(1),
            move_set_words: 0,
            role_moves: Vec::new(),
            derived_pos,
            regions: Vec::new(),
        };
        let base = (layout.state_words + layout.does_words) as u32 * 64;
        layout.regions = regions.iter().map(|r| base + r).collect();
        layout.role_moves = (0..gp.roles.len())
            .map(|r| (layout.pos(gp.does_atom(r, 0)), gp.moves[r].len() as u32))
            .collect();
        layout
    }

    /// Total words of the value vector.
    pub fn total_words(&self) -> usize {
        self.state_words + self.does_words + self.derived_words + self.move_set_words
    }

    /// The bit position of the first move-set bit.
    pub fn move_set_base(&self) -> u32 {
        (self.state_words + self.does_words + self.derived_words) as u32 * 64
    }

    /// The bit position of an atom.
    pub fn pos(&self, atom: AtomId) -> u32 {
        let a = atom.0;
        if a < self.fluents {
            a
        } else if a < self.inputs {
            self.state_words as u32 * 64 + (a - self.fluents)
        } else {
            (self.state_words + self.does_words) as u32 * 64
                + self.derived_pos[(a - self.inputs) as usize]
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
