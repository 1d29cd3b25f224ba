//! The line format of `shared/conformance/FORMAT.md`: its reader
//! ([`Trace::parse_text`]) and its writer (`Display` for [`Trace`]).

use std::fmt;

use super::model::check_match;
use super::{Trace, TraceMatch, TraceStep};
use crate::text;
use crate::ParseError;

fn line_error(line: usize, message: impl fmt::Display) -> ParseError {
    ParseError::new(format!("line {line}: {message}"))
}

/// Splits off the first whitespace-delimited word of `s`.
fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(|c: char| c.is_ascii_whitespace()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

fn number(s: &str, what: &str, line: usize) -> Result<usize, ParseError> {
    s.parse()
        .map_err(|_| line_error(line, format!("bad {what} `{s}`: expected a number")))
}

/// The step of `m` at `depth`, creating it when `depth` is the next one.
fn step_at(m: &mut TraceMatch, depth: usize) -> Result<&mut TraceStep, String> {
    let next = match m.steps.last() {
        Some(last) if last.depth == depth => None,
        Some(last) => Some(last.depth + 1),
        None => Some(0),
    };
    if let Some(expected) = next {
        if depth != expected {
            return Err(format!(
                "depth {depth} out of order: expected depth {expected}"
            ));
        }
        m.steps.push(TraceStep {
            depth,
            ..TraceStep::default()
        });
    }
    // Cannot fail: the vector was just checked or pushed to.
    m.steps.last_mut().ok_or_else(|| "no step".to_string())
}

fn terms(s: &str, line: usize) -> Result<Vec<String>, ParseError> {
    text::canonical_terms(s).map_err(|e| line_error(line, e))
}

impl Trace {
    /// Reads the line format of `shared/conformance/FORMAT.md`.
    pub fn parse_text(input: &str) -> Result<Trace, ParseError> {
        let mut trace = Trace {
            roles_in_game_order: true,
            ..Trace::default()
        };
        let mut roles_seen = false;
        // Whether the last match still takes step lines (no END yet).
        let mut open = false;
        for (i, raw) in input.lines().enumerate() {
            let line = i + 1;
            let (keyword, rest) = word(raw);
            if keyword.is_empty() {
                continue;
            }
            if keyword == "ROLES" {
                if roles_seen {
                    return Err(line_error(line, "second ROLES line"));
                }
                roles_seen = true;
                trace.roles = rest.split_ascii_whitespace().map(str::to_string).collect();
                continue;
            }
            if keyword == "PLAYOUT" {
                if !roles_seen {
                    return Err(line_error(line, "PLAYOUT before ROLES"));
                }
                if let Some(m) = trace.matches.last() {
                    check_match(m).map_err(|e| line_error(line, e))?;
                }
                let index = number(word(rest).0, "match number", line)?;
                trace.matches.push(TraceMatch {
                    index,
                    ..TraceMatch::default()
                });
                open = true;
                continue;
            }
            let roles = &trace.roles;
            let m = match trace.matches.last_mut() {
                Some(m) if open => m,
                _ => {
                    return Err(line_error(
                        line,
                        format!("{keyword} outside a match (no PLAYOUT line before it)"),
                    ))
                }
            };
            let (depth_word, rest) = word(rest);
            let depth = number(depth_word, "depth", line)?;
            match keyword {
                "END" => {
                    // `END k depth`: the first number is the match number.
                    m.end = Some(number(word(rest).0, "depth", line)?);
                    open = false;
                    continue;
                }
                "ABORT" => {
                    m.abort = Some(depth);
                    continue;
                }
                _ => {}
            }
            let step = step_at(m, depth).map_err(|e| line_error(line, e))?;
            parse_step_record(keyword, rest, step, roles, line)?;
        }
        if !roles_seen {
            return Err(ParseError::new("no ROLES line: not a trace"));
        }
        if let Some(m) = trace.matches.last() {
            check_match(m).map_err(ParseError::new)?;
        }
        Ok(trace)
    }
}

/// Reads one record of a step (`STATE`, `LEGAL`, `TERMINAL`, `GOALS` or
/// `JOINT`, already split from its depth) into `step`.
fn parse_step_record(
    keyword: &str,
    rest: &str,
    step: &mut TraceStep,
    roles: &[String],
    line: usize,
) -> Result<(), ParseError> {
    let n_roles = roles.len();
    match keyword {
        "STATE" => step.state = Some(terms(rest, line)?),
        "LEGAL" => {
            let (role, moves) = word(rest);
            let r = roles
                .iter()
                .position(|x| x == role)
                .or_else(|| roles.iter().position(|x| x.eq_ignore_ascii_case(role)))
                .ok_or_else(|| line_error(line, format!("unknown role `{role}`")))?;
            let legal = step.legal.get_or_insert_with(|| vec![Vec::new(); n_roles]);
            legal[r] = terms(moves, line)?;
        }
        "TERMINAL" => {
            step.terminal = Some(match word(rest).0 {
                "0" => false,
                "1" => true,
                other => {
                    return Err(line_error(
                        line,
                        format!("bad terminal flag `{other}`: expected 0 or 1"),
                    ))
                }
            })
        }
        "GOALS" => {
            let goals = rest
                .split_ascii_whitespace()
                .map(|g| match g {
                    "?" => Ok(None),
                    _ => g.parse::<u8>().map(Some).map_err(|_| {
                        line_error(line, format!("bad goal `{g}`: expected 0..=255 or ?"))
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if goals.len() != n_roles {
                return Err(line_error(
                    line,
                    format!("{} goals for {n_roles} roles", goals.len()),
                ));
            }
            step.goals = Some(goals);
        }
        "JOINT" => {
            let joint = terms(rest, line)?;
            if joint.len() != n_roles {
                return Err(line_error(
                    line,
                    format!("{} moves in the joint move of {n_roles} roles", joint.len()),
                ));
            }
            step.joint = Some(joint);
        }
        other => return Err(line_error(line, format!("unknown record `{other}`"))),
    }
    Ok(())
}

impl fmt::Display for Trace {
    /// Writes the line format of `shared/conformance/FORMAT.md` (the game
    /// name of an XML trace is not part of it and is dropped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, items: &[String]) -> fmt::Result {
            items.iter().try_for_each(|s| write!(f, " {s}"))
        }
        f.write_str("ROLES")?;
        list(f, &self.roles)?;
        writeln!(f)?;
        for m in &self.matches {
            writeln!(f, "PLAYOUT {}", m.index)?;
            for s in &m.steps {
                let d = s.depth;
                if let Some(state) = &s.state {
                    write!(f, "STATE {d}")?;
                    list(f, state)?;
                    writeln!(f)?;
                }
                if let Some(legal) = &s.legal {
                    for (role, moves) in self.roles.iter().zip(legal) {
                        write!(f, "LEGAL {d} {role}")?;
                        list(f, moves)?;
                        writeln!(f)?;
                    }
                }
                if let Some(t) = s.terminal {
                    writeln!(f, "TERMINAL {d} {}", u8::from(t))?;
                }
                if let Some(goals) = &s.goals {
                    write!(f, "GOALS {d}")?;
                    for g in goals {
                        match g {
                            Some(v) => write!(f, " {v}")?,
                            None => f.write_str(" ?")?,
                        }
                    }
                    writeln!(f)?;
                }
                if let Some(joint) = &s.joint {
                    write!(f, "JOINT {d}")?;
                    list(f, joint)?;
                    writeln!(f)?;
                }
            }
            if let Some(d) = m.abort {
                writeln!(f, "ABORT {d}")?;
            }
            let end = m
                .end
                .or_else(|| m.steps.last().map(|s| s.depth))
                .unwrap_or(0);
            writeln!(f, "END {} {end}", m.index)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{conformance, count_lines, read_file};

    #[test]
    fn parses_tic_tac_toe() {
        let src = read_file(&conformance("ggp-repository-base/ticTacToe.trace"));
        let t = Trace::parse(&src).unwrap();
        assert_eq!(t.roles, ["xplayer", "oplayer"]);
        assert!(t.roles_in_game_order);
        assert_eq!(t.matches.len(), count_lines(&src, "PLAYOUT "));
        let steps: usize = t.matches.iter().map(|m| m.steps.len()).sum();
        assert_eq!(steps, count_lines(&src, "STATE "));
        let m = &t.matches[0];
        assert_eq!(m.steps.len(), 8);
        assert_eq!(m.end, Some(7));
        let s0 = &m.steps[0];
        assert_eq!(s0.state.as_ref().unwrap().len(), 10);
        assert_eq!(s0.state.as_ref().unwrap()[0], "(cell 1 1 b)");
        assert_eq!(s0.legal.as_ref().unwrap()[0].len(), 9);
        assert_eq!(s0.legal.as_ref().unwrap()[1], ["noop"]);
        assert_eq!(s0.terminal, Some(false));
        assert_eq!(s0.joint.as_ref().unwrap(), &["(mark 3 1)", "noop"]);
        let last = &m.steps[7];
        assert_eq!(last.terminal, Some(true));
        assert_eq!(last.goals, Some(vec![Some(100), Some(0)]));
        assert_eq!((last.joint.as_ref(), last.legal.as_ref()), (None, None));
        // Writing it back gives the file.
        assert_eq!(t.to_string(), src);
    }

    #[test]
    fn parses_bare_atoms_aborts_and_unknown_goals() {
        let t = Trace::read(conformance("ggp-base/test/test_case_3a.trace")).unwrap();
        assert_eq!(
            t.matches[0].steps[1].state.as_deref(),
            Some(&["correct_failure".to_string()][..])
        );
        let t = Trace::read(conformance(
            "ggp-repository-base/factoringImpossibleTurtleBrain.trace",
        ))
        .unwrap();
        let m = &t.matches[0];
        assert_eq!((m.abort, m.end, m.steps.len()), (Some(6), Some(6), 7));
        assert_eq!(m.steps[6].joint, None);
        let t = Trace::read(conformance("ggp-repository-base/chess.trace")).unwrap();
        assert!(t
            .matches
            .iter()
            .flat_map(|m| &m.steps)
            .any(|s| s.goals == Some(vec![None, None])));
    }
}
