//! A General Game Playing player over HTTP (`gdl-codegen serve`): the GGP
//! protocol, a UCT search on any `gdl_runtime::Game`, and the reasoner that
//! plays each match. One file a job:
//!
//! - [`protocol`]: messages read from S-expressions, replies printed;
//! - [`http`]: one request read and one reply written per connection;
//! - [`server`]: a thread per connection, handing messages to the player;
//! - [`match_state`]: the player's one match and what each message does;
//! - [`reasoners`]: which reasoner plays (the seam for compiled code);
//! - [`background`]: a match's propnet and compiled game, built meanwhile;
//! - [`builds`]: compiled builds, shared by PREVIEW and START;
//! - [`steps`]: the steps before a search, bounded by the time left;
//! - [`engine`]: the search of a match, its game type erased;
//! - [`uct`]: one decoupled-UCT tree with transpositions;
//! - [`timing`]: the safety margin, measured;
//! - [`log`]: a JSON line per turn and a summary per match.

pub mod background;
pub mod builds;
pub mod engine;
pub mod http;
pub mod log;
pub mod match_state;
pub mod protocol;
pub mod reasoners;
pub mod server;
pub mod steps;
pub mod timing;
pub mod uct;

pub use engine::SearchConfig;
pub use match_state::{Player, PlayerConfig};
pub use reasoners::Reasoner;
pub use server::serve;
