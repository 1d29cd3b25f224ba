//! Conformance traces: recorded matches of a game that a reasoner must
//! reproduce, their reader (the line format of `shared/conformance/FORMAT.md`
//! and the Dresden GameController XML traces), a writer, a recorder, and the
//! replayer that compares a [`Game`](crate::Game) with a trace step by step.
//!
//! - `model`: [`Trace`], [`TraceMatch`], [`TraceStep`];
//! - `line_format`: [`Trace::parse_text`] and the writer (`Display`);
//! - `xml` and `dresden`: [`Trace::parse_dresden_xml`];
//! - `record`: [`record`];
//! - `difference`: [`Mismatch`], [`Difference`];
//! - `replay`: [`replay`], [`ReplaySummary`].

use std::path::Path;

use crate::ParseError;

mod difference;
mod dresden;
mod line_format;
mod model;
mod record;
mod replay;
mod xml;

pub use difference::{Difference, Mismatch};
pub use model::{Trace, TraceMatch, TraceStep};
pub use record::record;
pub use replay::{replay, ReplaySummary};

impl Trace {
    /// Reads a trace in either format, recognised by its first character
    /// (`<` for Dresden XML).
    pub fn parse(text: &str) -> Result<Trace, ParseError> {
        if text.trim_start().starts_with('<') {
            Trace::parse_dresden_xml(text)
        } else {
            Trace::parse_text(text)
        }
    }

    /// Reads a trace file in either format (see [`Trace::parse`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Trace, ParseError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| ParseError::new(format!("{}: {e}", path.display())))?;
        Trace::parse(&text).map_err(|e| ParseError::new(format!("{}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::conformance;

    #[test]
    fn parses_every_conformance_trace() {
        fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, files);
                } else if p.extension().is_some_and(|x| x == "trace") {
                    files.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(Path::new(&conformance("")), &mut files);
        assert!(files.len() > 400, "{}", files.len());
        for f in files {
            let t = Trace::read(&f).unwrap();
            assert!(!t.matches.is_empty(), "{}", f.display());
        }
    }

    #[test]
    fn rejects_malformed_traces() {
        let bad = [
            "",
            "PLAYOUT 0",
            "ROLES a\nSTATE 0 (x)",
            "ROLES a\nPLAYOUT 0\nSTATE 1 (x)",
            "ROLES a\nPLAYOUT 0\nSTATE 0 (x",
            "ROLES a\nPLAYOUT 0\nLEGAL 0 b x",
            "ROLES a\nPLAYOUT 0\nTERMINAL 0 2",
            "ROLES a\nPLAYOUT 0\nGOALS 0 1 2",
            "ROLES a\nPLAYOUT 0\nGOALS 0 300",
            "ROLES a\nPLAYOUT 0\nJOINT 0 x y",
            "ROLES a\nPLAYOUT 0\nSTATE 0\nSTATE 1\n",
            "ROLES a\nPLAYOUT 0\nFOO 0",
            "ROLES a\nPLAYOUT x",
            "<gametrace><steps><step nb=\"2\"></step></steps></gametrace>",
            "<gametrace><steps><step></step></steps></gametrace>",
            "<gametrace><steps></gametrace>",
            "<gametrace><step nb=\"1\"><moves><move>x</move></moves></step></gametrace>",
            "<gametrace",
            "<notatrace/>",
            "<a b=c>",
        ];
        for b in bad {
            assert!(Trace::parse(b).is_err(), "accepted {b:?}");
        }
        let e = Trace::parse("ROLES a\nPLAYOUT 0\nSTATE 1 (x)").unwrap_err();
        assert_eq!(e.message, "line 3: depth 1 out of order: expected depth 0");
        // Garbage never panics.
        for s in [
            "<",
            "<<>>",
            "<a",
            "</",
            "<?",
            "<!--",
            "<a x='",
            "&",
            "<a>&#xFFFFFFFF;</a>",
            "é<ü/>",
        ] {
            let _ = Trace::parse(s);
            let _ = Trace::parse_dresden_xml(s);
            let _ = Trace::parse_text(s);
        }
        // A well-formed trace with an empty state and no matches.
        let t = Trace::parse("ROLES a b\nPLAYOUT 3\nSTATE 0\nTERMINAL 0 1\nGOALS 0 ? 5\nEND 3 0\n")
            .unwrap();
        assert_eq!(t.matches[0].steps[0].state, Some(vec![]));
        assert_eq!(t.matches[0].index, 3);
    }
}
