//! Per-state memo tables of the lifted back end's generated code: a hash
//! table cleared in constant time ([`Memo`]) and an array indexed by the
//! key's rank where the keys are known at compile time ([`DenseMemo`]).

use std::hash::Hasher;

/// The multiplicative hash of rustc (`FxHasher`): memo keys are a few
/// small integers, for which SipHash's resistance costs more than it buys.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    /// Eight bytes a round: arrays of `u32` keys arrive here as bytes.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A memo table's key: a few numbers, hashed without the byte-wise
/// [`Hasher`] protocol (whose length prefix and byte chunks cost more than
/// the key).
pub trait MemoKey: Copy + Eq {
    /// The key's hash; its high bits pick the slot.
    fn hash(&self) -> u64;
}

impl<const N: usize> MemoKey for [u32; N] {
    #[inline]
    fn hash(&self) -> u64 {
        // Two numbers a round: half the multiplications of one each.
        let mut h = FxHasher::default();
        let mut pairs = self.chunks_exact(2);
        for p in &mut pairs {
            h.write_u64(u64::from(p[0]) | u64::from(p[1]) << 32);
        }
        if let [w] = pairs.remainder() {
            h.write_u32(*w);
        }
        h.finish()
    }
}

impl MemoKey for u64 {
    #[inline]
    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        h.write_u64(*self);
        h.finish()
    }
}

/// A per-state memo table: the answers of one relation called with one
/// pattern of bound arguments, by the bound values. An open-addressing
/// hash table whose slots are stamped with the epoch they were written in,
/// so that [`Memo::clear`] is one increment: a playout clears every table
/// each state, and a cleared `HashMap` writes its whole control array.
#[derive(Debug, Clone)]
pub struct Memo<K, V> {
    /// The epoch of the current state; a slot stamped with another is
    /// empty. Never 0, the stamp of slots never written.
    epoch: u32,
    /// The keys of this epoch.
    len: usize,
    /// 64 less the log2 of the number of slots: the hash's top bits index.
    shift: u32,
    /// Per slot, its stamp, key and value; a power of two long, at most
    /// half full, empty before the first insertion.
    slots: Vec<(u32, K, V)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            epoch: 1,
            len: 0,
            shift: 64,
            slots: Vec::new(),
        }
    }
}

impl<K: MemoKey, V: Copy> Memo<K, V> {
    /// The value of `key` in this state, if any.
    #[inline]
    pub fn get(&self, key: &K) -> Option<&V> {
        if self.len == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let (epoch, k, v) = &self.slots[i];
            if *epoch != self.epoch {
                return None;
            }
            if k == key {
                return Some(v);
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets the value of `key` in this state; its value before, if any.
    #[inline]
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(key, value);
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(&key);
        loop {
            let slot = &mut self.slots[i];
            if slot.0 != self.epoch {
                *slot = (self.epoch, key, value);
                self.len += 1;
                return None;
            }
            if slot.1 == key {
                return Some(std::mem::replace(&mut slot.2, value));
            }
            i = (i + 1) & mask;
        }
    }

    /// The number of keys in this state.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key has a value in this state.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every value: a new epoch (every slot stale at once).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2^32 states: stamps of old epochs could come round again.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.epoch = 1;
        }
    }

    /// The first slot to probe for `key`.
    #[inline]
    fn home(&self, key: &K) -> usize {
        // Only called on allocated slots: `shift` is below 64.
        (key.hash() >> self.shift) as usize
    }

    /// Doubles the slots (16 at first), keeping this epoch's keys; `key`
    /// and `value` fill the new slots, stamped never written.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, key: K, value: V) {
        let size = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![(0, key, value); size]);
        self.shift = 64 - size.trailing_zeros();
        self.len = 0;
        for (epoch, k, v) in old {
            if epoch == self.epoch {
                self.insert(k, v);
            }
        }
    }
}

impl<K: MemoKey, V: Copy> Extend<(K, V)> for Memo<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        iter.into_iter().for_each(|(k, v)| {
            self.insert(k, v);
        });
    }
}

/// The dense index of a memo table's keys: the keys whose every value lies
/// in its argument's domain (the relation's arguments over all states,
/// known at compile time) each get a slot, numbered from 0; the others get
/// none. Generated code implements it on a type of its own per table.
pub trait Slots {
    /// The memo's key: the bound arguments of a call.
    type Key: MemoKey;
    /// The number of slots.
    const SLOTS: usize;
    /// The slot of `key`, if it has one.
    fn slot(key: &Self::Key) -> Option<usize>;
}

/// A per-state memo table indexed by [`Slots`]: an array read without
/// hashing, cleared by moving to the next epoch rather than by writing
/// every slot. Keys without a slot (values outside their domains, terms
/// built at run time) go to a hash table.
pub struct DenseMemo<S: Slots, V> {
    /// The epoch of the current state; a slot stamped with another holds
    /// nothing for it. Starts at 1, so that fresh slots (stamped 0) are
    /// empty.
    epoch: u32,
    /// Per slot, the epoch it was written in and its value; allocated at
    /// the first insertion.
    slots: Vec<(u32, V)>,
    /// The keys without a slot.
    other: Memo<S::Key, V>,
    /// Whether anything was inserted since the last clear.
    used: bool,
}

impl<S: Slots, V> Default for DenseMemo<S, V> {
    fn default() -> Self {
        DenseMemo {
            epoch: 1,
            slots: Vec::new(),
            other: Memo::default(),
            used: false,
        }
    }
}

impl<S: Slots, V: Copy + Default> DenseMemo<S, V> {
    /// The value of `key` in this state, if any.
    #[inline]
    pub fn get(&self, key: &S::Key) -> Option<&V> {
        match S::slot(key) {
            Some(i) => match self.slots.get(i) {
                Some((epoch, v)) if *epoch == self.epoch => Some(v),
                _ => None,
            },
            None => self.other.get(key),
        }
    }

    /// Sets the value of `key` in this state.
    #[inline]
    pub fn insert(&mut self, key: S::Key, value: V) {
        self.used = true;
        let Some(i) = S::slot(&key) else {
            self.insert_other(key, value);
            return;
        };
        match self.slots.get_mut(i) {
            Some(slot) => *slot = (self.epoch, value),
            None => self.insert_first(i, value),
        }
    }

    /// [`DenseMemo::insert`] of a key without a slot.
    #[cold]
    #[inline(never)]
    fn insert_other(&mut self, key: S::Key, value: V) {
        self.other.insert(key, value);
    }

    /// [`DenseMemo::insert`] into a table not yet allocated.
    #[cold]
    #[inline(never)]
    fn insert_first(&mut self, i: usize, value: V) {
        self.slots = vec![(0, V::default()); S::SLOTS];
        self.slots[i] = (self.epoch, value);
    }

    /// Whether nothing was inserted since the last clear.
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.used
    }

    /// Forgets every value: a new epoch (every slot stale at once).
    pub fn clear(&mut self) {
        self.used = false;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2^32 states: stamps of old epochs could come round again.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.epoch = 1;
        }
        if !self.other.is_empty() {
            self.other.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memo_keeps_each_key_s_last_value_until_clear() {
        let mut memo: Memo<[u32; 2], u32> = Memo::default();
        assert!(memo.is_empty());
        assert_eq!(memo.get(&[1, 2]), None);
        // Enough keys to grow the table several times.
        for a in 0..100 {
            assert_eq!(memo.insert([a, a * 7], a), None);
        }
        assert_eq!(memo.insert([5, 35], 50), Some(5));
        assert_eq!(memo.len(), 100);
        assert_eq!(memo.get(&[5, 35]), Some(&50));
        assert_eq!(memo.get(&[99, 693]), Some(&99));
        assert_eq!(memo.get(&[5, 36]), None);
        memo.clear();
        assert!(memo.is_empty());
        assert_eq!(memo.get(&[5, 35]), None);
        assert_eq!(memo.insert([5, 35], 1), None);
        assert_eq!(memo.get(&[5, 35]), Some(&1));
        assert_eq!(memo.get(&[6, 42]), None);
        // Epochs wrap: stamps of old states must not come back.
        memo.epoch = u32::MAX;
        memo.insert([0, 0], 3);
        memo.clear();
        assert_eq!(memo.epoch, 1);
        assert_eq!(memo.get(&[0, 0]), None);
        assert_eq!(memo.get(&[5, 35]), None);
        memo.extend([([1, 1], 4), ([1, 1], 6)]);
        assert_eq!((memo.len(), memo.get(&[1, 1])), (1, Some(&6)));
    }

    /// Keys `[a, b]` with `a < 3` and `b < 2` get slots.
    struct SmallKeys;

    impl Slots for SmallKeys {
        type Key = [u32; 2];
        const SLOTS: usize = 6;
        fn slot(&[a, b]: &[u32; 2]) -> Option<usize> {
            (a < 3 && b < 2).then_some((a * 2 + b) as usize)
        }
    }

    #[test]
    fn dense_memo_forgets_at_clear_and_keeps_keys_without_a_slot() {
        let mut memo: DenseMemo<SmallKeys, (u32, u32)> = DenseMemo::default();
        assert!(memo.is_empty());
        assert_eq!(memo.get(&[1, 1]), None);
        memo.insert([1, 1], (4, 5));
        memo.insert([7, 0], (6, 7));
        assert!(!memo.is_empty());
        assert_eq!(memo.get(&[1, 1]), Some(&(4, 5)));
        assert_eq!(memo.get(&[7, 0]), Some(&(6, 7)));
        assert_eq!(memo.get(&[1, 0]), None);
        memo.clear();
        assert!(memo.is_empty());
        assert_eq!(memo.get(&[1, 1]), None);
        assert_eq!(memo.get(&[7, 0]), None);
        memo.insert([2, 1], (0, 0));
        assert_eq!(memo.get(&[2, 1]), Some(&(0, 0)));
        assert_eq!(memo.get(&[1, 1]), None);
        // Epochs wrap: stamps of old states must not come back.
        memo.epoch = u32::MAX;
        memo.insert([0, 0], (1, 1));
        memo.clear();
        assert_eq!(memo.get(&[0, 0]), None);
        assert_eq!(memo.get(&[2, 1]), None);
    }
}
