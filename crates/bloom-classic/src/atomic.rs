//! The lock-free, shareable twin of [`BloomFilter`].

use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::Ordering;

use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::{self, AtomicBitStore, Output, Probes};
use bloom_core::{Error, math};

use crate::BloomFilter;
use crate::params::Params;

/// A classic Bloom filter whose every method takes `&self`: it can be shared between threads
/// (it is `Send + Sync`) and inserted into concurrently without a lock.
///
/// Each probe is one `AtomicU64::fetch_or` (insert) or `load` (query), all with `Relaxed`
/// ordering. That is enough for a Bloom filter: bits only go from 0 to 1 and nothing else is
/// published through them, so a key is found by every query that starts after its insert
/// returned (and the threads synchronised, by a join, a channel, or a lock), and a concurrent
/// query may see some of its bits or all of them. It answers exactly like a [`BloomFilter`]
/// holding the same keys, has the same binary format, and converts to and from one.
///
/// # Examples
///
/// ```
/// use bloom_classic::AtomicBloomFilter;
///
/// let filter = AtomicBloomFilter::new(40_000, 0.01)?;
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
#[derive(Debug, Clone)]
pub struct AtomicBloomFilter {
    bits: AtomicBitStore,
    params: Params,
}

impl AtomicBloomFilter {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`; see
    /// [`BloomFilter::new`].
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::new`].
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Ok(BloomFilter::new(expected_items, fpr)?.into_atomic())
    }

    /// A filter of `num_bits` bits and `num_hashes` probes; see [`BloomFilter::with_params`].
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::with_params`].
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Ok(BloomFilter::with_params(num_bits, num_hashes)?.into_atomic())
    }

    /// Returns this filter emptied and re-keyed with `seed`; see [`BloomFilter::with_seed`].
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.params.hashing = hashing;
        self.bits.clear_mut();
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

    pub(crate) fn from_parts(bits: AtomicBitStore, params: Params) -> Self {
        AtomicBloomFilter { bits, params }
    }

    /// The number of bits.
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.params.num_bits
    }

    /// The number of probes per key.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.params.num_hashes
    }

    /// The hash seed; `None` for a [keyed](AtomicBloomFilter::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// The 128-bit hash this filter computes for `key`.
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.params.hashing.hash(key)
    }

    #[inline(always)]
    fn probes(&self, hash: u128) -> Probes {
        Probes::new(hash, self.params.num_hashes, self.params.num_bits)
    }

    /// Adds a key from any thread. Returns `true` if it was possibly present already.
    ///
    /// When two threads insert the same new key at once, both may return `false`.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a pre-computed hash; see [`insert`](AtomicBloomFilter::insert).
    #[inline]
    pub fn insert_hash(&self, hash: u128) -> bool {
        let words = self.bits.as_words_for_write();
        let mut was_present = true;
        for pos in self.probes(hash) {
            let mask = 1u64 << (pos & 63);
            let word = &words[(pos >> 6) as usize];
            // Skipping the locked write when the bit is already set keeps the cache line
            // shared between cores instead of bouncing it on every insert of a known key.
            if word.load(Ordering::Relaxed) & mask == 0 {
                was_present &= word.fetch_or(mask, Ordering::Relaxed) & mask != 0;
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
    pub fn contains_hash(&self, hash: u128) -> bool {
        self.bits.all_set(self.probes(hash))
    }

    /// Adds every key of `keys`.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&self, keys: I) {
        for key in keys {
            self.insert(&key);
        }
    }

    /// Answers [`contains`](AtomicBloomFilter::contains) for every key through the same batch
    /// engine and staging as [`BloomFilter::contains_batch`].
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](AtomicBloomFilter::contains_batch) into a caller's buffer (cleared
    /// first).
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        bloom_core::internal::batch::contains_batch_into(&self.params.query(&self.bits), keys, out);
    }

    /// The number of bits set (a snapshot).
    pub fn count_ones(&self) -> u64 {
        self.bits.count_ones()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.bits.fill_ratio()
    }

    /// The number of distinct keys inserted, estimated from the fill; see
    /// [`BloomFilter::estimated_len`].
    pub fn estimated_len(&self) -> u64 {
        internal::round_count(math::estimate_cardinality(
            self.num_bits(),
            self.num_hashes(),
            self.count_ones(),
        ))
    }

    /// The false-positive rate at the current fill.
    pub fn estimated_fpr(&self) -> f64 {
        crate::params::fpr_for_fill(self.num_bits(), self.num_hashes(), self.count_ones())
    }

    /// Bytes held by the filter.
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.bits.heap_bytes()
    }

    /// Removes every key. Inserts racing with it may or may not survive.
    pub fn clear(&self) {
        self.bits.clear();
    }

    /// Adds every key of `other` (word-wise `fetch_or`, safe under concurrent inserts).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ.
    pub fn union(&self, other: &AtomicBloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        self.bits.union_with(&other.bits)
    }

    /// Keeps only bits set in both filters (word-wise `fetch_and`).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ.
    pub fn intersect(&self, other: &AtomicBloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        self.bits.intersect_with(&other.bits)
    }

    /// A plain [`BloomFilter`] with the current bits (a snapshot).
    pub fn to_bloom_filter(&self) -> BloomFilter {
        BloomFilter::from_parts(self.bits.to_bit_store(), self.params)
    }

    /// Converts into a plain [`BloomFilter`] without copying.
    pub fn into_bloom_filter(self) -> BloomFilter {
        BloomFilter::from_parts(self.bits.into(), self.params)
    }

    /// The binary format, identical to [`BloomFilter::to_bytes`] for the same bits.
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    /// Frames the bits as they are loaded, one word at a time: no snapshot copy.
    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let len = self.bits.as_words().len() as u64 * 8;
        self.params.encode(output, len, |out| {
            out.put_words(
                self.bits
                    .as_words()
                    .iter()
                    .map(|w| w.load(Ordering::Relaxed)),
            )
        })
    }

    /// Reads the bytes of [`to_bytes`](AtomicBloomFilter::to_bytes) or
    /// [`BloomFilter::to_bytes`].
    ///
    /// # Errors
    ///
    /// As [`BloomFilter::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        Ok(BloomFilter::decode_with(bytes, key)?.into_atomic())
    }

    bloom_core::internal::if_std! {
        fn read_with(
            reader: &mut dyn internal::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<Self, Error> {
            Ok(BloomFilter::read_with(reader, key)?.into_atomic())
        }
    }

    bloom_core::internal::if_std! {
        /// Writes the bytes of [`to_bytes`](AtomicBloomFilter::to_bytes) to `writer`, 64 KiB at
        /// a time: memory beyond the filter is that buffer. Each word is loaded once as it is
        /// written, so keys inserted meanwhile by other threads may or may not be included.
        ///
        /// # Errors
        ///
        /// [`Error::Io`] when the writer fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::AtomicBloomFilter;
        ///
        /// let filter = AtomicBloomFilter::new(1000, 0.01)?;
        /// filter.insert(&7u8);
        /// let mut file = Vec::new();
        /// filter.write_to(&mut file)?;
        /// assert_eq!(file, filter.to_bytes());
        /// assert!(AtomicBloomFilter::read_from(&file[..])?.contains(&7u8));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn write_to<W: internal::io::Write>(&self, mut writer: W) -> Result<(), Error> {
            self.encode(Output::Writer(&mut writer)).map(drop)
        }
    }

    bloom_core::internal::if_std! {
        /// Reads a filter from `reader`, as [`BloomFilter::read_from`].
        ///
        /// # Errors
        ///
        /// As [`BloomFilter::read_from`].
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::{AtomicBloomFilter, BloomFilter};
        ///
        /// let mut plain = BloomFilter::new(1000, 0.01)?;
        /// plain.insert(&7u8);
        /// let filter = AtomicBloomFilter::read_from(&plain.to_bytes()[..])?;
        /// assert!(filter.contains(&7u8));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn read_from<R: internal::io::Read>(reader: R) -> Result<Self, Error> {
            Ok(BloomFilter::read_from(reader)?.into_atomic())
        }
    }
}

impl From<BloomFilter> for AtomicBloomFilter {
    fn from(filter: BloomFilter) -> Self {
        filter.into_atomic()
    }
}

impl From<AtomicBloomFilter> for BloomFilter {
    fn from(filter: AtomicBloomFilter) -> Self {
        filter.into_bloom_filter()
    }
}

impl<T: Hash> Extend<T> for AtomicBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

/// Collects keys into a filter sized for their number at 1%; see [`BloomFilter`]'s
/// `FromIterator`.
///
/// # Panics
///
/// As [`BloomFilter`]'s `FromIterator`.
impl<T: Hash> FromIterator<T> for AtomicBloomFilter {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        BloomFilter::from_iter(iter).into_atomic()
    }
}

bloom_core::internal::filter_via_inherent!(AtomicBloomFilter, hash: u128);

bloom_core::internal::keyed_via_inherent!(AtomicBloomFilter);

#[cfg(feature = "serde")]
bloom_core::internal::serde_via_bytes!(AtomicBloomFilter);

#[cfg(feature = "rayon")]
impl AtomicBloomFilter {
    /// Adds every key of `keys` from all of rayon's threads, through the atomic inserts.
    ///
    /// For building a filter from scratch, [`BloomFilter::par_insert_all`] (then
    /// [`into_atomic`](BloomFilter::into_atomic)) is faster: it needs no locked instructions.
    ///
    /// With one thread or fewer than 16,384 keys it inserts them on the calling thread.
    pub fn par_insert_all<T: Hash + Sync>(&self, keys: &[T]) {
        bloom_core::internal::par::par_insert_shared(keys, |part| self.insert_all(part));
    }
}

#[cfg(feature = "rayon")]
bloom_core::internal::par_queries_via_batch!(AtomicBloomFilter, insert: shared);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_send_and_sync() {
        fn assert_traits<T: Send + Sync>() {}
        assert_traits::<AtomicBloomFilter>();
    }

    #[test]
    fn answers_like_the_plain_filter() {
        let mut plain = BloomFilter::new(2_000, 0.02).unwrap();
        let atomic = AtomicBloomFilter::new(2_000, 0.02).unwrap();
        for k in 0..2_000u32 {
            assert_eq!(plain.insert(&k), atomic.insert(&k), "{k}");
        }
        for k in 0..10_000u32 {
            assert_eq!(plain.contains(&k), atomic.contains(&k));
        }
        assert_eq!(atomic.to_bytes(), plain.to_bytes());
        assert_eq!(atomic.to_bloom_filter(), plain);
        let keys: Vec<u32> = (0..5000).collect();
        assert_eq!(atomic.contains_batch(&keys), plain.contains_batch(&keys));
        assert_eq!(
            AtomicBloomFilter::from_bytes(&plain.to_bytes())
                .unwrap()
                .to_bloom_filter(),
            plain
        );
        assert_eq!(
            BloomFilter::from(AtomicBloomFilter::from(plain.clone())),
            plain
        );
        assert_eq!(atomic.estimated_len(), plain.estimated_len());
        assert_eq!(atomic.estimated_fpr(), plain.estimated_fpr());
    }

    #[test]
    fn union_and_intersect() {
        let a = AtomicBloomFilter::new(100, 0.01).unwrap();
        let b = AtomicBloomFilter::new(100, 0.01).unwrap();
        a.insert("a");
        b.insert("b");
        a.union(&b).unwrap();
        assert!(a.contains("a") && a.contains("b"));
        a.intersect(&b).unwrap();
        assert!(a.contains("b"));
        let c = AtomicBloomFilter::new(100, 0.01).unwrap().with_seed(3);
        assert!(a.union(&c).is_err());
        assert!(a.intersect(&c).is_err());
        a.clear();
        assert_eq!(a.count_ones(), 0);
    }
}
