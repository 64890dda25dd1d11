//! `SparkBloomFilter::from_bytes` and `read_from` on arbitrary input: never a panic; whatever
//! decodes is canonical, streams back the same and keeps the keys put into it (the checks of
//! `bloom_tests::jvm::check_spark_bytes`, also replayed over `regressions/spark_from_bytes/`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| bloom_tests::jvm::check_spark_bytes(data));
