//! Reading GDL: the surface AST, the KIF and infix readers, and the printer
//! back to canonical KIF.

pub mod ast;
pub mod kif;
pub mod print;

use crate::diag::Diagnostics;

/// The concrete syntax of a game description.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Syntax {
    /// KIF prefix syntax: `(<= (legal ?p noop) (role ?p))`.
    #[default]
    Kif,
}

impl Syntax {
    /// Whether names of different case are different in this syntax.
    pub fn is_case_sensitive(self) -> bool {
        match self {
            Syntax::Kif => false,
        }
    }

    /// The syntax a file name implies.
    pub fn from_path(path: &str) -> Syntax {
        let _ = path;
        Syntax::Kif
    }
}

/// Reads a description in the given syntax.
pub fn parse(text: &str, syntax: Syntax) -> (ast::Description, Diagnostics) {
    match syntax {
        Syntax::Kif => kif::parse(text),
    }
}
