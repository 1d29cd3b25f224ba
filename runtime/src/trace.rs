//! Conformance traces: recorded matches of a game that a reasoner must
//! reproduce, their reader (the line format of `shared/conformance/FORMAT.md`
//! and the Dresden GameController XML traces), a writer, a recorder, and the
//! replayer that compares a [`Game`] with a trace step by step.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::playout::{random_joint, PlayoutBuffers};
use crate::text;
use crate::{Game, Goal, Move, ParseError, Rng};

/// A parsed trace: the roles and the recorded matches of one game.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Trace {
    /// The game's name, when the trace gives it (Dresden XML traces do).
    pub game: Option<String>,
    /// Role names, as written in the trace.
    pub roles: Vec<String>,
    /// Whether [`Trace::roles`] is the game's role order. The line format
    /// lists roles in game order; Dresden XML traces only name roles in
    /// attributes (sorted by name), so their roles are matched by name.
    pub roles_in_game_order: bool,
    /// The matches, in file order.
    pub matches: Vec<TraceMatch>,
}

/// One recorded match.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TraceMatch {
    /// The match's number in the file (`PLAYOUT k`).
    pub index: usize,
    /// The steps; `steps[d].depth == d`, and every step but the last has a
    /// joint move.
    pub steps: Vec<TraceStep>,
    /// The depth at which the recorder cut the match off (`ABORT d`), if it did.
    pub abort: Option<usize>,
    /// The final depth given by `END k depth`, if present.
    pub end: Option<usize>,
}

/// What a trace records about the state at one depth of a match. Fields are
/// `None` where the trace does not give the information; the replayer only
/// compares what is there. Terms are in canonical spelling
/// ([`text::canonical`]) with their case as written.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TraceStep {
    /// Number of joint moves played before this state.
    pub depth: usize,
    /// Every fluent true in the state.
    pub state: Option<Vec<String>>,
    /// Every role's legal moves, indexed like [`Trace::roles`] (non-terminal
    /// states only).
    pub legal: Option<Vec<Vec<String>>>,
    /// Whether the state is terminal.
    pub terminal: Option<bool>,
    /// Every role's goal value, indexed like [`Trace::roles`]; `None` for a
    /// `?` (no value or several values), or a role an XML trace omits.
    pub goals: Option<Vec<Option<u8>>>,
    /// The joint move played from this state, one move a role, indexed like
    /// [`Trace::roles`].
    pub joint: Option<Vec<String>>,
}

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

/// Checks that every step but the last has a joint move, so that a replay
/// never has to guess how the match went on.
fn check_match(m: &TraceMatch) -> Result<(), String> {
    let n = m.steps.len();
    for s in m.steps.iter().take(n.saturating_sub(1)) {
        if s.joint.is_none() {
            return Err(format!(
                "match {}: depth {} has no joint move but the match goes on",
                m.index, s.depth
            ));
        }
    }
    Ok(())
}

fn terms(s: &str, line: usize) -> Result<Vec<String>, ParseError> {
    text::canonical_terms(s).map_err(|e| line_error(line, e))
}

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
            let n_roles = trace.roles.len();
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

// ---------------------------------------------------------------------------
// Dresden GameController XML traces.

/// An XML event of the tiny reader below.
#[derive(Debug)]
enum Xml<'a> {
    Open {
        name: &'a str,
        attrs: Vec<(&'a str, String)>,
        empty: bool,
    },
    Close(&'a str),
    Text(String),
}

/// Replaces the five predefined XML entities and numeric character
/// references; anything else after `&` is kept as written.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest.find(';').and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let code = if let Some(h) = name.strip_prefix("#x").or(name.strip_prefix("#X"))
                    {
                        u32::from_str_radix(h, 16).ok()
                    } else {
                        name.strip_prefix('#').and_then(|d| d.parse().ok())
                    };
                    code.and_then(char::from_u32)
                }
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Splits an XML document into open tags, close tags and text, skipping the
/// prolog, comments and doctype. Just enough XML for the GameController's
/// traces; well-formedness beyond tag nesting is not checked.
fn xml_events(src: &str) -> Result<Vec<Xml<'_>>, ParseError> {
    let err = |pos: usize, m: &str| ParseError::new(format!("XML byte {pos}: {m}"));
    let bytes = src.as_bytes();
    let find = |from: usize, pat: &str| src.get(from..).and_then(|s| s.find(pat)).map(|i| from + i);
    let mut events = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] != b'<' {
            let end = find(pos, "<").unwrap_or(bytes.len());
            events.push(Xml::Text(decode_entities(&src[pos..end])));
            pos = end;
            continue;
        }
        let rest = &src[pos..];
        if rest.starts_with("<?") {
            pos = find(pos, "?>").ok_or_else(|| err(pos, "unclosed `<?`"))? + 2;
        } else if rest.starts_with("<!--") {
            pos = find(pos, "-->").ok_or_else(|| err(pos, "unclosed comment"))? + 3;
        } else if rest.starts_with("<![CDATA[") {
            let end = find(pos, "]]>").ok_or_else(|| err(pos, "unclosed CDATA"))?;
            events.push(Xml::Text(src[pos + 9..end].to_string()));
            pos = end + 3;
        } else if rest.starts_with("<!") {
            pos = find(pos, ">").ok_or_else(|| err(pos, "unclosed `<!`"))? + 1;
        } else if rest.starts_with("</") {
            let end = find(pos, ">").ok_or_else(|| err(pos, "unclosed end tag"))?;
            events.push(Xml::Close(src[pos + 2..end].trim()));
            pos = end + 1;
        } else {
            // A start tag: name, then attributes `name="value"` or 'value'.
            let mut p = pos + 1;
            let name_end = |p: usize| {
                let mut q = p;
                while q < bytes.len()
                    && !bytes[q].is_ascii_whitespace()
                    && !matches!(bytes[q], b'>' | b'/' | b'=')
                {
                    q += 1;
                }
                q
            };
            let q = name_end(p);
            let name = &src[p..q];
            if name.is_empty() {
                return Err(err(pos, "tag without a name"));
            }
            p = q;
            let mut attrs = Vec::new();
            let empty = loop {
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                match bytes.get(p) {
                    None => return Err(err(pos, "unclosed start tag")),
                    Some(b'>') => {
                        p += 1;
                        break false;
                    }
                    Some(b'/') if bytes.get(p + 1) == Some(&b'>') => {
                        p += 2;
                        break true;
                    }
                    Some(_) => {}
                }
                let q = name_end(p);
                if q == p {
                    return Err(err(p, "malformed attribute"));
                }
                let attr = &src[p..q];
                p = q;
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                if bytes.get(p) != Some(&b'=') {
                    return Err(err(p, "attribute without `=`"));
                }
                p += 1;
                while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                    p += 1;
                }
                let quote = match bytes.get(p) {
                    Some(&q @ (b'"' | b'\'')) => q,
                    _ => return Err(err(p, "attribute value without quotes")),
                };
                let close = find(p + 1, if quote == b'"' { "\"" } else { "'" })
                    .ok_or_else(|| err(p, "unclosed attribute value"))?;
                attrs.push((attr, decode_entities(&src[p + 1..close])));
                p = close + 1;
            };
            events.push(Xml::Open { name, attrs, empty });
            pos = p;
        }
    }
    Ok(events)
}

/// Role-tagged data of one XML step, before the role order is known.
#[derive(Default)]
struct XmlStep {
    nb: usize,
    state: Option<Vec<String>>,
    legal: Option<Vec<(String, String)>>,
    joint: Option<Vec<(String, String)>>,
    goals: Option<Vec<(String, String)>>,
    terminal: bool,
}

impl Trace {
    /// Reads a Dresden GameController XML trace (`*.trace.xml`): one match,
    /// `<step nb="n">` being the state at depth `n - 1` with its fluents,
    /// legal moves, the joint move played (`<moves>`), and on the last step
    /// `<terminal/>` and the goal values. Steps without `<terminal/>` are
    /// recorded as not terminal. The roles are every role named in a `role`
    /// attribute, sorted by name ([`Trace::roles_in_game_order`] is false).
    pub fn parse_dresden_xml(input: &str) -> Result<Trace, ParseError> {
        let events = xml_events(input)?;
        let mut stack: Vec<&str> = Vec::new();
        let mut steps: Vec<XmlStep> = Vec::new();
        let mut game = None;
        let mut text_buf = String::new();
        let mut role = String::new();
        let mut roles: Vec<String> = Vec::new();
        let mut saw_root = false;
        let term = |s: &str, nb: usize| {
            text::canonical(s).map_err(|e| ParseError::new(format!("step {nb}: {e}")))
        };
        for ev in events {
            match ev {
                Xml::Text(t) => text_buf.push_str(&t),
                Xml::Open { name, attrs, empty } => {
                    text_buf.clear();
                    let attr = |a: &str| attrs.iter().find(|(k, _)| *k == a).map(|(_, v)| v);
                    match name {
                        "gametrace" => saw_root = true,
                        "step" => {
                            let nb_text = attr("nb").ok_or_else(|| {
                                ParseError::new("<step> without an `nb` attribute")
                            })?;
                            let nb: usize = nb_text.trim().parse().map_err(|_| {
                                ParseError::new(format!("bad step number `{nb_text}`"))
                            })?;
                            let expected = steps.last().map_or(1, |s| s.nb + 1);
                            if nb != expected {
                                return Err(ParseError::new(format!(
                                    "step {nb} out of order: expected step {expected}"
                                )));
                            }
                            steps.push(XmlStep {
                                nb,
                                ..XmlStep::default()
                            });
                        }
                        "state" | "legal_moves" | "moves" | "goal_values" | "terminal" => {
                            let step = steps.last_mut().ok_or_else(|| {
                                ParseError::new(format!("<{name}> outside a <step>"))
                            })?;
                            match name {
                                "state" => step.state = Some(Vec::new()),
                                "legal_moves" => step.legal = Some(Vec::new()),
                                "moves" => step.joint = Some(Vec::new()),
                                "goal_values" => step.goals = Some(Vec::new()),
                                _ => step.terminal = true,
                            }
                        }
                        "move" | "goal_value" => {
                            role = attr("role")
                                .ok_or_else(|| {
                                    ParseError::new(format!("<{name}> without a `role` attribute"))
                                })?
                                .trim()
                                .to_string();
                            if !roles.contains(&role) {
                                roles.push(role.clone());
                            }
                        }
                        // Unknown elements are skipped with their text.
                        _ => {}
                    }
                    if !empty {
                        stack.push(name);
                    }
                }
                Xml::Close(name) => {
                    if stack.pop() != Some(name) {
                        return Err(ParseError::new(format!("mismatched end tag </{name}>")));
                    }
                    let parent = stack.last().copied();
                    let step = steps.last_mut();
                    match (name, step) {
                        ("game", _) => game = Some(text_buf.trim().to_string()),
                        ("fluent", Some(step)) => {
                            let t = term(&text_buf, step.nb)?;
                            if let Some(state) = &mut step.state {
                                state.push(t);
                            }
                        }
                        ("move", Some(step)) => {
                            let t = term(&text_buf, step.nb)?;
                            let list = match parent {
                                Some("legal_moves") => &mut step.legal,
                                Some("moves") => &mut step.joint,
                                _ => &mut None,
                            };
                            if let Some(list) = list {
                                list.push((role.clone(), t));
                            }
                        }
                        ("goal_value", Some(step)) => {
                            if let Some(goals) = &mut step.goals {
                                goals.push((role.clone(), text_buf.trim().to_string()));
                            }
                        }
                        _ => {}
                    }
                    text_buf.clear();
                }
            }
        }
        if !saw_root {
            return Err(ParseError::new(
                "no <gametrace> element: not a GameController trace",
            ));
        }
        if let Some(open) = stack.last() {
            return Err(ParseError::new(format!("unclosed element <{open}>")));
        }
        roles.sort();
        let index_of = |r: &str| roles.iter().position(|x| x == r).unwrap_or(0);
        let n = roles.len();
        let mut m = TraceMatch::default();
        for s in steps {
            let nb = s.nb;
            let legal = s.legal.map(|pairs| {
                let mut legal = vec![Vec::new(); n];
                for (r, mv) in pairs {
                    legal[index_of(&r)].push(mv);
                }
                legal
            });
            let joint = match s.joint {
                None => None,
                Some(pairs) => {
                    let mut joint: Vec<Option<String>> = vec![None; n];
                    for (r, mv) in pairs {
                        let slot = &mut joint[index_of(&r)];
                        if slot.is_some() {
                            return Err(ParseError::new(format!(
                                "step {nb}: two moves for role {r}"
                            )));
                        }
                        *slot = Some(mv);
                    }
                    let joint = joint
                        .into_iter()
                        .enumerate()
                        .map(|(i, mv)| {
                            mv.ok_or_else(|| {
                                ParseError::new(format!("step {nb}: no move for role {}", roles[i]))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Some(joint)
                }
            };
            let goals = match s.goals {
                None => None,
                Some(pairs) => {
                    let mut goals = vec![None; n];
                    for (r, v) in pairs {
                        goals[index_of(&r)] = Some(v.parse::<u8>().map_err(|_| {
                            ParseError::new(format!("step {nb}: bad goal value `{v}` for role {r}"))
                        })?);
                    }
                    Some(goals)
                }
            };
            m.steps.push(TraceStep {
                depth: nb - 1,
                state: s.state,
                legal,
                terminal: Some(s.terminal),
                goals,
                joint,
            });
        }
        check_match(&m).map_err(ParseError::new)?;
        Ok(Trace {
            game,
            roles,
            roles_in_game_order: false,
            matches: vec![m],
        })
    }
}

// ---------------------------------------------------------------------------
// Recording.

/// Records `matches` random matches of `game` as a trace, the way the
/// conformance traces were made: at each depth the sorted fluents, every
/// role's sorted legal moves (non-terminal states), the terminal flag, the
/// goals (terminal states), and a joint move drawn as [`crate::playout()`]
/// draws it. A match reaching `max_depth` joint moves, or a state where some
/// role has no legal move, is cut off with an `ABORT`.
pub fn record<G: Game>(game: &G, matches: usize, seed: u64, max_depth: usize) -> Trace {
    let mut rng = Rng::new(seed);
    let mut buf = PlayoutBuffers::new();
    let mut legal = Vec::new();
    let roles: Vec<String> = (0..game.num_roles())
        .map(|r| game.role_name(r).to_string())
        .collect();
    let sorted = |mut v: Vec<String>| {
        v.iter_mut().for_each(|s| *s = text::canonical_lossy(s));
        v.sort();
        v
    };
    let mut out = Vec::with_capacity(matches);
    for index in 0..matches {
        let mut m = TraceMatch {
            index,
            ..TraceMatch::default()
        };
        let mut state = game.initial_state();
        for depth in 0.. {
            let terminal = game.is_terminal(&state);
            let mut step = TraceStep {
                depth,
                state: Some(sorted(game.fluents(&state))),
                terminal: Some(terminal),
                ..TraceStep::default()
            };
            if terminal {
                let mut goals = Vec::new();
                game.goals(&state, &mut goals);
                step.goals = Some(goals.iter().map(|g| g.value()).collect());
                m.steps.push(step);
                break;
            }
            step.legal = Some(
                (0..game.num_roles())
                    .map(|r| {
                        game.legal_moves(&state, r, &mut legal);
                        sorted(legal.iter().map(|&mv| game.move_text(r, mv)).collect())
                    })
                    .collect(),
            );
            if depth >= max_depth || random_joint(game, &state, &mut rng, &mut buf).is_err() {
                m.abort = Some(depth);
                m.steps.push(step);
                break;
            }
            let joint = buf.joint();
            step.joint = Some(
                joint
                    .iter()
                    .enumerate()
                    .map(|(r, &mv)| text::canonical_lossy(&game.move_text(r, mv)))
                    .collect(),
            );
            game.apply_unchecked(&mut state, joint);
            m.steps.push(step);
        }
        m.end = m.steps.last().map(|s| s.depth);
        out.push(m);
    }
    Trace {
        game: None,
        roles,
        roles_in_game_order: true,
        matches: out,
    }
}

// ---------------------------------------------------------------------------
// Replay.

/// What differs between a reasoner and a trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Mismatch {
    /// The role names (or, for a trace in game order, their order) differ.
    Roles {
        /// The trace's roles.
        expected: Vec<String>,
        /// The game's roles.
        got: Vec<String>,
    },
    /// The state's fluents differ.
    State {
        /// Fluents of the trace that the game lacks.
        missing: Vec<String>,
        /// Fluents of the game that the trace lacks.
        extra: Vec<String>,
    },
    /// The terminal flag differs.
    Terminal {
        /// The trace's flag.
        expected: bool,
        /// The game's flag.
        got: bool,
    },
    /// A role's legal moves differ.
    Legal {
        /// The role.
        role: String,
        /// Legal moves of the trace that the game lacks.
        missing: Vec<String>,
        /// Legal moves of the game that the trace lacks.
        extra: Vec<String>,
    },
    /// A role's goal value in a terminal state differs.
    Goal {
        /// The role.
        role: String,
        /// The trace's value (`None` for `?`).
        expected: Option<u8>,
        /// The game's goal.
        got: Goal,
    },
    /// The game could not read a move of the trace's joint move.
    JointParse {
        /// The role whose move was refused.
        role: String,
        /// The move's text in the trace.
        mv: String,
        /// The game's error message.
        error: String,
    },
}

impl Mismatch {
    /// A one-word name of what differs: `roles`, `state`, `terminal`,
    /// `legal`, `goals` or `joint-parse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Mismatch::Roles { .. } => "roles",
            Mismatch::State { .. } => "state",
            Mismatch::Terminal { .. } => "terminal",
            Mismatch::Legal { .. } => "legal",
            Mismatch::Goal { .. } => "goals",
            Mismatch::JointParse { .. } => "joint-parse",
        }
    }

    /// The role concerned, when the mismatch is about one role.
    pub fn role(&self) -> Option<&str> {
        match self {
            Mismatch::Legal { role, .. }
            | Mismatch::Goal { role, .. }
            | Mismatch::JointParse { role, .. } => Some(role),
            _ => None,
        }
    }
}

/// The first point where a reasoner departs from a trace.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Difference {
    /// Index of the match in [`Trace::matches`].
    pub match_index: usize,
    /// The match's number in the file (`PLAYOUT k`).
    pub playout: usize,
    /// Depth of the state where the difference shows.
    pub depth: usize,
    /// What differs.
    pub mismatch: Mismatch,
}

/// Writes at most a few items of a list, so that a difference in a state of
/// hundreds of fluents stays readable.
fn write_list(f: &mut fmt::Formatter<'_>, items: &[String]) -> fmt::Result {
    const SHOWN: usize = 8;
    if items.is_empty() {
        return f.write_str("(none)");
    }
    for (i, s) in items.iter().take(SHOWN).enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(s)?;
    }
    if items.len() > SHOWN {
        write!(f, " ... ({} more)", items.len() - SHOWN)?;
    }
    Ok(())
}

fn write_missing_extra(
    f: &mut fmt::Formatter<'_>,
    missing: &[String],
    extra: &[String],
) -> fmt::Result {
    if !missing.is_empty() {
        f.write_str("missing ")?;
        write_list(f, missing)?;
    }
    if !extra.is_empty() {
        if !missing.is_empty() {
            f.write_str("; ")?;
        }
        f.write_str("extra ")?;
        write_list(f, extra)?;
    }
    Ok(())
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Mismatch::Roles { expected, got } = &self.mismatch {
            f.write_str("roles differ: expected ")?;
            write_list(f, expected)?;
            f.write_str(", got ")?;
            return write_list(f, got);
        }
        write!(
            f,
            "match {} (PLAYOUT {}), depth {}: ",
            self.match_index, self.playout, self.depth
        )?;
        match &self.mismatch {
            Mismatch::Roles { .. } => Ok(()),
            Mismatch::State { missing, extra } => {
                f.write_str("state differs: ")?;
                write_missing_extra(f, missing, extra)
            }
            Mismatch::Terminal { expected, got } => {
                write!(f, "terminal differs: expected {expected}, got {got}")
            }
            Mismatch::Legal {
                role,
                missing,
                extra,
            } => {
                write!(f, "legal moves of {role} differ: ")?;
                write_missing_extra(f, missing, extra)
            }
            Mismatch::Goal {
                role,
                expected,
                got,
            } => {
                write!(f, "goal of {role} differs: expected ")?;
                match expected {
                    Some(v) => write!(f, "{v}")?,
                    None => f.write_str("? (no value or several)")?,
                }
                match got {
                    Goal::Value(v) => write!(f, ", got {v}"),
                    Goal::None => f.write_str(", got no value"),
                    Goal::Ambiguous => f.write_str(", got several values"),
                }
            }
            Mismatch::JointParse { role, mv, error } => {
                write!(f, "the game cannot read move {mv} of {role}: {error}")
            }
        }
    }
}

impl std::error::Error for Difference {}

/// What a successful [`replay`] covered.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ReplaySummary {
    /// Matches replayed.
    pub matches: usize,
    /// States compared.
    pub states: usize,
    /// Joint moves played.
    pub joint_moves: usize,
    /// Matches that the trace cut off with `ABORT`.
    pub aborted: usize,
}

/// Fluents or moves of the trace that the game lacks, and of the game that
/// the trace lacks, compared as sets of [`text::key`]s (case and spacing
/// ignored); each side is shown as its own text.
fn set_difference(expected: &[String], got: &[String]) -> (Vec<String>, Vec<String>) {
    let keyed = |v: &[String]| -> BTreeMap<String, String> {
        v.iter().map(|s| (text::key_lossy(s), s.clone())).collect()
    };
    let e = keyed(expected);
    let g = keyed(got);
    let missing = e
        .iter()
        .filter(|(k, _)| !g.contains_key(*k))
        .map(|(_, s)| s.clone())
        .collect();
    let extra = g
        .iter()
        .filter(|(k, _)| !e.contains_key(*k))
        .map(|(_, s)| s.clone())
        .collect();
    (missing, extra)
}

/// For each trace role, the game role with the same name (ASCII case
/// ignored), checking the order too when the trace gives it.
fn role_map<G: Game>(game: &G, trace: &Trace) -> Result<Vec<usize>, Mismatch> {
    let names = game.role_names();
    let mismatch = || Mismatch::Roles {
        expected: trace.roles.clone(),
        got: names.iter().map(|s| s.to_string()).collect(),
    };
    if names.len() != trace.roles.len() {
        return Err(mismatch());
    }
    let mut map = Vec::with_capacity(names.len());
    for (i, r) in trace.roles.iter().enumerate() {
        let found = if trace.roles_in_game_order {
            names[i].eq_ignore_ascii_case(r).then_some(i)
        } else {
            names.iter().position(|n| n.eq_ignore_ascii_case(r))
        };
        match found {
            Some(g) if !map.contains(&g) => map.push(g),
            _ => return Err(mismatch()),
        }
    }
    Ok(map)
}

/// Replays every match of `trace` on `game` and returns the first
/// difference.
///
/// Each match starts at [`Game::initial_state`]; at each recorded depth the
/// replayer compares, where the trace gives them: the fluents (as sets, case
/// and spacing ignored, against [`Game::fluents`]), the terminal flag, in
/// non-terminal states every role's legal moves (as sets of
/// [`Game::move_text`]), and the goals (a trace `?` matches [`Goal::None`] and
/// [`Goal::Ambiguous`]). It then reads the joint move with
/// [`Game::parse_move`] and advances with [`Game::apply_unchecked`]. A match
/// ends at its last recorded step (after an `ABORT`, without error). Roles are
/// compared first, by name without regard to case.
pub fn replay<G: Game>(game: &G, trace: &Trace) -> Result<ReplaySummary, Difference> {
    let map = role_map(game, trace).map_err(|mismatch| Difference {
        match_index: 0,
        playout: trace.matches.first().map_or(0, |m| m.index),
        depth: 0,
        mismatch,
    })?;
    let mut summary = ReplaySummary::default();
    let mut legal = Vec::new();
    let mut joint = vec![Move::default(); map.len()];
    for (match_index, m) in trace.matches.iter().enumerate() {
        let mut state = game.initial_state();
        for step in &m.steps {
            let diff = |mismatch| Difference {
                match_index,
                playout: m.index,
                depth: step.depth,
                mismatch,
            };
            summary.states += 1;
            if let Some(expected) = &step.state {
                let (missing, extra) = set_difference(expected, &game.fluents(&state));
                if !missing.is_empty() || !extra.is_empty() {
                    return Err(diff(Mismatch::State { missing, extra }));
                }
            }
            let terminal = game.is_terminal(&state);
            if let Some(expected) = step.terminal {
                if expected != terminal {
                    return Err(diff(Mismatch::Terminal {
                        expected,
                        got: terminal,
                    }));
                }
            }
            if let (Some(expected), false) = (&step.legal, terminal) {
                for (t, moves) in expected.iter().enumerate() {
                    let g = map[t];
                    game.legal_moves(&state, g, &mut legal);
                    let got: Vec<String> = legal.iter().map(|&mv| game.move_text(g, mv)).collect();
                    let (missing, extra) = set_difference(moves, &got);
                    if !missing.is_empty() || !extra.is_empty() {
                        return Err(diff(Mismatch::Legal {
                            role: trace.roles[t].clone(),
                            missing,
                            extra,
                        }));
                    }
                }
            }
            if let Some(expected) = &step.goals {
                for (t, &e) in expected.iter().enumerate() {
                    let got = game.goal(&state, map[t]);
                    let same = match (e, got) {
                        (None, Goal::None | Goal::Ambiguous) => true,
                        (Some(v), Goal::Value(w)) => v == w,
                        _ => false,
                    };
                    if !same {
                        return Err(diff(Mismatch::Goal {
                            role: trace.roles[t].clone(),
                            expected: e,
                            got,
                        }));
                    }
                }
            }
            let Some(moves) = &step.joint else { break };
            for (t, mv) in moves.iter().enumerate() {
                let g = map[t];
                joint[g] = game.parse_move(g, mv).map_err(|e| {
                    diff(Mismatch::JointParse {
                        role: trace.roles[t].clone(),
                        mv: mv.clone(),
                        error: e.message,
                    })
                })?;
            }
            game.apply_unchecked(&mut state, &joint);
            summary.joint_moves += 1;
        }
        summary.matches += 1;
        if m.abort.is_some() {
            summary.aborted += 1;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{conformance, dresden_trace, Counter, Maze, Nim, TicTacToe};

    fn read(path: &str) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn count_lines(text: &str, prefix: &str) -> usize {
        text.lines().filter(|l| l.starts_with(prefix)).count()
    }

    #[test]
    fn parses_tic_tac_toe() {
        let src = read(&conformance("ggp-repository-base/ticTacToe.trace"));
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
    fn replays_tic_tac_toe() {
        let src = read(&conformance("ggp-repository-base/ticTacToe.trace"));
        let t = Trace::parse(&src).unwrap();
        let s = replay(&TicTacToe, &t).unwrap();
        assert_eq!(s.matches, t.matches.len());
        assert_eq!(s.states, count_lines(&src, "STATE "));
        assert_eq!(s.joint_moves, count_lines(&src, "JOINT "));
        assert_eq!(s.aborted, 0);
        // Case and spacing do not matter.
        let loud = src
            .replace("(cell", "( CELL ")
            .replace("xplayer", "XPlayer")
            .replace("mark", "MARK");
        assert_eq!(replay(&TicTacToe, &Trace::parse(&loud).unwrap()), Ok(s));
    }

    /// Replays the first match of the tic-tac-toe trace with `from` replaced
    /// by `to` once, in the line starting with `line`.
    fn injected(line: &str, from: &str, to: &str) -> Difference {
        let src = read(&conformance("ggp-repository-base/ticTacToe.trace"));
        let mut out = String::new();
        let mut done = false;
        for l in src.lines() {
            if !done && l.starts_with(line) {
                assert!(l.contains(from), "{l}");
                out.push_str(&l.replacen(from, to, 1));
                done = true;
            } else {
                out.push_str(l);
            }
            out.push('\n');
        }
        assert!(done);
        replay(&TicTacToe, &Trace::parse(&out).unwrap()).unwrap_err()
    }

    #[test]
    fn replay_detects_differences() {
        let d = injected("STATE 1 ", "(cell 3 1 x)", "(cell 3 1 o)");
        assert_eq!((d.match_index, d.playout, d.depth), (0, 0, 1));
        assert_eq!(
            d.mismatch,
            Mismatch::State {
                missing: vec!["(cell 3 1 o)".into()],
                extra: vec!["(cell 3 1 x)".into()]
            }
        );
        assert_eq!(
            d.to_string(),
            "match 0 (PLAYOUT 0), depth 1: state differs: missing (cell 3 1 o); extra (cell 3 1 x)"
        );

        let d = injected("LEGAL 2 xplayer", " (mark 1 2)", "");
        assert_eq!(d.depth, 2);
        assert_eq!(d.mismatch.kind(), "legal");
        assert_eq!(d.mismatch.role(), Some("xplayer"));
        assert_eq!(
            d.mismatch,
            Mismatch::Legal {
                role: "xplayer".into(),
                missing: vec![],
                extra: vec!["(mark 1 2)".into()]
            }
        );

        let d = injected("TERMINAL 3 ", "0", "1");
        assert_eq!(
            (d.depth, d.mismatch),
            (
                3,
                Mismatch::Terminal {
                    expected: true,
                    got: false
                }
            )
        );

        let d = injected("GOALS 7 ", "100 0", "? 0");
        assert_eq!(
            d.mismatch,
            Mismatch::Goal {
                role: "xplayer".into(),
                expected: None,
                got: Goal::Value(100)
            }
        );
        assert!(d.to_string().contains("goal of xplayer differs"), "{d}");

        let d = injected("JOINT 0 ", "noop", "(pass)");
        assert_eq!(d.mismatch.kind(), "joint-parse");
        assert_eq!(d.mismatch.role(), Some("oplayer"));

        let d = injected("ROLES ", "xplayer oplayer", "oplayer xplayer");
        assert_eq!(d.mismatch.kind(), "roles");
        assert_eq!(
            d.to_string(),
            "roles differ: expected oplayer xplayer, got xplayer oplayer"
        );
    }

    #[test]
    fn parses_dresden_maze_and_replays_it() {
        let t = Trace::read(dresden_trace("maze.trace.xml")).unwrap();
        assert_eq!(t.game.as_deref(), Some("maze"));
        assert_eq!(t.roles, ["robot"]);
        assert!(!t.roles_in_game_order);
        let m = &t.matches[0];
        assert_eq!(m.steps.len(), 10);
        let s0 = &m.steps[0];
        assert_eq!(s0.depth, 0);
        assert_eq!(
            s0.state.as_deref().unwrap(),
            ["(cell a)", "(gold c)", "(step 1)"]
        );
        assert_eq!(s0.legal, Some(vec![vec!["move".to_string()]]));
        assert_eq!(s0.terminal, Some(false));
        assert_eq!(s0.joint, Some(vec!["move".to_string()]));
        assert_eq!(m.steps[2].legal.as_ref().unwrap()[0], ["grab", "move"]);
        let last = &m.steps[9];
        assert_eq!((last.depth, last.terminal), (9, Some(true)));
        assert_eq!(last.goals, Some(vec![Some(0)]));
        assert_eq!(last.joint, None);

        let s = replay(&Maze, &t).unwrap();
        assert_eq!((s.matches, s.states, s.joint_moves), (1, 10, 9));
    }

    #[test]
    fn parses_dresden_multi_role_traces() {
        let path = dresden_trace("othello-fourway-teamswitch.trace.xml");
        let src = read(&path);
        let t = Trace::parse(&src).unwrap();
        assert_eq!(t.roles, ["blackcol", "blackrow", "whitecol", "whiterow"]);
        let m = &t.matches[0];
        assert_eq!(m.steps.len(), src.matches("<step ").count());
        let last = m.steps.last().unwrap();
        assert_eq!(
            last.goals,
            Some(vec![Some(100), Some(0), Some(0), Some(100)])
        );
        assert_eq!(m.steps[0].legal.as_ref().unwrap()[3].len(), 4);
        assert_eq!(m.steps[0].joint.as_ref().unwrap()[3], "(pickrow c5)");
        for name in ["8puzzle.trace.xml", "checkers.trace.xml"] {
            let t = Trace::read(dresden_trace(name)).unwrap();
            let last = t.matches[0].steps.last().unwrap();
            assert_eq!(last.terminal, Some(true), "{name}");
            assert!(last.goals.is_some(), "{name}");
        }
    }

    #[test]
    fn xml_roles_are_matched_by_name() {
        // Nim's roles are white, black; the XML lists black first.
        let xml = r#"<?xml version="1.0"?>
<gametrace><game>nim</game><steps>
  <step nb="1">
    <state><fluent>(pile 2)</fluent><fluent>(control white)</fluent></state>
    <legal_moves>
      <move role="black">noop</move>
      <move role="white">(take 1)</move><move role="white">(take 2)</move>
    </legal_moves>
    <moves><move role="black">noop</move><move role='white'>(take 2)</move></moves>
  </step>
  <!-- a comment -->
  <step nb="2">
    <state><fluent>(pile 0)</fluent><fluent>(control black)</fluent></state>
    <terminal/>
    <goal_values><goal_value role="white">100</goal_value>
    <goal_value role="black">0</goal_value></goal_values>
  </step>
</steps></gametrace>"#;
        let t = Trace::parse(xml).unwrap();
        assert_eq!(t.roles, ["black", "white"]);
        assert_eq!(t.matches[0].steps[1].goals, Some(vec![Some(0), Some(100)]));
        assert!(replay(&Nim { pile: 2 }, &t).is_ok());
        let bad = xml.replace(">100<", ">50<");
        let d = replay(&Nim { pile: 2 }, &Trace::parse(&bad).unwrap()).unwrap_err();
        assert_eq!(d.mismatch.role(), Some("white"));
        assert_eq!(d.depth, 1);
        // Entities are decoded.
        let ent = xml.replace(
            "(take 2)</move></moves>",
            "(take&#x20;2)&lt;</move></moves>",
        );
        let e = Trace::parse(&ent).unwrap_err();
        assert_eq!(
            e.message,
            "step 1: expected one term, found 2: `(take 2) <`"
        );
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &amp; &quot;c&apos; &#65;&#x42; &bogus; &"),
            "a <b> & \"c' AB &bogus; &"
        );
    }

    #[test]
    fn record_then_parse_and_replay() {
        for (roles, stuck) in [(2, None), (3, None), (3, Some(3))] {
            let g = Counter {
                roles,
                moves: 2,
                target: 12,
                stuck_at: stuck,
            };
            let t = record(&g, 5, 11, 100);
            assert_eq!(t.matches.len(), 5);
            let text = t.to_string();
            let back = Trace::parse(&text).unwrap();
            assert_eq!(back, t);
            let s = replay(&g, &back).unwrap();
            assert_eq!(s.matches, 5);
        }
        let g = Nim { pile: 7 };
        let t = record(&g, 3, 1, 2);
        assert!(t.matches.iter().all(|m| m.abort == Some(2)));
        let s = replay(&g, &t).unwrap();
        assert_eq!((s.aborted, s.joint_moves), (3, 6));
        // Another game's trace differs from the start.
        let d = replay(&Nim { pile: 6 }, &t).unwrap_err();
        assert_eq!((d.depth, d.mismatch.kind()), (0, "state"));
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
