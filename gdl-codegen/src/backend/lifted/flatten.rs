//! Argument flattening: a compound argument every rule and every call of a
//! relation spells with the same functor becomes the functor's arguments.
//!
//! `(legal2 ?player (move ?piece ?u ?v ?x ?y))`, written so in each of its
//! heads and each call, becomes `(legal2__move ?player ?piece ?u ?v ?x ?y)`.
//! The program means the same (a call unifies with a head exactly when it
//! does after the rewrite), but the planner now sees the move's parts as
//! arguments: a call that binds the piece and its square is a function of
//! those four values, memoized by them and computing only that piece's
//! moves, where before it listed every move of the player for each piece
//! and filtered the list on the sub-terms.
//!
//! Only relations the queries do not name (no keyword) are rewritten, only
//! where no call passes a variable or another term at that position (the
//! call would have to build or take apart the term), and the pass repeats
//! for nested compounds.

use crate::front::ir::{Atom, Literal, PredId, Program, Term};
use crate::front::symbols::Sym;

/// Rounds of rewriting: each flattens one level of nesting per relation.
const MAX_ROUNDS: usize = 4;

/// A position of a relation to flatten, with the functor found there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flat {
    pred: PredId,
    pos: usize,
    functor: Sym,
    arity: usize,
}

/// The program with the compound arguments that can be flattened flattened
/// (see the module doc); the same program when there are none.
pub fn flatten(program: &Program) -> std::borrow::Cow<'_, Program> {
    let mut out = std::borrow::Cow::Borrowed(program);
    for _ in 0..MAX_ROUNDS {
        let flats = candidates(&out);
        if flats.is_empty() {
            break;
        }
        let p = out.to_mut();
        let renamed: Vec<(Flat, PredId)> = flats.into_iter().map(|f| (f, new_pred(p, f))).collect();
        for rule in &mut p.rules {
            rewrite(&mut rule.head, &renamed);
            for lit in &mut rule.body {
                if let Literal::Pos(a) | Literal::Neg(a) = lit {
                    rewrite(a, &renamed);
                }
            }
        }
    }
    out
}

/// The first flattenable position of each relation.
fn candidates(program: &Program) -> Vec<Flat> {
    // Each relation's heads and calls, in one pass over the rules.
    let n = program.preds.len();
    let (mut heads, mut calls): (Vec<Vec<&Atom>>, Vec<Vec<&Atom>>) =
        (vec![Vec::new(); n], vec![Vec::new(); n]);
    for rule in &program.rules {
        heads[rule.head.pred.0 as usize].push(&rule.head);
        for lit in &rule.body {
            if let Literal::Pos(a) | Literal::Neg(a) = lit {
                calls[a.pred.0 as usize].push(a);
            }
        }
    }
    let mut out = Vec::new();
    for (i, info) in program.preds.iter().enumerate() {
        let pred = PredId(i as u32);
        if program.pred_keyword(pred).is_some() {
            continue;
        }
        let Some(first) = heads[i].first() else {
            continue;
        };
        let flat = (0..info.arity).find_map(|pos| {
            let Term::Func(functor, args) = &first.args[pos] else {
                return None;
            };
            let same = |a: &&Atom| {
                matches!(&a.args[pos], Term::Func(f, xs) if f == functor && xs.len() == args.len())
            };
            (heads[i].iter().all(same) && calls[i].iter().all(same)).then_some(Flat {
                pred,
                pos,
                functor: *functor,
                arity: args.len(),
            })
        });
        out.extend(flat);
    }
    out
}

/// A new relation for `flat`, named after the relation and the functor.
fn new_pred(program: &mut Program, flat: Flat) -> PredId {
    let info = program.pred(flat.pred).clone();
    let base = format!(
        "{}__{}",
        program.symbols.name(info.name),
        program.symbols.name(flat.functor)
    );
    let arity = info.arity - 1 + flat.arity;
    let mut name = base.clone();
    let mut k = 1;
    while program.symbols.lookup(&name).is_some_and(|s| {
        program
            .preds
            .iter()
            .any(|p| p.name == s && p.arity == arity)
    }) {
        k += 1;
        name = format!("{base}{k}");
    }
    let sym = program.symbols.intern(&name);
    program.intern_pred(sym, arity, false)
}

/// Rewrites `atom` if its relation is flattened.
fn rewrite(atom: &mut Atom, renamed: &[(Flat, PredId)]) {
    let Some((flat, to)) = renamed.iter().find(|(f, _)| f.pred == atom.pred) else {
        return;
    };
    let Term::Func(_, inner) = atom.args[flat.pos].clone() else {
        unreachable!("every atom of a flattened relation has the functor there")
    };
    atom.args.splice(flat.pos..=flat.pos, inner.into_vec());
    atom.pred = *to;
}

#[cfg(test)]
mod tests {
    use super::super::tests::checked_program as program;
    use super::*;

    #[test]
    fn a_compound_every_head_and_call_spells_alike_is_flattened() {
        let p = program(
            "(role a) (init (at 1)) (<= (legal a (go ?x)) (true (at ?x)) (step (m ?x (n ?x))))
             (<= (step (m ?x (n ?y))) (succ ?x ?y)) (succ 1 2)
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (not (step (m 1 (n 1)))))
             (goal a 100)",
        );
        let t = flatten(&p).summary();
        assert!(t.contains("(step__m__n ?x ?y)"), "{t}");
        assert!(t.contains("(step__m__n ?x ?x)"), "{t}");
        assert!(t.contains("(not (step__m__n 1 1))"), "{t}");
        // Keywords keep their terms.
        assert!(t.contains("(legal a (go ?x))"), "{t}");
    }

    #[test]
    fn a_call_with_a_variable_there_keeps_the_relation_whole() {
        let p = program(
            "(role a) (init (at 1)) (<= (legal a (go ?x)) (true (at ?x)) (step (m ?x)))
             (<= (step (m ?x)) (succ ?x ?y)) (succ 1 2) (<= (other ?s) (step ?s))
             (<= (next (at ?x)) (does a (go ?x))) (<= terminal (other (m 1)))
             (goal a 100)",
        );
        assert!(matches!(flatten(&p), std::borrow::Cow::Borrowed(_)));
    }
}
