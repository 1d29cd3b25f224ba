//! Reading GDL: the surface AST, the KIF and infix readers, and the printer
//! back to canonical KIF.

pub mod ast;
pub mod infix;
pub mod kif;
pub mod print;

use crate::front::diag::Diagnostics;

/// The concrete syntax of a game description.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Syntax {
    /// KIF prefix syntax: `(<= (legal ?p noop) (role ?p))`.
    #[default]
    Kif,
    /// Infix syntax of the Stanford notes: `legal(P,noop) :- role(P)`.
    Infix,
}

impl Syntax {
    /// Whether names of different case are different in this syntax.
    pub fn is_case_sensitive(self) -> bool {
        match self {
            Syntax::Kif => false,
            Syntax::Infix => true,
        }
    }

    /// The syntax a file name implies: infix for `.hrf` (in any case), KIF
    /// otherwise.
    pub fn from_path(path: &str) -> Syntax {
        let ext = std::path::Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("");
        if ext.eq_ignore_ascii_case("hrf") {
            Syntax::Infix
        } else {
            Syntax::Kif
        }
    }
}

/// Reads a description in the given syntax.
pub fn parse(text: &str, syntax: Syntax) -> (ast::Description, Diagnostics) {
    match syntax {
        Syntax::Kif => kif::parse(text),
        Syntax::Infix => infix::parse(text),
    }
}
