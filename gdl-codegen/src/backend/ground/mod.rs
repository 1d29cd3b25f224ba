//! The compiled backend: a ground program to a self-contained Rust module
//! that implements `gdl_runtime::Game`.
//!
//! What the generated code does, and why:
//! - a state is a `[u64; N]` bit set over the reachable fluents, `Copy`;
//! - moves are ids in the byte order of their GDL text, so legal moves come
//!   out sorted with no run-time cost;
//! - each query (legal moves of one role, next, terminal, goal) has its own
//!   functions computing only the derived atoms it needs, in topological
//!   order, as word-mask tests over a value vector (see [`rules`]);
//! - an atom is computed only when it can matter: atoms sharing a literal
//!   sit under one test of it (the side to move, then the piece on a
//!   move's square), and an atom whose readers all need one of a few
//!   fluents sits under a test of those (its demand);
//! - a reader that matters only when `g` holds reads `l = g ∧ x` in place
//!   of `x`, so "the side to move has a legal move" tests the legal-move
//!   bits instead of evaluating every move's rule a second time;
//! - `next` starts from the state's evaluation (a playout has just asked
//!   for its legal moves) and adds only what reads the joint move: a
//!   per-move table sets one bit per set of moves that rule bodies test,
//!   bodies needing one of a few moves run in a `match` on the move, and
//!   frame rules are applied word by word from per-move keep tables;
//! - code is split into functions of bounded size so that rustc stays fast,
//!   and its size is linear in the ground rules: atoms with very many
//!   bodies are evaluated by a loop over constant tables ([`tables`]);
//! - names from the game appear only in string tables and sanitized
//!   constants ([`names`]), never as behaviour.

mod demand;
pub mod layout;
mod moves;
pub mod names;
pub mod rules;
pub mod tables;

use std::collections::HashSet;
use std::fmt;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ground::{AtomId, GroundProgram, Output};
use layout::{Layout, FALSE_BIT, TRUE_BIT};

/// Largest set of one role's moves a `next` rule may need to be run by
/// move dispatch rather than tested.
const DISPATCH_MAX: usize = 4;

/// Most literals of a conjunction inlined into its readers.
const MAX_INLINE: usize = 4;

/// A literal of a rule body: a bit position of the value vector, and
/// whether it is negated.
type BitLit = (u32, bool);

/// Most state words a demand test may read: a wider one costs about what
/// it saves.
const MAX_DEMAND_WORDS: usize = 4;

/// Tests per generated function before a new one is started.
const CHUNK_WEIGHT: usize = 1500;

/// Options of the code generator.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Name of the generated game type (a state type `<Name>State` goes with it).
    pub type_name: String,
    /// Path of the runtime crate in the generated code.
    pub runtime_path: String,
    /// The source the game came from, for the header.
    pub source_name: String,
    /// Whether move and fluent text is matched case-sensitively by the parsers.
    pub case_sensitive: bool,
    /// Largest ground program to compile, in rule-body literals.
    pub max_literals: usize,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            type_name: "Game".to_owned(),
            runtime_path: "::gdl_runtime".to_owned(),
            source_name: "game".to_owned(),
            case_sensitive: false,
            max_literals: 8_000_000,
        }
    }
}

/// Why code could not be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The ground program is over the compile budget.
    TooLarge {
        /// Its size in rule-body literals.
        literals: usize,
        /// The budget.
        limit: usize,
    },
    /// The runtime path option is not a Rust path.
    BadRuntimePath(String),
    /// The generated tokens did not parse (a bug).
    Internal(String),
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::TooLarge { literals, limit } => write!(
                f,
                "the ground game has {literals} rule literals, more than the compile budget of {limit}; \
                 raise it with --max-compile-literals, or use --reasoner propnet or interpreter"
            ),
            EmitError::BadRuntimePath(p) => write!(f, "`{p}` is not a Rust path"),
            EmitError::Internal(e) => write!(f, "internal error: generated code does not parse: {e}"),
        }
    }
}

impl std::error::Error for EmitError {}

fn hex_lit(n: u64) -> Literal {
    format!("{n:#x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(n))
}

fn lit_u32(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

fn lit_usize(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

struct Gen<'a> {
    gp: &'a GroundProgram,
    layout: Layout,
    /// Rule bodies replacing an atom's own (frame rules taken out,
    /// conjunctions inlined).
    overrides: std::collections::HashMap<u32, Vec<rules::Conj>>,
    /// The derived atom at each bit position.
    pos_to_atom: std::collections::HashMap<u32, u32>,
    /// Whether each derived atom is in a cyclic component.
    cyclic: Vec<bool>,
    /// Generated functions.
    fns: Vec<TokenStream>,
    /// The derived atoms that are query outputs.
    outputs: HashSet<u32>,
    /// The `does` bit positions of each move-set bit, by set number.
    move_sets: Vec<Vec<u32>>,
    /// Atoms whose bit the move tables set directly, with the `does` bit
    /// positions of the moves that set it.
    direct_moves: std::collections::HashMap<u32, Vec<u32>>,
    /// The level of each derived atom, once the bodies are final (see
    /// [`Gen::levels`]).
    level: Vec<u32>,
    /// Atoms with very many rule bodies, stored as data.
    tables: std::cell::RefCell<tables::Tables>,
    /// Per derived atom, how many rule bodies read it (before inlining).
    reads: Vec<u32>,
    /// Per derived atom, fluents one of which must hold for its value to
    /// matter (`None`: always); see [`Gen::compute_demand`].
    demand: Vec<Option<Vec<u32>>>,
}

/// The demand of a component: the union of its atoms' (`None` if any is).
fn atoms_range_demand(
    demand: &[Option<Vec<u32>>],
    atoms: std::ops::Range<u32>,
) -> Option<Vec<u32>> {
    let mut all = Vec::new();
    for a in atoms {
        all.extend(demand.get(a as usize)?.as_ref()?.iter().copied());
    }
    all.sort_unstable();
    all.dedup();
    Some(all)
}

impl Gen<'_> {
    /// Emits functions that compute the derived atoms in `need`, returning
    /// the names of the functions to call, in order.
    fn cone_fns(&mut self, prefix: &str, need: &[bool]) -> Vec<Ident> {
        let units = self.units(need);
        // Order: by level (a valid topological order: a unit only reads
        // units of lower levels), then by demand so that units needed under
        // the same fluents are adjacent, then by guard likewise, then as the
        // ground program ordered them.
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|&i, &j| {
            let key = |u: &Unit| (u.guard.is_none(), u.guard, u.guard2.is_none(), u.guard2);
            let (u, w) = (&units[i], &units[j]);
            (u.level, u.demand.is_none(), &u.demand)
                .cmp(&(w.level, w.demand.is_none(), &w.demand))
                .then_with(|| key(u).cmp(&key(w)))
                .then(i.cmp(&j))
        });
        let mut names = Vec::new();
        let mut body: Vec<TokenStream> = Vec::new();
        let mut weight = 0;
        let mut i = 0;
        while i < order.len() {
            let first = &units[order[i]];
            let mut j = i + 1;
            while j < order.len()
                && units[order[j]].level == first.level
                && units[order[j]].demand == first.demand
            {
                j += 1;
            }
            let group: Vec<&Unit> = order[i..j].iter().map(|&k| &units[k]).collect();
            weight += group.iter().map(|u| u.weight).sum::<usize>();
            let stmts = self.guarded_code(&group);
            // A demand test costs a word operation per word it reads: it
            // pays only in front of atoms costing clearly more.
            let cost: usize = group
                .iter()
                .flat_map(|u| &u.atoms)
                .map(|(_, c)| rules::disj_cost(c) + 1)
                .sum();
            match &first.demand {
                // Read by nothing that matters.
                Some(fluents) if fluents.is_empty() => {}
                // Needed only when one of these fluents holds: otherwise
                // every reader is false or unread, and the atoms stay false.
                Some(fluents) if cost > 2 * rules::words_of(fluents) => {
                    let test = rules::any_of(fluents);
                    body.push(quote! {
                        if #test {
                            #(#stmts)*
                        }
                    });
                }
                _ => body.extend(stmts),
            }
            i = j;
            if weight >= CHUNK_WEIGHT {
                self.flush(prefix, &mut body, &mut names);
                weight = 0;
            }
        }
        self.flush(prefix, &mut body, &mut names);
        names
    }

    /// The statements of units of one level, those sharing a guard literal
    /// under one test of it.
    fn guarded_code(&self, units: &[&Unit]) -> Vec<TokenStream> {
        let mut body = Vec::new();
        let mut i = 0;
        while i < units.len() {
            let first = units[i];
            let mut j = i + 1;
            while j < units.len() && first.guard.is_some() && units[j].guard == first.guard {
                j += 1;
            }
            let group = &units[i..j];
            match first.guard {
                // A guard shared by several atoms: when it fails they are
                // all false (the vector starts at zero) and none is computed.
                Some(guard) if group.len() > 1 => {
                    let test = rules::lit_test(guard);
                    let mut stmts: Vec<TokenStream> = Vec::new();
                    // The second guard's test and statements when it alone
                    // covers the group (one `if`, not two: `collapsible_if`).
                    let mut only_inner = None;
                    let mut k = 0;
                    while k < group.len() {
                        let g2 = group[k].guard2;
                        let mut l = k + 1;
                        while l < group.len() && g2.is_some() && group[l].guard2 == g2 {
                            l += 1;
                        }
                        match g2 {
                            Some(g2) if l - k > 1 => {
                                let test2 = rules::lit_test(g2);
                                let inner: Vec<TokenStream> = group[k..l]
                                    .iter()
                                    .map(|u| self.unit_code(u, &[guard, g2]))
                                    .collect();
                                if k == 0 && l == group.len() {
                                    only_inner = Some((test2.clone(), inner.clone()));
                                }
                                stmts.push(quote! {
                                    if #test2 {
                                        #(#inner)*
                                    }
                                });
                            }
                            _ => stmts
                                .extend(group[k..l].iter().map(|u| self.unit_code(u, &[guard]))),
                        }
                        k = l;
                    }
                    body.push(match only_inner {
                        Some((test2, inner)) => quote! {
                            if #test && #test2 {
                                #(#inner)*
                            }
                        },
                        None => quote! {
                            if #test {
                                #(#stmts)*
                            }
                        },
                    });
                }
                _ => body.extend(group.iter().map(|u| self.unit_code(u, &[]))),
            }
            i = j;
        }
        body
    }

    fn flush(&mut self, prefix: &str, body: &mut Vec<TokenStream>, names: &mut Vec<Ident>) {
        if body.is_empty() {
            return;
        }
        let name = format_ident!("{}_{}", prefix, names.len());
        let stmts = std::mem::take(body);
        self.fns.push(quote! {
            #[inline(never)]
            fn #name(v: &mut Values) {
                #(#stmts)*
            }
        });
        names.push(name);
    }

    /// The merged rule bodies of derived atom `a`.
    fn conjs_of(&self, a: u32) -> Vec<rules::Conj> {
        match self.overrides.get(&a) {
            Some(c) => c.clone(),
            None => rules::merge(self.gp.rules_of(AtomId(a)), &self.layout),
        }
    }

    /// The derived atoms read as query outputs (legal, next, terminal,
    /// goal), which are computed whatever reads them.
    fn output_atoms(&self) -> HashSet<u32> {
        let gp = self.gp;
        gp.outputs()
            .filter_map(|o| match o {
                Output::Atom(a) if a.0 >= gp.num_inputs => Some(a.0),
                _ => None,
            })
            .collect()
    }

    /// Inlines small conjunctions into the rules that read them: an atom
    /// defined by one conjunction of literals (no `does` set) is replaced,
    /// where it is read positively, by those literals (at most
    /// [`MAX_INLINE`] of them), and where it is read negatively, if it is a
    /// single literal, by that literal negated. The literals then join the
    /// reader's word-mask tests and its guard, and the atom itself is only
    /// computed if something still reads it.
    fn inline_conjunctions(&mut self) {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let mut reads = vec![0u32; gp.num_derived() as usize];
        for a in ni..gp.num_atoms() {
            for c in self.conjs_of(a) {
                for (p, _) in &c.lits {
                    if let Some(&b) = self.pos_to_atom.get(p) {
                        reads[(b - ni) as usize] += 1;
                    }
                }
            }
        }
        self.reads = reads;
        for comp in &gp.components {
            for a in comp.start..comp.end {
                let conjs = self.conjs_of(a);
                let conjs = if comp.cyclic {
                    conjs
                } else {
                    conjs
                        .into_iter()
                        .filter_map(|c| self.inline_conj(c, ni))
                        .collect()
                };
                self.overrides.insert(a, conjs);
            }
        }
    }

    /// One conjunction with its inlinable literals replaced; `None` when it
    /// can never hold.
    fn inline_conj(&self, c: rules::Conj, ni: u32) -> Option<rules::Conj> {
        let mut lits = Vec::with_capacity(c.lits.len());
        for (p, neg) in c.lits {
            let Some(&b) = self.pos_to_atom.get(&p) else {
                lits.push((p, neg));
                continue;
            };
            let body = match self.overrides.get(&b) {
                // An output is computed anyway: reading it is cheaper than
                // repeating its rule.
                Some(body) if !self.cyclic[(b - ni) as usize] && !self.outputs.contains(&b) => body,
                _ => {
                    lits.push((p, neg));
                    continue;
                }
            };
            match (body.as_slice(), neg) {
                // Never true: a positive read fails, a negative one holds.
                ([], false) => return None,
                ([], true) => {}
                // Read once, it moves whole into its reader: nothing is
                // computed twice, and the reader's guards see its literals.
                ([one], false)
                    if one.any.is_empty()
                        && (one.lits.len() <= MAX_INLINE || self.reads[(b - ni) as usize] == 1) =>
                {
                    lits.extend(one.lits.iter().copied());
                }
                ([one], true) if one.any.is_empty() && one.lits.len() == 1 => {
                    let (q, n) = one.lits[0];
                    lits.push((q, !n));
                }
                ([one], true) if one.any.is_empty() && one.lits.is_empty() => return None,
                _ => lits.push((p, neg)),
            }
        }
        lits.sort_unstable();
        lits.dedup();
        if lits.windows(2).any(|w| w[0].0 == w[1].0) {
            // Both `q` and `not q`.
            return None;
        }
        Some(rules::Conj { lits, any: c.any })
    }

    /// The derived atoms a set of outputs needs, by derived index.
    fn cone(&self, outputs: impl IntoIterator<Item = Output>) -> Vec<bool> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let mut need = vec![false; gp.num_derived() as usize];
        let mut stack: Vec<u32> = outputs
            .into_iter()
            .filter_map(|o| match o {
                Output::Atom(a) if a.0 >= ni => Some(a.0),
                _ => None,
            })
            .collect();
        while let Some(a) = stack.pop() {
            let i = (a - ni) as usize;
            if need[i] {
                continue;
            }
            need[i] = true;
            for c in self.conjs_of(a) {
                stack.extend(
                    c.lits
                        .iter()
                        .filter_map(|(p, _)| self.pos_to_atom.get(p).copied()),
                );
            }
        }
        need
    }

    /// How often each atom is read: by rule bodies and as an output.
    fn use_counts(&self) -> Vec<u32> {
        let gp = self.gp;
        let mut used = vec![0u32; gp.num_atoms() as usize];
        for rule in &gp.rules {
            for l in rule.body.iter() {
                used[l.atom().0 as usize] += 1;
            }
        }
        for o in gp.outputs() {
            if let Output::Atom(a) = o {
                used[a.0 as usize] += 1;
            }
        }
        used
    }

    /// The level of every derived atom: 1 + the highest level of an atom
    /// of another component its bodies read (inputs are level 0). Bodies as
    /// rewritten (inlined, substituted) may read atoms of later components,
    /// so levels are relaxed until they settle; the reads stay acyclic.
    fn levels(&self) -> Vec<u32> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let mut comp_of = vec![0usize; gp.num_derived() as usize];
        for (k, comp) in gp.components.iter().enumerate() {
            for a in comp.start..comp.end {
                comp_of[(a - ni) as usize] = k;
            }
        }
        let deps: Vec<Vec<usize>> = gp
            .components
            .iter()
            .enumerate()
            .map(|(k, comp)| {
                let mut d: Vec<usize> = (comp.start..comp.end)
                    .flat_map(|a| self.conjs_of(a))
                    .flat_map(|c| c.lits)
                    .filter_map(|(p, _)| self.pos_to_atom.get(&p))
                    .map(|&b| comp_of[(b - ni) as usize])
                    .filter(|&j| j != k)
                    .collect();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        let mut comp_level = vec![0u32; deps.len()];
        // Each pass settles at least one more step of every chain of forward
        // reads; in the usual case the first pass is the last.
        for _ in 0..=deps.len() {
            let mut changed = false;
            for (k, d) in deps.iter().enumerate() {
                let lv = d.iter().map(|&j| comp_level[j] + 1).max().unwrap_or(0);
                if lv != comp_level[k] {
                    comp_level[k] = lv;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        comp_of.iter().map(|&k| comp_level[k]).collect()
    }

    /// The components needed by a query, with their levels and guards.
    fn units(&self, need: &[bool]) -> Vec<Unit> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let level = &self.level;
        let mut units = Vec::new();
        for comp in &gp.components {
            let atoms = comp.start..comp.end;
            let lv = level[(comp.start - ni) as usize];
            if !atoms.clone().any(|a| need[(a - ni) as usize]) {
                continue;
            }
            let atoms: Vec<(u32, Vec<rules::Conj>)> = atoms
                .map(|a| (self.layout.pos(AtomId(a)), self.conjs_of(a)))
                .filter(|(_, conjs)| !conjs.is_empty())
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let tables = self.tables.borrow();
            let weight = atoms
                .iter()
                .filter(|(_, c)| !tables.is_big(c))
                .flat_map(|(_, c)| c)
                .map(rules::Conj::weight)
                .sum::<usize>()
                + atoms.len();
            drop(tables);
            let guards = if comp.cyclic || atoms.len() != 1 {
                Vec::new()
            } else {
                rules::common_literals(&atoms[0].1)
            };
            // A component is needed when any of its atoms is.
            let demand = atoms_range_demand(&self.demand, comp.start - ni..comp.end - ni);
            units.push(Unit {
                demand,
                level: lv,
                guard: None,
                guard2: None,
                guards,
                atoms,
                cyclic: comp.cyclic,
                weight,
            });
        }
        // Each unit is guarded by its shared literal that most units share,
        // so that one test skips as many atoms as possible (in turn-taking
        // games: `(true (control ..))`).
        let mut freq: std::collections::HashMap<(u32, bool), usize> =
            std::collections::HashMap::new();
        for u in &units {
            for g in &u.guards {
                *freq.entry(*g).or_default() += 1;
            }
        }
        for u in &mut units {
            // Guards that fail often first (see below), then those that
            // most units share.
            let fluents = self.layout.fluents;
            let class = |g: &BitLit| match *g {
                (p, false) if p < fluents => 2,
                (_, false) => 1,
                _ => 0,
            };
            u.guard = u
                .guards
                .iter()
                .copied()
                .max_by_key(|g| (freq[g], std::cmp::Reverse(*g)));
            // A second guard splits a large guarded group further (in chess:
            // the piece on a move's source square under the side to move).
            // It should fail often: a fluent that must hold (a piece on a
            // square) rather than one that must not (no own piece on the
            // target), which holds in most states and skips nothing.
            u.guard2 = u
                .guards
                .iter()
                .copied()
                .filter(|g| Some(*g) != u.guard && freq[g] > 1)
                .max_by_key(|g| (class(g), freq[g], std::cmp::Reverse(*g)));
        }
        units
    }

    /// The statements computing a unit, leaving out the `guard` literal that
    /// an enclosing test already checked.
    fn unit_code(&self, unit: &Unit, guards: &[(u32, bool)]) -> TokenStream {
        let mut stmts = Vec::new();
        let mut words = Vec::new();
        for (pos, conjs) in &unit.atoms {
            let pos = *pos;
            let (w, shift) = (lit_usize((pos >> 6) as usize), lit_u32(pos & 63));
            let conjs: Vec<rules::Conj> = conjs
                .iter()
                .map(|c| guards.iter().fold(c.clone(), |c, &g| c.without(g)))
                .collect();
            let mut tables = self.tables.borrow_mut();
            let test = if tables.is_big(&conjs) {
                // Alternatives of one literal stay one masked OR; the rest
                // loop over the rule tables.
                let (singles, rest): (Vec<rules::Conj>, Vec<rules::Conj>) =
                    conjs.into_iter().partition(tables::is_single);
                let (from, to) = tables.add(pos, &rest);
                let (from, to) = (lit_usize(from as usize), lit_usize(to as usize));
                if singles.is_empty() {
                    quote!(any_body(v, #from, #to))
                } else {
                    let masked = rules::disj_expr(&singles, &self.layout);
                    quote!((#masked) | any_body(v, #from, #to))
                }
            } else {
                rules::disj_expr(&conjs, &self.layout)
            };
            drop(tables);
            if !words.contains(&(pos >> 6)) {
                words.push(pos >> 6);
            }
            stmts.push(if pos & 63 == 0 {
                quote!(v[#w] |= u64::from(#test);)
            } else {
                quote!(v[#w] |= u64::from(#test) << #shift;)
            });
        }
        if unit.cyclic {
            // Positive recursion within a state: iterate from all-false
            // until nothing changes (the least fixpoint).
            let ws: Vec<Literal> = words.iter().map(|&w| lit_usize(w as usize)).collect();
            quote! {
                loop {
                    let before = [#(v[#ws]),*];
                    #(#stmts)*
                    if before == [#(v[#ws]),*] {
                        break;
                    }
                }
            }
        } else {
            quote!(#(#stmts)*)
        }
    }
}

/// How a query's outputs are read from the value vector into an `out` array.
struct Gather {
    /// Copies the output region (a statement reading `v`, writing `out`).
    copy: TokenStream,
    /// Functions `fn(v: &Values, out: &mut [u64; N])` patching the rest.
    patches: Vec<Ident>,
    /// Length of `out` in words.
    words: usize,
}

/// A component to compute: its atoms (bit position and merged rule bodies),
/// its level (1 + the highest level it reads; inputs are level 0) and, for
/// single atoms, a literal all its rule bodies share.
struct Unit {
    level: u32,
    /// Fluents one of which must hold for the unit to be needed (`None`:
    /// always needed).
    demand: Option<Vec<u32>>,
    guard: Option<(u32, bool)>,
    guard2: Option<(u32, bool)>,
    guards: Vec<(u32, bool)>,
    atoms: Vec<(u32, Vec<rules::Conj>)>,
    cyclic: bool,
    weight: usize,
}

impl Gen<'_> {
    /// Emits functions that copy the bits at `sources` (positions in the
    /// value vector, or the constants) into bits `0..sources.len()` of an
    /// output array, straight-line and without branches. Returns the
    /// functions to call and the output's length in words.
    fn gather_fns(&mut self, prefix: &str, sources: &[u32], region: u32) -> Gather {
        let out_words = sources.len().div_ceil(64).max(1);
        let n = lit_usize(out_words);
        // The region holds every output computed by a rule of its own in
        // place: copy its words, then patch the outputs that are constants,
        // inputs or atoms placed in another region.
        let first = lit_usize((region / 64) as usize);
        let last = lit_usize((region / 64) as usize + out_words);
        let patches: Vec<(usize, u32)> = sources
            .iter()
            .enumerate()
            .filter(|&(i, &src)| src != FALSE_BIT && src != region + i as u32)
            .map(|(i, &src)| (i, src))
            .collect();
        let mut names = Vec::new();
        for (chunk_index, chunk) in patches.chunks(CHUNK_WEIGHT).enumerate() {
            let stmts: Vec<TokenStream> = chunk
                .iter()
                .map(|&(dst, src)| {
                    let (dw, ds) = (lit_usize(dst / 64), (dst % 64) as u32);
                    if src == TRUE_BIT {
                        let m = hex_lit(1u64 << ds);
                        return quote!(out[#dw] |= #m;);
                    }
                    let (sw, ss) = (lit_usize((src >> 6) as usize), src & 63);
                    let bit = if ss == 0 {
                        quote!(v[#sw] & 1)
                    } else {
                        let ss = lit_u32(ss);
                        quote!((v[#sw] >> #ss) & 1)
                    };
                    if ds == 0 {
                        quote!(out[#dw] |= #bit;)
                    } else {
                        let ds = lit_u32(ds);
                        quote!(out[#dw] |= (#bit) << #ds;)
                    }
                })
                .collect();
            let name = format_ident!("{}_{}", prefix, chunk_index);
            // Constant patches do not read the value vector.
            let v = if chunk.iter().all(|&(_, src)| src == TRUE_BIT) {
                format_ident!("_v")
            } else {
                format_ident!("v")
            };
            self.fns.push(quote! {
                #[inline(never)]
                fn #name(#v: &Values, out: &mut [u64; #n]) {
                    #(#stmts)*
                }
            });
            names.push(name);
        }
        let copy = quote!(out.copy_from_slice(&v[#first..#last]););
        Gather {
            copy,
            patches: names,
            words: out_words,
        }
    }
}

/// Generates the Rust module of a ground game, formatted and with its header.
pub fn emit(gp: &GroundProgram, opts: &EmitOptions) -> Result<String, EmitError> {
    let literals = gp.num_literals();
    if literals > opts.max_literals {
        return Err(EmitError::TooLarge {
            literals,
            limit: opts.max_literals,
        });
    }
    let rt: syn::Path = syn::parse_str(&opts.runtime_path)
        .map_err(|_| EmitError::BadRuntimePath(opts.runtime_path.clone()))?;
    let (tokens, table_items) = emit_tokens(gp, opts, &rt);
    let file: syn::File = syn::parse2(tokens).map_err(|e| EmitError::Internal(e.to_string()))?;
    let mut body = prettyplease::unparse(&file);
    if !table_items.is_empty() {
        body.push('\n');
        body.push_str(&table_items);
    }
    Ok(format!(
        "// @generated by gdl-codegen {} from `{}`. Do not edit: regenerate instead.\n\n{body}",
        env!("CARGO_PKG_VERSION"),
        opts.source_name.replace('\n', " ")
    ))
}

/// The atoms of `need` that `done` does not hold (a cone less the cached
/// evaluation it starts from).
fn not_in(need: Vec<bool>, done: &[bool]) -> Vec<bool> {
    need.into_iter().zip(done).map(|(n, &d)| n && !d).collect()
}

/// The module's tokens, and the rule tables as text (empty when unused).
fn emit_tokens(gp: &GroundProgram, opts: &EmitOptions, rt: &syn::Path) -> (TokenStream, String) {
    let layout = Layout::new(gp);
    let mut g = Gen {
        gp,
        layout: layout.clone(),
        overrides: std::collections::HashMap::new(),
        pos_to_atom: (gp.num_inputs..gp.num_atoms())
            .map(|a| (layout.pos(AtomId(a)), a))
            .collect(),
        cyclic: vec![false; gp.num_derived() as usize],
        fns: Vec::new(),
        outputs: HashSet::new(),
        reads: Vec::new(),
        move_sets: Vec::new(),
        level: Vec::new(),
        direct_moves: std::collections::HashMap::new(),
        tables: std::cell::RefCell::new(tables::Tables::new(gp.num_literals())),
        demand: Vec::new(),
    };
    g.outputs = g.output_atoms();
    for comp in gp.components.iter().filter(|c| c.cyclic) {
        for a in comp.start..comp.end {
            g.cyclic[(a - gp.num_inputs) as usize] = true;
        }
    }
    let frames = g.frame_tables();
    g.substitute_under_guards();
    g.inline_conjunctions();
    let (dispatch_arms, dispatch_reads) = g.move_dispatch();
    let move_sets = g.move_set_tables();
    g.compute_demand(&dispatch_reads);
    // The bodies are final from here on: every query orders by these.
    g.level = g.levels();
    let layout = g.layout.clone();
    let game = Ident::new(&names::type_name(&opts.type_name), Span::call_site());
    let state = format_ident!("{}State", game);
    let nw = lit_usize(layout.state_words);
    let nv = lit_usize(layout.total_words());
    let num_roles = gp.roles.len();
    let nr = lit_usize(num_roles);

    // Tables.
    let role_names = &gp.roles;
    let fluents = &gp.fluents;
    let nf = lit_usize(fluents.len());
    let key = |s: &str| {
        if opts.case_sensitive {
            s.to_owned()
        } else {
            s.to_ascii_lowercase()
        }
    };
    let fluent_keys: Vec<String> = fluents.iter().map(|f| key(f)).collect();
    // Keys are the texts themselves unless case folding changes some.
    let fluent_keys_item = if fluent_keys == *fluents {
        quote!(static FLUENT_KEYS: &[&str; #nf] = &FLUENTS;)
    } else {
        quote!(static FLUENT_KEYS: [&str; #nf] = [#(#fluent_keys),*];)
    };
    let mut init = vec![0u64; layout.state_words];
    for &f in &gp.init {
        init[(f / 64) as usize] |= 1 << (f % 64);
    }
    let init: Vec<Literal> = init
        .iter()
        .map(|w| {
            format!("{w:#x}")
                .parse()
                .unwrap_or_else(|_| Literal::u64_unsuffixed(*w))
        })
        .collect();
    let terminal_bit = lit_u32(layout.output_pos(gp.terminal));

    // `ROLE_NAMES` is a table of the module: no role constant may take it.
    let mut taken = HashSet::from(["ROLE_NAMES".to_owned()]);
    let role_consts: Vec<TokenStream> = gp
        .roles
        .iter()
        .enumerate()
        .map(|(r, name)| {
            let c = Ident::new(
                &names::const_name("ROLE", name, &mut taken),
                Span::call_site(),
            );
            let r = lit_usize(r);
            let doc = format!(" The role `{name}`.");
            quote! {
                #[doc = #doc]
                #[allow(dead_code, reason = "part of the generated API, used or not")]
                pub const #c: #rt::Role = #r;
            }
        })
        .collect();

    let mut move_tables = Vec::new();
    let mut legal_arms = Vec::new();
    let mut move_refs = Vec::new();
    let mut key_refs = Vec::new();
    let mut does_base = Vec::new();
    for r in 0..num_roles {
        let moves = &gp.moves[r];
        let n = lit_usize(moves.len());
        let mt = format_ident!("MOVES_{}", r);
        let kt = format_ident!("MOVE_KEYS_{}", r);
        let keys: Vec<String> = moves.iter().map(|m| key(m)).collect();
        let legal: Vec<u32> = gp.legal[r].iter().map(|o| layout.output_pos(*o)).collect();
        let keys_item = if keys == *moves {
            quote!(static #kt: &[&str; #n] = &#mt;)
        } else {
            quote!(static #kt: [&str; #n] = [#(#keys),*];)
        };
        move_tables.push(quote! {
            static #mt: [&str; #n] = [#(#moves),*];
            #keys_item
        });
        move_refs.push(quote!(&#mt));
        key_refs.push(if keys == *moves {
            quote!(#kt)
        } else {
            quote!(&#kt)
        });
        does_base.push(lit_u32(layout.pos(gp.does_atom(r, 0))));
        let gather = g.gather_fns(&format!("legal_bits_{r}"), &legal, layout.regions[r]);
        let (lw, copy, patches) = (lit_usize(gather.words), gather.copy, gather.patches);
        let rl = lit_usize(r);
        legal_arms.push(quote! {
            #rl => {
                let mut bits = [0u64; #lw];
                {
                    let out = &mut bits;
                    #copy
                }
                #(#patches(v, &mut bits);)*
                push_moves(&bits, out);
            }
        });
    }
    // With one role, an empty catch-all arm would be clippy's `single_match`.
    let other_roles = if num_roles == 1 {
        quote!(_ => out.clear(),)
    } else {
        quote!(_ => {})
    };
    // Legal moves and terminal read one evaluation of the state, kept per
    // thread: a playout asks both of the same state. Goals, asked at the end
    // of a match once per role, start from it (the state was just found
    // terminal) and keep their own per-thread evaluation.
    let eval_need = g.cone(gp.legal.iter().flatten().copied().chain([gp.terminal]));
    let eval_calls = g.cone_fns("eval", &eval_need);
    let goal_need = not_in(
        g.cone(gp.goal.iter().flatten().map(|&(_, o)| o)),
        &eval_need,
    );
    let goal_calls = g.cone_fns("goal", &goal_need);
    // `next` starts from the evaluation of the state (a playout has just
    // asked for its legal moves) and computes only the atoms that one
    // lacks: those reading the joint move.
    let next_need = not_in(
        g.cone(gp.next.iter().copied().chain(dispatch_reads)),
        &eval_need,
    );
    let next_calls = g.cone_fns("next", &next_need);
    let dispatch_calls: Vec<TokenStream> = dispatch_arms
        .into_iter()
        .enumerate()
        .filter(|(_, arms)| !arms.is_empty())
        .map(|(r, arms)| {
            let fns = g.dispatch_fns(r, arms);
            // `first()` for role 0: clippy's `get_first`.
            let get = if r == 0 {
                quote!(first())
            } else {
                let rl = lit_usize(r);
                quote!(get(#rl))
            };
            quote! {
                if let Some(mv) = joint.#get {
                    #(#fns(&mut v, mv.0);)*
                }
            }
        })
        .collect();
    let next_bits: Vec<u32> = gp
        .next
        .iter()
        .map(|o| match o {
            // An atom left with no rules of its own is never true by them.
            Output::Atom(a)
                if g.overrides.get(&a.0).is_some_and(Vec::is_empty)
                    && !g.direct_moves.contains_key(&a.0) =>
            {
                FALSE_BIT
            }
            o => layout.output_pos(*o),
        })
        .collect();
    // The frame tables, and the statement applying them.
    let mut frame_items = Vec::new();
    let mut keep_terms = Vec::new();
    for (r, table) in frames.iter().enumerate() {
        if table.iter().all(|row| row.iter().all(|&w| w == 0)) {
            continue;
        }
        let name = format_ident!("KEEP_{}", r);
        let rows: Vec<TokenStream> = table
            .iter()
            .map(|row| {
                let ws: Vec<Literal> = row.iter().map(|&w| hex_lit(w)).collect();
                quote!([#(#ws),*])
            })
            .collect();
        let n = lit_usize(table.len());
        frame_items.push(quote!(static #name: [[u64; #nw]; #n] = [#(#rows),*];));
        let rl = lit_usize(r);
        // `first()` for role 0: clippy's `get_first`.
        let get = if r == 0 {
            quote!(first())
        } else {
            quote!(get(#rl))
        };
        keep_terms.push(quote! {
            joint.#get.and_then(|m| #name.get(m.0 as usize)).map_or(0, |row| row[w])
        });
    }
    let frame_stmt = if keep_terms.is_empty() {
        quote!()
    } else {
        quote! {
            for (w, word) in next.iter_mut().enumerate() {
                let keep = #(#keep_terms)|*;
                *word |= state.0[w] & keep;
            }
        }
    };
    // The move-set tables, and the statements setting a joint move's bits.
    let mut move_set_items = Vec::new();
    let mut move_set_stmts = Vec::new();
    for (r, table) in move_sets.iter().enumerate() {
        if table.iter().all(Vec::is_empty) {
            continue;
        }
        let start_name = format_ident!("MOVE_SET_START_{}", r);
        let bits_name = format_ident!("MOVE_SET_BITS_{}", r);
        let mut starts = vec![0u32];
        let mut bits = Vec::new();
        for row in table {
            bits.extend(row.iter().copied());
            starts.push(bits.len() as u32);
        }
        let ns = lit_usize(starts.len());
        let nb = lit_usize(bits.len());
        let starts: Vec<Literal> = starts.into_iter().map(lit_u32).collect();
        // The narrowest type holding every set number keeps the table small.
        let bit_ty = if layout.total_words() * 64 <= 1 << 16 {
            quote!(u16)
        } else {
            quote!(u32)
        };
        let bits: Vec<Literal> = bits.into_iter().map(lit_u32).collect();
        move_set_items.push(quote! {
            static #start_name: [u32; #ns] = [#(#starts),*];
            static #bits_name: [#bit_ty; #nb] = [#(#bits),*];
        });
        let get = if r == 0 {
            quote!(first())
        } else {
            let rl = lit_usize(r);
            quote!(get(#rl))
        };
        move_set_stmts.push(quote! {
            if let Some(mv) = joint.#get {
                let m = mv.0 as usize;
                if let (Some(&from), Some(&to)) = (#start_name.get(m), #start_name.get(m + 1)) {
                    for &bit in #bits_name.get(from as usize..to as usize).unwrap_or(&[]) {
                        let bit = bit as usize;
                        v[bit >> 6] |= 1 << (bit & 63);
                    }
                }
            }
        });
    }
    let next_gather = g.gather_fns("next_state", &next_bits, layout.regions[num_roles]);
    let (next_copy, next_patches) = (next_gather.copy, next_gather.patches);
    let goal_tables: Vec<TokenStream> = gp
        .goal
        .iter()
        .map(|gs| {
            let vals: Vec<Literal> = gs.iter().map(|&(v, _)| Literal::u8_unsuffixed(v)).collect();
            let bits: Vec<Literal> = gs
                .iter()
                .map(|&(_, o)| lit_u32(layout.output_pos(o)))
                .collect();
            quote!(&[#((#vals, #bits)),*])
        })
        .collect();
    let fns = g.fns;
    let tables = g.tables.into_inner();
    let (table_items, table_fn) = if tables.is_empty() {
        (String::new(), quote!())
    } else {
        (
            tables.items(),
            quote! {
                /// Whether one of the bodies `from..to` of the rule tables
                /// holds.
                #[inline(never)]
                fn any_body(v: &Values, from: usize, to: usize) -> bool {
                    BODY_START[from..=to].windows(2).any(|w| {
                        BODY_LITERALS[w[0] as usize..w[1] as usize].iter().all(|&l| {
                            let p = (l >> 1) as usize;
                            ((v[p >> 6] >> (p & 63)) & 1) as u32 != (l & 1)
                        })
                    })
                }
            },
        )
    };
    let false_bit = lit_u32(FALSE_BIT);
    let true_bit = lit_u32(TRUE_BIT);
    let game_doc = format!(
        " The game of `{}`, compiled by gdl-codegen.",
        opts.source_name
    );
    let state_doc = format!(" A state of [`{game}`]: one bit per reachable fluent.");
    let num_fluents_doc = " Number of reachable fluents.";
    let opts_case = opts.case_sensitive;
    let moves_count: Vec<Literal> = gp.moves.iter().map(|m| lit_u32(m.len() as u32)).collect();

    let module = quote! {
        #(#role_consts)*

        #[doc = #num_fluents_doc]
        #[allow(dead_code, reason = "part of the generated API, used or not")]
        pub const NUM_FLUENTS: usize = #nf;

        #[doc = #game_doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #game;

        #[doc = #state_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #state(pub [u64; #nw]);

        /// The value vector of one query: state words, `does` words, derived atoms.
        type Values = [u64; #nv];

        static ROLE_NAMES: [&str; #nr] = [#(#role_names),*];
        static FLUENTS: [&str; #nf] = [#(#fluents),*];
        #fluent_keys_item
        static INIT: [u64; #nw] = [#(#init),*];
        static GOALS: [&[(u8, u32)]; #nr] = [#(#goal_tables),*];
        static MOVES: [&[&str]; #nr] = [#(#move_refs),*];
        static MOVE_KEYS: [&[&str]; #nr] = [#(#key_refs),*];
        static NUM_MOVES: [u32; #nr] = [#(#moves_count),*];
        static DOES_BASE: [u32; #nr] = [#(#does_base),*];
        const TERMINAL: u32 = #terminal_bit;
        #(#frame_items)*
        #(#move_set_items)*
        #(#move_tables)*

        /// Whether bit `bit` of the value vector holds (with the constants).
        #[inline(always)]
        fn test(v: &Values, bit: u32) -> bool {
            match bit {
                #false_bit => false,
                #true_bit => true,
                _ => v.get((bit >> 6) as usize).is_some_and(|w| (w >> (bit & 63)) & 1 != 0),
            }
        }

        /// Appends the moves whose bits are set, in id order (the text order).
        #[inline(always)]
        fn push_moves(bits: &[u64], out: &mut ::std::vec::Vec<#rt::Move>) {
            for (i, &word) in bits.iter().enumerate() {
                let mut w = word;
                while w != 0 {
                    out.push(#rt::Move(i as u32 * 64 + w.trailing_zeros()));
                    w &= w - 1;
                }
            }
        }

        /// The last state evaluated on this thread, with its value vector.
        struct EvalCache {
            state: ::core::option::Option<#state>,
            v: Values,
        }

        ::std::thread_local! {
            static EVAL: ::core::cell::RefCell<EvalCache> = const {
                ::core::cell::RefCell::new(EvalCache { state: None, v: [0; #nv] })
            };
            static GOAL_EVAL: ::core::cell::RefCell<EvalCache> = const {
                ::core::cell::RefCell::new(EvalCache { state: None, v: [0; #nv] })
            };
        }

        /// Runs `f` on the evaluation of `state` (legal moves, terminal),
        /// computing it unless it is this thread's last one.
        #[inline]
        fn with_values<R>(state: &#state, f: impl FnOnce(&Values) -> R) -> R {
            EVAL.with(|cell| {
                let mut cache = cell.borrow_mut();
                if cache.state.as_ref() != Some(state) {
                    let v = &mut cache.v;
                    v.fill(0);
                    v[..#nw].copy_from_slice(&state.0);
                    #(#eval_calls(v);)*
                    cache.state = Some(*state);
                }
                f(&cache.v)
            })
        }


        /// Case folding of the text parsers (prefix GDL is case-independent).
        fn key(text: &str) -> ::core::result::Result<::std::string::String, #rt::ParseError> {
            #rt::text::canonical(text).map(|t| if CASE_SENSITIVE { t } else { t.to_ascii_lowercase() })
        }

        const CASE_SENSITIVE: bool = #opts_case;

        #(#fns)*

        #table_fn

        #[automatically_derived]
        impl #rt::Game for #game {
            type State = #state;

            fn num_roles(&self) -> usize {
                #nr
            }

            fn role_name(&self, role: #rt::Role) -> &str {
                ROLE_NAMES.get(role).copied().unwrap_or("")
            }

            fn initial_state(&self) -> #state {
                #state(INIT)
            }

            fn legal_moves(&self, state: &#state, role: #rt::Role, out: &mut ::std::vec::Vec<#rt::Move>) {
                out.clear();
                with_values(state, |v| match role {
                    #(#legal_arms)*
                    #other_roles
                });
            }

            fn is_terminal(&self, state: &#state) -> bool {
                with_values(state, |v| test(v, TERMINAL))
            }

            fn goal(&self, state: &#state, role: #rt::Role) -> #rt::Goal {
                let Some(goals) = GOALS.get(role) else {
                    return #rt::Goal::None;
                };
                GOAL_EVAL.with(|cell| {
                    let mut cache = cell.borrow_mut();
                    if cache.state.as_ref() != Some(state) {
                        cache.v = with_values(state, |e| *e);
                        #(#goal_calls(&mut cache.v);)*
                        cache.state = Some(*state);
                    }
                    let mut found = None;
                    for &(value, bit) in goals.iter() {
                        if test(&cache.v, bit) {
                            if found.is_some() {
                                return #rt::Goal::Ambiguous;
                            }
                            found = Some(value);
                        }
                    }
                    found.map_or(#rt::Goal::None, #rt::Goal::Value)
                })
            }

            fn apply_unchecked(&self, state: &mut #state, joint: &[#rt::Move]) {
                let mut v = with_values(state, |e| *e);
                for ((mv, &base), &count) in joint.iter().zip(DOES_BASE.iter()).zip(NUM_MOVES.iter()) {
                    // An out-of-range move sets no bit: the result is
                    // unspecified but memory-safe, as the trait allows.
                    if mv.0 < count {
                        let bit = base + mv.0;
                        v[(bit >> 6) as usize] |= 1 << (bit & 63);
                    }
                }
                #(#move_set_stmts)*
                #(#next_calls(&mut v);)*
                #(#dispatch_calls)*
                let mut next = [0u64; #nw];
                {
                    let out = &mut next;
                    #next_copy
                }
                #(#next_patches(&v, &mut next);)*
                #frame_stmt
                state.0 = next;
            }

            fn move_text(&self, role: #rt::Role, mv: #rt::Move) -> ::std::string::String {
                MOVES
                    .get(role)
                    .and_then(|m| m.get(mv.0 as usize))
                    .map_or_else(::std::string::String::new, |m| (*m).to_owned())
            }

            fn fluents(&self, state: &#state) -> ::std::vec::Vec<::std::string::String> {
                FLUENTS
                    .iter()
                    .enumerate()
                    .filter(|(f, _)| (state.0[f >> 6] >> (f & 63)) & 1 != 0)
                    .map(|(_, t)| (*t).to_owned())
                    .collect()
            }

            fn parse_move(&self, role: #rt::Role, text: &str) -> ::core::result::Result<#rt::Move, #rt::ParseError> {
                let k = key(text)?;
                let keys = MOVE_KEYS
                    .get(role)
                    .ok_or_else(|| #rt::ParseError::new(::std::format!("no role {role}")))?;
                keys.iter()
                    .position(|m| *m == k)
                    .map(|m| #rt::Move(m as u32))
                    .ok_or_else(|| #rt::ParseError::new(::std::format!("`{text}` is not a move of role {role}")))
            }

            fn parse_state(&self, text: &str) -> ::core::result::Result<#state, #rt::ParseError> {
                let mut words = [0u64; #nw];
                for term in #rt::text::split_terms(text)? {
                    let k = key(term)?;
                    let f = FLUENT_KEYS
                        .iter()
                        .position(|x| *x == k)
                        .ok_or_else(|| #rt::ParseError::new(::std::format!("`{term}` is not a fluent of this game")))?;
                    words[f >> 6] |= 1 << (f & 63);
                }
                Ok(#state(words))
            }
        }
    };
    (module, table_items)
}
