//! Speed measurement: random playouts for a fixed time, as the `play` and
//! `bench` commands report it.

use std::fmt;
use std::time::Duration;

use crate::playout::{run_playouts, Budget, PlayoutStats};
use crate::Game;

/// Runs seeded random playouts from the initial state for about `duration`
/// (at least one playout; the last one is finished, so the time is slightly
/// exceeded) and returns their statistics.
pub fn measure<G: Game>(game: &G, duration: Duration, seed: u64, max_depth: usize) -> PlayoutStats {
    run_playouts(game, Budget::Time(duration), seed, max_depth)
}

impl fmt::Display for PlayoutStats {
    /// One line: counts, speed, mean length and mean goals (`-` for a role
    /// that never ended with a goal value).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} playouts, {} states in {:.3} s: {:.0} playouts/s, {:.0} states/s, mean length {:.2}",
            self.playouts,
            self.states,
            self.elapsed.as_secs_f64(),
            self.playouts_per_sec(),
            self.states_per_sec(),
            self.average_length()
        )?;
        f.write_str(", mean goals [")?;
        for (role, g) in self.average_goals().into_iter().enumerate() {
            if role > 0 {
                f.write_str(" ")?;
            }
            match g {
                Some(v) => write!(f, "{v:.1}")?,
                None => f.write_str("-")?,
            }
        }
        f.write_str("]")?;
        if self.depth_limited > 0 || self.stuck > 0 {
            write!(
                f,
                " ({} cut at the depth bound, {} stuck)",
                self.depth_limited, self.stuck
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgames::Counter;

    #[test]
    fn measure_reports() {
        let g = Counter {
            roles: 2,
            moves: 1,
            target: 5,
            stuck_at: None,
        };
        let stats = measure(&g, Duration::from_millis(5), 1, 100);
        assert!(stats.playouts >= 1);
        assert_eq!(stats.states, stats.playouts * 4);
        let line = stats.to_string();
        assert!(line.contains("playouts/s"), "{line}");
        assert!(line.ends_with("mean goals [100.0 0.0]"), "{line}");
        let cut = measure(&g, Duration::ZERO, 1, 1);
        assert!(
            cut.to_string().contains("1 cut at the depth bound"),
            "{cut}"
        );
        assert!(cut.to_string().contains("mean goals [- -]"), "{cut}");
    }
}
