//! The lock-free, shareable twin of [`BlockedBloomFilter`].

use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::Ordering;

use bloom_core::Error;
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::batch::{self, Lines, OneLine};
use bloom_core::internal::{Output, prefetch};

use crate::BlockedBloomFilter;
use crate::blocked::{BATCH, estimated_fpr, estimated_len};
use crate::params::{self, Params};
use crate::probe::{self, Probe};
use crate::storage::{AtomicBlock, Block, Blocks};

/// A 512-bit blocked Bloom filter whose every method takes `&self`: it can be shared between
/// threads (it is `Send + Sync`) and inserted into concurrently without a lock.
///
/// An insert ORs the key's bits into the (at most eight) words of its block that need them,
/// each with one `Relaxed` `fetch_or`, skipped when a `Relaxed` load shows the bits set
/// already; a query is one `Relaxed` load per probe (at most 16). Relaxed is enough: bits only go from 0
/// to 1 and nothing else is published through them, so a key is found by every query that
/// starts after its insert returned (and the threads synchronised by any means). It answers
/// exactly like a [`BlockedBloomFilter`] holding the same keys, has the same binary format,
/// and converts to and from one without copying. Queries use the portable probe: the AVX2
/// one reads a block with plain vector loads, which concurrent atomic writes forbid.
///
/// # Examples
///
/// ```
/// use bloom_blocked::AtomicBlockedBloomFilter;
///
/// let filter = AtomicBlockedBloomFilter::new(40_000, 0.01)?;
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let filter = &filter;
///         s.spawn(move || {
///             for i in (t * 10_000)..((t + 1) * 10_000) {
///                 filter.insert(&i);
///             }
///         });
///     }
/// });
/// assert!((0..40_000u64).all(|i| filter.contains(&i)));
/// let fp = (40_000..140_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AtomicBlockedBloomFilter {
    blocks: Blocks<AtomicBlock>,
    params: Params,
}

/// A snapshot taken with `Relaxed` loads: inserts racing with the clone may or may not be in
/// it.
impl Clone for AtomicBlockedBloomFilter {
    fn clone(&self) -> Self {
        AtomicBlockedBloomFilter {
            blocks: self.snapshot().cast(),
            params: self.params,
        }
    }
}

impl AtomicBlockedBloomFilter {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`; see
    /// [`BlockedBloomFilter::new`].
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::new`].
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Ok(BlockedBloomFilter::new(expected_items, fpr)?.into_atomic())
    }

    /// A filter of `num_bits` bits rounded up to whole blocks; see
    /// [`BlockedBloomFilter::with_params`].
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::with_params`].
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Ok(BlockedBloomFilter::with_params(num_bits, num_hashes)?.into_atomic())
    }

    /// Returns this filter emptied and re-keyed with `seed`; see
    /// [`BlockedBloomFilter::with_seed`].
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.params.hashing = hashing;
        self.blocks.clear();
        self
    }

    fn current_hashing(&self) -> Hashing {
        self.params.hashing
    }

    bloom_core::internal::if_std! {
        /// Returns this filter emptied and re-keyed with a random seed. Only with the `std`
        /// feature.
        pub fn with_random_seed(self) -> Self {
            self.with_seed(bloom_core::hash::random_seed())
        }
    }

    pub(crate) fn from_parts(blocks: Blocks<AtomicBlock>, params: Params) -> Self {
        AtomicBlockedBloomFilter { blocks, params }
    }

    /// The number of bits (a multiple of 512).
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.params.num_bits()
    }

    /// The number of 512-bit blocks (in memory, so a `usize`).
    #[inline]
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The number of bits each key sets in its block.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.params.num_hashes
    }

    /// The hash seed; `None` for a [keyed](AtomicBlockedBloomFilter::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// The query implementation this filter runs: always [`Probe::Portable`], whatever the
    /// CPU, because the vector probes read a block with plain loads, which concurrent atomic
    /// writes forbid. [`BlockedBloomFilter::probe`] names the one a plain filter runs.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::{AtomicBlockedBloomFilter, Probe};
    ///
    /// let filter = AtomicBlockedBloomFilter::new(1000, 0.01)?;
    /// assert_eq!(filter.probe(), Probe::Portable);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe(&self) -> Probe {
        Probe::Portable
    }

    /// The 64-bit hash this filter computes for `key`, the same as
    /// [`BlockedBloomFilter::hash`].
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        self.params.hashing.hash64(key)
    }

    #[inline(always)]
    fn block(&self, hash: u64) -> &AtomicBlock {
        self.blocks.at(hash)
    }

    /// Adds a key from any thread. Returns `true` if it was possibly present already.
    ///
    /// When two threads insert the same new key at once, both may return `false`.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a pre-computed hash; see [`insert`](AtomicBlockedBloomFilter::insert).
    #[inline]
    pub fn insert_hash(&self, hash: u64) -> bool {
        let block = self.blocks.at_for_write(hash);
        let mask = probe::mask(probe::spread(hash), self.params.num_hashes);
        let mut was_present = true;
        for (word, m) in block.0.iter().zip(mask) {
            // Skipping the locked write when the bits are set already keeps the line shared
            // between cores instead of bouncing it on every insert of a known key.
            if m != 0 && word.load(Ordering::Relaxed) & m != m {
                was_present &= word.fetch_or(m, Ordering::Relaxed) & m == m;
            }
        }
        was_present
    }

    /// Whether `key` may be present.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let block = self.block(hash);
        probe::contains_words(
            |w| block.0[w].load(Ordering::Relaxed),
            probe::spread(hash),
            self.params.num_hashes,
        )
    }

    /// Adds every key of `keys`, hashing them in groups and prefetching their blocks before
    /// writing any (see [`BlockedBloomFilter::insert_all`]).
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&self, keys: I) {
        batch::insert_in_bursts::<BATCH, _, _, _>(self, keys);
    }

    /// Answers [`contains`](AtomicBlockedBloomFilter::contains) for every key through the
    /// workspace's batch engine, as [`BlockedBloomFilter::contains_batch`] does.
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](AtomicBlockedBloomFilter::contains_batch) into a caller's buffer
    /// (cleared first).
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        batch::contains_batch_into(&Lines(self), keys, out);
    }

    fn fills(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocks.as_slice().iter().map(|b| {
            b.0.iter()
                .map(|w| w.load(Ordering::Relaxed).count_ones())
                .sum()
        })
    }

    /// The number of bits set (a snapshot).
    pub fn count_ones(&self) -> u64 {
        self.fills().map(u64::from).sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits() as f64
    }

    /// The number of distinct keys inserted, estimated from the fill of each block; see
    /// [`BlockedBloomFilter::estimated_len`].
    pub fn estimated_len(&self) -> u64 {
        bloom_core::internal::round_count(estimated_len(self.fills(), self.params.num_hashes))
    }

    /// The false-positive rate at the current fill.
    pub fn estimated_fpr(&self) -> f64 {
        estimated_fpr(self.fills(), self.params.num_hashes, self.params.num_blocks)
    }

    /// The false-positive rate theory expects once `num_items` distinct keys are inserted.
    pub fn expected_fpr(&self, num_items: u64) -> f64 {
        params::theory_fpr(self.params.num_blocks, self.params.num_hashes, num_items)
    }

    /// Bytes held by the filter.
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.blocks.heap_bytes()
    }

    /// Removes every key. Inserts racing with it may or may not survive.
    pub fn clear(&self) {
        if !self.blocks.is_written() {
            return;
        }
        for block in self.blocks.as_slice() {
            for w in &block.0 {
                w.store(0, Ordering::Relaxed);
            }
        }
    }

    fn zip_words<'a>(
        &'a self,
        other: &'a AtomicBlockedBloomFilter,
    ) -> impl Iterator<Item = (&'a core::sync::atomic::AtomicU64, u64)> {
        self.blocks
            .writable()
            .iter()
            .zip(other.blocks.as_slice())
            .flat_map(|(a, b)| {
                a.0.iter()
                    .zip(b.0.iter().map(|w| w.load(Ordering::Relaxed)))
            })
    }

    /// Adds every key of `other` (word-wise `fetch_or`, safe under concurrent inserts).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ.
    pub fn union(&self, other: &AtomicBlockedBloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        for (a, b) in self.zip_words(other) {
            a.fetch_or(b, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Keeps only bits set in both filters (word-wise `fetch_and`).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ.
    pub fn intersect(&self, other: &AtomicBlockedBloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        for (a, b) in self.zip_words(other) {
            a.fetch_and(b, Ordering::Relaxed);
        }
        Ok(())
    }

    /// A plain [`BlockedBloomFilter`] with the current bits (a snapshot).
    pub fn to_blocked_filter(&self) -> BlockedBloomFilter {
        BlockedBloomFilter::from_parts(self.snapshot(), self.params)
    }

    /// A plain copy of the blocks, read with `Relaxed` loads.
    fn snapshot(&self) -> Blocks<Block> {
        let mut copy = Blocks::<Block>::zeroed(self.blocks.len())
            .unwrap_or_else(|_| bloom_core::internal::out_of_memory(self.blocks.heap_bytes()));
        for (dst, src) in copy.as_mut_slice().iter_mut().zip(self.blocks.as_slice()) {
            for (d, s) in dst.0.iter_mut().zip(&src.0) {
                *d = s.load(Ordering::Relaxed);
            }
        }
        copy
    }

    /// Converts into a plain [`BlockedBloomFilter`] without copying.
    pub fn into_blocked_filter(self) -> BlockedBloomFilter {
        BlockedBloomFilter::from_parts(self.blocks.cast(), self.params)
    }

    /// The binary format, identical to [`BlockedBloomFilter::to_bytes`] for the same bits.
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    /// Frames the words as they are loaded (`Relaxed`, one at a time): no snapshot copy.
    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let len = self.blocks.len() as u64 * 64;
        self.params.encode(output, len, |out| {
            for block in self.blocks.as_slice() {
                for w in &block.0 {
                    out.put(&w.load(Ordering::Relaxed).to_le_bytes());
                }
            }
        })
    }

    bloom_core::internal::if_std! {
        /// Writes the bytes of [`to_bytes`](AtomicBlockedBloomFilter::to_bytes) to `writer`,
        /// 64 KiB at a time: memory beyond the filter is that buffer. Each word is loaded once
        /// as it is written, so keys inserted meanwhile by other threads may or may not be
        /// included.
        ///
        /// # Errors
        ///
        /// [`Error::Io`] when the writer fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_blocked::AtomicBlockedBloomFilter;
        ///
        /// let filter = AtomicBlockedBloomFilter::new(1000, 0.01)?;
        /// filter.insert(&7u8);
        /// let mut file = Vec::new();
        /// filter.write_to(&mut file)?;
        /// assert_eq!(file, filter.to_bytes());
        /// assert!(AtomicBlockedBloomFilter::read_from(&file[..])?.contains(&7u8));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn write_to<W: bloom_core::internal::io::Write>(
            &self,
            mut writer: W,
        ) -> Result<(), Error> {
            self.encode(Output::Writer(&mut writer)).map(drop)
        }
    }

    bloom_core::internal::if_std! {
        /// Reads a filter from `reader`, as [`BlockedBloomFilter::read_from`].
        ///
        /// # Errors
        ///
        /// As [`BlockedBloomFilter::read_from`].
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter};
        ///
        /// let mut plain = BlockedBloomFilter::new(1000, 0.01)?;
        /// plain.insert(&7u8);
        /// let filter = AtomicBlockedBloomFilter::read_from(&plain.to_bytes()[..])?;
        /// assert!(filter.contains(&7u8));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn read_from<R: bloom_core::internal::io::Read>(reader: R) -> Result<Self, Error> {
            Ok(BlockedBloomFilter::read_from(reader)?.into_atomic())
        }
    }

    /// Reads the bytes of [`to_bytes`](AtomicBlockedBloomFilter::to_bytes) or
    /// [`BlockedBloomFilter::to_bytes`].
    ///
    /// # Errors
    ///
    /// As [`BlockedBloomFilter::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        Ok(BlockedBloomFilter::decode_with(bytes, key)?.into_atomic())
    }

    bloom_core::internal::if_std! {
        fn read_with(
            reader: &mut dyn bloom_core::internal::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<Self, Error> {
            Ok(BlockedBloomFilter::read_with(reader, key)?.into_atomic())
        }
    }
}

impl From<BlockedBloomFilter> for AtomicBlockedBloomFilter {
    fn from(filter: BlockedBloomFilter) -> Self {
        filter.into_atomic()
    }
}

impl From<AtomicBlockedBloomFilter> for BlockedBloomFilter {
    fn from(filter: AtomicBlockedBloomFilter) -> Self {
        filter.into_blocked_filter()
    }
}

impl<T: Hash> Extend<T> for AtomicBlockedBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

/// Collects keys into a filter sized for their number at 1%; see [`BlockedBloomFilter`]'s
/// `FromIterator`.
///
/// # Panics
///
/// As [`BlockedBloomFilter`]'s `FromIterator`.
impl<T: Hash> FromIterator<T> for AtomicBlockedBloomFilter {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        BlockedBloomFilter::from_iter(iter).into_atomic()
    }
}

bloom_core::internal::filter_via_inherent!(AtomicBlockedBloomFilter, hash: u64);

bloom_core::internal::keyed_via_inherent!(AtomicBlockedBloomFilter);

#[cfg(feature = "serde")]
bloom_core::internal::serde_via_bytes!(AtomicBlockedBloomFilter);

#[cfg(feature = "rayon")]
impl AtomicBlockedBloomFilter {
    /// Adds every key of `keys` from all of rayon's threads, through the atomic inserts.
    ///
    /// To build a filter from scratch, [`BlockedBloomFilter::par_insert_all`] (then
    /// [`into_atomic`](BlockedBloomFilter::into_atomic)) is faster: it needs no locked
    /// instructions, which on x86 also stop a core from overlapping its cache misses.
    ///
    /// With one thread or fewer than 16,384 keys it inserts them on the calling thread.
    pub fn par_insert_all<T: Hash + Sync>(&self, keys: &[T]) {
        bloom_core::internal::par::par_insert_shared(keys, |part| self.insert_all(part));
    }
}

impl batch::BurstInsert for &AtomicBlockedBloomFilter {
    type Hash = u64;

    #[inline(always)]
    fn locate<T: Hash>(&mut self, key: &T) -> u64 {
        let hash = self.hash(key);
        prefetch(self.block(hash));
        hash
    }

    #[inline(always)]
    fn insert(&mut self, hash: u64) {
        self.insert_hash(hash);
    }
}

/// The atomic blocked filter in the batch engine: one block per key.
impl OneLine for AtomicBlockedBloomFilter {
    /// The key's hash.
    type Staged = u64;

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.blocks.heap_bytes()
    }

    #[inline(always)]
    fn locate<T: Hash>(&self, key: &T) -> u64 {
        self.hash(key)
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        prefetch(self.block(hash));
    }

    #[inline(always)]
    fn test(&self, hash: u64) -> bool {
        self.contains_hash(hash)
    }

    #[inline(always)]
    fn empty(&self) -> u64 {
        0
    }
}

#[cfg(feature = "rayon")]
bloom_core::internal::par_queries_via_batch!(AtomicBlockedBloomFilter, insert: shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_send_and_sync() {
        fn assert_traits<T: Send + Sync>() {}
        assert_traits::<AtomicBlockedBloomFilter>();
    }

    #[test]
    fn answers_like_the_plain_filter() {
        let mut plain = BlockedBloomFilter::new(2_000, 0.02).unwrap();
        let atomic = AtomicBlockedBloomFilter::new(2_000, 0.02).unwrap();
        for k in 0..2_000u32 {
            assert_eq!(plain.insert(&k), atomic.insert(&k), "{k}");
        }
        for k in 0..10_000u32 {
            assert_eq!(plain.contains(&k), atomic.contains(&k));
        }
        assert_eq!(atomic.to_bytes(), plain.to_bytes());
        assert_eq!(atomic.to_blocked_filter(), plain);
        let keys: Vec<u32> = (0..5000).collect();
        assert_eq!(atomic.contains_batch(&keys), plain.contains_batch(&keys));
        assert_eq!(
            BlockedBloomFilter::from(AtomicBlockedBloomFilter::from(plain.clone())),
            plain
        );
        assert_eq!(atomic.estimated_len(), plain.estimated_len());
        assert_eq!(atomic.estimated_fpr(), plain.estimated_fpr());
        let copy = atomic.clone();
        assert_eq!(copy.count_ones(), atomic.count_ones());
    }

    #[test]
    fn union_and_intersect() {
        let a = AtomicBlockedBloomFilter::new(100, 0.01).unwrap();
        let b = AtomicBlockedBloomFilter::new(100, 0.01).unwrap();
        a.insert("a");
        b.insert("b");
        a.union(&b).unwrap();
        assert!(a.contains("a") && a.contains("b"));
        a.intersect(&b).unwrap();
        assert!(a.contains("b"));
        let c = AtomicBlockedBloomFilter::new(100, 0.01)
            .unwrap()
            .with_seed(3);
        assert!(a.union(&c).is_err());
        a.clear();
        assert_eq!(a.count_ones(), 0);
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_atomic_inserts_find_every_key() {
        let keys: Vec<u64> = (0..100_000).collect();
        let f = AtomicBlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
        f.par_insert_all(&keys);
        let mut plain = BlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
        plain.insert_all(&keys);
        assert_eq!(f.into_blocked_filter(), plain);
    }
}
