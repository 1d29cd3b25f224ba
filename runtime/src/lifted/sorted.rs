//! Lookups in sorted constant tables by binary search: the rows with a
//! key prefix, and whether a table holds a row.

/// The rows of `table` (rows of `width` numbers, sorted) whose first
/// `key.len()` numbers are `key`, as one slice of whole rows.
#[inline]
pub fn rows<'a>(table: &'a [u32], width: usize, key: &[u32]) -> &'a [u32] {
    let n = table.len() / width;
    if let [k] = *key {
        // One key column, the common case (a term's row in a by-term
        // index): compare numbers, not slices.
        let lo = partition(n, |i| table[i * width] < k);
        let hi = lo + partition(n - lo, |i| table[(lo + i) * width] <= k);
        return &table[lo * width..hi * width];
    }
    let prefix = |i: usize| &table[i * width..i * width + key.len()];
    let lo = partition(n, |i| prefix(i) < key);
    let hi = lo + partition(n - lo, |i| prefix(lo + i) <= key);
    &table[lo * width..hi * width]
}

/// Whether `table` (rows of `width` numbers, sorted) holds the row `row`.
#[inline]
pub fn contains(table: &[u32], width: usize, row: &[u32]) -> bool {
    !rows(table, width, row).is_empty()
}

/// The first index in `0..n` where `below` turns false (`below` must be
/// true on a prefix of the range and false after).
#[inline]
fn partition(n: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_finds_every_row_with_the_key_and_no_other() {
        let t = [1, 5, 2, 0, 2, 1, 2, 7, 3, 3];
        assert_eq!(rows(&t, 2, &[2]), &[2, 0, 2, 1, 2, 7]);
        assert_eq!(rows(&t, 2, &[2, 1]), &[2, 1]);
        assert!(rows(&t, 2, &[4]).is_empty());
        assert!(rows(&t, 2, &[0]).is_empty());
        assert_eq!(rows(&t, 2, &[]).len(), t.len());
        assert!(contains(&t, 2, &[3, 3]));
        assert!(!contains(&t, 2, &[3, 4]));
    }
}

/// The rows of `rows` with their columns in `order` (a permutation),
/// sorted, without repeats: a static table built at run time from its
/// relation's tuples (see gdl-codegen's `backend/lifted/run_time_tables.rs`).
pub fn reordered<const A: usize>(rows: &[[u32; A]], order: [usize; A]) -> Vec<[u32; A]> {
    let mut out: Vec<[u32; A]> = rows
        .iter()
        .map(|r| std::array::from_fn(|i| r[order[i]]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod reordered_tests {
    use super::*;

    #[test]
    fn reordered_rows_are_sorted_by_their_new_first_columns() {
        let rows = [[1, 9], [2, 3], [1, 9], [3, 1]];
        assert_eq!(reordered(&rows, [1, 0]), vec![[1, 3], [3, 2], [9, 1]]);
        assert_eq!(reordered(&rows, [0, 1]), vec![[1, 9], [2, 3], [3, 1]]);
    }
}
