//! Translation of the ground program into the propnet's instruction stream.
//!
//! Atom values live in one bit vector (see [`Layout`]), so a conjunction is
//! a few word-mask tests instead of one load per literal. Rules of one atom
//! that differ only in a positive `does` literal are merged into one "any of
//! these moves" test: each role makes exactly one move, so that is a lookup
//! of the role's move id in a bit set (board games have thousands of such
//! rules: one per cell and move). In the `next` plan, rules with few moves
//! are not tested at all but looked up by the moves made ([`Op::Trigger`]).
//! Frame rules `next(f) <= true(f) ∧ does`
//! leave the stream altogether for per-role tables applied word-parallel
//! ([`Code::keep`]). Atoms sharing a guard literal (such as `(true (control
//! white))`) are grouped behind one test that skips them all when it fails.

use std::collections::{BTreeMap, HashMap};

use crate::ground::{AtomId, GroundProgram, GroundRule, Output};

/// Where each atom lives in the value vector: the state's words first (so a
/// state is copied in), then the `does` atoms, then the derived atoms, then
/// one word holding the constants.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    fluents: u32,
    inputs: u32,
    /// Words of the state.
    pub state_words: usize,
    /// Words of the `does` atoms.
    pub does_words: usize,
    /// Words of the derived atoms.
    pub derived_words: usize,
}

impl Layout {
    fn new(gp: &GroundProgram) -> Self {
        let fluents = gp.fluents.len() as u32;
        Layout {
            fluents,
            inputs: gp.num_inputs,
            state_words: (fluents as usize).div_ceil(64).max(1),
            does_words: ((gp.num_inputs - fluents) as usize).div_ceil(64).max(1),
            derived_words: (gp.num_derived() as usize).div_ceil(64).max(1),
        }
    }

    /// Total words, the constants' word included.
    pub fn total_words(&self) -> usize {
        self.state_words + self.does_words + self.derived_words + 1
    }

    /// The bit of the constant true (the bit after it is the constant false).
    pub fn true_bit(&self) -> u32 {
        (self.total_words() as u32 - 1) * 64
    }

    /// The bit position of an atom.
    pub fn pos(&self, atom: AtomId) -> u32 {
        let a = atom.0;
        if a < self.fluents {
            a
        } else if a < self.inputs {
            self.state_words as u32 * 64 + (a - self.fluents)
        } else {
            (self.state_words + self.does_words) as u32 * 64 + (a - self.inputs)
        }
    }

    /// The bit position of an output.
    pub fn output(&self, o: Output) -> u32 {
        match o {
            Output::True => self.true_bit(),
            Output::False => self.true_bit() + 1,
            Output::Atom(a) => self.pos(a),
        }
    }
}

/// One instruction. Atoms are computed in stream order; every derived atom
/// starts false, so an atom whose rules fail (or that a guard skips) needs
/// no write.
#[derive(Copy, Clone, Debug)]
pub(super) enum Op {
    /// Unless bit `bit` is `!neg`, skip the next `skip` instructions.
    Guard { bit: u32, neg: bool, skip: u32 },
    /// Set bit `dest` if one of the `len` following instructions'
    /// conjunctions holds.
    Atom { dest: u32, len: u32 },
    /// A conjunction of the `len` following tests; with `any`, one of its
    /// [`Op::Any`] tests must hold as well.
    Conj { len: u32, any: bool },
    /// `v[w] & mask == want`.
    Test { w: u32, mask: u64, want: u64 },
    /// `v[w] & mask != 0`: an atom's rules that are single positive
    /// literals in one word, as one conjunction.
    Some { w: u32, mask: u64 },
    /// The move of `role` must be in the bit set at `pool[off..]` (the
    /// conjunction's move set has moves of this role only). First in its
    /// conjunction: one move out of many is the most selective test.
    Move { role: u32, off: u32 },
    /// The move of `role` is in the bit set at `pool[off..]`; one such test
    /// of a conjunction must hold (its move set spans several roles).
    Any { role: u32, off: u32 },
    /// Rules that hold only for a few moves, looked up by the moves made
    /// instead of tested one by one: for each role `r` making move `m`, the
    /// conjunctions at `trig_items[trig_start[i]..trig_start[i + 1]]` with
    /// `i = base + role_off[r] + m` (see [`Code`]).
    Trigger { base: u32 },
    /// The `len` following instructions (the atoms of a cyclic component)
    /// are repeated until none changes: the least fixpoint.
    Cycle { len: u32 },
}

/// A literal: bit position, negated.
type Lit = (u32, bool);

/// A rule body after merging: literals (bit, negated) and, per role, moves
/// of which the one made must be one (empty: no such test).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Conj {
    lits: Vec<(u32, bool)>,
    any: Vec<(u32, u32)>,
}

/// Everything the propnet evaluates.
#[derive(Clone, Debug)]
pub(super) struct Code {
    pub layout: Layout,
    /// Cone of `legal` and `terminal`.
    pub state: Vec<Op>,
    /// The rest of the cone of `goal`.
    pub goal: Vec<Op>,
    /// The rest of the cone of `next`.
    pub next: Vec<Op>,
    /// Move sets of [`Op::Any`]: per set, one bit per move of its role plus
    /// one (always clear) for an out-of-range move.
    pub pool: Vec<u64>,
    /// Per role, per move (plus one out-of-range row): the state words of
    /// the fluents the move keeps by a frame rule (empty: no table).
    pub keep: Vec<Vec<u64>>,
    /// Per fluent: the bit of its `next` output.
    pub next_bits: Vec<(u32, u32)>,
    /// Per role, the index of its move 0 in a trigger table (each role has
    /// its moves plus one out-of-range slot).
    role_off: Vec<u32>,
    /// Trigger tables ([`Op::Trigger`]): ranges of `trig_items`.
    trig_start: Vec<u32>,
    /// Triggered rules: (atom bit, index in `trig_ops` of a conjunction).
    trig_items: Vec<(u32, u32)>,
    /// Conjunctions of triggered rules ([`Op::Conj`] and its tests).
    trig_ops: Vec<Op>,
}

/// Largest move set (per role) of a rule looked up by move rather than
/// tested: each of its moves lists the rule once.
const TRIGGER_MAX: usize = 24;

/// Groups bit positions by word: `(word, mask)`.
fn by_word(bits: impl IntoIterator<Item = u32>) -> BTreeMap<u32, u64> {
    let mut m = BTreeMap::new();
    for b in bits {
        *m.entry(b >> 6).or_insert(0u64) |= 1u64 << (b & 63);
    }
    m
}

/// The word tests of a conjunction of literals.
fn word_tests(lits: &[Lit]) -> Vec<Op> {
    let pos = by_word(lits.iter().filter(|l| !l.1).map(|l| l.0));
    let neg = by_word(lits.iter().filter(|l| l.1).map(|l| l.0));
    let mut words: Vec<u32> = pos.keys().chain(neg.keys()).copied().collect();
    words.sort_unstable();
    words.dedup();
    words
        .into_iter()
        .map(|w| {
            let p = pos.get(&w).copied().unwrap_or(0);
            let n = neg.get(&w).copied().unwrap_or(0);
            Op::Test {
                w,
                mask: p | n,
                want: p,
            }
        })
        .collect()
}

struct Builder<'a> {
    gp: &'a GroundProgram,
    layout: Layout,
    /// Per role, the atom of its first move and its number of moves.
    roles: Vec<(u32, u32)>,
    /// Merged bodies of atoms whose frame rules were taken out.
    overrides: HashMap<u32, Vec<Conj>>,
    pool: Vec<u64>,
    pool_index: HashMap<Vec<u64>, u32>,
    /// Whether rules with few moves go to trigger tables (the `next` plan:
    /// only it has moves).
    trigger: bool,
    role_off: Vec<u32>,
    /// Per role, per move: the triggered rules of the level being emitted.
    pending: Vec<Vec<Vec<(u32, u32)>>>,
    trig_start: Vec<u32>,
    trig_items: Vec<(u32, u32)>,
    trig_ops: Vec<Op>,
}

/// A component to compute: its atoms' positions and bodies, its level (1 +
/// the highest level it reads) and, for one acyclic atom, the literals all
/// its bodies share (candidate guards).
struct Unit {
    level: u32,
    guard: Option<(u32, bool)>,
    guards: Vec<(u32, bool)>,
    atoms: Vec<(u32, Vec<Conj>)>,
    cyclic: bool,
}

impl Builder<'_> {
    /// The role and move of a `does` atom.
    fn does(&self, atom: u32) -> Option<(u32, u32)> {
        self.roles
            .iter()
            .enumerate()
            .find(|(_, &(s, n))| (s..s + n).contains(&atom))
            .map(|(r, &(s, _))| (r as u32, atom - s))
    }

    /// The bodies of `rules`, those differing only in one positive `does`
    /// literal merged.
    fn merge(&self, rules: &[GroundRule]) -> Vec<Conj> {
        let mut groups: BTreeMap<Vec<Lit>, Vec<(u32, u32)>> = BTreeMap::new();
        let mut out = Vec::new();
        for rule in rules {
            let does: Vec<(u32, u32)> = rule
                .body
                .iter()
                .filter(|l| !l.is_negated())
                .filter_map(|l| self.does(l.atom().0))
                .collect();
            let lit = |l: &crate::ground::Lit| (self.layout.pos(l.atom()), l.is_negated());
            if let [d] = does.as_slice() {
                let rest: Vec<Lit> = rule
                    .body
                    .iter()
                    .filter(|l| l.is_negated() || self.does(l.atom().0).is_none())
                    .map(lit)
                    .collect();
                groups.entry(rest).or_default().push(*d);
            } else {
                out.push(Conj {
                    lits: rule.body.iter().map(lit).collect(),
                    any: Vec::new(),
                });
            }
        }
        for (lits, mut any) in groups {
            any.sort_unstable();
            any.dedup();
            // A set holding every move of a role always holds.
            let full = self.roles.iter().enumerate().any(|(r, &(_, n))| {
                any.iter().filter(|&&(ar, _)| ar == r as u32).count() == n as usize
            });
            if full {
                any.clear();
            }
            out.push(Conj { lits, any });
        }
        out
    }

    fn conjs_of(&self, a: u32) -> Vec<Conj> {
        match self.overrides.get(&a) {
            Some(c) => c.clone(),
            None => self.merge(self.gp.rules_of(AtomId(a))),
        }
    }

    /// Takes frame rules `next(f) <= true(f) ∧ does(r, m)` out of `next`
    /// atoms that nothing else reads, into per-role keep tables.
    fn frame_tables(&mut self) -> Vec<Vec<u64>> {
        let gp = self.gp;
        let mut used = vec![0u32; gp.num_atoms() as usize];
        for rule in &gp.rules {
            for l in rule.body.iter() {
                used[l.atom().0 as usize] += 1;
            }
        }
        let outputs = gp
            .legal
            .iter()
            .flatten()
            .chain(gp.goal.iter().flatten().map(|(_, o)| o))
            .chain([&gp.terminal])
            .chain(gp.next.iter());
        for o in outputs {
            if let Output::Atom(a) = o {
                used[a.0 as usize] += 1;
            }
        }
        let sw = self.layout.state_words;
        let mut tables: Vec<Vec<u64>> = self
            .roles
            .iter()
            .map(|&(_, n)| vec![0u64; (n as usize + 1) * sw])
            .collect();
        let mut any_frame = false;
        for (f, out) in gp.next.iter().enumerate() {
            let Output::Atom(a) = *out else { continue };
            if a.0 < gp.num_inputs || used[a.0 as usize] != 1 {
                continue;
            }
            let mut conjs = self.conjs_of(a.0);
            let Some(k) = conjs
                .iter()
                .position(|c| c.lits == [(f as u32, false)] && !c.any.is_empty())
            else {
                continue;
            };
            let frame = conjs.remove(k);
            for &(r, m) in &frame.any {
                tables[r as usize][m as usize * sw + f / 64] |= 1 << (f % 64);
            }
            any_frame = true;
            self.overrides.insert(a.0, conjs);
        }
        if !any_frame {
            return Vec::new();
        }
        tables
    }

    /// The components of derived atoms in `need`, with levels and guards.
    fn units(&self, need: &[bool]) -> Vec<Unit> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let mut level = vec![0u32; gp.num_derived() as usize];
        let mut units = Vec::new();
        for comp in &gp.components {
            let atoms = comp.start..comp.end;
            let mut lv = 0;
            for a in atoms.clone() {
                for rule in gp.rules_of(AtomId(a)) {
                    for l in rule.body.iter() {
                        let b = l.atom().0;
                        if b >= ni && !atoms.contains(&b) {
                            lv = lv.max(level[(b - ni) as usize] + 1);
                        }
                    }
                }
            }
            for a in atoms.clone() {
                level[(a - ni) as usize] = lv;
            }
            if !atoms.clone().any(|a| need[a as usize]) {
                continue;
            }
            let atoms: Vec<(u32, Vec<Conj>)> = atoms
                .map(|a| (self.layout.pos(AtomId(a)), self.conjs_of(a)))
                .filter(|(_, conjs)| !conjs.is_empty())
                .collect();
            if atoms.is_empty() {
                continue;
            }
            let guards = match atoms.as_slice() {
                [(_, conjs)] if !comp.cyclic => {
                    let (first, rest) = conjs.split_first().expect("not empty");
                    first
                        .lits
                        .iter()
                        .copied()
                        .filter(|l| rest.iter().all(|c| c.lits.contains(l)))
                        .collect()
                }
                _ => Vec::new(),
            };
            units.push(Unit {
                level: lv,
                guard: None,
                guards,
                atoms,
                cyclic: comp.cyclic,
            });
        }
        // The guard of a unit is its shared literal that most units share,
        // so that one test skips as many atoms as possible.
        let mut freq: HashMap<(u32, bool), usize> = HashMap::new();
        for u in &units {
            for g in &u.guards {
                *freq.entry(*g).or_default() += 1;
            }
        }
        for u in &mut units {
            u.guard = u
                .guards
                .iter()
                .copied()
                .max_by_key(|g| (freq[g], std::cmp::Reverse(*g)));
        }
        units
    }

    /// The pool offset of the bit set of `moves` of role `r`.
    fn move_set(&mut self, r: u32, moves: impl Iterator<Item = u32>) -> u32 {
        let n = self.roles[r as usize].1 as usize + 1;
        let mut set = vec![0u64; n.div_ceil(64)];
        for m in moves {
            set[m as usize / 64] |= 1 << (m % 64);
        }
        if let Some(&off) = self.pool_index.get(&set) {
            return off;
        }
        let off = self.pool.len() as u32;
        self.pool.extend_from_slice(&set);
        self.pool_index.insert(set, off);
        off
    }

    fn emit_atom(
        &mut self,
        ops: &mut Vec<Op>,
        dest: u32,
        conjs: &[Conj],
        guard: Option<(u32, bool)>,
        cyclic: bool,
    ) {
        let at = ops.len();
        ops.push(Op::Atom { dest, len: 0 });
        // Rules that are one positive literal: one "some bit" test per word.
        let singles = by_word(conjs.iter().filter_map(|c| match c.lits.as_slice() {
            [(b, false)] if c.any.is_empty() && Some((*b, false)) != guard => Some(*b),
            _ => None,
        }));
        for (&w, &mask) in &singles {
            ops.push(Op::Conj { len: 1, any: false });
            ops.push(Op::Some { w, mask });
        }
        for c in conjs {
            if let [(b, false)] = c.lits.as_slice() {
                if c.any.is_empty() && Some((*b, false)) != guard {
                    continue;
                }
            }
            let lits = c.lits.iter().filter(|&&l| Some(l) != guard);
            let pos = by_word(lits.clone().filter(|l| !l.1).map(|l| l.0));
            let neg = by_word(lits.filter(|l| l.1).map(|l| l.0));
            let mut words: Vec<u32> = pos.keys().chain(neg.keys()).copied().collect();
            words.sort_unstable();
            words.dedup();
            let roles: Vec<u32> = (0..self.roles.len() as u32)
                .filter(|&r| c.any.iter().any(|&(ar, _)| ar == r))
                .collect();
            let triggered = self.trigger
                && !cyclic
                && !roles.is_empty()
                && roles
                    .iter()
                    .all(|&r| c.any.iter().filter(|&&(ar, _)| ar == r).count() <= TRIGGER_MAX);
            if triggered {
                // All of the conjunction but its moves, which the lookup
                // has checked; the guard too, since the lookup comes
                // before the guard's test.
                let head = self.trig_ops.len() as u32;
                let tests = word_tests(&c.lits);
                self.trig_ops.push(Op::Conj {
                    len: tests.len() as u32,
                    any: false,
                });
                self.trig_ops.extend(tests);
                for &(r, m) in &c.any {
                    self.pending[r as usize][m as usize].push((dest, head));
                }
                continue;
            }
            let head = ops.len();
            ops.push(Op::Conj {
                len: 0,
                any: roles.len() > 1,
            });
            let move_set = |b: &mut Self, r: u32| {
                let moves = c.any.iter().filter(|&&(ar, _)| ar == r).map(|&(_, m)| m);
                b.move_set(r, moves)
            };
            if let [r] = roles.as_slice() {
                let off = move_set(self, *r);
                ops.push(Op::Move { role: *r, off });
            }
            for w in words {
                let p = pos.get(&w).copied().unwrap_or(0);
                let n = neg.get(&w).copied().unwrap_or(0);
                ops.push(Op::Test {
                    w,
                    mask: p | n,
                    want: p,
                });
            }
            if roles.len() > 1 {
                for &r in &roles {
                    let off = move_set(self, r);
                    ops.push(Op::Any { role: r, off });
                }
            }
            let len = (ops.len() - head - 1) as u32;
            if let Op::Conj { len: l, .. } = &mut ops[head] {
                *l = len;
            }
        }
        let len = (ops.len() - at - 1) as u32;
        if len == 0 {
            // Every rule was triggered (or there was none).
            ops.pop();
        } else {
            ops[at] = Op::Atom { dest, len };
        }
    }

    /// Ends the rules triggered at one level: their table goes after the
    /// others, and `ops[at]`, reserved for its [`Op::Trigger`], gets it or
    /// is removed if there is none.
    fn flush_triggers(&mut self, ops: &mut Vec<Op>, at: usize) {
        if self.pending.iter().flatten().all(Vec::is_empty) {
            ops.remove(at);
            return;
        }
        let base = self.trig_start.len() as u32;
        for per_move in &mut self.pending {
            for items in per_move.iter_mut() {
                self.trig_start.push(self.trig_items.len() as u32);
                self.trig_items.append(items);
            }
        }
        self.trig_start.push(self.trig_items.len() as u32);
        ops[at] = Op::Trigger { base };
    }

    /// The instructions computing the derived atoms in `need` (indexed by
    /// atom).
    fn plan(&mut self, need: &[bool]) -> Vec<Op> {
        let units = self.units(need);
        // By level (a topological order), then by guard so that units
        // sharing one are adjacent, then in program order.
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by_key(|&i| (units[i].level, units[i].guard.is_none(), units[i].guard, i));
        let mut ops = Vec::new();
        let mut level = None;
        let mut reserved = 0;
        let mut i = 0;
        while i < order.len() {
            let first = &units[order[i]];
            if self.trigger && level != Some(first.level) {
                // Triggered rules of a level go before its atoms, after
                // every lower level.
                if level.is_some() {
                    self.flush_triggers(&mut ops, reserved);
                }
                level = Some(first.level);
                reserved = ops.len();
                ops.push(Op::Trigger { base: 0 });
            }
            let mut j = i + 1;
            while j < order.len()
                && first.guard.is_some()
                && units[order[j]].guard == first.guard
                && units[order[j]].level == first.level
            {
                j += 1;
            }
            // A guard of one acyclic atom pays too: when it fails, the
            // atom's rules are not looked at.
            let guard = first.guard;
            let at = ops.len();
            if let Some((bit, neg)) = guard {
                ops.push(Op::Guard { bit, neg, skip: 0 });
            }
            for &k in &order[i..j] {
                let u = &units[k];
                let start = ops.len();
                if u.cyclic {
                    ops.push(Op::Cycle { len: 0 });
                }
                for (dest, conjs) in &u.atoms {
                    self.emit_atom(&mut ops, *dest, conjs, guard, u.cyclic);
                }
                if u.cyclic {
                    ops[start] = Op::Cycle {
                        len: (ops.len() - start - 1) as u32,
                    };
                }
            }
            if let Some((bit, neg)) = guard {
                ops[at] = Op::Guard {
                    bit,
                    neg,
                    skip: (ops.len() - at - 1) as u32,
                };
            }
            i = j;
        }
        if level.is_some() {
            self.flush_triggers(&mut ops, reserved);
        }
        ops
    }
}

/// The derived atoms `outputs` depend on (indexed by atom).
fn cone(gp: &GroundProgram, outputs: impl IntoIterator<Item = Output>) -> Vec<bool> {
    let mut mark = vec![false; gp.num_atoms() as usize];
    let mut stack: Vec<u32> = outputs
        .into_iter()
        .filter_map(|o| match o {
            Output::Atom(a) if a.0 >= gp.num_inputs => Some(a.0),
            _ => None,
        })
        .collect();
    while let Some(a) = stack.pop() {
        if std::mem::replace(&mut mark[a as usize], true) {
            continue;
        }
        for r in gp.rules_of(AtomId(a)) {
            stack.extend(
                r.body
                    .iter()
                    .map(|l| l.atom().0)
                    .filter(|&b| b >= gp.num_inputs && !mark[b as usize]),
            );
        }
    }
    mark
}

impl Code {
    /// Translates a ground program.
    pub fn new(gp: &GroundProgram) -> Self {
        let layout = Layout::new(gp);
        let mut b = Builder {
            gp,
            layout: layout.clone(),
            roles: (0..gp.roles.len())
                .map(|r| (gp.does_start[r], gp.moves[r].len() as u32))
                .collect(),
            overrides: HashMap::new(),
            pool: Vec::new(),
            pool_index: HashMap::new(),
            trigger: false,
            role_off: gp
                .moves
                .iter()
                .scan(0, |off, ms| {
                    let at = *off;
                    *off += ms.len() as u32 + 1;
                    Some(at)
                })
                .collect(),
            pending: gp
                .moves
                .iter()
                .map(|ms| vec![Vec::new(); ms.len() + 1])
                .collect(),
            trig_start: Vec::new(),
            trig_items: Vec::new(),
            trig_ops: Vec::new(),
        };
        let keep = b.frame_tables();
        let state_cone = cone(gp, gp.legal.iter().flatten().copied().chain([gp.terminal]));
        let goal_cone = cone(gp, gp.goal.iter().flatten().map(|&(_, o)| o));
        let next_cone = cone(gp, gp.next.iter().copied());
        let minus = |a: &[bool]| -> Vec<bool> {
            a.iter().zip(&state_cone).map(|(&x, &s)| x && !s).collect()
        };
        let state = b.plan(&state_cone);
        let goal = b.plan(&minus(&goal_cone));
        b.trigger = true;
        let next = b.plan(&minus(&next_cone));
        let next_bits = gp
            .next
            .iter()
            .enumerate()
            .filter_map(|(f, &o)| match o {
                // An atom left with no rules of its own is false but for
                // the keep tables.
                Output::Atom(a) if b.overrides.get(&a.0).is_some_and(Vec::is_empty) => None,
                Output::False => None,
                o => Some((f as u32, layout.output(o))),
            })
            .collect();
        Code {
            layout,
            state,
            goal,
            next,
            pool: b.pool,
            keep,
            next_bits,
            role_off: b.role_off,
            trig_start: b.trig_start,
            trig_items: b.trig_items,
            trig_ops: b.trig_ops,
        }
    }
}

/// Runs `ops` on the value vector `v` with the joint move `mv` (move ids,
/// one per role), returning whether some atom became true.
pub(super) fn run(code: &Code, ops: &[Op], v: &mut [u64], mv: &[u32]) -> bool {
    let pool = &code.pool[..];
    let mut changed = false;
    let mut pc = 0;
    while pc < ops.len() {
        match ops[pc] {
            Op::Guard { bit, neg, skip } => {
                let holds = (v[(bit >> 6) as usize] >> (bit & 63)) & 1 != neg as u64;
                pc += 1;
                if !holds {
                    pc += skip as usize;
                }
            }
            Op::Atom { dest, len } => {
                let end = pc + 1 + len as usize;
                let mut c = pc + 1;
                while c < end {
                    let Op::Conj { len, any } = ops[c] else {
                        unreachable!("an atom is a list of conjunctions")
                    };
                    let next = c + 1 + len as usize;
                    if conj_holds(&ops[c + 1..next], any, v, pool, mv) {
                        let w = &mut v[(dest >> 6) as usize];
                        let old = *w;
                        *w |= 1 << (dest & 63);
                        changed |= *w != old;
                        break;
                    }
                    c = next;
                }
                pc = end;
            }
            Op::Trigger { base } => {
                for (&off, &m) in code.role_off.iter().zip(mv) {
                    let i = (base + off + m) as usize;
                    let (s, e) = (code.trig_start[i] as usize, code.trig_start[i + 1] as usize);
                    for &(dest, at) in &code.trig_items[s..e] {
                        let at = at as usize;
                        let Op::Conj { len, .. } = code.trig_ops[at] else {
                            unreachable!("a trigger lists conjunctions")
                        };
                        if conj_holds(
                            &code.trig_ops[at + 1..at + 1 + len as usize],
                            false,
                            v,
                            pool,
                            mv,
                        ) {
                            v[(dest >> 6) as usize] |= 1 << (dest & 63);
                        }
                    }
                }
                pc += 1;
            }
            Op::Cycle { len } => {
                let body = &ops[pc + 1..pc + 1 + len as usize];
                // Monotone from all false: iterate until nothing changes.
                while run(code, body, v, mv) {
                    changed = true;
                }
                pc += 1 + len as usize;
            }
            Op::Conj { .. }
            | Op::Test { .. }
            | Op::Some { .. }
            | Op::Move { .. }
            | Op::Any { .. } => {
                unreachable!("conjunctions only occur within atoms")
            }
        }
    }
    changed
}

#[inline(always)]
fn conj_holds(tests: &[Op], any: bool, v: &[u64], pool: &[u64], mv: &[u32]) -> bool {
    let mut one = !any;
    for &t in tests {
        match t {
            Op::Test { w, mask, want } => {
                if v[w as usize] & mask != want {
                    return false;
                }
            }
            Op::Some { w, mask } => {
                if v[w as usize] & mask == 0 {
                    return false;
                }
            }
            Op::Move { role, off } => {
                let m = mv[role as usize];
                if (pool[off as usize + (m >> 6) as usize] >> (m & 63)) & 1 == 0 {
                    return false;
                }
            }
            Op::Any { role, off } => {
                let m = mv[role as usize];
                one |= (pool[off as usize + (m >> 6) as usize] >> (m & 63)) & 1 != 0;
            }
            _ => unreachable!("a conjunction is a list of tests"),
        }
    }
    one
}
