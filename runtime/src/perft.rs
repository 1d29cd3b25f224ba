//! Perft: counting the joint-move sequences of a fixed length, to check a
//! reasoner's move generation against another's (as chess programs do).

use crate::{Game, Move};

/// Per-depth scratch space, allocated once per perft call rather than at
/// every node.
#[derive(Default)]
struct Level {
    legal: Vec<Vec<Move>>,
    joint: Vec<Move>,
    index: Vec<usize>,
}

/// Fills `level.legal` with every role's legal moves and returns the number
/// of joint moves (the product of their counts; 0 when a role has none).
fn legal_joints<G: Game>(game: &G, state: &G::State, level: &mut Level) -> u64 {
    let n = game.num_roles();
    level.legal.resize_with(n, Vec::new);
    let mut product = 1u64;
    for (role, moves) in level.legal.iter_mut().enumerate() {
        game.legal_moves(state, role, moves);
        product = product.saturating_mul(moves.len() as u64);
    }
    product
}

/// Calls `f` with every joint move of `legal` (the Cartesian product of the
/// roles' moves), the last role varying fastest: joint moves come in
/// lexicographic order of their move ids.
fn for_each_joint(
    legal: &[Vec<Move>],
    joint: &mut Vec<Move>,
    index: &mut Vec<usize>,
    mut f: impl FnMut(&[Move]),
) {
    if legal.iter().any(|m| m.is_empty()) {
        return;
    }
    // An odometer over the roles' move lists.
    index.clear();
    index.resize(legal.len(), 0);
    joint.clear();
    joint.extend(legal.iter().map(|m| m[0]));
    loop {
        f(joint);
        let mut role = legal.len();
        loop {
            if role == 0 {
                return;
            }
            role -= 1;
            index[role] += 1;
            if index[role] < legal[role].len() {
                joint[role] = legal[role][index[role]];
                break;
            }
            index[role] = 0;
            joint[role] = legal[role][0];
        }
    }
}

fn perft_rec<G: Game>(game: &G, state: &G::State, levels: &mut [Level]) -> u64 {
    let Some((level, deeper)) = levels.split_first_mut() else {
        return 1;
    };
    if game.is_terminal(state) {
        return 0;
    }
    let joints = legal_joints(game, state, level);
    if deeper.is_empty() {
        // Bulk counting: every child sits at the target depth and counts 1
        // whether terminal or not, so there is no need to build it.
        return joints;
    }
    let Level {
        legal,
        joint,
        index,
    } = level;
    let mut total = 0u64;
    let mut next = state.clone();
    for_each_joint(legal, joint, index, |j| {
        next.clone_from(state);
        game.apply_unchecked(&mut next, j);
        total = total.saturating_add(perft_rec(game, &next, deeper));
    });
    total
}

/// The number of joint-move sequences of exactly `depth` steps from `state`,
/// that is the number of leaves of the game tree cut at `depth`:
///
/// - `perft(state, 0) == 1`, whether or not `state` is terminal;
/// - a terminal state reached before `depth` is not expanded and counts 0;
/// - a non-terminal state's children are all its joint moves: the Cartesian
///   product of every role's legal moves (so a role with no legal move makes
///   the state count 0); states reached by different sequences are counted
///   once per sequence (no transposition merging).
///
/// The count saturates at `u64::MAX` instead of overflowing.
pub fn perft<G: Game>(game: &G, state: &G::State, depth: usize) -> u64 {
    let mut levels: Vec<Level> = (0..depth).map(|_| Level::default()).collect();
    perft_rec(game, state, &mut levels)
}

/// [`perft`] split by first joint move: for each joint move of `state` (in
/// lexicographic order of move ids, last role fastest), the perft of its
/// successor at `depth - 1`. Empty when `depth` is 0 or `state` is terminal.
/// The counts sum to `perft(game, state, depth)`; comparing two reasoners'
/// divides locates the first joint move whose subtree differs.
pub fn perft_divide<G: Game>(game: &G, state: &G::State, depth: usize) -> Vec<(Vec<Move>, u64)> {
    let mut out = Vec::new();
    if depth == 0 || game.is_terminal(state) {
        return out;
    }
    let mut levels: Vec<Level> = (0..depth).map(|_| Level::default()).collect();
    let (level, deeper) = levels.split_at_mut(1);
    let level = &mut level[0];
    legal_joints(game, state, level);
    let Level {
        legal,
        joint,
        index,
    } = level;
    for_each_joint(legal, joint, index, |j| {
        let next = game.next_state_unchecked(state, j);
        out.push((j.to_vec(), perft_rec(game, &next, deeper)));
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{Counter, Nim, TicTacToe};

    #[test]
    fn simultaneous_two_roles() {
        // Both roles add 1 or 2; terminal at >= 6. Step sums 2, 3, 4 come in
        // 1, 2, 1 ways. Two-step sequences still below 6: sums (2,2), (2,3),
        // (3,2) -> 1 + 2 + 2 = 5 of the 16, each with 4 children.
        let g = Counter {
            roles: 2,
            moves: 2,
            target: 6,
            stuck_at: None,
        };
        let s = g.initial_state();
        assert_eq!(perft(&g, &s, 0), 1);
        assert_eq!(perft(&g, &s, 1), 4);
        assert_eq!(perft(&g, &s, 2), 16);
        assert_eq!(perft(&g, &s, 3), 20);
        // After 3 steps the count is at least 6: nothing is expanded.
        assert_eq!(perft(&g, &s, 4), 0);
        // A terminal state counts 1 at depth 0 only.
        assert_eq!(perft(&g, &6, 0), 1);
        assert_eq!(perft(&g, &6, 1), 0);
    }

    #[test]
    fn three_roles() {
        let g = Counter {
            roles: 3,
            moves: 2,
            target: 100,
            stuck_at: None,
        };
        assert_eq!(perft(&g, &0, 1), 8);
        assert_eq!(perft(&g, &0, 3), 512);
        // Role 1 stuck at 3 (reached only by all three adding 1).
        let g = Counter {
            stuck_at: Some(3),
            ..g
        };
        assert_eq!(perft(&g, &0, 2), 7 * 8);
        assert_eq!(perft(&g, &3, 0), 1);
        assert_eq!(perft(&g, &3, 1), 0);
    }

    #[test]
    fn turn_taking() {
        // Nim from 3: white takes 1 (-> 2) or 2 (-> 1); then black from 2 has
        // 2 moves, from 1 one move; from 0 the game is over.
        let g = Nim { pile: 3 };
        let s = g.initial_state();
        assert_eq!(perft(&g, &s, 1), 2);
        assert_eq!(perft(&g, &s, 2), 3);
        // Sequences 1-1-1 only: 2-1 and 1-2 end at 2 steps; 1-1 leaves 1.
        assert_eq!(perft(&g, &s, 3), 1);
        assert_eq!(perft(&g, &s, 4), 0);
    }

    #[test]
    fn tic_tac_toe_known_values() {
        // Known tic-tac-toe counts: 9, 72, 504, 3024, 15120, and 54720 at
        // ply 6 (games won at ply 5 are not expanded).
        let g = TicTacToe;
        let s = g.initial_state();
        let counts: Vec<u64> = (0..=6).map(|d| perft(&g, &s, d)).collect();
        assert_eq!(counts, [1, 9, 72, 504, 3024, 15120, 54720]);
    }

    #[test]
    fn divide_sums_to_perft() {
        let g = Counter {
            roles: 2,
            moves: 2,
            target: 6,
            stuck_at: None,
        };
        let d = perft_divide(&g, &0, 3);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].0, vec![Move(0), Move(0)]);
        assert_eq!(d[1].0, vec![Move(0), Move(1)]);
        assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), perft(&g, &0, 3));
        // First step sum 2 -> 3 of 4 second steps stay below 6.
        assert_eq!(d[0].1, 3 * 4);
        assert!(perft_divide(&g, &0, 0).is_empty());
    }
}
