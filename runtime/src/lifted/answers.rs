//! Answer lists of calls: appending a row unless already there
//! ([`push_new`], [`push_new_from`]) and sorting with repeats removed the answers at an
//! arena's end ([`dedup_from`]).

use crate::memo::Memo;

/// Appends `row` to the answers `out` unless they hold it already: a
/// linear search while they are few, then the set `seen`, filled from them
/// on first use.
#[inline(always)]
pub fn push_new<const W: usize>(
    out: &mut Vec<[u32; W]>,
    seen: &mut Memo<[u32; W], ()>,
    row: [u32; W],
) {
    push_new_from(out, 0, seen, row);
}

/// [`push_new`] for the answers `rows[start..]`, a call's at the end of its
/// arena: found straight there, they are not copied from a buffer.
#[inline(always)]
pub fn push_new_from<const W: usize>(
    rows: &mut Vec<[u32; W]>,
    start: usize,
    seen: &mut Memo<[u32; W], ()>,
    row: [u32; W],
) {
    const FEW: usize = 32;
    if rows.len() - start < FEW {
        if !rows[start..].contains(&row) {
            rows.push(row);
        }
        return;
    }
    if seen.is_empty() {
        seen.extend(rows[start..].iter().map(|&r| (r, ())));
    }
    if seen.insert(row, ()).is_none() {
        rows.push(row);
    }
}

/// Sorts the rows of `rows` from `start` on and removes repeats among
/// them: a call's answers at the end of its arena.
pub fn dedup_from<T: Ord + Copy>(rows: &mut Vec<T>, start: usize) {
    let tail = &mut rows[start..];
    tail.sort_unstable();
    let mut kept = 0;
    for i in 0..tail.len() {
        if kept == 0 || tail[i] != tail[kept - 1] {
            tail[kept] = tail[i];
            kept += 1;
        }
    }
    rows.truncate(start + kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_from_sorts_and_dedups_the_tail_only() {
        let mut rows = vec![9, 3, 7, 3, 1, 7, 7];
        dedup_from(&mut rows, 2);
        assert_eq!(rows, vec![9, 3, 1, 3, 7]);
        let mut empty: Vec<u32> = vec![4];
        dedup_from(&mut empty, 1);
        assert_eq!(empty, vec![4]);
    }

    #[test]
    fn push_new_keeps_each_row_once_few_or_many() {
        let (mut out, mut seen) = (Vec::new(), Memo::default());
        for i in 0..200u32 {
            push_new(&mut out, &mut seen, [i % 70, 1]);
        }
        assert_eq!(out.len(), 70);
        assert_eq!(out[69], [69, 1]);
        assert_eq!(seen.len(), 70);
    }

    #[test]
    fn push_new_from_looks_at_the_rows_from_start_only() {
        let (mut rows, mut seen) = (vec![[5u32], [6]], Memo::default());
        for i in 0..100u32 {
            push_new_from(&mut rows, 2, &mut seen, [i % 40]);
        }
        // 5 and 6 again, as the rows before `start` are another call's.
        assert_eq!(rows.len(), 42);
        assert_eq!(&rows[2..5], &[[0], [1], [2]]);
        assert_eq!(seen.len(), 40);
    }
}
