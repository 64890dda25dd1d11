//! `ScalableBloomFilter::from_bytes` on arbitrary input: never a panic, and whatever it
//! accepts round-trips and answers queries and inserts without panicking.
//!
//! Each input is tried twice: as it is, and with its last 8 bytes replaced by the checksum
//! of the rest, so that the fuzzer reaches the structural checks behind the checksum
//! (parameters, layer counts and sizes) instead of stopping at it.

#![no_main]

use bloom_core::format::checksum;
use bloom_scalable::ScalableBloomFilter;
use libfuzzer_sys::fuzz_target;

fn exercise(bytes: &[u8]) {
    let Ok(mut filter) = ScalableBloomFilter::from_bytes(bytes) else {
        return;
    };
    let again = filter.to_bytes();
    assert_eq!(
        again, bytes,
        "accepted bytes must be written back unchanged"
    );
    let copy = ScalableBloomFilter::from_bytes(&again).expect("written bytes read back");
    assert_eq!(copy, filter);
    let _ = filter.estimated_fpr();
    let _ = filter.estimated_len();
    for key in 0..64u32 {
        let _ = filter.contains(&key);
        // Stop before a new layer would be opened: its size comes from the parameters, not
        // from the input, and may be far larger than anything `from_bytes` allocated.
        if filter.layers().last().is_some_and(|l| l.is_full()) {
            break;
        }
        if let Ok(seen) = filter.insert(&key) {
            assert!(
                filter.contains(&key),
                "inserted key {key} not found (seen {seen})"
            );
        }
    }
    let mut united = copy.clone();
    let _ = united.union(&copy);
}

fuzz_target!(|data: &[u8]| {
    exercise(data);
    if data.len() >= 8 {
        let mut sealed = data.to_vec();
        let end = sealed.len() - 8;
        let sum = checksum(&sealed[..end]);
        sealed[end..].copy_from_slice(&sum.to_le_bytes());
        exercise(&sealed);
    }
});
