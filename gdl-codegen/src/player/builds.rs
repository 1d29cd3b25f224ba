//! Compiled builds running in the background, shared by whoever waits for
//! them: a match's own build, or the one PREVIEW started, which the START
//! of the same rules joins instead of starting a second.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use crate::host::loaded::{self, LoadError, LoadOptions, LoadedGame};
use crate::stages::Cancel;

/// The name the rules have in the cache's key and the generated header: the
/// same for PREVIEW and START, so that both find one library.
const NAME: &str = "match";

/// How a build ended: the loaded game, or why there is none.
pub type Outcome = Result<LoadedGame, Failure>;

/// Why a build has no game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Its token was cancelled (STOP, ABORT, a START of other rules).
    Cancelled,
    /// It failed, for this reason.
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Cancelled => f.write_str("cancelled"),
            Failure::Failed(why) => f.write_str(why),
        }
    }
}

/// One build of a game's compiled code (or its load from the cache), on a
/// thread of its own.
pub struct Build {
    rules: String,
    cancel: Cancel,
    outcome: Mutex<Option<Outcome>>,
    done: Condvar,
}

impl Build {
    /// Starts loading `rules` (KIF text) with `options`, cancelled by
    /// `cancel` (every step: grounding, planning, printing and cargo).
    pub fn start(rules: &str, options: &LoadOptions, cancel: Cancel) -> Arc<Build> {
        let build = Arc::new(Build {
            rules: rules.to_owned(),
            cancel: cancel.clone(),
            outcome: Mutex::new(None),
            done: Condvar::new(),
        });
        let options = LoadOptions {
            cancel: Some(cancel),
            ..options.clone()
        };
        let worker = build.clone();
        std::thread::spawn(move || {
            // Caught, so that a waiter is never left waiting for ever.
            let load = || loaded::load(NAME, worker.rules.as_bytes(), &options);
            let outcome = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(load)) {
                Ok(Ok(game)) => Ok(game),
                Ok(Err(LoadError::Cancelled)) => Err(Failure::Cancelled),
                Ok(Err(e)) => Err(Failure::Failed(e.to_string())),
                Err(_) => Err(Failure::Failed("the build panicked".to_owned())),
            };
            *worker.lock() = Some(outcome);
            worker.done.notify_all();
        });
        build
    }

    /// Whether the game of `rules` would be found built, in this process or
    /// in the cache, without compiling anything.
    pub fn is_cached(rules: &str, options: &LoadOptions) -> bool {
        loaded::is_cached(NAME, rules.as_bytes(), options)
    }

    /// The rules being built.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    /// The token that cancels this build.
    pub fn cancel_token(&self) -> Cancel {
        self.cancel.clone()
    }

    /// Stops the build at its next safe point (cargo at once).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether the build has ended.
    pub fn is_done(&self) -> bool {
        self.lock().is_some()
    }

    /// Waits for the build's end until `until` (`None`: for ever); its
    /// outcome, or `None` if it is still running then.
    pub fn wait(&self, until: Option<Instant>) -> Option<Outcome> {
        let mut outcome = self.lock();
        while outcome.is_none() {
            outcome = match until {
                None => self.done.wait(outcome).unwrap_or_else(|e| e.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    match self.done.wait_timeout(outcome, left) {
                        Ok((g, _)) => g,
                        Err(e) => e.into_inner().0,
                    }
                }
            };
        }
        outcome.clone()
    }

    fn lock(&self) -> MutexGuard<'_, Option<Outcome>> {
        self.outcome.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where a match's compiled game comes from: the build PREVIEW started for
/// the same rules, joined, else a new one with the match's own token.
pub struct Source {
    joined: Option<Arc<Build>>,
    options: LoadOptions,
    cancel: Cancel,
}

impl Source {
    /// `joined` if PREVIEW's build of the same rules is still running;
    /// `options` for a new build.
    pub fn new(joined: Option<Arc<Build>>, options: LoadOptions) -> Source {
        let cancel = joined
            .as_ref()
            .map_or_else(Cancel::new, |b| b.cancel_token());
        Source {
            joined,
            options,
            cancel,
        }
    }

    /// The token of the match's background work: the joined build's own,
    /// so that STOP or ABORT stops it as well.
    pub fn cancel_token(&self) -> Cancel {
        self.cancel.clone()
    }

    /// The build to wait for, and how it was found: `joined`, `cached` (in
    /// this process or the cache: loaded at once) or `started`.
    pub fn build(self, rules: &str) -> (Arc<Build>, &'static str) {
        if let Some(build) = self.joined {
            return (build, "joined");
        }
        let how = match Build::is_cached(rules, &self.options) {
            true => "cached",
            false => "started",
        };
        (Build::start(rules, &self.options, self.cancel), how)
    }
}
