//! Filters of a block layout: their blocks, folding, and the conversions between owned and
//! atomic words.

use super::filter::Engine;
use super::layout::{BlockLayout, Layout};
use super::storage::Storage;
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};

/// Filters of a [`BlockLayout`]: their blocks, and folding.
impl<L: BlockLayout, S: Storage> Engine<L, S> {
    /// The number of blocks.
    #[inline]
    pub fn num_blocks(&self) -> usize {
        // A block count that exists in memory fits a `usize`.
        self.layout.num_blocks() as usize
    }
}

/// Owned filters of a [`BlockLayout`]: sizing by the block's formula, and folding.
impl<L: BlockLayout> Engine<L, BitStore> {
    /// The number of bits per key that gives the lowest rate at `bits_per_key` bits of
    /// memory per key, by the layout's own formula (not the classic `(m/n) ln 2`).
    pub fn optimal_num_hashes(bits_per_key: f64) -> u32 {
        L::optimal_num_hashes(bits_per_key)
    }

    /// The filter with `factor` times fewer blocks (a power of two dividing the block count),
    /// holding every key this one holds: block `i` is the OR of blocks `i * factor` to
    /// `(i + 1) * factor - 1`, exactly where each of their keys lands in the smaller filter.
    /// The rate rises to what the smaller size gives for the keys held; the bytes are those
    /// of the smaller filter built from the same keys.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `factor` is not a power of two dividing the block
    /// count.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut big = BlockedBloomFilter::with_params(64 * 512, 7)?;
    /// big.insert_all(0..100u32);
    /// let small = big.fold(4)?;
    /// assert_eq!(small.num_blocks(), 16);
    /// assert!((0..100u32).all(|k| small.contains(&k)));
    /// let mut direct = BlockedBloomFilter::with_params(16 * 512, 7)?;
    /// direct.insert_all(0..100u32);
    /// assert_eq!(small.to_bytes(), direct.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold(&self, factor: u32) -> Result<Self, Error> {
        self.folded(factor)
    }

    /// The smallest fold of this filter (by a power of two) still sized for
    /// `expected_items` keys at `fpr`: for a filter built large because its key count was
    /// not known, once it is.
    ///
    /// # Errors
    ///
    /// Those of [`new`](Engine::new) for `expected_items` and `fpr`.
    pub fn fold_to_fit(&self, expected_items: u64, fpr: f64) -> Result<Self, Error> {
        let needed = L::for_items(expected_items, fpr)?.num_blocks();
        self.folded(self.layout.largest_fold(needed))
    }
}

impl<L: Layout> From<Engine<L, BitStore>> for Engine<L, AtomicBitStore> {
    fn from(filter: Engine<L, BitStore>) -> Self {
        filter.into_atomic()
    }
}

impl<L: Layout> From<Engine<L, AtomicBitStore>> for Engine<L, BitStore> {
    fn from(filter: Engine<L, AtomicBitStore>) -> Self {
        filter.into_plain()
    }
}
