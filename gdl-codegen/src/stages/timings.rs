//! The `--timings` observer: every stage's wall time, in the order the
//! stages ended, as a table.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Event, Observer, Stage};

/// Records each stage's wall time; [`Timings::table`] prints them.
#[derive(Debug)]
pub struct Timings {
    created: Instant,
    /// Stages as they started (depth), with their times once they ended.
    rows: Mutex<Vec<(Stage, usize, Option<Duration>)>>,
}

impl Default for Timings {
    fn default() -> Self {
        Timings::new()
    }
}

impl Timings {
    /// An empty record; the table's total counts from now.
    pub fn new() -> Timings {
        Timings {
            created: Instant::now(),
            rows: Mutex::new(Vec::new()),
        }
    }

    fn rows(&self) -> Vec<(Stage, usize, Option<Duration>)> {
        self.rows.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The time of `stage` summed over its top-level runs (a stage inside
    /// another is counted in its parent's time).
    pub fn top_level(&self, stage: Stage) -> Duration {
        self.rows()
            .iter()
            .filter(|r| r.0 == stage && r.1 == 0)
            .filter_map(|r| r.2)
            .sum()
    }

    /// The stages recorded, in the order they started, with their depth.
    pub fn stages(&self) -> Vec<(Stage, usize)> {
        self.rows().iter().map(|r| (r.0, r.1)).collect()
    }

    /// The table: one line a stage run (nested stages indented under
    /// their parent, whose time includes theirs), then the wall time since
    /// the record was made.
    pub fn table(&self) -> String {
        let mut out = format!("{:<16} {:>9}\n", "stage", "seconds");
        for (stage, depth, time) in self.rows() {
            let name = format!("{}{}", "  ".repeat(depth), stage.name());
            let secs = time.map_or("-".to_owned(), |t| format!("{:.3}", t.as_secs_f64()));
            let _ = writeln!(out, "{name:<16} {secs:>9}");
        }
        let total = self.created.elapsed().as_secs_f64();
        let _ = writeln!(out, "{:<16} {total:>9.3}", "total");
        out
    }
}

impl Observer for Timings {
    fn event(&self, event: &Event) {
        let Ok(mut rows) = self.rows.lock() else {
            return;
        };
        match *event {
            Event::Start { stage, depth } => rows.push((stage, depth, None)),
            Event::End {
                stage,
                depth,
                elapsed,
                ..
            } => {
                // The last row of this stage and depth still open.
                if let Some(row) = rows
                    .iter_mut()
                    .rev()
                    .find(|r| r.0 == stage && r.1 == depth && r.2.is_none())
                {
                    row.2 = Some(elapsed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::{stage, Tracker};
    use std::sync::Arc;

    #[test]
    fn the_table_lists_stages_nested_with_a_total() {
        let timings = Arc::new(Timings::new());
        let tracker = Tracker::new().observe(timings.clone());
        tracker.enter(|| {
            stage(Stage::Check, || ());
            stage(Stage::Plan, || stage(Stage::Sample, || ()));
        });
        assert_eq!(
            timings.stages(),
            [(Stage::Check, 0), (Stage::Plan, 0), (Stage::Sample, 1)]
        );
        let table = timings.table();
        let names: Vec<&str> = table
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(names, ["stage", "check", "plan", "sample", "total"]);
        assert!(table.contains("\n  sample"), "{table}");
        assert_eq!(timings.top_level(Stage::Sample), Duration::ZERO);
    }
}
