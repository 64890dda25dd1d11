//! Pins the workspace's rule for integer types (`docs/design.md`, "Sizes and parameters"):
//! counts of keys and of bits or counters are `u64`, sizes of memory in bytes are `usize`,
//! counts of in-memory parts are `usize`, `num_hashes` is `u32`.
//!
//! Every assertion is a coercion to an exact function-pointer type, so a signature that
//! drifts from the rule fails to compile; the tests only run to show they were built.

use bloom_aging::{AgingBloomFilter, AgingBloomFilterBuilder};
use bloom_blocked::{
    AtomicBlockedBloomFilter, BITSET_MAX_BYTES, BITSET_MIN_BYTES, BlockedBloomFilter,
    ParquetHeader, SplitBlockBloomFilter,
};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::bits::{BitStore, Words};
use bloom_core::internal::{self, AtomicBitStore};
use bloom_core::{Error, Filter, math};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::{Builder, Layer, MAX_LAYERS, ScalableBloomFilter};
use bloom_tests::Subject;

/// What the rule fixes for every filter, through the shared trait and the test suite's
/// [`Subject`]: `build(expected_items: u64, ..)`, `memory_usage() -> usize`,
/// `estimated_len() -> u64`.
fn shared<F: Subject>() {
    let _: fn(u64, f64) -> Result<F, Error> = F::build;
    let _: fn(&F) -> usize = <F as Filter>::memory_usage;
    let _: fn(&F) -> u64 = <F as Filter>::estimated_len;
}

/// The inherent methods of every variant: `new(u64, f64)`, `estimated_len() -> u64`,
/// `memory_usage() -> usize`, and the shared trait's.
macro_rules! every_filter {
    ($filter:ty) => {
        let _: fn(u64, f64) -> Result<$filter, Error> = <$filter>::new;
        let _: fn(&$filter) -> u64 = <$filter>::estimated_len;
        let _: fn(&$filter) -> usize = <$filter>::memory_usage;
        shared::<$filter>();
    };
}

/// The inherent methods every fixed-size variant has under the same names, and the ones
/// named after the `=>`: counts (`u64`) and, after `;`, counts of in-memory parts (`usize`).
macro_rules! fixed_size {
    ($filter:ty, $num_bits:ident => $($count:ident),* $(; $($part:ident),*)?) => {
        every_filter!($filter);
        let _: fn(u64, u32) -> Result<$filter, Error> = <$filter>::with_params;
        let _: fn(&$filter) -> u64 = <$filter>::$num_bits;
        let _: fn(&$filter) -> u32 = <$filter>::num_hashes;
        $(let _: fn(&$filter) -> u64 = <$filter>::$count;)*
        $($(let _: fn(&$filter) -> usize = <$filter>::$part;)*)?
    };
}

#[test]
fn classic_filters() {
    fixed_size!(BloomFilter, num_bits => count_ones);
    fixed_size!(AtomicBloomFilter, num_bits => count_ones);
    let _: fn(BitStore, u32, u64) -> Result<BloomFilter, Error> = BloomFilter::from_bits;
}

#[test]
fn counting_filter() {
    fixed_size!(CountingBloomFilter, num_counters => saturated_counters, nonzero_counters);
    let _: fn(&CountingBloomFilter, u64) -> Option<u8> = CountingBloomFilter::counter;
}

#[test]
fn blocked_filters() {
    fixed_size!(BlockedBloomFilter, num_bits => count_ones; num_blocks);
    fixed_size!(AtomicBlockedBloomFilter, num_bits => count_ones; num_blocks);
    let _: fn(&BlockedBloomFilter, u64) -> f64 = BlockedBloomFilter::expected_fpr;
    let _: fn(&AtomicBlockedBloomFilter, u64) -> f64 = AtomicBlockedBloomFilter::expected_fpr;
}

#[test]
fn split_block_filter() {
    type S = SplitBlockBloomFilter;
    every_filter!(S);
    let _: fn(usize) -> S = S::with_num_bytes;
    let _: fn(&S) -> usize = S::num_bytes;
    let _: fn(&S) -> usize = S::num_blocks;
    let _: fn(&S) -> u64 = S::count_ones;
    let header = ParquetHeader {
        num_bytes: BITSET_MIN_BYTES,
    };
    let _: [usize; 3] = [header.num_bytes, BITSET_MIN_BYTES, BITSET_MAX_BYTES];
}

#[test]
fn scalable_filter() {
    type F = ScalableBloomFilter;
    every_filter!(F);
    let _: fn(u64, f64) -> Builder = F::builder;
    // The byte cap is a `usize` both ways, the layer cap a count of in-memory parts.
    let _: fn(Builder, usize) -> Builder = Builder::max_bytes;
    let _: fn(&F) -> Option<usize> = F::max_bytes;
    let _: fn(Builder, usize) -> Builder = Builder::max_layers;
    let _: fn(&F) -> usize = F::max_layers;
    let _: fn(&F) -> usize = F::num_layers;
    let _: fn(&F) -> f64 = F::target_fpr;
    let _: usize = MAX_LAYERS;
    let _: fn(&F) -> u64 = F::capacity;
    let _: fn(&F) -> u64 = F::initial_capacity;
    let _: fn(&F) -> u64 = F::len;
    let _: fn(&Layer) -> u64 = Layer::capacity;
    let _: fn(&Layer) -> u64 = Layer::len;
    let _: fn(&Layer) -> usize = Layer::memory_usage;
}

#[test]
fn jvm_filters() {
    use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};
    type S = SparkBloomFilter;
    type G = GuavaBloomFilter;
    let _: fn(u64, f64) -> Result<S, Error> = S::new;
    let _: fn(SparkVersion, u64, u64, i32) -> Result<S, Error> = S::with_version;
    let _: fn(u64, f64) -> Result<u64, Error> = S::optimal_num_bits;
    let _: fn(u64, u64) -> u32 = S::optimal_num_hashes;
    let _: fn(&S) -> u64 = S::bit_size;
    let _: fn(&S) -> u64 = S::cardinality;
    let _: fn(&S) -> u32 = S::num_hashes;
    let _: fn(&S) -> usize = S::memory_usage;
    let _: fn(&S) -> f64 = S::estimated_fpr;
    let _: fn(&S) -> f64 = S::expected_fpp;
    let _: fn(u64, f64) -> Result<G, Error> = G::new;
    let _: fn(&G) -> u64 = G::bit_size;
    let _: fn(&G) -> u64 = G::approximate_element_count;
    let _: fn(&G) -> u32 = G::num_hashes;
    let _: fn(&G) -> usize = G::memory_usage;
    let _: fn(&G) -> f64 = G::estimated_fpr;
    let _: fn(&G) -> f64 = G::expected_fpp;
}

#[test]
fn aging_filter() {
    type F = AgingBloomFilter;
    type B = AgingBloomFilterBuilder;
    every_filter!(F);
    // The window is a count of keys; slices, generations and k are small counts (`u32`),
    // bits per slice a count of bits; times and spans are the caller's `u64` clock.
    let _: fn(u64, f64) -> B = F::builder;
    let _: fn(B, u32, u32) -> B = B::slices;
    let _: fn(B, u32) -> B = B::generations;
    let _: fn(B, u32) -> B = B::slack;
    let _: fn(B, u64, u32) -> B = B::time_window;
    let _: fn(&F) -> u32 = F::num_hashes;
    let _: fn(&F) -> u32 = F::generations;
    let _: fn(&F) -> u32 = F::num_slices;
    let _: fn(&F) -> u64 = F::slice_bits;
    let _: fn(&F) -> u64 = F::num_rows;
    let _: fn(&F) -> u64 = F::num_bits;
    let _: fn(&F) -> u64 = F::window;
    let _: fn(&F) -> u64 = F::generation_len;
    let _: fn(&F) -> u64 = F::len;
    let _: fn(&F) -> f64 = F::target_fpr;
    let _: fn(&F, u64) -> f64 = F::expected_fpr;
    let _: fn(&F, u32) -> f64 = F::expired_fpr;
    let _: fn(&mut F, u64) -> Result<(), Error> = F::advance_to;
}

#[test]
fn core() {
    let _: fn(u64, f64) -> Result<u64, Error> = math::optimal_num_bits;
    let _: fn(u64, u64) -> Result<u32, Error> = math::optimal_num_hashes;
    let _: fn(f64) -> u64 = internal::round_count;
    let _: fn(u64) -> Result<BitStore, Error> = BitStore::new;
    let _: fn(&BitStore) -> u64 = BitStore::len;
    let _: fn(&BitStore) -> u64 = BitStore::count_ones;
    let _: fn(&BitStore) -> usize = BitStore::heap_bytes;
    let _: fn(&BitStore) -> usize = BitStore::le_bytes_len;
    let _: fn(u64) -> Result<AtomicBitStore, Error> = AtomicBitStore::new;
    let _: fn(&AtomicBitStore) -> u64 = AtomicBitStore::len;
    let _: fn(&AtomicBitStore) -> usize = AtomicBitStore::heap_bytes;
    let _: fn(usize) -> Result<Words<u64>, Error> = Words::zeroed;
    let _: fn(&Words<u64>) -> usize = Words::len;
    let _ = Error::OutOfMemory { bytes: usize::MAX };
}

/// The rule at work: a count past `u32::MAX` is accepted by every constructor on every
/// target, and refused with an error (not a truncation) only for being too large.
#[test]
fn counts_beyond_u32_are_errors_not_truncations() {
    let n = u64::from(u32::MAX) * 64;
    assert!(matches!(
        BloomFilter::new(n, 0.01),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        SplitBlockBloomFilter::new(n, 0.01),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        ScalableBloomFilter::new(n, 0.5),
        Err(Error::TooLarge { .. })
    ));
}
