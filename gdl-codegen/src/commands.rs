//! The commands that run a game on a reasoner: `play`, `replay` and the
//! simulation part of `check --simulate`.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use gdl_codegen::frontend::Frontend;
use gdl_codegen::interp::Interpreter;
use gdl_runtime::trace::{self, Trace};
use gdl_runtime::{Budget, Game, Goal, Move, Rng};

use crate::{load_valid, status, ReadArgs};

/// The reasoners a command can run on.
#[derive(Copy, Clone, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum Reasoner {
    /// The backward-chaining interpreter of the lifted rules.
    #[default]
    Interpreter,
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
    read: ReadArgs,
    /// The reasoner to check.
    #[arg(long, value_enum, default_value_t)]
    reasoner: Reasoner,
}

/// Arguments of `play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game description.
    game: String,
    #[command(flatten)]
    read: ReadArgs,
    /// The reasoner to run.
    #[arg(long, value_enum, default_value_t)]
    reasoner: Reasoner,
    /// Number of random playouts.
    #[arg(long, default_value_t = 1000)]
    playouts: u64,
    /// Seed of the random move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Step bound of each playout.
    #[arg(long, default_value_t = 10_000)]
    max_steps: usize,
}

/// Builds the chosen reasoner for a checked game and runs `f` on it.
fn with_reasoner<T>(
    fe: &Frontend,
    reasoner: Reasoner,
    f: impl FnOnce(&Interpreter) -> T,
) -> Result<T, u8> {
    match reasoner {
        Reasoner::Interpreter => match Interpreter::new(&fe.program) {
            Ok(game) => Ok(f(&game)),
            Err(e) => {
                eprintln!(
                    "error: {}: cannot build the interpreter: {e}",
                    fe.source.name
                );
                Err(status::INVALID)
            }
        },
    }
}

/// `gdl-codegen replay`.
pub fn replay(args: &ReplayArgs) -> u8 {
    let fe = match load_valid(&args.game, &args.read) {
        Ok(fe) => fe,
        Err(code) => return code,
    };
    let mut worst = status::OK;
    for path in &args.traces {
        let trace = match Trace::read(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read trace {path}: {e}");
                worst = worst.max(status::USAGE);
                continue;
            }
        };
        let result = with_reasoner(&fe, args.reasoner, |g| trace::replay(g, &trace));
        match result {
            Ok(Ok(summary)) => println!(
                "{path}: ok — {} match(es), {} states, {} joint moves, {} aborted",
                summary.matches, summary.states, summary.joint_moves, summary.aborted
            ),
            Ok(Err(diff)) => {
                println!("{path}: DIFFERS — {diff}");
                worst = worst.max(status::INVALID);
            }
            Err(code) => worst = worst.max(code),
        }
    }
    worst
}

/// `gdl-codegen play`.
pub fn play(args: &PlayArgs) -> u8 {
    let fe = match load_valid(&args.game, &args.read) {
        Ok(fe) => fe,
        Err(code) => return code,
    };
    let result = with_reasoner(&fe, args.reasoner, |g| {
        let stats = gdl_runtime::run_playouts(
            g,
            Budget::Playouts(args.playouts.max(1)),
            args.seed,
            args.max_steps,
        );
        let goals: Vec<String> = (0..g.num_roles())
            .map(|r| match stats.average_goal(r) {
                Some(avg) => format!("{} {avg:.1}", g.role_name(r)),
                None => format!("{} -", g.role_name(r)),
            })
            .collect();
        println!(
            "{}: {} playouts in {:.3} s — {:.0} playouts/s, {:.0} states/s; average length {:.2}; average goals: {}",
            args.game,
            stats.playouts,
            stats.elapsed.as_secs_f64(),
            stats.playouts_per_sec(),
            stats.states_per_sec(),
            stats.average_length(),
            goals.join(", ")
        );
        if stats.stuck > 0 || stats.depth_limited > 0 {
            println!(
                "note: {} playout(s) reached a state where a role had no legal move, {} hit the step bound of {}",
                stats.stuck, stats.depth_limited, args.max_steps
            );
        }
    });
    match result {
        Ok(()) => status::OK,
        Err(code) => code,
    }
}

/// A problem seen while simulating matches.
struct Finding {
    what: String,
    state: String,
}

/// Plays `matches` random matches and checks what GDL promises of a
/// well-formed game: every role has a legal move in every non-terminal
/// state, every role has exactly one goal value in every terminal state, and
/// matches end within `max_steps`. Findings are printed as warnings.
fn simulate_game<G: Game>(game: &G, matches: usize, max_steps: usize, seed: u64) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut rng = Rng::new(seed);
    let mut legal: Vec<Vec<Move>> = vec![Vec::new(); game.num_roles()];
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
            let mut stuck = false;
            for (r, moves) in legal.iter_mut().enumerate() {
                game.legal_moves(&state, r, moves);
                if moves.is_empty() {
                    findings.push(Finding {
                        what: format!("match {m}, step {steps}: role {} has no legal move in a non-terminal state", game.role_name(r)),
                        state: describe(&state),
                    });
                    stuck = true;
                    break;
                }
                joint.push(moves[rng.below(moves.len())]);
            }
            if stuck {
                break;
            }
            game.apply_unchecked(&mut state, &joint);
            steps += 1;
        }
    }
    findings
}

/// `check --simulate N`: returns the exit status (warnings do not fail).
pub fn simulate(
    fe: &Frontend,
    matches: usize,
    max_steps: usize,
    seed: u64,
    deny_warnings: bool,
) -> u8 {
    let result = with_reasoner(fe, Reasoner::Interpreter, |g| {
        simulate_game(g, matches, max_steps, seed)
    });
    match result {
        Ok(findings) => {
            let mut out = String::new();
            for f in &findings {
                let _ = writeln!(
                    out,
                    "warning[simulate]: {}: {}\n  state: {}",
                    fe.source.name, f.what, f.state
                );
            }
            let _ = writeln!(
                out,
                "{}: simulated {matches} match(es): {} problem(s)",
                fe.source.name,
                findings.len()
            );
            print!("{out}");
            if deny_warnings && !findings.is_empty() {
                status::INVALID
            } else {
                status::OK
            }
        }
        Err(code) => code,
    }
}
