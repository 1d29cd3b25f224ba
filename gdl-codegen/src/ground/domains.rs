//! Domains: which relations are static, and the reachable fluents (`base`)
//! and moves (`input`), by the one-step relaxed fixpoint of Vittaut & Méhat
//! ("Efficient grounding of game descriptions with tabling", §4.2).
//!
//! The relaxed program is the game with every negative literal on a dynamic
//! relation dropped, `true` read as `base` and `does` as `input`, plus
//! `base(X) <= init(X)`, `base(X) <= next(X)` and `input(R, M) <= legal(R, M)`.
//! It is monotone in `base`/`input`, so its least fixpoint over-approximates
//! every relation in every reachable state: the fluents, moves and dynamic
//! atoms found are a superset of those that can ever hold, and static
//! relations (which depend on neither `true` nor `does`) come out exact.
//!
//! The file's own `base`/`input` rules stay ordinary (static) relations:
//! they are only compared with the computed sets, being often looser.

use super::budget::{Budget, GroundError};
use super::db::Db;
use crate::analysis::dynamic::depends_on;
use crate::front::ir::{Keyword, Literal, PredId, Program};
use crate::rules::terms::TermStore;
use crate::rules::{CRule, Lit, Pat};

/// A body literal that stays in ground rules: one on a dynamic relation.
#[derive(Clone, Debug)]
pub struct EmitLit {
    /// Under `not`.
    pub negated: bool,
    /// The relation in the domain database (computed `base` for `true`,
    /// computed `input` for `does`).
    pub rel: usize,
    /// The arguments.
    pub args: Box<[Pat]>,
}

/// A rule prepared for the fixpoint and for instantiation.
#[derive(Clone, Debug)]
pub struct RuleInfo {
    /// Index in [`Program::rules`].
    pub source: usize,
    /// The relaxed rule: positive literals, negations of static relations,
    /// `distinct`.
    pub relaxed: CRule,
    /// Whether the head relation stays in the ground program.
    pub head_dynamic: bool,
    /// The literals on dynamic relations, in source order.
    pub emit: Vec<EmitLit>,
}

/// The outcome of the domain computation.
#[derive(Debug)]
pub struct Domains {
    /// Every relation's atoms in the relaxed fixpoint. Relations `0..n` are
    /// the program's (by [`PredId`]), then the computed `base` and `input`.
    pub db: Db,
    /// Whether each program relation is dynamic (depends on `true` or
    /// `does`, or is `legal`, `next`, `goal` or `terminal`, or depends on one).
    pub dynamic: Vec<bool>,
    /// Relation index of the computed `base`.
    pub base_rel: usize,
    /// Relation index of the computed `input`.
    pub input_rel: usize,
    /// The program's rules, prepared.
    pub rules: Vec<RuleInfo>,
    /// Per relation of `db`: whether the fixpoint derived it (under
    /// [`Scope::Inputs`] only what the inputs depend on is; a relation left
    /// out holds no tuples, which is not its extension).
    pub solved: Vec<bool>,
}

/// Display name of a relation: `name/arity`.
pub fn rel_name(program: &Program, p: PredId) -> String {
    let info = program.pred(p);
    let name = program.symbols.name(info.name);
    if info.parens {
        format!("({name})/0")
    } else {
        format!("{name}/{}", info.arity)
    }
}

/// Which relations are dynamic: they depend on the state or the joint move,
/// or on `legal`, `next`, `goal` or `terminal` (which the ground program
/// keeps as outputs even where they happen not to depend on the state).
pub fn dynamic_relations(program: &Program) -> Vec<bool> {
    depends_on(
        program,
        &[
            Keyword::True,
            Keyword::Does,
            Keyword::Legal,
            Keyword::Next,
            Keyword::Goal,
            Keyword::Terminal,
        ],
    )
}

/// Which relations a domain computation evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every relation: what instantiation needs.
    All,
    /// Static relations, `base`, `input` and what they depend on: what a
    /// lifted back end needs. Relations that reach `base` and `input` only
    /// through negation (which the relaxation drops) are skipped; in chess
    /// that is the 7-ary `threatened_with_capture`, whose relaxed extension
    /// alone is what keeps the game from grounding.
    Inputs,
}

/// Computes static relations exactly and over-approximations of `base`,
/// `input` and every dynamic relation.
pub fn compute(program: &Program, budget: &Budget) -> Result<Domains, GroundError> {
    compute_scoped(program, budget, Scope::All, &Relaxation::default(), &mut 0)
}

/// How far the relaxed fixpoint of [`compute_scoped`] departs from the
/// rules, for relations too costly to derive as written (see
/// `backend::lifted::facts`). Indexed by relation; missing entries are
/// false.
#[derive(Clone, Debug, Default)]
pub struct Relaxation {
    /// Left to run time: counted dynamic, not derived, and their literals
    /// left out of the relaxed rules (the caller has checked that no rule
    /// needs them to bind a variable, see `backend::lifted::defer`).
    pub deferred: Vec<bool>,
    /// Derived from their rules with the literals on static relations and
    /// on the state left out wherever no variable needs them: a larger
    /// over-approximation, and a cheaper one where such literals only
    /// filter a large join (racer4's `legal_speed`, which joins positions,
    /// velocities and the track).
    pub loose: Vec<bool>,
}

impl Relaxation {
    /// Whether relation `p` is left to run time.
    fn is_deferred(&self, p: usize) -> bool {
        self.deferred.get(p).copied().unwrap_or(false)
    }

    /// Whether relation `p` is derived loosely.
    fn is_loose(&self, p: usize) -> bool {
        self.loose.get(p).copied().unwrap_or(false)
    }
}

/// [`compute`], over the relations of `scope` only (the others stay empty).
/// `relax` says which relations are deferred or loose; `work` is set to the
/// join work the fixpoint did, whether it finished or not.
pub fn compute_scoped(
    program: &Program,
    budget: &Budget,
    scope: Scope,
    relax: &Relaxation,
    work: &mut u64,
) -> Result<Domains, GroundError> {
    let n = program.preds.len();
    let base_rel = n;
    let input_rel = n + 1;
    let mut names: Vec<String> = (0..n)
        .map(|i| rel_name(program, PredId(i as u32)))
        .collect();
    names.push("base (computed)".into());
    names.push("input (computed)".into());
    let is_deferred = |p: usize| relax.is_deferred(p);
    let mut dynamic = dynamic_relations(program);
    for (p, d) in dynamic.iter_mut().enumerate() {
        *d |= is_deferred(p);
    }
    let kw = |k| program.keyword_pred(k).map(|p| p.0 as usize);
    let (true_p, does_p) = (kw(Keyword::True), kw(Keyword::Does));
    let mut terms = TermStore::default();
    let mut rules = Vec::with_capacity(program.rules.len());
    for (source, rule) in program.rules.iter().enumerate() {
        let rel_of = |p: PredId| {
            let p = p.0 as usize;
            if Some(p) == true_p {
                base_rel
            } else if Some(p) == does_p {
                input_rel
            } else {
                p
            }
        };
        let mut body = Vec::with_capacity(rule.body.len());
        let mut emit = Vec::new();
        for lit in &rule.body {
            match lit {
                Literal::Pos(a) | Literal::Neg(a) => {
                    let negated = matches!(lit, Literal::Neg(_));
                    let args: Box<[Pat]> =
                        a.args.iter().map(|t| Pat::compile(&mut terms, t)).collect();
                    let rel = rel_of(a.pred);
                    let dyn_lit = dynamic[a.pred.0 as usize];
                    if dyn_lit {
                        emit.push(EmitLit {
                            negated,
                            rel,
                            args: args.clone(),
                        });
                    }
                    if is_deferred(a.pred.0 as usize) {
                        // Left to run time: no longer a filter here.
                    } else if !negated {
                        body.push(Lit::Pos(rel as u32, args));
                    } else if !dyn_lit {
                        body.push(Lit::Neg(rel as u32, args));
                    }
                }
                Literal::Distinct(a, b, _) => body.push(Lit::Distinct(
                    Pat::compile(&mut terms, a),
                    Pat::compile(&mut terms, b),
                )),
            }
        }
        rules.push(RuleInfo {
            source,
            relaxed: CRule {
                head_rel: rule.head.pred.0,
                head: rule
                    .head
                    .args
                    .iter()
                    .map(|t| Pat::compile(&mut terms, t))
                    .collect(),
                body,
                num_vars: rule.num_vars(),
            },
            head_dynamic: dynamic[rule.head.pred.0 as usize],
            emit,
        });
    }
    let mut relaxed: Vec<CRule> = rules.iter().map(|r| r.relaxed.clone()).collect();
    for r in &mut relaxed {
        if relax.is_loose(r.head_rel as usize) {
            let always =
                |rel: u32| rel as usize == base_rel || (rel < n as u32 && !dynamic[rel as usize]);
            loosen(r, always);
        }
    }
    // base(X) <= init(X); base(X) <= next(X); input(R, M) <= legal(R, M).
    let link = |from: Option<usize>, to: usize, arity: usize| {
        from.map(|f| {
            let args: Box<[Pat]> = (0..arity as u32).map(Pat::Var).collect();
            CRule {
                head_rel: to as u32,
                head: args.clone(),
                body: vec![Lit::Pos(f as u32, args)],
                num_vars: arity,
            }
        })
    };
    relaxed.extend(link(kw(Keyword::Init), base_rel, 1));
    relaxed.extend(link(kw(Keyword::Next), base_rel, 1));
    relaxed.extend(link(kw(Keyword::Legal), input_rel, 2));
    let mut solved: Vec<bool> = (0..names.len())
        .map(|r| r >= n || !is_deferred(r))
        .collect();
    if scope == Scope::Inputs {
        let mut need: Vec<bool> = (0..names.len())
            .map(|r| r >= n || !dynamic[r] || r == base_rel || r == input_rel)
            .collect();
        need[base_rel] = true;
        need[input_rel] = true;
        relevant(&relaxed, &mut need);
        relaxed.retain(|r| need[r.head_rel as usize] && !is_deferred(r.head_rel as usize));
        for (s, need) in solved.iter_mut().zip(need) {
            *s &= need;
        }
    }
    let mut db = Db::new(terms, names);
    db.max_work = budget.max_work;
    // Static relations only: a dynamic one's failed attempt sets the work
    // of its loosened retry (`backend::lifted::facts`), which failing at
    // once would change.
    db.fail_fast = (0..db.rels.len()).map(|r| r < n && !dynamic[r]).collect();
    let solved_or = db.solve(&relaxed, budget);
    *work = db.work;
    solved_or?;
    Ok(Domains {
        db,
        dynamic,
        base_rel,
        input_rel,
        rules,
        solved,
    })
}

/// Leaves out of `rule` the positive literals on relations that are
/// derived whatever the rule says (`always`: static relations and the
/// computed `base`) and bind no variable that the head, a negation or a
/// `distinct` needs and the kept literals do not bind.
fn loosen(rule: &mut CRule, always: impl Fn(u32) -> bool) {
    let mut needed = vec![false; rule.num_vars];
    let mut bound = vec![false; rule.num_vars];
    for p in rule.head.iter() {
        p.for_each_var(&mut |v| needed[v as usize] = true);
    }
    for lit in &rule.body {
        match lit {
            Lit::Pos(rel, _) if !always(*rel) => {
                lit.for_each_var(&mut |v| bound[v as usize] = true)
            }
            Lit::Pos(..) => {}
            _ => lit.for_each_var(&mut |v| needed[v as usize] = true),
        }
    }
    rule.body.retain(|lit| match lit {
        Lit::Pos(rel, _) if always(*rel) => {
            let mut useful = false;
            lit.for_each_var(&mut |v| useful |= needed[v as usize] && !bound[v as usize]);
            if useful {
                lit.for_each_var(&mut |v| bound[v as usize] = true);
            }
            useful
        }
        _ => true,
    });
}

/// Closes `need` under the body relations of the rules whose head is needed.
fn relevant(rules: &[CRule], need: &mut [bool]) {
    loop {
        let mut changed = false;
        for r in rules {
            if !need[r.head_rel as usize] {
                continue;
            }
            for lit in &r.body {
                if let Lit::Pos(rel, _) | Lit::Neg(rel, _) = lit {
                    changed |= !std::mem::replace(&mut need[*rel as usize], true);
                }
            }
        }
        if !changed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> Program {
        let fe = crate::front::run_bytes(
            "test.kif",
            text.as_bytes(),
            &crate::front::Options::default(),
        );
        assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
        fe.program
    }

    /// A static relation that is a cross product over the budget fails
    /// before any join (laikLee_hex's `isList`); a dynamic one of the same
    /// shape is derived until the budget stops it, as before.
    #[test]
    fn a_static_cross_product_over_the_budget_fails_at_once() {
        let game = |body: &str| {
            format!(
                "(role r) (init (c 1)) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9) (d 10)
                 (<= (big ?a ?b ?c ?e) {body})
                 (<= (legal r (go ?x)) (true (c ?x)))
                 (<= (next (c ?x)) (does r (go ?x)))
                 (<= terminal (true (c 2)))
                 (<= (goal r 100) (big 1 1 1 1))"
            )
        };
        let budget = Budget::new(1000, Budget::DEFAULT_MAX_MEMORY);
        let run = |text: &str| {
            let mut work = 0;
            let p = program(text);
            let e = compute_scoped(&p, &budget, Scope::All, &Relaxation::default(), &mut work)
                .map(|_| ())
                .expect_err("over the budget");
            (e.to_string(), work)
        };
        let (e, work) = run(&game("(d ?a) (d ?b) (d ?c) (d ?e)"));
        assert!(e.contains("big"), "{e}");
        // The facts' few steps, not the 10^4 of `big`.
        assert!(work < 100, "no join of `big` ran: {work} steps");
        let (e, work) = run(&game("(d ?a) (d ?b) (d ?c) (d ?e) (true (c ?a))"));
        assert!(e.contains("big"), "{e}");
        assert!(
            work >= 1000,
            "the dynamic relation was derived: {work} steps"
        );
    }

    fn pos(rel: u32, vars: &[u32]) -> Lit {
        Lit::Pos(rel, vars.iter().map(|&v| Pat::Var(v)).collect())
    }

    /// racer4's `legal_speed(P, NX, NY)`: velocities give the new ones
    /// (relations 0 and 1 are the state, 2 is `pmone`, both derived anyway),
    /// positions, sums and the track (3, 4, 5) only filter them.
    #[test]
    fn loosening_keeps_the_literals_that_bind_what_the_head_needs() {
        let (p, dx, nx, px, x) = (0, 1, 2, 3, 4);
        let mut rule = CRule {
            head_rel: 9,
            head: vec![Pat::Var(p), Pat::Var(nx)].into(),
            body: vec![
                pos(0, &[p, dx]),
                pos(2, &[dx, nx]),
                pos(1, &[p, px]),
                pos(4, &[px, nx, x]),
                pos(5, &[x]),
                Lit::Distinct(Pat::Var(nx), Pat::Var(dx)),
            ],
            num_vars: 5,
        };
        loosen(&mut rule, |rel| rel < 9);
        let kept: Vec<u32> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                Lit::Pos(rel, _) => Some(*rel),
                _ => None,
            })
            .collect();
        assert_eq!(kept, vec![0, 2]);
        assert_eq!(rule.body.len(), 3, "the distinct stays");
    }

    /// A literal on a relation that is not always derived stays, and its
    /// variables count as bound.
    #[test]
    fn loosening_keeps_literals_on_other_relations() {
        let mut rule = CRule {
            head_rel: 9,
            head: vec![Pat::Var(0)].into(),
            body: vec![pos(1, &[0]), pos(7, &[0])],
            num_vars: 1,
        };
        loosen(&mut rule, |rel| rel < 5);
        assert_eq!(rule.body.len(), 1);
        assert!(matches!(rule.body[0], Lit::Pos(7, _)));
    }
}
