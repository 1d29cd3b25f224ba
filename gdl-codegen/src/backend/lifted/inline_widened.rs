//! Calls answered through a wider call (see [`super::widen`]) inlined at
//! their call sites.
//!
//! chess.kif's captures ask `legal2(?player, (move ?piece ?u ?v ?x ?y))`
//! with the piece's square free; the function of that call scans the
//! piece's squares and, per square, copies the answers of the call with
//! the square bound into an arena of its own, under a memo of its own. Each
//! of its callers asks it once a state per key, so the copy and the memo
//! are all it adds: the caller now scans the squares itself and reads the
//! wider call's answers where they are (chess.kif 2.7% fewer instructions
//! a playout, measured on a hand-edited module before the pass).

use rustc_hash::{FxHashMap, FxHashSet};

use super::join_order::{adornment, step_costs, Adorn, Catalog, Source, Step};
use super::plan::{Bodies, Fallback, Item, LegalPlan, LiftedPlan, RulePlan, Shape};
use super::widen::Widening;
use crate::rules::Pat;

/// Replaces every call of a widened function by the widening's literal and
/// the wider call, re-prices the rules it changes, and drops the widened
/// functions no longer called.
pub fn inline_widened(plan: &mut LiftedPlan, catalog: &impl Catalog) {
    let widened = widened_calls(plan);
    if widened.is_empty() {
        return;
    }
    plan.for_each_rule(&mut |r| inline_in(r, &widened, catalog));
    let called = plan.calls();
    plan.items.retain(|item| match item {
        Item::Fn(f) => {
            let call = (f.rel, f.adorn);
            !widened.contains_key(&call) || called.contains(&call)
        }
        Item::Comp(_) => true,
    });
}

/// The widened functions of `plan`, by call, with where their literal's
/// tuples come from; not those whose wider call is itself widened (the
/// literal would lead to a call no function answers).
fn widened_calls(plan: &LiftedPlan) -> FxHashMap<(u32, Adorn), (Widening, Source)> {
    let all: FxHashMap<(u32, Adorn), (Widening, Source)> = (plan.items.iter())
        .filter_map(|item| match item {
            Item::Fn(f) => match &f.shape {
                Shape::Answers {
                    bodies:
                        Bodies::Widened {
                            widening, source, ..
                        },
                    ..
                } => Some(((f.rel, f.adorn), (widening.clone(), *source))),
                _ => None,
            },
            Item::Comp(_) => None,
        })
        .collect();
    let chained: Vec<(u32, Adorn)> = (all.iter())
        .filter(|((rel, _), (w, _))| all.contains_key(&(*rel, w.wider)))
        .map(|(call, _)| *call)
        .collect();
    let mut all = all;
    chained.iter().for_each(|c| {
        all.remove(c);
    });
    all
}

/// `rule` with each call of a widened function replaced by the widening's
/// literal and the wider call; its steps re-priced if any was.
fn inline_in(
    rule: &mut RulePlan,
    widened: &FxHashMap<(u32, Adorn), (Widening, Source)>,
    catalog: &impl Catalog,
) {
    let num_vars = rule.rule.num_vars;
    let mut changed = false;
    let steps = std::mem::take(&mut rule.steps);
    for step in steps {
        match expand(&step, widened, num_vars) {
            Some(pair) => {
                rule.steps.extend(pair);
                changed = true;
            }
            None => rule.steps.push(step),
        }
    }
    if changed {
        rule.costs = step_costs(&rule.rule, &rule.steps, catalog);
    }
}

/// The literal and the wider call that answer `step`, if it calls a
/// widened function and the literal can be written over its arguments.
fn expand(
    step: &Step,
    widened: &FxHashMap<(u32, Adorn), (Widening, Source)>,
    num_vars: usize,
) -> Option<[Step; 2]> {
    let Step::Lit {
        source: Source::Derived,
        rel,
        args,
        negated: false,
        bound,
    } = step
    else {
        return None;
    };
    // A list of the whole relation stays a call: the functions that read
    // it whole instead of asking for some keys (see `call_graph`) share it.
    if *bound == 0 {
        return None;
    }
    let (w, source) = widened.get(&(*rel, *bound))?;
    let lit_args: Box<[Pat]> = (w.args.iter())
        .map(|p| over_call(p, args))
        .collect::<Option<_>>()?;
    // The call's bound arguments are ground: their variables are the ones
    // known before it (a free argument's are not, or it would be bound).
    let mut known = vec![false; num_vars];
    (args.iter().enumerate())
        .filter(|(i, _)| bound >> i & 1 == 1)
        .for_each(|(_, a)| a.for_each_var(&mut |v| known[v as usize] = true));
    let lit_bound = adornment(&lit_args, &known);
    (lit_args.iter()).for_each(|a| a.for_each_var(&mut |v| known[v as usize] = true));
    // A variable repeated in the call may bind more than the wider call's
    // arguments: no function answers that call.
    let wider = adornment(args, &known);
    (wider == w.wider).then(|| {
        [
            Step::Lit {
                source: *source,
                rel: w.rel,
                args: lit_args,
                negated: false,
                bound: lit_bound,
            },
            Step::Lit {
                source: Source::Derived,
                rel: *rel,
                args: args.clone(),
                negated: false,
                bound: wider,
            },
        ]
    })
}

/// `p`, a pattern over the call's arguments (`Var(i)` is argument `i`),
/// over the caller's variables: `None` where an argument is a compound
/// term, or a ground one lands inside a compound pattern (which would then
/// be ground but not interned).
fn over_call(p: &Pat, args: &[Pat]) -> Option<Pat> {
    match p {
        Pat::Ground(g) => Some(Pat::Ground(*g)),
        Pat::Var(i) => match args.get(*i as usize)? {
            a @ (Pat::Var(_) | Pat::Ground(_)) => Some(a.clone()),
            Pat::Func(..) => None,
        },
        Pat::Func(..) => p.renamed(&|i| match args.get(i as usize)? {
            Pat::Var(v) => Some(*v),
            _ => None,
        }),
    }
}

impl LiftedPlan {
    /// Calls `f` on every rule plan: the queries', the functions' and the
    /// components'.
    pub fn for_each_rule(&mut self, f: &mut impl FnMut(&mut RulePlan)) {
        if let Some(LegalPlan::Rules(rules)) = &mut self.queries.legal {
            rules.iter_mut().for_each(&mut *f);
        }
        self.queries.next.iter_mut().for_each(&mut *f);
        for item in &mut self.items {
            match item {
                Item::Fn(func) => match &mut func.shape {
                    Shape::Closure { closure, .. } => {
                        (closure.base.iter_mut().chain(&mut closure.steps)).for_each(&mut *f)
                    }
                    Shape::Test { bodies, .. }
                    | Shape::RecursiveTest { bodies, .. }
                    | Shape::Answers { bodies, .. } => {
                        if let Bodies::Rules { rules, .. } = bodies {
                            rules.iter_mut().for_each(&mut *f);
                        }
                    }
                    Shape::ExistsFromList | Shape::TestFromList | Shape::TestFromClosure { .. } => {
                    }
                },
                Item::Comp(c) => (c.rels.iter_mut().flat_map(|(_, rules)| rules)).for_each(&mut *f),
            }
        }
    }

    /// Every call the plan's printed code makes: of its queries, its rules
    /// and its functions' own reads (lists, closures, wider calls).
    pub fn calls(&mut self) -> FxHashSet<(u32, Adorn)> {
        let mut calls = FxHashSet::default();
        let queries = [&self.queries.terminal, &self.queries.goals];
        let legal = match &self.queries.legal {
            Some(LegalPlan::Call(q)) => Some(q),
            _ => None,
        };
        for q in queries.into_iter().flatten().chain(legal) {
            calls.insert((q.rel, q.bound));
        }
        let in_steps = |steps: &[Step], calls: &mut FxHashSet<(u32, Adorn)>| {
            for s in steps {
                if let Step::Lit {
                    source: Source::Derived,
                    rel,
                    bound,
                    ..
                } = s
                {
                    calls.insert((*rel, *bound));
                }
            }
        };
        self.for_each_rule(&mut |r| in_steps(&r.steps, &mut calls));
        for item in &self.items {
            let Item::Fn(f) = item else { continue };
            match &f.shape {
                Shape::ExistsFromList | Shape::TestFromList => {
                    calls.insert((f.rel, 0));
                }
                Shape::TestFromClosure { sub, .. } => {
                    calls.insert((f.rel, *sub));
                }
                Shape::Closure { .. } => {}
                Shape::Test { bodies, .. }
                | Shape::RecursiveTest { bodies, .. }
                | Shape::Answers { bodies, .. } => match bodies {
                    Bodies::Widened { widening, .. } => {
                        calls.insert((f.rel, widening.wider));
                    }
                    Bodies::Rules { shared, .. } => in_steps(shared, &mut calls),
                    Bodies::Ground(_) => {}
                },
            }
            let fallback = match &f.shape {
                Shape::RecursiveTest { fallback, .. } => Some(fallback),
                Shape::Answers { fallback, .. } => fallback.as_ref(),
                _ => None,
            };
            if let Some(Fallback::Closure { sub }) = fallback {
                calls.insert((f.rel, *sub));
            }
        }
        calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Pat::{Ground, Var};

    /// A call of relation 1 with `args`, the first two bound.
    fn call(args: Vec<Pat>) -> Step {
        Step::Lit {
            source: Source::Derived,
            rel: 1,
            args: args.into(),
            negated: false,
            bound: 0b0011,
        }
    }

    /// Relation 1 called with its first two arguments bound, answered
    /// through `cell(U, V, X)` (relation 7 over arguments 2, 3 and 1).
    fn widened(wider: Adorn, args: Vec<Pat>) -> FxHashMap<(u32, Adorn), (Widening, Source)> {
        let w = Widening {
            rel: 7,
            args: args.into(),
            wider,
        };
        [((1, 0b0011), (w, Source::True))].into_iter().collect()
    }

    #[test]
    fn a_call_of_a_widened_function_becomes_its_literal_and_the_wider_call() {
        let widened = widened(0b1111, vec![Var(2), Var(3), Var(1)]);
        let step = call(vec![Var(10), Var(11), Var(12), Var(13)]);
        let Some([lit, wide]) = expand(&step, &widened, 14) else {
            panic!("the call is not expanded");
        };
        let Step::Lit {
            source,
            rel,
            args,
            bound,
            ..
        } = lit
        else {
            panic!("not a literal: {lit:?}");
        };
        assert_eq!((source, rel, bound), (Source::True, 7, 0b100));
        assert_eq!(&args[..], &[Var(12), Var(13), Var(11)]);
        let Step::Lit { rel, bound, .. } = wide else {
            panic!("not a call: {wide:?}");
        };
        assert_eq!((rel, bound), (1, 0b1111));
        // A call with other arguments bound is another function's.
        let Step::Lit { args, .. } = &step else {
            unreachable!()
        };
        let other = Step::Lit {
            source: Source::Derived,
            rel: 1,
            args: args.clone(),
            negated: false,
            bound: 0b0001,
        };
        assert!(expand(&other, &widened, 14).is_none());
    }

    #[test]
    fn a_repeated_variable_or_a_compound_argument_keeps_the_call() {
        // The literal binds argument 2 only; the call repeats its variable
        // in argument 3, which a call with arguments 0-2 bound does not
        // answer.
        let widened = widened(0b0111, vec![Var(2), Var(1)]);
        let repeated = call(vec![Var(10), Var(11), Var(12), Var(12)]);
        assert!(expand(&repeated, &widened, 13).is_none());
        // A ground argument is written into the literal; a compound one is
        // not.
        let ground = call(vec![Var(10), Ground(5), Var(12), Var(13)]);
        assert!(expand(&ground, &widened, 14).is_some());
        let compound = call(vec![
            Var(10),
            Pat::Func(crate::front::symbols::Sym(3), vec![Var(11)].into()),
            Var(12),
            Var(13),
        ]);
        assert!(expand(&compound, &widened, 14).is_none());
    }
}
