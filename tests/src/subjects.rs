//! [`Subject`] for every filter of the workspace: how the suite builds it and what its
//! theory predicts.

use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::{Error, math};

use crate::Subject;

impl Subject for BloomFilter {
    fn build(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        BloomFilter::new(expected_items, fpr)
    }

    fn theory_fpr(&self, num_items: u64) -> f64 {
        math::paired_fpr(self.num_bits(), self.num_hashes(), num_items)
    }
}

impl Subject for AtomicBloomFilter {
    fn build(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        AtomicBloomFilter::new(expected_items, fpr)
    }

    fn theory_fpr(&self, num_items: u64) -> f64 {
        math::paired_fpr(self.num_bits(), self.num_hashes(), num_items)
    }
}
