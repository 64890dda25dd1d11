//! Adapters for this workspace's filters.

use bloom_classic::{AtomicBloomFilter, BloomFilter};
use rayon::ThreadPool;

use crate::candidate::{BuildError, Built, Candidate, Info, OUR_HASHER, Origin};
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
