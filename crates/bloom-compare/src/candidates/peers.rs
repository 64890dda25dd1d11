//! Adapters for the peer crates (feature `peers`).
//!
//! Every peer that accepts a hasher or pre-hashed keys is given the workspace's own hash, so
//! all of them pay for the same XXH3 call per key and the comparison measures the filters,
//! not their hash functions:
//!
//! * `fastbloom`, `qfilter` take a `BuildHasher`: they get [`BuildKeyHasher`] (the seeded
//!   hash of the key, 64 bits).
//! * `cuckoofilter` takes a `Hasher + Default`: it gets [`KeyHasher`] with the default seed.
//! * `sbbf-rs-safe` and `xorf` take 64-bit hashes: they get the low half of the key's
//!   [`hash_key`] digest, exactly what our filters compute.
//! * `bloomfilter` (SipHash-1-3) and `growable-bloom-filter` (XXH3-64) hash internally and
//!   take no hasher; they are measured with their own.

use bloom_core::hash::{BuildKeyHasher, DEFAULT_SEED, KeyHasher, hash_key};
use bloom_core::internal::low_half;
use bloom_core::math;

use crate::candidate::{
    BuildError, BuildResult, Built, Candidate, Info, Origin, insert_each, insert_until_full,
};
use crate::keys::Key;
use crate::measure::Entry;

/// Every peer, in report order.
pub fn all() -> Vec<Entry> {
    vec![
        Entry::of::<Fastbloom>(),
        Entry::of::<Bloomfilter>(),
        Entry::of::<SbbfRsSafe>(),
        Entry::of::<GrowableBloom>(),
        Entry::of::<XorfBinaryFuse8>(),
        Entry::of::<Qfilter>(),
        Entry::of::<Cuckoofilter>(),
    ]
}

/// The 64-bit hash handed to peers that take pre-hashed keys: the low half of our digest.
#[inline]
fn our_hash64<K: Key>(key: &K) -> u64 {
    low_half(hash_key(key, DEFAULT_SEED))
}

/// The hasher description of peers given our hash as a `BuildHasher`/`Hasher`.
const GIVEN_OUR_HASHER: &str = "the seeded hash, 64 bits (ours, passed in as its hasher)";
/// The hasher description of peers given our hash as a pre-computed u64.
const GIVEN_OUR_HASH: &str = "the seeded hash, 64 bits (ours, passed in as a pre-hashed u64)";

/// `fastbloom::BloomFilter`: a classic Bloom filter, its k probes anywhere in m bits,
/// derived by double hashing from one 64-bit hash.
#[derive(Debug, Clone, Copy)]
pub struct Fastbloom;

impl Candidate for Fastbloom {
    type Filter<K: Key> = fastbloom::BloomFilter<BuildKeyHasher>;

    const INFO: Info = Info {
        id: "fastbloom",
        name: "fastbloom::BloomFilter",
        crate_name: "fastbloom 0.17",
        origin: Origin::Peer,
        hasher: GIVEN_OUR_HASHER,
        structure: "k probes anywhere in m bits (double hashing of a 64-bit hash)",
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter = fastbloom::BloomFilter::with_false_pos(fpr)
            .hasher(BuildKeyHasher::default())
            .expected_items(in_memory(capacity)?);
        Ok(insert_each(filter, keys, |f, key| {
            f.insert(key);
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.contains(key)
    }
}

/// The fixed seed of `bloomfilter`'s SipHash keys: runs repeat.
const BLOOMFILTER_SEED: [u8; 32] = *b"bloom-compare bloomfilter seed!!";

/// `bloomfilter::Bloom`: a classic Bloom filter hashing with two keyed SipHash-1-3.
#[derive(Debug, Clone, Copy)]
pub struct Bloomfilter;

impl Candidate for Bloomfilter {
    type Filter<K: Key> = bloomfilter::Bloom<K>;

    const INFO: Info = Info {
        id: "bloomfilter",
        name: "bloomfilter::Bloom",
        crate_name: "bloomfilter 3",
        origin: Origin::Peer,
        hasher: "SipHash-1-3 (its own; takes no hasher)",
        structure: "k probes anywhere in m bits",
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter = bloomfilter::Bloom::new_for_fp_rate_with_seed(
            in_memory(capacity)?,
            fpr,
            &BLOOMFILTER_SEED,
        )
        .map_err(BuildError::new)?;
        Ok(insert_each(filter, keys, |f, key| {
            f.set(key);
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.check(key)
    }
}

/// The capacity as the `usize` most peers take: the workspace counts keys in `u64`.
fn in_memory(capacity: u64) -> Result<usize, BuildError> {
    usize::try_from(capacity)
        .map_err(|_| BuildError::new(format!("capacity {capacity} exceeds this machine's usize")))
}

/// The bits per key `sbbf-rs-safe` gets for a target rate: the split-block size that keeps
/// the blocked rate (256-bit blocks, 8 bits per key) at or below it, rounded up to a whole
/// bit per key (the crate takes an integer).
fn sbbf_bits_per_key(capacity: u64, fpr: f64) -> Result<usize, BuildError> {
    let bits = math::blocked_num_bits(capacity, fpr, 256, 8).map_err(BuildError::new)?;
    Ok((bits as f64 / capacity as f64).ceil().max(1.0) as usize)
}

/// `sbbf_rs_safe::Filter`: Parquet's split-block Bloom filter (256-bit blocks of eight
/// 32-bit words, one bit per word).
#[derive(Debug, Clone, Copy)]
pub struct SbbfRsSafe;

impl Candidate for SbbfRsSafe {
    type Filter<K: Key> = sbbf_rs_safe::Filter;

    const INFO: Info = Info {
        id: "sbbf-rs-safe",
        name: "sbbf_rs_safe::Filter",
        crate_name: "sbbf-rs-safe 0.3",
        origin: Origin::Peer,
        hasher: GIVEN_OUR_HASH,
        structure: "split block: 256-bit blocks, one bit in each of 8 words",
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter =
            sbbf_rs_safe::Filter::new(sbbf_bits_per_key(capacity, fpr)?, in_memory(capacity)?);
        Ok(insert_each(filter, keys, |f, key| {
            f.insert_hash(our_hash64(key));
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.contains_hash(our_hash64(key))
    }

    /// The kernel `sbbf-rs` (the engine under `sbbf-rs-safe`) chose: every filter asks it
    /// for one when built, and it gives the same one, from the CPU's features, to all of them
    /// in a process, and names it.
    fn kernel<K: Key>(filter: &Self::Filter<K>) -> Option<&'static str> {
        let _ = filter;
        sbbf_kernel(sbbf_rs::FilterFn::new().which())
    }
}

/// The kernel name of an `sbbf-rs` implementation (`None` for one this version does not
/// know).
fn sbbf_kernel(which: &str) -> Option<&'static str> {
    match which {
        "Avx2Filter" => Some("avx2"),
        "SseFilter" => Some("sse4.1"),
        "NeonFilter" => Some("neon"),
        "WasmFilter" => Some("simd128"),
        "FallbackFilter" => Some(crate::candidate::PORTABLE),
        _ => None,
    }
}

/// `growable_bloom_filter::GrowableBloom`: a scalable Bloom filter that adds layers as it
/// fills.
#[derive(Debug, Clone, Copy)]
pub struct GrowableBloom;

impl Candidate for GrowableBloom {
    type Filter<K: Key> = growable_bloom_filter::GrowableBloom;

    const INFO: Info = Info {
        id: "growable-bloom-filter",
        name: "growable_bloom_filter::GrowableBloom",
        crate_name: "growable-bloom-filter 2",
        origin: Origin::Peer,
        hasher: "XXH3-64 (its own; takes no hasher)",
        structure: "scalable: layers of classic filters",
        grows: true,
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter = growable_bloom_filter::GrowableBloom::new(fpr, in_memory(capacity)?);
        Ok(insert_each(filter, keys, |f, key| {
            f.insert(key);
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.contains(key)
    }
}

/// The rate of an 8-bit binary fuse filter: a foreign key matches its fingerprint with
/// probability 2^-8 (Graf, Lemire, "Binary fuse filters", ACM JEA 2022).
const FUSE8_FPR: f64 = 1.0 / 256.0;

/// `xorf::BinaryFuse8`: an immutable binary fuse filter with 8-bit fingerprints, built once
/// from every key.
#[derive(Debug, Clone, Copy)]
pub struct XorfBinaryFuse8;

impl Candidate for XorfBinaryFuse8 {
    type Filter<K: Key> = xorf::BinaryFuse8;

    const INFO: Info = Info {
        id: "xorf",
        name: "xorf::BinaryFuse8",
        crate_name: "xorf 0.13",
        origin: Origin::Peer,
        hasher: GIVEN_OUR_HASH,
        structure: "binary fuse, 8-bit fingerprints, immutable",
        fixed_fpr: Some(FUSE8_FPR),
        static_build: true,
        ..Info::PLAIN
    };

    /// Hashes every key (part of the timed build) and constructs the filter from the hashes.
    fn build<K: Key>(_capacity: u64, _fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let hashes: Vec<u64> = keys.iter().map(our_hash64).collect();
        let filter = xorf::BinaryFuse8::try_from(&hashes).map_err(BuildError::new)?;
        Ok(Built::all(filter, keys.len()))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        xorf::Filter::contains(filter, &our_hash64(key))
    }
}

/// `qfilter::Filter`: a rank-select quotient filter; supports removal, refuses inserts when
/// full.
#[derive(Debug, Clone, Copy)]
pub struct Qfilter;

impl Candidate for Qfilter {
    type Filter<K: Key> = qfilter::Filter<Box<[u8]>, BuildKeyHasher>;

    const INFO: Info = Info {
        id: "qfilter",
        name: "qfilter::Filter",
        crate_name: "qfilter 0.3",
        origin: Origin::Peer,
        hasher: GIVEN_OUR_HASHER,
        structure: "rank-select quotient filter",
        deletes: true,
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter = qfilter::Filter::new_with_hasher(capacity, fpr, BuildKeyHasher::default())
            .map_err(|e| BuildError::new(format!("{e:?}")))?;
        Ok(insert_until_full(filter, keys, |f, key| {
            f.insert(key).is_ok()
        }))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.contains(key)
    }
}

/// The upper bound on a cuckoo filter's rate with 8-bit fingerprints (255 usable values)
/// and two buckets of four: a foreign key is compared with at most 8 fingerprints (Fan,
/// Andersen, Kaminsky, Mitzenmacher, "Cuckoo filter: practically better than Bloom",
/// CoNEXT 2014, §4).
const CUCKOO8_FPR: f64 = 8.0 / 255.0;

/// `cuckoofilter::CuckooFilter`: a cuckoo filter with 8-bit fingerprints in buckets of four;
/// supports removal.
#[derive(Debug, Clone, Copy)]
pub struct Cuckoofilter;

impl Candidate for Cuckoofilter {
    // `KeyHasher::default()` hashes with `DEFAULT_SEED`: the `Hasher + Default` it takes.
    type Filter<K: Key> = cuckoofilter::CuckooFilter<KeyHasher>;

    const INFO: Info = Info {
        id: "cuckoofilter",
        name: "cuckoofilter::CuckooFilter",
        crate_name: "cuckoofilter 0.5",
        origin: Origin::Peer,
        hasher: "the seeded hash, 64 bits (ours, passed in as its Hasher); fingerprints rehashed for the alternate bucket",
        structure: "cuckoo, 8-bit fingerprints, buckets of 4",
        deletes: true,
        fixed_fpr: Some(CUCKOO8_FPR),
        evicts_when_full: true,
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, _fpr: f64, keys: &[K]) -> BuildResult<Self::Filter<K>> {
        let filter = cuckoofilter::CuckooFilter::with_capacity(in_memory(capacity)?);
        Ok(insert_until_full(filter, keys, |f, key| f.add(key).is_ok()))
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &Self::Filter<K>, key: &K) -> bool {
        filter.contains(key)
    }
}
