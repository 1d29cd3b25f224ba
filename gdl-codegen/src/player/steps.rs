//! The steps before a search, each bounded by the time left: switching to
//! a better engine that arrived (replaying the match on it) and adopting
//! the reported joint move (re-rooting the trees and, once they pass half
//! their cap, compacting them).
//!
//! Each step's duration is estimated from its size and the rate measured
//! the last times it ran (a compaction's also from the time its size took
//! to count), and checked before it starts: a step may take at
//! most half the time left before the search must stop, so that the search
//! keeps the rest. A switch that does not fit is deferred (the engine is
//! kept, and the next turn asks again); a compaction that does not fit is
//! deferred too: the trees move their root in place, keeping every node
//! (restarting them dropped the start clock's search at the first move).
//! Adopting the move itself is never skipped (the state must follow the
//! match). Each deferral is a log line.
//!
//! The start clock's search is the one search a better engine may end early
//! ([`Steps::search_switching`]): no move is played yet, so a switch costs
//! only the search done so far.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::engine::{Engine, SearchReport};
use super::log::MatchLog;

/// The first guess of one replayed move (an interpreter's step, generous).
const FIRST_PER_MOVE: Duration = Duration::from_millis(1);

/// The first guess of compacting one kept node (copying it, its state and
/// its edges, and its table entry): 1.2-1.7 µs measured on breakthrough's
/// 30-move nodes under load, where 200 ns made the first compaction of a
/// match (900 K nodes kept) 1.6 s on a 1 s clock.
const FIRST_PER_NODE: Duration = Duration::from_micros(1);

/// A compaction costs at least this many times the walk that counted the
/// nodes it keeps: 1.8-5.0 times measured on connect four and breakthrough
/// (`examples/uct_rate`, 3 s turns). The walk reads the nodes the copy
/// will, now: under load or memory pressure it slows as the compaction
/// will, where the rate measured turns before does not (on CI a 1.4 M-node
/// compaction took 3.8 s; here a million take about 0.4 s).
const WALK_TO_COMPACT: u32 = 4;

/// How often the start clock's search looks for a better engine. A compiled
/// game found in the cache arrives milliseconds after the propnet; searched
/// in one piece, the start clock went to the propnet (a tree of 1.3 M
/// simulations on connect four, dropped at the first PLAY's switch), and the
/// opponent kept the better-searched opening. A quarter of a second loses
/// little of a start clock and costs a thread spawn per slice.
const START_SLICE: Duration = Duration::from_millis(250);

/// The steps' measured rates, and an engine whose switch was deferred.
pub struct Steps {
    per_move: Duration,
    per_node: Duration,
    pending: Option<Box<dyn Engine>>,
}

impl Default for Steps {
    fn default() -> Self {
        Steps::new()
    }
}

/// The time a step may take before `stop_at`: half the time left, the
/// other half kept for the search.
fn room(stop_at: Instant) -> Duration {
    stop_at.saturating_duration_since(Instant::now()) / 2
}

/// Whether a step estimated at `estimate` fits before `stop_at` (within
/// its [`room`]).
pub fn fits(estimate: Duration, stop_at: Instant) -> bool {
    estimate <= room(stop_at)
}

/// A rate after a measurement: a slower one at once, a faster one halfway
/// (one fast run does not make the next estimate optimistic).
fn update(rate: Duration, measured: Duration) -> Duration {
    if measured > rate {
        measured
    } else {
        (rate + measured) / 2
    }
}

impl Steps {
    /// No measurement yet, no engine waiting.
    pub fn new() -> Steps {
        Steps {
            per_move: FIRST_PER_MOVE,
            per_node: FIRST_PER_NODE,
            pending: None,
        }
    }

    /// Switches `engine` to the newest engine that arrived on `later` (or
    /// the one deferred before), replaying `history` on it, if that fits
    /// before `stop_at`; else keeps it for a later turn.
    pub fn switch(
        &mut self,
        engine: &mut Box<dyn Engine>,
        later: Option<&Receiver<Box<dyn Engine>>>,
        history: &[Vec<String>],
        stop_at: Instant,
        log: &Mutex<MatchLog>,
    ) {
        self.collect(later);
        let Some(next) = self.pending.take() else {
            return;
        };
        let estimate = self.per_move * history.len() as u32;
        if !fits(estimate, stop_at) {
            let what = format!(
                "replaying {} moves on the {}",
                history.len(),
                next.reasoner()
            );
            lock(log).step("switch", "deferred", &what, estimate, stop_at);
            self.pending = Some(next);
            return;
        }
        let began = Instant::now();
        if let Some(next) = replay(next, history, log) {
            if !history.is_empty() {
                self.per_move = update(self.per_move, began.elapsed() / history.len() as u32);
            }
            let note = format!("switched from {} to {}", engine.reasoner(), next.reasoner());
            lock(log).note(&note);
            *engine = next;
        }
    }

    /// Keeps the newest engine that arrived on `later` (the best: the
    /// compiled game comes after the propnet); whether more may come.
    fn collect(&mut self, later: Option<&Receiver<Box<dyn Engine>>>) -> bool {
        let Some(later) = later else {
            return false;
        };
        loop {
            match later.try_recv() {
                Ok(next) => self.pending = Some(next),
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
    }

    /// Searches until `stop_at` (or `stop`), switching to a better engine
    /// as soon as one arrives on `later` (looked for every
    /// [`START_SLICE`] while more may come); the simulations of every
    /// engine that searched, the nodes of the last.
    pub fn search_switching(
        &mut self,
        engine: &mut Box<dyn Engine>,
        later: Option<&Receiver<Box<dyn Engine>>>,
        history: &[Vec<String>],
        (stop_at, stop): (Instant, &AtomicBool),
        log: &Mutex<MatchLog>,
    ) -> SearchReport {
        let mut total = SearchReport::default();
        loop {
            let more = self.collect(later);
            self.switch(engine, None, history, stop_at, log);
            let until = match more {
                true => stop_at.min(Instant::now() + START_SLICE),
                false => stop_at,
            };
            let report = engine.search(until, stop);
            total.simulations += report.simulations;
            total.nodes = report.nodes;
            if until >= stop_at || stop.load(Ordering::Relaxed) {
                return total;
            }
        }
    }

    /// How many nodes a compaction may keep and still fit before
    /// `stop_at`, at the measured rate.
    fn nodes_that_fit(&self, stop_at: Instant) -> usize {
        let nodes = room(stop_at).as_nanos() / self.per_node.as_nanos().max(1);
        nodes.min(usize::MAX as u128) as usize
    }

    /// Plays `joint` on `engine`: the trees re-rooted, and compacted if
    /// one is due and fits before `stop_at` (its cost follows the nodes it
    /// keeps); else they re-root in place and compact on a later turn.
    pub fn adopt(
        &mut self,
        engine: &mut dyn Engine,
        joint: &[String],
        stop_at: Instant,
        log: &Mutex<MatchLog>,
    ) -> Result<(), String> {
        let walked = Instant::now();
        let kept = engine.kept_by(joint, self.nodes_that_fit(stop_at))?;
        let estimate = (self.per_node * kept.min(u32::MAX as usize) as u32)
            .max(walked.elapsed() * WALK_TO_COMPACT);
        if kept > 0 && !fits(estimate, stop_at) {
            let what = format!("compacting to {kept} nodes (the trees move their root in place)");
            lock(log).step("compact", "deferred", &what, estimate, stop_at);
            return engine.advance_in_place(joint);
        }
        let began = Instant::now();
        engine.advance(joint)?;
        if kept > 0 {
            self.per_node = update(self.per_node, began.elapsed() / kept as u32);
        }
        Ok(())
    }
}

/// `engine` with the match's moves played, or `None` (logged) if one of
/// them cannot be.
fn replay(
    mut engine: Box<dyn Engine>,
    history: &[Vec<String>],
    log: &Mutex<MatchLog>,
) -> Option<Box<dyn Engine>> {
    for joint in history {
        if let Err(e) = engine.advance(joint) {
            let note = format!("{} cannot replay the match: {e}", engine.reasoner());
            lock(log).note(&note);
            return None;
        }
    }
    Some(engine)
}

fn lock(log: &Mutex<MatchLog>) -> std::sync::MutexGuard<'_, MatchLog> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_fits_in_half_the_time_left() {
        let later = Instant::now() + Duration::from_secs(10);
        assert!(fits(Duration::from_secs(1), later));
        assert!(!fits(Duration::from_secs(6), later));
        assert!(!fits(Duration::from_nanos(1), Instant::now()));
        assert!(fits(Duration::ZERO, Instant::now()));
    }

    fn nim(name: &str) -> Box<dyn Engine> {
        nim_within(name, 1 << 20)
    }

    /// Nim searched by trees of at most `tree_bytes`.
    fn nim_within(name: &str, tree_bytes: usize) -> Box<dyn Engine> {
        use crate::player::engine::{SearchConfig, UctEngine};
        let rules = "(role a) (role b) (init (sticks 3)) (init (control a))
            (succ 0 1) (succ 1 2) (succ 2 3)
            (<= (legal ?p take) (true (control ?p)))
            (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
            (<= (next (sticks ?m)) (does ?p take) (true (sticks ?k)) (succ ?m ?k))
            (<= (next (control b)) (true (control a)))
            (<= (next (control a)) (true (control b)))
            (<= terminal (true (sticks 0)))
            (<= (goal ?p 100) (true (control ?p)) (true (sticks 0)))
            (<= (goal ?p 0) (role ?p) (not (true (control ?p))))";
        let fe = crate::front::run_bytes("nim", rules.as_bytes(), &Default::default());
        let game = crate::reasoner::interp::Interpreter::new(&fe.program).unwrap();
        let config = SearchConfig {
            threads: 1,
            tree_bytes,
            seed: 1,
        };
        Box::new(UctEngine::new(name, game, config))
    }

    #[test]
    fn a_switch_that_does_not_fit_is_deferred_then_done() {
        let log = Mutex::new(MatchLog::open(None, "steps"));
        let mut steps = Steps::new();
        let mut engine = nim("first");
        let history = vec![vec!["take".to_owned(), "noop".to_owned()]];
        engine.advance(&history[0]).unwrap();
        let (send, later) = std::sync::mpsc::channel();
        send.send(nim("next")).unwrap();
        steps.switch(&mut engine, Some(&later), &history, Instant::now(), &log);
        assert_eq!(engine.reasoner(), "first", "no time left: deferred");
        let plenty = Instant::now() + Duration::from_secs(60);
        steps.switch(&mut engine, Some(&later), &history, plenty, &log);
        assert_eq!(engine.reasoner(), "next", "the deferred engine, kept");
        assert_eq!(engine.best_move(1).as_deref(), Some("take"), "replayed");
    }

    #[test]
    fn the_start_search_switches_to_an_engine_that_arrives_during_it() {
        let log = Mutex::new(MatchLog::open(None, "steps"));
        let mut steps = Steps::new();
        let mut engine = nim("first");
        let (send, later) = std::sync::mpsc::channel();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            send.send(nim("next")).unwrap();
        });
        let never = AtomicBool::new(false);
        let stop_at = Instant::now() + START_SLICE * 3;
        let report =
            steps.search_switching(&mut engine, Some(&later), &[], (stop_at, &never), &log);
        sender.join().unwrap();
        assert_eq!(
            engine.reasoner(),
            "next",
            "switched before the clock ran out"
        );
        assert!(Instant::now() >= stop_at, "the search went on to the clock");
        assert!(report.simulations > 0);
        assert!(engine.nodes() > 1, "the new engine searched");
    }

    #[test]
    fn a_compaction_that_does_not_fit_is_deferred_and_the_tree_kept() {
        let log = Mutex::new(MatchLog::open(None, "steps"));
        let mut steps = Steps::new();
        // A cap the search fills: a move of the root compacts the tree.
        let mut engine = nim_within("e", 1 << 10);
        let never = std::sync::atomic::AtomicBool::new(false);
        engine.search(Instant::now() + Duration::from_millis(50), &never);
        let joint = ["take".to_owned(), "noop".to_owned()];
        assert!(engine.kept_by(&joint, usize::MAX).unwrap() > 1);
        let before = engine.nodes();
        steps
            .adopt(&mut *engine, &joint, Instant::now(), &log)
            .unwrap();
        assert_eq!(engine.nodes(), before, "every node kept");
        assert_eq!(engine.best_move(1).as_deref(), Some("take"), "b to move");
        let joint = ["noop".to_owned(), "take".to_owned()];
        let plenty = Instant::now() + Duration::from_secs(60);
        steps.adopt(&mut *engine, &joint, plenty, &log).unwrap();
        assert!(engine.nodes() < before, "compacted when it fits");
    }

    #[test]
    fn rates_follow_slower_runs_at_once_and_faster_ones_halfway() {
        let ms = Duration::from_millis;
        assert_eq!(update(ms(2), ms(6)), ms(6));
        assert_eq!(update(ms(6), ms(2)), ms(4));
    }
}
