//! Independent random playouts on several threads: a player's simulations
//! scale with the cores it has.
//!
//! Each thread plays from the initial state with its own generator; the
//! game is shared (`Sync`), and every reasoner keeps its scratch values per
//! thread. Thread 0 uses the seed itself, so one thread plays exactly the
//! playouts of [`run_playouts`].

use std::time::Instant;

use crate::playout::{run_playouts, Budget, PlayoutStats};
use crate::Game;

/// The seed of thread `i`: the seed itself for thread 0, well-mixed
/// distinct seeds for the others.
pub fn thread_seed(seed: u64, i: usize) -> u64 {
    if i == 0 {
        return seed;
    }
    // SplitMix64's increment and finaliser.
    let mut z = seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl PlayoutStats {
    /// Adds the playouts of `other` (not its time: set
    /// [`PlayoutStats::elapsed`]).
    pub fn merge(&mut self, other: &PlayoutStats) {
        if other.playouts == 0 {
            return;
        }
        if self.playouts == 0 || other.min_depth < self.min_depth {
            self.min_depth = other.min_depth;
        }
        self.max_depth = self.max_depth.max(other.max_depth);
        self.playouts += other.playouts;
        self.states += other.states;
        self.terminal += other.terminal;
        self.depth_limited += other.depth_limited;
        self.stuck += other.stuck;
        let roles = self.goal_sums.len().max(other.goal_sums.len());
        self.goal_sums.resize(roles, 0);
        self.goal_counts.resize(roles, 0);
        for (role, (&sum, &count)) in other.goal_sums.iter().zip(&other.goal_counts).enumerate() {
            self.goal_sums[role] += sum;
            self.goal_counts[role] += count;
        }
    }
}

/// Runs seeded random playouts on `threads` threads until `budget` is spent:
/// a number of playouts is shared out between the threads, a time is spent
/// by each. The elapsed time is the wall-clock time of the whole batch.
pub fn run_playouts_parallel<G: Game + Sync>(
    game: &G,
    budget: Budget,
    seed: u64,
    max_depth: usize,
    threads: usize,
) -> PlayoutStats {
    let threads = match budget {
        Budget::Playouts(n) => threads.clamp(1, n.max(1).try_into().unwrap_or(usize::MAX)),
        Budget::Time(_) => threads.max(1),
    };
    if threads == 1 {
        return run_playouts(game, budget, seed, max_depth);
    }
    let share = |i: usize| match budget {
        Budget::Playouts(n) => {
            let (t, i) = (threads as u64, i as u64);
            Budget::Playouts(n / t + u64::from(i < n % t))
        }
        time => time,
    };
    let start = Instant::now();
    let parts: Vec<PlayoutStats> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| s.spawn(move || run_playouts(game, share(i), thread_seed(seed, i), max_depth)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut stats = PlayoutStats::new(game.num_roles());
    for part in &parts {
        stats.merge(part);
    }
    stats.elapsed = start.elapsed();
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::{Counter, Nim};

    #[test]
    fn one_thread_plays_the_single_threaded_playouts() {
        let g = Nim { pile: 30 };
        let mut one = run_playouts_parallel(&g, Budget::Playouts(200), 7, 100, 1);
        let plain = run_playouts(&g, Budget::Playouts(200), 7, 100);
        one.elapsed = plain.elapsed;
        assert_eq!(one, plain);
    }

    #[test]
    fn threads_share_a_number_of_playouts_and_their_stats_add_up() {
        let g = Nim { pile: 30 };
        let stats = run_playouts_parallel(&g, Budget::Playouts(1001), 7, 100, 4);
        assert_eq!(stats.playouts, 1001);
        // The same playouts as four single-threaded batches of 251, 250, 250, 250.
        let mut expected = PlayoutStats::new(g.num_roles());
        for (i, n) in [251, 250, 250, 250].into_iter().enumerate() {
            expected.merge(&run_playouts(
                &g,
                Budget::Playouts(n),
                thread_seed(7, i),
                100,
            ));
        }
        expected.elapsed = stats.elapsed;
        assert_eq!(stats, expected);
    }

    #[test]
    fn fewer_playouts_than_threads_use_fewer_threads() {
        let g = Counter {
            roles: 2,
            moves: 2,
            target: 10,
            stuck_at: None,
        };
        let stats = run_playouts_parallel(&g, Budget::Playouts(2), 1, 100, 8);
        assert_eq!(stats.playouts, 2);
    }

    #[test]
    fn thread_seeds_differ() {
        let seeds: Vec<u64> = (0..16).map(|i| thread_seed(1, i)).collect();
        assert_eq!(seeds[0], 1);
        let mut sorted = seeds.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), seeds.len());
    }
}
