//! Parallel bulk insertion: every filter's `par_insert_all` runs through here.
//!
//! A filter's bulk build is bound by random memory writes. Sharing the array through atomic
//! `fetch_or`s serialises each core's writes (a locked instruction waits for its cache line);
//! the atomic twins do it anyway ([`par_insert_shared`]), since their inserts are atomic.
//! The others follow the plan [`build_plan`] picks from the filter's size and the caches
//! ([`par_insert_all`]):
//!
//! * inside the cache, **copies**: each thread builds a share of the keys into its own copy,
//!   then the copies are merged ([`par_build_copies`]); the extra memory is bounded by half
//!   the last-level cache, so copies never multiply a large filter's memory;
//! * past the cache, the **scatter** ([`par_scatter_into`]), which splits the array into
//!   regions and works in two phases per chunk of keys:
//!   1. every thread hashes a share of the chunk and appends each of a key's updates to the
//!      bucket of the region it falls in (sequential writes);
//!   2. every region is then updated by exactly one thread, reading its buckets in order, so
//!      plain (non-atomic) writes are safe and each thread's random writes stay inside a
//!      region a fraction of the filter's size;
//! * **sequential** where neither pays (one thread, few keys, a filter between a quarter of
//!   the cache and all of it).
//!
//! Every plan gives bit for bit the filter a sequential loop produces. [`par_scatter`] is the
//! scatter's form for word arrays of bits or counters (the classic and counting filters); the
//! blocked filters scatter whole-block updates through [`par_scatter_into`] directly.

use alloc::{vec, vec::Vec};
use core::hash::Hash;

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

/// How a filter's `par_insert_all` spreads its keys over threads ([`build_plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// The filter's own sequential `insert_all`: one thread, few keys, or a filter too
    /// large to copy and small enough that the scatter does not pay.
    Sequential,
    /// This many filters (the filter and `n - 1` empty copies) each build a share of the
    /// keys on their own thread, then merge ([`par_build_copies`]).
    Copies(usize),
    /// The two-phase scatter into the one array ([`par_scatter_into`]).
    Scatter,
}

std::thread_local! {
    /// The plan [`with_plan`] imposes on this thread.
    static FORCED: std::cell::Cell<Option<Plan>> = const { std::cell::Cell::new(None) };
}

/// The plan for building `keys` keys into a filter of `bytes` bytes, from the thread count
/// and the last-level cache the OS reports
/// ([`last_level_cache_bytes`](crate::internal::caches::last_level_cache_bytes)):
///
/// * one thread, or fewer than 16,384 keys: [`Plan::Sequential`];
/// * a filter larger than the cache: [`Plan::Scatter`]. The sequential build waits on a
///   miss per write there, and the scatter keeps each thread's writes in a region;
/// * a filter at most a quarter of the cache: [`Plan::Copies`], as many as fit half of it
///   (at most one per thread, and one per 262,144 keys). In the cache the
///   sequential build's writes are hits, and the scatter's extra pass (every update written
///   to a bucket and read back) cost more than a second thread saved; whole copies add no
///   pass, only a merge, and their memory is bounded by half the cache's size. A filter may
///   still build sequentially where its copies measured slower (the counting filter);
/// * in between: [`Plan::Sequential`].
///
/// docs/design.md ("Parallel build") has the measurements behind each case.
pub fn build_plan(bytes: usize, keys: usize) -> Plan {
    if let Some(plan) = FORCED.with(std::cell::Cell::get) {
        return plan;
    }
    let threads = rayon::current_num_threads();
    if threads <= 1 || keys < MIN_PARALLEL_KEYS {
        return Plan::Sequential;
    }
    let cache = crate::internal::caches::last_level_cache_bytes();
    if bytes > cache {
        return Plan::Scatter;
    }
    // The copies together take at most half the cache: past that they evict each other
    // (two 12 MB copies in a 32 MiB L3 measured 0.82 to 1.97, median 0.99).
    match (cache / 2 / bytes.max(1))
        .min(threads)
        .min(keys / MIN_KEYS_PER_COPY)
    {
        0 | 1 => Plan::Sequential,
        copies => Plan::Copies(copies),
    }
}

/// The fewest keys each copy of [`Plan::Copies`] must build: below it the fork-join (20 to
/// 100 µs on a VM whose workers sleep), the copy's page faults (which contend with each
/// other's when two threads fault at once) and the merge are not repaid (docs/design.md,
/// "Parallel build", has the measurements).
const MIN_KEYS_PER_COPY: usize = 1 << 18;

/// Runs `f` with [`build_plan`] answering `plan` on this thread: the tests' way to run every
/// plan on filters of a test's size (the answers are the same whatever the plan).
///
/// # Examples
///
/// ```
/// use bloom_core::internal::par::{Plan, build_plan, with_plan};
///
/// assert_eq!(with_plan(Plan::Scatter, || build_plan(64, 10)), Plan::Scatter);
/// assert_eq!(build_plan(64, 10), Plan::Sequential);
/// ```
pub fn with_plan<R>(plan: Plan, f: impl FnOnce() -> R) -> R {
    let before = FORCED.with(|forced| forced.replace(Some(plan)));
    let result = f();
    FORCED.with(|forced| forced.set(before));
    result
}

/// What [`par_insert_all`] needs of a filter to run each [`Plan`]: a filter's
/// `par_insert_all` is one call to it.
pub trait ParBuild: crate::Filter + Sized + Send + Sync {
    /// Whether [`Plan::Copies`] may run; `false` where copies measured slower than one
    /// thread for this filter, which then builds sequentially instead.
    const COPIES: bool = true;

    /// Bytes of the array the keys are written to: decides the plan. By default the
    /// filter's [`memory_usage`](crate::Filter::memory_usage).
    fn footprint(&self) -> usize {
        self.memory_usage()
    }

    /// An empty filter with this one's parameters and seed, or `None` where it cannot be
    /// allocated.
    fn empty_twin(&self) -> Option<Self>;

    /// The sequential build (the filter's `insert_all`).
    fn insert_keys<T: Hash>(&mut self, keys: &[T]);

    /// Adds `twin`'s keys to this filter; `false` where it could not. By default the
    /// filter's [`union`](crate::Filter::union).
    fn merge_twin(&mut self, twin: &Self) -> bool {
        self.union(twin).is_ok()
    }

    /// The scatter build ([`par_scatter_into`] over the filter's array).
    fn scatter<T: Hash + Sync>(&mut self, keys: &[T]);
}

/// Adds every key of `keys` to `filter` with rayon's threads, by the plan [`build_plan`]
/// chooses for the filter's size; the result is the sequential build's, whatever the plan.
///
/// The classic, counting and blocked filters' `par_insert_all` are this call; their
/// doctests and the workspace's tests (which force every plan with [`with_plan`]) run it.
pub fn par_insert_all<F: ParBuild, T: Hash + Sync>(filter: &mut F, keys: &[T]) {
    match build_plan(filter.footprint(), keys.len()) {
        Plan::Scatter => filter.scatter(keys),
        Plan::Copies(copies) if F::COPIES => par_build_copies(
            filter,
            keys,
            copies,
            &F::empty_twin,
            &|filter: &mut F, part: &[T]| filter.insert_keys(part),
            &F::merge_twin,
        ),
        Plan::Sequential | Plan::Copies(_) => filter.insert_keys(keys),
    }
}

/// Keys per task of [`par_insert_shared`].
const SHARED_CHUNK: usize = 1 << 12;

/// The parallel build of a filter whose inserts take `&self` (the atomic twins): every
/// thread inserts chunks of 4,096 keys with `insert_all` at once. With one thread or fewer
/// than 16,384 keys, one `insert_all` of all of them: at 10,000 keys the
/// threads measured 0.88 to 1.18 times the sequential build (the fork-join's wake-up is a
/// large share of so short a build).
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let keys: Vec<u64> = (1..=100_000).collect();
/// let sum = AtomicU64::new(0);
/// bloom_core::internal::par::par_insert_shared(&keys, |part: &[u64]| {
///     sum.fetch_add(part.iter().sum::<u64>(), Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 100_000 * 100_001 / 2);
/// ```
pub fn par_insert_shared<T: Sync>(keys: &[T], insert_all: impl Fn(&[T]) + Sync) {
    if rayon::current_num_threads() <= 1 || keys.len() < MIN_PARALLEL_KEYS {
        insert_all(keys);
        return;
    }
    keys.par_chunks(SHARED_CHUNK).for_each(&insert_all);
}

/// Builds `keys` into `filter` on `copies` threads: the keys are cut into `copies`
/// consecutive shares; `filter` takes the first and each other share goes into a fresh copy
/// made by `fresh(filter)` (same parameters and seed, empty), all built with `insert_all` at
/// once; the copies are then merged into `filter` by `merge` (a union: OR of bits, saturating
/// sum of counters), which gives exactly the filter a sequential build gives. Where `fresh`
/// cannot allocate a copy, or `merge` reports that it could not merge (it returns `false`),
/// that share is inserted into `filter` itself, so no key is ever lost.
///
/// # Examples
///
/// ```
/// use std::collections::BTreeSet;
///
/// // A stand-in for a filter: the set of keys it was given.
/// let keys: Vec<u32> = (0..50_000).collect();
/// let mut filter = BTreeSet::new();
/// bloom_core::internal::par::par_build_copies(
///     &mut filter,
///     &keys,
///     2,
///     &|_: &BTreeSet<u32>| Some(BTreeSet::new()),
///     &|f: &mut BTreeSet<u32>, part: &[u32]| f.extend(part),
///     &|f: &mut BTreeSet<u32>, other: &BTreeSet<u32>| {
///         f.extend(other);
///         true
///     },
/// );
/// assert_eq!(filter.len(), 50_000);
/// ```
pub fn par_build_copies<F, T, N, I, M>(
    filter: &mut F,
    keys: &[T],
    copies: usize,
    fresh: &N,
    insert_all: &I,
    merge: &M,
) where
    F: Send,
    T: Sync,
    N: Fn(&F) -> Option<F> + Sync,
    I: Fn(&mut F, &[T]) + Sync,
    M: Fn(&mut F, &F) -> bool + Sync,
{
    if copies <= 1 || keys.len() < 2 {
        insert_all(filter, keys);
        return;
    }
    let Some(mut other) = fresh(filter) else {
        insert_all(filter, keys);
        return;
    };
    // `filter` builds `mine` of the copies' shares, `other` the rest, recursively.
    let mine = copies / 2;
    let (first, rest) = keys.split_at(keys.len() * mine / copies);
    rayon::join(
        || par_build_copies(filter, first, mine, fresh, insert_all, merge),
        || par_build_copies(&mut other, rest, copies - mine, fresh, insert_all, merge),
    );
    if !merge(filter, &other) {
        insert_all(filter, rest);
    }
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
    par_scatter_grouped(slots, 1, keys, entries, &index, |region, base, e| {
        update(&mut region[index(e) - base], e);
    });
}

/// [`par_scatter_into`] for entries that each change a group of `group` consecutive slots
/// (`group` a power of two; the group of slot i is the `group` slots from `i - i % group`):
/// `update(region, base, e)` gets the slots of the region that holds the group of
/// `index(e)`, whole (regions are multiples of `group` slots), with `base` the index of the
/// region's first slot, and must change only that group. The classic filter's pair of probes
/// in one 512-bit group is one entry this way, where it would be two.
///
/// # Panics
///
/// If `index` returns a slot beyond the array, or `group` is not a power of two.
pub fn par_scatter_grouped<S, T, E, I, P, X, U>(
    slots: &mut [S],
    group: usize,
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
    U: Fn(&mut [S], usize, E) + Sync,
{
    assert!(group.is_power_of_two(), "a group of {group} slots");
    let threads = rayon::current_num_threads();
    if threads <= 1 || keys.len() < MIN_PARALLEL_KEYS || slots.len() < 2 {
        for key in keys {
            for e in entries(key) {
                update(slots, 0, e);
            }
        }
        return;
    }
    // Regions are a power of two of slots, so a slot's region is one shift away, and a
    // multiple of the group, so no group straddles two.
    let region_slots = slots
        .len()
        .div_ceil(threads * REGIONS_PER_THREAD)
        .next_power_of_two()
        .max(group);
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
                            crate::internal::memory::prefetch(&region[index(ahead) - base]);
                        }
                        update(region, base, e);
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

/// The fewest keys one task of [`par_contains_batch`] answers: enough for the batch engine's
/// bursts to run at speed and to repay a task's fork.
const MIN_QUERY_TASK: usize = 1 << 14;

/// Tasks per thread of [`par_contains_batch`]: a few, so rayon balances a thread slowed by
/// the host.
const QUERY_TASKS_PER_THREAD: usize = 4;

/// Answers `keys` on all of rayon's threads: the keys are cut into tasks of at least 16,384,
/// each answered by `batch_into` (a filter's `contains_batch_into`) into a buffer of its
/// thread and copied to its place in the result. With one thread or fewer keys than a task,
/// `batch_into` answers them all on the calling thread. The answers are those of one
/// `contains_batch` call.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::par::par_contains_batch;
///
/// let keys: Vec<u64> = (0..100_000).collect();
/// let even = par_contains_batch(&keys, |part, out| {
///     out.clear();
///     out.extend(part.iter().map(|k| k % 2 == 0));
/// });
/// assert_eq!(even.len(), keys.len());
/// assert!(even.iter().zip(&keys).all(|(&e, k)| e == (k % 2 == 0)));
/// ```
pub fn par_contains_batch<T: Sync>(
    keys: &[T],
    batch_into: impl Fn(&[T], &mut Vec<bool>) + Sync,
) -> Vec<bool> {
    let threads = rayon::current_num_threads();
    let task = keys
        .len()
        .div_ceil(threads * QUERY_TASKS_PER_THREAD)
        .max(MIN_QUERY_TASK);
    if threads <= 1 || keys.len() <= task {
        let mut out = Vec::with_capacity(keys.len());
        batch_into(keys, &mut out);
        return out;
    }
    let mut out = vec![false; keys.len()];
    out.par_chunks_mut(task)
        .zip(keys.par_chunks(task))
        .for_each_init(Vec::new, |buffer, (answers, part)| {
            batch_into(part, buffer);
            answers.copy_from_slice(buffer);
        });
    out
}

/// Keys [`par_insert_iter`] gathers per chunk: 2^20, enough for every plan of
/// [`par_insert_all`] to run in parallel (copies need 262,144 keys each), and a bounded
/// buffer (8 MiB of `u64` keys) whatever the iterator's length.
pub const ITER_CHUNK: usize = 1 << 20;

/// Feeds the keys of an iterator to `insert_chunk` (a filter's `par_insert_all`) in chunks
/// of [`ITER_CHUNK`], while the next chunk is gathered on another thread: a build from a
/// generator or a reader of any length, without the caller cutting it into slices and in
/// memory bounded by two chunks. The result is that of one `par_insert_all` call over all
/// the keys (every plan gives the sequential loop's bits or counters, whatever the chunks).
///
/// # Examples
///
/// ```
/// use bloom_core::internal::par::par_insert_iter;
///
/// let mut seen = Vec::new();
/// par_insert_iter(0..3_000_000u64, |chunk: &[u64]| seen.push(chunk.len()));
/// assert_eq!(seen, [1 << 20, 1 << 20, 3_000_000 - (2 << 20)]);
/// ```
pub fn par_insert_iter<T, I>(keys: I, mut insert_chunk: impl FnMut(&[T]) + Send)
where
    T: Send + Sync,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
{
    let mut keys = keys.into_iter();
    let gather = |keys: &mut I::IntoIter, chunk: &mut Vec<T>| {
        chunk.clear();
        chunk.extend(keys.by_ref().take(ITER_CHUNK));
    };
    let mut current = Vec::new();
    gather(&mut keys, &mut current);
    let mut next = Vec::new();
    while !current.is_empty() {
        rayon::join(|| insert_chunk(&current), || gather(&mut keys, &mut next));
        core::mem::swap(&mut current, &mut next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash_key;
    use crate::internal::memory::set_bit;
    use crate::internal::probe::Probes;

    #[test]
    fn plans_follow_the_cache_and_the_threads() {
        let llc = crate::internal::caches::last_level_cache_bytes();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        two.install(|| {
            assert_eq!(build_plan(llc + 1, MIN_PARALLEL_KEYS), Plan::Scatter);
            assert_eq!(build_plan(llc / 4, 2 * MIN_KEYS_PER_COPY), Plan::Copies(2));
            assert_eq!(
                build_plan(llc / 4, 2 * MIN_KEYS_PER_COPY - 1),
                Plan::Sequential
            );
            assert_eq!(build_plan(llc / 4 + 1, 1 << 30), Plan::Sequential);
            assert_eq!(build_plan(llc, 1 << 30), Plan::Sequential);
            assert_eq!(build_plan(1 << 10, MIN_PARALLEL_KEYS - 1), Plan::Sequential);
            assert_eq!(
                with_plan(Plan::Copies(3), || build_plan(llc * 4, 10)),
                Plan::Copies(3)
            );
            assert_eq!(build_plan(llc * 4, 10), Plan::Sequential);
        });
        let eight = rayon::ThreadPoolBuilder::new()
            .num_threads(8)
            .build()
            .unwrap();
        eight.install(|| {
            assert_eq!(build_plan(llc / 6, 1 << 30), Plan::Copies(3));
            assert_eq!(build_plan(1 << 10, 1 << 30), Plan::Copies(8));
            assert_eq!(build_plan(1 << 10, 5 * MIN_KEYS_PER_COPY), Plan::Copies(5));
        });
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        one.install(|| assert_eq!(build_plan(llc * 2, 1 << 30), Plan::Sequential));
    }

    /// Copies take consecutive shares, so a merge that keeps order (here, concatenation)
    /// sees the keys in order; a failed copy or merge loses no key.
    #[test]
    fn copies_cover_every_key_once() {
        let keys: Vec<u32> = (0..10_007).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for copies in 1..=5 {
            let mut built = Vec::new();
            pool.install(|| {
                par_build_copies(
                    &mut built,
                    &keys,
                    copies,
                    &|_: &Vec<u32>| Some(Vec::new()),
                    &|f: &mut Vec<u32>, part: &[u32]| f.extend_from_slice(part),
                    &|f: &mut Vec<u32>, other: &Vec<u32>| {
                        f.extend_from_slice(other);
                        true
                    },
                )
            });
            assert_eq!(built, keys, "{copies} copies");
            let mut no_copy = Vec::new();
            par_build_copies(
                &mut no_copy,
                &keys,
                copies,
                &|_: &Vec<u32>| None,
                &|f: &mut Vec<u32>, part: &[u32]| f.extend_from_slice(part),
                &|_: &mut Vec<u32>, _: &Vec<u32>| true,
            );
            assert_eq!(no_copy, keys);
            let mut refused = Vec::new();
            par_build_copies(
                &mut refused,
                &keys,
                copies,
                &|_: &Vec<u32>| Some(Vec::new()),
                &|f: &mut Vec<u32>, part: &[u32]| f.extend_from_slice(part),
                &|_: &mut Vec<u32>, _: &Vec<u32>| false,
            );
            refused.sort_unstable();
            assert_eq!(refused, keys);
        }
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
