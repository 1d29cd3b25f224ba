//! Rule tables: atoms with very many rule bodies are evaluated by a loop over
//! constant tables instead of unrolled tests.
//!
//! Unrolled word-mask tests are the fastest code for the usual atom, but an
//! atom with hundreds of thousands of bodies (a line of four in Quarto over
//! every choice of pieces) would become megabytes of expressions that rustc
//! takes minutes to build. Its bodies go instead into two static arrays: the
//! literals of every body (`position << 1 | negated`), and where each body's
//! literals start. The code of such an atom is one call of a small loop, and
//! the tables are printed as plain data, a few bytes per literal, which rustc
//! reads in seconds. Generated code then stays linear in the ground rules
//! with a small constant.

use std::collections::HashMap;

use crate::backend::common::format::DataArray;
use crate::bitnet::conj::Conj;

/// Literals of an atom's bodies above which it goes into the tables.
const BIG_ATOM: usize = 16_384;

/// The same for games whose ground rules hold more literals than
/// [`BIG_GAME`] in all: there, code size decides the build time.
const BIG_ATOM_IN_BIG_GAME: usize = 64;

/// Literals of a ground program above which [`BIG_ATOM_IN_BIG_GAME`] applies.
const BIG_GAME: usize = 300_000;

/// The rule tables of one generated module.
#[derive(Debug)]
pub struct Tables {
    /// Literals of an atom's bodies above which it goes into the tables.
    threshold: usize,
    /// Where each body's literals start in `literals`, and one past the last.
    body_start: Vec<u32>,
    /// Every body's literals, `position << 1 | negated`.
    literals: Vec<u32>,
    /// The bodies already stored for an atom (by bit position), so that an
    /// atom computed by several queries is stored once.
    stored: HashMap<u32, (u32, u32)>,
    /// Atoms computed wholly from the tables, three numbers each: bit
    /// position, first body, one past the last body. A run of them is one
    /// call of a loop, so that a big game's code does not grow with them.
    atoms: Vec<u32>,
}

impl Tables {
    /// The default threshold for a ground program with `literals` rule
    /// literals: literals of an atom's bodies above which it goes into the
    /// tables.
    pub fn default_threshold(literals: usize) -> usize {
        if literals > BIG_GAME {
            BIG_ATOM_IN_BIG_GAME
        } else {
            BIG_ATOM
        }
    }

    /// Empty tables taking atoms of more than `threshold` body literals.
    pub fn new(threshold: usize) -> Self {
        Tables {
            threshold,
            body_start: vec![0],
            literals: Vec::new(),
            stored: HashMap::new(),
            atoms: Vec::new(),
        }
    }

    /// Whether an atom with these bodies belongs in the tables. Bodies of
    /// one positive literal do not count: they are tested together, one
    /// masked word per word (see [`Conj::is_single`]).
    pub fn is_big(&self, conjs: &[Conj]) -> bool {
        conjs.iter().all(|c| c.any.is_empty())
            && conjs
                .iter()
                .filter(|c| !c.is_single())
                .map(|c| c.lits.len())
                .sum::<usize>()
                > self.threshold
    }

    /// Whether an atom with these bodies is computed wholly from the
    /// tables (it has no body of one positive literal to test apart), so
    /// that it joins the atom table.
    pub fn is_whole(&self, conjs: &[Conj]) -> bool {
        self.is_big(conjs) && !conjs.iter().any(Conj::is_single)
    }

    /// Stores the bodies of the atom at `pos`, returning the range of body
    /// numbers that hold them.
    pub fn add(&mut self, pos: u32, conjs: &[Conj]) -> (u32, u32) {
        if let Some(&range) = self.stored.get(&pos) {
            return range;
        }
        let from = self.body_start.len() as u32 - 1;
        for c in conjs {
            // Positive literals first: in a random state they fail more
            // often than negated ones, and the loop stops at the first
            // failure.
            let mut lits = c.lits.clone();
            lits.sort_by_key(|&(p, neg)| (neg, p));
            self.literals
                .extend(lits.iter().map(|&(p, neg)| (p << 1) | u32::from(neg)));
            self.body_start.push(self.literals.len() as u32);
        }
        let range = (from, self.body_start.len() as u32 - 1);
        self.stored.insert(pos, range);
        range
    }

    /// Adds an atom computed wholly from bodies `from..to`, returning its
    /// index in the atom table.
    pub fn add_atom(&mut self, pos: u32, from: u32, to: u32) -> usize {
        self.atoms.extend([pos, from, to]);
        self.atoms.len() / 3 - 1
    }

    /// The number of atoms in the atom table.
    pub fn num_atoms(&self) -> usize {
        self.atoms.len() / 3
    }

    /// Whether no atom went into the tables.
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// The tables as data arrays of the module (none when unused).
    pub fn arrays(&self) -> Vec<DataArray> {
        if self.is_empty() {
            return Vec::new();
        }
        vec![
            DataArray {
                doc: "Where each body of the rule tables starts in [`BODY_LITERALS`], and one past the last.".into(),
                name: "BODY_START".into(),
                data: self.body_start.clone(),
                may_be_unused: false,
                rows: None,
            },
            DataArray {
                doc: "The literals of the rule tables' bodies: bit position << 1 | negated.".into(),
                name: "BODY_LITERALS".into(),
                data: self.literals.clone(),
                may_be_unused: false,
                rows: None,
            },
            DataArray {
                doc: "Atoms computed wholly from the rule tables: bit position, first body, one past the last body.".into(),
                name: "ATOM_TABLE".into(),
                data: self.atoms.clone(),
                may_be_unused: true,
                rows: None,
            },
        ]
    }
}
