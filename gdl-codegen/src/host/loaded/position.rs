//! [`Position`]: the simulation API of a loaded game, a state inside the
//! library with what its last step computed.

use core::ffi::c_void;

use gdl_runtime::abi::PositionView;
use gdl_runtime::{Move, Role};

use gdl_runtime::Game as _;

use super::{LoadError, LoadedGame, LoadedState};

/// A position of a loaded game: a state held inside the library with its
/// terminal flag and every role's legal moves, computed once by the step
/// that reached it. One step of a tree search (apply a joint move, list
/// the legal moves, test terminal) is one call into the library.
///
/// A position belongs to one thread at a time (`Send`, not `Sync`); make
/// one per search thread.
pub struct Position {
    game: LoadedGame,
    ptr: *mut c_void,
    view: PositionView,
    num_roles: usize,
}

// SAFETY: the position is plain data owned by this handle; the library's
// entry points may run on any thread.
unsafe impl Send for Position {}

impl Position {
    pub(super) fn new(game: LoadedGame) -> Result<Position, LoadError> {
        let abi = game.abi();
        let mut ptr = core::ptr::null_mut();
        // SAFETY: an out pointer for the new position.
        let status = unsafe { (abi.position_new)(&mut ptr) };
        game.status(status).map_err(LoadError::Game)?;
        let mut position = Position {
            num_roles: abi.num_roles as usize,
            game,
            ptr,
            view: PositionView {
                state: core::ptr::null(),
                terminal: 1,
                moves: core::ptr::null(),
                counts: core::ptr::null(),
            },
        };
        position.refresh()?;
        Ok(position)
    }

    /// Reads what the library holds after a change.
    fn refresh(&mut self) -> Result<(), LoadError> {
        // SAFETY: our live position and a view to fill.
        let status = unsafe { (self.game.abi().position_view)(self.ptr, &mut self.view) };
        self.game.status(status).map_err(LoadError::Game)
    }

    /// Applies `joint` (one move a role, in role order); the position is
    /// then at the next state.
    #[inline]
    pub fn step(&mut self, joint: &[Move]) -> Result<(), LoadError> {
        // SAFETY: our live position; Move is repr(transparent) over u32.
        let status = unsafe {
            (self.game.abi().position_step)(
                self.ptr,
                joint.as_ptr().cast(),
                joint.len(),
                &mut self.view,
            )
        };
        self.game.status(status).map_err(LoadError::Game)
    }

    /// Moves the position to `state` (re-rooting a search).
    pub fn set(&mut self, state: &LoadedState) -> Result<(), LoadError> {
        if !self.game.valid(&state.0) {
            return Err(LoadError::Game(self.game.failure().unwrap_or_default()));
        }
        // SAFETY: our live position; a state of the game's words.
        let status =
            unsafe { (self.game.abi().position_set)(self.ptr, state.0.as_ptr(), &mut self.view) };
        self.game.status(status).map_err(LoadError::Game)
    }

    /// The state's words.
    #[inline]
    pub fn words(&self) -> &[u64] {
        // SAFETY: the view points at the state's words until the next change.
        unsafe { core::slice::from_raw_parts(self.view.state, self.game.state_words()) }
    }

    /// The state, copied out.
    pub fn state(&self) -> LoadedState {
        LoadedState(self.words().into())
    }

    /// Whether the state is terminal.
    #[inline]
    pub fn is_terminal(&self) -> bool {
        self.view.terminal != 0
    }

    /// The legal moves of `role` (none in a terminal state), in the order
    /// `Game::legal_moves` lists them.
    #[inline]
    pub fn legal(&self, role: Role) -> &[Move] {
        if role >= self.num_roles {
            return &[];
        }
        // SAFETY: num_roles pointers and counts, valid until the next
        // change; Move is repr(transparent) over u32.
        unsafe {
            let moves = *self.view.moves.add(role);
            let count = *self.view.counts.add(role);
            core::slice::from_raw_parts(moves.cast::<Move>(), count)
        }
    }

    /// The game.
    pub fn game(&self) -> &LoadedGame {
        &self.game
    }
}

impl Drop for Position {
    fn drop(&mut self) {
        // SAFETY: our position, freed once.
        unsafe { (self.game.abi().position_free)(self.ptr) }
    }
}
