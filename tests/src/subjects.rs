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

impl Subject for bloom_scalable::ScalableBloomFilter {
    fn build(expected_items: usize, fpr: f64) -> Result<Self, Error> {
        bloom_scalable::ScalableBloomFilter::new(expected_items, fpr)
    }

    /// The compound rate of the layers, each holding its share of the keys: layers fill
    /// oldest first up to their capacity.
    fn theory_fpr(&self, num_items: u64) -> f64 {
        let mut remaining = num_items;
        let mut pass = 1.0;
        for layer in self.layers() {
            let held = remaining.min(layer.capacity());
            remaining -= held;
            let f = layer.filter();
            pass *= 1.0 - math::classic_fpr(f.num_bits(), f.num_hashes(), held);
        }
        1.0 - pass
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
