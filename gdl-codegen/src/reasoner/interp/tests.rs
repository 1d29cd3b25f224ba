//! Unit tests on small hand-written programs, read by a tiny KIF reader that
//! builds the lowered IR directly (no `or`, no `not distinct`).

use gdl_runtime::{Game, Goal, Move};

use super::Interpreter;
use crate::front::ir::{Atom, Literal, Program, Rule, Term};
use crate::front::source::Span;
use crate::front::symbols::Sym;

#[derive(Debug)]
enum S {
    A(String),
    L(Vec<S>),
}

fn sexprs(text: &str) -> Vec<S> {
    let mut stack: Vec<Vec<S>> = vec![Vec::new()];
    for (_, tok) in gdl_runtime::text::tokens(text) {
        match tok {
            gdl_runtime::text::Token::Open => stack.push(Vec::new()),
            gdl_runtime::text::Token::Close => {
                let l = stack.pop().unwrap();
                stack.last_mut().unwrap().push(S::L(l));
            }
            gdl_runtime::text::Token::Atom(a) => stack.last_mut().unwrap().push(S::A(a.to_owned())),
        }
    }
    stack.pop().unwrap()
}

struct Builder {
    p: Program,
    vars: Vec<Sym>,
}

impl Builder {
    fn term(&mut self, s: &S) -> Term {
        match s {
            S::A(a) if a.starts_with('?') => {
                let sym = self.p.symbols.intern(a);
                let v = match self.vars.iter().position(|&x| x == sym) {
                    Some(i) => i,
                    None => {
                        self.vars.push(sym);
                        self.vars.len() - 1
                    }
                };
                Term::Var(v as u32)
            }
            S::A(a) => Term::Const(self.p.symbols.intern(a)),
            S::L(l) => {
                let S::A(f) = &l[0] else { panic!() };
                let f = self.p.symbols.intern(f);
                Term::Func(f, l[1..].iter().map(|x| self.term(x)).collect())
            }
        }
    }

    fn atom(&mut self, s: &S) -> Atom {
        let (name, args, parens) = match s {
            S::A(a) => (a.as_str(), &[][..], false),
            S::L(l) => {
                let S::A(f) = &l[0] else { panic!() };
                (f.as_str(), &l[1..], true)
            }
        };
        let sym = self.p.symbols.intern(name);
        let args: Vec<Term> = args.iter().map(|x| self.term(x)).collect();
        let pred = self.p.intern_pred(sym, args.len(), parens);
        Atom {
            pred,
            args,
            span: Span::new(0, 0),
        }
    }

    fn literal(&mut self, s: &S) -> Literal {
        if let S::L(l) = s {
            if let S::A(h) = &l[0] {
                match h.to_ascii_lowercase().as_str() {
                    "not" => return Literal::Neg(self.atom(&l[1])),
                    "distinct" => {
                        return Literal::Distinct(
                            self.term(&l[1]),
                            self.term(&l[2]),
                            Span::new(0, 0),
                        )
                    }
                    _ => {}
                }
            }
        }
        Literal::Pos(self.atom(s))
    }
}

/// A program from KIF text (test helper; panics on malformed input).
pub(crate) fn program(text: &str) -> Program {
    let mut b = Builder {
        p: Program::new(crate::front::symbols::Symbols::new()),
        vars: Vec::new(),
    };
    for s in sexprs(text) {
        b.vars.clear();
        let rule = match &s {
            S::L(l) if matches!(&l[0], S::A(a) if a == "<=") => {
                let head = b.atom(&l[1]);
                let body = l[2..].iter().map(|x| b.literal(x)).collect();
                (head, body)
            }
            _ => (b.atom(&s), Vec::new()),
        };
        let var_names = b.vars.clone();
        b.p.rules.push(Rule {
            head: rule.0,
            body: rule.1,
            var_names,
            span: Span::new(0, 0),
        });
    }
    b.p
}

fn game(text: &str) -> Interpreter {
    Interpreter::new(&program(text)).unwrap()
}

fn legal(g: &Interpreter, s: &super::State, role: usize) -> Vec<String> {
    let mut out = Vec::new();
    g.legal_moves(s, role, &mut out);
    out.iter().map(|&m| g.move_text(role, m)).collect()
}

fn play(g: &Interpreter, s: &super::State, moves: &[&str]) -> super::State {
    let joint: Vec<Move> = moves
        .iter()
        .enumerate()
        .map(|(r, m)| g.parse_move(r, m).unwrap())
        .collect();
    g.next_state(s, &joint).unwrap()
}

const TICTACTOE: &str = "
(role xplayer) (role oplayer)
(init (cell 1 1 b)) (init (cell 1 2 b)) (init (cell 1 3 b))
(init (cell 2 1 b)) (init (cell 2 2 b)) (init (cell 2 3 b))
(init (cell 3 1 b)) (init (cell 3 2 b)) (init (cell 3 3 b))
(init (control xplayer))
(<= (next (cell ?m ?n x)) (does xplayer (mark ?m ?n)) (true (cell ?m ?n b)))
(<= (next (cell ?m ?n o)) (does oplayer (mark ?m ?n)) (true (cell ?m ?n b)))
(<= (next (cell ?m ?n ?w)) (true (cell ?m ?n ?w)) (distinct ?w b))
(<= (next (cell ?m ?n b)) (does ?w (mark ?j ?k)) (true (cell ?m ?n b)) (distinct ?m ?j))
(<= (next (cell ?m ?n b)) (does ?w (mark ?j ?k)) (true (cell ?m ?n b)) (distinct ?n ?k))
(<= (next (control xplayer)) (true (control oplayer)))
(<= (next (control oplayer)) (true (control xplayer)))
(<= (row ?m ?x) (true (cell ?m 1 ?x)) (true (cell ?m 2 ?x)) (true (cell ?m 3 ?x)))
(<= (column ?n ?x) (true (cell 1 ?n ?x)) (true (cell 2 ?n ?x)) (true (cell 3 ?n ?x)))
(<= (diagonal ?x) (true (cell 1 1 ?x)) (true (cell 2 2 ?x)) (true (cell 3 3 ?x)))
(<= (diagonal ?x) (true (cell 1 3 ?x)) (true (cell 2 2 ?x)) (true (cell 3 1 ?x)))
(<= (line ?x) (row ?m ?x)) (<= (line ?x) (column ?m ?x)) (<= (line ?x) (diagonal ?x))
(<= open (true (cell ?m ?n b)))
(<= (legal ?w (mark ?x ?y)) (true (cell ?x ?y b)) (true (control ?w)))
(<= (legal xplayer noop) (true (control oplayer)))
(<= (legal oplayer noop) (true (control xplayer)))
(<= (goal xplayer 100) (line x)) (<= (goal xplayer 50) (not (line x)) (not (line o)) (not open))
(<= (goal xplayer 0) (line o))
(<= (goal oplayer 100) (line o)) (<= (goal oplayer 50) (not (line x)) (not (line o)) (not open))
(<= (goal oplayer 0) (line x))
(<= terminal (line x)) (<= terminal (line o)) (<= terminal (not open))
";

#[test]
fn tictactoe_sequence() {
    let g = game(TICTACTOE);
    assert_eq!(g.role_names(), ["xplayer", "oplayer"]);
    let mut s = g.initial_state();
    assert_eq!(s.len(), 10);
    let l = legal(&g, &s, 0);
    assert_eq!(l.len(), 9);
    assert_eq!(l[0], "(mark 1 1)");
    assert_eq!(legal(&g, &s, 1), ["noop"]);
    assert!(!g.is_terminal(&s));
    let seq = [
        ["(mark 1 1)", "noop"],
        ["noop", "(mark 1 3)"],
        ["(mark 3 1)", "noop"],
        ["noop", "(mark 2 2)"],
        ["(mark 2 1)", "noop"],
    ];
    for (i, j) in seq.iter().enumerate() {
        assert!(!g.is_terminal(&s), "step {i}");
        s = play(&g, &s, j);
    }
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
    assert_eq!(g.goal(&s, 1), Goal::Value(0));
    assert!(g.fluents(&s).contains(&"(cell 2 1 x)".to_owned()));
    let again = g.parse_state(&g.fluents(&s).join(" ")).unwrap();
    assert_eq!(again, s);
}

#[test]
fn recursion_left_and_right() {
    // test_case_5e: left recursion through a static relation.
    let g = game(
        "(role robot)
         (<= (legal robot (reduce ?x ?n)) (heap ?x ?m) (smaller ?n ?m))
         (heap a 2) (heap b 0) (heap c 5)
         (<= (smaller ?x ?y) (succ ?x ?y))
         (<= (smaller ?x ?y) (smaller ?z ?y) (succ ?x ?z))
         (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
         (next done) (<= terminal (true done)) (goal robot 100)",
    );
    let s = g.initial_state();
    assert_eq!(
        legal(&g, &s, 0),
        [
            "(reduce a 0)",
            "(reduce a 1)",
            "(reduce c 0)",
            "(reduce c 1)",
            "(reduce c 2)",
            "(reduce c 3)",
            "(reduce c 4)"
        ]
    );
}

#[test]
fn dynamic_recursion_and_negation() {
    // Reachability over edges held in the state, with a cycle, and a negation
    // of the recursive relation in a higher stratum.
    let g = game(
        "(role r)
         (init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge d e))
         (node a) (node b) (node c) (node d) (node e)
         (<= (reach ?x ?y) (true (edge ?x ?y)))
         (<= (reach ?x ?z) (reach ?x ?y) (true (edge ?y ?z)))
         (<= (reach ?x ?z) (true (edge ?x ?y)) (reach ?y ?z))
         (<= (legal r (go ?y)) (node ?y) (not (reach a ?y)))
         (<= (legal r (loop ?x)) (reach ?x ?x))
         (<= (next (edge ?x ?y)) (true (edge ?x ?y)))
         (<= (next (edge c d)) (does r (go e)))
         (goal r 50)",
    );
    let s = g.initial_state();
    assert_eq!(
        legal(&g, &s, 0),
        ["(go d)", "(go e)", "(loop a)", "(loop b)", "(loop c)"]
    );
    let s2 = play(&g, &s, &["(go e)"]);
    assert_eq!(legal(&g, &s2, 0), ["(loop a)", "(loop b)", "(loop c)"]);
    assert_eq!(g.goal(&s2, 0), Goal::Value(50));
}

#[test]
fn goals_none_and_ambiguous_and_order_independence() {
    let g = game(
        "(role a) (role b) (role c)
         (init p)
         (<= (goal a 10) (true p)) (<= (goal a 20) (true p))
         (<= (goal c ?x) (val ?x) (not (true q)))
         (val 7)
         (<= (legal ?r go) (role ?r))
         (<= (next q) (does a go))",
    );
    let s = g.initial_state();
    assert_eq!(g.goal(&s, 0), Goal::Ambiguous);
    assert_eq!(g.goal(&s, 1), Goal::None);
    assert_eq!(g.goal(&s, 2), Goal::Value(7));
    let s2 = play(&g, &s, &["go", "go", "go"]);
    assert_eq!(g.goal(&s2, 2), Goal::None);
    assert!(g.fluents(&s2) == ["q"]);
}

#[test]
fn zero_arg_functions_and_case() {
    let g = game(
        "(ROLE You) (init (Cell)) (init cell)
         (<= (legal you (move ?x)) (true ?x))
         (<= (next (DONE)) (does ?r ?m)) (<= terminal (true (done)))",
    );
    let s = g.initial_state();
    assert_eq!(g.role_name(0), "You");
    assert_eq!(legal(&g, &s, 0), ["(move (Cell))", "(move Cell)"]);
    assert!(g.parse_move(0, "(MOVE (cell))").is_ok());
    assert!(g.parse_move(0, "(move zork)").is_err());
    let s2 = play(&g, &s, &["(move cell)"]);
    assert!(g.is_terminal(&s2));
    assert_eq!(g.fluents(&s2), ["(DONE)"]);
}

#[test]
fn new_terms_built_during_play() {
    // A counter that builds terms never seen in the rules.
    let g = game(
        "(role r) (init (count z))
         (<= (next (count (s ?n))) (true (count ?n)))
         (legal r tick)
         (<= terminal (true (count (s (s (s z))))))",
    );
    let mut s = g.initial_state();
    for _ in 0..3 {
        assert!(!g.is_terminal(&s));
        s = play(&g, &s, &["tick"]);
    }
    assert!(g.is_terminal(&s));
    assert_eq!(g.fluents(&s), ["(count (s (s (s z))))"]);
}

#[test]
fn deep_static_and_dynamic_recursion() {
    // A 3000-long successor chain: static `even` recursion, and a dynamic
    // recursion as deep as the chain.
    let mut text =
        String::from("(role r) (init (at 0)) (legal r go) (<= terminal (true (at 3000)))\n");
    for i in 0..3000 {
        text.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    text.push_str(
        "(even 0) (<= (even ?z) (succ ?x ?y) (succ ?y ?z) (even ?x))
         (<= (below ?x) (true (at ?x)))
         (<= (below ?x) (succ ?x ?y) (below ?y))
         (<= (goal r 100) (below 0) (even 3000))
         (<= (next (at ?y)) (true (at ?x)) (succ ?x ?y))",
    );
    let g = game(&text);
    let s = play(&g, &g.initial_state(), &["go"]);
    assert_eq!(g.goal(&s, 0), Goal::Value(100));
    // Run on a small stack to exercise the restart on a large one.
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let p = g.parse_state("(at 2500)").unwrap();
            assert_eq!(g.goal(&p, 0), Goal::Value(100));
        })
        .unwrap()
        .join()
        .unwrap();
}

/// A game whose one state has 10^`n` legal moves: `legal` joins `n`
/// relations of ten constants each (issue 11's game, scaled down).
fn many_moves(n: usize) -> String {
    let mut text = String::from("(role player) (init (control player))\n");
    for i in 1..=n {
        for v in 0..10 {
            text.push_str(&format!("(d{i} {v}) "));
        }
        text.push('\n');
    }
    let vars: Vec<String> = (1..=n).map(|i| format!("?x{i}")).collect();
    let body: Vec<String> = (1..=n).map(|i| format!("(d{i} ?x{i})")).collect();
    text.push_str(&format!(
        "(<= (legal player (pick {})) (true (control player)) {})\n",
        vars.join(" "),
        body.join(" ")
    ));
    text.push_str(
        "(<= (next done) (does player ?m)) (<= terminal (true done)) (goal player 100)\n",
    );
    text
}

fn budgeted(text: &str, max_answers: usize, max_memory: usize) -> Interpreter {
    let budget = super::QueryBudget {
        max_answers,
        max_memory,
    };
    Interpreter::with_budget(&program(text), budget).unwrap()
}

#[test]
fn a_query_within_its_budget_answers_in_full() {
    let g = budgeted(&many_moves(4), 20_000, usize::MAX);
    let s = g.initial_state();
    assert_eq!(legal(&g, &s, 0).len(), 10_000);
    assert!(g.budget_error().is_none());
    assert_eq!(g.failure(), None);
}

#[test]
fn the_answer_budget_stops_a_query_and_names_relation_limit_and_flag() {
    let g = budgeted(&many_moves(5), 1000, usize::MAX);
    let s = g.initial_state();
    assert!(legal(&g, &s, 0).is_empty());
    let e = g
        .budget_error()
        .expect("the query exceeds the budget")
        .clone();
    assert_eq!(e.what, super::QueryLimit::Answers);
    assert_eq!(e.limit, 1000);
    assert_eq!(e.relation, "legal/2");
    assert_eq!(e.query, "the legal moves of player");
    let cli = g.failure().unwrap();
    assert!(
        cli.contains("more than 1000 answers") && cli.ends_with("raise it with --max-answers"),
        "{cli}"
    );
    let lib = e.message(crate::session::Caller::Builder);
    assert!(lib.contains("QueryBudget::max_answers"), "{lib}");
}

#[test]
fn after_a_budget_failure_every_query_answers_trivially() {
    let g = budgeted(&many_moves(5), 1000, usize::MAX);
    let mut s = g.initial_state();
    assert!(legal(&g, &s, 0).is_empty());
    // Drivers finish at once: every state is terminal, nothing moves.
    assert!(g.is_terminal(&s));
    assert_eq!(g.goal(&s, 0), Goal::None);
    let before = s.clone();
    g.apply_unchecked(&mut s, &[Move(0)]);
    assert_eq!(s, before);
    let stats = gdl_runtime::run_playouts(&g, gdl_runtime::Budget::Playouts(1000), 1, 100);
    assert_eq!(stats.playouts, 1, "playouts stop once the reasoner gave up");
}

#[test]
fn the_memory_budget_stops_a_query() {
    let g = budgeted(&many_moves(5), usize::MAX, 1 << 20);
    let s = g.initial_state();
    assert!(legal(&g, &s, 0).is_empty());
    let e = g.budget_error().expect("the query exceeds the budget");
    assert_eq!(e.what, super::QueryLimit::Memory);
    assert_eq!(e.relation, "legal/2");
    let cli = g.failure().unwrap();
    assert!(
        cli.contains("more than 1 MB of memory") && cli.ends_with("raise it with --max-memory-mb"),
        "{cli}"
    );
}

#[test]
fn an_initial_state_over_budget_fails_the_build() {
    // Static, like every `init`, but too large for the build to compute in
    // full (past a million steps): proved lazily, by a budgeted query.
    let mut text = String::from("(role r) (<= (init (f ?a ?b ?c ?d)) (n ?a) (n ?b) (n ?c) (n ?d))");
    for v in 0..40 {
        text.push_str(&format!(" (n {v})"));
    }
    let budget = super::QueryBudget {
        max_answers: 100,
        max_memory: usize::MAX,
    };
    match Interpreter::with_budget(&program(&text), budget) {
        Err(super::InterpError::Budget(e)) => {
            assert_eq!(e.query, "the initial state");
            assert_eq!(e.relation, "init/1");
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
}
