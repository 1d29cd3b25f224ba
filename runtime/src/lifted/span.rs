//! [`Span`]: the run of a state's words a scan reads, and the lookups of
//! the span of the fluents with given argument values.

use super::index::{combination, Ranks};

/// A mask over the state's words that is zero outside `first..first +
/// words.len()`: a scan reads those words only (the fluents of one functor,
/// or with one value at an argument, are often a run of the text order).
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// The index of the first word.
    pub first: usize,
    /// The words from there on.
    pub words: &'static [u64],
}

impl Span {
    /// No fluent.
    pub const EMPTY: Span = Span {
        first: 0,
        words: &[],
    };
}

/// The span of the fluents whose argument has value `v`: `spans[k]` where
/// `vals[k] == v` (`vals` sorted); no fluent when `v` is not among `vals`.
#[inline]
pub fn value_span(vals: &[u32], spans: &'static [Span], v: u32) -> Span {
    match vals.binary_search(&v) {
        Ok(k) => spans[k],
        Err(_) => Span::EMPTY,
    }
}

/// The spans of the fluents of one functor with each combination of values
/// at `N` of its arguments, found by the values' ranks as an
/// [`Index`](super::Index) finds its rows: per argument, a subtraction
/// where its values are consecutive ids, else a table read, both printed at
/// compile time (a static, so each lookup's choice folds away), where
/// [`value_spans`] searches each argument's values.
#[derive(Debug)]
pub struct SpanIndex<const N: usize> {
    /// Per argument, the smallest value its ranks cover.
    pub lo: [u32; N],
    /// Per argument, how a value's rank (times its stride) is found.
    pub ranks: [Ranks; N],
    /// Per combination of ranks, the first most significant, its span.
    pub spans: &'static [Span],
}

impl<const N: usize> SpanIndex<N> {
    /// The span of the fluents with values `vs` (none if a value is not
    /// among its argument's).
    #[inline]
    pub fn span(&self, vs: [u32; N]) -> Span {
        let cell = combination(&self.lo, &self.ranks, &vs);
        self.spans.get(cell).copied().unwrap_or(Span::EMPTY)
    }
}

/// The span of the fluents whose arguments have values `vs`: `spans[k]`
/// where `k` combines the ranks of `vs[i]` in `vals[i]` (each sorted), the
/// first most significant; no fluent when a value is not among its `vals`.
#[inline]
pub fn value_spans<const N: usize>(
    vals: [&[u32]; N],
    spans: &'static [Span],
    vs: [u32; N],
) -> Span {
    let mut k = 0;
    for i in 0..N {
        match vals[i].binary_search(&vs[i]) {
            Ok(r) => k = k * vals[i].len() + r,
            Err(_) => return Span::EMPTY,
        }
    }
    spans.get(k).copied().unwrap_or(Span::EMPTY)
}

#[cfg(test)]
mod tests {
    use super::super::NONE;
    use super::*;

    /// A span index finds the spans `value_spans` finds, by a run of
    /// consecutive ids (values 10..=12) and by a rank table (values 3 and 7
    /// of 3..=7), for values inside, between and outside both.
    #[test]
    fn a_span_index_finds_what_a_search_finds() {
        static WORDS: [u64; 1] = [1];
        // Six spans, told apart by their first word.
        let spans: &'static [Span; 6] = Box::leak(Box::new(std::array::from_fn(|first| Span {
            first,
            words: &WORDS,
        })));
        static R1: [u32; 5] = [0, NONE, NONE, NONE, 1];
        let index = SpanIndex {
            lo: [10, 3],
            ranks: [Ranks::Run { len: 3, stride: 2 }, Ranks::Table(&R1)],
            spans,
        };
        let (a, b): (&[u32], &[u32]) = (&[10, 11, 12], &[3, 7]);
        for x in [0, 9, 10, 11, 12, 13, NONE] {
            for y in [0, 2, 3, 5, 7, 8, NONE] {
                let (i, s) = (index.span([x, y]), value_spans([a, b], spans, [x, y]));
                assert_eq!(
                    (i.first, i.words.len()),
                    (s.first, s.words.len()),
                    "{x} {y}"
                );
            }
        }
    }
}
