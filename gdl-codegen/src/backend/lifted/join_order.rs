//! Join plans of the lifted back end: for each relation a query needs and
//! each pattern of bound arguments it is called with (an adornment), the
//! order in which each rule's body is evaluated.
//!
//! The order is fixed at compile time, by cost: each literal has a price
//! per run and an expected number of solutions (below one for a test), and
//! the order of least total work (every literal's price times the runs it
//! gets) is found by dynamic programming over the subsets of the body, as a
//! query optimiser orders joins. This matters for calls: a derived test is a
//! function call, worth running after the cheap tests that may skip it, not
//! first because its arguments happen to be bound. Bodies too long for that
//! search are ordered greedily ([`crate::rules::order`]).

use super::cost;
use super::cost::MAX_SEARCHED;
use crate::rules::order::{all_bound, known_leaves, next_literal};
use crate::rules::{CRule, Lit, Pat};

/// Which arguments of a call are bound: bit `i` for argument `i`; with
/// [`EXISTS`], the call only asks whether a solution exists.
pub type Adorn = u32;

/// The flag of an adornment whose free arguments are existential: read by
/// nothing after the call, so one solution answers it, as a test.
pub const EXISTS: Adorn = 1 << 31;

/// Where a literal's tuples come from at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A static relation: a constant table.
    Static,
    /// `true`: the state's bits.
    True,
    /// `does`: the joint move.
    Does,
    /// A derived relation outside any cycle: a memoized function.
    Derived,
    /// A derived relation on a cycle: the table its component computes.
    Table,
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Argument `index` of the call, matched against the head's pattern.
    Param {
        /// Which argument.
        index: usize,
        /// The head's pattern there.
        pat: Pat,
    },
    /// A literal (its arguments fully bound ones tested, the rest bound by
    /// matching), `bound` being the arguments bound before it runs.
    Lit {
        /// Where its tuples come from.
        source: Source,
        /// Its relation.
        rel: u32,
        /// Its arguments.
        args: Box<[Pat]>,
        /// Under `not`.
        negated: bool,
        /// The arguments ground when it runs.
        bound: Adorn,
    },
    /// The two (bound) terms differ.
    Distinct(Pat, Pat),
}

impl Step {
    /// The step with each of its patterns replaced by what `f` gives for
    /// it (variables renamed, say); `None` if `f` gives none for one.
    pub fn map_pats(&self, f: impl Fn(&Pat) -> Option<Pat>) -> Option<Step> {
        Some(match self {
            Step::Param { index, pat } => Step::Param {
                index: *index,
                pat: f(pat)?,
            },
            Step::Distinct(a, b) => Step::Distinct(f(a)?, f(b)?),
            Step::Lit {
                source,
                rel,
                args,
                negated,
                bound,
            } => Step::Lit {
                source: *source,
                rel: *rel,
                args: args.iter().map(f).collect::<Option<_>>()?,
                negated: *negated,
                bound: *bound,
            },
        })
    }
}

/// What the planner needs to know of relations.
pub trait Catalog {
    /// Where `rel`'s tuples come from.
    fn source(&self, rel: u32) -> Source;
    /// An estimate of the number of tuples of `rel` matching a literal of
    /// which `leaves` constants or bound variables are known.
    fn estimate(&self, rel: u32, args: &[Pat], leaves: i32) -> f64;
    /// The work of one call of derived relation `rel` with `adorn` bound,
    /// in the units of a table lookup.
    fn call_cost(&self, _rel: u32, _adorn: Adorn) -> f64 {
        cost::DERIVED_CALL_WORK
    }
    /// Whether a call of `rel` may ask only whether a solution exists: not
    /// a relation the queries list anyway (`legal`: its list, memoized,
    /// answers sooner).
    fn may_ask_exists(&self, _rel: u32) -> bool {
        true
    }
    /// Whether literals on `rel` only test bound arguments, never bind
    /// (a guard: enumerating its tuples would replace one memoized call by
    /// a call per tuple).
    fn filter_only(&self, _rel: u32) -> bool {
        false
    }
    /// The work of one scan of the state for the literal `true(args..)`
    /// with the variables in `bound` known: by default every fluent of the
    /// functor that holds.
    fn scan_price(&self, rel: u32, args: &[Pat], _bound: &[bool]) -> f64 {
        1.0 + self.estimate(rel, args, 0)
    }
    /// For a derived relation (or one read from its component's table),
    /// the tuples a call returns with the variables in `bound` known, if the
    /// catalog knows better than [`Catalog::estimate`]: few, off any cycle,
    /// or many, where the relation builds terms at run time.
    fn derived_rows(&self, _rel: u32, _args: &[Pat], _bound: &[bool]) -> Option<f64> {
        None
    }
    /// For a static relation, a better estimate of the tuples matching
    /// `args` with the variables in `bound` known, if the catalog has one.
    fn static_rows(&self, _rel: u32, _args: &[Pat], _bound: &[bool]) -> Option<f64> {
        None
    }
    /// For a scan or test of the state, the fluents matching `args` with
    /// the variables in `bound` known, if the catalog knows better than
    /// [`Catalog::estimate`].
    fn state_rows(&self, _args: &[Pat], _bound: &[bool], _values: &Values) -> Option<f64> {
        None
    }
    /// Per variable of `body` (`num_vars` of them), the values its static
    /// literals allow, where they restrict it.
    fn var_values(&self, _body: &[Lit], num_vars: usize) -> Vec<Option<Vec<u32>>> {
        vec![None; num_vars]
    }
    /// Whether every answer of `call` (a literal on a derived relation)
    /// satisfies `lit` (see [`super::implied`]).
    fn implies(&self, _call: &Lit, _lit: &Lit) -> bool {
        false
    }
    /// Whether a call of derived relation `rel` with `adorn` bound reads the
    /// list of all its answers, filtered on the bound arguments, instead of
    /// asking for the answers with those values: the list is short, and
    /// computed in each state anyway.
    fn reads_whole(&self, _rel: u32, _adorn: Adorn) -> bool {
        false
    }
}

/// Per variable, the values it may take, where known (sorted).
pub type Values = [Option<Vec<u32>>];

/// What the planner derives once per body: which calls imply which
/// literals (see [`implied_by`]) and the values of variables.
struct BodyFacts {
    implied: Vec<usize>,
    values: Vec<Option<Vec<u32>>>,
    /// Per variable, whether it occurs once in the rule, head and body:
    /// a call whose free variables all do so is asked whether it has a
    /// solution (see [`existential`]), and gives at most one row.
    once: Vec<bool>,
}

impl BodyFacts {
    fn of(rule: &CRule, catalog: &impl Catalog) -> BodyFacts {
        let mut count = vec![0u32; rule.num_vars];
        let mut add = |v: u32| count[v as usize] += 1;
        rule.head.iter().for_each(|p| p.for_each_var(&mut add));
        rule.body.iter().for_each(|l| l.for_each_var(&mut add));
        BodyFacts {
            implied: implied_by(&rule.body, catalog),
            values: catalog.var_values(&rule.body, rule.num_vars),
            once: count.iter().map(|&c| c == 1).collect(),
        }
    }

    /// Whether literal `lit` is a call each free argument of which is a
    /// variable met nowhere else, of a relation that may be asked whether
    /// it has a solution: a call that gives at most one row.
    fn asks_exists(&self, lit: &Lit, bound: &[bool], catalog: &impl Catalog) -> bool {
        let Lit::Pos(rel, args) = lit else {
            return false;
        };
        catalog.source(*rel) == Source::Derived
            && catalog.may_ask_exists(*rel)
            && lone_free_args(args, bound, |v| self.once[v as usize])
    }
}

/// Whether `args`, with `bound` variables known, has free arguments and
/// each is a variable `lone` says nothing else reads: a call with them is
/// asked only whether it has a solution. [`existential`] asks it of the
/// chosen order, [`BodyFacts::asks_exists`] of the whole rule while the
/// order is being chosen.
fn lone_free_args(args: &[Pat], bound: &[bool], lone: impl Fn(u32) -> bool) -> bool {
    let free = |a: &&Pat| !a.bound_by(bound);
    args.iter().any(|a| free(&a))
        && (args.iter().filter(free)).all(|a| matches!(a, Pat::Var(v) if lone(*v)))
}

/// The plan of `rule` called with the head arguments in `adorn` bound.
pub fn plan_rule(rule: &CRule, adorn: Adorn, catalog: &impl Catalog) -> Vec<Step> {
    let mut bound = vec![false; rule.num_vars];
    let mut steps = Vec::with_capacity(rule.body.len() + rule.head.len());
    for (index, pat) in rule.head.iter().enumerate() {
        if adorn >> index & 1 == 1 {
            steps.push(Step::Param {
                index,
                pat: pat.clone(),
            });
            pat.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    let facts = BodyFacts::of(rule, catalog);
    let mut order = body_order(&rule.body, &bound, &facts, catalog);
    order_tests(&mut order, &rule.body, &bound, &facts, catalog);
    drop_late_filters(&mut order, &rule.body, catalog);
    for (k, &i) in order.iter().enumerate() {
        let mut s = step(&rule.body[i], &bound, catalog);
        if existential(rule, &order[k + 1..], i, &bound, adorn & EXISTS != 0) {
            if let Step::Lit {
                source: Source::Derived,
                rel,
                bound: adorn,
                ..
            } = &mut s
            {
                if catalog.may_ask_exists(*rel) {
                    *adorn |= EXISTS;
                }
            }
        }
        read_whole(&mut s, catalog);
        steps.push(s);
        rule.body[i].for_each_var(&mut |v| bound[v as usize] = true);
    }
    steps
}

/// The estimated work of `rule` called with `adorn` bound, in table
/// lookups: its literals in the order [`plan_rule`] searches, each run
/// once per solution of those before it.
pub fn plan_work(rule: &CRule, adorn: Adorn, catalog: &impl Catalog) -> f64 {
    let mut bound = vec![false; rule.num_vars];
    for (index, pat) in rule.head.iter().enumerate() {
        if adorn >> index & 1 == 1 {
            pat.for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    let facts = BodyFacts::of(rule, catalog);
    let (mut work, mut rows, mut set) = (0.0, 1.0, 0);
    for i in body_order(&rule.body, &bound, &facts, catalog) {
        let (price, yield_) = price_after(&rule.body, i, (set, &facts), &bound, catalog);
        work += rows * price;
        rows *= yield_;
        set |= 1 << i;
        rule.body[i].for_each_var(&mut |v| bound[v as usize] = true);
    }
    work
}

/// Per step of `steps` (a plan of `rule`), the price of one run in table
/// lookups and the solutions a run gives, as the planner estimated them;
/// `None` for a parameter.
pub fn step_costs(rule: &CRule, steps: &[Step], catalog: &impl Catalog) -> Vec<Option<(f64, f64)>> {
    let values = catalog.var_values(&rule.body, rule.num_vars);
    let mut bound = vec![false; rule.num_vars];
    (steps.iter())
        .map(|s| {
            let lit = match s {
                Step::Param { pat, .. } => {
                    pat.for_each_var(&mut |v| bound[v as usize] = true);
                    return None;
                }
                Step::Distinct(a, b) => Lit::Distinct(a.clone(), b.clone()),
                Step::Lit {
                    rel, args, negated, ..
                } if *negated => Lit::Neg(*rel, args.clone()),
                Step::Lit { rel, args, .. } => Lit::Pos(*rel, args.clone()),
            };
            let cost = price(&lit, &bound, &values, catalog);
            lit.for_each_var(&mut |v| bound[v as usize] = true);
            Some(cost)
        })
        .collect()
}

/// Whether positive literal `i` of `rule` has free variables, each a whole
/// argument (a pattern such as `(capture ?x ?y)` constrains the answer),
/// once in it and in neither the head nor the `later` literals: then only
/// whether it has a solution matters. In a rule of an existence test
/// (`exists`) the head's free arguments are not asked for either: the test
/// of a path's end asks only whether the rest of the path exists.
fn existential(rule: &CRule, later: &[usize], i: usize, bound: &[bool], exists: bool) -> bool {
    let Lit::Pos(_, args) = &rule.body[i] else {
        return false;
    };
    let mut count = vec![0u32; rule.num_vars];
    args.iter()
        .for_each(|a| a.for_each_var(&mut |v| count[v as usize] += 1));
    let mut used = vec![false; rule.num_vars];
    if !exists {
        rule.head
            .iter()
            .for_each(|p| p.for_each_var(&mut |v| used[v as usize] = true));
    }
    for &j in later {
        rule.body[j].for_each_var(&mut |v| used[v as usize] = true);
    }
    lone_free_args(args, bound, |v| count[v as usize] == 1 && !used[v as usize])
}

/// The order of `body`'s literals with the variables in `bound` known.
fn body_order(
    body: &[Lit],
    bound: &[bool],
    facts: &BodyFacts,
    catalog: &impl Catalog,
) -> Vec<usize> {
    if body.len() > MAX_SEARCHED {
        let mut bound = bound.to_vec();
        let mut done = vec![false; body.len()];
        let mut order = Vec::with_capacity(body.len());
        let cost = |rel, args: &[Pat], known| {
            if catalog.filter_only(rel) {
                f64::INFINITY
            } else {
                catalog.estimate(rel, args, known)
            }
        };
        while let Some(i) = next_literal(body, &done, &bound, cost) {
            done[i] = true;
            body[i].for_each_var(&mut |v| bound[v as usize] = true);
            order.push(i);
        }
        return order;
    }
    cheapest_order(body, bound, facts, catalog)
}

/// Leaves out the filter-only literals that would run after every call:
/// a guard holds of whatever its relation's rules derive, so it can only
/// save work by refusing a call before it runs.
fn drop_late_filters(order: &mut Vec<usize>, body: &[Lit], catalog: &impl Catalog) {
    let calls = |i: usize| {
        matches!(&body[i], Lit::Pos(rel, _) | Lit::Neg(rel, _)
            if matches!(catalog.source(*rel), Source::Derived | Source::Table))
    };
    let last_call = order.iter().rposition(|&i| calls(i));
    let mut k = 0;
    order.retain(|&i| {
        let late = last_call.is_none_or(|c| k > c);
        k += 1;
        !(late && matches!(&body[i], Lit::Pos(rel, _) if catalog.filter_only(*rel)))
    });
}

/// Whether `lit` may run with unbound variables, binding them.
fn enumerates(lit: &Lit, catalog: &impl Catalog) -> bool {
    matches!(lit, Lit::Pos(rel, _) if !catalog.filter_only(*rel))
}

/// Reorders each run of consecutive tests in `order` (literals whose
/// variables are all bound where the run starts, so that they bind nothing
/// and may run in any order) by rank, price over the chance of rejecting,
/// the order of least expected work for independent filters. The subset
/// search cannot always find it, as a literal's estimated yield depends on
/// what is bound before it.
fn order_tests(
    order: &mut [usize],
    body: &[Lit],
    bound: &[bool],
    facts: &BodyFacts,
    catalog: &impl Catalog,
) {
    let mut now = bound.to_vec();
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end < order.len() && all_bound(&body[order[end]], &now) {
            end += 1;
        }
        if end > start + 1 {
            let rank = |&i: &usize| {
                let (price, passes) = price(&body[i], &now, &facts.values, catalog);
                price / (1.0 - passes.min(1.0)).max(cost::MIN_REJECTION)
            };
            order[start..end].sort_by(|a, b| rank(a).total_cmp(&rank(b)));
        }
        let last = end.max(start + 1);
        for &i in &order[start..last] {
            body[i].for_each_var(&mut |v| now[v as usize] = true);
        }
        start = last;
    }
}

/// The best plan found for one subset of a body: its total work, its
/// expected number of solutions, and the literal it added last.
#[derive(Clone, Copy)]
struct Best {
    work: f64,
    rows: f64,
    last: usize,
}

/// The order of least estimated work, by dynamic programming over subsets:
/// the variables a subset binds do not depend on its order, so each subset
/// keeps only its cheapest order. Ties keep the first found, which follows
/// the text. Negations and `distinct` join a subset only once it binds
/// their variables.
fn cheapest_order(
    body: &[Lit],
    bound: &[bool],
    facts: &BodyFacts,
    catalog: &impl Catalog,
) -> Vec<usize> {
    let n = body.len();
    let full = (1usize << n) - 1;
    let mut best: Vec<Option<Best>> = vec![None; full + 1];
    best[0] = Some(Best {
        work: 0.0,
        rows: 1.0,
        last: usize::MAX,
    });
    let mut now = vec![false; bound.len()];
    for set in 0..full {
        let Some(here) = best[set] else { continue };
        now.copy_from_slice(bound);
        for (i, lit) in body.iter().enumerate() {
            if set >> i & 1 == 1 {
                lit.for_each_var(&mut |v| now[v as usize] = true);
            }
        }
        for (i, lit) in body.iter().enumerate() {
            if set >> i & 1 == 1 || (!enumerates(lit, catalog) && !all_bound(lit, &now)) {
                continue;
            }
            let (price, yield_) = price_after(body, i, (set, facts), &now, catalog);
            let next = Best {
                work: here.work + here.rows * price,
                rows: here.rows * yield_,
                last: i,
            };
            let slot = &mut best[set | 1 << i];
            if slot.is_none_or(|b| next.work < b.work) {
                *slot = Some(next);
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut set = full;
    while set != 0 {
        // Every subset reached has a best; the full set is reached because
        // the checker makes every body safe (and a body that is not still
        // gets every positive literal).
        let Some(b) = best[set] else { break };
        order.push(b.last);
        set &= !(1 << b.last);
    }
    order.reverse();
    if order.len() < n {
        // Unsafe leftovers (never from a checked program): append in text order.
        let rest: Vec<usize> = (0..n).filter(|i| !order.contains(i)).collect();
        order.extend(rest);
    }
    order
}

/// Per literal of `body` (of at most [`MAX_SEARCHED`], or the first 64),
/// the set of the calls in it whose answers satisfy it.
fn implied_by(body: &[Lit], catalog: &impl Catalog) -> Vec<usize> {
    let bits = body.len().min(usize::BITS as usize);
    (body.iter())
        .map(|lit| {
            (0..bits)
                .filter(|&j| catalog.implies(&body[j], lit))
                .fold(0, |m, j| m | 1 << j)
        })
        .collect()
}

/// [`price`] of literal `i` of `body` run after the literals in `set`: a
/// test that a call among them implies (see [`implied_by`]) always passes.
fn price_after(
    body: &[Lit],
    i: usize,
    (set, facts): (usize, &BodyFacts),
    bound: &[bool],
    catalog: &impl Catalog,
) -> (f64, f64) {
    let (price, yield_) = price(&body[i], bound, &facts.values, catalog);
    if set & facts.implied[i] != 0 && all_bound(&body[i], bound) {
        (price, 1.0)
    } else if facts.asks_exists(&body[i], bound, catalog) {
        // othello-comp2007's `closedpiecestring(x, y, dir, ?, ?, ?)`, a
        // line of discs closed by the player's own, guessed at 1 280 rows
        // as a recursive call, went after the call it should reject.
        (price, yield_.min(1.0))
    } else {
        (price, yield_)
    }
}

/// The price of running `lit` once with `bound` variables known, in table
/// lookups, and the solutions it gives per run (a probability for a test).
fn price(lit: &Lit, bound: &[bool], values: &Values, catalog: &impl Catalog) -> (f64, f64) {
    let test = |est: f64| est.clamp(cost::MIN_ROWS, 1.0);
    match lit {
        Lit::Distinct(..) => (cost::DISTINCT_PRICE, cost::DISTINCT_PASSES),
        Lit::Pos(rel, args) | Lit::Neg(rel, args) => {
            let known: i32 = args.iter().map(|a| known_leaves(a, bound)).sum();
            let source = catalog.source(*rel);
            let est = match source {
                Source::Static => catalog.static_rows(*rel, args, bound),
                Source::Derived | Source::Table => catalog.derived_rows(*rel, args, bound),
                Source::True => catalog.state_rows(args, bound, values),
                _ => None,
            }
            .unwrap_or_else(|| catalog.estimate(*rel, args, known));
            let all = all_bound(lit, bound);
            let (price, rows) = match source {
                Source::Derived | Source::Table => {
                    let rows = if all {
                        cost::CALL_TEST_PASSES
                    } else {
                        est.max(cost::MIN_ROWS)
                    };
                    (catalog.call_cost(*rel, adornment(args, bound)), rows)
                }
                Source::True if !all => (
                    catalog.scan_price(*rel, args, bound),
                    est.max(cost::MIN_ROWS),
                ),
                _ if all => (1.0, test(est)),
                _ => (cost::ENUMERATE_PRICE + est, est.max(cost::MIN_ROWS)),
            };
            if matches!(lit, Lit::Neg(..)) {
                (price, (1.0 - rows).max(cost::MIN_ROWS))
            } else {
                (price, rows)
            }
        }
    }
}

/// The step of a literal evaluated with `bound` variables known.
fn step(lit: &Lit, bound: &[bool], catalog: &impl Catalog) -> Step {
    match lit {
        Lit::Pos(rel, args) | Lit::Neg(rel, args) => Step::Lit {
            source: catalog.source(*rel),
            rel: *rel,
            args: args.clone(),
            negated: matches!(lit, Lit::Neg(..)),
            bound: adornment(args, bound),
        },
        Lit::Distinct(a, b) => Step::Distinct(a.clone(), b.clone()),
    }
}

/// Makes `s`, a call that lists answers with some arguments bound, read
/// the whole list of its relation where the catalog says so: the bound
/// arguments are then compared with each row's (see [`Catalog::reads_whole`]).
fn read_whole(s: &mut Step, catalog: &impl Catalog) {
    if let Step::Lit {
        source: Source::Derived,
        rel,
        args,
        negated: false,
        bound,
    } = s
    {
        let all = (1 << args.len()) - 1;
        if *bound & all != all && catalog.reads_whole(*rel, *bound) {
            *bound = 0;
        }
    }
}

/// The arguments a call with `adorn` outputs, of `arity`: the unbound
/// ones, or none where it only asks whether a solution exists.
pub fn free_arguments(arity: usize, adorn: Adorn) -> Vec<usize> {
    if adorn & EXISTS != 0 {
        return Vec::new();
    }
    (0..arity).filter(|i| adorn >> i & 1 == 0).collect()
}

/// The steps opening a plan over variables numbered by argument (`Var(i)`
/// is argument `i`): one per argument in `adorn`, in order.
pub fn argument_params(arity: usize, adorn: Adorn) -> Vec<Step> {
    (0..arity)
        .filter(|i| adorn >> i & 1 == 1)
        .map(|i| Step::Param {
            index: i,
            pat: Pat::Var(i as u32),
        })
        .collect()
}

/// The arguments of `args` that are ground once `bound` variables are.
pub fn adornment(args: &[Pat], bound: &[bool]) -> Adorn {
    args.iter()
        .enumerate()
        .filter(|(_, a)| a.bound_by(bound))
        .fold(0, |m, (i, _)| m | 1 << i)
}

#[cfg(test)]
mod join_order_tests;
