//! Seeded random playouts on any [`Game`], and their aggregate statistics.
//!
//! At each step every role picks a uniformly random legal move with
//! [`Rng::below`], in role order; a role with a single legal move draws
//! nothing (which keeps turn-taking games cheap). Because reasoners list legal
//! moves in byte order of their text, the same seed plays the same match on
//! every reasoner of a game.

use std::time::{Duration, Instant};

use crate::scratch::Scratched;
use crate::{Game, Goal, Move, Rng, Role};

/// Default bound on the number of steps of a playout, far beyond the length of
/// real GGP matches, so that games that never end still stop.
pub const DEFAULT_MAX_DEPTH: usize = 10_000;

/// How a playout stopped.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PlayoutEnd {
    /// A terminal state was reached.
    Terminal,
    /// The step bound was reached in a non-terminal state.
    DepthLimit,
    /// A role had no legal move in a non-terminal state (the game is
    /// ill-defined there); the playout stops rather than panics.
    Stuck {
        /// The first role, in role order, without a legal move.
        role: Role,
    },
}

/// The result of one random playout.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Playout {
    /// Number of joint moves played.
    pub depth: usize,
    /// Why the playout stopped.
    pub end: PlayoutEnd,
    /// Every role's goal in the final state, in role order (computed even when
    /// the final state is not terminal, where goals are often undefined).
    pub goals: Vec<Goal>,
}

impl Playout {
    /// Whether the playout reached a terminal state.
    pub fn is_terminal(&self) -> bool {
        self.end == PlayoutEnd::Terminal
    }
}

/// Scratch buffers reused across the steps and playouts of one thread, so
/// that a batch of playouts allocates nothing after its first.
#[derive(Clone, Debug, Default)]
pub struct PlayoutBuffers {
    legal: Vec<Move>,
    joint: Vec<Move>,
    goals: Vec<Goal>,
}

impl PlayoutBuffers {
    /// Empty buffers; they grow to the game's needs on first use.
    pub fn new() -> Self {
        Self::default()
    }
}

impl PlayoutBuffers {
    /// The joint move last drawn by [`random_joint`].
    pub(crate) fn joint(&self) -> &[Move] {
        &self.joint
    }
}

/// What a batch of playouts asks of a game: through its [`Game`] methods
/// ([`ByTrait`]), or with a scratch of its own ([`ByScratch`]). One playout
/// loop serves both.
pub(crate) trait Queries {
    /// The game's state.
    type State: Clone;
    fn num_roles(&self) -> usize;
    fn is_terminal(&mut self, state: &Self::State) -> bool;
    fn random_move(
        &mut self,
        state: &Self::State,
        role: Role,
        rng: &mut Rng,
        buf: &mut Vec<Move>,
    ) -> Option<Move>;
    fn apply(&mut self, state: &mut Self::State, joint: &[Move]);
    fn goal(&mut self, state: &Self::State, role: Role) -> Goal;
    /// Whether the reasoner gave up (see [`Game::failure`]).
    fn failed(&self) -> bool;
    /// The steps of a playout from `state` (see [`steps`]), which a game
    /// with a scratch may play its own way ([`Scratched::play_in`]).
    #[inline]
    fn play(
        &mut self,
        state: &mut Self::State,
        rng: &mut Rng,
        max_depth: usize,
        buf: &mut PlayoutBuffers,
    ) -> (usize, PlayoutEnd)
    where
        Self: Sized,
    {
        steps(self, state, rng, max_depth, &mut buf.joint, &mut buf.legal)
    }
}

/// A game queried through its [`Game`] methods.
pub(crate) struct ByTrait<'a, G>(pub &'a G);

impl<G: Game> Queries for ByTrait<'_, G> {
    type State = G::State;
    #[inline]
    fn num_roles(&self) -> usize {
        self.0.num_roles()
    }
    #[inline]
    fn is_terminal(&mut self, state: &G::State) -> bool {
        self.0.is_terminal(state)
    }
    #[inline]
    fn random_move(
        &mut self,
        state: &G::State,
        role: Role,
        rng: &mut Rng,
        buf: &mut Vec<Move>,
    ) -> Option<Move> {
        self.0.random_move(state, role, rng, buf)
    }
    #[inline]
    fn apply(&mut self, state: &mut G::State, joint: &[Move]) {
        self.0.apply_unchecked(state, joint);
    }
    #[inline]
    fn goal(&mut self, state: &G::State, role: Role) -> Goal {
        self.0.goal(state, role)
    }
    fn failed(&self) -> bool {
        self.0.failure().is_some()
    }
}

/// A game queried with a scratch of its caller's (see [`Scratched`]).
pub(crate) struct ByScratch<'a, G: Scratched + ?Sized> {
    pub game: &'a G,
    pub scratch: &'a mut G::Scratch,
}

impl<G: Scratched + ?Sized> Queries for ByScratch<'_, G> {
    type State = G::State;
    #[inline]
    fn num_roles(&self) -> usize {
        self.game.num_roles()
    }
    #[inline]
    fn is_terminal(&mut self, state: &G::State) -> bool {
        self.game.is_terminal_in(self.scratch, state)
    }
    #[inline]
    fn random_move(
        &mut self,
        state: &G::State,
        role: Role,
        rng: &mut Rng,
        buf: &mut Vec<Move>,
    ) -> Option<Move> {
        self.game
            .random_move_in(self.scratch, state, role, rng, buf)
    }
    #[inline]
    fn apply(&mut self, state: &mut G::State, joint: &[Move]) {
        self.game.apply_in(self.scratch, state, joint);
    }
    #[inline]
    fn goal(&mut self, state: &G::State, role: Role) -> Goal {
        self.game.goal_in(self.scratch, state, role)
    }
    fn failed(&self) -> bool {
        self.game.failure().is_some()
    }
    #[inline]
    fn play(
        &mut self,
        state: &mut G::State,
        rng: &mut Rng,
        max_depth: usize,
        buf: &mut PlayoutBuffers,
    ) -> (usize, PlayoutEnd) {
        self.game.play_in(
            self.scratch,
            state,
            rng,
            max_depth,
            &mut buf.joint,
            &mut buf.legal,
        )
    }
}

/// Fills `buf.joint` with a uniformly random legal move for every role, or
/// returns the first role that has none.
pub(crate) fn random_joint<G: Game>(
    game: &G,
    state: &G::State,
    rng: &mut Rng,
    buf: &mut PlayoutBuffers,
) -> Result<(), Role> {
    joint_of(
        &mut ByTrait(game),
        state,
        rng,
        &mut buf.joint,
        &mut buf.legal,
    )
}

/// [`random_joint`] over any [`Queries`], into `joint`.
fn joint_of<Q: Queries>(
    game: &mut Q,
    state: &Q::State,
    rng: &mut Rng,
    joint: &mut Vec<Move>,
    legal: &mut Vec<Move>,
) -> Result<(), Role> {
    joint.clear();
    for role in 0..game.num_roles() {
        let mv = game.random_move(state, role, rng, legal).ok_or(role)?;
        joint.push(mv);
    }
    Ok(())
}

/// Plays random joint moves from `state`, updating it in place, until it is
/// terminal, `max_depth` joint moves have been played, or a role is stuck.
/// `state` is left at the final state of the playout.
pub fn playout_in_place<G: Game>(
    game: &G,
    state: &mut G::State,
    rng: &mut Rng,
    max_depth: usize,
    buf: &mut PlayoutBuffers,
) -> Playout {
    let (depth, end) = play_to_end(&mut ByTrait(game), state, rng, max_depth, buf);
    Playout {
        depth,
        end,
        goals: buf.goals.clone(),
    }
}

/// [`playout_in_place`] with the goals left in `buf.goals`: the number of
/// joint moves played and why the playout stopped.
fn play_to_end<Q: Queries>(
    game: &mut Q,
    state: &mut Q::State,
    rng: &mut Rng,
    max_depth: usize,
    buf: &mut PlayoutBuffers,
) -> (usize, PlayoutEnd) {
    let (depth, end) = game.play(state, rng, max_depth, buf);
    buf.goals.clear();
    for role in 0..game.num_roles() {
        let goal = game.goal(state, role);
        buf.goals.push(goal);
    }
    (depth, end)
}

/// Plays random joint moves from `state`, updating it in place, until it is
/// terminal, `max_depth` joint moves have been played, or a role is stuck:
/// the number of joint moves played and why the playout stopped. `joint`
/// is left holding the last joint move drawn, `legal` is a buffer for a
/// role's moves.
pub(crate) fn steps<Q: Queries>(
    game: &mut Q,
    state: &mut Q::State,
    rng: &mut Rng,
    max_depth: usize,
    joint: &mut Vec<Move>,
    legal: &mut Vec<Move>,
) -> (usize, PlayoutEnd) {
    let mut depth = 0;
    let end = loop {
        if game.is_terminal(state) {
            break PlayoutEnd::Terminal;
        }
        if depth >= max_depth {
            break PlayoutEnd::DepthLimit;
        }
        if let Err(role) = joint_of(game, state, rng, joint, legal) {
            break PlayoutEnd::Stuck { role };
        }
        game.apply(state, joint);
        depth += 1;
    };
    (depth, end)
}

/// A random playout from a copy of `state` (see [`playout_in_place`]).
pub fn playout<G: Game>(game: &G, state: &G::State, rng: &mut Rng, max_depth: usize) -> Playout {
    let mut s = state.clone();
    playout_in_place(game, &mut s, rng, max_depth, &mut PlayoutBuffers::new())
}

/// When a batch of playouts stops.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Budget {
    /// After exactly this many playouts.
    Playouts(u64),
    /// After the first playout that ends once this much time has passed
    /// (always at least one playout; the clock is read about once a
    /// millisecond, so the batch may run that much longer).
    Time(Duration),
}

/// Aggregate statistics of a batch of random playouts.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct PlayoutStats {
    /// Number of playouts.
    pub playouts: u64,
    /// States visited: each playout's start state and every state it reached
    /// (depth + 1 a playout).
    pub states: u64,
    /// Wall-clock time of the batch.
    pub elapsed: Duration,
    /// Playouts that reached a terminal state.
    pub terminal: u64,
    /// Playouts stopped by the step bound.
    pub depth_limited: u64,
    /// Playouts stopped because a role had no legal move.
    pub stuck: u64,
    /// Shortest playout, in joint moves (0 when there was none).
    pub min_depth: usize,
    /// Longest playout, in joint moves.
    pub max_depth: usize,
    /// Per role: sum of goal values over playouts that ended with a value.
    pub goal_sums: Vec<u64>,
    /// Per role: number of playouts that ended with a goal value.
    pub goal_counts: Vec<u64>,
}

fn per_second(count: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        count as f64 / secs
    } else {
        0.0
    }
}

impl PlayoutStats {
    /// Empty statistics for a game with `num_roles` roles.
    pub fn new(num_roles: usize) -> Self {
        PlayoutStats {
            goal_sums: vec![0; num_roles],
            goal_counts: vec![0; num_roles],
            ..Self::default()
        }
    }

    /// Adds one playout (not its time: set [`PlayoutStats::elapsed`]).
    pub fn add(&mut self, p: &Playout) {
        self.add_parts(p.depth, p.end, &p.goals);
    }

    /// Adds a playout of `depth` joint moves that ended with `end` and
    /// `goals`.
    fn add_parts(&mut self, depth: usize, end: PlayoutEnd, goals: &[Goal]) {
        if self.playouts == 0 || depth < self.min_depth {
            self.min_depth = depth;
        }
        self.max_depth = self.max_depth.max(depth);
        self.playouts += 1;
        self.states += depth as u64 + 1;
        match end {
            PlayoutEnd::Terminal => self.terminal += 1,
            PlayoutEnd::DepthLimit => self.depth_limited += 1,
            PlayoutEnd::Stuck { .. } => self.stuck += 1,
        }
        if self.goal_sums.len() < goals.len() {
            self.goal_sums.resize(goals.len(), 0);
            self.goal_counts.resize(goals.len(), 0);
        }
        for (role, g) in goals.iter().enumerate() {
            if let Some(v) = g.value() {
                self.goal_sums[role] += u64::from(v);
                self.goal_counts[role] += 1;
            }
        }
    }

    /// Playouts per second of wall-clock time (0 when no time was measured).
    pub fn playouts_per_sec(&self) -> f64 {
        per_second(self.playouts, self.elapsed)
    }

    /// States visited per second of wall-clock time.
    pub fn states_per_sec(&self) -> f64 {
        per_second(self.states, self.elapsed)
    }

    /// Mean playout length in joint moves (0 when there was no playout).
    pub fn average_length(&self) -> f64 {
        if self.playouts == 0 {
            0.0
        } else {
            (self.states - self.playouts) as f64 / self.playouts as f64
        }
    }

    /// Mean goal value of `role` over the playouts that ended with a value for
    /// it; `None` when none did.
    pub fn average_goal(&self, role: Role) -> Option<f64> {
        let count = *self.goal_counts.get(role)?;
        (count > 0).then(|| self.goal_sums[role] as f64 / count as f64)
    }

    /// [`PlayoutStats::average_goal`] of every role, in role order.
    pub fn average_goals(&self) -> Vec<Option<f64>> {
        (0..self.goal_sums.len())
            .map(|r| self.average_goal(r))
            .collect()
    }
}

/// Runs random playouts from the initial state with one generator seeded by
/// `seed`, until `budget` is spent or the reasoner gives up (see
/// [`Game::failure`]), and aggregates them.
pub fn run_playouts<G: Game>(
    game: &G,
    budget: Budget,
    seed: u64,
    max_depth: usize,
) -> PlayoutStats {
    run_playouts_from(game, &game.initial_state(), budget, seed, max_depth)
}

/// [`run_playouts`] from `initial` instead of the game's initial state: the
/// playouts of a search from the node it expands.
pub fn run_playouts_from<G: Game>(
    game: &G,
    initial: &G::State,
    budget: Budget,
    seed: u64,
    max_depth: usize,
) -> PlayoutStats {
    if let Some(stats) = game.native_playouts(initial, budget, seed, max_depth) {
        return stats;
    }
    run_batch(&mut ByTrait(game), initial, budget, seed, max_depth)
}

/// The playouts of [`run_playouts_from`] over any [`Queries`].
pub(crate) fn run_batch<Q: Queries>(
    game: &mut Q,
    initial: &Q::State,
    budget: Budget,
    seed: u64,
    max_depth: usize,
) -> PlayoutStats {
    let mut rng = Rng::new(seed);
    let mut buf = PlayoutBuffers::new();
    let mut stats = PlayoutStats::new(game.num_roles());
    let mut state = initial.clone();
    let start = Instant::now();
    let mut clock = Clock { next: 1 };
    loop {
        // clone_from can reuse the state's allocations from the last playout.
        state.clone_from(initial);
        let (depth, end) = play_to_end(game, &mut state, &mut rng, max_depth, &mut buf);
        stats.add_parts(depth, end, &buf.goals);
        // A reasoner that gave up answers trivially from then on: stop
        // rather than spend the rest of the budget on empty playouts.
        let done = game.failed()
            || match budget {
                Budget::Playouts(n) => stats.playouts >= n,
                Budget::Time(d) => clock.past(stats.playouts, start, d),
            };
        if done {
            break;
        }
    }
    stats.elapsed = start.elapsed();
    stats
}

/// When [`run_playouts`] reads the clock: about once a millisecond, not
/// after every playout, which cost the fastest compiled games (ten
/// million playouts a second) a good part of each playout.
struct Clock {
    /// The number of playouts at which to read it next.
    next: u64,
}

impl Clock {
    /// Whether `budget` has passed since `start`, read when `playouts`
    /// reaches the next reading: the first after one playout, then at
    /// most twice as many playouts as so far, and about a millisecond's
    /// worth at the rate so far.
    fn past(&mut self, playouts: u64, start: Instant, budget: Duration) -> bool {
        if playouts < self.next {
            return false;
        }
        let elapsed = start.elapsed();
        if elapsed >= budget {
            return true;
        }
        let per_ms = playouts as f64 / (elapsed.as_secs_f64() * 1e3).max(1e-6);
        self.next = playouts + (per_ms as u64).clamp(1, playouts);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{Counter, Nim};

    #[test]
    fn playout_reaches_terminal_with_goals() {
        let g = Counter {
            roles: 2,
            moves: 2,
            target: 10,
            stuck_at: None,
        };
        let mut rng = Rng::new(1);
        let p = playout(&g, &0, &mut rng, 100);
        assert_eq!(p.end, PlayoutEnd::Terminal);
        // Each step adds 2..=4, so 3..=5 steps reach 10.
        assert!((3..=5).contains(&p.depth), "{p:?}");
        assert_eq!(p.goals.len(), 2);
        assert!(p.goals.iter().all(|g| g.value().is_some()));
    }

    #[test]
    fn playouts_are_deterministic() {
        let g = Nim { pile: 30 };
        let s = g.initial_state();
        let a: Vec<Playout> = {
            let mut rng = Rng::new(9);
            (0..20).map(|_| playout(&g, &s, &mut rng, 1000)).collect()
        };
        let b: Vec<Playout> = {
            let mut rng = Rng::new(9);
            (0..20).map(|_| playout(&g, &s, &mut rng, 1000)).collect()
        };
        assert_eq!(a, b);
        // Different games within the batch.
        assert!(a.iter().any(|p| p.depth != a[0].depth));
    }

    #[test]
    fn depth_limit_and_stuck_are_reported() {
        let g = Counter {
            roles: 3,
            moves: 1,
            target: 100,
            stuck_at: Some(6),
        };
        let mut rng = Rng::new(0);
        let p = playout(&g, &0, &mut rng, 1);
        assert_eq!(p.end, PlayoutEnd::DepthLimit);
        assert_eq!(p.depth, 1);
        assert_eq!(p.goals, vec![Goal::None; 3]);
        // 3 roles each add 1: counts 0, 3, 6 -> role 1 is stuck at 6.
        let p = playout(&g, &0, &mut rng, 100);
        assert_eq!(p.end, PlayoutEnd::Stuck { role: 1 });
        assert_eq!(p.depth, 2);
        let mut s = 0;
        let p = playout_in_place(&g, &mut s, &mut rng, 100, &mut PlayoutBuffers::new());
        assert_eq!((p.depth, s), (2, 6));
    }

    #[test]
    fn stats_aggregate() {
        let g = Counter {
            roles: 2,
            moves: 1,
            target: 5,
            stuck_at: None,
        };
        // Deterministic game: counts 0, 2, 4, 6 -> 3 steps, 6 % 2 == 0: red wins.
        let stats = run_playouts(&g, Budget::Playouts(10), 3, 100);
        assert_eq!(stats.playouts, 10);
        assert_eq!(stats.states, 40);
        assert_eq!(stats.terminal, 10);
        assert_eq!((stats.min_depth, stats.max_depth), (3, 3));
        assert_eq!(stats.average_length(), 3.0);
        assert_eq!(stats.average_goals(), vec![Some(100.0), Some(0.0)]);

        // Playouts cut by the bound have no goal values: no average.
        let stats = run_playouts(&g, Budget::Playouts(4), 3, 2);
        assert_eq!(stats.depth_limited, 4);
        assert_eq!(stats.average_goal(0), None);
        assert_eq!(stats.average_goal(7), None);
    }

    #[test]
    fn time_budget_runs_at_least_once() {
        let g = Nim { pile: 10 };
        let stats = run_playouts(&g, Budget::Time(Duration::ZERO), 1, 100);
        assert_eq!(stats.playouts, 1);
        let stats = run_playouts(&g, Budget::Time(Duration::from_millis(20)), 1, 100);
        assert!(stats.playouts > 1);
        assert!(stats.elapsed >= Duration::from_millis(20));
        assert!(stats.playouts_per_sec() > 0.0 && stats.states_per_sec() > 0.0);
        // Nim always ends with one winner.
        let avg = stats.average_goals();
        let sum = avg[0].unwrap() + avg[1].unwrap();
        assert!((sum - 100.0).abs() < 1e-9);
    }

    #[test]
    fn the_clock_is_read_at_most_twice_as_many_playouts_apart_as_so_far() {
        let start = Instant::now();
        let mut clock = Clock { next: 1 };
        let mut readings = Vec::new();
        let mut playouts = 1;
        while readings.len() < 20 {
            if playouts >= clock.next {
                readings.push(playouts);
            }
            assert!(!clock.past(playouts, start, Duration::MAX));
            playouts += 1;
        }
        assert_eq!(
            readings[0], 1,
            "the first reading follows the first playout"
        );
        for w in readings.windows(2) {
            assert!(w[1] <= 2 * w[0], "{readings:?}");
        }
        // Between readings, the budget is not looked at.
        let next = clock.next;
        assert!(!clock.past(next - 1, start, Duration::ZERO));
        assert!(clock.past(next, start, Duration::ZERO));
    }
}
