//! The `gdl!` macro: compiles a game written in the Game Description Language
//! (GDL) into Rust while your crate builds.
//!
//! The macro is a thin layer over the `gdl-codegen` library (read, check,
//! ground, emit); it holds no compiler logic of its own. The generated code
//! depends only on `gdl-runtime`, so a crate using the macro needs both:
//!
//! ```toml
//! [dependencies]
//! gdl-macro = "0.1"
//! gdl-runtime = "0.1"
//! ```
//!
//! See [`gdl!`] for the syntax, the options and the error messages.
//!
//! # Build time
//!
//! The macro runs the whole compiler inside `rustc`, once per build of the
//! calling crate. Cargo builds proc macros without optimisation in the `dev`
//! profile, which makes the compiler several times slower than it need be.
//! Optimise it (and every other build-time dependency) in your workspace's
//! `Cargo.toml`:
//!
//! ```toml
//! [profile.dev.build-override]
//! opt-level = 3
//!
//! [profile.release.build-override]
//! opt-level = 3
//! ```
//!
//! This costs one optimised build of the compiler, done once; every
//! expansion afterwards is fast.

/// Compiles a GDL game into a Rust type implementing `gdl_runtime::Game`.
///
/// # Syntax
///
/// The input is a list of statements, each ended by `;`, in any order:
///
/// | statement | meaning |
/// |---|---|
/// | `include "games/x.kif";` | read the game from a file, relative to the calling crate's `CARGO_MANIFEST_DIR` (`.hrf` files are read as infix GDL) |
/// | `r#"(role a) ..."#;` | the game itself, inline, as a string literal |
/// | `#[attr] VIS mod name;` | put the generated items in a module `name` with this visibility and these attributes (without it they are placed where the macro is called) |
/// | `struct Name;` | name the game type (default: from the file name, else from the module name, else `Game`); the state type is `NameState` |
/// | `case_sensitive;` | keep names of different case apart (prefix GDL folds case by default) |
/// | `syntax = infix;` / `syntax = prefix;` | how to read the game (default: from the file extension, prefix for inline GDL) |
/// | `max_rules = N;` | the grounding budget in ground rules (default 8 000 000) |
/// | `max_memory_mb = N;` | the grounding memory budget (default 4096) |
/// | `max_literals = N;` | the compile budget in rule literals (default 8 000 000) |
///
/// Exactly one of `include` and an inline literal is required.
///
/// A game read from a file:
///
/// ```
/// gdl_macro::gdl! {
///     pub mod tictactoe;
///     struct TicTacToe;
///     include "tests/games/tictactoe.kif";
/// }
///
/// use gdl_runtime::Game;
/// let game = tictactoe::TicTacToe;
/// assert_eq!(game.role_names(), ["xplayer", "oplayer"]);
/// assert!(!game.is_terminal(&game.initial_state()));
/// ```
///
/// Editing `tests/games/tictactoe.kif` rebuilds the crate: the expansion holds an
/// `include_str!` of the file.
///
/// # Inline GDL
///
/// Inline GDL is a string literal, best a raw one (`r#"..."#`): GDL is not made
/// of Rust tokens. Its `;` comments, names such as `prev-goal` or `3x`, and
/// `?variables` would not survive Rust's lexer, so the macro does not take GDL
/// as bare tokens. In a raw string everything is kept as written; only the
/// closing `"#` ends it (use `r##"..."##` if the game holds `"#`, which GDL
/// never needs).
///
/// ```
/// gdl_macro::gdl! {
///     mod nim;
///     struct Nim;
///     r#"
///     ; Two players take one or two sticks; who takes the last one wins.
///     (role first) (role second)
///     (init (sticks 4)) (init (control first))
///     (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
///     (<= (legal ?p (take 1)) (true (control ?p)) (true (sticks ?n)) (succ ?m ?n))
///     (<= (legal ?p (take 2)) (true (control ?p)) (true (sticks ?n)) (succ ?m ?n) (succ ?k ?m))
///     (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
///     (<= (next (sticks ?m)) (does ?p (take 1)) (true (sticks ?n)) (succ ?m ?n))
///     (<= (next (sticks ?k)) (does ?p (take 2)) (true (sticks ?n)) (succ ?m ?n) (succ ?k ?m))
///     (<= (next (control first)) (true (control second)))
///     (<= (next (control second)) (true (control first)))
///     (<= (prev-goal ?p) (true (control ?p)))
///     (<= terminal (true (sticks 0)))
///     (<= (goal ?p 100) (prev-goal ?p) (true (sticks 0)))
///     (<= (goal ?p 0) (role ?p) (not (prev-goal ?p)))
///     "#
/// }
///
/// use gdl_runtime::Game;
/// let game = nim::Nim;
/// assert_eq!(gdl_runtime::perft(&game, &game.initial_state(), 2), 4);
/// ```
///
/// GDL written as tokens is refused with a message saying how to write it:
///
/// ```compile_fail
/// gdl_macro::gdl! { mod bad; (role a) }
/// ```
///
/// # Several games in one crate
///
/// Give each game its own module (the generated items have fixed names, such as
/// its tables, so two games cannot share a module):
///
/// ```
/// // The type name comes from the file name: `Tictactoe`.
/// gdl_macro::gdl! { pub(crate) mod ttt; include "tests/games/tictactoe.kif"; }
/// gdl_macro::gdl! {
///     mod tiny;
///     struct Tiny;
///     r#"(role a) (init p) (legal a go) (<= (next q) (true p)) (<= terminal (true q)) (goal a 100)"#;
/// }
///
/// use gdl_runtime::Game;
/// assert_eq!(ttt::Tictactoe.num_roles(), 2);
/// assert_eq!(gdl_runtime::perft(&tiny::Tiny, &tiny::Tiny.initial_state(), 1), 1);
/// ```
///
/// # Errors
///
/// Every problem of the game is a compile error, all of them at once. For a
/// game read from a file, the error points at the path and its message holds
/// the file's own line, column and a caret under the offending text:
///
/// ```text
/// error: [E0203]: unsafe rule: variable(s) `?y` of the head are not bound by any positive body literal
///          ┌─ games/unsafe.kif:4:5
///          │
///        4 │ (<= (next (cell ?y)) (true (cell ?x)))
///          │     ^^^^^^^^^^^^^^^^ head variables without a binding
///          │
///          = GDL requires every variable of a rule to occur in a positive body literal (Definition 3, allowedness)
///          = help: add a positive literal that binds them, such as a domain relation
///  --> src/main.rs:3:13
///   |
/// 3 |     include "games/unsafe.kif";
///   |             ^^^^^^^^^^^^^^^^^^
/// ```
///
/// For inline GDL the error points at the literal and gives the line and
/// column within it. A game too large to ground or to compile says which
/// budget it exceeded and how to raise it (`max_rules = N;` and friends).
/// Warnings of the checker are not shown (a proc macro cannot emit warnings on
/// stable Rust): run `gdl-codegen check` on the file to see them.
#[proc_macro]
pub fn gdl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    gdl_codegen::expand::gdl(input.into()).into()
}
