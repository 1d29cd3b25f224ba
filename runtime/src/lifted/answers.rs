//! Answer lists of calls: appending a row unless already there
//! ([`push_new`]) and sorting with repeats removed the answers at an
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
    const FEW: usize = 32;
    if out.len() < FEW {
        if !out.contains(&row) {
            out.push(row);
        }
        return;
    }
    if seen.is_empty() {
        seen.extend(out.iter().map(|&r| (r, ())));
    }
    if seen.insert(row, ()).is_none() {
        out.push(row);
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
}
