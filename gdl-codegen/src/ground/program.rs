//! The ground program: the explicit propositional form of a game that the
//! propnet reasoner interprets and the compiled backend translates.
//!
//! # Atoms
//! Atoms are numbered `0..num_atoms()` in three blocks:
//! 1. fluents, `0..fluents.len()`: input atom `f` is `(true <fluents[f]>)`;
//! 2. moves, role by role: `(does <role r> <moves[r][m]>)` is atom
//!    `does_start[r] + m`; inputs end at `num_inputs`;
//! 3. derived atoms, `num_inputs..num_atoms()`, in topological order: every
//!    atom depends only on inputs, earlier derived atoms, or atoms of its
//!    own strongly connected component.
//!
//! # Rules and evaluation
//! A derived atom holds when one of its rules ([`GroundProgram::rules_of`])
//! has a body whose literals all hold (an OR of ANDs of possibly negated
//! atoms). Components ([`GroundProgram::components`]) partition the derived
//! atoms into contiguous ranges in evaluation order. An acyclic component
//! is one atom evaluated once; a *cyclic* one (positive recursion within a
//! state, such as connectivity) must be iterated from all-false until
//! nothing changes. Negation never occurs within a cycle (GDL is
//! stratified), so this least fixpoint is the game's semantics.
//!
//! # Outputs
//! [`Output`] is an atom or a constant: `legal[r][m]`, `next[f]`,
//! `terminal`, and per role the `(value, output)` pairs of `goal`. An
//! output atom may be any atom, inputs included (`next` of a fluent that
//! persists by a single frame rule can be the fluent itself).

use std::fmt::Write as _;
use std::time::Duration;

/// An atom of a ground program (see the module documentation for the layout).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct AtomId(pub u32);

/// A possibly negated atom: `atom << 1 | negated`, so sorting groups the
/// literals of one atom together.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Lit(pub u32);

impl Lit {
    /// The literal `atom`.
    pub fn pos(atom: u32) -> Lit {
        Lit(atom << 1)
    }

    /// The literal `not atom`.
    pub fn neg(atom: u32) -> Lit {
        Lit(atom << 1 | 1)
    }

    /// The atom.
    pub fn atom(self) -> AtomId {
        AtomId(self.0 >> 1)
    }

    /// Whether the literal is negated.
    pub fn is_negated(self) -> bool {
        self.0 & 1 == 1
    }

    /// The opposite literal.
    pub fn negate(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// A query result of the ground program: a constant or an atom's value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Output {
    /// Never holds.
    #[default]
    False,
    /// Always holds.
    True,
    /// Holds when the atom does.
    Atom(AtomId),
}

/// One ground rule: `head` holds if every literal of `body` holds.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GroundRule {
    /// A derived atom.
    pub head: AtomId,
    /// The conjunction (never empty: constant atoms are folded away).
    pub body: Box<[Lit]>,
}

/// A strongly connected component of derived atoms.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Component {
    /// Its atoms: `start..end`.
    pub start: u32,
    /// One past its last atom.
    pub end: u32,
    /// Whether the atoms depend on each other (iterate to a fixpoint).
    pub cyclic: bool,
}

/// Sizes and phase times of a grounding, for `--stats`.
#[derive(Clone, Debug, Default)]
pub struct GroundStats {
    /// Computing the domains (`base`/`input` and static relations).
    pub domains_time: Duration,
    /// Instantiating the rules.
    pub instantiate_time: Duration,
    /// Simplifying and ordering.
    pub simplify_time: Duration,
    /// Atoms of the relaxed fixpoint (all relations).
    pub domain_atoms: usize,
    /// Rule instances before simplification.
    pub instances: usize,
    /// The largest relations of the domain fixpoint: (name, atoms).
    pub largest_relations: Vec<(String, usize)>,
    /// Derived atoms before simplification.
    pub raw_derived: usize,
    /// The file's own `base` facts, if it has any.
    pub file_base: Option<usize>,
    /// Computed fluents the file's `base` lacks (should be 0).
    pub base_not_in_file: usize,
    /// The file's own `input` facts, if it has any.
    pub file_input: Option<usize>,
    /// Computed moves the file's `input` lacks (should be 0).
    pub input_not_in_file: usize,
}

/// A ground game: see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct GroundProgram {
    /// Role names (GDL text), in role order.
    pub roles: Vec<String>,
    /// Whether names were read case-sensitively, so that move and fluent
    /// text must be matched with its case (prefix GDL folds it by default).
    pub case_sensitive: bool,
    /// GDL text of every reachable fluent, in byte order (fluent id = index).
    pub fluents: Vec<String>,
    /// Per role, GDL text of every possible move, in byte order (move id =
    /// index: the shared move order of every reasoner).
    pub moves: Vec<Vec<String>>,
    /// The initial state: fluent ids, ascending.
    pub init: Vec<u32>,
    /// Per role, the atom of its first move (`does_start[r] + m`).
    pub does_start: Vec<u32>,
    /// Number of input atoms (fluents and moves); derived atoms follow.
    pub num_inputs: u32,
    /// GDL text of every atom, for debugging (`(true f)`, `(does r m)`, ...).
    pub atom_text: Vec<String>,
    /// The rules, sorted by head.
    pub rules: Vec<GroundRule>,
    /// Rules of derived atom `a` are `rules[rule_start[i]..rule_start[i + 1]]`
    /// with `i = a - num_inputs`.
    pub rule_start: Vec<u32>,
    /// Components of derived atoms, in evaluation order.
    pub components: Vec<Component>,
    /// `legal[role][move]`.
    pub legal: Vec<Vec<Output>>,
    /// `next[fluent]`: whether the fluent holds in the next state.
    pub next: Vec<Output>,
    /// `terminal`.
    pub terminal: Output,
    /// Per role, the `(value, output)` pairs of its `goal` atoms, by value.
    pub goal: Vec<Vec<(u8, Output)>>,
    /// Sizes and times.
    pub stats: GroundStats,
    /// Set when the fluents are in a physical order other than text order
    /// ([`crate::bitnet::relayout`]): `fluents` is then that order, with
    /// empty texts at the holes, and this keeps the text order and each
    /// fluent's bit.
    pub logical: Option<Logical>,
}

/// The logical side of a relaid program: what text order it replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logical {
    /// The fluent texts in text order (logical ids).
    pub fluents: Vec<String>,
    /// The physical bit (fluent atom of the relaid program) of each logical
    /// fluent.
    pub bits: Vec<u32>,
}

impl GroundProgram {
    /// Total number of atoms.
    pub fn num_atoms(&self) -> u32 {
        self.atom_text.len() as u32
    }

    /// Number of derived atoms.
    pub fn num_derived(&self) -> u32 {
        self.num_atoms() - self.num_inputs
    }

    /// The input atom `(true fluent)`.
    pub fn fluent_atom(&self, fluent: u32) -> AtomId {
        AtomId(fluent)
    }

    /// The input atom `(does role move)`.
    pub fn does_atom(&self, role: usize, mv: u32) -> AtomId {
        AtomId(self.does_start[role] + mv)
    }

    /// The `(does role move)` input atom `atom` as its role and move, if it
    /// is one.
    pub fn does_of(&self, atom: u32) -> Option<(usize, u32)> {
        if !(self.fluents.len() as u32..self.num_inputs).contains(&atom) {
            return None;
        }
        let r = (0..self.roles.len())
            .rev()
            .find(|&r| self.does_start[r] <= atom)?;
        Some((r, atom - self.does_start[r]))
    }

    /// Per derived atom (`atom - num_inputs`), the index of its component.
    pub fn component_of(&self) -> Vec<usize> {
        let mut comp_of = vec![0usize; self.num_derived() as usize];
        for (k, comp) in self.components.iter().enumerate() {
            for a in comp.start..comp.end {
                comp_of[(a - self.num_inputs) as usize] = k;
            }
        }
        comp_of
    }

    /// The rules of `atom` (empty for inputs).
    pub fn rules_of(&self, atom: AtomId) -> &[GroundRule] {
        if atom.0 < self.num_inputs {
            return &[];
        }
        let i = (atom.0 - self.num_inputs) as usize;
        &self.rules[self.rule_start[i] as usize..self.rule_start[i + 1] as usize]
    }

    /// Every query output (legal, goal, terminal, next), in that order;
    /// an atom serving several outputs appears once for each.
    pub fn outputs(&self) -> impl Iterator<Item = Output> + '_ {
        self.legal
            .iter()
            .flatten()
            .chain(self.goal.iter().flatten().map(|(_, o)| o))
            .chain([&self.terminal])
            .chain(self.next.iter())
            .copied()
    }

    /// Number of literals over all rules.
    pub fn num_literals(&self) -> usize {
        self.rules.iter().map(|r| r.body.len()).sum()
    }

    /// Number of cyclic components.
    pub fn num_cyclic(&self) -> usize {
        self.components.iter().filter(|c| c.cyclic).count()
    }

    fn write_output(&self, out: &mut String, o: Output) {
        match o {
            Output::False => out.push_str("false"),
            Output::True => out.push_str("true"),
            Output::Atom(a) => out.push_str(&self.atom_text[a.0 as usize]),
        }
    }

    /// One line of sizes.
    pub fn size_line(&self) -> String {
        format!(
            "{} roles, {} fluents, {} moves, {} derived atoms, {} rules, {} literals, {} components ({} cyclic)",
            self.roles.len(),
            self.fluents.len(),
            self.moves.iter().map(Vec::len).sum::<usize>(),
            self.num_derived(),
            self.rules.len(),
            self.num_literals(),
            self.components.len(),
            self.num_cyclic()
        )
    }

    /// A readable summary (`--dump ground`): sizes, inputs, outputs, and
    /// every rule as `head <= lit lit ...` in evaluation order (cyclic
    /// components marked). Rules beyond `max_rules` are elided.
    pub fn summary(&self, max_rules: usize) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "; {}", self.size_line());
        let _ = writeln!(s, "; roles: {}", self.roles.join(" "));
        let _ = writeln!(s, "; fluents ({}):", self.fluents.len());
        for (i, f) in self.fluents.iter().enumerate() {
            let init = if self.init.binary_search(&(i as u32)).is_ok() {
                " init"
            } else {
                ""
            };
            let _ = write!(s, ";   {i}: {f}{init} ; next = ");
            self.write_output(&mut s, self.next[i]);
            s.push('\n');
        }
        for (r, role) in self.roles.iter().enumerate() {
            let _ = writeln!(s, "; moves of {role} ({}):", self.moves[r].len());
            for (m, text) in self.moves[r].iter().enumerate() {
                let _ = write!(s, ";   {m}: {text} ; legal = ");
                self.write_output(&mut s, self.legal[r][m]);
                s.push('\n');
            }
            let _ = write!(s, "; goals of {role}:");
            for &(v, o) in &self.goal[r] {
                let _ = write!(s, " {v}=");
                self.write_output(&mut s, o);
            }
            s.push('\n');
        }
        s.push_str("; terminal = ");
        self.write_output(&mut s, self.terminal);
        s.push('\n');
        let mut shown = 0;
        for c in &self.components {
            if c.cyclic {
                let _ = writeln!(s, "; cyclic component of {} atoms", c.end - c.start);
            }
            for a in c.start..c.end {
                for rule in self.rules_of(AtomId(a)) {
                    if shown == max_rules {
                        let _ = writeln!(s, "; ... {} more rules", self.rules.len() - shown);
                        return s;
                    }
                    shown += 1;
                    s.push_str(&self.atom_text[a as usize]);
                    s.push_str(" <=");
                    for l in rule.body.iter() {
                        s.push(' ');
                        if l.is_negated() {
                            s.push_str("(not ");
                        }
                        s.push_str(&self.atom_text[l.atom().0 as usize]);
                        if l.is_negated() {
                            s.push(')');
                        }
                    }
                    s.push('\n');
                }
            }
        }
        s
    }
}
