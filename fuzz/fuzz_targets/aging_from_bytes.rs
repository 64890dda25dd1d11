//! `AgingBloomFilter::from_bytes` on arbitrary input: an error or a working filter, never a
//! panic (`bloom_tests::check_any_bytes` says what "working" means). Accepted filters are
//! also shifted and queried on their clock, so a decoded ring position or clock that the
//! filter cannot use shows up here.

#![no_main]

use bloom_aging::AgingBloomFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bloom_tests::check_any_bytes::<AgingBloomFilter>(data, |filter| {
        let _ = filter.estimated_fpr();
        if let Some(span) = filter.time_span() {
            let later = span.saturating_mul(2);
            let _ = filter.contains_at("fuzz", later);
            let _ = filter.advance_to(later);
        }
        filter.advance();
        let _ = filter.contains("fuzz");
    });
});
