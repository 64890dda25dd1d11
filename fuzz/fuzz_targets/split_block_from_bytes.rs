//! `SplitBlockBloomFilter::from_bytes` and `from_bitset` on arbitrary input: never a panic;
//! whatever decodes round-trips.
#![no_main]

use bloom_blocked::SplitBlockBloomFilter;
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
});
