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
    // hint, cost more still. Four words are skipped at once where all are
    // zero: a role's moves are a few words of many (chess.kif's 60, most
    // of them a waiting role's), each zero word a load, a test and a
    // branch of its own.
    // A few words are read one by one: a group's test is then mostly a
    // second look at words with moves (checkersSmall's six words, 0.6%
    // more instructions a playout grouped).
    if bits.len() < 2 * GROUP {
        push_words(bits, 0, moves);
        return;
    }
    let mut groups = bits.chunks_exact(GROUP);
    for (g, group) in groups.by_ref().enumerate() {
        if group.iter().fold(0, |any, w| any | w) != 0 {
            push_words(group, (g * GROUP) as u32, moves);
        }
    }
    let rest = groups.remainder();
    push_words(rest, (bits.len() - rest.len()) as u32, moves);
}

/// Words skipped at once by [`push_moves_of_bits`] where all are zero.
const GROUP: usize = 4;

/// [`push_moves_of_bits`] of `words`, the first of which is word `first`.
#[inline(always)]
fn push_words(words: &[u64], first: u32, moves: &mut Vec<crate::game::Move>) {
    for (i, &word) in words.iter().enumerate() {
        let mut w = word;
        while w != 0 {
            moves.push(crate::game::Move(
                (first + i as u32) * 64 + w.trailing_zeros(),
            ));
            w &= w - 1;
        }
    }
}

/// The move of a bit of `bits` drawn at random (`None`: no bit is set): the
/// one [`push_moves_of_bits`] would push at `rng.below(n)` of the `n` set
/// bits (`rng` untouched when `n` is 1), found by counting, without
/// listing the moves. Counting costs two passes over every word, and pays
/// on a few words; a caller with many words, most of them zero, lists.
/// Always inlined: the words are then a constant few and the two passes
/// share their counts; as a call, connect four's playouts took 9% more
/// instructions.
#[inline(always)]
pub fn random_move_of_bits(bits: &[u64], rng: &mut crate::rng::Rng) -> Option<crate::game::Move> {
    if let Some(only) = at_most_one(bits) {
        return only;
    }
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

/// The position of the `k`th bit set in `w` (from 0, `k` below its count):
/// `pdep` where the build has BMI2, else [`broadword::select`].
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
        broadword::select(w, broadword::running_counts(w), k)
    }
}

/// The move of `bits` if at most one bit is set (`Some(None)`: none is), or
/// `None` if more are. A role that waits for its turn has one legal move,
/// and counting its bits cost connect four's playouts about 20 instructions
/// a ply without a popcount instruction (x86-64 baseline); this test costs
/// a few a word.
#[inline(always)]
fn at_most_one(bits: &[u64]) -> Option<Option<crate::game::Move>> {
    let (mut any, mut many) = (0u64, 0u64);
    for &w in bits {
        // Two bits in one word, or bits in two words.
        many |= (w & w.wrapping_sub(1)) | u64::from((any != 0) & (w != 0));
        any |= w;
    }
    if many != 0 {
        return None;
    }
    let at = bits.iter().position(|&w| w != 0);
    Some(at.map(|i| crate::game::Move(i as u32 * 64 + bits[i].trailing_zeros())))
}

/// [`nth_one`] without `pdep`: the drawn bit found from the word's
/// running counts per byte, without a loop (Vigna's broadword select). Removing bits one by one to the drawn one took a step a bit,
/// and the branch that ended them missed on most draws: 38% of the
/// branches breakthrough's playouts mispredicted were there (cachegrind's
/// branch simulation), and without them its playouts ran 10% faster.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
mod broadword {
    /// Ones in each byte: the low bit of every byte.
    const BYTE_ONES: u64 = 0x0101_0101_0101_0101;

    /// Per byte of `w`, the ones of that byte and of every byte below it:
    /// the top byte is the count of the word.
    #[inline(always)]
    pub(super) fn running_counts(w: u64) -> u64 {
        let a = w - ((w >> 1) & 0x5555_5555_5555_5555);
        let b = (a & 0x3333_3333_3333_3333) + ((a >> 2) & 0x3333_3333_3333_3333);
        let counts = (b + (b >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
        counts.wrapping_mul(BYTE_ONES)
    }

    /// The position of the `k`th bit set in `w` (from 0, below its count),
    /// from its [`running_counts`] `running`.
    #[inline(always)]
    pub(super) fn select(w: u64, running: u64, k: u32) -> u32 {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        // A role of a few moves (nim's four) has them in the first byte:
        // the broadword steps cost it more than removing bits one by one
        // (8% more time a playout), the table alone less.
        if w <= 0xff {
            return u32::from(SELECT_IN_BYTE[w as usize][k as usize]);
        }
        // The high bit of each byte whose running count is at most `k`
        // (both below 128: no borrow crosses a byte); those bytes are the
        // ones below the byte of the bit.
        let at_most = (((u64::from(k) * BYTE_ONES) | HIGH) - running) & HIGH;
        let byte = ((at_most >> 7).wrapping_mul(BYTE_ONES) >> 56) as u32;
        let below = ((running << 8) >> (8 * byte)) as u32 & 0xff;
        let bits = (w >> (8 * byte)) & 0xff;
        8 * byte + u32::from(SELECT_IN_BYTE[bits as usize][(k - below) as usize])
    }

    /// Per byte value, the position of its `r`th bit set (0 past its
    /// count).
    static SELECT_IN_BYTE: [[u8; 8]; 256] = {
        let mut table = [[0u8; 8]; 256];
        let mut x = 0;
        while x < 256 {
            let (mut r, mut bit) = (0, 0);
            while bit < 8 {
                if x & (1 << bit) != 0 {
                    table[x][r] = bit as u8;
                    r += 1;
                }
                bit += 1;
            }
            x += 1;
        }
        table
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Move;

    /// The broadword select finds the bit that removing `k` bits one by one
    /// reaches, for every `k` of words sparse, dense and random.
    #[test]
    fn broadword_select_finds_the_kth_bit() {
        let mut words = vec![
            1,
            0xff,
            0b1011_0110,
            1 << 63,
            u64::MAX,
            0x8000_0000_0000_0001,
            0xff00,
            0x0100_0000_0000_0080,
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            words.push(seed);
            words.push(seed & seed.rotate_left(17) & seed.rotate_left(29));
        }
        for w in words {
            let mut rest = w;
            for k in 0..w.count_ones() {
                assert_eq!(
                    broadword::select(w, broadword::running_counts(w), k),
                    rest.trailing_zeros(),
                    "{w:#x} {k}"
                );
                rest &= rest - 1;
            }
        }
    }

    #[test]
    fn a_random_bit_is_the_move_the_list_has_at_the_drawn_index() {
        // Words with no bit, one, a few, every bit; one bit in each of two
        // words; the same draws either way.
        let patterns: [&[u64]; 9] = [
            &[0],
            &[0, 0],
            &[1 << 9],
            &[0, 0, 1 << 63],
            &[0, 1 << 5, 0],
            &[1, 1],
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
    fn moves_of_many_words_come_in_order_past_empty_groups() {
        // Words 0, 5, 9 (in the rest after two groups of four) and 10 set,
        // the group of words 4-7 partly and that of 0-3 partly.
        for len in [8usize, 11, 60] {
            let mut bits = vec![0u64; len];
            let set: Vec<u32> = [1u32, 64 * 5 + 2, 64 * 9, 64 * 10 + 63]
                .into_iter()
                .filter(|&m| (m as usize) < 64 * len)
                .collect();
            set.iter()
                .for_each(|&m| bits[m as usize / 64] |= 1 << (m % 64));
            let mut moves = Vec::new();
            push_moves_of_bits(&bits, &mut moves);
            let ids: Vec<u32> = moves.iter().map(|m| m.0).collect();
            assert_eq!(ids, set, "{len} words");
        }
    }
}
