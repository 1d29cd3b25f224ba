//! Small games for the passes' unit tests.

use super::{build, Bitnet, Params};
use crate::front::{self, source::SourceFile, Options};
use crate::ground::{self, AtomId, Budget, GroundProgram};

/// Three cells, two roles marking them in turn; frame rules keep a cell
/// unless a move marks another.
pub const TINY: &str = include_str!("../../tests/fixtures/marks.kif");

/// The ground program of a valid description.
pub fn ground(src: &str) -> GroundProgram {
    let fe = front::run(SourceFile::new("test.kif", src), &Options::default());
    assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
    ground::ground(&fe.program, &Budget::default()).expect("grounds")
}

/// The bitnet of a valid description.
pub fn net(src: &str, params: &Params) -> (GroundProgram, Bitnet) {
    let gp = ground(src);
    let net = build(&gp, params);
    (gp, net)
}

/// The derived atom whose text is `text`.
pub fn atom(gp: &GroundProgram, text: &str) -> u32 {
    (gp.num_inputs..gp.num_atoms())
        .find(|&a| gp.atom_text[a as usize] == text)
        .unwrap_or_else(|| panic!("no atom {text}"))
}

/// The bit of the derived atom whose text is `text`.
pub fn pos(gp: &GroundProgram, net: &Bitnet, text: &str) -> u32 {
    net.layout.pos(AtomId(atom(gp, text)))
}

/// One role choosing among five `go` moves or `stop`: `(next (p))` needs
/// one of the `go` moves and `(q)`, `(next (s))` one of them alone.
pub const GO: &str = include_str!("../../tests/fixtures/moves.kif");

/// `both` is one body of two literals, read by a legal move; `x` has two
/// bodies, read only where `(k)` holds; `three` is read only by a goal
/// under `(control)`, and reads `two`, which a legal move reads under
/// `(control)` too.
pub const SMALL: &str = include_str!("../../tests/fixtures/demand.kif");

/// A one-row reversi: a recursive ray (`flank`), the flips a move seeds
/// (`flipped`) and `next`'s frame rules reading them.
pub const RAYS: &str = include_str!("../../tests/games/rays.kif");

/// The bit of fluent `text`.
pub fn fluent(gp: &GroundProgram, text: &str) -> u32 {
    gp.fluents
        .iter()
        .position(|f| f == text)
        .unwrap_or_else(|| panic!("no fluent {text}")) as u32
}
