//! The commands every reasoner answers: `play`, `replay`, `simulate`,
//! `bench` and `perft`, with their output.
//!
//! `gdl-codegen` runs them in-process on its interpreted reasoners, and a
//! compiled game's binary runs them through [`main`]; both print the same
//! lines, so results compare directly. Each function returns the process exit
//! status: 0 success, 1 a difference, a failed check or a reasoner that gave
//! up (see [`Game::failure`]), 2 a usage or I/O error.

use std::fmt::Write as _;
use std::time::Duration;

use crate::parallel::run_playouts_parallel;
use crate::playout::Budget;
use crate::trace::{replay as replay_trace, Trace};
use crate::{Game, Goal, Move, Rng};

/// Exit status: success.
pub const OK: i32 = 0;
/// Exit status: a difference, a failed check, or a reasoner that gave up.
pub const FAILED: i32 = 1;
/// Exit status: a usage or I/O error.
pub const USAGE: i32 = 2;

/// How a batch of playouts runs: its seed, step bound and threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlayoutOptions {
    /// Seed of the random move choices (thread `i > 0` derives its own).
    pub seed: u64,
    /// Step bound of each playout.
    pub max_steps: usize,
    /// Threads playing independent playouts.
    pub threads: usize,
}

/// Prints why `game` gave up, if it did (see [`Game::failure`]): its results
/// are then meaningless and the command fails.
pub fn gave_up<G: Game>(game: &G, label: &str) -> bool {
    match game.failure() {
        Some(why) => {
            eprintln!("error: {label}: {why}");
            true
        }
        None => false,
    }
}

/// Runs `playouts` seeded random playouts and prints their speed and outcomes.
pub fn play<G: Game + Sync>(game: &G, label: &str, playouts: u64, opts: PlayoutOptions) -> i32 {
    let PlayoutOptions {
        seed,
        max_steps,
        threads,
    } = opts;
    let budget = Budget::Playouts(playouts.max(1));
    let stats = run_playouts_parallel(game, budget, seed, max_steps, threads);
    if gave_up(game, label) {
        return FAILED;
    }
    let goals: Vec<String> = (0..game.num_roles())
        .map(|r| match stats.average_goal(r) {
            Some(avg) => format!("{} {avg:.1}", game.role_name(r)),
            None => format!("{} -", game.role_name(r)),
        })
        .collect();
    let on = if threads > 1 {
        format!(" on {threads} threads")
    } else {
        String::new()
    };
    println!(
        "{label}: {} playouts{on} in {:.3} s: {:.0} playouts/s, {:.0} states/s; average length {:.2}; average goals: {}",
        stats.playouts,
        stats.elapsed.as_secs_f64(),
        stats.playouts_per_sec(),
        stats.states_per_sec(),
        stats.average_length(),
        goals.join(", ")
    );
    if stats.stuck > 0 || stats.depth_limited > 0 {
        println!(
            "note: {} playout(s) reached a state where a role had no legal move, {} hit the step bound of {max_steps}",
            stats.stuck, stats.depth_limited
        );
    }
    OK
}

/// Replays trace files, printing one line each; fails on the first difference of any.
/// Stops at the first trace on which the reasoner gives up.
pub fn replay<G: Game>(game: &G, traces: &[String]) -> i32 {
    let mut worst = OK;
    for path in traces {
        let trace = match Trace::read(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read trace {path}: {e}");
                worst = worst.max(USAGE);
                continue;
            }
        };
        let result = replay_trace(game, &trace);
        if gave_up(game, path) {
            return FAILED;
        }
        match result {
            Ok(s) => println!(
                "{path}: ok: {} match(es), {} states, {} joint moves, {} aborted",
                s.matches, s.states, s.joint_moves, s.aborted
            ),
            Err(diff) => {
                println!("{path}: DIFFERS: {diff}");
                worst = worst.max(FAILED);
            }
        }
    }
    worst
}

/// A problem seen while simulating matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What went wrong, and where.
    pub what: String,
    /// The state, as its fluents.
    pub state: String,
}

/// Plays `matches` random matches and checks what GDL promises of a
/// well-formed game: every role has a legal move in every non-terminal
/// state, every role has exactly one goal value in every terminal state, and
/// matches end within `max_steps`.
pub fn simulate_findings<G: Game>(
    game: &G,
    matches: usize,
    max_steps: usize,
    seed: u64,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut rng = Rng::new(seed);
    let mut legal: Vec<Move> = Vec::new();
    let mut joint = Vec::new();
    let describe = |state: &G::State| game.fluents(state).join(" ");
    for m in 0..matches {
        let mut state = game.initial_state();
        let mut steps = 0;
        loop {
            if game.is_terminal(&state) {
                for r in 0..game.num_roles() {
                    let problem = match game.goal(&state, r) {
                        Goal::Value(_) => continue,
                        Goal::None => "no goal value",
                        Goal::Ambiguous => "several goal values",
                    };
                    findings.push(Finding {
                        what: format!(
                            "match {m}, step {steps}: role {} has {problem} in a terminal state",
                            game.role_name(r)
                        ),
                        state: describe(&state),
                    });
                }
                break;
            }
            if steps >= max_steps {
                findings.push(Finding {
                    what: format!("match {m} did not end within {max_steps} steps"),
                    state: describe(&state),
                });
                break;
            }
            joint.clear();
            for r in 0..game.num_roles() {
                game.legal_moves(&state, r, &mut legal);
                if legal.is_empty() {
                    findings.push(Finding {
                        what: format!(
                            "match {m}, step {steps}: role {} has no legal move in a non-terminal state",
                            game.role_name(r)
                        ),
                        state: describe(&state),
                    });
                    break;
                }
                joint.push(legal[rng.below(legal.len())]);
            }
            if joint.len() < game.num_roles() {
                break;
            }
            game.apply_unchecked(&mut state, &joint);
            steps += 1;
        }
    }
    findings
}

/// Simulates matches and prints findings as warnings; with `deny_warnings`,
/// any finding fails.
pub fn simulate<G: Game>(
    game: &G,
    label: &str,
    matches: usize,
    max_steps: usize,
    seed: u64,
    deny_warnings: bool,
) -> i32 {
    let findings = simulate_findings(game, matches, max_steps, seed);
    if gave_up(game, label) {
        return FAILED;
    }
    let mut out = String::new();
    for f in &findings {
        let _ = writeln!(
            out,
            "warning[simulate]: {label}: {}\n  state: {}",
            f.what, f.state
        );
    }
    let _ = writeln!(
        out,
        "{label}: simulated {matches} match(es): {} problem(s)",
        findings.len()
    );
    print!("{out}");
    if deny_warnings && !findings.is_empty() {
        FAILED
    } else {
        OK
    }
}

/// The result of [`bench()`].
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The reasoner's name.
    pub reasoner: String,
    /// Playouts run.
    pub playouts: u64,
    /// States visited.
    pub states: u64,
    /// Seconds spent.
    pub seconds: f64,
    /// Playouts per second.
    pub playouts_per_sec: f64,
    /// States per second.
    pub states_per_sec: f64,
    /// Threads that played.
    pub threads: usize,
}

impl BenchResult {
    /// The result as one JSON object (the format `gdl-codegen bench --json` prints).
    pub fn to_json(&self) -> String {
        format!(
            "{{\"reasoner\":\"{}\",\"playouts\":{},\"states\":{},\"seconds\":{:.6},\"playouts_per_sec\":{:.3},\"states_per_sec\":{:.3},\"threads\":{}}}",
            self.reasoner.replace(['"', '\\'], ""),
            self.playouts,
            self.states,
            self.seconds,
            self.playouts_per_sec,
            self.states_per_sec,
            self.threads
        )
    }
}

/// Seeded random playouts for `seconds` on each thread (at least one
/// playout).
pub fn bench<G: Game + Sync>(
    game: &G,
    reasoner: &str,
    seconds: f64,
    opts: PlayoutOptions,
) -> BenchResult {
    let budget = Budget::Time(Duration::from_secs_f64(seconds.max(0.0)));
    let stats = run_playouts_parallel(game, budget, opts.seed, opts.max_steps, opts.threads);
    BenchResult {
        reasoner: reasoner.to_owned(),
        playouts: stats.playouts,
        states: stats.states,
        seconds: stats.elapsed.as_secs_f64(),
        playouts_per_sec: stats.playouts_per_sec(),
        states_per_sec: stats.states_per_sec(),
        threads: opts.threads.max(1),
    }
}

/// Command-line arguments: `--name value` options and positional words.
struct Args {
    positional: Vec<String>,
    options: Vec<(String, String)>,
    flags: Vec<String>,
}

impl Args {
    fn parse(args: &[String]) -> Args {
        let mut out = Args {
            positional: Vec::new(),
            options: Vec::new(),
            flags: Vec::new(),
        };
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if let Some(name) = a.strip_prefix("--") {
                if name == "json" || name == "deny-warnings" {
                    out.flags.push(name.to_owned());
                } else if let Some(v) = args.get(i + 1) {
                    out.options.push((name.to_owned(), v.clone()));
                    i += 1;
                } else {
                    out.options.push((name.to_owned(), String::new()));
                }
            } else {
                out.positional.push(a.clone());
            }
            i += 1;
        }
        out
    }

    fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.options.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => v
                .parse()
                .map_err(|_| format!("--{name}: `{v}` is not a valid value")),
            None => Ok(default),
        }
    }

    /// `--seed`, `--max-steps` and `--threads`.
    fn playout_options(&self) -> Result<PlayoutOptions, String> {
        Ok(PlayoutOptions {
            seed: self.get("seed", 1)?,
            max_steps: self.get("max-steps", crate::DEFAULT_MAX_DEPTH)?,
            threads: self.get("threads", 1)?,
        })
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

const USAGE_TEXT: &str = "usage: GAME-BINARY play [--playouts N] [--seed S] [--max-steps M] [--threads T]
       GAME-BINARY replay TRACE...
       GAME-BINARY simulate [--matches N] [--max-steps M] [--seed S] [--deny-warnings]
       GAME-BINARY bench [--seconds S] [--seed S] [--max-steps M] [--threads T] [--json] [--reasoner NAME]
       GAME-BINARY perft DEPTH [--state \"FLUENTS\"]";

/// The entry point of a compiled game's binary: runs the command named by the
/// process arguments on `game` and returns the exit status.
pub fn main<G: Game + Sync>(game: &G, label: &str) -> i32 {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    run(game, label, &argv)
}

/// Runs the command in `argv` (without the program name) on `game`.
pub fn run<G: Game + Sync>(game: &G, label: &str, argv: &[String]) -> i32 {
    let Some((command, rest)) = argv.split_first() else {
        eprintln!("{USAGE_TEXT}");
        return USAGE;
    };
    let args = Args::parse(rest);
    let result = (|| -> Result<i32, String> {
        Ok(match command.as_str() {
            "play" => play(
                game,
                label,
                args.get("playouts", 1000)?,
                args.playout_options()?,
            ),
            "replay" => replay(game, &args.positional),
            "simulate" => simulate(
                game,
                label,
                args.get("matches", 10)?,
                args.get("max-steps", 1000)?,
                args.get("seed", 1)?,
                args.flag("deny-warnings"),
            ),
            "bench" => {
                let r = bench(
                    game,
                    &args.get("reasoner", "compiled".to_owned())?,
                    args.get("seconds", 3.0)?,
                    args.playout_options()?,
                );
                if gave_up(game, label) {
                    return Ok(FAILED);
                }
                if args.flag("json") {
                    println!("{}", r.to_json());
                } else {
                    println!(
                        "{label}: {}: {:.0} playouts/s, {:.0} states/s ({} playouts in {:.2} s)",
                        r.reasoner, r.playouts_per_sec, r.states_per_sec, r.playouts, r.seconds
                    );
                }
                OK
            }
            "perft" => {
                let depth: usize = args
                    .positional
                    .first()
                    .ok_or("perft needs a depth")?
                    .parse()
                    .map_err(|_| "perft: the depth must be a number".to_owned())?;
                let state = match args.options.iter().find(|(n, _)| n == "state") {
                    Some((_, text)) => game
                        .parse_state(text)
                        .map_err(|e| format!("--state: {e}"))?,
                    None => game.initial_state(),
                };
                for d in 1..=depth {
                    let count = crate::perft(game, &state, d);
                    if gave_up(game, label) {
                        return Ok(FAILED);
                    }
                    println!("perft {d}: {count}");
                }
                OK
            }
            other => return Err(format!("unknown command `{other}`\n{USAGE_TEXT}")),
        })
    })();
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        USAGE
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{GivesUp, Nim};

    #[test]
    fn simulate_finds_nothing_wrong_in_a_well_formed_game() {
        let game = Nim { pile: 7 };
        assert!(simulate_findings(&game, 20, 100, 3).is_empty());
    }

    #[test]
    fn simulate_reports_matches_that_do_not_end() {
        let game = Nim { pile: 50 };
        let findings = simulate_findings(&game, 2, 10, 3);
        assert_eq!(findings.len(), 2);
        assert!(
            findings[0].what.contains("did not end within 10 steps"),
            "{findings:?}"
        );
    }

    #[test]
    fn bench_json_has_the_documented_fields() {
        let opts = PlayoutOptions {
            seed: 1,
            max_steps: 100,
            threads: 2,
        };
        let r = bench(&Nim { pile: 7 }, "test", 0.0, opts);
        let json = r.to_json();
        for field in [
            "\"reasoner\":\"test\"",
            "\"playouts_per_sec\":",
            "\"states_per_sec\":",
            "\"threads\":2",
        ] {
            assert!(json.contains(field), "{json}");
        }
        // At least one playout on each thread.
        assert!(r.playouts >= 2);
    }

    #[test]
    fn a_reasoner_that_gives_up_fails_every_command_and_stops_its_playouts() {
        let stats = crate::run_playouts(&GivesUp::default(), Budget::Playouts(1000), 1, 100);
        assert_eq!(stats.playouts, 1);
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        for command in [
            argv(&["play", "--playouts", "1000"]),
            argv(&["simulate", "--matches", "3"]),
            argv(&["bench", "--seconds", "10"]),
            argv(&["perft", "2"]),
        ] {
            assert_eq!(
                run(&GivesUp::default(), "g", &command),
                FAILED,
                "{command:?}"
            );
        }
    }

    #[test]
    fn unknown_commands_and_bad_values_are_usage_errors() {
        let game = Nim { pile: 7 };
        assert_eq!(run(&game, "nim", &["dance".to_owned()]), USAGE);
        assert_eq!(
            run(
                &game,
                "nim",
                &["play".to_owned(), "--playouts".to_owned(), "x".to_owned()]
            ),
            USAGE
        );
        assert_eq!(run(&game, "nim", &[]), USAGE);
    }
}
