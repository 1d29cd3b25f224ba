//! The order in which the universe numbers the constants.
//!
//! Generated code finds a term's rank in an argument position's domain (to
//! index a fluent's bit, a static table's rows, a dense memo's slot) by a
//! subtraction where the domain's ids are consecutive, and by reading a
//! table elsewhere (see [`super::term_tables::Dense`]). Numbered in order
//! of first appearance, a board's files, ranks and pieces interleave
//! (chess.kif's `(cell a 1 wr)`), and every such lookup read a table. The
//! constants are ordered instead so that as many domains as the positions
//! allow are runs of consecutive ids: a PQ-tree (Booth and Lueker's
//! structure of the orders that keep given sets consecutive) takes each
//! domain in turn, the fluents' and moves' positions first, and keeps those
//! that fit with the ones before (chess.kif: 238 rank tables printed before,
//! 26 after; 9.35 M -> 8.35 M instructions a playout).

use crate::ground::domains::Domains;
use crate::rules::terms::Kind;
use rustc_hash::FxHashMap;

use super::cost::MAX_ORDER_WORK;

/// The store's terms in the order the universe visits them: the
/// constants first, in an order that makes the domains of argument
/// positions consecutive where they can be, then the other terms in store
/// order (arguments before the terms holding them; the universe skips the
/// atoms).
pub fn numbering_order(dom: &Domains) -> Vec<u32> {
    let terms = &dom.db.terms;
    let n = terms.len() as u32;
    let consts: Vec<u32> = (0..n).filter(|&t| terms.kind(t) == Kind::Const).collect();
    let rest = (0..n).filter(|&t| terms.kind(t) != Kind::Const);
    let ordered = match consts.len() {
        0..=2 => consts,
        _ => consecutive_order(&consts, &position_domains(dom)),
    };
    ordered.into_iter().chain(rest).collect()
}

/// The constants each argument position takes, of function terms first
/// (the fluents' and moves' arguments, read on every state lookup), then of
/// the relations' tuples; within each group the larger first, each sorted.
fn position_domains(dom: &Domains) -> Vec<Vec<u32>> {
    let terms = &dom.db.terms;
    // Keyed by (group, functor header or relation, position).
    let mut by_key: FxHashMap<(u8, u32, usize), Vec<u32>> = FxHashMap::default();
    let mut add = |key: (u8, u32, usize), a: u32| {
        if terms.kind(a) == Kind::Const {
            by_key.entry(key).or_default().push(a);
        }
    };
    for t in (0..terms.len() as u32).filter(|&t| terms.kind(t) == Kind::Func) {
        for (i, &a) in terms.args(t).iter().enumerate() {
            add((0, terms.head(t), i), a);
        }
    }
    for (r, rel) in dom.db.rels.iter().enumerate() {
        for &atom in &rel.tuples {
            for (i, &a) in terms.args(atom).iter().enumerate() {
                add((1, r as u32, i), a);
            }
        }
    }
    let mut domains: Vec<((u8, u32, usize), Vec<u32>)> = by_key.into_iter().collect();
    for (_, d) in &mut domains {
        d.sort_unstable();
        d.dedup();
    }
    domains.sort_by(|(ka, a), (kb, b)| (ka.0, b.len(), ka).cmp(&(kb.0, a.len(), kb)));
    let mut seen = rustc_hash::FxHashSet::default();
    (domains.into_iter())
        .map(|(_, d)| d)
        .filter(|d| d.len() >= 2 && seen.insert(d.clone()))
        .collect()
}

/// `consts` ordered so that each of `domains` taken in turn is a run of
/// consecutive constants unless that contradicts the runs before; free
/// choices keep the store's order. The domains past [`MAX_ORDER_WORK`] are
/// not taken.
fn consecutive_order(consts: &[u32], domains: &[Vec<u32>]) -> Vec<u32> {
    let Ok(mut tree) = pq_tree::PQTree::from_leaves(consts) else {
        return consts.to_vec();
    };
    for d in (domains.iter())
        .filter(|d| d.len() < consts.len())
        .take(MAX_ORDER_WORK / consts.len())
    {
        // A reduction that fails consumes the tree: it runs on a copy.
        if let Ok(reduced) = tree.clone().reduction(d) {
            tree = reduced;
        }
    }
    tree.sort_minimal();
    tree.frontier()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `set`'s members are adjacent in `order`.
    fn is_run(order: &[u32], set: &[u32]) -> bool {
        let at: Vec<usize> = (order.iter().enumerate())
            .filter(|(_, x)| set.contains(x))
            .map(|(i, _)| i)
            .collect();
        at.len() == set.len() && at[at.len() - 1] - at[0] + 1 == at.len()
    }

    #[test]
    fn overlapping_domains_become_runs_where_they_can() {
        // A board's files, ranks and pieces interleaved in store order, as
        // `(cell a 1 wr) (cell b 1 wn) ..` numbers them; the blank `b` is
        // also a file, and the coordinates are files and ranks together.
        let consts: Vec<u32> = (0..12).collect();
        let (a, one, wr, b, two, wn, c, three) = (0, 1, 2, 3, 4, 5, 6, 7);
        let files = vec![a, b, c];
        let ranks = vec![one, two, three];
        let pieces = vec![wr, wn, b];
        let coordinates = vec![a, one, b, two, c, three];
        let mut domains = vec![
            files.clone(),
            ranks.clone(),
            pieces.clone(),
            coordinates.clone(),
        ];
        domains.iter_mut().for_each(|d| d.sort_unstable());
        let order = consecutive_order(&consts, &domains);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, consts, "a permutation");
        for d in [&files, &ranks, &pieces, &coordinates] {
            assert!(is_run(&order, d), "{d:?} consecutive in {order:?}");
        }
    }

    #[test]
    fn a_domain_that_contradicts_earlier_ones_is_left_out() {
        let consts: Vec<u32> = (0..4).collect();
        let domains = vec![vec![0, 1], vec![1, 2], vec![0, 2]];
        let order = consecutive_order(&consts, &domains);
        assert!(is_run(&order, &[0, 1]) && is_run(&order, &[1, 2]));
        assert!(!is_run(&order, &[0, 2]));
    }
}
