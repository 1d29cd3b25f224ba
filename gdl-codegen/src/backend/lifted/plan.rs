//! The lifted plan: every decision the lifted back end makes about a game,
//! made before anything is printed (see [`super::planner`]), and read by the
//! printer, which decides nothing of its own about what to compute.
//!
//! A plan lists the queries' rules and, in the order they are printed, the
//! function of each relation and adornment the queries reach and each
//! recursive component: how the function collects its answers (a test, an
//! answer list, a closure, a list read instead), its memo, its fallback on
//! a cycle and each rule's join order with the estimates that chose it.
//! [`LiftedPlan::summary`] prints it (`gdl-codegen emit --dump-plan`).

use rustc_hash::FxHashSet;

use super::access::{BodyAccess, TablePlan};
use super::call_graph::Whole;
use super::closure::Closure;
use super::join_order::{Adorn, Source, Step};
use super::widen::Widening;
use crate::rules::CRule;

/// The plan of a game's lifted module.
pub struct LiftedPlan {
    /// The queries' own rules.
    pub queries: QueryPlans,
    /// The functions and components, in the order they are printed.
    pub items: Vec<Item>,
    /// The relations each function reads from their whole list (the
    /// call-graph facts the plan was made with, and that it gives back).
    pub whole: Whole,
    /// The calls asked once per key of their callers, without a memo.
    pub once: FxHashSet<(u32, Adorn)>,
    /// How many times the functions were planned before their call-graph
    /// facts settled (or the cap was reached: see [`super::cost`]).
    pub rounds: usize,
    /// Whether the call-graph facts settled within the cap.
    pub settled: bool,
    /// The relations: names in the generated code (`legal_2`), arities,
    /// components; the printer names what it prints by them.
    pub rels: std::rc::Rc<super::relations::Relations>,
    /// The key types of the dense memo tables, in order of creation.
    pub dense_keys: Vec<super::memo::DenseKeys>,
    /// The tables the bodies' scans read (filters, static joins, value
    /// masks), decided after the functions (see [`super::access`]).
    pub tables: TablePlan,
}

/// The rules of the queries.
pub struct QueryPlans {
    /// `legal` for a given role: `None` where the moves are fixed at
    /// compile time (or the game has no `legal`).
    pub legal: Option<LegalPlan>,
    /// `next`'s rules, each setting its head's bit.
    pub next: Vec<RulePlan>,
    /// The one literal of `terminal`'s query, if the game has the relation.
    pub terminal: Option<QueryLit>,
    /// The one literal of `goal`'s query for a given role.
    pub goals: Option<QueryLit>,
}

/// How the legal moves of a role are found.
pub enum LegalPlan {
    /// Through the function of `legal` (a rule reads `legal` too).
    Call(QueryLit),
    /// By `legal`'s rules, each putting its move in the sink.
    Rules(Vec<RulePlan>),
}

/// A query's literal over `legal`, `terminal` or `goal`.
pub struct QueryLit {
    /// The relation.
    pub rel: u32,
    /// Where its tuples come from.
    pub source: Source,
    /// Its bound arguments when the query runs.
    pub bound: Adorn,
}

/// A function or a component, as printed.
pub enum Item {
    /// The function of a relation called with an adornment.
    Fn(FnPlan),
    /// The fixpoint of a recursive component.
    Comp(CompPlan),
}

/// The function of relation `rel` called with `adorn`.
pub struct FnPlan {
    /// The relation.
    pub rel: u32,
    /// Its bound arguments (and [`super::join_order::EXISTS`]).
    pub adorn: Adorn,
    /// What the function computes and how.
    pub shape: Shape,
}

/// What a relation's function is.
pub enum Shape {
    /// An existence test without keys answered by the list of all answers,
    /// which the queries make anyway (see [`super::planner`]).
    ExistsFromList,
    /// A test of every argument answered from the short list of all
    /// answers.
    TestFromList,
    /// Answers found by a worklist through the recursive rules.
    Closure {
        /// The closure's rules, planned.
        closure: ClosurePlan,
        /// Its memo; `None` for a call asked once per key of its callers.
        memo: Option<Memo>,
    },
    /// A test off any cycle.
    Test {
        /// Its rules.
        bodies: Bodies,
        /// Its memo, if it is memoized.
        memo: Option<Memo>,
        /// The guard tested first, by number.
        guard: Option<usize>,
    },
    /// A test on a cycle, answered by searching the answers of a closure
    /// with fewer arguments bound (see [`super::planner`]).
    TestFromClosure {
        /// The closure's adornment.
        sub: Adorn,
        /// The guard tested first, by number.
        guard: Option<usize>,
        /// Why the closure, and not a search of the recursion.
        why: ClosureWhy,
    },
    /// A test on a cycle: unmemoized while the evaluation's budget of such
    /// calls lasts, then memoized; a call met again falls back.
    RecursiveTest {
        /// Its rules.
        bodies: Bodies,
        /// Its memo.
        memo: Memo,
        /// What a call met again while it runs returns.
        fallback: Fallback,
        /// The guard tested first, by number.
        guard: Option<usize>,
    },
    /// A list of answers, a range of the function's arena.
    Answers {
        /// Its rules.
        bodies: Bodies,
        /// Its memo; `None` for a call asked once per key of its callers.
        memo: Option<Memo>,
        /// Answers pushed straight to the arena (off any cycle), or to a
        /// buffer moved there at the end.
        direct: bool,
        /// On a cycle, what a call met again returns.
        fallback: Option<Fallback>,
        /// A relation the queries list (its duplicates are kept).
        listed: bool,
    },
}

/// Why a test on a cycle searches a closure's answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosureWhy {
    /// A recursive rule enumerates rows before its recursive call: a
    /// search walks every path.
    Branches,
    /// The recursion passes the tested answers through and finds them at
    /// given keys only: a search walks the keys to the end for every
    /// answer asked about.
    AnswersAtEnd,
}

impl ClosureWhy {
    /// The reason in words, for the plan's summary and the generated code.
    pub fn text(self) -> &'static str {
        match self {
            ClosureWhy::Branches => "the recursion branches",
            ClosureWhy::AnswersAtEnd => "the answers come at the end of the recursion",
        }
    }
}

/// A memo table: a hash table by the keys, or a dense table indexed by
/// their ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memo {
    /// The dense key type's name (`Keys<n>`), if the table is dense.
    pub dense: Option<String>,
}

/// What a call on a cycle met again while it runs returns.
pub enum Fallback {
    /// The answers of a closure with fewer arguments bound (the call's
    /// relation with adornment `sub`), searched for the call's tuple.
    Closure {
        /// The closure's adornment.
        sub: Adorn,
    },
    /// The rows of the component's table, computed whole.
    Table {
        /// The component.
        comp: usize,
    },
    /// None: the call never meets itself, its recursive calls progressing
    /// along a static relation without cycles (see
    /// [`super::walk::never_meets_itself`]).
    Never,
}

/// The rules of a call.
pub enum Bodies {
    /// The relation compiled ground: its atoms with the bound arguments,
    /// each tested on the state (the hybrid's number in the facts).
    Ground(usize),
    /// The call answered through a wider call (see [`super::widen`]).
    Widened {
        /// The literal leading to the wider call.
        widening: Widening,
        /// Where the literal's tuples come from.
        source: Source,
        /// How its scan reads the state.
        access: BodyAccess,
    },
    /// Each rule's plan, inside the tests they all open with.
    Rules {
        /// The shared tests, over variables numbered by argument (empty
        /// when none).
        shared: Vec<Step>,
        /// How the shared tests read the state.
        shared_access: BodyAccess,
        /// The rules' plans.
        rules: Vec<RulePlan>,
        /// Runs of rules printed as one loop nest over the steps they
        /// open with (see [`super::openings`]), in order.
        openings: Vec<Opening>,
    },
}

/// Consecutive rules of a call that open with the same steps (over the
/// same variables): printed once, each rule's own steps inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The first rule's index.
    pub first: usize,
    /// The number of rules.
    pub rules: usize,
    /// The number of steps they share.
    pub steps: usize,
}

impl Opening {
    /// Whether rule `i` is one of the run's.
    pub fn has(&self, i: usize) -> bool {
        (self.first..self.first + self.rules).contains(&i)
    }

    /// The steps rule `i` of a call whose runs are `openings` takes from
    /// the rule before it, printed there: its run's opening if it is not
    /// the run's first, else none.
    pub fn taken_by(openings: &[Opening], i: usize) -> usize {
        (openings.iter())
            .find(|o| o.first < i && o.has(i))
            .map_or(0, |o| o.steps)
    }
}

/// A test moved after steps that run for every binding of its variables,
/// run at most once per binding: its answer is kept in a variable
/// declared where they are bound (see [`super::openings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lazy {
    /// The test's step.
    pub step: usize,
    /// The step before which its answer's variable is declared.
    pub anchor: usize,
}

/// A step's estimates: a run's price (table lookups) and its solutions
/// per run; `None` for a parameter.
pub type Cost = Option<(f64, f64)>;

/// A rule and its join order.
#[derive(Clone)]
pub struct RulePlan {
    /// The rule.
    pub rule: CRule,
    /// The adornment it is planned with.
    pub adorn: Adorn,
    /// Its steps, in order.
    pub steps: Vec<Step>,
    /// Per step, the planner's estimate of a run's price (table lookups)
    /// and its solutions per run; `None` for a parameter.
    pub costs: Vec<Cost>,
    /// How its scans read the state and the tables.
    pub access: BodyAccess,
    /// Its tests run at most once per binding of their variables, after
    /// steps that do not bind any of them.
    pub lazy: Vec<Lazy>,
}

/// A closure's rules, planned (see [`Closure`]).
pub struct ClosurePlan {
    /// The closure analysed.
    pub closure: Closure,
    /// Its base rules.
    pub base: Vec<RulePlan>,
    /// Its recursive rules, the recursive literal taken out.
    pub steps: Vec<RulePlan>,
}

/// A recursive component, computed bottom-up.
pub struct CompPlan {
    /// The component.
    pub comp: usize,
    /// Its relations, each with its rules' plans.
    pub rels: Vec<(u32, Vec<RulePlan>)>,
}

impl LiftedPlan {
    /// The dense key types the plan's memos use, in order of creation (an
    /// edited plan may leave some unused).
    pub fn used_dense_keys(&self) -> impl Iterator<Item = &super::memo::DenseKeys> {
        let memo = |s: &Shape| match s {
            Shape::RecursiveTest { memo, .. } => Some(memo.clone()),
            Shape::Closure { memo, .. }
            | Shape::Test { memo, .. }
            | Shape::Answers { memo, .. } => memo.clone(),
            Shape::ExistsFromList | Shape::TestFromList | Shape::TestFromClosure { .. } => None,
        };
        let used: FxHashSet<String> = (self.items.iter())
            .filter_map(|i| match i {
                Item::Fn(f) => memo(&f.shape).and_then(|m| m.dense),
                Item::Comp(_) => None,
            })
            .collect();
        (self.dense_keys.iter()).filter(move |k| used.contains(&k.name()))
    }

    /// The number of relation functions planned.
    pub fn functions(&self) -> usize {
        (self.items.iter())
            .filter(|i| matches!(i, Item::Fn(_)))
            .count()
    }
}
