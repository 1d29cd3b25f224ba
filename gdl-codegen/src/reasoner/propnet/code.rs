//! The propnet's instruction stream: a bitnet's schedules as instructions
//! over its value vector.
//!
//! The bitnet ([`crate::bitnet`]) decides what each query computes, and
//! under which tests; the same analyses drive the compiled back end. Atom
//! values live in one bit vector, so a conjunction is a few word-mask tests
//! instead of one load per literal. The joint move sets its `does` bits and
//! its move-set bits from per-move tables; bodies dispatched on a move are
//! looked up by the move made; frame rules are per-move keep masks applied
//! word by word.

use crate::bitnet::conj::{by_word, Conj};
use crate::bitnet::layout::{Layout, FALSE_BIT, TRUE_BIT};
use crate::bitnet::schedule::{Block, Demand, Schedule, Unit};
use crate::bitnet::{self, Bitnet, Params};
use crate::ground::{GroundProgram, Output};

/// One instruction. Atoms are computed in stream order; every derived atom
/// starts false, so an atom whose rules fail (or that a test skips) needs
/// no write.
#[derive(Copy, Clone, Debug)]
pub(super) enum Op {
    /// Unless bit `bit` is `!neg`, skip the next `skip` instructions.
    Guard { bit: u32, neg: bool, skip: u32 },
    /// Unless one of the masked words `masks[at..at + len]` is non-zero,
    /// skip the next `skip` instructions (a group's demand).
    Demand { at: u32, len: u32, skip: u32 },
    /// Set bit `dest` if one of the `len` following instructions'
    /// conjunctions holds.
    Atom { dest: u32, len: u32 },
    /// A conjunction of the `len` following tests.
    Conj { len: u32 },
    /// `v[w] & mask == want`.
    Test { w: u32, mask: u64, want: u64 },
    /// `v[w] & mask != 0`: an atom's bodies that are single positive
    /// literals in one word, as one conjunction.
    Some { w: u32, mask: u64 },
    /// The `len` following instructions (the atoms of a cyclic component)
    /// are repeated until none changes: the least fixpoint.
    Cycle { len: u32 },
}

/// Per role, per move (plus one out-of-range row), a list of items: where
/// row `r, m` starts is `start[off[r] + m]`.
#[derive(Clone, Debug, Default)]
pub(super) struct PerMove<T> {
    /// Per role, the index of its move 0 in `start`.
    off: Vec<u32>,
    /// Where each row starts in `items`, and one past the last.
    start: Vec<u32>,
    /// The rows' items.
    items: Vec<T>,
}

impl<T: Clone> PerMove<T> {
    /// `rows[r][m]` for each role and move; an empty row is added per role
    /// for an out-of-range move.
    fn new(rows: Vec<Vec<Vec<T>>>) -> Self {
        let mut table = PerMove {
            off: Vec::new(),
            start: Vec::new(),
            items: Vec::new(),
        };
        for role in rows {
            table.off.push(table.start.len() as u32);
            for row in role.into_iter().chain([Vec::new()]) {
                table.start.push(table.items.len() as u32);
                table.items.extend(row);
            }
        }
        table.start.push(table.items.len() as u32);
        table
    }

    /// The items of role `r`'s move `m` (clamped to its out-of-range row).
    #[inline]
    pub fn row(&self, r: usize, m: u32) -> &[T] {
        let i = (self.off[r] + m) as usize;
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// Everything the propnet evaluates.
#[derive(Clone, Debug)]
pub(super) struct Code {
    /// Where each atom lives.
    pub layout: Layout,
    /// Words of the value vector, the constants' word (last) included.
    pub words: usize,
    /// Computes `legal` and `terminal`.
    pub state: Vec<Op>,
    /// The rest of `goal`.
    pub goal: Vec<Op>,
    /// The rest of `next`.
    pub next: Vec<Op>,
    /// Masked words of [`Op::Demand`].
    masks: Vec<(u32, u64)>,
    /// The bits each move sets besides its `does` bit (move-set bits).
    pub move_bits: PerMove<u32>,
    /// Bodies dispatched on each move: (atom bit, index in `dispatch_ops`
    /// of its [`Op::Conj`]).
    pub dispatch: PerMove<(u32, u32)>,
    /// Conjunctions of dispatched bodies.
    pub dispatch_ops: Vec<Op>,
    /// Per role, per move (plus one out-of-range row): the state words of the
    /// fluents the move keeps by a frame rule (empty: no table).
    pub keep: Vec<Vec<u64>>,
    /// Per fluent that rules can make true: its bit and its `next` bit.
    pub next_bits: Vec<(u32, u32)>,
}

/// The word tests of a conjunction of literals.
fn word_tests(c: &Conj) -> Vec<Op> {
    let pos = by_word(c.lits.iter().filter(|l| !l.1).map(|l| l.0));
    let neg = by_word(c.lits.iter().filter(|l| l.1).map(|l| l.0));
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

/// Appends `Op::Conj` and its tests.
fn push_conj(ops: &mut Vec<Op>, c: &Conj) {
    let tests = word_tests(c);
    ops.push(Op::Conj {
        len: tests.len() as u32,
    });
    ops.extend(tests);
}

/// Appends the instructions of one atom: bodies of one positive literal as
/// one "some bit" test per word, the rest a conjunction each.
fn push_atom(ops: &mut Vec<Op>, dest: u32, conjs: &[Conj]) {
    let at = ops.len();
    ops.push(Op::Atom { dest, len: 0 });
    let singles = by_word(conjs.iter().filter(|c| c.is_single()).map(|c| c.lits[0].0));
    for (&w, &mask) in &singles {
        ops.push(Op::Conj { len: 1 });
        ops.push(Op::Some { w, mask });
    }
    for c in conjs.iter().filter(|c| !c.is_single()) {
        push_conj(ops, c);
    }
    ops[at] = Op::Atom {
        dest,
        len: (ops.len() - at - 1) as u32,
    };
}

/// Sets the `skip` of the instruction at `at` to cover what follows it.
fn close(ops: &mut [Op], at: usize) {
    let n = (ops.len() - at - 1) as u32;
    match &mut ops[at] {
        Op::Guard { skip, .. } | Op::Demand { skip, .. } => *skip = n,
        Op::Cycle { len } => *len = n,
        _ => unreachable!("only tests and cycles enclose instructions"),
    }
}

fn push_unit(ops: &mut Vec<Op>, u: &Unit) {
    let start = ops.len();
    if u.cyclic {
        ops.push(Op::Cycle { len: 0 });
    }
    for (dest, conjs) in u.bodies() {
        push_atom(ops, dest, &conjs);
    }
    if u.cyclic {
        close(ops, start);
    }
}

fn push_block(ops: &mut Vec<Op>, b: &Block) {
    match b {
        Block::Unit(u) => push_unit(ops, u),
        Block::Guarded {
            guard: (bit, neg),
            body,
        } => {
            let at = ops.len();
            ops.push(Op::Guard {
                bit: *bit,
                neg: *neg,
                skip: 0,
            });
            for b in body {
                push_block(ops, b);
            }
            close(ops, at);
        }
    }
}

/// The instructions of a schedule.
fn plan(schedule: &Schedule, masks: &mut Vec<(u32, u64)>) -> Vec<Op> {
    let mut ops = Vec::new();
    for g in &schedule.groups {
        let at = ops.len();
        match &g.demand {
            Demand::Never => continue,
            Demand::Always => {}
            Demand::When(bits) => {
                let words = by_word(bits.iter().copied());
                ops.push(Op::Demand {
                    at: masks.len() as u32,
                    len: words.len() as u32,
                    skip: 0,
                });
                masks.extend(words);
            }
        }
        for b in &g.blocks {
            push_block(&mut ops, b);
        }
        if matches!(g.demand, Demand::When(_)) {
            close(&mut ops, at);
        }
    }
    ops
}

/// The keep tables, flat: per role, `(moves + 1) * state words`.
fn keep_tables(net: &Bitnet) -> Vec<Vec<u64>> {
    net.keep
        .iter()
        .map(|role| {
            let mut flat: Vec<u64> = role.iter().flatten().copied().collect();
            flat.extend(std::iter::repeat_n(0, net.layout.state_words));
            flat
        })
        .collect()
}

/// The dispatched bodies, per move.
fn dispatch_tables(net: &Bitnet) -> (PerMove<(u32, u32)>, Vec<Op>) {
    let mut ops = Vec::new();
    let rows = net
        .dispatch
        .arms
        .iter()
        .zip(&net.layout.role_moves)
        .map(|(arms, &(_, n))| {
            let mut rows = vec![Vec::new(); n as usize];
            for arm in arms {
                rows[arm.mv as usize].push((arm.pos, ops.len() as u32));
                push_conj(&mut ops, &arm.body);
            }
            rows
        })
        .collect();
    (PerMove::new(rows), ops)
}

impl Code {
    /// Translates a ground program.
    pub fn new(gp: &GroundProgram) -> Self {
        let net = bitnet::build(gp, &Params::PROPNET);
        let mut masks = Vec::new();
        let state = plan(&net.eval, &mut masks);
        let goal = plan(&net.goal, &mut masks);
        let next = plan(&net.next, &mut masks);
        let (dispatch, dispatch_ops) = dispatch_tables(&net);
        let words = net.layout.total_words() + 1;
        let next_bits = net
            .next_bits
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b != FALSE_BIT)
            .map(|(f, &b)| (f as u32, Self::map_bit(words, b)))
            .collect();
        Code {
            words,
            state,
            goal,
            next,
            masks,
            move_bits: PerMove::new(net.move_sets.table.clone()),
            dispatch,
            dispatch_ops,
            keep: keep_tables(&net),
            next_bits,
            layout: net.layout,
        }
    }

    /// A bitnet bit in this value vector: the constants live in its last
    /// word (true at bit 0, false at bit 1, which is never set).
    fn map_bit(words: usize, b: u32) -> u32 {
        let true_bit = (words as u32 - 1) * 64;
        match b {
            TRUE_BIT => true_bit,
            FALSE_BIT => true_bit + 1,
            b => b,
        }
    }

    /// The bit of an output.
    pub fn output(&self, o: Output) -> u32 {
        Self::map_bit(self.words, self.layout.output_pos(o))
    }
}

/// Runs `ops` on the value vector `v`, returning whether some atom became
/// true.
pub(super) fn run(code: &Code, ops: &[Op], v: &mut [u64]) -> bool {
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
            Op::Demand { at, len, skip } => {
                let masks = &code.masks[at as usize..(at + len) as usize];
                pc += 1;
                if masks.iter().all(|&(w, m)| v[w as usize] & m == 0) {
                    pc += skip as usize;
                }
            }
            Op::Atom { dest, len } => {
                let end = pc + 1 + len as usize;
                if any_conj(&ops[pc + 1..end], v) {
                    let w = &mut v[(dest >> 6) as usize];
                    let old = *w;
                    *w |= 1 << (dest & 63);
                    changed |= *w != old;
                }
                pc = end;
            }
            Op::Cycle { len } => {
                let body = &ops[pc + 1..pc + 1 + len as usize];
                // Monotone from all false: iterate until nothing changes.
                while run(code, body, v) {
                    changed = true;
                }
                pc += 1 + len as usize;
            }
            Op::Conj { .. } | Op::Test { .. } | Op::Some { .. } => {
                unreachable!("conjunctions only occur within atoms")
            }
        }
    }
    changed
}

/// Whether one of the conjunctions in `ops` holds.
#[inline(always)]
fn any_conj(ops: &[Op], v: &[u64]) -> bool {
    let mut c = 0;
    while c < ops.len() {
        let Op::Conj { len } = ops[c] else {
            unreachable!("an atom is a list of conjunctions")
        };
        let next = c + 1 + len as usize;
        if conj_holds(&ops[c + 1..next], v) {
            return true;
        }
        c = next;
    }
    false
}

/// Whether the tests of one conjunction hold.
#[inline(always)]
pub(super) fn conj_holds(tests: &[Op], v: &[u64]) -> bool {
    tests.iter().all(|&t| match t {
        Op::Test { w, mask, want } => v[w as usize] & mask == want,
        Op::Some { w, mask } => v[w as usize] & mask != 0,
        _ => unreachable!("a conjunction is a list of tests"),
    })
}

/// Runs the bodies dispatched on the joint move `joint` (move ids, one per
/// role, out-of-range clamped).
pub(super) fn run_dispatch(code: &Code, v: &mut [u64], joint: &[u32]) {
    for (r, &m) in joint.iter().enumerate() {
        for &(dest, at) in code.dispatch.row(r, m) {
            let at = at as usize;
            let Op::Conj { len } = code.dispatch_ops[at] else {
                unreachable!("dispatch lists conjunctions")
            };
            if conj_holds(&code.dispatch_ops[at + 1..at + 1 + len as usize], v) {
                v[(dest >> 6) as usize] |= 1 << (dest & 63);
            }
        }
    }
}
