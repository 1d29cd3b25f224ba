//! The dependency graph of a program's relations and its strongly connected
//! components, shared by the checker and the reasoners.

use crate::front::ir::{Literal, PredId, Program};
use crate::scc::tarjan;

/// One dependency: a rule whose head is `from` mentions `to` in its body.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Edge {
    /// The relation mentioned in the body.
    pub to: PredId,
    /// Mentioned under `not`.
    pub negative: bool,
    /// Index of the rule in [`Program::rules`].
    pub rule: usize,
    /// Index of the literal in the rule's body.
    pub literal: usize,
}

/// The relation-level dependency graph (Definition 3 of the GDL semantics).
#[derive(Clone, Debug)]
pub struct DepGraph {
    /// Outgoing edges of each relation, indexed by [`PredId`].
    pub edges: Vec<Vec<Edge>>,
    /// The strongly connected component of each relation.
    pub scc: Vec<u32>,
    /// Number of components. Components are numbered in reverse topological
    /// order: a relation's dependencies have component numbers no larger
    /// than its own.
    pub num_sccs: usize,
}

impl DepGraph {
    /// Builds the graph of `program`.
    pub fn new(program: &Program) -> Self {
        let n = program.preds.len();
        let mut edges = vec![Vec::new(); n];
        for (ri, rule) in program.rules.iter().enumerate() {
            for (li, lit) in rule.body.iter().enumerate() {
                let (to, negative) = match lit {
                    Literal::Pos(a) => (a.pred, false),
                    Literal::Neg(a) => (a.pred, true),
                    Literal::Distinct(..) => continue,
                };
                edges[rule.head.pred.0 as usize].push(Edge {
                    to,
                    negative,
                    rule: ri,
                    literal: li,
                });
            }
        }
        let sccs = tarjan(&edges, |e| e.to.0 as usize);
        let num_sccs = sccs.count();
        let scc = sccs.comp;
        DepGraph {
            edges,
            scc,
            num_sccs,
        }
    }

    /// Whether `a` and `b` lie on a common cycle (or are the same relation
    /// depending on itself).
    pub fn in_cycle(&self, a: PredId, b: PredId) -> bool {
        self.scc[a.0 as usize] == self.scc[b.0 as usize]
            && (a != b || self.edges[a.0 as usize].iter().any(|e| e.to == a))
    }

    /// Whether `from` depends on `to`, directly or transitively.
    pub fn reaches(&self, from: PredId, to: PredId) -> bool {
        self.path(from, to).is_some()
    }

    /// A shortest chain of edges from `from` to `to`, if `from` depends on `to`.
    pub fn path(&self, from: PredId, to: PredId) -> Option<Vec<Edge>> {
        let n = self.edges.len();
        let mut prev: Vec<Option<(usize, Edge)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([from.0 as usize]);
        seen[from.0 as usize] = true;
        while let Some(u) = queue.pop_front() {
            for e in &self.edges[u] {
                let v = e.to.0 as usize;
                if seen[v] {
                    continue;
                }
                seen[v] = true;
                prev[v] = Some((u, *e));
                if v == to.0 as usize {
                    let mut path = Vec::new();
                    let mut cur = v;
                    while let Some((p, e)) = prev[cur] {
                        path.push(e);
                        cur = p;
                        if cur == from.0 as usize {
                            break;
                        }
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(v);
            }
        }
        None
    }
}
