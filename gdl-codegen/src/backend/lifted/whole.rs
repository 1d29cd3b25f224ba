//! Bound calls answered from whole lists: which generated functions may
//! read a relation's list of all its answers, filtered on their bound
//! arguments, instead of asking for the answers of those arguments.
//!
//! alexChess's legal rules list every `check` (piece, king, direction) and
//! ask for the checks of a given king too: the rules run again for each
//! king, at half the cost of the whole list each, where the list (none or
//! one check, nearly always) is already computed. The first build of a
//! module records who calls whom ([`CallGraph`]); where a function asks a
//! relation for some bound arguments and every evaluation that runs the
//! function also lists the relation whole, the second build reads the list
//! there (if it is short: [`super::plan::Catalog::reads_whole`]).
//!
//! The queries of a state (legal, terminal, goal) share one evaluation and
//! its memo tables, the transition (`next`) has its own: a list the legal
//! moves compute is not there for `next` (chess's en passant captures).
//! A function reached from both reads a list only if both compute it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::plan::{Adorn, EXISTS};

/// Where generated code runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Caller {
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

/// The calls of a module's generated functions, as printed.
#[derive(Default, Debug)]
pub struct CallGraph {
    edges: FxHashSet<(Caller, Caller)>,
}

/// Per function, the relations whose whole list it may read.
pub type Whole = FxHashMap<Caller, FxHashSet<u32>>;

impl CallGraph {
    /// Records that `from` calls `to`.
    pub fn add(&mut self, from: Caller, to: Caller) {
        self.edges.insert((from, to));
    }

    /// Per function, the relations whose whole list every evaluation that
    /// runs the function computes, among those it asks for a list with
    /// some argument bound; empty where no function has one.
    pub fn whole(&self) -> Whole {
        let mut next: FxHashMap<Caller, Vec<Caller>> = FxHashMap::default();
        for &(from, to) in &self.edges {
            next.entry(from).or_default().push(to);
        }
        let reach = |root: Caller| {
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
        let roots = [reach(Caller::State), reach(Caller::Next)];
        let listed: Vec<FxHashSet<u32>> = (roots.iter())
            .map(|r| {
                (r.iter())
                    .filter_map(|c| match *c {
                        Caller::Fn(rel, 0) => Some(rel),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut whole = Whole::default();
        for &(from, to) in &self.edges {
            let Caller::Fn(rel, adorn) = to else {
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
        let (safe, moved, both) = (Caller::Fn(1, 1), Caller::Fn(2, 1), Caller::Fn(3, 1));
        g.add(Caller::State, Caller::Fn(7, 0));
        g.add(Caller::State, safe);
        g.add(safe, Caller::Fn(7, 0b010));
        g.add(Caller::Next, moved);
        g.add(moved, Caller::Fn(7, 0b010));
        g.add(Caller::State, both);
        g.add(Caller::Next, both);
        g.add(both, Caller::Fn(7, 0b010));
        // An existence test keeps its own rules.
        g.add(safe, Caller::Fn(8, 0b1 | EXISTS));
        g.add(Caller::State, Caller::Fn(8, 0));
        let whole = g.whole();
        assert_eq!(whole.get(&safe), Some(&FxHashSet::from_iter([7])));
        assert_eq!(whole.get(&moved), None);
        assert_eq!(whole.get(&both), None);
        g.add(Caller::Next, Caller::Fn(7, 0));
        assert_eq!(g.whole().get(&both), Some(&FxHashSet::from_iter([7])));
    }
}
