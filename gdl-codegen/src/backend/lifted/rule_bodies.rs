//! The code of a call's rules: each rule's plan as a body, the tests they
//! share hoisted, or the atoms of a relation compiled ground.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::access::BodyAccess;
use super::body::Body;
use super::facts::Facts;
use super::functions::widened_body;
use super::hybrid::Hybrid;
use super::join_order::{argument_params, Adorn, Source, EXISTS};
use super::needs::Needs;
use super::plan::{Bodies, Lazy, Opening, RulePlan};
use crate::rules::Pat;

/// The code of the rules of `rel` called with `asked` as `bodies` plans
/// them: a solution returns `true` if `free` is empty, else pushes the
/// `free` head arguments to `arena` (or to `out`).
pub(super) fn rule_bodies(
    facts: &Facts,
    reg: &mut Needs,
    (rel, asked): (u32, Adorn),
    free: &[usize],
    arena: Option<&proc_macro2::Ident>,
    bodies: &Bodies,
) -> Vec<TokenStream> {
    let push = |row: TokenStream| match arena {
        Some(arena) => quote!(self.#arena.push(#row);),
        None => quote!(out.push(#row);),
    };
    let (shared, shared_access, rules) = match bodies {
        Bodies::Widened {
            widening,
            source,
            access,
        } => {
            let arena = arena.expect("a widened call pushes to its arena");
            let w = (widening, *source, access);
            return vec![widened_body(reg, (rel, asked), free, arena, w)];
        }
        Bodies::Ground(h) => {
            let h = &facts.hybrid[*h];
            return vec![hybrid_body(reg, h, asked & !EXISTS, free, push)];
        }
        Bodies::Rules {
            shared,
            shared_access,
            rules,
            openings,
        } => (shared, shared_access, (&rules[..], &openings[..])),
    };
    let bodies = opened_bodies(reg, rules, free, &push);
    if shared.is_empty() {
        return bodies;
    }
    // The tests every rule opens with, over the call's arguments, around
    // the rules.
    let mut body = Body::new(reg, reg.arity[rel as usize], None);
    body.steps(shared, shared_access);
    vec![body.finish(quote!(#({ #bodies })*))]
}

/// The code of each rule of `rules`, those of a run in `openings` inside
/// one body of the steps they open with (see [`super::openings`]); a
/// solution as in [`rule_body`].
fn opened_bodies(
    reg: &mut Needs,
    (rules, openings): (&[RulePlan], &[Opening]),
    free: &[usize],
    push: &impl Fn(TokenStream) -> TokenStream,
) -> Vec<TokenStream> {
    let mut bodies = Vec::new();
    let mut i = 0;
    while i < rules.len() {
        let Some(o) = openings.iter().find(|o| o.first == i) else {
            bodies.push(rule_body(reg, &rules[i], free, push));
            i += 1;
            continue;
        };
        let run = &rules[i..i + o.rules];
        let num_vars = run.iter().map(|r| r.rule.num_vars).max().unwrap_or(0);
        let mut body = Body::new(reg, num_vars, None);
        // Every answer kept for a rule of the run is declared in the
        // opening, where the test's variables are bound.
        body.lazy(
            (run.iter().enumerate())
                .flat_map(|(k, r)| lazy_names(r, k))
                .collect(),
        );
        let lead = &run[0];
        body.steps_in(&lead.steps, &lead.access, 0..o.steps);
        let inner: Vec<TokenStream> = (run.iter().enumerate())
            .map(|(k, r)| {
                let mut own = body.fork(r.rule.num_vars);
                own.lazy(lazy_names(r, k));
                own.steps_in(&r.steps, &r.access, o.steps..r.steps.len());
                solved(own, &r.rule.head, free, push)
            })
            .collect();
        bodies.push(body.finish(quote!(#({ #inner })*)));
        i += o.rules;
    }
    bodies
}

/// The lazy tests of `plan`, the `k`th rule of its run, with the
/// variables keeping their answers.
fn lazy_names(plan: &RulePlan, k: usize) -> Vec<(Lazy, Ident)> {
    (plan.lazy.iter())
        .map(|l| (*l, format_ident!("lazy{}_{}", k, l.step)))
        .collect()
}

/// The code of the rule `plan` plans: a solution returns `true` if `free`
/// is empty, else `push`es the row of its `free` head arguments.
pub(super) fn rule_body(
    reg: &mut Needs,
    plan: &RulePlan,
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let mut body = Body::new(reg, plan.rule.num_vars, None);
    body.lazy(lazy_names(plan, 0));
    body.steps(&plan.steps, &plan.access);
    solved(body, &plan.rule.head, free, push)
}

/// Closes `body` around its solution: `return true` if `free` is empty,
/// else the row of the `free` arguments of `head` pushed.
pub(super) fn solved(
    mut body: Body,
    head: &[Pat],
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let solution = if free.is_empty() {
        quote!(return true;)
    } else {
        let heads: Vec<Pat> = free.iter().map(|&i| head[i].clone()).collect();
        push(body.row(&heads))
    };
    body.finish(solution)
}

/// The code of relation `h.of`, compiled ground, called with `adorn`: its
/// atoms with the bound arguments, from its atom table, each tested on the
/// state; a solution as in [`rule_body`].
pub(super) fn hybrid_body(
    reg: &mut Needs,
    h: &Hybrid,
    adorn: Adorn,
    free: &[usize],
    push: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let n = h.arity;
    let vars: Vec<Pat> = (0..=n).map(|i| Pat::Var(i as u32)).collect();
    let steps = argument_params(n, adorn);
    let holds = reg.hybrid_test(h.of);
    let mut body = Body::new(reg, n + 1, None);
    body.steps(&steps, &BodyAccess::default());
    body.literal_now(Source::Static, h.table, &vars, false);
    let atom = super::body::var(n as u32);
    body.test(quote!(#holds(&self.state, #atom)));
    solved(body, &vars, free, push)
}
