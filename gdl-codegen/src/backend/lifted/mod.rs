//! The lifted back end: Rust generated from the rules themselves, not from
//! their ground instances, for games whose ground program is too large.
//!
//! It decides, then prints:
//! - facts: [`flatten`] (compound arguments made arguments), [`facts`] (the
//!   term universe, fluents and moves by the relaxed fixpoint, static
//!   relations, [`sample`]d states, [`guards`], [`hybrid`] relations
//!   grounded as word tests);
//! - the plan: [`planner`] builds a [`plan::LiftedPlan`] (each function's
//!   shape and memo, each rule's [`join_order`] with its estimates), reading
//!   [`estimates::Estimates`] and its [`call_graph`], every threshold in
//!   [`cost`]; [`mod@plan_summary`] prints it (`emit --dump-plan`);
//! - printing: [`mod@module`] prints the plan once, through `functions`,
//!   `rule_bodies` and [`body`] (a plan as nested loops and tests, a scan's
//!   static tests as masks ([`filters`]) and its static joins as tables by
//!   fluent ([`prejoin`])), recording in [`needs::Needs`] the tables it
//!   prints last (`tables`); names and shapes both sides read are
//!   [`relations::Relations`].
//!
//! At run time a query evaluates top-down from `legal`, `next`, `terminal`
//! or `goal`: each derived relation is a function per adornment, memoized
//! for the state; a relation on a cycle is computed whole, bottom-up, by its
//! component; static relations are sorted constant tables; the state is a
//! bit set over the fluents (their bits laid out for the scans, their ids in
//! text order) and a move an id in text order, as in the ground back end, so
//! matches replay identically on both.

pub mod access;
mod answers;
pub mod body;
pub mod call_graph;
pub mod closure;
pub mod cost;
pub mod defer;
pub mod estimates;
mod evaluation;
pub mod factor;
pub mod facts;
pub mod filters;
pub mod flatten;
mod functions;
mod game_impl;
pub mod guards;
pub mod hoist;
pub mod hybrid;
pub mod implied;
pub mod inline_widened;
pub mod join_order;
pub mod masks;
pub mod memo;
pub mod module;
pub mod needs;
pub mod openings;
pub mod plan;
pub mod plan_summary;
pub mod planner;
pub mod prejoin;
mod queries;
pub mod reads;
mod recursion;
pub mod relations;
mod rule_bodies;
pub mod run_time_tables;
pub mod sample;
pub mod shift;
pub mod state_layout;
pub mod statics;
mod tables;
pub mod term_order;
pub mod term_tables;
pub mod walk;
pub mod widen;

use std::collections::BTreeSet;
use std::fmt;

use proc_macro2::Ident;
use quote::format_ident;
use rustc_hash::FxHashMap;

use crate::backend::common::format::Module;
use crate::backend::common::EmitOptions;
use crate::front::ir::Program;
use crate::ground::budget::{Budget, GroundError};
use facts::Facts;
use join_order::Adorn;

/// Why the lifted back end could not compile a game.
#[derive(Clone, Debug)]
pub enum LiftedError {
    /// The fluents and moves could not be enumerated within the budget.
    Domains(GroundError),
    /// The runtime path is not a Rust path.
    BadRuntimePath(String),
    /// The generated code did not parse (a bug).
    Internal(String),
    /// The static tables would print more than the code-size budget, and
    /// the largest cannot be computed at run time instead.
    TablesOverBudget(run_time_tables::OverBudget),
}

impl fmt::Display for LiftedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiftedError::Domains(e) => write!(f, "lifted back end: {e}"),
            LiftedError::BadRuntimePath(p) => write!(f, "`{p}` is not a Rust path"),
            LiftedError::Internal(e) => write!(f, "internal error in the lifted back end: {e}"),
            LiftedError::TablesOverBudget(o) => {
                let largest: Vec<String> = (o.largest.iter())
                    .map(|(name, n)| format!("`{name}` ({n})"))
                    .collect();
                write!(
                    f,
                    "lifted back end: the static tables would print {} numbers, over the most a module may print, {} \
                     (rustc takes about ten seconds a million); the largest, {}, cannot be computed at run time \
                     instead (recursive, given by facts, or read from a relation computed at run time); \
                     hint: `--backend ground` compiles the game if it grounds",
                    o.numbers,
                    cost::MAX_STATIC_NUMBERS,
                    largest.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for LiftedError {}

/// Compiles a valid program with the lifted back end: plans it, then
/// prints the plan.
pub fn module(
    program: &Program,
    opts: &EmitOptions,
    budget: &Budget,
) -> Result<Module, LiftedError> {
    plan(program, budget)?.module(opts)
}

/// The plan of a valid program's lifted module, as text (see
/// [`plan::LiftedPlan::summary`]).
pub fn plan_summary(program: &Program, budget: &Budget) -> Result<String, LiftedError> {
    Ok(plan(program, budget)?.summary())
}

/// Plans a valid program's lifted module: the decisions, before any code
/// is printed. The plan may be read (and, in tests, edited) before
/// [`Planned::module`] prints it.
pub fn plan(program: &Program, budget: &Budget) -> Result<Planned, LiftedError> {
    let program = flatten::flatten(program).into_owned();
    let facts = Facts::compute(&program, budget).map_err(LiftedError::Domains)?;
    let fixed = queries::fixed_legal_moves(&program, &facts);
    let plan =
        planner::plan(&program, &facts, fixed.is_none()).map_err(LiftedError::TablesOverBudget)?;
    Ok(Planned {
        plan,
        program,
        facts,
        fixed,
    })
}

/// A planned lifted module: its plan, and what printing it reads.
pub struct Planned {
    /// The plan.
    pub plan: plan::LiftedPlan,
    program: Program,
    facts: Facts,
    fixed: Option<Vec<Vec<u32>>>,
}

impl Planned {
    /// The plan as text (see [`plan::LiftedPlan::summary`]).
    pub fn summary(&self) -> String {
        self.plan.summary(&self.program, &self.facts)
    }

    /// Reads the tables of the plan's scans again after an edit of them
    /// (see [`access::reread_tables`]).
    pub fn reread_tables(&mut self) {
        access::reread_tables(&mut self.plan, &self.facts);
    }

    /// The module the plan plans, printed once.
    pub fn module(self, opts: &EmitOptions) -> Result<Module, LiftedError> {
        let rt: syn::Path = syn::parse_str(&opts.runtime_path)
            .map_err(|_| LiftedError::BadRuntimePath(opts.runtime_path.clone()))?;
        let Planned {
            plan, facts, fixed, ..
        } = self;
        Ok(module::print(&facts, &plan, opts, &rt, fixed))
    }
}

/// `b`/`f` per argument: which are bound (`e` for the free arguments of
/// an existence test).
fn adorn_text(bound: Adorn, arity: usize) -> String {
    let free = if bound & join_order::EXISTS != 0 {
        'e'
    } else {
        'f'
    };
    (0..arity)
        .map(|i| if bound >> i & 1 == 1 { 'b' } else { free })
        .collect()
}

fn static_table_name(name: &str, bound: Adorn, arity: usize) -> Ident {
    format_ident!(
        "{}_{}",
        name.to_ascii_uppercase(),
        adorn_text(bound, arity).to_ascii_uppercase()
    )
}

/// Distinct values of each (functor id, argument) among the fluents.
fn fluent_values(facts: &Facts) -> FxHashMap<(u32, usize), Vec<u32>> {
    let mut seen: FxHashMap<(u32, usize), BTreeSet<u32>> = FxHashMap::default();
    for &t in &facts.fluents {
        let u = &facts.universe;
        for (i, &a) in u.args[t as usize].iter().enumerate() {
            seen.entry((u.functor[t as usize], i))
                .or_default()
                .insert(a);
        }
    }
    seen.into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect()
}

/// The names of the row table of functor `fid`'s fluents and of its first
/// bit (see [`needs::Needs::fluent_rows`]).
fn fluent_rows_names(fid: u32) -> (Ident, Ident) {
    (
        format_ident!("FLUENT_ROWS_{}", fid),
        format_ident!("FLUENT_FIRST_{}", fid),
    )
}

fn mask_name(fid: Option<u32>) -> Ident {
    match fid {
        Some(f) => format_ident!("MASK_{}", f),
        None => format_ident!("MASK_ALL"),
    }
}

/// Per relation, the index of its component when it is a derived relation
/// on a cycle of the dependency graph.
fn cycles(facts: &Facts, n: usize) -> Vec<Option<usize>> {
    crate::rules::rule::cyclic_components(&facts.rules, n)
        .into_iter()
        .enumerate()
        .map(|(p, c)| c.filter(|_| facts.dynamic[p]))
        .collect()
}

/// The components (of `comp_of`) every base rule of which (no body
/// literal in the component) reads `does`.
fn move_seeded(facts: &Facts, comp_of: &[Option<usize>], does: Option<u32>) -> BTreeSet<usize> {
    let Some(does) = does else {
        return BTreeSet::new();
    };
    let mut seeded: BTreeSet<usize> = comp_of.iter().flatten().copied().collect();
    for r in &facts.rules {
        let Some(c) = comp_of[r.head_rel as usize] else {
            continue;
        };
        let rel_of = |l: &crate::rules::Lit| match l {
            crate::rules::Lit::Pos(rel, _) | crate::rules::Lit::Neg(rel, _) => Some(*rel),
            crate::rules::Lit::Distinct(..) => None,
        };
        let base = !r
            .body
            .iter()
            .any(|l| rel_of(l).is_some_and(|p| comp_of[p as usize] == Some(c)));
        let reads_move = r
            .body
            .iter()
            .any(|l| matches!(l, crate::rules::Lit::Pos(p, _) if *p == does));
        if base && !reads_move {
            seeded.remove(&c);
        }
    }
    seeded
}

/// Number of leaves (constants and variables) of a pattern.
fn count_leaves(p: &crate::rules::Pat) -> i32 {
    match p {
        crate::rules::Pat::Func(_, args) => args.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

/// Names made unique: a name that sanitizing made equal to an earlier one
/// (`piece-type` and `piece_type`) gets its relation's index appended.
fn unique(names: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .enumerate()
        .map(|(p, n)| {
            if seen.insert(n.clone()) {
                n
            } else {
                let n = format!("{n}_r{p}");
                seen.insert(n.clone());
                n
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::estimates::Estimates;
    use super::*;
    use crate::front::{self, Options};
    use crate::ground::budget::Budget;
    use crate::rules::Pat;
    use join_order::Catalog;

    /// A row of cells: a move at `?m` turns over the run of opponent discs
    /// after it (`flip`, seeded by the move); `open` is a run of empty
    /// cells (seeded by the board).
    const ROW: &str = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
        (init (cell 2 o)) (init (cell 3 o)) (init (cell 4 x))
        (<= (flip ?b) (does r (put ?a)) (succ ?a ?b) (true (cell ?b o)))
        (<= (flip ?c) (flip ?b) (succ ?b ?c) (true (cell ?c o)))
        (<= (open ?a ?a) (succ ?a ?b) (not (true (cell ?a o))) (not (true (cell ?a x))))
        (<= (open ?a ?c) (open ?a ?b) (succ ?b ?c) (not (true (cell ?c o))))
        (<= (legal r (put ?a)) (open ?a ?b))
        (<= (next (cell ?b x)) (flip ?b))
        (<= (next (cell ?b ?c)) (true (cell ?b ?c)) (not (flip ?b)))
        (<= terminal (true (cell 1 x)))
        (<= (goal r 100) (true (cell 1 x)))";

    #[test]
    fn the_initial_state_estimates_scans_of_a_functor_it_lists_for_every_key() {
        let text = "(role r) (succ 1 2) (succ 2 3)
            (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 x)) (init (score 0))
            (init (mark 1 x))
            (<= (next (cell ?a x)) (does r (put ?a)))
            (<= (next (cell ?a ?c)) (true (cell ?a ?c)) (not (does r (put ?a))))
            (<= (next (score ?b)) (true (score ?a)) (succ ?a ?b))
            (<= (next (mark ?b x)) (true (mark ?a x)) (succ ?a ?b))
            (<= (next (mark ?a x)) (true (mark ?a x)))
            (<= (legal r (put ?a)) (true (cell ?a b)))
            (<= terminal (true (score 3)))
            (<= (goal r 100) (true (score 3)))";
        let (program, facts) = program_and_facts(text);
        let reg = Estimates::new(&program, &facts);
        let fid = |name: &str, arity| {
            let sym = program.symbols.lookup(name).expect("a functor");
            reg.functor(sym, arity).expect("a functor id")
        };
        // Every square once, and one score: their counts per key hold.
        assert!(reg.init_tuples.contains_key(&fid("cell", 2)));
        assert!(reg.init_tuples.contains_key(&fid("score", 1)));
        // Marks accumulate: one of three squares in the initial state.
        assert!(!reg.init_tuples.contains_key(&fid("mark", 2)));
        let cell = |a: Pat, b: Pat| {
            [Pat::Func(
                program.symbols.lookup("cell").unwrap(),
                vec![a, b].into(),
            )]
        };
        let b = facts.universe.text.iter().position(|t| t == "b").unwrap() as u32;
        // A square's fluent: one; the blank squares: two of three.
        let rows = reg.state_rows(&cell(Pat::Var(0), Pat::Var(1)), &[true, false], &[]);
        assert_eq!(rows, Some(1.0));
        let rows = reg.state_rows(&cell(Pat::Var(0), Pat::Ground(b)), &[false], &[]);
        assert_eq!(rows, Some(2.0));
    }

    #[test]
    fn sampled_states_estimate_functors_the_initial_state_lacks() {
        // `flash` holds in the third state only; a king is one of five
        // things a square holds.
        let text = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
            (kind k king) (kind p pawn) (kind q pawn) (kind s pawn)
            (init (at 1 k)) (init (at 2 p)) (init (at 3 q)) (init (at 4 s))
            (init (at 5 b)) (init (at 6 b)) (init (at 7 b)) (init (at 8 b))
            (init (step 1))
            (<= (legal r wait) (true (step ?m)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (at ?c ?x)) (true (at ?c ?x)))
            (<= (next (flash ?n)) (true (step ?m)) (succ ?m ?n) (succ ?n 4))
            (<= terminal (true (step 4)))
            (<= (goal r 100) (true (step 4)))";
        let (program, facts) = program_and_facts(text);
        let reg = Estimates::new(&program, &facts);
        let sym = |name: &str| program.symbols.lookup(name).expect("a symbol");
        let id = |text: &str| facts.universe.text.iter().position(|t| t == text).unwrap() as u32;
        let flash = [Pat::Func(sym("flash"), vec![Pat::Var(0)].into())];
        let rows = reg.state_rows(&flash, &[false], &[]).expect("sampled");
        assert!(
            (rows - 1.0 / 3.0).abs() < 1e-9,
            "one flash in three states: {rows}"
        );
        // `(at ?c ?x)` with `?x` known: 8 squares over 5 values; with `?x`
        // a king (`(kind ?x king)`), the one square.
        let kind = relation_named(&program, "kind");
        let body = [crate::rules::Lit::Pos(
            kind,
            vec![Pat::Var(1), Pat::Ground(id("king"))].into(),
        )];
        let values = reg.var_values(&body, 2);
        assert_eq!(values, [None, Some(vec![id("k")])]);
        let at = [Pat::Func(sym("at"), vec![Pat::Var(0), Pat::Var(1)].into())];
        assert_eq!(
            reg.state_rows(&at, &[false, true], &[None, None]),
            Some(8.0 / 5.0)
        );
        assert_eq!(reg.state_rows(&at, &[false, true], &values), Some(1.0));
    }

    #[test]
    fn a_position_in_the_initial_state_is_estimated_from_the_samples() {
        // `(pos ?x ?y)`: one fluent in every state, though `?x` takes four
        // values, so the initial state does not give a value per key.
        let text = "(role r) (succ 1 2) (succ 2 3) (succ 3 4)
            (init (pos 1 1))
            (<= (legal r go) (true (pos ?x ?y)))
            (<= (next (pos ?b ?b)) (true (pos ?a ?a)) (succ ?a ?b))
            (<= terminal (true (pos 4 4)))
            (<= (goal r 100) (true (pos 4 4)))";
        let (program, facts) = program_and_facts(text);
        let reg = Estimates::new(&program, &facts);
        let sym = program.symbols.lookup("pos").expect("a functor");
        assert!(!reg
            .init_tuples
            .contains_key(&reg.functor(sym, 2).expect("an id")));
        let pos = [Pat::Func(sym, vec![Pat::Var(0), Pat::Var(1)].into())];
        assert_eq!(reg.state_rows(&pos, &[false, false], &[]), Some(1.0));
    }

    #[test]
    fn a_relation_no_sampled_state_has_is_priced_by_its_rules() {
        // `threat` needs a queen, which the match never makes (`promote`
        // is not legal before step 9): sampled empty, so cheap in the
        // sampled states, ten thousand rows where a queen stands. Listed
        // whole, it is priced by its rules' plans, above a call with an
        // argument bound and above a price by its literals.
        let digits: String = (0..10).map(|i| format!("(d {i}) ")).collect();
        let text = format!(
            "(role r) {digits} (succ 1 2) (succ 2 3) (succ 3 4)
            (init (step 1)) (init (piece p))
            (<= (legal r (go ?x)) (true (step ?m)) (d ?x))
            (<= (legal r promote) (true (step 9)))
            (<= (next (piece q)) (does r promote))
            (<= (next (piece ?p)) (true (piece ?p)))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (threat ?x ?y ?z ?w) (true (piece q)) (d ?x) (d ?y) (d ?z) (d ?w))
            (<= (next (hit ?x)) (does r (go ?x)) (threat ?x ?y ?z ?w))
            (<= terminal (true (step 4)))
            (<= (goal r 100) (true (step 4)))"
        );
        let (program, facts) = program_and_facts(&text);
        assert!(facts.samples.states > 0, "the match is sampled");
        let threat = relation_named(&program, "threat");
        assert!(facts.samples.never_seen(threat));
        let reg = Estimates::new(&program, &facts);
        let whole = reg.call_cost(threat, 0);
        let one = reg.call_cost(threat, 0b0001);
        let by_literals = 4.0 + 4.0 * 5.0;
        assert!(whole > one && whole > by_literals, "{whole} {one}");
    }

    /// `threat` is listed whole by `legal`; `terminal` (on the same
    /// evaluation) asks for the threats of a given king, which it may read
    /// from that list; `next`, on an evaluation of its own, keeps its call.
    const THREATS: &str = "(role r) (init (piece p1)) (init (piece p2)) (init (king k1))
    (init (step 1)) (succ 1 2) (succ 2 3) (succ 3 4)
    (<= (threat ?p ?k) (true (piece ?p)) (true (king ?k)))
    (<= (legal r (go ?p)) (threat ?p ?k))
    (<= (next (seen ?k ?p)) (true (king ?k)) (threat ?p ?k))
    (<= (next (piece ?p)) (true (piece ?p)))
    (<= (next (king ?k)) (true (king ?k)))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= terminal (true (step 4)) (true (king ?k)) (threat ?p ?k) (true (seen ?k ?p)))
    (<= (goal r 100) (true (step 4)))";

    #[test]
    fn a_bound_call_of_a_short_relation_listed_whole_reads_the_list() {
        // `threat` is listed whole by `legal`; `terminal` (on the same
        // evaluation) asks for the threats of a given king, which the
        // second build reads from that list; `next`, on an evaluation of
        // its own, keeps its call.
        let (program, facts) = program_and_facts(THREATS);
        let (_, code) = module_and_code(&program, &facts);
        let body = |f: &str| {
            let at = code
                .find(&format!("fn{f}("))
                .unwrap_or_else(|| panic!("{f}: {code}"));
            let end = code[at + 3..].find("fn").map_or(code.len(), |e| at + 3 + e);
            code[at..end].to_string()
        };
        assert!(body("terminal_0_").contains("self.threat_2_ff()"), "{code}");
        assert!(body("next").contains("self.threat_2_fb("), "{code}");
    }

    #[test]
    fn a_plan_settles_its_call_graph_facts_and_is_printed_once() {
        // The game above: the whole list `terminal` reads is learnt from
        // the first round's call graph, so the plan takes rounds to settle;
        // the module is printed once, from the last, each planned function
        // defined once, and nothing else.
        let (program, facts) = program_and_facts(THREATS);
        let plan = planner::plan(&program, &facts, true).expect("within the budgets");
        assert!(plan.settled && plan.rounds >= 2, "{} rounds", plan.rounds);
        assert!(!plan.whole.is_empty());
        let names: Vec<String> = (plan.items.iter())
            .filter_map(|i| match i {
                plan::Item::Fn(f) => Some(plan.rels.call_name(f.rel, f.adorn).to_string()),
                plan::Item::Comp(_) => None,
            })
            .collect();
        let (_, code) = module_and_code(&program, &facts);
        for name in &names {
            let defined = code.matches(&format!("fn{name}(")).count();
            assert_eq!(defined, 1, "{name} defined {defined} times: {code}");
        }
        // Every method of the evaluation that computes a relation is a
        // planned function (or its `eval_` half).
        let methods: Vec<&str> = (code.split("fn").skip(1))
            .filter(|f| f.contains("(&mutself"))
            .filter_map(|f| f.split('(').next())
            .collect();
        let unplanned: Vec<&&str> = (methods.iter())
            .filter(|m| m.contains('_') && !m.starts_with("eval_"))
            .filter(|m| !names.iter().any(|n| n == *m))
            .collect();
        assert!(!methods.is_empty());
        assert!(
            unplanned.is_empty(),
            "printed outside the plan: {unplanned:?}"
        );
    }

    /// The checked program of `text` (for the back end's unit tests).
    pub(super) fn checked_program(text: &str) -> Program {
        let fe = front::run_bytes("test.kif", text.as_bytes(), &Options::default());
        assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
        fe.program
    }

    /// The module of `program` with `facts`, default options, and its items
    /// as text without spaces.
    pub(super) fn module_and_code(
        program: &Program,
        facts: &Facts,
    ) -> (crate::backend::common::format::Module, String) {
        let rt: syn::Path = syn::parse_str("::gdl_runtime").unwrap();
        let opts = crate::backend::common::EmitOptions::default();
        let fixed = queries::fixed_legal_moves(program, facts);
        let plan = planner::plan(program, facts, fixed.is_none()).expect("within the budgets");
        let module = module::print(facts, &plan, &opts, &rt, fixed);
        let code = module.items.to_string().replace(' ', "");
        (module, code)
    }

    /// The term of `text` in `facts`' universe.
    pub(super) fn term(facts: &Facts, text: &str) -> u32 {
        facts.universe.text.iter().position(|t| t == text).unwrap() as u32
    }

    /// A step testing or joining static relation `rel` with all of `args`
    /// bound.
    pub(super) fn static_step(rel: u32, args: Vec<Pat>, negated: bool) -> join_order::Step {
        join_order::Step::Lit {
            source: join_order::Source::Static,
            rel,
            bound: (1 << args.len()) - 1 as Adorn,
            args: args.into(),
            negated,
        }
    }

    /// The checked program of `text` and its facts.
    pub(super) fn program_and_facts(text: &str) -> (Program, Facts) {
        let program = checked_program(text);
        let facts = Facts::compute(&program, &Budget::default()).expect("facts");
        (program, facts)
    }

    /// The relation of `p` named `name`.
    pub(super) fn relation_named(p: &Program, name: &str) -> u32 {
        (0..p.preds.len() as u32)
            .find(|&i| p.symbols.name(p.preds[i as usize].name) == name)
            .expect("a relation of that name")
    }

    #[test]
    fn only_components_every_base_rule_of_which_reads_the_move_are_move_seeded() {
        let (program, facts) = program_and_facts(ROW);
        let p = &program;
        let rel = |name: &str| relation_named(p, name) as usize;
        let n = facts.statics.len();
        let comp_of = cycles(&facts, n);
        let does = p.keyword_pred(crate::front::ir::Keyword::Does).map(|d| d.0);
        let seeded = move_seeded(&facts, &comp_of, does);
        let flip = comp_of[rel("flip")].expect("flip is recursive");
        let open = comp_of[rel("open")].expect("open is recursive");
        assert!(seeded.contains(&flip));
        assert!(!seeded.contains(&open));
    }
}
