//! One layer of a scalable filter: a classic filter and the count of keys it took.

use bloom_classic::BloomFilter;
use bloom_core::Error;
use bloom_core::bits::BitStore;
use bloom_core::hash::Hashing;

use crate::config::LayerSize;

/// One layer of a [`ScalableBloomFilter`](crate::ScalableBloomFilter): a classic
/// [`BloomFilter`] sized for `capacity` keys at the layer's false-positive rate, and the
/// number of keys added to it so far.
///
/// Only the newest layer takes new keys; it is closed, and a larger one opened, when its
/// count reaches its capacity. The count goes up only for keys that set at least one new
/// bit, so duplicates do not use up capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub(crate) filter: BloomFilter,
    pub(crate) capacity: u64,
    pub(crate) len: u64,
}

impl Layer {
    /// An empty layer of the given size, hashing by `hashing`.
    pub(crate) fn new(size: &LayerSize, hashing: Hashing) -> Result<Layer, Error> {
        let bits = BitStore::new(size.num_bits)?;
        Ok(Layer {
            filter: BloomFilter::from_bits(bits, size.num_hashes, hashing)?,
            capacity: size.capacity,
            len: 0,
        })
    }

    /// The heap and inline bytes a layer of `num_bits` bits holds, known before allocating.
    pub(crate) fn bytes_for(num_bits: u64) -> Result<u64, Error> {
        let words = bloom_core::internal::words_for(num_bits)? as u64;
        Ok(words * 8 + std::mem::size_of::<Layer>() as u64)
    }

    /// The classic filter holding this layer's bits.
    pub fn filter(&self) -> &BloomFilter {
        &self.filter
    }

    /// The number of keys this layer is sized for.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The number of keys added to this layer (each set at least one new bit). After a
    /// [`union`](crate::ScalableBloomFilter::union) it is the sum of both sides' counts, an
    /// upper bound that may exceed the capacity.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no key was added to this layer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the layer has taken as many keys as it is sized for.
    pub fn is_full(&self) -> bool {
        self.len >= self.capacity
    }

    /// Bytes held by the layer.
    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<Layer>() + self.filter.bits().heap_bytes()
    }
}
