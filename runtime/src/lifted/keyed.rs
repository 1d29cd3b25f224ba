//! [`Keyed`]: a sorted constant table looked up through a directory of
//! dense key ranks built at the first lookup (tables too large for a
//! printed [`Index`](super::Index)).

use super::sorted::rows;
use super::NONE;

/// A sorted constant table (rows of `W` numbers) looked up by its first
/// `keys` columns, through a directory built on first use: each key column's
/// values are ranked, and the rows of every combination of ranks are found
/// by one array index. Term ids are small and dense, so the rank tables are
/// arrays indexed by value. When the combinations would be too many, the
/// directory covers the first column only and the rest of the key is
/// searched.
///
/// Rows are arrays: a lookup's run is a slice of them, which the generated
/// code iterates with constant column indexes (no chunking of a flat run,
/// no bounds check per column).
pub struct Keyed<const W: usize> {
    table: &'static [[u32; W]],
    keys: usize,
    directory: std::sync::OnceLock<Directory>,
}

/// Most combinations of key ranks a directory indexes (4 MB of starts at
/// most, built once): amazons' moves, six argument columns of ten values
/// (10^6 combinations), have their directory cover them all, where at
/// 2^18 it stopped at five and searched the rest (-9.7% instructions a
/// playout on amazons, -5.3% on amazonsTorus; gt_two_thirds_6p's static
/// table, covered whole too, -47.7%).
const MAX_DIRECTORY: usize = 1 << 20;

/// The lookup structure of a [`Keyed`] table.
struct Directory {
    /// Per indexed key column, the rank of each value (`NONE`: absent).
    ranks: Vec<Box<[u32]>>,
    /// Per indexed key column, the number of its distinct values.
    counts: Vec<usize>,
    /// Rows `starts[i]..starts[i + 1]` have combined rank `i`.
    starts: Box<[u32]>,
}

impl<const W: usize> Keyed<W> {
    /// `table`, sorted, looked up by its first `keys` columns (at least
    /// one).
    pub const fn new(table: &'static [[u32; W]], keys: usize) -> Self {
        Keyed {
            table,
            keys,
            directory: std::sync::OnceLock::new(),
        }
    }

    /// The directory, built by the first lookup (out of the inlined path).
    #[cold]
    #[inline(never)]
    fn init(&self) -> &Directory {
        self.directory.get_or_init(|| self.build())
    }

    fn build(&self) -> Directory {
        let ranked = |c: usize| {
            let mut values: Vec<u32> = self.table.iter().map(|row| row[c]).collect();
            values.sort_unstable();
            values.dedup();
            let max = values.last().copied().unwrap_or(0) as usize;
            let mut ranks = vec![NONE; max + 1];
            for (r, &v) in values.iter().enumerate() {
                ranks[v as usize] = r as u32;
            }
            (ranks.into_boxed_slice(), values.len().max(1))
        };
        let mut dir = Directory {
            ranks: Vec::new(),
            counts: Vec::new(),
            starts: Box::new([]),
        };
        let mut cells = 1usize;
        for c in 0..self.keys {
            let (ranks, count) = ranked(c);
            if c > 0 && cells.saturating_mul(count) > MAX_DIRECTORY {
                break;
            }
            cells *= count;
            dir.ranks.push(ranks);
            dir.counts.push(count);
        }
        let mut starts = vec![0u32; cells + 1];
        for row in self.table {
            let cell = dir.cell(row).expect("every row's values are ranked");
            starts[cell + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        dir.starts = starts.into();
        dir
    }

    /// The rows whose first `key.len()` numbers are `key` (`key` holds the
    /// table's `keys` key columns).
    #[inline]
    pub fn rows(&self, key: &[u32]) -> &'static [[u32; W]] {
        match self.key_run(key) {
            Some((run, true)) => run,
            Some((run, false)) => rows(run, key),
            None => &[],
        }
    }

    /// The rows of the directory cell of `key`, and whether the directory
    /// covers all of `key` (else the run holds other rows too); `None` when
    /// a value of `key` is in no row.
    #[inline(always)]
    fn key_run(&self, key: &[u32]) -> Option<(&'static [[u32; W]], bool)> {
        let dir = self.dir();
        let cell = dir.cell(key)?;
        Some((self.run(dir, cell), key.len() == dir.ranks.len()))
    }
}

impl<const W: usize> Keyed<W> {
    /// Whether the table holds a row starting with `key` (the `keys` key
    /// columns): the test of a static relation too large for a bit set.
    /// The directory's cell leaves a few rows, scanned; a long run is
    /// searched.
    #[inline]
    pub fn holds(&self, key: &[u32]) -> bool {
        match self.key_run(key) {
            Some((run, true)) => !run.is_empty(),
            Some((run, false)) if run.len() <= 16 => run.iter().any(|row| row[..key.len()] == *key),
            Some((run, false)) => !rows(run, key).is_empty(),
            None => false,
        }
    }

    /// The directory, built on first use.
    #[inline(always)]
    fn dir(&self) -> &Directory {
        match self.directory.get() {
            Some(dir) => dir,
            None => self.init(),
        }
    }

    /// The rows of cell `cell` of the directory.
    #[inline(always)]
    fn run(&self, dir: &Directory, cell: usize) -> &'static [[u32; W]] {
        &self.table[dir.starts[cell] as usize..dir.starts[cell + 1] as usize]
    }

    /// [`Keyed::rows`] of a table with one key column: the hot case, kept
    /// short enough to inline.
    #[inline(always)]
    pub fn rows1(&self, k: u32) -> &'static [[u32; W]] {
        debug_assert_eq!(self.keys, 1);
        let dir = self.dir();
        match dir.ranks[0].get(k as usize) {
            Some(&r) if r != NONE => self.run(dir, r as usize),
            _ => &[],
        }
    }

    /// [`Keyed::rows`] of a table with two key columns.
    #[inline(always)]
    pub fn rows2(&self, k0: u32, k1: u32) -> &'static [[u32; W]] {
        debug_assert_eq!(self.keys, 2);
        let dir = self.dir();
        if dir.ranks.len() < 2 {
            return self.rows(&[k0, k1]);
        }
        let rank = |c: usize, k: u32| match dir.ranks[c].get(k as usize) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        };
        match (rank(0, k0), rank(1, k1)) {
            (Some(r0), Some(r1)) => self.run(dir, r0 * dir.counts[1] + r1),
            _ => &[],
        }
    }
}

impl Directory {
    /// The combined rank of the indexed columns of `key`, if all are ranked.
    #[inline]
    fn cell(&self, key: &[u32]) -> Option<usize> {
        let mut cell = 0;
        for (c, ranks) in self.ranks.iter().enumerate() {
            let r = *ranks.get(key[c] as usize)?;
            if r == NONE {
                return None;
            }
            cell = cell * self.counts[c] + r as usize;
        }
        Some(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::super::sorted::contains;
    use super::*;

    /// `holds` agrees with a search of the whole table, whether the
    /// directory covers every column (a few values each, or 100), leaves
    /// short runs to scan, or leaves runs to search (1 100 values a column:
    /// the directory stops at one).
    #[test]
    fn holds_agrees_with_a_search_of_the_table() {
        for values in [4u32, 100, 1100] {
            holds_agrees::<3>(values);
        }
        holds_agrees::<4>(40);
    }

    /// [`holds_agrees_with_a_search_of_the_table`] for rows of `W` numbers
    /// of `values` values each.
    fn holds_agrees<const W: usize>(values: u32) {
        let mut x = 12345u32;
        let mut rows_of: Vec<[u32; W]> = (0..5000)
            .map(|_| {
                std::array::from_fn(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) % values
                })
            })
            .collect();
        rows_of.sort_unstable();
        rows_of.dedup();
        let table: &'static [[u32; W]] = Box::leak(rows_of.into_boxed_slice());
        let keyed = Keyed::new(table, W);
        assert!(table.iter().all(|row| keyed.holds(row)));
        let mut probe = [0u32; W];
        for i in 0..20_000u32 {
            for (c, p) in probe.iter_mut().enumerate() {
                *p = (i.wrapping_mul(2_654_435_761) >> (c * 5)) % (values + 1);
            }
            assert_eq!(keyed.holds(&probe), contains(table, &probe), "{probe:?}");
        }
    }

    /// A table of (arguments, id) rows looked up by its arguments, as the
    /// lifted back end builds terms too many for a dense table: each row's
    /// arguments give its id, other arguments none, where the directory
    /// covers two of the three argument columns (120 values each).
    #[test]
    fn keyed_rows_give_the_id_of_their_arguments() {
        let mut rows_of = Vec::new();
        let mut x = 777u32;
        for id in 0..30_000u32 {
            let mut row: Vec<u32> = (0..3)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) % 120
                })
                .collect();
            row.push(id);
            rows_of.push(row);
        }
        rows_of.sort_unstable();
        rows_of.dedup_by(|a, b| a[..3] == b[..3]);
        let rows: Vec<[u32; 4]> = rows_of.iter().map(|r| [r[0], r[1], r[2], r[3]]).collect();
        let table: &'static [[u32; 4]] = Box::leak(rows.into_boxed_slice());
        let keyed = Keyed::new(table, 3);
        let id = |key: &[u32]| keyed.rows(key).first().map(|row| row[3]);
        assert!(table.iter().all(|row| id(&row[..3]) == Some(row[3])));
        for i in 0..20_000u32 {
            let probe: Vec<u32> = (0..3)
                .map(|c| (i.wrapping_mul(2_654_435_761) >> (c * 5)) % 121)
                .collect();
            let expected = rows_of.iter().find(|r| r[..3] == probe[..]).map(|r| r[3]);
            assert_eq!(id(&probe), expected, "{probe:?}");
        }
    }
}
