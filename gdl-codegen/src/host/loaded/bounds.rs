//! The bounds of a load: its cancel token and deadline, installed as the
//! stage API's tracker over the whole pipeline (check, ground, plan, print,
//! then cargo), so that one cancellation stops whichever part is running at
//! its next safe point; and the interruptions as [`LoadError`]s.

use super::{LoadError, LoadOptions};
use crate::session::CodegenError;
use crate::stages::{self, Interrupted, Reason, Tracker};

/// Runs `f` (a load) bounded by the options' cancel token and deadline.
/// Without either, `f` runs under the tracker already on this thread, if
/// any (the CLI's, which watches the compile); with them, under a tracker
/// that keeps that one's observers and replaces its bounds.
pub(super) fn within<T>(
    options: &LoadOptions,
    f: impl FnOnce() -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    if options.cancel.is_none() && options.deadline.is_none() {
        return f();
    }
    let mut tracker = Tracker::current().unwrap_or_default();
    if let Some(cancel) = &options.cancel {
        tracker = tracker.cancel_with(cancel.clone());
    }
    if let Some(at) = options.deadline {
        tracker = tracker.until(at);
    }
    tracker.enter(f)
}

/// Why the load must stop now, if it must: asked while cargo runs, between
/// the compiler's own safe points.
pub(super) fn stop() -> Option<LoadError> {
    stages::interrupted().map(LoadError::from)
}

impl From<Interrupted> for LoadError {
    fn from(i: Interrupted) -> Self {
        match i.reason {
            Reason::Cancelled => LoadError::Cancelled,
            Reason::Deadline(_) => LoadError::Deadline,
            // A stage budget of an enclosing tracker: its own message.
            Reason::StageBudget(_) => LoadError::Codegen(CodegenError::Interrupted(i)),
        }
    }
}
