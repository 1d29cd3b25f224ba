//! The compiled backend against the interpreted reasoners.
//!
//! A representative set of corpus games (and our game of nasty names) is
//! generated into one crate, each game a module, built once with cargo in a
//! target directory reused across runs. Its driver replays each game's
//! conformance traces on the compiled code and records seeded random
//! matches; the interpreter and the propnet then replay those recordings, so
//! all three agree on states, legal moves, terminal and goals.
//!
//! `scripts/compiled-corpus.sh` runs the same check on the whole corpus
//! (`tests/compiled_corpus.rs`, not part of `cargo test`).

mod compiled;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use compiled::{Crate, GameSpec, Module, RecordParams};
use gdl_codegen::front;
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_codegen::session::{self, Backend};
use gdl_runtime::trace::{self, Trace};

/// The representative set: every kind of game the corpus holds, with
/// generated code small enough to build quickly.
const REPRESENTATIVE: &[&str] = &[
    // Classic board games.
    "ggp-repository-base/ticTacToe.kif",
    "ggp-repository-base/connectFour.kif",
    "ggp-repository-base/breakthrough.kif",
    "ggp-repository-base/englishDraughts.kif",
    "ggp-repository-base/reversi.kif",
    // Simultaneous moves.
    "ggp-repository-base/roshambo2.kif",
    "ggp-repository-base/connectFourSimultaneous.kif",
    "ggp-repository-base/gt_prisoner.kif",
    // Four and six roles.
    "ggp-repository-base/4pffa.kif",
    "ggp-repository-base/smallest_4player.kif",
    "ggp-repository-base/tictactoe_3d_small_6player.kif",
    // Upper case, `or`, 2006.
    "dresden-ggpserver/aaai2006-competition/CHICKENTICTACTOE_S.3357418559.kif",
    // `.lisp`, with Dresden GameController XML traces too.
    "dresden-ggpserver/gamecontroller-testdata/games/8puzzle.lisp",
    "dresden-ggpserver/gamecontroller-testdata/games/maze.lisp",
    // `?` goals in the trace; an ABORT in the trace.
    "sancho-all-games/anon.kif",
    "ggp-repository-base/factoringImpossibleTurtleBrain.kif",
    // 1.4 M ground literals: rule tables instead of unrolled tests.
    "ggp-repository-base/quartoSuicide.kif",
    // Small GGP-Base test games.
    "ggp-base/test/test_case_3a.kif",
    "ggp-base/test/test_case_5a.kif",
];

/// Representative games with recursion within a state (cyclic ground
/// components).
const CYCLIC: &[&str] = &[
    "stanford-via-chiaras/hexbad4.kif",
    // `affected`, a recursion seeded by the move, computed whole.
    "ggp-repository-base/reversi.kif",
    "stanford-via-chiaras/hexworse4.kif",
];

fn representative_specs() -> Vec<GameSpec> {
    let mut specs: Vec<GameSpec> = REPRESENTATIVE
        .iter()
        .chain(CYCLIC)
        .map(|g| GameSpec::corpus(g))
        .collect();
    specs.push(GameSpec::ours("names.kif", false));
    specs.push(GameSpec::ours("names.kif", true));
    // Planes: a ray computed a word at a time, to its fixpoint.
    specs.push(GameSpec::ours("rays.kif", false));
    specs
}

/// A game's type name: from its file name, as the CLI makes it.
fn type_name(spec: &GameSpec) -> String {
    session::type_name_for(&spec.path)
}

/// Games the lifted back end is checked on: small ones of every kind, a
/// recursive one, and games whose ground program is large.
const LIFTED: &[&str] = &[
    "ggp-repository-base/ticTacToe.kif",
    "ggp-repository-base/connectFour.kif",
    "ggp-repository-base/breakthrough.kif",
    // Its legal moves read neither the state nor the move: listed at
    // compile time.
    "ggp-repository-base/roshambo2.kif",
    "ggp-repository-base/4pffa.kif",
    "dresden-ggpserver/aaai2006-competition/CHICKENTICTACTOE_S.3357418559.kif",
    "dresden-ggpserver/gamecontroller-testdata/games/8puzzle.lisp",
    "dresden-ggpserver/gamecontroller-testdata/games/maze.lisp",
    "sancho-all-games/anon.kif",
    "ggp-base/test/test_case_3a.kif",
    "ggp-base/test/test_case_5a.kif",
    // A static relation without tuples (its test reads no argument).
    "ggp-base/test/test_case_5c.kif",
    "stanford-via-chiaras/hexbad4.kif",
    // `(legal2 ?player (capture ?x1 ?y1 ?x3 ?y3))` read by nothing after:
    // a pattern that constrains, not an existence test of `legal2`.
    "ggp-repository-base/englishDraughts.kif",
    // Timers counting down a square at a time: `next` rules copying the
    // state's words shifted (`or_bits_shifted`).
    "ggp-repository-base/factoringMediumTurtleBrain.kif",
    // A closure with every argument free, asked once: no memo, no key.
    "ggp-repository-base/coins.kif",
];

/// Generates `specs` in process with `backend`; panics naming every game
/// that fails.
fn generate_all(specs: &[GameSpec], backend: Backend, incremental: Option<bool>) -> Vec<Module> {
    let mut failures = Vec::new();
    let mut modules = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let ty = type_name(spec);
        match compiled::generate_incremental(spec, &ty, backend, incremental) {
            Ok(code) => modules.push(Module::new(i, &ty, code)),
            Err(e) => failures.push(format!("{}: cannot generate code:\n{e}", spec.label)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    modules
}

/// Replays `recorded` on the interpreter and the propnet of `spec`.
fn replay_interpreted(spec: &GameSpec, recorded: &Trace) -> Result<(), String> {
    let bytes = std::fs::read(&spec.path).map_err(|e| e.to_string())?;
    let fe = front::run_bytes(&spec.label, &bytes, &spec.options());
    if !fe.is_valid() {
        return Err(format!("invalid:\n{}", fe.render_diagnostics(false)));
    }
    let interp = Interpreter::new(&fe.program).map_err(|e| format!("interpreter: {e}"))?;
    trace::replay(&interp, recorded)
        .map_err(|d| format!("the interpreter departs from the compiled code: {d}"))?;
    let budget = spec.max_rules.map_or_else(Budget::default, |n| {
        Budget::new(n, Budget::DEFAULT_MAX_MEMORY)
    });
    match ground::ground(&fe.program, &budget) {
        Ok(gp) => {
            trace::replay(&Propnet::new(&gp), recorded)
                .map_err(|d| format!("the propnet departs from the compiled code: {d}"))?;
        }
        // A game over its budget by design has no propnet: the
        // interpreter's replay above checks it.
        Err(_) if spec.max_rules.is_some() => {}
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}

/// The ground back end, forced: `auto` would compile Quarto lifted (its
/// rule tables hold over a million literals), and the rule tables are
/// what it is here for.
#[test]
fn representative_games_agree() {
    agree(&representative_specs(), Backend::Ground, None, "agreement");
}

/// The incremental evaluation, forced on games where the estimate does not
/// choose it: each state is evaluated from the nearer of the last two,
/// recomputing only the groups whose inputs changed, and must agree move
/// for move with the interpreter and the propnet, which evaluate every
/// state in full. Turn-taking and simultaneous games, recursion within a
/// state, planes, and the rule tables.
#[test]
fn incremental_evaluation_agrees() {
    let mut specs: Vec<GameSpec> = INCREMENTAL.iter().map(|g| GameSpec::corpus(g)).collect();
    specs.push(GameSpec::ours("rays.kif", false));
    agree(&specs, Backend::Ground, Some(true), "incremental-agreement");
}

/// Games the incremental evaluation is forced on.
const INCREMENTAL: &[&str] = &[
    "ggp-repository-base/ticTacToe.kif",
    "ggp-repository-base/connectFour.kif",
    "ggp-repository-base/breakthrough.kif",
    "ggp-repository-base/englishDraughts.kif",
    "ggp-repository-base/reversi.kif",
    "ggp-repository-base/connectFourSimultaneous.kif",
    "ggp-repository-base/4pffa.kif",
    "stanford-via-chiaras/hexbad4.kif",
    "ggp-repository-base/quartoSuicide.kif",
];

/// The lifted back end, forced, on games that also ground: its matches
/// replay on the interpreter and the propnet (the ground back end's
/// reference), and it replays the conformance traces.
#[test]
fn lifted_back_end_agrees() {
    let mut specs: Vec<GameSpec> = LIFTED.iter().map(|g| GameSpec::corpus(g)).collect();
    specs.push(GameSpec::ours("names.kif", false));
    // A recursion all the way round a ring: closures, from keys and from
    // answers, where top-down evaluation meets the call it started from.
    specs.push(GameSpec::ours("ring.kif", false));
    // Lists built at run time, which the compile-time universe cannot hold
    // (a game over its grounding budget by design: no propnet replays it).
    specs.push(GameSpec::ours("lists.kif", false).with_max_rules(200_000));
    agree(&specs, Backend::Lifted, None, "lifted-agreement");
}

/// Compiles `specs` with `backend` into one crate, replays their traces and
/// records matches on it, and replays those on the interpreted reasoners.
fn agree(specs: &[GameSpec], backend: Backend, incremental: Option<bool>, crate_name: &str) {
    let t0 = Instant::now();
    let modules = generate_all(specs, backend, incremental);
    let krate = Crate::new(crate_name);
    krate.write(&modules).expect("write the crate");
    let built = krate
        .cargo("build", &["--quiet"])
        .unwrap_or_else(|e| panic!("the generated crate does not build:\n{e}"));
    let params = RecordParams {
        matches: 5,
        seed: 20_240_601,
        max_depth: 200,
        speed_ms: 0,
    };
    let out_dir = compiled::work_dir().join(format!("{crate_name}-out"));
    let jobs: Vec<(String, Vec<PathBuf>)> = modules
        .iter()
        .map(|m| (m.name.clone(), specs[m.index].traces.clone()))
        .collect();
    let stdout = krate
        .run(&jobs, &out_dir, &params, Duration::from_secs(600))
        .unwrap_or_else(|e| panic!("the driver failed: {e}"));
    let t_run = t0.elapsed();
    let reports = compiled::parse_driver_output(&stdout);
    let mut failures = Vec::new();
    let mut summary = String::new();
    for m in &modules {
        let spec = &specs[m.index];
        let fail = |what: String| format!("{} ({}::{}): {what}", spec.label, m.name, m.type_name);
        let Some(report) = reports.get(&m.name) else {
            failures.push(fail("no report from the driver".into()));
            continue;
        };
        if let Some(p) = &report.panic {
            failures.push(fail(format!("compiled code: {p}")));
            continue;
        }
        if report.conformance.len() != spec.traces.len() {
            failures.push(fail(format!(
                "{} conformance traces replayed, {} expected",
                report.conformance.len(),
                spec.traces.len()
            )));
        }
        for (t, r) in &report.conformance {
            if let Err(d) = r {
                failures.push(fail(format!("compiled code on {t}: {d}")));
            }
        }
        let Some(path) = &report.recorded else {
            failures.push(fail("no recorded matches".into()));
            continue;
        };
        let recorded = match Trace::read(path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(fail(format!("cannot read {}: {e}", path.display())));
                continue;
            }
        };
        let states: usize = recorded.matches.iter().map(|m| m.steps.len()).sum();
        if let Err(e) = replay_interpreted(spec, &recorded) {
            failures.push(fail(format!("{e} (recorded in {})", path.display())));
        }
        let _ = writeln!(
            summary,
            "{}: {} conformance trace(s), {} recorded states",
            spec.label,
            spec.traces.len(),
            states
        );
    }
    eprintln!(
        "{summary}built in {:.1} s, driver done at {:.1} s, all checked at {:.1} s",
        built.as_secs_f64(),
        t_run.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Generated code passes clippy's default lints with warnings denied (the
/// crate also denies rustc's warnings).
#[test]
fn generated_code_is_clippy_clean() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let version = Command::new(&cargo).args(["clippy", "--version"]).output();
    assert!(
        version.as_ref().is_ok_and(|o| o.status.success()),
        "clippy is not installed (`cargo clippy --version` fails: {:?}); \
         install it with `rustup component add clippy`",
        version.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
    );
    let specs = vec![
        GameSpec::ours("names.kif", false),
        GameSpec::ours("names.kif", true),
        GameSpec::ours("rays.kif", false),
        GameSpec::corpus("ggp-repository-base/ticTacToe.kif"),
        GameSpec::corpus("ggp-repository-base/roshambo2.kif"),
        GameSpec::corpus("ggp-base/test/test_case_3a.kif"),
        GameSpec::corpus("ggp-base/test/test_case_5a.kif"),
        GameSpec::corpus("stanford-via-chiaras/hexbad4.kif"),
        GameSpec::corpus(
            "dresden-ggpserver/aaai2006-competition/CHICKENTICTACTOE_S.3357418559.kif",
        ),
    ];
    let mut modules = generate_all(&specs, Backend::Auto, None);
    // The incremental evaluation's code, forced on two of them.
    let incremental = [
        GameSpec::ours("rays.kif", false),
        GameSpec::corpus("ggp-repository-base/ticTacToe.kif"),
    ];
    for (k, m) in generate_all(&incremental, Backend::Ground, Some(true))
        .into_iter()
        .enumerate()
    {
        let index = specs.len() + k;
        let ty = format!("{}Incremental", m.type_name);
        let code = m.code.replace(&m.type_name, &ty);
        modules.push(Module::new(index, &ty, code));
    }
    // The lifted back end's code, forced on two of them and on a game whose
    // rules build terms at run time.
    let lifted = [
        GameSpec::corpus("ggp-repository-base/ticTacToe.kif"),
        GameSpec::corpus("ggp-repository-base/englishDraughts.kif"),
        // Its legal moves are the same in every state: a constant list.
        GameSpec::corpus("ggp-repository-base/roshambo2.kif"),
        // Its lists go over the budget at compile time, as laikLee_hex's,
        // and are left to run time.
        GameSpec::ours("lists.kif", false).with_max_rules(200_000),
    ];
    let first = modules.len();
    for (k, m) in generate_all(&lifted, Backend::Lifted, None)
        .into_iter()
        .enumerate()
    {
        let ty = format!("{}Lifted", m.type_name);
        let code = m.code.replace(&m.type_name, &ty);
        modules.push(Module::new(first + k, &ty, code));
    }
    let krate = Crate::new("clippy");
    krate.write(&modules).expect("write the crate");
    if let Err(e) = krate.cargo("clippy", &["--quiet", "--", "-D", "warnings"]) {
        panic!("clippy finds problems in generated code:\n{e}");
    }
}
