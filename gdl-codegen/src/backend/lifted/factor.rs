//! Rule factoring: literals of a rule body that share no variable with the
//! rest of the body, and read only some of the head's variables, become a
//! relation of their own over those variables, which the generated code
//! memoizes: an independent condition of the rule.
//!
//! Chess asks `threatened(player, kx, ky, u, v)` for each square `(u, v)`
//! its mover might vacate, about fifteen times a state. A knight's or the
//! king's threat to `(kx, ky)` does not depend on `(u, v)`: factored out,
//! it is computed once a state and looked up for the other fourteen.

use crate::rules::{CRule, Lit, Pat};

/// A relation made of part of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The relation whose rule the part was taken from.
    pub of: u32,
    /// Its arity: the head variables the part reads.
    pub arity: usize,
}

/// Factors the rules of relations off any cycle, numbering the new
/// relations from `first`; `dynamic` tells whether a relation depends on
/// the state or the move (a part must: a static one would be a table).
pub fn factor(rules: &mut Vec<CRule>, first: u32, dynamic: impl Fn(u32) -> bool) -> Vec<Part> {
    let cyclic = crate::rules::rule::cyclic_components(rules, first as usize);
    let mut parts = Vec::new();
    let mut new_rules = Vec::new();
    for rule in rules.iter_mut() {
        if cyclic[rule.head_rel as usize].is_some() {
            continue;
        }
        // Per body literal, the part call that replaces it: `Some(None)`
        // drops it, the part's first literal becomes the call.
        let mut replaced: Vec<Option<Option<Lit>>> = vec![None; rule.body.len()];
        let comps = components(rule);
        for (k, (literals, reads)) in comps.iter().enumerate() {
            // A part sharing a head variable with the rest of the body
            // would bind it for the rest where the call leaves it free.
            let shared = comps
                .iter()
                .enumerate()
                .any(|(j, other)| j != k && other.1.iter().any(|v| reads.contains(v)));
            if shared || !worth_a_part(rule, literals, reads, &dynamic) {
                continue;
            }
            let rel = first + parts.len() as u32;
            let args: Box<[Pat]> = reads.iter().map(|&v| Pat::Var(v)).collect();
            parts.push(Part {
                of: rule.head_rel,
                arity: args.len(),
            });
            new_rules.push(CRule {
                head_rel: rel,
                head: args.clone(),
                body: literals.iter().map(|&i| rule.body[i].clone()).collect(),
                num_vars: rule.num_vars,
            });
            literals.iter().for_each(|&i| replaced[i] = Some(None));
            replaced[literals[0]] = Some(Some(Lit::Pos(rel, args)));
        }
        let body = std::mem::take(&mut rule.body);
        rule.body = body
            .into_iter()
            .zip(replaced)
            .filter_map(|(lit, by)| by.unwrap_or(Some(lit)))
            .collect();
    }
    rules.extend(new_rules);
    merge_alike(rules, first, &mut parts);
    parts
}

/// Merges the parts of rules alike but for the part each calls, with the
/// same arguments: chess.kif's `threatened(o, x, y, ix, iy)` by a pawn, a
/// knight or the king reads `(o, x, y)` in three rules otherwise the same
/// (`(coordinate ?ix) (coordinate ?iy)`), three parts each looked up in a
/// memo of its own. The first rule's part gets the others' bodies and the
/// others go: one lookup. Rules that differ in more than their part stay
/// (merging two parts of each would answer their mixtures). The parts left
/// are numbered from `first` again, in order.
fn merge_alike(rules: &mut Vec<CRule>, first: u32, parts: &mut Vec<Part>) {
    let n = parts.len() as u32;
    let is_part = |r: u32| (first..first + n).contains(&r);
    // Per part, the part it merges into.
    let mut into: Vec<u32> = (0..n).collect();
    let mut dropped = vec![false; rules.len()];
    for i in 0..rules.len() {
        if is_part(rules[i].head_rel) {
            continue;
        }
        let twin = (0..i)
            .filter(|&j| !dropped[j])
            .find_map(|j| alike(&rules[j], &rules[i], is_part));
        if let Some((kept, gone)) = twin {
            into[(gone - first) as usize] = into[(kept - first) as usize];
            dropped[i] = true;
        }
    }
    if !dropped.contains(&true) {
        return;
    }
    let mut kept = dropped.iter().map(|d| !d);
    rules.retain(|_| kept.next().unwrap_or(true));
    // The surviving parts, numbered in order.
    let survivors: Vec<u32> = (0..n).filter(|&p| into[p as usize] == p).collect();
    let renumber = |r: u32| {
        if !is_part(r) {
            return r;
        }
        let root = into[(r - first) as usize];
        first + survivors.iter().position(|&p| p == root).unwrap_or(0) as u32
    };
    for rule in rules.iter_mut() {
        rule.head_rel = renumber(rule.head_rel);
        for lit in &mut rule.body {
            if let Lit::Pos(r, _) | Lit::Neg(r, _) = lit {
                *r = renumber(*r);
            }
        }
    }
    let old = std::mem::take(parts);
    *parts = (old.into_iter().enumerate())
        .filter(|&(p, _)| into[p] == p as u32)
        .map(|(_, part)| part)
        .collect();
}

/// The parts `(a's, b's)` that rules `a` and `b` call where they differ,
/// if that is all they differ in: the same head, and the same body but for
/// one literal, a call of a part in each with the same arguments.
fn alike(a: &CRule, b: &CRule, is_part: impl Fn(u32) -> bool) -> Option<(u32, u32)> {
    if a.head_rel != b.head_rel || a.head != b.head || a.body.len() != b.body.len() {
        return None;
    }
    let mut differ = a.body.iter().zip(&b.body).filter(|(x, y)| x != y);
    let (Lit::Pos(p, xs), Lit::Pos(q, ys)) = differ.next()? else {
        return None;
    };
    (differ.next().is_none() && is_part(*p) && is_part(*q) && xs == ys).then_some((*p, *q))
}

/// Whether a component of `rule`'s body (its `literals`, reading the head
/// variables `reads`) is worth a relation: it leaves some head variable
/// out, so that calls varying only that one share it; it has work worth a
/// memo (two literals or more, one of them dynamic); and its rule is safe
/// (each variable it reads appears in one of its positive literals).
fn worth_a_part(
    rule: &CRule,
    literals: &[usize],
    reads: &[u32],
    dynamic: &impl Fn(u32) -> bool,
) -> bool {
    let head_vars = rule.head_vars();
    if reads.len() >= head_vars.len() || literals.len() < 2 {
        return false;
    }
    let is_dynamic = |l: &Lit| matches!(l, Lit::Pos(r, _) | Lit::Neg(r, _) if dynamic(*r));
    if !literals.iter().any(|&i| is_dynamic(&rule.body[i])) {
        return false;
    }
    let mut positive = Vec::new();
    for &i in literals {
        if let Lit::Pos(_, args) = &rule.body[i] {
            args.iter()
                .for_each(|a| a.for_each_var(&mut |v| positive.push(v)));
        }
    }
    let mut all = Vec::new();
    literals
        .iter()
        .for_each(|&i| rule.body[i].for_each_var(&mut |v| all.push(v)));
    all.iter().all(|v| positive.contains(v))
}

/// The components of `rule`'s body, literals being joined when they share
/// a variable outside the head: per component, its literals (in body
/// order) and the head variables it reads (ascending).
fn components(rule: &CRule) -> Vec<(Vec<usize>, Vec<u32>)> {
    let head_vars = rule.head_vars();
    let n = rule.body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: Vec<Option<usize>> = vec![None; rule.num_vars];
    for (i, lit) in rule.body.iter().enumerate() {
        lit.for_each_var(&mut |v| {
            if head_vars.contains(&v) {
                return;
            }
            match owner[v as usize] {
                None => owner[v as usize] = Some(i),
                Some(j) => {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a] = b;
                }
            }
        });
    }
    let mut comps: Vec<(usize, Vec<usize>, Vec<u32>)> = Vec::new();
    for (i, lit) in rule.body.iter().enumerate() {
        let r = root(&mut parent, i);
        let k = match comps.iter().position(|c| c.0 == r) {
            Some(k) => k,
            None => {
                comps.push((r, Vec::new(), Vec::new()));
                comps.len() - 1
            }
        };
        comps[k].1.push(i);
        lit.for_each_var(&mut |v| {
            if head_vars.contains(&v) && !comps[k].2.contains(&v) {
                comps[k].2.push(v);
            }
        });
    }
    comps
        .into_iter()
        .map(|(_, lits, mut reads)| {
            reads.sort_unstable();
            (lits, reads)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    fn pos(rel: u32, vars: &[u32]) -> Lit {
        Lit::Pos(rel, vars.iter().map(|&v| var(v)).collect())
    }

    /// `threatened(o, x, y, ix, iy) :- opponent(o, p), king_threatens(p, x, y),
    /// coordinate(ix), coordinate(iy)`, relations 0 to 4, the last two
    /// static.
    fn threatened() -> CRule {
        CRule {
            head_rel: 0,
            head: [0, 1, 2, 3, 4].iter().map(|&v| var(v)).collect(),
            body: vec![
                pos(3, &[0, 5]),
                pos(1, &[5, 1, 2]),
                pos(4, &[3]),
                pos(4, &[4]),
            ],
            num_vars: 6,
        }
    }

    #[test]
    fn a_part_reading_fewer_head_variables_becomes_a_relation() {
        let mut rules = vec![threatened()];
        let parts = factor(&mut rules, 5, |r| r < 3);
        assert_eq!(parts, [Part { of: 0, arity: 3 }]);
        let [rule, part] = &rules[..] else {
            panic!("one rule and its part: {rules:?}")
        };
        assert!(matches!(&rule.body[0], Lit::Pos(5, a) if **a == [var(0), var(1), var(2)]));
        assert_eq!(rule.body.len(), 3);
        assert_eq!(part.head_rel, 5);
        assert_eq!(&*part.head, &[var(0), var(1), var(2)]);
        assert_eq!(part.body.len(), 2);
    }

    #[test]
    fn rules_alike_but_for_their_parts_share_one_part() {
        // Threatened by a knight (relation 2) too: the same rule but for
        // the relation of the part.
        let mut knight = threatened();
        knight.body[1] = pos(2, &[5, 1, 2]);
        // And by a rule that also tests `?ix` against relation 2: not alike.
        let mut other = threatened();
        other.body.push(pos(2, &[3, 3, 3]));
        let mut rules = vec![threatened(), knight, other];
        let parts = factor(&mut rules, 5, |r| r < 3);
        assert_eq!(parts, [Part { of: 0, arity: 3 }, Part { of: 0, arity: 3 }]);
        let heads: Vec<u32> = rules.iter().map(|r| r.head_rel).collect();
        // The two rules of relation 0 left, the first part's two rules,
        // the second's one.
        assert_eq!(heads, [0, 0, 5, 5, 6]);
        assert!(matches!(&rules[1].body[0], Lit::Pos(6, _)));
        assert!(matches!(&rules[3].body[1], Lit::Pos(2, _)));
    }

    #[test]
    fn static_parts_and_parts_reading_every_head_variable_stay() {
        let mut rules = vec![threatened()];
        assert!(factor(&mut rules, 5, |_| false).is_empty());
        let mut reads_all = threatened();
        reads_all.body[1] = pos(1, &[5, 1, 2, 3, 4]);
        let mut rules = vec![reads_all];
        assert!(factor(&mut rules, 5, |r| r < 3).is_empty());
    }

    #[test]
    fn rules_of_recursive_relations_and_unsafe_parts_stay() {
        let mut recursive = threatened();
        recursive.body[1] = pos(0, &[5, 1, 2, 3, 4]);
        let mut rules = vec![recursive];
        assert!(factor(&mut rules, 5, |r| r < 3).is_empty());
        // `x` read only under `not` in the part: the part alone is unsafe.
        let mut negated = threatened();
        negated.body[1] = Lit::Neg(1, [var(5), var(1), var(2)].into());
        let mut rules = vec![negated];
        assert!(factor(&mut rules, 5, |r| r < 3).is_empty());
    }
}
