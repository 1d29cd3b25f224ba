//! Grounder: exact sizes on small games, the budget error, and propnet
//! replays of conformance traces.

use gdl_codegen::front::ir::Program;
use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget, GroundError, GroundProgram, Output};
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_runtime::{replay, Game, Trace};

const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");
const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/conformance");

fn program(rel: &str) -> Program {
    let path = format!("{GAMES}/{rel}");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    assert!(fe.is_valid(), "{path}: {}", fe.render_diagnostics(false));
    fe.program
}

fn ground(rel: &str) -> GroundProgram {
    ground::ground(&program(rel), &Budget::default()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn tic_tac_toe_sizes() {
    let gp = ground("ggp-repository-base/ticTacToe.kif");
    // 9 cells × {b, x, o} + (control xplayer) + (control oplayer).
    assert_eq!(gp.fluents.len(), 29);
    assert_eq!(gp.roles, ["xplayer", "oplayer"]);
    // 9 marks and noop for each role, in byte order of their text.
    for moves in &gp.moves {
        assert_eq!(moves.len(), 10);
        assert_eq!(moves[0], "(mark 1 1)");
        assert_eq!(moves[9], "noop");
    }
    // Nine blank cells and (control xplayer).
    assert_eq!(gp.init.len(), 10);
    assert!(gp
        .init
        .iter()
        .any(|&f| gp.fluents[f as usize] == "(control xplayer)"));
    assert_eq!(gp.fluents[0], "(cell 1 1 b)");
    let mut sorted = gp.fluents.clone();
    sorted.sort();
    assert_eq!(sorted, gp.fluents);
    // The file's base and input agree with the computed ones.
    assert_eq!(gp.stats.file_base, Some(29));
    assert_eq!(gp.stats.base_not_in_file, 0);
    assert_eq!(gp.stats.file_input, Some(20));
    assert_eq!(gp.stats.input_not_in_file, 0);
    // Every output is an atom or a constant, and atoms are in range.
    let n = gp.num_atoms();
    let outs = gp
        .legal
        .iter()
        .flatten()
        .chain(&gp.next)
        .chain([&gp.terminal]);
    for o in outs {
        if let Output::Atom(a) = o {
            assert!(a.0 < n);
        }
    }
    // Rules are sorted by head and bodies only mention earlier atoms
    // (no recursion in tic-tac-toe).
    for r in &gp.rules {
        assert!(r.head.0 >= gp.num_inputs);
        assert!(r.body.iter().all(|l| l.atom().0 < r.head.0));
    }
    assert_eq!(gp.num_cyclic(), 0);
    assert!(gp.summary(10).contains("(mark 1 1)"));
}

#[test]
fn computed_base_matches_file_base() {
    // These files give base/input; the computed sets must be subsets, and
    // here they are equal.
    for rel in [
        "ggp-repository-base/connectFour.kif",
        "ggp-repository-base/breakthrough.kif",
    ] {
        let gp = ground(rel);
        assert_eq!(gp.stats.base_not_in_file, 0, "{rel}");
        assert_eq!(gp.stats.input_not_in_file, 0, "{rel}");
        assert_eq!(Some(gp.fluents.len()), gp.stats.file_base, "{rel}");
    }
}

#[test]
fn zero_arity_parens_stay_apart() {
    let text = "(role r) (init (p)) (init p) (<= (next (p)) (true p)) (<= (next p) (true (p)))
        (<= (legal r a) (true (p))) (<= (legal r b) (true p))
        (<= terminal (not (true p))) (<= (goal r 100) (true (p)))";
    let fe = front::run_bytes("t.kif", text.as_bytes(), &Options::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    let gp = ground::ground(&fe.program, &Budget::default()).unwrap();
    assert_eq!(gp.fluents, ["(p)", "p"]);
    let net = Propnet::new(&gp);
    let s = net.initial_state();
    assert_eq!(net.fluents(&s), ["(p)", "p"]);
    assert!(net.parse_state("(p)").unwrap() != net.parse_state("p").unwrap());
}

#[test]
fn budget_error_names_the_relation() {
    let p = program("ggp-repository-base/breakthrough.kif");
    let err = ground::ground(&p, &Budget::new(100, 1 << 30)).unwrap_err();
    let GroundError::Budget { relation, .. } = &err;
    assert!(!relation.is_empty());
    let msg = err.to_string();
    assert!(
        msg.contains("budget") && msg.contains(relation.as_str()),
        "{msg}"
    );
    // A roomy rule budget but tiny memory fails too.
    assert!(ground::ground(&p, &Budget::new(usize::MAX, 1 << 10)).is_err());
}

fn replay_trace(rel: &str) {
    let gp = ground(rel);
    let net = Propnet::new(&gp);
    let stem = rel.rsplit_once('.').unwrap().0;
    let trace = Trace::read(format!("{CONFORMANCE}/{stem}.trace")).unwrap();
    let summary = replay(&net, &trace).unwrap_or_else(|d| panic!("{rel}: {d}"));
    assert!(summary.states > 0);
}

#[test]
fn replays_tic_tac_toe() {
    replay_trace("ggp-repository-base/ticTacToe.kif");
}

#[test]
fn replays_connect_four() {
    replay_trace("ggp-repository-base/connectFour.kif");
}

#[test]
fn replays_simultaneous_games() {
    replay_trace("ggp-repository-base/connectFourSimultaneous.kif");
    replay_trace("ggp-repository-base/ticTacToeParallel.kif");
}

#[test]
fn replays_many_role_games() {
    replay_trace("ggp-repository-base/chineseCheckers4.kif");
    replay_trace("ggp-repository-base/tictactoe_3d_6player.kif");
}

#[test]
fn replays_recursive_games() {
    // Positive recursion within a state (cyclic ground components).
    replay_trace("ggp-repository-base/breakthrough.kif");
    replay_trace("ggp-repository-base/eightPuzzle.kif");
}
