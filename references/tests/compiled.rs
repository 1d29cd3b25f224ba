//! Each reference engine against the code that `gdl!` generates from its
//! corpus file, move for move, as `agreement.rs` compares it with the
//! interpreter. Both sides are fast, so this plays many more matches, 300
//! a game, and also compares perft counts of whole move trees (about 3 s in
//! all; the compiled reversi is the slowest side, so its perft is the
//! shallowest). Expanding and compiling the four games adds about 25 s to
//! the test build (measured on 2 cores).

mod common;

use common::{agree, assert_all_finished, Plan};
use gdl_runtime::{perft, Game, Rng};

gdl_macro::gdl! {
    mod connect_four;
    struct ConnectFour;
    include "../../shared/games/ggp-repository-base/connectFour.kif";
}

gdl_macro::gdl! {
    mod breakthrough;
    struct Breakthrough;
    include "../../shared/games/ggp-repository-base/breakthrough.kif";
}

gdl_macro::gdl! {
    mod reversi;
    struct Reversi;
    include "../../shared/games/ggp-repository-base/reversi.kif";
}

gdl_macro::gdl! {
    mod english_draughts;
    struct EnglishDraughts;
    include "../../shared/games/ggp-repository-base/englishDraughts.kif";
}

/// Every match of `seeds` to its end (no game here lasts 1000 plies).
fn plan(matches: u64) -> Plan {
    Plan {
        seeds: 0..matches,
        max_plies: 1000,
        goals_every_step: true,
    }
}

#[test]
fn connect_four_agrees_with_compiled() {
    let seen = agree(
        &gdl_references::connect_four::ConnectFour,
        &connect_four::ConnectFour,
        &plan(300),
    );
    assert_all_finished(&seen, 300);
}

#[test]
fn breakthrough_agrees_with_compiled() {
    let seen = agree(
        &gdl_references::breakthrough::Breakthrough,
        &breakthrough::Breakthrough,
        &plan(300),
    );
    assert_all_finished(&seen, 300);
}

#[test]
fn reversi_agrees_with_compiled() {
    let seen = agree(
        &gdl_references::reversi::Reversi,
        &reversi::Reversi,
        &plan(300),
    );
    assert_all_finished(&seen, 300);
}

#[test]
fn english_draughts_agrees_with_compiled() {
    let seen = agree(
        &gdl_references::english_draughts::EnglishDraughts,
        &english_draughts::EnglishDraughts,
        &plan(300),
    );
    assert_all_finished(&seen, 300);
}

/// Perft (the number of joint-move sequences of `depth` plies) of both
/// reasoners from the initial state and from states 10, 20 and 30 plies into
/// a random match: move generation agrees on whole trees, not only on the
/// moves a random match picks.
fn same_perft<R: Game, O: Game>(reference: &R, other: &O, depth: usize) {
    let mut rng = Rng::new(7);
    let (mut r, mut o) = (reference.initial_state(), other.initial_state());
    let mut moves = Vec::new();
    for ply in 0..=30 {
        if ply % 10 == 0 {
            let expected = perft(other, &o, depth);
            assert_eq!(perft(reference, &r, depth), expected, "ply {ply}");
            assert!(expected > 1 || reference.is_terminal(&r), "ply {ply}");
        }
        if reference.is_terminal(&r) {
            break;
        }
        // Both list moves in the same order (checked by `agree`): the same
        // index is the same move.
        let mut joint = (Vec::new(), Vec::new());
        for role in 0..reference.num_roles() {
            reference.legal_moves(&r, role, &mut moves);
            let i = rng.below(moves.len());
            joint.0.push(moves[i]);
            other.legal_moves(&o, role, &mut moves);
            joint.1.push(moves[i]);
        }
        reference.apply_unchecked(&mut r, &joint.0);
        other.apply_unchecked(&mut o, &joint.1);
    }
}

#[test]
fn connect_four_perft_agrees_with_compiled() {
    same_perft(
        &gdl_references::connect_four::ConnectFour,
        &connect_four::ConnectFour,
        5,
    );
}

#[test]
fn breakthrough_perft_agrees_with_compiled() {
    same_perft(
        &gdl_references::breakthrough::Breakthrough,
        &breakthrough::Breakthrough,
        4,
    );
}

#[test]
fn reversi_perft_agrees_with_compiled() {
    same_perft(&gdl_references::reversi::Reversi, &reversi::Reversi, 5);
}

#[test]
fn english_draughts_perft_agrees_with_compiled() {
    same_perft(
        &gdl_references::english_draughts::EnglishDraughts,
        &english_draughts::EnglishDraughts,
        6,
    );
}
