//! The one store of interned ground terms, shared by every evaluator of
//! rules: the grounder (which interns ground atoms in it too), the lifted
//! back end's compile-time facts and the interpreter.
//!
//! A node is a short run of `u32` words: a header (kind and payload, see
//! [`header`]) followed by the ids of its arguments. Nodes are stored flat,
//! children before parents, and interning gives structural equality by id
//! comparison, so joins, hash indexes and duplicate checks compare single
//! integers and no operation has to recurse over a term's depth.
//!
//! A store's ids start at an offset: the interpreter keeps its shared store at
//! offset 0 and gives every query a private overlay store at a high offset
//! (see `reasoner::interp::terms`), so that the ids of both can be told apart
//! without a lookup.

use std::hash::{Hash, Hasher};

use hashbrown::hash_table::{Entry as Slot, HashTable};
use rustc_hash::FxHasher;

use crate::front::symbols::{Sym, Symbols};
use crate::rules::Interner;

/// Kind of a node (low two bits of its header).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A constant `foo`.
    Const,
    /// A function application `(f a b)` (possibly with no argument: `(f)`).
    Func,
    /// An atom `p(a b)` of relation `p` (the header holds the relation index).
    Atom,
}

/// The header word of a node: `payload << 2 | kind`.
#[inline]
pub fn header(kind: Kind, payload: u32) -> u32 {
    let k = match kind {
        Kind::Const => 0,
        Kind::Func => 1,
        Kind::Atom => 2,
    };
    payload << 2 | k
}

/// The kind encoded in a header word.
#[inline]
pub fn kind_of(head: u32) -> Kind {
    match head & 3 {
        0 => Kind::Const,
        1 => Kind::Func,
        _ => Kind::Atom,
    }
}

/// A strong 64-bit finaliser (MurmurHash3's `fmix64`). Fx hashing alone
/// leaves structure that makes hash tables of similar terms (long nested
/// lists) probe badly.
#[inline]
pub fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A node's hash, 32 bits of it: the table keeps it beside the node's
/// index, so that growing the table does not hash every node again (with
/// the relaxed fixpoint's wide atoms that was a third of an emit).
#[inline]
fn node_hash(head: u32, args: &[u32]) -> u32 {
    let mut h = FxHasher::default();
    head.hash(&mut h);
    args.hash(&mut h);
    mix(h.finish()) as u32
}

/// The table's hash of a stored 32-bit hash: spread over 64 bits, as the
/// table takes its buckets from the low bits and its tags from the top.
#[inline]
fn spread(h: u32) -> u64 {
    (h as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Whether node index `i` has header `head` and arguments `args`.
#[inline]
fn is_node(nodes: &[Entry], all: &[u32], i: u32, head: u32, args: &[u32]) -> bool {
    let e = nodes[i as usize];
    e.head == head && all[e.at as usize..(e.at + e.arity) as usize] == *args
}

/// A node read from a store: its header and its argument ids.
#[derive(Copy, Clone, Debug)]
pub struct Node<'a> {
    /// The header word (see [`header`]).
    pub head: u32,
    /// The argument ids.
    pub args: &'a [u32],
}

impl Node<'_> {
    /// The node's kind.
    #[inline]
    pub fn kind(&self) -> Kind {
        kind_of(self.head)
    }

    /// Whether the node is a function application.
    #[inline]
    pub fn is_func(&self) -> bool {
        self.head & 3 == 1
    }

    /// The constant or function symbol (meaningless for an atom).
    #[inline]
    pub fn sym(&self) -> Sym {
        Sym(self.head >> 2)
    }
}

/// How a store's nodes are spelled when printed.
pub trait Names {
    /// The first-seen spelling of a symbol.
    fn symbol(&self, sym: Sym) -> &str;
    /// The name of relation `rel`, and whether a zero-arity atom of it is
    /// written with parentheses.
    fn relation(&self, rel: u32) -> (&str, bool);
}

impl Names for Symbols {
    fn symbol(&self, sym: Sym) -> &str {
        self.name(sym)
    }

    fn relation(&self, _: u32) -> (&str, bool) {
        ("?", true)
    }
}

/// An append-only table of interned ground terms (and, for the grounder,
/// atoms), named by `u32` ids from the store's offset.
#[derive(Debug)]
pub struct TermStore {
    /// One entry a node.
    nodes: Vec<Entry>,
    /// The argument ids of every node, back to back.
    args: Vec<u32>,
    /// The nodes' hashes and indices, by hash.
    table: HashTable<(u32, u32)>,
    offset: u32,
}

/// A node's header and where its arguments are: one fixed-size record, so
/// that reading a node is one bounds check.
#[derive(Clone, Copy, Debug)]
struct Entry {
    head: u32,
    at: u32,
    arity: u32,
}

impl Default for TermStore {
    fn default() -> Self {
        Self::new(0)
    }
}

impl TermStore {
    /// An empty store whose ids start at `offset`.
    pub fn new(offset: u32) -> Self {
        TermStore {
            nodes: Vec::new(),
            args: Vec::new(),
            table: HashTable::new(),
            offset,
        }
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Approximate heap bytes used, for memory budgets.
    pub fn bytes(&self) -> usize {
        // Entries, arguments, and the table's buckets (a hash, an index
        // and a control byte each).
        self.nodes.len() * 12 + self.args.len() * 4 + self.table.capacity() * 9
    }

    /// Whether `id` is a node of this store.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        (id.wrapping_sub(self.offset) as usize) < self.len()
    }

    #[inline]
    fn entry_node(&self, e: Entry) -> Node<'_> {
        Node {
            head: e.head,
            args: &self.args[e.at as usize..(e.at + e.arity) as usize],
        }
    }

    /// The node `id` (which must belong to this store).
    #[inline]
    pub fn node(&self, id: u32) -> Node<'_> {
        self.entry_node(self.nodes[id.wrapping_sub(self.offset) as usize])
    }

    /// The node `id`, if it belongs to this store.
    pub fn get(&self, id: u32) -> Option<Node<'_>> {
        self.contains(id).then(|| self.node(id))
    }

    /// The header of node `id`.
    #[inline]
    pub fn head(&self, id: u32) -> u32 {
        self.nodes[id.wrapping_sub(self.offset) as usize].head
    }

    /// Argument `j` of node `id` (which must have more than `j`).
    #[inline]
    pub fn arg(&self, id: u32, j: usize) -> u32 {
        let e = self.nodes[id.wrapping_sub(self.offset) as usize];
        debug_assert!(j < e.arity as usize);
        self.args[e.at as usize + j]
    }

    /// The first argument of node `id`, if it has one.
    #[inline]
    pub fn first_arg(&self, id: u32) -> Option<u32> {
        let e = self.nodes[id.wrapping_sub(self.offset) as usize];
        (e.arity > 0).then(|| self.args[e.at as usize])
    }

    /// The kind of node `id`.
    #[inline]
    pub fn kind(&self, id: u32) -> Kind {
        kind_of(self.head(id))
    }

    /// The argument ids of node `id`.
    #[inline]
    pub fn args(&self, id: u32) -> &[u32] {
        self.node(id).args
    }

    /// The id of the node with header `head` and arguments `args`, if interned.
    pub fn find(&self, head: u32, args: &[u32]) -> Option<u32> {
        let (nodes, all) = (&self.nodes, &self.args);
        let h = node_hash(head, args);
        self.table
            .find(spread(h), |&(hi, i)| {
                hi == h && is_node(nodes, all, i, head, args)
            })
            .map(|&(_, i)| i + self.offset)
    }

    /// The id of the node with header `head` and arguments `args`, adding it
    /// when new.
    pub fn intern(&mut self, head: u32, args: &[u32]) -> u32 {
        let (nodes, all) = (&mut self.nodes, &mut self.args);
        let h = node_hash(head, args);
        let slot = self.table.entry(
            spread(h),
            |&(hi, i)| hi == h && is_node(nodes, all, i, head, args),
            |&(hi, _)| spread(hi),
        );
        let idx = match slot {
            Slot::Occupied(o) => o.get().1,
            Slot::Vacant(v) => {
                let idx = nodes.len() as u32;
                nodes.push(Entry {
                    head,
                    at: all.len() as u32,
                    arity: args.len() as u32,
                });
                all.extend_from_slice(args);
                v.insert((h, idx));
                idx
            }
        };
        idx + self.offset
    }

    /// The id of the node whose words (header, then argument ids) are `key`,
    /// adding it when new.
    pub fn intern_key(&mut self, key: &[u32]) -> u32 {
        self.intern(key[0], &key[1..])
    }

    /// The id of the node whose words are `key`, if interned.
    pub fn lookup(&self, key: &[u32]) -> Option<u32> {
        self.find(key[0], &key[1..])
    }

    /// The constant `sym`.
    pub fn constant(&mut self, sym: Sym) -> u32 {
        self.intern(header(Kind::Const, sym.0), &[])
    }

    /// Writes node `id` as GDL text: constants bare, `(f a b)`, `(f)` for a
    /// zero-argument function; atoms as `(p a b)`, or `p` for a zero-arity
    /// relation written without parentheses; `?` for an id foreign to this
    /// store. Iterative, so that deep terms cannot overflow the stack.
    pub fn write(&self, names: &impl Names, id: u32, out: &mut String) {
        // Stack of (node, next argument index); usize::MAX: not yet opened.
        let mut stack: Vec<(u32, usize)> = vec![(id, usize::MAX)];
        while let Some(&mut (id, ref mut pos)) = stack.last_mut() {
            let Some(node) = self.get(id) else {
                out.push('?');
                stack.pop();
                continue;
            };
            if *pos == usize::MAX {
                let (name, open) = match node.kind() {
                    Kind::Const => (names.symbol(node.sym()), false),
                    Kind::Func => (names.symbol(node.sym()), true),
                    Kind::Atom => {
                        let (name, parens) = names.relation(node.head >> 2);
                        (name, parens || !node.args.is_empty())
                    }
                };
                if !open {
                    out.push_str(name);
                    stack.pop();
                    continue;
                }
                out.push('(');
                out.push_str(name);
                *pos = 0;
            }
            if let Some(&child) = node.args.get(*pos) {
                *pos += 1;
                out.push(' ');
                stack.push((child, usize::MAX));
            } else {
                out.push(')');
                stack.pop();
            }
        }
    }

    /// Node `id` as GDL text (see [`TermStore::write`]).
    pub fn text(&self, names: &impl Names, id: u32) -> String {
        let mut s = String::new();
        self.write(names, id, &mut s);
        s
    }
}

impl Interner for TermStore {
    fn constant(&mut self, sym: Sym) -> u32 {
        TermStore::constant(self, sym)
    }

    fn func(&mut self, f: Sym, args: &[u32]) -> u32 {
        self.intern(header(Kind::Func, f.0), args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain;

    impl Names for Plain {
        fn symbol(&self, sym: Sym) -> &str {
            ["a", "f", "g"][sym.0 as usize]
        }
        fn relation(&self, rel: u32) -> (&str, bool) {
            [("p", true), ("q", false)][rel as usize]
        }
    }

    #[test]
    fn interning_is_structural_and_ids_follow_the_offset() {
        let mut s = TermStore::new(100);
        let a = s.constant(Sym(0));
        let fa = s.func(Sym(1), &[a]);
        assert_eq!((a, fa), (100, 101));
        assert_eq!(s.constant(Sym(0)), a);
        assert_eq!(s.func(Sym(1), &[a]), fa);
        assert_ne!(s.func(Sym(2), &[a]), fa);
        // `(f)` is not the constant `f`.
        assert_ne!(s.func(Sym(1), &[]), s.constant(Sym(1)));
        assert_eq!(s.lookup(&[header(Kind::Func, 1), a]), Some(fa));
        assert_eq!(s.lookup(&[header(Kind::Func, 1), fa]), None);
        assert!(s.contains(fa) && !s.contains(0) && s.get(99).is_none());
        assert_eq!(s.node(fa).args, &[a]);
        assert!(s.node(fa).is_func() && s.node(fa).sym() == Sym(1));
    }

    #[test]
    fn text_of_terms_and_atoms() {
        let mut s = TermStore::default();
        let a = s.constant(Sym(0));
        let fa = s.func(Sym(1), &[a]);
        let g = s.func(Sym(2), &[]);
        let p = s.intern(header(Kind::Atom, 0), &[fa, g]);
        let q = s.intern(header(Kind::Atom, 1), &[]);
        let p0 = s.intern(header(Kind::Atom, 0), &[]);
        assert_eq!(s.text(&Plain, p), "(p (f a) (g))");
        assert_eq!(s.text(&Plain, q), "q");
        assert_eq!(s.text(&Plain, p0), "(p)");
        assert_eq!(s.text(&Plain, 77), "?");
    }

    #[test]
    fn deep_terms_print_without_recursion() {
        let mut s = TermStore::default();
        let mut t = s.constant(Sym(0));
        for _ in 0..200_000 {
            t = s.func(Sym(1), &[t]);
        }
        assert_eq!(s.text(&Plain, t).len(), 200_000 * 4 + 1);
    }
}
