//! Support for the modules of gdl-codegen's lifted back end: per-state memo
//! tables, lookups in sorted constant tables, and iteration over the
//! fluents of a state. Kept here so that generated code stays short and
//! reads as the rules it came from.

use std::hash::Hasher;

pub use crate::memo::{DenseMemo, FxHasher, Memo, MemoKey, Slots};

/// A term id that names no term: what building a term outside the game's
/// term universe gives. It equals no term of a table, a state or a move.
pub const NONE: u32 = u32::MAX;

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

/// A sorted constant table (rows of `W` numbers) looked up by its first `K`
/// columns through a directory computed at compile time: per key column,
/// the rank of each value (from `lo`) times the column's stride, `NONE`
/// where absent, and where the rows of each combination of ranks start.
/// [`Keyed`] builds a directory at the first lookup; this one is a plain
/// static, read without that check or its indirections (small
/// directories only: the compiler prints it whole).
#[derive(Debug)]
pub struct Index<const K: usize, const W: usize> {
    /// The table.
    pub table: &'static [u32],
    /// Per key column, the smallest value its ranks cover.
    pub lo: [u32; K],
    /// Per key column, the rank of value `lo + i` times the column's
    /// stride (the number of combinations of the later columns) at `i`,
    /// `NONE` for a value the column does not hold.
    pub ranks: [&'static [u32]; K],
    /// Rows `starts[c]..starts[c + 1]` have combined rank `c`.
    pub starts: &'static [u32],
}

impl<const K: usize, const W: usize> Index<K, W> {
    /// The rows whose key columns are `key`.
    #[inline]
    pub fn rows(&self, key: &[u32]) -> &'static [u32] {
        // The combination's number is the sum of the columns' shares: a
        // `NONE` share puts it past the directory, whose bounds checks
        // test every column at once.
        let mut cell = 0u64;
        // Indexed: the loop over the constant K unrolls, each column's
        // tables read from the static directly.
        #[allow(clippy::needless_range_loop, reason = "unrolled over the constant K")]
        for c in 0..K {
            let share = self.ranks[c].get(key[c].wrapping_sub(self.lo[c]) as usize);
            cell += u64::from(share.map_or(NONE, |&r| r));
        }
        let Ok(cell) = usize::try_from(cell) else {
            return &[];
        };
        match (self.starts.get(cell), self.starts.get(cell + 1)) {
            (Some(&a), Some(&b)) => self
                .table
                .get(a as usize * W..b as usize * W)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// [`Index::rows`] of a one-column key.
    #[inline(always)]
    pub fn rows1(&self, k: u32) -> &'static [u32] {
        self.rows(&[k])
    }

    /// [`Index::rows`] of a two-column key.
    #[inline(always)]
    pub fn rows2(&self, k0: u32, k1: u32) -> &'static [u32] {
        self.rows(&[k0, k1])
    }
}

/// A sorted constant table (rows of `width` numbers) looked up by its first
/// `keys` columns, through a directory built on first use: each key column's
/// values are ranked, and the rows of every combination of ranks are found
/// by one array index. Term ids are small and dense, so the rank tables are
/// arrays indexed by value. When the combinations would be too many, the
/// directory covers the first column only and the rest of the key is
/// searched.
pub struct Keyed {
    table: &'static [u32],
    width: usize,
    keys: usize,
    directory: std::sync::OnceLock<Directory>,
}

/// Most combinations of key ranks a directory indexes (4 MB of starts at
/// most, built once): amazons' moves, six argument columns of ten values
/// (10^6 combinations), have their directory cover them all, where at
/// 2^18 it stopped at five and searched the rest (-9.7% instructions a
/// playout on amazons, -5.3% on amazonsTorus; gt_two_thirds_6p's static
/// table, covered whole too, -47.7%).
const MAX_DIRECTORY: usize = 1 << 20;

/// The lookup structure of a [`Keyed`] table.
struct Directory {
    /// Per indexed key column, the rank of each value (`NONE`: absent).
    ranks: Vec<Box<[u32]>>,
    /// Per indexed key column, the number of its distinct values.
    counts: Vec<usize>,
    /// Rows `starts[i]..starts[i + 1]` have combined rank `i`.
    starts: Box<[u32]>,
}

impl Keyed {
    /// `table`, sorted, with rows of `width` numbers, looked up by its first
    /// `keys` columns (at least one).
    pub const fn new(table: &'static [u32], width: usize, keys: usize) -> Self {
        Keyed {
            table,
            width,
            keys,
            directory: std::sync::OnceLock::new(),
        }
    }

    fn row(&self, i: usize) -> &'static [u32] {
        &self.table[i * self.width..(i + 1) * self.width]
    }

    /// The directory, built by the first lookup (out of the inlined path).
    #[cold]
    #[inline(never)]
    fn init(&self) -> &Directory {
        self.directory.get_or_init(|| self.build())
    }

    fn build(&self) -> Directory {
        let n = self.table.len() / self.width;
        let ranked = |c: usize| {
            let mut values: Vec<u32> = (0..n).map(|i| self.row(i)[c]).collect();
            values.sort_unstable();
            values.dedup();
            let max = values.last().copied().unwrap_or(0) as usize;
            let mut ranks = vec![NONE; max + 1];
            for (r, &v) in values.iter().enumerate() {
                ranks[v as usize] = r as u32;
            }
            (ranks.into_boxed_slice(), values.len().max(1))
        };
        let mut dir = Directory {
            ranks: Vec::new(),
            counts: Vec::new(),
            starts: Box::new([]),
        };
        let mut cells = 1usize;
        for c in 0..self.keys {
            let (ranks, count) = ranked(c);
            if c > 0 && cells.saturating_mul(count) > MAX_DIRECTORY {
                break;
            }
            cells *= count;
            dir.ranks.push(ranks);
            dir.counts.push(count);
        }
        let mut starts = vec![0u32; cells + 1];
        for i in 0..n {
            let cell = dir
                .cell(self.row(i))
                .expect("every row's values are ranked");
            starts[cell + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        dir.starts = starts.into();
        dir
    }

    /// The rows whose first `key.len()` numbers are `key` (`key` holds the
    /// table's `keys` key columns).
    #[inline]
    pub fn rows(&self, key: &[u32]) -> &'static [u32] {
        match self.key_run(key) {
            Some((run, true)) => run,
            Some((run, false)) => rows(run, self.width, key),
            None => &[],
        }
    }

    /// The rows of the directory cell of `key`, and whether the directory
    /// covers all of `key` (else the run holds other rows too); `None` when
    /// a value of `key` is in no row.
    #[inline(always)]
    fn key_run(&self, key: &[u32]) -> Option<(&'static [u32], bool)> {
        let dir = self.dir();
        let cell = dir.cell(key)?;
        Some((self.run(dir, cell), key.len() == dir.ranks.len()))
    }
}

impl Keyed {
    /// Whether the table holds a row starting with `key` (the `keys` key
    /// columns): the test of a static relation too large for a bit set.
    /// The directory's cell leaves a few rows, scanned; a long run is
    /// searched.
    #[inline]
    pub fn holds(&self, key: &[u32]) -> bool {
        let w = self.width;
        match self.key_run(key) {
            Some((run, true)) => !run.is_empty(),
            Some((run, false)) if run.len() <= 16 * w => {
                run.chunks_exact(w).any(|row| row[..key.len()] == *key)
            }
            Some((run, false)) => !rows(run, w, key).is_empty(),
            None => false,
        }
    }

    /// The directory, built on first use.
    #[inline(always)]
    fn dir(&self) -> &Directory {
        match self.directory.get() {
            Some(dir) => dir,
            None => self.init(),
        }
    }

    /// The rows of cell `cell` of the directory.
    #[inline(always)]
    fn run(&self, dir: &Directory, cell: usize) -> &'static [u32] {
        let w = self.width;
        &self.table[dir.starts[cell] as usize * w..dir.starts[cell + 1] as usize * w]
    }

    /// [`Keyed::rows`] of a table with one key column: the hot case, kept
    /// short enough to inline.
    #[inline(always)]
    pub fn rows1(&self, k: u32) -> &'static [u32] {
        debug_assert_eq!(self.keys, 1);
        let dir = self.dir();
        match dir.ranks[0].get(k as usize) {
            Some(&r) if r != NONE => self.run(dir, r as usize),
            _ => &[],
        }
    }

    /// [`Keyed::rows`] of a table with two key columns.
    #[inline(always)]
    pub fn rows2(&self, k0: u32, k1: u32) -> &'static [u32] {
        debug_assert_eq!(self.keys, 2);
        let dir = self.dir();
        if dir.ranks.len() < 2 {
            return self.rows(&[k0, k1]);
        }
        let rank = |c: usize, k: u32| match dir.ranks[c].get(k as usize) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        };
        match (rank(0, k0), rank(1, k1)) {
            (Some(r0), Some(r1)) => self.run(dir, r0 * dir.counts[1] + r1),
            _ => &[],
        }
    }
}

impl Directory {
    /// The combined rank of the indexed columns of `key`, if all are ranked.
    #[inline]
    fn cell(&self, key: &[u32]) -> Option<usize> {
        let mut cell = 0;
        for (c, ranks) in self.ranks.iter().enumerate() {
            let r = *ranks.get(key[c] as usize)?;
            if r == NONE {
                return None;
            }
            cell = cell * self.counts[c] + r as usize;
        }
        Some(cell)
    }
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

/// The span of the fluents whose argument has value `v`: `spans[k]` where
/// `ranks[v] == k` (`NONE` for a value no fluent has there): one read,
/// where [`value_span`] searches.
#[inline]
pub fn ranked_span(ranks: &[u32], spans: &'static [Span], v: u32) -> Span {
    let k = ranks.get(v as usize).map_or(NONE, |&k| k);
    spans.get(k as usize).copied().unwrap_or(Span::EMPTY)
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

/// Whether bit `b` of `state` is set (`NONE`, no fluent's bit, is not).
#[inline(always)]
pub fn bit_set(state: &[u64], b: u32) -> bool {
    state
        .get((b >> 6) as usize)
        .is_some_and(|w| (w >> (b & 63)) & 1 != 0)
}

/// The positions of the bits set in both `state` and `span`, in order.
#[inline]
pub fn set_bits_in(state: &[u64], span: Span) -> SetBits<'_, 0> {
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

/// The positions of the bits set in `state`, `span` and every one of
/// `filters`, in order: a scan whose static tests are masks (see the
/// lifted back end's filters).
#[inline]
pub fn set_bits_filtered<const N: usize>(
    state: &[u64],
    span: Span,
    filters: [Span; N],
) -> SetBits<'_, N> {
    // The span's words and the state's, cut to the same length: a word
    // past the state's end has no fluent.
    let state = state.get(span.first..).unwrap_or(&[]);
    let n = state.len().min(span.words.len());
    let mut scan = SetBits {
        state: &state[..n],
        masks: &span.words[..n],
        first: span.first,
        filters,
        at: 0,
        bits: 0,
    };
    if n > 0 {
        scan.bits = scan.word(0);
    }
    scan
}

/// The iterator of [`set_bits_filtered`]: the word it is at and that
/// word's bits not yet given. Most spans are one word (a value's fluents
/// side by side), where the word is read once, on creation, and the scan
/// ends when its bits do.
#[derive(Clone, Debug)]
pub struct SetBits<'a, const N: usize> {
    /// The state's words in the span.
    state: &'a [u64],
    /// The span's words, as many.
    masks: &'static [u64],
    /// The index in the state of the span's first word.
    first: usize,
    filters: [Span; N],
    /// The index of the current word in the span.
    at: usize,
    /// The current word's bits not yet given.
    bits: u64,
}

impl<const N: usize> SetBits<'_, N> {
    /// Word `i` of the span (`i` below its length): the state's, masked by
    /// the span and filters.
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        let s = self.state[i] & self.masks[i];
        let w = self.first + i;
        self.filters.iter().fold(s, |b, f| b & word_of(f, w))
    }
}

impl<const N: usize> Iterator for SetBits<'_, N> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.bits == 0 {
            self.at += 1;
            // The two lengths are equal; testing both lets the compiler
            // drop `word`'s bounds checks.
            if self.at >= self.state.len() || self.at >= self.masks.len() {
                return None;
            }
            self.bits = self.word(self.at);
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
        *o |= filters.iter().fold(s & m, |b, f| b & word_of(f, w));
    }
}

/// Appends `row` to the answers `out` unless they hold it already: a
/// linear search while they are few, then the set `seen`, filled from them
/// on first use.
#[inline]
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

/// Sets the value `shared` holds to `value`, in place where no other
/// handle to it is alive (always, between queries: the evaluation holds
/// the state it reads in an `Rc` only while a loop runs over it).
/// `Rc::make_mut` does the same, but its copy path, inlined, made each
/// state's reset save and restore six registers.
#[inline]
pub fn overwrite<T: Copy>(shared: &mut std::rc::Rc<T>, value: &T) {
    match std::rc::Rc::get_mut(shared) {
        Some(v) => *v = *value,
        None => replace_shared(shared, value),
    }
}

/// [`overwrite`] of a value another handle still holds: a new one.
#[cold]
#[inline(never)]
fn replace_shared<T: Copy>(shared: &mut std::rc::Rc<T>, value: &T) {
    *shared = std::rc::Rc::new(*value);
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

/// Most terms a [`TermStore`] holds: a game whose rules build more in one
/// state (a search over paths, say, that never closes) stops with this
/// budget named rather than take the machine's memory. (The generated code
/// clears the store between states once it holds a small fraction of this.)
pub const MAX_RUN_TIME_TERMS: usize = 1 << 22;

/// Terms built while the rules run, outside the game's term universe (the
/// terms the compiler enumerated): the lists a rule builds, for instance.
/// Ids follow the universe's, so that a term of the universe keeps its id
/// and equal terms get one id (hash-consed). A store belongs to one
/// evaluation and is cleared with the memo tables that name its terms:
/// those of relations that depend on the state at each state, the others
/// when the store has grown large (the generated code's `KEPT_TERMS`).
#[derive(Debug, Default)]
pub struct TermStore {
    /// The first id of the store: the universe's size.
    base: u32,
    /// Per term, its functor and where its arguments start in `args`.
    heads: Vec<(u32, u32)>,
    args: Vec<u32>,
    /// Per term, the previous term of the same hash (`NONE`: none).
    chain: Vec<u32>,
    /// The last term made of each hash.
    last: Memo<u64, u32>,
}

impl TermStore {
    /// An empty store whose ids start at `base` (the universe's size).
    pub fn new(base: u32) -> Self {
        TermStore {
            base,
            ..TermStore::default()
        }
    }

    /// The number of terms the store holds.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Whether the store holds no term.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Forgets every term (their ids are reused after this).
    pub fn clear(&mut self) {
        if !self.heads.is_empty() {
            self.heads.clear();
            self.args.clear();
            self.chain.clear();
            self.last.clear();
        }
    }

    /// The id of the term `(functor args..)`, made if new.
    ///
    /// # Panics
    /// When one evaluation makes more than [`MAX_RUN_TIME_TERMS`] terms.
    pub fn make(&mut self, functor: u32, args: &[u32]) -> u32 {
        let mut h = FxHasher::default();
        h.write_u32(functor);
        args.iter().for_each(|&a| h.write_u32(a));
        let hash = h.finish();
        let mut at = self.last.get(&hash).copied().unwrap_or(NONE);
        while at != NONE {
            let i = (at - self.base) as usize;
            let (f, start) = self.heads[i];
            let start = start as usize;
            if f == functor && self.args.get(start..start + args.len()) == Some(args) {
                return at;
            }
            at = self.chain[i];
        }
        assert!(
            self.heads.len() < MAX_RUN_TIME_TERMS,
            "the rules built more than {MAX_RUN_TIME_TERMS} terms evaluating one state \
             (gdl_runtime::lifted::MAX_RUN_TIME_TERMS): a recursion that builds terms \
             without end? The interpreter (`--reasoner interpreter`) stops such a query \
             with its answer budget"
        );
        let id = self.base + self.heads.len() as u32;
        self.heads.push((functor, self.args.len() as u32));
        self.args.extend_from_slice(args);
        self.chain.push(self.last.insert(hash, id).unwrap_or(NONE));
        id
    }

    /// The functor of run-time term `t` (`NONE` if the store has no such term).
    #[inline]
    pub fn functor(&self, t: u32) -> u32 {
        t.checked_sub(self.base)
            .and_then(|i| self.heads.get(i as usize))
            .map_or(NONE, |&(f, _)| f)
    }

    /// The arguments of run-time term `t`, which has `N` of them (its
    /// functor's arity; `NONE`s if the store has no such term).
    #[inline]
    pub fn args<const N: usize>(&self, t: u32) -> [u32; N] {
        t.checked_sub(self.base)
            .and_then(|i| self.heads.get(i as usize))
            .and_then(|&(_, start)| self.args.get(start as usize..start as usize + N))
            .and_then(|a| a.try_into().ok())
            .unwrap_or([NONE; N])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Move;

    #[test]
    fn overwrite_writes_in_place_unless_another_handle_holds_the_value() {
        let mut state = std::rc::Rc::new([1u64, 2]);
        let at = std::rc::Rc::as_ptr(&state);
        overwrite(&mut state, &[3, 4]);
        assert_eq!((*state, std::rc::Rc::as_ptr(&state)), ([3, 4], at));
        let scan = std::rc::Rc::clone(&state);
        overwrite(&mut state, &[5, 6]);
        assert_eq!((*state, *scan), ([5, 6], [3, 4]));
    }

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

    /// `holds` agrees with a search of the whole table, whether the
    /// directory covers every column (a few values each, or 100), leaves
    /// short runs to scan, or leaves runs to search (1 100 values a column:
    /// the directory stops at one).
    #[test]
    fn holds_agrees_with_a_search_of_the_table() {
        for (values, width) in [(4u32, 3usize), (100, 3), (1100, 3), (40, 4)] {
            let mut table = Vec::new();
            let mut x = 12345u32;
            for _ in 0..5000 {
                for _ in 0..width {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    table.push((x >> 16) % values);
                }
            }
            let mut rows_of: Vec<Vec<u32>> = table.chunks(width).map(<[u32]>::to_vec).collect();
            rows_of.sort_unstable();
            rows_of.dedup();
            let table: &'static [u32] = Box::leak(rows_of.concat().into_boxed_slice());
            let keyed = Keyed::new(table, width, width);
            assert!(table.chunks(width).all(|row| keyed.holds(row)));
            let mut probe = vec![0u32; width];
            for i in 0..20_000u32 {
                for (c, p) in probe.iter_mut().enumerate() {
                    *p = (i.wrapping_mul(2_654_435_761) >> (c * 5)) % (values + 1);
                }
                assert_eq!(
                    keyed.holds(&probe),
                    contains(table, width, &probe),
                    "{probe:?}"
                );
            }
        }
    }

    /// A table of (arguments, id) rows looked up by its arguments, as the
    /// lifted back end builds terms too many for a dense table: each row's
    /// arguments give its id, other arguments none, where the directory
    /// covers two of the three argument columns (120 values each).
    #[test]
    fn keyed_rows_give_the_id_of_their_arguments() {
        let mut rows_of = Vec::new();
        let mut x = 777u32;
        for id in 0..30_000u32 {
            let mut row: Vec<u32> = (0..3)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) % 120
                })
                .collect();
            row.push(id);
            rows_of.push(row);
        }
        rows_of.sort_unstable();
        rows_of.dedup_by(|a, b| a[..3] == b[..3]);
        let table: &'static [u32] = Box::leak(rows_of.concat().into_boxed_slice());
        let keyed = Keyed::new(table, 4, 3);
        let id = |key: &[u32]| keyed.rows(key).get(3).copied();
        assert!(table.chunks(4).all(|row| id(&row[..3]) == Some(row[3])));
        for i in 0..20_000u32 {
            let probe: Vec<u32> = (0..3)
                .map(|c| (i.wrapping_mul(2_654_435_761) >> (c * 5)) % 121)
                .collect();
            let expected = rows_of.iter().find(|r| r[..3] == probe[..]).map(|r| r[3]);
            assert_eq!(id(&probe), expected, "{probe:?}");
        }
    }

    #[test]
    fn set_bits_lists_the_common_bits_in_order() {
        let s = [0b1011u64, 1 << 63];
        static M: [u64; 2] = [0b0011, u64::MAX];
        let m = Span {
            first: 0,
            words: &M,
        };
        assert_eq!(set_bits_in(&s, m).collect::<Vec<_>>(), vec![0, 1, 127]);
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
        let bits: Vec<u32> = set_bits_filtered(&state, span, [filter]).collect();
        assert_eq!(bits, vec![65, 193, 195]);
        // A filter shorter than the span reads as zero past its end.
        static SHORT: [u64; 1] = [u64::MAX];
        let short = Span {
            first: 1,
            words: &SHORT,
        };
        let bits: Vec<u32> = set_bits_filtered(&state, span, [short]).collect();
        assert_eq!(bits, vec![65, 66]);
        // A span past the state's end gives nothing there.
        let beyond = Span {
            first: 4,
            words: &WORDS,
        };
        assert_eq!(
            set_bits_in(&state, beyond).collect::<Vec<_>>(),
            (256..320).collect::<Vec<_>>()
        );
    }

    #[test]
    fn set_bits_in_reads_the_span_s_words_only() {
        static WORDS: [u64; 2] = [0b0110, 1];
        let span = Span {
            first: 1,
            words: &WORDS,
        };
        let state = [u64::MAX, 0b0100, 0b11];
        assert_eq!(set_bits_in(&state, span).collect::<Vec<_>>(), vec![66, 128]);
        assert_eq!(set_bits_in(&state, Span::EMPTY).count(), 0);
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

    #[test]
    fn an_index_finds_the_rows_of_a_key() {
        // (1 5 ..) twice, (2 5 ..) once, (2 6 ..) once; key values 1..2
        // and 5..6, four cells.
        static TABLE: [u32; 12] = [1, 5, 7, 1, 5, 8, 2, 5, 9, 2, 6, 3];
        // Ranks times strides: the first column's stride is 2.
        static R0: [u32; 2] = [0, 2];
        static R1: [u32; 3] = [0, 1, NONE];
        static STARTS: [u32; 5] = [0, 2, 2, 3, 4];
        let index: Index<2, 3> = Index {
            table: &TABLE,
            lo: [1, 5],
            ranks: [&R0, &R1],
            starts: &STARTS,
        };
        assert_eq!(index.rows2(1, 5), &[1, 5, 7, 1, 5, 8]);
        assert_eq!(index.rows2(1, 6), &[] as &[u32]);
        assert_eq!(index.rows2(2, 6), &[2, 6, 3]);
        assert_eq!(index.rows(&[0, 5]), &[] as &[u32]);
        assert_eq!(index.rows(&[2, 40]), &[] as &[u32]);
        // A value inside a column's span that the column does not hold.
        assert_eq!(index.rows2(1, 7), &[] as &[u32]);
        assert_eq!(index.rows2(NONE, NONE), &[] as &[u32]);
    }

    #[test]
    fn ranked_span_reads_a_value_s_rank_and_no_span_for_others() {
        static WORDS: [u64; 2] = [1, 2];
        static SPANS: [Span; 2] = [
            Span {
                first: 0,
                words: &WORDS,
            },
            Span {
                first: 1,
                words: &WORDS,
            },
        ];
        // Values 1 and 3 have ranks 0 and 1.
        let ranks = [NONE, 0, NONE, 1];
        assert_eq!(ranked_span(&ranks, &SPANS, 3).first, 1);
        assert_eq!(ranked_span(&ranks, &SPANS, 1).first, 0);
        for v in [0, 2, 4, NONE] {
            assert!(ranked_span(&ranks, &SPANS, v).words.is_empty());
        }
    }

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

    #[test]
    fn run_time_terms_are_hash_consed_after_the_universe() {
        let mut store = TermStore::new(10);
        let a = store.make(3, &[1, 2]);
        let b = store.make(3, &[1, 4]);
        assert_eq!((a, b), (10, 11));
        assert_eq!(store.make(3, &[1, 2]), a);
        // The generated code forgets the store by its size.
        assert_eq!(store.len(), 2);
        assert_eq!(store.functor(b), 3);
        assert_eq!(store.args::<2>(b), [1, 4]);
        assert_eq!(store.args::<2>(b + 1), [NONE; 2]);
        // Universe ids and unknown ids are no run-time terms.
        assert_eq!(store.functor(5), NONE);
        assert_eq!(store.functor(12), NONE);
        store.clear();
        assert!(store.is_empty());
        assert_eq!(store.make(4, &[b]), 10);
    }
}
