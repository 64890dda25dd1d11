//! `from_bytes` of the three line layouts' filters (blocked, multiblock, 32-bit multiblock)
//! and their atomic twins on arbitrary input: never a panic; whatever decodes round-trips to
//! the same bytes and finds the keys it is given. Each view's `from_bytes` never panics
//! either, accepts (with `verify`) exactly what the owned `from_bytes` accepts, and answers
//! alike.
#![no_main]

use bloom_blocked::{
    AtomicBlockedBloomFilter, AtomicMultiblock32BloomFilter, AtomicMultiblockBloomFilter,
    BlockedBloomFilter, BlockedBloomFilterRef, Multiblock32BloomFilter,
    Multiblock32BloomFilterRef, MultiblockBloomFilter, MultiblockBloomFilterRef,
};
use libfuzzer_sys::fuzz_target;

/// The owned filter's round trip and a key found after its insert, the atomic twin's round
/// trip, and the view against the owned filter.
macro_rules! check_layout {
    ($data:expr, $owned:ident, $atomic:ident, $view:ident) => {{
        let data: &[u8] = $data;
        if let Ok(mut filter) = $owned::from_bytes(data) {
            assert_eq!(filter.to_bytes(), data);
            filter.insert(data);
            assert!(filter.contains(data));
            assert!(filter.contains_batch(&[data]).iter().all(|&b| b));
        }
        if let Ok(filter) = $atomic::from_bytes(data) {
            assert_eq!(filter.to_bytes(), data);
        }
        bloom_tests::check_view_bytes!(data, $view, $owned);
    }};
}

fuzz_target!(|data: &[u8]| {
    check_layout!(
        data,
        BlockedBloomFilter,
        AtomicBlockedBloomFilter,
        BlockedBloomFilterRef
    );
    check_layout!(
        data,
        MultiblockBloomFilter,
        AtomicMultiblockBloomFilter,
        MultiblockBloomFilterRef
    );
    check_layout!(
        data,
        Multiblock32BloomFilter,
        AtomicMultiblock32BloomFilter,
        Multiblock32BloomFilterRef
    );
});
