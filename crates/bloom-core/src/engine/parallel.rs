//! All cores: the parallel build and queries (rayon).

use alloc::vec::Vec;
use core::hash::Hash;

use super::filter::{DEFAULT_FPR, Engine};
use super::layout::Layout;
use super::storage::Storage;
use crate::bits::{AtomicBitStore, BitStore};
use crate::internal::par;
use rayon::iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

impl<L: Layout, S: Storage + Sync> Engine<L, S> {
    /// [`contains_batch`](Engine::contains_batch) on all of rayon's threads: the keys
    /// split into one task per share, each answered by the batch query. The answers are
    /// those of `contains_batch`.
    pub fn par_contains_batch<T: Hash + Sync>(&self, keys: &[T]) -> Vec<bool> {
        par::par_contains_batch(keys, |part, out| self.contains_batch_into(part, out))
    }
}

impl<L: Layout> Engine<L, BitStore> {
    /// Adds every key of `keys` using all of rayon's threads. The result is identical to
    /// [`insert_all`](Engine::insert_all)'s.
    ///
    /// Keys are hashed in parallel and their positions sorted into regions of the bit
    /// array, each region then written by one thread (the parallel scatter): no atomics,
    /// no per-thread copy of the filter. A filter of at most a quarter of the last-level
    /// cache, given enough keys per thread, is built instead as whole copies, one per
    /// thread, then merged; one larger but still in the cache, or a call with fewer keys
    /// or one thread, by `insert_all` (`docs/design.md`, "Parallel build").
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let keys: Vec<u64> = (0..100_000).collect();
    /// let mut filter = BloomFilter::new(keys.len() as u64, 0.01)?;
    /// filter.par_insert_all(&keys);
    /// assert!(keys.iter().all(|k| filter.contains(k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn par_insert_all<T: Hash + Sync>(&mut self, keys: &[T]) {
        par::par_insert_all(self, keys);
    }

    /// Adds every key of an iterator using all of rayon's threads: the keys are gathered
    /// in chunks, each chunk built by [`par_insert_all`](Engine::par_insert_all) while the
    /// next is gathered.
    pub fn par_insert_iter<T, I>(&mut self, keys: I)
    where
        T: Hash + Send + Sync,
        I: IntoIterator<Item = T>,
        I::IntoIter: Send,
    {
        par::par_insert_iter(keys, |chunk: &[T]| self.par_insert_all(chunk));
    }
}

impl<L: Layout> Engine<L, AtomicBitStore> {
    /// Adds every key of `keys` from all of rayon's threads, through the atomic inserts.
    ///
    /// For building a filter from scratch, the owned filter's `par_insert_all` (then
    /// `into_atomic`) is faster: it needs no locked instructions. With one thread or few
    /// keys it inserts them on the calling thread.
    pub fn par_insert_all<T: Hash + Sync>(&self, keys: &[T]) {
        par::par_insert_shared(keys, |part| self.insert_all(part));
    }

    /// Adds every key of an iterator from all of rayon's threads, in chunks.
    pub fn par_insert_iter<T, I>(&self, keys: I)
    where
        T: Hash + Send + Sync,
        I: IntoIterator<Item = T>,
        I::IntoIter: Send,
    {
        par::par_insert_iter(keys, |chunk: &[T]| self.par_insert_all(chunk));
    }
}

impl<L: Layout> par::ParBuild for Engine<L, BitStore> {
    const COPIES: bool = L::PARALLEL_BUILD;

    fn empty_twin(&self) -> Option<Self> {
        let mut twin = Self::from_layout(self.layout).ok()?;
        twin.hashing = self.hashing;
        Some(twin)
    }

    fn insert_keys<T: Hash>(&mut self, keys: &[T]) {
        self.insert_all(keys);
    }

    fn scatter<T: Hash + Sync>(&mut self, keys: &[T]) {
        if !L::PARALLEL_BUILD {
            return self.insert_all(keys);
        }
        let (layout, hashing) = (self.layout, self.hashing);
        layout.par_scatter(&hashing, self.store.as_words_mut(), keys);
    }
}

/// Adds the keys with [`par_insert_all`](Engine::par_insert_all).
impl<L: Layout, T: Hash + Send + Sync> ParallelExtend<T> for Engine<L, BitStore> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let keys: Vec<T> = par_iter.into_par_iter().collect();
        self.par_insert_all(&keys);
    }
}

/// Collects keys into a filter sized for their number at 1%, built by
/// [`par_insert_all`](Engine::par_insert_all).
///
/// # Panics
///
/// As `FromIterator`.
impl<L: Layout, T: Hash + Send + Sync> FromParallelIterator<T> for Engine<L, BitStore> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let keys: Vec<T> = par_iter.into_par_iter().collect();
        crate::internal::checks::collect_sized(
            &keys,
            |n| Self::new(n, DEFAULT_FPR),
            |filter, keys| filter.par_insert_all(keys),
        )
    }
}
