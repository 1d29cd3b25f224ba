//! Hash-consed ground terms and flat tuple sets.
//!
//! Every ground term the interpreter meets is interned once into a
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

use crate::front::symbols::{Sym, Symbols};
use crate::lifted::Interner;

/// Marks the id of a term interned in a query's private overlay.
pub(crate) const LOCAL: u32 = 1 << 31;

/// Stands for "no term": an unbound variable or an unbound call argument.
pub(crate) const FREE: u32 = u32::MAX;

/// End of a hash chain.
const NIL: u32 = u32::MAX;

/// One interned ground term.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// The constant, or the function symbol.
    pub sym: Sym,
    /// A function application (`(f)` is one, with no arguments), not a constant.
    pub func: bool,
    /// Argument ids (empty for constants).
    pub args: Box<[u32]>,
    /// Next node with the same hash.
    next: u32,
}

/// A strong 64-bit finaliser (MurmurHash3's `fmix64`). Fx hashing alone
/// leaves structure that makes hash tables of similar terms (long nested
/// lists) probe badly.
#[inline]
pub(crate) fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

fn node_hash(sym: Sym, func: bool, args: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    sym.0.hash(&mut h);
    func.hash(&mut h);
    args.hash(&mut h);
    mix(h.finish())
}

/// An append-only table of interned ground terms.
///
/// Ids are `offset + index`; the shared store has offset 0 and a query's
/// overlay has offset [`LOCAL`].
#[derive(Debug)]
pub(crate) struct TermStore {
    nodes: Vec<Node>,
    heads: FxHashMap<u64, u32>,
    offset: u32,
    /// Argument ids of all nodes, for [`TermStore::bytes`].
    arg_ids: usize,
}

impl TermStore {
    /// An empty store whose ids start at `offset`.
    pub fn new(offset: u32) -> Self {
        TermStore {
            nodes: Vec::new(),
            heads: FxHashMap::default(),
            offset,
            arg_ids: 0,
        }
    }

    /// Estimated bytes of the store (for a query's budget).
    pub fn bytes(&self) -> usize {
        self.nodes.len() * super::budget::TERM_BYTES + self.arg_ids * 4
    }

    /// The node of `id`, if `id` belongs to this store.
    pub fn get(&self, id: u32) -> Option<&Node> {
        self.nodes.get(id.wrapping_sub(self.offset) as usize)
    }

    /// The id of a term if interned here.
    pub fn find(&self, sym: Sym, func: bool, args: &[u32]) -> Option<u32> {
        let mut i = *self.heads.get(&node_hash(sym, func, args))?;
        while i != NIL {
            let n = &self.nodes[i as usize];
            if n.sym == sym && n.func == func && *n.args == *args {
                return Some(i + self.offset);
            }
            i = n.next;
        }
        None
    }

    /// Adds a term known to be absent.
    fn push(&mut self, sym: Sym, func: bool, args: &[u32]) -> u32 {
        let h = node_hash(sym, func, args);
        let idx = self.nodes.len() as u32;
        let next = self.heads.insert(h, idx).unwrap_or(NIL);
        self.arg_ids += args.len();
        self.nodes.push(Node {
            sym,
            func,
            args: args.into(),
            next,
        });
        idx + self.offset
    }

    /// Interns a term whose arguments are all ids of this store.
    pub fn intern(&mut self, sym: Sym, func: bool, args: &[u32]) -> u32 {
        if let Some(id) = self.find(sym, func, args) {
            return id;
        }
        self.push(sym, func, args)
    }

    /// Appends the KIF text of `id` (first-seen spelling) to `out`; an id
    /// foreign to this store prints as `?`.
    pub fn write_text(&self, syms: &Symbols, id: u32, out: &mut String) {
        let Some(n) = self.get(id) else {
            out.push('?');
            return;
        };
        if !n.func {
            out.push_str(syms.name(n.sym));
            return;
        }
        out.push('(');
        out.push_str(syms.name(n.sym));
        for &a in n.args.iter() {
            out.push(' ');
            self.write_text(syms, a, out);
        }
        out.push(')');
    }

    /// The KIF text of `id`.
    pub fn text(&self, syms: &Symbols, id: u32) -> String {
        let mut s = String::new();
        self.write_text(syms, id, &mut s);
        s
    }
}

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
    pub fn node(&self, id: u32) -> &Node {
        if id & LOCAL == 0 {
            &self.global.nodes[id as usize]
        } else {
            &self.local.nodes[(id - LOCAL) as usize]
        }
    }

    /// Interns a term built from valid ids, into the overlay when new.
    pub fn intern(&mut self, sym: Sym, func: bool, args: &[u32]) -> u32 {
        if let Some(id) = self.global.find(sym, func, args) {
            return id;
        }
        if let Some(id) = self.local.find(sym, func, args) {
            return id;
        }
        self.local.push(sym, func, args)
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
    let g = global.intern(node.sym, node.func, &args);
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

impl Interner for TermStore {
    fn constant(&mut self, sym: Sym) -> u32 {
        self.intern(sym, false, &[])
    }

    fn func(&mut self, f: Sym, args: &[u32]) -> u32 {
        self.intern(f, true, args)
    }
}
