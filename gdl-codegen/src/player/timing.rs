//! The safety margin: how long before a clock runs out the search stops, so
//! that no reply is late. It is measured, not guessed: each turn records the
//! time from the search's stop signal to the reply being sent (threads
//! finishing their simulation, choosing the move, writing the reply, under
//! whatever load the machine has), and the margin kept is a multiple of the
//! worst seen, never under a floor that covers the network.

use std::time::Duration;

/// The margin before any measurement: generous, since the first turn's
/// stop-to-reply time is unknown (a slow reasoner's simulation may be long).
pub const INITIAL: Duration = Duration::from_millis(400);

/// The least margin ever kept: the manager's own delays and the network.
pub const FLOOR: Duration = Duration::from_millis(150);

/// How many of the latest measurements the margin follows: one outlier (a
/// burst of load from another process) raises it for this many turns, not
/// for the rest of the player's life. A player runs match after match, and
/// its first margin of 400 ms, kept forever, would cost every later turn.
pub const WINDOW: usize = 16;

/// The margin kept, from the worst of the latest stop-to-reply times
/// measured.
#[derive(Clone, Copy, Debug)]
pub struct Margin {
    /// The latest measurements, oldest overwritten first.
    recent: [Duration; WINDOW],
    /// How many were recorded (all of `recent` holds them past `WINDOW`).
    count: usize,
}

impl Default for Margin {
    fn default() -> Self {
        Margin::new()
    }
}

impl Margin {
    /// No measurement yet.
    pub const fn new() -> Self {
        Margin {
            recent: [Duration::ZERO; WINDOW],
            count: 0,
        }
    }

    /// The time to keep before a clock runs out: twice the worst of the
    /// latest measurements plus the floor, or [`INITIAL`] before any.
    pub fn reserve(&self) -> Duration {
        match self.worst() {
            None => INITIAL,
            Some(w) => (w * 2 + FLOOR).max(FLOOR),
        }
    }

    /// [`Margin::reserve`] for a clock of `clock`: at most half of it (but
    /// never under the floor). A reserve past half the clock leaves the
    /// search nearly nothing, turn after turn, for one slow measurement (a
    /// 418 ms stop-to-reply under load made 986 ms of a 1 s clock), when
    /// half the clock still covers a reply twice that slow as the worst
    /// the margin follows.
    pub fn reserve_within(&self, clock: Duration) -> Duration {
        self.reserve().min((clock / 2).max(FLOOR))
    }

    /// Records one measured stop-to-reply time.
    pub fn record(&mut self, measured: Duration) {
        self.recent[self.count % WINDOW] = measured;
        self.count += 1;
    }

    /// The worst of the latest measurements.
    pub fn worst(&self) -> Option<Duration> {
        self.recent[..self.count.min(WINDOW)].iter().copied().max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_with_the_worst_measurement_only() {
        let mut m = Margin::new();
        assert_eq!(m.reserve(), INITIAL);
        m.record(Duration::from_millis(10));
        assert_eq!(m.reserve(), Duration::from_millis(170));
        m.record(Duration::from_millis(100));
        m.record(Duration::from_millis(5));
        assert_eq!(m.reserve(), Duration::from_millis(350));
    }

    #[test]
    fn the_reserve_takes_at_most_half_the_clock_above_the_floor() {
        let mut m = Margin::new();
        m.record(Duration::from_millis(418));
        let second = Duration::from_secs(1);
        assert_eq!(m.reserve(), Duration::from_millis(986));
        assert_eq!(m.reserve_within(second), Duration::from_millis(500));
        assert_eq!(m.reserve_within(second * 30), Duration::from_millis(986));
        assert_eq!(m.reserve_within(second / 10), FLOOR);
    }

    #[test]
    fn an_outlier_is_forgotten_after_the_window() {
        let mut m = Margin::new();
        m.record(Duration::from_millis(900));
        for _ in 0..WINDOW - 1 {
            m.record(Duration::from_millis(10));
        }
        assert_eq!(m.worst(), Some(Duration::from_millis(900)));
        m.record(Duration::from_millis(10));
        assert_eq!(m.worst(), Some(Duration::from_millis(10)));
        assert_eq!(m.reserve(), Duration::from_millis(170));
    }
}
