//! The propnet agrees with the interpreter (the oracle) on seeded random
//! playouts: at every step the same fluents, terminal flag, legal moves (as
//! text, in the same order) and, at the end, goals. Bounded: few playouts,
//! capped length.

use gdl_codegen::front::{self, Options};
use gdl_codegen::ground::{self, Budget};
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_codegen::reasoner::propnet::Propnet;
use gdl_runtime::{Game, Move, Rng};

const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/games");

fn check_agreement(rel: &str, playouts: usize, max_steps: usize) {
    let path = format!("{GAMES}/{rel}");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fe = front::run_bytes(&path, &bytes, &Options::default());
    let program = fe
        .valid_program()
        .unwrap_or_else(|| panic!("{rel} invalid"));
    let gp = ground::ground(program, &Budget::default()).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let net = Propnet::new(&gp);
    let interp = Interpreter::new(program).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(net.role_names(), interp.role_names(), "{rel}");
    let roles = net.num_roles();
    let mut rng = Rng::new(7);
    let (mut lp, mut li) = (Vec::new(), Vec::new());
    for k in 0..playouts {
        let mut sp = net.initial_state();
        let mut si = interp.initial_state();
        for depth in 0..=max_steps {
            let at = format!("{rel}, playout {k}, depth {depth}");
            let key = |v: Vec<String>| -> Vec<String> {
                let mut v: Vec<String> =
                    v.iter().map(|s| gdl_runtime::text::key_lossy(s)).collect();
                v.sort();
                v
            };
            assert_eq!(
                key(net.fluents(&sp)),
                key(interp.fluents(&si)),
                "{at}: state"
            );
            let terminal = net.is_terminal(&sp);
            assert_eq!(terminal, interp.is_terminal(&si), "{at}: terminal");
            if terminal || depth == max_steps {
                for r in 0..roles {
                    assert_eq!(
                        net.goal(&sp, r),
                        interp.goal(&si, r),
                        "{at}: goal of role {r}"
                    );
                }
                break;
            }
            let mut joint_p = Vec::with_capacity(roles);
            let mut joint_i = Vec::with_capacity(roles);
            for r in 0..roles {
                net.legal_moves(&sp, r, &mut lp);
                interp.legal_moves(&si, r, &mut li);
                let tp: Vec<String> = lp
                    .iter()
                    .map(|&m| net.move_text(r, m).to_ascii_lowercase())
                    .collect();
                let ti: Vec<String> = li
                    .iter()
                    .map(|&m| interp.move_text(r, m).to_ascii_lowercase())
                    .collect();
                assert_eq!(tp, ti, "{at}: legal moves of role {r}");
                if lp.is_empty() {
                    return;
                }
                let i = rng.below(lp.len());
                joint_p.push(lp[i]);
                joint_i.push(li[i]);
            }
            net.apply_unchecked(&mut sp, &joint_p);
            interp.apply_unchecked(&mut si, &joint_i);
            let _: &[Move] = &joint_p;
        }
    }
}

#[test]
fn board_games_agree() {
    for rel in [
        "ggp-repository-base/ticTacToe.kif",
        "ggp-repository-base/connectFour.kif",
        "ggp-repository-base/breakthrough.kif",
        "ggp-repository-base/englishDraughts.kif",
    ] {
        check_agreement(rel, 3, 60);
    }
}

#[test]
fn simultaneous_and_many_role_games_agree() {
    for rel in [
        "ggp-repository-base/connectFourSimultaneous.kif",
        "ggp-repository-base/chineseCheckers4.kif",
        "ggp-repository-base/tictactoe_3d_6player.kif",
    ] {
        check_agreement(rel, 2, 40);
    }
}

#[test]
fn puzzles_and_recursive_games_agree() {
    for rel in [
        "ggp-repository-base/eightPuzzle.kif",
        "ggp-repository-base/reversi.kif",
        "ggp-repository-base/knightThrough.kif",
        "ggp-repository-base/blocker.kif",
    ] {
        check_agreement(rel, 2, 30);
    }
}
