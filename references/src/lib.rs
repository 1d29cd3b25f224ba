//! `gdl-references`: hand-coded reference engines of corpus games, written as
//! a strong engine author would (bitboards, no allocation in the playout
//! loop), to measure how far the reasoners that `gdl-codegen` generates are
//! from hand-written code.
//!
//! Each engine implements [`gdl_runtime::Game`] and follows its corpus GDL
//! file exactly: the same roles, moves, fluents (including every control and
//! step fluent), terminal states and goal values, with the same GDL text for
//! moves and states, and legal moves listed in byte order of their text. The
//! project's drivers (playouts, perft, bench) therefore run them unchanged,
//! and the same seed plays the same match on a reference as on the
//! interpreter; `tests/agreement.rs` checks this move for move.
//!
//! | module | corpus game | type |
//! |---|---|---|
//! | [`connect_four`] | `ggp-repository-base/connectFour.kif` | [`connect_four::ConnectFour`] |
//! | [`breakthrough`] | `ggp-repository-base/breakthrough.kif` | [`breakthrough::Breakthrough`] |
//! | [`reversi`] | `ggp-repository-base/reversi.kif` | [`reversi::Reversi`] |
//! | [`english_draughts`] | `ggp-repository-base/englishDraughts.kif` | [`english_draughts::EnglishDraughts`] |
//!
//! The engines are references for benchmarks (`benches/playouts.rs`,
//! `examples/speed.rs`), not players: they have no search of their own.

#![warn(missing_docs)]

pub mod breakthrough;
pub mod connect_four;
pub mod english_draughts;
pub mod reversi;
mod util;

/// Path of the shared game corpus, relative to this crate.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");
