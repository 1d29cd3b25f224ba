//! [`Index`]: a small sorted constant table with its lookup directory
//! computed at compile time and printed whole as a static.

use super::NONE;

/// A sorted constant table (rows of `W` numbers) looked up by its first `K`
/// columns through a directory computed at compile time: per key column,
/// the rank of each value (from `lo`) times the column's stride, and the
/// rows of each combination of ranks, a slice of the table (see [`run`]).
/// [`Keyed`](super::Keyed) builds a directory at the first lookup; this
/// one is a plain static, read without that check or its indirections
/// (small directories only: the compiler prints it whole).
#[derive(Debug)]
pub struct Index<const K: usize, const W: usize> {
    /// Per key column, the smallest value its ranks cover.
    pub lo: [u32; K],
    /// Per key column, how a value's rank is found.
    pub ranks: [Ranks; K],
    /// The rows of each combined rank: a lookup reads one slice, with no
    /// arithmetic on where its rows start and end and no range check.
    pub runs: &'static [&'static [[u32; W]]],
}

/// How an [`Index`] finds a key column's share of a combination's number.
#[derive(Debug)]
pub enum Ranks {
    /// The rank of value `lo + i` times the column's stride (the number of
    /// combinations of the later columns) at `i`, `NONE` for a value the
    /// column does not hold.
    Table(&'static [u32]),
    /// The column's values are `len` consecutive ids from `lo`: the rank is
    /// the distance from `lo`, with no table to read. (The index is a
    /// static, so the compiler folds the choice away at each lookup.)
    Run {
        /// How many values.
        len: u32,
        /// The number of combinations of the later columns.
        stride: u32,
    },
}

impl Ranks {
    /// The share of `key` (its distance from the column's `lo` is `at`):
    /// its rank times the stride, `NONE` if the column does not hold it.
    #[inline(always)]
    pub(super) fn share(&self, at: u32) -> u32 {
        match *self {
            Ranks::Table(ranks) => ranks.get(at as usize).map_or(NONE, |&r| r),
            Ranks::Run { len, stride } => match at < len {
                true => at * stride,
                false => NONE,
            },
        }
    }
}

impl<const K: usize, const W: usize> Index<K, W> {
    /// The rows whose key columns are `key`.
    #[inline]
    pub fn rows(&self, key: &[u32]) -> &'static [[u32; W]] {
        let cell = combination(&self.lo, &self.ranks, key);
        self.runs.get(cell).copied().unwrap_or(&[])
    }

    /// [`Index::rows`] of a one-column key.
    #[inline(always)]
    pub fn rows1(&self, k: u32) -> &'static [[u32; W]] {
        self.rows(&[k])
    }

    /// [`Index::rows`] of a two-column key.
    #[inline(always)]
    pub fn rows2(&self, k0: u32, k1: u32) -> &'static [[u32; W]] {
        self.rows(&[k0, k1])
    }
}

/// The number of the combination of the ranks of `key`'s first `K`
/// values (column `c` from `lo[c]`, ranked by `ranks[c]`), the first most
/// significant: past the end of any table of combinations when a value has
/// no rank.
#[inline(always)]
pub(super) fn combination<const K: usize>(lo: &[u32; K], ranks: &[Ranks; K], key: &[u32]) -> usize {
    // The number is the sum of the columns' shares: a `NONE` share puts it
    // past the table, whose bounds check tests every column at once.
    let mut cell = 0u64;
    // Indexed: the loop over the constant K unrolls, each column's tables
    // read from the static directly.
    #[allow(clippy::needless_range_loop, reason = "unrolled over the constant K")]
    for c in 0..K {
        cell += u64::from(ranks[c].share(key[c].wrapping_sub(lo[c])));
    }
    usize::try_from(cell).unwrap_or(usize::MAX)
}

/// Rows `start..start + len` of `rows`: a cell of an [`Index`]'s
/// directory, computed in the static that holds it.
pub const fn run<const W: usize>(
    rows: &'static [[u32; W]],
    start: usize,
    len: usize,
) -> &'static [[u32; W]] {
    rows.split_at(start).1.split_at(len).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_finds_the_rows_of_a_key() {
        // (1 5 ..) twice, (2 5 ..) once, (2 6 ..) once; key values 1..2
        // and 5..6, four cells.
        static TABLE: [[u32; 3]; 4] = [[1, 5, 7], [1, 5, 8], [2, 5, 9], [2, 6, 3]];
        // Ranks times strides: the first column's stride is 2.
        static R0: [u32; 2] = [0, 2];
        static R1: [u32; 3] = [0, 1, NONE];
        static RUNS: [&[[u32; 3]]; 4] =
            [run(&TABLE, 0, 2), &[], run(&TABLE, 2, 1), run(&TABLE, 3, 1)];
        let index: Index<2, 3> = Index {
            lo: [1, 5],
            ranks: [Ranks::Table(&R0), Ranks::Table(&R1)],
            runs: &RUNS,
        };
        assert_eq!(index.rows2(1, 5), &[[1, 5, 7], [1, 5, 8]]);
        assert_eq!(index.rows2(1, 6), &[] as &[[u32; 3]]);
        assert_eq!(index.rows2(2, 6), &[[2, 6, 3]]);
        assert_eq!(index.rows(&[0, 5]), &[] as &[[u32; 3]]);
        assert_eq!(index.rows(&[2, 40]), &[] as &[[u32; 3]]);
        // A value inside a column's span that the column does not hold.
        assert_eq!(index.rows2(1, 7), &[] as &[[u32; 3]]);
        assert_eq!(index.rows2(NONE, NONE), &[] as &[[u32; 3]]);
        // The first column as a run of ids 1..=2: the same rows.
        let run: Index<2, 3> = Index {
            ranks: [Ranks::Run { len: 2, stride: 2 }, Ranks::Table(&R1)],
            ..index
        };
        for (k0, k1) in [(1, 5), (1, 6), (2, 5), (2, 6), (0, 5), (3, 5), (NONE, 5)] {
            assert_eq!(run.rows2(k0, k1), index.rows2(k0, k1), "key {k0} {k1}");
        }
    }
}
