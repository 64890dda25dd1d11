//! The shared suite and the classic-specific checks for `BloomFilter` and
//! `AtomicBloomFilter`.

use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_tests::filter_suite;

filter_suite!(plain, BloomFilter);
filter_suite!(atomic, AtomicBloomFilter);
