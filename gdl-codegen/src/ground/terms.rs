//! Interned ground terms and ground atoms.
//!
//! Every ground term and every ground atom is a node of one table and is
//! named by its index (a `u32` id). A node is a short slice of `u32`s: a
//! header (kind and symbol, see [`header`]) followed by the ids of its
//! arguments. Interning gives structural equality by id comparison, so that
//! joins, hash indexes and duplicate checks compare single integers.
//!
//! Nodes are stored bottom-up (children before parents), so no operation
//! ever needs to recurse over a ground term's depth: printing walks with an
//! explicit stack.

use rustc_hash::FxHashMap;

use crate::front::ir::Program;
use crate::front::symbols::Sym;
use crate::lifted::Interner;

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
pub fn header(kind: Kind, payload: u32) -> u32 {
    let k = match kind {
        Kind::Const => 0,
        Kind::Func => 1,
        Kind::Atom => 2,
    };
    payload << 2 | k
}

/// The table of interned ground terms and atoms.
#[derive(Default, Debug)]
pub struct Terms {
    /// Node `i` is `data[start[i] as usize..start[i + 1] as usize]`.
    data: Vec<u32>,
    start: Vec<u32>,
    index: FxHashMap<Box<[u32]>, u32>,
}

impl Terms {
    /// An empty table.
    pub fn new() -> Self {
        Terms {
            data: Vec::new(),
            start: vec![0],
            index: FxHashMap::default(),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Approximate heap bytes used, for the memory budget.
    pub fn bytes(&self) -> usize {
        // data + start + the index's keys (a copy of data) and buckets.
        self.data.len() * 8 + self.start.len() * 4 + self.index.len() * 40
    }

    /// The id of the node `key` (header then argument ids), adding it when new.
    pub fn intern(&mut self, key: &[u32]) -> u32 {
        if let Some(&id) = self.index.get(key) {
            return id;
        }
        let id = self.len() as u32;
        self.data.extend_from_slice(key);
        self.start.push(self.data.len() as u32);
        self.index.insert(key.into(), id);
        id
    }

    /// The id of the node `key`, if interned.
    pub fn lookup(&self, key: &[u32]) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// The header of node `id`.
    #[inline]
    pub fn head(&self, id: u32) -> u32 {
        self.data[self.start[id as usize] as usize]
    }

    /// The kind of node `id`.
    #[inline]
    pub fn kind(&self, id: u32) -> Kind {
        match self.head(id) & 3 {
            0 => Kind::Const,
            1 => Kind::Func,
            _ => Kind::Atom,
        }
    }

    /// The argument ids of node `id`.
    #[inline]
    pub fn args(&self, id: u32) -> &[u32] {
        let s = self.start[id as usize] as usize + 1;
        let e = self.start[id as usize + 1] as usize;
        &self.data[s..e]
    }

    /// The constant `sym`.
    pub fn constant(&mut self, sym: Sym) -> u32 {
        self.intern(&[header(Kind::Const, sym.0)])
    }

    /// Writes node `id` as GDL text: constants bare, `(f a b)`, `(f)` for a
    /// zero-argument function; atoms as `(p a b)`, or `p` for a zero-arity
    /// relation written without parentheses. Uses the first-seen spelling of
    /// every symbol. Iterative, so that deep terms cannot overflow the stack.
    pub fn write(&self, program: &Program, id: u32, out: &mut String) {
        // Stack of (node, next argument index).
        let mut stack: Vec<(u32, usize)> = vec![(id, usize::MAX)];
        while let Some(&mut (node, ref mut pos)) = stack.last_mut() {
            let head = self.head(node);
            let payload = head >> 2;
            if *pos == usize::MAX {
                // First visit: print the opening.
                match self.kind(node) {
                    Kind::Const => {
                        out.push_str(program.symbols.name(Sym(payload)));
                        stack.pop();
                        continue;
                    }
                    Kind::Func => {
                        out.push('(');
                        out.push_str(program.symbols.name(Sym(payload)));
                    }
                    Kind::Atom => {
                        // The grounder's own relations (`base`/`input` as
                        // computed) lie past the program's; print them as such.
                        let Some(info) = program.preds.get(payload as usize) else {
                            out.push_str(if payload as usize == program.preds.len() {
                                "(base"
                            } else {
                                "(input"
                            });
                            *pos = 0;
                            continue;
                        };
                        let name = program.symbols.name(info.name);
                        if info.arity == 0 && !info.parens {
                            out.push_str(name);
                            stack.pop();
                            continue;
                        }
                        out.push('(');
                        out.push_str(name);
                    }
                }
                *pos = 0;
            }
            let args = self.args(node);
            if *pos < args.len() {
                let child = args[*pos];
                *pos += 1;
                out.push(' ');
                stack.push((child, usize::MAX));
            } else {
                out.push(')');
                stack.pop();
            }
        }
    }

    /// Node `id` as GDL text (see [`Terms::write`]).
    pub fn text(&self, program: &Program, id: u32) -> String {
        let mut s = String::new();
        self.write(program, id, &mut s);
        s
    }
}

impl Interner for Terms {
    fn constant(&mut self, sym: Sym) -> u32 {
        Terms::constant(self, sym)
    }

    fn func(&mut self, f: Sym, args: &[u32]) -> u32 {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(header(Kind::Func, f.0));
        key.extend_from_slice(args);
        self.intern(&key)
    }
}
