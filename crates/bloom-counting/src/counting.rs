//! The counting Bloom filter.

use std::hash::Hash;
use std::io::{Read, Write};

use bloom_classic::{BloomFilter, DEFAULT_FPR};
use bloom_core::hash::{Hashing, SecretKey, random_seed};
use bloom_core::internal::batch::{CACHED_MAX_BYTES, LEADING_PROBES, ProbeSet};
use bloom_core::internal::{self, Output, Probes};
use bloom_core::{Error, Filter, Keyed, Persist, PersistIo, math};

use crate::counters::{Counters, counter, nibble_shift, saturating_increment, word_index};
use crate::params::Params;
use crate::removed::Removed;

/// A counting Bloom filter: `num_counters` 4-bit counters, each key incrementing
/// `num_hashes` of them, so keys can be removed again.
///
/// A key is reported present when all its counters are non-zero. It uses the same positions
/// as a [`BloomFilter`] of the same size, probe count and seed: holding the same keys, it
/// answers exactly as that filter does (and [`to_bloom_filter`](Self::to_bloom_filter)
/// produces it), at four times the memory.
///
/// Counters saturate at 15 and then stick: a saturated counter is never incremented past 15
/// and never decremented again, because after an overflow the filter no longer knows how many
/// keys share it, and decrementing it could zero a counter that a present key still needs (a
/// false negative). With the optimal number of probes an overflow is rare (the probability
/// that any counter exceeds 15 is at most about `1.37e-15 * num_counters`, Fan et al.); it
/// happens in practice when one key is inserted 15 times or more.
/// [`saturated_counters`](Self::saturated_counters) says how many are stuck.
///
/// # Examples
///
/// ```
/// use bloom_counting::{CountingBloomFilter, Removed};
///
/// let mut filter = CountingBloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000u64 {
///     filter.insert(&i);
/// }
/// // Remove half of the keys again: each was inserted once, so none is stuck.
/// for i in 0..5_000u64 {
///     assert_eq!(filter.remove(&i)?, Removed::Decremented);
/// }
/// // No false negatives for the keys still in...
/// assert!((5_000..10_000u64).all(|i| filter.contains(&i)));
/// // ...and about 1% false positives at full load (less now that half are gone).
/// let fp = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountingBloomFilter {
    counters: Counters,
    params: Params,
}

impl CountingBloomFilter {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`: as many counters
    /// as a classic filter has bits (`m = -n ln p / (ln 2)^2`), the optimal probe count
    /// (`k = (m/n) ln 2`) and the [default seed](bloom_core::hash::DEFAULT_SEED). It takes
    /// `m / 2` bytes, four times a classic filter's.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items = 0` or `fpr` not in (0, 1) (NaN and
    /// infinities included); [`Error::TooLarge`] when the counters would exceed
    /// [`MAX_NUM_COUNTERS`](crate::MAX_NUM_COUNTERS) or the address space.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let filter = CountingBloomFilter::new(100_000, 0.01)?;
    /// assert_eq!((filter.num_counters(), filter.num_hashes()), (958_506, 7));
    /// assert!(CountingBloomFilter::new(0, 0.01).is_err());
    /// assert!(CountingBloomFilter::new(100, 1.0).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Self::from_params(Params::for_items(expected_items, fpr)?)
    }

    /// A filter of `num_counters` counters and `num_hashes` probes, for callers who size it
    /// themselves.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 counters or `num_hashes` outside 1..=64;
    /// [`Error::TooLarge`] beyond [`MAX_NUM_COUNTERS`](crate::MAX_NUM_COUNTERS).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let filter = CountingBloomFilter::with_params(1 << 20, 5)?;
    /// assert_eq!(filter.memory_usage() / 1024, 512);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_params(num_counters: u64, num_hashes: u32) -> Result<Self, Error> {
        Self::from_params(Params::with_counters(num_counters, num_hashes)?)
    }

    fn from_params(params: Params) -> Result<Self, Error> {
        let counters = Counters::new(params.num_counters)?;
        Ok(CountingBloomFilter { counters, params })
    }

    /// Returns this filter emptied and re-keyed with `seed`.
    ///
    /// Filters can only be merged with filters of the same seed. Use the default seed when
    /// filters built in different places must be merged; use a secret seed (for example
    /// [`with_random_seed`](Self::with_random_seed)) when keys may come from an adversary, who
    /// could otherwise craft keys that share counters, inflate the false-positive rate or
    /// drive counters to saturation.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let filter = CountingBloomFilter::new(1000, 0.01)?.with_seed(42);
    /// assert_eq!(filter.seed(), Some(42));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    /// Returns this filter emptied and re-keyed with a seed from the operating system's
    /// randomness ([`random_seed`]).
    pub fn with_random_seed(self) -> Self {
        self.with_seed(random_seed())
    }

    /// The number of counters.
    #[inline]
    pub fn num_counters(&self) -> u64 {
        self.params.num_counters
    }

    /// The number of probes (counters incremented) per key.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.params.num_hashes
    }

    /// The hash seed; `None` for a [keyed](bloom_core::Keyed::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// The 128-bit hash this filter computes for `key` (the seeded hash widened to 128 bits, or keyed SipHash-1-3:
    /// see [`Hashing`]), as taken by the `_hash` methods.
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.params.hashing.hash(key)
    }

    /// Adds a key: increments each of its counters that is not saturated. Returns `true` if
    /// it was possibly present already (all its counters were non-zero).
    ///
    /// Every insert should be matched by at most one [`remove`](Self::remove) of the same key;
    /// inserting a key several times counts it several times.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.001)?;
    /// assert!(!filter.insert("session-17"));
    /// assert!(filter.insert("session-17"));
    /// assert_eq!(filter.count_estimate("session-17"), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed 128-bit hash (see [`hash`](Self::hash)). Returns whether
    /// it was possibly present before.
    #[inline]
    pub fn insert_hash(&mut self, hash: u128) -> bool {
        self.fetch_ahead(hash);
        let mut all = true;
        self.counters
            .each_counter(self.params.probes(hash), |word, shift| {
                all &= saturating_increment(word, shift) != 0;
                true
            });
        all
    }

    /// Whether `key` may be present: `false` means it is certainly not in the filter (never
    /// inserted, or removed as many times as it was inserted).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline]
    pub fn contains_hash(&self, hash: u128) -> bool {
        let probes = self.params.probes(hash);
        if self.fits_cache() {
            // Cached counters: testing all of them costs less than mispredicted early exits.
            self.counters.contains_now(probes)
        } else {
            // Not prefetched first, unlike `insert` and `remove`: the processor already
            // fetches the lines ahead through the predicted branches, and interleaved
            // measurements showed no gain (present keys cost about the floor of loading
            // every counter; docs/counting.md).
            self.counters.all_set(probes)
        }
    }

    /// Whether the counters are small enough to stay (mostly) cached, so that prefetching
    /// would only add instructions and early exits would only add mispredictions.
    #[inline(always)]
    fn fits_cache(&self) -> bool {
        self.counters.words().len() * 8 <= CACHED_MAX_BYTES
    }

    /// Prefetches the cache line of every counter of `hash`, when the counters do not fit
    /// the cache.
    ///
    /// A key's counters lie in about `k` different lines. Without this, `remove` reaches
    /// them one at a time (it stops at its first zero counter, so each miss waits on the
    /// branch before it), and an `insert`'s read-modify-writes hold up the stores behind
    /// them. Asking for every line first lets the misses overlap. Measured in alternating
    /// rounds against `fastbloom-rs` (docs/counting.md): `insert` and `remove` 15 to 50%
    /// faster at 1 and 10 million keys.
    #[inline(always)]
    fn fetch_ahead(&self, hash: u128) {
        if !self.fits_cache() {
            self.counters.prefetch(self.params.probes(hash));
        }
    }

    /// Removes one occurrence of `key`: decrements each of its counters that is not saturated.
    ///
    /// Returns [`Removed::Decremented`] when it decremented the key's counters, and
    /// [`Removed::Saturated`] when every one of them is saturated, so nothing could be
    /// decremented: such a key stays present however often it is removed (until
    /// [`clear`](Self::clear)). That happens to a key inserted 15 times or more, or in a filter
    /// far beyond its capacity.
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`] when one of the key's counters is zero, so the key is certainly
    /// not in the filter. Nothing is changed then. (For the rare key that probes one counter
    /// twice, the counter must hold at least 2.)
    ///
    /// Removing a key that was never inserted but is a false positive cannot be detected: it
    /// succeeds and takes counts that belong to other keys, which can then be reported absent.
    /// Remove only keys you inserted.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::{CountingBloomFilter, Error, Removed};
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.001)?;
    /// filter.insert("a");
    /// assert_eq!(filter.remove("a")?, Removed::Decremented);
    /// assert!(!filter.contains("a"));
    /// assert_eq!(filter.remove("a"), Err(Error::NotPresent));
    ///
    /// // Inserted 20 times: its counters stuck at 15, so it cannot be removed.
    /// for _ in 0..20 {
    ///     filter.insert("hot");
    /// }
    /// assert_eq!(filter.remove("hot")?, Removed::Saturated);
    /// assert!(filter.contains("hot"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&mut self, key: &T) -> Result<Removed, Error> {
        self.remove_hash(self.hash(key))
    }

    /// Removes one occurrence of a pre-computed hash; see [`remove`](Self::remove).
    ///
    /// # Errors
    ///
    /// [`Error::NotPresent`] when one of its counters is zero; nothing is changed then.
    #[inline]
    pub fn remove_hash(&mut self, hash: u128) -> Result<Removed, Error> {
        // A read-only look at the first two counters first: at the optimal fill three absent
        // keys in four have a zero among them, and those return without writing anything (no
        // dirty cache lines). Present keys then pay one pass that checks and decrements.
        // Every line is asked for first, so all of them are on the way by then.
        self.fetch_ahead(hash);
        let probes = self.params.probes(hash);
        if !self.counters.all_set(probes.clone().first(LEADING_PROBES)) {
            return Err(Error::NotPresent);
        }
        let mut saturated = true;
        let mut found_zero = false;
        let taken = self.counters.each_counter(probes.clone(), |word, shift| {
            let count = (*word >> shift) & 15;
            found_zero = count == 0;
            saturated &= count == 15;
            // Saturating counters stay at 15; a zero stops the pass, unchanged.
            *word -= u64::from(count != 15 && count != 0) << shift;
            !found_zero
        });
        if found_zero {
            // An absent key whose zero lies beyond the first two counters (or a key that
            // probes one counter more times than it holds): put back what was taken.
            Self::undo_decrements(self.counters.words_mut(), probes.first(taken - 1));
            return Err(Error::NotPresent);
        }
        Ok(if saturated {
            Removed::Saturated
        } else {
            Removed::Decremented
        })
    }

    /// Re-increments the counters of `probes` that a failed removal decremented. Those are
    /// exactly the non-saturated ones: a decrement leaves at most 13, so a counter at 15 was
    /// skipped, and every other counter was decremented once per occurrence.
    #[cold]
    fn undo_decrements(words: &mut [u64], probes: Probes) {
        for pos in probes {
            saturating_increment(&mut words[word_index(pos)], nibble_shift(pos));
        }
    }

    /// The smallest of the key's counters, 0 to 15: an upper bound on how many times the key
    /// is in the filter (inserts minus removes), exact unless other keys share all its
    /// counters. 15 means "15 or more": the counters saturated.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.001)?;
    /// for _ in 0..3 {
    ///     filter.insert("hot");
    /// }
    /// assert_eq!(filter.count_estimate("hot"), 3);
    /// assert_eq!(filter.count_estimate("cold"), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn count_estimate<T: Hash + ?Sized>(&self, key: &T) -> u8 {
        self.count_estimate_hash(self.hash(key))
    }

    /// [`count_estimate`](Self::count_estimate) of a pre-computed hash.
    #[inline]
    pub fn count_estimate_hash(&self, hash: u128) -> u8 {
        let words = self.counters.words();
        self.params
            .probes(hash)
            .map(|pos| counter(words, pos))
            .min()
            .unwrap_or(0) as u8
    }

    /// Adds every key of `keys`.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        for key in keys {
            self.insert(&key);
        }
    }

    /// Answers [`contains`](Self::contains) for every key, in order, faster than a loop on
    /// large filters, through the workspace's batch engine (in `bloom-core`) with the
    /// classic filter's staging: keys are hashed in bursts and the cache lines of their
    /// leading counters prefetched before any is tested, so the cache misses overlap.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let filter: CountingBloomFilter = (0..100u32).collect();
    /// assert_eq!(filter.contains_batch(&[1u32, 50, 99]), vec![true, true, true]);
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](Self::contains_batch) writing into a caller's buffer: `out` is
    /// cleared and receives one answer per key, so a reused buffer costs no allocation.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        internal::batch::probed_batch_into(
            &self.counters,
            self.params.hashing,
            self.params.num_hashes,
            self.params.num_counters,
            keys,
            out,
        );
    }

    /// The value of counter `index` (0 to 15), or `None` when `index >= num_counters()`.
    pub fn counter(&self, index: u64) -> Option<u8> {
        self.counters.get(index)
    }

    /// The number of counters stuck at 15. Each was incremented past what 4 bits hold, so it
    /// no longer knows how many keys share it: it is never decremented again, and every key
    /// probing it keeps that probe answered "present" forever. A handful means a few keys
    /// were inserted very many times (15 or more) or the filter is far beyond its capacity.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::{CountingBloomFilter, Removed};
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.01)?;
    /// for _ in 0..20 {
    ///     filter.insert("hot");
    /// }
    /// for _ in 0..20 {
    ///     assert_eq!(filter.remove("hot")?, Removed::Saturated);
    /// }
    /// // Its counters saturated at the 15th insert and stuck: it stays present.
    /// assert!(filter.contains("hot"));
    /// assert_eq!(filter.saturated_counters(), u64::from(filter.num_hashes()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn saturated_counters(&self) -> u64 {
        self.counters.count_saturated()
    }

    /// The number of non-zero counters: the bits a classic filter with the same keys has set.
    pub fn nonzero_counters(&self) -> u64 {
        self.counters.count_nonzero()
    }

    /// The fraction of counters that are non-zero (0.5 at the optimal load).
    pub fn fill_ratio(&self) -> f64 {
        self.nonzero_counters() as f64 / self.num_counters() as f64
    }

    /// The number of distinct keys in the filter, estimated from the non-zero counters:
    /// `-(m/k) ln(1 - X/m)` with X non-zero counters, rounded to the nearest integer.
    /// Removed keys no longer count.
    /// `u64::MAX` when every counter is non-zero (the count can then not be known).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::{CountingBloomFilter, Removed};
    ///
    /// let mut filter = CountingBloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all(0..6_000u32);
    /// for i in 0..1_000u32 {
    ///     assert_eq!(filter.remove(&i)?, Removed::Decremented);
    /// }
    /// assert!(filter.estimated_len().abs_diff(5_000) < 150);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_len(&self) -> u64 {
        internal::round_count(math::estimate_cardinality(
            self.num_counters(),
            self.num_hashes(),
            self.nonzero_counters(),
        ))
    }

    /// The false-positive rate at the current fill: `fill_ratio^k`.
    pub fn estimated_fpr(&self) -> f64 {
        math::fpr_from_fill(self.fill_ratio(), self.num_hashes())
    }

    /// Bytes held by the filter: half a byte per counter (rounded up to whole words) plus the
    /// struct itself.
    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.counters.heap_bytes()
    }

    /// Removes every key (every counter, saturated ones included, goes back to zero).
    pub fn clear(&mut self) {
        self.counters.clear();
    }

    /// Adds every key of `other`: each counter becomes the sum of the two, saturating (and
    /// sticking) at 15. The result holds the keys of both, with their counts added, and can
    /// have a key of either removed.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the number of counters, probe count or seed differ;
    /// `self` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::{CountingBloomFilter, Removed};
    ///
    /// let mut a = CountingBloomFilter::new(1000, 0.01)?;
    /// let mut b = CountingBloomFilter::new(1000, 0.01)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert_eq!(a.remove("left")?, Removed::Decremented);
    /// assert!(!a.contains("left") && a.contains("right"));
    /// assert!(a.union(&CountingBloomFilter::new(2000, 0.01)?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &CountingBloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        self.counters.saturating_add(&other.counters);
        Ok(())
    }

    /// The classic [`BloomFilter`] with the same size, probe count and seed and a bit set
    /// wherever a counter is non-zero. It answers every query exactly as this filter does, in
    /// a quarter of the memory: the summary to publish or ship when readers need membership
    /// but not deletion.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all(0..10_000u32);
    /// let summary = filter.to_bloom_filter();
    /// assert!((0..20_000u32).all(|i| summary.contains(&i) == filter.contains(&i)));
    /// assert!(summary.memory_usage() * 3 < filter.memory_usage());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bloom_filter(&self) -> BloomFilter {
        let bits = self
            .counters
            .to_bit_store()
            .unwrap_or_else(|_| internal::out_of_memory(self.counters.heap_bytes() / 4));
        BloomFilter::from_bits(bits, self.params.num_hashes, self.params.hashing)
            .expect("a counting filter's probe count is valid for a classic filter")
    }

    /// The filter in the workspace's binary format (`docs/format.md`): a 16-byte header,
    /// `num_counters` and `num_hashes`, the counters as little-endian words (sixteen to a
    /// word), and a checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u8);
    /// let copy = CountingBloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(CountingBloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.params
            .encode(Output::Bytes, &self.counters)
            .unwrap_or_default()
    }

    /// Writes the bytes of [`to_bytes`](Self::to_bytes) to `writer`, 64 KiB at a time:
    /// memory beyond the filter is that buffer, whatever the filter's size.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let mut filter = CountingBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u8);
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// assert_eq!(CountingBloomFilter::read_from(&file[..])?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to<W: Write>(&self, mut writer: W) -> Result<(), Error> {
        self.params
            .encode(Output::Writer(&mut writer), &self.counters)
            .map(drop)
    }

    /// Reads a filter from `reader`, as [`from_bytes`](Self::from_bytes) reads the bytes of
    /// [`to_bytes`](Self::to_bytes) or [`write_to`](Self::write_to). Reads exactly the
    /// filter's bytes; memory grows only as bytes arrive (`docs/format.md`, "Streaming").
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](Self::from_bytes) ([`Error::Truncated`] when the stream ends
    /// early, whatever length the header claims); [`Error::Io`] when the reader fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use bloom_counting::CountingBloomFilter;
    ///
    /// let filter = CountingBloomFilter::new(1000, 0.01)?;
    /// let mut stream = Cursor::new(Vec::new());
    /// filter.write_to(&mut stream)?;
    /// stream.set_position(0);
    /// assert_eq!(CountingBloomFilter::read_from(&mut stream)?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from<R: Read>(mut reader: R) -> Result<Self, Error> {
        Self::read_with(&mut reader, None)
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::UnsupportedHashScheme`],
    /// [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a panic, and never an
    /// allocation larger than `bytes`. [`Error::KeyRequired`] for a
    /// [keyed](bloom_core::Keyed::with_key) filter's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }
}

/// Adds every key of the iterator ([`insert_all`](CountingBloomFilter::insert_all)).
impl<T: Hash> Extend<T> for CountingBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

/// Collects keys into a filter sized for their number (at least 1) at a 1% false-positive
/// rate, with the default seed. The keys are gathered first, to count them.
///
/// # Panics
///
/// Only if the number of keys is more than a filter can be sized for; build with
/// [`new`](CountingBloomFilter::new) to get an `Err` instead.
impl<T: Hash> FromIterator<T> for CountingBloomFilter {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let keys: Vec<T> = iter.into_iter().collect();
        internal::checks::collect_sized(
            &keys,
            |n| CountingBloomFilter::new(n, DEFAULT_FPR),
            |filter, keys| filter.insert_all(keys),
        )
    }
}

impl Filter for CountingBloomFilter {
    type Hash = u128;
    const NAME: &'static str = "CountingBloomFilter";

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: u128) -> Result<bool, Error> {
        Ok(CountingBloomFilter::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: u128) -> bool {
        CountingBloomFilter::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        CountingBloomFilter::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        CountingBloomFilter::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        CountingBloomFilter::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        CountingBloomFilter::estimated_len(self)
    }

    fn clear(&mut self) {
        CountingBloomFilter::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        CountingBloomFilter::union(self, other)
    }
}

impl Persist for CountingBloomFilter {
    fn to_bytes(&self) -> Vec<u8> {
        CountingBloomFilter::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        CountingBloomFilter::from_bytes(bytes)
    }
}

impl PersistIo for CountingBloomFilter {
    fn write_to<W: Write>(&self, writer: W) -> Result<(), Error> {
        CountingBloomFilter::write_to(self, writer)
    }

    fn read_from<R: Read>(reader: R) -> Result<Self, Error> {
        CountingBloomFilter::read_from(reader)
    }
}

impl internal::Sealed for CountingBloomFilter {}

impl Keyed for CountingBloomFilter {
    fn hashing(&self) -> Hashing {
        self.params.hashing
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.params.hashing = hashing;
        self.clear();
        self
    }

    /// `read_from`, the hashing checked against `key`: the payload is read straight into
    /// the counters' words, so the filter is held once.
    fn read_with(reader: &mut dyn Read, key: Option<&SecretKey>) -> Result<Self, Error> {
        let (params, counters) = Params::read_frame(reader, key)?;
        Ok(CountingBloomFilter { counters, params })
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (params, counters) = Params::decode(bytes, key)?;
        Ok(CountingBloomFilter { counters, params })
    }
}

/// The bytes of [`to_bytes`](CountingBloomFilter::to_bytes) (base64 in human-readable formats).
#[cfg(feature = "serde")]
impl serde::Serialize for CountingBloomFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        internal::serde_bytes::serialize(&self.to_bytes(), serializer)
    }
}

/// From the bytes of [`to_bytes`](CountingBloomFilter::to_bytes), checked as
/// [`from_bytes`](CountingBloomFilter::from_bytes) checks them.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for CountingBloomFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        internal::serde_bytes::deserialize(deserializer, CountingBloomFilter::from_bytes)
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use rayon::iter::{
        FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
    };

    impl CountingBloomFilter {
        /// Adds every key of `keys` using all of rayon's threads. The result is identical to
        /// [`insert_all`](CountingBloomFilter::insert_all)'s, saturated counters included.
        ///
        /// Keys are hashed in parallel and their counter positions sorted into regions of the
        /// array, each region then updated by one thread
        /// (the parallel scatter of `bloom-core`): no atomics, no per-thread copy.
        ///
        /// A filter that fits the last-level cache, or a call with few keys or one thread, is
        /// built by [`insert_all`](CountingBloomFilter::insert_all) instead: there the
        /// scatter's extra pass costs more than a second thread saves (docs/design.md,
        /// "Parallel build").
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_counting::CountingBloomFilter;
        ///
        /// let keys: Vec<u64> = (0..100_000).collect();
        /// let mut filter = CountingBloomFilter::new(keys.len() as u64, 0.01)?;
        /// filter.par_insert_all(&keys);
        /// assert!(keys.iter().all(|k| filter.contains(k)));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_insert_all<T: Hash + Sync>(&mut self, keys: &[T]) {
            internal::par::par_insert_all(self, keys);
        }
    }

    impl internal::par::ParBuild for CountingBloomFilter {
        /// Copies built at once measured slower than one thread for this filter (0.55 to
        /// 0.82 at 100,000 and 1,000,000 keys on 2 threads: four times the classic filter's
        /// memory to fault in and fill; docs/design.md, "Parallel build").
        const COPIES: bool = false;

        fn empty_twin(&self) -> Option<Self> {
            Self::from_params(self.params).ok()
        }

        fn insert_keys<T: Hash>(&mut self, keys: &[T]) {
            self.insert_all(keys);
        }

        fn scatter<T: Hash + Sync>(&mut self, keys: &[T]) {
            let params = self.params;
            internal::par::par_scatter(
                self.counters.words_mut(),
                4,
                keys,
                |key| params.probes(params.hashing.hash(key)),
                |word, pos| {
                    saturating_increment(word, nibble_shift(pos));
                },
            );
        }
    }

    impl CountingBloomFilter {
        /// [`contains_batch`](CountingBloomFilter::contains_batch) on all of rayon's threads: the keys
        /// split into one task per share, each answered by the batch query. The answers are
        /// those of `contains_batch`.
        pub fn par_contains_batch<T: Hash + Sync>(&self, keys: &[T]) -> Vec<bool> {
            internal::par::par_contains_batch(keys, |part, out| self.contains_batch_into(part, out))
        }

        /// Adds every key of an iterator using all of rayon's threads: the keys are gathered
        /// in chunks, each chunk built by [`par_insert_all`](CountingBloomFilter::par_insert_all)
        /// while the next is gathered.
        pub fn par_insert_iter<T, I>(&mut self, keys: I)
        where
            T: Hash + Send + Sync,
            I: IntoIterator<Item = T>,
            I::IntoIter: Send,
        {
            internal::par::par_insert_iter(keys, |chunk: &[T]| self.par_insert_all(chunk));
        }
    }

    /// Adds the keys with [`par_insert_all`](CountingBloomFilter::par_insert_all).
    impl<T: Hash + Send + Sync> ParallelExtend<T> for CountingBloomFilter {
        fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
            let keys: Vec<T> = par_iter.into_par_iter().collect();
            self.par_insert_all(&keys);
        }
    }

    /// Collects keys into a filter sized for their number at 1%, built by
    /// [`par_insert_all`](CountingBloomFilter::par_insert_all).
    ///
    /// # Panics
    ///
    /// As `FromIterator`.
    impl<T: Hash + Send + Sync> FromParallelIterator<T> for CountingBloomFilter {
        fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
            let keys: Vec<T> = par_iter.into_par_iter().collect();
            internal::checks::collect_sized(
                &keys,
                |n| CountingBloomFilter::new(n, DEFAULT_FPR),
                |filter, keys| filter.par_insert_all(keys),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Debug summarises the counters in use and saturated, never the words.
    #[test]
    fn debug_counts_the_counters() {
        let mut filter = CountingBloomFilter::new(100, 0.01).unwrap();
        filter.insert(&1u64);
        let k = filter.num_hashes();
        let shown = format!("{filter:?}");
        assert!(shown.contains(&format!("nonzero: {k}")), "{shown}");
        assert!(shown.contains("saturated: 0"), "{shown}");
    }

    #[test]
    fn same_positions_as_the_classic_filter() {
        let mut counting = CountingBloomFilter::new(5_000, 0.01).unwrap().with_seed(11);
        let mut classic = BloomFilter::new(5_000, 0.01).unwrap().with_seed(11);
        assert_eq!(counting.num_counters(), classic.num_bits());
        assert_eq!(counting.num_hashes(), classic.num_hashes());
        for k in 0..5_000u64 {
            assert_eq!(counting.insert(&k), classic.insert(&k), "{k}");
        }
        assert_eq!(counting.to_bloom_filter(), classic);
        for k in 0..50_000u64 {
            assert_eq!(counting.contains(&k), classic.contains(&k), "{k}");
        }
    }

    #[test]
    fn remove_undoes_insert() {
        let mut f = CountingBloomFilter::new(1000, 0.01).unwrap();
        let empty = f.clone();
        f.insert_all(0..500u32);
        for k in 0..500u32 {
            assert_eq!(f.remove(&k), Ok(Removed::Decremented), "{k}");
        }
        assert_eq!(f, empty);
        assert_eq!(f.remove(&1u32), Err(Error::NotPresent));
    }

    #[test]
    fn a_failed_remove_changes_nothing() {
        // A tiny filter, so many removals get past the first zero counter before failing.
        let mut f = CountingBloomFilter::with_params(64, 8).unwrap();
        f.insert_all(0..6u32);
        let mut failures = 0;
        for k in 100..2_000u32 {
            let before = f.to_bytes();
            if f.remove(&k).is_err() {
                failures += 1;
                assert_eq!(f.to_bytes(), before, "{k}");
            } else {
                // A false positive: put its counts back for the next round.
                f.insert(&k);
            }
        }
        assert!(failures > 100, "{failures}");
    }

    #[test]
    fn duplicate_probes_need_as_many_counts() {
        // One counter: all three probes of every key land on it.
        let mut f = CountingBloomFilter::with_params(1, 3).unwrap();
        f.insert("a");
        assert_eq!(f.counter(0), Some(3));
        assert_eq!(f.remove("a"), Ok(Removed::Decremented));
        assert_eq!(f.counter(0), Some(0));
        // Two counts cannot pay for a key that takes three: the removal fails, undone.
        f.counters.words_mut()[0] = 2;
        assert_eq!(f.remove("a"), Err(Error::NotPresent));
        assert_eq!(f.counter(0), Some(2));
    }

    #[test]
    fn saturated_counters_stick() {
        let mut f = CountingBloomFilter::with_params(1, 1).unwrap();
        for _ in 0..20 {
            f.insert("k");
        }
        assert_eq!(f.counter(0), Some(15));
        assert_eq!(f.saturated_counters(), 1);
        for _ in 0..20 {
            assert_eq!(f.remove("k"), Ok(Removed::Saturated));
        }
        assert_eq!(f.counter(0), Some(15));
        assert_eq!(f.count_estimate("k"), 15);
        assert!(f.contains("k"));
        f.clear();
        assert_eq!(f.saturated_counters(), 0);
    }

    #[test]
    fn remove_reports_saturated_counters() {
        let mut f = CountingBloomFilter::new(1000, 0.01).unwrap();
        for _ in 0..20 {
            f.insert("hot");
        }
        let stuck = f.to_bytes();
        for i in 0..30 {
            assert_eq!(f.remove("hot"), Ok(Removed::Saturated), "remove {i}");
            assert!(f.contains("hot"), "remove {i}");
        }
        // Every counter of "hot" is at 15: nothing was decremented.
        assert_eq!(f.to_bytes(), stuck);
        // A key inserted once is decremented, then absent.
        f.insert("once");
        assert_eq!(f.remove("once"), Ok(Removed::Decremented));
        assert!(!f.contains("once"));
        assert_eq!(f.remove("once"), Err(Error::NotPresent));
        assert_eq!(f.to_bytes(), stuck);
    }

    #[test]
    fn remove_with_one_saturated_counter_decrements_the_others() {
        // Two counters and two probes: counter 0 saturated, counter 1 at 3.
        let mut f = CountingBloomFilter::with_params(2, 2).unwrap();
        f.counters.words_mut()[0] = 15 | (3 << 4);
        let key = (0..1000u32)
            .find(|k| {
                let mut p: Vec<u64> = f.params.probes(f.hash(k)).collect();
                p.sort_unstable();
                p == [0, 1]
            })
            .expect("a key probing both counters");
        // The counter that still counts is decremented: the removal takes effect there.
        assert_eq!(f.remove(&key), Ok(Removed::Decremented));
        assert_eq!((f.counter(0), f.counter(1)), (Some(15), Some(2)));
        // Both saturated: nothing can be decremented, and nothing is.
        f.counters.words_mut()[0] = 15 | (15 << 4);
        assert_eq!(f.remove(&key), Ok(Removed::Saturated));
        assert_eq!((f.counter(0), f.counter(1)), (Some(15), Some(15)));
        assert!(f.contains(&key));
    }

    #[test]
    fn union_is_a_saturating_add() {
        let mut a = CountingBloomFilter::with_params(16, 1).unwrap();
        let mut b = a.clone();
        for _ in 0..10 {
            a.insert("k");
            b.insert("k");
        }
        b.insert("other");
        a.union(&b).unwrap();
        assert_eq!(a.count_estimate("k"), 15);
        assert!(a.contains("other"));
        let c = CountingBloomFilter::with_params(16, 2).unwrap();
        assert!(matches!(
            a.union(&c),
            Err(Error::Incompatible {
                parameter: "num_hashes",
                ..
            })
        ));
        let d = b.clone().with_seed(5);
        assert!(matches!(
            a.union(&d),
            Err(Error::Incompatible {
                parameter: "seed",
                ..
            })
        ));
    }

    #[test]
    fn batch_matches_single() {
        // Beyond the branch-free size, so the staged prefetching path runs.
        let mut f = CountingBloomFilter::with_params(12 << 20, 7).unwrap();
        f.insert_all(0..200_000u64);
        let keys: Vec<u64> = (100_000..300_037).collect();
        let batch = f.contains_batch(&keys);
        let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
        assert_eq!(batch, single);
        assert!(batch[..100_000].iter().all(|&b| b));
        let small: CountingBloomFilter = (0..1000u64).collect();
        let answers = small.contains_batch(&keys[..500]);
        assert!(
            answers
                .iter()
                .zip(&keys)
                .all(|(&a, k)| a == small.contains(k))
        );
        let mut buf = vec![true; 3];
        f.contains_batch_into(&keys[..5], &mut buf);
        assert_eq!(buf, vec![true; 5]);
    }

    #[test]
    fn estimates_and_sizes() {
        let mut f = CountingBloomFilter::new(100_000, 0.01).unwrap();
        assert_eq!(f.estimated_fpr(), 0.0);
        f.insert_all(0..100_000u32);
        assert!(
            (f.estimated_fpr() - 0.01).abs() < 0.001,
            "{}",
            f.estimated_fpr()
        );
        assert!(f.estimated_len().abs_diff(100_000) < 1_000);
        assert!(f.memory_usage() >= 958_506 / 2);
        assert_eq!(f.counter(f.num_counters()), None);
        assert_eq!(f.saturated_counters(), 0);
    }

    #[test]
    fn seed_changes_positions_and_clears() {
        let mut a = CountingBloomFilter::new(1000, 0.01).unwrap();
        a.insert("k");
        let b = a.clone().with_seed(99);
        assert_eq!(b.nonzero_counters(), 0);
        assert_ne!(a.hash("k"), b.hash("k"));
        assert_ne!(a.with_random_seed().seed(), b.with_random_seed().seed());
    }

    #[test]
    fn collect_and_extend() {
        let f: CountingBloomFilter = ["a", "b", "a"].into_iter().collect();
        assert_eq!(f.count_estimate("a"), 2);
        let mut g = f.clone();
        g.extend(["d"]);
        assert!(g.contains("d"));
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_build_equals_sequential() {
        use rayon::prelude::*;
        // Keys repeat, so some counters saturate.
        let keys: Vec<u64> = (0..200_000).map(|i| i % 50_000).collect();
        let mut seq = CountingBloomFilter::with_params(100_000, 5).unwrap();
        seq.insert_all(&keys);
        // Every plan, whatever this machine's cache would choose for a filter this size.
        use bloom_core::internal::par::{Plan, with_plan};
        for plan in [
            Plan::Sequential,
            Plan::Copies(2),
            Plan::Copies(3),
            Plan::Scatter,
        ] {
            let mut par = CountingBloomFilter::with_params(100_000, 5).unwrap();
            with_plan(plan, || par.par_insert_all(&keys));
            assert_eq!(seq, par, "{plan:?}");
        }
        assert!(seq.saturated_counters() > 0);
        let collected: CountingBloomFilter = keys.par_iter().collect();
        let mut expected = CountingBloomFilter::new(keys.len() as u64, DEFAULT_FPR).unwrap();
        expected.insert_all(&keys);
        assert_eq!(collected, expected);
        let mut extended = CountingBloomFilter::new(keys.len() as u64, DEFAULT_FPR).unwrap();
        extended.par_extend(keys.par_iter());
        assert_eq!(extended, expected);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_is_the_byte_format() {
        let mut f = CountingBloomFilter::new(100, 0.01).unwrap();
        f.insert("serde");
        let json = serde_json::to_string(&f).unwrap();
        let back: CountingBloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        // The bytes in base64: 4 characters for every 3, and the quotes.
        assert_eq!(json.len(), f.to_bytes().len().div_ceil(3) * 4 + 2);
        assert!(serde_json::from_str::<CountingBloomFilter>("[1,2,3]").is_err());
    }
}
