//! Parallel bulk insertion into an array of blocks, without atomics.
//!
//! The same two-phase idea as `bloom_core::par::par_scatter`, at the grain of a block rather
//! than a bit: every thread hashes a share of a chunk of keys and appends `(block, hash
//! half)` to the bucket of the region of blocks it falls in; then every region is updated by
//! exactly one thread, reading the buckets in worker order. Sixteen bytes per key cross
//! between the phases instead of eight per bit, and updates to one block happen in key
//! order, so the result is the one a sequential loop gives.

use rayon::prelude::*;

/// Keys per round of the two phases.
const CHUNK_KEYS: usize = 1 << 16;

/// Below this many keys the parallel machinery costs more than it saves.
const MIN_PARALLEL_KEYS: usize = 1 << 14;

/// How far ahead of the entry being written the region update prefetches.
const PREFETCH_AHEAD: usize = 16;

/// Regions per worker thread: more regions than threads lets rayon balance them, and keeps
/// a region's random writes within a cache-sized share of the filter.
const REGIONS_PER_THREAD: usize = 16;

/// Applies `update(&mut blocks[i], value)` for `(i, value) = locate(key)` of every key, in
/// parallel. `locate` must return an index below `blocks.len()`.
pub(crate) fn scatter<B, T, L, U>(blocks: &mut [B], keys: &[T], locate: L, update: U)
where
    B: Send,
    T: Sync,
    L: Fn(&T) -> (usize, u64) + Sync,
    U: Fn(&mut B, u64) + Sync,
{
    let threads = rayon::current_num_threads();
    if threads <= 1 || keys.len() < MIN_PARALLEL_KEYS || blocks.len() < 2 {
        for key in keys {
            let (i, value) = locate(key);
            update(&mut blocks[i], value);
        }
        return;
    }
    // Regions are a power of two of blocks, so a block's region is one shift away.
    let region_blocks = blocks
        .len()
        .div_ceil(threads * REGIONS_PER_THREAD)
        .next_power_of_two();
    let shift = region_blocks.trailing_zeros();
    let regions = blocks.len().div_ceil(region_blocks);
    let workers = threads;
    let mut buckets: Vec<Vec<Vec<(usize, u64)>>> = vec![vec![Vec::new(); regions]; workers];
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
                    let (i, value) = locate(key);
                    mine[i >> shift].push((i, value));
                }
            });
        let buckets = &buckets;
        blocks
            .par_chunks_mut(region_blocks)
            .enumerate()
            .for_each(|(r, region)| {
                let base = r << shift;
                for worker in buckets {
                    // Prefetch a few entries ahead, so the writes find their lines cached.
                    let entries = &worker[r];
                    for (n, &(i, value)) in entries.iter().enumerate() {
                        if let Some(&(ahead, _)) = entries.get(n + PREFETCH_AHEAD) {
                            bloom_core::bits::prefetch(&region[ahead - base]);
                        }
                        update(&mut region[i - base], value);
                    }
                }
            });
    }
}
