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

use crate::playout::{run_batch, ByScratch, PlayoutStats};
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
    let mut queries = ByScratch {
        game,
        scratch: game.new_scratch(),
    };
    run_batch(&mut queries, initial, budget, seed, max_depth)
}
