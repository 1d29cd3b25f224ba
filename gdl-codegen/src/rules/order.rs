//! The one join-order heuristic, shared by the grounder's bottom-up joins
//! (`ground::join_plan`) and the lifted back end's compiled plans
//! (`backend::lifted::join_order`): greedily, a test as soon as its variables are
//! bound (`distinct`, negations, fully bound literals: cheap, and they prune
//! early), else the positive literal expected to produce fewest solutions.
//! Each caller estimates a literal's yield its own way: the grounder from
//! the tuples derived so far, the lifted back end from domain sizes.

use super::{Lit, Pat};

/// The next literal of `body` to evaluate, among those not `done`, with the
/// variables in `bound` known; `cost(rel, args, known)` estimates the
/// solutions of a positive literal of which `known` leaves (constants and
/// bound variables) are fixed. The first of equal costs wins, so the order
/// is deterministic and follows the text where estimates tie. `None` once
/// every literal is done.
pub fn next_literal(
    body: &[Lit],
    done: &[bool],
    bound: &[bool],
    cost: impl Fn(u32, &[Pat], i32) -> f64,
) -> Option<usize> {
    let open = || (0..body.len()).filter(|&i| !done[i]);
    if let Some(i) = open().find(|&i| all_bound(&body[i], bound)) {
        return Some(i);
    }
    let cost = |i: usize| match &body[i] {
        Lit::Pos(rel, args) => cost(
            *rel,
            args,
            args.iter().map(|a| known_leaves(a, bound)).sum(),
        ),
        // Unsafe literals wait for the positive ones (the checker makes sure
        // those bind their variables).
        _ => f64::INFINITY,
    };
    open().min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
}

/// Whether every variable of `lit` is in `bound`.
pub fn all_bound(lit: &Lit, bound: &[bool]) -> bool {
    let mut all = true;
    lit.for_each_var(&mut |v| all &= bound[v as usize]);
    all
}

/// Number of leaves of `p` known before matching (constants, bound
/// variables).
pub fn known_leaves(p: &Pat, bound: &[bool]) -> i32 {
    match p {
        Pat::Var(v) => bound[*v as usize] as i32,
        Pat::Ground(_) => 1,
        Pat::Func(_, args) => args.iter().map(|a| known_leaves(a, bound)).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    /// Relation 0 has 1000 tuples, the others 10; each known leaf divides by 10.
    fn cost(rel: u32, _: &[Pat], known: i32) -> f64 {
        let size = if rel == 0 { 1000.0 } else { 10.0 };
        size / 10f64.powi(known)
    }

    fn order(body: &[Lit], bound: &[u32], num_vars: usize) -> Vec<usize> {
        let mut b = vec![false; num_vars];
        bound.iter().for_each(|&v| b[v as usize] = true);
        let mut done = vec![false; body.len()];
        let mut out = Vec::new();
        while let Some(i) = next_literal(body, &done, &b, cost) {
            done[i] = true;
            body[i].for_each_var(&mut |v| b[v as usize] = true);
            out.push(i);
        }
        out
    }

    #[test]
    fn tests_as_soon_as_bound_then_the_cheapest_literal() {
        // big(X, Y), small(Y), distinct(Y, 3), not small(X)
        let body = [
            Lit::Pos(0, vec![var(0), var(1)].into()),
            Lit::Pos(1, vec![var(1)].into()),
            Lit::Distinct(var(1), Pat::Ground(3)),
            Lit::Neg(1, vec![var(0)].into()),
        ];
        assert_eq!(order(&body, &[], 2), [1, 2, 0, 3]);
        // X known: the negation runs first, and big(X, Y) costs 100 > 10;
        // once Y is bound the rest are tests, in text order.
        assert_eq!(order(&body, &[0], 2), [3, 1, 0, 2]);
        // Both known: everything is a test, in text order.
        assert_eq!(order(&body, &[0, 1], 2), [0, 1, 2, 3]);
    }

    #[test]
    fn ties_follow_the_text_and_unsafe_bodies_stay_total() {
        let body = [
            Lit::Pos(1, vec![var(0)].into()),
            Lit::Pos(2, vec![var(0)].into()),
        ];
        assert_eq!(order(&body, &[], 1), [0, 1]);
        let unsafe_body = [Lit::Neg(1, vec![var(0)].into())];
        assert_eq!(order(&unsafe_body, &[], 1), [0]);
    }
}
