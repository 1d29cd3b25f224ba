//! Source files and byte spans into them.

use std::sync::Arc;

/// A half-open byte range `start..end` in a source file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a `Range<usize>`.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A game description's text and the name it is reported under.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The text (invalid UTF-8 replaced, see [`SourceFile::from_bytes`]).
    pub text: Arc<str>,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A source file from its text.
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// A source file from raw bytes. Invalid UTF-8 is replaced by U+FFFD (the
    /// reader then reports it where it occurs); the second value is the byte
    /// offset of the first invalid sequence, if any.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> (Self, Option<usize>) {
        match std::str::from_utf8(bytes) {
            Ok(text) => (Self::new(name, text), None),
            Err(e) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                (Self::new(name, text), Some(e.valid_up_to()))
            }
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The source text under `span`.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}
