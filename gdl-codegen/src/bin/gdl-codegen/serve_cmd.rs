//! `gdl-codegen serve`: a GGP player over HTTP.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use gdl_codegen::player::{self, Player, PlayerConfig, Reasoner, SearchConfig};

use crate::status;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on.
    #[arg(long)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    bind: String,
    /// Search threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// The reasoner that plays (default: the propnet where the game grounds
    /// in time, else the interpreter until the propnet is built; then the
    /// compiled game once built in the background, or found in the cache).
    #[arg(long, value_enum, default_value = "auto")]
    reasoner: ServeReasoner,
    /// Write a JSON log per match (`MATCH.jsonl`) into this directory.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Memory of the search trees, all threads together, in MiB.
    #[arg(long, default_value_t = 1024)]
    tree_mb: usize,
    /// Seed of the search's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of the compiled-game cache (default: $GDL_CODEGEN_CACHE,
    /// else $XDG_CACHE_HOME/gdl-codegen, else ~/.cache/gdl-codegen).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum ServeReasoner {
    Auto,
    Interpreter,
    Propnet,
    Compiled,
}

/// Runs the player until the process is killed.
pub fn run(args: &ServeArgs) -> u8 {
    let mut config = PlayerConfig {
        reasoner: match args.reasoner {
            ServeReasoner::Auto => Reasoner::Auto,
            ServeReasoner::Interpreter => Reasoner::Interpreter,
            ServeReasoner::Propnet => Reasoner::Propnet,
            ServeReasoner::Compiled => Reasoner::Compiled,
        },
        log_dir: args.log.clone(),
        cache_dir: args.cache_dir.clone(),
        ..PlayerConfig::default()
    };
    config.search = SearchConfig {
        threads: args.threads.unwrap_or(config.search.threads).max(1),
        tree_bytes: args.tree_mb.saturating_mul(1 << 20),
        seed: args.seed,
    };
    let listener = match TcpListener::bind((args.bind.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}:{}: {e}", args.bind, args.port);
            return status::USAGE;
        }
    };
    eprintln!(
        "gdl-codegen serve: listening on {}:{} ({} thread(s), reasoner {})",
        args.bind,
        args.port,
        config.search.threads,
        config.reasoner.name()
    );
    player::serve(listener, Arc::new(Player::new(config)));
    status::OK
}
