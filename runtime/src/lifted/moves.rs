//! Legal moves as bits: listing the moves of a bit set, drawing one at
//! random, and sorting a list of moves without repeats.

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
    push_moves_of_bits(bits, moves);
}

/// Pushes on `moves` the move of each bit set in `bits` (bit `i` of word
/// `w` is move `64 w + i`), in order: the legal moves a compiled game's
/// rules set as bits, sorted and without repeats by construction.
pub fn push_moves_of_bits(bits: &[u64], moves: &mut Vec<crate::game::Move>) {
    // Not `Bits`: its `next` tests the word again before each bit, and
    // pushing through it cost 2% more instructions a playout (sudoku;
    // breakthrough 0.8%); `extend` over it, reserving by each word's size
    // hint, cost more still.
    for (i, &word) in bits.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            moves.push(crate::game::Move(i as u32 * 64 + w.trailing_zeros()));
            w &= w - 1;
        }
    }
}

/// The move of a bit of `bits` drawn at random (`None`: no bit is set): the
/// one [`push_moves_of_bits`] would push at `rng.below(n)` of the `n` set
/// bits (`rng` untouched when `n` is 1), found by counting, without
/// listing the moves.
pub fn random_move_of_bits(bits: &[u64], rng: &mut crate::rng::Rng) -> Option<crate::game::Move> {
    let n: u32 = bits.iter().map(|w| w.count_ones()).sum();
    let mut k = rng.pick(n as usize)? as u32;
    for (i, &word) in bits.iter().enumerate() {
        let ones = word.count_ones();
        if k < ones {
            let mut w = word;
            for _ in 0..k {
                w &= w - 1;
            }
            return Some(crate::game::Move(i as u32 * 64 + w.trailing_zeros()));
        }
        k -= ones;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Move;

    #[test]
    fn a_random_bit_is_the_move_the_list_has_at_the_drawn_index() {
        // Words with no bit, one, a few, every bit; the same draws either way.
        let patterns: [&[u64]; 6] = [
            &[0],
            &[1 << 9],
            &[0, 0, 1 << 63],
            &[0b1011_0000, 0, u64::MAX, 1],
            &[u64::MAX, u64::MAX],
            &[0x8000_0000_0000_0001, 0x10],
        ];
        for bits in patterns {
            let mut listed = Vec::new();
            push_moves_of_bits(bits, &mut listed);
            let (mut a, mut b) = (crate::rng::Rng::new(3), crate::rng::Rng::new(3));
            for _ in 0..50 {
                let expected = match listed.len() {
                    0 => None,
                    1 => Some(listed[0]),
                    n => Some(listed[a.below(n)]),
                };
                assert_eq!(random_move_of_bits(bits, &mut b), expected, "{bits:x?}");
            }
            // The generators are in step: one draw each time, or none.
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn moves_of_bits_come_in_order_across_words() {
        let mut bits = [0u64; 3];
        for m in [130, 3, 64, 0, 63, 3] {
            bits[m / 64] |= 1 << (m % 64);
        }
        let mut moves = vec![Move(7)];
        push_moves_of_bits(&bits, &mut moves);
        let ids: Vec<u32> = moves.iter().map(|m| m.0).collect();
        assert_eq!(ids, [7, 0, 3, 63, 64, 130]);
    }

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
