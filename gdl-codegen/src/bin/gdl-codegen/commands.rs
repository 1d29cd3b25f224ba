//! The commands that run a game on a reasoner: `play`, `replay`, `bench` and
//! the simulation of `check --simulate`.
//!
//! Each command becomes an argument list for `gdl_runtime::cli`, which every
//! reasoner runs in-process: the interpreted ones, and compiled code as a
//! loaded game (`host::loaded`), as a player runs it.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use gdl_codegen::front::Frontend;
use gdl_codegen::ground::GroundProgram;
use gdl_codegen::host::loaded::{self, LoadError, LoadOptions, LoadedGame, Toolchain};
use gdl_codegen::reasoner::interp::{Interpreter, QueryBudget};
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_codegen::session::{Backend, Caller, Session};
use gdl_codegen::stages::{self, Stage};
use gdl_runtime::cli;

use crate::emit_cmd::{BackendArg, BudgetArgs};
use crate::watch::{Watch, WatchArgs};
use crate::{load_valid, status, ReadArgs};

/// The reasoners a command can run on.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum Reasoner {
    /// The backward-chaining interpreter of the lifted rules.
    Interpreter,
    /// The propositional-network interpreter of the ground program.
    Propnet,
    /// Specialized Rust generated for the game, built with cargo and cached
    /// (from the back end `--backend` chooses).
    Compiled,
    /// Compiled code from the lifted back end, whatever `--backend` says: to
    /// set it beside the ground back end's in one run.
    Lifted,
}

impl Reasoner {
    fn name(self) -> &'static str {
        match self {
            Reasoner::Interpreter => "interpreter",
            Reasoner::Propnet => "propnet",
            Reasoner::Compiled => "compiled",
            Reasoner::Lifted => "lifted",
        }
    }
}

/// Options shared by the commands that run a game.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Most answers one query of the interpreter may table before it gives
    /// up (its memory is bounded by --max-memory-mb).
    #[arg(long, default_value_t = QueryBudget::DEFAULT_MAX_ANSWERS)]
    pub max_answers: usize,
    /// Directory of the compiled-game cache (default: $GDL_CODEGEN_CACHE,
    /// else $XDG_CACHE_HOME/gdl-codegen, else ~/.cache/gdl-codegen).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub watch: WatchArgs,
}

/// Arguments of `replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The game description.
    game: String,
    /// Trace files: conformance traces (`.trace`) or Dresden GameController traces (`.trace.xml`).
    #[arg(required = true)]
    traces: Vec<String>,
    #[command(flatten)]
    run: RunArgs,
    /// The reasoner to check (default: compiled when the game grounds within budget, else the interpreter).
    #[arg(long, value_enum)]
    reasoner: Option<Reasoner>,
}

/// Arguments of `play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game description.
    game: String,
    #[command(flatten)]
    run: RunArgs,
    /// The reasoner to run (default: compiled when the game grounds within budget, else the interpreter).
    #[arg(long, value_enum)]
    reasoner: Option<Reasoner>,
    /// Number of random playouts (shared out between the threads).
    #[arg(long, default_value_t = 1000)]
    playouts: u64,
    #[command(flatten)]
    playout: PlayoutArgs,
}

/// How playouts run: seed, step bound, threads.
#[derive(Args, Debug, Clone, Copy)]
pub struct PlayoutArgs {
    /// Seed of the random move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Step bound of each playout.
    #[arg(long, default_value_t = 10_000)]
    max_steps: usize,
    /// Threads playing independent playouts.
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

impl PlayoutArgs {
    /// The options as `gdl_runtime::cli` arguments.
    fn argv(&self) -> [String; 6] {
        [
            "--seed".to_owned(),
            self.seed.to_string(),
            "--max-steps".to_owned(),
            self.max_steps.to_string(),
            "--threads".to_owned(),
            self.threads.to_string(),
        ]
    }

    /// The options for an in-process run.
    fn options(&self) -> cli::PlayoutOptions {
        cli::PlayoutOptions {
            seed: self.seed,
            max_steps: self.max_steps,
            threads: self.threads,
        }
    }
}

/// Arguments of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The game description.
    game: String,
    #[command(flatten)]
    run: RunArgs,
    /// Reasoners to measure, in one run (repeat the option; default: all three).
    #[arg(long, value_enum)]
    reasoner: Vec<Reasoner>,
    /// Seconds of playouts per reasoner (on each thread).
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    #[command(flatten)]
    playout: PlayoutArgs,
    /// Print one JSON object per reasoner instead of a table.
    #[arg(long)]
    json: bool,
}

/// A game loaded for running: a session over its front end, grounded only
/// when a reasoner needs the ground program.
struct Loaded {
    path: String,
    session: Session,
    run: RunArgs,
    /// The compile's progress and timings.
    watch: Watch,
}

impl Loaded {
    fn new(path: &str, run: &RunArgs) -> Result<Loaded, u8> {
        let watch = run.watch.watch();
        let fe = watch.enter(|| stages::stage(Stage::Check, || load_valid(path, &run.read)))?;
        Ok(Self::watched(path, fe, run, watch))
    }

    fn from_frontend(path: &str, fe: Frontend, run: &RunArgs) -> Loaded {
        Self::watched(path, fe, run, run.watch.watch())
    }

    fn watched(path: &str, fe: Frontend, run: &RunArgs, watch: Watch) -> Loaded {
        // The loader's own options, so that it reuses this session's
        // choices when it builds the compiled game (`load_session`).
        let asked = run
            .budget
            .options(&run.read, path, Some("CompiledGame"), "::gdl_runtime");
        let options = loaded::compile_options(path, &asked);
        Loaded {
            path: path.to_owned(),
            session: Session::from_frontend(fe, options),
            run: run.clone(),
            watch,
        }
    }

    /// The ground program, or the message saying why there is none.
    fn ground(&self) -> Result<&GroundProgram, String> {
        self.watch
            .enter(|| self.session.ground())
            .map_err(|e| e.message(Caller::Cli))
    }

    /// The reasoner to use: the one asked for, or compiled code when the game
    /// grounds, else the interpreter (with a note).
    fn choose(&self, asked: Option<Reasoner>) -> Reasoner {
        if let Some(r) = asked {
            return r;
        }
        match self.ground() {
            Ok(_) => Reasoner::Compiled,
            Err(e) => {
                self.watch.note(&format!("{e}; using the interpreter"));
                Reasoner::Interpreter
            }
        }
    }

    /// The interpreter of the game, under the budget of the flags; on
    /// failure prints why and returns the exit status.
    fn interpreter(&self) -> Result<Interpreter, u8> {
        let budget = QueryBudget {
            max_answers: self.run.max_answers,
            max_memory: self.run.budget.max_memory_mb.saturating_mul(1 << 20),
        };
        Interpreter::with_budget(&self.session.frontend().program, budget).map_err(|e| {
            eprintln!(
                "error: {}: cannot build the interpreter: {}",
                self.path,
                e.message(Caller::Cli)
            );
            status::INVALID
        })
    }

    /// Runs `argv` (a `gdl_runtime::cli` command) on `reasoner`.
    fn run(&self, reasoner: Reasoner, argv: &[String]) -> u8 {
        let label = self.path.as_str();
        let code = match reasoner {
            Reasoner::Interpreter => match self.interpreter() {
                Ok(game) => {
                    self.watch.report();
                    cli::run(&game, label, argv)
                }
                Err(code) => return code,
            },
            Reasoner::Propnet => match self.ground() {
                Ok(gp) => {
                    self.watch.report();
                    cli::run(&Propnet::new(gp), label, argv)
                }
                Err(e) => {
                    eprintln!("error: {label}: {e}");
                    return status::INVALID;
                }
            },
            Reasoner::Compiled => return self.run_compiled(argv),
            Reasoner::Lifted => {
                return match self.lifted() {
                    Ok(lifted) => lifted.run_compiled(argv),
                    Err(code) => code,
                }
            }
        };
        u8::try_from(code).unwrap_or(status::INVALID)
    }

    /// The same game with the lifted back end forced.
    fn lifted(&self) -> Result<Loaded, u8> {
        let mut run = self.run.clone();
        run.budget.backend = BackendArg::Lifted;
        Loaded::new(&self.path, &run)
    }

    fn run_compiled(&self, argv: &[String]) -> u8 {
        match self.compiled_game() {
            Ok(game) => u8::try_from(cli::run(&game, &self.path, argv)).unwrap_or(status::INVALID),
            Err(code) => code,
        }
    }

    /// The compiled game's library, built (or found in the cache) and
    /// loaded into this process, as a player runs it (`host::loaded`);
    /// watched (progress, `--timings`).
    fn compiled_game(&self) -> Result<LoadedGame, u8> {
        let game = self.watch.enter(|| self.load_game());
        self.watch.report();
        game
    }

    fn load_game(&self) -> Result<LoadedGame, u8> {
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let options = LoadOptions {
            codegen: self.session.options().clone(),
            cache_dir: self.run.cache_dir.clone(),
            // Someone waits for this build: full speed.
            toolchain: Toolchain {
                nice: 0,
                jobs,
                ..Toolchain::default()
            },
            // Bounded by the command's own tracker (`self.watch`).
            ..LoadOptions::default()
        };
        let rules = self.session.frontend().source.text.as_bytes();
        // The session builds the code: `auto` has chosen its back end
        // already (to say which), and must not ground again.
        let load = || loaded::load_session(&self.session, &options);
        let game = if loaded::is_cached(&self.path, rules, &options) {
            load()
        } else {
            self.note_backend();
            stages::stage(Stage::Build, load)
        };
        game.map_err(|e| match e {
            LoadError::Codegen(e) => {
                eprint!("{}", e.render(std::io::stderr().is_terminal()));
                status::INVALID
            }
            e => {
                eprintln!("error: {}: {e}", self.path);
                status::TOOLCHAIN
            }
        })
    }

    /// Says which back end `auto` chose, when it chose the lifted one.
    fn note_backend(&self) {
        if let Ok((Backend::Lifted, why)) = self.session.backend() {
            if self.session.options().backend == Backend::Auto {
                self.watch
                    .note(&format!("{}: lifted back end: {why}", self.path));
            }
        }
    }
}

/// `gdl-codegen replay`.
pub fn replay(args: &ReplayArgs) -> u8 {
    let loaded = match Loaded::new(&args.game, &args.run) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut argv = vec!["replay".to_owned()];
    argv.extend(args.traces.iter().cloned());
    loaded.run(loaded.choose(args.reasoner), &argv)
}

/// `gdl-codegen play`.
pub fn play(args: &PlayArgs) -> u8 {
    let loaded = match Loaded::new(&args.game, &args.run) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut argv = vec![
        "play".to_owned(),
        "--playouts".to_owned(),
        args.playouts.to_string(),
    ];
    argv.extend(args.playout.argv());
    loaded.run(loaded.choose(args.reasoner), &argv)
}

/// `check --simulate N`, on a game the checker accepted.
pub fn simulate(
    fe: Frontend,
    run: &RunArgs,
    reasoner: Option<Reasoner>,
    matches: usize,
    max_steps: usize,
    seed: u64,
    deny_warnings: bool,
) -> u8 {
    let path = fe.source.name.clone();
    let loaded = Loaded::from_frontend(&path, fe, run);
    let mut argv = vec![
        "simulate".to_owned(),
        "--matches".to_owned(),
        matches.to_string(),
        "--max-steps".to_owned(),
        max_steps.to_string(),
        "--seed".to_owned(),
        seed.to_string(),
    ];
    if deny_warnings {
        argv.push("--deny-warnings".to_owned());
    }
    loaded.run(loaded.choose(reasoner), &argv)
}

/// `gdl-codegen bench`: every chosen reasoner on the same seed, one after the
/// other in one run, then the ratios between them.
pub fn bench(args: &BenchArgs) -> u8 {
    let loaded = match Loaded::new(&args.game, &args.run) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let reasoners = if args.reasoner.is_empty() {
        vec![Reasoner::Interpreter, Reasoner::Propnet, Reasoner::Compiled]
    } else {
        args.reasoner.clone()
    };
    let mut results = Vec::new();
    let mut worst = status::OK;
    for r in reasoners {
        let mut argv = vec![
            "bench".to_owned(),
            "--json".to_owned(),
            "--reasoner".to_owned(),
            r.name().to_owned(),
            "--seconds".to_owned(),
            args.seconds.to_string(),
        ];
        argv.extend(args.playout.argv());
        let result = match r {
            Reasoner::Compiled | Reasoner::Lifted => compiled_for(&loaded, r).and_then(|game| {
                let result = cli::bench(&game, r.name(), args.seconds, args.playout.options());
                serde_json::from_str(&result.to_json()).map_err(|_| status::INVALID)
            }),
            _ => in_process_bench(&loaded, r, args),
        };
        match result {
            Ok(v) => results.push(v),
            Err(code) => worst = worst.max(code),
        }
    }
    if results.is_empty() {
        // Every reasoner failed, and said why: no table to print.
        return worst;
    }
    if args.json {
        for r in &results {
            println!("{r}");
        }
    } else {
        let threads = match args.playout.threads {
            1 => "one thread".to_owned(),
            n => format!("{n} threads"),
        };
        println!(
            "{}: {:.1} s of seeded random playouts per reasoner, {threads}",
            args.game, args.seconds
        );
        println!(
            "{:<12} {:>14} {:>14} {:>10}",
            "reasoner", "playouts/s", "states/s", "playouts"
        );
        for r in &results {
            println!(
                "{:<12} {:>14.0} {:>14.0} {:>10}",
                r["reasoner"].as_str().unwrap_or("?"),
                r["playouts_per_sec"].as_f64().unwrap_or(0.0),
                r["states_per_sec"].as_f64().unwrap_or(0.0),
                r["playouts"]
            );
        }
        for (i, a) in results.iter().enumerate() {
            for b in &results[i + 1..] {
                let (pa, pb) = (
                    a["playouts_per_sec"].as_f64().unwrap_or(0.0),
                    b["playouts_per_sec"].as_f64().unwrap_or(0.0),
                );
                // The faster over the slower, so that the figure reads
                // as a speed-up at any magnitude.
                let (fast, slow, x) = if pa >= pb {
                    (a, b, pa / pb)
                } else {
                    (b, a, pb / pa)
                };
                if x.is_finite() {
                    println!(
                        "ratio {} / {}: {:.1}x",
                        fast["reasoner"].as_str().unwrap_or("?"),
                        slow["reasoner"].as_str().unwrap_or("?"),
                        x
                    );
                }
            }
        }
    }
    worst
}

fn in_process_bench(
    loaded: &Loaded,
    r: Reasoner,
    args: &BenchArgs,
) -> Result<serde_json::Value, u8> {
    let run = |result: cli::BenchResult| {
        serde_json::from_str(&result.to_json()).map_err(|_| status::INVALID)
    };
    match r {
        Reasoner::Interpreter => {
            let game = loaded.interpreter()?;
            let result = cli::bench(&game, r.name(), args.seconds, args.playout.options());
            if cli::gave_up(&game, &loaded.path) {
                return Err(status::INVALID);
            }
            run(result)
        }
        Reasoner::Propnet => {
            let gp = loaded.ground().map_err(|e| {
                eprintln!("error: {e}");
                status::INVALID
            })?;
            run(cli::bench(
                &Propnet::new(gp),
                r.name(),
                args.seconds,
                args.playout.options(),
            ))
        }
        Reasoner::Compiled | Reasoner::Lifted => Err(status::INVALID),
    }
}

/// The loaded game of compiled reasoner `r` (`Compiled` or `Lifted`) of `loaded`.
fn compiled_for(loaded: &Loaded, r: Reasoner) -> Result<LoadedGame, u8> {
    match r {
        Reasoner::Lifted => loaded.lifted()?.compiled_game(),
        _ => loaded.compiled_game(),
    }
}
