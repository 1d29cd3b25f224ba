//! Which reasoner plays a match.
//!
//! [`prepare`] checks the rules and returns an engine to play at once, and
//! better ones later (a channel the match polls between turns; the match
//! replays its moves on the newest, kept as text). Under `auto`: the
//! propnet when the game grounds before a share of the start clock, else
//! the interpreter at once and the propnet when grounding finishes in the
//! background; then the compiled game, built in the background (niced, one
//! build job, so that search keeps a core) and loaded into the process
//! ([`crate::host::loaded`]), found at once when it is in the cache, or
//! joined when PREVIEW started its build ([`super::builds`]). The
//! background work ([`super::background`]) stops on one cancel token,
//! [`Prepared::background`].

use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::front::{self, Frontend, Options};
use crate::ground::{self, Budget};
use crate::host::loaded::LoadedGame;
use crate::reasoner::interp::Interpreter;
use crate::reasoner::propnet::Propnet;
use crate::stages::{Cancel, Tracker};

use super::background;
use super::builds::Source;
use super::engine::{Engine, SearchConfig, UctEngine};
use super::log::MatchLog;

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

    /// Whether matches under this policy use compiled code (so that
    /// PREVIEW starts building it).
    pub fn uses_compiled(self) -> bool {
        matches!(self, Reasoner::Auto | Reasoner::Compiled)
    }
}

/// The share of the time to the deadline that `auto` waits for the propnet
/// before it starts on the interpreter.
const PROPNET_WAIT_SHARE: f64 = 0.4;

/// An engine to play at once, and maybe a better one later.
pub struct Prepared {
    /// The engine that plays now.
    pub now: Box<dyn Engine>,
    /// A better engine, sent when it is ready.
    pub later: Option<Receiver<Box<dyn Engine>>>,
    /// Stops the match's background work (grounding, the compiled build):
    /// STOP and ABORT cancel it.
    pub background: Cancel,
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

/// An engine for checked rules with `reasoner`, ready by `deadline`; the
/// compiled game comes from `compiled` (the build PREVIEW started, joined,
/// or a new one); the background work logs to `log`.
pub fn prepare(
    fe: Frontend,
    reasoner: Reasoner,
    config: SearchConfig,
    deadline: Instant,
    compiled: Source,
    log: &Arc<Mutex<MatchLog>>,
) -> Result<Prepared, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    let background = compiled.cancel_token();
    let now = match reasoner {
        Reasoner::Interpreter => interpreter(&fe, config)?,
        Reasoner::Propnet => propnet(&fe, config, left, &background)?,
        Reasoner::Compiled => compiled_by(&fe, config, compiled, deadline)?,
        Reasoner::Auto => {
            let interp = interpreter(&fe, config);
            let receive = background::start(fe, config, compiled, log.clone());
            let now = match receive.recv_timeout(left.mul_f64(PROPNET_WAIT_SHARE)) {
                Ok(engine) => engine,
                Err(_) => interp.inspect_err(|_| background.cancel())?,
            };
            return Ok(Prepared {
                now,
                later: Some(receive),
                background,
            });
        }
    };
    Ok(Prepared {
        now,
        later: None,
        background,
    })
}

/// The compiled game of `fe`'s rules, built (or found in the cache, or
/// joined) by `deadline`; the build is cancelled when it is not done then.
fn compiled_by(
    fe: &Frontend,
    config: SearchConfig,
    compiled: Source,
    deadline: Instant,
) -> Result<Box<dyn Engine>, String> {
    let (build, _) = compiled.build(&fe.source.text);
    match build.wait(Some(deadline)) {
        Some(Ok(game)) => Ok(compiled_engine(game, config)),
        Some(Err(e)) => Err(format!("no compiled game: {e}")),
        None => {
            build.cancel();
            Err("no compiled game: not built within the start clock".to_owned())
        }
    }
}

/// A search over a loaded game.
pub(super) fn compiled_engine(game: LoadedGame, config: SearchConfig) -> Box<dyn Engine> {
    Box::new(UctEngine::new("compiled", game, config))
}

fn interpreter(fe: &Frontend, config: SearchConfig) -> Result<Box<dyn Engine>, String> {
    let game =
        Interpreter::new(&fe.program).map_err(|e| format!("cannot build the interpreter: {e}"))?;
    Ok(Box::new(UctEngine::new("interpreter", game, config)))
}

/// A search over the propnet of `fe`'s rules, grounded within `time` unless
/// `cancel` stops the grounding first (at its next safe point).
pub(super) fn propnet(
    fe: &Frontend,
    config: SearchConfig,
    time: Duration,
    cancel: &Cancel,
) -> Result<Box<dyn Engine>, String> {
    let tracker = Tracker::new().cancel_with(cancel.clone());
    let gp = tracker
        .enter(|| ground::ground(&fe.program, &Budget::default().within(time)))
        .map_err(|e| match cancel.is_cancelled() {
            true => "cancelled".to_owned(),
            false => format!("the game does not ground in time: {e}"),
        })?;
    Ok(Box::new(UctEngine::new(
        "propnet",
        Propnet::new(&gp),
        config,
    )))
}
