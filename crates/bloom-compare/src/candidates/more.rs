//! Adapters for the workspace's filters that are not classic-shaped: the aging filter, whose
//! keys expire, and the JVM-compatible filters, which take longs, strings and byte arrays
//! rather than any `T: Hash`.

use std::any::{Any, TypeId};
use std::hash::Hasher;

use bloom_aging::AgingBloomFilter;
use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter};

use crate::candidate::{
    BuildError, BuildResult, Built, Candidate, Info, OUR_HASHER, Origin, insert_each, our_hasher,
};
use crate::keys::Key;
use bloom_core::Keyed;

/// [`AgingBloomFilter`] with a window of the setting's capacity and its default slices: the
/// last `capacity` keys inserted are all held. The sweep offers more keys than that at its
/// loads past 100%, which the aging filter takes by forgetting the oldest: the adapter
/// reports it full at its window instead, so its figures are those of a window holding
/// exactly the keys the others hold, and no key it was asked about has expired.
#[derive(Debug, Clone, Copy)]
pub struct Aging;

impl Candidate for Aging {
    type Filter<K: Key> = AgingBloomFilter;

    const INFO: Info = Info {
        id: "aging",
        name: "AgingBloomFilter",
        crate_name: "bloom-aging",
        origin: Origin::Ours,
        hasher: OUR_HASHER,
        structure: "k + l slices in a ring, in rows of 128-bit blocks: a key set in the k newest",
        ..Info::PLAIN
    };
    const BATCH: bool = true;

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<AgingBloomFilter> {
        let mut filter = AgingBloomFilter::new(capacity, fpr).map_err(BuildError::new)?;
        let window = usize::try_from(capacity).unwrap_or(usize::MAX);
        let accepted = keys.len().min(window);
        filter.insert_all(&keys[..accepted]);
        Ok(Built { filter, accepted })
    }

    #[inline(always)]
    fn contains<K: Key>(filter: &AgingBloomFilter, key: &K) -> bool {
        filter.contains(key)
    }

    fn kernel<K: Key>(filter: &AgingBloomFilter) -> Option<&'static str> {
        Some(super::probe_kernel(filter.probe()))
    }

    fn hasher<K: Key>(filter: &AgingBloomFilter) -> &'static str {
        our_hasher(filter.hashing())
    }

    fn contains_batch<K: Key>(filter: &AgingBloomFilter, keys: &[K], out: &mut Vec<bool>) {
        *out = filter.contains_batch(keys);
    }
}

/// A key as the JVM filters take it: a `u64` as a long, a `String` as a UTF-8 string, bytes
/// as bytes, and any other `Key` as the bytes its `Hash` writes.
enum JvmKey<'a> {
    Long(i64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Hashed(Vec<u8>),
}

/// Collects the bytes a key's `Hash` writes, for keys the JVM filters have no form for.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Hasher for Bytes {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
}

/// `key` in the form a JVM filter takes (the type tests fold away when monomorphised).
#[inline(always)]
fn jvm_key<K: Key>(key: &K) -> JvmKey<'_> {
    let any = key as &dyn Any;
    if let Some(&long) = any.downcast_ref::<u64>() {
        JvmKey::Long(long as i64)
    } else if let Some(s) = any.downcast_ref::<String>() {
        JvmKey::Str(s)
    } else if let Some(b) = any.downcast_ref::<Vec<u8>>() {
        JvmKey::Bytes(b)
    } else {
        let mut bytes = Bytes::default();
        key.hash(&mut bytes);
        JvmKey::Hashed(bytes.0)
    }
}

/// `keys` as longs, when they are `u64`s (the batch queries of the JVM filters take longs).
#[inline(always)]
fn as_longs<K: Key>(keys: &[K]) -> Option<&[i64]> {
    if TypeId::of::<K>() != TypeId::of::<u64>() {
        return None;
    }
    // SAFETY: `K` is `u64` (checked just above), and `i64` has the size and alignment of
    // `u64` with every bit pattern valid, so the same memory read as `[i64]` is the keys'
    // two's-complement values, as `u64 as i64` gives them.
    Some(unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<i64>(), keys.len()) })
}

/// An adapter for a JVM-compatible filter, described by `$info`: its constructor,
/// `insert_*`, `might_contain_*` and batch query of longs.
macro_rules! jvm_adapter {
    ($(#[$doc:meta])* $adapter:ident, $filter:ident, $info:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $adapter;

        impl Candidate for $adapter {
            type Filter<K: Key> = $filter;

            const INFO: Info = $info;
            const BATCH: bool = true;

            fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<$filter> {
                let filter = $filter::new(capacity, fpr).map_err(BuildError::new)?;
                Ok(insert_each(filter, keys, |f, key| {
                    match jvm_key(key) {
                        JvmKey::Long(long) => f.insert_i64(long),
                        JvmKey::Str(s) => f.insert_str(s),
                        JvmKey::Bytes(b) => f.insert_bytes(b),
                        JvmKey::Hashed(b) => f.insert_bytes(&b),
                    };
                }))
            }

            #[inline(always)]
            fn contains<K: Key>(filter: &$filter, key: &K) -> bool {
                match jvm_key(key) {
                    JvmKey::Long(long) => filter.might_contain_long(long),
                    JvmKey::Str(s) => filter.might_contain_str(s),
                    JvmKey::Bytes(b) => filter.might_contain_bytes(b),
                    JvmKey::Hashed(b) => filter.might_contain_bytes(&b),
                }
            }

            fn contains_batch<K: Key>(filter: &$filter, keys: &[K], out: &mut Vec<bool>) {
                match as_longs(keys) {
                    Some(longs) => filter.might_contain_long_batch_into(longs, out),
                    None => {
                        out.clear();
                        out.extend(keys.iter().map(|k| Self::contains(filter, k)));
                    }
                }
            }
        }
    };
}

jvm_adapter!(
    /// [`SparkBloomFilter`], Spark's sketch filter in its default binary version (V2): the
    /// filter a Spark job builds, served from Rust. `u64` keys go in as longs (`putLong`),
    /// strings as UTF-8 (`putString`).
    Spark,
    SparkBloomFilter,
    Info {
        id: "spark",
        name: "SparkBloomFilter",
        crate_name: "bloom-jvm",
        origin: Origin::Ours,
        hasher: "Murmur3 x86_32 (Spark's sketch), two calls combined per probe",
        structure: "Spark's BloomFilter V2: k probes in m bits, big-endian words",
        ..Info::PLAIN
    }
);

jvm_adapter!(
    /// [`GuavaBloomFilter`], Guava's filter (`MURMUR128_MITZ_64`): the filter a JVM service
    /// builds. `u64` keys go in as longs (`Funnels.longFunnel`), strings as UTF-8.
    Guava,
    GuavaBloomFilter,
    Info {
        id: "guava",
        name: "GuavaBloomFilter",
        crate_name: "bloom-jvm",
        origin: Origin::Ours,
        hasher: "Murmur3 x64_128 (Guava's), one call per key",
        structure: "Guava's BloomFilter: k probes in m bits, big-endian words",
        ..Info::PLAIN
    }
);
