//! `BlockedBloomFilter::from_bytes` (and the atomic twin's) on arbitrary input: never a panic;
//! whatever decodes round-trips to the same bytes and finds the keys it is given.
#![no_main]

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter};
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
});
