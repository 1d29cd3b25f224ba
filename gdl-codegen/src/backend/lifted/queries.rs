//! The query methods of the evaluation (`legal`, `next`, `terminal`,
//! `goals`) and where `legal`'s rules put the moves they find.

use super::cost::MAX_MOVE_WORDS;
use proc_macro2::TokenStream;
use quote::quote;

use super::body::Body;
use super::facts::Facts;
use super::needs::Needs;
use super::plan::{LegalPlan, QueryLit, QueryPlans, RulePlan};
use crate::front::ir::{Keyword, Program};
use crate::rules::{Lit, Pat};

/// The query methods of the evaluation: `legal`, `next`, `terminal`,
/// `goals`, each a one-literal body over its keyword relation.
pub(super) fn queries(
    plan: &QueryPlans,
    legal_sink: Option<MoveSink>,
    reg: &mut Needs,
    rt: &syn::Path,
) -> TokenStream {
    // Without a sink `legal` is not printed: the sink read is then moot.
    let sink = legal_sink.unwrap_or(MoveSink::List);
    let legal = match &plan.legal {
        // Read by a rule (`has_legal_move`), its answers are a call's, kept
        // for both.
        Some(LegalPlan::Call(q)) => one_literal(
            reg,
            Some(q),
            vec![Pat::Var(0), Pat::Var(1)],
            Some(quote!(a0)),
            push_move(&quote!(v1), sink, rt),
        ),
        Some(LegalPlan::Rules(rules)) => legal_rules(rules, reg, sink, rt),
        None => quote!(),
    };
    let next = next_rules(&plan.next, reg);
    let terminal = one_literal(
        reg,
        plan.terminal.as_ref(),
        vec![],
        None,
        quote!(return true;),
    );
    let goals = one_literal(
        reg,
        plan.goals.as_ref(),
        vec![Pat::Var(0), Pat::Var(1)],
        Some(quote!(role)),
        quote!(out.push(v1);),
    );
    let legal = legal_sink.map(|sink| legal_method(sink, &legal, rt));
    quote! {
        #legal

        /// The fluents `next` gives, as bits.
        fn next(&mut self, out: &mut [u64]) {
            #next
        }

        /// Whether `terminal` holds.
        fn terminal(&mut self) -> bool {
            #terminal
            false
        }

        /// The value terms `goal(role, v)` gives.
        fn goals(&mut self, role: u32, out: &mut ::std::vec::Vec<u32>) {
            #goals
        }
    }
}

/// The body of a query that is one literal of its relation (`query`, none
/// printing nothing) with arguments `args` (variable 0 first matched with
/// `preset`, if any), doing `solution` for each solution.
fn one_literal(
    reg: &mut Needs,
    query: Option<&QueryLit>,
    args: Vec<Pat>,
    preset: Option<TokenStream>,
    solution: TokenStream,
) -> TokenStream {
    let Some(&QueryLit { rel, source, .. }) = query else {
        return quote!();
    };
    let mut body = Body::new(reg, 2, None);
    if let Some(p) = preset {
        body.matching(&Pat::Var(0), p);
    }
    body.literal_now(source, rel, &args, false);
    body.finish(solution)
}

/// The `legal` query method, its moves put in `sink`, its body `legal`.
fn legal_method(sink: MoveSink, legal: &TokenStream, rt: &syn::Path) -> TokenStream {
    let out = match sink {
        MoveSink::Bits(_) => quote!(&mut [u64]),
        MoveSink::List => quote!(&mut ::std::vec::Vec<#rt::Move>),
    };
    quote! {
        /// The moves `legal(a0, m)` gives, as the ids `ids` (the
        /// role's, by move term rank) gives them: bits set in `out`,
        /// or pushed on it unsorted.
        fn legal(&mut self, a0: u32, ids: &[u32], out: #out) {
            #legal
        }
    }
}

/// The rules of `next`, each setting the bit of its head's fluent: no
/// call of its own, as nothing else reads `next` (a body may not), so no
/// memo and no list of terms to convert to bits.
pub(super) fn next_rules(rules: &[RulePlan], reg: &mut Needs) -> TokenStream {
    let bodies = rules.iter().map(|plan| {
        let rule = &plan.rule;
        let mut body = Body::new(reg, rule.num_vars, None);
        body.steps(&plan.steps, &plan.access);
        if let Some(copy) = body.copy_scan(&rule.head[0], plan.access.shift) {
            return body.finish(copy);
        }
        let bit = body.fluent_bit(&rule.head[0]);
        body.finish(quote! {
            let f = #bit;
            if f != NONE {
                out[(f >> 6) as usize] |= 1 << (f & 63);
            }
        })
    });
    quote!(#({ #bodies })*)
}

/// Whether a rule's body reads relation `rel`.
pub(super) fn read_by_rules(facts: &Facts, rel: u32) -> bool {
    let reads = |l: &Lit| matches!(l, Lit::Pos(r, _) | Lit::Neg(r, _) if *r == rel);
    facts.rules.iter().any(|r| r.body.iter().any(reads))
}

/// Where `legal`'s rules put the moves they find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSink {
    /// A bit per move id, in this many words (every role's moves fit):
    /// read in order, with no sort and no repeats.
    Bits(usize),
    /// A list, sorted afterwards: where a role has too many moves for the
    /// words to be cleared and read at each call.
    List,
}

impl MoveSink {
    /// The sink of `facts`' moves.
    pub(super) fn of(facts: &Facts) -> MoveSink {
        let words = (facts.moves.iter())
            .map(|m| m.len().div_ceil(64))
            .max()
            .unwrap_or(0)
            .max(1);
        if words <= MAX_MOVE_WORDS {
            MoveSink::Bits(words)
        } else {
            MoveSink::List
        }
    }
}

/// The code putting the id of move term `t` (in `ids`, the role's ids by
/// move term rank) in `out`, if it is one of the role's moves.
pub(super) fn push_move(t: &TokenStream, sink: MoveSink, rt: &syn::Path) -> TokenStream {
    let put = match sink {
        // `NONE`'s word is past the end: no bit.
        MoveSink::Bits(_) => quote! {
            if let Some(w) = out.get_mut((m >> 6) as usize) {
                *w |= 1 << (m & 63);
            }
        },
        MoveSink::List => quote! {
            if m != NONE {
                out.push(#rt::Move(m));
            }
        },
    };
    quote! {
        let t: u32 = #t;
        let rank = MOVE_RANK.get(t as usize).copied().unwrap_or(NONE);
        if let Some(&m) = ids.get(rank as usize) {
            #put
        }
    }
}

/// The rules of `legal`, relation `rel`, for a role bound to `a0`, each
/// putting the move id of its head's move in `sink`: like [`next_rules`], no call of
/// its own, so no memo and no list of move terms.
pub(super) fn legal_rules(
    rules: &[RulePlan],
    reg: &mut Needs,
    sink: MoveSink,
    rt: &syn::Path,
) -> TokenStream {
    let bodies = rules.iter().map(|plan| {
        let rule = &plan.rule;
        let mut body = Body::new(reg, rule.num_vars, None);
        body.steps(&plan.steps, &plan.access);
        let t = body.value(&rule.head[1]);
        body.finish(push_move(&t, sink, rt))
    });
    quote!(#({ #bodies })*)
}

/// Where `legal` reads neither the state nor the joint move (the number
/// guessing games): each role's legal move ids, sorted, known at compile
/// time. Its tuples are its relaxed extension, exact where no literal
/// reads the state.
pub(super) fn fixed_legal_moves(program: &Program, facts: &Facts) -> Option<Vec<Vec<u32>>> {
    let legal = program.keyword_pred(Keyword::Legal)?.0 as usize;
    if crate::analysis::dynamic::state_dependent(program)[legal] {
        return None;
    }
    let tuples = facts.relaxed.get(legal)?.as_ref()?;
    let lists = (facts.roles.iter().zip(&facts.moves))
        .map(|(&role, moves)| {
            let mut ids: Vec<u32> = (tuples.iter())
                .filter(|t| t[0] == role)
                .filter_map(|t| moves.iter().position(|&m| m == t[1]))
                .map(|i| i as u32)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        })
        .collect();
    Some(lists)
}
