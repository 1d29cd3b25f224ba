//! Each reference engine against the code that `gdl!` generates from its
//! corpus file, move for move, as `agreement.rs` compares it with the
//! interpreter. Both sides are fast, so this plays many more matches, 300
//! a game (about 3 s in all, most of it in the text round trips); expanding
//! and compiling the four games adds about 25 s to the test build (measured
//! on 2 cores).

mod common;

use common::{agree, assert_all_finished, Plan};

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
