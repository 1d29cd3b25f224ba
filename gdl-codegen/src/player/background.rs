//! A match's background work under `--reasoner auto`: the propnet, then the
//! compiled game (the build PREVIEW started for the same rules, joined, or
//! a new one), each sent to the match when ready and logged. One cancel
//! token stops it all: grounding at its next safe point, the compiled
//! build's compile likewise and its cargo at once (STOP, ABORT).

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::front::Frontend;

use super::builds::{Failure, Source};
use super::engine::{Engine, SearchConfig};
use super::log::MatchLog;
use super::reasoners;

/// How long background grounding may run: long enough for games that
/// ground in tens of seconds, not so long that a game that never grounds
/// takes a core for a whole match.
const GROUNDING: Duration = Duration::from_secs(120);

/// Starts the work on a thread of its own; the engines arrive on the
/// channel returned, the propnet first.
pub fn start(
    fe: Frontend,
    config: SearchConfig,
    compiled: Source,
    log: Arc<Mutex<MatchLog>>,
) -> Receiver<Box<dyn Engine>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let began = Instant::now();
        let event = |phase: &str, event: &str, detail: &str| {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            log.background(phase, event, detail, began.elapsed());
        };
        if propnet(&fe, config, &compiled, &send, &event) {
            build(&fe, config, compiled, &send, &event);
        }
    });
    receive
}

/// Grounds the game and sends its propnet; whether the work goes on (not
/// cancelled).
fn propnet(
    fe: &Frontend,
    config: SearchConfig,
    compiled: &Source,
    send: &Sender<Box<dyn Engine>>,
    event: &dyn Fn(&str, &str, &str),
) -> bool {
    let cancel = compiled.cancel_token();
    match reasoners::propnet(fe, config, GROUNDING, &cancel) {
        Ok(engine) => {
            event("propnet", "ready", "");
            let _ = send.send(engine);
        }
        Err(_) if cancel.is_cancelled() => {
            event("propnet", "cancelled", "");
            // A joined build has the same token: it stops too.
            return false;
        }
        Err(e) => event("propnet", "failed", &e),
    }
    !cancel.is_cancelled()
}

/// Waits for the compiled game and sends it.
fn build(
    fe: &Frontend,
    config: SearchConfig,
    compiled: Source,
    send: &Sender<Box<dyn Engine>>,
    event: &dyn Fn(&str, &str, &str),
) {
    let (build, how) = compiled.build(&fe.source.text);
    event("compiled", how, "");
    match build.wait(None) {
        Some(Ok(game)) => {
            event("compiled", "ready", "");
            let _ = send.send(reasoners::compiled_engine(game, config));
        }
        Some(Err(Failure::Cancelled)) => event("compiled", "cancelled", ""),
        Some(Err(Failure::Failed(e))) => event("compiled", "failed", &e),
        None => {}
    }
}
