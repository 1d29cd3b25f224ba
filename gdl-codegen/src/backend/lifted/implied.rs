//! Literals a call's answers satisfy: those every rule of the called
//! relation has in its body over head arguments only.
//!
//! Chess's `legal2` moves a piece from `(cell ?u ?v ?piece)` in every one of
//! its rules, so a `(true (cell ?u ?v ?piece))` after a call of `legal2`
//! never rejects an answer. The planner prices such a test as one that
//! always passes, where independence would have it reject most answers and
//! make the call look as if it yielded almost nothing.

use crate::rules::{CRule, Lit, Pat};

/// A literal of every rule of a relation, its variables renamed to the
/// head argument positions they fill (`Var(k)`: argument `k`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Common {
    /// Whether the literal is negated.
    pub negated: bool,
    /// Its relation.
    pub rel: u32,
    /// Its arguments over head positions.
    pub args: Box<[Pat]>,
}

/// Per relation (`n` of them), the literals all its rules share (none for a
/// relation without rules).
pub fn common_literals(rules: &[CRule], n: usize) -> Vec<Vec<Common>> {
    let mut common: Vec<Option<Vec<Common>>> = vec![None; n];
    for rule in rules {
        let own = over_head(rule);
        let slot = &mut common[rule.head_rel as usize];
        *slot = Some(match slot.take() {
            None => own,
            Some(kept) => kept.into_iter().filter(|c| own.contains(c)).collect(),
        });
    }
    common.into_iter().map(Option::unwrap_or_default).collect()
}

/// The body literals of `rule` whose variables all fill whole head
/// arguments, renamed to those arguments' positions.
fn over_head(rule: &CRule) -> Vec<Common> {
    let position = |v: u32| {
        (rule.head.iter())
            .position(|p| *p == Pat::Var(v))
            .map(|k| k as u32)
    };
    (rule.body.iter())
        .filter_map(|lit| {
            let (negated, rel, args) = match lit {
                Lit::Pos(rel, args) => (false, *rel, args),
                Lit::Neg(rel, args) => (true, *rel, args),
                Lit::Distinct(..) => return None,
            };
            let args = (args.iter())
                .map(|a| a.renamed(&position))
                .collect::<Option<_>>()?;
            Some(Common { negated, rel, args })
        })
        .collect()
}

/// Whether every answer of a call with arguments `call` of a relation
/// whose rules share `common` satisfies literal `lit` of the caller.
pub fn implies(common: &[Common], call: &[Pat], lit: &Lit) -> bool {
    let (negated, rel, args) = match lit {
        Lit::Pos(rel, args) => (false, *rel, args),
        Lit::Neg(rel, args) => (true, *rel, args),
        Lit::Distinct(..) => return false,
    };
    common.iter().any(|c| {
        c.negated == negated
            && c.rel == rel
            && c.args.len() == args.len()
            && (c.args.iter().zip(args.iter()))
                .all(|(p, a)| substituted(p, call).as_ref() == Some(a))
    })
}

/// `pat` (over head positions) with each position replaced by the call's
/// argument there.
fn substituted(pat: &Pat, call: &[Pat]) -> Option<Pat> {
    Some(match pat {
        Pat::Var(k) => call.get(*k as usize)?.clone(),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(f, args) => Pat::Func(
            *f,
            args.iter()
                .map(|a| substituted(a, call))
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(head_rel: u32, head: Vec<Pat>, body: Vec<Lit>) -> CRule {
        CRule {
            head_rel,
            head: head.into(),
            body,
            num_vars: 8,
        }
    }

    #[test]
    fn a_literal_of_every_rule_over_head_arguments_is_implied() {
        use Pat::Var;
        // moves(P, U, V) :- cell(U, V, P), knight(U, V).
        // moves(P, U, V) :- bishop(U, V), cell(U, V, P), not pinned(P, X).
        let rules = [
            rule(
                0,
                vec![Var(0), Var(1), Var(2)],
                vec![
                    Lit::Pos(1, [Var(1), Var(2), Var(0)].into()),
                    Lit::Pos(2, [Var(1), Var(2)].into()),
                ],
            ),
            rule(
                0,
                vec![Var(5), Var(6), Var(7)],
                vec![
                    Lit::Pos(3, [Var(6), Var(7)].into()),
                    Lit::Pos(1, [Var(6), Var(7), Var(5)].into()),
                    Lit::Neg(4, [Var(5), Var(3)].into()),
                ],
            ),
        ];
        let common = common_literals(&rules, 5);
        assert_eq!(common[0].len(), 1, "only cell is in both rules");
        assert!(common[1].is_empty());
        // A caller's moves(A, B, C) then cell(B, C, A): implied.
        let call = [Var(0), Var(1), Var(2)];
        assert!(implies(
            &common[0],
            &call,
            &Lit::Pos(1, [Var(1), Var(2), Var(0)].into())
        ));
        // cell(C, B, A), or not cell(B, C, A): not implied.
        assert!(!implies(
            &common[0],
            &call,
            &Lit::Pos(1, [Var(2), Var(1), Var(0)].into())
        ));
        assert!(!implies(
            &common[0],
            &call,
            &Lit::Neg(1, [Var(1), Var(2), Var(0)].into())
        ));
    }
}
