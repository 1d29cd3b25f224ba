//! The expansion cache: a second expansion of a game is a hit (the compiler
//! does not run), a changed option, game file or compiler build is a miss,
//! and two expansions at once leave a valid cache.

use std::path::Path;
use std::str::FromStr;

use gdl_codegen::expand::{gdl_with, ExpansionCache, Outcome};
use proc_macro2::TokenStream;

const NIM: &str = "(role a) (role b) (init (sticks 3)) (init (control a))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal ?p take) (true (control ?p)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (sticks ?m)) (does ?p take) (true (sticks ?n)) (succ ?m ?n))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= terminal (true (sticks 0)))
(<= (goal ?p 100) (true (control ?p)) (true (sticks 0)))
(<= (goal ?p 0) (role ?p) (not (true (control ?p))))";

/// The macro input for the game file `path` with extra statements.
fn input(path: &Path, extra: &str) -> TokenStream {
    let text = format!(
        "mod nim; struct Nim; include {:?}; {extra}",
        path.display().to_string()
    );
    TokenStream::from_str(&text).unwrap()
}

fn expand(cache: &ExpansionCache, path: &Path, extra: &str) -> (String, Outcome) {
    let (tokens, outcome) = gdl_with(input(path, extra), Some(cache));
    (tokens.to_string(), outcome)
}

/// A cache directory and a game file in a fresh temporary directory.
fn setup() -> (tempfile::TempDir, ExpansionCache, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let cache = ExpansionCache::in_dir(&tmp.path().join("cache"), "build-1").unwrap();
    let game = tmp.path().join("nim.kif");
    std::fs::write(&game, NIM).unwrap();
    (tmp, cache, game)
}

#[test]
fn a_second_expansion_is_a_hit_with_the_same_tokens() {
    let (_tmp, cache, game) = setup();
    let (first, outcome) = expand(&cache, &game, "");
    assert_eq!(outcome, Outcome::Miss);
    assert!(
        first.contains("impl :: gdl_runtime :: Game for Nim"),
        "{first}"
    );
    let (second, outcome) = expand(&cache, &game, "");
    assert_eq!(outcome, Outcome::Hit);
    assert_eq!(first, second);
}

#[test]
fn a_changed_option_game_or_compiler_build_is_a_miss() {
    let (tmp, cache, game) = setup();
    assert_eq!(expand(&cache, &game, "").1, Outcome::Miss);
    assert_eq!(expand(&cache, &game, "backend = lifted;").1, Outcome::Miss);
    assert_eq!(expand(&cache, &game, "backend = lifted;").1, Outcome::Hit);
    assert_eq!(
        expand(&cache, &game, "max_code_tests = 5000;").1,
        Outcome::Miss
    );

    std::fs::write(&game, NIM.replace("(sticks 3)", "(sticks 2)")).unwrap();
    let (edited, outcome) = expand(&cache, &game, "");
    assert_eq!(outcome, Outcome::Miss);
    assert_eq!(expand(&cache, &game, "").1, Outcome::Hit);

    let rebuilt = ExpansionCache::in_dir(&tmp.path().join("cache"), "build-2").unwrap();
    let (again, outcome) = expand(&rebuilt, &game, "");
    assert_eq!(outcome, Outcome::Miss);
    assert_eq!(edited, again, "the same compiler output under either build");
}

#[test]
fn an_invalid_game_is_not_stored() {
    let (_tmp, cache, game) = setup();
    std::fs::write(&game, "(role a) (<= (next (p ?x)) (true q))").unwrap();
    let (tokens, outcome) = expand(&cache, &game, "");
    assert_eq!(outcome, Outcome::Uncached);
    assert!(tokens.contains("compile_error"), "{tokens}");
    assert_eq!(expand(&cache, &game, "").1, Outcome::Uncached);
}

#[test]
fn two_expansions_at_once_leave_a_valid_cache() {
    let (tmp, cache, game) = setup();
    let results: Vec<(String, Outcome)> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| expand(&cache, &game, "")))
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(results[0].0, results[1].0);
    let (third, outcome) = expand(&cache, &game, "");
    assert_eq!(outcome, Outcome::Hit);
    assert_eq!(third, results[0].0);
    // One entry, no temporary file left behind.
    let entries: Vec<_> = std::fs::read_dir(tmp.path().join("cache/expand"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
}
