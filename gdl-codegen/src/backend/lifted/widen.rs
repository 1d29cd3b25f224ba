//! Calls answered through a call with more arguments bound.
//!
//! chess.kif asks `legal2(?player, (move ?piece ?u ?v ?x ?y))` with the
//! piece's square bound (for the moves of a piece that is not pinned) and
//! without it (for its captures); every `legal2` rule reads `(true (cell ?u
//! ?v ?piece))`. The call without the square computed every piece's moves a
//! second time, under a memo of its own. Where every rule of a relation
//! has one literal in common, which binds free arguments of a call from
//! the bound ones, the call scans that literal and asks the call with
//! those arguments bound too, whose memo the other readers fill.

use crate::rules::{CRule, Lit, Pat};

use super::join_order::{adornment, argument_params, Adorn, Source, Step};

/// A call's literal in common, its variables numbered by argument
/// (`Var(i)` is argument `i`), and the adornment of the wider call it
/// leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widening {
    /// The relation of the literal (positive, in every rule).
    pub rel: u32,
    /// Its arguments, over the call's arguments.
    pub args: Box<[Pat]>,
    /// The call's arguments and those the literal binds.
    pub wider: Adorn,
}

impl Widening {
    /// The steps of a call of `arity` arguments, those of `adorn` bound,
    /// answered through this widening: its arguments, numbered as
    /// variables (`Var(i)` is argument `i`), then the literal.
    pub fn steps(&self, arity: usize, adorn: Adorn, source: Source) -> Vec<Step> {
        let mut steps = argument_params(arity, adorn);
        let bound: Vec<bool> = (0..arity).map(|i| adorn >> i & 1 == 1).collect();
        steps.push(Step::Lit {
            source,
            rel: self.rel,
            args: self.args.clone(),
            negated: false,
            bound: adornment(&self.args, &bound),
        });
        steps
    }
}

/// For a call of the relation of `rules` (`arity` arguments, those of
/// `adorn` bound), the first literal every rule has in common, over the
/// head's variables only, binding some free argument and leading to a
/// call that `wanted` says is made anyway; `scannable` says which
/// relations a literal may be scanned from (the state, static tables).
pub fn widening(
    rules: &[&CRule],
    (arity, adorn): (usize, Adorn),
    scannable: impl Fn(u32) -> bool,
    wanted: impl Fn(Adorn) -> bool,
) -> Option<Widening> {
    let (first, rest) = rules.split_first()?;
    let all: Adorn = (1 << arity) - 1;
    let candidates = by_argument(first);
    candidates.into_iter().find_map(|(rel, args)| {
        let mut binds = 0;
        args.iter()
            .for_each(|a| a.for_each_var(&mut |v| binds |= 1 << v));
        let wider = (adorn | binds) & all;
        let found = wider != adorn
            && scannable(rel)
            && rest
                .iter()
                .all(|r| by_argument(r).contains(&(rel, args.clone())))
            && wanted(wider);
        found.then_some(Widening { rel, args, wider })
    })
}

/// The positive literals of `rule` whose variables are all head arguments
/// (each once in the head, as the whole argument), renamed to the
/// argument's position.
fn by_argument(rule: &CRule) -> Vec<(u32, Box<[Pat]>)> {
    let mut position = std::collections::BTreeMap::new();
    let mut repeated = std::collections::BTreeSet::new();
    for (i, p) in rule.head.iter().enumerate() {
        if let Pat::Var(v) = p {
            if position.insert(*v, i as u32).is_some() {
                repeated.insert(*v);
            }
        }
    }
    rule.body
        .iter()
        .filter_map(|lit| {
            let Lit::Pos(rel, args) = lit else {
                return None;
            };
            let to = |v| (!repeated.contains(&v)).then(|| position.get(&v).copied())?;
            let args = args.iter().map(|a| a.renamed(&to)).collect::<Option<_>>()?;
            Some((*rel, args))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Pat::{Ground, Var};

    /// `r(P, X, U, V) :- <body>` over variables P = 0, X = 1, U = 2, V = 3
    /// (renumbered per rule by `shift`).
    fn rule(shift: u32, body: Vec<Lit>) -> CRule {
        CRule {
            head_rel: 1,
            head: (0..4).map(|v| Var(v + shift)).collect(),
            body,
            num_vars: 8 + shift as usize,
        }
    }

    fn cell(u: u32, v: u32, piece: u32) -> Lit {
        Lit::Pos(7, vec![Var(u), Var(v), Var(piece)].into())
    }

    #[test]
    fn a_literal_every_rule_reads_binds_free_arguments_of_a_wanted_call() {
        // r(P, X, U, V) :- kind(X, 3), cell(U, V, X), step(U, V).
        // r(P, X, U, V) :- cell(U, V, X), kind(X, 4), jump(P, U, V).
        let kind = |x, k| Lit::Pos(5, vec![Var(x), Ground(k)].into());
        let a = rule(0, vec![kind(1, 3), cell(2, 3, 1)]);
        let b = rule(
            4,
            vec![
                cell(6, 7, 5),
                kind(5, 4),
                Lit::Pos(9, vec![Var(4), Var(6), Var(7)].into()),
            ],
        );
        let rules = [&a, &b];
        // Called with P and X bound: cell(U, V, X) binds U and V.
        let w = widening(&rules, (4, 0b0011), |r| r == 7, |w| w == 0b1111);
        assert_eq!(
            w,
            Some(Widening {
                rel: 7,
                args: vec![Var(2), Var(3), Var(1)].into(),
                wider: 0b1111,
            })
        );
        // Not when the wider call is not made anyway, nor when the literal
        // cannot be scanned, nor when it binds nothing new.
        assert_eq!(widening(&rules, (4, 0b0011), |r| r == 7, |_| false), None);
        assert_eq!(widening(&rules, (4, 0b0011), |_| false, |_| true), None);
        assert_eq!(widening(&rules, (4, 0b1111), |_| true, |_| true), None);
    }

    #[test]
    fn a_literal_missing_from_one_rule_or_reading_a_body_variable_is_none() {
        // r(P, X, U, V) :- cell(U, V, X).   r(P, X, U, V) :- cell(U, W, X).
        let a = rule(0, vec![cell(2, 3, 1)]);
        let b = rule(0, vec![cell(2, 6, 1)]);
        let none = widening(&[&a, &b], (4, 0b0011), |_| true, |_| true);
        assert_eq!(none, None);
        // A head with a repeated variable is not renamed by argument.
        let mut c = rule(0, vec![cell(2, 3, 1)]);
        c.head = vec![Var(0), Var(1), Var(2), Var(2)].into();
        assert_eq!(widening(&[&c], (4, 0b0011), |_| true, |_| true), None);
    }
}
