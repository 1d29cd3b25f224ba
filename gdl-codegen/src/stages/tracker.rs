//! The tracker of one compile: its observers, cancel token, deadline and
//! budgets per stage, installed for the thread that compiles.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Event, Observer, Stage};

/// A cancel token: clone it, hand a clone to another thread (a player's
/// clock, a loader dropping a compile it no longer wants), and
/// [`Cancel::cancel`] stops the compile at its next safe point.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not yet cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks the compile to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why a compile stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Its [`Cancel`] token was cancelled.
    Cancelled,
    /// The whole compile's deadline passed (the time it was given).
    Deadline(Duration),
    /// The stage ran over its own budget.
    StageBudget(Duration),
}

/// A compile stopped by its tracker: why, and in which stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted {
    /// The innermost stage open when it stopped, if any.
    pub stage: Option<Stage>,
    /// Why.
    pub reason: Reason,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let during = self
            .stage
            .map(|s| format!(" during {}", s.describe()))
            .unwrap_or_default();
        match self.reason {
            Reason::Cancelled => write!(f, "the compile was cancelled{during}"),
            Reason::Deadline(d) => write!(
                f,
                "the compile took more than its {:.1} s{during}",
                d.as_secs_f64()
            ),
            Reason::StageBudget(d) => write!(
                f,
                "{} took more than its budget of {:.1} s",
                self.stage.map_or("a stage", Stage::describe),
                d.as_secs_f64()
            ),
        }
    }
}

impl std::error::Error for Interrupted {}

/// One compile's observers and bounds. Cheap to clone (shared); used on the
/// thread that compiles.
#[derive(Clone, Default)]
pub struct Tracker(Rc<Inner>);

#[derive(Clone, Default)]
struct Inner {
    observers: Vec<Arc<dyn Observer>>,
    cancel: Cancel,
    deadline: Option<(Instant, Duration)>,
    budgets: Vec<(Stage, Duration)>,
    /// The open stages, innermost last: each with its start and its own
    /// deadline.
    open: RefCell<Vec<(Stage, Instant, Option<Instant>)>>,
    /// The first interruption seen, kept so that every later question gets
    /// the same answer.
    stopped: RefCell<Option<Interrupted>>,
}

thread_local! {
    static CURRENT: RefCell<Option<Tracker>> = const { RefCell::new(None) };
}

impl Tracker {
    /// A tracker with no observer and no bound.
    pub fn new() -> Tracker {
        Tracker::default()
    }

    /// The tracker's own copy to configure (a copy when it is shared).
    fn inner_mut(&mut self) -> &mut Inner {
        Rc::make_mut(&mut self.0)
    }

    /// Adds an observer of the stages' events.
    pub fn observe(mut self, observer: Arc<dyn Observer>) -> Tracker {
        self.inner_mut().observers.push(observer);
        self
    }

    /// Stops the compile once `token` is cancelled.
    pub fn cancel_with(mut self, token: Cancel) -> Tracker {
        self.inner_mut().cancel = token;
        self
    }

    /// Stops the compile `time` from now.
    pub fn within(mut self, time: Duration) -> Tracker {
        self.inner_mut().deadline = Some((Instant::now() + time, time));
        self
    }

    /// Stops the compile at `at`, or at the deadline it had if earlier.
    pub fn until(mut self, at: Instant) -> Tracker {
        let inner = self.inner_mut();
        if inner.deadline.is_none_or(|(d, _)| at < d) {
            let time = at.saturating_duration_since(Instant::now());
            inner.deadline = Some((at, time));
        }
        self
    }

    /// The tracker of the compile on this thread, if any: a caller that
    /// bounds its part of the compile further keeps its observers.
    pub fn current() -> Option<Tracker> {
        current()
    }

    /// Stops the compile when `stage` runs longer than `time`.
    pub fn budget(mut self, stage: Stage, time: Duration) -> Tracker {
        self.inner_mut().budgets.push((stage, time));
        self
    }

    /// Runs `f` with this tracker watching the stages it runs on this
    /// thread (the previous one, if any, is restored after).
    pub fn enter<T>(&self, f: impl FnOnce() -> T) -> T {
        struct Restore(Option<Tracker>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(previous);
        f()
    }

    /// Why the compile must stop, if it must: cancelled, past its
    /// deadline, or an open stage past its budget.
    pub fn interrupted(&self) -> Option<Interrupted> {
        if let Some(i) = *self.0.stopped.borrow() {
            return Some(i);
        }
        let open = self.0.open.borrow();
        let innermost = open.last().map(|o| o.0);
        let reason = if self.0.cancel.is_cancelled() {
            Some(Reason::Cancelled)
        } else if self.0.deadline.is_some() || open.iter().any(|o| o.2.is_some()) {
            let now = Instant::now();
            match self.0.deadline {
                Some((at, time)) if now > at => Some(Reason::Deadline(time)),
                _ => open
                    .iter()
                    .find(|o| o.2.is_some_and(|at| now > at))
                    .map(|o| Reason::StageBudget(self.budget_of(o.0).unwrap_or_default())),
            }
        } else {
            None
        };
        let stopped = reason.map(|reason| Interrupted {
            stage: innermost,
            reason,
        });
        *self.0.stopped.borrow_mut() = stopped;
        stopped
    }

    fn budget_of(&self, stage: Stage) -> Option<Duration> {
        self.0.budgets.iter().find(|b| b.0 == stage).map(|b| b.1)
    }

    fn start(&self, stage: Stage) {
        let now = Instant::now();
        let own = self.budget_of(stage).map(|b| now + b);
        let depth = {
            let mut open = self.0.open.borrow_mut();
            open.push((stage, now, own));
            open.len() - 1
        };
        self.tell(&Event::Start { stage, depth });
    }

    fn end(&self, stage: Stage) {
        // Asked before the stage leaves the open list, so that a stage over
        // its own budget is named.
        let interrupted = self.interrupted().is_some();
        let Some((_, started, _)) = self.0.open.borrow_mut().pop() else {
            return;
        };
        let depth = self.0.open.borrow().len();
        self.tell(&Event::End {
            stage,
            depth,
            elapsed: started.elapsed(),
            interrupted,
        });
    }

    fn tell(&self, event: &Event) {
        for o in &self.0.observers {
            o.event(event);
        }
    }
}

impl fmt::Debug for Tracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tracker")
            .field("observers", &self.0.observers.len())
            .field("deadline", &self.0.deadline.map(|d| d.1))
            .field("budgets", &self.0.budgets)
            .finish()
    }
}

fn current() -> Option<Tracker> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `f` as `stage`: the tracker of this thread, if any, times it and
/// tells its observers. Stages nest (the relaxed fixpoint inside planning).
pub fn stage<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    let Some(tracker) = current() else {
        return f();
    };
    tracker.start(stage);
    // Ended even when `f` unwinds, so observers never keep a stage open.
    struct End<'a>(&'a Tracker, Stage);
    impl Drop for End<'_> {
        fn drop(&mut self) {
            self.0.end(self.1);
        }
    }
    let _end = End(&tracker, stage);
    f()
}

/// Why the compile on this thread must stop, if it must (see
/// [`Tracker::interrupted`]); `None` without a tracker.
pub fn interrupted() -> Option<Interrupted> {
    CURRENT.with(|c| c.borrow().as_ref().and_then(Tracker::interrupted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Observer for Log {
        fn event(&self, event: &Event) {
            let line = match *event {
                Event::Start { stage, depth } => format!("start {} {depth}", stage.name()),
                Event::End {
                    stage,
                    depth,
                    interrupted,
                    ..
                } => format!("end {} {depth} {interrupted}", stage.name()),
            };
            self.0.lock().unwrap().push(line);
        }
    }

    #[test]
    fn observers_see_nested_stages_in_order() {
        let log = Arc::new(Log::default());
        let tracker = Tracker::new().observe(log.clone());
        let x = tracker.enter(|| stage(Stage::Plan, || stage(Stage::Fixpoint, || 7)));
        assert_eq!(x, 7);
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "start plan 0",
                "start fixpoint 1",
                "end fixpoint 1 false",
                "end plan 0 false"
            ]
        );
    }

    #[test]
    fn without_a_tracker_stages_only_run() {
        assert_eq!(stage(Stage::Check, || 3), 3);
        assert_eq!(interrupted(), None);
    }

    #[test]
    fn a_cancelled_token_interrupts_the_open_stage() {
        let token = Cancel::new();
        let tracker = Tracker::new().cancel_with(token.clone());
        let seen = tracker.enter(|| {
            stage(Stage::Sample, || {
                assert_eq!(interrupted(), None);
                token.cancel();
                interrupted()
            })
        });
        assert_eq!(
            seen,
            Some(Interrupted {
                stage: Some(Stage::Sample),
                reason: Reason::Cancelled
            })
        );
        // Outside `enter`, the tracker is gone.
        assert_eq!(interrupted(), None);
    }

    #[test]
    fn until_keeps_the_earlier_deadline() {
        let now = Instant::now();
        let later = now + Duration::from_secs(60);
        let tracker = Tracker::new().until(now).until(later);
        std::thread::sleep(Duration::from_millis(2));
        let reason = tracker.enter(|| interrupted().map(|i| i.reason));
        assert!(matches!(reason, Some(Reason::Deadline(_))), "{reason:?}");
        let tracker = Tracker::new()
            .until(later)
            .until(now + Duration::from_secs(120));
        assert_eq!(tracker.enter(interrupted), None);
    }

    #[test]
    fn deadlines_and_stage_budgets_interrupt() {
        let late = Tracker::new().within(Duration::ZERO);
        std::thread::sleep(Duration::from_millis(2));
        let reason = late.enter(|| interrupted().map(|i| i.reason));
        assert_eq!(reason, Some(Reason::Deadline(Duration::ZERO)));
        let tight = Tracker::new().budget(Stage::Print, Duration::ZERO);
        let seen = tight.enter(|| {
            let before = interrupted();
            let during = stage(Stage::Print, || {
                std::thread::sleep(Duration::from_millis(2));
                interrupted()
            });
            (before, during.map(|i| i.to_string()))
        });
        assert_eq!(seen.0, None);
        assert_eq!(
            seen.1.as_deref(),
            Some("printing the module took more than its budget of 0.0 s")
        );
    }
}
