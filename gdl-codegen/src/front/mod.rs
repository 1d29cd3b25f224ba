//! The front end: read a game description ([`syntax`]), lower it to the
//! program IR (`lower`, [`ir`], [`symbols`]) and check it (`check`, over
//! the relation dependency graph of [`deps`]), with located diagnostics
//! ([`diag`], [`source`]); [`run`] does all three.

pub(crate) mod check;
pub mod deps;
pub mod diag;
pub mod ir;
pub(crate) mod lower;
pub mod source;
pub mod symbols;
pub mod syntax;

use diag::Diagnostics;
use ir::Program;
use source::SourceFile;
use symbols::Symbols;
use syntax::{ast::Description, Syntax};

/// Largest description the reader accepts, in bytes. The largest real
/// rulesheet is 417 KB; the limit only stops runaway inputs early.
pub const MAX_FILE_BYTES: usize = 256 << 20;

/// How to read a description.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The syntax; `None` picks it from the file name (`.hrf` is infix).
    pub syntax: Option<Syntax>,
    /// Keep names of different case apart. Prefix GDL is case-independent by
    /// its specification, so this is off by default; infix GDL is always
    /// case-sensitive, since case marks its variables.
    pub case_sensitive: bool,
}

/// The outcome of the front end on one description.
#[derive(Clone, Debug)]
pub struct Frontend {
    /// The source, for rendering diagnostics.
    pub source: SourceFile,
    /// The surface syntax tree.
    pub ast: Description,
    /// The lowered program (meaningful only without errors).
    pub program: Program,
    /// Every problem found, sorted by position.
    pub diagnostics: Diagnostics,
}

impl Frontend {
    /// Whether the description is valid GDL (warnings allowed).
    pub fn is_valid(&self) -> bool {
        !diag::has_errors(&self.diagnostics)
    }

    /// The program, if the description is valid.
    pub fn valid_program(&self) -> Option<&Program> {
        self.is_valid().then_some(&self.program)
    }

    /// Every diagnostic rendered for a terminal, in order.
    pub fn render_diagnostics(&self, color: bool) -> String {
        self.diagnostics
            .iter()
            .map(|d| d.render(&self.source, color))
            .collect()
    }
}

/// Reads, lowers and checks a description held in memory.
pub fn run(source: SourceFile, options: &Options) -> Frontend {
    run_with_errors(source, options, Diagnostics::new(), None)
}

/// Reads a description from raw bytes (reporting invalid UTF-8 and oversized
/// input as diagnostics), then lowers and checks it.
pub fn run_bytes(name: &str, bytes: &[u8], options: &Options) -> Frontend {
    let mut diags = Diagnostics::new();
    if bytes.len() > MAX_FILE_BYTES {
        let source = SourceFile::new(name, "");
        diags.push(
            diag::Diagnostic::error(
                diag::codes::TOO_LARGE,
                format!(
                    "the file is {} bytes, more than the reader's limit of {MAX_FILE_BYTES}",
                    bytes.len()
                ),
                crate::front::source::Span::default(),
            )
            .with_label("file too large"),
        );
        return Frontend {
            source,
            ast: Description::default(),
            program: Program::new(Symbols::new()),
            diagnostics: diags,
        };
    }
    let (source, invalid_at) = SourceFile::from_bytes(name, bytes);
    run_with_errors(source, options, diags, invalid_at)
}

/// `invalid_utf8`: where the first invalid UTF-8 sequence of the raw bytes
/// was (it is one U+FFFD in `source`).
fn run_with_errors(
    source: SourceFile,
    options: &Options,
    mut diags: Diagnostics,
    invalid_utf8: Option<usize>,
) -> Frontend {
    let syntax = options
        .syntax
        .unwrap_or_else(|| Syntax::from_path(&source.name));
    let (ast, parse_diags) = syntax::parse(&source.text, syntax);
    diags.extend(parse_diags);
    // The readers report invalid UTF-8 where it breaks a token; in a comment
    // it breaks none, but the file is still not text.
    if let Some(at) = invalid_utf8 {
        let reported = diags
            .iter()
            .any(|d| d.code == diag::codes::INVALID_UTF8 || d.code == diag::codes::BAD_CHAR);
        if !reported {
            diags.push(
                diag::Diagnostic::error(
                    diag::codes::INVALID_UTF8,
                    "the file is not valid UTF-8",
                    crate::front::source::Span::new(at, at + '\u{FFFD}'.len_utf8()),
                )
                .with_label("here")
                .with_note("GDL files are text in UTF-8 (or ASCII)"),
            );
        }
    }
    let case_sensitive = options.case_sensitive || syntax.is_case_sensitive();
    let symbols = if case_sensitive {
        Symbols::case_sensitive()
    } else {
        Symbols::new()
    };
    let program = lower::lower(&ast, symbols, &mut diags);
    // With reading errors some rules are missing: the checks that need the
    // whole program (missing definitions) would only add noise.
    let complete = !diag::has_errors(&diags);
    check::check(&program, complete, &mut diags);
    diag::sort_and_dedup(&mut diags);
    Frontend {
        source,
        ast,
        program,
        diagnostics: diags,
    }
}
