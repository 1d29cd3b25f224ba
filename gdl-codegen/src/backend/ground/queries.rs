//! The functions computing a query: a bitnet schedule printed as straight-
//! line Rust, split into functions of bounded size so that rustc stays fast.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr;
use super::gathers::{self, GatherTables};
use super::incremental;
use super::tables::Tables;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::bitnet::conj::{self, BitLit, Conj};
use crate::bitnet::families::{self, Family, Gathered};
use crate::bitnet::planes::{self, PlaneWord};
use crate::bitnet::schedule::{Block, Demand, Schedule, Unit};
use crate::bitnet::Bitnet;

/// Tests per generated function before a new one is started.
pub const CHUNK_WEIGHT: usize = 1500;

/// Statements up to which a helper function (an output gather, a move's
/// dispatch) is inlined into its caller: a call costs about as much as
/// a few of them, and each runs once a query.
pub const INLINE_WEIGHT: usize = 64;

/// The inline attribute of a helper function of `weight` statements.
pub(super) fn inline_attr(weight: usize) -> TokenStream {
    if weight <= INLINE_WEIGHT {
        quote!(#[inline])
    } else {
        quote!(#[inline(never)])
    }
}

pub(super) fn lit_u32(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

pub(super) fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

pub(super) fn hex_lit(n: u64) -> Literal {
    format!("{n:#x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(n))
}

/// `v[w] |= u64::from(test) << shift;` for the atom at bit `pos`.
pub(super) fn set_bit(pos: u32, test: TokenStream) -> TokenStream {
    let (w, shift) = (lit_usize((pos >> 6) as usize), pos & 63);
    if shift == 0 {
        quote!(v[#w] |= u64::from(#test);)
    } else {
        let shift = lit_u32(shift);
        quote!(v[#w] |= u64::from(#test) << #shift;)
    }
}

/// `stmt`, computing atoms, under the test of their screen
/// ([`conj::screens`]) if they have one: when the test fails the atoms stay
/// false.
fn screened_stmts(screen: Option<(u32, u64)>, stmt: TokenStream) -> TokenStream {
    match screen {
        Some((w, m)) => {
            let (w, m) = (lit_usize(w as usize), hex_lit(m));
            expr::if_stmt(quote!(v[#w] & #m != 0), vec![stmt])
        }
        None => stmt,
    }
}

/// A one-atom block computing only the bodies `keep` (indices) of its atom:
/// a gathered family computes the others.
fn with_bodies(block: &Block, keep: &[usize]) -> Block {
    let mut block = block.clone();
    if let Block::Unit(u) = &mut block {
        let conjs = std::mem::take(&mut u.atoms[0].1);
        u.atoms[0].1 = keep.iter().map(|&j| conjs[j].clone()).collect();
    }
    block
}

/// The statement computing a family of atoms word-parallel: the source
/// word shifted by each literal's offset, ANDed, moved to the members' bits.
fn family_item(f: &Family) -> Item {
    let all = expr::shifted_and(&f.shape, &quote!(w));
    let moved = expr::shifted_by(&all, f.shift);
    let (sw, dw, m) = (
        lit_usize(f.src_word as usize),
        lit_usize(f.dst_word as usize),
        hex_lit(f.mask),
    );
    // A whole word needs no mask (clippy's `identity_op`).
    let masked = if f.mask == u64::MAX {
        moved
    } else {
        quote!(#moved & #m)
    };
    let stmt = quote! {
        {
            let w = v[#sw];
            v[#dw] |= #masked;
        }
    };
    (stmt, f.shape.len() + 1)
}

/// The generated functions of a module, and the rule tables they use.
pub(super) struct Printer {
    /// Generated functions, in order.
    pub fns: Vec<TokenStream>,
    /// Atoms with very many rule bodies, stored as data.
    pub tables: Tables,
    /// Functions made by [`Printer::pack`] so far.
    pub parts: usize,
    /// Words of the value vector.
    pub value_words: usize,
    /// The gather tables of gathered families.
    pub gathers: GatherTables,
    /// The atoms of many bodies most often true, whose tests end at the
    /// first group of bodies that holds ([`incremental::often_true`]).
    pub often_true: HashSet<u32>,
}

impl Printer {
    /// A printer of `net`'s functions, with rule-table threshold
    /// `threshold`, testing the atoms at `often_true` to their first group
    /// of bodies that holds.
    pub fn new(net: &Bitnet, threshold: usize, often_true: HashSet<u32>) -> Printer {
        Printer {
            fns: Vec::new(),
            tables: Tables::new(threshold),
            parts: 0,
            value_words: net.layout.total_words(),
            gathers: GatherTables::default(),
            often_true,
        }
    }
}

/// The size of one atom's code, in tests (atoms in the rule tables count
/// one).
fn atom_weight(tables: &Tables, conjs: &[Conj]) -> usize {
    if tables.is_big(conjs) {
        return 2;
    }
    // Bodies of one positive literal are one masked test per word.
    let mut words: Vec<u32> = conjs
        .iter()
        .filter(|c| c.is_single())
        .map(|c| c.lits[0].0 >> 6)
        .collect();
    words.sort_unstable();
    words.dedup();
    let rest: usize = conjs
        .iter()
        .filter(|c| !c.is_single())
        .map(Conj::weight)
        .sum();
    words.len() + rest + 1
}

/// The size of a ground module, computed from its bitnet without printing
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeSize {
    /// Code, in tests (a body literal, or a word of one-literal bodies):
    /// what the build budget is compared with.
    pub tests: usize,
    /// Literals of the rule tables: data, cheap to build but read in a loop
    /// on every evaluation that needs their atoms.
    pub table_literals: usize,
}

/// The size of the module of `gp` (bitnet `net`) with rule-table threshold
/// `threshold`.
pub fn code_size(net: &Bitnet, threshold: usize) -> CodeSize {
    let tables = Tables::new(threshold);
    let mut size = CodeSize {
        tests: 0,
        table_literals: 0,
    };
    let units = [&net.eval, &net.goal, &net.next]
        .into_iter()
        .flat_map(|s| &s.groups)
        .filter(|g| !matches!(g.demand, Demand::Never))
        .flat_map(|g| &g.blocks)
        .flat_map(Block::units);
    for unit in units {
        // A run of atoms wholly in the tables is one call.
        let mut in_run = false;
        for (_, mut conjs) in unit.bodies() {
            // Bodies a gathered family computes cost a share of its few
            // word operations, not their own tests.
            for &j in unit.by_family.iter().rev() {
                conjs.remove(j);
            }
            if tables.is_big(&conjs) {
                size.table_literals += conjs.iter().map(|c| c.lits.len()).sum::<usize>();
            }
            let whole = tables.is_whole(&conjs);
            size.tests += match (whole, in_run) {
                (true, true) => 0,
                (true, false) => 1,
                (false, _) => atom_weight(&tables, &conjs),
            };
            in_run = whole;
        }
    }
    size.tests += net
        .dispatch
        .arms
        .iter()
        .flatten()
        .map(|a| a.body.weight() + 1)
        .sum::<usize>();
    size
}

/// `stmts` under the test of a group's demand, if it has one: when none
/// of its bits holds, every reader is false or unread and the atoms stay
/// false.
fn demand_test(demand: &Demand, stmts: Vec<TokenStream>) -> Vec<TokenStream> {
    match demand {
        Demand::When(bits) => vec![expr::if_stmt(expr::any_of(bits), stmts)],
        _ => stmts,
    }
}

/// A statement and its weight, in tests.
pub(super) type Item = (TokenStream, usize);

impl Printer {
    /// Emits functions that compute a schedule, returning the names of the
    /// functions to call, in order. An `incremental` schedule's functions
    /// take the changed bits too and compute only the groups whose inputs
    /// changed ([`incremental`]).
    pub fn schedule_fns(
        &mut self,
        prefix: &str,
        schedule: &Schedule,
        incremental: bool,
    ) -> Vec<Ident> {
        let mut names = Vec::new();
        let mut body: Vec<TokenStream> = Vec::new();
        let mut weight = 0;
        for group in &schedule.groups {
            if group.demand == Demand::Never {
                continue;
            }
            let mut items = Vec::new();
            self.blocks_items(&group.blocks, &mut items);
            match &group.demand {
                // Unguarded statements may end one function and start the
                // next anywhere.
                Demand::Always if !incremental => {
                    for (stmt, w) in items {
                        body.push(stmt);
                        weight += w;
                        if weight >= CHUNK_WEIGHT {
                            self.flush(prefix, incremental, &mut body, &mut names);
                            weight = 0;
                        }
                    }
                }
                // Under the test of the demand, if any; incremental: one
                // segment, run again only when what it reads changed.
                demand => {
                    let (stmts, w) = self.pack(items);
                    let stmts = demand_test(demand, stmts);
                    weight += w;
                    if incremental {
                        body.push(incremental::segment(group, stmts));
                        weight += incremental::SEGMENT_WEIGHT;
                    } else {
                        body.extend(stmts);
                    }
                }
            }
            if weight >= CHUNK_WEIGHT {
                self.flush(prefix, incremental, &mut body, &mut names);
                weight = 0;
            }
        }
        self.flush(prefix, incremental, &mut body, &mut names);
        names
    }

    /// Statements of at most [`CHUNK_WEIGHT`] in all, and their weight: the
    /// items themselves, or calls of functions holding them in order. One
    /// guarded group or recursive component can hold most of a big game
    /// (Othello's goals: 600 KB in one `if`), and rustc's time grows faster
    /// than linearly in the size of a function.
    pub(super) fn pack(&mut self, items: Vec<Item>) -> (Vec<TokenStream>, usize) {
        let total: usize = items.iter().map(|i| i.1).sum();
        if total <= CHUNK_WEIGHT {
            return (items.into_iter().map(|i| i.0).collect(), total);
        }
        let mut calls = Vec::new();
        let mut chunk = Vec::new();
        let mut weight = 0;
        let last = items.len() - 1;
        for (i, (stmt, w)) in items.into_iter().enumerate() {
            chunk.push(stmt);
            weight += w;
            if weight >= CHUNK_WEIGHT || i == last {
                let name = format_ident!("part_{}", self.parts);
                self.parts += 1;
                let stmts = std::mem::take(&mut chunk);
                self.fns.push(quote! {
                    #[inline(never)]
                    fn #name(v: &mut Values) {
                        #(#stmts)*
                    }
                });
                calls.push(quote!(#name(v);));
                weight = 0;
            }
        }
        let n = calls.len();
        (calls, n)
    }

    /// The size of one atom's code, in tests (atoms in the rule tables count
    /// one).
    fn atom_weight(&self, conjs: &[Conj]) -> usize {
        atom_weight(&self.tables, conjs)
    }

    /// The statements of blocks of one level (none reads another), with
    /// their weights, appended to `out`: the families among their atoms
    /// first ([`families`]), then the rest one by one.
    fn blocks_items(&mut self, blocks: &[Block], out: &mut Vec<Item>) {
        // The one-atom blocks (their index) and their atoms.
        let (simple, atoms): (Vec<usize>, Vec<(u32, Vec<Conj>)>) = blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b {
                Block::Unit(u) if !u.cyclic && u.atoms.len() == 1 => {
                    let atom = u.bodies().next()?;
                    (!self.tables.is_big(&atom.1)).then_some((i, atom))
                }
                _ => None,
            })
            .unzip();
        let (fams, rest) = families::find(&atoms);
        let (gathered, left) = families::find_gathered_split(&atoms, &rest);
        // The blocks whose atom a family computes, whole or some of its
        // bodies: an atom with bodies left prints those.
        let mut skip = vec![false; blocks.len()];
        for &i in &simple {
            skip[i] = true;
        }
        let mut rest = Vec::new();
        let mut rest_conjs: Vec<Vec<Conj>> = Vec::new();
        let mut reduced: HashMap<usize, Block> = HashMap::new();
        for (k, bodies) in left.into_iter().filter(|(_, b)| !b.is_empty()) {
            skip[simple[k]] = false;
            if bodies.len() < atoms[k].1.len() {
                reduced.insert(simple[k], with_bodies(&blocks[simple[k]], &bodies));
            }
            rest.push(k);
            rest_conjs.push(bodies.iter().map(|&j| atoms[k].1[j].clone()).collect());
        }
        out.extend(fams.iter().map(family_item));
        self.gathered_items(&gathered, out);
        // The atoms left one by one, those sharing a screen under one test.
        let rest_conjs: Vec<&[Conj]> = rest_conjs.iter().map(Vec::as_slice).collect();
        let screens = conj::screens(&rest_conjs);
        let screen_of: HashMap<usize, (u32, u64)> = rest
            .iter()
            .zip(&screens)
            .filter_map(|(&k, s)| Some((simple[k], (*s)?)))
            .collect();
        let mut screened: BTreeMap<(u32, u64), Vec<Item>> = BTreeMap::new();
        for (i, b) in blocks.iter().enumerate().filter(|&(i, _)| !skip[i]) {
            let b = reduced.get(&i).unwrap_or(b);
            match screen_of.get(&i) {
                Some(s) => self.block_items(b, screened.entry(*s).or_default()),
                None => self.block_items(b, out),
            }
        }
        for ((w, m), items) in screened {
            let (stmts, weight) = self.pack(items);
            let (wl, m) = (lit_usize(w as usize), hex_lit(m));
            out.push((expr::if_stmt(quote!(v[#wl] & #m != 0), stmts), weight + 1));
        }
    }

    /// The statements computing gathered families, those with the same
    /// fixed literals (the side to move, "no capture available") under one
    /// test of them.
    fn gathered_items(&mut self, gathered: &[Gathered], out: &mut Vec<Item>) {
        let mut by_fixed: BTreeMap<Vec<BitLit>, Vec<Item>> = BTreeMap::new();
        for g in gathered {
            let (word, fixed) = self.gathers.family_word(g);
            let dw = lit_usize(g.dst_word as usize);
            by_fixed
                .entry(fixed)
                .or_default()
                .push((quote!(v[#dw] |= #word;), g.slots.len() + 1));
        }
        for (fixed, items) in by_fixed {
            if fixed.is_empty() {
                out.extend(items);
                continue;
            }
            let (stmts, w) = self.pack(items);
            let test = gathers::fixed_test(&fixed);
            out.push((expr::if_stmt(test, stmts), w + fixed.len()));
        }
    }

    /// The statements of a block, with their weights, appended to `out`.
    fn block_items(&mut self, block: &Block, out: &mut Vec<Item>) {
        let (guard, body) = match block {
            Block::Unit(u) => return self.unit_items(u, out),
            Block::Guarded { guard, body } => (guard, body),
        };
        let mut items = Vec::new();
        self.blocks_items(body, &mut items);
        let (stmts, w) = self.pack(items);
        out.push((expr::if_stmt(expr::lit_test(*guard), stmts), w));
    }

    /// Emits the statements of `body` as the next function of `prefix`
    /// (taking the changed bits too if `incremental`).
    fn flush(
        &mut self,
        prefix: &str,
        incremental: bool,
        body: &mut Vec<TokenStream>,
        names: &mut Vec<Ident>,
    ) {
        if body.is_empty() {
            return;
        }
        let name = format_ident!("{}_{}", prefix, names.len());
        let stmts = std::mem::take(body);
        let changed = incremental.then(|| quote!(, d: &mut Values));
        self.fns.push(quote! {
            #[inline(never)]
            fn #name(v: &mut Values #changed) {
                #(#stmts)*
            }
        });
        names.push(name);
    }

    /// The test of one atom's bodies: unrolled, or a loop over the rule
    /// tables for an atom with very many.
    fn atom_test(&mut self, pos: u32, conjs: Vec<Conj>) -> TokenStream {
        if !self.tables.is_big(&conjs) {
            let short = self.often_true.contains(&pos);
            return expr::disj_expr(&conjs, &mut self.gathers, short);
        }
        // Alternatives of one literal stay one masked OR; the rest loop over
        // the rule tables.
        let (singles, rest): (Vec<Conj>, Vec<Conj>) = conjs.into_iter().partition(Conj::is_single);
        let (from, to) = self.tables.add(pos, &rest);
        let (from, to) = (lit_usize(from as usize), lit_usize(to as usize));
        if singles.is_empty() {
            quote!(any_body(v, #from, #to))
        } else {
            let masked = expr::disj_expr(&singles, &mut self.gathers, false);
            quote!((#masked) | any_body(v, #from, #to))
        }
    }

    /// The call computing the tabled atoms from `start` to the last one
    /// added.
    fn tabled_run(&self, start: usize) -> Item {
        let (from, to) = (lit_usize(start), lit_usize(self.tables.num_atoms()));
        (quote!(tabled_atoms(v, #from, #to);), 1)
    }

    /// The statements computing a unit, with their weights, appended to
    /// `out`.
    fn unit_items(&mut self, unit: &Unit, out: &mut Vec<Item>) {
        if unit.plane {
            let atoms: Vec<(u32, Vec<Conj>)> = unit.bodies().collect();
            if let Some(words) = planes::plane_words(&atoms) {
                return self.plane_items(unit, &words, out);
            }
        }
        let mut items = Vec::new();
        let mut words = Vec::new();
        // Consecutive atoms wholly in the rule tables: one call for all.
        let mut run: Option<usize> = None;
        for (pos, conjs) in unit.bodies() {
            if !words.contains(&(pos >> 6)) {
                words.push(pos >> 6);
            }
            if self.tables.is_whole(&conjs) {
                let (from, to) = self.tables.add(pos, &conjs);
                let i = self.tables.add_atom(pos, from, to);
                run = run.or(Some(i));
                continue;
            }
            if let Some(start) = run.take() {
                items.push(self.tabled_run(start));
            }
            let w = self.atom_weight(&conjs);
            // One-atom units are screened with the other atoms of their
            // block ([`Printer::blocks_items`]).
            let screen = if unit.atoms.len() > 1 {
                conj::screen(&conjs)
            } else {
                None
            };
            let test = self.atom_test(pos, conjs);
            items.push((screened_stmts(screen, set_bit(pos, test)), w));
        }
        if let Some(start) = run {
            items.push(self.tabled_run(start));
        }
        self.fixpoint_items(unit.cyclic, &words, items, out);
    }

    /// The statements computing a plane's atoms word by word.
    fn plane_items(&mut self, unit: &Unit, words: &[PlaneWord], out: &mut Vec<Item>) {
        let cyclic = unit.cyclic;
        let items: Vec<Item> = words.iter().map(|pw| self.plane_word_item(pw)).collect();
        // A recursive plane small enough for one function: its loop-invariant
        // factors hoisted (they need locals, so it is never split).
        let weight: usize = items.iter().map(|i| i.1).sum();
        if cyclic && weight <= CHUNK_WEIGHT {
            let stmt = super::rays::fixpoint(words, self.value_words, unit.seeded);
            if let Some(stmt) = stmt {
                out.push((stmt, weight));
                return;
            }
        }
        let ws: Vec<u32> = words.iter().map(|pw| pw.word).collect();
        self.fixpoint_items(cyclic, &ws, items, out);
    }

    /// `v[w] |= ..;` computing plane word `pw`.
    fn plane_word_item(&self, pw: &PlaneWord) -> Item {
        let x = expr::plane_word(pw, self.value_words);
        let w = lit_usize(pw.word as usize);
        let weight: usize = pw.shapes.iter().map(planes::ShapeMask::ops).sum();
        (quote!(v[#w] |= #x;), weight)
    }

    /// `items`, appended to `out`; for a recursive unit (`cyclic`), in a
    /// loop until the `words` they write stop changing.
    fn fixpoint_items(
        &mut self,
        cyclic: bool,
        words: &[u32],
        items: Vec<Item>,
        out: &mut Vec<Item>,
    ) {
        if !cyclic {
            out.extend(items);
            return;
        }
        // Positive recursion within a state: iterate from all-false until
        // nothing changes (the least fixpoint).
        let (stmts, w) = self.pack(items);
        let ws: Vec<Literal> = words.iter().map(|&w| lit_usize(w as usize)).collect();
        out.push((
            quote! {
                loop {
                    let before = [#(v[#ws]),*];
                    #(#stmts)*
                    if before == [#(v[#ws]),*] {
                        break;
                    }
                }
            },
            w,
        ));
    }
}
