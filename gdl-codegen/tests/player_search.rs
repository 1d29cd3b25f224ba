//! The player's UCT search on real reasoners: a win taken and a loss
//! blocked, dominant simultaneous moves found (decoupled statistics), a
//! puzzle's best line followed to its goal, transpositions sharing nodes,
//! the tree kept from turn to turn and held under its memory cap.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::player::engine::{Engine, SearchConfig, UctEngine};
use gdl_codegen::player::uct::Tree;
use gdl_codegen::{Interpreter, Propnet};
use gdl_runtime::Game;

fn program(text: &str) -> gdl_codegen::front::ir::Program {
    let fe = front::run_bytes("test", text.as_bytes(), &Options::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    fe.program
}

fn tictactoe() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/games/ggp-repository-base/ticTacToe.kif");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn config() -> SearchConfig {
    SearchConfig {
        threads: 2,
        tree_bytes: 256 << 20,
        seed: 7,
    }
}

/// Searches for `ms` milliseconds.
fn search(engine: &mut dyn Engine, ms: u64) {
    let stop = AtomicBool::new(false);
    let report = engine.search(Instant::now() + Duration::from_millis(ms), &stop);
    assert!(report.simulations > 0);
}

fn play(engine: &mut dyn Engine, joints: &[[&str; 2]]) {
    for joint in joints {
        let joint: Vec<String> = joint.iter().map(|m| m.to_string()).collect();
        engine.advance(&joint).unwrap();
    }
}

#[test]
fn takes_a_win_and_blocks_a_loss() {
    let game = Interpreter::new(&program(&tictactoe())).unwrap();
    let mut engine = UctEngine::new("interpreter", game, config());
    play(
        &mut engine,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 2)"],
            ["(mark 1 2)", "noop"],
        ],
    );
    search(&mut engine, 500);
    assert_eq!(
        engine.best_move(1).as_deref(),
        Some("(mark 1 3)"),
        "oplayer blocks"
    );
    play(&mut engine, &[["noop", "(mark 3 3)"]]);
    search(&mut engine, 500);
    assert_eq!(
        engine.best_move(0).as_deref(),
        Some("(mark 1 3)"),
        "xplayer wins"
    );
}

/// One simultaneous turn where `d` dominates `c` for both roles: each
/// role's own statistics find it.
#[test]
fn simultaneous_moves_find_dominant_strategies() {
    let rules = "
        (role r1) (role r2) (init start)
        (legal r1 c) (legal r1 d) (legal r2 c) (legal r2 d)
        (<= (next (played ?r ?m)) (does ?r ?m))
        (<= terminal (true (played r1 ?m)))
        (other r1 r2) (other r2 r1)
        (score d c 100) (score d d 30) (score c c 60) (score c d 0)
        (<= (goal ?r ?v) (other ?r ?o) (true (played ?r ?a)) (true (played ?o ?b)) (score ?a ?b ?v))
        (<= (goal ?r 0) (role ?r) (true start))";
    let game = Interpreter::new(&program(rules)).unwrap();
    let mut engine = UctEngine::new("interpreter", game, config());
    search(&mut engine, 300);
    assert_eq!(engine.best_move(0).as_deref(), Some("d"));
    assert_eq!(engine.best_move(1).as_deref(), Some("d"));
}

/// A puzzle scoring 100 for one sequence of three moves out of eight and 0
/// otherwise: the best line found is played to the end.
#[test]
fn a_puzzle_follows_its_best_line() {
    let rules = "
        (role p) (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3)
        (legal p a) (legal p b)
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
        (<= (next (seq ?x ?m)) (true (step ?x)) (does p ?m))
        (<= (next (seq ?x ?m)) (true (seq ?x ?m)))
        (<= terminal (true (step 3)))
        (<= win (true (seq 0 b)) (true (seq 1 a)) (true (seq 2 b)))
        (<= (goal p 100) win)
        (<= (goal p 0) (not win))";
    let game = Interpreter::new(&program(rules)).unwrap();
    let mut engine = UctEngine::new("interpreter", game, config());
    for _ in 0..3 {
        search(&mut engine, 100);
        let mv = engine.best_move(0).expect("a move");
        engine.advance(&[mv]).unwrap();
    }
    assert_eq!(engine.goals(), vec![Some(100)]);
}

/// Tic-tac-toe has 5 478 states and hundreds of thousands of move orders:
/// a tree with a transposition table never holds more nodes than states.
/// Moving the root re-roots the tree in place until it passes half its
/// memory cap, then keeps the subtree below the move and drops the rest; a
/// small memory cap holds the tree small.
#[test]
fn transpositions_reuse_and_the_memory_cap() {
    let fe = front::run_bytes("ttt", tictactoe().as_bytes(), &Options::default());
    let gp = ground::ground(&fe.program, &Budget::default()).unwrap();
    let game = Propnet::new(&gp);
    let stop = AtomicBool::new(false);
    let mut tree = Tree::new(&game, game.initial_state(), 1 << 30, 1);
    let done = tree.search(&game, Instant::now() + Duration::from_millis(1500), &stop);
    assert!(done.simulations > 20_000, "{done:?}");
    assert!(tree.len() <= 5478, "{} nodes", tree.len());
    let before = tree.len();
    let mut joint = Vec::new();
    for role in 0..2 {
        let mut moves = Vec::new();
        game.legal_moves(&game.initial_state(), role, &mut moves);
        joint.push(moves[0]);
    }
    tree.advance(&game, &joint);
    assert_eq!(tree.len(), before, "far below the cap: re-rooted in place");
    assert!(!tree.compaction_due());

    let mut full = Tree::new(&game, game.initial_state(), 256 << 10, 1);
    full.search(&game, Instant::now() + Duration::from_millis(300), &stop);
    let before = full.len();
    assert!(full.compaction_due(), "a full tree compacts");
    let kept = full.kept_by(&game, &joint, usize::MAX);
    assert!(kept > 10 && kept < before, "{kept} of {before}");
    assert_eq!(full.kept_by(&game, &joint, 10), 11, "counted up to a limit");
    full.advance(&game, &joint);
    assert_eq!(full.len(), kept, "the count is what the compaction keeps");
    let kept: u32 = (0..2)
        .flat_map(|r| {
            full.root_stats(r)
                .map(|(_, st)| st.visits)
                .collect::<Vec<_>>()
        })
        .sum();
    assert!(kept > 0, "the statistics below the move were kept");

    let mut small = Tree::new(&game, game.initial_state(), 64 << 10, 1);
    let done = small.search(&game, Instant::now() + Duration::from_millis(300), &stop);
    assert!(done.simulations > 1_000, "{done:?}");
    assert!(small.len() < 300, "{} nodes in 64 KiB", small.len());
}
