//! Queries whose caches live in a value the caller owns.
//!
//! A compiled game caches the evaluation of the last states it was asked
//! about (a query of legal moves, then one of terminal, on the same state
//! evaluate the rules once). Its [`Game`] methods keep that cache in a
//! thread-local, since the trait's methods take `&self` only. Reaching a
//! thread-local costs little in an executable, but in a shared library
//! (a loaded game) every access is a call to `__tls_get_addr`, the
//! general-dynamic TLS model: on the fastest games, a few such calls a
//! step cost a fifth of the step. A driver that owns a [`Scratched::Scratch`]
//! (a batch of playouts, a loaded game's position) passes it to every query
//! instead, and no query looks for its cache.

use crate::playout::{run_batch, steps, ByScratch, PlayoutEnd, PlayoutStats};
use crate::{Budget, Game, Goal, Move, Rng, Role};

/// A game whose queries can keep their caches in a [`Scratched::Scratch`]
/// the caller holds. Each `*_in` method answers as the [`Game`] method of
/// the same name does; a scratch may be used with any state, in any order,
/// and never changes an answer, only what it costs.
pub trait Scratched: Game {
    /// The caches of one caller: what the game's evaluation keeps from query
    /// to query.
    type Scratch;

    /// An empty scratch.
    fn new_scratch(&self) -> Self::Scratch;

    /// [`Game::legal_moves`] with `scratch`'s caches.
    fn legal_moves_in(
        &self,
        scratch: &mut Self::Scratch,
        state: &Self::State,
        role: Role,
        out: &mut Vec<Move>,
    );

    /// [`Game::random_move`] with `scratch`'s caches.
    fn random_move_in(
        &self,
        scratch: &mut Self::Scratch,
        state: &Self::State,
        role: Role,
        rng: &mut Rng,
        buf: &mut Vec<Move>,
    ) -> Option<Move> {
        self.legal_moves_in(scratch, state, role, buf);
        rng.pick(buf.len()).map(|i| buf[i])
    }

    /// [`Game::is_terminal`] with `scratch`'s caches.
    fn is_terminal_in(&self, scratch: &mut Self::Scratch, state: &Self::State) -> bool;

    /// [`Game::goal`] with `scratch`'s caches.
    fn goal_in(&self, scratch: &mut Self::Scratch, state: &Self::State, role: Role) -> Goal;

    /// [`Game::apply_unchecked`] with `scratch`'s caches.
    fn apply_in(&self, scratch: &mut Self::Scratch, state: &mut Self::State, joint: &[Move]);

    /// Plays random joint moves from `state`, updating it in place, until it
    /// is terminal, `max_depth` joint moves have been played, or a role has
    /// no legal move: the steps of [`crate::playout_in_place`], drawing from
    /// `rng` what the `*_in` queries draw, so that a seed plays the same
    /// playout. Returns the number of joint moves played and why the playout
    /// stopped. `joint` is left holding the last joint move drawn (up to the
    /// stuck role, if one was), and `legal` is a buffer for a role's moves.
    ///
    /// The default asks the queries in turn, each of which finds the
    /// evaluation of its state in `scratch`. A game overrides it to carry
    /// one step's evaluation to the next without looking it up.
    fn play_in(
        &self,
        scratch: &mut Self::Scratch,
        state: &mut Self::State,
        rng: &mut Rng,
        max_depth: usize,
        joint: &mut Vec<Move>,
        legal: &mut Vec<Move>,
    ) -> (usize, PlayoutEnd) {
        let mut queries = ByScratch {
            game: self,
            scratch,
        };
        steps(&mut queries, state, rng, max_depth, joint, legal)
    }
}

/// [`crate::run_playouts_from`] with one scratch for the whole batch: the
/// same playouts, from the same seed. A compiled game's
/// [`Game::native_playouts`] calls it, so that every driver of playouts
/// (and a loaded game's library) plays them without thread-locals.
pub fn run_playouts_in<G: Scratched>(
    game: &G,
    initial: &G::State,
    budget: Budget,
    seed: u64,
    max_depth: usize,
) -> PlayoutStats {
    let mut scratch = game.new_scratch();
    let mut queries = ByScratch {
        game,
        scratch: &mut scratch,
    };
    run_batch(&mut queries, initial, budget, seed, max_depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::Counter;
    use crate::{run_playouts, PlayoutStats};

    /// `Counter` asked through a scratch that counts the queries.
    impl Scratched for Counter {
        type Scratch = u64;
        fn new_scratch(&self) -> u64 {
            0
        }
        fn legal_moves_in(&self, asked: &mut u64, state: &u32, role: Role, out: &mut Vec<Move>) {
            *asked += 1;
            self.legal_moves(state, role, out);
        }
        fn is_terminal_in(&self, asked: &mut u64, state: &u32) -> bool {
            *asked += 1;
            self.is_terminal(state)
        }
        fn goal_in(&self, asked: &mut u64, state: &u32, role: Role) -> Goal {
            *asked += 1;
            self.goal(state, role)
        }
        fn apply_in(&self, asked: &mut u64, state: &mut u32, joint: &[Move]) {
            *asked += 1;
            self.apply_unchecked(state, joint);
        }
    }

    /// A batch's statistics without its time.
    fn untimed(mut stats: PlayoutStats) -> PlayoutStats {
        stats.elapsed = Default::default();
        stats
    }

    #[test]
    fn a_batch_with_a_scratch_plays_the_playouts_of_the_trait() {
        // Role 1 is stuck at 4, and a bound of 3 steps stops some playouts
        // first: every way a playout ends.
        let game = Counter {
            roles: 2,
            moves: 3,
            target: 12,
            stuck_at: Some(4),
        };
        for max_depth in [3, 100] {
            let (budget, state) = (Budget::Playouts(200), game.initial_state());
            let by_scratch = run_playouts_in(&game, &state, budget, 9, max_depth);
            let by_trait = run_playouts(&game, budget, 9, max_depth);
            assert!(by_trait.stuck > 0 && by_trait.terminal > 0, "{by_trait:?}");
            assert_eq!(max_depth == 3, by_trait.depth_limited > 0);
            assert_eq!(untimed(by_scratch), untimed(by_trait));
        }
    }

    #[test]
    fn the_default_play_in_asks_the_scratch_queries() {
        let game = Counter {
            roles: 1,
            moves: 1,
            target: 3,
            stuck_at: None,
        };
        let (mut asked, mut state) = (0, 0);
        let (mut joint, mut legal) = (Vec::new(), Vec::new());
        let mut rng = Rng::new(1);
        let end = game.play_in(&mut asked, &mut state, &mut rng, 10, &mut joint, &mut legal);
        assert_eq!(end, (3, PlayoutEnd::Terminal));
        assert_eq!(joint, [Move(0)]);
        // Three steps of terminal, legal moves and apply; then terminal.
        assert_eq!(asked, 3 * 3 + 1);
    }
}
