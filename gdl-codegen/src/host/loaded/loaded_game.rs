//! [`LoadedGame`]: a loaded library as a `gdl_runtime::Game`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gdl_runtime::abi::{self, GameAbi, PlayoutTotals};
use gdl_runtime::{Budget, Game, Goal, Move, ParseError, PlayoutStats, Role};

use super::{LoadError, Position};

/// A compiled game loaded from its library. Cheap to clone (one library,
/// shared); every method may run on many threads at once.
///
/// A failure inside the library (a panic, caught there) cannot be returned
/// through the `Game` trait: the method returns a neutral answer (no moves,
/// terminal, no goal) and [`Game::failure`] reports it, as drivers check.
#[derive(Clone)]
pub struct LoadedGame {
    inner: Arc<Inner>,
}

struct Inner {
    abi: &'static GameAbi,
    key: String,
    library: PathBuf,
    roles: Vec<String>,
    failure: Mutex<Option<String>>,
}

impl std::fmt::Debug for LoadedGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedGame")
            .field("key", &self.inner.key)
            .field("roles", &self.inner.roles)
            .finish()
    }
}

/// A state of a loaded game: its words.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoadedState(pub Box<[u64]>);

impl LoadedGame {
    /// The game behind a checked descriptor.
    pub(super) fn new(
        abi: &'static GameAbi,
        key: String,
        library: PathBuf,
    ) -> Result<LoadedGame, LoadError> {
        let mut game = LoadedGame {
            inner: Arc::new(Inner {
                abi,
                key,
                library,
                roles: Vec::new(),
                failure: Mutex::new(None),
            }),
        };
        let roles = (0..abi.num_roles)
            // SAFETY: text out into a buffer the helper sizes.
            .map(|r| {
                text_out(abi, |out, cap, len| unsafe {
                    (abi.role_name)(r, out, cap, len)
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(LoadError::Game)?;
        if let Some(inner) = Arc::get_mut(&mut game.inner) {
            inner.roles = roles;
        }
        Ok(game)
    }

    /// The descriptor (for [`Position`]).
    pub(super) fn abi(&self) -> &'static GameAbi {
        self.inner.abi
    }

    /// The cache key the game was loaded by.
    pub fn key(&self) -> &str {
        &self.inner.key
    }

    /// The library's file.
    pub fn library(&self) -> &Path {
        &self.inner.library
    }

    /// Words of a state.
    pub fn state_words(&self) -> usize {
        self.inner.abi.state_words as usize
    }

    /// `count` random playouts from `state` inside the library, seeded by
    /// `seed`, each of at most `max_depth` joint moves: the same playouts
    /// as `gdl_runtime::run_playouts_from` on the statically linked game
    /// (which, on a loaded game, comes here too).
    pub fn playouts(
        &self,
        state: &LoadedState,
        seed: u64,
        count: u64,
        max_depth: u64,
    ) -> Result<PlayoutStats, LoadError> {
        self.batch(state, Budget::Playouts(count), seed, max_depth)
    }

    /// Random playouts inside the library within `budget`.
    fn batch(
        &self,
        state: &LoadedState,
        budget: Budget,
        seed: u64,
        max_depth: u64,
    ) -> Result<PlayoutStats, LoadError> {
        let budget = match budget {
            Budget::Playouts(n) => n & !abi::BUDGET_NANOS,
            Budget::Time(d) => {
                let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
                (nanos & !abi::BUDGET_NANOS) | abi::BUDGET_NANOS
            }
        };
        let abi = self.inner.abi;
        let n = self.num_roles();
        let mut totals = PlayoutTotals::default();
        let (mut sums, mut counts) = (vec![0u64; n], vec![0u64; n]);
        if !self.valid(&state.0) {
            return Err(LoadError::Game(self.failure().unwrap_or_default()));
        }
        // SAFETY: a state of the game's words; goal arrays of num_roles.
        let status = unsafe {
            (abi.playouts)(
                state.0.as_ptr(),
                seed,
                budget,
                max_depth,
                &mut totals,
                sums.as_mut_ptr(),
                counts.as_mut_ptr(),
            )
        };
        self.status(status).map_err(LoadError::Game)?;
        let mut stats = PlayoutStats::new(n);
        stats.playouts = totals.playouts;
        stats.states = totals.states;
        stats.terminal = totals.terminal;
        stats.depth_limited = totals.depth_limited;
        stats.stuck = totals.stuck;
        stats.min_depth = totals.min_depth as usize;
        stats.max_depth = totals.max_depth as usize;
        stats.elapsed = std::time::Duration::from_nanos(totals.elapsed_nanos);
        stats.goal_sums = sums;
        stats.goal_counts = counts;
        Ok(stats)
    }

    /// A position at the initial state, for the simulation API.
    pub fn position(&self) -> Result<Position, LoadError> {
        Position::new(self.clone())
    }

    /// `Ok` for [`abi::OK`], else the library's message. Inlined, the
    /// error path apart: a position step is a few dozen nanoseconds, and a
    /// call to test its status was a tenth of what crossing the boundary
    /// costs.
    #[inline]
    pub(super) fn status(&self, status: i32) -> Result<(), String> {
        if status == abi::OK {
            Ok(())
        } else {
            Err(self.error(status))
        }
    }

    /// The library's message for a status other than [`abi::OK`].
    #[cold]
    #[inline(never)]
    fn error(&self, status: i32) -> String {
        // SAFETY: text out into a buffer the helper sizes.
        let message = text_out(self.inner.abi, |out, cap, len| unsafe {
            (self.inner.abi.last_error)(out, cap, len)
        })
        .unwrap_or_default();
        match status {
            abi::PANIC => message,
            abi::INVALID => format!("invalid input: {message}"),
            other => format!("status {other}: {message}"),
        }
    }

    /// Records the first failure, for [`Game::failure`].
    pub(super) fn fail(&self, message: String) {
        let mut failure = self.inner.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert(message);
    }

    /// `status` checked, a failure recorded.
    fn ok(&self, status: i32) -> bool {
        match self.status(status) {
            Ok(()) => true,
            Err(message) => {
                self.fail(message);
                false
            }
        }
    }

    /// Whether `state` has this game's size: another would make the
    /// library read or write out of bounds, so it is refused as a failure.
    pub(super) fn valid(&self, state: &[u64]) -> bool {
        let ok = state.len() == self.state_words();
        if !ok {
            self.fail(format!(
                "a state of {} words given to a game whose states have {}",
                state.len(),
                self.state_words()
            ));
        }
        ok
    }

    fn text(&self, f: impl Fn(*mut u8, usize, *mut usize) -> i32) -> String {
        text_out(self.inner.abi, f).unwrap_or_else(|e| {
            self.fail(e);
            String::new()
        })
    }
}

/// A text the library writes through `f(out, cap, len)`, retried once with
/// the length it asked for.
fn text_out(
    abi: &'static GameAbi,
    f: impl Fn(*mut u8, usize, *mut usize) -> i32,
) -> Result<String, String> {
    let mut buf = vec![0u8; 256];
    loop {
        let mut len = 0;
        match f(buf.as_mut_ptr(), buf.len(), &mut len) {
            abi::OK => {
                buf.truncate(len);
                return String::from_utf8(buf).map_err(|e| e.to_string());
            }
            abi::TOO_SMALL if len > buf.len() => buf.resize(len, 0),
            status => {
                let mut len = 0;
                let mut msg = vec![0u8; 1024];
                // SAFETY: a buffer of its length.
                let _ = unsafe { (abi.last_error)(msg.as_mut_ptr(), msg.len(), &mut len) };
                msg.truncate(len.min(1024));
                return Err(format!(
                    "status {status}: {}",
                    String::from_utf8_lossy(&msg)
                ));
            }
        }
    }
}

impl Game for LoadedGame {
    type State = LoadedState;

    fn num_roles(&self) -> usize {
        self.inner.roles.len()
    }

    fn role_name(&self, role: Role) -> &str {
        self.inner.roles.get(role).map_or("", String::as_str)
    }

    fn initial_state(&self) -> LoadedState {
        let mut words = vec![0u64; self.state_words()].into_boxed_slice();
        // SAFETY: a buffer of the game's state words.
        self.ok(unsafe { (self.inner.abi.initial)(words.as_mut_ptr()) });
        LoadedState(words)
    }

    fn legal_moves(&self, state: &LoadedState, role: Role, out: &mut Vec<Move>) {
        out.clear();
        if !self.valid(&state.0) {
            return;
        }
        let role = u32::try_from(role).unwrap_or(u32::MAX);
        loop {
            let mut len = 0;
            // SAFETY: Move is repr(transparent) over u32; `out` has room for
            // its capacity, and the library writes at most that many.
            let status = unsafe {
                (self.inner.abi.legal)(
                    state.0.as_ptr(),
                    role,
                    out.as_mut_ptr().cast::<u32>(),
                    out.capacity(),
                    &mut len,
                )
            };
            match status {
                // SAFETY: the library wrote `len` moves, within capacity.
                abi::OK => return unsafe { out.set_len(len) },
                abi::TOO_SMALL => out.reserve(len),
                other => {
                    self.ok(other);
                    return;
                }
            }
        }
    }

    fn is_terminal(&self, state: &LoadedState) -> bool {
        if !self.valid(&state.0) {
            return true;
        }
        let mut out = 1u8;
        // SAFETY: a state of the game's words.
        let ok = self.ok(unsafe { (self.inner.abi.terminal)(state.0.as_ptr(), &mut out) });
        !ok || out != 0
    }

    fn goal(&self, state: &LoadedState, role: Role) -> Goal {
        if !self.valid(&state.0) {
            return Goal::None;
        }
        let mut out = abi::GOAL_NONE;
        let role = u32::try_from(role).unwrap_or(u32::MAX);
        // SAFETY: a state of the game's words.
        if !self.ok(unsafe { (self.inner.abi.goal)(state.0.as_ptr(), role, &mut out) }) {
            return Goal::None;
        }
        match u8::try_from(out) {
            Ok(v) => Goal::Value(v),
            Err(_) if out == abi::GOAL_AMBIGUOUS => Goal::Ambiguous,
            Err(_) => Goal::None,
        }
    }

    fn apply_unchecked(&self, state: &mut LoadedState, joint: &[Move]) {
        if !self.valid(&state.0) {
            return;
        }
        // SAFETY: a state of the game's words; Move is repr(transparent).
        self.ok(unsafe {
            (self.inner.abi.apply)(state.0.as_mut_ptr(), joint.as_ptr().cast(), joint.len())
        });
    }

    fn move_text(&self, role: Role, mv: Move) -> String {
        let role = u32::try_from(role).unwrap_or(u32::MAX);
        // SAFETY: text out into a buffer the helper sizes.
        self.text(|out, cap, len| unsafe { (self.inner.abi.move_text)(role, mv.0, out, cap, len) })
    }

    fn fluents(&self, state: &LoadedState) -> Vec<String> {
        if !self.valid(&state.0) {
            return Vec::new();
        }
        // SAFETY: a state of the game's words; text out as above.
        let text = self.text(|out, cap, len| unsafe {
            (self.inner.abi.fluents)(state.0.as_ptr(), out, cap, len)
        });
        text.lines().map(str::to_owned).collect()
    }

    fn parse_move(&self, role: Role, text: &str) -> Result<Move, ParseError> {
        let role = u32::try_from(role).unwrap_or(u32::MAX);
        let mut mv = 0;
        // SAFETY: the text's bytes and length.
        let status =
            unsafe { (self.inner.abi.parse_move)(role, text.as_ptr(), text.len(), &mut mv) };
        self.status(status).map_err(ParseError::new)?;
        Ok(Move(mv))
    }

    fn parse_state(&self, text: &str) -> Result<LoadedState, ParseError> {
        let mut words = vec![0u64; self.state_words()].into_boxed_slice();
        // SAFETY: the text's bytes and length; a buffer of the state's words.
        let status =
            unsafe { (self.inner.abi.parse_state)(text.as_ptr(), text.len(), words.as_mut_ptr()) };
        self.status(status).map_err(ParseError::new)?;
        Ok(LoadedState(words))
    }

    fn native_playouts(
        &self,
        state: &LoadedState,
        budget: Budget,
        seed: u64,
        max_depth: usize,
    ) -> Option<PlayoutStats> {
        let depth = u64::try_from(max_depth).unwrap_or(u64::MAX);
        Some(self.batch(state, budget, seed, depth).unwrap_or_else(|e| {
            // Reported by `failure`, which drivers check.
            self.fail(e.to_string());
            PlayoutStats::new(self.num_roles())
        }))
    }

    fn failure(&self) -> Option<String> {
        let failure = self.inner.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.clone()
    }
}
