//! Answer lists of a self-recursive relation whose recursion keeps the key.
//!
//! chess.kif's `clear_diagonal_ne(?u, ?v, x, y)` asks for the squares from
//! which the diagonal to a known `(x, y)` is clear. Its recursive rule
//! calls itself with the same `(x, y)`:
//!
//! ```text
//! (<= (clear_diagonal_ne ?u ?v ?x ?y)
//!     (next_file ?u ?u2) (next_rank ?v ?v2) (true (cell ?u2 ?v2 b))
//!     (clear_diagonal_ne ?u2 ?v2 ?x ?y))
//! ```
//!
//! Evaluated top-down, that call is the call itself again (it falls back to
//! the component's whole fixpoint), so the planner binds `?u2 ?v2` first and
//! tests every square. Here the answers for one key are a closure instead,
//! computed semi-naively: the base rules give the first answers, and each
//! answer, once, is the recursive literal's solution from which the
//! recursive rules derive more (from `(u2, v2)`, the square before it). The
//! recursive literal's free arguments become parameters of the rule, bound
//! from the answer, and the rest of the body is planned as usual.

use crate::rules::{CRule, Lit, Pat};

use super::join_order::{Adorn, EXISTS};
use super::walk::{is_walk, StaticTuples};

/// How a list of `rel` with a key is computed as a closure.
pub enum Closure {
    /// The recursion keeps the key: a worklist of answers.
    Answers {
        /// Rules of `rel` without a recursive literal.
        base: Vec<usize>,
        /// The recursive rules, each with the recursive literal taken out
        /// and its free arguments appended to the head as bound parameters.
        steps: Vec<CRule>,
        /// The adornment the step rules are planned with: the key's, and
        /// the appended parameters.
        step_adorn: Adorn,
        /// Whether the one step is a walk from each answer (see
        /// [`super::walk`]): no answer repeats, none is looked for.
        walk: bool,
    },
    /// The recursion passes the answers through (amazonsTorus's
    /// `horizontalMove(x1, y, ?x3, ?y)` from the next square's): a worklist
    /// of keys, each key's base answers those of the first.
    Keys {
        /// Rules of `rel` without a recursive literal.
        base: Vec<usize>,
        /// The recursive rules, each with the recursive literal taken out
        /// and its key arguments appended to the head, to be computed.
        steps: Vec<CRule>,
        /// The free arguments (as indices among them) whose variable the
        /// recursion keeps in a key argument (as an index among the keys):
        /// answers from later keys must agree with the first key there.
        kept: Vec<(usize, usize)>,
        /// Per step: whether it also finds base answers, its head extended
        /// by them after the keys (see [`merge_twins`]).
        answering: Vec<bool>,
        /// Whether the one step is a walk (see [`super::walk`]): one key
        /// at a time, none repeating.
        walk: bool,
        /// Whether it is a closure only for being a walk: its guard's
        /// absence lets it pass its answers through, and it is asked
        /// again for keys its callers share (see [`keys_closure`]).
        despite_guard: bool,
    },
}

impl Closure {
    /// Whether the closure's one step is a walk (see [`super::walk`]).
    pub fn is_walk(&self) -> bool {
        match self {
            Closure::Answers { walk, .. } | Closure::Keys { walk, .. } => *walk,
        }
    }

    /// Whether it is a closure only for being a walk (see
    /// [`Closure::Keys`]'s `despite_guard`).
    pub fn despite_guard(&self) -> bool {
        matches!(
            self,
            Closure::Keys {
                despite_guard: true,
                ..
            }
        )
    }
}

/// The closure of `rel` called with `adorn`, if `rel` is alone on its cycle
/// (which the caller checks), the call has answers, and every recursive rule
/// has one recursive literal that either passes the head's key arguments
/// through ([`Closure::Answers`]) or its answers ([`Closure::Keys`]).
/// `guard` is the relation of `rel`'s guard, if it has one (see
/// [`super::guards`]); `once` says the call is asked once per key of its
/// callers (see [`super::call_graph::CallGraph::asked_once`]); `statics`
/// holds the static relations' tuples, which say whether the recursion is
/// a walk.
pub fn closure(
    rules: &[CRule],
    (rel, arity, adorn): (u32, usize, Adorn),
    (guard, once): (Option<u32>, bool),
    statics: &StaticTuples,
) -> Option<Closure> {
    let keys: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 1).collect();
    let free: Vec<usize> = (0..arity).filter(|i| adorn >> i & 1 == 0).collect();
    if adorn & EXISTS != 0 || free.is_empty() || arity + free.len().max(keys.len()) >= 31 {
        return None;
    }
    let mut base = Vec::new();
    let mut recursive = Vec::new();
    for (i, rule) in rules.iter().enumerate().filter(|(_, r)| r.head_rel == rel) {
        let on_rel: Vec<usize> = (0..rule.body.len())
            .filter(|&j| matches!(&rule.body[j], Lit::Pos(p, _) | Lit::Neg(p, _) if *p == rel))
            .collect();
        match on_rel[..] {
            [] => base.push(i),
            [j] if matches!(rule.body[j], Lit::Pos(..)) => recursive.push((rule, j)),
            _ => return None,
        }
    }
    if recursive.is_empty() {
        return None;
    }
    // The recursive rules as written, guard and all (see `blocked`).
    let guarded: Vec<(&CRule, usize)> = recursive.clone();
    let recursive: Vec<(CRule, usize)> = (recursive.into_iter())
        .map(|(rule, j)| without_guard(rule, j, guard))
        .collect();
    let answers: Option<Vec<CRule>> = recursive
        .iter()
        .map(|(rule, j)| answers_step(rule, *j, &keys, &free))
        .collect();
    if let Some(steps) = answers {
        let extra = ((1u32 << free.len()) - 1) << arity;
        let walk = match &steps[..] {
            [step] => {
                // The item is the answer: from the appended arguments.
                let old = &step.head[arity..];
                let new: Vec<Pat> = free.iter().map(|&f| step.head[f].clone()).collect();
                let known: Vec<Pat> = (keys.iter().map(|&k| step.head[k].clone()))
                    .chain(old.iter().cloned())
                    .collect();
                is_walk(step, &known, (old, &new), statics)
            }
            _ => false,
        };
        return Some(Closure::Answers {
            base,
            steps,
            step_adorn: adorn | extra,
            walk,
        });
    }
    keys_closure(
        (rules, statics),
        base,
        &recursive,
        &guarded,
        (guard, once),
        (arity, &keys, &free),
    )
}

/// [`Closure::Keys`] from `recursive`, the recursive rules without their
/// guard's test (the literal at each's index), if every one passes the
/// answers through; `guarded` are the same rules as written.
fn keys_closure(
    (rules, statics): (&[CRule], &StaticTuples),
    base: Vec<usize>,
    recursive: &[(CRule, usize)],
    guarded: &[(&CRule, usize)],
    (guard, once): (Option<u32>, bool),
    (arity, keys, free): (usize, &[usize], &[usize]),
) -> Option<Closure> {
    let mut kept = None;
    let mut steps = Vec::new();
    for (rule, j) in recursive {
        let (step, rule_kept) = keys_step(rule, *j, keys, free)?;
        if kept.get_or_insert_with(|| rule_kept.clone()) != &rule_kept {
            return None;
        }
        steps.push(step);
    }
    let (base, answering) = merge_twins(rules, base, &mut steps, guard, (arity, keys, free));
    let walk = match &steps[..] {
        [step] => {
            let key: Vec<Pat> = keys.iter().map(|&k| step.head[k].clone()).collect();
            let next = &step.head[arity..arity + keys.len()];
            is_walk(step, &key, (&key, next), statics)
        }
        _ => false,
    };
    // A recursion that passes its answers through only once its guard is
    // left out (amazons' `openPath`, whose guard reads the answers) was a
    // memoized recursion, which shares a key's answers between the calls
    // that reach it. The worklist walks each call's keys again, and pays
    // only where every base rule folds into a step (a ray: amazons_8x8 33%
    // fewer instructions a playout); othello's `onalinep ?i ?j .. ?dir`,
    // whose base rule answers any neighbour, asked from every square, took
    // 18% more. A call asked once per key of its callers shares nothing
    // that way (its keys' answers are asked through the first key only):
    // chess.kif's `clear_column(u, v, ?y)`, a rook's ray from its square,
    // took 2.2% fewer instructions a playout as a worklist (whose every
    // key's base answer is the next square, blank or not).
    // A walk shares nothing either: it costs each call no more than the
    // first call of the memoized recursion costs.
    let blocked = (guarded.iter()).any(|&(rule, j)| keys_step(rule, j, keys, free).is_none());
    let despite_guard = blocked && !base.is_empty() && !once;
    if despite_guard && !walk {
        return None;
    }
    Some(Closure::Keys {
        base,
        steps,
        kept: kept.unwrap_or_default(),
        answering,
        walk,
        despite_guard,
    })
}

/// Folds into the key steps the base rules that are their twins: the same
/// body, literal for literal up to the names of variables, on the same
/// keys. A ray's step and its base answer are such twins (amazons'
/// `openPath`: the next square in the direction, when empty, is both an
/// answer and the next key), and the worklist found the square and tested
/// it twice. A twin's step gets the base rule's answers appended to its
/// head, after the keys it computes; the base rules left and, per step,
/// whether it answers, are returned.
fn merge_twins(
    rules: &[CRule],
    base: Vec<usize>,
    steps: &mut [CRule],
    guard: Option<u32>,
    (arity, keys, free): (usize, &[usize], &[usize]),
) -> (Vec<usize>, Vec<bool>) {
    let mut answering = vec![false; steps.len()];
    if arity + keys.len() + free.len() >= 31 {
        return (base, answering);
    }
    let mut left = Vec::new();
    for i in base {
        let b = unguarded(&rules[i], guard);
        let twin = (0..steps.len())
            .filter(|&si| !answering[si])
            .find_map(|si| Some((si, renamed_answers(&b, &steps[si], keys, free)?)));
        match twin {
            Some((si, answers)) => {
                let step = &mut steps[si];
                step.head = step.head.iter().cloned().chain(answers).collect();
                answering[si] = true;
            }
            None => left.push(i),
        }
    }
    (left, answering)
}

/// `b`'s answers (its `free` head arguments) in `s`'s variables, if `b`'s
/// body is `s`'s up to a renaming of variables that maps `b`'s `keys` head
/// arguments onto `s`'s.
fn renamed_answers(b: &CRule, s: &CRule, keys: &[usize], free: &[usize]) -> Option<Vec<Pat>> {
    if b.body.len() != s.body.len() {
        return None;
    }
    let mut r = Renaming {
        to: vec![None; b.num_vars],
        from: vec![None; s.num_vars],
    };
    let bodies = b.body.iter().zip(&s.body).all(|pair| match pair {
        (Lit::Pos(p, xs), Lit::Pos(q, ys)) | (Lit::Neg(p, xs), Lit::Neg(q, ys)) => {
            p == q && r.all(xs, ys)
        }
        (Lit::Distinct(x0, x1), Lit::Distinct(y0, y1)) => r.pat(x0, y0) && r.pat(x1, y1),
        _ => false,
    });
    let same_keys = keys.iter().all(|&k| r.pat(&b.head[k], &s.head[k]));
    if !bodies || !same_keys {
        return None;
    }
    let to = |v: u32| r.to[v as usize];
    free.iter().map(|&f| b.head[f].renamed(&to)).collect()
}

/// A one-to-one renaming of one rule's variables to another's, built up.
struct Renaming {
    to: Vec<Option<u32>>,
    from: Vec<Option<u32>>,
}

impl Renaming {
    /// Whether `x` renamed is `y`, extending the renaming where it may.
    fn pat(&mut self, x: &Pat, y: &Pat) -> bool {
        match (x, y) {
            (Pat::Var(a), Pat::Var(b)) => {
                let (a, b) = (*a as usize, *b as usize);
                match (self.to[a], self.from[b]) {
                    (None, None) => {
                        self.to[a] = Some(b as u32);
                        self.from[b] = Some(a as u32);
                        true
                    }
                    (Some(t), Some(f)) => t as usize == b && f as usize == a,
                    _ => false,
                }
            }
            (Pat::Ground(a), Pat::Ground(b)) => a == b,
            (Pat::Func(f, xs), Pat::Func(g, ys)) => f == g && self.all(xs, ys),
            _ => false,
        }
    }

    /// [`Renaming::pat`] of each pair of `xs` and `ys`.
    fn all(&mut self, xs: &[Pat], ys: &[Pat]) -> bool {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.pat(x, y))
    }
}

/// `rule` without its test of `guard`, and where its literal `j` is then
/// (see [`unguarded`]).
fn without_guard(rule: &CRule, j: usize, guard: Option<u32>) -> (CRule, usize) {
    let before = (rule.body[..j].iter())
        .filter(|l| is_guard(l, guard))
        .count();
    (unguarded(rule, guard), j - before)
}

/// `rule` without its test of `guard`, the relation of its head's guard.
///
/// A guard is an over-approximation of its relation's tuples (see
/// [`super::guards`]), so a rule's test of it is implied by the rule's own
/// body: it spares a search that cannot succeed its recursive calls, and a
/// closure has none. Kept, it made a recursion that passes its answers
/// through no closure at all (amazons' `openPath ?x1 ?y1 ?x3 ?y3 ?dir`,
/// whose guard reads `?x3 ?y3`, which the step finding the next keys does
/// not know), and cost a closure's rules a test per row.
pub fn unguarded(rule: &CRule, guard: Option<u32>) -> CRule {
    let mut rule = rule.clone();
    rule.body.retain(|l| !is_guard(l, guard));
    rule
}

/// Whether `lit` tests `guard`.
fn is_guard(lit: &Lit, guard: Option<u32>) -> bool {
    matches!(lit, Lit::Pos(g, _) if Some(*g) == guard)
}

/// The recursive literal `j` of `rule`, if positive.
fn recursive_args(rule: &CRule, j: usize) -> &[Pat] {
    match &rule.body[j] {
        Lit::Pos(_, args) | Lit::Neg(_, args) => args,
        Lit::Distinct(..) => &[],
    }
}

/// `rule` with its recursive literal `j` taken out, the literal's `free`
/// arguments appended to the head; `None` unless the literal passes the
/// head's `keys` arguments through.
fn answers_step(rule: &CRule, j: usize, keys: &[usize], free: &[usize]) -> Option<CRule> {
    let args = recursive_args(rule, j);
    if keys.iter().any(|&k| args[k] != rule.head[k]) {
        return None;
    }
    Some(appended(rule, j, free.iter().map(|&f| args[f].clone())))
}

/// `rule` with its recursive literal `j` taken out, the literal's `keys`
/// arguments appended to the head, and the free arguments whose variable it
/// keeps in a key argument; `None` unless the literal passes the head's
/// `free` arguments through: each a variable, either found nowhere else in
/// the rule (once among them) or kept in a key argument, and every variable
/// of its key arguments bound by the rest of the rule.
fn keys_step(
    rule: &CRule,
    j: usize,
    keys: &[usize],
    free: &[usize],
) -> Option<(CRule, Vec<(usize, usize)>)> {
    let args = recursive_args(rule, j);
    let mut elsewhere = vec![0u32; rule.num_vars];
    let mut bound = vec![false; rule.num_vars];
    for &k in keys {
        rule.head[k].for_each_var(&mut |v| bound[v as usize] = true);
    }
    for (_, lit) in rule.body.iter().enumerate().filter(|&(i, _)| i != j) {
        lit.for_each_var(&mut |v| elsewhere[v as usize] += 1);
        if let Lit::Pos(..) = lit {
            lit.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    for &k in keys {
        rule.head[k].for_each_var(&mut |v| elsewhere[v as usize] += 1);
    }
    let mut kept = Vec::new();
    let mut pure = Vec::new();
    for (fi, &f) in free.iter().enumerate() {
        let Pat::Var(v) = args[f] else { return None };
        if rule.head[f] != args[f] {
            return None;
        }
        if let Some(ki) = keys
            .iter()
            .position(|&k| rule.head[k] == Pat::Var(v) && args[k] == Pat::Var(v))
        {
            kept.push((fi, ki));
        } else if elsewhere[v as usize] == 0 && !pure.contains(&v) {
            pure.push(v);
        } else {
            return None;
        }
    }
    let mut computable = true;
    for &k in keys {
        args[k].for_each_var(&mut |v| computable &= bound[v as usize]);
    }
    computable.then(|| {
        (
            appended(rule, j, keys.iter().map(|&k| args[k].clone())),
            kept,
        )
    })
}

/// `rule` without body literal `j`, with `extra` appended to its head.
fn appended(rule: &CRule, j: usize, extra: impl Iterator<Item = Pat>) -> CRule {
    let head: Vec<Pat> = rule.head.iter().cloned().chain(extra).collect();
    let mut body = rule.body.clone();
    body.remove(j);
    CRule {
        head_rel: rule.head_rel,
        head: head.into_boxed_slice(),
        body,
        num_vars: rule.num_vars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u32) -> Pat {
        Pat::Var(v)
    }

    /// `reach(?a, b) :- edge(?a, b)` and `reach(?a, b) :- edge(?a, ?c),
    /// reach(?c, b)`: asked with `b` known, the recursion keeps `b`.
    fn reach(recursive_key: Pat) -> Vec<CRule> {
        vec![
            CRule {
                head_rel: 0,
                head: vec![var(0), var(1)].into(),
                body: vec![Lit::Pos(1, [var(0), var(1)].into())],
                num_vars: 2,
            },
            CRule {
                head_rel: 0,
                head: vec![var(0), var(1)].into(),
                body: vec![
                    Lit::Pos(1, [var(0), var(2)].into()),
                    Lit::Pos(0, [var(2), recursive_key].into()),
                ],
                num_vars: 3,
            },
        ]
    }

    #[test]
    fn a_recursion_that_keeps_the_key_is_a_closure_from_the_answers() {
        let Some(Closure::Answers {
            base,
            steps,
            step_adorn,
            ..
        }) = closure(&reach(var(1)), (0, 2, 0b10), (None, false), &[])
        else {
            panic!("a closure from the answers");
        };
        assert_eq!(base, vec![0]);
        assert!(matches!(&steps[0].body[..], [Lit::Pos(1, args)] if args[..] == [var(0), var(2)]));
        assert_eq!(&steps[0].head[..], &[var(0), var(1), var(2)]);
        assert_eq!(step_adorn, 0b110);
    }

    #[test]
    fn a_recursion_that_passes_the_answers_through_is_a_closure_from_the_keys() {
        // Asked with `?a` known, `reach(?c, b)` passes `b` through; the
        // base rule `edge(?a, ?b)` is the step `edge(?a, ?c)` renamed, so
        // the step finds its answers too, appended after the next key.
        let Some(Closure::Keys {
            base,
            steps,
            kept,
            answering,
            ..
        }) = closure(&reach(var(1)), (0, 2, 0b01), (None, false), &[])
        else {
            panic!("a closure from the keys");
        };
        assert!(base.is_empty());
        assert_eq!(answering, vec![true]);
        assert_eq!(&steps[0].head[..], &[var(0), var(1), var(2), var(2)]);
        assert!(kept.is_empty());
    }

    /// amazons' `openPath(?x, ?y, dir)` as `reach(a, ?b)` guarded by
    /// relation 9: `reach(?a, ?b) :- g(?a, ?b), edge(?a, ?b), not
    /// blocked(?b)` and `reach(?a, ?c) :- g(?a, ?c), edge(?a, ?b), not
    /// blocked(?b), reach(?b, ?c)`.
    fn ray() -> Vec<CRule> {
        let guard = |a, b| Lit::Pos(9, [var(a), var(b)].into());
        let step = |a, b| Lit::Pos(1, [var(a), var(b)].into());
        let open = |b| Lit::Neg(2, [var(b)].into());
        vec![
            CRule {
                head_rel: 0,
                head: vec![var(0), var(1)].into(),
                body: vec![guard(0, 1), step(0, 1), open(1)],
                num_vars: 2,
            },
            CRule {
                head_rel: 0,
                head: vec![var(0), var(2)].into(),
                body: vec![
                    guard(0, 2),
                    step(0, 1),
                    open(1),
                    Lit::Pos(0, [var(1), var(2)].into()),
                ],
                num_vars: 3,
            },
        ]
    }

    #[test]
    fn a_guarded_ray_is_one_step_that_finds_both_the_answer_and_the_next_key() {
        // With its guard kept, the step would read the answer `?c`.
        assert!(closure(&ray(), (0, 2, 0b01), (Some(8), false), &[]).is_none());
        let Some(Closure::Keys {
            base,
            steps,
            answering,
            ..
        }) = closure(&ray(), (0, 2, 0b01), (Some(9), false), &[])
        else {
            panic!("a closure from the keys");
        };
        assert!(base.is_empty(), "the base rule is the step's twin");
        assert_eq!(answering, vec![true]);
        // Head: the key, the free answer, the next key `?b`, and the base
        // rule's answer in the step's variables, `?b` again.
        assert_eq!(&steps[0].head[..], &[var(0), var(2), var(1), var(1)]);
        assert!(!steps[0].body.iter().any(|l| matches!(l, Lit::Pos(9, _))));
    }

    #[test]
    fn a_base_rule_with_another_body_stays_a_base_rule() {
        let mut rules = ray();
        // The base rule also asks `edge(?b, ?a)`: no twin of the step.
        rules[0].body.push(Lit::Pos(1, [var(1), var(0)].into()));
        // Only the guard's absence made it a closure: not one, unless the
        // call is asked once per key of its callers.
        assert!(closure(&rules, (0, 2, 0b01), (Some(9), false), &[]).is_none());
        let Some(Closure::Keys { base, .. }) = closure(&rules, (0, 2, 0b01), (Some(9), true), &[])
        else {
            panic!("a closure from the keys, asked once");
        };
        assert_eq!(base, vec![0]);
        // Unguarded, it is one, the base rule apart.
        for r in &mut rules {
            r.body.retain(|l| !matches!(l, Lit::Pos(9, _)));
        }
        let Some(Closure::Keys {
            base, answering, ..
        }) = closure(&rules, (0, 2, 0b01), (None, false), &[])
        else {
            panic!("a closure from the keys");
        };
        assert_eq!((base, answering), (vec![0], vec![false]));
    }

    #[test]
    fn no_closure_when_the_recursion_changes_what_it_would_pass_or_nothing_is_free() {
        // `reach(?c, ?a)`: neither the key nor the answer passes through.
        assert!(closure(&reach(var(0)), (0, 2, 0b10), (None, false), &[]).is_none());
        assert!(closure(&reach(var(0)), (0, 2, 0b01), (None, false), &[]).is_none());
        assert!(closure(&reach(var(1)), (0, 2, 0b11), (None, false), &[]).is_none());
        assert!(closure(&reach(var(1)), (0, 2, 0b10 | EXISTS), (None, false), &[]).is_none());
    }
}
