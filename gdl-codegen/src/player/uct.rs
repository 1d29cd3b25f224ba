//! One UCT search tree over any [`Game`]: decoupled UCT (each role's moves
//! scored apart at every node, so simultaneous moves and any number of roles
//! need nothing special), a transposition table (states reached by several
//! paths share one node), kept from turn to turn and bounded in memory.
//!
//! A tree is searched by one thread; the engine runs one tree per thread and
//! sums their statistics at the root (root parallelisation: no locks on the
//! hot path, and with a compiled game a simulation is a few microseconds, too
//! short to share a tree under a lock).

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gdl_runtime::{run_playouts_from, Budget, Game, Goal, Move, Rng};
use rustc_hash::{FxHashMap, FxHasher};

/// The exploration constant of UCB1 on rewards in 0..=1. GGP players settle
/// around 0.4 (40 on the 0–100 goal scale): below √2 because goals are rarely
/// spread over the whole range.
const EXPLORATION: f64 = 0.4;

/// At a node where several roles choose at once, the chance that a role
/// picks a move at random instead of by UCB1. Without it the roles of a
/// symmetric game hold identical statistics, choose in lockstep and never
/// try the joint moves where they differ (decoupled UCT's known flaw; the
/// ε-greedy mix is the usual cure).
const SIMULTANEOUS_EPSILON: f64 = 0.1;

/// Steps after which a playout or a descent is cut (GDL games end, but a
/// buggy one or a cycle of transpositions must not hang a thread).
const MAX_STEPS: usize = 5_000;

/// A guess of a state's heap size, for the memory cap: the reasoners' states
/// are a few words of bits or a list of fluent ids.
const STATE_HEAP_GUESS: usize = 128;

/// Visits and summed reward of one move of one role at one node.
#[derive(Clone, Copy, Default, Debug)]
pub struct Stat {
    /// Times the move was chosen here.
    pub visits: u32,
    /// Sum of the rewards (0..=1) it led to.
    pub total: f64,
}

impl Stat {
    /// The mean reward, 0 when unvisited.
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.total / f64::from(self.visits)
        }
    }
}

struct Node<S> {
    state: S,
    hash: u64,
    /// Rewards of a terminal state, one per role; empty otherwise.
    terminal: Option<Box<[f64]>>,
    moves: Box<[Box<[Move]>]>,
    stats: Box<[Box<[Stat]>]>,
    visits: u32,
    /// (joint key, child) pairs: few per node, so a list beats a map.
    children: Vec<(u64, u32)>,
}

/// What one call of [`Tree::search`] did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Searched {
    /// Simulations run.
    pub simulations: u64,
    /// Nodes in the tree afterwards.
    pub nodes: usize,
}

/// A search tree rooted at the current state of a match.
pub struct Tree<S> {
    nodes: Vec<Node<S>>,
    table: FxHashMap<u64, u32>,
    root: u32,
    max_bytes: usize,
    bytes: usize,
    rng: Rng,
    /// Single-player games: the best reward seen and the moves reaching it
    /// from the root (the game is deterministic, so the line can be replayed).
    best_line: Option<(f64, VecDeque<Move>)>,
    /// Mean duration of a simulation, to start none that cannot end in time.
    mean_sim: Duration,
    /// Nodes the last search added: the room the next one makes first.
    last_added: usize,
}

/// Scratch space of one simulation.
#[derive(Default)]
struct Scratch {
    path: Vec<u32>,
    choices: Vec<u32>,
    joint: Vec<Move>,
    buf: Vec<Move>,
    line: Vec<Move>,
}

fn hash_of<S: Hash>(state: &S) -> u64 {
    let mut h = FxHasher::default();
    state.hash(&mut h);
    h.finish()
}

/// A goal scaled to 0..=1; values over 100 are clamped, an undefined goal
/// counts as a loss.
fn reward(goal: Goal) -> f64 {
    goal.value().map_or(0.0, |v| f64::from(v.min(100)) / 100.0)
}

fn rewards<G: Game>(game: &G, state: &G::State) -> Box<[f64]> {
    (0..game.num_roles())
        .map(|r| reward(game.goal(state, r)))
        .collect()
}

impl<S: Clone + Eq + Hash> Tree<S> {
    /// A tree at `state` holding at most about `max_bytes` of nodes.
    pub fn new<G: Game<State = S>>(game: &G, state: S, max_bytes: usize, seed: u64) -> Self {
        let mut tree = Tree {
            nodes: Vec::new(),
            table: FxHashMap::default(),
            root: 0,
            max_bytes,
            bytes: 0,
            rng: Rng::new(seed),
            best_line: None,
            mean_sim: Duration::ZERO,
            last_added: 0,
        };
        tree.root = tree.add_node(game, state, true);
        tree
    }

    /// Nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree is empty (never: it always has its root).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The state at the root.
    pub fn root_state(&self) -> &S {
        &self.nodes[self.root as usize].state
    }

    /// Whether the root is terminal.
    pub fn root_is_terminal(&self) -> bool {
        self.nodes[self.root as usize].terminal.is_some()
    }

    /// The legal moves of `role` at the root, with their statistics.
    pub fn root_stats(&self, role: usize) -> impl Iterator<Item = (Move, Stat)> + '_ {
        let root = &self.nodes[self.root as usize];
        root.moves[role]
            .iter()
            .copied()
            .zip(root.stats[role].iter().copied())
    }

    /// Single-player games: the best reward found and the move that starts
    /// its line.
    pub fn best_line(&self) -> Option<(f64, Move)> {
        let (r, line) = self.best_line.as_ref()?;
        line.front().map(|&m| (*r, m))
    }

    fn add_node<G: Game<State = S>>(&mut self, game: &G, state: S, shared: bool) -> u32 {
        let roles = game.num_roles();
        let terminal = game.is_terminal(&state).then(|| rewards(game, &state));
        let moves: Box<[Box<[Move]>]> = (0..roles)
            .map(|r| {
                let mut out = Vec::new();
                if terminal.is_none() {
                    game.legal_moves(&state, r, &mut out);
                }
                out.into_boxed_slice()
            })
            .collect();
        let stats = moves
            .iter()
            .map(|m| vec![Stat::default(); m.len()].into())
            .collect();
        let n_moves: usize = moves.iter().map(|m| m.len()).sum();
        self.bytes += std::mem::size_of::<Node<S>>() + STATE_HEAP_GUESS + 24 * n_moves;
        let hash = hash_of(&state);
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            state,
            hash,
            terminal,
            moves,
            stats,
            visits: 0,
            children: Vec::new(),
        });
        if shared {
            self.table.entry(hash).or_insert(id);
        }
        id
    }

    /// The node of `state`: the one already in the table, else a new one
    /// (`None` when the tree is full).
    fn node_for<G: Game<State = S>>(&mut self, game: &G, state: &S) -> Option<u32> {
        let hash = hash_of(state);
        if let Some(&id) = self.table.get(&hash) {
            if self.nodes[id as usize].state == *state {
                return Some(id);
            }
        }
        if self.bytes >= self.max_bytes {
            return None;
        }
        Some(self.add_node(game, state.clone(), true))
    }

    /// Runs simulations until `until`, or `stop` is raised; a simulation is
    /// not started unless one of average length ends before `until`.
    pub fn search<G: Game<State = S>>(
        &mut self,
        game: &G,
        until: Instant,
        stop: &AtomicBool,
    ) -> Searched {
        let mut scratch = Scratch::default();
        let mut simulations = 0u64;
        // Room for as many nodes as the last search added, and half again,
        // made before the clock is read: the node list and the table
        // doubling inside a simulation moves and rehashes every node at
        // once (on connect four, 600 K nodes: a reply 130 ms late under
        // load, the search having read the clock before that simulation).
        let room = self.last_added + self.last_added / 2;
        self.nodes.reserve(room);
        self.table.reserve(room);
        let before = self.nodes.len();
        let started = Instant::now();
        loop {
            let now = Instant::now();
            if stop.load(Ordering::Relaxed)
                || now + self.mean_sim >= until
                || self.root_is_terminal()
            {
                break;
            }
            self.simulate(game, &mut scratch);
            simulations += 1;
            let took = now.elapsed();
            // An exponential mean that follows the game's phase.
            self.mean_sim = (self.mean_sim * 15 + took) / 16;
        }
        if simulations > 0 {
            self.mean_sim = self
                .mean_sim
                .max(started.elapsed() / (simulations as u32).max(1));
        }
        self.last_added = self.nodes.len().saturating_sub(before);
        Searched {
            simulations,
            nodes: self.nodes.len(),
        }
    }

    /// One simulation: descend by decoupled UCB1, add a node, play out at
    /// random, back the rewards up.
    fn simulate<G: Game<State = S>>(&mut self, game: &G, s: &mut Scratch) {
        s.path.clear();
        s.choices.clear();
        s.line.clear();
        let roles = game.num_roles();
        let single = roles == 1;
        let mut node = self.root;
        let rewards = loop {
            if let Some(r) = &self.nodes[node as usize].terminal {
                break r.clone();
            }
            if s.path.len() >= MAX_STEPS {
                break rewards(game, &self.nodes[node as usize].state);
            }
            let key = self.select(node, roles, s);
            s.path.push(node);
            if single {
                s.line.push(s.joint[0]);
            }
            if let Some(&(_, child)) = self.nodes[node as usize]
                .children
                .iter()
                .find(|c| c.0 == key)
            {
                node = child;
                continue;
            }
            let next = game.next_state_unchecked(&self.nodes[node as usize].state, &s.joint);
            match self.node_for(game, &next) {
                Some(child) => {
                    self.nodes[node as usize].children.push((key, child));
                    s.path.push(child);
                    s.choices.extend(std::iter::repeat_n(u32::MAX, roles));
                    let state = self.nodes[child as usize].state.clone();
                    break self.playout(game, state, s);
                }
                None => break self.playout(game, next, s),
            }
        };
        self.backup(&rewards, roles, s);
        if single {
            self.keep_line(rewards[0], s);
        }
    }

    /// Each role's move at `node` by UCB1 (untried moves first, at random
    /// among them); fills `s.joint` and `s.choices`, returns the joint key.
    fn select(&mut self, node: u32, roles: usize, s: &mut Scratch) -> u64 {
        s.joint.clear();
        let mut key = 0u64;
        let choosers = self.nodes[node as usize]
            .stats
            .iter()
            .filter(|st| st.len() > 1)
            .count();
        for role in 0..roles {
            let n = &self.nodes[node as usize];
            let stats = &n.stats[role];
            let pick = if stats.len() == 1 {
                0
            } else if choosers > 1
                && self.rng.below(1 << 20) < (SIMULTANEOUS_EPSILON * f64::from(1 << 20)) as usize
            {
                self.rng.below(stats.len())
            } else {
                let untried = stats.iter().filter(|st| st.visits == 0).count();
                if untried > 0 {
                    let k = self.rng.below(untried);
                    stats
                        .iter()
                        .enumerate()
                        .filter(|(_, st)| st.visits == 0)
                        .nth(k)
                        .map_or(0, |(i, _)| i)
                } else {
                    let log_n = f64::from(n.visits.max(1)).ln();
                    let ucb =
                        |st: &Stat| st.mean() + EXPLORATION * (log_n / f64::from(st.visits)).sqrt();
                    (0..stats.len())
                        .max_by(|&a, &b| ucb(&stats[a]).total_cmp(&ucb(&stats[b])))
                        .unwrap_or(0)
                }
            };
            // Mixed radix over the roles' move counts: unique unless the
            // product of the counts passes 2^64, far beyond any real game.
            key = key
                .wrapping_mul(stats.len().max(1) as u64)
                .wrapping_add(pick as u64);
            s.choices.push(pick as u32);
            s.joint
                .push(n.moves[role].get(pick).copied().unwrap_or_default());
        }
        key
    }

    /// Random moves from `state` to the end; every role's reward.
    fn playout<G: Game<State = S>>(
        &mut self,
        game: &G,
        mut state: S,
        s: &mut Scratch,
    ) -> Box<[f64]> {
        let roles = game.num_roles();
        if roles > 1 {
            // The runtime's driver plays it: a game with a faster way runs
            // it itself (a loaded game inside its library, one call across
            // the boundary instead of three a step; a compiled one with its
            // own scratch). Puzzles play it here, to keep the line.
            let seed = self.rng.next_u64();
            let stats = run_playouts_from(game, &state, Budget::Playouts(1), seed, MAX_STEPS);
            return (0..roles)
                .map(|r| stats.average_goal(r).map_or(0.0, |g| g.min(100.0) / 100.0))
                .collect();
        }
        for _ in 0..MAX_STEPS {
            if game.is_terminal(&state) {
                break;
            }
            s.joint.clear();
            for role in 0..roles {
                let mv = game.random_move(&state, role, &mut self.rng, &mut s.buf);
                s.joint.push(mv.unwrap_or_default());
            }
            if roles == 1 {
                s.line.push(s.joint[0]);
            }
            game.apply_unchecked(&mut state, &s.joint);
        }
        rewards(game, &state)
    }

    fn backup(&mut self, rewards: &[f64], roles: usize, s: &Scratch) {
        for (i, &node) in s.path.iter().enumerate() {
            let n = &mut self.nodes[node as usize];
            n.visits = n.visits.saturating_add(1);
            for (role, &reward) in rewards.iter().enumerate().take(roles) {
                let choice = s.choices.get(i * roles + role).copied().unwrap_or(u32::MAX);
                if let Some(st) = n
                    .stats
                    .get_mut(role)
                    .and_then(|st| st.get_mut(choice as usize))
                {
                    st.visits = st.visits.saturating_add(1);
                    st.total += reward;
                }
            }
        }
    }

    fn keep_line(&mut self, reward: f64, s: &Scratch) {
        if self
            .best_line
            .as_ref()
            .is_none_or(|(best, _)| reward > *best)
        {
            self.best_line = Some((reward, s.line.iter().copied().collect()));
        }
    }

    /// Moves the root to the state after `joint`, keeping the subtree below
    /// it and dropping the rest.
    pub fn advance<G: Game<State = S>>(&mut self, game: &G, joint: &[Move])
    where
        S: Send + 'static,
    {
        let root = &self.nodes[self.root as usize];
        let next = game.next_state_unchecked(&root.state, joint);
        let child = self.node_for(game, &next);
        self.follow_line(joint);
        match child {
            Some(id) => {
                self.root = id;
                self.compact();
            }
            None => self.start_over(game, next),
        }
    }

    /// Moves the root to the state after `joint` without keeping the tree:
    /// a new tree there, the old nodes freed on a thread of their own (a
    /// drop of millions of nodes would cost the turn what the compaction it
    /// replaces would).
    pub fn restart<G: Game<State = S>>(&mut self, game: &G, joint: &[Move])
    where
        S: Send + 'static,
    {
        let next = game.next_state_unchecked(self.root_state(), joint);
        self.start_over(game, next);
    }

    /// A new tree rooted at `next` in place of this one, which is freed on
    /// a thread of its own.
    fn start_over<G: Game<State = S>>(&mut self, game: &G, next: S)
    where
        S: Send + 'static,
    {
        let mut fresh = Tree::new(game, next, self.max_bytes, self.rng.next_u64());
        fresh.last_added = self.last_added;
        free_later(std::mem::replace(self, fresh));
    }

    /// Keeps the best line if it starts with the move played.
    fn follow_line(&mut self, joint: &[Move]) {
        if let Some((_, line)) = &mut self.best_line {
            if joint.len() == 1 && line.front() == Some(&joint[0]) {
                line.pop_front();
                if !line.is_empty() {
                    return;
                }
            }
        }
        self.best_line = None;
    }

    /// Keeps only the nodes reachable from the root, renumbered.
    ///
    /// The nodes left behind (most of the tree, after a few turns) are
    /// freed on a thread of their own, as [`Tree::restart`] frees a whole
    /// tree: each holds several allocations, whose freeing the turn need
    /// not wait for.
    fn compact(&mut self)
    where
        S: Send + 'static,
    {
        let mut old: Vec<Option<Node<S>>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        let mut new_id = vec![u32::MAX; old.len()];
        let mut order = vec![self.root];
        new_id[self.root as usize] = 0;
        let mut i = 0;
        while i < order.len() {
            let id = order[i] as usize;
            for &(_, c) in old[id].as_ref().map_or(&[][..], |n| &n.children[..]) {
                if new_id[c as usize] == u32::MAX {
                    new_id[c as usize] = order.len() as u32;
                    order.push(c);
                }
            }
            i += 1;
        }
        self.table.clear();
        self.table.reserve(order.len());
        self.nodes.reserve(order.len());
        self.bytes = 0;
        for &id in &order {
            let Some(mut node) = old[id as usize].take() else {
                continue;
            };
            for c in &mut node.children {
                c.1 = new_id[c.1 as usize];
            }
            let n_moves: usize = node.moves.iter().map(|m| m.len()).sum();
            self.bytes += std::mem::size_of::<Node<S>>() + STATE_HEAP_GUESS + 24 * n_moves;
            self.table
                .entry(node.hash)
                .or_insert(self.nodes.len() as u32);
            self.nodes.push(node);
        }
        self.root = 0;
        if order.len() < old.len() {
            free_later(old);
        }
    }
}

/// Frees `value` on a thread of its own: the nodes of a tree each hold
/// several allocations, and a turn need not wait for their freeing.
fn free_later<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}
