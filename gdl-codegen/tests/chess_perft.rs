//! Our chess (`examples/games/chess.kif`) against the published perft
//! counts: the game is compiled (generated, built with cargo through the
//! compiled-game cache under the test target directory, reused across runs)
//! and its binary's `perft` command is run from the initial position and
//! from positions given as FEN, turned into the game's fluents. The
//! interpreter must agree with the counts at shallow depth.
//!
//! Depths are kept small enough for CI; deeper counts (initial position to
//! depth 5, Kiwipete to 5, positions 3 to 6, 4 to 5 and 5 to 4) match too and
//! can be checked with the binary by hand.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use gdl_codegen::front::{self, Options};
use gdl_codegen::host::cache::Cache;
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_codegen::session::{self, CodegenOptions};
use gdl_runtime::Game;

fn chess_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/games/chess.kif")
}

fn chess_text() -> Vec<u8> {
    std::fs::read(chess_path()).expect("examples/games/chess.kif")
}

/// The game's fluents for a position in Forsyth-Edwards Notation (the
/// half-move clock and move number are ignored; the ply counter starts at 1).
fn fen_to_fluents(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    assert!(fields.len() >= 4, "FEN needs at least 4 fields: {fen}");
    let (board, side, castling, ep) = (fields[0], fields[1], fields[2], fields[3]);
    let files = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    let mut out = Vec::new();
    let rows: Vec<&str> = board.split('/').collect();
    assert_eq!(rows.len(), 8, "FEN board needs 8 ranks: {fen}");
    for (i, row) in rows.iter().enumerate() {
        let rank = 8 - i;
        let mut file = 0;
        for ch in row.chars() {
            if let Some(n) = ch.to_digit(10) {
                file += n as usize;
            } else {
                let colour = if ch.is_ascii_uppercase() { 'w' } else { 'b' };
                out.push(format!(
                    "(cell {} {rank} {colour}{})",
                    files[file],
                    ch.to_ascii_lowercase()
                ));
                file += 1;
            }
        }
        assert_eq!(file, 8, "FEN rank {rank} has {file} files: {fen}");
    }
    out.push(format!(
        "(control {})",
        if side == "w" { "white" } else { "black" }
    ));
    for (c, right) in [
        ('K', "white kingside"),
        ('Q', "white queenside"),
        ('k', "black kingside"),
        ('q', "black queenside"),
    ] {
        if castling.contains(c) {
            out.push(format!("(castling {right})"));
        }
    }
    if ep != "-" {
        let mut chars = ep.chars();
        let (f, r) = (chars.next().unwrap(), chars.next().unwrap());
        out.push(format!("(ep {f} {r})"));
    }
    out.push("(step 1)".to_owned());
    out.join(" ")
}

/// The compiled game's binary, built once per test process (and reused from
/// the cache across runs while the game and compiler are unchanged).
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let text = chess_text();
        let mut options = CodegenOptions::default();
        options.emit.type_name = "Chess".to_owned();
        let cache = Cache::locate(Some(
            &Path::new(env!("CARGO_TARGET_TMPDIR")).join("chess-perft-cache"),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let entry = cache.game(&[&text, b"chess-perft"]);
        if !entry.is_built() {
            let generated = session::generate("chess.kif", &text, &options)
                .unwrap_or_else(|e| panic!("{}", e.render(false)));
            cache
                .build(&entry, &generated.code, "Chess", "chess")
                .unwrap_or_else(|e| panic!("{e}"));
        }
        entry.binary
    })
}

/// `perft 1..=depth` from `fen` (the initial position when `None`), as the
/// compiled binary counts them.
fn compiled_perft(fen: Option<&str>, depth: usize) -> Vec<u64> {
    let mut cmd = Command::new(binary());
    cmd.arg("perft").arg(depth.to_string());
    if let Some(fen) = fen {
        cmd.arg("--state").arg(fen_to_fluents(fen));
    }
    let out = cmd.output().expect("run the compiled chess binary");
    assert!(
        out.status.success(),
        "perft failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| {
            l.rsplit(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("unexpected perft line `{l}`"))
        })
        .collect()
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -";
const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POSITION_4_MIRRORED: &str =
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1";
const POSITION_5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";

#[test]
fn initial_position() {
    assert_eq!(compiled_perft(None, 4), [20, 400, 8_902, 197_281]);
}

#[test]
fn kiwipete() {
    // Castling both ways, en passant, pins, promotions at depth 3.
    assert_eq!(compiled_perft(Some(KIWIPETE), 3), [48, 2_039, 97_862]);
}

#[test]
fn position_3() {
    // En passant with the pawns pinned along a rank, checks, few pieces.
    assert_eq!(
        compiled_perft(Some(POSITION_3), 5),
        [14, 191, 2_812, 43_238, 674_624]
    );
}

#[test]
fn position_4() {
    // Promotions (capturing too), castling out of reach, checks.
    assert_eq!(compiled_perft(Some(POSITION_4), 3), [6, 264, 9_467]);
    assert_eq!(
        compiled_perft(Some(POSITION_4_MIRRORED), 3),
        [6, 264, 9_467]
    );
}

#[test]
fn position_5() {
    assert_eq!(compiled_perft(Some(POSITION_5), 3), [44, 1_486, 62_379]);
}

#[test]
fn interpreter_agrees() {
    let text = chess_text();
    let fe = front::run_bytes("chess.kif", &text, &Options::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    let interp = Interpreter::new(&fe.program).expect("interpreter");
    let initial = interp.initial_state();
    assert_eq!(gdl_runtime::perft(&interp, &initial, 1), 20);
    assert_eq!(gdl_runtime::perft(&interp, &initial, 2), 400);
    let kiwipete = interp
        .parse_state(&fen_to_fluents(KIWIPETE))
        .expect("Kiwipete as fluents");
    assert_eq!(gdl_runtime::perft(&interp, &kiwipete, 1), 48);
}

#[test]
fn fen_fluents() {
    assert_eq!(
        fen_to_fluents("4k3/8/8/8/8/8/8/R3K3 b Q e3 0 1"),
        "(cell e 8 bk) (cell a 1 wr) (cell e 1 wk) (control black) \
         (castling white queenside) (ep e 3) (step 1)"
    );
}

#[test]
fn mate_stalemate_and_the_move_limit_end_the_game() {
    use gdl_runtime::Goal;
    let text = chess_text();
    let fe = front::run_bytes("chess.kif", &text, &Options::default());
    let interp = Interpreter::new(&fe.program).expect("interpreter");
    let at = |fen: &str| {
        interp
            .parse_state(&fen_to_fluents(fen))
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
    };
    let goals = |state| (interp.goal(state, 0), interp.goal(state, 1));
    // Fool's mate: white is mated.
    let mate = at("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert!(interp.is_terminal(&mate));
    assert_eq!(goals(&mate), (Goal::Value(0), Goal::Value(100)));
    // Black to move, not in check, no legal move.
    let stalemate = at("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(interp.is_terminal(&stalemate));
    assert_eq!(goals(&stalemate), (Goal::Value(50), Goal::Value(50)));
    // In check but with a way out: not over.
    let check = at("7k/8/6K1/8/8/8/8/Q7 b - - 0 1");
    assert!(!interp.is_terminal(&check));
    // 100 moves a side: a draw.
    let initial = fen_to_fluents("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let before = interp
        .parse_state(&initial.replace("(step 1)", "(step 200)"))
        .expect("ply 200");
    assert!(!interp.is_terminal(&before));
    let limit = interp
        .parse_state(&initial.replace("(step 1)", "(step 201)"))
        .expect("ply 201");
    assert!(interp.is_terminal(&limit));
    assert_eq!(goals(&limit), (Goal::Value(50), Goal::Value(50)));
}
