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
use std::sync::LazyLock;
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

/// How long a batch of simulations between two readings of the clock
/// lasts, at most: a few hundredths of the tightest reserve a turn keeps.
const CLOCK_EVERY: Duration = Duration::from_micros(20);

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

/// One move of one role at a node: its statistics and, at a node where at
/// most one role has a choice, the child it leads to.
#[derive(Clone, Copy)]
struct Edge {
    mv: Move,
    stat: Stat,
    /// The child ([`NO_NODE`] until expanded); unused at a node where
    /// several roles choose (the joint move leads there: `Node::children`).
    child: u32,
}

/// No node: an edge not yet expanded, a role without a choice.
const NO_NODE: u32 = u32::MAX;

/// `Node::chooser` of a node where several roles choose at once.
const SEVERAL: u32 = u32::MAX;

/// A node holds no heap of its own but its state (and, rarely, its
/// terminal rewards or simultaneous children): its edges live in the tree's
/// arena, so that a descent reads a node and one run of edges, not a box
/// per role for the moves and another for the statistics (a cache miss
/// each: on connect four the game's own code was 6% of a served match's
/// profile, the descents and the allocations most of the rest).
struct Node<S> {
    state: S,
    hash: u64,
    /// Rewards of a terminal state, one per role; `None` otherwise.
    terminal: Option<Box<[f64]>>,
    /// Where the node's edges start in `Tree::edges`; role `r`'s end at
    /// `Tree::ends[id * roles + r]`.
    edges: u32,
    /// The one role with more than one move, whose edges hold the
    /// children (role 0 when none has a choice); [`SEVERAL`] when several
    /// choose.
    chooser: u32,
    visits: u32,
    /// (joint key, child) pairs at a node where several roles choose: few
    /// per node, so a list beats a map.
    children: Vec<(u64, u32)>,
}

/// Where a selected joint move's child is kept.
#[derive(Clone, Copy)]
enum Slot {
    /// In the edge at this index of the arena.
    Edge(usize),
    /// In the node's list, under this joint key.
    Joint(u64),
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
    /// Every node's edges, role after role.
    edges: Vec<Edge>,
    /// Each node's roles' ends in `edges`, `roles` entries a node.
    ends: Vec<u32>,
    roles: usize,
    /// The legal moves of a node being added (kept for its allocation).
    moves: Vec<Move>,
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
    /// The edge each role took at each node of the path (`roles` entries a
    /// node; [`NO_NODE`] below the tree).
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
            edges: Vec::new(),
            ends: Vec::new(),
            roles: game.num_roles(),
            moves: Vec::new(),
            table: FxHashMap::default(),
            root: 0,
            max_bytes,
            bytes: 0,
            rng: Rng::new(seed),
            best_line: None,
            mean_sim: Duration::ZERO,
            last_added: 0,
        };
        tree.root = tree.add_node(game, state);
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
        self.edges[self.range(self.root, role)]
            .iter()
            .map(|e| (e.mv, e.stat))
    }

    /// Single-player games: the best reward found and the move that starts
    /// its line.
    pub fn best_line(&self) -> Option<(f64, Move)> {
        let (r, line) = self.best_line.as_ref()?;
        line.front().map(|&m| (*r, m))
    }

    /// Whether the next move of the root compacts the tree: once it passes
    /// half its memory cap (until then the root moves in place, the nodes
    /// it leaves behind kept).
    pub fn compaction_due(&self) -> bool {
        self.bytes > self.max_bytes / 2
    }

    /// How many nodes a compaction after `joint` keeps (what it costs),
    /// counted up to `limit`: a count past it is `limit + 1`, all a turn
    /// needs to defer the compaction. 0 when no compaction is due or the
    /// move leaves the tree.
    ///
    /// The nodes kept are those reachable from the node `joint` leads to,
    /// counted by the walk the compaction makes. Its visits were counted
    /// instead, but a transposition reaches nodes added through other
    /// parents: on connect four a child visited 2 626 times keeps 27 335
    /// nodes, one visited 701 times 18 247 (`examples/uct_rate`, 3 s
    /// turns), and in a served match a compaction guessed to fit took
    /// 3.8 s of a 3 s turn.
    pub fn kept_by<G: Game<State = S>>(&self, game: &G, joint: &[Move], limit: usize) -> usize {
        if !self.compaction_due() {
            return 0;
        }
        let next = game.next_state_unchecked(self.root_state(), joint);
        self.find(&next)
            .map_or(0, |id| self.reachable(id, limit.saturating_add(1)).0.len())
    }

    /// The nodes reachable from `from`, breadth first, at most `limit` of
    /// them; and every node's index in that order ([`NO_NODE`] when not
    /// reached).
    fn reachable(&self, from: u32, limit: usize) -> (Vec<u32>, Vec<u32>) {
        let mut index = vec![NO_NODE; self.nodes.len()];
        let mut order = vec![from];
        index[from as usize] = 0;
        let mut i = 0;
        while i < order.len() && order.len() < limit {
            for c in self.children_of(order[i]) {
                if index[c as usize] == NO_NODE && order.len() < limit {
                    index[c as usize] = order.len() as u32;
                    order.push(c);
                }
            }
            i += 1;
        }
        (order, index)
    }

    /// The node of `state` in the table, if any.
    fn find(&self, state: &S) -> Option<u32> {
        let &id = self.table.get(&hash_of(state))?;
        (self.nodes[id as usize].state == *state).then_some(id)
    }

    /// The indices in `edges` of every role's moves at node `id`.
    fn edges_of(&self, id: u32) -> std::ops::Range<usize> {
        let last = self.ends[id as usize * self.roles + self.roles - 1];
        self.nodes[id as usize].edges as usize..last as usize
    }

    /// The indices in `edges` of `role`'s moves at node `id`.
    fn range(&self, id: u32, role: usize) -> std::ops::Range<usize> {
        let at = id as usize * self.roles + role;
        let start = match role {
            0 => self.nodes[id as usize].edges,
            _ => self.ends[at - 1],
        };
        start as usize..self.ends[at] as usize
    }

    fn node_bytes(edges: usize, roles: usize) -> usize {
        std::mem::size_of::<Node<S>>()
            + STATE_HEAP_GUESS
            + edges * std::mem::size_of::<Edge>()
            + roles * 4
    }

    fn add_node<G: Game<State = S>>(&mut self, game: &G, state: S) -> u32 {
        let terminal = game.is_terminal(&state).then(|| rewards(game, &state));
        let first = self.edges.len();
        let mut moves = std::mem::take(&mut self.moves);
        let mut chooser = None;
        for role in 0..self.roles {
            moves.clear();
            if terminal.is_none() {
                game.legal_moves(&state, role, &mut moves);
            }
            if moves.len() > 1 {
                chooser = match chooser {
                    None => Some(role as u32),
                    Some(_) => Some(SEVERAL),
                };
            }
            self.edges.extend(moves.drain(..).map(|mv| Edge {
                mv,
                stat: Stat::default(),
                child: NO_NODE,
            }));
            self.ends.push(self.edges.len() as u32);
        }
        self.moves = moves;
        self.bytes += Self::node_bytes(self.edges.len() - first, self.roles);
        let hash = hash_of(&state);
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            state,
            hash,
            terminal,
            edges: first as u32,
            chooser: chooser.unwrap_or(0),
            visits: 0,
            children: Vec::new(),
        });
        self.table.entry(hash).or_insert(id);
        id
    }

    /// The node of `state`: the one already in the table, else a new one
    /// (`None` when the tree is full).
    fn node_for<G: Game<State = S>>(&mut self, game: &G, state: &S) -> Option<u32> {
        if let Some(id) = self.find(state) {
            return Some(id);
        }
        if self.bytes >= self.max_bytes {
            return None;
        }
        Some(self.add_node(game, state.clone()))
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
        let per_node = self.edges.len() / self.nodes.len().max(1) + 1;
        self.edges.reserve(room * per_node);
        self.ends.reserve(room * self.roles);
        let before = self.nodes.len();
        let started = Instant::now();
        let mut now = started;
        let mut batch = 1;
        loop {
            if stop.load(Ordering::Relaxed)
                || now + self.mean_sim * batch >= until
                || self.root_is_terminal()
            {
                break;
            }
            for _ in 0..batch {
                self.simulate(game, &mut scratch);
            }
            simulations += u64::from(batch);
            // The clock is read once a batch of simulations lasting about
            // CLOCK_EVERY: where the tree holds the rest of the game, a
            // simulation takes a few hundred nanoseconds, and reading the
            // clock after each was a fifth of it.
            let then = now;
            now = Instant::now();
            let took = (now - then) / batch;
            // An exponential mean that follows the game's phase.
            self.mean_sim = (self.mean_sim * 15 + took) / 16;
            batch = match self.mean_sim.as_nanos() {
                0 => 1,
                ns => (CLOCK_EVERY.as_nanos() / ns).clamp(1, 64) as u32,
            };
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
        let single = self.roles == 1;
        let mut node = self.root;
        let rewards = loop {
            if let Some(r) = &self.nodes[node as usize].terminal {
                break r.clone();
            }
            if s.path.len() >= MAX_STEPS {
                break rewards(game, &self.nodes[node as usize].state);
            }
            let slot = self.select(node, s);
            s.path.push(node);
            if single {
                s.line.push(s.joint[0]);
            }
            let child = match slot {
                Slot::Edge(e) => self.edges[e].child,
                Slot::Joint(key) => self.nodes[node as usize]
                    .children
                    .iter()
                    .find(|c| c.0 == key)
                    .map_or(NO_NODE, |c| c.1),
            };
            if child != NO_NODE {
                node = child;
                continue;
            }
            let next = game.next_state_unchecked(&self.nodes[node as usize].state, &s.joint);
            match self.node_for(game, &next) {
                Some(child) => {
                    match slot {
                        Slot::Edge(e) => self.edges[e].child = child,
                        Slot::Joint(key) => self.nodes[node as usize].children.push((key, child)),
                    }
                    s.path.push(child);
                    s.choices.extend(std::iter::repeat_n(NO_NODE, self.roles));
                    break self.playout(game, next, s);
                }
                None => break self.playout(game, next, s),
            }
        };
        self.backup(&rewards, s);
        if single {
            self.keep_line(rewards[0], s);
        }
    }

    /// Each role's move at `node` by UCB1 (untried moves first, at random
    /// among them); fills `s.joint` and `s.choices`, returns where the
    /// joint move's child is kept.
    fn select(&mut self, node: u32, s: &mut Scratch) -> Slot {
        s.joint.clear();
        let chooser = self.nodes[node as usize].chooser;
        let visits = self.nodes[node as usize].visits;
        let mut key = 0u64;
        for role in 0..self.roles {
            let range = self.range(node, role);
            let edges = &self.edges[range.clone()];
            let pick = if edges.len() <= 1 {
                0
            } else if chooser == SEVERAL
                && self.rng.below(1 << 20) < (SIMULTANEOUS_EPSILON * f64::from(1 << 20)) as usize
            {
                self.rng.below(edges.len())
            } else {
                ucb_pick(edges, visits, &mut self.rng)
            };
            // Mixed radix over the roles' move counts: unique unless the
            // product of the counts passes 2^64, far beyond any real game.
            key = key
                .wrapping_mul(edges.len().max(1) as u64)
                .wrapping_add(pick as u64);
            let at = range.start + pick;
            s.joint
                .push(edges.get(pick).map_or(Move::default(), |e| e.mv));
            s.choices.push(match edges.is_empty() {
                true => NO_NODE,
                false => at as u32,
            });
        }
        match chooser {
            SEVERAL => Slot::Joint(key),
            role => {
                let pick = s.choices[s.choices.len() - self.roles + role as usize];
                match pick {
                    // A role with no move (rules that break GDL): no edge
                    // to keep the child in.
                    NO_NODE => Slot::Joint(key),
                    at => Slot::Edge(at as usize),
                }
            }
        }
    }

    /// Random moves from `state` to the end; every role's reward.
    fn playout<G: Game<State = S>>(
        &mut self,
        game: &G,
        mut state: S,
        s: &mut Scratch,
    ) -> Box<[f64]> {
        let roles = self.roles;
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

    fn backup(&mut self, rewards: &[f64], s: &Scratch) {
        for (i, &node) in s.path.iter().enumerate() {
            let n = &mut self.nodes[node as usize];
            n.visits = n.visits.saturating_add(1);
            let choices = s.choices.get(i * self.roles..(i + 1) * self.roles);
            for (&at, &reward) in choices.unwrap_or_default().iter().zip(rewards) {
                if let Some(e) = self.edges.get_mut(at as usize) {
                    e.stat.visits = e.stat.visits.saturating_add(1);
                    e.stat.total += reward;
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
    /// it; the rest is dropped when the tree passes half its cap
    /// ([`Tree::compaction_due`]).
    pub fn advance<G: Game<State = S>>(&mut self, game: &G, joint: &[Move])
    where
        S: Send + 'static,
    {
        self.advance_with(game, joint, true);
    }

    /// [`Tree::advance`] without the compaction: the root moves in place,
    /// every node kept (a compaction that does not fit the turn waits for
    /// one that does; a full tree only stops growing meanwhile).
    pub fn advance_in_place<G: Game<State = S>>(&mut self, game: &G, joint: &[Move])
    where
        S: Send + 'static,
    {
        self.advance_with(game, joint, false);
    }

    fn advance_with<G: Game<State = S>>(&mut self, game: &G, joint: &[Move], compact: bool)
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
                if compact && self.compaction_due() {
                    self.compact();
                }
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

    /// The children of node `id`, expanded ones only.
    fn children_of(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let node = &self.nodes[id as usize];
        let edges = match node.chooser {
            SEVERAL => 0..0,
            role => self.range(id, role as usize),
        };
        self.edges[edges]
            .iter()
            .map(|e| e.child)
            .chain(node.children.iter().map(|c| c.1))
            .filter(|&c| c != NO_NODE)
    }

    /// Keeps only the nodes reachable from the root, renumbered.
    ///
    /// Its cost follows the nodes kept, not the tree: the kept nodes are
    /// copied (their states cloned) into new arenas, and the old ones
    /// (most of the tree, after a few turns) are freed on a thread of
    /// their own, as [`Tree::restart`] frees a whole tree. Moving every
    /// node out of the old list first made it follow the tree: 174 ms for
    /// a 1.1 M-node tree of breakthrough, 92 ms now (`examples/uct_rate`,
    /// 8 s a turn). What it keeps can still be most of the tree (900 K of
    /// 1.3 M nodes after breakthrough's first move, 1.6 s under load):
    /// [`Tree::kept_by`] counts it, so that the turn can defer it.
    fn compact(&mut self)
    where
        S: Send + 'static,
    {
        let (order, new_id) = self.reachable(self.root, usize::MAX);
        let kept_edges: usize = order.iter().map(|&id| self.edges_of(id).len()).sum();
        let mut nodes = Vec::with_capacity(order.len() + self.last_added);
        let mut edges = Vec::with_capacity(
            kept_edges + self.edges.len() / self.nodes.len().max(1) * self.last_added,
        );
        let mut ends = Vec::with_capacity((order.len() + self.last_added) * self.roles);
        let mut table = FxHashMap::default();
        table.reserve(order.len() + self.last_added);
        self.bytes = 0;
        for &id in &order {
            let node = &self.nodes[id as usize];
            let at = id as usize * self.roles;
            let (first, last) = (node.edges as usize, self.edges_of(id).end);
            let shift = edges.len() as i64 - first as i64;
            edges.extend(self.edges[first..last].iter().map(|e| Edge {
                child: match e.child {
                    NO_NODE => NO_NODE,
                    c => new_id[c as usize],
                },
                ..*e
            }));
            ends.extend(
                self.ends[at..at + self.roles]
                    .iter()
                    .map(|&end| (i64::from(end) + shift) as u32),
            );
            table.entry(node.hash).or_insert(nodes.len() as u32);
            self.bytes += Self::node_bytes(last - first, self.roles);
            nodes.push(Node {
                state: node.state.clone(),
                hash: node.hash,
                terminal: node.terminal.clone(),
                edges: (first as i64 + shift) as u32,
                chooser: node.chooser,
                visits: node.visits,
                children: node
                    .children
                    .iter()
                    .map(|&(k, c)| (k, new_id[c as usize]))
                    .collect(),
            });
        }
        self.root = 0;
        let old = (
            std::mem::replace(&mut self.nodes, nodes),
            std::mem::replace(&mut self.edges, edges),
            std::mem::replace(&mut self.ends, ends),
            std::mem::replace(&mut self.table, table),
        );
        free_later(old);
    }
}

/// √(ln n) for the visit counts of most nodes, looked up: the logarithm
/// was a twentieth of a simulation on connect four.
static SQRT_LN: LazyLock<Box<[f32]>> = LazyLock::new(|| {
    (0..1u32 << 14)
        .map(|n| (n.max(1) as f32).ln().sqrt())
        .collect()
});

fn sqrt_ln(n: u32) -> f32 {
    match SQRT_LN.get(n as usize) {
        Some(&v) => v,
        None => (n as f32).ln().sqrt(),
    }
}

/// The edge UCB1 picks among `edges` (at least two) at a node visited
/// `visits` times: an untried one first, at random among them.
fn ucb_pick(edges: &[Edge], visits: u32, rng: &mut Rng) -> usize {
    // In f32: the scores only need ordering, and the divisions and square
    // roots of a node's moves were most of a descent's arithmetic.
    let explore = EXPLORATION as f32 * sqrt_ln(visits);
    let mut untried = 0;
    let mut best = (f32::NEG_INFINITY, 0);
    for (i, e) in edges.iter().enumerate() {
        let n = e.stat.visits as f32;
        let score = e.stat.total as f32 / n + explore / n.sqrt();
        untried += usize::from(e.stat.visits == 0);
        if score > best.0 {
            best = (score, i);
        }
    }
    if untried == 0 {
        return best.1;
    }
    let k = rng.below(untried);
    edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stat.visits == 0)
        .nth(k)
        .map_or(0, |(i, _)| i)
}

/// Frees `value` on a thread of its own: each node's state may hold an
/// allocation, and a turn need not wait for millions of them to be freed.
fn free_later<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}
