//! Sorting a list of moves without repeats.

/// Sorts `moves`, ids below `count`, and removes repeats. Moves often
/// come in order (rule by rule, fluent by fluent), which one pass checks.
/// Else moves not few for their range go through a bit set, in time linear
/// in their number and the range's words, where sorting `n` moves compares
/// them `n log n` times; a few moves among many ids are sorted.
pub fn sort_moves(moves: &mut Vec<crate::game::Move>, count: usize) {
    if moves.windows(2).all(|w| w[0] < w[1]) {
        return;
    }
    let words = count.div_ceil(64);
    if moves.len() < 8 || words > 4 * moves.len() {
        moves.sort_unstable();
        moves.dedup();
        return;
    }
    // A small range's set on the stack, a large one's kept from call to
    // call.
    const SMALL: usize = 16;
    if words <= SMALL {
        let mut bits = [0u64; SMALL];
        set_moves(&mut bits[..words], moves);
        return;
    }
    thread_local! {
        static BITS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BITS.with(|bits| {
        let mut bits = bits.borrow_mut();
        bits.clear();
        bits.resize(words, 0);
        set_moves(&mut bits, moves);
    });
}

/// Replaces `moves` by the moves of their bits in `bits` (zero, one bit a
/// possible move), in order.
fn set_moves(bits: &mut [u64], moves: &mut Vec<crate::game::Move>) {
    for m in moves.iter() {
        if let Some(w) = bits.get_mut((m.0 >> 6) as usize) {
            *w |= 1 << (m.0 & 63);
        }
    }
    moves.clear();
    crate::move_bits::push_moves_of_bits(bits, moves);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Move;

    #[test]
    fn sort_moves_sorts_and_dedups_few_and_many_moves() {
        for n in [3u32, 40, 200] {
            let mut moves: Vec<Move> = (0..n).rev().map(|i| Move(i * 7 % (n + 1))).collect();
            moves.extend(moves.clone());
            let mut expected = moves.clone();
            expected.sort_unstable();
            expected.dedup();
            sort_moves(&mut moves, n as usize + 1);
            assert_eq!(moves, expected, "{n} moves");
        }
    }
}
