//! Support for the modules of gdl-codegen's lifted back end: per-state memo
//! tables, lookups in sorted constant tables, and iteration over the
//! fluents of a state. Kept here so that generated code stays short and
//! reads as the rules it came from.
//!
//! Generated code names everything here as `gdl_runtime::lifted::X`; the
//! submodules are private and their items re-exported:
//! - `sorted`: binary search of sorted tables ([`rows`], [`contains`]);
//! - `index`: [`Index`], a table with a directory printed at compile time;
//! - `keyed`: [`Keyed`], a table with a directory built at first use;
//! - `span`: [`Span`] and the spans of argument values;
//! - `scan`: bit-set scans and masks ([`set_bits_filtered`], [`Bits`], ...);
//! - `moves`: legal moves as bits, and sorting moves;
//! - `answers`: answer lists ([`push_new`], [`push_new_from`], [`dedup_from`]);
//! - `terms`: the run-time [`TermStore`];
//! - memo tables ([`Memo`], [`DenseMemo`], ...) from `crate::memo`.

mod answers;
mod index;
mod keyed;
mod moves;
mod scan;
mod sorted;
mod span;
mod terms;

pub use crate::memo::{DenseMemo, FxHasher, Memo, MemoKey, Slots};
// Modules printed before `move_bits` was shared by both back ends call
// these here.
pub use crate::move_bits::{push_moves_of_bits, random_move_of_bits};
pub use answers::{dedup_from, push_new, push_new_from};
pub use index::{run, Index, Ranks};
pub use keyed::Keyed;
pub use moves::sort_moves;
pub use scan::{
    bit_set, or_bits_in, or_bits_shifted, set_bits_filtered, set_bits_in, Bits, SetBits,
};
pub use sorted::{contains, reordered, rows};
pub use span::{value_span, value_spans, Span, SpanIndex};
pub use terms::{TermStore, MAX_RUN_TIME_TERMS};

/// A term id that names no term: what building a term outside the game's
/// term universe gives. It equals no term of a table, a state or a move.
pub const NONE: u32 = u32::MAX;
