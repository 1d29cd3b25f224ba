//! Each reference engine against the project's interpreter of its corpus
//! file, move for move: seeded random matches drive both with the same
//! choices (an index into the byte-ordered legal list, drawn as the playout
//! driver draws it), and every step compares the fluents, terminal, every
//! role's legal moves and the goals. The references also replay the
//! conformance traces recorded with GGP-Base's prover.
//!
//! Every match is played to its end. The interpreter is slowest on reversi
//! (its goal rules count the pieces cell by cell), which takes about 2.5 s
//! for 20 matches; the whole file runs in about 4 s, well within the
//! suite's budget.

use std::path::PathBuf;

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_references::breakthrough::Breakthrough;
use gdl_references::connect_four::ConnectFour;
use gdl_references::english_draughts::EnglishDraughts;
use gdl_references::reversi::Reversi;
use gdl_references::CORPUS;
use gdl_runtime::trace::{self, Trace};
use gdl_runtime::{Game, Goal, Move, Rng};

/// The interpreter of `ggp-repository-base/{name}.kif`.
fn interpreter(name: &str) -> Interpreter {
    let path = format!("{CORPUS}/ggp-repository-base/{name}.kif");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    let program = fe
        .valid_program()
        .unwrap_or_else(|| panic!("{path} is invalid:\n{}", fe.render_diagnostics(false)));
    Interpreter::new(program).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// How much of the game a comparison plays.
struct Plan {
    /// The seeds of the matches, one match each.
    seeds: std::ops::Range<u64>,
    /// Joint moves at most per match (matches stop earlier when terminal).
    max_plies: usize,
    /// Whether goals are compared in every state rather than only at the end.
    goals_every_step: bool,
}

/// A role's legal moves with their texts, in the reasoner's order.
fn legal<G: Game>(game: &G, state: &G::State, role: usize) -> Vec<(String, Move)> {
    let mut moves = Vec::new();
    game.legal_moves(state, role, &mut moves);
    moves
        .into_iter()
        .map(|m| (game.move_text(role, m), m))
        .collect()
}

fn goals<G: Game>(game: &G, state: &G::State) -> Vec<Goal> {
    let mut out = Vec::new();
    game.goals(state, &mut out);
    out
}

/// Checks the reference's own text round trips in `state`.
fn check_text<R: Game>(reference: &R, state: &R::State, at: &str) {
    let fluents = reference.fluents(state);
    let parsed = reference
        .parse_state(&fluents.join(" "))
        .unwrap_or_else(|e| panic!("{at}: own state text refused: {e}"));
    assert_eq!(&parsed, state, "{at}: state text does not round-trip");
    for role in 0..reference.num_roles() {
        for (text, mv) in legal(reference, state, role) {
            assert_eq!(
                reference.parse_move(role, &text),
                Ok(mv),
                "{at}: move text `{text}` does not round-trip"
            );
        }
    }
}

/// What a comparison covered.
#[derive(Debug)]
struct Coverage {
    /// States compared.
    states: usize,
    /// Matches that reached a terminal state.
    finished: usize,
}

/// Plays the matches of `plan` on `reference` and `other`, comparing them
/// in every state.
fn agree<R: Game, O: Game>(reference: &R, other: &O, plan: &Plan) -> Coverage {
    assert_eq!(reference.role_names(), other.role_names());
    let mut states = 0;
    let mut finished = 0;
    for seed in plan.seeds.clone() {
        let mut rng = Rng::new(seed);
        let mut r = reference.initial_state();
        let mut o = other.initial_state();
        for ply in 0..=plan.max_plies {
            let at = format!("seed {seed}, ply {ply}");
            states += 1;
            assert_eq!(reference.fluents(&r), other.fluents(&o), "{at}: fluents");
            check_text(reference, &r, &at);
            let terminal = reference.is_terminal(&r);
            assert_eq!(terminal, other.is_terminal(&o), "{at}: terminal");
            if terminal || plan.goals_every_step {
                assert_eq!(goals(reference, &r), goals(other, &o), "{at}: goals");
            }
            finished += usize::from(terminal);
            if terminal || ply == plan.max_plies {
                break;
            }
            let mut joint_r = Vec::new();
            let mut joint_o = Vec::new();
            for role in 0..reference.num_roles() {
                let lr = legal(reference, &r, role);
                let mut lo = legal(other, &o, role);
                lo.sort();
                let texts_r: Vec<&str> = lr.iter().map(|(t, _)| t.as_str()).collect();
                let texts_o: Vec<&str> = lo.iter().map(|(t, _)| t.as_str()).collect();
                assert_eq!(texts_r, texts_o, "{at}: legal moves of role {role}");
                assert!(
                    texts_r.windows(2).all(|w| w[0] < w[1]),
                    "{at}: legal moves of role {role} not in byte order: {texts_r:?}"
                );
                // The playout driver's draw: nothing when the choice is forced.
                let i = match lr.len() {
                    0 => panic!("{at}: role {role} has no legal move"),
                    1 => 0,
                    n => rng.below(n),
                };
                joint_r.push(lr[i].1);
                joint_o.push(lo[i].1);
            }
            reference.apply_unchecked(&mut r, &joint_r);
            o = other.next_state(&o, &joint_o).expect("legal joint move");
        }
    }
    Coverage { states, finished }
}

/// Checks that all `matches` matches ran to the end; every match of these
/// games visits at least 8 states (no side wins in fewer than 7 plies).
fn assert_all_finished(seen: &Coverage, matches: usize) {
    assert_eq!(seen.finished, matches, "{seen:?}");
    assert!(seen.states >= 8 * matches, "{seen:?}");
}

/// Replays the conformance trace of `ggp-repository-base/{name}` on `game`.
fn replay_trace<G: Game>(game: &G, name: &str) {
    let path = PathBuf::from(CORPUS)
        .join("../conformance/ggp-repository-base")
        .join(format!("{name}.trace"));
    let trace = Trace::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summary = trace::replay(game, &trace).unwrap_or_else(|d| panic!("{name}: {d}"));
    assert!(summary.states > 0, "{name}: nothing replayed");
}

#[test]
fn connect_four_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 100,
        goals_every_step: true,
    };
    let seen = agree(&ConnectFour, &interpreter("connectFour"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn connect_four_replays_trace() {
    replay_trace(&ConnectFour, "connectFour");
}

#[test]
fn breakthrough_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 400,
        goals_every_step: true,
    };
    let seen = agree(&Breakthrough, &interpreter("breakthrough"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn breakthrough_replays_trace() {
    replay_trace(&Breakthrough, "breakthrough");
}

#[test]
fn reversi_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..20,
        max_plies: 200,
        goals_every_step: true,
    };
    let seen = agree(&Reversi, &interpreter("reversi"), &plan);
    assert_all_finished(&seen, 20);
}

#[test]
fn reversi_replays_trace() {
    replay_trace(&Reversi, "reversi");
}

/// More matches than the other games: about one random match in ten ends
/// at the step limit, and jump chains and crowning captures are rarer still.
#[test]
fn english_draughts_agrees_with_interpreter() {
    let plan = Plan {
        seeds: 0..60,
        max_plies: 400,
        goals_every_step: true,
    };
    let seen = agree(&EnglishDraughts, &interpreter("englishDraughts"), &plan);
    assert_all_finished(&seen, 60);
}

#[test]
fn english_draughts_replays_trace() {
    replay_trace(&EnglishDraughts, "englishDraughts");
}
