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
    let view = BloomFilterRef::from_bytes(data);
    let verified = view.as_ref().is_ok_and(|v| v.verify().is_ok());
    assert_eq!(verified, BloomFilter::from_bytes(data).is_ok());
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
