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
    let view = SplitBlockBloomFilterRef::from_bytes(data);
    let verified = view.as_ref().is_ok_and(|v| v.verify().is_ok());
    assert_eq!(verified, SplitBlockBloomFilter::from_bytes(data).is_ok());
    if let Ok(view) = view {
        let keys = [data.len() as u64, 0, u64::MAX];
        let answers = view.contains_batch(&keys);
        assert!(
            keys.iter()
                .zip(&answers)
                .all(|(k, &a)| view.contains(k) == a)
        );
        if let Ok(filter) = view.to_owned() {
            assert_eq!(filter.contains_batch(&keys), answers);
        }
    }
});
