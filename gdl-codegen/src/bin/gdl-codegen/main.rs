//! The `gdl-codegen` command-line tool.
//!
//! Exit status, for every command: 0 success; 1 an invalid game, a trace
//! that differs, or a budget exceeded; 2 a usage or I/O error; 3 a toolchain
//! or build failure. With several files the highest status applies.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gdl_codegen::front::syntax::{print, Syntax};
use gdl_codegen::front::{self, Frontend, Options};

mod commands;
mod emit_cmd;
mod ground_cmd;
mod serve_cmd;
mod watch;

/// Compile General Game Playing (GDL) game descriptions into Rust, and check,
/// play and replay them.
#[derive(Parser, Debug)]
#[command(name = "gdl-codegen", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read and check game descriptions, printing every problem found.
    Check(CheckArgs),
    /// Replay a conformance trace against a reasoner and report the first difference.
    Replay(commands::ReplayArgs),
    /// Play seeded random matches and report their speed and outcomes.
    Play(commands::PlayArgs),
    /// Measure seeded random playouts per second on several reasoners in one run.
    Bench(commands::BenchArgs),
    /// Ground games: compute reachable fluents and moves, instantiate and
    /// simplify the rules; print sizes, times (--stats) or the program (--dump).
    Ground(ground_cmd::GroundArgs),
    /// Compile a game into a self-contained Rust module (also: `gdl-codegen GAME.kif`).
    Emit(emit_cmd::EmitArgs),
    /// Play General Game Playing matches over HTTP (the GGP protocol).
    Serve(serve_cmd::ServeArgs),
}

/// How to read a game file.
#[derive(Args, Debug, Clone)]
pub struct ReadArgs {
    /// The syntax of the game file (default: from the extension; `.hrf` is infix).
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
    /// Keep names that differ only in case apart (prefix GDL folds case by default).
    #[arg(long)]
    case_sensitive: bool,
}

impl ReadArgs {
    /// The front-end options these flags ask for.
    pub fn options(&self) -> Options {
        Options {
            syntax: self.syntax.map(SyntaxArg::into_syntax),
            case_sensitive: self.case_sensitive,
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum SyntaxArg {
    Kif,
    Infix,
}

impl SyntaxArg {
    fn into_syntax(self) -> Syntax {
        match self {
            SyntaxArg::Kif => Syntax::Kif,
            SyntaxArg::Infix => Syntax::Infix,
        }
    }
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum Dump {
    /// The syntax tree, printed as canonical KIF.
    Ast,
    /// The lowered program: `or` expanded, one rule a line.
    Lowered,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Game description files (`.kif`, `.lisp`, `.hrf`).
    #[arg(required = true)]
    files: Vec<String>,
    #[command(flatten)]
    run: commands::RunArgs,
    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
    /// Print the program after a front-end stage.
    #[arg(long, value_enum)]
    dump: Option<Dump>,
    /// Also play N random matches and report dynamic problems (states where a
    /// role has no legal move, terminal states without exactly one goal value
    /// per role, matches that do not end).
    #[arg(long, value_name = "N")]
    simulate: Option<usize>,
    /// The reasoner that simulates (default: compiled when the game grounds
    /// within budget, else the interpreter).
    #[arg(long, value_enum)]
    reasoner: Option<commands::Reasoner>,
    /// Step bound of each simulated match.
    #[arg(long, default_value_t = 1000)]
    max_steps: usize,
    /// Seed of the simulated matches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The exit statuses.
pub mod status {
    /// Success.
    pub const OK: u8 = 0;
    /// An invalid game, a trace that differs, a budget exceeded.
    pub const INVALID: u8 = 1;
    /// Usage or I/O error.
    pub const USAGE: u8 = 2;
    /// A toolchain or build failure.
    pub const TOOLCHAIN: u8 = 3;
}

/// Reads and checks a game file; on failure prints why and returns the exit status.
pub fn load(path: &str, read: &ReadArgs) -> Result<Frontend, u8> {
    let bytes = std::fs::read(path).map_err(|e| {
        eprintln!("error: cannot read {path}: {e}");
        status::USAGE
    })?;
    Ok(front::run_bytes(path, &bytes, &read.options()))
}

/// Loads a game for a command that runs it: prints diagnostics, and fails
/// with status 1 when the game is invalid.
pub fn load_valid(path: &str, read: &ReadArgs) -> Result<Frontend, u8> {
    let fe = load(path, read)?;
    let color = std::io::stderr().is_terminal();
    eprint!("{}", fe.render_diagnostics(color));
    if !fe.is_valid() {
        eprintln!("error: {path} is not valid GDL");
        return Err(status::INVALID);
    }
    Ok(fe)
}

fn check(args: &CheckArgs) -> u8 {
    let mut worst = status::OK;
    let color = std::io::stdout().is_terminal();
    let mut json = Vec::new();
    for path in &args.files {
        let fe = match load(path, &args.run.read) {
            Ok(fe) => fe,
            Err(code) => {
                worst = worst.max(code);
                continue;
            }
        };
        let errors = fe.diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = fe.diagnostics.len() - errors;
        let failed = errors > 0 || (args.deny_warnings && warnings > 0);
        let mut out = std::io::stdout().lock();
        match args.format {
            Format::Human => {
                let _ = write!(out, "{}", fe.render_diagnostics(color));
                if fe.is_valid() {
                    let p = &fe.program;
                    let roles: Vec<_> = p.roles().iter().map(|r| p.symbols.name(*r).to_owned()).collect();
                    let _ = writeln!(
                        out,
                        "{path}: {} — roles: {}; {} relations, {} rules; {warnings} warning(s)",
                        if failed { "rejected (warnings denied)" } else { "valid" },
                        roles.join(" "),
                        p.preds.len(),
                        p.rules.len(),
                    );
                } else {
                    let _ = writeln!(out, "{path}: invalid — {errors} error(s), {warnings} warning(s)");
                }
            }
            Format::Json => json.push(serde_json::json!({
                "file": path,
                "valid": !failed,
                "errors": errors,
                "warnings": warnings,
                "diagnostics": fe.diagnostics.iter().map(|d| d.to_json(&fe.source)).collect::<Vec<_>>(),
            })),
        }
        match args.dump {
            Some(Dump::Ast) => {
                let _ = write!(out, "{}", print::to_kif(&fe.ast));
            }
            Some(Dump::Lowered) => {
                let _ = write!(out, "{}", fe.program.summary());
            }
            None => {}
        }
        if failed {
            worst = worst.max(status::INVALID);
            continue;
        }
        if let Some(n) = args.simulate {
            worst = worst.max(commands::simulate(
                fe,
                &args.run,
                args.reasoner,
                n,
                args.max_steps,
                args.seed,
                args.deny_warnings,
            ));
        }
    }
    if args.format == Format::Json {
        println!("{}", serde_json::Value::Array(json));
    }
    worst
}

fn main() -> ExitCode {
    // The bare form `gdl-codegen GAME.kif` means `gdl-codegen emit GAME.kif`.
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(first) = argv.get(1).and_then(|a| a.to_str()) {
        let is_game = [".kif", ".lisp", ".hrf", ".gdl"]
            .iter()
            .any(|ext| first.to_ascii_lowercase().ends_with(ext));
        if is_game && !first.starts_with('-') {
            argv.insert(1, "emit".into());
        }
    }
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                status::USAGE
            } else {
                status::OK
            });
        }
    };
    let code = match &cli.command {
        Command::Check(args) => check(args),
        Command::Replay(args) => commands::replay(args),
        Command::Play(args) => commands::play(args),
        Command::Bench(args) => commands::bench(args),
        Command::Ground(args) => ground_cmd::run(args),
        Command::Emit(args) => emit_cmd::run(args),
        Command::Serve(args) => serve_cmd::run(args),
    };
    ExitCode::from(code)
}
