//! The interpreter against GGP-Base's own prover tests
//! (`ProverStateMachineTest.java`, expectations listed in
//! `shared/games/README.md`), and against conformance traces recorded with
//! GGP-Base's prover.

mod common;

use gdl_codegen::front::{self, Options};
use gdl_codegen::reasoner::interp::{Interpreter, State};
use gdl_runtime::{trace, Game, Goal, Move};

fn load(rel: &str) -> Interpreter {
    let path = common::games().join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fe = front::run_bytes(rel, &bytes, &Options::default());
    let program = fe
        .valid_program()
        .unwrap_or_else(|| panic!("{rel} is invalid:\n{}", fe.render_diagnostics(false)));
    Interpreter::new(program).unwrap()
}

fn legal(g: &Interpreter, s: &State, role: usize) -> Vec<String> {
    let mut out = Vec::new();
    g.legal_moves(s, role, &mut out);
    out.iter().map(|&m| g.move_text(role, m)).collect()
}

fn play(g: &Interpreter, s: &State, moves: &[&str]) -> State {
    let joint: Vec<Move> = moves
        .iter()
        .enumerate()
        .map(|(r, m)| g.parse_move(r, m).unwrap())
        .collect();
    g.next_state(s, &joint).unwrap()
}

fn test_game(name: &str) -> Interpreter {
    load(&format!("ggp-base/test/{name}.kif"))
}

#[test]
fn case_1a() {
    let g = test_game("test_case_1a");
    assert_eq!(g.role_names(), ["you"]);
    let s = g.initial_state();
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
    assert_eq!(legal(&g, &s, 0), ["proceed"]);
    let s = play(&g, &s, &["proceed"]);
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
}

#[test]
fn case_3c() {
    let g = test_game("test_case_3c");
    let x = g.role_names().iter().position(|r| *r == "xplayer").unwrap();
    let s = g.initial_state();
    assert_eq!(legal(&g, &s, x), ["win"]);
    let joint: Vec<String> = (0..g.num_roles())
        .map(|r| legal(&g, &s, r)[0].clone())
        .collect();
    let joint: Vec<&str> = joint.iter().map(|s| s.as_str()).collect();
    let s = play(&g, &s, &joint);
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, x), Goal::Value(100));
}

#[test]
fn cases_5a_5c_5d() {
    for name in ["test_case_5a", "test_case_5c", "test_case_5d"] {
        let g = test_game(name);
        assert_eq!(g.role_names(), ["you"], "{name}");
        let s = g.initial_state();
        assert_eq!(legal(&g, &s, 0), ["proceed"], "{name}");
        let s = play(&g, &s, &["proceed"]);
        assert!(g.is_terminal(&s), "{name}");
        assert_eq!(g.goal(&s, 0), Goal::Value(100), "{name}");
    }
}

#[test]
fn case_5b() {
    let g = test_game("test_case_5b");
    let s = g.initial_state();
    assert_eq!(legal(&g, &s, 0), ["(draw 1 1 1 2)"]);
    let s = play(&g, &s, &["(draw 1 1 1 2)"]);
    assert!(g.is_terminal(&s));
}

#[test]
fn case_5e() {
    let g = test_game("test_case_5e");
    assert_eq!(g.role_names(), ["robot"]);
    let s = g.initial_state();
    assert_eq!(
        legal(&g, &s, 0),
        [
            "(reduce a 0)",
            "(reduce a 1)",
            "(reduce c 0)",
            "(reduce c 1)",
            "(reduce c 2)",
            "(reduce c 3)",
            "(reduce c 4)"
        ]
    );
}

#[test]
fn distinct_beginning_rule() {
    let g = test_game("test_distinct_beginning_rule");
    assert_eq!(g.role_names(), ["you"]);
    let s = g.initial_state();
    assert_eq!(legal(&g, &s, 0).len(), 2);
    let s = play(&g, &s, &["(do a b)"]);
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
}

#[test]
fn tictactoe() {
    let g = load("ggp-repository-base/ticTacToe.kif");
    assert_eq!(g.role_names(), ["xplayer", "oplayer"]);
    let mut s = g.initial_state();
    assert_eq!(legal(&g, &s, 0).len(), 9);
    assert_eq!(legal(&g, &s, 1), ["noop"]);
    for (i, mv) in [
        "(mark 1 1)",
        "(mark 1 3)",
        "(mark 3 1)",
        "(mark 2 2)",
        "(mark 2 1)",
    ]
    .iter()
    .enumerate()
    {
        assert!(!g.is_terminal(&s));
        let joint = if i % 2 == 0 {
            [*mv, "noop"]
        } else {
            ["noop", *mv]
        };
        s = play(&g, &s, &joint);
    }
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
    assert_eq!(g.goal(&s, 1), Goal::Value(0));
}

fn replay(rel: &str) {
    let g = load(rel);
    let stem = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    let t = trace::Trace::read(common::shared().join(format!("conformance/{stem}.trace"))).unwrap();
    if let Err(d) = trace::replay(&g, &t) {
        panic!("{rel}: {d}");
    }
}

#[test]
fn traces_small_games() {
    for game in [
        "ggp-repository-base/ticTacToe.kif",
        "ggp-repository-base/connectFour.kif",
        "ggp-base/test/test_case_5e.kif",
        "ggp-repository-base/ruleDepthLinear.kif",
    ] {
        replay(game);
    }
}
