//! The player's state: at most one match, and what each message does to it.
//!
//! Messages are handled on their connection's thread, so that INFO, ABORT or
//! a new PLAY are answered while a search runs. The match list is under one
//! short-held lock; a match's engine is under its own lock, held by the
//! search. A message that ends or supersedes a search raises its stop flag
//! first, then waits for the engine. STOP and ABORT also cancel the match's
//! background work (grounding, the compiled build and its cargo).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::builds::{Build, Source};
use super::engine::{Engine, SearchConfig};
use super::log::{MatchLog, TurnRecord};
use super::protocol::{self, Message};
use super::reasoners::{self, Reasoner};
use super::steps::Steps;
use super::timing::Margin;
use crate::host::loaded::LoadOptions;
use crate::stages::Cancel;

/// How the player plays.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// The reasoner to use (`auto`: the best available).
    pub reasoner: Reasoner,
    /// Threads, tree memory and seed of the search.
    pub search: SearchConfig,
    /// Where match logs go (`None`: stderr only).
    pub log_dir: Option<PathBuf>,
    /// How long past its last clock a silent match counts as vanished (its
    /// manager gone without STOP), so that a new START may replace it.
    pub vanish_grace: Duration,
    /// The compiled-game cache (default: see [`crate::store::locate`]).
    pub cache_dir: Option<PathBuf>,
}

impl Default for PlayerConfig {
    fn default() -> Self {
        PlayerConfig {
            reasoner: Reasoner::Auto,
            search: SearchConfig {
                threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
                tree_bytes: 1 << 30,
                seed: 1,
            },
            log_dir: None,
            vanish_grace: Duration::from_secs(5),
            cache_dir: None,
        }
    }
}

/// The reply to a message, and the turn to log once it is sent.
pub struct Reply {
    /// The reply's body.
    pub body: String,
    /// A searched turn, finished by [`Player::sent`].
    pub turn: Option<Turn>,
}

impl Reply {
    fn text(body: String) -> Self {
        Reply { body, turn: None }
    }
}

/// A turn whose reply is being sent.
pub struct Turn {
    record: TurnRecord,
    received: Instant,
    stopped: Instant,
    log: Arc<Mutex<MatchLog>>,
}

/// A match's engine, the moves played so far, and the steps before each
/// search (bounded by the time left).
struct Play {
    engine: Box<dyn Engine>,
    later: Option<Receiver<Box<dyn Engine>>>,
    history: Vec<Vec<String>>,
    steps: Steps,
}

/// The match being played.
struct Match {
    id: String,
    /// The rules (so that a PREVIEW of them starts no second build).
    rules: String,
    role: usize,
    play_clock: Duration,
    last_heard: Instant,
    last_clock: Duration,
    turn: u32,
    stop: Arc<AtomicBool>,
    /// Cancels the background work: grounding, the compiled build.
    background: Cancel,
    play: Arc<Mutex<Option<Play>>>,
    log: Arc<Mutex<MatchLog>>,
}

impl Match {
    /// Silent past its last clock and the grace: its manager is gone.
    fn vanished(&self, now: Instant, grace: Duration) -> bool {
        now > self.last_heard + self.last_clock + grace
    }
}

/// A GGP player: the state every connection's thread shares.
pub struct Player {
    config: PlayerConfig,
    current: Mutex<Option<Match>>,
    margin: Mutex<Margin>,
    /// The compiled build PREVIEW started, for a START of the same rules
    /// to join.
    warm: Mutex<Option<Arc<Build>>>,
}

/// Locks, carrying on past a thread that panicked holding the lock (the
/// data is still usable: every update is a plain assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(3600))
}

impl Player {
    /// A player with no match.
    pub fn new(config: PlayerConfig) -> Self {
        Player {
            config,
            current: Mutex::new(None),
            margin: Mutex::new(Margin::new()),
            warm: Mutex::new(None),
        }
    }

    /// The reply to `body`, received at `received` (the clocks run from
    /// there). Never panics on a bad message: it gets an error reply.
    pub fn handle(&self, body: &str, received: Instant) -> Reply {
        let message = match protocol::parse(body) {
            Ok(m) => m,
            Err(e) => return Reply::text(protocol::error_reply(&format!("bad message: {e}"))),
        };
        match message {
            Message::Info => Reply::text(protocol::info_reply(self.busy(received))),
            Message::Preview { rules, .. } => Reply::text(self.preview(&rules)),
            Message::Start {
                id,
                role,
                rules,
                start_clock,
                play_clock,
            } => {
                let clocks = (secs(start_clock), secs(play_clock));
                self.start(&id, &role, &rules, clocks, received)
            }
            Message::Play { id, moves } => self.play(&id, moves, received),
            Message::Stop { id, moves } => self.finish(&id, moves, "stop", received),
            Message::Abort { id } => self.finish(&id, None, "abort", received),
        }
    }

    /// PREVIEW: check the rules and, when matches use compiled code, start
    /// building it in the background (replying at once), so that the START
    /// of the same rules finds it built or joins the build.
    fn preview(&self, rules: &str) -> String {
        let fe = match reasoners::check(rules) {
            Ok(fe) => fe,
            Err(e) => return protocol::error_reply(&e),
        };
        if self.config.reasoner.uses_compiled() {
            self.warm_up(&fe.source.text);
        }
        "ready".to_owned()
    }

    /// How compiled games are loaded: niced, one cargo job (the defaults),
    /// in the configured cache.
    fn load_options(&self) -> LoadOptions {
        LoadOptions {
            cache_dir: self.config.cache_dir.clone(),
            ..LoadOptions::default()
        }
    }

    /// Starts the compiled build of `rules` unless it runs already or is
    /// cached; a build of other rules PREVIEW started is cancelled (one
    /// background build at a time, for the match most likely to come).
    fn warm_up(&self, rules: &str) {
        let mut warm = lock(&self.warm);
        if warm.as_ref().is_some_and(|b| b.rules() == rules) {
            return;
        }
        if lock(&self.current)
            .as_ref()
            .is_some_and(|m| m.rules == rules)
        {
            // The match on builds them already.
            return;
        }
        if let Some(old) = warm.take() {
            old.cancel();
        }
        let options = self.load_options();
        if !Build::is_cached(rules, &options) {
            *warm = Some(Build::start(rules, &options, Cancel::new()));
        }
    }

    /// The compiled game's source for a match on `rules`: PREVIEW's build
    /// if it is of these rules and still running, else a new build. Any
    /// other build PREVIEW started is cancelled: the match needs the cores.
    fn compiled_source(&self, rules: &str) -> Source {
        let joined = match lock(&self.warm).take() {
            Some(b) if b.rules() == rules && !b.is_done() => Some(b),
            Some(b) => {
                b.cancel();
                None
            }
            None => None,
        };
        Source::new(joined, self.load_options())
    }

    /// Whether a match is on (one that vanished does not count).
    fn busy(&self, now: Instant) -> bool {
        lock(&self.current)
            .as_ref()
            .is_some_and(|m| !m.vanished(now, self.config.vanish_grace))
    }

    fn unknown(id: &str, current: Option<&Match>) -> Reply {
        let now = current.map_or("no match is on".to_owned(), |m| {
            format!("the match on is {}", m.id)
        });
        Reply::text(protocol::error_reply(&format!(
            "unknown match id {id}; {now}"
        )))
    }

    /// START: reserve the match, check the rules, prepare an engine, search
    /// until the start clock less the margin, reply `ready`.
    fn start(
        &self,
        id: &str,
        role: &str,
        rules: &str,
        clocks: (Duration, Duration),
        received: Instant,
    ) -> Reply {
        // The engine's lock is held until it is in place: a PLAY that comes
        // early waits for it instead of finding no engine.
        let slot = Arc::new(Mutex::new(None));
        let mut guard = lock(&slot);
        let stop = Arc::new(AtomicBool::new(false));
        let Some(log) = self.reserve(id, rules, clocks, received, &slot, &stop) else {
            return Reply::text("busy".to_owned());
        };
        let reserve = lock(&self.margin).reserve_within(clocks.0);
        let stop_at = (received + clocks.0)
            .checked_sub(reserve)
            .unwrap_or(received);
        let (prepared, role_index) = match self.engine_for(rules, role, stop_at, &log) {
            Ok(p) => p,
            Err(e) => {
                self.forget(id, &stop);
                return Reply::text(protocol::error_reply(&e));
            }
        };
        if !self.adopt_background(&stop, role_index, &prepared.background) {
            // STOP or ABORT came during the preparation: nothing may keep
            // building for a match that is over.
            prepared.background.cancel();
        }
        let play = guard.insert(Play {
            engine: prepared.now,
            later: prepared.later,
            history: Vec::new(),
            steps: Steps::new(),
        });
        let timing = (received, clocks.0, reserve);
        let turn = search_turn(play, role_index, 0, Some("ready"), timing, &stop, &log);
        Reply {
            body: "ready".to_owned(),
            turn: Some(turn),
        }
    }

    /// Makes match `id` the current one, unless another is on and has not
    /// vanished (`None`: busy); its log.
    fn reserve(
        &self,
        id: &str,
        rules: &str,
        (start_clock, play_clock): (Duration, Duration),
        received: Instant,
        slot: &Arc<Mutex<Option<Play>>>,
        stop: &Arc<AtomicBool>,
    ) -> Option<Arc<Mutex<MatchLog>>> {
        let mut current = lock(&self.current);
        if let Some(m) = current.as_ref() {
            if !m.vanished(received, self.config.vanish_grace) {
                return None;
            }
            m.stop.store(true, Ordering::Relaxed);
            m.background.cancel();
            let silent = m.last_heard.elapsed().as_secs_f64();
            lock(&m.log).note(&format!("dropped: silent for {silent:.1} s"));
        }
        let log = MatchLog::open(self.config.log_dir.as_deref(), id);
        let log = Arc::new(Mutex::new(log));
        *current = Some(Match {
            id: id.to_owned(),
            rules: rules.to_owned(),
            role: 0,
            play_clock,
            last_heard: received,
            last_clock: start_clock,
            turn: 0,
            stop: stop.clone(),
            background: Cancel::new(),
            play: slot.clone(),
            log: log.clone(),
        });
        Some(log)
    }

    /// Checks the rules and prepares an engine by `deadline`; the index of
    /// `role` in it.
    fn engine_for(
        &self,
        rules: &str,
        role: &str,
        deadline: Instant,
        log: &Arc<Mutex<MatchLog>>,
    ) -> Result<(reasoners::Prepared, usize), String> {
        let fe = reasoners::check(rules)?;
        let compiled = self.compiled_source(&fe.source.text);
        let config = &self.config;
        let prepared =
            reasoners::prepare(fe, config.reasoner, config.search, deadline, compiled, log)?;
        match prepared.now.role_index(role) {
            Some(r) => Ok((prepared, r)),
            None => {
                prepared.background.cancel();
                Err(format!(
                    "no role {role} in the rules (roles: {})",
                    prepared.now.role_names().join(" ")
                ))
            }
        }
    }

    /// Records the role and the background's token in the match reserved
    /// with `stop`; whether it is still the current one.
    fn adopt_background(&self, stop: &Arc<AtomicBool>, role: usize, background: &Cancel) -> bool {
        let mut current = lock(&self.current);
        let Some(m) = current.as_mut().filter(|m| Arc::ptr_eq(&m.stop, stop)) else {
            return false;
        };
        m.role = role;
        m.background = background.clone();
        true
    }

    /// Drops the match reserved with `stop`, if it is still the current one.
    fn forget(&self, id: &str, stop: &Arc<AtomicBool>) {
        let mut current = lock(&self.current);
        if current
            .as_ref()
            .is_some_and(|m| m.id == id && Arc::ptr_eq(&m.stop, stop))
        {
            *current = None;
        }
    }

    /// PLAY: supersede a running search, adopt the joint move, search until
    /// the play clock less the margin, reply the best move.
    fn play(&self, id: &str, moves: Option<Vec<String>>, received: Instant) -> Reply {
        let stop = Arc::new(AtomicBool::new(false));
        let (slot, log, role, clock, turn) = {
            let mut current = lock(&self.current);
            let Some(m) = current.as_mut().filter(|m| m.id.eq_ignore_ascii_case(id)) else {
                return Self::unknown(id, current.as_ref());
            };
            m.stop.store(true, Ordering::Relaxed);
            m.stop = stop.clone();
            m.last_heard = received;
            m.last_clock = m.play_clock;
            m.turn += 1;
            (m.play.clone(), m.log.clone(), m.role, m.play_clock, m.turn)
        };
        let reserve = lock(&self.margin).reserve_within(clock);
        let mut guard = lock(&slot);
        let Some(play) = guard.as_mut() else {
            return Reply::text(protocol::error_reply("the match was not started"));
        };
        let stop_at = stop_time(received, clock, reserve);
        let later = play.later.as_ref();
        play.steps
            .switch(&mut play.engine, later, &play.history, stop_at, &log);
        if let Some(joint) = moves {
            if let Err(e) = play.steps.adopt(&mut *play.engine, &joint, stop_at, &log) {
                lock(&log).note(&format!("cannot play the reported moves: {e}"));
            } else {
                play.history.push(joint);
            }
        }
        let mut turn = search_turn(
            play,
            role,
            turn,
            None,
            (received, clock, reserve),
            &stop,
            &log,
        );
        if turn.record.reply.is_empty() {
            // No legal move known (a terminal state, or a reasoner that gave
            // up): any reply beats none.
            turn.record.reply = "noop".to_owned();
        }
        Reply {
            body: turn.record.reply.clone(),
            turn: Some(turn),
        }
    }

    /// STOP or ABORT: free the match, log its summary.
    fn finish(&self, id: &str, moves: Option<Vec<String>>, how: &str, received: Instant) -> Reply {
        let m = {
            let mut current = lock(&self.current);
            match current.take_if(|m| m.id.eq_ignore_ascii_case(id)) {
                Some(m) => m,
                None => return Self::unknown(id, current.as_ref()),
            }
        };
        m.stop.store(true, Ordering::Relaxed);
        // The match is over: its grounding and compiled build stop too
        // (cargo killed with its process group).
        m.background.cancel();
        // Wait for the search to end only as long as the margin allows: an
        // ABORT is answered at once whatever the engine is doing.
        let deadline = received + lock(&self.margin).reserve();
        let (roles, goals) = final_goals(&m, moves, deadline);
        wait_for_turn_logs(&m.log);
        lock(&m.log).summary(how, &roles, &goals);
        Reply::text(if how == "stop" { "done" } else { "aborted" }.to_owned())
    }

    /// After a turn's reply was sent at `sent`: records the measured margin
    /// and logs the turn.
    pub fn sent(&self, turn: Turn, sent: Instant) {
        let mut record = turn.record;
        record.margin = sent.saturating_duration_since(turn.stopped);
        record.time_used = sent.saturating_duration_since(turn.received);
        lock(&self.margin).record(record.margin);
        lock(&turn.log).turn(&record);
    }
}

/// The roles and goals after the last moves, if the engine is free
/// before `deadline` (else none: the reply must not wait).
fn final_goals(
    m: &Match,
    moves: Option<Vec<String>>,
    deadline: Instant,
) -> (Vec<String>, Vec<Option<u8>>) {
    let mut guard = loop {
        if let Ok(g) = m.play.try_lock() {
            break g;
        }
        if Instant::now() > deadline {
            return (Vec::new(), Vec::new());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let Some(play) = guard.as_mut() else {
        return (Vec::new(), Vec::new());
    };
    if let Some(joint) = moves {
        // No search follows: the trees restart rather than compact (cheap
        // whatever their size), so that the reply does not wait.
        if let Err(e) = play.engine.restart(&joint) {
            lock(&m.log).note(&format!("cannot play the last moves: {e}"));
        }
    }
    (play.engine.role_names(), play.engine.goals())
}

/// Waits a little for the last turn's line, written just after its reply
/// was sent, so that the summary comes last in the log.
fn wait_for_turn_logs(log: &Mutex<MatchLog>) {
    let until = Instant::now() + Duration::from_millis(200);
    while !lock(log).settled() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// When a search must stop: the clock from `received`, less the reserve.
fn stop_time(received: Instant, clock: Duration, reserve: Duration) -> Instant {
    (received + clock).checked_sub(reserve).unwrap_or(received)
}

/// Searches until the clock less the reserve (or `stop`), and the turn's
/// record with `reply` (`None`: the best move found, empty if none).
fn search_turn(
    play: &mut Play,
    role: usize,
    turn: u32,
    reply: Option<&str>,
    (received, clock, reserve): (Instant, Duration, Duration),
    stop: &AtomicBool,
    log: &Arc<Mutex<MatchLog>>,
) -> Turn {
    let stop_at = stop_time(received, clock, reserve);
    let began = Instant::now();
    // The start clock's search switches to a better engine the moment it
    // arrives (the compiled game found in the cache, or built since
    // PREVIEW): with no move played yet, the switch costs nothing, and the
    // PLAY that would switch otherwise drops the start clock's tree.
    let report = match turn {
        0 => play.steps.search_switching(
            &mut play.engine,
            play.later.as_ref(),
            &play.history,
            (stop_at, stop),
            log,
        ),
        _ => play.engine.search(stop_at, stop),
    };
    let ended = Instant::now();
    if let Some(why) = play.engine.failure() {
        lock(log).note(&format!("{} gave up: {why}", play.engine.reasoner()));
    }
    lock(log).expect_turn();
    let reply = match reply {
        Some(r) => r.to_owned(),
        None => play.engine.best_move(role).unwrap_or_default(),
    };
    Turn {
        record: TurnRecord {
            turn,
            reasoner: play.engine.reasoner().to_owned(),
            simulations: report.simulations,
            nodes: report.nodes,
            search: ended - began,
            clock,
            reserved: reserve,
            reply,
            ..TurnRecord::default()
        },
        received,
        // The stop signal came when the search began if the reserve left
        // it no time (`stop_at` before it): measured from `stop_at`, the
        // margin would count the reserve itself, and grow turn after turn
        // (a reserve longer than the clock doubling at each).
        stopped: stop_at.max(began).min(ended),
        log: log.clone(),
    }
}
