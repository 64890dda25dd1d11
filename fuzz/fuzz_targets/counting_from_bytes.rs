//! `CountingBloomFilter::from_bytes` on arbitrary input: an error or a working filter, never a
//! panic (`bloom_tests::check_any_bytes` says what "working" means).

#![no_main]

use bloom_counting::CountingBloomFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bloom_tests::check_any_bytes::<CountingBloomFilter>(
        data,
        bloom_tests::counting::decoded_filter_checks,
    );
});
