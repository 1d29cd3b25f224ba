use super::*;

struct Sizes;

impl Catalog for Sizes {
    fn source(&self, rel: u32) -> Source {
        if rel == 0 {
            Source::Static
        } else {
            Source::True
        }
    }

    fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
        let base = if rel == 0 { 1000.0 } else { 10.0 };
        base / 10f64.powi(leaves)
    }
}

/// The relations of a plan's literal steps, in order.
fn lits(steps: &[Step]) -> Vec<u32> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Lit { rel, .. } => Some(*rel),
            _ => None,
        })
        .collect()
}

/// The adornments of a plan's literal steps, in order.
fn bounds(steps: &[Step]) -> Vec<Adorn> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Lit { bound, .. } => Some(*bound),
            _ => None,
        })
        .collect()
}

fn var(v: u32) -> Pat {
    Pat::Var(v)
}

#[test]
fn tests_run_as_soon_as_bound_and_small_relations_first() {
    // h(X) :- big(X, Y), small(Y), distinct(Y, 3).
    let rule = CRule {
        head_rel: 9,
        head: vec![var(0)].into(),
        body: vec![
            Lit::Pos(0, vec![var(0), var(1)].into()),
            Lit::Pos(1, vec![var(1)].into()),
            Lit::Distinct(var(1), Pat::Ground(3)),
        ],
        num_vars: 2,
    };
    let steps = plan_rule(&rule, 0, &Sizes);
    let order: Vec<String> = steps
        .iter()
        .map(|s| match s {
            Step::Lit { rel, bound, .. } => format!("{rel}:{bound:b}"),
            Step::Distinct(..) => "distinct".into(),
            Step::Param { index, .. } => format!("param{index}"),
        })
        .collect();
    assert_eq!(order, ["1:0", "distinct", "0:10"]);
    // With the head bound, the big relation is keyed on both arguments.
    let steps = plan_rule(&rule, 1, &Sizes);
    assert!(matches!(steps[0], Step::Param { index: 0, .. }));
    assert!(matches!(steps[1], Step::Lit { rel: 1, .. }));
}

/// Relation 0 static (10 tuples), 1 the state (10), 2 derived.
struct WithCalls;

impl Catalog for WithCalls {
    fn source(&self, rel: u32) -> Source {
        [Source::Static, Source::True, Source::Derived][rel as usize]
    }

    fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
        [10.0, 10.0, 50.0][rel as usize] / 10f64.powi(leaves)
    }

    fn call_cost(&self, _rel: u32, _adorn: Adorn) -> f64 {
        100.0
    }
}

#[test]
fn a_bound_call_waits_for_the_cheap_tests_that_can_skip_it() {
    // h(X, Y) :- moves(X, Y), owner(P, X), cell(X, P)  with X, Y bound:
    // `moves` (derived) is ready first, but the static lookup and the
    // state test that may fail run before the call.
    let rule = CRule {
        head_rel: 9,
        head: vec![var(0), var(1)].into(),
        body: vec![
            Lit::Pos(2, vec![var(0), var(1)].into()),
            Lit::Pos(0, vec![var(2), var(0)].into()),
            Lit::Pos(1, vec![var(0), var(2)].into()),
        ],
        num_vars: 3,
    };
    assert_eq!(lits(&plan_rule(&rule, 0b11, &WithCalls)), [0, 1, 2]);
}

/// Relation 0 the state, 1 derived with a short whole list.
struct ShortWhole;

impl Catalog for ShortWhole {
    fn source(&self, rel: u32) -> Source {
        [Source::True, Source::Derived][rel as usize]
    }

    fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
        [2.0, 50.0][rel as usize] / 10f64.powi(leaves)
    }

    fn reads_whole(&self, rel: u32, _adorn: Adorn) -> bool {
        rel == 1
    }
}

#[test]
fn a_call_of_a_relation_read_whole_lists_it_all_and_compares_the_bound_ones() {
    // h(K, P) :- king(K), check(P, K): `check` read whole (bound 0), its
    // rows compared with K; as a test (both bound, or negated), asked.
    // (Both orders bind one argument before the call.)
    let state = Lit::Pos(0, vec![var(0)].into());
    let rule = |call: Lit, head: Vec<Pat>| CRule {
        head_rel: 9,
        head: head.into(),
        body: vec![state.clone(), call],
        num_vars: 2,
    };
    let check_bound = |rule: &CRule, adorn: Adorn| {
        let steps = plan_rule(rule, adorn, &ShortWhole);
        let at = lits(&steps).iter().position(|&r| r == 1).unwrap();
        bounds(&steps)[at]
    };
    let listed = rule(
        Lit::Pos(1, vec![var(1), var(0)].into()),
        vec![var(0), var(1)],
    );
    assert_eq!(check_bound(&listed, 0), 0);
    assert_eq!(check_bound(&listed, 0b11), 0b11);
    let negated = rule(
        Lit::Neg(1, vec![var(1), var(0)].into()),
        vec![var(0), var(1)],
    );
    assert_eq!(check_bound(&negated, 0b10), 0b11);
}

/// Relations 0 and 1 derived: 0 a deep search, 1 a lookup.
struct DeepAndShallow;

impl Catalog for DeepAndShallow {
    fn source(&self, _rel: u32) -> Source {
        Source::Derived
    }

    fn estimate(&self, _rel: u32, _args: &[Pat], _leaves: i32) -> f64 {
        1.0
    }

    fn call_cost(&self, rel: u32, _adorn: Adorn) -> f64 {
        [500.0, 10.0][rel as usize]
    }
}

#[test]
fn bound_tests_run_cheapest_first_whatever_the_text_order() {
    // h(X) :- not deep(X), shallow(X), with X bound: both are tests;
    // the cheap one, which may reject, runs first.
    let rule = CRule {
        head_rel: 9,
        head: vec![var(0)].into(),
        body: vec![
            Lit::Neg(0, vec![var(0)].into()),
            Lit::Pos(1, vec![var(0)].into()),
        ],
        num_vars: 1,
    };
    assert_eq!(lits(&plan_rule(&rule, 1, &DeepAndShallow)), [1, 0]);
    // Whatever order the subset search hands over, a run of tests is
    // sorted by rank; the literal binding X stays in front.
    let rule = CRule {
        head_rel: 9,
        head: vec![].into(),
        body: vec![
            Lit::Pos(1, vec![var(1), var(0)].into()),
            Lit::Neg(0, vec![var(0)].into()),
            Lit::Pos(1, vec![var(0)].into()),
        ],
        num_vars: 2,
    };
    let mut order = [0, 1, 2];
    let facts = BodyFacts::of(&rule, &DeepAndShallow);
    let body = &rule.body;
    order_tests(&mut order, body, &[false, true], &facts, &DeepAndShallow);
    assert_eq!(order, [0, 2, 1]);
}

/// Relation 0 a guard (static, filter-only), 1 a derived search.
struct Guarded;

impl Catalog for Guarded {
    fn source(&self, rel: u32) -> Source {
        [Source::Static, Source::Derived][rel as usize]
    }

    /// The guard holds of a tenth of the pairs.
    fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
        [10.0, 100.0][rel as usize] / 10f64.powi(leaves)
    }

    fn filter_only(&self, rel: u32) -> bool {
        rel == 0
    }
}

#[test]
fn a_guard_runs_before_the_call_or_not_at_all() {
    // r(X, Y) :- guard(X, Y), search(X, Y).
    let rule = CRule {
        head_rel: 9,
        head: vec![var(0), var(1)].into(),
        body: vec![
            Lit::Pos(0, vec![var(0), var(1)].into()),
            Lit::Pos(1, vec![var(0), var(1)].into()),
        ],
        num_vars: 2,
    };
    let rels = |adorn| -> Vec<u32> { lits(&plan_rule(&rule, adorn, &Guarded)) };
    // Both bound: the guard refuses calls before they run.
    assert_eq!(rels(0b11), [0, 1]);
    // Y free: the guard cannot enumerate Y, and after the call it
    // would hold of every answer, so it is left out.
    assert_eq!(rels(0b01), [1]);
}

#[test]
fn a_call_whose_free_arguments_nothing_reads_asks_for_existence() {
    // h(X) :- moves(X, Y), with X bound: Y is read by nothing after.
    let f = |v| Pat::Func(crate::front::symbols::Sym(0), vec![var(v)].into());
    let planned = |second: Pat, head: Vec<Pat>, adorn: Adorn| -> Vec<Adorn> {
        let rule = CRule {
            head_rel: 9,
            head: head.into(),
            body: vec![Lit::Pos(2, vec![var(0), second].into())],
            num_vars: 2,
        };
        bounds(&plan_rule(&rule, adorn, &WithCalls))
    };
    let adorns = |second: Pat, head: Vec<Pat>| planned(second, head, 1);
    assert_eq!(adorns(var(1), vec![var(0)]), [0b01 | EXISTS]);
    // Y in the head: its values are the answer.
    assert_eq!(adorns(var(1), vec![var(0), var(1)]), [0b01]);
    // f(Y) constrains the answer's functor: not a plain existence.
    assert_eq!(adorns(f(1), vec![var(0)]), [0b01]);
    // Unless the rule's own call asks only whether an answer exists:
    // h(X, Y) asked with Y free and unread asks whether a move exists.
    assert_eq!(
        planned(var(1), vec![var(0), var(1)], 1 | EXISTS),
        [0b01 | EXISTS]
    );
}

#[test]
fn long_bodies_are_ordered_greedily_and_completely() {
    // Thirteen literals chained through variables: past the searched
    // size, every literal still gets exactly one place.
    let body: Vec<Lit> = (0..13)
        .map(|i| Lit::Pos(1, vec![var(i), var(i + 1)].into()))
        .collect();
    let rule = CRule {
        head_rel: 9,
        head: vec![var(0)].into(),
        body,
        num_vars: 14,
    };
    let steps = plan_rule(&rule, 1, &Sizes);
    assert_eq!(steps.len(), 14);
    assert!(matches!(steps[1], Step::Lit { bound: 0b01, .. }));
}

/// Relation 0 an addition table (a functional static relation of 45 000
/// tuples: two known columns give one row), relation 1 the state.
struct Addition;

impl Catalog for Addition {
    fn source(&self, rel: u32) -> Source {
        [Source::Static, Source::True][rel as usize]
    }

    fn estimate(&self, rel: u32, _args: &[Pat], leaves: i32) -> f64 {
        [45_000.0, 10.0][rel as usize] / 10f64.powi(leaves)
    }

    fn static_rows(&self, _rel: u32, args: &[Pat], bound: &[bool]) -> Option<f64> {
        let known = args.iter().filter(|a| a.bound_by(bound)).count();
        Some([45_000.0, 200.0, 1.0, 0.005][known])
    }
}

#[test]
fn static_estimates_from_the_tables_chain_lookups_instead_of_scanning() {
    // n(Z) :- true(f(X)), add(X, 1, Y), add(Y, X, Z): with the table's
    // own statistics each lookup is one row, so no full scan comes first.
    let f = |v| Pat::Func(crate::front::symbols::Sym(0), vec![var(v)].into());
    let rule = CRule {
        head_rel: 9,
        head: vec![var(2)].into(),
        body: vec![
            Lit::Pos(1, vec![f(0)].into()),
            Lit::Pos(0, vec![var(0), Pat::Ground(1), var(1)].into()),
            Lit::Pos(0, vec![var(1), var(0), var(2)].into()),
        ],
        num_vars: 3,
    };
    assert_eq!(bounds(&plan_rule(&rule, 0, &Addition)), [0b0, 0b011, 0b011]);
}
