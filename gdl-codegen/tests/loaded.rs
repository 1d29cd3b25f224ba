//! Loaded games: rules compiled into a library at run time and loaded into
//! this process (`host::loaded`).
//!
//! Every test shares one cache directory (one cargo target directory, so
//! `gdl-runtime` is built once), and the games are few: the six benchmark
//! games, one game that compiles only lifted and three small games forced
//! lifted, each a cargo build of a minute or less in release on a CI
//! machine; the other tests load small games, or no library at all.

mod common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gdl_codegen::front::{self, Options};
use gdl_codegen::host::loaded::{self, LoadError, LoadOptions, LoadedGame, Reasoner, Status};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_codegen::session::Backend;
use gdl_codegen::stages::{Cancel, Event, Observer, Stage, Tracker};
use gdl_runtime::trace::{self, Trace};
use gdl_runtime::{Game, Goal, PlayoutBuffers, Rng};

/// The cache all tests share.
fn options() -> LoadOptions {
    LoadOptions {
        cache_dir: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("loaded-cache")),
        ..LoadOptions::default()
    }
}

fn load(rel: &str) -> LoadedGame {
    let bytes = std::fs::read(common::games().join(rel)).unwrap();
    loaded::load(rel, &bytes, &options()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn trace(rel: &str) -> Trace {
    Trace::read(common::shared().join("conformance").join(rel)).unwrap()
}

const SIX: [&str; 6] = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "reversi",
    "englishDraughts",
    "speedChess",
];

/// Walks one seeded random match through the position and the `Game`
/// trait at once: the same legal moves, terminal flags and states.
fn walk_positions(game: &LoadedGame, seed: u64) {
    let mut position = game.position().unwrap();
    let mut state = game.initial_state();
    let (mut rng, mut legal) = (Rng::new(seed), Vec::new());
    for _ in 0..300 {
        assert_eq!(position.words(), &*state.0);
        assert_eq!(position.is_terminal(), game.is_terminal(&state));
        if position.is_terminal() {
            return;
        }
        let mut joint = Vec::new();
        for role in 0..game.num_roles() {
            game.legal_moves(&state, role, &mut legal);
            assert_eq!(position.legal(role), &legal[..]);
            joint.push(legal[rng.below(legal.len())]);
        }
        position.step(&joint).unwrap();
        game.apply_unchecked(&mut state, &joint);
    }
}

/// `count` playouts through the `Game` trait, a call a move, as
/// `run_playouts_from` plays them: states visited, terminal playouts, goal
/// sums.
fn one_by_one<G: Game>(
    game: &G,
    state: &G::State,
    seed: u64,
    count: usize,
    max_depth: usize,
) -> (u64, u64, Vec<u64>) {
    let (mut rng, mut buf) = (Rng::new(seed), PlayoutBuffers::new());
    let (mut states, mut terminal) = (0, 0);
    let mut sums = vec![0u64; game.num_roles()];
    for _ in 0..count {
        let mut s = state.clone();
        let p = gdl_runtime::playout_in_place(game, &mut s, &mut rng, max_depth, &mut buf);
        states += p.depth as u64 + 1;
        terminal += u64::from(p.is_terminal());
        for (sum, goal) in sums.iter_mut().zip(&p.goals) {
            if let Goal::Value(v) = goal {
                *sum += u64::from(*v);
            }
        }
    }
    (states, terminal, sums)
}

#[test]
fn the_six_benchmark_games_load_and_replay_their_traces() {
    for name in SIX {
        let game = load(&format!("ggp-repository-base/{name}.kif"));
        let summary = trace::replay(&game, &trace(&format!("ggp-repository-base/{name}.trace")))
            .unwrap_or_else(|d| panic!("{name}: {d}"));
        assert!(summary.states > 0, "{name}: nothing replayed");
        // The batch entry point plays the playouts the trait would.
        let state = game.initial_state();
        let batch = game.playouts(&state, 7, 20, 500).unwrap();
        assert_eq!(batch.playouts, 20);
        assert_eq!(
            (batch.states, batch.terminal, batch.goal_sums),
            one_by_one(&game, &state, 7, 20, 500),
            "{name}"
        );
        walk_positions(&game, 3);
        assert_eq!(game.failure(), None, "{name}");
    }
}

/// The ground back end draws a random move as the interpreter does (the
/// move its list has at `rng.below(n)`), both where it counts the bits of
/// a role's moves (breakthrough: three words) and where it lists them
/// (speedChess: 60 words): seeded playouts of the library's batch and of
/// the interpreter visit the same states and end with the same goals.
#[test]
fn ground_random_moves_are_the_interpreters() {
    for name in ["breakthrough", "speedChess"] {
        let rel = format!("ggp-repository-base/{name}.kif");
        let bytes = std::fs::read(common::games().join(&rel)).unwrap();
        let mut ground = options();
        ground.codegen.backend = Backend::Ground;
        let game = loaded::load(&rel, &bytes, &ground).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let fe = front::run_bytes(&rel, &bytes, &Options::default());
        let interp = Interpreter::new(&fe.program).unwrap();
        // The library's own batch of playouts draws with its `random_move`.
        let batch = game.playouts(&game.initial_state(), 5, 4, 60).unwrap();
        assert_eq!(
            (batch.states, batch.terminal, batch.goal_sums),
            one_by_one(&interp, &interp.initial_state(), 5, 4, 60),
            "{name}"
        );
    }
}

/// A lifted game's batch of playouts in its library plays the playouts of
/// the `Game` trait, a query at a time: where a role's moves are counted
/// from bits (ticTacToe), listed from them (checkersSmall: six words) and
/// read from a table (lightsOn: the same moves in every state), up to
/// terminal states and up to a step bound; and its perft counts what the
/// interpreter's does.
#[test]
fn lifted_batches_play_the_playouts_of_the_trait() {
    for name in ["ticTacToe", "checkersSmall", "lightsOn"] {
        let rel = format!("ggp-repository-base/{name}.kif");
        let bytes = std::fs::read(common::games().join(&rel)).unwrap();
        let mut lifted = options();
        lifted.codegen.backend = Backend::Lifted;
        let game = loaded::load(&rel, &bytes, &lifted).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let state = game.initial_state();
        for max_depth in [500, 4] {
            let batch = game.playouts(&state, 11, 30, max_depth as u64).unwrap();
            assert_eq!(batch.depth_limited > 0, max_depth == 4, "{name}");
            assert_eq!(
                (batch.states, batch.terminal, batch.goal_sums),
                one_by_one(&game, &state, 11, 30, max_depth),
                "{name}, at most {max_depth} steps"
            );
        }
        let fe = front::run_bytes(&rel, &bytes, &Options::default());
        let interp = Interpreter::new(&fe.program).unwrap();
        assert_eq!(
            gdl_runtime::perft(&game, &state, 3),
            gdl_runtime::perft(&interp, &interp.initial_state(), 3),
            "{name}"
        );
    }
}

#[test]
fn one_game_replays_from_several_threads_at_once() {
    let game = load("ggp-repository-base/breakthrough.kif");
    let trace = trace("ggp-repository-base/breakthrough.trace");
    std::thread::scope(|s| {
        for seed in 0..4 {
            let (game, trace) = (&game, &trace);
            s.spawn(move || {
                for _ in 0..3 {
                    trace::replay(game, trace).unwrap();
                    walk_positions(game, seed);
                }
            });
        }
    });
}

#[test]
fn a_game_that_compiles_only_lifted_plays_the_interpreters_matches() {
    let rel = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/lifted_deferred.kif"
    );
    // A comment new on every run: a key not yet in the shared cache, so
    // that the library is built here.
    let mut bytes = std::fs::read(rel).unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    bytes.extend(format!("\n; built afresh: {:?}\n", now.unwrap()).bytes());
    // The session that chose the back end builds the game: `auto` grounds
    // once, and the library is the one `load` finds under its key.
    let grounds = Arc::new(Grounds::default());
    let tracker = Tracker::new().observe(grounds.clone());
    let compile = loaded::compile_options(rel, &Default::default());
    let session = gdl_codegen::Session::new(rel, &bytes, compile);
    let backend = tracker.enter(|| session.backend()).unwrap().0;
    assert_eq!(backend, gdl_codegen::Backend::Lifted);
    let game = tracker
        .enter(|| loaded::load_session(&session, &options()))
        .unwrap();
    assert_eq!(
        grounds.0.load(Ordering::Relaxed),
        1,
        "one grounding attempt"
    );
    let again = loaded::load(rel, &bytes, &options()).unwrap();
    assert_eq!(game.key(), again.key());
    let fe = front::run_bytes(rel, &bytes, &Options::default());
    let interp = Interpreter::new(&fe.program).unwrap();
    let recorded = trace::record(&interp, 5, 11, 200);
    trace::replay(&game, &recorded).unwrap();
}

/// Counts the grounding stages started.
#[derive(Default)]
struct Grounds(AtomicUsize);

impl Observer for Grounds {
    fn event(&self, event: &Event) {
        if let Event::Start {
            stage: Stage::Ground,
            ..
        } = event
        {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn a_game_loaded_twice_is_the_same_library() {
    let first = load("ggp-repository-base/ticTacToe.kif");
    let second = load("ggp-repository-base/ticTacToe.kif");
    assert_eq!(first.key(), second.key());
    assert_eq!(first.library(), second.library());
}

#[test]
fn a_library_of_another_compiler_build_is_refused() {
    let game = load("ggp-repository-base/ticTacToe.kif");
    let err = loaded::open_library(game.library(), "0.0.0-another-build").unwrap_err();
    assert!(matches!(err, LoadError::Mismatch(_)), "{err}");
    assert!(err.to_string().contains("0.0.0-another-build"), "{err}");
}

#[test]
fn the_cache_directory_is_private() {
    use std::os::unix::fs::PermissionsExt;
    load("ggp-repository-base/ticTacToe.kif");
    let dir = options().cache_dir.unwrap();
    let mode = std::fs::metadata(dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
}

fn with_toolchain(f: impl FnOnce(&mut loaded::Toolchain)) -> LoadOptions {
    let mut options = options();
    f(&mut options.toolchain);
    options
}

#[test]
fn missing_cargo_is_a_clear_error_and_the_game_stays_interpreted() {
    let options = with_toolchain(|t| t.cargo = Some("/nonexistent/cargo".into()));
    let rules = common::nim(21);
    let err = loaded::load("nim21", rules.as_bytes(), &options).unwrap_err();
    assert!(matches!(err, LoadError::Toolchain(_)), "{err}");
    assert!(err.to_string().contains("need cargo and rustc"), "{err}");

    let deadline = Instant::now() + Duration::from_secs(600);
    let prepared = loaded::prepare("nim21", rules.as_bytes(), &options, deadline).unwrap();
    let status = prepared.wait(deadline);
    let Status::Stays(why) = status else {
        panic!("{status:?}");
    };
    assert!(why.contains("cannot run cargo"), "{why}");
    let reasoner = prepared.reasoner();
    assert_eq!(
        reasoner.name(),
        "propnet",
        "grounded before the build failed"
    );
    let Reasoner::Propnet(propnet) = reasoner else {
        unreachable!()
    };
    assert_eq!(
        gdl_runtime::perft(&*propnet, &propnet.initial_state(), 2),
        1
    );
}

#[test]
fn a_build_past_its_deadline_or_cancelled_stops() {
    let past = LoadOptions {
        deadline: Some(Instant::now()),
        ..options()
    };
    let err = loaded::load("nim22", common::nim(22).as_bytes(), &past).unwrap_err();
    assert!(matches!(err, LoadError::Deadline), "{err}");

    let cancel = Cancel::new();
    cancel.cancel();
    let cancelled = LoadOptions {
        cancel: Some(cancel),
        ..options()
    };
    let err = loaded::load("nim23", common::nim(23).as_bytes(), &cancelled).unwrap_err();
    assert!(matches!(err, LoadError::Cancelled), "{err}");

    let deadline = Instant::now();
    let prepared =
        loaded::prepare("nim24", common::nim(24).as_bytes(), &options(), deadline).unwrap();
    let status = prepared.wait(Instant::now() + Duration::from_secs(600));
    assert!(
        matches!(&status, Status::Stays(why) if why.contains("deadline")),
        "{status:?}"
    );
    assert_ne!(prepared.reasoner().name(), "compiled");
}

/// Cancels a token when a stage starts, and notes when.
struct CancelAt(Stage, Cancel, Mutex<Option<Instant>>);

impl Observer for CancelAt {
    fn event(&self, event: &Event) {
        if matches!(*event, Event::Start { stage, .. } if stage == self.0) {
            *self.2.lock().unwrap() = Some(Instant::now());
            self.1.cancel();
        }
    }
}

/// The emit of a big game stops at its next safe point when the load is
/// cancelled: chess, compiled lifted, cancelled as its relaxed fixpoint
/// starts, while its states are sampled on a thread beside it (seconds of
/// work each, which the cancel must cut short). The enclosing tracker only
/// watches: the load's own token cancels it.
#[test]
fn a_load_cancelled_during_the_emit_of_chess_stops_soon() {
    let rules = std::fs::read(common::games().join("ggp-repository-base/chess.kif")).unwrap();
    let cancel = Cancel::new();
    let watch = Arc::new(CancelAt(Stage::Fixpoint, cancel.clone(), Mutex::new(None)));
    let mut options = LoadOptions {
        cancel: Some(cancel),
        ..options()
    };
    options.codegen.backend = Backend::Lifted;
    let tracker = Tracker::new().observe(watch.clone());
    let err = tracker
        .enter(|| loaded::load("chess.kif", &rules, &options))
        .unwrap_err();
    let returned = Instant::now();
    assert!(matches!(err, LoadError::Cancelled), "{err}");
    let cancelled = watch.2.lock().unwrap().expect("the fixpoint started");
    // Generous (sampling chess alone takes seconds): liveness, not speed.
    let after = returned - cancelled;
    assert!(
        after < Duration::from_secs(5),
        "returned {after:?} after the cancel"
    );
}

#[test]
fn prepare_hands_out_the_interpreter_then_the_compiled_game() {
    let rules = common::nim(5);
    let far = Instant::now() + Duration::from_secs(600);
    let prepared = loaded::prepare("nim5", rules.as_bytes(), &options(), far).unwrap();
    // Five sticks, one taken a joint move: one match of five moves.
    // Usable at once, whichever it is (a second run finds the library in
    // the cache and may have loaded it already).
    let perft = |r: &Reasoner| match r {
        Reasoner::Interpreter(g) => gdl_runtime::perft(&**g, &g.initial_state(), 5),
        Reasoner::Propnet(g) => gdl_runtime::perft(&**g, &g.initial_state(), 5),
        Reasoner::Compiled(g) => gdl_runtime::perft(g, &g.initial_state(), 5),
    };
    assert_eq!(perft(&prepared.reasoner()), 1);
    assert_eq!(prepared.wait(far), Status::Compiled);
    let Reasoner::Compiled(game) = prepared.reasoner() else {
        panic!("{:?}", prepared.status());
    };
    // Re-rooting: the interpreter's state, as fluents, on the compiled game.
    let fe = front::run_bytes("nim5", rules.as_bytes(), &Options::default());
    let interp = Interpreter::new(&fe.program).unwrap();
    let mut state = interp.initial_state();
    let take = interp.parse_move(0, "take").unwrap();
    let noop = interp.parse_move(1, "noop").unwrap();
    interp.apply_unchecked(&mut state, &[take, noop]);
    let moved = game.parse_state(&interp.fluents(&state).join(" ")).unwrap();
    assert_eq!(gdl_runtime::perft(&game, &moved, 4), 1);
    assert!(game.fluents(&moved).contains(&"(sticks 4)".to_owned()));
}

/// A panic inside a real library (a game's module, emitted, its goal
/// edited to panic, then built and loaded as `load` builds games) is caught
/// there: the query answers `Goal::None` and records the panic as the
/// game's failure, batch playouts return it as an error, and nothing
/// unwinds into this process.
#[test]
fn a_panic_inside_a_built_library_is_caught_there() {
    let rules = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("panicking-nim.kif");
    std::fs::write(&rules, common::nim(26)).unwrap();
    let out = common::gdl_codegen(&[
        "emit",
        rules.to_str().unwrap(),
        "--type-name",
        "CompiledGame",
    ]);
    let mut code = String::from_utf8(out.stdout).unwrap();
    let goal = code.find("fn goal_in(").expect("a goal query");
    let body = "::gdl_runtime::Goal {";
    let at = goal + code[goal..].find(body).expect("its body") + body.len();
    code.insert_str(at, "\npanic!(\"the goal of a panicking game\");\n");
    let game = loaded::load_module("panicking-nim", &code, &options()).unwrap();
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    game.legal_moves(&state, 0, &mut legal);
    assert_eq!(legal.len(), 1, "nim's first role takes");
    assert_eq!(game.goal(&state, 0), Goal::None);
    let failure = game.failure().expect("the panic recorded");
    assert!(
        failure.contains("the goal of a panicking game"),
        "{failure}"
    );
    let err = game.playouts(&state, 1, 3, 100).unwrap_err();
    assert!(
        matches!(err, LoadError::Game(ref m) if m.contains("panicking game")),
        "{err}"
    );
    // The library still answers what does not ask for a goal.
    let mut joint = legal.clone();
    game.legal_moves(&state, 1, &mut legal);
    joint.extend(&legal);
    game.apply_unchecked(&mut state, &joint);
    assert!(!game.is_terminal(&state));
}
