//! `SplitBlockBloomFilter::from_bytes` and `from_bitset` on arbitrary input: never a panic;
//! whatever decodes round-trips. `SplitBlockBloomFilterRef::from_bytes` never panics either,
//! accepts (with `verify`) exactly what `from_bytes` accepts, and answers alike.
#![no_main]

use bloom_blocked::{SplitBlockBloomFilter, SplitBlockBloomFilterRef};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut filter) = SplitBlockBloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        filter.insert_bytes(data);
        assert!(filter.contains_bytes(data));
    }
    if let Ok(filter) = SplitBlockBloomFilter::from_bitset(data) {
        assert_eq!(filter.bitset_bytes(), data);
    }
    bloom_tests::check_view_bytes!(data, SplitBlockBloomFilterRef, SplitBlockBloomFilter);
});
