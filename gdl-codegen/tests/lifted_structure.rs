//! The lifted back end's structure, read from its sources: every number
//! that chooses between two ways of computing lives in its cost model, and
//! the printer reads the plan, never the planner's estimates.

use std::fs;
use std::path::PathBuf;

/// The folder of the lifted back end.
fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/backend/lifted")
}

/// Each source file of the folder, by name, with its code outside
/// `#[cfg(test)]` modules and comments.
fn sources() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(folder())
        .expect("the lifted back end's folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                code_of(&fs::read_to_string(&p).expect("a source file")),
            )
        })
        .collect();
    files.sort();
    assert!(files.len() > 20, "the folder's files: {}", files.len());
    files
}

/// `text` without its `#[cfg(test)]` modules (each runs to the end of the
/// file in this folder's sources) and without line comments.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The numeric literals of `line` that contain a decimal point or an
/// exponent: `0.25`, `1e-3`, `8f64`.
fn float_literals(line: &str) -> Vec<String> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            // A signed exponent: `1e-3`.
            let signed = bytes[i] == b'e' && matches!(bytes.get(i + 1), Some(b'-' | b'+'));
            i += if signed { 2 } else { 1 };
        }
        // A fraction, unless it is a method call or a range (`1..n`).
        if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        }
        let lit = &line[start..i];
        let suffixes = ["usize", "isize", "u64", "u32", "u16", "u8", "i64", "i32"];
        let bare = suffixes
            .iter()
            .fold(lit, |l, s| l.strip_suffix(s).unwrap_or(l));
        let float = lit.contains('.') || lit.ends_with("f64") || lit.ends_with("f32");
        let exponent = bare.contains('e') && !lit.starts_with("0x");
        if float || exponent {
            found.push(lit.to_owned());
        }
    }
    found
}

#[test]
fn float_literals_are_found() {
    assert_eq!(float_literals("a * 0.25 + 8f64.powi(2)"), ["0.25", "8f64"]);
    assert_eq!(float_literals("x.max(1e-3) + v1 + 0..n"), ["1e-3"]);
    assert!(float_literals("let v2 = row[1]; 1 << 16; 1usize").is_empty());
}

/// No numeric constant of the lifted back end lives outside `cost.rs`: no
/// `const` of a numeric type, no fractional number but 0 and 1 (the
/// unit of work: one lookup).
#[test]
fn every_threshold_lives_in_the_cost_model() {
    let numeric = [
        "f64", "f32", "usize", "u64", "u32", "u16", "u8", "i64", "i32", "isize",
    ];
    let mut outside = Vec::new();
    for (name, code) in sources() {
        if name == "cost.rs" {
            continue;
        }
        for (n, line) in code.lines().enumerate() {
            let trimmed = line.trim_start();
            // Constants printed into generated code sit in `quote!`, and a
            // flag or sentinel (`EXISTS`, `u32::MAX`) is not a number one
            // tunes: a numeric type given a literal is.
            let declared = trimmed
                .split_once("const ")
                .and_then(|(_, rest)| rest.split_once(": "))
                .and_then(|(_, rest)| rest.split_once(" = "))
                .filter(|(ty, value)| {
                    // A value printed from the cost model (`#name`) is its.
                    numeric.contains(ty)
                        && value.starts_with(|c: char| c.is_ascii_digit())
                        && !value.contains('#')
                });
            if declared.is_some() {
                outside.push(format!("{name}:{}: {trimmed}", n + 1));
            }
            for lit in float_literals(line) {
                let value: Option<f64> = lit.trim_end_matches("f64").parse().ok();
                if !matches!(value, Some(v) if v == 0.0 || v == 1.0) {
                    outside.push(format!("{name}:{}: {lit} in `{trimmed}`", n + 1));
                }
            }
        }
    }
    assert!(
        outside.is_empty(),
        "numbers outside cost.rs:\n{}",
        outside.join("\n")
    );
}

/// Every constant of the cost model says what it trades and what set it:
/// a commit's measurement, or `unmeasured`.
#[test]
fn every_threshold_names_its_measurement() {
    let text = fs::read_to_string(folder().join("cost.rs")).expect("cost.rs");
    let mut doc = String::new();
    let mut missing = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let line = line.trim();
        if let Some(d) = line.strip_prefix("///") {
            doc.push_str(d);
            doc.push(' ');
        } else if let Some(rest) = line.strip_prefix("pub const ") {
            count += 1;
            let name = rest.split(':').next().unwrap_or(rest);
            // A commit is seven hex digits or more.
            let cites_commit = doc.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
                w.len() >= 7
                    && w.chars().all(|c| c.is_ascii_hexdigit())
                    && w.chars().any(|c| c.is_ascii_digit())
            });
            let refers = doc.contains("See [`") || doc.contains("[`LITERAL_PRICE`] for");
            if !(cites_commit || doc.contains("unmeasured") || refers) {
                missing.push(name.to_owned());
            }
            doc.clear();
        } else if !line.starts_with("//") {
            doc.clear();
        }
    }
    assert!(count > 50, "constants in cost.rs: {count}");
    assert!(
        missing.is_empty(),
        "without a measurement or `unmeasured`: {missing:?}"
    );
}

/// The printer reads the plan and the record of what it prints, never the
/// planner's catalogue or its estimates.
#[test]
fn printing_modules_do_not_read_the_estimates() {
    let printers = [
        "answers.rs",
        "body.rs",
        "evaluation.rs",
        "functions.rs",
        "game_impl.rs",
        "module.rs",
        "needs.rs",
        "queries.rs",
        "recursion.rs",
        "rule_bodies.rs",
        "statics.rs",
        "plan_summary.rs",
        "tables.rs",
    ];
    let forbidden = [
        "Estimates",
        "estimates::",
        "Catalog",
        "planner::",
        "plan_rule",
    ];
    let sources = sources();
    let mut found = Vec::new();
    for printer in printers {
        let (_, code) = (sources.iter().find(|(n, _)| n == printer))
            .unwrap_or_else(|| panic!("{printer} is a printing module of the folder"));
        for (n, line) in code.lines().enumerate() {
            for f in forbidden {
                if line.contains(f) {
                    found.push(format!("{printer}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the printer reads the planner:\n{}",
        found.join("\n")
    );
}
