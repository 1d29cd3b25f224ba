//! Layering: the folder-level import graph of `src/` has no cycle (issue 45).
//!
//! A unit is a top-level folder of `src/` (`front`, `ground`, ...), a folder
//! under `backend/` or `reasoner/` (`backend/lifted`, `reasoner/interp`, ...),
//! or a top-level file (`session`, `builder`, `lib`). Unit A depends on unit B
//! when a file of A names an item of B: a `crate::` or `super::` path, in a
//! `use` (groups expanded) or in code, or a path through a name such a `use`
//! imported. Test code is left out: items under `#[cfg(test)]`, the files of
//! `#[cfg(test)] mod x;`, `tests/` and the binary (`src/bin`, another crate).
//!
//! `cargo test -p gdl-codegen --test layers -- --nocapture` prints the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Folders whose subfolders are units of their own.
const SPLIT: &[&str] = &["backend", "reasoner"];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// Tokens of Rust source without comments, string and char literals,
/// lifetimes and numbers: what paths are made of.
fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    // Skips a string body from just after its opening quote; `hashes` for raw.
    fn skip_string(c: &[char], mut i: usize, raw: Option<usize>, line: &mut usize) -> usize {
        while i < c.len() {
            match c[i] {
                '\n' => *line += 1,
                '\\' if raw.is_none() => {
                    if c.get(i + 1) == Some(&'\n') {
                        *line += 1;
                    }
                    i += 1;
                }
                '"' => {
                    let n = raw.unwrap_or(0);
                    if (1..=n).all(|k| c.get(i + k) == Some(&'#')) {
                        return i + 1 + n;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        i
    }
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1, None, &mut line);
        } else if ch == '\'' {
            if c.get(i + 1) == Some(&'\\') {
                // An escaped char literal: up to its closing quote.
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // A lifetime or label.
                i += 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
        } else if ident_start(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let next = c.get(i).copied();
            if matches!(word.as_str(), "r" | "br" | "cr") && next == Some('#') {
                let mut n = 0;
                while c.get(i + n) == Some(&'#') {
                    n += 1;
                }
                if c.get(i + n) == Some(&'"') {
                    i = skip_string(&c, i + n + 1, Some(n), &mut line);
                } else {
                    // A raw identifier, `r#type`.
                    i += 1;
                    let start = i;
                    while i < c.len() && ident_char(c[i]) {
                        i += 1;
                    }
                    let word = c[start..i].iter().collect();
                    out.push(Token {
                        tok: Tok::Ident(word),
                        line,
                    });
                }
            } else if matches!(word.as_str(), "r" | "br" | "cr") && next == Some('"') {
                i = skip_string(&c, i + 1, Some(0), &mut line);
            } else if matches!(word.as_str(), "b" | "c") && next == Some('"') {
                i = skip_string(&c, i + 1, None, &mut line);
            } else if word == "b" && next == Some('\'') {
                i += 1;
                if c.get(i + 1) == Some(&'\\') {
                    i += 2;
                }
                while i + 1 < c.len() && c[i + 1] != '\'' {
                    i += 1;
                }
                i += 2;
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                });
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Token {
                tok: Tok::Sep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

fn is_ident(t: Option<&Token>, word: &str) -> bool {
    matches!(t, Some(Token { tok: Tok::Ident(w), .. }) if w == word)
}

fn is_punct(t: Option<&Token>, ch: char) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(p), .. }) if *p == ch)
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(w), ..
        }) => Some(w),
        _ => None,
    }
}

/// The index just past the group opened at `i` (`(`, `[` or `{`).
fn skip_group(toks: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// `#[cfg(test)]` at `i`?
fn is_cfg_test(toks: &[Token], i: usize) -> bool {
    let want = ["#", "[", "cfg", "(", "test", ")", "]"];
    want.iter()
        .enumerate()
        .all(|(k, w)| match toks.get(i + k).map(|t| &t.tok) {
            Some(Tok::Ident(x)) => x == w,
            Some(Tok::Punct(p)) => w.len() == 1 && w.starts_with(*p),
            _ => false,
        })
}

/// The tokens outside items under `#[cfg(test)]`, and the names of the
/// modules `#[cfg(test)] mod x;` declares (files to leave out).
fn strip_tests(toks: &[Token]) -> (Vec<Token>, Vec<String>) {
    let mut out = Vec::new();
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !is_cfg_test(toks, i) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        // Further attributes, then the visibility.
        while is_punct(toks.get(i), '#') && is_punct(toks.get(i + 1), '[') {
            i = skip_group(toks, i + 1);
        }
        if is_ident(toks.get(i), "pub") {
            i += 1;
            if is_punct(toks.get(i), '(') {
                i = skip_group(toks, i);
            }
        }
        if is_ident(toks.get(i), "mod") && is_punct(toks.get(i + 2), ';') {
            test_mods.push(ident(toks.get(i + 1)).unwrap_or_default().to_string());
        }
        let is_use = is_ident(toks.get(i), "use");
        // The item ends at a `;` outside brackets or with its first `{ .. }`
        // (a `use` only at its `;`).
        while i < toks.len() {
            match toks[i].tok {
                Tok::Punct(';') => {
                    i += 1;
                    break;
                }
                Tok::Punct('{') if !is_use => {
                    i = skip_group(toks, i);
                    break;
                }
                Tok::Punct('(' | '[' | '{') => i = skip_group(toks, i),
                _ => i += 1,
            }
        }
    }
    (out, test_mods)
}

/// A path a `use` names, `as` alias, or `*` last.
#[derive(Debug, Clone, PartialEq)]
struct UsePath {
    segs: Vec<String>,
    alias: Option<String>,
}

/// Parses the use tree at `*i` into `out` with `prefix`; leaves `*i` past it.
fn use_tree(toks: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segs = prefix.to_vec();
    loop {
        match toks.get(*i).map(|t| &t.tok) {
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Ident(w)) => {
                segs.push(w.clone());
                *i += 1;
                if is_ident(toks.get(*i), "as") {
                    let alias = ident(toks.get(*i + 1)).map(str::to_string);
                    *i += 2;
                    out.push(UsePath { segs, alias });
                    return;
                }
                if !matches!(toks.get(*i).map(|t| &t.tok), Some(Tok::Sep)) {
                    out.push(UsePath { segs, alias: None });
                    return;
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                segs.push("*".to_string());
                out.push(UsePath { segs, alias: None });
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while !is_punct(toks.get(*i), '}') && *i < toks.len() {
                    use_tree(toks, i, &segs, out);
                    if is_punct(toks.get(*i), ',') {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
    }
}

/// One file: its module path (`["ground", "relayout"]`) and tokens.
struct SourceFile {
    rel: String,
    module: Vec<String>,
    toks: Vec<Token>,
    test_mods: Vec<String>,
}

/// A reference: the line it is on and the absolute path it names.
struct Ref {
    line: usize,
    path: Vec<String>,
}

/// The absolute path `segs` names from module `here` (`children`: the
/// modules this file declares), or `None` for another crate or a local name.
fn resolve(segs: &[String], here: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let first = segs.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => vec![],
        "self" => here.to_vec(),
        "super" => {
            let mut base = here.to_vec();
            let mut k = 0;
            while segs.get(k).map(String::as_str) == Some("super") {
                base.pop()?;
                k += 1;
            }
            base.extend(segs[k..].iter().cloned());
            return Some(base);
        }
        w if children.contains(w) => {
            let mut base = here.to_vec();
            base.push(w.to_string());
            base
        }
        _ => return None,
    };
    base.extend(segs[1..].iter().cloned());
    Some(base)
}

/// Every reference of a file to an item of the crate.
fn references(file: &SourceFile) -> Vec<Ref> {
    let toks = &file.toks;
    // Modules this file declares, and the inline module each token is in.
    let mut children = BTreeSet::new();
    let mut scope: Vec<Vec<String>> = Vec::with_capacity(toks.len());
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        let mut module = file.module.clone();
        module.extend(stack.iter().map(|(n, _)| n.clone()));
        scope.push(module);
        match t.tok {
            Tok::Punct('{') => {
                depth += 1;
                if i >= 2 && is_ident(toks.get(i - 2), "mod") {
                    if let Some(name) = ident(toks.get(i - 1)) {
                        stack.push((name.to_string(), depth));
                    }
                }
            }
            Tok::Punct('}') => {
                if stack.last().is_some_and(|&(_, d)| d == depth) {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(ref w) if w == "mod" && stack.is_empty() => {
                if let Some(name) = ident(toks.get(i + 1)) {
                    children.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
    let mut refs = Vec::new();
    // Names `use` brings into scope, for paths through them.
    let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut in_use = vec![false; toks.len()];
    let mut i = 0;
    while i < toks.len() {
        let after_sep = i > 0 && matches!(toks[i - 1].tok, Tok::Sep);
        if is_ident(toks.get(i), "use") && !after_sep {
            let start = i;
            i += 1;
            let mut paths = Vec::new();
            use_tree(toks, &mut i, &[], &mut paths);
            for p in &mut paths {
                if p.segs.last().map(String::as_str) == Some("self") {
                    p.segs.pop();
                }
                let Some(abs) = resolve(&p.segs, &scope[start], &children) else {
                    continue;
                };
                let name = p.alias.clone().or_else(|| p.segs.last().cloned());
                if let Some(name) = name.filter(|n| n != "*" && n != "_") {
                    aliases.insert(name, abs.clone());
                }
                let abs: Vec<String> = abs.into_iter().filter(|s| s != "*").collect();
                refs.push(Ref {
                    line: toks[start].line,
                    path: abs,
                });
            }
            in_use[start..i.min(toks.len())]
                .iter_mut()
                .for_each(|b| *b = true);
        } else {
            i += 1;
        }
    }
    // Paths in code: `crate::..`, `super::..`, `self::..`, a child module's
    // or an imported name's.
    for i in 0..toks.len() {
        if in_use[i] || i > 0 && matches!(toks[i - 1].tok, Tok::Sep) {
            continue;
        }
        let Some(w) = ident(toks.get(i)) else {
            continue;
        };
        if !matches!(toks.get(i + 1).map(|t| &t.tok), Some(Tok::Sep)) {
            continue;
        }
        let mut segs = vec![w.to_string()];
        let mut k = i + 1;
        while matches!(toks.get(k).map(|t| &t.tok), Some(Tok::Sep)) {
            match ident(toks.get(k + 1)) {
                Some(s) => segs.push(s.to_string()),
                None => break,
            }
            k += 2;
        }
        let dollar = i > 0 && is_punct(toks.get(i - 1), '$');
        let abs = match (w, aliases.get(w)) {
            ("crate" | "self" | "super", _) => resolve(&segs, &scope[i], &children),
            (_, Some(base)) if !dollar => {
                let mut abs = base.clone();
                abs.extend(segs[1..].iter().cloned());
                Some(abs)
            }
            _ => resolve(&segs, &scope[i], &children),
        };
        if let Some(path) = abs {
            refs.push(Ref {
                line: toks[i].line,
                path,
            });
        }
    }
    refs
}

/// The unit of an absolute module path.
fn unit_of(src: &Path, path: &[String]) -> String {
    let Some(first) = path.first() else {
        return "lib".to_string();
    };
    if SPLIT.contains(&first.as_str()) {
        if let Some(second) = path.get(1) {
            if src.join(first).join(second).is_dir() {
                return format!("{first}/{second}");
            }
        }
        return first.clone();
    }
    if src.join(first).is_dir() || src.join(format!("{first}.rs")).is_file() {
        first.clone()
    } else {
        // An item of lib.rs itself (`crate::Builder`).
        "lib".to_string()
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("reads src")
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn read_sources(src: &Path) -> Vec<SourceFile> {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let mut files = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(src).unwrap();
        let mut module: Vec<String> = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if module[0] == "bin" {
            continue;
        }
        let last = module.pop().unwrap();
        let stem = last.strip_suffix(".rs").unwrap();
        if !(stem == "mod" || module.is_empty() && stem == "lib") {
            module.push(stem.to_string());
        }
        let text = fs::read_to_string(&path).expect("reads a source file");
        let (toks, test_mods) = strip_tests(&lex(&text));
        let rel = rel.to_string_lossy().replace('\\', "/");
        files.push(SourceFile {
            rel,
            module,
            toks,
            test_mods,
        });
    }
    // Leave out the files of test modules (`#[cfg(test)] mod tests;`).
    let test_modules: Vec<Vec<String>> = files
        .iter()
        .flat_map(|f| {
            f.test_mods.iter().map(|m| {
                let mut p = f.module.clone();
                p.push(m.clone());
                p
            })
        })
        .collect();
    files.retain(|f| !test_modules.iter().any(|t| f.module.starts_with(t)));
    files
}

/// Unit graph: edge (from, to) and where it is made (`file:line`).
type Graph = BTreeMap<(String, String), Vec<String>>;

fn graph(src: &Path) -> Graph {
    let mut edges = Graph::new();
    for file in read_sources(src) {
        let from = unit_of(src, &file.module);
        for r in references(&file) {
            let to = unit_of(src, &r.path);
            if to != from {
                let at = format!("{}:{}", file.rel, r.line);
                let list = edges.entry((from.clone(), to)).or_default();
                if !list.contains(&at) {
                    list.push(at);
                }
            }
        }
    }
    edges
}

/// The strongly connected components with more than one unit.
fn cycles(edges: &Graph) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| {
        let mut seen = BTreeSet::from([from.clone()]);
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for (a, b) in edges.keys() {
                if *a == n && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) {
            continue;
        }
        let scc: Vec<String> = nodes
            .iter()
            .filter(|m| reaches[n].contains(**m) && reaches[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        done.extend(scc.iter().cloned());
        if scc.len() > 1 {
            out.push(scc);
        }
    }
    out
}

/// A shortest cycle through `start` inside `scc`.
fn cycle_through(edges: &Graph, scc: &[String], start: &String) -> Vec<String> {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(n) = queue.pop_front() {
        for (a, b) in edges.keys() {
            if *a != n || !scc.contains(b) {
                continue;
            }
            if b == start {
                let mut path = vec![n.clone()];
                while path.last() != Some(start) {
                    path.push(prev[path.last().unwrap()].clone());
                }
                path.reverse();
                path.push(start.clone());
                return path;
            }
            if !prev.contains_key(b) {
                prev.insert(b.clone(), n.clone());
                queue.push_back(b.clone());
            }
        }
    }
    unreachable!("a unit of a strongly connected component is on a cycle")
}

#[test]
fn the_folder_import_graph_has_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    println!(
        "folder import graph of gdl-codegen/src ({} edges):",
        edges.len()
    );
    for ((a, b), at) in &edges {
        let s = if at.len() == 1 { "" } else { "s" };
        println!("  {a} -> {b}  ({} reference{s}, first {})", at.len(), at[0]);
    }
    // Guard against a scanner that finds nothing.
    for (a, b) in [
        ("session", "front"),
        ("backend/lifted", "rules"),
        ("lib", "session"),
    ] {
        assert!(
            edges.contains_key(&(a.to_string(), b.to_string())),
            "the scanner misses {a} -> {b}"
        );
    }
    let found = cycles(&edges);
    let mut report = String::new();
    for scc in &found {
        report += &format!("\ncycle among {{{}}}:\n", scc.join(", "));
        for start in scc {
            let cycle = cycle_through(&edges, scc, start);
            report += &format!("  {}\n", cycle.join(" -> "));
        }
        for ((a, b), at) in &edges {
            if scc.contains(a) && scc.contains(b) {
                report += &format!("    {a} -> {b}: {}\n", at.join(", "));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the folder import graph has cycles:{report}"
    );
}

#[test]
fn the_scanner_reads_groups_aliases_and_skips_tests() {
    let text = r#"
        use crate::{a::x, b::{self as bee, y::z}, c::*};
        use super::sibling::Thing;
        use std::fmt;
        mod child;
        pub(crate) fn f() -> crate::d::T { let s = "crate::e::no"; bee::q::r(); child::g(); crate::f::h() }
        /* crate::g::no */
        // crate::h::no
        #[cfg(test)]
        use crate::i::no;
        #[cfg(test)]
        mod tests {
            use crate::j::no;
        }
        #[cfg(test)]
        mod more;
        mod inner { use super::super::k::Y; }
        fn g<'a>(c: char) { let _ = '{'; let _ = r"}"; crate::l::m!(); }
    "#;
    let (toks, test_mods) = strip_tests(&lex(text));
    assert_eq!(test_mods, ["more"]);
    let file = SourceFile {
        rel: "x.rs".into(),
        module: vec!["top".into(), "x".into()],
        toks,
        test_mods,
    };
    let mut named: Vec<String> = references(&file)
        .iter()
        .map(|r| r.path.join("::"))
        .collect();
    named.sort();
    named.dedup();
    let expect = [
        "a::x",
        "b",
        "b::q::r",
        "b::y::z",
        "c",
        "d::T",
        "f::h",
        "l::m",
        "top::k::Y",
        "top::sibling::Thing",
        "top::x::child::g",
    ];
    assert_eq!(named, expect);
}

/// No two files of the crate share a name, but `mod.rs` and the files of
/// the two back ends that hold the same role for each (each back end's
/// `module.rs`, say): a reader who meets a name knows which file it is.
#[test]
fn file_names_do_not_collide() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let files: Vec<PathBuf> = (files.iter())
        .map(|f| f.strip_prefix(&src).expect("under src").to_path_buf())
        .collect();
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        by_name
            .entry(name)
            .or_default()
            .push(f.display().to_string());
    }
    let parallel = |paths: &Vec<String>| {
        paths.len() == 2
            && paths.iter().any(|p| p.starts_with("backend/ground/"))
            && paths.iter().any(|p| p.starts_with("backend/lifted/"))
    };
    let collisions: Vec<String> = (by_name.iter())
        .filter(|(name, paths)| paths.len() > 1 && *name != "mod.rs" && !parallel(paths))
        .map(|(name, paths)| format!("{name}: {}", paths.join(", ")))
        .collect();
    assert!(files.len() > 100, "source files: {}", files.len());
    assert!(
        collisions.is_empty(),
        "file names shared:\n{}",
        collisions.join("\n")
    );
}
