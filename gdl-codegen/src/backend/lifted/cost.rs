//! The cost model's thresholds: every number by which the lifted back end
//! chooses between two ways of computing something, or bounds what it may
//! spend at compile time or print.
//!
//! Each constant says what it trades and the commit whose measurement set
//! it (figures as that commit's message gives them: instructions a playout
//! by callgrind unless it says otherwise), or `unmeasured` where no
//! measurement chose the value. A game named is the example a measurement
//! was taken on, not the reason for the rule.

// ---- The planner's call-graph facts -------------------------------------

/// The most rounds of planning (see [`super::planner`]) before the
/// call-graph facts are taken as they are: each round reads the whole lists
/// and asked-once calls of the last, which change the calls. unmeasured:
/// in the corpus the facts settle by the third round (0b3f66b printed a
/// module up to three times to learn them); the cap only stops a game
/// whose facts alternate.
pub const MAX_PLAN_ROUNDS: usize = 4;

// ---- What a relation's function is --------------------------------------

/// A test reads the list of all answers where the rules' estimated work run
/// for every answer is at most this many times their work run for the keys.
/// Set with the feature (a134165: speedChess 3.28 M -> 3.15 M,
/// englishDraughts 599 K -> 548 K, merrills 1.43 M -> 1.12 M).
pub const LIST_TEST_RATIO: f64 = 1.5;

/// A test reads the list of all answers only where its rules' estimated
/// work is at least this: reading the list costs a memo lookup and a scan
/// of up to [`WHOLE_ROWS`] rows. a134165: reversi's `affectedCell`, a scan
/// of a table its component computes, ran 1.1% slower from the list.
pub const LIST_TEST_MIN_WORK: f64 = 16.0;

/// A test reads the list of all answers only where it holds at most this
/// often in the sampled states: a test that holds ends at its first
/// solution, where the list is made whole (chess's `has_legal_move` stops at
/// the player's first move). Set with the feature (a134165, figures at
/// [`LIST_TEST_RATIO`]).
pub const LIST_TEST_HOLDS: f64 = 0.25;

/// The least estimated work (table lookups, see
/// [`super::join_order::plan_work`]) a run of rules sharing their opening
/// must save (the opening's work for each rule after the first, see
/// [`super::openings`]): below it, the larger function compiles less well
/// than the loop saved. unmeasured: set with the feature; skirmishFinal1's
/// two pawn rules sharing a loop over the pawns (4 saved) took 4.8% more
/// instructions a playout, chess.kif's three threats sharing the one row
/// of `opponent` (6) about 1%; merrills' twelve rules sharing the joint
/// move (33) and chess.kif's legal moves (265) gain 13% and 9%.
pub const MIN_OPENING_WORK: f64 = 16.0;

/// How often, in all, a call asked in loops binding its keys may ask each
/// key (the rows of the loops binding none, summed over its call sites,
/// see [`super::call_graph::CallGraph::asked_once`]) and keep no memo:
/// its lookups and writes cost about what the repeats it saves do.
/// unmeasured: set with the feature, chess.kif's moves of a piece asked
/// 1.1 times a key (once by the legal moves, 0.05 by each of two rules
/// blocking a check).
pub const MEMO_REPEATS: f64 = 1.25;

/// The estimated work (table lookups, see
/// [`super::join_order::plan_work`]) from which a test without arguments,
/// or one whose memo is a dense table, is memoized: a memo costs about what
/// a short scan does, which returns at its first fluent. 6b356c8:
/// connectFour's `boardOpen` (126 fluents) and breakthrough's `whitecell`
/// memoized cost 1.2% and 0.5% more; alexChess's check 820 M -> 472 M.
/// 3790feb extended it to dense memos: englishDraughts 717 K -> 599 K.
pub const MEMO_TEST_WORK: f64 = 100.0;

/// The same for a test with arguments whose memo is a hash table by them.
/// Set with the feature (87274cf: laikLee_hex's `isList` -13%, reversi
/// -5.3%).
pub const MEMO_KEYED_TEST_WORK: f64 = 400.0;

/// Most arguments of a relation whose closures a recursive test's fallback
/// tries, one per subset of them (2^n). Set with the feature (d16099f:
/// amazonsTorus 34.2 G -> 0.44 G).
pub const MAX_CLOSURE_SEARCH: usize = 10;

// ---- Compile-time facts (domains, relaxed extensions) (facts) ----------

/// How many times the grounder's join work the domain computation of the
/// lifted back end may do (chess.kif needs about 3.5 times the default).
///
/// Measured (88ab281): chess.kif needs about 3.5 times the default.
pub const LIFTED_WORK_FACTOR: u64 = 8;

/// Largest relaxed extension kept for the planner's estimates.
///
/// Set with the feature (06702c2: chess 159.6 M -> 146.3 M instructions per 5 playouts).
pub const MAX_RELAXED_ROWS: usize = 50_000;

/// Most relations `relaxed_domains` (in [`super::facts`]) tries leaving to run time, one at a
/// time, before it gives up.
///
/// unmeasured (78f6d82 reports coverage only: sudoku, merrills and ruleDepthQuadratic compile lifted).
pub const MAX_DEFERRALS: usize = 8;

// ---- Scan filters (filters) --------------------------------------------

/// Largest table of one filter's masks, in words.
///
/// Set with the feature (77f1aa6: ticTacToe 16.0 K -> 11.3 K, connectFour 70.4 K -> 58.7 K, chess.kif 13.15 M -> 11.29 M).
pub const MAX_FILTER_WORDS: usize = 1 << 12;

/// Largest total of the filters' tables of a game, in words (256 KB).
///
/// A compile-time and binary-size budget (256 KB), set with the feature (77f1aa6, figures at [`MAX_FILTER_WORDS`]).
pub const MAX_FILTERS_WORDS: usize = 1 << 15;

// ---- Flattening (flatten) ----------------------------------------------

/// Relations rewritten at most, counting each nested position again.
///
/// A compile-time budget, set with the feature (02f7f8b: englishDraughts 817 K -> 717 K).
pub const MAX_SPLITS: usize = 1024;

/// Copies of one rule a rewrite may make (functors to the power of the
/// variables it replaces).
///
/// A code-size budget, set with the feature (02f7f8b, figures at [`MAX_SPLITS`]).
pub const MAX_COPIES: usize = 4;

// ---- Guards (guards) ---------------------------------------------------

/// Most tuples the guards of one component may derive.
///
/// Measured (e5889bb, raised from 200 000): chess's `rook_move_ig` relay derives 290 000; chess.kif -4.4%, slaughter -4.8%, PIT221_S -4.2%; chess.kif's emit 21.2 s -> 22.1 s.
pub const MAX_GUARD_TUPLES: usize = 600_000;

/// Join work the guards of one component may do, in atoms tried.
///
/// A compile-time budget, set with the feature (4c3fe89: chess.kif 65.3 M -> 43.9 M).
pub const MAX_GUARD_WORK: u64 = 20_000_000;

/// Most relays whose guards are derived (each within the budget above):
/// chess.kif tries 11.
///
/// Measured (0499461): chess.kif tries 11; 23.4 M -> 21.8 M.
pub const MAX_RELAYS: usize = 32;

/// How many times the combinations a guard lets pass its narrowed form
/// may let pass.
///
/// Set with the feature (c4c55f8: chess.kif 16.19 M -> 15.77 M, slaughter -2.6%, BRAZIL -4.4%).
pub const MAX_PASSING_GROWTH: f64 = 1.25;

// ---- Relations compiled ground (hybrid) (hybrid) -----------------------

/// Most conjunctions one relation's atoms may have in all.
///
/// Set with the feature (61e38b0: connectFour 236 K -> 87 K, ticTacToe -14%, alexChess -18%, chess.kif -9.4%).
pub const MAX_CONJUNCTIONS: usize = 4096;

/// Most conjunctions one atom may have: a test walks them all when it fails.
///
/// Set with the feature (61e38b0, figures at [`MAX_CONJUNCTIONS`]).
pub const MAX_ATOM_CONJUNCTIONS: usize = 256;

/// Most candidate bindings the grounding of one relation may try.
///
/// A compile-time budget, set with the feature (61e38b0, figures at [`MAX_CONJUNCTIONS`]).
pub const MAX_WORK: u64 = 2_000_000;

/// Largest arity of a relation grounded: its atom table has one column
/// more, and a call's bound columns are bits of an `Adorn` below
/// `join_order::EXISTS`.
///
/// unmeasured: a structural limit (323d741), not a cost.
pub const MAX_ARITY: usize = 30;

// ---- Walks (walk) --------------------------------------------------------

/// Most rows of a static table read to tell whether a recursion is a walk
/// or never meets itself: the checks read every row (functional, and a
/// graph without cycles) each time the planner asks.
///
/// A compile-time budget, unmeasured: chess.kif's rays read tables of 7
/// rows (`next_rank`); the corpus's static tables reach a few million.
pub const MAX_WALK_TABLE_ROWS: usize = 100_000;

// ---- Join order (join_order) -------------------------------------------

/// Bodies of at most this many literals are ordered by an exhaustive search
/// over their subsets (2^n states).
///
/// Set with the feature (3041370: chess.kif, one playout, 622 M -> 114 M instructions).
pub const MAX_SEARCHED: usize = 12;

// ---- The numbering of constants (term_order) ----------------------------

/// Most work of ordering the constants, counted as constants times the
/// domains reduced (each reduction copies the PQ-tree, a node a constant,
/// so that one that fails can be dropped): past it, the rest of the
/// domains keep whatever order the tree leaves them.
///
/// Set with the feature (f94fbd7): no corpus game comes near it
/// (CHIMPANZEE, the most constants, 954, emits in 0.26 s against 0.32 s
/// before the ordering; one run each), and a game of 16 K constants still
/// orders its first thousand domains, the fluents' and moves' first.
pub const MAX_ORDER_WORK: usize = 1 << 24;

// ---- Memo tables (memo) ------------------------------------------------

/// Most slots of a dense memo table. A slot holds a stamp and a value (at
/// most 16 bytes), so a table stays within 64 KiB; a call whose bound
/// arguments could take more combinations keeps a hash table, sized by the
/// calls a state makes rather than by the combinations possible.
///
/// Set with the feature (fe2b1f6: FARMERS 220 K -> 195 K, speedChess 5.96 M -> 5.46 M, connectFour 283 K -> 274 K).
pub const MAX_DENSE_SLOTS: usize = 1 << 12;

/// How many relations deep `Estimates::head_domain` (in [`super::memo`]) looks through derived
/// relations' heads (which may recurse) for a variable's values.
///
/// Set with the feature (b1c3b21: chess.kif 21.18 M -> 20.98 M).
pub const MAX_DOMAIN_DEPTH: u32 = 4;

// ---- Estimates and whole lists (mod) -----------------------------------

/// Static tables of at most this many tuples give the values of the
/// variables in their literals (see [`super::join_order::Catalog::var_values`]).
///
/// Set with the feature (e3cb5ac: merrills -55%, urmAdd -54%, amazons -60%, BRAZIL -41%).
pub const VALUES_FROM_ROWS: usize = 1 << 12;

/// A bound call reads its relation's whole list (computed in the state
/// anyway) only where the sampled states have at most this many answers on
/// average: filtering the list then costs a few comparisons, where the call
/// runs the relation's rules again (alexChess's `check` of a given king, of
/// which the queries list every one).
///
/// Set with the feature (f4a51e1: alexChess 270 M -> 215 M, FARMERS 132 K -> 115 K).
pub const WHOLE_ROWS: f64 = 16.0;

/// The same for a relation no sampled state has: where its relaxed
/// extension (every tuple it could have) has at most this many.
///
/// Set with the feature (f4a51e1, figures at [`WHOLE_ROWS`]).
pub const WHOLE_RELAXED: usize = 256;

/// How much cheaper a call's ground form must be estimated than its
/// lifted plans to be chosen: where the two are close (breakthrough's
/// `cellempty ?x ?y`, two fluents clear, against the same two tests
/// lifted), the lifted code, inlined, measured a little faster.
///
/// Measured (c0fe741): breakthrough's `cellempty ?x ?y` stays lifted, measured a little faster; sudoku -10%, connectFour 87 K -> 83 K.
pub const GROUND_MARGIN: f64 = 1.25;

/// Tuples estimated of a move-seeded component's relation.
///
/// Set with the feature (ae5c18e: reversi 302 M -> 36.9 M instructions per 5 playouts).
pub const MOVE_SEEDED_ROWS: f64 = 16.0;

/// Rows per call up to which a relaxed extension is trusted for estimates.
///
/// Set with the feature (06702c2: chess 159.6 M -> 146.3 M instructions per 5 playouts).
pub const FEW_ROWS: f64 = 4.0;

/// Rows per call up to which sampled states are trusted for estimates
/// (amazons' moves along a line: 16 is best of 4, 16 and unbounded).
///
/// Measured (e3cb5ac): amazons' moves along a line, 16 best of 4, 16 and unbounded.
pub const FEW_SAMPLED_ROWS: f64 = 16.0;

/// Largest table of masks by argument value, in words: beyond it a scan
/// tests the value fluent by fluent.
///
/// Set with the feature (fe704f9: chess.kif one playout 114 M -> 79.6 M instructions).
pub const MAX_VALUE_MASK_WORDS: usize = 1 << 13;

// ---- Static joins by fluent (prejoin) ----------------------------------

/// Most numbers one join's table may hold (rows times their width).
///
/// Set with the feature (fab2a73: breakthrough 563 K -> 326 K, englishDraughts -10.8%).
pub const MAX_PREJOIN_WORDS: usize = 1 << 16;

/// Most numbers the joins' tables of a game may hold (4 MB).
///
/// A binary-size budget (4 MB), set with the feature (fab2a73, figures at [`MAX_PREJOIN_WORDS`]).
pub const MAX_PREJOINS_WORDS: usize = 1 << 20;

/// Most candidate rows the compile-time join may try (fluents times
/// tuples, summed over its steps).
///
/// A compile-time budget, set with the feature (fab2a73, figures at [`MAX_PREJOIN_WORDS`]).
pub const MAX_JOIN_WORK: usize = 1 << 22;

// ---- Queries (queries) -------------------------------------------------

/// Most words of a legal move set: 4 096 moves a role.
///
/// Set with the feature (adbd698: breakthrough -17.4%, sudoku -23.6%, connectFour -6.7%).
pub const MAX_MOVE_WORDS: usize = 64;

// ---- Sampled states (sample) -------------------------------------------

/// Seed of the sampled match.
///
/// Not a cost: the seed of the sampled match (e3cb5ac).
pub const SEED: u64 = 0x5eed_1ead;

/// Most steps of the sampled match.
///
/// A compile-time budget, set with the feature (e3cb5ac: merrills -55%, urmAdd -54%, amazons -60%, BRAZIL -41%).
pub const MATCH_STEPS: usize = 120;

/// States sampled, spread over the match.
///
/// Set with the feature (e3cb5ac, figures at [`MATCH_STEPS`]).
pub const STATES: usize = 8;

/// Most steps the interpreter may take for one relation in one state: a
/// relation past it (`threatened_with_capture` with every argument free)
/// is not sampled.
///
/// A compile-time budget, set with the feature (e3cb5ac, figures at [`MATCH_STEPS`]).
pub const PROBE_WORK: u64 = 1 << 20;

/// Calls probed for the work of one adornment.
///
/// Set with the feature (e3cb5ac, figures at [`MATCH_STEPS`]).
pub const CALL_PROBES: usize = 4;

/// Most steps the interpreter may take for one call probed.
///
/// A compile-time budget, set with the feature (e3cb5ac, figures at [`MATCH_STEPS`]).
pub const CALL_WORK: u64 = 1 << 16;

/// Probes of one measure run at once, each on its own thread (a probe
/// owns its tables, see `Interpreter::probe`): a player compiles a game at
/// match start with the two cores these machines have. A compile-time
/// setting, set with the feature (c71f410: chess.kif `emit --backend
/// lifted` wall A/B 0.923, plans the same on all 443 corpus games).
pub const PARALLEL_PROBES: usize = 2;

// ---- Static tables (statics) -------------------------------------------

/// The numbers the static tables of a lifted module print (each table's
/// rows sorted by its bound columns, and the tuples `in_<rel>` tests)
/// above which the largest relations that can be are built at run time on
/// first use from their rules instead ([`super::run_time_tables`]). rustc
/// takes its time over constant data: an array of 2 M numbers, 16 a line
/// as modules print them, took 22 s and 1.0 GB to build (`rustc -O`, this
/// machine loaded by other builds, measured with 71dbc4e).
///
/// The value itself is unmeasured beyond that; no corpus game's tables
/// that can be built at run time come near it.
pub const STATIC_NUMBERS_BUDGET: usize = 1 << 20;

/// The fewest numbers a relation's static tables print for it to be built
/// at run time over [`STATIC_NUMBERS_BUDGET`]: smaller tables cost rustc
/// little and stay constant data, whatever the total (gt_two_thirds_6p's
/// small relations, beside recursive ones that cannot be built at run
/// time).
///
/// The value is unmeasured.
pub const MIN_RUN_TIME_NUMBERS: usize = 1 << 16;

/// The most numbers the static tables may print once those that can be
/// are built at run time: a module over it is refused, its largest
/// relations named (a game outside the corpus printed 32.7 M, which rustc
/// built in minutes at 6.5 GB). gt_two_thirds_6p prints 1.6 M, in
/// recursive relations that cannot be built at run time (`absDiff`,
/// `sum`): under this limit it prints them as before.
///
/// Set with the feature (71dbc4e, figures at [`STATIC_NUMBERS_BUDGET`]).
pub const MAX_STATIC_NUMBERS: usize = 1 << 23;

/// Most cells of a directory printed at compile time (`fixed_index`, in [`super::statics`]), and
/// most values one of its rank tables spans: beyond either, the table's
/// directory is built at run time ([`gdl_runtime::lifted::Keyed`]).
///
/// Set with the feature (246fd9f: breakthrough 0.90, connectFour 0.88, chess.kif 0.90 of the instructions before).
pub const MAX_FIXED_CELLS: usize = 1 << 12;

/// Most cells of a directory printed at compile time (`fixed_index`, in [`super::statics`]), and
/// most values one of its rank tables spans: beyond either, the table's
/// directory is built at run time ([`gdl_runtime::lifted::Keyed`]). A
/// mask's rank tables keep to it too (`masks::indexed`): beyond it, its
/// values are searched.
///
/// Set with the feature (246fd9f, figures at [`MAX_FIXED_CELLS`]).
pub const MAX_FIXED_RANKS: usize = 1 << 14;

// ---- Goal values (tables) ----------------------------------------------

/// Most entries of the goal value table read by term: past it (number
/// terms far apart in the universe), a sorted table is searched.
///
/// Set with the feature (7db318e: ruleDepthQuadratic 1 097 -> 882 with the draws from legal bits).
pub const MAX_GOAL_SPAN: usize = 4096;

// ---- Term tables (terms) -----------------------------------------------

/// Largest dense table of one functor's terms, in entries.
///
/// unmeasured (402e2bb).
pub const MAX_DENSE: usize = 1 << 18;

/// Largest bit set of one static relation's tuples, in bits.
///
/// unmeasured (402e2bb).
pub const MAX_BITS: usize = 1 << 22;

// ---- The planner's estimates (join_order, and the registry's catalog) --

/// The estimated work of a call of a derived relation, in table lookups,
/// before anything better is known, and the base of an unbound argument's
/// cost. unmeasured (88ab281).
pub const DERIVED_CALL_WORK: f64 = 20.0;

/// The values an unbound argument of a derived call is taken to range over:
/// each multiplies the call's estimated work, so its arguments are bound
/// first through cheaper literals. unmeasured (88ab281).
pub const FREE_ARGUMENT_VALUES: f64 = 8.0;

/// The share of a functor's fluents that hold at once, for a scan's rows.
/// unmeasured (88ab281).
pub const HOLDING_SHARE: f64 = 0.25;

/// The share of a static or state literal's tuples each known leaf keeps.
/// Set with the join order (88ab281; unmeasured as a value).
pub const BOUND_LEAF_SHARE: f64 = 0.1;

/// The fewest rows (or the least chance of passing) an estimate gives, so
/// that no literal looks free. Set with the join order (3041370, from 0.5:
/// chess.kif, one playout, 622 M -> 114 M instructions).
pub const MIN_ROWS: f64 = 0.05;

/// The price of a pass over one word of a scan's mask, in lookups (a mask
/// of a functor's fluents by argument values). Set with the feature
/// (fe704f9, figures at [`MAX_VALUE_MASK_WORDS`]).
pub const MASK_WORD_PRICE: f64 = 0.25;

/// The price of reading a table a component computed (a search). Set with
/// the feature (ae5c18e, figures at [`MOVE_SEEDED_ROWS`]).
pub const TABLE_READ_PRICE: f64 = 2.0;

/// The price of a call beyond its rules' work: the call, its memo lookup.
/// Set with the sampled states (e3cb5ac, figures at [`MATCH_STEPS`]) and
/// a7d316e (FRANCE 1.17 M -> 0.50 M, PORTUGAL 0.97 M -> 0.56 M).
pub const CALL_PRICE: f64 = 4.0;

/// The price of a literal of a call's rules, where nothing better prices
/// the call: a few lookups, more on a cycle, where it recurses. Set with
/// the join order (3041370, figures at [`MIN_ROWS`]).
pub const LITERAL_PRICE: f64 = 4.0;

/// [`LITERAL_PRICE`] for a relation on a cycle.
pub const CYCLE_LITERAL_PRICE: f64 = 12.0;

/// The price of a `distinct` and the share of runs it passes. Set with the
/// join order (3041370, figures at [`MIN_ROWS`]).
pub const DISTINCT_PRICE: f64 = 0.2;

/// See [`DISTINCT_PRICE`].
pub const DISTINCT_PASSES: f64 = 0.9;

/// The share of runs a derived test (every argument bound) passes. Set with
/// the join order (3041370, figures at [`MIN_ROWS`]).
pub const CALL_TEST_PASSES: f64 = 0.5;

/// The price of a lookup that enumerates rows, beyond the rows. Set with
/// the join order (3041370, figures at [`MIN_ROWS`]).
pub const ENUMERATE_PRICE: f64 = 2.0;

/// The least chance a test is taken to reject, so that ordering tests by
/// price over rejection never divides by zero. Not a cost: a numerical
/// guard (4c3fe89).
pub const MIN_REJECTION: f64 = 1e-3;

/// A guard is kept only if the tuples it lets pass are at most one in this
/// many of its arguments' combinations: it must refuse at least half. Set
/// with the feature (4c3fe89, figures at [`MAX_GUARD_WORK`]).
pub const GUARD_MIN_REFUSED: f64 = 2.0;

/// The price of finding one atom of a call compiled ground that lists
/// answers, beyond its tests: its row and the branch to its test (a test
/// of every argument finds its one atom by rank). Set with the feature
/// (ae14207: nim3 -38%, nim4 -37%, cubicup_3player -10%, chess.kif -1.9%: lists
/// of many atoms each cheaper lifted); at 1.0 chineseCheckers1 took 41%
/// fewer instructions a playout too, but pawnToQueen 8% more.
pub const ATOM_PRICE: f64 = 0.5;

/// The price of testing one word of an atom's conjunctions (compiled
/// ground), in lookups: about half a lookup. Set with the feature (61e38b0,
/// figures at [`MAX_CONJUNCTIONS`]).
pub const ATOM_TEST_PRICE: f64 = 0.5;

// ---- Limits printed into the generated code (evaluation) ---------------

/// A recursive test runs without a memo, guarding against cycles by the
/// calls in progress only, until the evaluation has made 2^this many such
/// calls: most recursions walk a line or a count and never meet the same
/// call twice, and a memo insert costs more than such a step. Set with the
/// feature (75ed4ec: chess.kif, one playout, 760 M -> 622 M instructions).
pub const UNMEMOIZED_CALLS_LOG2: u32 = 16;

/// A recursive test branches when a recursive rule enumerates more than
/// this many rows per run before its recursive call; it is then answered
/// from a closure with fewer arguments bound, where there is one (see
/// `Round::branching_closure` in [`super::planner`]). Searched call by
/// call, a branching recursion walks every path until the memo starts
/// ([`UNMEMOIZED_CALLS_LOG2`]): hexbad's `path`, over `adjacent` (5.1 rows),
/// spent 2.4 M instructions a ply there. A recursion that walks a line
/// (chess.kif's `clear_diagonal_ne`: `next_file` and `next_rank`, one row
/// each) stays a search, which stops at the first answer. Set with the
/// feature (cf552ad: hexbad 104.7 M -> 2.1 M instructions a playout, 13
/// more corpus games 15-86% fewer).
pub const BRANCHING_ROWS: f64 = 1.5;

/// A branching recursive test stays a search when its base rules answer a
/// call at least this many times (expected): the search then stops at an
/// early answer, where the closure would find every answer of the call's
/// relation. atariGoVariant_7x7's `hasLiberty` (a neighbour empty: 1.7
/// expected) is 37% slower from the closure; hexbad's `path` (the path's
/// end reached: 0.012) is 50 times faster. Set with the feature (95971b3:
/// atariGoVariant_7x7 500 865 -> 365 572 instructions a playout, as before
/// cf552ad).
pub const SEARCH_BASE_ANSWERS: f64 = 0.5;

/// Answer lists up to this long keep their duplicates (sorting costs more
/// than walking them). Set with the feature (a8ff6ea: chess.kif 112.9 M ->
/// 109.2 M, speedChess 51.4 M -> 48.8 M instructions per 5 playouts).
pub const UNSORTED_ANSWERS: usize = 64;

/// Terms built at run time are kept from state to state until the store
/// holds 2^this many (a few megabytes at most). Set with the feature
/// (e566ec3: laikLee_hex -25.1%).
pub const KEPT_TERMS_LOG2: u32 = 16;
