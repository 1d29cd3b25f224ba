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

/// The margin kept, from the worst stop-to-reply time measured.
#[derive(Clone, Copy, Debug)]
pub struct Margin {
    worst: Option<Duration>,
}

impl Default for Margin {
    fn default() -> Self {
        Margin::new()
    }
}

impl Margin {
    /// No measurement yet.
    pub const fn new() -> Self {
        Margin { worst: None }
    }

    /// The time to keep before a clock runs out: twice the worst measured
    /// plus the floor, or [`INITIAL`] before any measurement.
    pub fn reserve(&self) -> Duration {
        match self.worst {
            None => INITIAL,
            Some(w) => (w * 2 + FLOOR).max(FLOOR),
        }
    }

    /// Records one measured stop-to-reply time.
    pub fn record(&mut self, measured: Duration) {
        self.worst = Some(self.worst.map_or(measured, |w| w.max(measured)));
    }

    /// The worst measured so far.
    pub fn worst(&self) -> Option<Duration> {
        self.worst
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
}
