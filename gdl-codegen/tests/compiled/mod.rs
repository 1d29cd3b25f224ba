//! The harness of the compiled-code tests: many games generated into one
//! crate, built once with cargo, run to replay conformance traces and record
//! seeded random matches, whose traces the interpreted reasoners then replay.
//!
//! The generated crate lives under the test's `CARGO_TARGET_TMPDIR` with its
//! own cargo target directory, reused across runs: files are rewritten only
//! when their text changes, so an unchanged game set is not rebuilt and
//! `gdl-runtime` is built once.

#![allow(dead_code)] // each test binary uses a different subset

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gdl_codegen::backend::ground::EmitOptions;
use gdl_codegen::front::Options;
use gdl_codegen::ground::budget::Budget;
use gdl_codegen::session::{self, Backend, CodegenOptions};

/// The shared directory (`../shared` next to the repository).
pub fn shared() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"))
}

/// The game corpus.
pub fn games() -> PathBuf {
    shared().join("games")
}

/// Our own test games.
pub fn test_games() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/games"))
}

/// Where the generated crates and their target directory live.
pub fn work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compiled")
}

/// One game to compile.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// What failures are reported as: the path relative to the corpus, and
    /// `(case-sensitive)` when read so.
    pub label: String,
    /// The game file.
    pub path: PathBuf,
    /// Whether names are read case-sensitively.
    pub case_sensitive: bool,
    /// Conformance traces the compiled code must replay.
    pub traces: Vec<PathBuf>,
    /// A grounding budget (`--max-rules`) other than the default.
    pub max_rules: Option<usize>,
}

impl GameSpec {
    /// A corpus game (path relative to `shared/games`) with its conformance
    /// traces, if any.
    pub fn corpus(rel: &str) -> GameSpec {
        GameSpec {
            label: rel.to_owned(),
            path: games().join(rel),
            case_sensitive: false,
            traces: conformance_traces(rel),
            max_rules: None,
        }
    }

    /// One of our test games (`tests/games/<name>`).
    pub fn ours(name: &str, case_sensitive: bool) -> GameSpec {
        GameSpec {
            label: if case_sensitive {
                format!("tests/games/{name} (case-sensitive)")
            } else {
                format!("tests/games/{name}")
            },
            path: test_games().join(name),
            case_sensitive,
            traces: Vec::new(),
            max_rules: None,
        }
    }

    /// The same game under the grounding budget `max_rules`.
    pub fn with_max_rules(self, max_rules: usize) -> GameSpec {
        GameSpec {
            max_rules: Some(max_rules),
            ..self
        }
    }

    /// The front-end options to read the game with.
    pub fn options(&self) -> Options {
        Options {
            case_sensitive: self.case_sensitive,
            ..Options::default()
        }
    }
}

/// The conformance traces of a corpus game: `conformance/<game>.trace` and
/// the Dresden GameController's XML trace of a `gamecontroller-testdata` game.
pub fn conformance_traces(rel: &str) -> Vec<PathBuf> {
    let stem = rel
        .strip_suffix(".kif")
        .or_else(|| rel.strip_suffix(".lisp"))
        .unwrap_or(rel);
    let mut out = Vec::new();
    let line = shared().join("conformance").join(format!("{stem}.trace"));
    if line.exists() {
        out.push(line);
    }
    if let Some(name) = stem.strip_prefix("dresden-ggpserver/gamecontroller-testdata/games/") {
        let xml = games().join(format!(
            "dresden-ggpserver/gamecontroller-testdata/traces/{name}.trace.xml"
        ));
        if xml.exists() {
            out.push(xml);
        }
    }
    out
}

/// Generates a game's module with the given type name, in process.
pub fn generate(spec: &GameSpec, type_name: &str) -> Result<String, String> {
    generate_with(spec, type_name, Backend::Auto)
}

/// Generates a game's module with the given type name and back end.
pub fn generate_with(spec: &GameSpec, type_name: &str, backend: Backend) -> Result<String, String> {
    generate_incremental(spec, type_name, backend, None)
}

/// Generates a game's module with the given type name and back end, its
/// evaluation incremental as `incremental` says (`None`: as estimated).
pub fn generate_incremental(
    spec: &GameSpec,
    type_name: &str,
    backend: Backend,
    incremental: Option<bool>,
) -> Result<String, String> {
    let bytes = std::fs::read(&spec.path).map_err(|e| format!("cannot read: {e}"))?;
    let options = CodegenOptions {
        frontend: spec.options(),
        emit: EmitOptions {
            type_name: type_name.to_owned(),
            source_name: spec.label.clone(),
            incremental,
            ..EmitOptions::default()
        },
        backend,
        budget: spec.max_rules.map_or_else(Budget::default, |n| {
            Budget::new(n, Budget::DEFAULT_MAX_MEMORY)
        }),
    };
    session::generate(&spec.label, &bytes, &options)
        .map(|g| g.code)
        .map_err(|e| e.render(false))
}

/// A module of the generated crate: the game it holds.
#[derive(Clone, Debug)]
pub struct Module {
    /// Index of the game in the caller's list.
    pub index: usize,
    /// The module's name in the crate (`g<index>`).
    pub name: String,
    /// The game type's name.
    pub type_name: String,
    /// The generated code.
    pub code: String,
}

impl Module {
    /// The module of game `index` of type `type_name` holding `code`.
    pub fn new(index: usize, type_name: &str, code: String) -> Module {
        Module {
            index,
            name: format!("g{index}"),
            type_name: type_name.to_owned(),
            code,
        }
    }
}

/// Writes `text` to `path` unless it already holds it (so that cargo sees no
/// change and does not rebuild).
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// How the generated crate depends on the runtime: by path.
fn runtime_path() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    p.canonicalize().unwrap_or(p).display().to_string()
}

/// `opt-level = N` from `GDL_COMPILED_OPT_LEVEL`, to build large game sets
/// faster (the corpus script uses 1); release's own level otherwise.
fn opt_level_line() -> String {
    match std::env::var("GDL_COMPILED_OPT_LEVEL") {
        Ok(level) if matches!(level.as_str(), "0" | "1" | "2" | "3") => {
            format!("opt-level = {level}\n")
        }
        _ => String::new(),
    }
}

/// The driver of the generated crate. Usage:
/// `driver JOBS OUT_DIR MATCHES SEED MAX_DEPTH [SPEED_MS]`, where each line
/// of `JOBS` is a module name followed by the conformance traces to replay,
/// separated by tabs. For each job it prints one `CONFORMANCE` line per
/// trace and one `RECORDED` line naming the file of recorded matches, or
/// `PANIC`; with `SPEED_MS`, a `SPEED` line of playouts per second.
const DRIVER: &str = r#"
use std::path::Path;

use gdl_runtime::{trace, Game};

struct Params<'a> {
    out: &'a Path,
    matches: usize,
    seed: u64,
    max_depth: usize,
    /// Milliseconds of random playouts to time (0: none).
    speed_ms: u64,
}

fn run<G: Game>(game: &G, module: &str, traces: &[&str], p: &Params<'_>) {
    for t in traces {
        match trace::Trace::read(t) {
            Ok(tr) => match trace::replay(game, &tr) {
                Ok(s) => println!("CONFORMANCE\t{module}\t{t}\tok\t{} states", s.states),
                Err(d) => println!("CONFORMANCE\t{module}\t{t}\tDIFFERS\t{d}"),
            },
            Err(e) => println!("CONFORMANCE\t{module}\t{t}\tUNREADABLE\t{e}"),
        }
    }
    let recorded = trace::record(game, p.matches, p.seed, p.max_depth);
    let path = p.out.join(format!("{module}.trace"));
    match std::fs::write(&path, recorded.to_string()) {
        Ok(()) => println!("RECORDED\t{module}\t{}", path.display()),
        Err(e) => println!("PANIC\t{module}\tcannot write {}: {e}", path.display()),
    }
    if p.speed_ms > 0 {
        let stats = gdl_runtime::measure(
            game,
            std::time::Duration::from_millis(p.speed_ms),
            p.seed,
            p.max_depth,
        );
        let secs = stats.elapsed.as_secs_f64().max(1e-9);
        println!("SPEED\t{module}\t{:.1}", stats.playouts as f64 / secs);
    }
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize) -> T {
    match args.get(i).map(|a| a.parse()) {
        Some(Ok(v)) => v,
        _ => {
            eprintln!("usage: driver JOBS OUT_DIR MATCHES SEED MAX_DEPTH");
            std::process::exit(2)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let jobs_file: String = arg(&args, 1);
    let out: String = arg(&args, 2);
    let params = Params {
        out: Path::new(&out),
        matches: arg(&args, 3),
        seed: arg(&args, 4),
        max_depth: arg(&args, 5),
        speed_ms: args.get(6).and_then(|a| a.parse().ok()).unwrap_or(0),
    };
    let jobs = std::fs::read_to_string(&jobs_file).unwrap_or_else(|e| {
        eprintln!("cannot read {jobs_file}: {e}");
        std::process::exit(2)
    });
    for line in jobs.lines() {
        let mut fields = line.split('\t');
        let module = fields.next().unwrap_or_default();
        let traces: Vec<&str> = fields.collect();
        let done = std::panic::catch_unwind(|| dispatch(module, &traces, &params));
        match done {
            Ok(true) => {}
            Ok(false) => println!("PANIC\t{module}\tno such module"),
            Err(_) => println!("PANIC\t{module}\tthe compiled code panicked (message above)"),
        }
    }
}
"#;

/// A generated crate: its directory and target directory.
#[derive(Clone, Debug)]
pub struct Crate {
    /// The crate's directory.
    pub dir: PathBuf,
    /// Its cargo target directory (shared by every crate of a harness).
    pub target_dir: PathBuf,
    /// The package name.
    pub name: String,
}

impl Crate {
    /// The crate `name` under [`work_dir`], built in the shared target directory.
    pub fn new(name: &str) -> Crate {
        Crate {
            dir: work_dir().join(name),
            target_dir: work_dir().join("target"),
            name: name.to_owned(),
        }
    }

    /// The built binary.
    pub fn binary(&self) -> PathBuf {
        self.target_dir.join("release").join(format!(
            "{}{}",
            self.name,
            std::env::consts::EXE_SUFFIX
        ))
    }

    /// Writes the crate holding `modules` and the driver.
    pub fn write(&self, modules: &[Module]) -> std::io::Result<()> {
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ngdl-runtime = {{ path = {:?} }}\n\n\
             # Checks on in the compiled code: an overflow is a bug to report.\n\
             [profile.release]\ncodegen-units = 16\ndebug = false\noverflow-checks = true\n\
             debug-assertions = true\nincremental = false\n{}\n\
             # Not part of any enclosing workspace.\n[workspace]\n",
            self.name,
            runtime_path(),
            opt_level_line()
        );
        let mut main = String::from(
            "//! Generated by gdl-codegen's compiled-code tests: every game a module.\n\n\
             #![deny(warnings)]\n\n",
        );
        for m in modules {
            main.push_str(&format!("mod {};\n", m.name));
        }
        main.push_str(DRIVER);
        main.push_str(
            "\n/// Runs the job of `module`; false when there is no such module.\n\
             fn dispatch(module: &str, traces: &[&str], p: &Params<'_>) -> bool {\n    match module {\n",
        );
        for m in modules {
            main.push_str(&format!(
                "        {:?} => run(&{}::{}, module, traces, p),\n",
                m.name, m.name, m.type_name
            ));
        }
        main.push_str("        _ => return false,\n    }\n    true\n}\n");
        write_if_changed(&self.dir.join("Cargo.toml"), &manifest)?;
        write_if_changed(&self.dir.join("src/main.rs"), &main)?;
        for m in modules {
            write_if_changed(&self.dir.join(format!("src/{}.rs", m.name)), &m.code)?;
        }
        Ok(())
    }

    /// Runs `cargo <subcommand> --release` on the crate (with `extra`
    /// arguments after it) and returns cargo's standard error on failure.
    pub fn cargo(&self, subcommand: &str, extra: &[&str]) -> Result<Duration, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let start = Instant::now();
        let out = Command::new(cargo)
            .arg(subcommand)
            .arg("--release")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&self.target_dir)
            .args(extra)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if out.status.success() {
            Ok(start.elapsed())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Runs the built driver on `jobs` (module name, traces) and returns its
    /// standard output; matches are written to `out_dir`.
    pub fn run(
        &self,
        jobs: &[(String, Vec<PathBuf>)],
        out_dir: &Path,
        params: &RecordParams,
        timeout: Duration,
    ) -> Result<String, String> {
        std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let jobs_file = out_dir.join("jobs.tsv");
        let text: String = jobs
            .iter()
            .map(|(m, traces)| {
                let mut line = m.clone();
                for t in traces {
                    line.push('\t');
                    line.push_str(&t.display().to_string());
                }
                line + "\n"
            })
            .collect();
        std::fs::write(&jobs_file, text).map_err(|e| format!("{}: {e}", jobs_file.display()))?;
        let mut cmd = Command::new(self.binary());
        cmd.arg(&jobs_file)
            .arg(out_dir)
            .arg(params.matches.to_string())
            .arg(params.seed.to_string())
            .arg(params.max_depth.to_string())
            .arg(params.speed_ms.to_string());
        let out = run_with_timeout(cmd, timeout)?;
        Ok(out.stdout)
    }
}

/// How many random matches to record, from which seed, how deep.
#[derive(Clone, Copy, Debug)]
pub struct RecordParams {
    /// Matches per game.
    pub matches: usize,
    /// The seed of the first game's matches.
    pub seed: u64,
    /// Joint moves before a match is cut off.
    pub max_depth: usize,
    /// Milliseconds of random playouts to time after recording (0: none).
    pub speed_ms: u64,
}

/// What a finished process printed.
pub struct Output {
    /// Its exit status, `None` when killed by a signal.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `cmd`, killing it (by its own id) after `timeout`.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Result<Output, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    // Drain both pipes on threads so that a chatty child never blocks.
    let mut so = child.stdout.take().ok_or("no stdout")?;
    let mut se = child.stderr.take().ok_or("no stderr")?;
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {cmd:?}: {e}")),
        }
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    match status {
        Some(status) => Ok(Output {
            code: status.code(),
            stdout,
            stderr,
        }),
        None => Err(format!("timed out after {} s", timeout.as_secs())),
    }
}

/// What the driver reported about one module.
#[derive(Clone, Debug, Default)]
pub struct DriverReport {
    /// Per conformance trace: `Ok(summary)` or `Err(difference)`.
    pub conformance: Vec<(String, Result<String, String>)>,
    /// The file of recorded matches.
    pub recorded: Option<PathBuf>,
    /// Why the module stopped, if it did.
    pub panic: Option<String>,
    /// Random playouts per second, if timed.
    pub speed: Option<f64>,
}

/// Parses the driver's output, by module name.
pub fn parse_driver_output(stdout: &str) -> BTreeMap<String, DriverReport> {
    let mut out: BTreeMap<String, DriverReport> = BTreeMap::new();
    for line in stdout.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["CONFORMANCE", m, t, "ok", s] => out
                .entry(m.to_string())
                .or_default()
                .conformance
                .push((t.to_string(), Ok(s.to_string()))),
            ["CONFORMANCE", m, t, kind, d] => out
                .entry(m.to_string())
                .or_default()
                .conformance
                .push((t.to_string(), Err(format!("{kind}: {d}")))),
            ["RECORDED", m, p] => out.entry(m.to_string()).or_default().recorded = Some(p.into()),
            ["SPEED", m, v] => out.entry(m.to_string()).or_default().speed = v.parse().ok(),
            ["PANIC", m, why] => {
                out.entry(m.to_string()).or_default().panic = Some(why.to_string())
            }
            _ => {}
        }
    }
    out
}

/// The modules (`src/gN.rs`) that rustc's errors point into.
pub fn modules_in_errors(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = stderr
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("--> ")?;
            let file = rest.split(':').next()?;
            let name = Path::new(file).file_stem()?.to_str()?;
            (name.starts_with('g') && name[1..].bytes().all(|b| b.is_ascii_digit()))
                .then(|| name.to_owned())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The first lines of cargo's error output, enough to see what went wrong.
pub fn excerpt(stderr: &str, lines: usize) -> String {
    let relevant: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim_start().starts_with("Compiling") && !l.trim().is_empty())
        .take(lines)
        .collect();
    relevant.join("\n")
}
