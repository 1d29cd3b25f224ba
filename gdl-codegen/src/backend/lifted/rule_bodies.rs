//! The code of a call's rules: each rule's plan as a body, the tests they
//! share hoisted, or the atoms of a relation compiled ground.

use proc_macro2::TokenStream;
use quote::quote;

use super::access::BodyAccess;
use super::body::Body;
use super::facts::Facts;
use super::functions::widened_body;
use super::hybrid::Hybrid;
use super::join_order::{argument_params, Adorn, Source, EXISTS};
use super::needs::Needs;
use super::plan::{Bodies, RulePlan};
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
        } => (shared, shared_access, rules),
    };
    let bodies: Vec<TokenStream> = (rules.iter())
        .map(|r| rule_body(reg, r, free, push))
        .collect();
    if shared.is_empty() {
        return bodies;
    }
    // The tests every rule opens with, over the call's arguments, around
    // the rules.
    let mut body = Body::new(reg, reg.arity[rel as usize], None);
    body.steps(shared, shared_access);
    vec![body.finish(quote!(#({ #bodies })*))]
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
