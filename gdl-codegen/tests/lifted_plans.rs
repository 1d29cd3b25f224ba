//! The lifted back end's plans: snapshots of the plan summary and of the
//! code printed from it for three small games, each made to show one of
//! the plan's decisions (a recursion computed by a closure, a relation left
//! to run time, a relation compiled ground), and a plan edited by hand
//! before it is printed, whose code builds and replays matches as the
//! interpreter plays them.
//!
//! After an intended change to the planner or the printer, update the
//! snapshots with `INSTA_UPDATE=always cargo test -p gdl-codegen --test
//! lifted_plans` (or `cargo insta review`) and commit `tests/snapshots/`.

mod compiled;

use std::path::PathBuf;
use std::time::Duration;

use compiled::{Crate, Module, RecordParams};
use gdl_codegen::backend::common::EmitOptions;
use gdl_codegen::backend::lifted::plan::{
    Bodies, FnPlan, Item, LegalPlan, LiftedPlan, Memo, RulePlan, Shape,
};
use gdl_codegen::backend::lifted::{self, Planned};
use gdl_codegen::front::{self, ir::Program};
use gdl_codegen::ground::budget::Budget;
use gdl_codegen::reasoner::interp::Interpreter;
use gdl_runtime::trace::{self, Trace};

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

    /// A game of the shared corpus (path relative to `shared/games`).
    fn corpus(rel: &str) -> Game {
        Game::read(
            format!("../shared/games/{rel}"),
            compiled::games().join(rel),
            Budget::default(),
        )
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
    (plan.rels.names.iter().position(|n| n == name))
        .unwrap_or_else(|| panic!("no relation {name} in {:?}", plan.rels.names)) as u32
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

/// `linked` recurses over `adj`, up to four neighbours a cell: asked with
/// both arguments bound, it is answered from the closure of the cells
/// linked to one of them, not searched path by path. `run`, a line over
/// `right`, stays a recursive test searched call by call, and so does
/// `breathes`, which branches but whose base rule answers most calls.
#[test]
fn a_branching_recursion_is_answered_from_a_closure() {
    let game = Game::fixture("lifted_paths", Budget::default());
    let planned = game.plan();
    let linked = functions(&planned.plan, "linked_2");
    let test = (linked.iter())
        .find(|f| f.adorn == 0b11)
        .expect("linked_2 with both arguments bound");
    let Shape::TestFromClosure { sub, .. } = test.shape else {
        panic!("linked_2_bb is not answered from a closure");
    };
    assert!(
        (linked.iter()).any(|f| f.adorn == sub && matches!(f.shape, Shape::Closure { .. })),
        "linked_2's closure with adornment {sub:#b} is not planned"
    );
    let run = functions(&planned.plan, "run_2");
    assert!(
        (run.iter()).any(|f| f.adorn == 0b11 && matches!(f.shape, Shape::RecursiveTest { .. })),
        "run_2_bb is not a recursive test"
    );
    let breathes = functions(&planned.plan, "breathes_1");
    assert!(
        (breathes.iter()).any(|f| f.adorn == 1 && matches!(f.shape, Shape::RecursiveTest { .. })),
        "breathes_1_b is not a recursive test"
    );
    let summary = planned.summary();
    assert!(summary.contains("(the recursion branches)"), "{summary}");
    insta::assert_snapshot!("paths_plan", summary);
    insta::assert_snapshot!("paths_code", game.code(planned, "LiftedPaths"));
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

/// `far/5`, about a million tuples, would print five million numbers of
/// tables, over the code-size budget: its tables are built at run time
/// from its rule, and the module stays small (the code before this budget
/// was 19 MB). The module builds and replays in
/// [`an_edited_memo_prints_builds_and_replays`].
#[test]
fn a_huge_static_relation_is_built_at_run_time() {
    let game = Game::fixture("lifted_big_static", Budget::default());
    let planned = game.plan();
    let summary = planned.summary();
    assert!(
        summary.contains("static tables built at run time, over the code-size budget: far_5 ("),
        "{summary}"
    );
    let built = &planned.plan.tables.run_time;
    assert_eq!(built.len(), 1);
    assert!(built[0].numbers > 4_000_000, "{} numbers", built[0].numbers);
    let code = game.code(planned, "BigStatic");
    assert!(code.len() < 200_000, "{} bytes", code.len());
    assert!(
        code.contains("static ROWS_FAR_5: ::std::sync::LazyLock<"),
        "{code}"
    );
    assert!(
        code.contains("fn rows_far_5() -> ::std::vec::Vec<[u32; 5]>"),
        "{code}"
    );
}

/// The function of relation `name` with adornment `adorn` in `plan`, to
/// edit.
fn function_mut<'p>(plan: &'p mut LiftedPlan, name: &str, adorn: u32) -> &'p mut FnPlan {
    let rel = relation(plan, name);
    (plan.items.iter_mut())
        .find_map(|i| match i {
            Item::Fn(f) if f.rel == rel && f.adorn == adorn => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no function of {name} with adornment {adorn:b}"))
}

/// The text of method `name` of the generated evaluation: from its `fn`
/// line to its closing brace.
fn method<'c>(code: &'c str, name: &str) -> &'c str {
    let head = format!("    fn {name}(");
    let start = code
        .find(&head)
        .unwrap_or_else(|| panic!("no method {name} in the code"));
    let len = code[start..]
        .find("\n    }\n")
        .unwrap_or_else(|| panic!("method {name} does not end"));
    &code[start..start + len + "\n    }".len()]
}

/// The names of the evaluation's methods of relations (`terminal_0_`,
/// `line_1_b`: a name, an arity, an adornment).
fn relation_methods(code: &str) -> Vec<&str> {
    (code.lines())
        .filter_map(|l| l.strip_prefix("    fn "))
        .filter_map(|l| l.split('(').next())
        .filter(|n| {
            let parts: Vec<&str> = n.rsplitn(3, '_').collect();
            parts.len() == 3
                && parts[1].bytes().all(|b| b.is_ascii_digit())
                && parts[0].bytes().all(|b| b == b'b' || b == b'f')
        })
        .collect()
}

/// Tic-tac-toe's plan with one decision changed: `terminal_0_`, a test the
/// planner leaves without a memo (it is asked once a state), given a
/// table hashed by its keys. The edited plan prints `terminal_0_` with the
/// memo and every other relation's function as before; its code builds
/// and replays GGP-Base's trace of the game and seeded random matches as
/// the interpreter plays them, and so does the code of the three fixtures
/// above and of the one with a static relation of a million tuples (built
/// in the same crate), and that of two of them with the
/// tables of their scans taken out of their plans (no filter, static join
/// or value mask: the printer prints the scans the plan gives).
///
/// (Taking a dense memo away instead, say `goal_2_bf`'s, does not build
/// under `#![deny(warnings)]` as of 8cc3928: the printer prints every key
/// type the planner registered, `Keys0` then unused.)
#[test]
fn an_edited_memo_prints_builds_and_replays() {
    let ttt = Game::corpus("ggp-repository-base/ticTacToe.kif");
    let unedited = ttt.plan();
    let mut edited = ttt.plan();
    match &mut function_mut(&mut edited.plan, "terminal_0", 0).shape {
        Shape::Test { memo, .. } => {
            assert_eq!(*memo, None, "the planner gives terminal_0_ no memo");
            *memo = Some(Memo { dense: None });
        }
        _ => panic!("terminal_0_ is not a test"),
    }
    let summary = edited.summary();
    assert!(
        summary.contains("\nfn terminal_0_: test, memo hashed by its keys\n"),
        "{summary}"
    );
    let before = ttt.code(unedited, "TicTacToe");
    let after = ttt.code(edited, "TicTacToe");
    // `terminal_0_` reads its memo, and evaluates its rules as before in
    // `eval_terminal_0_` on a miss; nothing else changes.
    let memoized = method(&after, "terminal_0_");
    assert_ne!(method(&before, "terminal_0_"), memoized);
    assert!(
        memoized.contains("self.memo_terminal_0_.get("),
        "{memoized}"
    );
    assert!(memoized.contains("self.eval_terminal_0_()"), "{memoized}");
    assert_eq!(
        method(&after, "eval_terminal_0_").replacen("eval_terminal_0_", "terminal_0_", 1),
        method(&before, "terminal_0_")
    );
    let mut methods = relation_methods(&before);
    assert!(methods.contains(&"terminal_0_"), "{methods:?}");
    for m in methods.iter().filter(|&&m| m != "terminal_0_") {
        assert_eq!(method(&before, m), method(&after, m), "{m} changed");
    }
    let at = 1 + methods
        .iter()
        .position(|&m| m == "terminal_0_")
        .unwrap_or(0);
    methods.insert(at, "eval_terminal_0_");
    assert_eq!(methods, relation_methods(&after));

    let fixtures = [
        Game::fixture("lifted_recursive", Budget::default()),
        Game::fixture("lifted_deferred", small_budget()),
        Game::fixture("lifted_hybrid", Budget::default()),
        Game::fixture("lifted_big_static", Budget::default()),
    ];
    let mut modules = vec![Module::new(0, "TicTacToe", after)];
    let mut games = vec![&ttt];
    for (k, game) in fixtures.iter().enumerate() {
        let ty = format!("Fixture{k}");
        modules.push(Module::new(modules.len(), &ty, game.code(game.plan(), &ty)));
        games.push(game);
    }
    // The fixtures whose scans read a static join and a filter, with every
    // scan's tables taken out of their plans: plain scans, printed and
    // replayed as well.
    for (k, game) in fixtures
        .iter()
        .enumerate()
        .filter(|(k, _)| [0, 2].contains(k))
    {
        let mut planned = game.plan();
        let before = game.code(game.plan(), "Plain");
        let (filters, joins) = without_scan_tables(&mut planned.plan);
        planned.reread_tables();
        assert!(filters + joins > 0, "{}: no filter or join", game.label);
        let ty = format!("Plain{k}");
        let code = game.code(planned, &ty);
        for table in ["filter_0", "prejoin_0", "MASKS_"] {
            assert!(!code.contains(table), "{}: {table} printed", game.label);
        }
        assert!(before.contains("filter_0") || before.contains("prejoin_0"));
        modules.push(Module::new(modules.len(), &ty, code));
        games.push(game);
    }
    let traces = compiled::conformance_traces("ggp-repository-base/ticTacToe.kif");
    assert!(!traces.is_empty(), "GGP-Base's trace of ticTacToe");
    let krate = Crate::new("lifted-plan-edit");
    krate.write(&modules).expect("write the crate");
    krate
        .cargo("build", &["--quiet"])
        .unwrap_or_else(|e| panic!("the edited plan's code does not build:\n{e}"));
    let jobs: Vec<(String, Vec<PathBuf>)> = (modules.iter())
        .map(|m| {
            let t = if m.index == 0 {
                traces.clone()
            } else {
                Vec::new()
            };
            (m.name.clone(), t)
        })
        .collect();
    let params = RecordParams {
        matches: 20,
        seed: 20_250_101,
        max_depth: 100,
        speed_ms: 0,
    };
    let out_dir = compiled::work_dir().join("lifted-plan-edit-out");
    let stdout = krate
        .run(&jobs, &out_dir, &params, Duration::from_secs(120))
        .unwrap_or_else(|e| panic!("the driver failed: {e}"));
    let reports = compiled::parse_driver_output(&stdout);
    for (m, game) in modules.iter().zip(&games) {
        let report = (reports.get(&m.name))
            .unwrap_or_else(|| panic!("{}: no report from the driver:\n{stdout}", game.label));
        assert_eq!(report.panic, None, "{}", game.label);
        assert_eq!(report.conformance.len(), jobs[m.index].1.len());
        for (t, r) in &report.conformance {
            assert!(r.is_ok(), "{} on {t}: {r:?}", game.label);
        }
        let path =
            (report.recorded.as_ref()).unwrap_or_else(|| panic!("{}: no matches", game.label));
        let recorded = Trace::read(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(recorded.matches.len(), params.matches);
        let interp = Interpreter::new(&game.program).expect("the interpreter");
        if let Err(d) = trace::replay(&interp, &recorded) {
            panic!(
                "{}: the interpreter departs from the compiled code: {d} (recorded in {})",
                game.label,
                path.display()
            );
        }
    }
}

/// Takes every filter, static join and value mask out of `plan`'s scans
/// (the queries', functions' and components' rules): the number of
/// filters and joins it had. The static tables the steps they took then
/// read are the plan's once it reads its tables again.
fn without_scan_tables(plan: &mut LiftedPlan) -> (usize, usize) {
    let counts = (plan.tables.filters.len(), plan.tables.prejoins.len());
    plan.tables.filters.clear();
    plan.tables.prejoins.clear();
    let mut rules: Vec<&mut RulePlan> = plan.queries.next.iter_mut().collect();
    if let Some(LegalPlan::Rules(legal)) = &mut plan.queries.legal {
        rules.extend(legal);
    }
    for item in &mut plan.items {
        match item {
            Item::Fn(f) => match &mut f.shape {
                Shape::Closure { closure, .. } => {
                    rules.extend(closure.base.iter_mut().chain(&mut closure.steps))
                }
                Shape::Test { bodies, .. }
                | Shape::RecursiveTest { bodies, .. }
                | Shape::Answers { bodies, .. } => match bodies {
                    Bodies::Rules {
                        rules: r,
                        shared_access,
                        ..
                    } => {
                        *shared_access = Default::default();
                        rules.extend(r);
                    }
                    Bodies::Widened { access, .. } => *access = Default::default(),
                    Bodies::Ground(_) => {}
                },
                Shape::ExistsFromList | Shape::TestFromList | Shape::TestFromClosure { .. } => {}
            },
            Item::Comp(c) => rules.extend(c.rels.iter_mut().flat_map(|(_, r)| r)),
        }
    }
    for r in rules {
        r.access = Default::default();
    }
    counts
}

/// A memo taken out of a plan takes its dense key type with it: the
/// printer prints the key types the plan's memos use, no others.
#[test]
fn a_removed_memo_prints_no_key_type() {
    let ttt = Game::corpus("ggp-repository-base/ticTacToe.kif");
    let mut edited = ttt.plan();
    let dense = match &mut function_mut(&mut edited.plan, "goal_2", 1).shape {
        Shape::Answers { memo, .. } => memo.take().and_then(|m| m.dense),
        _ => panic!("goal_2_bf lists answers"),
    };
    let dense = dense.expect("the planner gives goal_2_bf a dense memo");
    let unedited = ttt.code(ttt.plan(), "TicTacToe");
    let code = ttt.code(edited, "TicTacToe");
    assert!(unedited.contains(&format!("struct {dense};")), "{unedited}");
    assert!(!code.contains(&format!("struct {dense};")), "{code}");
    let goals = method(&code, "goal_2_bf");
    assert!(!goals.contains("memo_goal_2_bf"), "{goals}");
}

/// A call with more keys is priced at most as one with a key fewer that it
/// could read: in CHINESECHECKERS4 (scrambled names) a player may pass
/// when none of its three pieces has a move, each piece asked by
/// `shalland_2(player, piece)`, whose rule lists the piece's moves. The
/// interpreter measured the moves of a given player's given piece as dear
/// as every player's moves, and the test read the list of all players'
/// moves (75% of the game's instructions a playout); the given player's
/// moves, measured six times cheaper, bound its price.
#[test]
fn a_test_with_more_keys_is_not_priced_above_one_with_fewer() {
    let game =
        Game::corpus("dresden-ggpserver/aaai2006-competition/CHINESECHECKERS4_S.3357493268.kif");
    let summary = game.plan().summary();
    let line = (summary.lines())
        .find(|l| l.starts_with("fn shalland_2_bb:"))
        .unwrap_or_else(|| panic!("no test of shalland_2 with both keys in\n{summary}"));
    assert!(!line.contains("list"), "{line}");
    assert!(
        !summary.contains("fn strablenen_3_fff"),
        "every player's moves are listed:\n{summary}"
    );
}

/// The same bound on recursions, whose calls with more keys the
/// interpreter prices as dear as the whole relation, and the rows of a
/// recursive call off its cycle read from the samples: nonogram's
/// `somesizeinrow_3(row, size, length)` (the runs of marked cells) is
/// asked per row and walked once for all the lengths its caller compares;
/// priced at a guess of 1 280 rows where the samples count about 11, the
/// row's walk lost to a walk per row and length, asked for each length.
#[test]
fn a_recursive_call_off_its_cycle_finds_the_rows_the_samples_count() {
    let game = Game::corpus("ggp-repository-base/nonogram_10x10_1.kif");
    let summary = game.plan().summary();
    for rel in ["somesizeinrow_3", "somesizeincol_3"] {
        assert!(
            summary.contains(&format!("fn {rel}_bff: closure by walk")),
            "{rel} is not walked once per line:\n{summary}"
        );
        assert!(
            !summary.contains(&format!("fn {rel}_beb")),
            "{rel} is walked per line and length:\n{summary}"
        );
    }
}

/// chess.kif's rays are walks, the tests of its rays never meet
/// themselves, and its threats by a pawn, a knight or the king share one
/// part: `clear_diagonal_ne(u, v, ?x, ?y)` steps to the next square by
/// `next_file` and `next_rank` (a row per square, and files never come
/// back), and so does `clear_col_ig(u, v, x, y, ix, iy)` in each of its
/// recursive rules. amazonsTorus's `openPath` comes back around the torus:
/// a worklist that looks its keys up.
#[test]
fn rays_are_walks_and_alike_threats_share_a_part() {
    let summary = Game::corpus("ggp-repository-base/chess.kif")
        .plan()
        .summary();
    let line = |f: &str| {
        (summary.lines())
            .find(|l| l.starts_with(&format!("fn {f}: ")))
            .unwrap_or_else(|| panic!("no {f}:\n{summary}"))
            .to_owned()
    };
    for f in [
        "clear_diagonal_ne_4_bbff",
        "clear_diagonal_ne_4_ffbb",
        "clear_column_3_bbf",
        "clear_row_3_fbb",
    ] {
        assert!(line(f).contains("closure by walk"), "{}", line(f));
    }
    for f in ["clear_col_ig_6_bbbbbb", "clear_diagonal_se_ig_6_bbbbbb"] {
        assert!(line(f).contains("never met again"), "{}", line(f));
    }
    let part = format!("{}\n  compiled ground", line("threatened_5_part0_bbb"));
    assert!(summary.contains(&part), "{summary}");
    assert!(!summary.contains("threatened_5_part1"), "{summary}");
    // chess_200's open stretch from a square is a walk despite its guard
    // (callers share its keys), priced as the recursion it replaced: a
    // test of one stretch searches, its guard first, and does not list
    // every stretch from the square (44% more instructions a playout).
    let summary = Game::corpus("ggp-repository-base/chess_200.kif")
        .plan()
        .summary();
    assert!(
        summary.contains("fn openstretch_5_bbffb: closure by walk"),
        "{summary}"
    );
    assert!(
        summary.contains("(call, bound bbbbb) -> openstretch_5_bbbbb"),
        "{summary}"
    );
    let torus = Game::corpus("ggp-repository-base/amazonsTorus_10x10.kif");
    let summary = torus.plan().summary();
    assert!(
        summary.contains("fn openpath_5_bbffb: closure by worklist"),
        "{summary}"
    );
}

/// chess.kif's legal moves of a piece other than the king, without a
/// capture and with one, are two rules that walk the same pieces and list
/// each one's moves: one loop nest, each target tested for both rules
/// inside. The first rule tests whether its king is safe once the piece
/// leaves (`threatened`) as soon as the piece is bound; the test moves
/// after the moves and the empty target's test, and runs at most once per
/// piece. The moves of a piece are then asked once per key (by the legal
/// moves, and by the rules blocking a check in a few states): no memo.
#[test]
fn legal_rules_opening_alike_list_each_piece_s_moves_once() {
    let summary = Game::corpus("ggp-repository-base/chess.kif")
        .plan()
        .summary();
    let legal = summary
        .split("\nfn legal_2_bf: ")
        .nth(1)
        .and_then(|s| s.split("\nfn ").next())
        .unwrap_or_else(|| panic!("no legal_2_bf:\n{summary}"));
    let (opening, rest) = legal
        .split_once("  the next 2 rules share their first 9 steps, printed once:\n")
        .unwrap_or_else(|| panic!("no opening:\n{legal}"));
    assert!(
        opening.starts_with("answers pushed to its arena"),
        "{legal}"
    );
    let lazy = "not threatened_5(?0, ?8, ?9, ?2, ?3) (call, bound bbbbb) -> threatened_5_bbbbb";
    let at = rest.find(lazy).unwrap_or_else(|| panic!("{legal}"));
    let line = rest[at..].lines().next().unwrap_or_default();
    assert!(
        line.ends_with("(lazy: once per binding of steps 1..8)"),
        "{line}"
    );
    // After the moves (step 9) and the empty target (10), in the first
    // rule.
    let first = rest.split("  rule ").nth(1).unwrap_or_default();
    let order: Vec<Option<usize>> = [
        "    9. legal2_move_6(",
        "    10. true_1((cell ?4 ?5 b))",
        "    11. not threatened_5(",
    ]
    .iter()
    .map(|l| first.find(l))
    .collect();
    assert!(order.iter().all(Option::is_some), "{legal}");
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{legal}");
    assert!(
        summary.contains(
            "\nfn legal2_move_6_bbbbff: answers pushed to its arena, no memo (asked once per key)\n"
        ),
        "{summary}"
    );
}

/// A recursion that passes the tested answer through and finds answers at
/// one key only is tested from its closure: QUEENS's
/// `knoterephall(row, count, total)` sums a count row by row and gives the
/// total at the last row; a goal tests it for each total it asks about,
/// and a search walked every row again for each, where the closure walks
/// them once.
#[test]
fn a_recursion_answering_at_its_end_is_tested_from_its_closure() {
    let game = Game::corpus("dresden-ggpserver/aaai2006-competition/QUEENS_S.3357334759.kif");
    let summary = game.plan().summary();
    assert!(
        summary.contains(
            "fn knoterephall_3_bbb: test searching knoterephall_3_bbf \
             (the answers come at the end of the recursion)"
        ),
        "{summary}"
    );
}

/// The bound on recursions: BIRD's `yonclusaw` (a path between two given
/// squares, on a cycle) with both ends given measured 34 K interpreter
/// steps, and from one end 296 plus a comparison per path found; priced
/// by the measure, the move rules listed every piece's reachable squares
/// first (10 240 rows) and tested the path for each.
#[test]
fn a_recursive_call_is_not_priced_above_one_with_a_key_fewer() {
    let game = Game::corpus("dresden-ggpserver/aaai2006-competition/BIRD_S.3359288923.kif");
    let summary = game.plan().summary();
    assert!(summary.contains("fn yonclusaw_7_bbbbbbf:"), "{summary}");
    assert!(
        !summary.contains("sublucent_7_bbbffbf"),
        "the reachable squares are listed before the path is asked:\n{summary}"
    );
}

/// A mask is the span of words from its first fluent to its last, and the
/// layout sorts a functor's fluents by its leading mask: hex's
/// `(connected ?group ?x ?y)` by group is 81 masks of two or three words,
/// which a budget counting the state's 111 words for each refused, and the
/// scans of one group's cells walked every connected cell of the board.
#[test]
fn a_mask_the_layout_makes_small_is_read() {
    let game = Game::corpus("ggp-repository-base/hex.kif");
    let summary = game.plan().summary();
    let lines: Vec<&str> = summary.lines().collect();
    let scans: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("true_1((connected ?3 ?1 ?2)) (state, bound f)"))
        .collect();
    assert!(!scans.is_empty(), "{summary}");
    for i in scans {
        assert!(
            lines[i + 1].contains("value mask on arguments [0]"),
            "a group's cells are not read by its mask:\n{summary}"
        );
    }
}

/// The planner prices a scan by a mask only where the layout can keep the
/// mask within its budget: mineClearingSmall's `(ship ?x ?y)` (105 by 105)
/// is laid out by `?x`, so that its masks by `?y` would each span the
/// functor's 173 words. Priced as masks that the layout then refused, the
/// moves north and south scanned the whole functor once per row (78% more
/// instructions a playout).
#[test]
fn a_scan_priced_by_a_mask_reads_it() {
    let game = Game::corpus("ggp-repository-base/mineClearingSmall.kif");
    let summary = game.plan().summary();
    let lines: Vec<&str> = summary.lines().collect();
    let price = |l: &str| -> f64 {
        let p = l.split("[price ").nth(1).and_then(|r| r.split(',').next());
        p.and_then(|p| p.parse().ok()).expect("a price")
    };
    let whole = (lines.iter())
        .filter(|l| l.contains("true_1((ship ?0 ?1)) (state, bound f)"))
        .map(|l| price(l))
        .fold(0.0, f64::max);
    let mut masked = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.contains("true_1((ship ") && l.contains("(state, bound f)") && price(l) < whole {
            masked += 1;
            assert!(
                lines[i + 1].contains("value mask"),
                "a scan priced by a mask reads none: {l}\n{summary}"
            );
        }
    }
    assert!(masked > 0, "{summary}");
}
