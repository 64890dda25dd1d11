//! The plain (single-writer) classic Bloom filter.

use alloc::vec::Vec;
use core::hash::Hash;

use bloom_core::bits::BitStore;
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::{self, Output, Probes};
use bloom_core::{Error, math};

use crate::AtomicBloomFilter;
use crate::params::Params;

/// Keys per burst of [`BloomFilter::insert_hashes`] and of
/// [`insert_all`](BloomFilter::insert_all) past the L2 cache: the lines of all of a burst's
/// probes are prefetched before any of its keys is inserted. Chosen with `bloom add`
/// (docs/cli.md), where 16 keys (about 64 lines at p = 1%) kept the misses overlapped.
const INSERT_BURST: usize = 16;

/// The false-positive rate [`FromIterator`] sizes for.
pub const DEFAULT_FPR: f64 = 0.01;

/// A classic Bloom filter: `num_bits` bits, each key setting `num_hashes` of them anywhere in
/// the array.
///
/// It answers "definitely not present" or "possibly present", never forgets a key, and is
/// as accurate per bit as a Bloom filter can be (every probe may land anywhere, unlike a
/// blocked filter). The cost is up to k cache misses per query on large filters; the batch
/// query [`contains_batch`](BloomFilter::contains_batch) overlaps them.
///
/// For a filter shared between threads, see [`AtomicBloomFilter`]; the two convert into
/// each other.
///
/// # Examples
///
/// ```
/// use bloom_classic::BloomFilter;
///
/// let mut filter = BloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000u64 {
///     filter.insert(&i);
/// }
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| filter.contains(&i)));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilter {
    bits: BitStore,
    params: Params,
}

impl BloomFilter {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`, with the
    /// optimal size and probe count (`m = -n ln p / (ln 2)^2`, `k = (m/n) ln 2`) and the
    /// [default seed](bloom_core::hash::DEFAULT_SEED).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items = 0` or `fpr` not in (0, 1) (NaN and
    /// infinities included); [`Error::TooLarge`] when the size exceeds
    /// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS) or the address space.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::new(100_000, 0.01)?;
    /// assert_eq!((filter.num_bits(), filter.num_hashes()), (958_506, 7));
    /// assert!(BloomFilter::new(0, 0.01).is_err());
    /// assert!(BloomFilter::new(100, f64::NAN).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Self::from_params(Params::for_items(expected_items, fpr)?)
    }

    /// A filter of `num_bits` bits and `num_hashes` probes, for callers who size it themselves.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 bits or `num_hashes` outside 1..=64;
    /// [`Error::TooLarge`] beyond [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::with_params(1 << 20, 5)?;
    /// assert_eq!(filter.memory_usage() / 1024, 128);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Self::from_params(Params::with_bits(num_bits, num_hashes)?)
    }

    /// A filter over an existing bit array: `bits.len()` bits, `num_hashes` probes, hashed
    /// by `hashing` (a seed, or a [`Hashing`]). The bits are taken as they are, so this rebuilds a filter whose bits were
    /// stored elsewhere (one layer inside another filter's bytes) without clearing or copying
    /// them, and turns any structure that keeps a bit per position (a counting filter's
    /// non-zero counters) into a classic filter that answers as it does: "possibly present"
    /// exactly when every probe position of the key is set.
    ///
    /// Nothing checks that the bits were set with this probe count and hashing: a filter rebuilt
    /// with other parameters than those its keys were inserted with answers "absent" for them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `num_hashes` outside 1..=64.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    /// use bloom_core::bits::BitStore;
    ///
    /// let mut filter = BloomFilter::new(1000, 0.01)?.with_seed(7);
    /// filter.insert("kept");
    /// let bits = BitStore::from_words(filter.bits().as_words(), filter.num_bits())?;
    /// let rebuilt = BloomFilter::from_bits(bits, filter.num_hashes(), 7)?;
    /// assert_eq!(rebuilt, filter);
    /// assert!(rebuilt.contains("kept"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bits(
        bits: BitStore,
        num_hashes: u32,
        hashing: impl Into<Hashing>,
    ) -> Result<Self, Error> {
        let mut params = Params::with_bits(bits.len(), num_hashes)?;
        params.hashing = hashing.into();
        Ok(BloomFilter { bits, params })
    }

    fn from_params(params: Params) -> Result<Self, Error> {
        Ok(BloomFilter {
            bits: BitStore::new(params.num_bits)?,
            params,
        })
    }

    /// Returns this filter emptied and re-keyed with `seed`.
    ///
    /// A filter that was never written (fresh from [`new`](BloomFilter::new)) is not
    /// touched: its memory stays lazily zeroed, so seeding a gigabyte filter costs no more
    /// than seeding a small one. A filter that holds keys is cleared.
    ///
    /// Filters can only be merged with filters of the same seed. Use the default seed when
    /// filters built in different places must be merged; use a secret seed (for example
    /// [`with_random_seed`](BloomFilter::with_random_seed)) when keys may come from an
    /// adversary, who could otherwise craft keys that share bits and inflate the
    /// false-positive rate; a secret [key](BloomFilter::with_key) protects even filters
    /// whose bytes are published (`docs/security.md`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::new(1000, 0.01)?.with_seed(42);
    /// assert_eq!(filter.seed(), Some(42));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.params.hashing = hashing;
        self.clear();
        self
    }

    fn current_hashing(&self) -> Hashing {
        self.params.hashing
    }

    bloom_core::internal::if_std! {
        /// Returns this filter emptied and re-keyed with a seed from the operating system's
        /// randomness ([`random_seed`](bloom_core::hash::random_seed)). Only with the `std`
        /// feature.
        pub fn with_random_seed(self) -> Self {
            self.with_seed(bloom_core::hash::random_seed())
        }
    }

    /// The number of bits.
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.params.num_bits
    }

    /// The number of probes (bits set) per key.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.params.num_hashes
    }

    /// The hash seed; `None` for a [keyed](BloomFilter::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// The 128-bit hash this filter computes for `key` (seeded XXH3-128, or keyed SipHash-1-3:
    /// see [`Hashing`]), as taken by [`insert_hash`](BloomFilter::insert_hash) and
    /// [`contains_hash`](BloomFilter::contains_hash).
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.params.hashing.hash(key)
    }

    #[inline(always)]
    fn probes(&self, hash: u128) -> Probes {
        Probes::new(hash, self.params.num_hashes, self.params.num_bits)
    }

    /// Adds a key. Returns `true` if it was possibly present already (all its bits were
    /// set): a "seen before?" check and an insert in one call.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut seen = BloomFilter::new(1000, 0.001)?;
    /// assert!(!seen.insert("https://example.com/"));
    /// assert!(seen.insert("https://example.com/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed 128-bit hash (any well-mixed 128-bit hash works, but
    /// only hashes computed the same way can be found again). Returns whether it was possibly
    /// present before.
    #[inline]
    pub fn insert_hash(&mut self, hash: u128) -> bool {
        let probes = self.probes(hash);
        self.bits.set_all(probes)
    }

    /// Whether `key` may be present: `false` means it was certainly never inserted.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline]
    pub fn contains_hash(&self, hash: u128) -> bool {
        self.bits.all_set(self.probes(hash))
    }

    /// Adds every key of `keys`, the same bits as [`insert`](BloomFilter::insert) key by
    /// key. In a filter larger than the L2 cache the keys are hashed in bursts of 16, the
    /// cache lines of each key's probes prefetched as it is hashed, and a burst is inserted
    /// once all its keys are hashed, so the misses of a burst overlap where key by key each
    /// waits for its own lines. In the L2 cache the bursts cost more than key by key, so
    /// smaller filters insert key by key. Each key's lines are prefetched as it is hashed,
    /// rather than the whole burst's once hashed: the steadier of the two (docs/design.md,
    /// "Parallel build").
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        if self.memory_usage() <= internal::caches::l2_cache_bytes() {
            for key in keys {
                self.insert(&key);
            }
            return;
        }
        internal::batch::insert_in_bursts::<INSERT_BURST, _, _, _>(self, keys);
    }

    /// Adds the keys of pre-computed hashes ([`hash`](BloomFilter::hash)), the same bits as
    /// [`insert_hash`](BloomFilter::insert_hash) one at a time, with the cache misses of a
    /// filter larger than the cache overlapped: the lines of every probe of a burst of 16
    /// keys are prefetched, then the burst is inserted.
    ///
    /// For a pipeline that hashes keys on one thread and inserts them on another (what
    /// `bloom add` does). On a 15 MB filter and 12.5 million URLs (docs/cli.md), inserting
    /// key by key took 4.8 to 5.6 s, each key waiting for its own probes' lines.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut filter = BloomFilter::new(1000, 0.01)?;
    /// let hashes: Vec<u128> = (0..100u32).map(|k| filter.hash(&k)).collect();
    /// filter.insert_hashes(&hashes);
    /// assert!((0..100u32).all(|k| filter.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_hashes(&mut self, hashes: &[u128]) {
        for burst in hashes.chunks(INSERT_BURST) {
            for &hash in burst {
                self.bits.prefetch_all(self.probes(hash));
            }
            for &hash in burst {
                self.insert_hash(hash);
            }
        }
    }

    /// Answers [`contains`](BloomFilter::contains) for every key, in order, faster than a
    /// loop on large filters, through the workspace's batch engine (in `bloom-core`):
    /// keys are hashed in bursts and their probes' cache lines prefetched before any is
    /// tested, so the cache misses overlap. Each key's leading probes are fetched first and
    /// the rest only if those are set (an absent key usually fails early); when most keys of
    /// the previous burst passed, every line is fetched at once instead, saving a round of
    /// misses on batches of mostly present keys. Filters in the cache are queried key by key.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter: BloomFilter = (0..100u32).collect();
    /// let answers = filter.contains_batch(&[1u32, 50, 99]);
    /// assert_eq!(answers, vec![true, true, true]);
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](BloomFilter::contains_batch) writing into a caller's buffer: `out`
    /// is cleared and receives one answer per key, so a reused buffer costs no allocation.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        bloom_core::internal::batch::contains_batch_into(&self.params.query(&self.bits), keys, out);
    }

    /// The number of bits set.
    pub fn count_ones(&self) -> u64 {
        self.bits.count_ones()
    }

    /// The fraction of bits set (0.5 at the optimal load).
    pub fn fill_ratio(&self) -> f64 {
        self.bits.fill_ratio()
    }

    /// The number of distinct keys inserted, estimated from the fill:
    /// `-(m/k) ln(1 - X/m)` with X bits set, rounded to the nearest integer.
    /// `u64::MAX` when every bit is set (the count can then not be known).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut filter = BloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all(0..5_000u32);
    /// assert!(filter.estimated_len().abs_diff(5_000) < 150);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_len(&self) -> u64 {
        internal::round_count(math::estimate_cardinality(
            self.num_bits(),
            self.num_hashes(),
            self.count_ones(),
        ))
    }

    /// The false-positive rate at the current fill: the expected rate
    /// ([`paired_fpr`](bloom_core::math::paired_fpr)) for the number of keys the fill
    /// suggests ([`estimated_len`](BloomFilter::estimated_len)); 1 when every bit is set.
    pub fn estimated_fpr(&self) -> f64 {
        crate::params::fpr_for_fill(self.num_bits(), self.num_hashes(), self.count_ones())
    }

    /// Bytes held by the filter (the bit array plus the struct itself).
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.bits.heap_bytes()
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// Adds every key of `other`: afterwards `self` answers "possibly present" for every key
    /// either filter held. The result is exactly the filter built from both key sets.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ; `self`
    /// is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut a = BloomFilter::new(1000, 0.01)?;
    /// let mut b = BloomFilter::new(1000, 0.01)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&BloomFilter::new(2000, 0.01)?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &BloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        self.bits.union_with(&other.bits)
    }

    /// Keeps only bits set in both filters: afterwards `self` answers "possibly present" for
    /// every key both filters held (and possibly for others: an intersection has a higher
    /// false-positive rate than a filter built from the common keys alone).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when size, probe count or hashing (seed or key) differ; `self`
    /// is unchanged.
    pub fn intersect(&mut self, other: &BloomFilter) -> Result<(), Error> {
        self.params.check_compatible(&other.params)?;
        self.bits.intersect_with(&other.bits)
    }

    /// The filter in the workspace's binary format (`docs/format.md`): a 16-byte header,
    /// `num_bits` and `num_hashes`, the bit array as little-endian words, and a checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut filter = BloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u8);
    /// let copy = BloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(BloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    bloom_core::internal::if_std! {
        /// Writes the bytes of [`to_bytes`](BloomFilter::to_bytes) to `writer`, 64 KiB at a
        /// time: memory beyond the filter is that buffer, whatever the filter's size.
        ///
        /// # Errors
        ///
        /// [`Error::Io`] when the writer fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::BloomFilter;
        ///
        /// let mut filter = BloomFilter::new(1000, 0.01)?;
        /// filter.insert(&7u8);
        /// let mut file = Vec::new();
        /// filter.write_to(&mut file)?;
        /// assert_eq!(file, filter.to_bytes());
        /// assert_eq!(BloomFilter::read_from(&file[..])?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn write_to<W: internal::io::Write>(&self, mut writer: W) -> Result<(), Error> {
            self.encode(Output::Writer(&mut writer)).map(drop)
        }
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        self.params
            .encode(output, self.bits.le_bytes_len() as u64, |out| {
                out.put_words(self.bits.as_words().iter().copied())
            })
    }

    bloom_core::internal::if_std! {
        /// Reads a filter from `reader`, as [`from_bytes`](BloomFilter::from_bytes) reads the
        /// bytes of [`to_bytes`](BloomFilter::to_bytes) or
        /// [`write_to`](BloomFilter::write_to). Reads exactly the filter's bytes; memory grows
        /// only as bytes arrive (`docs/format.md`, "Streaming").
        ///
        /// # Errors
        ///
        /// Those of [`from_bytes`](BloomFilter::from_bytes) ([`Error::Truncated`] when the
        /// stream ends early, whatever length the header claims); [`Error::Io`] when the reader
        /// fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use std::io::Cursor;
        /// use bloom_classic::BloomFilter;
        ///
        /// let filter = BloomFilter::new(1000, 0.01)?;
        /// let mut stream = Cursor::new(Vec::new());
        /// filter.write_to(&mut stream)?;
        /// stream.set_position(0);
        /// assert_eq!(BloomFilter::read_from(&mut stream)?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn read_from<R: internal::io::Read>(mut reader: R) -> Result<Self, Error> {
            Self::read_with(&mut reader, None)
        }
    }

    bloom_core::internal::if_std! {
        /// `read_from`, the hashing checked against `key`: the payload is read straight into
        /// the bit array, so the filter is held once.
        pub(crate) fn read_with(
            reader: &mut dyn internal::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<Self, Error> {
            let (params, words) = Params::read_frame(reader, key)?;
            let bits = BitStore::from_parts(words, params.num_bits)?;
            Ok(BloomFilter { bits, params })
        }
    }

    /// Reads a filter written by [`to_bytes`](BloomFilter::to_bytes) (by this type or by
    /// [`AtomicBloomFilter`]).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a
    /// panic, and never an allocation larger than `bytes`. [`Error::KeyRequired`] for a
    /// [keyed](BloomFilter::with_key) filter's bytes (see
    /// [`from_bytes_with_key`](BloomFilter::from_bytes_with_key)).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }

    pub(crate) fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (params, payload) = Params::decode(bytes, key, internal::Checksum::Verify)?;
        let bits = BitStore::from_le_bytes(payload, params.num_bits)?;
        Ok(BloomFilter { bits, params })
    }

    /// Converts into the lock-free [`AtomicBloomFilter`] with the same bits.
    pub fn into_atomic(self) -> AtomicBloomFilter {
        AtomicBloomFilter::from_parts(self.bits.into(), self.params)
    }

    pub(crate) fn from_parts(bits: BitStore, params: Params) -> Self {
        BloomFilter { bits, params }
    }

    /// The bit array.
    pub fn bits(&self) -> &BitStore {
        &self.bits
    }
}

bloom_core::internal::collect_via_insert_all!(BloomFilter, fpr: DEFAULT_FPR);

bloom_core::internal::filter_via_inherent!(BloomFilter, hash: u128);

bloom_core::internal::keyed_via_inherent!(BloomFilter);

#[cfg(feature = "serde")]
bloom_core::internal::serde_via_bytes!(BloomFilter);

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;

    impl BloomFilter {
        /// Adds every key of `keys` using all of rayon's threads. The result is identical to
        /// [`insert_all`](BloomFilter::insert_all)'s.
        ///
        /// Keys are hashed in parallel and their positions sorted into regions of the bit
        /// array, each region then written by one thread
        /// (the parallel scatter of `bloom-core`): no atomics, no per-thread copy of
        /// the filter.
        ///
        /// A filter of at most a quarter of the last-level cache, given at least 262,144 keys
        /// per thread, is built instead as whole copies, one per thread, each taking a share
        /// of the keys, then merged (the extra memory is bounded by half the cache); one
        /// larger but still in the cache, or a call with fewer keys or one thread, by
        /// [`insert_all`](BloomFilter::insert_all) (docs/design.md, "Parallel build").
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::BloomFilter;
        ///
        /// let keys: Vec<u64> = (0..100_000).collect();
        /// let mut filter = BloomFilter::new(keys.len() as u64, 0.01)?;
        /// filter.par_insert_all(&keys);
        /// assert!(keys.iter().all(|k| filter.contains(k)));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_insert_all<T: Hash + Sync>(&mut self, keys: &[T]) {
            bloom_core::internal::par::par_insert_all(self, keys);
        }
    }

    impl bloom_core::internal::par::ParBuild for BloomFilter {
        fn empty_twin(&self) -> Option<Self> {
            Self::from_params(self.params).ok()
        }

        fn insert_keys<T: Hash>(&mut self, keys: &[T]) {
            self.insert_all(keys);
        }

        fn scatter<T: Hash + Sync>(&mut self, keys: &[T]) {
            let params = self.params;
            bloom_core::internal::par::par_scatter(
                self.bits.as_words_mut(),
                6,
                keys,
                |key| Probes::new(params.hashing.hash(key), params.num_hashes, params.num_bits),
                |word, pos| *word |= 1 << (pos & 63),
            );
        }
    }

    bloom_core::internal::par_collect_via_par_insert_all!(BloomFilter, fpr: DEFAULT_FPR);
}

#[cfg(feature = "rayon")]
bloom_core::internal::par_queries_via_batch!(BloomFilter, insert: mut);

/// `insert_all` past the L2 cache: a key located is hashed, the lines of its probes
/// prefetched.
impl internal::batch::BurstInsert for &mut BloomFilter {
    type Hash = u128;

    #[inline(always)]
    fn locate<T: Hash>(&mut self, key: &T) -> u128 {
        let hash = self.hash(key);
        self.bits.prefetch_all(self.probes(hash));
        hash
    }

    #[inline(always)]
    fn insert(&mut self, hash: u128) {
        self.insert_hash(hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_all_sets_the_bits_of_insert_beyond_the_cache_too() {
        // One filter in the L2 cache (key by key) and one beyond it (bursts): the bits of
        // `insert` one key at a time, whatever the count's remainder by the burst.
        let beyond = (internal::caches::l2_cache_bytes() as u64 + 4096) * 8 * 2;
        for bits in [10_000u64, beyond] {
            for n in [0u64, 1, 15, 16, 17, 5_000] {
                let mut all = BloomFilter::with_params(bits, 7).unwrap().with_seed(n);
                all.insert_all(0..n);
                let mut one = BloomFilter::with_params(bits, 7).unwrap().with_seed(n);
                for k in 0..n {
                    one.insert(&k);
                }
                assert!(all.bits == one.bits, "{bits} bits, {n} keys");
            }
        }
    }

    #[test]
    fn insert_hashes_sets_the_bits_insert_all_sets() {
        // Lengths around the prefetch distance and the bursts, on filters of one block or
        // line and of many.
        for n in [0u64, 1, 15, 16, 17, 31, 32, 33, 100, 5_000] {
            for size in [1u64, 10_000] {
                let mut by_keys = BloomFilter::new(size, 0.01).unwrap().with_seed(n);
                by_keys.insert_all(0..n);
                let mut by_hashes = BloomFilter::new(size, 0.01).unwrap().with_seed(n);
                let hashes: Vec<u128> = (0..n).map(|k| by_hashes.hash(&k)).collect();
                by_hashes.insert_hashes(&hashes);
                assert_eq!(
                    by_hashes.to_bytes(),
                    by_keys.to_bytes(),
                    "{n} keys, size {size}"
                );
            }
        }
    }

    #[test]
    fn insert_reports_seen_before() {
        let mut f = BloomFilter::new(100, 0.001).unwrap();
        assert!(!f.insert(&1u32));
        assert!(f.insert(&1u32));
        assert!(f.contains(&1u32));
        assert_eq!(
            f.count_ones(),
            u64::from(f.num_hashes()).min(f.count_ones()).max(1)
        );
    }

    #[test]
    fn tiny_sizes_work() {
        let mut f = BloomFilter::with_params(1, 3).unwrap();
        assert_eq!(f.num_bits(), 1);
        assert!(!f.contains("x"));
        f.insert("x");
        assert!(f.contains("x") && f.contains("y"));
        assert!(BloomFilter::with_params(0, 3).is_err());
        assert!(BloomFilter::with_params(64, 0).is_err());
        assert!(BloomFilter::with_params(64, 65).is_err());
        assert!(BloomFilter::with_params(u64::MAX, 3).is_err());
    }

    #[test]
    fn batch_matches_single() {
        let mut f = BloomFilter::new(5_000, 0.05).unwrap();
        f.insert_all(0..5_000u64);
        let keys: Vec<u64> = (0..20_037).collect();
        let batch = f.contains_batch(&keys);
        let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
        assert_eq!(batch, single);
        let mut buf = vec![true; 3];
        f.contains_batch_into(&keys[..5], &mut buf);
        assert_eq!(buf, vec![true; 5]);
    }

    #[test]
    fn union_intersect_check_parameters() {
        let a = BloomFilter::new(100, 0.01).unwrap();
        let mut b = a.clone().with_seed(1);
        assert!(matches!(
            b.union(&a),
            Err(Error::Incompatible {
                parameter: "seed",
                ..
            })
        ));
        let c = BloomFilter::with_params(a.num_bits(), a.num_hashes() + 1).unwrap();
        let mut a2 = a.clone();
        assert!(matches!(
            a2.intersect(&c),
            Err(Error::Incompatible {
                parameter: "num_hashes",
                ..
            })
        ));
    }

    #[test]
    fn intersection_keeps_common_keys() {
        let mut a = BloomFilter::new(1000, 0.01).unwrap();
        let mut b = a.clone();
        a.insert_all(0..600u32);
        b.insert_all(400..1000u32);
        a.intersect(&b).unwrap();
        assert!((400..600u32).all(|k| a.contains(&k)));
    }

    #[test]
    fn seed_changes_positions_and_clears() {
        let mut a = BloomFilter::new(1000, 0.01).unwrap();
        a.insert("k");
        let b = a.clone().with_seed(99);
        assert_eq!(b.count_ones(), 0);
        assert_ne!(a.hash("k"), b.hash("k"));
        #[cfg(feature = "std")]
        assert_ne!(a.with_random_seed().seed(), b.with_random_seed().seed());
    }

    #[test]
    fn collect_and_extend() {
        let f: BloomFilter = ["a", "b", "c"].into_iter().collect();
        assert!(f.contains("a") && f.contains("b") && f.contains("c"));
        let empty: BloomFilter = core::iter::empty::<u8>().collect();
        assert_eq!(empty.count_ones(), 0);
        let mut g = f.clone();
        g.extend(["d"]);
        assert!(g.contains("d"));
    }

    #[test]
    fn estimates_are_sensible() {
        let mut f = BloomFilter::new(100_000, 0.01).unwrap();
        assert_eq!(f.estimated_fpr(), 0.0);
        f.insert_all(0..100_000u32);
        // Expected fill: 1 - e^{-kn/m}.
        let k = f64::from(f.num_hashes());
        let expected_fill = 1.0 - (-k * 100_000.0 / f.num_bits() as f64).exp();
        assert!(
            (f.fill_ratio() - expected_fill).abs() < 0.002,
            "{}",
            f.fill_ratio()
        );
        assert!(
            (f.estimated_fpr() - 0.01).abs() < 0.001,
            "{}",
            f.estimated_fpr()
        );
        assert!(f.estimated_len().abs_diff(100_000) < 1_000);
        assert!(f.memory_usage() >= 958_506 / 8);
        f.clear();
        assert_eq!(f.count_ones(), 0);
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_build_equals_sequential() {
        use rayon::prelude::*;
        let keys: Vec<u64> = (0..200_000).collect();
        let mut seq = BloomFilter::new(keys.len() as u64, 0.01).unwrap();
        seq.insert_all(&keys);
        // Every plan, whatever this machine's cache would choose for a filter this size.
        use bloom_core::internal::par::{Plan, with_plan};
        for plan in [
            Plan::Sequential,
            Plan::Copies(2),
            Plan::Copies(3),
            Plan::Scatter,
        ] {
            let mut par = BloomFilter::new(keys.len() as u64, 0.01).unwrap();
            with_plan(plan, || par.par_insert_all(&keys));
            assert_eq!(seq, par, "{plan:?}");
        }
        let collected: BloomFilter = keys.par_iter().collect();
        assert_eq!(collected, seq);
        let mut extended = BloomFilter::new(keys.len() as u64, 0.01).unwrap();
        extended.par_extend(keys.par_iter());
        assert_eq!(extended, seq);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_is_the_byte_format() {
        let mut f = BloomFilter::new(100, 0.01).unwrap();
        f.insert("serde");
        let json = serde_json::to_string(&f).unwrap();
        let back: BloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        // The bytes in base64: 4 characters for every 3, and the quotes.
        assert_eq!(json.len(), f.to_bytes().len().div_ceil(3) * 4 + 2);
        assert!(serde_json::from_str::<BloomFilter>("[1,2,3]").is_err());
    }
}
