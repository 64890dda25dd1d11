//! The one batch-query engine: every filter's `contains_batch` runs through it.
//!
//! A filter too large for the cache answers a query at the speed of its cache misses. A batch
//! query hides them by working on many keys at once: it hashes a key and prefetches the lines
//! it will test, and tests those lines only later, once the misses of many keys are in
//! flight together. Filters differ in what a key reads (one block, a few pairs of probes,
//! pairs in several layers) and in how many rounds of "test, then fetch the next lines" a key
//! needs, so each implements [`BatchQuery`]: how to stage a key, what each intermediate round
//! does, and the final test. The loops, the group sizes, the prefetch distance and the size
//! below which prefetching is not worth it live here, once.
//!
//! Four loops, chosen from the filter's [`footprint`](BatchQuery::footprint):
//!
//! * **Direct** for filters up to [`direct_max_bytes`] (half the L2 cache for one-line
//!   queries, a quarter of the last-level cache for the others): the single-key query key by
//!   key. Their lines hit the cache, and prefetching would only add instructions.
//! * **Bursts** ([`Loop::Bursts`]) for larger ones: stage a burst of keys (hash, prefetch),
//!   then run each round over the keys still undecided, then the final test. The prefetches
//!   of a burst leave back to back, so the memory has as many misses in flight as it can
//!   take. A burst holds about [`BURST_LINES`] lines' worth of keys.
//! * **Pipelined** ([`Loop::Pipelined`]): a ring in which key t is staged while key t - D
//!   runs round 0, key t - 2D round 1, and so on; D is about [`PIPELINE_LINES`] lines' worth
//!   of keys. It spreads the misses out, which suits a filter whose keys read many lines per
//!   round (the layers of a scalable filter).
//! * **Overlapped** ([`Loop::Overlapped`]), for queries with no intermediate round (one line
//!   a key): within the last-level cache, a group of D keys is staged while the group before
//!   it is tested, so the tests overlap the next misses (the memory answers within a few
//!   dozen nanoseconds there, and the core's work is what a burst leaves waiting); past it,
//!   bursts, whose prefetches leave back to back (the memory's throughput is the limit
//!   there).
//!
//! `docs/design.md` ("Batch queries") has the measurements behind each constant.

use alloc::vec::Vec;
use core::hash::Hash;

use super::caches::last_level_cache_bytes;
use crate::hash::Hashing;
use crate::internal::probe::Probes;

/// A typical per-core share of the last-level cache. Filters up to this many bytes count
/// as cached for the counting filter and the scalable filter's layers, which then test
/// their probes without branches, because a mispredicted early exit costs more than the
/// loads it skips while they hit the cache (`docs/design.md` has the measurements; the
/// classic filter's pair loop exits early at every size). It is also the least limit of the
/// direct loop for queries of several lines ([`direct_max_bytes`]).
pub const CACHED_MAX_BYTES: usize = 4 << 20;

/// Cache lines staged per burst: 128 one-line keys (the blocked filters' measured best at
/// 10 million keys, when they took bursts at every size; now past the last-level cache),
/// fewer keys when each reads more.
pub const BURST_LINES: usize = 128;

/// The fewest keys in a burst, whatever they read.
const MIN_BURST: usize = 16;

/// The most keys in a burst (the answers of a burst are tracked in a `u128`).
const MAX_BURST: usize = 128;

/// Cache lines between a key's staging and its first test in the pipelined loop: 32
/// one-line keys, 4 keys of a scalable filter's seven layers (both measured best).
pub const PIPELINE_LINES: usize = 32;

/// The most keys between two stages of the pipeline.
const MAX_DISTANCE: usize = 32;

/// The most intermediate rounds a query may have.
const MAX_ROUNDS: usize = 4;

/// The loop a filter's batch query runs when it is too large for the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loop {
    /// Stage a burst of keys, then test them round by round.
    Bursts,
    /// A ring of keys at staggered rounds.
    Pipelined,
    /// For a query with no intermediate round: while the filter fits the last-level cache,
    /// each group of keys staged while the group before it is tested; past it, as
    /// [`Bursts`](Loop::Bursts).
    Overlapped,
}

/// How a filter answers batch queries; the engine's loops call it.
///
/// A key goes through [`stage`](BatchQuery::stage) (hash it, prefetch the lines of its first
/// test), then up to [`ROUNDS`](BatchQuery::ROUNDS) intermediate rounds (each tests lines
/// prefetched before and, when the key is still undecided, prefetches the next ones), then
/// [`finish`](BatchQuery::finish), which always decides.
///
/// # Examples
///
/// A filter of one bit array whose keys read one line each: no intermediate round.
///
/// ```
/// use bloom_core::internal::batch::{self, BatchQuery, Loop};
/// use bloom_core::hash::hash_key;
/// use bloom_core::internal::reduce;
///
/// struct OneBit<'a>(&'a [u64]);
///
/// impl BatchQuery for OneBit<'_> {
///     type State = u64;
///     const ROUNDS: usize = 0;
///     const LOOP: Loop = Loop::Bursts;
///     fn footprint(&self) -> usize {
///         self.0.len() * 8
///     }
///     fn lines_per_key(&self) -> usize {
///         1
///     }
///     fn empty(&self) -> u64 {
///         0
///     }
///     fn stage<T: std::hash::Hash>(&self, key: &T, _eager: bool) -> u64 {
///         let pos = reduce(hash_key(key, 0) as u64, self.0.len() as u64 * 64);
///         bloom_core::internal::prefetch(&self.0[(pos / 64) as usize]);
///         pos
///     }
///     fn round(&self, _: &mut u64, _: usize) -> Option<bool> {
///         unreachable!("no intermediate round")
///     }
///     fn finish(&self, &pos: &u64) -> bool {
///         self.0[(pos / 64) as usize] >> (pos % 64) & 1 == 1
///     }
///     fn contains_now<T: std::hash::Hash>(&self, key: &T) -> bool {
///         let pos = self.stage(key, false);
///         self.finish(&pos)
///     }
/// }
///
/// let words = vec![u64::MAX; 1 << 20]; // 8 MiB: past the direct loop's limit
/// let mut out = Vec::new();
/// batch::contains_batch_into(&OneBit(&words), &[1u64, 2, 3], &mut out);
/// assert_eq!(out, [true; 3]);
/// ```
pub trait BatchQuery {
    /// What a key carries from its staging to its final test (its hash, what survived).
    type State: Copy;
    /// Intermediate rounds between staging and the final test (at most 4).
    const ROUNDS: usize;
    /// The loop for filters past the direct loop's limit ([`direct_max_bytes`]).
    const LOOP: Loop;
    /// Whether a key's test reads one cache line (the blocked filters), which sets the
    /// direct loop's limit ([`direct_max_bytes`]).
    const ONE_LINE: bool = false;

    /// Bytes the queries read from: decides between the direct loop and [`LOOP`](Self::LOOP).
    fn footprint(&self) -> usize;

    /// Cache lines a key's staging prefetches, about: sizes bursts and the pipeline distance.
    fn lines_per_key(&self) -> usize;

    /// A state to fill the engine's arrays before any key is staged (never tested).
    fn empty(&self) -> Self::State;

    /// Hashes `key` and prefetches the lines of its first test. `eager` says that most keys
    /// of the previous burst were present: a query whose rounds each fetch more lines may
    /// then prefetch them all now (one round of misses for present keys instead of several),
    /// and let its first round decide.
    fn stage<T: Hash>(&self, key: &T, eager: bool) -> Self::State;

    /// Intermediate round `round` (`0..ROUNDS`): `Some(answer)` when the key is decided (an
    /// absent key's first clear bit), `None` after prefetching the lines of the next round.
    fn round(&self, state: &mut Self::State, round: usize) -> Option<bool>;

    /// The final test of a key no round decided.
    fn finish(&self, state: &Self::State) -> bool;

    /// The single-key query, for the direct loop.
    fn contains_now<T: Hash>(&self, key: &T) -> bool;
}

/// Answers every key of `keys` into `out` (cleared first), in order, through the loop that
/// suits the filter's size. Inlined whole, so that a caller compiled for a CPU's features
/// (the line layouts' batch for AVX2) compiles the loops for them too.
#[inline(always)]
pub fn contains_batch_into<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut Vec<bool>) {
    if query.footprint() <= direct_max_bytes(Q::ONE_LINE) {
        direct(query, keys, out);
    } else {
        uncached(query, keys, out);
    }
}

/// The largest filter whose batch queries take the direct loop, for queries whose keys read
/// one cache line each (`one_line`) or several:
///
/// * one line (the blocked filters): half the L2 cache
///   ([`l2_cache_bytes`](super::caches::l2_cache_bytes)). A key's test is so short that
///   little else hides a wait for its line, and from about half the L2 on (the filter
///   sharing the cache with the keys, the answers and the page tables) enough lines come
///   from further away that the overlapped loop's prefetches measured faster;
/// * several lines (the classic, counting and scalable filters): a quarter of the
///   last-level cache, and at least [`CACHED_MAX_BYTES`]. Their hashing and k probes give
///   the out-of-order core enough independent work to overlap misses to the L3, and bursts
///   cost more than they hide there; past it they win.
///
/// docs/design.md ("Batch queries") has the measurements and the CPU they were taken on.
pub fn direct_max_bytes(one_line: bool) -> usize {
    if one_line {
        super::caches::l2_cache_bytes() / 2
    } else {
        (last_level_cache_bytes() / 4).max(CACHED_MAX_BYTES)
    }
}

/// The direct loop, for a filter in cache: the single-key query key by key. The answers of
/// a group of [`DIRECT_GROUP`] keys go to a local array first and are copied to `out`
/// together: written straight into `out`, each answer is a byte store that the compiler
/// cannot prove apart from the filter's fields, so it reloads the seed, the sizes and the
/// kernel's constants for every key (measured: the blocked filter's batch at 100,000 keys
/// 1.29x the single-key loop's time that way, 1.02x this way; `docs/design.md`).
#[inline(always)]
fn direct<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut Vec<bool>) {
    out.clear();
    out.resize(keys.len(), false);
    let mut local = [false; DIRECT_GROUP];
    for (group, answers) in keys.chunks(DIRECT_GROUP).zip(out.chunks_mut(DIRECT_GROUP)) {
        for (answer, key) in local.iter_mut().zip(group) {
            *answer = query.contains_now(key);
        }
        answers.copy_from_slice(&local[..group.len()]);
    }
}

/// [`contains_batch_into`] as for a filter larger than the cache, whatever its size: the
/// query's [`LOOP`](BatchQuery::LOOP) with its prefetches. For tests (a small filter then
/// exercises the loop large ones run) and for benchmarks of the loop itself.
pub fn contains_batch_uncached<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut Vec<bool>) {
    uncached(query, keys, out);
}

/// [`contains_batch_uncached`], inlined.
#[inline(always)]
fn uncached<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut Vec<bool>) {
    out.clear();
    out.resize(keys.len(), false);
    match Q::LOOP {
        Loop::Overlapped if query.footprint() <= last_level_cache_bytes() => {
            overlapped(query, keys, out);
        }
        Loop::Bursts | Loop::Overlapped => bursts(query, keys, out),
        Loop::Pipelined => pipelined(query, keys, out),
    }
}

/// Keys per burst for a query whose keys stage `lines` lines each.
pub fn burst_len(lines: usize) -> usize {
    (BURST_LINES / lines.max(1)).clamp(MIN_BURST, MAX_BURST)
}

/// Keys between two stages of the pipeline for a query whose keys stage `lines` lines each.
pub fn pipeline_distance(lines: usize) -> usize {
    (PIPELINE_LINES / lines.max(1)).clamp(2, MAX_DISTANCE)
}

#[inline(always)]
fn bursts<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut [bool]) {
    assert!(Q::ROUNDS <= MAX_ROUNDS, "at most {MAX_ROUNDS} rounds");
    let burst = burst_len(query.lines_per_key());
    let mut states = [query.empty(); MAX_BURST];
    // The burst's undecided keys, compacted after each round.
    let mut live = [0u8; MAX_BURST];
    // A filter that fits the last-level cache is bound by the latency of its lines, not by
    // the traffic: every key is staged eagerly, one round of misses. A larger one is bound by
    // the memory's throughput, and only bursts after mostly present ones are.
    let fits_last_level = query.footprint() <= last_level_cache_bytes();
    let mut eager = fits_last_level;
    // The burst's answers, copied to `out` once the burst is done. Stored straight into
    // `out` between the tests' loads of the lines, they slowed some layouts' batches
    // severely for some placements of the process's memory, as if the loads waited on the
    // stores (docs/design.md, "The bursts' answers").
    let mut local = [false; MAX_BURST];
    for (group, out) in keys.chunks(burst).zip(out.chunks_mut(burst)) {
        let states = &mut states[..group.len()];
        for (state, key) in states.iter_mut().zip(group) {
            *state = query.stage(key, eager);
        }
        let answers = &mut local[..group.len()];
        if Q::ROUNDS == 0 {
            for (answer, state) in answers.iter_mut().zip(states.iter()) {
                *answer = query.finish(state);
            }
        } else {
            let mut num_live = group.len();
            for (slot, i) in live.iter_mut().zip(0u8..) {
                *slot = i;
            }
            for round in 0..Q::ROUNDS {
                let mut kept = 0;
                for r in 0..num_live {
                    let i = usize::from(live[r]);
                    match query.round(&mut states[i], round) {
                        Some(answer) => answers[i] = answer,
                        None => {
                            live[kept] = i as u8;
                            kept += 1;
                        }
                    }
                }
                num_live = kept;
            }
            for &i in &live[..num_live] {
                let i = usize::from(i);
                answers[i] = query.finish(&states[i]);
            }
        }
        out.copy_from_slice(answers);
        if Q::ROUNDS > 0 && !fits_last_level {
            eager = answers.iter().filter(|&&a| a).count() * 2 > group.len();
        }
    }
}

#[inline(always)]
fn pipelined<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut [bool]) {
    assert!(Q::ROUNDS <= MAX_ROUNDS, "at most {MAX_ROUNDS} rounds");
    const RING: usize = ((MAX_ROUNDS + 1) * MAX_DISTANCE).next_power_of_two();
    let distance = pipeline_distance(query.lines_per_key());
    // Stages of a key: staging, the rounds, the final test; `span` keys from first to last.
    let span = (Q::ROUNDS + 1) * distance;
    let mut ring = [(query.empty(), false); RING];
    let len = keys.len();
    for t in 0..len + span {
        // Oldest first, so that the slot the newest key takes has been answered.
        if let Some(key) = t.checked_sub(span).filter(|&key| key < len) {
            let (state, decided) = &ring[key & (RING - 1)];
            if !decided {
                out[key] = query.finish(state);
            }
        }
        for round in (0..Q::ROUNDS).rev() {
            if let Some(key) = t
                .checked_sub((round + 1) * distance)
                .filter(|&key| key < len)
            {
                let (state, decided) = &mut ring[key & (RING - 1)];
                if !*decided && let Some(answer) = query.round(state, round) {
                    out[key] = answer;
                    *decided = true;
                }
            }
        }
        if let Some(key) = keys.get(t) {
            ring[t & (RING - 1)] = (query.stage(key, false), false);
        }
    }
}

/// The overlapped loop of a query with no intermediate round: groups of D keys (about
/// [`PIPELINE_LINES`] lines' worth), each staged (hashed, its lines prefetched) while the
/// group before it is tested, so the core tests keys while the next group's misses are in
/// flight. The answers of a group go to a local array, copied to `out` together (stored into
/// `out` between the loads of the lines, answers slowed the loop for some placements of the
/// process's memory; docs/design.md, "The bursts' answers").
#[inline(always)]
fn overlapped<Q: BatchQuery, T: Hash>(query: &Q, keys: &[T], out: &mut [bool]) {
    assert!(Q::ROUNDS == 0, "no intermediate round");
    let distance = pipeline_distance(query.lines_per_key());
    let mut current = [query.empty(); MAX_DISTANCE];
    let mut next = [query.empty(); MAX_DISTANCE];
    for (state, key) in current.iter_mut().zip(keys.iter().take(distance)) {
        *state = query.stage(key, false);
    }
    let mut local = [false; MAX_DISTANCE];
    let mut groups = keys
        .chunks(distance)
        .zip(out.chunks_mut(distance))
        .peekable();
    while let Some((group, out)) = groups.next() {
        let following = groups.peek().map_or(&[][..], |(keys, _)| *keys);
        let answers = &mut local[..group.len()];
        for ((answer, state), (slot, key)) in answers
            .iter_mut()
            .zip(&current)
            .zip(next.iter_mut().zip(following))
        {
            *slot = query.stage(key, false);
            *answer = query.finish(state);
        }
        for (answer, state) in answers.iter_mut().zip(&current).skip(following.len()) {
            *answer = query.finish(state);
        }
        out.copy_from_slice(answers);
        core::mem::swap(&mut current, &mut next);
    }
}

/// A filter whose key reads one cache line (a block): what [`Lines`] needs to run its batch
/// query in one step.
pub trait OneLine {
    /// What staging leaves for the test: the key's line and what to test in it (or its hash).
    type Staged: Copy;
    /// The loop past the direct loop's limit: by default [`Loop::Overlapped`];
    /// [`Loop::Bursts`] for a filter whose tests measured faster in a loop of their own.
    const LOOP: Loop = Loop::Overlapped;
    /// Bytes of the filter's lines.
    fn footprint(&self) -> usize;
    /// Hashes `key` and finds its line.
    fn locate<T: Hash>(&self, key: &T) -> Self::Staged;
    /// Prefetches the line of a located key.
    fn prefetch(&self, staged: Self::Staged);
    /// Whether the staged key may be present.
    fn test(&self, staged: Self::Staged) -> bool;
    /// A placeholder for the engine's arrays (never tested).
    fn empty(&self) -> Self::Staged;
}

/// The batch query of a [`OneLine`] filter: stage a key by hashing it and prefetching its
/// line, then test it; no intermediate round.
#[derive(Debug)]
pub struct Lines<'a, F>(pub &'a F);

impl<F: OneLine> BatchQuery for Lines<'_, F> {
    type State = F::Staged;
    const ROUNDS: usize = 0;
    const LOOP: Loop = F::LOOP;
    const ONE_LINE: bool = true;

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.0.footprint()
    }

    #[inline(always)]
    fn lines_per_key(&self) -> usize {
        1
    }

    #[inline(always)]
    fn empty(&self) -> F::Staged {
        self.0.empty()
    }

    #[inline(always)]
    fn stage<T: Hash>(&self, key: &T, _eager: bool) -> F::Staged {
        let staged = self.0.locate(key);
        self.0.prefetch(staged);
        staged
    }

    /// Never called (no intermediate round); answers all the same.
    #[inline(always)]
    fn round(&self, state: &mut F::Staged, _round: usize) -> Option<bool> {
        Some(self.0.test(*state))
    }

    #[inline(always)]
    fn finish(&self, state: &F::Staged) -> bool {
        self.0.test(*state)
    }

    #[inline(always)]
    fn contains_now<T: Hash>(&self, key: &T) -> bool {
        self.0.test(self.0.locate(key))
    }
}

/// Keys whose answers the direct loop gathers before copying them out.
pub const DIRECT_GROUP: usize = 64;

/// Positions a key of a [`Probed`] query prefetches and tests first: at the optimal fill an
/// absent key fails one of its first two probes three times in four, so only the survivors
/// (every present key, a quarter of absent ones) fetch the rest.
pub const LEADING_PROBES: u32 = 2;

/// The positions of a classic-style filter ([`Probes`] over one array): what
/// [`Probed`] needs of a bit array or an array of counters.
pub trait ProbeSet {
    /// Whether every position of `probes` is set (non-zero), stopping at the first that
    /// is not.
    fn all_set(&self, probes: Probes) -> bool;
    /// Prefetches the cache line of every position of `probes`.
    fn prefetch(&self, probes: Probes);
    /// Bytes of the array.
    fn footprint(&self) -> usize;
    /// The single-key test the direct loop uses; by default [`all_set`](ProbeSet::all_set).
    #[inline(always)]
    fn contains_now(&self, probes: Probes) -> bool {
        self.all_set(probes)
    }
}

/// The batch query of every filter of k probes in one array (classic, atomic classic,
/// counting), in one round: a key's [`LEADING_PROBES`] are prefetched when it is staged and
/// tested in the round, and only keys that pass prefetch their other lines, tested in the
/// final test. After a burst of mostly present keys the next burst is staged eagerly: every
/// line at once, one round of misses instead of two.
/// With `PREHASHED`, its keys are the 64-bit hashes themselves (a keyed filter's, from the
/// SIMD lanes of [`keyed_batch_into`]), widened as [`Hashing::hash`] widens them.
#[derive(Debug)]
pub struct Probed<'a, S, const PREHASHED: bool = false> {
    /// The array.
    pub store: &'a S,
    /// How the filter hashes its keys.
    pub hashing: Hashing,
    /// Probes per key (k).
    pub num_hashes: u32,
    /// Positions of the array (m).
    pub num_positions: u64,
}

impl<'a, S, const PREHASHED: bool> Probed<'a, S, PREHASHED> {
    /// The query over `store`, of `num_positions` positions, for keys hashed by `hashing`
    /// and probed `num_hashes` times.
    #[inline(always)]
    pub fn new(store: &'a S, hashing: Hashing, num_hashes: u32, num_positions: u64) -> Self {
        Probed {
            store,
            hashing,
            num_hashes,
            num_positions,
        }
    }

    #[inline(always)]
    fn probes(&self, hash: u128) -> Probes {
        Probes::new(hash, self.num_hashes, self.num_positions)
    }

    /// The 128-bit hash of `key` (of a pre-computed hash, when `PREHASHED`).
    #[inline(always)]
    fn hash<T: Hash>(&self, key: &T) -> u128 {
        if PREHASHED {
            crate::hash::widen(prehashed(key))
        } else {
            self.hashing.hash(key)
        }
    }
}

impl<S: ProbeSet, const PREHASHED: bool> BatchQuery for Probed<'_, S, PREHASHED> {
    /// The key's hash, and whether it was staged eagerly.
    type State = (u128, bool);
    const ROUNDS: usize = 1;
    const LOOP: Loop = Loop::Bursts;

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.store.footprint()
    }

    /// The lines a present key reads: up to one per probe (about one per pair). So a burst
    /// holds about 16 keys at k = 7, the group size measured best for the classic filter at
    /// 10 million keys (`docs/design.md`, "Batch queries").
    #[inline(always)]
    fn lines_per_key(&self) -> usize {
        self.num_hashes as usize
    }

    #[inline(always)]
    fn empty(&self) -> (u128, bool) {
        (0, false)
    }

    #[inline(always)]
    fn stage<T: Hash>(&self, key: &T, eager: bool) -> (u128, bool) {
        let hash = self.hash(key);
        let probes = self.probes(hash);
        if eager {
            self.store.prefetch(probes);
        } else {
            self.store.prefetch(probes.first(LEADING_PROBES));
        }
        (hash, eager)
    }

    #[inline(always)]
    fn round(&self, &mut (hash, eager): &mut (u128, bool), _round: usize) -> Option<bool> {
        let probes = self.probes(hash);
        if eager {
            return Some(self.store.all_set(probes));
        }
        if !self.store.all_set(probes.clone().first(LEADING_PROBES)) {
            return Some(false);
        }
        self.store.prefetch(probes.after(LEADING_PROBES));
        None
    }

    #[inline(always)]
    fn finish(&self, &(hash, _): &(u128, bool)) -> bool {
        self.store.all_set(self.probes(hash).after(LEADING_PROBES))
    }

    #[inline(always)]
    fn contains_now<T: Hash>(&self, key: &T) -> bool {
        self.store.contains_now(self.probes(self.hash(key)))
    }
}

/// The batch query of a filter of k probes in one array (the classic layout, the counting
/// filter) over `store`, of `num_positions` positions, into `out`: [`Probed`] over the keys,
/// or, for a keyed `hashing`, over their hashes taken a chunk at a time in SIMD lanes
/// ([`keyed_batch_into`]).
pub fn probed_batch_into<S: ProbeSet, T: Hash>(
    store: &S,
    hashing: Hashing,
    num_hashes: u32,
    num_positions: u64,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    if hashing.is_keyed() {
        let query = Probed::<S, true>::new(store, hashing, num_hashes, num_positions);
        keyed_batch_into(&hashing, keys, out, |hashes, answers| {
            contains_batch_into(&query, hashes, answers);
        });
    } else {
        let query = Probed::<S, false>::new(store, hashing, num_hashes, num_positions);
        contains_batch_into(&query, keys, out);
    }
}

/// Keys of a keyed filter's batch query hashed at a time (in SIMD lanes) before they are
/// tested, past the cache ([`keyed_direct_into`] serves filters in it): the hashes (128 KiB)
/// stay in L2, and each chunk's batch query is long enough to keep its pipeline of misses
/// full. Measured best of 1,024, 4,096, 16,384 and 65,536 (docs/security.md, "What it
/// costs").
const KEYED_BATCH_CHUNK: usize = 16_384;

/// The answers for `keys` under a keyed `hashing` into `out` (cleared first): a chunk of keys
/// at a time hashed by [`Hashing::hash64_batch`] (SipHash in SIMD lanes), then `query`
/// answers the chunk's hashes into its buffer (cleared first), which a query made for
/// pre-computed hashes reads through [`prehashed`].
pub fn keyed_batch_into<T: Hash>(
    hashing: &Hashing,
    keys: &[T],
    out: &mut Vec<bool>,
    mut query: impl FnMut(&[u64], &mut Vec<bool>),
) {
    out.clear();
    out.reserve(keys.len());
    let (mut hashes, mut answers) = (Vec::new(), Vec::new());
    for chunk in keys.chunks(KEYED_BATCH_CHUNK) {
        hashing.hash64_batch(chunk, &mut hashes);
        query(&hashes, &mut answers);
        out.extend_from_slice(&answers);
    }
}

/// The answers for `keys` under the secret key `secret` into `out` (cleared first), for a
/// filter within the last-level cache whose `query` answers pre-computed hashes (read
/// through [`prehashed`]): [`DIRECT_GROUP`] keys at a time hashed in SIMD lanes into a local
/// array, then answered one by one (past the direct loop's limit, [`direct_max_bytes`], all
/// staged first, their lines prefetched, then tested), in one loop. Inlined into a loop
/// compiled for the CPU's features, the lanes' vector work of one group overlaps the tests
/// of the one before, where hashing a whole chunk first ([`keyed_batch_into`]) runs them one
/// after the other.
#[inline(always)]
pub fn keyed_direct_into<Q: BatchQuery, T: Hash>(
    query: &Q,
    secret: &crate::hash::SecretKey,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    out.clear();
    out.resize(keys.len(), false);
    let staged = query.footprint() > direct_max_bytes(Q::ONE_LINE);
    let mut hashes = [0u64; DIRECT_GROUP];
    let mut states = [query.empty(); DIRECT_GROUP];
    let mut local = [false; DIRECT_GROUP];
    for (group, answers) in keys.chunks(DIRECT_GROUP).zip(out.chunks_mut(DIRECT_GROUP)) {
        let hashes = &mut hashes[..group.len()];
        super::siphash::sip13_keys_into(group, secret.0, hashes);
        let answered = &mut local[..group.len()];
        if staged {
            let states = &mut states[..group.len()];
            for (state, hash) in states.iter_mut().zip(hashes.iter()) {
                *state = query.stage(hash, false);
            }
            for (answer, state) in answered.iter_mut().zip(states.iter()) {
                *answer = query.finish(state);
            }
        } else {
            for (answer, hash) in answered.iter_mut().zip(hashes.iter()) {
                *answer = query.contains_now(hash);
            }
        }
        answers.copy_from_slice(answered);
    }
}

/// Whether the keys of `keys` write one 8-byte word each (integer keys), judged by the first:
/// the keys of one type almost always write alike. A keyed batch of such keys hashes them in
/// the SIMD lanes a group at a time beside the tests ([`keyed_direct_into`]); other keys
/// (strings, say) rarely fill the lanes and go through a key hasher each, scalar work that
/// the chunks of [`keyed_batch_into`] run faster (measured: URLs 25% slower the other way,
/// docs/security.md).
#[inline(always)]
pub fn words_first<T: Hash>(keys: &[T]) -> bool {
    keys.first()
        .is_some_and(|key| super::digest::WordOf::of(key).is_some())
}

/// The hash a key of [`keyed_batch_into`]'s chunk carries: a `u64` passed through.
#[inline(always)]
pub fn prehashed<T: Hash>(key: &T) -> u64 {
    let mut passthrough = Passthrough(0);
    key.hash(&mut passthrough);
    core::hash::Hasher::finish(&passthrough)
}

/// A hasher that passes a `u64` through.
struct Passthrough(u64);

impl core::hash::Hasher for Passthrough {
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys come here, through `write_u64`; fold anything else in anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// What [`insert_in_bursts`] needs of a filter (an owned filter, or a reference to a
/// lock-free one): how to prefetch what the insert of a hashed key will write, and how to
/// insert it. The keys come already hashed, so one routine serves any key kind and hash.
pub trait BurstInsert {
    /// What a key carries from its hashing to its insert.
    type Hash: Copy + Default;
    /// Prefetches the lines the insert of `hash` will write.
    fn prefetch(&self, hash: Self::Hash);
    /// Inserts the key hashed as `hash`.
    fn insert(&mut self, hash: Self::Hash);
}

/// The longest burst of [`insert_in_bursts`].
pub const MAX_INSERT_BURST: usize = 64;

/// Inserts the keys `hashes` yields in order, `burst` at a time (at most
/// [`MAX_INSERT_BURST`]): the keys of a burst are hashed (as the iterator yields them) and
/// their lines prefetched before any is inserted, so the cache misses of a burst overlap
/// where key by key each waits for its own. The filter ends with the bits of inserting key by
/// key. Every filter's `insert_all` past the cache.
#[inline(always)]
pub fn insert_in_bursts<F: BurstInsert>(
    filter: &mut F,
    burst: usize,
    hashes: impl IntoIterator<Item = F::Hash>,
) {
    insert_staged::<F, true>(filter, burst, hashes);
}

/// Keys hashed together before any is inserted by [`insert_keys`] in the cache.
pub const INSERT_GROUP: usize = 16;

/// Inserts the keys `hashes` yields into `filter`: past the cache (with a `burst`),
/// [`insert_in_bursts`]; in the cache, [`INSERT_GROUP`] keys at a time hashed before any of
/// them is inserted, without prefetches, so the core overlaps the work of independent keys
/// (two short passes, where key by key it runs one long chain per key). Every filter's
/// `insert_all`.
#[inline(always)]
pub fn insert_keys<F: BurstInsert>(
    filter: &mut F,
    burst: Option<usize>,
    hashes: impl IntoIterator<Item = F::Hash>,
) {
    match burst {
        None => insert_staged::<F, false>(filter, INSERT_GROUP, hashes),
        Some(burst) => insert_in_bursts(filter, burst, hashes),
    }
}

/// Inserts the keys `hashes` yields in order, `burst` at a time (at most
/// [`MAX_INSERT_BURST`]), each staged (and prefetched, with `PREFETCH`) before any key of its
/// burst is inserted.
#[inline(always)]
fn insert_staged<F: BurstInsert, const PREFETCH: bool>(
    filter: &mut F,
    burst: usize,
    hashes: impl IntoIterator<Item = F::Hash>,
) {
    let burst = burst.clamp(1, MAX_INSERT_BURST);
    let mut staged = [F::Hash::default(); MAX_INSERT_BURST];
    let mut len = 0;
    for hash in hashes {
        if PREFETCH {
            filter.prefetch(hash);
        }
        staged[len] = hash;
        len += 1;
        if len == burst {
            staged[..burst].iter().for_each(|&hash| filter.insert(hash));
            len = 0;
        }
    }
    staged[..len].iter().for_each(|&hash| filter.insert(hash));
}

/// Inserts pre-computed `hashes` in order, `burst` at a time (at least one): a burst's lines
/// are prefetched before any of it is inserted, as [`insert_in_bursts`] does, without
/// staging copies of hashes already in memory. The filters' `insert_hashes`.
#[inline(always)]
pub fn insert_hashes_in_bursts<F: BurstInsert>(filter: &mut F, burst: usize, hashes: &[F::Hash]) {
    for chunk in hashes.chunks(burst.max(1)) {
        chunk.iter().for_each(|&hash| filter.prefetch(hash));
        chunk.iter().for_each(|&hash| filter.insert(hash));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A model query over a set of integers: a key is present when it is even; round r
    /// decides keys divisible by `r + 3` as absent (when odd), and every call is logged so
    /// the tests can check the order of stages.
    struct Model {
        footprint: usize,
        lines: usize,
        log: RefCell<Vec<(u64, &'static str)>>,
    }

    #[derive(Clone, Copy, Default)]
    struct Staged {
        key: u64,
        rounds: usize,
    }

    macro_rules! model_impl {
        ($name:ident, $rounds:expr, $loop:expr) => {
            struct $name(Model);
            impl BatchQuery for $name {
                type State = Staged;
                const ROUNDS: usize = $rounds;
                const LOOP: Loop = $loop;
                fn footprint(&self) -> usize {
                    self.0.footprint
                }
                fn lines_per_key(&self) -> usize {
                    self.0.lines
                }
                fn empty(&self) -> Staged {
                    Staged::default()
                }
                fn stage<T: Hash>(&self, key: &T, _eager: bool) -> Staged {
                    let key = crate::hash::hash_key(key, 0) as u64 % 1000;
                    self.0.log.borrow_mut().push((key, "stage"));
                    Staged { key, rounds: 0 }
                }
                fn round(&self, s: &mut Staged, round: usize) -> Option<bool> {
                    assert_eq!(s.rounds, round, "rounds in order");
                    s.rounds += 1;
                    self.0.log.borrow_mut().push((s.key, "round"));
                    (s.key % 2 == 1 && s.key % (round as u64 + 3) == 0).then_some(false)
                }
                fn finish(&self, s: &Staged) -> bool {
                    assert_eq!(s.rounds, Self::ROUNDS, "every round before the final test");
                    self.0.log.borrow_mut().push((s.key, "finish"));
                    s.key % 2 == 0
                }
                fn contains_now<T: Hash>(&self, key: &T) -> bool {
                    crate::hash::hash_key(key, 0) as u64 % 1000 % 2 == 0
                }
            }
        };
    }
    model_impl!(Bursts0, 0, Loop::Bursts);
    model_impl!(Bursts2, 2, Loop::Bursts);
    model_impl!(Pipe0, 0, Loop::Pipelined);
    model_impl!(Pipe3, 3, Loop::Pipelined);
    model_impl!(Over0, 0, Loop::Overlapped);

    fn model(footprint: usize, lines: usize) -> Model {
        Model {
            footprint,
            lines,
            log: RefCell::new(Vec::new()),
        }
    }

    fn expected(keys: &[u64]) -> Vec<bool> {
        keys.iter()
            .map(|k| (crate::hash::hash_key(k, 0) as u64 % 1000).is_multiple_of(2))
            .collect()
    }

    fn check<Q: BatchQuery>(q: &Q, log: impl Fn(&Q) -> Vec<(u64, &'static str)>) {
        for len in [0usize, 1, 2, 15, 16, 17, 127, 128, 129, 1000, 4099] {
            let keys: Vec<u64> = (0..len as u64).map(|i| i * 7 + 1).collect();
            let mut out = vec![true; 3];
            contains_batch_into(q, &keys, &mut out);
            assert_eq!(out, expected(&keys), "len {len}");
            // Every key staged exactly once, and finished at most once.
            let log = log(q);
            if q.footprint() > direct_max_bytes(Q::ONE_LINE) {
                assert_eq!(log.iter().filter(|e| e.1 == "stage").count(), len);
            }
        }
    }

    #[test]
    fn every_loop_answers_like_the_single_query() {
        for lines in [1usize, 3, 7, 100] {
            let limit = direct_max_bytes(false);
            for footprint in [1usize, limit, limit + 1] {
                let take = |m: &Model| m.log.take();
                check(&Bursts0(model(footprint, lines)), |q| take(&q.0));
                check(&Bursts2(model(footprint, lines)), |q| take(&q.0));
                check(&Pipe0(model(footprint, lines)), |q| take(&q.0));
                check(&Pipe3(model(footprint, lines)), |q| take(&q.0));
                check(&Over0(model(footprint, lines)), |q| take(&q.0));
            }
        }
    }

    /// The pipeline runs a key's stages `distance` keys apart: it is staged, then its rounds
    /// run in order, each after `distance` more keys were staged.
    #[test]
    fn the_pipeline_staggers_stages_by_the_distance() {
        let q = Pipe3(model(direct_max_bytes(false) + 1, 8));
        let d = pipeline_distance(8);
        let keys: Vec<u64> = (0..200).collect();
        let mut out = Vec::new();
        contains_batch_into(&q, &keys, &mut out);
        let log = q.0.log.take();
        let staged_before = |i: usize| log[..i].iter().filter(|e| e.1 == "stage").count();
        let first_round = log.iter().position(|e| e.1 == "round").unwrap();
        assert_eq!(staged_before(first_round), d);
    }

    /// The overlapped loop answers every key, in order, and tests key t only after key
    /// t + D was staged (or every key, near the end): D keys' misses in flight during each
    /// test.
    #[test]
    fn the_overlapped_loop_tests_a_key_after_staging_the_next_group() {
        for lines in [1usize, 3, 40] {
            let d = pipeline_distance(lines);
            for len in [0usize, 1, d - 1, d, d + 1, 2 * d + 3, 1000] {
                let q = Over0(model(usize::MAX, lines));
                let keys: Vec<u64> = (0..len as u64).map(|i| i * 7 + 1).collect();
                let mut out = vec![false; len];
                overlapped(&q, &keys, &mut out);
                assert_eq!(out, expected(&keys), "len {len}, distance {d}");
                let (mut staged, mut tested) = (0, 0);
                for (_, what) in q.0.log.take() {
                    if what == "stage" {
                        staged += 1;
                    } else {
                        assert_eq!(staged, len.min(tested + d + 1), "key {tested} of {len}");
                        tested += 1;
                    }
                }
                assert_eq!((staged, tested), (len, len));
            }
        }
    }

    #[test]
    fn direct_loop_limits_follow_the_caches() {
        assert_eq!(
            direct_max_bytes(true),
            crate::internal::caches::l2_cache_bytes() / 2
        );
        let many = direct_max_bytes(false);
        assert!(many >= CACHED_MAX_BYTES);
        assert!(many == CACHED_MAX_BYTES || many == last_level_cache_bytes() / 4);
    }

    /// A model filter for the burst insert: logs every call, in one log with the hashing.
    struct Logged(Rc<RefCell<Vec<(&'static str, u64)>>>);

    impl BurstInsert for Logged {
        type Hash = u64;

        fn prefetch(&self, hash: u64) {
            self.0.borrow_mut().push(("prefetch", hash));
        }

        fn insert(&mut self, hash: u64) {
            self.0.borrow_mut().push(("insert", hash));
        }
    }

    /// Every key is inserted once, in order, whatever the burst (0 and too long ones
    /// clamped), each hashed and prefetched before it is inserted, and a burst's keys all
    /// hashed before the first of them is inserted; without a burst, groups of
    /// [`INSERT_GROUP`] keys hashed before any is inserted, and no prefetch.
    #[test]
    fn bursts_insert_every_key_in_order() {
        for burst in [
            None,
            Some(0),
            Some(1),
            Some(3),
            Some(16),
            Some(64),
            Some(65),
            Some(1000),
        ] {
            for len in [0u64, 1, 2, 15, 16, 17, 64, 65, 200] {
                let log = Rc::new(RefCell::new(Vec::new()));
                let mut filter = Logged(Rc::clone(&log));
                let hashes = (0..len).map(|k| {
                    log.borrow_mut().push(("hash", k * 10));
                    k * 10
                });
                insert_keys(&mut filter, burst, hashes);
                let mut expected = Vec::new();
                let keys: Vec<u64> = (0..len).collect();
                let chunk = burst.map_or(INSERT_GROUP, |b| b.clamp(1, MAX_INSERT_BURST));
                for chunk in keys.chunks(chunk) {
                    for &k in chunk {
                        expected.push(("hash", k * 10));
                        if burst.is_some() {
                            expected.push(("prefetch", k * 10));
                        }
                    }
                    expected.extend(chunk.iter().map(|&k| ("insert", k * 10)));
                }
                assert_eq!(log.take(), expected, "burst {burst:?}, {len} keys");
            }
        }
    }

    /// Every hash is inserted once, in order, each burst's hashes all prefetched before the
    /// first of them is inserted.
    #[test]
    fn hash_bursts_insert_every_hash_in_order() {
        for burst in [0, 1, 3, 64] {
            for len in [0u64, 1, 3, 64, 65, 130] {
                let log = Rc::new(RefCell::new(Vec::new()));
                let hashes: Vec<u64> = (0..len).map(|h| h * 7).collect();
                insert_hashes_in_bursts(&mut Logged(Rc::clone(&log)), burst, &hashes);
                let mut expected = Vec::new();
                for chunk in hashes.chunks(burst.max(1)) {
                    expected.extend(chunk.iter().map(|&h| ("prefetch", h)));
                    expected.extend(chunk.iter().map(|&h| ("insert", h)));
                }
                assert_eq!(log.take(), expected, "burst {burst}, {len} hashes");
            }
        }
    }

    #[test]
    fn sizes_follow_the_lines_per_key() {
        assert_eq!(burst_len(1), 128);
        assert_eq!(burst_len(7), 18);
        assert_eq!(burst_len(1000), MIN_BURST);
        assert_eq!(pipeline_distance(1), 32);
        assert_eq!(pipeline_distance(7), 4);
        assert_eq!(pipeline_distance(100), 2);
    }
}
