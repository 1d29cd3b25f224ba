//! The recorder: random matches of a game written down as a trace, the way
//! the conformance traces were made.

use super::{Trace, TraceMatch, TraceStep};
use crate::playout::{random_joint, PlayoutBuffers};
use crate::text;
use crate::{Game, Rng};

/// Records `matches` random matches of `game` as a trace, the way the
/// conformance traces were made: at each depth the sorted fluents, every
/// role's sorted legal moves (non-terminal states), the terminal flag, the
/// goals (terminal states), and a joint move drawn as [`crate::playout()`]
/// draws it. A match reaching `max_depth` joint moves, or a state where some
/// role has no legal move, is cut off with an `ABORT`.
pub fn record<G: Game>(game: &G, matches: usize, seed: u64, max_depth: usize) -> Trace {
    let mut rng = Rng::new(seed);
    let mut buf = PlayoutBuffers::new();
    let mut legal = Vec::new();
    let roles: Vec<String> = (0..game.num_roles())
        .map(|r| game.role_name(r).to_string())
        .collect();
    let sorted = |mut v: Vec<String>| {
        v.iter_mut().for_each(|s| *s = text::canonical_lossy(s));
        v.sort();
        v
    };
    let mut out = Vec::with_capacity(matches);
    for index in 0..matches {
        let mut m = TraceMatch {
            index,
            ..TraceMatch::default()
        };
        let mut state = game.initial_state();
        for depth in 0.. {
            let terminal = game.is_terminal(&state);
            let mut step = TraceStep {
                depth,
                state: Some(sorted(game.fluents(&state))),
                terminal: Some(terminal),
                ..TraceStep::default()
            };
            if terminal {
                let mut goals = Vec::new();
                game.goals(&state, &mut goals);
                step.goals = Some(goals.iter().map(|g| g.value()).collect());
                m.steps.push(step);
                break;
            }
            step.legal = Some(
                (0..game.num_roles())
                    .map(|r| {
                        game.legal_moves(&state, r, &mut legal);
                        sorted(legal.iter().map(|&mv| game.move_text(r, mv)).collect())
                    })
                    .collect(),
            );
            if depth >= max_depth || random_joint(game, &state, &mut rng, &mut buf).is_err() {
                m.abort = Some(depth);
                m.steps.push(step);
                break;
            }
            let joint = buf.joint();
            step.joint = Some(
                joint
                    .iter()
                    .enumerate()
                    .map(|(r, &mv)| text::canonical_lossy(&game.move_text(r, mv)))
                    .collect(),
            );
            game.apply_unchecked(&mut state, joint);
            m.steps.push(step);
        }
        m.end = m.steps.last().map(|s| s.depth);
        out.push(m);
    }
    Trace {
        game: None,
        roles,
        roles_in_game_order: true,
        matches: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{Counter, Nim};
    use crate::trace::replay;

    #[test]
    fn record_then_parse_and_replay() {
        for (roles, stuck) in [(2, None), (3, None), (3, Some(3))] {
            let g = Counter {
                roles,
                moves: 2,
                target: 12,
                stuck_at: stuck,
            };
            let t = record(&g, 5, 11, 100);
            assert_eq!(t.matches.len(), 5);
            let text = t.to_string();
            let back = Trace::parse(&text).unwrap();
            assert_eq!(back, t);
            let s = replay(&g, &back).unwrap();
            assert_eq!(s.matches, 5);
        }
        let g = Nim { pile: 7 };
        let t = record(&g, 3, 1, 2);
        assert!(t.matches.iter().all(|m| m.abort == Some(2)));
        let s = replay(&g, &t).unwrap();
        assert_eq!((s.aborted, s.joint_moves), (3, 6));
        // Another game's trace differs from the start.
        let d = replay(&Nim { pile: 6 }, &t).unwrap_err();
        assert_eq!((d.depth, d.mismatch.kind()), (0, "state"));
    }
}
