//! The match-start pipeline: [`prepare`] hands out a reasoner at once and
//! compiles the game in the background, swapping in the loaded library
//! when it is ready.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use super::cdylib::{self, LibraryEntry};
use super::{bounds, library, LoadError, LoadOptions, LoadedGame};
use crate::host::cache::Cache;
use crate::reasoner::interp::Interpreter;
use crate::reasoner::propnet::Propnet;
use crate::session::{CodegenError, Session};
use crate::stages::Cancel;

/// The best reasoner so far. Each has its own state type: a caller that
/// switches re-roots its search from the current state's fluents
/// (`Game::fluents`, then `Game::parse_state` on the new reasoner).
#[derive(Clone)]
pub enum Reasoner {
    /// The interpreter, usable at once.
    Interpreter(Arc<Interpreter>),
    /// The propnet, once the game is grounded.
    Propnet(Arc<Propnet>),
    /// The compiled game, once built and loaded.
    Compiled(LoadedGame),
}

impl Reasoner {
    /// The reasoner's name: `interpreter`, `propnet` or `compiled`.
    pub fn name(&self) -> &'static str {
        match self {
            Reasoner::Interpreter(_) => "interpreter",
            Reasoner::Propnet(_) => "propnet",
            Reasoner::Compiled(_) => "compiled",
        }
    }
}

/// Where the background work stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Grounding, emitting or building.
    Working,
    /// The compiled game is loaded.
    Compiled,
    /// The game stays on the interpreter or the propnet, for this reason.
    Stays(String),
}

/// A game being prepared: see [`prepare`].
pub struct Prepared {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<(Reasoner, Status)>,
    changed: Condvar,
    cancel: Cancel,
}

impl Shared {
    fn set(&self, reasoner: Option<Reasoner>, status: Status) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = reasoner {
            state.0 = r;
        }
        state.1 = status;
        self.changed.notify_all();
    }
}

/// Starts a match on `rules`: checks them and returns the interpreter at
/// once (its construction is the only work done before returning: the
/// front end and the interpreter's tables), then in a background thread
/// loads the compiled game from the cache, or grounds it (the propnet is
/// swapped in when ready), emits it and builds it with cargo (niced, one
/// job: [`super::Toolchain`]), and swaps in the loaded library.
///
/// `deadline` (or the options' deadline, if earlier) bounds the background
/// work; it and [`Prepared::cancel`] (or the options' cancel token) stop
/// grounding, planning and printing at their next safe point, and cargo at
/// once. A game that stays interpreted says why in [`Status::Stays`].
pub fn prepare(
    name: &str,
    rules: &[u8],
    options: &LoadOptions,
    deadline: Instant,
) -> Result<Prepared, CodegenError> {
    let codegen = cdylib::codegen_options(name, &options.codegen);
    let session = Session::new(name, rules, codegen.clone());
    let interpreter = Interpreter::new(&session.valid()?.program)
        .map_err(|e| CodegenError::Io(format!("{name}: {e}")))?;
    let cancel = options.cancel.clone().unwrap_or_default();
    let shared = Arc::new(Shared {
        state: Mutex::new((
            Reasoner::Interpreter(Arc::new(interpreter)),
            Status::Working,
        )),
        changed: Condvar::new(),
        cancel: cancel.clone(),
    });
    let mut options = options.clone();
    options.cancel = Some(cancel);
    options.deadline = Some(options.deadline.map_or(deadline, |d| d.min(deadline)));
    let rules = rules.to_vec();
    let worker = {
        let shared = shared.clone();
        std::thread::spawn(move || {
            let outcome = bounds::within(&options, || compile(&session, &rules, &options, &shared));
            match outcome {
                Ok(game) => shared.set(Some(Reasoner::Compiled(game)), Status::Compiled),
                Err(e) => shared.set(None, Status::Stays(e.to_string())),
            }
        })
    };
    Ok(Prepared {
        shared,
        worker: Some(worker),
    })
}

/// The background work: the cached library, else propnet, code, build;
/// run under the load's bounds (each step stops at its next safe point).
fn compile(
    session: &Session,
    rules: &[u8],
    options: &LoadOptions,
    shared: &Shared,
) -> Result<LoadedGame, LoadError> {
    library::supported()?;
    let cache = Cache::locate(options.cache_dir.as_deref())?;
    let entry = LibraryEntry::new(&cache, rules, session.options());
    if let Some(game) = library::loaded(&entry.key) {
        return Ok(game);
    }
    if !entry.is_built() {
        if let Ok(gp) = session.ground() {
            let propnet = Propnet::new(gp);
            shared.set(Some(Reasoner::Propnet(Arc::new(propnet))), Status::Working);
        }
        let code = session.code()?;
        cdylib::build(&cache, &entry, &code, &options.toolchain)?;
    }
    library::open(&entry, crate::store::build_id())
}

impl Prepared {
    /// The best reasoner so far.
    pub fn reasoner(&self) -> Reasoner {
        self.lock().0.clone()
    }

    /// Where the background work stands.
    pub fn status(&self) -> Status {
        self.lock().1.clone()
    }

    /// Waits until the background work is over or `until` passes, and
    /// returns the status then.
    pub fn wait(&self, until: Instant) -> Status {
        let mut state = self.lock();
        while state.1 == Status::Working {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = match self.shared.changed.wait_timeout(state, left) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        }
        state.1.clone()
    }

    /// Stops the background work: cargo at once, the compiler's stages at
    /// their next safe point.
    pub fn cancel(&self) {
        self.shared.cancel.cancel();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Reasoner, Status)> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Prepared {
    /// Cancels the work without waiting for it: a running build is stopped
    /// within milliseconds by the worker, a stage of the compiler at its
    /// next safe point, and the detached worker then ends.
    fn drop(&mut self) {
        self.cancel();
        drop(self.worker.take());
    }
}
