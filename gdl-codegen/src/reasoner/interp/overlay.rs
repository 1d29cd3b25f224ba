//! The interpreter's view of the term store, and flat tuple sets.
//!
//! Every ground term the interpreter meets is interned once into the one
//! [`TermStore`] and named by a `u32` id, so that equality of ground terms is
//! equality of ids and a state is a small sorted array of ids. A store only
//! grows, so an id stays valid for the life of the game.
//!
//! The game's store is shared by all threads behind a lock. A query reads it
//! through a [`Terms`] view that holds the shared store read-only and adds the
//! terms the query builds to a private overlay (ids with [`LOCAL`] set); the
//! few overlay terms that end up in a result are published into the shared
//! store afterwards (see [`publish`]). This keeps the hot path free of write
//! locks: after the first few playouts almost every term a query builds exists
//! already.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use crate::front::symbols::Sym;
use crate::rules::terms::{header, mix, Kind, Node};
pub(crate) use crate::rules::TermStore;

/// Marks the id of a term interned in a query's private overlay.
pub(crate) const LOCAL: u32 = 1 << 31;

/// Stands for "no term": an unbound variable or an unbound call argument.
pub(crate) const FREE: u32 = u32::MAX;

/// End of a hash chain.
const NIL: u32 = u32::MAX;

/// A query's view of the terms: the shared store, read-only, plus a private
/// overlay for the terms the query builds.
pub(crate) struct Terms<'a> {
    /// The shared store.
    pub global: &'a TermStore,
    /// Terms built by this query and absent from `global`.
    pub local: TermStore,
}

impl<'a> Terms<'a> {
    /// A view over `global` with an empty overlay.
    pub fn new(global: &'a TermStore) -> Self {
        Terms {
            global,
            local: TermStore::new(LOCAL),
        }
    }

    /// The node of an id known to be valid (from either store).
    #[inline]
    pub fn node(&self, id: u32) -> Node<'_> {
        self.store(id).node(id)
    }

    /// The store that holds `id`.
    #[inline]
    fn store(&self, id: u32) -> &TermStore {
        if id & LOCAL == 0 {
            self.global
        } else {
            &self.local
        }
    }

    /// The header of a valid id.
    #[inline]
    pub fn head(&self, id: u32) -> u32 {
        self.store(id).head(id)
    }

    /// Argument `j` of a valid id.
    #[inline]
    pub fn arg(&self, id: u32, j: usize) -> u32 {
        self.store(id).arg(id, j)
    }

    /// The first argument of a valid id, if it has one.
    #[inline]
    pub fn first_arg(&self, id: u32) -> Option<u32> {
        self.store(id).first_arg(id)
    }

    /// Interns a term built from valid ids, into the overlay when new.
    pub fn intern(&mut self, sym: Sym, func: bool, args: &[u32]) -> u32 {
        let head = header(if func { Kind::Func } else { Kind::Const }, sym.0);
        match self.global.find(head, args) {
            Some(id) => id,
            None => self.local.intern(head, args),
        }
    }
}

/// Copies overlay term `id` (and its subterms) into `global`, returning its
/// id there; ids already global are returned unchanged. `memo` maps overlay
/// ids already copied.
pub(crate) fn publish(
    global: &mut TermStore,
    local: &TermStore,
    memo: &mut FxHashMap<u32, u32>,
    id: u32,
) -> u32 {
    if id & LOCAL == 0 {
        return id;
    }
    if let Some(&g) = memo.get(&id) {
        return g;
    }
    let Some(node) = local.get(id) else {
        return id;
    };
    let args: Vec<u32> = node
        .args
        .iter()
        .map(|&a| publish(global, local, memo, a))
        .collect();
    let g = global.intern(node.head, &args);
    memo.insert(id, g);
    g
}

/// A set of tuples of ids of one arity, stored flat, in insertion order.
#[derive(Clone, Debug)]
pub(crate) struct TupleSet {
    arity: usize,
    data: Vec<u32>,
    next: Vec<u32>,
    heads: FxHashMap<u64, u32>,
}

pub(crate) fn tuple_hash(t: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    t.hash(&mut h);
    mix(h.finish())
}

impl TupleSet {
    /// An empty set of `arity`-tuples.
    pub fn new(arity: usize) -> Self {
        TupleSet {
            arity,
            data: Vec::new(),
            next: Vec::new(),
            heads: FxHashMap::default(),
        }
    }

    /// Number of tuples.
    #[inline]
    pub fn len(&self) -> usize {
        self.next.len()
    }

    /// Tuple `i` (in insertion order).
    #[inline]
    pub fn get(&self, i: usize) -> &[u32] {
        &self.data[i * self.arity..(i + 1) * self.arity]
    }

    /// Element `j` of tuple `i`.
    #[inline]
    pub fn at(&self, i: usize, j: usize) -> u32 {
        self.data[i * self.arity + j]
    }

    /// Adds `t`; whether it was new.
    pub fn insert(&mut self, t: &[u32]) -> bool {
        debug_assert_eq!(t.len(), self.arity);
        let h = tuple_hash(t);
        let head = self.heads.get(&h).copied().unwrap_or(NIL);
        let mut i = head;
        while i != NIL {
            if self.get(i as usize) == t {
                return false;
            }
            i = self.next[i as usize];
        }
        let idx = self.next.len() as u32;
        self.data.extend_from_slice(t);
        self.next.push(head);
        self.heads.insert(h, idx);
        true
    }
}
