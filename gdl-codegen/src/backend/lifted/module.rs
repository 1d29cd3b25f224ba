//! The generated module of the lifted back end: a function per derived
//! relation and adornment, a function per recursive component, the query
//! entry points, the constant tables and the `Game` impl.

use super::evaluation::{ev_items, header_items, run_time_term_items};
use super::functions::relation_fns;
use super::game_impl::methods;
use super::queries::{queries, MoveSink};
use super::tables::tables;
use proc_macro2::Literal;
use quote::{format_ident, quote};

use super::facts::Facts;
use super::memo::{self};
use super::needs::Needs;
use super::plan::LiftedPlan;
use crate::backend::common::format::Module;
use crate::backend::common::EmitOptions;
use crate::backend::common::{self, names, Texts};

/// `n` as an unsuffixed literal.
pub fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

pub(super) fn hex(w: u64) -> Literal {
    Literal::u64_unsuffixed(w)
}

/// The module `plan` plans for `facts`, printed once; `fixed`, each role's legal moves where they are known at compile
/// time.
pub fn print(
    facts: &Facts,
    plan: &LiftedPlan,
    opts: &EmitOptions,
    rt: &syn::Path,
    fixed: Option<Vec<Vec<u32>>>,
) -> Module {
    let mut reg = Needs::new(plan.rels.clone());
    let sink = MoveSink::of(facts);
    let legal_sink = fixed.is_none().then_some(sink);
    let queries = queries(&plan.queries, legal_sink, &mut reg, rt);
    let (fns, mut fields) = relation_fns(facts, &mut reg, plan);
    let run_time_rows = super::run_time_tables::items(&mut reg, &plan.tables, rt);
    fields.of_state.push(quote! {
        #[doc = " A buffer for the goal value terms of a role."]
        pool_values: ::std::vec::Vec<u32>
    });
    let layout = &plan.tables.layout;
    let texts = texts(facts);
    let strings = common::Strings::new(
        &Texts {
            roles: &texts.0,
            fluents: &texts.1,
            fluent_bits: (!layout.is_identity()).then_some(&layout.bit_of),
            moves: &texts.2,
            case_sensitive: facts.case_sensitive,
        },
        rt,
    );
    let nw = facts.fluents.len().div_ceil(64).max(1);
    let game = proc_macro2::Ident::new(
        &names::type_name(&opts.type_name),
        proc_macro2::Span::call_site(),
    );
    let state = format_ident!("{}State", game);
    let scratch = format_ident!("{}Scratch", game);
    let (mut data, consts) = tables(facts, (&reg, &plan.tables), layout, nw);
    // Legal moves listed at compile time map no term to a move.
    let move_of = fixed.is_none().then(|| {
        let nr = usize_lit(facts.roles.len());
        let refs = (0..facts.roles.len()).map(|r| format_ident!("MOVE_OF_{}", r));
        quote!(static MOVE_OF: [&[u32]; #nr] = [#(&#refs),*];)
    });
    let (key_arrays, key_items) = memo::dense_key_items(plan.used_dense_keys(), rt);
    data.extend(key_arrays);
    let scratched = common::Queries {
        scratch: &scratch,
        const_new: false,
        methods: methods(facts, rt, (&scratch, &state, nw), fixed.as_deref(), sink),
    };
    let game_impl = common::game_impl(rt, &game, &state, nw, facts.roles.len(), scratched);
    let run = run_time_term_items(reg.run_time_terms, rt);
    let ev = ev_items(
        (&scratch, nw, facts.roles.len()),
        &fields,
        &fns,
        &queries,
        &run,
        rt,
    );
    let items = header_items(opts, &game, &state, nw, &strings);
    Module {
        items: quote! {
            #items
            #consts
            #run_time_rows
            #move_of
            #key_items
            #ev
            #game_impl
        },
        data,
        source_name: opts.source_name.clone(),
    }
}

/// The text tables' contents: role names, fluent texts, move texts.
fn texts(facts: &Facts) -> (Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let text = |t: &u32| facts.universe.text[*t as usize].clone();
    (
        facts.role_names.clone(),
        facts.fluents.iter().map(text).collect(),
        facts
            .moves
            .iter()
            .map(|m| m.iter().map(text).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::{module_and_code, program_and_facts};

    /// The code of `text`'s module, without spaces.
    fn code(text: &str) -> String {
        let (program, facts) = program_and_facts(text);
        module_and_code(&program, &facts).1
    }

    const GAME: &str = "(role r) (init (cell 1 b)) (init (cell 2 b))
        (<= (legal r (mark ?a)) (true (cell ?a b)))
        (<= (next (cell ?a x)) (does r (mark ?a)))
        (<= (next (cell ?a ?c)) (true (cell ?a ?c)) (does r (mark ?b)) (distinct ?a ?b))
        (<= terminal (not open))
        (<= open (true (cell ?a b)))
        (<= (goal r 100) terminal)";

    #[test]
    fn legal_s_rules_push_move_ids_unless_a_rule_reads_legal() {
        let inline = code(GAME);
        assert!(
            inline.contains("fnlegal(&mutself,a0:u32,ids:&[u32]"),
            "{inline}"
        );
        assert!(!inline.contains("fnlegal_2_bf"), "{inline}");
        // A rule reading `legal`: its answers are a call's, which both
        // share.
        let read = code(&GAME.replace("(not open)", "(not (legal r (mark 1)))"));
        assert!(read.contains("self.legal_2_bf("), "{read}");
        assert!(read.contains("fnlegal_2_bf"), "{read}");
    }

    #[test]
    fn legal_moves_are_bits_read_in_order_unless_a_role_has_thousands() {
        let few = code(GAME);
        assert!(few.contains("out:&mut[u64]"), "{few}");
        assert!(few.contains("push_moves_of_bits(&bits,out)"), "{few}");
        assert!(!few.contains("sort_moves"), "{few}");
        // A playout draws its move from the bits, without listing them.
        assert!(few.contains("random_move_of_bits(&bits,rng)"), "{few}");
        // 17^3 = 4 913 moves: 77 words to clear and read at each call.
        let nums: String = (1..=17)
            .map(|n| format!("(num {n}) (init (cell {n} b)) "))
            .collect();
        let many = format!(
            "(role r) {nums}
            (<= (legal r (mark ?a ?b ?c)) (true (cell ?a b)) (num ?b) (num ?c))
            (<= (next (cell ?a x)) (does r (mark ?a ?b ?c)))
            (<= terminal (not open)) (<= open (true (cell ?a b)))
            (<= (goal r 100) terminal)"
        );
        let many = code(&many);
        assert!(many.contains("sort_moves(out,MOVES[role].len())"), "{many}");
        assert!(!many.contains("push_moves_of_bits"), "{many}");
        assert!(!many.contains("fnrandom_move_in"), "{many}");
    }

    #[test]
    fn goal_values_are_read_by_term_unless_the_numbers_lie_far_apart() {
        let near = code(GAME);
        assert!(near.contains("GOAL_VALUES.get(t.wrapping_sub("), "{near}");
        // Five thousand names that sort between `0` and `9` in the universe.
        let names: String = (0..5000).map(|n| format!("(name 1x{n}) ")).collect();
        let far = format!(
            "{GAME} {names} (<= (goal r 0) (not terminal) (name 1x7)) (<= (goal r 9) (not terminal))"
        );
        let far = code(&far);
        assert!(
            far.contains("rows(&GOAL_VALUES,2,&[t])"),
            "goal value search missing"
        );
        assert!(
            !far.contains("GOAL_VALUES.get("),
            "a table of 5 000 entries"
        );
    }

    /// `anynear` asks whether `near` has a solution; a legal rule lists
    /// `near`'s answers (its compound argument keeps it from ground form).
    const NEAR: &str = "(role r) (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 x))
        (<= (near (pos ?a) ?c) (true (cell ?a ?c)) (true (cell ?b ?c)) (distinct ?a ?b)
            (same ?a ?b) (same ?b ?d) (same ?d ?e) (same ?e ?a))
        (<= (same ?a ?b) (true (cell ?a ?c)) (true (cell ?b ?c)))
        (<= (legal r (mark ?a)) (true (cell ?a b)) (not anynear))
        (<= (legal r (mark ?a)) (near (pos ?a) ?c))
        (<= anynear (near ?p ?c))
        (<= (next (cell ?a ?c)) (true (cell ?a ?c)))
        (<= terminal (not open))
        (<= open (true (cell ?a b)))
        (<= (goal r 100) terminal)";

    #[test]
    fn an_existence_test_without_keys_reads_the_list_the_queries_make() {
        let listed = code(NEAR);
        let delegate = "fnnear_2_ee(&mutself)->bool{let(start,end)=self.near_2_ff();start!=end}";
        assert!(listed.contains(delegate), "{listed}");
        // Nothing lists `near`: the test keeps its rules.
        let alone = code(&NEAR.replace("(near (pos ?a) ?c))", "(true (cell ?a x)))"));
        assert!(alone.contains("fnnear_2_ee"), "{alone}");
        assert!(!alone.contains("near_2_ff"), "{alone}");
    }

    #[test]
    fn a_test_is_memoized_from_less_work_where_its_memo_is_dense() {
        use super::super::cost::{MEMO_KEYED_TEST_WORK, MEMO_TEST_WORK};
        use super::super::planner::test_memoized;
        use super::super::tests::relation_named;

        // `near` and `far` do the same work (a scan of the state and a list
        // of `pair`); `near`'s key takes 3 values (a dense table), `far`'s
        // 100 times 100 (a hash table).
        let nums: String = (0..100).map(|i| format!("(num {i}) ")).collect();
        let text = format!(
            "(role r) (coord 1) (coord 2) (coord 3) {nums}
            (init (cell 1 1)) (init (cell 2 2))
            (<= (pair ?y ?z) (true (cell ?y ?z)))
            (<= (near ?x) (coord ?x) (pair ?y ?z) (distinct ?y ?x))
            (<= (far ?a ?b) (num ?a) (num ?b) (pair ?y ?z) (distinct ?y ?a))
            (<= (legal r (go ?x)) (coord ?x) (not (near ?x)) (not (far ?x ?x)))
            (<= (next (cell ?x ?x)) (does r (go ?x)))
            (<= terminal (true (cell 3 3)))
            (<= (goal r 100) (true (cell 3 3)))"
        );
        let (p, facts) = program_and_facts(&text);
        let reg = super::super::estimates::Estimates::new(&p, &facts);
        let (near, far) = (relation_named(&p, "near"), relation_named(&p, "far"));
        let work = reg.test_work(&facts, near, 1);
        assert!(
            (MEMO_TEST_WORK..MEMO_KEYED_TEST_WORK).contains(&work),
            "{work}"
        );
        let work = reg.test_work(&facts, far, 0b11);
        assert!(
            (MEMO_TEST_WORK..MEMO_KEYED_TEST_WORK).contains(&work),
            "{work}"
        );
        assert!(reg.dense_domains(&facts, near, 1).is_some());
        assert!(reg.dense_domains(&facts, far, 0b11).is_none());
        assert!(test_memoized(&facts, &reg, near, 1));
        assert!(!test_memoized(&facts, &reg, far, 0b11));
    }

    #[test]
    fn a_test_rarely_true_reads_the_list_its_rules_make_as_cheaply() {
        use super::super::join_order::Adorn;
        use super::super::planner::test_from_list;
        use super::super::tests::relation_named;

        // The frame rule asks, for each marked cell, whether the move
        // affects it: one or two of sixteen cells, whose rules walk the
        // move with or without the cell. `mover` holds of the only role
        // whenever it moves; `reachable`'s rules, asked for a pair, scan
        // the cells of that pair, not all of them; `from` is one rule, as
        // cheap as reading a list.
        let text = "(role r) (c 1) (c 2) (c 3) (c 4)
            (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
            (init (cell 1 1)) (init (cell 2 2)) (init (cell 3 3)) (init (step 0))
            (<= (affected ?x ?y) (does r (move ?x ?y ?u ?v)))
            (<= (affected ?u ?v) (does r (move ?x ?y ?u ?v)))
            (<= (affected 1 1) (does r reset)) (<= (affected 2 2) (does r reset))
            (<= (affected 3 3) (does r reset)) (<= (affected 4 4) (does r reset))
            (<= (mover ?p) (does ?p (move ?x ?y ?u ?v)))
            (<= (mover ?p) (does ?p reset))
            (<= (mover ?p) (does ?p (move 1 ?y ?u ?v)) (true (cell 1 ?y)))
            (<= (mover ?p) (does ?p (move 2 ?y ?u ?v)) (true (cell 2 ?y)))
            (<= (mover ?p) (does ?p (move 3 ?y ?u ?v)) (true (cell 3 ?y)))
            (<= (mover ?p) (does ?p (move 4 ?y ?u ?v)) (true (cell 4 ?y)))
            (<= (mover ?p) (does ?p (move ?x 4 ?u ?v)) (true (cell ?x 4)))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?x ?a)) (true (cell ?b ?y))
                (true (cell ?a ?b)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?a ?x)) (true (cell ?y ?b))
                (true (cell ?b ?a)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?x ?a)) (true (cell ?y ?b))
                (true (cell ?b ?a)) (distinct ?a ?b))
            (<= (reachable ?x ?y) (c ?x) (c ?y) (true (cell ?a ?x)) (true (cell ?b ?y))
                (true (cell ?a ?b)) (distinct ?a ?b))
            (<= (legal r (move ?x ?y ?u ?v)) (true (cell ?x ?y)) (c ?u) (c ?v) (not (true (cell ?u ?v))))
            (<= (legal r reset) (true (step 0)))
            (<= (next (cell ?x ?y)) (true (cell ?x ?y)) (not (affected ?x ?y)))
            (<= (next (cell ?u ?v)) (does r (move ?x ?y ?u ?v)))
            (<= (next (cell 1 1)) (does r reset))
            (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
            (<= (next (moved ?p)) (mover ?p))
            (<= (next (near ?x ?y)) (reachable ?x ?y) (true (cell ?x ?x)))
            (<= (from ?x ?y) (does r (move ?x ?y ?u ?v)))
            (<= (next (left ?x ?y)) (true (cell ?x ?y)) (from ?x ?y))
            (<= terminal (true (step 6)))
            (<= (goal r 100) (true (step 6)))";
        let (p, facts) = program_and_facts(text);
        let mut reg = super::super::estimates::Estimates::new(&p, &facts);
        let mut test = |name: &str, adorn: Adorn| {
            let rel = relation_named(&p, name);
            test_from_list(&facts, &mut reg, (rel, adorn))
        };
        assert!(test("affected", 0b11), "read from the list");
        assert!(!test("mover", 0b1));
        assert!(!test("reachable", 0b11));
        assert!(!test("from", 0b11));
        // The code reads the list of all `affected` pairs.
        let code = super::super::tests::module_and_code(&p, &facts).1;
        assert!(code.contains("fnaffected_2_bb(&mutself,a0:u32,a1:u32)->bool{let(start,end)=self.affected_2_ff();"), "{code}");
    }

    #[test]
    fn a_call_asked_once_per_key_of_memoized_callers_has_no_memo() {
        use super::super::tests::{module_and_code, program_and_facts};
        // `walk` counts the marked cells of a row, asking `add_one` once
        // for each cell and count on the way (twice for the last cell, its
        // rule run for it only); `goal` asks `pairs` in a loop over the
        // neighbours of each cell, each cell for both its neighbours;
        // `walk2` asks `add_two` from two rules run for every key.
        let (p, facts) = program_and_facts(
            "(role r) (num 0) (num 1) (num 2) (num 3) (num 4)
            (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
            (right 1 2) (right 2 3) (right 3 4) (right 4 1) (mark x) (mark o)
            (init (cell 1 x)) (init (cell 2 o)) (init (cell 3 x)) (init (cell 4 b))
            (<= (add_one ?c ?n ?m) (true (cell ?c x)) (succ ?n ?m))
            (<= (add_one ?c ?n ?n) (true (cell ?c o)) (num ?n))
            (<= (add_one ?c ?n ?n) (true (cell ?c b)) (num ?n))
            (<= (walk 4 ?n ?m) (add_one 4 ?n ?m))
            (<= (walk ?c ?n ?m) (add_one ?c ?n ?k) (walk_on ?c ?k ?m))
            (<= (walk_on ?c ?k ?m) (right ?c ?d) (walk ?d ?k ?m))
            (<= (colour ?c ?k) (true (cell ?c ?k)) (mark ?k))
            (<= (pairs ?c ?k) (right ?c ?d) (colour ?d ?k) (colour ?c ?k))
            (<= (legal r (put ?c)) (true (cell ?c b)))
            (<= (next (cell ?c x)) (does r (put ?c)))
            (<= (next (cell ?c ?k)) (true (cell ?c ?k)) (not (does r (put ?c))))
            (<= terminal (walk 1 0 ?m) (distinct ?m 2))
            (<= (goal r 100) (side ?c ?d) (pairs ?d ?k) (distinct ?c ?k))
            (<= (side ?c ?d) (right ?c ?d))
            (<= (side ?c ?d) (right ?d ?c))
            (last 4)
            (<= (add_two ?c ?n ?m) (true (cell ?c o)) (succ ?n ?m))
            (<= (add_two ?c ?n ?n) (true (cell ?c x)) (num ?n))
            (<= (add_two ?c ?n ?n) (true (cell ?c b)) (num ?n))
            (<= (walk2 ?c ?n ?m) (last ?c) (add_two ?c ?n ?m))
            (<= (walk2 ?c ?n ?m) (add_two ?c ?n ?k) (walk2_on ?c ?k ?m))
            (<= (walk2_on ?c ?k ?m) (right ?c ?d) (walk2 ?d ?k ?m))
            (<= terminal (walk2 1 0 ?m) (distinct ?m 3))",
        );
        let (_, code) = module_and_code(&p, &facts);
        assert!(code.contains("fnadd_one_3_bbf("), "{code}");
        assert!(!code.contains("memo_add_one_3_bbf"), "{code}");
        assert!(code.contains("memo_pairs_2_bf"), "{code}");
        assert!(code.contains("memo_add_two_3_bbf"), "{code}");
    }
}
