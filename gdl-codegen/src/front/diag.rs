//! Diagnostics: errors and warnings with spans, stable codes and hints,
//! rendered for people (with a caret under the offending text) or as JSON.
//!
//! Every stage collects all the problems it finds instead of stopping at the
//! first, so that one run reports everything wrong with a file.

use crate::front::source::{SourceFile, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

/// How serious a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
#[cfg_attr(feature = "json", serde(rename_all = "lowercase"))]
pub enum Severity {
    /// The game is still accepted.
    Warning,
    /// The game is rejected.
    Error,
}

/// A problem found in a game description.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable code, such as `E0201` (see [`codes`]).
    pub code: &'static str,
    /// One line saying what is wrong.
    pub message: String,
    /// The offending text.
    pub span: Span,
    /// What to say under the caret.
    pub label: String,
    /// Further locations that explain the problem (for example the other
    /// steps of a negation cycle).
    pub related: Vec<(Span, String)>,
    /// Further explanation, such as which rule of GDL is broken.
    pub notes: Vec<String>,
    /// How to fix it, where we can tell.
    pub help: Option<String>,
}

impl Diagnostic {
    fn new(severity: Severity, code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            span,
            label: String::new(),
            related: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// An error.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Self::new(Severity::Error, code, message, span)
    }

    /// A warning.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Self::new(Severity::Warning, code, message, span)
    }

    /// Sets the text under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Adds a related location.
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    fn to_codespan(&self) -> CsDiagnostic<()> {
        let base = match self.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let mut labels = vec![Label::primary((), self.span.range()).with_message(&self.label)];
        labels.extend(
            self.related
                .iter()
                .map(|(s, m)| Label::secondary((), s.range()).with_message(m)),
        );
        let mut notes = self.notes.clone();
        if let Some(help) = &self.help {
            notes.push(format!("help: {help}"));
        }
        base.with_code(self.code)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(notes)
    }

    /// Renders the diagnostic for a terminal: `file:line:col`, the source line
    /// with a caret under the offending text, notes and hint.
    pub fn render(&self, file: &SourceFile, color: bool) -> String {
        let files = SimpleFile::new(file.name.as_str(), file.text.as_ref());
        let config = term::Config::default();
        let mut buf = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        if term::emit_to_write_style(&mut buf, &config, &files, &self.to_codespan()).is_err() {
            // A span outside the file (never expected): fall back to a plain line.
            let (line, col) = file.line_col(self.span.start as usize);
            return format!(
                "{}[{}]: {}\n  --> {}:{line}:{col}\n",
                match self.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                self.code,
                self.message,
                file.name
            );
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }

    /// The diagnostic as a JSON value for tools.
    #[cfg(feature = "json")]
    pub fn to_json(&self, file: &SourceFile) -> serde_json::Value {
        let loc = |span: Span| {
            let (line, column) = file.line_col(span.start as usize);
            let (end_line, end_column) = file.line_col(span.end as usize);
            serde_json::json!({
                "start": span.start, "end": span.end,
                "line": line, "column": column,
                "end_line": end_line, "end_column": end_column,
            })
        };
        serde_json::json!({
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": file.name,
            "span": loc(self.span),
            "label": self.label,
            "related": self.related.iter().map(|(s, m)| serde_json::json!({"span": loc(*s), "label": m})).collect::<Vec<_>>(),
            "notes": self.notes,
            "help": self.help,
        })
    }
}

/// A list of diagnostics, in the order found (sorted by position before display).
pub type Diagnostics = Vec<Diagnostic>;

/// Whether any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Sorts diagnostics by position, errors before warnings at one place, and
/// drops exact duplicates (an `or` expanded into several rules repeats them).
pub fn sort_and_dedup(diags: &mut Diagnostics) {
    diags.sort_by(|a, b| {
        (
            a.span.start,
            a.span.end,
            std::cmp::Reverse(a.severity),
            a.code,
            &a.message,
        )
            .cmp(&(
                b.span.start,
                b.span.end,
                std::cmp::Reverse(b.severity),
                b.code,
                &b.message,
            ))
    });
    diags.dedup();
}

/// The stable diagnostic codes. `E…` are errors, `W…` warnings; the hundreds
/// digit names the stage (0 reading, 1 lowering, 2 checking).
pub mod codes {
    /// Text that is not valid UTF-8.
    pub const INVALID_UTF8: &str = "E0001";
    /// A character that cannot start a token.
    pub const BAD_CHAR: &str = "E0002";
    /// A `(` that is never closed.
    pub const UNCLOSED_PAREN: &str = "E0003";
    /// A `)` with no `(` to close.
    pub const STRAY_CLOSE: &str = "E0004";
    /// Something other than a sentence or rule at top level.
    pub const BAD_TOP_LEVEL: &str = "E0005";
    /// A malformed sentence, literal or term.
    pub const BAD_FORM: &str = "E0006";
    /// Nesting deeper than the reader's limit.
    pub const TOO_DEEP: &str = "E0007";
    /// The file holds no rules at all.
    pub const EMPTY: &str = "E0008";
    /// A file larger than the reader's limit.
    pub const TOO_LARGE: &str = "E0009";
    /// Infix syntax error.
    pub const INFIX_SYNTAX: &str = "E0010";
    /// `(foo)`: a zero-argument term, probably meant as the constant `foo`.
    pub const ZERO_ARG_PARENS: &str = "W0001";
    /// GDL-II `sees`, not supported yet.
    pub const GDL2_SEES: &str = "E0101";
    /// `or` expansion would produce too many rules.
    pub const OR_BLOWUP: &str = "E0102";
    /// `(not (distinct ..))`, normalised into an equality.
    pub const NOT_DISTINCT: &str = "W0101";
    /// A rule that can never fire (`(not (distinct a b))` on different constants).
    pub const DEAD_RULE: &str = "W0102";
    /// A rule written with an empty body.
    pub const EMPTY_BODY: &str = "W0103";
    /// A relation or function used with different arities.
    pub const ARITY: &str = "E0201";
    /// A keyword used with the wrong arity.
    pub const KEYWORD_ARITY: &str = "E0202";
    /// A name used both as a relation and as a function.
    pub const REL_AND_FUNC: &str = "W0201";
    /// A variable of the head not bound by a positive body literal.
    pub const UNSAFE_HEAD: &str = "E0203";
    /// A variable of a negated literal not bound by a positive body literal.
    pub const UNSAFE_NOT: &str = "E0204";
    /// A variable of `distinct` not bound by a positive body literal.
    pub const UNSAFE_DISTINCT: &str = "E0205";
    /// A cycle through negation.
    pub const NEG_CYCLE: &str = "E0206";
    /// A cycle through negation at the level of relation names only.
    pub const NEG_CYCLE_NAMES: &str = "W0206";
    /// The recursion restriction is broken.
    pub const RECURSION: &str = "E0207";
    /// A keyword used where GDL forbids it.
    pub const KEYWORD_MISUSE: &str = "E0208";
    /// A keyword used as a function symbol inside a term.
    pub const KEYWORD_AS_FUNCTION: &str = "E0209";
    /// A goal value that is not an integer 0..=100.
    pub const GOAL_VALUE: &str = "E0210";
    /// A required keyword relation is never defined.
    pub const MISSING: &str = "E0211";
    /// A relation used in a body but never defined.
    pub const UNDEFINED: &str = "W0212";
    /// A variable in a position where GDL wants a constant, such as a role.
    pub const NON_GROUND: &str = "E0213";
    /// A dependency that the keyword restrictions forbid.
    pub const KEYWORD_DEPENDENCY: &str = "E0214";
}
