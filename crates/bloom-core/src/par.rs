//! Parallel bulk insertion into a word array, without atomics and without per-thread copies.
//!
//! A filter's bulk build is bound by random memory writes. Sharing the array through atomic
//! `fetch_or`s serialises each core's writes (a locked instruction waits for its cache line),
//! and giving each thread a private copy multiplies the memory. [`par_scatter`] instead splits
//! the array into regions and works in two phases per chunk of keys:
//!
//! 1. every thread hashes a share of the chunk and appends each position to the bucket of
//!    the region it falls in (sequential writes);
//! 2. every region is then updated by exactly one thread, reading its buckets in order, so
//!    plain (non-atomic) writes are safe and each thread's random writes stay inside a
//!    region a fraction of the filter's size.
//!
//! The result is bit-for-bit the one a sequential loop produces.

use rayon::prelude::*;

/// Keys per round of the two phases: large enough to amortise the fork-join, small enough
/// that the buckets (k positions of 8 bytes per key) stay in cache-friendly sizes.
const CHUNK_KEYS: usize = 1 << 15;

/// Below this many keys the parallel machinery costs more than it saves.
const MIN_PARALLEL_KEYS: usize = 1 << 14;

/// Regions per worker thread: more regions than threads lets rayon balance uneven regions.
const REGIONS_PER_THREAD: usize = 8;

/// Applies `update(region, slot)` for every slot `positions(key)` yields, for every key, in
/// parallel; `update` sees the words of one region and the slot's offset from the region's
/// first slot.
///
/// A slot is a unit of `1 << slot_shift` slots per word: `slot_shift = 6` for bits (64 per
/// word), `4` for 4-bit counters (16 per word). Every slot yielded must be below
/// `words.len() << slot_shift`.
///
/// `update` must change only its own slot. Updates to one slot then happen in key order, as
/// in a sequential loop, and updates to different slots commute, so the result is the one a
/// sequential loop gives, whatever the number of threads (saturating counters included).
///
/// # Panics
///
/// If `positions` yields a slot beyond the array (a bug in the calling filter).
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
    U: Fn(&mut [u64], u64) + Sync,
{
    let threads = rayon::current_num_threads();
    if threads <= 1 || keys.len() < MIN_PARALLEL_KEYS || words.len() < 2 {
        for key in keys {
            for slot in positions(key) {
                update(words, slot);
            }
        }
        return;
    }
    // Regions are a power of two of words, so a slot's region is one shift away.
    let wanted_regions = threads * REGIONS_PER_THREAD;
    let region_words = words.len().div_ceil(wanted_regions).next_power_of_two();
    let region_shift = region_words.trailing_zeros() + slot_shift;
    let regions = words.len().div_ceil(region_words);
    let workers = threads
        .min(keys.len().div_ceil(MIN_PARALLEL_KEYS / 4))
        .max(1);
    // buckets[worker][region]: positions found by one worker for one region, reused per chunk.
    let mut buckets: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); regions]; workers];
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
                    for slot in positions(key) {
                        mine[(slot >> region_shift) as usize].push(slot);
                    }
                }
            });
        let buckets = &buckets;
        words
            .par_chunks_mut(region_words)
            .enumerate()
            .for_each(|(r, region)| {
                let base = (r as u64) << region_shift;
                // Workers took consecutive shares of the chunk: reading their buckets in worker
                // order replays each slot's updates in key order.
                for worker in buckets {
                    for &slot in &worker[r] {
                        update(region, slot - base);
                    }
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::set_bit;
    use crate::hash::{Probes, hash_key};

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
                    set_bit(w, p);
                })
            });
            assert_eq!(seq, par, "{num_bits}");
        }
    }

    #[test]
    fn parallel_equals_sequential_for_saturating_counters() {
        // 4-bit counters, 16 per word, saturating at 15: many keys share few counters.
        fn bump(words: &mut [u64], slot: u64) {
            let (w, shift) = ((slot >> 4) as usize, (slot & 15) * 4);
            if (words[w] >> shift) & 15 != 15 {
                words[w] += 1 << shift;
            }
        }
        let keys: Vec<u64> = (0..60_000).collect();
        let positions = |k: &u64| Probes::new(hash_key(k, 9), 3, 64 * 16);
        let mut seq = vec![0u64; 64];
        for k in &keys {
            for p in positions(k) {
                bump(&mut seq, p);
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
