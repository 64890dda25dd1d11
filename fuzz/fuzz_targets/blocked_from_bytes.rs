//! `BlockedBloomFilter::from_bytes` (and the atomic twin's) on arbitrary input: never a panic;
//! whatever decodes round-trips to the same bytes and finds the keys it is given.
//! `BlockedBloomFilterRef::from_bytes` never panics either, accepts (with `verify`) exactly
//! what `from_bytes` accepts, and answers alike.
#![no_main]

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, BlockedBloomFilterRef};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut filter) = BlockedBloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        filter.insert(data);
        assert!(filter.contains(data));
        assert!(filter.contains_batch(&[data]).iter().all(|&b| b));
    }
    if let Ok(filter) = AtomicBlockedBloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
    }
    bloom_tests::check_view_bytes!(data, BlockedBloomFilterRef, BlockedBloomFilter);
});
