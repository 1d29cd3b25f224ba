//! Lookups in sorted constant tables by binary search: the rows with a
//! key prefix, and whether a table holds a row.

/// The rows of `table` (sorted) whose first `key.len()` numbers are `key`.
#[inline]
pub fn rows<'a, const W: usize>(table: &'a [[u32; W]], key: &[u32]) -> &'a [[u32; W]] {
    if let [k] = *key {
        // One key column, the common case (a term's row in a by-term
        // index): compare numbers, not slices.
        let lo = table.partition_point(|row| row[0] < k);
        let hi = lo + table[lo..].partition_point(|row| row[0] <= k);
        return &table[lo..hi];
    }
    let lo = table.partition_point(|row| row[..key.len()] < *key);
    let hi = lo + table[lo..].partition_point(|row| row[..key.len()] <= *key);
    &table[lo..hi]
}

/// Whether `table` (sorted) holds a row starting with `row`.
#[inline]
pub fn contains<const W: usize>(table: &[[u32; W]], row: &[u32]) -> bool {
    !rows(table, row).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_finds_every_row_with_the_key_and_no_other() {
        let t = [[1, 5], [2, 0], [2, 1], [2, 7], [3, 3]];
        assert_eq!(rows(&t, &[2]), &[[2, 0], [2, 1], [2, 7]]);
        assert_eq!(rows(&t, &[2, 1]), &[[2, 1]]);
        assert!(rows(&t, &[4]).is_empty());
        assert!(rows(&t, &[0]).is_empty());
        assert_eq!(rows(&t, &[]).len(), t.len());
        assert!(contains(&t, &[3, 3]));
        assert!(!contains(&t, &[3, 4]));
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
