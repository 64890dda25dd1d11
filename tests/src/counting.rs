//! Checks specific to `CountingBloomFilter`, shared by its tests and its fuzz target.

use bloom_counting::CountingBloomFilter;

/// What every decoded counting filter must do, whatever its counters: its classic copy
/// answers as it does, and a removal that fails changes nothing.
///
/// # Panics
///
/// When either property fails.
pub fn decoded_filter_checks(filter: &mut CountingBloomFilter) {
    let summary = filter.to_bloom_filter();
    for key in 0..8u64 {
        assert_eq!(summary.contains(&key), filter.contains(&key), "key {key}");
        let estimate = filter.count_estimate(&key);
        assert_eq!(estimate == 0, !filter.contains(&key), "key {key}");
    }
    assert!(filter.saturated_counters() <= filter.nonzero_counters());
    let before = filter.to_bytes();
    for key in 100..108u64 {
        let mut copy = filter.clone();
        if copy.remove(&key).is_err() {
            assert_eq!(
                copy.to_bytes(),
                before,
                "a failed removal changed the filter"
            );
        }
    }
}
