//! The GGP protocol's messages: read from a request body, and the replies
//! printed.
//!
//! Messages are S-expressions (KIF). Their keywords are read without regard
//! to case, since Dresden's game controller upper-cases whole messages while
//! GGP-Base writes them in lower case; everything else (match ids, role names,
//! moves, rules) is kept as written and compared case-insensitively where it
//! is compared at all.

use std::fmt;

/// An S-expression: an atom or a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    /// A symbol, number or variable, as written.
    Atom(String),
    /// A parenthesised list.
    List(Vec<Sexp>),
}

impl Sexp {
    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(a) => Some(a),
            Sexp::List(_) => None,
        }
    }

    /// Whether this is the atom `word`, in any case.
    pub fn is_word(&self, word: &str) -> bool {
        self.atom().is_some_and(|a| a.eq_ignore_ascii_case(word))
    }
}

impl fmt::Display for Sexp {
    /// Prints KIF with single spaces: `(mark 1 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom(a) => f.write_str(a),
            Sexp::List(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads every S-expression of `text` (KIF `;` comments skipped).
pub fn read_all(text: &str) -> Result<Vec<Sexp>, String> {
    let mut stack: Vec<Vec<Sexp>> = vec![Vec::new()];
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            ';' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '(' => stack.push(Vec::new()),
            ')' => {
                let list = stack.pop().filter(|_| !stack.is_empty());
                let (Some(list), Some(parent)) = (list, stack.last_mut()) else {
                    return Err(format!("unbalanced `)` at byte {start}"));
                };
                parent.push(Sexp::List(list));
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = start + c.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' || c == ';' {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                let top = stack
                    .last_mut()
                    .expect("the outermost level is never popped");
                top.push(Sexp::Atom(text[start..end].to_owned()));
            }
        }
    }
    match stack.len() {
        1 => Ok(stack.pop().unwrap_or_default()),
        n => Err(format!("{} unclosed `(`", n - 1)),
    }
}

/// A message from the game manager.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `(INFO)`: is the player there, and is it free?
    Info,
    /// `(PREVIEW rules clock)`: the rules of a coming match.
    Preview {
        /// The rules, as KIF text.
        rules: String,
        /// Seconds to answer in.
        clock: f64,
    },
    /// `(START id role rules startclock playclock)`.
    Start {
        /// The match id.
        id: String,
        /// The role we play, as written.
        role: String,
        /// The rules, as KIF text.
        rules: String,
        /// Seconds before the first PLAY.
        start_clock: f64,
        /// Seconds to answer each PLAY in.
        play_clock: f64,
    },
    /// `(PLAY id moves)`: `moves` is `None` for `NIL` (the first turn).
    Play {
        /// The match id.
        id: String,
        /// The joint move last played, one move per role, in role order.
        moves: Option<Vec<String>>,
    },
    /// `(STOP id moves)`: the match is over.
    Stop {
        /// The match id.
        id: String,
        /// The last joint move, if given.
        moves: Option<Vec<String>>,
    },
    /// `(ABORT id)`: the match is cancelled.
    Abort {
        /// The match id.
        id: String,
    },
}

impl Message {
    /// The match id the message is about, if any.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Play { id, .. } | Message::Stop { id, .. } | Message::Abort { id } => Some(id),
            Message::Start { id, .. } => Some(id),
            Message::Info | Message::Preview { .. } => None,
        }
    }
}

/// Reads a message from a request body.
pub fn parse(body: &str) -> Result<Message, String> {
    let items = read_all(body)?;
    let [Sexp::List(parts)] = items.as_slice() else {
        return Err("a message is one parenthesised list".to_owned());
    };
    let Some(keyword) = parts.first().and_then(Sexp::atom) else {
        return Err("a message starts with its keyword".to_owned());
    };
    let args = &parts[1..];
    match keyword.to_ascii_lowercase().as_str() {
        "info" => Ok(Message::Info),
        "preview" => match args {
            [rules, clock] => Ok(Message::Preview {
                rules: rules_text(rules)?,
                clock: seconds(clock)?,
            }),
            _ => Err(arity("PREVIEW", "rules clock")),
        },
        "start" => match args {
            [id, role, rules, start, play] => Ok(Message::Start {
                id: word(id, "match id")?,
                role: role.to_string(),
                rules: rules_text(rules)?,
                start_clock: seconds(start)?,
                play_clock: seconds(play)?,
            }),
            _ => Err(arity("START", "id role rules startclock playclock")),
        },
        "play" => match args {
            [id, moves] => Ok(Message::Play {
                id: word(id, "match id")?,
                moves: joint_move(moves)?,
            }),
            _ => Err(arity("PLAY", "id moves")),
        },
        "stop" => match args {
            [id] => Ok(Message::Stop {
                id: word(id, "match id")?,
                moves: None,
            }),
            [id, moves] => Ok(Message::Stop {
                id: word(id, "match id")?,
                moves: joint_move(moves)?,
            }),
            _ => Err(arity("STOP", "id moves")),
        },
        "abort" => match args {
            [id] => Ok(Message::Abort {
                id: word(id, "match id")?,
            }),
            _ => Err(arity("ABORT", "id")),
        },
        other => Err(format!("unknown message `{other}`")),
    }
}

fn arity(keyword: &str, args: &str) -> String {
    format!("{keyword} takes ({keyword} {args})")
}

fn word(s: &Sexp, what: &str) -> Result<String, String> {
    s.atom()
        .map(str::to_owned)
        .ok_or_else(|| format!("the {what} must be a symbol, not `{s}`"))
}

fn seconds(s: &Sexp) -> Result<f64, String> {
    s.atom()
        .and_then(|a| a.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("a clock must be a number of seconds, not `{s}`"))
}

/// The rules list as KIF text, one sentence a line.
fn rules_text(s: &Sexp) -> Result<String, String> {
    match s {
        Sexp::List(rules) => Ok(rules.iter().map(|r| format!("{r}\n")).collect()),
        Sexp::Atom(a) => Err(format!("the rules must be a list, not `{a}`")),
    }
}

/// `NIL` (no move yet), or the list of every role's move.
fn joint_move(s: &Sexp) -> Result<Option<Vec<String>>, String> {
    match s {
        Sexp::Atom(a) if a.eq_ignore_ascii_case("nil") => Ok(None),
        Sexp::List(moves) => Ok(Some(moves.iter().map(Sexp::to_string).collect())),
        Sexp::Atom(a) => Err(format!("the moves must be NIL or a list, not `{a}`")),
    }
}

/// The reply to INFO: our name, and whether a match is on.
pub fn info_reply(busy: bool) -> String {
    let status = if busy { "busy" } else { "available" };
    format!("((name gdl-codegen) (status {status}))")
}

/// The reply to a message that cannot be acted on: `error`, then why, on one
/// line (no manager reads it as a move or `ready`).
pub fn error_reply(why: &str) -> String {
    let one_line: String = why
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("error: {}", one_line.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_start_in_upper_case() {
        let m = parse("(START M1 XPLAYER ((ROLE XPLAYER) (INIT (CELL 1 1 B))) 10 3)").unwrap();
        let Message::Start {
            id,
            role,
            rules,
            start_clock,
            play_clock,
        } = m
        else {
            panic!("not a START: {m:?}");
        };
        assert_eq!((id.as_str(), role.as_str()), ("M1", "XPLAYER"));
        assert_eq!(rules, "(ROLE XPLAYER)\n(INIT (CELL 1 1 B))\n");
        assert_eq!((start_clock, play_clock), (10.0, 3.0));
    }

    #[test]
    fn reads_play_with_nil_and_moves() {
        assert_eq!(
            parse("(play m nil)").unwrap(),
            Message::Play {
                id: "m".into(),
                moves: None
            }
        );
        assert_eq!(
            parse("( PLAY m ( ( mark 1 1 ) noop ) )").unwrap(),
            Message::Play {
                id: "m".into(),
                moves: Some(vec!["(mark 1 1)".into(), "noop".into()])
            }
        );
    }

    #[test]
    fn stop_abort_info_preview() {
        assert_eq!(parse("(info)").unwrap(), Message::Info);
        assert!(matches!(
            parse("(Stop m (a b))").unwrap(),
            Message::Stop { moves: Some(_), .. }
        ));
        assert_eq!(
            parse("(abort m)").unwrap(),
            Message::Abort { id: "m".into() }
        );
        assert!(matches!(
            parse("(PREVIEW ((role r)) 5)").unwrap(),
            Message::Preview { clock, .. } if clock == 5.0
        ));
    }

    #[test]
    fn bad_messages_are_errors_not_panics() {
        for bad in [
            "",
            "(",
            ")",
            "(foo)",
            "(play m)",
            "(start m r rules 1 2)",
            "x y",
            "(start m r () x 2)",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn comments_are_skipped() {
        let items = read_all("; a comment\n(role x) ; another\n(init y)").unwrap();
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn error_replies_are_one_line() {
        assert_eq!(error_reply("bad\nrules"), "error: bad rules");
    }
}
