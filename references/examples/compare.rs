//! Compiled code against the hand-coded references, the propnet and the
//! interpreter, on the four games the references implement, in one run:
//!
//! ```text
//! cargo run --release -p gdl-references --example compare -- [--seconds S] [--callgrind] [--game G]... [--seed N]
//! ```
//!
//! For each game (`connectFour`, `breakthrough`, `reversi`,
//! `englishDraughts`, the corpus files of `ggp-repository-base/`) and each
//! engine — the reference, the compiled game (`gdl!` in this file), the
//! propnet and the interpreter (both built with `gdl_codegen::Session`, as
//! `gdl-codegen bench` builds them) — it runs seeded random playouts from the
//! initial state for S seconds on one thread with the runtime's driver
//! ([`gdl_runtime::measure`], the one `bench` uses), and prints playouts/s,
//! states/s and compiled's speed over each engine's.
//!
//! With `--callgrind` it also counts instructions per playout, which do not
//! vary with the machine's load: the example runs itself again in a hidden
//! child mode (`child ENGINE GAME N --seed S`) under
//! `valgrind --tool=callgrind`, collecting only inside [`counted_playouts`],
//! and divides the instruction total by N. Every engine lists legal moves
//! in the same order, so the same seed plays the same matches on each: the
//! counts compare the same work.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use gdl_codegen::{CodegenOptions, Interpreter, Propnet, Session};
use gdl_references::CORPUS;
use gdl_runtime::{measure, run_playouts, Budget, Game, PlayoutStats, DEFAULT_MAX_DEPTH};

gdl_macro::gdl! {
    mod connect_four;
    struct ConnectFour;
    include "../../shared/games/ggp-repository-base/connectFour.kif";
}

gdl_macro::gdl! {
    mod breakthrough;
    struct Breakthrough;
    include "../../shared/games/ggp-repository-base/breakthrough.kif";
}

gdl_macro::gdl! {
    mod reversi;
    struct Reversi;
    include "../../shared/games/ggp-repository-base/reversi.kif";
}

gdl_macro::gdl! {
    mod english_draughts;
    struct EnglishDraughts;
    include "../../shared/games/ggp-repository-base/englishDraughts.kif";
}

/// Compiled code against the references, the propnet and the interpreter on
/// the four reference games, in one run.
#[derive(Parser, Debug)]
#[command(name = "compare")]
struct Cli {
    /// Seconds of playouts per engine and game.
    #[arg(long, default_value_t = 3.0, value_parser = seconds)]
    seconds: f64,
    /// Also count instructions per playout under valgrind's callgrind.
    #[arg(long)]
    callgrind: bool,
    /// Seed of the random move choices (the same for every engine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only this game (repeatable; default: all four).
    #[arg(long = "game", value_enum)]
    games: Vec<GameName>,
    #[command(subcommand)]
    mode: Option<Mode>,
}

/// A duration in seconds: finite and not negative (`Duration` panics
/// otherwise).
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("`{text}` is not a number of seconds")),
    }
}

/// The internal mode the parent runs under callgrind.
#[derive(Subcommand, Debug)]
enum Mode {
    /// Plays N seeded playouts of one engine inside `counted_playouts` and
    /// prints how many it played.
    #[command(hide = true)]
    Child {
        #[arg(value_enum)]
        engine: Engine,
        #[arg(value_enum)]
        game: GameName,
        #[arg(value_parser = clap::value_parser!(u64).range(1..))]
        playouts: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// The four games, named as their corpus files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameName {
    #[value(name = "connectFour")]
    ConnectFour,
    #[value(name = "breakthrough")]
    Breakthrough,
    #[value(name = "reversi")]
    Reversi,
    #[value(name = "englishDraughts")]
    EnglishDraughts,
}

impl GameName {
    /// The corpus file's stem.
    fn name(self) -> &'static str {
        match self {
            GameName::ConnectFour => "connectFour",
            GameName::Breakthrough => "breakthrough",
            GameName::Reversi => "reversi",
            GameName::EnglishDraughts => "englishDraughts",
        }
    }

    /// The game's description in the shared corpus.
    fn path(self) -> String {
        format!("{CORPUS}/ggp-repository-base/{}.kif", self.name())
    }
}

/// The reasoners compared, in the order of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Engine {
    Reference,
    Compiled,
    Propnet,
    Interpreter,
}

impl Engine {
    const ALL: [Engine; 4] = [
        Engine::Reference,
        Engine::Compiled,
        Engine::Propnet,
        Engine::Interpreter,
    ];

    /// The name in the table and on the command line.
    fn name(self) -> &'static str {
        match self {
            Engine::Reference => "reference",
            Engine::Compiled => "compiled",
            Engine::Propnet => "propnet",
            Engine::Interpreter => "interpreter",
        }
    }

    /// Playouts counted under callgrind, which runs code about 50 times
    /// slower than natively: enough to average over matches of different
    /// lengths, few enough that the slowest game (reversi) takes seconds.
    fn callgrind_playouts(self) -> u64 {
        match self {
            Engine::Reference | Engine::Compiled => 1000,
            Engine::Propnet => 100,
            Engine::Interpreter => 5,
        }
    }
}

/// Something done with one engine of one game, whatever its type: engines
/// are different `Game` types, and `Game` is not object safe.
trait WithGame {
    type Output;
    fn run<G: Game>(self, game: &G) -> Self::Output;
}

/// Reads and checks `game` (the front end only; the grounder runs when the
/// propnet asks for the ground program).
fn session(game: GameName) -> Result<Session, String> {
    let session = Session::open(Path::new(&game.path()), CodegenOptions::default())
        .map_err(|e| e.to_string())?;
    session.valid().map_err(|e| e.to_string())?;
    Ok(session)
}

/// Builds `engine` of `game` and runs `job` on it.
fn with_engine<W: WithGame>(game: GameName, engine: Engine, job: W) -> Result<W::Output, String> {
    Ok(match (engine, game) {
        (Engine::Reference, GameName::ConnectFour) => {
            job.run(&gdl_references::connect_four::ConnectFour)
        }
        (Engine::Reference, GameName::Breakthrough) => {
            job.run(&gdl_references::breakthrough::Breakthrough)
        }
        (Engine::Reference, GameName::Reversi) => job.run(&gdl_references::reversi::Reversi),
        (Engine::Reference, GameName::EnglishDraughts) => {
            job.run(&gdl_references::english_draughts::EnglishDraughts)
        }
        (Engine::Compiled, GameName::ConnectFour) => job.run(&connect_four::ConnectFour),
        (Engine::Compiled, GameName::Breakthrough) => job.run(&breakthrough::Breakthrough),
        (Engine::Compiled, GameName::Reversi) => job.run(&reversi::Reversi),
        (Engine::Compiled, GameName::EnglishDraughts) => {
            job.run(&english_draughts::EnglishDraughts)
        }
        (Engine::Propnet, _) => {
            let session = session(game)?;
            let program = session.ground().map_err(|e| e.to_string())?;
            job.run(&Propnet::new(program))
        }
        (Engine::Interpreter, _) => {
            let session = session(game)?;
            let interpreter =
                Interpreter::new(&session.frontend().program).map_err(|e| e.to_string())?;
            job.run(&interpreter)
        }
    })
}

/// Fails if `game` gave up (a query over budget): its playouts are then
/// empty and their speed meaningless.
fn check_failure<G: Game>(game: &G, stats: PlayoutStats) -> Result<PlayoutStats, String> {
    match game.failure() {
        Some(why) => Err(why),
        None => Ok(stats),
    }
}

/// Seeded random playouts for a while, as `gdl-codegen bench` runs them on
/// one thread.
struct Timed {
    seconds: f64,
    seed: u64,
}

impl WithGame for Timed {
    type Output = Result<PlayoutStats, String>;
    fn run<G: Game>(self, game: &G) -> Self::Output {
        let stats = measure(
            game,
            Duration::from_secs_f64(self.seconds),
            self.seed,
            DEFAULT_MAX_DEPTH,
        );
        check_failure(game, stats)
    }
}

/// Exactly `playouts` seeded playouts inside [`counted_playouts`], after one
/// uncounted playout that fills whatever an engine builds on first use
/// (the interpreter's tables of static relations, per-thread caches).
struct Counted {
    playouts: u64,
    seed: u64,
}

impl WithGame for Counted {
    type Output = Result<PlayoutStats, String>;
    fn run<G: Game>(self, game: &G) -> Self::Output {
        run_playouts(game, Budget::Playouts(1), self.seed, DEFAULT_MAX_DEPTH);
        let stats = counted_playouts(game, self.playouts, self.seed);
        check_failure(game, stats)
    }
}

/// The function callgrind collects in (`--toggle-collect`): the playouts
/// and nothing else, neither start-up nor grounding. Never inlined, so
/// that its name stays in the binary.
#[inline(never)]
fn counted_playouts<G: Game>(game: &G, playouts: u64, seed: u64) -> PlayoutStats {
    run_playouts(game, Budget::Playouts(playouts), seed, DEFAULT_MAX_DEPTH)
}

/// The pattern of [`counted_playouts`]'s symbol, mangled or not.
const COUNTED_SYMBOL: &str = "*counted_playouts*";

/// What the child prints before the counts, so that the parent finds them
/// among other output (a test harness's).
const COUNTED_PREFIX: &str = "counted playouts ";

/// The child mode: plays and prints `counted playouts P states S`.
fn child(engine: Engine, game: GameName, playouts: u64, seed: u64) -> Result<(), String> {
    let stats = with_engine(game, engine, Counted { playouts, seed })??;
    println!("{COUNTED_PREFIX}{} states {}", stats.playouts, stats.states);
    Ok(())
}

/// The playouts and states a child reports in its output.
fn counted_in(stdout: &str) -> Option<(u64, u64)> {
    let rest = stdout
        .lines()
        .find_map(|line| line.strip_prefix(COUNTED_PREFIX))?;
    match rest.split_whitespace().collect::<Vec<_>>()[..] {
        [playouts, "states", states] => Some((playouts.parse().ok()?, states.parse().ok()?)),
        _ => None,
    }
}

/// The instruction total (`Ir`, callgrind's first event) of a callgrind
/// output file's text.
fn total_ir(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| {
            line.strip_prefix("totals:")
                .or_else(|| line.strip_prefix("summary:"))
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// Whether `valgrind` runs here.
fn valgrind_available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// What callgrind counted in one child.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Count {
    /// Instructions executed inside [`counted_playouts`].
    instructions: u64,
    /// Playouts the child played there.
    playouts: u64,
    /// States those playouts visited.
    states: u64,
}

/// Runs `program args` (with the environment variables `envs`) under
/// callgrind, collecting only inside [`counted_playouts`].
fn callgrind(program: &Path, args: &[OsString], envs: &[(&str, String)]) -> Result<Count, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let out_file = dir.path().join("callgrind.out");
    let mut out_arg = OsString::from("--callgrind-out-file=");
    out_arg.push(&out_file);
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--collect-atstart=no"])
        .arg(format!("--toggle-collect={COUNTED_SYMBOL}"))
        .arg(out_arg)
        .arg(program)
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(format!(
            "the callgrind run failed ({}): {}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    let text = std::fs::read_to_string(&out_file)
        .map_err(|e| format!("cannot read {}: {e}", out_file.display()))?;
    let instructions = total_ir(&text).ok_or("no instruction total in the callgrind output")?;
    let (playouts, states) = counted_in(&String::from_utf8_lossy(&output.stdout))
        .ok_or("the child did not say how many playouts it played")?;
    if instructions == 0 {
        // The symbol was not found (renamed, or inlined after all).
        return Err(format!("callgrind counted nothing in `{COUNTED_SYMBOL}`"));
    }
    Ok(Count {
        instructions,
        playouts,
        states,
    })
}

/// Instructions per playout and per state of `engine` on `game`: this
/// program again, in child mode, under callgrind.
fn instructions(engine: Engine, game: GameName, seed: u64) -> Result<Instructions, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let n = engine.callgrind_playouts();
    let args: Vec<OsString> = [
        "child",
        engine.name(),
        game.name(),
        &n.to_string(),
        "--seed",
        &seed.to_string(),
    ]
    .iter()
    .map(OsString::from)
    .collect();
    let count = callgrind(&exe, &args, &[])?;
    if count.playouts != n {
        return Err(format!(
            "the child played {} playouts, not {n}",
            count.playouts
        ));
    }
    let ir = count.instructions as f64;
    Ok(Instructions {
        per_playout: ir / n as f64,
        per_state: ir / count.states.max(1) as f64,
    })
}

/// An engine's instruction counts.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Instructions {
    per_playout: f64,
    /// What the ratios compare: engines count different numbers of
    /// playouts, whose mean lengths differ.
    per_state: f64,
}

/// One engine's figures on one game.
#[derive(Clone, Debug, PartialEq)]
struct Figures {
    playouts: u64,
    playouts_per_sec: f64,
    states_per_sec: f64,
    /// `None` when not counted (no `--callgrind`, or the count failed).
    instructions: Option<Instructions>,
}

impl Figures {
    fn from_stats(stats: &PlayoutStats) -> Figures {
        Figures {
            playouts: stats.playouts,
            playouts_per_sec: stats.playouts_per_sec(),
            states_per_sec: stats.states_per_sec(),
            instructions: None,
        }
    }
}

/// A line of the table: `None` when the engine failed (it said why).
#[derive(Clone, Debug)]
struct Row {
    game: GameName,
    engine: Engine,
    figures: Option<Figures>,
}

/// `x` with three significant digits and a K, M or G suffix.
fn si(x: f64) -> String {
    let (value, unit) = [(1e9, "G"), (1e6, "M"), (1e3, "K")]
        .into_iter()
        .find(|(scale, _)| x >= *scale)
        .map_or((x, ""), |(scale, unit)| (x / scale, unit));
    format!("{}{unit}", sig3(value))
}

/// `x` with three significant digits (at most four decimals).
fn sig3(x: f64) -> String {
    let decimals = if x > 0.0 {
        (2 - x.log10().floor() as i32).clamp(0, 4) as usize
    } else {
        2
    };
    format!("{x:.decimals$}")
}

/// The table of `rows`: per game, each engine's speed and instructions, and
/// compiled's speed over each engine's (above 1: compiled is faster), by
/// wall clock and by instructions per state.
fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<16} {:<12} {:>9} {:>11} {:>10} {:>14}   compiled/x: {:>10} {:>9} {:>7}\n",
        "game",
        "engine",
        "playouts",
        "playouts/s",
        "states/s",
        "instr/playout",
        "playouts/s",
        "states/s",
        "instr"
    );
    let na = || "n/a".to_owned();
    for row in rows {
        let compiled = rows
            .iter()
            .find(|r| r.game == row.game && r.engine == Engine::Compiled)
            .and_then(|r| r.figures.as_ref());
        let Some(f) = &row.figures else {
            out += &format!("{:<16} {:<12} failed\n", row.game.name(), row.engine.name());
            continue;
        };
        let ratio = |c: Option<f64>, x: Option<f64>| match (c, x) {
            (Some(c), Some(x)) if c > 0.0 && x > 0.0 => sig3(c / x),
            _ => na(),
        };
        let by_playouts = ratio(
            compiled.map(|c| c.playouts_per_sec),
            Some(f.playouts_per_sec),
        );
        let by_states = ratio(compiled.map(|c| c.states_per_sec), Some(f.states_per_sec));
        // Fewer instructions is faster: compiled/x is x's count over compiled's.
        let by_instructions = ratio(
            f.instructions.map(|i| i.per_state),
            compiled.and_then(|c| c.instructions).map(|i| i.per_state),
        );
        out += &format!(
            "{:<16} {:<12} {:>9} {:>11} {:>10} {:>14}               {:>10} {:>9} {:>7}\n",
            row.game.name(),
            row.engine.name(),
            f.playouts,
            si(f.playouts_per_sec),
            si(f.states_per_sec),
            f.instructions.map_or_else(na, |i| si(i.per_playout)),
            by_playouts,
            by_states,
            by_instructions
        );
    }
    out
}

/// Measures every engine on `game`: speed first, then (if `callgrind`)
/// instructions, so that the callgrind runs never overlap a timing.
fn measure_game(game: GameName, cli: &Cli, callgrind: bool) -> Vec<Row> {
    let mut rows = Vec::new();
    for engine in Engine::ALL {
        eprintln!("{}: timing {}", game.name(), engine.name());
        let timed = Timed {
            seconds: cli.seconds,
            seed: cli.seed,
        };
        let figures = match with_engine(game, engine, timed).and_then(|r| r) {
            Ok(stats) => Some(Figures::from_stats(&stats)),
            Err(e) => {
                eprintln!("error: {} {}: {e}", game.name(), engine.name());
                None
            }
        };
        rows.push(Row {
            game,
            engine,
            figures,
        });
    }
    if callgrind {
        for row in &mut rows {
            let Some(figures) = &mut row.figures else {
                continue;
            };
            eprintln!("{}: callgrind {}", game.name(), row.engine.name());
            match instructions(row.engine, game, cli.seed) {
                Ok(counts) => figures.instructions = Some(counts),
                Err(e) => eprintln!(
                    "warning: {} {}: no instruction count: {e}",
                    game.name(),
                    row.engine.name()
                ),
            }
        }
    }
    rows
}

/// The lines under the table: what was measured and how; `callgrind` is
/// whether instructions were counted (asked for, and valgrind runs).
fn legend(cli: &Cli, callgrind: bool) -> String {
    let mut out = format!(
        "Seeded random playouts from the initial state (seed {}, one thread), {} s per engine and game, in one run;\n\
         compiled/x: compiled's speed over x's (above 1: compiled is faster); instr: x's instructions per state over compiled's.\n",
        cli.seed, cli.seconds
    );
    if callgrind {
        let counts: Vec<String> = Engine::ALL
            .iter()
            .map(|e| format!("{} {}", e.name(), e.callgrind_playouts()))
            .collect();
        out += &format!(
            "Instructions per playout: callgrind's Ir inside the playouts alone, over the first playouts of the same seed ({}).\n",
            counts.join(", ")
        );
    } else if cli.callgrind {
        out += "Instructions per playout: n/a, valgrind is not installed (e.g. `apt-get install valgrind`).\n";
    } else {
        out += "Instructions per playout: n/a, run with --callgrind to count them.\n";
    }
    out
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Mode::Child {
        engine,
        game,
        playouts,
        seed,
    }) = cli.mode
    {
        return match child(engine, game, playouts, seed) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {} {}: {e}", game.name(), engine.name());
                ExitCode::FAILURE
            }
        };
    }
    let callgrind = cli.callgrind && valgrind_available();
    let games = if cli.games.is_empty() {
        GameName::value_variants().to_vec()
    } else {
        cli.games.clone()
    };
    let rows: Vec<Row> = games
        .iter()
        .flat_map(|&g| measure_game(g, &cli, callgrind))
        .collect();
    print!("{}", table(&rows));
    print!("{}", legend(&cli, callgrind));
    if rows.iter().any(|r| r.figures.is_none()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set for the child of `callgrind_counts_only_the_playouts`: the
    /// number of playouts to count.
    const CHILD_ENV: &str = "GDL_COMPARE_TEST_CHILD";

    /// The seed makes every engine play the same matches, so that their
    /// counts compare the same work.
    #[test]
    fn every_engine_plays_the_same_counted_playouts() {
        let game = GameName::ConnectFour;
        let mut seen = Vec::new();
        for engine in Engine::ALL {
            let counted = Counted {
                playouts: 3,
                seed: 5,
            };
            let stats = with_engine(game, engine, counted).unwrap().unwrap();
            assert_eq!(stats.playouts, 3, "{}", engine.name());
            seen.push((stats.states, stats.terminal, stats.goal_sums));
        }
        assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
    }

    #[test]
    fn reads_callgrind_totals_and_child_counts() {
        let out = "version: 1\ncmd: x\nevents: Ir\nfl=(1) a.rs\nfn=(1) f\n3 10\nsummary: 1234\n\n\ntotals: 1234\n";
        assert_eq!(total_ir(out), Some(1234));
        assert_eq!(total_ir("events: Ir\n"), None);
        let stdout = "running 1 test\ncounted playouts 20 states 450\ntest ok\n";
        assert_eq!(counted_in(stdout), Some((20, 450)));
        assert_eq!(counted_in("counted playouts 20\n"), None);
    }

    /// Two playouts' worth of figures, with instruction counts or not.
    fn figures(playouts_per_sec: f64, per_state: Option<f64>) -> Option<Figures> {
        Some(Figures {
            playouts: 10,
            playouts_per_sec,
            states_per_sec: playouts_per_sec * 20.0,
            instructions: per_state.map(|per_state| Instructions {
                per_playout: per_state * 20.0,
                per_state,
            }),
        })
    }

    #[test]
    fn table_gives_compiled_over_each_engine() {
        let row = |engine, figures| Row {
            game: GameName::Reversi,
            engine,
            figures,
        };
        let rows = [
            row(Engine::Reference, figures(200_000.0, Some(50.0))),
            row(Engine::Compiled, figures(8_000.0, Some(1_000.0))),
            row(Engine::Propnet, figures(1_000.0, None)),
            row(Engine::Interpreter, None),
        ];
        let text = table(&rows);
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines.len(), 5, "{text}");
        // game, engine, playouts, playouts/s, states/s, instr/playout, then
        // compiled/x by playouts/s, states/s and instructions.
        let reference = [
            "reversi",
            "reference",
            "10",
            "200K",
            "4.00M",
            "1.00K",
            "0.0400",
            "0.0400",
            "0.0500",
        ];
        assert_eq!(lines[1], reference);
        let compiled = [
            "reversi", "compiled", "10", "8.00K", "160K", "20.0K", "1.00", "1.00", "1.00",
        ];
        assert_eq!(lines[2], compiled);
        let propnet = [
            "reversi", "propnet", "10", "1.00K", "20.0K", "n/a", "8.00", "8.00", "n/a",
        ];
        assert_eq!(lines[3], propnet);
        assert_eq!(lines[4], ["reversi", "interpreter", "failed"]);
    }

    /// The child of `callgrind_counts_only_the_playouts`, which runs this
    /// test binary under callgrind with `GDL_COMPARE_TEST_CHILD` set; does
    /// nothing otherwise.
    #[test]
    #[ignore = "run by callgrind_counts_only_the_playouts"]
    fn callgrind_child() {
        if let Ok(n) = std::env::var(CHILD_ENV) {
            child(
                Engine::Reference,
                GameName::ConnectFour,
                n.parse().unwrap(),
                1,
            )
            .unwrap();
        }
    }

    /// Callgrind counts the playouts and nothing else: twice the playouts
    /// of the same seed, about twice the instructions (start-up alone is
    /// many times the cost of 20 playouts of the reference).
    #[test]
    fn callgrind_counts_only_the_playouts() {
        if !valgrind_available() {
            eprintln!("valgrind is not installed: callgrind is not tested");
            return;
        }
        let exe = std::env::current_exe().unwrap();
        let args: Vec<OsString> = [
            "tests::callgrind_child",
            "--exact",
            "--ignored",
            "--nocapture",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let run = |n: u64| callgrind(&exe, &args, &[(CHILD_ENV, n.to_string())]).unwrap();
        let (twenty, forty) = (run(20), run(40));
        assert_eq!((twenty.playouts, forty.playouts), (20, 40));
        assert!(forty.states > twenty.states);
        let ratio = forty.instructions as f64 / twenty.instructions as f64;
        assert!((1.5..2.5).contains(&ratio), "{twenty:?} {forty:?}");
    }
}
