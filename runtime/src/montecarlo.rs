//! Flat Monte Carlo move choice: the simplest player that beats random play,
//! and a realistic consumer of playout speed.

use std::time::Instant;

use crate::playout::{playout_in_place, Budget, PlayoutBuffers};
use crate::{Game, Move, Rng, Role};

/// The playouts of one candidate move.
#[derive(Clone, PartialEq, Debug)]
pub struct MoveEvaluation {
    /// The move of the choosing role.
    pub mv: Move,
    /// Its GDL text.
    pub text: String,
    /// Number of playouts that started with it.
    pub playouts: u64,
    /// Mean final goal of the choosing role over those playouts (a missing or
    /// ambiguous goal counts 0; 0 when there was no playout).
    pub average: f64,
}

/// The result of [`flat_monte_carlo`].
#[derive(Clone, PartialEq, Debug)]
pub struct MonteCarloChoice {
    /// The chosen move: best average, ties to the lowest text.
    pub best: Move,
    /// Every legal move's evaluation, in legal-move order.
    pub evaluations: Vec<MoveEvaluation>,
}

/// Chooses a move for `role` in `state` by flat Monte Carlo: every legal move
/// is tried in random playouts where the other roles move uniformly at random
/// (from the first step on), and the move with the best mean goal for `role`
/// wins; ties go to the move whose text is lowest in byte order.
///
/// With [`Budget::Playouts`]`(k)`, each move gets `k` playouts and the choice
/// is a function of `seed`. With [`Budget::Time`], moves take turns, one
/// playout at a time, until the time is spent (at least one playout each).
/// Playouts stop after `max_depth` joint moves.
///
/// Returns `None` when `state` is terminal or `role` has no legal move.
pub fn flat_monte_carlo<G: Game>(
    game: &G,
    state: &G::State,
    role: Role,
    budget: Budget,
    seed: u64,
    max_depth: usize,
) -> Option<MonteCarloChoice> {
    if role >= game.num_roles() || game.is_terminal(state) {
        return None;
    }
    let mut candidates = Vec::new();
    game.legal_moves(state, role, &mut candidates);
    if candidates.is_empty() {
        return None;
    }
    let mut rng = Rng::new(seed);
    let mut buf = PlayoutBuffers::new();
    let mut legal = Vec::new();
    let mut joint = vec![Move::default(); game.num_roles()];
    let mut sums = vec![0u64; candidates.len()];
    let mut counts = vec![0u64; candidates.len()];
    let mut next = state.clone();

    let mut run_one = |i: usize, rng: &mut Rng| {
        let mut stuck = false;
        for (r, slot) in joint.iter_mut().enumerate() {
            if r == role {
                *slot = candidates[i];
                continue;
            }
            game.legal_moves(state, r, &mut legal);
            match legal.len() {
                0 => stuck = true,
                1 => *slot = legal[0],
                n => *slot = legal[rng.below(n)],
            }
        }
        next.clone_from(state);
        if !stuck {
            game.apply_unchecked(&mut next, &joint);
            playout_in_place(game, &mut next, rng, max_depth.saturating_sub(1), &mut buf);
        }
        // An opponent without a legal move ends the playout where it is,
        // as in `playout`; its goal is whatever the game says there.
        let value = game.goal(&next, role).value().unwrap_or(0);
        sums[i] += u64::from(value);
        counts[i] += 1;
    };

    match budget {
        Budget::Playouts(k) => {
            for i in 0..candidates.len() {
                for _ in 0..k {
                    run_one(i, &mut rng);
                }
            }
        }
        Budget::Time(d) => {
            let start = Instant::now();
            loop {
                for i in 0..candidates.len() {
                    run_one(i, &mut rng);
                }
                if start.elapsed() >= d {
                    break;
                }
            }
        }
    }

    let evaluations: Vec<MoveEvaluation> = candidates
        .iter()
        .enumerate()
        .map(|(i, &mv)| MoveEvaluation {
            mv,
            text: game.move_text(role, mv),
            playouts: counts[i],
            average: if counts[i] == 0 {
                0.0
            } else {
                sums[i] as f64 / counts[i] as f64
            },
        })
        .collect();
    // Compare texts explicitly rather than trust the legal-move order, so the
    // tie-break holds even for a reasoner that lists moves out of order.
    let best = evaluations
        .iter()
        .reduce(|a, b| {
            if b.average > a.average || (b.average == a.average && b.text < a.text) {
                b
            } else {
                a
            }
        })?
        .mv;
    Some(MonteCarloChoice { best, evaluations })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{Nim, NimState, TicTacToe, TttState};
    use std::time::Duration;

    #[test]
    fn takes_the_winning_move() {
        let g = Nim { pile: 2 };
        let s = g.initial_state();
        let c = flat_monte_carlo(&g, &s, 0, Budget::Playouts(10), 1, 100).unwrap();
        assert_eq!(g.move_text(0, c.best), "(take 2)");
        assert_eq!(c.evaluations.len(), 2);
        assert_eq!(c.evaluations[1].average, 100.0);
        assert!(c.evaluations.iter().all(|e| e.playouts == 10));
    }

    #[test]
    fn blocks_in_tic_tac_toe() {
        // x to move; o threatens column 1 (cells 1 1 and 2 1): x must play
        // (mark 3 1). x (on 2 2 and 2 3) has no immediate win.
        let mut cells = [0u8; 9];
        cells[0] = 2;
        cells[3] = 2;
        cells[4] = 1;
        cells[5] = 1;
        let s = TttState { cells, control: 0 };
        let g = TicTacToe;
        let c = flat_monte_carlo(&g, &s, 0, Budget::Playouts(200), 7, 100).unwrap();
        assert_eq!(g.move_text(0, c.best), "(mark 3 1)", "{:?}", c.evaluations);
    }

    #[test]
    fn deterministic_and_ties_to_lowest_text() {
        let g = Nim { pile: 5 };
        let s = g.initial_state();
        let a = flat_monte_carlo(&g, &s, 0, Budget::Playouts(30), 3, 100).unwrap();
        let b = flat_monte_carlo(&g, &s, 0, Budget::Playouts(30), 3, 100).unwrap();
        assert_eq!(a, b);
        // The role not in control has only noop.
        let c = flat_monte_carlo(&g, &s, 1, Budget::Playouts(3), 3, 100).unwrap();
        assert_eq!(g.move_text(1, c.best), "noop");
        // No playouts: every move ties at 0, the lowest text wins.
        let c = flat_monte_carlo(&g, &s, 0, Budget::Playouts(0), 3, 100).unwrap();
        assert_eq!(g.move_text(0, c.best), "(take 1)");
    }

    #[test]
    fn none_when_terminal_or_no_move() {
        let g = Nim { pile: 0 };
        let s = NimState {
            pile: 0,
            control: 0,
        };
        assert!(flat_monte_carlo(&g, &s, 0, Budget::Playouts(3), 3, 100).is_none());
        assert!(flat_monte_carlo(&g, &s, 5, Budget::Playouts(3), 3, 100).is_none());
    }

    #[test]
    fn time_budget() {
        let g = Nim { pile: 20 };
        let s = g.initial_state();
        let c = flat_monte_carlo(&g, &s, 0, Budget::Time(Duration::ZERO), 3, 100).unwrap();
        assert!(c.evaluations.iter().all(|e| e.playouts == 1));
    }
}
