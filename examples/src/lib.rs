//! Example games written for this project live in `games/`; example programs
//! that drive them arrive with the `gdl!` macro.

/// Directory holding the example game files shipped with the repository.
pub const GAMES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/games");
