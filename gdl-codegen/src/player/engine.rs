//! The search engine of a match, with the game's type erased: a
//! [`UctEngine`] over any `gdl_runtime::Game` is a `Box<dyn Engine>`, so the
//! interpreter, the propnet and (once issue 48 loads it) compiled code all
//! play through the same match code.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use gdl_runtime::{Game, Move, Role};

use super::uct::Tree;

/// What a search did, for the logs.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchReport {
    /// Simulations over every thread.
    pub simulations: u64,
    /// Nodes over every thread's tree.
    pub nodes: usize,
}

/// A game being played: its current state, and a search over it.
pub trait Engine: Send {
    /// The reasoner's name, for the logs (`interpreter`, `propnet`, …).
    fn reasoner(&self) -> &str;
    /// The index of the role named `name` (any case).
    fn role_index(&self, name: &str) -> Option<Role>;
    /// Every role's name, in role order.
    fn role_names(&self) -> Vec<String>;
    /// Plays the joint move (GDL text, one per role in role order),
    /// keeping the trees below it (re-rooted and compacted).
    fn advance(&mut self, joint: &[String]) -> Result<(), String>;
    /// Plays the joint move without keeping the trees: they restart at the
    /// new state (cheap whatever their size).
    fn restart(&mut self, joint: &[String]) -> Result<(), String>;
    /// Nodes in the trees.
    fn nodes(&self) -> usize;
    /// How many nodes a compaction of the trees after `joint` keeps (what
    /// it costs; 0 when none is due), counted up to `limit`: past it, some
    /// count above `limit`.
    fn kept_by(&self, joint: &[String], limit: usize) -> Result<usize, String>;
    /// Plays the joint move, the trees re-rooted in place without a
    /// compaction.
    fn advance_in_place(&mut self, joint: &[String]) -> Result<(), String>;
    /// Searches until `until` or until `stop` is raised.
    fn search(&mut self, until: Instant, stop: &AtomicBool) -> SearchReport;
    /// The move `role` should play now (GDL text); `None` when it has none.
    fn best_move(&self, role: Role) -> Option<String>;
    /// How many legal moves `role` has now.
    fn legal_count(&self, role: Role) -> usize;
    /// Every role's goal in the current state (`None` where undefined).
    fn goals(&self) -> Vec<Option<u8>>;
    /// Why the reasoner gave up, if it did (the interpreter over budget).
    fn failure(&self) -> Option<String>;
}

/// How a search runs.
#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    /// Threads, one tree each.
    pub threads: usize,
    /// The memory all trees may take together, in bytes.
    pub tree_bytes: usize,
    /// Seed of the trees' random choices.
    pub seed: u64,
}

/// UCT on one tree per thread over a shared game.
pub struct UctEngine<G: Game> {
    name: String,
    game: Arc<G>,
    trees: Vec<Tree<G::State>>,
}

impl<G: Game + 'static> UctEngine<G> {
    /// An engine at `game`'s initial state.
    pub fn new(name: &str, game: G, config: SearchConfig) -> Self {
        let game = Arc::new(game);
        let threads = config.threads.max(1);
        let per_tree = config.tree_bytes / threads;
        let state = game.initial_state();
        let trees = (0..threads)
            .map(|i| {
                Tree::new(
                    &*game,
                    state.clone(),
                    per_tree,
                    config.seed.wrapping_add(i as u64),
                )
            })
            .collect();
        UctEngine {
            name: name.to_owned(),
            game,
            trees,
        }
    }

    /// The joint move read, each move warned about when it is not legal
    /// (and played anyway: the manager decides what was played).
    fn checked_moves(&self, joint: &[String]) -> Result<Vec<Move>, String> {
        let moves = self.joint_moves(joint)?;
        let mut legal = Vec::new();
        let state = self.trees[0].root_state();
        for (role, mv) in moves.iter().enumerate() {
            self.game.legal_moves(state, role, &mut legal);
            if !legal.contains(mv) {
                eprintln!(
                    "warning: the manager reports an illegal move `{}`",
                    joint[role]
                );
            }
        }
        Ok(moves)
    }

    fn joint_moves(&self, joint: &[String]) -> Result<Vec<Move>, String> {
        let roles = self.game.num_roles();
        if joint.len() != roles {
            return Err(format!("{} moves for {roles} roles", joint.len()));
        }
        joint
            .iter()
            .enumerate()
            .map(|(role, text)| {
                self.game
                    .parse_move(role, text)
                    .map_err(|e| format!("move `{text}` of {}: {e}", self.game.role_name(role)))
            })
            .collect()
    }
}

impl<G: Game + 'static> Engine for UctEngine<G>
where
    G::State: 'static,
{
    fn reasoner(&self) -> &str {
        &self.name
    }

    fn role_index(&self, name: &str) -> Option<Role> {
        (0..self.game.num_roles()).find(|&r| self.game.role_name(r).eq_ignore_ascii_case(name))
    }

    fn role_names(&self) -> Vec<String> {
        self.game
            .role_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn advance(&mut self, joint: &[String]) -> Result<(), String> {
        let moves = self.checked_moves(joint)?;
        for tree in &mut self.trees {
            tree.advance(&*self.game, &moves);
        }
        Ok(())
    }

    fn restart(&mut self, joint: &[String]) -> Result<(), String> {
        let moves = self.checked_moves(joint)?;
        for tree in &mut self.trees {
            tree.restart(&*self.game, &moves);
        }
        Ok(())
    }

    fn nodes(&self) -> usize {
        self.trees.iter().map(Tree::len).sum()
    }

    fn kept_by(&self, joint: &[String], limit: usize) -> Result<usize, String> {
        let moves = self.joint_moves(joint)?;
        let mut kept = 0;
        for tree in &self.trees {
            if kept > limit {
                break;
            }
            kept += tree.kept_by(&*self.game, &moves, limit - kept);
        }
        Ok(kept)
    }

    fn advance_in_place(&mut self, joint: &[String]) -> Result<(), String> {
        let moves = self.checked_moves(joint)?;
        for tree in &mut self.trees {
            tree.advance_in_place(&*self.game, &moves);
        }
        Ok(())
    }

    fn search(&mut self, until: Instant, stop: &AtomicBool) -> SearchReport {
        let game = &*self.game;
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .trees
                .iter_mut()
                .map(|tree| s.spawn(move || tree.search(game, until, stop)))
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        SearchReport {
            simulations: results.iter().map(|r| r.simulations).sum(),
            nodes: results.iter().map(|r| r.nodes).sum(),
        }
    }

    fn best_move(&self, role: Role) -> Option<String> {
        let mv = best_move(&self.trees, role)?;
        Some(self.game.move_text(role, mv))
    }

    fn legal_count(&self, role: Role) -> usize {
        self.trees[0].root_stats(role).count()
    }

    fn goals(&self) -> Vec<Option<u8>> {
        let state = self.trees[0].root_state();
        (0..self.game.num_roles())
            .map(|r| self.game.goal(state, r).value())
            .collect()
    }

    fn failure(&self) -> Option<String> {
        self.game.failure()
    }
}

/// The move to play: in a single-player game the first move of the best
/// line any tree found (the game is deterministic, so the line's reward is
/// guaranteed); else the move the trees visited most together (the most
/// robust), ties broken by the mean reward.
fn best_move<S: Clone + Eq + std::hash::Hash>(trees: &[Tree<S>], role: Role) -> Option<Move> {
    let line = trees
        .iter()
        .filter_map(Tree::best_line)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((reward, mv)) = line {
        if reward > 0.0 {
            return Some(mv);
        }
    }
    let mut sums: Vec<(Move, u64, f64)> = Vec::new();
    for tree in trees {
        for (mv, st) in tree.root_stats(role) {
            match sums.iter_mut().find(|s| s.0 == mv) {
                Some(s) => {
                    s.1 += u64::from(st.visits);
                    s.2 += st.total;
                }
                None => sums.push((mv, u64::from(st.visits), st.total)),
            }
        }
    }
    let mean = |s: &(Move, u64, f64)| if s.1 == 0 { 0.0 } else { s.2 / s.1 as f64 };
    sums.iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(mean(a).total_cmp(&mean(b))))
        .map(|s| s.0)
}
