//! The propnet reasoner: an interpreter of the ground program
//! ([`crate::ground::GroundProgram`]) that implements [`Game`], the kind of
//! engine the fastest GGP players use.
//!
//! The net is a flat instruction stream over a bit vector of atom values,
//! translated from the same bitnet ([`crate::bitnet`]) the compiled back end
//! prints (see `code.rs`: word-mask tests, move sets as bits set from
//! per-move tables, frame rules as word-parallel keep tables, bodies
//! dispatched on the move made, guards and demand tests skipping groups of
//! atoms). A query evaluates, in topological order, only the atoms its
//! outputs depend on:
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
use code::Code;

mod code;

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

const HAVE_STATE: u8 = 1;
const HAVE_GOAL: u8 = 2;

/// Per-thread atom values, with the state (and game) they belong to.
struct Scratch {
    owner: u64,
    flags: u8,
    /// The value vector (see `code::Layout`); its first words are the state.
    vals: Vec<u64>,
    /// The joint move, one move id per role.
    joint: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch {
        owner: 0,
        flags: 0,
        vals: Vec::new(),
        joint: Vec::new(),
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
    /// Whether names keep their case (the program was read so).
    case_sensitive: bool,
    init: PropnetState,
    code: Code,
    /// Per role: (move, value bit) of moves that can be legal.
    legal: Vec<Vec<(u32, u32)>>,
    terminal: u32,
    /// Per role: (goal value, value bit).
    goal: Vec<Vec<(u8, u32)>>,
}

/// The lookup key of a move or fluent text printed by the grounder.
fn key_of(text: &str, case_sensitive: bool) -> String {
    if case_sensitive {
        text::canonical_lossy(text)
    } else {
        text::key_lossy(text)
    }
}

impl Propnet {
    /// The lookup key of text given by a user: its canonical spelling,
    /// case-folded unless the program was read case-sensitively.
    fn key(&self, text: &str) -> Result<String, ParseError> {
        if self.case_sensitive {
            text::canonical(text)
        } else {
            text::key(text)
        }
    }

    /// Builds the reasoner of a ground program.
    pub fn new(gp: &GroundProgram) -> Self {
        let code = Code::new(gp);
        let mut init = PropnetState(vec![0u64; code.layout.state_words].into());
        for &f in &gp.init {
            init.set(f as usize);
        }
        Propnet {
            uid: NEXT_UID.fetch_add(1, Ordering::Relaxed),
            case_sensitive: gp.case_sensitive,
            roles: gp.roles.clone(),
            fluents: gp.fluents.clone(),
            moves: gp.moves.clone(),
            fluent_key: gp
                .fluents
                .iter()
                .enumerate()
                .map(|(i, f)| (key_of(f, gp.case_sensitive), i as u32))
                .collect(),
            move_key: gp
                .moves
                .iter()
                .map(|ms| {
                    ms.iter()
                        .enumerate()
                        .map(|(i, m)| (key_of(m, gp.case_sensitive), i as u32))
                        .collect()
                })
                .collect(),
            init,
            legal: gp
                .legal
                .iter()
                .map(|ms| {
                    ms.iter()
                        .enumerate()
                        .filter(|(_, &o)| o != Output::False)
                        .map(|(m, &o)| (m as u32, code.output(o)))
                        .collect()
                })
                .collect(),
            terminal: code.output(gp.terminal),
            goal: gp
                .goal
                .iter()
                .map(|gs| gs.iter().map(|&(v, o)| (v, code.output(o))).collect())
                .collect(),
            code,
        }
    }

    /// Number of fluents (bits of a state).
    pub fn num_fluents(&self) -> usize {
        self.fluents.len()
    }

    /// Makes `s` hold the atom values of `state` with at least the plans
    /// in `need` evaluated.
    fn prepare(&self, s: &mut Scratch, state: &[u64], need: u8) {
        let sw = state.len();
        if s.owner != self.uid || s.vals[..sw] != state[..] {
            s.owner = self.uid;
            s.flags = 0;
            let n = self.code.words;
            if s.vals.len() != n {
                s.vals.clear();
                s.vals.resize(n, 0);
            }
            s.vals[..sw].copy_from_slice(state);
            s.vals[sw..].fill(0);
            s.vals[n - 1] = 1;
            s.joint.clear();
            s.joint.resize(self.roles.len(), 0);
        }
        if need & (HAVE_STATE | HAVE_GOAL) != 0 && s.flags & HAVE_STATE == 0 {
            code::run(&self.code, &self.code.state, &mut s.vals);
            s.flags |= HAVE_STATE;
        }
        if need & HAVE_GOAL != 0 && s.flags & HAVE_GOAL == 0 {
            code::run(&self.code, &self.code.goal, &mut s.vals);
            s.flags |= HAVE_GOAL;
        }
    }

    /// Runs `f` on the atom values of `state` with at least the plans in
    /// `need` evaluated.
    fn with_values<R>(&self, state: &PropnetState, need: u8, f: impl FnOnce(&[u64]) -> R) -> R {
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            self.prepare(&mut guard, &state.0, need);
            f(&guard.vals)
        })
    }
}

#[inline(always)]
fn bit(v: &[u64], b: u32) -> bool {
    (v[(b >> 6) as usize] >> (b & 63)) & 1 != 0
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
            for &(m, b) in legal {
                if bit(vals, b) {
                    out.push(Move(m));
                }
            }
        });
    }

    fn is_terminal(&self, state: &PropnetState) -> bool {
        self.with_values(state, HAVE_STATE, |vals| bit(vals, self.terminal))
    }

    fn goal(&self, state: &PropnetState, role: Role) -> Goal {
        let Some(goals) = self.goal.get(role) else {
            return Goal::None;
        };
        self.with_values(state, HAVE_GOAL, |vals| {
            let mut found = Goal::None;
            for &(v, b) in goals {
                if bit(vals, b) {
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
            let code = &self.code;
            for (r, &(does, n)) in code.layout.role_moves.iter().enumerate() {
                // A missing or out-of-range move is no move: the result is
                // unspecified but memory-safe, as the trait allows.
                let m = joint.get(r).map_or(n, |m| m.0.min(n));
                s.joint[r] = m;
                if m < n {
                    let b = (does + m) as usize;
                    s.vals[b >> 6] |= 1 << (b & 63);
                }
                for &b in code.move_bits.row(r, m) {
                    s.vals[(b >> 6) as usize] |= 1 << (b & 63);
                }
            }
            code::run(code, &code.next, &mut s.vals);
            code::run_dispatch(code, &mut s.vals, &s.joint);
            let vals = &s.vals;
            // The value vector holds a copy of the state: the next state
            // can be written in place.
            let sw = state.0.len();
            let next = &mut state.0;
            if code.keep.is_empty() {
                next.fill(0);
            } else {
                for (w, word) in next.iter_mut().enumerate() {
                    let mut keep = 0;
                    for (table, &m) in code.keep.iter().zip(&s.joint) {
                        keep |= table[m as usize * sw + w];
                    }
                    *word = vals[w] & keep;
                }
            }
            for &(f, b) in &code.next_bits {
                next[(f >> 6) as usize] |= ((vals[(b >> 6) as usize] >> (b & 63)) & 1) << (f & 63);
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
        let key = self.key(text)?;
        let Some(map) = self.move_key.get(role) else {
            return Err(ParseError::new(format!("no role {role}")));
        };
        map.get(&key).map(|&m| Move(m)).ok_or_else(|| {
            ParseError::new(format!("`{key}` is not a move of {}", self.roles[role]))
        })
    }

    fn parse_state(&self, text: &str) -> Result<PropnetState, ParseError> {
        let mut state = PropnetState(vec![0u64; self.code.layout.state_words].into());
        for term in text::split_terms(text)? {
            let key = self.key(term)?;
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
