//! The propnet reasoner: an interpreter of the ground program
//! ([`crate::ground::GroundProgram`]) that implements [`Game`], the kind of
//! engine the fastest GGP players use.
//!
//! The net is flat arrays: per derived atom a range of rules, per rule a
//! range of literals (`atom << 1 | negated`). A query evaluates, in
//! topological order, only the atoms its outputs depend on:
//! - *state plan*: the cone of `legal` and `terminal` (no `does` needed);
//! - *goal plan*: the rest of the cone of `goal`;
//! - *next plan*: the rest of the cone of `next`, after setting the `does`
//!   inputs.
//!
//! Atom values live in a per-thread scratch array that remembers the last
//! state it was computed for, so the usual sequence of calls on one state
//! (`is_terminal`, `legal_moves` for each role, `apply_unchecked`) evaluates
//! each plan once. No hashing happens on the hot path: a state is a bitset
//! over fluent ids, and a move is its index in the role's sorted moves.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use gdl_runtime::{text, Game, Goal, Move, ParseError, Role};
use rustc_hash::FxHashMap;

use crate::ground::{GroundProgram, Output};

/// A state: one bit per fluent of the ground program (fluent id order).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct PropnetState(pub Box<[u64]>);

impl PropnetState {
    /// Whether fluent `f` holds.
    #[inline]
    pub fn get(&self, f: usize) -> bool {
        self.0[f >> 6] >> (f & 63) & 1 == 1
    }

    /// Makes fluent `f` hold.
    #[inline]
    pub fn set(&mut self, f: usize) {
        self.0[f >> 6] |= 1 << (f & 63);
    }
}

/// One evaluation step of a plan.
#[derive(Copy, Clone, Debug)]
enum Step {
    /// Evaluate one atom once.
    Atom(u32),
    /// Iterate atoms `start..end` (a cyclic component) to a fixpoint.
    Cycle(u32, u32),
}

const HAVE_STATE: u8 = 1;
const HAVE_GOAL: u8 = 2;

/// Per-thread atom values, with the state (and game) they belong to.
struct Scratch {
    owner: u64,
    state: Vec<u64>,
    flags: u8,
    vals: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch {
        owner: 0,
        state: Vec::new(),
        flags: 0,
        vals: Vec::new(),
    }) };
}

static NEXT_UID: AtomicU64 = AtomicU64::new(1);

/// The propnet reasoner of one game.
#[derive(Debug)]
pub struct Propnet {
    uid: u64,
    roles: Vec<String>,
    fluents: Vec<String>,
    moves: Vec<Vec<String>>,
    fluent_key: FxHashMap<String, u32>,
    move_key: Vec<FxHashMap<String, u32>>,
    words: usize,
    init: PropnetState,
    num_inputs: usize,
    /// Index of the constant-false slot of the value array; true is next.
    false_slot: u32,
    does_start: Vec<u32>,
    /// Rules of derived atom `a`: `rule_start[a - num_inputs]..[+1]`.
    rule_start: Vec<u32>,
    /// Literals of rule `r`: `lit_start[r]..lit_start[r + 1]`.
    lit_start: Vec<u32>,
    lits: Vec<u32>,
    plan_state: Vec<Step>,
    plan_goal: Vec<Step>,
    plan_next: Vec<Step>,
    /// Per role: (move, value slot) of moves that can be legal.
    legal: Vec<Vec<(u32, u32)>>,
    /// Per fluent: value slot of `next`.
    next: Vec<u32>,
    terminal: u32,
    /// Per role: (goal value, value slot).
    goal: Vec<Vec<(u8, u32)>>,
}

impl Propnet {
    /// Builds the reasoner of a ground program.
    pub fn new(gp: &GroundProgram) -> Self {
        let n = gp.num_atoms();
        let ni = gp.num_inputs as usize;
        let slot = |o: Output| match o {
            Output::False => n,
            Output::True => n + 1,
            Output::Atom(a) => a.0,
        };
        let mut lit_start = Vec::with_capacity(gp.rules.len() + 1);
        let mut lits = Vec::with_capacity(gp.num_literals());
        lit_start.push(0);
        for r in &gp.rules {
            lits.extend(r.body.iter().map(|l| l.0));
            lit_start.push(lits.len() as u32);
        }
        // Cones: the derived atoms each group of outputs depends on.
        let cone = |outs: &mut dyn Iterator<Item = Output>| -> Vec<bool> {
            let mut mark = vec![false; n as usize];
            let mut stack: Vec<u32> = outs
                .filter_map(|o| match o {
                    Output::Atom(a) => Some(a.0),
                    _ => None,
                })
                .collect();
            while let Some(a) = stack.pop() {
                if mark[a as usize] {
                    continue;
                }
                mark[a as usize] = true;
                for r in gp.rules_of(crate::ground::AtomId(a)) {
                    for l in r.body.iter() {
                        if !mark[l.atom().0 as usize] {
                            stack.push(l.atom().0);
                        }
                    }
                }
            }
            mark
        };
        let state_cone = cone(
            &mut gp
                .legal
                .iter()
                .flatten()
                .copied()
                .chain(std::iter::once(gp.terminal)),
        );
        let goal_cone = cone(&mut gp.goal.iter().flatten().map(|&(_, o)| o));
        let next_cone = cone(&mut gp.next.iter().copied());
        let plan = |include: &dyn Fn(usize) -> bool| -> Vec<Step> {
            let mut steps = Vec::new();
            for c in &gp.components {
                if !include(c.start as usize) {
                    continue;
                }
                if c.cyclic {
                    steps.push(Step::Cycle(c.start, c.end));
                } else {
                    steps.push(Step::Atom(c.start));
                }
            }
            steps
        };
        let plan_state = plan(&|a| state_cone[a]);
        let plan_goal = plan(&|a| goal_cone[a] && !state_cone[a]);
        let plan_next = plan(&|a| next_cone[a] && !state_cone[a]);
        let words = gp.fluents.len().div_ceil(64).max(1);
        let mut init = PropnetState(vec![0u64; words].into());
        for &f in &gp.init {
            init.set(f as usize);
        }
        Propnet {
            uid: NEXT_UID.fetch_add(1, Ordering::Relaxed),
            roles: gp.roles.clone(),
            fluents: gp.fluents.clone(),
            moves: gp.moves.clone(),
            fluent_key: gp
                .fluents
                .iter()
                .enumerate()
                .map(|(i, f)| (text::key_lossy(f), i as u32))
                .collect(),
            move_key: gp
                .moves
                .iter()
                .map(|ms| {
                    ms.iter()
                        .enumerate()
                        .map(|(i, m)| (text::key_lossy(m), i as u32))
                        .collect()
                })
                .collect(),
            words,
            init,
            num_inputs: ni,
            false_slot: n,
            does_start: gp.does_start.clone(),
            rule_start: gp.rule_start.clone(),
            lit_start,
            lits,
            plan_state,
            plan_goal,
            plan_next,
            legal: gp
                .legal
                .iter()
                .map(|ms| {
                    ms.iter()
                        .enumerate()
                        .filter(|(_, &o)| o != Output::False)
                        .map(|(m, &o)| (m as u32, slot(o)))
                        .collect()
                })
                .collect(),
            next: gp.next.iter().map(|&o| slot(o)).collect(),
            terminal: slot(gp.terminal),
            goal: gp
                .goal
                .iter()
                .map(|gs| gs.iter().map(|&(v, o)| (v, slot(o))).collect())
                .collect(),
        }
    }

    /// Number of fluents (bits of a state).
    pub fn num_fluents(&self) -> usize {
        self.fluents.len()
    }

    #[inline]
    fn eval_atom(&self, vals: &mut [u8], a: usize) -> u8 {
        let i = a - self.num_inputs;
        let (rs, re) = (self.rule_start[i] as usize, self.rule_start[i + 1] as usize);
        let mut v = 0;
        'rules: for r in rs..re {
            let (ls, le) = (self.lit_start[r] as usize, self.lit_start[r + 1] as usize);
            for &l in &self.lits[ls..le] {
                if vals[(l >> 1) as usize] ^ (l & 1) as u8 == 0 {
                    continue 'rules;
                }
            }
            v = 1;
            break;
        }
        vals[a] = v;
        v
    }

    fn run(&self, plan: &[Step], vals: &mut [u8]) {
        for &step in plan {
            match step {
                Step::Atom(a) => {
                    self.eval_atom(vals, a as usize);
                }
                Step::Cycle(s, e) => {
                    // Least fixpoint of positive recursion: from all false,
                    // re-evaluate until stable (monotone, so it terminates).
                    for a in s..e {
                        vals[a as usize] = 0;
                    }
                    loop {
                        let mut changed = false;
                        for a in s..e {
                            let old = vals[a as usize];
                            changed |= self.eval_atom(vals, a as usize) != old;
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Makes `s` hold the atom values of `state` with at least the plans
    /// in `need` evaluated.
    fn prepare(&self, s: &mut Scratch, state: &[u64], need: u8) {
        if s.owner != self.uid || s.state[..] != state[..] {
            s.owner = self.uid;
            s.state.clear();
            s.state.extend_from_slice(state);
            s.flags = 0;
            let n = self.false_slot as usize + 2;
            if s.vals.len() != n {
                s.vals.clear();
                s.vals.resize(n, 0);
            }
            s.vals[n - 2] = 0;
            s.vals[n - 1] = 1;
            for (f, v) in s.vals[..self.fluents.len()].iter_mut().enumerate() {
                *v = (state[f >> 6] >> (f & 63) & 1) as u8;
            }
        }
        if need & (HAVE_STATE | HAVE_GOAL) != 0 && s.flags & HAVE_STATE == 0 {
            self.run(&self.plan_state, &mut s.vals);
            s.flags |= HAVE_STATE;
        }
        if need & HAVE_GOAL != 0 && s.flags & HAVE_GOAL == 0 {
            self.run(&self.plan_goal, &mut s.vals);
            s.flags |= HAVE_GOAL;
        }
    }

    /// Runs `f` on the atom values of `state` with at least the plans in
    /// `need` evaluated.
    fn with_values<R>(&self, state: &PropnetState, need: u8, f: impl FnOnce(&[u8]) -> R) -> R {
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            self.prepare(&mut guard, &state.0, need);
            f(&guard.vals)
        })
    }
}

impl Game for Propnet {
    type State = PropnetState;

    fn num_roles(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: Role) -> &str {
        &self.roles[role]
    }

    fn initial_state(&self) -> PropnetState {
        self.init.clone()
    }

    fn legal_moves(&self, state: &PropnetState, role: Role, out: &mut Vec<Move>) {
        out.clear();
        let Some(legal) = self.legal.get(role) else {
            return;
        };
        self.with_values(state, HAVE_STATE, |vals| {
            for &(m, s) in legal {
                if vals[s as usize] != 0 {
                    out.push(Move(m));
                }
            }
        });
    }

    fn is_terminal(&self, state: &PropnetState) -> bool {
        self.with_values(state, HAVE_STATE, |vals| vals[self.terminal as usize] != 0)
    }

    fn goal(&self, state: &PropnetState, role: Role) -> Goal {
        let Some(goals) = self.goal.get(role) else {
            return Goal::None;
        };
        self.with_values(state, HAVE_GOAL, |vals| {
            let mut found = Goal::None;
            for &(v, s) in goals {
                if vals[s as usize] != 0 {
                    if found != Goal::None {
                        return Goal::Ambiguous;
                    }
                    found = Goal::Value(v);
                }
            }
            found
        })
    }

    fn apply_unchecked(&self, state: &mut PropnetState, joint: &[Move]) {
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let s = &mut *guard;
            self.prepare(s, &state.0, HAVE_STATE);
            let vals = &mut s.vals;
            let valid = |r: usize, mv: Move| {
                self.moves
                    .get(r)
                    .is_some_and(|ms| (mv.0 as usize) < ms.len())
            };
            for (r, &mv) in joint.iter().enumerate() {
                if valid(r, mv) {
                    vals[(self.does_start[r] + mv.0) as usize] = 1;
                }
            }
            self.run(&self.plan_next, vals);
            state.0.fill(0);
            for (f, &slot) in self.next.iter().enumerate() {
                state.0[f >> 6] |= (vals[slot as usize] as u64) << (f & 63);
            }
            for (r, &mv) in joint.iter().enumerate() {
                if valid(r, mv) {
                    vals[(self.does_start[r] + mv.0) as usize] = 0;
                }
            }
            // The values no longer describe `state`, which changed in place.
            s.owner = 0;
        });
    }

    fn move_text(&self, role: Role, mv: Move) -> String {
        self.moves
            .get(role)
            .and_then(|ms| ms.get(mv.0 as usize))
            .cloned()
            .unwrap_or_else(|| format!("<invalid move {}>", mv.0))
    }

    fn fluents(&self, state: &PropnetState) -> Vec<String> {
        (0..self.fluents.len())
            .filter(|&f| state.get(f))
            .map(|f| self.fluents[f].clone())
            .collect()
    }

    fn parse_move(&self, role: Role, text: &str) -> Result<Move, ParseError> {
        let key = text::key(text)?;
        let Some(map) = self.move_key.get(role) else {
            return Err(ParseError::new(format!("no role {role}")));
        };
        map.get(&key).map(|&m| Move(m)).ok_or_else(|| {
            ParseError::new(format!("`{key}` is not a move of {}", self.roles[role]))
        })
    }

    fn parse_state(&self, text: &str) -> Result<PropnetState, ParseError> {
        let mut state = PropnetState(vec![0u64; self.words].into());
        for term in text::split_terms(text)? {
            let key = text::key(term)?;
            match self.fluent_key.get(&key) {
                Some(&f) => state.set(f as usize),
                None => {
                    return Err(ParseError::new(format!(
                        "`{key}` is not a reachable fluent"
                    )))
                }
            }
        }
        Ok(state)
    }
}
