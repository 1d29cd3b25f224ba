//! Helpers shared by the tests: driving a reference and another reasoner of
//! the same game through the same seeded random matches, comparing them in
//! every state.

#![allow(dead_code)] // each test binary uses a different subset

use gdl_runtime::{Game, Goal, Move, Rng};

/// How much of the game a comparison plays.
pub struct Plan {
    /// The seeds of the matches, one match each.
    pub seeds: std::ops::Range<u64>,
    /// Joint moves at most per match (matches stop earlier when terminal).
    pub max_plies: usize,
    /// Whether goals are compared in every state rather than only at the end.
    pub goals_every_step: bool,
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
pub struct Coverage {
    /// States compared.
    pub states: usize,
    /// Matches that reached a terminal state.
    pub finished: usize,
}

/// Plays the matches of `plan` on `reference` and `other`, comparing them
/// in every state.
pub fn agree<R: Game, O: Game>(reference: &R, other: &O, plan: &Plan) -> Coverage {
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
pub fn assert_all_finished(seen: &Coverage, matches: usize) {
    assert_eq!(seen.finished, matches, "{seen:?}");
    assert!(seen.states >= 8 * matches, "{seen:?}");
}
