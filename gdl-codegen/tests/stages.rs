//! The stages of a compile as a caller sees them: observers told of each
//! stage in order, and a compile stopped by its cancel token or deadline
//! with an error naming the stage, never a module.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gdl_codegen::session::{Backend, CodegenError, CodegenOptions, Session};
use gdl_codegen::stages::{Cancel, Event, Observer, Reason, Stage, Tracker};

fn tictactoe() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/games/tictactoe.kif")
}

fn options(backend: Backend) -> CodegenOptions {
    CodegenOptions {
        backend,
        ..CodegenOptions::default()
    }
}

/// Records the top-level stages as they end; cancels `cancel` when `at`
/// starts.
#[derive(Default)]
struct Watcher {
    ended: Mutex<Vec<(Stage, usize)>>,
    cancel_at: Option<(Stage, Cancel)>,
}

impl Observer for Watcher {
    fn event(&self, event: &Event) {
        match *event {
            Event::Start { stage, .. } => {
                if let Some((at, cancel)) = &self.cancel_at {
                    if *at == stage {
                        cancel.cancel();
                    }
                }
            }
            Event::End { stage, depth, .. } => self.ended.lock().unwrap().push((stage, depth)),
        }
    }
}

#[test]
fn observers_see_every_stage_of_a_ground_compile_in_order() {
    let watcher = Arc::new(Watcher::default());
    let tracker = Tracker::new().observe(watcher.clone());
    let code = tracker.enter(|| {
        Session::open(&tictactoe(), options(Backend::Auto))
            .and_then(|s| s.code())
            .expect("compiles")
    });
    assert!(code.contains("impl ::gdl_runtime::Game for"));
    let top: Vec<Stage> = watcher
        .ended
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.1 == 0)
        .map(|e| e.0)
        .collect();
    assert_eq!(
        top,
        [
            Stage::Check,
            Stage::Ground,
            Stage::Plan,
            Stage::Print,
            Stage::Format
        ]
    );
    // The relaxed fixpoint is timed inside the grounding.
    assert!(watcher
        .ended
        .lock()
        .unwrap()
        .contains(&(Stage::Fixpoint, 1)));
}

#[test]
fn the_lifted_back_ends_fixpoint_samples_and_joins_are_stages_of_its_plan() {
    let watcher = Arc::new(Watcher::default());
    let tracker = Tracker::new().observe(watcher.clone());
    tracker.enter(|| {
        Session::open(&tictactoe(), options(Backend::Lifted))
            .and_then(|s| s.code())
            .expect("compiles")
    });
    let ended = watcher.ended.lock().unwrap().clone();
    for inner in [
        Stage::Fixpoint,
        Stage::Guards,
        Stage::Sample,
        Stage::Joins,
        Stage::Tables,
    ] {
        assert!(ended.contains(&(inner, 1)), "{inner:?} in {ended:?}");
    }
    assert!(ended.contains(&(Stage::Plan, 0)), "{ended:?}");
}

#[test]
fn a_cancelled_compile_stops_in_the_stage_it_was_in() {
    let cancel = Cancel::new();
    let watcher = Arc::new(Watcher {
        cancel_at: Some((Stage::Fixpoint, cancel.clone())),
        ..Watcher::default()
    });
    let tracker = Tracker::new().observe(watcher.clone()).cancel_with(cancel);
    let e = tracker.enter(|| {
        Session::open(&tictactoe(), options(Backend::Lifted))
            .and_then(|s| s.code())
            .expect_err("cancelled")
    });
    match e {
        CodegenError::Interrupted(i) => {
            assert_eq!(i.reason, Reason::Cancelled);
            assert_eq!(i.stage, Some(Stage::Fixpoint));
        }
        other => panic!("not an interruption: {other}"),
    }
    // Nothing after the planning ran.
    let ended = watcher.ended.lock().unwrap().clone();
    assert!(!ended.iter().any(|e| e.0 == Stage::Print), "{ended:?}");
}

#[test]
fn a_compile_past_its_deadline_is_an_error_naming_the_time() {
    let tracker = Tracker::new().within(Duration::ZERO);
    let e = tracker.enter(|| {
        std::thread::sleep(Duration::from_millis(2));
        let session = Session::open(&tictactoe(), options(Backend::Auto)).expect("reads");
        session.code().expect_err("out of time")
    });
    assert!(
        matches!(e, CodegenError::Interrupted(i) if i.reason == Reason::Deadline(Duration::ZERO)),
        "{e}"
    );
    assert!(e.to_string().contains("took more than its 0.0 s"), "{e}");
}
