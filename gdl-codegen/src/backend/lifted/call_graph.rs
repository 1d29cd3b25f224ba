//! The call graph of a plan and the facts the planner reads from it:
//! which generated functions may read a relation's list of all its
//! answers, filtered on their bound arguments, instead of asking for the
//! answers of those arguments ([`CallGraph::whole`]), and which calls are
//! asked once per key of their callers, so that a memo would only be
//! written ([`CallGraph::asked_once`]).
//!
//! alexChess's legal rules list every `check` (piece, king, direction) and
//! ask for the checks of a given king too: the rules run again for each
//! king, at half the cost of the whole list each, where the list (none or
//! one check, nearly always) is already computed. A round of the planner
//! records who calls whom ([`CallGraph`]); where a function asks a
//! relation for some bound arguments and every evaluation that runs the
//! function also lists the relation whole, the next round reads the list
//! there (if it is short: [`super::join_order::Catalog::reads_whole`]).
//!
//! The queries of a state (legal, terminal, goal) share one evaluation and
//! its memo tables, the transition (`next`) has its own: a list the legal
//! moves compute is not there for `next` (chess's en passant captures).
//! A function reached from both reads a list only if both compute it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::cost;
use super::join_order::{Adorn, EXISTS};

/// Where generated code runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The queries of a state (legal moves, terminal, goals), which share
    /// an evaluation.
    State,
    /// The transition (`next`), on an evaluation of its own.
    Next,
    /// The function of a relation called with an adornment.
    Fn(u32, Adorn),
    /// The fixpoint of a component (relations on a cycle).
    Comp(usize),
}

/// How a place in a function asks for a call, per key of the function.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Asked {
    /// Maybe many times: in a loop, or with keys that do not name each
    /// parameter of the function.
    Repeatedly,
    /// At most once, in a rule that runs for every key of the function.
    Once,
    /// At most once, in a rule that runs only for keys with some given
    /// constants (merrills' count for its last square).
    OnceForConstants,
    /// In loops that bind its keys, each about this many times (the rows
    /// of the loops before it that bind none of them, estimated).
    InLoops(f64),
}

/// The calls of a module's generated functions, as planned.
#[derive(Default, Debug)]
pub struct CallGraph {
    edges: FxHashSet<(Node, Node)>,
    /// Per call (relation and adornment), where it is asked: the function
    /// and how often per key of that function.
    sites: FxHashMap<(u32, Adorn), Vec<(Node, Asked)>>,
}

/// Per function, the relations whose whole list it may read.
pub type Whole = FxHashMap<Node, FxHashSet<u32>>;

impl CallGraph {
    /// Records that `from` calls `to`.
    pub fn add(&mut self, from: Node, to: Node) {
        self.edges.insert((from, to));
    }

    /// Records that `from` asks for `rel` with `adorn` as `asked` says.
    pub fn call(&mut self, from: Node, (rel, adorn): (u32, Adorn), asked: Asked) {
        self.add(from, Node::Fn(rel, adorn));
        (self.sites.entry((rel, adorn)).or_default()).push((from, asked));
    }

    /// The calls asked, in each evaluation, about once per key: from one
    /// function that lists answers (memoized, so run once per key), in at
    /// most two places asking once per key of the function, at most one
    /// of them in a rule run for every key (the other runs for given
    /// constants only). `arity` gives each relation's. merrills counts the
    /// pieces by a walk of the board, asking each square's count once (and
    /// the last square's twice): the memo of those calls cost more than
    /// their work. Calls from several places with constants (alexChess's
    /// pieces of a given player) meet the same keys again. Or, from one
    /// such function, in loops that bind their keys, each key asked about
    /// once in all ([`cost::MEMO_REPEATS`]): chess.kif's moves of a piece,
    /// listed for each piece by the legal moves, and again by the rules
    /// that block a check (in 5% of the states).
    pub fn asked_once(&self, arity: &[usize]) -> FxHashSet<(u32, Adorn)> {
        let lists = |c: &Node| match *c {
            Node::Fn(rel, adorn) => {
                let all = (1 << arity[rel as usize]) - 1;
                adorn & EXISTS == 0 && adorn & all != all
            }
            _ => false,
        };
        (self.sites.iter())
            .filter(|(&(rel, adorn), sites)| {
                // A function names itself when it is printed (and a call
                // of its own is on a cycle, which keeps its memo).
                let sites: Vec<_> = (sites.iter())
                    .filter(|(c, _)| *c != Node::Fn(rel, adorn))
                    .collect();
                let every_key = sites.iter().filter(|(_, a)| *a == Asked::Once).count();
                let one_caller = sites.iter().all(|(c, _)| *c == sites[0].0);
                let outside_loops = (sites.iter())
                    .all(|(c, a)| matches!(a, Asked::Once | Asked::OnceForConstants) && lists(c));
                let once = sites.len() <= 2 && every_key <= 1 && outside_loops;
                let by_key = || {
                    sites
                        .iter()
                        .all(|(c, a)| *a != Asked::Repeatedly && lists(c))
                };
                one_caller && (once || by_key() && repeats(&sites) <= cost::MEMO_REPEATS)
            })
            .map(|(&call, _)| call)
            .collect()
    }

    /// Per function, the relations whose whole list every evaluation that
    /// runs the function computes, among those it asks for a list with
    /// some argument bound; empty where no function has one.
    pub fn whole(&self) -> Whole {
        let mut next: FxHashMap<Node, Vec<Node>> = FxHashMap::default();
        for &(from, to) in &self.edges {
            next.entry(from).or_default().push(to);
        }
        let reach = |root: Node| {
            let (mut seen, mut todo) = (FxHashSet::from_iter([root]), vec![root]);
            while let Some(c) = todo.pop() {
                for &d in next.get(&c).into_iter().flatten() {
                    if seen.insert(d) {
                        todo.push(d);
                    }
                }
            }
            seen
        };
        let roots = [reach(Node::State), reach(Node::Next)];
        let listed: Vec<FxHashSet<u32>> = (roots.iter())
            .map(|r| {
                (r.iter())
                    .filter_map(|c| match *c {
                        Node::Fn(rel, 0) => Some(rel),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut whole = Whole::default();
        for &(from, to) in &self.edges {
            let Node::Fn(rel, adorn) = to else {
                continue;
            };
            let in_every = (roots.iter().zip(&listed))
                .filter(|(r, _)| r.contains(&from))
                .all(|(_, l)| l.contains(&rel));
            if adorn != 0
                && adorn & EXISTS == 0
                && in_every
                && roots.iter().any(|r| r.contains(&from))
            {
                whole.entry(from).or_default().insert(rel);
            }
        }
        whole
    }
}

/// How often the `sites` of a call ask each key, summed: once a site
/// outside any loop (or for given constants only: none), as estimated a
/// site in loops (see [`Asked::InLoops`]).
fn repeats(sites: &[&(Node, Asked)]) -> f64 {
    (sites.iter())
        .map(|(_, a)| match a {
            Asked::Once => 1.0,
            Asked::OnceForConstants => 0.0,
            Asked::InLoops(r) => *r,
            Asked::Repeatedly => f64::INFINITY,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_reads_a_list_only_where_every_evaluation_reaching_it_computes_it() {
        // legal lists `check` (relation 7) whole and calls `safe`, which
        // asks for the checks of one king; `next` calls `moved`, which
        // does too, and nothing in `next` lists checks; `both` is reached
        // from the two.
        let mut g = CallGraph::default();
        let (safe, moved, both) = (Node::Fn(1, 1), Node::Fn(2, 1), Node::Fn(3, 1));
        g.add(Node::State, Node::Fn(7, 0));
        g.add(Node::State, safe);
        g.add(safe, Node::Fn(7, 0b010));
        g.add(Node::Next, moved);
        g.add(moved, Node::Fn(7, 0b010));
        g.add(Node::State, both);
        g.add(Node::Next, both);
        g.add(both, Node::Fn(7, 0b010));
        // An existence test keeps its own rules.
        g.add(safe, Node::Fn(8, 0b1 | EXISTS));
        g.add(Node::State, Node::Fn(8, 0));
        let whole = g.whole();
        assert_eq!(whole.get(&safe), Some(&FxHashSet::from_iter([7])));
        assert_eq!(whole.get(&moved), None);
        assert_eq!(whole.get(&both), None);
        g.add(Node::Next, Node::Fn(7, 0));
        assert_eq!(g.whole().get(&both), Some(&FxHashSet::from_iter([7])));
    }
}
