//! Adapters for this workspace's filters.

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use rayon::ThreadPool;

use crate::candidate::{BuildError, Built, Candidate, Info, OUR_HASHER, Origin, insert_until_full};
use crate::keys::Key;

/// [`BloomFilter`], the classic filter.
#[derive(Debug, Clone, Copy)]
pub struct Classic;

impl Candidate for Classic {
    type Filter<K: Key> = BloomFilter;

    const INFO: Info = Info {
        id: "classic",
        name: "BloomFilter",
        crate_name: "bloom-classic",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "k probes in m bits, in pairs sharing a 512-bit group",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;
    const PARALLEL: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<BloomFilter>, BuildError> {
        let mut filter = BloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &BloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &BloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn par_build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<BloomFilter, BuildError> {
        let mut filter = BloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        pool.install(|| filter.par_insert_all(keys));
        Ok(filter)
    }
}

/// [`AtomicBloomFilter`], the lock-free classic filter; its parallel build is concurrent
/// inserts from every thread into one shared filter.
#[derive(Debug, Clone, Copy)]
pub struct AtomicClassic;

impl Candidate for AtomicClassic {
    type Filter<K: Key> = AtomicBloomFilter;

    const INFO: Info = Info {
        id: "atomic-classic",
        name: "AtomicBloomFilter",
        crate_name: "bloom-classic",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "as BloomFilter, AtomicU64 words",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;
    const PARALLEL: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<AtomicBloomFilter>, BuildError> {
        let filter = AtomicBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &AtomicBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &AtomicBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn par_build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<AtomicBloomFilter, BuildError> {
        let filter = AtomicBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        pool.install(|| filter.par_insert_all(keys));
        Ok(filter)
    }
}

/// [`CountingBloomFilter`], the classic filter with a 4-bit counter per bit: four times the
/// memory, and removal.
#[derive(Debug, Clone, Copy)]
pub struct Counting;

impl Candidate for Counting {
    type Filter<K: Key> = CountingBloomFilter;

    const INFO: Info = Info {
        id: "counting",
        name: "CountingBloomFilter",
        crate_name: "bloom-counting",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "k probes in m 4-bit counters (4× a classic filter's memory)",
        deletes: true,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;
    const PARALLEL: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<CountingBloomFilter>, BuildError> {
        let mut filter = CountingBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &CountingBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &CountingBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn par_build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<CountingBloomFilter, BuildError> {
        let mut filter = CountingBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        pool.install(|| filter.par_insert_all(keys));
        Ok(filter)
    }
}

/// [`ScalableBloomFilter`] with its defaults (growth factor 2, tightening ratio 0.8, no
/// cap): its first layer is sized for the setting's capacity, further layers open as it
/// fills. Its `insert` returns `Err(Full)` only under a cap, so with none every key is
/// taken; an error would stop the build there and show as "full".
#[derive(Debug, Clone, Copy)]
pub struct Scalable;

impl Candidate for Scalable {
    type Filter<K: Key> = ScalableBloomFilter;

    const INFO: Info = Info {
        id: "scalable",
        name: "ScalableBloomFilter",
        crate_name: "bloom-scalable",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "scalable: layers of classic filters, ×2 capacity and ×0.8 rate per layer",
        deletes: false,
        grows: true,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<ScalableBloomFilter>, BuildError> {
        let filter = ScalableBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        Ok(insert_until_full(filter, keys, |f, key| {
            f.insert(key).is_ok()
        }))
    }

    #[inline]
    fn contains<K: Key>(filter: &ScalableBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }
}

/// [`BlockedBloomFilter`]: every key's bits in one 512-bit, cache-line-aligned block.
#[derive(Debug, Clone, Copy)]
pub struct Blocked;

impl Candidate for Blocked {
    type Filter<K: Key> = BlockedBloomFilter;

    const INFO: Info = Info {
        id: "blocked",
        name: "BlockedBloomFilter",
        crate_name: "bloom-blocked",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "k bits in one 512-bit block (one cache line) per key",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;
    const PARALLEL: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<BlockedBloomFilter>, BuildError> {
        let mut filter = BlockedBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &BlockedBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &BlockedBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn par_build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<BlockedBloomFilter, BuildError> {
        let mut filter = BlockedBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        pool.install(|| filter.par_insert_all(keys));
        Ok(filter)
    }
}

/// [`AtomicBlockedBloomFilter`], the lock-free blocked filter; its parallel build is
/// concurrent inserts from every thread into one shared filter.
#[derive(Debug, Clone, Copy)]
pub struct AtomicBlocked;

impl Candidate for AtomicBlocked {
    type Filter<K: Key> = AtomicBlockedBloomFilter;

    const INFO: Info = Info {
        id: "atomic-blocked",
        name: "AtomicBlockedBloomFilter",
        crate_name: "bloom-blocked",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "as BlockedBloomFilter, AtomicU64 words",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;
    const PARALLEL: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<AtomicBlockedBloomFilter>, BuildError> {
        let filter = AtomicBlockedBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &AtomicBlockedBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &AtomicBlockedBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn par_build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
        pool: &ThreadPool,
    ) -> Result<AtomicBlockedBloomFilter, BuildError> {
        let filter = AtomicBlockedBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        pool.install(|| filter.par_insert_all(keys));
        Ok(filter)
    }
}

/// The hasher description of the split-block filter.
const SPLIT_BLOCK_HASHER: &str = "XXH64 seed 0 (its own, as Parquet) over the bytes `Hash` writes: u64 = INT64 plain encoding; strings + 0xFF";

/// [`SplitBlockBloomFilter`], Parquet's split-block filter, through its typed API: XXH64
/// (seed 0) over the bytes the key's `Hash` writes. For `u64` keys that is exactly
/// Parquet's hash of an INT64 value; for strings it is one byte longer than a Parquet
/// BYTE_ARRAY's (the `0xFF` terminator `str`'s `Hash` adds), which costs the same. Sized by
/// Parquet's rule (power-of-two bytes), so its bits per key step with n.
#[derive(Debug, Clone, Copy)]
pub struct SplitBlock;

impl Candidate for SplitBlock {
    type Filter<K: Key> = SplitBlockBloomFilter;

    const INFO: Info = Info {
        id: "split-block",
        name: "SplitBlockBloomFilter",
        crate_name: "bloom-blocked",
        origin: Origin::Ours,
        hasher: SPLIT_BLOCK_HASHER,
        structure: "Parquet split block: 256-bit blocks, one bit in each of 8 words; power-of-two bytes",
        deletes: false,
        grows: false,
        fixed_fpr: None,
        static_build: false,
        evicts_when_full: false,
    };
    const BATCH: bool = true;

    fn build<K: Key>(
        capacity: usize,
        fpr: f64,
        keys: &[K],
    ) -> Result<Built<SplitBlockBloomFilter>, BuildError> {
        let mut filter = SplitBlockBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline]
    fn contains<K: Key>(filter: &SplitBlockBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &SplitBlockBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }
}
