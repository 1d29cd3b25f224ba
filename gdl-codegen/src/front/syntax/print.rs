//! Prints a [`Description`] as canonical KIF.
//!
//! Names are printed as written; facts take one line, rules one line a
//! literal with the body indented. Reading the output back gives the same
//! description (spans aside), and printing is deterministic.

use std::fmt::Write as _;

use super::ast::{Description, Literal, Rule, Sentence, Term};

/// Prints a whole description, one blank line between rules.
pub fn to_kif(desc: &Description) -> String {
    let mut out = String::new();
    for rule in &desc.rules {
        write_rule(&mut out, rule);
        out.push('\n');
    }
    out
}

/// Prints one rule (no trailing newline).
pub fn write_rule(out: &mut String, rule: &Rule) {
    if !rule.implication {
        write_sentence(out, &rule.head);
        return;
    }
    out.push_str("(<= ");
    write_sentence(out, &rule.head);
    for lit in &rule.body {
        out.push_str("\n    ");
        write_literal(out, lit);
    }
    out.push(')');
}

fn write_sentence(out: &mut String, s: &Sentence) {
    if s.args.is_empty() && !s.parens {
        out.push_str(&s.name.text);
        return;
    }
    out.push('(');
    out.push_str(&s.name.text);
    for a in &s.args {
        out.push(' ');
        write_term(out, a);
    }
    out.push(')');
}

/// Prints one literal.
pub fn write_literal(out: &mut String, lit: &Literal) {
    match lit {
        Literal::Atom(s) => write_sentence(out, s),
        Literal::Not(inner, _) => {
            out.push_str("(not ");
            write_literal(out, inner);
            out.push(')');
        }
        Literal::Distinct(a, b, _) => {
            out.push_str("(distinct ");
            write_term(out, a);
            out.push(' ');
            write_term(out, b);
            out.push(')');
        }
        Literal::Or(alts, _) => {
            out.push_str("(or");
            for a in alts {
                out.push(' ');
                write_literal(out, a);
            }
            out.push(')');
        }
    }
}

/// Prints one term.
pub fn write_term(out: &mut String, t: &Term) {
    match t {
        Term::Var(i) | Term::Const(i) => out.push_str(&i.text),
        Term::Func { name, args, .. } => {
            let _ = write!(out, "({}", name.text);
            for a in args {
                out.push(' ');
                write_term(out, a);
            }
            out.push(')');
        }
    }
}
