//! The compiled back ends on the whole corpus: every game is generated with
//! the back end `GDL_CORPUS_BACKEND` asks for (`auto`, `ground` or
//! `lifted`), built (in batches sharing one target directory), replays its
//! conformance traces and agrees with the interpreter (and, where the game
//! grounds, the propnet) on recorded seeded matches; a line per game and
//! totals are printed. With `GDL_CORPUS_RESULTS`, a TSV line per game (back
//! end, code size, its batch's build time, playouts/s, verdict) is appended
//! to that file, and games already in it are skipped: a sweep can span
//! several sittings.
//!
//! This takes long, so it is not part of `cargo test` (`test = false` in
//! Cargo.toml); `scripts/compiled-corpus.sh` runs it.

mod common;
mod compiled;

use common::corpus_files;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use compiled::{Crate, GameSpec, Module, RecordParams};
use gdl_codegen::session;

/// A game's type name: from its file name, as the CLI makes it.
fn type_name(spec: &GameSpec) -> String {
    session::type_name_for(&spec.path)
}

/// Settings of the corpus run, from the environment.
struct CorpusSettings {
    /// Only games whose path contains this.
    filter: Option<String>,
    /// Seconds for emitting one game (reading, checking, grounding).
    emit_timeout: Duration,
    /// Seconds for a replay on the interpreter or propnet, or on the compiled code.
    replay_timeout: Duration,
    /// Largest generated module compiled, in bytes.
    max_code: usize,
    /// Bytes of generated code per crate.
    batch_code: usize,
    params: RecordParams,
    /// `--backend` of `emit`.
    backend: String,
    /// The results file, if any.
    results: Option<PathBuf>,
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl CorpusSettings {
    fn from_env() -> CorpusSettings {
        CorpusSettings {
            filter: std::env::var("GDL_CORPUS_FILTER").ok(),
            emit_timeout: Duration::from_secs(env_or("GDL_CORPUS_EMIT_TIMEOUT", 60)),
            replay_timeout: Duration::from_secs(env_or("GDL_CORPUS_REPLAY_TIMEOUT", 120)),
            max_code: env_or::<usize>("GDL_CORPUS_MAX_CODE_MB", 32) << 20,
            batch_code: env_or::<usize>("GDL_CORPUS_BATCH_MB", 4) << 20,
            params: RecordParams {
                matches: env_or("GDL_CORPUS_MATCHES", 5),
                seed: env_or("GDL_CORPUS_SEED", 20_240_601),
                max_depth: env_or("GDL_CORPUS_MAX_DEPTH", 200),
                speed_ms: env_or("GDL_CORPUS_SPEED_MS", 300),
            },
            backend: std::env::var("GDL_CORPUS_BACKEND").unwrap_or_else(|_| "auto".into()),
            results: std::env::var_os("GDL_CORPUS_RESULTS").map(PathBuf::from),
        }
    }
}

/// The verdict on one corpus game.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// Compiled, built, agreed.
    Ok,
    /// The checker rejects the game (not counted).
    Invalid,
    /// The game does not ground within the budget or time (not counted).
    NoGround,
    /// The generated code is over the size limit of the run.
    TooLarge,
    /// Code generation failed on a game that grounds.
    EmitFailed,
    /// The generated code does not build.
    BuildFailed,
    /// The compiled code panicked, crashed or timed out.
    Crashed,
    /// The compiled code departs from a conformance trace the interpreter replays.
    ConformanceDiffers,
    /// The interpreter or the propnet departs from the compiled code's matches.
    Disagrees,
    /// An interpreted replay timed out.
    Timeout,
}

/// The first `error:` line of `stderr` (its first line if none): `emit`'s
/// notes and warnings come before the error that matters.
fn first_error(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .map(str::to_owned)
        .unwrap_or_else(|| compiled::excerpt(stderr, 1))
}

/// Runs `gdl-codegen ARGS` with a timeout.
fn cli(args: &[&str], timeout: Duration) -> Result<compiled::Output, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gdl-codegen"));
    cmd.args(args);
    compiled::run_with_timeout(cmd, timeout)
}

/// Replays `trace` on `reasoner` with the CLI: `Ok(true)` agreed,
/// `Ok(false)` with the difference, `Err` on a timeout or error.
fn cli_replay(
    spec: &GameSpec,
    trace: &Path,
    reasoner: &str,
    timeout: Duration,
) -> Result<Result<(), String>, String> {
    let game = spec.path.display().to_string();
    let trace = trace.display().to_string();
    let mut args = vec!["replay", &game, &trace, "--reasoner", reasoner];
    if spec.case_sensitive {
        args.push("--case-sensitive");
    }
    let out = cli(&args, timeout)?;
    match out.code {
        Some(0) => Ok(Ok(())),
        Some(1) if out.stdout.contains("DIFFERS") => Ok(Err(out
            .stdout
            .lines()
            .find(|l| l.contains("DIFFERS"))
            .unwrap_or_default()
            .to_owned())),
        // The error line, past the warnings the front end prints first.
        code => Err(format!(
            "exit {code:?}: {}",
            out.stderr
                .lines()
                .find(|l| l.starts_with("error"))
                .map_or_else(|| compiled::excerpt(&out.stderr, 3), str::to_owned)
        )),
    }
}

/// Builds `modules` as crate `name`, leaving out the modules rustc's errors
/// point into (and, when an error points nowhere, splitting the batch).
/// Returns the modules built and the failures.
fn build_batch(
    name: &str,
    mut modules: Vec<Module>,
    failed: &mut BTreeMap<usize, String>,
) -> Vec<Module> {
    for _attempt in 0..4 {
        if modules.is_empty() {
            return modules;
        }
        let krate = Crate::new(name);
        if let Err(e) = krate.write(&modules) {
            for m in &modules {
                failed.insert(m.index, format!("cannot write the crate: {e}"));
            }
            return Vec::new();
        }
        let t0 = Instant::now();
        let result = krate.cargo("build", &["--quiet"]);
        eprintln!(
            "built {name} ({} games) in {:.1} s: {}",
            modules.len(),
            t0.elapsed().as_secs_f64(),
            if result.is_ok() { "ok" } else { "FAILED" }
        );
        let Err(stderr) = result else {
            return modules;
        };
        let bad = compiled::modules_in_errors(&stderr);
        if bad.is_empty() {
            if modules.len() == 1 {
                failed.insert(modules[0].index, compiled::excerpt(&stderr, 12));
                return Vec::new();
            }
            let second = modules.split_off(modules.len() / 2);
            let mut ok = build_batch(&format!("{name}a"), modules, failed);
            ok.extend(build_batch(&format!("{name}b"), second, failed));
            return ok;
        }
        modules.retain(|m| {
            if bad.contains(&m.name) {
                failed.insert(m.index, compiled::excerpt(&stderr, 12));
                false
            } else {
                true
            }
        });
    }
    for m in &modules {
        failed.insert(m.index, "the crate still fails after 4 attempts".into());
    }
    Vec::new()
}

/// Generates, builds and checks every corpus game that grounds, printing a
/// line per game and totals. Run by `scripts/compiled-corpus.sh`.
#[test]
fn whole_corpus() {
    let settings = CorpusSettings::from_env();
    let mut files = corpus_files();
    if let Some(f) = &settings.filter {
        files.retain(|g| g.contains(f.as_str()));
    }
    let mut specs: Vec<GameSpec> = files.iter().map(|g| GameSpec::corpus(g)).collect();
    if settings.filter.is_none() {
        specs.push(GameSpec::ours("names.kif", false));
        specs.push(GameSpec::ours("names.kif", true));
    }
    let done = settings
        .results
        .as_deref()
        .map(results_done)
        .unwrap_or_default();
    specs.retain(|s| !done.contains(&s.label));
    let gen_dir = compiled::work_dir().join("corpus-gen");
    std::fs::create_dir_all(&gen_dir).expect("work directory");
    let mut verdicts: BTreeMap<usize, (Verdict, String)> = BTreeMap::new();
    let mut rows: BTreeMap<usize, Row> = BTreeMap::new();

    let record = |verdicts: &BTreeMap<usize, (Verdict, String)>, rows: &BTreeMap<usize, Row>| {
        if let Some(path) = &settings.results {
            append_results(path, &specs, verdicts, rows);
        }
    };
    // Generate with the CLI, one process per game, so that a game that
    // grounds too long is cut off.
    let mut modules = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let out_file = gen_dir.join(format!("g{i}.rs"));
        let ty = type_name(spec);
        let (game, out) = (
            spec.path.display().to_string(),
            out_file.display().to_string(),
        );
        let mut args = vec![
            "emit",
            &game,
            "-o",
            &out,
            "--type-name",
            &ty,
            "--backend",
            &settings.backend,
        ];
        if spec.case_sensitive {
            args.push("--case-sensitive");
        }
        let t0 = Instant::now();
        let result = cli(&args, settings.emit_timeout);
        let backend = match &result {
            Ok(o) if o.stderr.contains("note: lifted back end") => "lifted",
            Ok(o) if o.stderr.contains("note: ground back end") => "ground",
            _ => settings.backend.as_str(),
        };
        rows.insert(i, Row::new(backend));
        // Only the ground back end may decline a game for its size.
        let declined = if settings.backend == "ground" {
            Verdict::NoGround
        } else {
            Verdict::EmitFailed
        };
        let verdict = match result {
            Err(e) => (declined, format!("emit: {e}")),
            Ok(o) if o.code == Some(0) => match std::fs::read_to_string(&out_file) {
                Ok(code) if code.len() > settings.max_code => (
                    Verdict::TooLarge,
                    format!("{} MB of code", code.len() >> 20),
                ),
                Ok(code) => {
                    rows.entry(i).or_insert_with(|| Row::new(backend)).bytes = code.len();
                    modules.push(Module::new(i, &ty, code));
                    continue;
                }
                Err(e) => (Verdict::EmitFailed, e.to_string()),
            },
            Ok(o) if o.stderr.contains("is not valid GDL") => (Verdict::Invalid, String::new()),
            Ok(o) if o.stderr.contains("compile budget") => {
                (Verdict::TooLarge, compiled::excerpt(&o.stderr, 1))
            }
            Ok(o) if o.code == Some(1) => (declined, first_error(&o.stderr)),
            Ok(o) => (
                Verdict::EmitFailed,
                format!("exit {:?}: {}", o.code, compiled::excerpt(&o.stderr, 4)),
            ),
        };
        eprintln!(
            "emit {} ({:.1} s): {:?}",
            spec.label,
            t0.elapsed().as_secs_f64(),
            verdict.0
        );
        record(&BTreeMap::from([(i, verdict.clone())]), &rows);
        verdicts.insert(i, verdict);
    }

    // Build in batches of bounded code size, in one target directory.
    let mut batches: Vec<Vec<Module>> = vec![Vec::new()];
    let mut size = 0;
    for m in modules {
        if size + m.code.len() > settings.batch_code && !batches.last().is_some_and(Vec::is_empty) {
            batches.push(Vec::new());
            size = 0;
        }
        size += m.code.len();
        batches.last_mut().expect("a batch").push(m);
    }
    // Build each batch, then run each of its games on its own (a crash or a
    // timeout stays with its game) and replay its matches on the
    // interpreter and the propnet: every game's line is recorded before the
    // next batch builds.
    let out_dir = compiled::work_dir().join("corpus-out");
    for (b, batch) in batches.into_iter().enumerate() {
        let name = format!("corpus{b}");
        let mut build_failed = BTreeMap::new();
        let t0 = Instant::now();
        let ok = build_batch(&name, batch, &mut build_failed);
        let secs = t0.elapsed().as_secs_f64();
        let failed: BTreeMap<usize, (Verdict, String)> = build_failed
            .into_iter()
            .map(|(i, why)| (i, (Verdict::BuildFailed, why)))
            .collect();
        record(&failed, &rows);
        verdicts.extend(failed);
        for m in &ok {
            if let Some(row) = rows.get_mut(&m.index) {
                (row.batch, row.build_s, row.batch_games) = (name.clone(), secs, ok.len());
            }
            let spec = &specs[m.index];
            let krate = Crate::new(&name);
            let job = vec![(m.name.clone(), spec.traces.clone())];
            let lifted = rows.get(&m.index).is_some_and(|r| r.backend == "lifted");
            let (verdict, speed) =
                check_corpus_game(spec, &krate, &job, &out_dir, &settings, lifted);
            if let Some(row) = rows.get_mut(&m.index) {
                row.speed = speed;
            }
            eprintln!("checked {}: {:?} {}", spec.label, verdict.0, verdict.1);
            record(&BTreeMap::from([(m.index, verdict.clone())]), &rows);
            verdicts.insert(m.index, verdict);
        }
    }

    // Report.
    let mut counts: BTreeMap<Verdict, usize> = BTreeMap::new();
    for (i, (v, why)) in &verdicts {
        *counts.entry(v.clone()).or_default() += 1;
        let why = why.replace('\n', "\n    ");
        println!("{:<20} {}  {}", format!("{v:?}"), specs[*i].label, why);
    }
    let total: Vec<String> = counts.iter().map(|(v, n)| format!("{v:?} {n}")).collect();
    println!("totals: {} games: {}", specs.len(), total.join(", "));
    let bad = verdicts
        .values()
        .filter(|(v, _)| {
            !matches!(
                v,
                Verdict::Ok | Verdict::Invalid | Verdict::NoGround | Verdict::TooLarge
            )
        })
        .count();
    assert_eq!(bad, 0, "{bad} game(s) fail: see the lines above");
}

/// Runs one built game and replays its recorded matches.
fn check_corpus_game(
    spec: &GameSpec,
    krate: &Crate,
    job: &[(String, Vec<PathBuf>)],
    out_dir: &Path,
    settings: &CorpusSettings,
    lifted: bool,
) -> ((Verdict, String), Option<f64>) {
    let module = &job[0].0;
    let stdout = match krate.run(job, out_dir, &settings.params, settings.replay_timeout) {
        Ok(s) => s,
        Err(e) => return ((Verdict::Crashed, e), None),
    };
    let reports = compiled::parse_driver_output(&stdout);
    let Some(report) = reports.get(module) else {
        return (
            (
                Verdict::Crashed,
                "the driver stopped without a report".into(),
            ),
            None,
        );
    };
    (check_report(spec, report, settings, lifted), report.speed)
}

/// The verdict on a game from its driver report: conformance, then the
/// recorded matches replayed by the interpreter and the propnet (which a
/// lifted game may not ground for: then it is left out, with a note).
fn check_report(
    spec: &GameSpec,
    report: &compiled::DriverReport,
    settings: &CorpusSettings,
    lifted: bool,
) -> (Verdict, String) {
    if let Some(p) = &report.panic {
        return (Verdict::Crashed, p.clone());
    }
    let mut notes = Vec::new();
    for (t, r) in &report.conformance {
        let Err(d) = r else { continue };
        // A difference counts unless the interpreter departs from the trace too.
        match cli_replay(spec, Path::new(t), "interpreter", settings.replay_timeout) {
            Ok(Ok(())) => return (Verdict::ConformanceDiffers, format!("{t}: {d}")),
            Ok(Err(_)) => notes.push(format!("{t}: the interpreter differs too")),
            Err(e) => notes.push(format!("{t}: differs; the interpreter: {e}")),
        }
    }
    let Some(recorded) = &report.recorded else {
        return (Verdict::Crashed, "no recorded matches".into());
    };
    // A game `auto` compiled lifted does not ground within the automatic
    // budget: grounding it again for the propnet would only time out.
    let auto_lifted = lifted && settings.backend == "auto";
    if auto_lifted {
        notes.push("lifted by auto: no propnet".into());
    }
    let reasoners: &[&str] = if auto_lifted {
        &["interpreter"]
    } else {
        &["interpreter", "propnet"]
    };
    for &reasoner in reasoners {
        match cli_replay(spec, recorded, reasoner, settings.replay_timeout) {
            Ok(Ok(())) => {}
            Ok(Err(d)) => {
                return (
                    Verdict::Disagrees,
                    format!("{reasoner} on {}: {d}", recorded.display()),
                )
            }
            Err(e) if e.contains("timed out") => {
                return (Verdict::Timeout, format!("{reasoner}: {e}"))
            }
            Err(e) if lifted && reasoner == "propnet" && e.contains("budget") => {
                notes.push("the game does not ground: no propnet".into());
            }
            Err(e) => return (Verdict::Disagrees, format!("{reasoner}: {e}")),
        }
    }
    let n = report.conformance.len();
    notes.insert(0, format!("{n} conformance trace(s)"));
    (Verdict::Ok, notes.join("; "))
}

/// What the results file records of a game besides its verdict.
#[derive(Clone, Debug, Default)]
struct Row {
    backend: String,
    bytes: usize,
    batch: String,
    build_s: f64,
    batch_games: usize,
    speed: Option<f64>,
}

impl Row {
    fn new(backend: &str) -> Row {
        Row {
            backend: backend.to_owned(),
            ..Row::default()
        }
    }
}

/// The header of the results file.
const RESULTS_HEADER: &str =
    "game\tbackend\tbytes\tbatch\tbatch_build_s\tbatch_games\tplayouts_per_s\tverdict\tnote";

/// The games already in the results file at `path`.
fn results_done(path: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && *l != RESULTS_HEADER)
        .filter_map(|l| l.split('\t').next().map(str::to_owned))
        .collect()
}

/// Appends a line per game of `verdicts` to the results file at `path`
/// (with the header, if the file is new): each game as soon as its verdict
/// is final, so that an interrupted sweep keeps what it found.
fn append_results(
    path: &Path,
    specs: &[GameSpec],
    verdicts: &BTreeMap<usize, (Verdict, String)>,
    rows: &BTreeMap<usize, Row>,
) {
    use std::io::Write;
    let new = !path.exists();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the results file");
    if new {
        writeln!(file, "{RESULTS_HEADER}").expect("write the results file");
    }
    for (i, (verdict, why)) in verdicts {
        let row = rows.get(i).cloned().unwrap_or_default();
        let speed = row.speed.map_or("-".into(), |v| format!("{v:.0}"));
        let note: String = why.replace(['\n', '\t'], " ").chars().take(200).collect();
        writeln!(
            file,
            "{}\t{}\t{}\t{}\t{:.1}\t{}\t{speed}\t{verdict:?}\t{note}",
            specs[*i].label, row.backend, row.bytes, row.batch, row.build_s, row.batch_games
        )
        .expect("write the results file");
    }
}
