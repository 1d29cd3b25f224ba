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
//! and the same seed plays the same match on a reference as on any other
//! reasoner of the game. The tests check this move for move:
//! `tests/agreement.rs` against the interpreter (random matches, states off
//! the path of play, conformance traces) and `tests/compiled.rs` against the
//! `gdl!`-compiled game (more matches, perft of whole move trees).
//!
//! A state is a few bitboards holding exactly the GDL state's fluents, so
//! [`gdl_runtime::Game::parse_state`] takes any set of the game's base
//! fluents (reversi refuses two kinds that play never reaches; see
//! [`reversi::State`]) and the rules are evaluated on it as the GDL would.
//!
//! | module | corpus game | type |
//! |---|---|---|
//! | [`connect_four`] | `ggp-repository-base/connectFour.kif` | [`connect_four::ConnectFour`] |
//! | [`breakthrough`] | `ggp-repository-base/breakthrough.kif` | [`breakthrough::Breakthrough`] |
//! | [`reversi`] | `ggp-repository-base/reversi.kif` | [`reversi::Reversi`] |
//! | [`english_draughts`] | `ggp-repository-base/englishDraughts.kif` | [`english_draughts::EnglishDraughts`] |
//!
//! The engines are references for benchmarks, not players: they have no
//! search of their own. `benches/playouts.rs` (Criterion) and
//! `examples/speed.rs` (playouts per second through the runtime's `measure`,
//! as `gdl-codegen bench` reports them) time their random playouts;
//! `examples/compare.rs` times them beside the compiled game, the propnet
//! and the interpreter in one run, with instructions per playout.

#![warn(missing_docs)]

pub mod breakthrough;
pub mod connect_four;
pub mod english_draughts;
pub mod reversi;
mod util;

/// Path of the shared game corpus, relative to this crate.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");
