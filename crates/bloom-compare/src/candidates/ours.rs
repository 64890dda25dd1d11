//! Adapters for this workspace's filters.

use bloom_blocked::{
    AtomicBlockedBloomFilter, BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter,
    Probe, SplitBlockBloomFilter,
};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use rayon::ThreadPool;

use crate::candidate::{
    BuildError, BuildResult, Built, Candidate, Info, OUR_HASHER, Origin, PORTABLE,
    insert_until_full, our_hasher,
};
use crate::keys::Key;
use bloom_core::Keyed;

/// The kernel name of a blocked filter's [`Probe`], as reports show it: `portable`, `avx2`,
/// `avx512`.
pub fn probe_kernel(probe: Probe) -> &'static str {
    match probe {
        Probe::Portable => PORTABLE,
        Probe::Avx2 => "avx2",
        Probe::Avx512 => "avx512",
    }
}

/// An adapter for a filter of this workspace with the common shape: `new(n, p)`,
/// `insert_all`, `contains`, `contains_batch_into` and a rayon `par_insert_all` (through
/// `&mut self`, or `&self` for the lock-free filters, written `mut` or not before the type).
/// A filter with kernels names them with `kernel: probe_kernel`: its kernel is that function
/// of its `probe()`.
macro_rules! bulk_adapter {
    ($(#[$doc:meta])* $adapter:ident, mut $filter:ident, $info:tt) => {
        bulk_adapter!(@ [mut] $(#[$doc])* $adapter, $filter, $info);
    };
    ($(#[$doc:meta])* $adapter:ident, $filter:ident, $info:tt) => {
        bulk_adapter!(@ [] $(#[$doc])* $adapter, $filter, $info);
    };
    (@new $filter:ident) => {
        $filter::new
    };
    (@new $filter:ident, $new:path) => {
        $new
    };
    (@ [$($mut:tt)?] $(#[$doc:meta])* $adapter:ident, $filter:ident, {
        id: $id:literal,
        name: $name:literal,
        crate_name: $crate_name:literal,
        structure: $structure:literal,
        deletes: $deletes:literal,
        $(kernel: $kernel:path,)?
        $(new: $new:path,)?
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $adapter;

        impl Candidate for $adapter {
            type Filter<K: Key> = $filter;

            const INFO: Info = Info {
                id: $id,
                name: $name,
                crate_name: $crate_name,
                origin: Origin::Ours,
                hasher: OUR_HASHER,
                structure: $structure,
                deletes: $deletes,
                ..Info::PLAIN
            };
            const BATCH: bool = true;
            const PARALLEL: bool = true;

            fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<$filter> {
                let $($mut)? filter = bulk_adapter!(@new $filter $(, $new)?)(capacity, fpr)
                    .map_err(BuildError::new)?;
                filter.insert_all(keys);
                Ok(Built::all(filter, keys.len()))
            }

            #[inline(always)]
            fn contains<K: Key>(filter: &$filter, key: &K) -> bool {
                filter.contains(key)
            }

            fn contains_batch<K: Key>(filter: &$filter, keys: &[K], out: &mut Vec<bool>) {
                filter.contains_batch_into(keys, out);
            }

            fn hasher<K: Key>(filter: &$filter) -> &'static str {
                our_hasher(filter.hashing())
            }

            $(
                fn kernel<K: Key>(filter: &$filter) -> Option<&'static str> {
                    Some($kernel(filter.probe()))
                }
            )?

            fn par_build<K: Key>(
                capacity: u64,
                fpr: f64,
                keys: &[K],
                pool: &ThreadPool,
            ) -> Result<$filter, BuildError> {
                let $($mut)? filter = bulk_adapter!(@new $filter $(, $new)?)(capacity, fpr)
                    .map_err(BuildError::new)?;
                pool.install(|| filter.par_insert_all(keys));
                Ok(filter)
            }
        }
    };
}

bulk_adapter!(
    /// [`BloomFilter`], the classic filter.
    Classic, mut BloomFilter, {
        id: "classic",
        name: "BloomFilter",
        crate_name: "bloom-classic",
        structure: "k probes in m bits, in pairs sharing a 512-bit group",
        deletes: false,
    }
);

bulk_adapter!(
    /// [`AtomicBloomFilter`], the lock-free classic filter; its parallel build is concurrent
    /// inserts from every thread into one shared filter.
    AtomicClassic, AtomicBloomFilter, {
        id: "atomic-classic",
        name: "AtomicBloomFilter",
        crate_name: "bloom-classic",
        structure: "as BloomFilter, AtomicU64 words",
        deletes: false,
    }
);

bulk_adapter!(
    /// [`CountingBloomFilter`], the classic filter with a 4-bit counter per bit: four times
    /// the memory, and removal.
    Counting, mut CountingBloomFilter, {
        id: "counting",
        name: "CountingBloomFilter",
        crate_name: "bloom-counting",
        structure: "k probes in m 4-bit counters (4× a classic filter's memory)",
        deletes: true,
    }
);

bulk_adapter!(
    /// [`BlockedBloomFilter`]: every key's bits in one 512-bit, cache-line-aligned block.
    Blocked, mut BlockedBloomFilter, {
        id: "blocked",
        name: "BlockedBloomFilter",
        crate_name: "bloom-blocked",
        structure: "k bits in one 512-bit block (one cache line) per key",
        deletes: false,
        kernel: probe_kernel,
    }
);

bulk_adapter!(
    /// [`MultiblockBloomFilter`]: one bit in each 64-bit word of one 512-bit block per key.
    Multiblock, mut MultiblockBloomFilter, {
        id: "multiblock",
        name: "MultiblockBloomFilter",
        crate_name: "bloom-blocked",
        structure: "one bit in each of the 8 words of one 512-bit block (one cache line) per key",
        deletes: false,
        kernel: probe_kernel,
    }
);

bulk_adapter!(
    /// [`Multiblock32BloomFilter`]: one bit in each 32-bit word of one 256-bit block per key.
    Multiblock32, mut Multiblock32BloomFilter, {
        id: "multiblock32",
        name: "Multiblock32BloomFilter",
        crate_name: "bloom-blocked",
        structure: "one bit in each of the 8 32-bit words of one 256-bit block (half a cache line) per key",
        deletes: false,
        kernel: probe_kernel,
    }
);

/// The secret key of the keyed candidates (any 16 bytes do: the comparison measures the
/// cost of keyed hashing, not its secrecy).
const COMPARE_KEY: [u8; 16] = *b"bloom-compare-k!";

/// [`BloomFilter::new`], keyed with [`COMPARE_KEY`].
fn keyed_classic(capacity: u64, fpr: f64) -> Result<BloomFilter, bloom_core::Error> {
    Ok(BloomFilter::new(capacity, fpr)?.with_key(COMPARE_KEY))
}

/// [`BlockedBloomFilter::new`], keyed with [`COMPARE_KEY`].
fn keyed_blocked(capacity: u64, fpr: f64) -> Result<BlockedBloomFilter, bloom_core::Error> {
    Ok(BlockedBloomFilter::new(capacity, fpr)?.with_key(COMPARE_KEY))
}

bulk_adapter!(
    /// [`BloomFilter`] hashing under a secret key (SipHash-1-3, `with_key`): what keyed
    /// hashing costs the classic filter (`docs/security.md`).
    KeyedClassic, mut BloomFilter, {
        id: "classic-keyed",
        name: "BloomFilter (keyed)",
        crate_name: "bloom-classic",
        structure: "as BloomFilter, SipHash-1-3 under a secret key",
        deletes: false,
        new: keyed_classic,
    }
);

bulk_adapter!(
    /// [`BlockedBloomFilter`] hashing under a secret key (SipHash-1-3, `with_key`).
    KeyedBlocked, mut BlockedBloomFilter, {
        id: "blocked-keyed",
        name: "BlockedBloomFilter (keyed)",
        crate_name: "bloom-blocked",
        structure: "as BlockedBloomFilter, SipHash-1-3 under a secret key",
        deletes: false,
        kernel: probe_kernel,
        new: keyed_blocked,
    }
);

bulk_adapter!(
    /// [`AtomicBlockedBloomFilter`], the lock-free blocked filter; its parallel build is
    /// concurrent inserts from every thread into one shared filter.
    AtomicBlocked, AtomicBlockedBloomFilter, {
        id: "atomic-blocked",
        name: "AtomicBlockedBloomFilter",
        crate_name: "bloom-blocked",
        structure: "as BlockedBloomFilter, AtomicU64 words",
        deletes: false,
        kernel: probe_kernel,
    }
);

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
        grows: true,
        ..Info::PLAIN
    };
    const BATCH: bool = true;

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<ScalableBloomFilter> {
        let filter = ScalableBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        Ok(insert_until_full(filter, keys, |f, key| {
            f.insert(key).is_ok()
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &ScalableBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &ScalableBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn hasher<K: Key>(filter: &ScalableBloomFilter) -> &'static str {
        our_hasher(filter.hashing())
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
        ..Info::PLAIN
    };
    const BATCH: bool = true;

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<SplitBlockBloomFilter> {
        let mut filter = SplitBlockBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        filter.insert_all(keys);
        Ok(Built::all(filter, keys.len()))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &SplitBlockBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn contains_batch<K: Key>(filter: &SplitBlockBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        filter.contains_batch_into(keys, out);
    }

    fn kernel<K: Key>(filter: &SplitBlockBloomFilter) -> Option<&'static str> {
        Some(probe_kernel(filter.probe()))
    }
}
