//! Bit-set scans and masks over a state's words: testing a bit, iterating
//! the bits set in a state, a span and filters ([`SetBits`]), or-ing them
//! into another set, in place or shifted, and the bits of one word
//! ([`Bits`]).

use super::span::Span;

/// Whether bit `b` of `state` is set (`NONE`, no fluent's bit, is not).
#[inline(always)]
pub fn bit_set(state: &[u64], b: u32) -> bool {
    state
        .get((b >> 6) as usize)
        .is_some_and(|w| (w >> (b & 63)) & 1 != 0)
}

/// The positions of the bits set in both `state` and `span`, in order:
/// a [`SetBits`] scan.
#[inline]
pub fn set_bits_in(state: &[u64], span: Span) -> SetBits<0> {
    set_bits_filtered(state, span, [])
}

/// The word `w` of the state's words in `span` (none outside it).
#[inline]
fn word_of(span: &Span, w: usize) -> u64 {
    span.words
        .get(w.wrapping_sub(span.first))
        .copied()
        .unwrap_or(0)
}

/// The state's word `w`, `s`, and'ed with the span's word there, `m`, and
/// with every one of `filters`'.
#[inline(always)]
fn filtered<const N: usize>(s: u64, m: u64, filters: &[Span; N], w: usize) -> u64 {
    filters.iter().fold(s & m, |b, f| b & word_of(f, w))
}

/// The positions of the bits set in `state`, `span` and every one of
/// `filters`, in order: a scan whose static tests are masks (see the
/// lifted back end's filters). The scan reads the span's first word now
/// and each later word from the state [`SetBits::next`] is given.
#[inline]
pub fn set_bits_filtered<const N: usize>(
    state: &[u64],
    span: Span,
    filters: [Span; N],
) -> SetBits<N> {
    let mut scan = SetBits {
        masks: span.words,
        first: span.first,
        filters,
        at: 0,
        bits: 0,
    };
    if !scan.masks.is_empty() {
        scan.bits = scan.word(state, 0);
    }
    scan
}

/// A scan of the bits set in a state, a span and filters: the word it is
/// at and that word's bits not yet given. It holds no borrow of the state:
/// each step is handed the state again, so that the loop's body may call
/// on the evaluation that holds the state (the generated code's `while let
/// Some(f) = scan.next(&self.state)`). Most spans are one word (a value's
/// fluents side by side), read once, on creation; the scan ends when its
/// bits do.
#[derive(Clone, Debug)]
pub struct SetBits<const N: usize> {
    /// The span's words.
    masks: &'static [u64],
    /// The index in the state of the span's first word.
    first: usize,
    filters: [Span; N],
    /// The index of the current word in the span.
    at: usize,
    /// The current word's bits not yet given.
    bits: u64,
}

impl<const N: usize> SetBits<N> {
    /// Word `i` of the span (`i` below its length): the state's, masked by
    /// the span and filters; none past the state's end.
    #[inline(always)]
    fn word(&self, state: &[u64], i: usize) -> u64 {
        let w = self.first + i;
        let s = state.get(w).copied().unwrap_or(0);
        filtered(s, self.masks[i], &self.filters, w)
    }

    /// The next bit set in `state` (the state the scan was made on), the
    /// span and the filters, if any.
    #[inline]
    #[allow(
        clippy::should_implement_trait,
        reason = "a step reads the state it is given: not an `Iterator`"
    )]
    pub fn next(&mut self, state: &[u64]) -> Option<u32> {
        while self.bits == 0 {
            self.at += 1;
            if self.at >= self.masks.len() {
                return None;
            }
            self.bits = self.word(state, self.at);
        }
        let b = self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        Some((self.first + self.at) as u32 * 64 + b)
    }
}

/// Sets in `out` the bits set in `state`, `span` and every one of
/// `filters`: a `next` rule that keeps the fluents a filtered scan meets,
/// a word at a time.
#[inline]
pub fn or_bits_in<const N: usize>(out: &mut [u64], state: &[u64], span: Span, filters: [Span; N]) {
    for (i, &m) in span.words.iter().enumerate() {
        let w = span.first + i;
        let (Some(&s), Some(o)) = (state.get(w), out.get_mut(w)) else {
            return;
        };
        *o |= filtered(s, m, &filters, w);
    }
}

/// Sets in `out` the bits set in `state`, `span` and every one of
/// `filters`, each moved by `shift` bits: a `next` rule whose head's bit is
/// each fluent's its scan meets plus one offset (factoring's timers, each
/// square's `4` to its `3`), a word at a time. A bit moved outside `out` is
/// dropped (the compiler finds every image a fluent).
#[inline]
pub fn or_bits_shifted<const N: usize>(
    out: &mut [u64],
    state: &[u64],
    span: Span,
    filters: [Span; N],
    shift: i64,
) {
    let (words, bits) = (shift.div_euclid(64), shift.rem_euclid(64) as u32);
    for (i, &m) in span.words.iter().enumerate() {
        let w = span.first + i;
        let Some(&s) = state.get(w) else {
            return;
        };
        let set = filtered(s, m, &filters, w);
        if set == 0 {
            continue;
        }
        // A negative index wraps to one past any slice: dropped.
        let to = (w as i64 + words) as usize;
        if let Some(o) = out.get_mut(to) {
            *o |= set << bits;
        }
        if bits != 0 {
            if let Some(o) = out.get_mut(to.wrapping_add(1)) {
                *o |= set >> (64 - bits);
            }
        }
    }
}

/// The positions of the set bits of a word, lowest first (the generated
/// code's and the reference engines' bit iteration).
#[derive(Copy, Clone, Debug)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::super::span::{value_span, value_spans};
    use super::*;

    /// Every bit `scan` gives over `state`.
    fn all<const N: usize>(mut scan: SetBits<N>, state: &[u64]) -> Vec<u32> {
        std::iter::from_fn(|| scan.next(state)).collect()
    }

    #[test]
    fn set_bits_lists_the_common_bits_in_order() {
        let s = [0b1011u64, 1 << 63];
        static M: [u64; 2] = [0b0011, u64::MAX];
        let m = Span {
            first: 0,
            words: &M,
        };
        assert_eq!(all(set_bits_in(&s, m), &s), vec![0, 1, 127]);
    }

    #[test]
    fn a_filtered_scan_skips_words_left_empty_and_stops_at_the_span_s_end() {
        // Three words of span from word 1; the filter (over words 0..4)
        // empties the middle one; the state's word past the span is set.
        static WORDS: [u64; 3] = [u64::MAX, u64::MAX, 0b1010];
        let span = Span {
            first: 1,
            words: &WORDS,
        };
        static FILTER: [u64; 4] = [u64::MAX, 0b0011, 0, u64::MAX];
        let filter = Span {
            first: 0,
            words: &FILTER,
        };
        let state = [u64::MAX, 0b0110, 0b1111, 0b1110, u64::MAX];
        let bits = all(set_bits_filtered(&state, span, [filter]), &state);
        assert_eq!(bits, vec![65, 193, 195]);
        // A filter shorter than the span reads as zero past its end.
        static SHORT: [u64; 1] = [u64::MAX];
        let short = Span {
            first: 1,
            words: &SHORT,
        };
        let bits = all(set_bits_filtered(&state, span, [short]), &state);
        assert_eq!(bits, vec![65, 66]);
        // A span past the state's end gives nothing there.
        let beyond = Span {
            first: 4,
            words: &WORDS,
        };
        assert_eq!(
            all(set_bits_in(&state, beyond), &state),
            (256..320).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_shifted_copy_moves_each_bit_by_the_offset_across_words() {
        // Bits 1, 3 (word 0) and 64 (word 1) of a two-word span; bit 3 is
        // filtered out.
        static WORDS: [u64; 2] = [u64::MAX, u64::MAX];
        let span = Span {
            first: 0,
            words: &WORDS,
        };
        static FILTER: [u64; 2] = [!0b1000, u64::MAX];
        let filter = Span {
            first: 0,
            words: &FILTER,
        };
        let state = [0b1010, 1, 0];
        let set = |shift: i64| {
            let mut out = [0u64; 3];
            or_bits_shifted(&mut out, &state, span, [filter], shift);
            all(
                set_bits_in(
                    &out,
                    Span {
                        first: 0,
                        words: &[u64::MAX; 3],
                    },
                ),
                &out,
            )
        };
        assert_eq!(set(0), vec![1, 64]);
        assert_eq!(set(63), vec![64, 127]);
        assert_eq!(set(70), vec![71, 134]);
        assert_eq!(set(-1), vec![0, 63]);
        // Bit 1 moved below 0 is dropped.
        assert_eq!(set(-2), vec![62]);
        // Past the end, too.
        assert_eq!(set(128), vec![129]);
    }

    #[test]
    fn set_bits_in_reads_the_span_s_words_only() {
        static WORDS: [u64; 2] = [0b0110, 1];
        let span = Span {
            first: 1,
            words: &WORDS,
        };
        let state = [u64::MAX, 0b0100, 0b11];
        assert_eq!(all(set_bits_in(&state, span), &state), vec![66, 128]);
        assert_eq!(
            all(set_bits_in(&state, Span::EMPTY), &state),
            Vec::<u32>::new()
        );
        let vals = [3, 7];
        static SPANS: [Span; 2] = [
            Span::EMPTY,
            Span {
                first: 2,
                words: &[1],
            },
        ];
        assert_eq!(value_span(&vals, &SPANS, 7).first, 2);
        assert_eq!(value_span(&vals, &SPANS, 5).words.len(), 0);
        // Two arguments of values [3, 7] and [1, 2]: spans by rank pairs,
        // the first argument's rank most significant.
        static PAIRS: [Span; 4] = [
            Span::EMPTY,
            Span::EMPTY,
            Span {
                first: 1,
                words: &[4],
            },
            Span::EMPTY,
        ];
        let (first, second) = ([3, 7], [1, 2]);
        assert_eq!(value_spans([&first, &second], &PAIRS, [7, 1]).first, 1);
        assert_eq!(
            value_spans([&first, &second], &PAIRS, [7, 2]).words.len(),
            0
        );
        assert_eq!(
            value_spans([&first, &second], &PAIRS, [4, 1]).words.len(),
            0
        );
    }
}
