//! [`Interpreter`]: the [`Game`] implementation over the prover.

use crate::rules::Interner;
use std::fmt;
use std::sync::{OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use gdl_runtime::{Game, Goal, Move, ParseError, Role};
use rustc_hash::FxHashMap;

use crate::front::ir::{Keyword, PredId, Program};
use crate::front::symbols::Symbols;
use crate::ground::budget::Caller;
use crate::ground::domains::rel_name;

use super::kb::{Kb, Kind};
use super::overlay::{publish, TermStore, Terms, TupleSet, FREE, LOCAL};
use super::prove::{state_key, Ctx, Exceeded, Fluents, Pending, StaticCache, STACK_BUDGET};
use super::query_budget::{QueryBudget, QueryBudgetError, QueryLimit};
use super::read::{read_terms, Read};

/// What [`Interpreter::probe`] found.
#[derive(Debug)]
pub struct Probe {
    /// The answers' arguments, unless the probe gave up.
    pub answers: Option<Vec<Vec<u32>>>,
    /// The body steps it took.
    pub work: u64,
}

/// Why an [`Interpreter`] could not be built.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InterpError {
    /// The game has no `role` facts.
    NoRoles,
    /// Computing the initial state exceeded the query budget.
    Budget(QueryBudgetError),
}

impl InterpError {
    /// The message for a person using `caller` (which names its own way to
    /// raise a budget).
    pub fn message(&self, caller: Caller) -> String {
        match self {
            InterpError::Budget(e) => e.message(caller),
            InterpError::NoRoles => self.to_string(),
        }
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::NoRoles => f.write_str("the game has no `role` facts"),
            InterpError::Budget(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for InterpError {}

/// A state of an [`Interpreter`]'s game: the ids of the fluents that hold, in
/// a canonical order (so that equal states compare and hash equal).
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct State {
    fluents: Box<[u32]>,
    /// Each fluent's functor and first argument (see `prove::Fluents`).
    keys: Box<[(u32, u32)]>,
}

impl State {
    /// A query's view of the state.
    fn view(&self) -> Fluents<'_> {
        Fluents {
            ids: &self.fluents,
            keys: &self.keys,
        }
    }

    /// Number of fluents that hold.
    pub fn len(&self) -> usize {
        self.fluents.len()
    }

    /// Whether no fluent holds.
    pub fn is_empty(&self) -> bool {
        self.fluents.is_empty()
    }
}

/// Stack of the thread a query is restarted on when it recurses too deeply
/// for the caller's stack.
const BIG_STACK: usize = 1 << 30;

/// What a query asks, for the message of a query that exceeds its budget.
#[derive(Clone, Copy, Debug)]
enum Asked {
    Init,
    Legal(u32),
    Terminal,
    Goal(u32),
    Next,
}

/// The interpreted reasoner of one game (see the [module docs](super)).
///
/// Moves are identified by the id of their term: `Move(id)` is the same move
/// for every role and stays valid for the life of the interpreter.
///
/// Each query runs under a [`QueryBudget`]. The first query to exceed it
/// makes the interpreter fail for good: [`Interpreter::budget_error`] (and
/// [`Game::failure`]) says why, and every [`Game`] method then answers
/// trivially (every state terminal, no legal move, no goal value, states
/// unchanged), so that drivers finish at once and report the failure.
pub struct Interpreter {
    syms: Symbols,
    /// `name/arity` of each relation, for budget messages.
    rel_names: Vec<String>,
    budget: QueryBudget,
    failure: OnceLock<QueryBudgetError>,
    kb: Kb,
    store: RwLock<TermStore>,
    cache: StaticCache,
    roles: Vec<(String, u32)>,
    init: State,
    legal: Option<u32>,
    next: Option<u32>,
    goal: Option<u32>,
    terminal: Option<u32>,
}

impl fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interpreter")
            .field("roles", &self.roles)
            .field("relations", &self.kb.arity.len())
            .field("rules", &self.kb.rules.len())
            .finish_non_exhaustive()
    }
}

impl Interpreter {
    /// Compiles `program` and computes its static relations and initial
    /// state, with the default [`QueryBudget`]. Fails when the game has no
    /// role, or when computing the initial state exceeds the budget.
    pub fn new(program: &Program) -> Result<Self, InterpError> {
        Self::with_budget(program, QueryBudget::default())
    }

    /// [`Interpreter::new`] with every query limited by `budget`.
    pub fn with_budget(program: &Program, budget: QueryBudget) -> Result<Self, InterpError> {
        let mut store = TermStore::new(0);
        let mut kb = Kb::new(program, &mut store);
        let syms = program.symbols.clone();
        // Static relations may recurse deeply (long successor chains): compute
        // them on a thread with a large stack.
        let computed = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(BIG_STACK)
                .spawn_scoped(s, || {
                    compute_static(&mut kb, &mut store, BIG_STACK - (1 << 20));
                })
                .map(|h| h.join())
        });
        match computed {
            Ok(Ok(())) => {}
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread to be had: compute here and hope the stack suffices.
            Err(_) => compute_static(&mut kb, &mut store, usize::MAX),
        }
        let roles: Vec<(String, u32)> = program
            .roles()
            .into_iter()
            .map(|r| (syms.name(r).to_owned(), store.constant(r)))
            .collect();
        if roles.is_empty() {
            return Err(InterpError::NoRoles);
        }
        let pred = |kw: Keyword| program.keyword_pred(kw).map(|p| p.0);
        let mut interp = Interpreter {
            syms,
            rel_names: (0..program.preds.len() as u32)
                .map(|p| rel_name(program, PredId(p)))
                .collect(),
            budget,
            failure: OnceLock::new(),
            kb,
            store: RwLock::new(store),
            cache: StaticCache::default(),
            roles,
            init: State::default(),
            legal: pred(Keyword::Legal),
            next: pred(Keyword::Next),
            goal: pred(Keyword::Goal),
            terminal: pred(Keyword::Terminal),
        };
        if let Some(init) = pred(Keyword::Init) {
            let (ids, local) = interp
                .query(Asked::Init, Fluents::EMPTY, &[], |ctx| {
                    let mut out = Vec::new();
                    ctx.query(init, &[FREE], &mut out);
                    out
                })
                .map_err(InterpError::Budget)?;
            interp.init = interp.make_state(ids, &local);
        }
        Ok(interp)
    }

    /// Why a query exceeded the budget, once one has: the interpreter's
    /// answers are meaningless from then on (see [`Interpreter`]).
    pub fn budget_error(&self) -> Option<&QueryBudgetError> {
        self.failure.get()
    }

    /// Whether a query has exceeded the budget (one atomic load: checked
    /// by every [`Game`] method before it queries).
    #[inline]
    fn failed(&self) -> bool {
        self.failure.get().is_some()
    }

    /// The error of a query asking `asked` that went past the budget.
    fn budget_exceeded(&self, asked: Asked, e: Exceeded) -> QueryBudgetError {
        let role = |r: u32| self.read().text(&self.syms, r);
        let query = match asked {
            Asked::Init => "the initial state".to_owned(),
            Asked::Legal(r) => format!("the legal moves of {}", role(r)),
            Asked::Terminal => "whether the state is terminal".to_owned(),
            Asked::Goal(r) => format!("the goal of {}", role(r)),
            Asked::Next => "the next state".to_owned(),
        };
        QueryBudgetError {
            query,
            relation: self.rel_names[e.relation as usize].clone(),
            what: e.what,
            limit: match e.what {
                QueryLimit::Answers => self.budget.max_answers,
                QueryLimit::Memory => self.budget.max_memory,
            },
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, TermStore> {
        // A panic elsewhere cannot leave the store inconsistent (it only
        // grows, one complete node at a time): ignore poisoning.
        self.store.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, TermStore> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` (asking `asked`) on a fresh query context over `state` and
    /// `joint`, returning its result and the overlay of terms it built. A
    /// query that runs out of its stack allowance is run again on a thread
    /// with a large stack. The lazy static tables the query completed go to
    /// the shared cache. A query that exceeds the budget fails, and makes
    /// the interpreter fail for good.
    fn query<R: Send>(
        &self,
        asked: Asked,
        state: Fluents<'_>,
        joint: &[(u32, u32)],
        f: impl Fn(&mut Ctx<'_>) -> R + Sync,
    ) -> Result<(R, TermStore), QueryBudgetError> {
        let outcome = {
            let guard = self.read();
            let global: &TermStore = &guard;
            let run = |stack: usize| {
                let mut ctx = Ctx::new(&self.kb, Terms::new(global), state, joint, stack)
                    .with_cache(&self.cache)
                    .with_budget(self.budget);
                let r = f(&mut ctx);
                let pending = ctx.take_pending();
                let outcome = (r, ctx.terms.local, pending, ctx.exceeded);
                (outcome, ctx.aborted)
            };
            match run(STACK_BUDGET) {
                (outcome, false) => outcome,
                // Over budget: a larger stack would not help.
                (outcome @ (.., Some(_)), true) => outcome,
                (_, true) => {
                    let res = std::thread::scope(|s| {
                        std::thread::Builder::new()
                            .stack_size(BIG_STACK)
                            .spawn_scoped(s, || run(BIG_STACK - (1 << 20)).0)
                            .map(|h| h.join())
                    });
                    match res {
                        Ok(Ok(outcome)) => outcome,
                        Ok(Err(panic)) => std::panic::resume_unwind(panic),
                        Err(_) => run(usize::MAX).0,
                    }
                }
            }
        };
        let (r, local, pending, exceeded) = outcome;
        if let Some(e) = exceeded {
            let error = self.budget_exceeded(asked, e);
            // The first failure is the one reported (queries may fail on
            // several threads at once).
            let _ = self.failure.set(error.clone());
            return Err(error);
        }
        if !pending.is_empty() {
            self.cache_static(&local, pending);
        }
        Ok((r, local))
    }

    /// Asks relation `pred` in `state` with `joint` moved, with the
    /// arguments of `key` that are `Some` bound: its answers as term ids
    /// (shared ids, see [`Interpreter::is_shared`], or ids valid within this
    /// probe only), `None` when the query takes more than `work` steps or
    /// passes `budget`, and the steps it took. Unlike the [`Game`] queries,
    /// giving up leaves the interpreter usable: this is for compile-time
    /// probes of a game (the lifted back end's estimates), not for playing.
    pub fn probe(
        &self,
        (state, joint): (&State, &[Move]),
        pred: PredId,
        key: &[Option<u32>],
        (budget, work): (QueryBudget, u64),
    ) -> Probe {
        let arity = self.kb.arity.get(pred.0 as usize).copied().unwrap_or(0);
        let pairs = self.joint_pairs(joint);
        let guard = self.read();
        let global: &TermStore = &guard;
        let key: Vec<u32> = (0..arity)
            .map(|i| key.get(i).copied().flatten().unwrap_or(FREE))
            .collect();
        // Deep recursion is the rule in such probes (every argument free):
        // run on a thread with a large stack, as a restarted query does.
        let probe = || {
            let mut ctx = Ctx::new(
                &self.kb,
                Terms::new(global),
                state.view(),
                &pairs,
                BIG_STACK - (1 << 20),
            )
            .with_cache(&self.cache)
            .with_work_limit(work)
            .with_budget(budget);
            let mut out = Vec::new();
            let n = ctx.query(pred.0, &key, &mut out);
            let answers = (!ctx.aborted).then(|| match arity {
                0 => vec![Vec::new(); n.min(1)],
                _ => out.chunks(arity).map(<[u32]>::to_vec).collect(),
            });
            Probe {
                answers,
                work: ctx.work(),
            }
        };
        let gave_up = Probe {
            answers: None,
            work,
        };
        std::thread::scope(|s| {
            let thread = std::thread::Builder::new().stack_size(BIG_STACK);
            match thread.spawn_scoped(s, probe).map(|h| h.join()) {
                Ok(Ok(p)) => p,
                _ => gave_up,
            }
        })
    }

    /// Whether term id `id` (from [`Interpreter::probe`]) names the same
    /// term in every query, rather than only within the probe that gave it.
    pub fn is_shared(id: u32) -> bool {
        id & LOCAL == 0
    }

    /// Publishes the terms of completed lazy static tables and caches them.
    fn cache_static(&self, local: &TermStore, pending: Vec<Pending>) {
        let mut memo = FxHashMap::default();
        let mut done = Vec::with_capacity(pending.len());
        {
            let mut store = self.write();
            for p in pending {
                let key: Box<[u32]> = p
                    .key
                    .iter()
                    .map(|&k| {
                        if k == FREE {
                            k
                        } else {
                            publish(&mut store, local, &mut memo, k)
                        }
                    })
                    .collect();
                let arity = key.len();
                let mut answers = TupleSet::new(arity);
                let mut buf = vec![0u32; arity];
                for i in 0..p.answers.len() {
                    for (j, b) in buf.iter_mut().enumerate() {
                        *b = publish(&mut store, local, &mut memo, p.answers.at(i, j));
                    }
                    answers.insert(&buf);
                }
                done.push((p.pred, key, answers));
            }
        }
        for (pred, key, answers) in done {
            self.cache.insert(pred, key, answers);
        }
    }

    /// Replaces overlay ids in `ids` by ids in the shared store.
    fn publish(&self, local: &TermStore, ids: &mut [u32]) {
        if ids.iter().all(|&i| i & LOCAL == 0) {
            return;
        }
        let mut store = self.write();
        let mut memo = FxHashMap::default();
        for id in ids {
            *id = publish(&mut store, local, &mut memo, *id);
        }
    }

    /// The state of fluents `ids` (possibly overlay ids of `local`).
    fn make_state(&self, mut ids: Vec<u32>, local: &TermStore) -> State {
        self.publish(local, &mut ids);
        let guard = self.read();
        let terms = Terms::new(&guard);
        let mut keyed: Vec<(u32, u32, u32)> = ids.iter().map(|&f| state_key(&terms, f)).collect();
        keyed.sort_unstable();
        keyed.dedup();
        State {
            fluents: keyed.iter().map(|k| k.2).collect(),
            keys: keyed.iter().map(|k| (k.0, k.1)).collect(),
        }
    }

    /// Interns a term read from text into the shared store.
    fn intern_read(&self, store: &mut TermStore, t: &Read) -> u32 {
        match t {
            Read::Const(s) => store.constant(*s),
            Read::Func(f, args) => {
                let ids: Vec<u32> = args.iter().map(|a| self.intern_read(store, a)).collect();
                store.func(*f, &ids)
            }
        }
    }

    /// The `(role, move)` id pairs of a joint move, skipping ids that name no
    /// term (a caller's mistake: such a move matches no `does`).
    fn joint_pairs(&self, joint: &[Move]) -> Vec<(u32, u32)> {
        let store = self.read();
        self.roles
            .iter()
            .zip(joint)
            .filter(|(_, m)| m.0 & LOCAL == 0 && store.get(m.0).is_some())
            .map(|(r, m)| (r.1, m.0))
            .collect()
    }
}

/// Steps one component of static relations may take to be computed in full
/// when the interpreter is built; past it, they are proved lazily.
const STATIC_WORK_LIMIT: u64 = 1 << 20;

/// Computes every static relation, components in dependency order, and
/// stores their tables in `kb` (or marks them lazy when too large).
fn compute_static(kb: &mut Kb, store: &mut TermStore, budget: usize) {
    for c in 0..kb.sccs.count() {
        let preds: Vec<u32> = kb
            .sccs
            .members(c)
            .iter()
            .copied()
            .filter(|&p| !kb.dynamic[p as usize] && kb.kind[p as usize] == Kind::Rules)
            .collect();
        if preds.is_empty() {
            continue;
        }
        let mut results: Vec<(u32, Vec<u32>, usize)> = Vec::new();
        let (local, aborted) = {
            let mut ctx = Ctx::new(kb, Terms::new(store), Fluents::EMPTY, &[], budget)
                .with_work_limit(STATIC_WORK_LIMIT);
            for &p in &preds {
                let mut out = Vec::new();
                let n = ctx.query(p, &vec![FREE; kb.arity[p as usize]], &mut out);
                results.push((p, out, n));
            }
            (ctx.terms.local, ctx.aborted)
        };
        if aborted {
            // Too big to compute in full (`isList` of all lists of 25
            // elements): prove it call by call instead.
            for &p in &preds {
                kb.lazy[p as usize] = true;
            }
            continue;
        }
        let mut memo = FxHashMap::default();
        for (p, mut out, n) in results {
            for id in &mut out {
                *id = publish(store, &local, &mut memo, *id);
            }
            let arity = kb.arity[p as usize];
            let mut set = TupleSet::new(arity);
            if arity == 0 {
                // A proposition leaves no ids behind: only the count tells.
                if n > 0 {
                    set.insert(&[]);
                }
            } else {
                for t in out.chunks(arity) {
                    set.insert(t);
                }
            }
            kb.set_relation(p, set);
        }
    }
}

impl Game for Interpreter {
    type State = State;

    fn num_roles(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: Role) -> &str {
        self.roles.get(role).map_or("", |r| r.0.as_str())
    }

    fn initial_state(&self) -> State {
        self.init.clone()
    }

    fn legal_moves(&self, state: &State, role: Role, out: &mut Vec<Move>) {
        out.clear();
        let (Some(legal), Some(&(_, role_id))) = (self.legal, self.roles.get(role)) else {
            return;
        };
        if self.failed() {
            return;
        }
        let asked = Asked::Legal(role_id);
        let Ok((mut ids, local)) = self.query(asked, state.view(), &[], |ctx| {
            let mut tuples = Vec::new();
            ctx.query(legal, &[role_id, FREE], &mut tuples);
            let mut moves: Vec<u32> = tuples.chunks(2).map(|t| t[1]).collect();
            moves.sort_unstable();
            moves.dedup();
            moves
        }) else {
            return;
        };
        self.publish(&local, &mut ids);
        let store = self.read();
        let mut keyed: Vec<(String, u32)> = ids
            .into_iter()
            .map(|m| (store.text(&self.syms, m), m))
            .collect();
        keyed.sort_unstable();
        out.extend(keyed.into_iter().map(|(_, m)| Move(m)));
    }

    fn is_terminal(&self, state: &State) -> bool {
        let Some(terminal) = self.terminal else {
            return self.failed();
        };
        if self.failed() {
            return true;
        }
        self.query(Asked::Terminal, state.view(), &[], |ctx| {
            ctx.query(terminal, &[], &mut Vec::new()) > 0
        })
        .map_or(true, |(t, _)| t)
    }

    /// The goal value of `role`: [`Goal::None`] when no `goal` fact holds for
    /// it, [`Goal::Ambiguous`] when several different values hold, and also
    /// [`Goal::None`] when the one value that holds is not an integer in
    /// `0..=100`.
    fn goal(&self, state: &State, role: Role) -> Goal {
        let (Some(goal), Some(&(_, role_id))) = (self.goal, self.roles.get(role)) else {
            return Goal::None;
        };
        if self.failed() {
            return Goal::None;
        }
        let result = self.query(Asked::Goal(role_id), state.view(), &[], |ctx| {
            let mut tuples = Vec::new();
            ctx.query(goal, &[role_id, FREE], &mut tuples);
            let mut values: Vec<u32> = tuples.chunks(2).map(|t| t[1]).collect();
            values.sort_unstable();
            values.dedup();
            match values.as_slice() {
                [] => Goal::None,
                [v] => {
                    let node = ctx.terms.node(*v);
                    match self.syms.name(node.sym()).parse::<u8>() {
                        Ok(n) if n <= 100 && !node.is_func() => Goal::Value(n),
                        _ => Goal::None,
                    }
                }
                _ => Goal::Ambiguous,
            }
        });
        result.map_or(Goal::None, |(g, _)| g)
    }

    fn apply_unchecked(&self, state: &mut State, joint: &[Move]) {
        if self.failed() {
            return;
        }
        let pairs = self.joint_pairs(joint);
        let Some(next) = self.next else {
            *state = State::default();
            return;
        };
        if let Ok((ids, local)) = self.query(Asked::Next, state.view(), &pairs, |ctx| {
            let mut out = Vec::new();
            ctx.query(next, &[FREE], &mut out);
            out
        }) {
            *state = self.make_state(ids, &local);
        }
    }

    fn move_text(&self, _role: Role, mv: Move) -> String {
        let store = self.read();
        match store.get(mv.0) {
            Some(_) if mv.0 & LOCAL == 0 => store.text(&self.syms, mv.0),
            _ => format!("<invalid move {}>", mv.0),
        }
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let store = self.read();
        let mut out: Vec<String> = state
            .fluents
            .iter()
            .map(|&f| store.text(&self.syms, f))
            .collect();
        out.sort_unstable();
        out
    }

    fn parse_move(&self, role: Role, text: &str) -> Result<Move, ParseError> {
        if role >= self.roles.len() {
            return Err(ParseError::new(format!("no role {role}")));
        }
        let terms = read_terms(text, &self.syms)?;
        let [t] = terms.as_slice() else {
            return Err(ParseError::new(format!(
                "expected one term, found {}",
                terms.len()
            )));
        };
        let mut store = self.write();
        Ok(Move(self.intern_read(&mut store, t)))
    }

    /// The [`Interpreter::budget_error`] message, naming the command-line
    /// flag that raises the limit (library callers read the error itself).
    fn failure(&self) -> Option<String> {
        self.budget_error().map(|e| e.message(Caller::Cli))
    }

    fn parse_state(&self, text: &str) -> Result<State, ParseError> {
        let terms = read_terms(text, &self.syms)?;
        let ids: Vec<u32> = {
            let mut store = self.write();
            terms
                .iter()
                .map(|t| self.intern_read(&mut store, t))
                .collect()
        };
        Ok(self.make_state(ids, &TermStore::new(LOCAL)))
    }
}
