//! The grounder's database: interned terms, relations as append-only lists
//! of atom ids, and hash indexes over them.
//!
//! Relations are append-only, so a *range* of positions is a snapshot:
//! semi-naive evaluation reads "old" tuples (before the last round), the
//! "delta" (added by the last round) and "full" through ranges, with no
//! copying. Indexes are built lazily for the access patterns the join plans
//! ask for (`Db::index_for`), and catch up with appended tuples before
//! each join (`Db::catch_up_index`).

use rustc_hash::FxHashMap;

use super::budget::{Budget, GroundError};
use crate::rules::terms::{header, Kind, TermStore};
use crate::rules::Pat;

/// Position value of an atom that is in no relation.
pub const NONE: u32 = u32::MAX;

/// Shape of an index: the pattern with each argument position marked as a
/// key (bound when the index is used), free, a ground term, or a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Spec {
    /// Bound when the index is used: part of the key.
    Key,
    /// Free: matches anything.
    Free,
    /// Must be this ground term.
    Ground(u32),
    /// Must be this function applied to arguments of these shapes.
    Func(u32, Box<[Spec]>),
}

/// A hash index of one relation: key values → positions, ascending.
#[derive(Debug)]
struct Index {
    spec: Box<[Spec]>,
    covered: usize,
    map: FxHashMap<Box<[u32]>, Vec<u32>>,
}

/// One relation: its atoms (ids) in insertion order, and its indexes.
#[derive(Debug, Default)]
pub struct Relation {
    /// The atoms, in the order they were derived.
    pub tuples: Vec<u32>,
    indexes: Vec<Index>,
    index_of: FxHashMap<Box<[Spec]>, usize>,
}

/// The database: interned terms and every relation.
#[derive(Debug)]
pub struct Db {
    /// Interned terms and atoms.
    pub terms: TermStore,
    /// The relations, by index.
    pub rels: Vec<Relation>,
    /// Position of each atom in its relation, by atom id ([`NONE`] if absent).
    pos: Vec<u32>,
    /// Total tuples over all relations.
    pub total_tuples: usize,
    /// Approximate bytes held by indexes.
    index_bytes: usize,
    /// Display names of the relations, for errors.
    pub rel_names: Vec<String>,
    /// Join work done so far (atoms tried), for the budget.
    pub work: u64,
    /// Join work allowed.
    pub max_work: u64,
    /// Relations whose derivation may fail at once when a rule of theirs is
    /// sure to go over the atom budget (see `Db::solve`); none by default.
    pub fail_fast: Vec<bool>,
}

impl Db {
    /// An empty database with the given relations.
    pub fn new(terms: TermStore, rel_names: Vec<String>) -> Self {
        Db {
            terms,
            rels: rel_names.iter().map(|_| Relation::default()).collect(),
            pos: Vec::new(),
            total_tuples: 0,
            index_bytes: 0,
            rel_names,
            work: 0,
            max_work: u64::MAX,
            fail_fast: Vec::new(),
        }
    }

    /// Approximate bytes in use, for the memory budget.
    pub fn bytes(&self) -> usize {
        self.terms.bytes() + self.pos.len() * 4 + self.total_tuples * 4 + self.index_bytes
    }

    /// Position of atom `id` in its relation, or [`NONE`].
    #[inline]
    pub fn pos(&self, id: u32) -> u32 {
        self.pos.get(id as usize).copied().unwrap_or(NONE)
    }

    /// Whether atom `id` is in its relation.
    pub fn contains(&self, id: u32) -> bool {
        self.pos(id) != NONE
    }

    /// Interns the atom `rel(args)`.
    pub fn atom(&mut self, rel: usize, args: &[u32]) -> u32 {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        key.extend_from_slice(args);
        self.terms.intern_key(&key)
    }

    /// The atom `rel(args)` if interned.
    pub fn lookup_atom(&self, rel: usize, args: &[u32]) -> Option<u32> {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        key.extend_from_slice(args);
        self.terms.lookup(&key)
    }

    /// Adds atom `id` to relation `rel`; returns whether it is new.
    pub fn insert(&mut self, rel: usize, id: u32, budget: &Budget) -> Result<bool, GroundError> {
        if self.pos.len() <= id as usize {
            self.pos.resize(self.terms.len().max(id as usize + 1), NONE);
        }
        if self.pos[id as usize] != NONE {
            return Ok(false);
        }
        let r = &mut self.rels[rel];
        self.pos[id as usize] = r.tuples.len() as u32;
        r.tuples.push(id);
        self.total_tuples += 1;
        if self.total_tuples & 1023 == 0 {
            budget.check_memory(self.bytes(), &self.rel_names[rel])?;
            budget.check_time(&self.rel_names[rel])?;
        }
        budget.check_tuples(self.total_tuples, &self.rel_names[rel])?;
        Ok(true)
    }

    /// Interns the ground term `pat` under `binds` (every variable bound).
    pub fn ground(&mut self, pat: &Pat, binds: &[u32]) -> u32 {
        match pat {
            Pat::Var(v) => binds[*v as usize],
            Pat::Ground(id) => *id,
            Pat::Func(f, args) => {
                let mut key = Vec::with_capacity(args.len() + 1);
                key.push(header(Kind::Func, f.0));
                for a in args.iter() {
                    let id = self.ground(a, binds);
                    key.push(id);
                }
                self.terms.intern_key(&key)
            }
        }
    }

    /// Interns the atom `rel(args)` under `binds`.
    pub fn ground_atom(&mut self, rel: usize, args: &[Pat], binds: &[u32]) -> u32 {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Atom, rel as u32));
        for a in args {
            let id = self.ground(a, binds);
            key.push(id);
        }
        self.terms.intern_key(&key)
    }

    /// The id of the ground term `pat` under `binds`, if it is interned.
    pub fn lookup(&self, pat: &Pat, binds: &[u32]) -> Option<u32> {
        match pat {
            Pat::Var(v) => Some(binds[*v as usize]),
            Pat::Ground(id) => Some(*id),
            Pat::Func(f, args) => self.lookup_node(header(Kind::Func, f.0), args, binds),
        }
    }

    /// The atom `rel(args)` under `binds`, if interned.
    pub fn lookup_atom_pat(&self, rel: usize, args: &[Pat], binds: &[u32]) -> Option<u32> {
        self.lookup_node(header(Kind::Atom, rel as u32), args, binds)
    }

    /// The node `head(args)` under `binds`, if interned. Keys of up to 15
    /// arguments are built on the stack: this is the join's hot path.
    fn lookup_node(&self, head: u32, args: &[Pat], binds: &[u32]) -> Option<u32> {
        let mut buf = [0u32; 16];
        if args.len() < buf.len() {
            buf[0] = head;
            for (k, a) in args.iter().enumerate() {
                buf[k + 1] = self.lookup(a, binds)?;
            }
            return self.terms.lookup(&buf[..=args.len()]);
        }
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(head);
        for a in args {
            key.push(self.lookup(a, binds)?);
        }
        self.terms.lookup(&key)
    }

    /// The index of `rel` of shape `spec`, created (empty) if new.
    pub(crate) fn index_for(&mut self, rel: usize, spec: Box<[Spec]>) -> usize {
        let r = &mut self.rels[rel];
        if let Some(&i) = r.index_of.get(&spec) {
            return i;
        }
        r.indexes.push(Index {
            spec: spec.clone(),
            covered: 0,
            map: FxHashMap::default(),
        });
        r.index_of.insert(spec, r.indexes.len() - 1);
        r.indexes.len() - 1
    }

    /// Brings index `ix` of relation `rel` up to date with its tuples.
    pub(crate) fn catch_up_index(&mut self, rel: usize, ix: usize) {
        let r = &mut self.rels[rel];
        let idx = &mut r.indexes[ix];
        let mut key = Vec::new();
        while idx.covered < r.tuples.len() {
            let p = idx.covered;
            idx.covered += 1;
            key.clear();
            let args = self.terms.args(r.tuples[p]);
            if spec_key(&self.terms, &idx.spec, args, &mut key) {
                self.index_bytes += 4;
                idx.map
                    .entry(key.as_slice().into())
                    .or_insert_with(|| {
                        self.index_bytes += 48 + key.len() * 4;
                        Vec::new()
                    })
                    .push(p as u32);
            }
        }
    }
}

impl Relation {
    /// The positions (ascending) of the tuples whose key under index `ix`
    /// is `key`.
    #[inline]
    pub(crate) fn index_lookup(&self, ix: usize, key: &[u32]) -> Option<&[u32]> {
        self.indexes[ix].map.get(key).map(|v| v.as_slice())
    }
}

/// Matches `args` (ground ids) against `spec`, collecting the key values.
fn spec_key(terms: &TermStore, spec: &[Spec], args: &[u32], key: &mut Vec<u32>) -> bool {
    spec.len() == args.len()
        && spec
            .iter()
            .zip(args)
            .all(|(s, &a)| spec_key1(terms, s, a, key))
}

fn spec_key1(terms: &TermStore, spec: &Spec, id: u32, key: &mut Vec<u32>) -> bool {
    match spec {
        Spec::Key => {
            key.push(id);
            true
        }
        Spec::Free => true,
        Spec::Ground(g) => *g == id,
        Spec::Func(f, args) => {
            terms.head(id) == header(Kind::Func, *f) && spec_key(terms, args, terms.args(id), key)
        }
    }
}
