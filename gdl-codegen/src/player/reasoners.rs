//! Which reasoner plays a match.
//!
//! [`prepare`] checks the rules and returns an engine to play at once, and
//! better ones later (a channel the match polls between turns; the match
//! replays its moves on the newest, kept as text). Under `auto`: the
//! propnet when the game grounds before a share of the start clock, else
//! the interpreter at once and the propnet when grounding finishes in the
//! background; then the compiled game, built in the background (niced, one
//! build job, so that search keeps a core) and loaded into the process
//! ([`crate::host::loaded`]), found at once when it is in the cache.

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::front::{self, Frontend, Options};
use crate::ground::{self, Budget};
use crate::host::loaded::{self, LoadOptions, Toolchain};
use crate::reasoner::interp::Interpreter;
use crate::reasoner::propnet::Propnet;

use super::engine::{Engine, SearchConfig, UctEngine};

/// The reasoner a player is restricted to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reasoner {
    /// The best available: the propnet when the game grounds in time, else
    /// the interpreter, switching to the propnet when it is built.
    #[default]
    Auto,
    /// The tabled interpreter only.
    Interpreter,
    /// The propnet only (a game that does not ground cannot be played).
    Propnet,
    /// The compiled game only, built within the start clock (or found in
    /// the cache).
    Compiled,
}

impl Reasoner {
    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            Reasoner::Auto => "auto",
            Reasoner::Interpreter => "interpreter",
            Reasoner::Propnet => "propnet",
            Reasoner::Compiled => "compiled",
        }
    }
}

/// The share of the time to the deadline that `auto` waits for the propnet
/// before it starts on the interpreter.
const PROPNET_WAIT_SHARE: f64 = 0.4;

/// How long background grounding may run: long enough for games that
/// ground in tens of seconds, not so long that a game that never grounds
/// takes a core for a whole match.
const BACKGROUND_GROUNDING: Duration = Duration::from_secs(120);

/// An engine to play at once, and maybe a better one later.
pub struct Prepared {
    /// The engine that plays now.
    pub now: Box<dyn Engine>,
    /// A better engine, sent when it is ready.
    pub later: Option<Receiver<Box<dyn Engine>>>,
}

/// Reads and checks `rules` (KIF text); the front end's result, or the
/// diagnostics as one message.
pub fn check(rules: &str) -> Result<Frontend, String> {
    let fe = front::run_bytes("rules", rules.as_bytes(), &Options::default());
    if fe.is_valid() {
        return Ok(fe);
    }
    let errors: Vec<String> = fe
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .take(3)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    Err(format!(
        "the rules are not valid GDL: {}",
        errors.join("; ")
    ))
}

/// An engine for checked rules with `reasoner`, ready by `deadline`.
pub fn prepare(
    fe: Frontend,
    reasoner: Reasoner,
    config: SearchConfig,
    deadline: Instant,
) -> Result<Prepared, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    match reasoner {
        Reasoner::Interpreter => Ok(Prepared {
            now: interpreter(&fe, config)?,
            later: None,
        }),
        Reasoner::Propnet => Ok(Prepared {
            now: propnet(&fe, config, left)?,
            later: None,
        }),
        Reasoner::Compiled => Ok(Prepared {
            now: compiled(&fe, config, Toolchain::default(), Some(deadline))?,
            later: None,
        }),
        Reasoner::Auto => {
            let (send, receive) = mpsc::channel();
            let interp = interpreter(&fe, config);
            std::thread::spawn(move || {
                if let Ok(engine) = propnet(&fe, config, BACKGROUND_GROUNDING) {
                    let _ = send.send(engine);
                }
                // Search keeps a core while the game builds.
                let background = Toolchain {
                    nice: 10,
                    jobs: 1,
                    ..Toolchain::default()
                };
                if let Ok(engine) = compiled(&fe, config, background, None) {
                    let _ = send.send(engine);
                }
            });
            let now = match receive.recv_timeout(left.mul_f64(PROPNET_WAIT_SHARE)) {
                Ok(engine) => engine,
                Err(_) => interp?,
            };
            Ok(Prepared {
                now,
                later: Some(receive),
            })
        }
    }
}

/// The compiled game of `fe`'s rules, built by `toolchain` by `deadline`
/// (or found in the cache) and loaded into the process.
fn compiled(
    fe: &Frontend,
    config: SearchConfig,
    toolchain: Toolchain,
    deadline: Option<Instant>,
) -> Result<Box<dyn Engine>, String> {
    let options = LoadOptions {
        toolchain,
        deadline,
        ..LoadOptions::default()
    };
    let game = loaded::load("match", fe.source.text.as_bytes(), &options)
        .map_err(|e| format!("no compiled game: {e}"))?;
    Ok(Box::new(UctEngine::new("compiled", game, config)))
}

fn interpreter(fe: &Frontend, config: SearchConfig) -> Result<Box<dyn Engine>, String> {
    let game =
        Interpreter::new(&fe.program).map_err(|e| format!("cannot build the interpreter: {e}"))?;
    Ok(Box::new(UctEngine::new("interpreter", game, config)))
}

fn propnet(fe: &Frontend, config: SearchConfig, time: Duration) -> Result<Box<dyn Engine>, String> {
    let gp = ground::ground(&fe.program, &Budget::default().within(time))
        .map_err(|e| format!("the game does not ground in time: {e}"))?;
    Ok(Box::new(UctEngine::new(
        "propnet",
        Propnet::new(&gp),
        config,
    )))
}
