//! Rules in lifted form: term patterns with their ground parts interned,
//! body literals over relation indices, and rules.

use crate::front::ir::Term;
use crate::front::symbols::Sym;

/// A term store that rules can be compiled into: it names every ground term
/// by a `u32` id.
pub trait Interner {
    /// The id of the constant `sym`.
    fn constant(&mut self, sym: Sym) -> u32;
    /// The id of the function application `(f args..)`, `args` being ids.
    fn func(&mut self, f: Sym, args: &[u32]) -> u32;
}

/// A term pattern of a rule: variables, ground subterms (interned) and
/// function applications with at least one variable inside.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Pat {
    /// A rule variable.
    Var(u32),
    /// A ground term (its id).
    Ground(u32),
    /// `(f args..)` with a variable somewhere inside.
    Func(Sym, Box<[Pat]>),
}

impl Pat {
    /// Compiles a lowered term, interning its ground parts (arguments before
    /// the terms that contain them).
    pub fn compile(store: &mut impl Interner, t: &Term) -> Pat {
        match t {
            Term::Var(v) => Pat::Var(*v),
            Term::Const(s) => Pat::Ground(store.constant(*s)),
            Term::Func(f, args) => {
                let ps: Vec<Pat> = args.iter().map(|a| Pat::compile(store, a)).collect();
                let ids: Option<Vec<u32>> = ps
                    .iter()
                    .map(|p| match p {
                        Pat::Ground(id) => Some(*id),
                        _ => None,
                    })
                    .collect();
                match ids {
                    Some(ids) => Pat::Ground(store.func(*f, &ids)),
                    None => Pat::Func(*f, ps.into()),
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

    /// The pattern with each variable `v` renamed to `to(v)`; `None` if
    /// some variable has no new name.
    pub fn renamed(&self, to: &impl Fn(u32) -> Option<u32>) -> Option<Pat> {
        Some(match self {
            Pat::Var(v) => Pat::Var(to(*v)?),
            Pat::Ground(t) => Pat::Ground(*t),
            Pat::Func(f, args) => Pat::Func(
                *f,
                args.iter().map(|a| a.renamed(to)).collect::<Option<_>>()?,
            ),
        })
    }

    /// Whether the pattern is ground once the variables in `bound` are.
    pub fn bound_by(&self, bound: &[bool]) -> bool {
        match self {
            Pat::Var(v) => bound[*v as usize],
            Pat::Ground(_) => true,
            Pat::Func(_, args) => args.iter().all(|a| a.bound_by(bound)),
        }
    }
}

/// A body literal of a compiled rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    /// The atom `rel(args)` holds.
    Pos(u32, Box<[Pat]>),
    /// The atom `rel(args)` does not hold (`rel` must be complete by then).
    Neg(u32, Box<[Pat]>),
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
    pub head_rel: u32,
    /// Head arguments.
    pub head: Box<[Pat]>,
    /// Body literals.
    pub body: Vec<Lit>,
    /// Number of variables.
    pub num_vars: usize,
}

impl CRule {
    /// The distinct variables of the head, in order.
    pub fn head_vars(&self) -> Vec<u32> {
        let mut vs = Vec::new();
        for a in self.head.iter() {
            a.for_each_var(&mut |v| {
                if !vs.contains(&v) {
                    vs.push(v)
                }
            });
        }
        vs
    }
}

/// Per relation below `n`, its strongly connected component of `rules`'
/// dependency graph (through positive and negative literals) if it is on
/// a cycle.
pub fn cyclic_components(rules: &[CRule], n: usize) -> Vec<Option<usize>> {
    let mut succ = vec![Vec::new(); n];
    for r in rules {
        for lit in &r.body {
            if let Lit::Pos(rel, _) | Lit::Neg(rel, _) = lit {
                succ[r.head_rel as usize].push(*rel as usize);
            }
        }
    }
    let sccs = crate::scc::tarjan(&succ, |&v| v);
    let mut size = vec![0usize; sccs.count()];
    sccs.comp.iter().for_each(|&c| size[c as usize] += 1);
    (0..n)
        .map(|p| {
            let c = sccs.comp[p] as usize;
            (size[c] > 1 || succ[p].contains(&p)).then_some(c)
        })
        .collect()
}
