//! The lifted back end's plans: snapshots of the plan summary and of the
//! code printed from it for three small games, each made to show one of
//! the plan's decisions (a recursion computed by a closure, a relation left
//! to run time, a relation compiled ground).
//!
//! After an intended change to the planner or the printer, update the
//! snapshots with `INSTA_UPDATE=always cargo test -p gdl-codegen --test
//! lifted_plans` (or `cargo insta review`) and commit `tests/snapshots/`.

use std::path::PathBuf;

use gdl_codegen::backend::common::EmitOptions;
use gdl_codegen::backend::lifted::plan::{Bodies, FnPlan, Item, LiftedPlan, Shape};
use gdl_codegen::backend::lifted::{self, Planned};
use gdl_codegen::front::{self, ir::Program};
use gdl_codegen::ground::budget::Budget;

/// A game of the tests, read and checked.
struct Game {
    /// Its path relative to the workspace (the label of the generated
    /// code, so that the snapshots do not depend on the checkout).
    label: String,
    /// Its rules.
    program: Program,
    /// The budget it is planned with.
    budget: Budget,
}

impl Game {
    /// A fixture of `tests/fixtures/`, planned with `budget`.
    fn fixture(name: &str, budget: Budget) -> Game {
        let label = format!("gdl-codegen/tests/fixtures/{name}.kif");
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.kif"));
        Game::read(label, path, budget)
    }

    fn read(label: String, path: PathBuf, budget: Budget) -> Game {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let fe = front::run_bytes(&label, &bytes, &Default::default());
        assert!(fe.is_valid(), "{}", fe.render_diagnostics(false));
        Game {
            label,
            program: fe.program,
            budget,
        }
    }

    /// Its lifted plan.
    fn plan(&self) -> Planned {
        lifted::plan(&self.program, &self.budget)
            .unwrap_or_else(|e| panic!("{}: cannot plan: {e}", self.label))
    }

    /// The module `planned` prints, as the text of a file, its game type
    /// named `type_name`.
    fn code(&self, planned: Planned, type_name: &str) -> String {
        let opts = EmitOptions {
            type_name: type_name.to_owned(),
            source_name: self.label.clone(),
            ..EmitOptions::default()
        };
        let module = planned
            .module(&opts)
            .unwrap_or_else(|e| panic!("{}: cannot print the plan: {e}", self.label));
        module
            .to_text()
            .unwrap_or_else(|e| panic!("{}: cannot format the module: {e}", self.label))
    }
}

/// The planning budget of `lifted_deferred.kif`: its filter goes over it
/// quickly. The default budget gives the same plan, but deriving `rising`
/// up to it takes 10 s here (35 s for `emit --dump-plan` in a debug build).
fn small_budget() -> Budget {
    Budget::new(20_000, Budget::DEFAULT_MAX_MEMORY)
}

/// The index of relation `name` (as the generated code names it:
/// `legal_2`) in `plan`.
fn relation(plan: &LiftedPlan, name: &str) -> u32 {
    (plan.names.iter().position(|n| n == name))
        .unwrap_or_else(|| panic!("no relation {name} in {:?}", plan.names)) as u32
}

/// The functions of `plan` of relation `name`.
fn functions<'p>(plan: &'p LiftedPlan, name: &str) -> Vec<&'p FnPlan> {
    let rel = relation(plan, name);
    (plan.items.iter())
        .filter_map(|i| match i {
            Item::Fn(f) if f.rel == rel => Some(f),
            _ => None,
        })
        .collect()
}

/// The summary line of the relations left to run time.
fn deferred_line(summary: &str) -> &str {
    (summary.lines())
        .find(|l| l.starts_with("deferred to run time"))
        .expect("a line of the relations deferred to run time")
}

/// `reach`, a recursion over the state, is answered by a closure from its
/// first argument; the plan leaves nothing to run time.
#[test]
fn recursive_plan_has_a_closure() {
    let game = Game::fixture("lifted_recursive", Budget::default());
    let planned = game.plan();
    let reach = functions(&planned.plan, "reach_2");
    assert!(
        reach
            .iter()
            .any(|f| matches!(f.shape, Shape::Closure { .. })),
        "reach_2 has no closure"
    );
    let summary = planned.summary();
    assert!(summary.contains("closure by worklist"), "{summary}");
    assert!(deferred_line(&summary).ends_with(": none"), "{summary}");
    insta::assert_snapshot!("recursive_plan", summary);
    insta::assert_snapshot!("recursive_code", game.code(planned, "LiftedRecursive"));
}

/// `rising/8`, too large to derive, is left to run time: a test with every
/// argument bound, by its rules.
#[test]
fn deferred_plan_leaves_rising_to_run_time() {
    let game = Game::fixture("lifted_deferred", small_budget());
    let planned = game.plan();
    let summary = planned.summary();
    assert!(deferred_line(&summary).ends_with(": rising_8"), "{summary}");
    let rising = functions(&planned.plan, "rising_8");
    assert_eq!(rising.len(), 1, "one function of rising_8");
    assert!(
        matches!(
            rising[0].shape,
            Shape::Test {
                bodies: Bodies::Rules { .. },
                ..
            }
        ),
        "rising_8 is a test by its rules"
    );
    assert_eq!(rising[0].adorn, 0xff, "every argument bound");
    insta::assert_snapshot!("deferred_plan", summary);
    insta::assert_snapshot!("deferred_code", game.code(planned, "LiftedDeferred"));
}

/// `line ?p` reads only the state and `succ`: its calls are compiled
/// ground.
#[test]
fn hybrid_plan_compiles_line_ground() {
    let game = Game::fixture("lifted_hybrid", Budget::default());
    let planned = game.plan();
    let line = functions(&planned.plan, "line_1");
    assert!(!line.is_empty(), "a function of line_1");
    assert!(
        line.iter().all(|f| matches!(
            f.shape,
            Shape::Test {
                bodies: Bodies::Ground(_),
                ..
            }
        )),
        "line_1 is compiled ground"
    );
    let summary = planned.summary();
    assert!(summary.contains("compiled ground: "), "{summary}");
    insta::assert_snapshot!("hybrid_plan", summary);
    insta::assert_snapshot!("hybrid_code", game.code(planned, "LiftedHybrid"));
}
