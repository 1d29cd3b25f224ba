//! The `ground` command: ground games and report sizes and phase times.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use gdl_codegen::backend::ground::{code_size, table_threshold, Compiled, EmitOptions};
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::session::{Caller, CodegenError};

use crate::{load_valid, status, ReadArgs};

/// Arguments of `gdl-codegen ground`.
#[derive(Args, Debug)]
pub struct GroundArgs {
    /// Game description files.
    #[arg(required = true)]
    files: Vec<String>,
    #[command(flatten)]
    read: ReadArgs,
    /// Print sizes and the time of each phase.
    #[arg(long)]
    stats: bool,
    /// Print the ground program (inputs, outputs, rules).
    #[arg(long)]
    dump: bool,
    /// Print the bitnet of the compiled back end: the layout, move tables and
    /// each query's schedule.
    #[arg(long)]
    dump_bitnet: bool,
    /// Most rules printed by --dump.
    #[arg(long, default_value_t = 2000)]
    dump_rules: usize,
    /// Most ground rules (and domain atoms) before giving up.
    #[arg(long, default_value_t = Budget::DEFAULT_MAX_RULES)]
    max_rules: usize,
    /// Most memory, in MB, before giving up.
    #[arg(long, default_value_t = Budget::DEFAULT_MAX_MEMORY >> 20)]
    max_memory_mb: usize,
}

/// Runs `gdl-codegen ground`; returns the exit status.
pub fn run(args: &GroundArgs) -> u8 {
    let budget = Budget::new(args.max_rules, args.max_memory_mb.saturating_mul(1 << 20));
    let mut worst = status::OK;
    for path in &args.files {
        let t0 = Instant::now();
        let fe = match load_valid(path, &args.read) {
            Ok(fe) => fe,
            Err(code) => {
                worst = worst.max(code);
                continue;
            }
        };
        let t1 = Instant::now();
        let gp = match ground::ground(&fe.program, &budget) {
            Ok(gp) => gp,
            Err(e) => {
                let e = CodegenError::Ground(e).message(Caller::Cli);
                eprintln!("error: {path}: {e}");
                worst = worst.max(status::INVALID);
                continue;
            }
        };
        let total = t0.elapsed();
        let mut out = std::io::stdout().lock();
        if args.stats {
            let s = &gp.stats;
            let _ = writeln!(
                out,
                "{path}: ground in {:.3} s (read+check {:.3}, domains {:.3}, instantiate {:.3}, simplify {:.3}); {}; {} domain atoms, {} instances, {} derived before simplification",
                total.as_secs_f64(),
                (t1 - t0).as_secs_f64(),
                s.domains_time.as_secs_f64(),
                s.instantiate_time.as_secs_f64(),
                s.simplify_time.as_secs_f64(),
                gp.size_line(),
                s.domain_atoms,
                s.instances,
                s.raw_derived,
            );
            let largest: Vec<String> = s
                .largest_relations
                .iter()
                .map(|(n, k)| format!("{n} {k}"))
                .collect();
            let _ = writeln!(out, "{path}: largest relations: {}", largest.join(", "));
            if let Some(b) = s.file_base {
                let _ = writeln!(
                    out,
                    "{path}: the file's base has {b} fluents; {} computed fluents are not among them",
                    s.base_not_in_file
                );
            }
            if let Some(i) = s.file_input {
                let _ = writeln!(
                    out,
                    "{path}: the file's input has {i} moves; {} computed moves are not among them",
                    s.input_not_in_file
                );
            }
        } else if !args.dump && !args.dump_bitnet {
            let threshold = table_threshold(&gp, &EmitOptions::default());
            let size = code_size(&Compiled::new(&gp).net, threshold);
            let _ = writeln!(
                out,
                "{path}: {}; code of {} tests, rule tables of {} literals",
                gp.size_line(),
                size.tests,
                size.table_literals
            );
        }
        if args.dump {
            let _ = write!(out, "{}", gp.summary(args.dump_rules));
        }
        if args.dump_bitnet {
            let compiled = Compiled::new(&gp);
            let program = compiled.program(&gp);
            if program.logical.is_some() {
                let _ = writeln!(
                    out,
                    "fluents relaid densely: {} bits for {} fluents",
                    program.fluents.len(),
                    gp.fluents.len()
                );
            }
            let _ = write!(out, "{}", compiled.net.summary());
        }
    }
    worst
}
