//! The player's logs: a JSON line per turn and a summary when a match ends,
//! written to `DIR/MATCH.jsonl` under `--log DIR` and always to stderr.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// One turn (START counts as turn 0), as logged.
#[derive(Clone, Debug, Default)]
pub struct TurnRecord {
    /// Turn number: 0 for START, then 1 for each PLAY.
    pub turn: u32,
    /// The reasoner that searched.
    pub reasoner: String,
    /// Simulations run this turn (all threads).
    pub simulations: u64,
    /// Nodes in the trees after the search (all threads).
    pub nodes: usize,
    /// Time searching.
    pub search: Duration,
    /// Time from the request to the reply being sent.
    pub time_used: Duration,
    /// The clock the reply had to meet.
    pub clock: Duration,
    /// The safety margin reserved before the clock.
    pub reserved: Duration,
    /// Measured: the stop signal to the reply sent.
    pub margin: Duration,
    /// The reply sent (a move, or `ready`).
    pub reply: String,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e4).round() / 10.0
}

/// A match's log and its running totals.
pub struct MatchLog {
    id: String,
    file: Option<File>,
    turns: u32,
    simulations: u64,
    /// Each PLAY turn's simulations, for their median: the mean is the
    /// start clock's search and the end game's (where the tree holds the
    /// rest of the game and simulations are cheap), not the middle's.
    play_simulations: Vec<u64>,
    worst_margin: Duration,
    late: u32,
    reasoners: Vec<String>,
    /// Turns replied to but not yet logged (their margin is measured once
    /// the reply is sent).
    pending: u32,
}

impl MatchLog {
    /// The log of match `id`, in `dir` if given (an unwritable directory is
    /// reported on stderr, never fatal).
    pub fn open(dir: Option<&Path>, id: &str) -> Self {
        let file = dir.and_then(|dir| {
            let safe: String = id
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{safe}.jsonl"));
            std::fs::create_dir_all(dir)
                .and_then(|()| File::options().create(true).append(true).open(&path))
                .map_err(|e| eprintln!("warning: cannot write the log {}: {e}", path.display()))
                .ok()
        });
        MatchLog {
            id: id.to_owned(),
            file,
            turns: 0,
            simulations: 0,
            play_simulations: Vec::new(),
            worst_margin: Duration::ZERO,
            late: 0,
            reasoners: Vec::new(),
            pending: 0,
        }
    }

    fn write(&mut self, value: Value) {
        let line = value.to_string();
        eprintln!("{line}");
        if let Some(file) = &mut self.file {
            let _ = writeln!(file, "{line}");
        }
    }

    /// Counts a turn whose reply is on its way, to be logged by
    /// [`MatchLog::turn`].
    pub fn expect_turn(&mut self) {
        self.pending += 1;
    }

    /// Whether every turn replied to has been logged.
    pub fn settled(&self) -> bool {
        self.pending == 0
    }

    /// Logs a turn.
    pub fn turn(&mut self, r: &TurnRecord) {
        self.pending = self.pending.saturating_sub(1);
        let late = r.time_used > r.clock;
        self.turns += u32::from(r.turn > 0);
        self.simulations += r.simulations;
        if r.turn > 0 {
            self.play_simulations.push(r.simulations);
        }
        self.worst_margin = self.worst_margin.max(r.margin);
        self.late += u32::from(late);
        if !self.reasoners.contains(&r.reasoner) {
            self.reasoners.push(r.reasoner.clone());
        }
        let secs = r.search.as_secs_f64();
        let rate = if secs > 0.0 {
            r.simulations as f64 / secs
        } else {
            0.0
        };
        self.write(json!({
            "match": self.id,
            "turn": r.turn,
            "reasoner": r.reasoner,
            "simulations": r.simulations,
            "nodes": r.nodes,
            "sims_per_sec": rate.round(),
            "search_ms": ms(r.search),
            "time_used_ms": ms(r.time_used),
            "clock_ms": ms(r.clock),
            "reserved_ms": ms(r.reserved),
            "margin_ms": ms(r.margin),
            "late": late,
            "reply": r.reply,
        }));
    }

    /// Logs a note (a reasoner switched, a move that could not be read).
    pub fn note(&mut self, what: &str) {
        self.write(json!({ "match": self.id, "note": what }));
    }

    /// Logs a step before a search that was skipped or deferred (`action`):
    /// what it would have done, its estimate and the time left before the
    /// search had to stop.
    pub fn step(
        &mut self,
        step: &str,
        action: &str,
        what: &str,
        estimate: Duration,
        stop: Instant,
    ) {
        let left = stop.saturating_duration_since(Instant::now());
        self.write(json!({
            "match": self.id,
            "step": step,
            "action": action,
            "detail": what,
            "estimate_ms": ms(estimate),
            "left_ms": ms(left),
        }));
    }

    /// Logs an event of the match's background work: `phase` is `propnet`
    /// or `compiled`; `event` is `started`, `joined` (the build PREVIEW
    /// started), `cached`, `ready`, `failed` or `cancelled`. Such a line may
    /// come after the summary: a build cancelled by STOP or ABORT says so
    /// when it has stopped.
    pub fn background(&mut self, phase: &str, event: &str, detail: &str, after: Duration) {
        self.write(json!({
            "match": self.id,
            "background": phase,
            "event": event,
            "detail": detail,
            "after_ms": ms(after),
        }));
    }

    /// Logs the summary when the match ends: `how` is `stop` or `abort`.
    pub fn summary(&mut self, how: &str, roles: &[String], goals: &[Option<u8>]) {
        let per_turn = self.simulations / u64::from(self.turns.max(1));
        let mut plays = self.play_simulations.clone();
        plays.sort_unstable();
        let median = plays.get(plays.len() / 2).copied().unwrap_or(0);
        let summary = json!({
            "match": self.id,
            "summary": how,
            "roles": roles,
            "goals": goals,
            "turns": self.turns,
            "simulations": self.simulations,
            "simulations_per_turn": per_turn,
            "median_simulations_per_play": median,
            "worst_margin_ms": ms(self.worst_margin),
            "late_replies": self.late,
            "reasoners": self.reasoners,
        });
        self.write(summary);
    }
}
