//! Legal moves as bits, as compiled games compute them (bit `i` of word
//! `w` is move `64 w + i`): listing the moves of a bit set, and drawing one
//! at random without listing them.

/// Pushes on `moves` the move of each bit set in `bits` (bit `i` of word
/// `w` is move `64 w + i`), in order: the legal moves a compiled game's
/// rules set as bits, sorted and without repeats by construction.
#[inline]
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
/// listing the moves. Counting costs two passes over every word, and pays
/// on a few words; a caller with many words, most of them zero, lists.
#[inline]
pub fn random_move_of_bits(bits: &[u64], rng: &mut crate::rng::Rng) -> Option<crate::game::Move> {
    let n: u32 = bits.iter().map(|w| w.count_ones()).sum();
    let mut k = rng.pick(n as usize)? as u32;
    for (i, &word) in bits.iter().enumerate() {
        let ones = word.count_ones();
        if k < ones {
            return Some(crate::game::Move(i as u32 * 64 + nth_one(word, k)));
        }
        k -= ones;
    }
    None
}

/// The position of the `k`th bit set in `w` (from 0, `k` below its count).
#[inline(always)]
fn nth_one(w: u64, k: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction is there: `bmi2` is enabled for the whole
        // build.
        unsafe { core::arch::x86_64::_pdep_u64(1 << k, w) }.trailing_zeros()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut w = w;
        for _ in 0..k {
            w &= w - 1;
        }
        w.trailing_zeros()
    }
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
}
