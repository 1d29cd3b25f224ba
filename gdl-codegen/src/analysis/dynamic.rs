//! Which relations are dynamic: those that depend, directly or through
//! other relations, on given seed relations. The grounder and the
//! interpreter both split a game into a static part, evaluated once, and a
//! dynamic part, evaluated per state; they differ only in their seeds.

use crate::front::ir::{Keyword, Literal, Program};

/// The relations that depend on the state or the joint move: `true`, `does`
/// and every relation depending on one of them. The rest are static: the
/// same in every state.
pub fn state_dependent(program: &Program) -> Vec<bool> {
    depends_on(program, &[Keyword::True, Keyword::Does])
}

/// The relations among `seeds` (those the program defines) and every
/// relation whose rules mention one of them, directly or transitively.
pub fn depends_on(program: &Program, seeds: &[Keyword]) -> Vec<bool> {
    let mut dynamic = vec![false; program.preds.len()];
    for &kw in seeds {
        if let Some(p) = program.keyword_pred(kw) {
            dynamic[p.0 as usize] = true;
        }
    }
    // Propagate along dependencies until nothing changes. Each pass is
    // linear; passes are bounded by the length of the longest chain.
    let mut changed = true;
    while changed {
        changed = false;
        for rule in &program.rules {
            let h = rule.head.pred.0 as usize;
            if dynamic[h] {
                continue;
            }
            let dep = rule.body.iter().any(|l| match l {
                Literal::Pos(a) | Literal::Neg(a) => dynamic[a.pred.0 as usize],
                Literal::Distinct(..) => false,
            });
            if dep {
                dynamic[h] = true;
                changed = true;
            }
        }
    }
    dynamic
}
