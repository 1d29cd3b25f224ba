//! [`TermStore`]: terms built while the rules run, outside the game's term
//! universe, hash-consed, with its size budget ([`MAX_RUN_TIME_TERMS`]).

use std::hash::Hasher;

use super::NONE;
use crate::memo::{FxHasher, Memo};

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
