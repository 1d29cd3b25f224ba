//! The lifted rule form the grounder evaluates: term patterns with their
//! ground parts interned, body literals over relation indices, and rules.

use super::terms::{header, Kind, Terms};
use crate::front::ir::Term;

/// A term pattern of a rule: variables, ground subterms (interned) and
/// function applications with at least one variable inside.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Pat {
    /// A rule variable.
    Var(u32),
    /// A ground term (its id).
    Ground(u32),
    /// `(f args..)` with a variable somewhere inside.
    Func(u32, Box<[Pat]>),
}

impl Pat {
    /// Compiles a lowered term, interning its ground parts.
    pub fn compile(terms: &mut Terms, t: &Term) -> Pat {
        match t {
            Term::Var(v) => Pat::Var(*v),
            Term::Const(s) => Pat::Ground(terms.constant(*s)),
            Term::Func(f, args) => {
                let ps: Vec<Pat> = args.iter().map(|a| Pat::compile(terms, a)).collect();
                if ps.iter().all(|p| matches!(p, Pat::Ground(_))) {
                    let mut key = vec![header(Kind::Func, f.0)];
                    key.extend(ps.iter().map(|p| match p {
                        Pat::Ground(id) => *id,
                        _ => unreachable!(),
                    }));
                    Pat::Ground(terms.intern(&key))
                } else {
                    Pat::Func(f.0, ps.into())
                }
            }
        }
    }

    /// Calls `f` on every variable, with repeats.
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Ground(_) => {}
            Pat::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// A body literal of a compiled rule.
#[derive(Clone, Debug)]
pub enum Lit {
    /// The atom `rel(args)` holds.
    Pos(usize, Box<[Pat]>),
    /// The atom `rel(args)` does not hold (`rel` must be complete by then).
    Neg(usize, Box<[Pat]>),
    /// The two terms differ.
    Distinct(Pat, Pat),
}

impl Lit {
    /// Calls `f` on every variable, with repeats.
    pub fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Lit::Pos(_, args) | Lit::Neg(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
            Lit::Distinct(a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

/// A rule over relation indices, ready for evaluation.
#[derive(Clone, Debug)]
pub struct CRule {
    /// Relation of the head.
    pub head_rel: usize,
    /// Head arguments.
    pub head: Box<[Pat]>,
    /// Body literals that filter the rule's instances.
    pub body: Vec<Lit>,
    /// Number of variables.
    pub num_vars: usize,
}

/// The distinct variables of a rule's head, in order.
pub fn head_vars(r: &CRule) -> Vec<u32> {
    let mut vs = Vec::new();
    for a in r.head.iter() {
        a.for_each_var(&mut |v| {
            if !vs.contains(&v) {
                vs.push(v)
            }
        });
    }
    vs
}
