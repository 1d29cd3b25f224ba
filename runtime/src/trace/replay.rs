//! The replayer: plays a trace's matches on a [`Game`] and compares every
//! recorded step with what the game computes.

use std::collections::BTreeMap;

use super::{Difference, Mismatch, Trace};
use crate::text;
use crate::{Game, Goal, Move};

/// What a successful [`replay`] covered.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ReplaySummary {
    /// Matches replayed.
    pub matches: usize,
    /// States compared.
    pub states: usize,
    /// Joint moves played.
    pub joint_moves: usize,
    /// Matches that the trace cut off with `ABORT`.
    pub aborted: usize,
}

/// Fluents or moves of the trace that the game lacks, and of the game that
/// the trace lacks, compared as sets of [`text::key`]s (case and spacing
/// ignored); each side is shown as its own text.
fn set_difference(expected: &[String], got: &[String]) -> (Vec<String>, Vec<String>) {
    let keyed = |v: &[String]| -> BTreeMap<String, String> {
        v.iter().map(|s| (text::key_lossy(s), s.clone())).collect()
    };
    let e = keyed(expected);
    let g = keyed(got);
    let missing = e
        .iter()
        .filter(|(k, _)| !g.contains_key(*k))
        .map(|(_, s)| s.clone())
        .collect();
    let extra = g
        .iter()
        .filter(|(k, _)| !e.contains_key(*k))
        .map(|(_, s)| s.clone())
        .collect();
    (missing, extra)
}

/// For each trace role, the game role with the same name (ASCII case
/// ignored), checking the order too when the trace gives it.
fn role_map<G: Game>(game: &G, trace: &Trace) -> Result<Vec<usize>, Mismatch> {
    let names = game.role_names();
    let mismatch = || Mismatch::Roles {
        expected: trace.roles.clone(),
        got: names.iter().map(|s| s.to_string()).collect(),
    };
    if names.len() != trace.roles.len() {
        return Err(mismatch());
    }
    let mut map = Vec::with_capacity(names.len());
    for (i, r) in trace.roles.iter().enumerate() {
        let found = if trace.roles_in_game_order {
            names[i].eq_ignore_ascii_case(r).then_some(i)
        } else {
            names.iter().position(|n| n.eq_ignore_ascii_case(r))
        };
        match found {
            Some(g) if !map.contains(&g) => map.push(g),
            _ => return Err(mismatch()),
        }
    }
    Ok(map)
}

/// Replays every match of `trace` on `game` and returns the first
/// difference.
///
/// Each match starts at [`Game::initial_state`]; at each recorded depth the
/// replayer compares, where the trace gives them: the fluents (as sets, case
/// and spacing ignored, against [`Game::fluents`]), the terminal flag, in
/// non-terminal states every role's legal moves (as sets of
/// [`Game::move_text`]), and the goals (a trace `?` matches [`Goal::None`] and
/// [`Goal::Ambiguous`]). It then reads the joint move with
/// [`Game::parse_move`] and advances with [`Game::apply_unchecked`]. A match
/// ends at its last recorded step (after an `ABORT`, without error). Roles are
/// compared first, by name without regard to case.
pub fn replay<G: Game>(game: &G, trace: &Trace) -> Result<ReplaySummary, Difference> {
    let map = role_map(game, trace).map_err(|mismatch| Difference {
        match_index: 0,
        playout: trace.matches.first().map_or(0, |m| m.index),
        depth: 0,
        mismatch,
    })?;
    let mut summary = ReplaySummary::default();
    let mut legal = Vec::new();
    let mut joint = vec![Move::default(); map.len()];
    for (match_index, m) in trace.matches.iter().enumerate() {
        let mut state = game.initial_state();
        for step in &m.steps {
            let diff = |mismatch| Difference {
                match_index,
                playout: m.index,
                depth: step.depth,
                mismatch,
            };
            summary.states += 1;
            if let Some(expected) = &step.state {
                let (missing, extra) = set_difference(expected, &game.fluents(&state));
                if !missing.is_empty() || !extra.is_empty() {
                    return Err(diff(Mismatch::State { missing, extra }));
                }
            }
            let terminal = game.is_terminal(&state);
            if let Some(expected) = step.terminal {
                if expected != terminal {
                    return Err(diff(Mismatch::Terminal {
                        expected,
                        got: terminal,
                    }));
                }
            }
            if let (Some(expected), false) = (&step.legal, terminal) {
                for (t, moves) in expected.iter().enumerate() {
                    let g = map[t];
                    game.legal_moves(&state, g, &mut legal);
                    let got: Vec<String> = legal.iter().map(|&mv| game.move_text(g, mv)).collect();
                    let (missing, extra) = set_difference(moves, &got);
                    if !missing.is_empty() || !extra.is_empty() {
                        return Err(diff(Mismatch::Legal {
                            role: trace.roles[t].clone(),
                            missing,
                            extra,
                        }));
                    }
                }
            }
            if let Some(expected) = &step.goals {
                for (t, &e) in expected.iter().enumerate() {
                    let got = game.goal(&state, map[t]);
                    let same = match (e, got) {
                        (None, Goal::None | Goal::Ambiguous) => true,
                        (Some(v), Goal::Value(w)) => v == w,
                        _ => false,
                    };
                    if !same {
                        return Err(diff(Mismatch::Goal {
                            role: trace.roles[t].clone(),
                            expected: e,
                            got,
                        }));
                    }
                }
            }
            let Some(moves) = &step.joint else { break };
            for (t, mv) in moves.iter().enumerate() {
                let g = map[t];
                joint[g] = game.parse_move(g, mv).map_err(|e| {
                    diff(Mismatch::JointParse {
                        role: trace.roles[t].clone(),
                        mv: mv.clone(),
                        error: e.message,
                    })
                })?;
            }
            game.apply_unchecked(&mut state, &joint);
            summary.joint_moves += 1;
        }
        summary.matches += 1;
        if m.abort.is_some() {
            summary.aborted += 1;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{conformance, count_lines, read_file, TicTacToe};

    #[test]
    fn replays_tic_tac_toe() {
        let src = read_file(&conformance("ggp-repository-base/ticTacToe.trace"));
        let t = Trace::parse(&src).unwrap();
        let s = replay(&TicTacToe, &t).unwrap();
        assert_eq!(s.matches, t.matches.len());
        assert_eq!(s.states, count_lines(&src, "STATE "));
        assert_eq!(s.joint_moves, count_lines(&src, "JOINT "));
        assert_eq!(s.aborted, 0);
        // Case and spacing do not matter.
        let loud = src
            .replace("(cell", "( CELL ")
            .replace("xplayer", "XPlayer")
            .replace("mark", "MARK");
        assert_eq!(replay(&TicTacToe, &Trace::parse(&loud).unwrap()), Ok(s));
    }

    /// Replays the first match of the tic-tac-toe trace with `from` replaced
    /// by `to` once, in the line starting with `line`.
    fn injected(line: &str, from: &str, to: &str) -> Difference {
        let src = read_file(&conformance("ggp-repository-base/ticTacToe.trace"));
        let mut out = String::new();
        let mut done = false;
        for l in src.lines() {
            if !done && l.starts_with(line) {
                assert!(l.contains(from), "{l}");
                out.push_str(&l.replacen(from, to, 1));
                done = true;
            } else {
                out.push_str(l);
            }
            out.push('\n');
        }
        assert!(done);
        replay(&TicTacToe, &Trace::parse(&out).unwrap()).unwrap_err()
    }

    #[test]
    fn replay_detects_differences() {
        let d = injected("STATE 1 ", "(cell 3 1 x)", "(cell 3 1 o)");
        assert_eq!((d.match_index, d.playout, d.depth), (0, 0, 1));
        assert_eq!(
            d.mismatch,
            Mismatch::State {
                missing: vec!["(cell 3 1 o)".into()],
                extra: vec!["(cell 3 1 x)".into()]
            }
        );
        assert_eq!(
            d.to_string(),
            "match 0 (PLAYOUT 0), depth 1: state differs: missing (cell 3 1 o); extra (cell 3 1 x)"
        );

        let d = injected("LEGAL 2 xplayer", " (mark 1 2)", "");
        assert_eq!(d.depth, 2);
        assert_eq!(d.mismatch.kind(), "legal");
        assert_eq!(d.mismatch.role(), Some("xplayer"));
        assert_eq!(
            d.mismatch,
            Mismatch::Legal {
                role: "xplayer".into(),
                missing: vec![],
                extra: vec!["(mark 1 2)".into()]
            }
        );

        let d = injected("TERMINAL 3 ", "0", "1");
        assert_eq!(
            (d.depth, d.mismatch),
            (
                3,
                Mismatch::Terminal {
                    expected: true,
                    got: false
                }
            )
        );

        let d = injected("GOALS 7 ", "100 0", "? 0");
        assert_eq!(
            d.mismatch,
            Mismatch::Goal {
                role: "xplayer".into(),
                expected: None,
                got: Goal::Value(100)
            }
        );
        assert!(d.to_string().contains("goal of xplayer differs"), "{d}");

        let d = injected("JOINT 0 ", "noop", "(pass)");
        assert_eq!(d.mismatch.kind(), "joint-parse");
        assert_eq!(d.mismatch.role(), Some("oplayer"));

        let d = injected("ROLES ", "xplayer oplayer", "oplayer xplayer");
        assert_eq!(d.mismatch.kind(), "roles");
        assert_eq!(
            d.to_string(),
            "roles differ: expected oplayer xplayer, got xplayer oplayer"
        );
    }
}
