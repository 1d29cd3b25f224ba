//! What the CLI shows of a compile while it runs: the stages as progress
//! lines with their elapsed time on a terminal, and the `--timings` table
//! (both observers of [`gdl_codegen::stages`]).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use gdl_codegen::stages::{Event, Observer, Stage, Timings, Tracker};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The flags of what a compile shows.
#[derive(Args, Debug, Clone, Default)]
pub struct WatchArgs {
    /// Print the wall time of each stage of the compile (check, ground,
    /// fixpoint, guards, sample, plan, print, format, build) to standard
    /// error once the game is compiled.
    #[arg(long)]
    pub timings: bool,
    /// Show no progress and no notes on standard error (diagnostics and
    /// errors still).
    #[arg(long, short)]
    pub quiet: bool,
}

/// Whether the stages are shown as progress lines: only on a terminal, and
/// never with `--quiet` (a pipe or a log file gets no control characters).
pub fn shows_progress(terminal: bool, quiet: bool) -> bool {
    terminal && !quiet
}

/// The tracker of one command's compile, with the observers its flags ask for.
pub struct Watch {
    tracker: Tracker,
    timings: Option<Arc<Timings>>,
    quiet: bool,
}

impl WatchArgs {
    /// A watch for a compile starting now.
    pub fn watch(&self) -> Watch {
        let mut tracker = Tracker::new();
        let timings = self.timings.then(|| Arc::new(Timings::new()));
        if let Some(t) = &timings {
            tracker = tracker.observe(t.clone());
        }
        if shows_progress(std::io::stderr().is_terminal(), self.quiet) {
            tracker = tracker.observe(Arc::new(Progress::new()));
        }
        Watch {
            tracker,
            timings,
            quiet: self.quiet,
        }
    }
}

impl Watch {
    /// Runs `f` (part of the compile) with the stages it runs watched.
    pub fn enter<T>(&self, f: impl FnOnce() -> T) -> T {
        self.tracker.enter(f)
    }

    /// Prints the timings table, if asked for, to standard error.
    pub fn report(&self) {
        if let Some(t) = &self.timings {
            eprint!("timings:\n{}", t.table());
        }
    }

    /// Prints a note unless `--quiet`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("note: {text}");
        }
    }
}

/// Spinner lines on standard error, one a stage: its description and
/// elapsed time while it runs, its time once done.
struct Progress {
    lines: MultiProgress,
    open: Mutex<Vec<ProgressBar>>,
}

/// How often a running stage's elapsed time is redrawn.
const TICK: Duration = Duration::from_millis(100);

impl Progress {
    fn new() -> Progress {
        Progress {
            lines: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
            open: Mutex::new(Vec::new()),
        }
    }

    fn started(&self, stage: Stage, depth: usize) {
        let style = ProgressStyle::with_template("{prefix}{spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = self.lines.add(
            ProgressBar::new_spinner()
                .with_style(style)
                .with_prefix("  ".repeat(depth))
                .with_message(stage.describe()),
        );
        bar.enable_steady_tick(TICK);
        if let Ok(mut open) = self.open.lock() {
            open.push(bar);
        }
    }

    fn ended(&self, stage: Stage, elapsed: Duration, interrupted: bool) {
        let Some(bar) = self.open.lock().ok().and_then(|mut open| open.pop()) else {
            return;
        };
        let done = ProgressStyle::with_template("{prefix}{msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(done);
        let mark = if interrupted { "stopped" } else { "done" };
        bar.finish_with_message(format!(
            "{} {mark} in {:.1} s",
            stage.describe(),
            elapsed.as_secs_f64()
        ));
    }
}

impl Observer for Progress {
    fn event(&self, event: &Event) {
        match *event {
            Event::Start { stage, depth } => self.started(stage, depth),
            Event::End {
                stage,
                elapsed,
                interrupted,
                ..
            } => self.ended(stage, elapsed, interrupted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_only_on_a_terminal_without_quiet() {
        assert!(shows_progress(true, false));
        assert!(!shows_progress(true, true));
        assert!(!shows_progress(false, false));
        assert!(!shows_progress(false, true));
    }
}
