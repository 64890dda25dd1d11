//! `BloomFilter::from_bytes` on arbitrary input: never panics, and whatever it accepts is a
//! working filter that writes back the same bytes. `BloomFilterRef::from_bytes` never panics
//! either, accepts (with `verify`) exactly what `from_bytes` accepts, and answers alike.
#![no_main]

use bloom_classic::{AtomicBloomFilter, BloomFilter, BloomFilterRef};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(filter) = BloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        let _ = filter.contains(&data.len());
        let _ = filter.estimated_len();
        let atomic = AtomicBloomFilter::from_bytes(data).expect("same bytes, same verdict");
        assert_eq!(atomic.to_bytes(), data);
    }
    bloom_tests::check_view_bytes!(data, BloomFilterRef, BloomFilter);
});
