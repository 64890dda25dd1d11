//! The Parquet `BloomFilterHeader` reader and `from_parquet_bytes` on arbitrary input: never a
//! panic, never an allocation beyond the input; an accepted header re-encodes to one that
//! reads back the same, and an accepted filter writes the bytes back canonically.
#![no_main]

use bloom_blocked::{ParquetHeader, SplitBlockBloomFilter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((header, len)) = ParquetHeader::read(data) {
        assert!(len <= data.len());
        let mut again = Vec::new();
        header.write(&mut again);
        assert_eq!(ParquetHeader::read(&again).unwrap(), (header, again.len()));
    }
    if let Ok(filter) = SplitBlockBloomFilter::from_parquet_bytes(data) {
        let canonical = filter.to_parquet_bytes();
        assert_eq!(
            SplitBlockBloomFilter::from_parquet_bytes(&canonical).unwrap(),
            filter
        );
    }
});
