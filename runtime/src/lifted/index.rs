//! [`Index`]: a small sorted constant table with its lookup directory
//! computed at compile time and printed whole as a static.

use super::NONE;

/// A sorted constant table (rows of `W` numbers) looked up by its first `K`
/// columns through a directory computed at compile time: per key column,
/// the rank of each value (from `lo`) times the column's stride, `NONE`
/// where absent, and where the rows of each combination of ranks start.
/// [`Keyed`](super::Keyed) builds a directory at the first lookup; this
/// one is a plain static, read without that check or its indirections
/// (small directories only: the compiler prints it whole).
#[derive(Debug)]
pub struct Index<const K: usize, const W: usize> {
    /// The table.
    pub table: &'static [u32],
    /// Per key column, the smallest value its ranks cover.
    pub lo: [u32; K],
    /// Per key column, the rank of value `lo + i` times the column's
    /// stride (the number of combinations of the later columns) at `i`,
    /// `NONE` for a value the column does not hold.
    pub ranks: [&'static [u32]; K],
    /// Rows `starts[c]..starts[c + 1]` have combined rank `c`.
    pub starts: &'static [u32],
}

impl<const K: usize, const W: usize> Index<K, W> {
    /// The rows whose key columns are `key`.
    #[inline]
    pub fn rows(&self, key: &[u32]) -> &'static [u32] {
        // The combination's number is the sum of the columns' shares: a
        // `NONE` share puts it past the directory, whose bounds checks
        // test every column at once.
        let mut cell = 0u64;
        // Indexed: the loop over the constant K unrolls, each column's
        // tables read from the static directly.
        #[allow(clippy::needless_range_loop, reason = "unrolled over the constant K")]
        for c in 0..K {
            let share = self.ranks[c].get(key[c].wrapping_sub(self.lo[c]) as usize);
            cell += u64::from(share.map_or(NONE, |&r| r));
        }
        let Ok(cell) = usize::try_from(cell) else {
            return &[];
        };
        match (self.starts.get(cell), self.starts.get(cell + 1)) {
            (Some(&a), Some(&b)) => self
                .table
                .get(a as usize * W..b as usize * W)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// [`Index::rows`] of a one-column key.
    #[inline(always)]
    pub fn rows1(&self, k: u32) -> &'static [u32] {
        self.rows(&[k])
    }

    /// [`Index::rows`] of a two-column key.
    #[inline(always)]
    pub fn rows2(&self, k0: u32, k1: u32) -> &'static [u32] {
        self.rows(&[k0, k1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_finds_the_rows_of_a_key() {
        // (1 5 ..) twice, (2 5 ..) once, (2 6 ..) once; key values 1..2
        // and 5..6, four cells.
        static TABLE: [u32; 12] = [1, 5, 7, 1, 5, 8, 2, 5, 9, 2, 6, 3];
        // Ranks times strides: the first column's stride is 2.
        static R0: [u32; 2] = [0, 2];
        static R1: [u32; 3] = [0, 1, NONE];
        static STARTS: [u32; 5] = [0, 2, 2, 3, 4];
        let index: Index<2, 3> = Index {
            table: &TABLE,
            lo: [1, 5],
            ranks: [&R0, &R1],
            starts: &STARTS,
        };
        assert_eq!(index.rows2(1, 5), &[1, 5, 7, 1, 5, 8]);
        assert_eq!(index.rows2(1, 6), &[] as &[u32]);
        assert_eq!(index.rows2(2, 6), &[2, 6, 3]);
        assert_eq!(index.rows(&[0, 5]), &[] as &[u32]);
        assert_eq!(index.rows(&[2, 40]), &[] as &[u32]);
        // A value inside a column's span that the column does not hold.
        assert_eq!(index.rows2(1, 7), &[] as &[u32]);
        assert_eq!(index.rows2(NONE, NONE), &[] as &[u32]);
    }
}
