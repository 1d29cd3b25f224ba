use super::*;
use Pat::{Ground, Var};

fn param(v: u32) -> Step {
    Step::Param {
        index: 0,
        pat: Var(v),
    }
}

fn lit(source: Source, rel: u32, args: &[Pat], bound: Adorn) -> Step {
    Step::Lit {
        source,
        rel,
        args: args.into(),
        negated: false,
        bound,
    }
}

fn not(rel: u32, args: &[Pat]) -> Step {
    Step::Lit {
        source: Source::Derived,
        rel,
        args: args.into(),
        negated: true,
        bound: (1 << args.len()) - 1,
    }
}

/// A rule's plan, each step but its parameters priced at `price` and
/// giving two rows.
fn priced(num_vars: usize, steps: Vec<Step>, price: f64) -> RulePlan {
    let costs = (steps.iter())
        .map(|s| (!matches!(s, Step::Param { .. })).then_some((price, f64::from(2u8))))
        .collect();
    RulePlan {
        rule: CRule {
            head_rel: 0,
            head: vec![Var(0), Var(1)].into(),
            body: Vec::new(),
            num_vars,
        },
        adorn: 1,
        steps,
        costs,
        access: Default::default(),
        lazy: Vec::new(),
    }
}

fn plan(num_vars: usize, steps: Vec<Step>) -> RulePlan {
    priced(num_vars, steps, MIN_OPENING_WORK)
}

/// chess.kif's two legal rules for a piece other than the king, reduced:
/// `legal(P, M) :- piece(P, X), not threatened(P, X), moves(P, X, M),
/// empty(M)` and the same with `enemy(M)` and another test, its
/// variables numbered apart.
fn chess_like() -> Vec<RulePlan> {
    let quiet = plan(
        3,
        vec![
            param(0),
            lit(Source::Static, 5, &[Var(0), Var(2)], 0b01),
            not(6, &[Var(0), Var(2)]),
            lit(Source::Derived, 7, &[Var(0), Var(2), Var(1)], 0b011),
            lit(Source::True, 8, &[Var(1)], 0b1),
        ],
    );
    let capture = plan(
        4,
        vec![
            param(0),
            lit(Source::Static, 5, &[Var(0), Var(3)], 0b01),
            lit(Source::Derived, 7, &[Var(0), Var(3), Var(1)], 0b011),
            lit(Source::True, 9, &[Var(1)], 0b1),
            not(10, &[Var(0), Var(3), Var(1)]),
        ],
    );
    vec![quiet, capture]
}

#[test]
fn rules_opening_alike_share_their_loops_a_test_moved_lazily() {
    let mut rules = chess_like();
    let openings = group(&mut rules);
    assert_eq!(
        openings,
        vec![Opening {
            first: 0,
            rules: 2,
            steps: 3
        }]
    );
    // The quiet rule's threat test runs after its piece's moves and the
    // empty square's test, once per piece (declared before step 2, where
    // the piece is bound).
    let quiet = &rules[0];
    assert_eq!(quiet.steps[2], chess_like()[0].steps[3]);
    assert_eq!(quiet.steps[3], chess_like()[0].steps[4]);
    assert_eq!(quiet.steps[4], not(6, &[Var(0), Var(2)]));
    assert_eq!(quiet.lazy, vec![Lazy { step: 4, anchor: 2 }]);
    // The capture rule speaks of the quiet rule's variables: its square
    // (3) is the quiet rule's 2.
    let capture = &rules[1];
    assert_eq!(&capture.steps[..3], &quiet.steps[..3]);
    assert_eq!(capture.steps[4], not(10, &[Var(0), Var(2), Var(1)]));
    assert!(capture.lazy.is_empty());
    assert_eq!(capture.rule.num_vars, 4);
}

#[test]
fn rules_sharing_no_loop_stay_apart() {
    // Only the parameter and a test in common: nothing is listed once
    // for both.
    let a = plan(
        2,
        vec![
            param(0),
            lit(Source::True, 8, &[Var(0)], 1),
            not(6, &[Var(0)]),
        ],
    );
    let b = plan(
        2,
        vec![
            param(0),
            lit(Source::True, 8, &[Var(0)], 1),
            lit(Source::Static, 5, &[Var(0), Var(1)], 0b01),
        ],
    );
    assert_eq!(align(&a, &b, None), None);
    let mut rules = vec![a, b];
    assert!(group(&mut rules).is_empty());
    assert_eq!(rules[0].steps.len(), 3);
    assert!(rules[0].lazy.is_empty());
}

#[test]
fn a_test_passed_over_after_the_last_shared_loop_stays() {
    // Both list X, then differ: `a`'s test after the loop is not moved
    // (nothing shared lies past it), and a constant tells the next loops
    // apart.
    let a = plan(
        3,
        vec![
            param(0),
            lit(Source::Static, 5, &[Var(0), Var(1)], 0b01),
            not(6, &[Var(1)]),
            lit(Source::Static, 5, &[Var(1), Ground(3)], 0b11),
            lit(Source::Static, 11, &[Var(1), Var(2)], 0b01),
        ],
    );
    let b = plan(
        3,
        vec![
            param(0),
            lit(Source::Static, 5, &[Var(0), Var(1)], 0b01),
            lit(Source::Static, 5, &[Var(1), Ground(4)], 0b11),
            lit(Source::Static, 11, &[Var(1), Var(2)], 0b01),
        ],
    );
    let aligned = align(&a, &b, None).expect("the first loop is shared");
    assert_eq!(aligned.prefix, 2);
    assert_eq!(aligned.a, vec![0, 1, 2, 3, 4]);
    assert!(aligned.lazy_a.is_empty());
    // A third rule must share the whole opening of the run it joins.
    assert_eq!(align(&a, &b, Some(3)), None);
}

#[test]
fn an_opening_saving_less_than_the_threshold_is_not_shared() {
    // The same rules, their opening (a static loop, then a call) costing
    // half the threshold: the second rule would save that much.
    let mut rules: Vec<RulePlan> = (chess_like().into_iter())
        .map(|r| priced(r.rule.num_vars, r.steps, MIN_OPENING_WORK / f64::from(8u8)))
        .collect();
    let before: Vec<Vec<Step>> = rules.iter().map(|r| r.steps.clone()).collect();
    assert!(group(&mut rules).is_empty());
    assert!(rules.iter().all(|r| r.lazy.is_empty()));
    assert_eq!(
        rules.iter().map(|r| r.steps.clone()).collect::<Vec<_>>(),
        before
    );
}
