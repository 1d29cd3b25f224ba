//! The reader of Dresden GameController XML traces (`*.trace.xml`).
//!
//! Reading takes two passes: the XML events are collected into steps whose
//! moves and goals are tagged with role names ([`XmlStep`]), because the
//! roles are only known once the whole file is read; then the steps become
//! [`TraceStep`]s indexed by the sorted role names.

use super::model::check_match;
use super::xml::{xml_events, Xml};
use super::{Trace, TraceMatch, TraceStep};
use crate::text;
use crate::ParseError;

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

/// What the first pass collects, and its position in the element tree.
#[derive(Default)]
struct Collector<'a> {
    /// The open elements.
    stack: Vec<&'a str>,
    steps: Vec<XmlStep>,
    game: Option<String>,
    /// Text since the last tag.
    text_buf: String,
    /// The role of the innermost `<move>` or `<goal_value>`.
    role: String,
    /// Every role named, in order of appearance.
    roles: Vec<String>,
    saw_root: bool,
}

/// A term of step `nb` in canonical spelling.
fn term(s: &str, nb: usize) -> Result<String, ParseError> {
    text::canonical(s).map_err(|e| ParseError::new(format!("step {nb}: {e}")))
}

impl<'a> Collector<'a> {
    /// A start tag: opens a step or one of its parts, or notes a role.
    fn open(
        &mut self,
        name: &'a str,
        attrs: &[(&str, String)],
        empty: bool,
    ) -> Result<(), ParseError> {
        self.text_buf.clear();
        let attr = |a: &str| attrs.iter().find(|(k, _)| *k == a).map(|(_, v)| v);
        match name {
            "gametrace" => self.saw_root = true,
            "step" => {
                let nb_text = attr("nb")
                    .ok_or_else(|| ParseError::new("<step> without an `nb` attribute"))?;
                let nb: usize = nb_text
                    .trim()
                    .parse()
                    .map_err(|_| ParseError::new(format!("bad step number `{nb_text}`")))?;
                let expected = self.steps.last().map_or(1, |s| s.nb + 1);
                if nb != expected {
                    return Err(ParseError::new(format!(
                        "step {nb} out of order: expected step {expected}"
                    )));
                }
                self.steps.push(XmlStep {
                    nb,
                    ..XmlStep::default()
                });
            }
            "state" | "legal_moves" | "moves" | "goal_values" | "terminal" => {
                let step = self
                    .steps
                    .last_mut()
                    .ok_or_else(|| ParseError::new(format!("<{name}> outside a <step>")))?;
                match name {
                    "state" => step.state = Some(Vec::new()),
                    "legal_moves" => step.legal = Some(Vec::new()),
                    "moves" => step.joint = Some(Vec::new()),
                    "goal_values" => step.goals = Some(Vec::new()),
                    _ => step.terminal = true,
                }
            }
            "move" | "goal_value" => {
                self.role = attr("role")
                    .ok_or_else(|| ParseError::new(format!("<{name}> without a `role` attribute")))?
                    .trim()
                    .to_string();
                if !self.roles.contains(&self.role) {
                    self.roles.push(self.role.clone());
                }
            }
            // Unknown elements are skipped with their text.
            _ => {}
        }
        if !empty {
            self.stack.push(name);
        }
        Ok(())
    }

    /// An end tag: files the text read since the start tag (a fluent, a
    /// move, a goal value or the game's name) where it belongs.
    fn close(&mut self, name: &str) -> Result<(), ParseError> {
        if self.stack.pop() != Some(name) {
            return Err(ParseError::new(format!("mismatched end tag </{name}>")));
        }
        let parent = self.stack.last().copied();
        let step = self.steps.last_mut();
        match (name, step) {
            ("game", _) => self.game = Some(self.text_buf.trim().to_string()),
            ("fluent", Some(step)) => {
                let t = term(&self.text_buf, step.nb)?;
                if let Some(state) = &mut step.state {
                    state.push(t);
                }
            }
            ("move", Some(step)) => {
                let t = term(&self.text_buf, step.nb)?;
                let list = match parent {
                    Some("legal_moves") => &mut step.legal,
                    Some("moves") => &mut step.joint,
                    _ => &mut None,
                };
                if let Some(list) = list {
                    list.push((self.role.clone(), t));
                }
            }
            ("goal_value", Some(step)) => {
                if let Some(goals) = &mut step.goals {
                    goals.push((self.role.clone(), self.text_buf.trim().to_string()));
                }
            }
            _ => {}
        }
        self.text_buf.clear();
        Ok(())
    }
}

/// Step `s` with its moves and goals indexed like `roles` (sorted, and
/// holding every role `s` names).
fn indexed_step(s: XmlStep, roles: &[String]) -> Result<TraceStep, ParseError> {
    let index_of = |r: &str| roles.iter().position(|x| x == r).unwrap_or(0);
    let n = roles.len();
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
    Ok(TraceStep {
        depth: nb - 1,
        state: s.state,
        legal,
        terminal: Some(s.terminal),
        goals,
        joint,
    })
}

impl Trace {
    /// Reads a Dresden GameController XML trace (`*.trace.xml`): one match,
    /// `<step nb="n">` being the state at depth `n - 1` with its fluents,
    /// legal moves, the joint move played (`<moves>`), and on the last step
    /// `<terminal/>` and the goal values. Steps without `<terminal/>` are
    /// recorded as not terminal. The roles are every role named in a `role`
    /// attribute, sorted by name ([`Trace::roles_in_game_order`] is false).
    pub fn parse_dresden_xml(input: &str) -> Result<Trace, ParseError> {
        let mut c = Collector::default();
        for ev in xml_events(input)? {
            match ev {
                Xml::Text(t) => c.text_buf.push_str(&t),
                Xml::Open { name, attrs, empty } => c.open(name, &attrs, empty)?,
                Xml::Close(name) => c.close(name)?,
            }
        }
        if !c.saw_root {
            return Err(ParseError::new(
                "no <gametrace> element: not a GameController trace",
            ));
        }
        if let Some(open) = c.stack.last() {
            return Err(ParseError::new(format!("unclosed element <{open}>")));
        }
        let mut roles = c.roles;
        roles.sort();
        let mut m = TraceMatch::default();
        for s in c.steps {
            m.steps.push(indexed_step(s, &roles)?);
        }
        check_match(&m).map_err(ParseError::new)?;
        Ok(Trace {
            game: c.game,
            roles,
            roles_in_game_order: false,
            matches: vec![m],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{dresden_trace, read_file, Maze, Nim};
    use crate::trace::replay;

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
        let src = read_file(&path);
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
}
