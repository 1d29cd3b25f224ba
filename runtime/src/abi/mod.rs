//! The C ABI of a loaded game: what a compiled game built as a shared
//! library exports, so that a program can load games compiled at run time
//! (`gdl_codegen::host::loaded` loads them).
//!
//! The library exports one symbol, [`DESCRIPTOR_SYMBOL`], a function
//! returning a pointer to a static [`GameAbi`]: version, layout checks, the
//! compiler build that generated the game, its sizes, and `extern "C"`
//! entry points over plain data only: a state is `state_words` `u64`s, a
//! move a `u32` id, a role a `u32` index, text UTF-8 bytes. The first two
//! fields (`abi_version`, `size`) keep their place in every version, so a
//! loader reads them before anything else and refuses a library of another
//! version or layout with a clear error.
//!
//! Every entry point returns a status ([`OK`], [`PANIC`], [`TOO_SMALL`],
//! [`INVALID`]). No panic crosses the boundary: each entry point catches
//! unwinding and returns [`PANIC`], the message kept for `last_error`
//! (unwinding across `extern "C"` would abort the whole process, a player
//! included, for one bad game). Entry points are safe to call from many
//! threads at once: the game is immutable, and the generated code's
//! caches are per thread.
//!
//! Hot loops stay inside the library: `playouts` runs a batch of random
//! playouts from a state, and a *position* keeps what a step computed
//! (the state, terminal, every role's legal moves) for the queries that
//! follow, so one step of a tree search crosses the boundary once.
//!
//! The library side is [`export_game!`], over a game whose state is a
//! tuple struct of one `[u64; N]`, as both back ends generate.

mod export;

pub use export::{descriptor, Words};

/// The version of this ABI: a loader refuses any other.
pub const ABI_VERSION: u32 = 1;

/// The symbol of the function returning the library's [`GameAbi`].
pub const DESCRIPTOR_SYMBOL: &[u8] = b"gdl_game_abi";

/// Success.
pub const OK: i32 = 0;
/// The game panicked; `last_error` has the message.
pub const PANIC: i32 = 1;
/// The output buffer is too small; the length needed was written.
pub const TOO_SMALL: i32 = 2;
/// The input is not valid (a text that is not a move or a state, a role
/// out of range); `last_error` has the message.
pub const INVALID: i32 = 3;

/// Written to `endian`: a loader of the other byte order reads it swapped.
pub const ENDIAN_PROBE: u32 = 0x0102_0304;

/// Set in a playout budget: the rest is a time in nanoseconds, not a count.
pub const BUDGET_NANOS: u64 = 1 << 63;

/// Most bytes of a build id.
pub const BUILD_ID_BYTES: usize = 64;

/// A goal of no value (`Goal::None`) as `goal` writes it.
pub const GOAL_NONE: i32 = -1;
/// Several goal values (`Goal::Ambiguous`) as `goal` writes it.
pub const GOAL_AMBIGUOUS: i32 = -2;

/// Writes a text into `out` (`cap` bytes), its length into `len`.
pub type TextOut = *mut u8;

/// What a loaded game's library exports (see the module documentation).
/// All pointers to states point at `state_words` words.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GameAbi {
    /// [`ABI_VERSION`] of the library.
    pub abi_version: u32,
    /// `size_of::<GameAbi>()` in the library.
    pub size: u32,
    /// Bits of a pointer in the library.
    pub pointer_bits: u32,
    /// [`ENDIAN_PROBE`].
    pub endian: u32,
    /// The build id of the compiler that generated the game, UTF-8.
    pub build_id: [u8; BUILD_ID_BYTES],
    /// Bytes of `build_id` used.
    pub build_id_len: u32,
    /// Words of a state.
    pub state_words: u32,
    /// Number of roles.
    pub num_roles: u32,
    /// The initial state into `out`.
    pub initial: unsafe extern "C" fn(out: *mut u64) -> i32,
    /// The legal moves of `role` into `out` (`cap` moves), their number into `len`.
    pub legal: unsafe extern "C" fn(*const u64, u32, *mut u32, usize, *mut usize) -> i32,
    /// Whether the state is terminal, 0 or 1, into `out`.
    pub terminal: unsafe extern "C" fn(*const u64, *mut u8) -> i32,
    /// The goal of `role`: a value, [`GOAL_NONE`] or [`GOAL_AMBIGUOUS`].
    pub goal: unsafe extern "C" fn(*const u64, u32, *mut i32) -> i32,
    /// Applies the joint move (`n` moves, one a role) to the state in place.
    pub apply: unsafe extern "C" fn(*mut u64, *const u32, usize) -> i32,
    /// The name of `role` (text out).
    pub role_name: unsafe extern "C" fn(u32, TextOut, usize, *mut usize) -> i32,
    /// The GDL text of move `mv` of `role` (text out).
    pub move_text: unsafe extern "C" fn(u32, u32, TextOut, usize, *mut usize) -> i32,
    /// The fluents true in the state, one a line (text out).
    pub fluents: unsafe extern "C" fn(*const u64, TextOut, usize, *mut usize) -> i32,
    /// The move of `role` with the GDL text given (bytes, length).
    pub parse_move: unsafe extern "C" fn(u32, *const u8, usize, *mut u32) -> i32,
    /// The state whose fluents are the GDL terms given, into the words out.
    pub parse_state: unsafe extern "C" fn(*const u8, usize, *mut u64) -> i32,
    /// Random playouts from a state: seed, a budget (a count of playouts,
    /// or with [`BUDGET_NANOS`] set a time in nanoseconds), the step bound;
    /// out the totals and every role's goal sums and counts (`num_roles`
    /// each).
    pub playouts: unsafe extern "C" fn(
        *const u64,
        u64,
        u64,
        u64,
        *mut PlayoutTotals,
        *mut u64,
        *mut u64,
    ) -> i32,
    /// A new position (opaque), at the initial state.
    pub position_new: unsafe extern "C" fn(*mut *mut core::ffi::c_void) -> i32,
    /// Frees a position.
    pub position_free: unsafe extern "C" fn(*mut core::ffi::c_void),
    /// Moves a position to a state; what it then holds into the view.
    pub position_set:
        unsafe extern "C" fn(*mut core::ffi::c_void, *const u64, *mut PositionView) -> i32,
    /// Applies a joint move to a position: its legal moves and terminal are
    /// then those of the next state, and what it holds is in the view (one
    /// call a step of a search).
    pub position_step:
        unsafe extern "C" fn(*mut core::ffi::c_void, *const u32, usize, *mut PositionView) -> i32,
    /// What a position holds, valid until it changes.
    pub position_view: unsafe extern "C" fn(*const core::ffi::c_void, *mut PositionView) -> i32,
    /// The message of this thread's last [`PANIC`] or [`INVALID`] (text out).
    pub last_error: unsafe extern "C" fn(TextOut, usize, *mut usize) -> i32,
}

/// The totals of a batch of playouts.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutTotals {
    /// Playouts run.
    pub playouts: u64,
    /// States visited, the first of each playout included.
    pub states: u64,
    /// Playouts that reached a terminal state.
    pub terminal: u64,
    /// Playouts stopped by the step bound.
    pub depth_limited: u64,
    /// Playouts stopped by a role without a legal move.
    pub stuck: u64,
    /// Fewest joint moves of a playout.
    pub min_depth: u64,
    /// Most joint moves of a playout.
    pub max_depth: u64,
    /// Time taken, in nanoseconds.
    pub elapsed_nanos: u64,
}

/// What a position holds: pointers into it, valid until it next changes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PositionView {
    /// The state's words.
    pub state: *const u64,
    /// 1 when the state is terminal (and no role then has moves listed).
    pub terminal: u8,
    /// Each role's legal moves (`num_roles` pointers).
    pub moves: *const *const u32,
    /// Each role's number of legal moves (`num_roles`).
    pub counts: *const usize,
}
