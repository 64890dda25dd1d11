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
        math::classic_fpr(self.num_bits(), self.num_hashes(), num_items)
    }
}

impl Subject for AtomicBloomFilter {
    fn build(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        AtomicBloomFilter::new(expected_items, fpr)
    }

    fn theory_fpr(&self, num_items: u64) -> f64 {
        math::classic_fpr(self.num_bits(), self.num_hashes(), num_items)
    }
}

impl Subject for bloom_counting::CountingBloomFilter {
    fn build(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        bloom_counting::CountingBloomFilter::new(expected_items, fpr)
    }

    /// The classic rate: the non-zero counters are the bits of the classic filter of the
    /// same size, probe count and keys.
    fn theory_fpr(&self, num_items: u64) -> f64 {
        math::classic_fpr(self.num_counters(), self.num_hashes(), num_items)
    }
}
