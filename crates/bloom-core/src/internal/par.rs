//! Parallel bulk insertion into a filter's array, without atomics and without per-thread
//! copies.
//!
//! A filter's bulk build is bound by random memory writes. Sharing the array through atomic
//! `fetch_or`s serialises each core's writes (a locked instruction waits for its cache line),
//! and giving each thread a private copy multiplies the memory. [`par_scatter_into`] instead
//! splits the array into regions and works in two phases per chunk of keys:
//!
//! 1. every thread hashes a share of the chunk and appends each of a key's updates to the
//!    bucket of the region it falls in (sequential writes);
//! 2. every region is then updated by exactly one thread, reading its buckets in order, so
//!    plain (non-atomic) writes are safe and each thread's random writes stay inside a
//!    region a fraction of the filter's size.
//!
//! The result is bit-for-bit the one a sequential loop produces. [`par_scatter`] is the form
//! for word arrays of bits or counters (the classic and counting filters); the blocked filters
//! scatter whole-block updates through [`par_scatter_into`] directly.

use rayon::prelude::*;

/// Keys per round of the two phases: large enough to amortise the fork-join, small enough
/// that the buckets stay in cache-friendly sizes.
const CHUNK_KEYS: usize = 1 << 15;

/// Below this many keys the parallel machinery costs more than it saves.
const MIN_PARALLEL_KEYS: usize = 1 << 14;

/// Regions per worker thread: more regions than threads lets rayon balance uneven regions,
/// and keeps a region's random writes within a fraction of the array.
const REGIONS_PER_THREAD: usize = 16;

/// How many entries ahead of the one being applied the region update prefetches its slot.
const PREFETCH_AHEAD: usize = 16;

/// Whether [`par_scatter_into`] beats a sequential build of `keys` keys into an array of
/// `bytes` bytes: only with more than one thread, at least [`MIN_PARALLEL_KEYS`] keys, and
/// an array larger than the last-level cache
/// ([`last_level_cache_bytes`](crate::internal::batch::last_level_cache_bytes)). Inside the
/// cache a sequential build's random writes are hits, and the scatter's extra pass over
/// every update (write it to a bucket, read it back) costs more than a second thread gives
/// back: on 2 cores of the AMD EPYC (family 26 model 2, Zen 5, 32 MiB L3) the scatter took
/// 1.2 to 2.7 times the sequential build of the classic, counting and blocked filters at
/// every size whose array fit the L3, and 0.38 times it for the counting filter's 48 MB at
/// 10 million keys (`par_build`, docs/design.md, "Parallel build"). A filter's
/// `par_insert_all` asks this first and runs its own sequential `insert_all` when it says no;
/// [`par_scatter_into`] itself scatters whenever it has threads and keys (so that its tests
/// run the scatter on small arrays).
pub fn scatter_pays(bytes: usize, keys: usize) -> bool {
    rayon::current_num_threads() > 1
        && keys >= MIN_PARALLEL_KEYS
        && (bytes > crate::internal::batch::last_level_cache_bytes()
            || SCATTER_ALWAYS.load(std::sync::atomic::Ordering::Relaxed))
}

/// Set by [`scatter_always`].
static SCATTER_ALWAYS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`scatter_pays`] ignore the filter's size from now on, for the whole process: the
/// tests' way to run every filter's scatter on filters small enough to build in a test. The
/// answers are the same either way (a scatter gives the sequential build's bits), so tests
/// running beside one that sets it are not affected.
pub fn scatter_always(on: bool) {
    SCATTER_ALWAYS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Applies `update(&mut slots[index(e)], e)` for every entry `e` that `entries(key)` yields,
/// for every key, in parallel.
///
/// An entry is what one update needs: for a bit array, the bit's position; for a blocked
/// filter, the block and the hash half that chooses its bits. `index(e)` is the slot (word,
/// block) the entry changes, and must be below `slots.len()`.
///
/// `update` must change only the slot it is given. Updates to one slot then happen in key
/// order, as in a sequential loop, and updates to different slots commute, so the result is
/// the one a sequential loop gives, whatever the number of threads (saturating counters
/// included).
///
/// # Panics
///
/// If `index` returns a slot beyond the array (a bug in the calling filter).
///
/// # Examples
///
/// ```
/// // Each key sets one bit in each of two 64-bit words.
/// let mut words = vec![0u64; 1024];
/// let keys: Vec<u64> = (0..100_000).collect();
/// bloom_core::internal::par::par_scatter_into(
///     &mut words,
///     &keys,
///     |&k| [(k * 7) % 65_536, (k * 13 + 5) % 65_536],
///     |bit| (bit / 64) as usize,
///     |word, bit| *word |= 1 << (bit % 64),
/// );
/// assert_eq!(words.iter().map(|w| w.count_ones()).sum::<u32>(), 65_536);
/// ```
pub fn par_scatter_into<S, T, E, I, P, X, U>(
    slots: &mut [S],
    keys: &[T],
    entries: P,
    index: X,
    update: U,
) where
    S: Send,
    T: Sync,
    E: Copy + Send + Sync,
    I: IntoIterator<Item = E>,
    P: Fn(&T) -> I + Sync,
    X: Fn(E) -> usize + Sync,
    U: Fn(&mut S, E) + Sync,
{
    let threads = rayon::current_num_threads();
    if threads <= 1 || keys.len() < MIN_PARALLEL_KEYS || slots.len() < 2 {
        for key in keys {
            for e in entries(key) {
                update(&mut slots[index(e)], e);
            }
        }
        return;
    }
    // Regions are a power of two of slots, so a slot's region is one shift away.
    let region_slots = slots
        .len()
        .div_ceil(threads * REGIONS_PER_THREAD)
        .next_power_of_two();
    let shift = region_slots.trailing_zeros();
    let regions = slots.len().div_ceil(region_slots);
    let workers = threads
        .min(keys.len().div_ceil(MIN_PARALLEL_KEYS / 4))
        .max(1);
    // buckets[worker][region]: entries found by one worker for one region, reused per chunk.
    let mut buckets: Vec<Vec<Vec<E>>> = vec![vec![Vec::new(); regions]; workers];
    for chunk in keys.chunks(CHUNK_KEYS) {
        let share = chunk.len().div_ceil(workers);
        buckets
            .par_iter_mut()
            .zip(chunk.par_chunks(share))
            .for_each(|(mine, part)| {
                for bucket in mine.iter_mut() {
                    bucket.clear();
                }
                for key in part {
                    for e in entries(key) {
                        mine[index(e) >> shift].push(e);
                    }
                }
            });
        let buckets = &buckets;
        slots
            .par_chunks_mut(region_slots)
            .enumerate()
            .for_each(|(r, region)| {
                let base = r << shift;
                // Workers took consecutive shares of the chunk: reading their buckets in worker
                // order replays each slot's updates in key order.
                for worker in buckets {
                    let bucket = &worker[r];
                    for (n, &e) in bucket.iter().enumerate() {
                        // Ask for a slot a few entries ahead, so the writes find it cached.
                        if let Some(&ahead) = bucket.get(n + PREFETCH_AHEAD) {
                            crate::bits::prefetch(&region[index(ahead) - base]);
                        }
                        update(&mut region[index(e) - base], e);
                    }
                }
            });
    }
}

/// [`par_scatter_into`] for a word array of slots `1 << slot_shift` to a word: bits
/// (`slot_shift = 6`) or 4-bit counters (`4`). `positions(key)` yields the key's slots, and
/// `update(word, slot)` changes slot `slot` (numbered across the whole array) in its word.
///
/// # Panics
///
/// If `positions` yields a slot beyond the array (a bug in the calling filter).
///
/// # Examples
///
/// ```
/// use bloom_core::hash::hash_key;
/// use bloom_core::internal::Probes;
///
/// // A 1,000,000-bit filter's bulk build with 7 probes per key.
/// let mut words = vec![0u64; 1_000_000 / 64 + 1];
/// let keys: Vec<u64> = (0..50_000).collect();
/// bloom_core::internal::par::par_scatter(
///     &mut words,
///     6,
///     &keys,
///     |k| Probes::new(hash_key(k, 1), 7, 1_000_000),
///     |word, bit| *word |= 1 << (bit % 64),
/// );
/// assert!(words.iter().any(|&w| w != 0));
/// ```
pub fn par_scatter<T, I, P, U>(
    words: &mut [u64],
    slot_shift: u32,
    keys: &[T],
    positions: P,
    update: U,
) where
    T: Sync,
    I: IntoIterator<Item = u64>,
    P: Fn(&T) -> I + Sync,
    U: Fn(&mut u64, u64) + Sync,
{
    par_scatter_into(
        words,
        keys,
        positions,
        |slot| (slot >> slot_shift) as usize,
        update,
    );
}

#[doc(hidden)]
pub use rayon as __rayon;

/// Implements rayon's `ParallelExtend` and `FromParallelIterator` for a filter type through
/// its inherent `par_insert_all(&keys)` and `new(n, p)`, the parallel twins of
/// [`collect_via_insert_all!`](crate::collect_via_insert_all): the keys are gathered (in
/// parallel), then inserted with `par_insert_all`; `collect` sizes the filter for exactly
/// their number at `fpr` and panics only if that number is more than a filter can be sized
/// for.
///
/// # Examples
///
/// ```
/// use bloom_core::Error;
/// use rayon::prelude::*;
///
/// /// A stand-in for a filter: it remembers how many keys it was given.
/// struct Count(usize);
///
/// impl Count {
///     fn new(_n: u64, _p: f64) -> Result<Self, Error> {
///         Ok(Count(0))
///     }
///     fn par_insert_all<T: Sync>(&mut self, keys: &[T]) {
///         self.0 += keys.len();
///     }
/// }
///
/// bloom_core::internal::par_collect_via_par_insert_all!(Count, fpr: 0.01);
///
/// let mut count: Count = (0..1000u32).into_par_iter().collect();
/// count.par_extend(vec![1u8, 2, 3]);
/// assert_eq!(count.0, 1003);
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! par_collect_via_par_insert_all {
    ($filter:ident, fpr: $fpr:expr) => {
        impl<T: ::std::hash::Hash + Send + Sync>
            $crate::internal::par::__rayon::iter::ParallelExtend<T> for $filter
        {
            fn par_extend<
                I: $crate::internal::par::__rayon::iter::IntoParallelIterator<Item = T>,
            >(
                &mut self,
                par_iter: I,
            ) {
                use $crate::internal::par::__rayon::iter::ParallelIterator as _;
                let keys: ::std::vec::Vec<T> = par_iter.into_par_iter().collect();
                self.par_insert_all(&keys);
            }
        }

        /// Collects keys in parallel into a filter sized for their number at the crate's
        /// default false-positive rate, like the sequential `FromIterator`.
        ///
        /// # Panics
        ///
        /// As the sequential `FromIterator`.
        impl<T: ::std::hash::Hash + Send + Sync>
            $crate::internal::par::__rayon::iter::FromParallelIterator<T> for $filter
        {
            fn from_par_iter<
                I: $crate::internal::par::__rayon::iter::IntoParallelIterator<Item = T>,
            >(
                par_iter: I,
            ) -> Self {
                use $crate::internal::par::__rayon::iter::ParallelIterator as _;
                let keys: ::std::vec::Vec<T> = par_iter.into_par_iter().collect();
                // A slice's length always fits a `u64` (no target has a wider `usize`).
                let mut filter = $filter::new(keys.len().max(1) as u64, $fpr)
                    .expect("the number of keys held in memory fits a filter");
                filter.par_insert_all(&keys);
                filter
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::set_bit;
    use crate::hash::{Probes, hash_key};

    #[test]
    fn scatter_pays_only_past_the_last_level_cache() {
        let llc = crate::internal::batch::last_level_cache_bytes();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            // Another test of this process may have called `scatter_always`; the rule
            // without it is what this test checks.
            if SCATTER_ALWAYS.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            assert!(!scatter_pays(llc, 1 << 30));
            assert!(!scatter_pays(llc * 2, MIN_PARALLEL_KEYS - 1));
            assert!(scatter_pays(llc + 1, MIN_PARALLEL_KEYS));
        });
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        one.install(|| assert!(!scatter_pays(llc * 2, 1 << 30)));
    }

    #[test]
    fn parallel_equals_sequential_for_bits() {
        for num_bits in [64u64, 1000, 100_003, 1 << 20] {
            let words = num_bits.div_ceil(64) as usize;
            let keys: Vec<u64> = (0..50_000).collect();
            let positions = |k: &u64| Probes::new(hash_key(k, 1), 5, num_bits);
            let mut seq = vec![0u64; words];
            for k in &keys {
                for p in positions(k) {
                    set_bit(&mut seq, p);
                }
            }
            let mut par = vec![0u64; words];
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap();
            pool.install(|| {
                par_scatter(&mut par, 6, &keys, positions, |w, p| {
                    *w |= 1 << (p & 63);
                })
            });
            assert_eq!(seq, par, "{num_bits}");
        }
    }

    #[test]
    fn parallel_equals_sequential_for_saturating_counters() {
        // 4-bit counters, 16 per word, saturating at 15: many keys share few counters.
        fn bump(word: &mut u64, slot: u64) {
            let shift = (slot & 15) * 4;
            if (*word >> shift) & 15 != 15 {
                *word += 1 << shift;
            }
        }
        let keys: Vec<u64> = (0..60_000).collect();
        let positions = |k: &u64| Probes::new(hash_key(k, 9), 3, 64 * 16);
        let mut seq = vec![0u64; 64];
        for k in &keys {
            for p in positions(k) {
                bump(&mut seq[(p >> 4) as usize], p);
            }
        }
        let mut par = vec![0u64; 64];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        pool.install(|| par_scatter(&mut par, 4, &keys, positions, bump));
        assert_eq!(seq, par);
        assert!(
            seq.iter().all(|&w| w == u64::MAX),
            "every counter saturated"
        );
    }
}
