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

/// Compares `reference` and `other` in states that play does not reach:
/// states of seeded random matches with a few base fluents of `bases`
/// toggled (those `allowed` refuses are skipped). In each it compares the
/// fluents, terminal, goals and legal moves, and the successor under one
/// random joint move when every role has one. Returns the number of states
/// compared.
pub fn agree_off_path<R: Game, O: Game>(
    reference: &R,
    other: &O,
    bases: &[String],
    allowed: impl Fn(&[String]) -> bool,
    seeds: std::ops::Range<u64>,
) -> usize {
    let mut compared = 0;
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let mut fluents = reached_state(reference, &mut rng);
        for _ in 0..1 + rng.below(6) {
            let base = &bases[rng.below(bases.len())];
            let mut toggled = fluents.clone();
            match toggled.iter().position(|f| f == base) {
                Some(i) => {
                    toggled.remove(i);
                }
                None => toggled.push(base.clone()),
            }
            if allowed(&toggled) {
                fluents = toggled;
            }
        }
        let text = fluents.join(" ");
        let at = format!("seed {seed}, state {text}");
        let r = reference
            .parse_state(&text)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let o = other.parse_state(&text).expect("other parses");
        compare_state(reference, &r, other, &o, &at);
        compared += 1;
        let mut joint_r = Vec::new();
        let mut joint_o = Vec::new();
        for role in 0..reference.num_roles() {
            let lr = legal(reference, &r, role);
            let mut lo = legal(other, &o, role);
            lo.sort();
            if lr.is_empty() {
                break;
            }
            let i = rng.below(lr.len());
            joint_r.push(lr[i].1);
            joint_o.push(lo[i].1);
        }
        if joint_r.len() == reference.num_roles() {
            let r = reference.next_state_unchecked(&r, &joint_r);
            let o = other.next_state_unchecked(&o, &joint_o);
            compare_state(
                reference,
                &r,
                other,
                &o,
                &format!("{at}, after {joint_r:?}"),
            );
            compared += 1;
        }
    }
    compared
}

/// The fluents of a state of a random match of `game`, after a random
/// number of plies.
fn reached_state<G: Game>(game: &G, rng: &mut Rng) -> Vec<String> {
    let mut state = game.initial_state();
    let plies = rng.below(80);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if game.is_terminal(&state) {
            break;
        }
        let mut joint = Vec::new();
        for role in 0..game.num_roles() {
            game.legal_moves(&state, role, &mut moves);
            joint.push(moves[rng.below(moves.len())]);
        }
        game.apply_unchecked(&mut state, &joint);
    }
    game.fluents(&state)
}

/// Asserts that two reasoners agree on everything observable in a state
/// but its successors.
fn compare_state<R: Game, O: Game>(reference: &R, r: &R::State, other: &O, o: &O::State, at: &str) {
    assert_eq!(reference.fluents(r), other.fluents(o), "{at}: fluents");
    assert_eq!(
        reference.is_terminal(r),
        other.is_terminal(o),
        "{at}: terminal"
    );
    assert_eq!(goals(reference, r), goals(other, o), "{at}: goals");
    for role in 0..reference.num_roles() {
        let texts_r: Vec<String> = legal(reference, r, role)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        let mut texts_o: Vec<String> = legal(other, o, role).into_iter().map(|(t, _)| t).collect();
        texts_o.sort();
        assert_eq!(texts_r, texts_o, "{at}: legal moves of role {role}");
    }
}
