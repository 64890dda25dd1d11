//! The plain (single-writer) 512-bit blocked Bloom filter.

use alloc::vec::Vec;
use core::hash::Hash;

use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::batch::{self, Lines, OneLine};
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::{self, Output, prefetch};
use bloom_core::{Error, math};

use crate::AtomicBlockedBloomFilter;
use crate::params::{self, Params};
use crate::probe::{self, BLOCK_BITS, Kernel, Probe};
use crate::storage::{Block, BlockRead, Blocks};

/// Keys per group of `insert_all`, here and in the atomic twin: a group is hashed and its
/// blocks prefetched before any of them is written. (The batch queries run through the
/// workspace's batch engine.) 64 rather than 16: `bloom add` ran faster with 64, and 128
/// measured no better (docs/cli.md, "1 GB").
pub(crate) const BATCH: usize = 64;

/// How many keys ahead [`BlockedBloomFilter::insert_hashes`] prefetches. Groups prefetched,
/// then written, as `insert_all` does, are slow for hashes already computed: the first
/// writes of a group wait for lines just asked for, a wait `insert_all` hides behind the
/// group's hashing. A prefetch a fixed distance ahead does not wait, and distances of 16 to
/// 128 measured alike (docs/cli.md, "1 GB on AMD EPYC family 25 model 17").
const HASHES_AHEAD: usize = 32;

impl batch::BurstInsert for &mut BlockedBloomFilter {
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

/// The false-positive rate [`FromIterator`] sizes for.
pub const DEFAULT_FPR: f64 = 0.01;

/// A Bloom filter whose keys each touch one 512-bit block: one cache line per query, where
/// a classic filter pays up to k cache misses.
///
/// Each key's 64-bit hash picks a block (any number of blocks, by multiply-shift) and sets
/// `num_hashes` bits in it, at positions drawn independently (they may repeat).
/// `num_hashes` is chosen for the bits per key as a blocked filter needs, from
/// [`blocked_fpr_replacement`](bloom_core::math::blocked_fpr_replacement), and
/// [`new`](BlockedBloomFilter::new) sizes the filter with the same formula, so the rate
/// reached is the one asked for. A blocked filter needs a little more memory than a classic
/// one for the same rate (about 4% at 1%), and is several times faster on filters that do not
/// fit in cache. Queries use AVX2 or AVX-512 when the CPU has them ([`Probe`]).
///
/// For a filter shared between threads, see [`AtomicBlockedBloomFilter`].
///
/// # Examples
///
/// ```
/// use bloom_blocked::BlockedBloomFilter;
///
/// let mut filter = BlockedBloomFilter::new(10_000, 0.01)?;
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
#[derive(Clone)]
pub struct BlockedBloomFilter {
    blocks: Blocks<Block>,
    params: Params,
    /// The query code for the probe asked for and k, chosen once.
    kernel: Kernel,
}

impl PartialEq for BlockedBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params && self.blocks == other.blocks
    }
}

impl Eq for BlockedBloomFilter {}

impl core::fmt::Debug for BlockedBloomFilter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockedBloomFilter")
            .field("num_blocks", &self.params.num_blocks)
            .field("num_hashes", &self.params.num_hashes)
            .field("hashing", &self.params.hashing)
            .field("probe", &self.kernel.probe())
            .finish()
    }
}

impl BlockedBloomFilter {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`: the fewest
    /// blocks, and the best `num_hashes` for them, whose expected rate
    /// ([`blocked_fpr_replacement`](bloom_core::math::blocked_fpr_replacement)) is at most 95% of
    /// `fpr` (the headroom keeps a filter's measured rate, which scatters around the
    /// expectation, at or below `fpr`).
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
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let filter = BlockedBloomFilter::new(1_000_000, 0.01)?;
    /// let bits_per_key = filter.num_bits() as f64 / 1e6;
    /// assert!(bits_per_key < 10.5 && filter.num_hashes() == 6);
    /// assert!(BlockedBloomFilter::new(0, 0.01).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Self::from_params(Params::for_items(expected_items, fpr)?)
    }

    /// A filter of `num_bits` bits rounded up to whole 512-bit blocks, setting `num_hashes`
    /// bits per key.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 bits or `num_hashes` outside 1..=16 (a key's bits
    /// are one vector lane each; a 512-bit block never needs more);
    /// [`Error::TooLarge`] beyond [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let filter = BlockedBloomFilter::with_params(1000, 6)?;
    /// assert_eq!((filter.num_bits(), filter.num_blocks()), (1024, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Self::from_params(Params::with_bits(num_bits, num_hashes)?)
    }

    fn from_params(params: Params) -> Result<Self, Error> {
        let num_blocks = usize::try_from(params.num_blocks).map_err(|_| Error::TooLarge {
            requested_bits: params.num_bits() as f64,
            max_bits: math::MAX_NUM_BITS,
        })?;
        Ok(Self::from_parts(Blocks::zeroed(num_blocks)?, params))
    }

    pub(crate) fn from_parts(blocks: Blocks<Block>, params: Params) -> Self {
        BlockedBloomFilter {
            blocks,
            params,
            kernel: Kernel::new(Probe::best(), params.num_hashes),
        }
    }

    /// The number of probes per key (k) that minimises the false-positive rate of a 512-bit
    /// blocked filter with `bits_per_key` bits per key (the table in `docs/blocked.md`). It
    /// is never above a classic filter's `round((m/n) ln 2)` and lower at 8, 10, 16 bits per
    /// key and beyond (9 against 11 at 16), because a block that happens to receive more keys
    /// than average fills up faster with more bits per key.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// assert_eq!(BlockedBloomFilter::optimal_num_hashes(10.0), 6);
    /// assert_eq!(BlockedBloomFilter::optimal_num_hashes(16.0), 9);
    /// ```
    pub fn optimal_num_hashes(bits_per_key: f64) -> u32 {
        params::optimal_num_hashes(bits_per_key)
    }

    /// Returns this filter emptied and re-keyed with `seed`.
    ///
    /// Filters can only be merged with filters of the same seed. Use the default seed when
    /// filters built in different places must be merged; use a secret seed (for example
    /// [`with_random_seed`](BlockedBloomFilter::with_random_seed)) when keys may come from an
    /// adversary, who could otherwise craft keys that share a block and inflate the
    /// false-positive rate; a secret [key](BlockedBloomFilter::with_key) protects even filters
    /// whose bytes are published (`docs/security.md`).
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
        /// randomness. Only with the `std` feature.
        pub fn with_random_seed(self) -> Self {
            self.with_seed(bloom_core::hash::random_seed())
        }
    }

    /// Returns this filter using the given query implementation (same bits, same answers).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `probe` is not available on this CPU.
    pub fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        self.kernel = Kernel::new(probe.check()?, self.params.num_hashes);
        Ok(self)
    }

    /// The query implementation this filter runs: the one asked for, or the next best where
    /// it does not cover the filter's k (see [`Probe::best`]).
    pub fn probe(&self) -> Probe {
        self.kernel.probe()
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

    /// The hash seed; `None` for a [keyed](BlockedBloomFilter::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// The 64-bit hash this filter computes for `key`: the low half of the workspace's
    /// seeded XXH3-128 ([`hash_key`](bloom_core::hash::hash_key)), or keyed SipHash-1-3
    /// ([`Hashing::hash64`]), as taken by
    /// [`insert_hash`](BlockedBloomFilter::insert_hash) and
    /// [`contains_hash`](BlockedBloomFilter::contains_hash). One word places the key: it
    /// picks the block, and a multiple of it the bits (see [`Probe`] and docs/blocked.md).
    #[inline(always)]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        self.params.hashing.hash64(key)
    }

    /// The key's block: multiply-shift of its hash.
    #[inline(always)]
    fn block(&self, hash: u64) -> &Block {
        self.blocks.at(hash)
    }

    /// Adds a key. Returns `true` if it was possibly present already (all its bits were set).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut seen = BlockedBloomFilter::new(1000, 0.001)?;
    /// assert!(!seen.insert("https://example.com/"));
    /// assert!(seen.insert("https://example.com/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed hash ([`hash`](BlockedBloomFilter::hash)); returns
    /// whether it was possibly present.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let k = self.params.num_hashes;
        probe::insert_portable(self.blocks.at_mut(hash), probe::spread(hash), k)
    }

    /// Whether `key` may be present: `false` means it was certainly never inserted.
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.kernel.contains(self.block(hash), probe::spread(hash))
    }

    /// Adds every key of `keys`. Keys are hashed in groups and their blocks prefetched before
    /// any is written: an insert's write to an uncached line otherwise holds up the stores
    /// behind it, and the cache misses of consecutive inserts cannot overlap.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        batch::insert_in_bursts::<BATCH, _, _, _>(self, keys);
    }

    /// Adds the keys of pre-computed hashes ([`hash`](BlockedBloomFilter::hash)), the same
    /// bits as [`insert_hash`](BlockedBloomFilter::insert_hash) one at a time, in groups of
    /// 64 whose blocks are prefetched before any is written, as
    /// [`insert_all`](BlockedBloomFilter::insert_all) does for keys.
    ///
    /// For a pipeline that hashes keys on one thread and inserts them on another (what
    /// `bloom add` does; docs/cli.md has its figures).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
    /// let hashes: Vec<u64> = (0..100u32).map(|k| filter.hash(&k)).collect();
    /// filter.insert_hashes(&hashes);
    /// assert!((0..100u32).all(|k| filter.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_hashes(&mut self, hashes: &[u64]) {
        let ahead = HASHES_AHEAD;
        for &hash in hashes.iter().take(ahead) {
            prefetch(self.block(hash));
        }
        for (i, &hash) in hashes.iter().enumerate() {
            if let Some(&next) = hashes.get(i + ahead) {
                prefetch(self.block(next));
            }
            self.insert_hash(hash);
        }
    }

    /// Answers [`contains`](BlockedBloomFilter::contains) for every key, in order. Each key's
    /// block is prefetched well before it is tested, so the cache misses of a large filter
    /// overlap instead of following one another.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let filter: BlockedBloomFilter = (0..100u32).collect();
    /// assert_eq!(filter.contains_batch(&[1u32, 50, 99]), vec![true, true, true]);
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](BlockedBloomFilter::contains_batch) writing into a caller's buffer:
    /// `out` is cleared and receives one answer per key, so a reused buffer costs no
    /// allocation.
    ///
    /// The workspace's batch engine (in `bloom-core`) runs it: a filter in a cache
    /// share is queried key by key; a larger one in bursts of 128 keys (hash all and
    /// prefetch their blocks, then test all), so the cache misses overlap with each other and
    /// with the work of hashing and testing.
    ///
    /// A [keyed](BlockedBloomFilter::with_key) filter first hashes the keys in chunks, eight
    /// at a time in SIMD lanes ([`Hashing::hash64_batch`]), then queries the hashes.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        if !self.params.hashing.is_keyed() {
            batch_into::<_, T, false>(
                self.kernel,
                self.blocks.reader(),
                self.params.hashing,
                keys,
                out,
            );
            return;
        }
        out.clear();
        out.reserve(keys.len());
        let mut hashes = Vec::new();
        let mut answers = Vec::new();
        for chunk in keys.chunks(KEYED_BATCH_CHUNK) {
            self.params.hashing.hash64_batch(chunk, &mut hashes);
            batch_into::<_, u64, true>(
                self.kernel,
                self.blocks.reader(),
                self.params.hashing,
                &hashes,
                &mut answers,
            );
            out.extend_from_slice(&answers);
        }
    }

    /// The number of bits set.
    pub fn count_ones(&self) -> u64 {
        self.blocks
            .words()
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits() as f64
    }

    /// The number of distinct keys inserted, estimated from the fill of each block: a block
    /// with X of its B bits set holds about `ln(1 - X/B) / (k ln(1 - 1/B))` keys (each key
    /// sets k bits at independent positions), summed and rounded to the nearest integer. `u64::MAX` when
    /// a block is full (the count can then not be known).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut filter = BlockedBloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all(0..5_000u32);
    /// assert!(filter.estimated_len().abs_diff(5_000) < 150);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_len(&self) -> u64 {
        internal::round_count(estimated_len(
            block_fills(self.blocks.words()),
            self.params.num_hashes,
        ))
    }

    /// The false-positive rate at the current fill: the mean over blocks of the chance that k
    /// independent random bits of the block are all set, `(X/B)^k`.
    pub fn estimated_fpr(&self) -> f64 {
        estimated_fpr(
            block_fills(self.blocks.words()),
            self.params.num_hashes,
            self.params.num_blocks,
        )
    }

    /// The false-positive rate theory expects once `num_items` distinct keys are inserted.
    pub fn expected_fpr(&self, num_items: u64) -> f64 {
        params::theory_fpr(self.params.num_blocks, self.params.num_hashes, num_items)
    }

    /// Bytes held by the filter (the blocks, their alignment slack, and the struct).
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.blocks.heap_bytes()
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.blocks.clear();
    }

    /// Adds every key of `other`: afterwards `self` is exactly the filter built from both key
    /// sets. The two may differ in size by a power of two: the larger is
    /// [folded](BlockedBloomFilter::fold) to the smaller first (`self` shrinks when it is the
    /// larger), so the result is the filter of both key sets at the smaller size.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when probe count or hashing (seed or key) differ, or the sizes
    /// are not a power of two apart; `self` is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut small = BlockedBloomFilter::with_params(512 * 64, 6)?;
    /// let mut large = BlockedBloomFilter::with_params(512 * 256, 6)?;
    /// small.insert("left");
    /// large.insert("right");
    /// small.union(&large)?;
    /// assert!(small.contains("left") && small.contains("right"));
    /// assert_eq!(small.num_blocks(), 64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &BlockedBloomFilter) -> Result<(), Error> {
        self.combine(other, |a, b| *a |= b)
    }

    /// Keeps only bits set in both filters: afterwards `self` answers "possibly present" for
    /// every key both held (and possibly for others). Sizes a power of two apart are folded
    /// to the smaller first, as in [`union`](BlockedBloomFilter::union).
    ///
    /// # Errors
    ///
    /// As [`union`](BlockedBloomFilter::union); `self` is unchanged.
    pub fn intersect(&mut self, other: &BlockedBloomFilter) -> Result<(), Error> {
        self.combine(other, |a, b| *a &= b)
    }

    /// Applies `op` word by word to `self` and `other`, the larger folded to the smaller.
    fn combine(
        &mut self,
        other: &BlockedBloomFilter,
        op: impl Fn(&mut u64, u64),
    ) -> Result<(), Error> {
        self.params.check_foldable(&other.params)?;
        let (ours, theirs) = (self.num_blocks(), other.num_blocks());
        let folded;
        let other_words = if ours == theirs {
            other.blocks.words()
        } else if ours < theirs {
            let factor = params::fold_factor(theirs, ours, BLOCK_BITS)?;
            folded = other.blocks.fold(factor)?;
            folded.words()
        } else {
            let factor = params::fold_factor(ours, theirs, BLOCK_BITS)?;
            *self = self.fold(factor)?;
            other.blocks.words()
        };
        for (a, &b) in self.blocks.words_mut().iter_mut().zip(other_words) {
            op(a, b);
        }
        Ok(())
    }

    /// The filter folded by `factor` (a power of two dividing the block count): block `j` of
    /// the result is the OR of blocks `j * factor` to `j * factor + factor - 1`. Because a
    /// key's block is the multiply-shift of its hash and its bits inside the block do not
    /// depend on the block count, the result is exactly (byte for byte) the filter of
    /// `num_blocks / factor` blocks built from the same keys: build large when the number of
    /// keys is unknown, fold to the size the count needs once it is known. The rate rises to
    /// that of the smaller filter.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (`factor`) unless `factor` is a power of two dividing
    /// [`num_blocks`](BlockedBloomFilter::num_blocks); [`Error::OutOfMemory`] when the
    /// allocator refuses the result.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut large = BlockedBloomFilter::with_params(512 * 1024, 7)?;
    /// let mut small = BlockedBloomFilter::with_params(512 * 128, 7)?;
    /// for key in 0..1_000u64 {
    ///     large.insert(&key);
    ///     small.insert(&key);
    /// }
    /// assert_eq!(large.fold(8)?, small);
    /// assert!(large.fold(3).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold(&self, factor: u32) -> Result<Self, Error> {
        let blocks = self.blocks.fold(factor)?;
        let params = Params {
            num_blocks: blocks.len() as u64,
            ..self.params
        };
        let mut folded = Self::from_parts(blocks, params);
        folded.kernel = Kernel::new(self.kernel.probe(), params.num_hashes);
        Ok(folded)
    }

    /// The filter folded as far as a filter for `expected_items` keys at `fpr` allows: by
    /// the largest power of two that leaves at least the blocks
    /// [`new(expected_items, fpr)`](BlockedBloomFilter::new) would allocate (a copy when no
    /// fold fits). The bits per block stay this filter's, so its probe count is kept. A
    /// filter meant to be folded is best built with a power-of-two block count
    /// ([`with_params`](BlockedBloomFilter::with_params)`(512 << s, k)`): `new` sizes to the
    /// block, and an odd count cannot be folded at all.
    ///
    /// # Errors
    ///
    /// Those of [`new`](BlockedBloomFilter::new) for the parameters, and of
    /// [`fold`](BlockedBloomFilter::fold).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// // Sized for about a million keys (2^14 blocks, k = 7); only ten thousand came.
    /// let mut filter = BlockedBloomFilter::with_params(512 << 14, 7)?;
    /// filter.insert_all(0..10_000u64);
    /// let fitted = filter.fold_to_fit(10_000, 0.01)?;
    /// assert_eq!(fitted.num_blocks(), 256);
    /// assert!(fitted.estimated_fpr() < 0.012);
    /// assert!((0..10_000u64).all(|k| fitted.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold_to_fit(&self, expected_items: u64, fpr: f64) -> Result<Self, Error> {
        let needed = Params::for_items(expected_items, fpr)?.num_blocks;
        self.fold(params::largest_fold(self.num_blocks() as u64, needed))
    }

    /// The filter in the workspace's binary format (`docs/format.md`): the header,
    /// `num_bits` and `num_hashes`, the blocks as little-endian `u64` words, and a checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u8);
    /// assert_eq!(BlockedBloomFilter::from_bytes(&filter.to_bytes())?, filter);
    /// assert!(BlockedBloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    bloom_core::internal::if_std! {
        /// Writes the bytes of [`to_bytes`](BlockedBloomFilter::to_bytes) to `writer`, 64 KiB
        /// at a time: memory beyond the filter is that buffer, whatever the filter's size.
        ///
        /// # Errors
        ///
        /// [`Error::Io`] when the writer fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_blocked::BlockedBloomFilter;
        ///
        /// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
        /// filter.insert(&7u8);
        /// let mut file = Vec::new();
        /// filter.write_to(&mut file)?;
        /// assert_eq!(file, filter.to_bytes());
        /// assert_eq!(BlockedBloomFilter::read_from(&file[..])?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn write_to<W: bloom_core::internal::io::Write>(
            &self,
            mut writer: W,
        ) -> Result<(), Error> {
            self.encode(Output::Writer(&mut writer)).map(drop)
        }
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let words = self.blocks.words();
        self.params.encode(output, words.len() as u64 * 8, |out| {
            for w in words {
                out.put(&w.to_le_bytes());
            }
        })
    }

    bloom_core::internal::if_std! {
        /// Reads a filter from `reader`, as [`from_bytes`](BlockedBloomFilter::from_bytes) reads
        /// the bytes of [`to_bytes`](BlockedBloomFilter::to_bytes) or
        /// [`write_to`](BlockedBloomFilter::write_to). Reads exactly the filter's bytes; memory
        /// grows only as bytes arrive (`docs/format.md`, "Streaming").
        ///
        /// # Errors
        ///
        /// Those of [`from_bytes`](BlockedBloomFilter::from_bytes) ([`Error::Truncated`] when
        /// the stream ends early, whatever length the header claims); [`Error::Io`] when the
        /// reader fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use std::io::Cursor;
        /// use bloom_blocked::BlockedBloomFilter;
        ///
        /// let filter = BlockedBloomFilter::new(1000, 0.01)?;
        /// let mut stream = Cursor::new(Vec::new());
        /// filter.write_to(&mut stream)?;
        /// stream.set_position(0);
        /// assert_eq!(BlockedBloomFilter::read_from(&mut stream)?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn read_from<R: bloom_core::internal::io::Read>(mut reader: R) -> Result<Self, Error> {
            Self::read_with(&mut reader, None)
        }
    }

    bloom_core::internal::if_std! {
        /// `read_from`, the hashing checked against `key`: the payload is read straight into
        /// the blocks, so the filter is held once.
        pub(crate) fn read_with(
            reader: &mut dyn bloom_core::internal::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<Self, Error> {
            let (params, words) = Params::read_streamed(reader, key)?;
            let num_blocks = usize::try_from(params.num_blocks).map_err(|_| Error::TooLarge {
                requested_bits: params.num_bits() as f64,
                max_bits: math::MAX_NUM_BITS,
            })?;
            Ok(Self::from_parts(
                Blocks::from_words(words, num_blocks)?,
                params,
            ))
        }
    }

    /// Reads a filter written by [`to_bytes`](BlockedBloomFilter::to_bytes) (by this type or
    /// by [`AtomicBlockedBloomFilter`]).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::UnsupportedHashScheme`],
    /// [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a panic. Memory is allocated
    /// only after the length is checked: the payload's size plus 56 bytes of alignment slack.
    /// [`Error::KeyRequired`] for a [keyed](BlockedBloomFilter::with_key) filter's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }

    pub(crate) fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (params, payload) = Params::decode(bytes, key, internal::Checksum::Verify)?;
        let mut filter = Self::from_params(params)?;
        for (w, chunk) in filter
            .blocks
            .words_mut()
            .iter_mut()
            .zip(payload.chunks_exact(8))
        {
            *w = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        }
        Ok(filter)
    }

    /// Converts into the lock-free [`AtomicBlockedBloomFilter`] with the same bits.
    pub fn into_atomic(self) -> AtomicBlockedBloomFilter {
        AtomicBlockedBloomFilter::from_parts(self.blocks.cast(), self.params)
    }
}

/// The number of bits set in each 512-bit block of `words`.
pub(crate) fn block_fills(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
    words
        .chunks_exact(8)
        .map(|b| b.iter().map(|w| w.count_ones()).sum())
}

/// Sum over blocks of `ln(1 - X/B) / (k ln(1 - 1/B))`.
pub(crate) fn estimated_len(fills: impl Iterator<Item = u32>, k: u32) -> f64 {
    let b = BLOCK_BITS as f64;
    let per_key = f64::from(k) * Native::ln_1p(-1.0 / b);
    fills
        .map(|x| {
            if u64::from(x) >= BLOCK_BITS {
                f64::INFINITY
            } else {
                Native::ln_1p(-f64::from(x) / b) / per_key
            }
        })
        .sum()
}

/// Mean over blocks of `(X/B)^k`.
pub(crate) fn estimated_fpr(fills: impl Iterator<Item = u32>, k: u32, num_blocks: u64) -> f64 {
    let b = BLOCK_BITS as f64;
    let table: Vec<f64> = (0..=BLOCK_BITS)
        .map(|x| Native::powi(x as f64 / b, k as i32))
        .collect();
    fills.map(|x| table[x as usize]).sum::<f64>() / num_blocks as f64
}

bloom_core::internal::collect_via_insert_all!(BlockedBloomFilter, fpr: DEFAULT_FPR);

bloom_core::internal::filter_via_inherent!(BlockedBloomFilter, hash: u64);

bloom_core::internal::keyed_via_inherent!(BlockedBloomFilter);

#[cfg(feature = "serde")]
bloom_core::internal::serde_via_bytes!(BlockedBloomFilter);

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;

    impl BlockedBloomFilter {
        /// Adds every key of `keys` using all of rayon's threads. The result is identical to
        /// [`insert_all`](BlockedBloomFilter::insert_all)'s.
        ///
        /// Keys are hashed in parallel and sorted by the region of blocks they fall in; each
        /// region is then written by one thread
        /// (the parallel scatter of `bloom-core`): no atomics, and each
        /// thread's random writes stay inside a region a fraction of the filter's size.
        ///
        /// A filter of at most a quarter of the last-level cache, given at least 262,144 keys
        /// per thread, is built instead as whole copies, one per thread, each taking a share
        /// of the keys, then merged (the extra memory is bounded by half the cache); one
        /// larger but still in the cache, or a call with fewer keys or one thread, by
        /// [`insert_all`](BlockedBloomFilter::insert_all) (docs/design.md, "Parallel build").
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_blocked::BlockedBloomFilter;
        ///
        /// let keys: Vec<u64> = (0..100_000).collect();
        /// let mut filter = BlockedBloomFilter::new(keys.len() as u64, 0.01)?;
        /// filter.par_insert_all(&keys);
        /// assert!(keys.iter().all(|k| filter.contains(k)));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_insert_all<T: Hash + Sync>(&mut self, keys: &[T]) {
            bloom_core::internal::par::par_insert_all(self, keys);
        }
    }

    impl bloom_core::internal::par::ParBuild for BlockedBloomFilter {
        fn empty_twin(&self) -> Option<Self> {
            Self::from_params(self.params).ok()
        }

        fn insert_keys<T: Hash>(&mut self, keys: &[T]) {
            self.insert_all(keys);
        }

        fn scatter<T: Hash + Sync>(&mut self, keys: &[T]) {
            let params = self.params;
            bloom_core::internal::par::par_scatter_into(
                self.blocks.as_mut_slice(),
                keys,
                |key| {
                    let hash = params.hashing.hash64(key);
                    [(
                        bloom_core::internal::reduce(hash, params.num_blocks) as usize,
                        probe::spread(hash),
                    )]
                },
                |(block, _)| block,
                |block, (_, g)| {
                    probe::insert_portable(block, g, params.num_hashes);
                },
            );
        }
    }

    bloom_core::internal::par_collect_via_par_insert_all!(BlockedBloomFilter, fpr: DEFAULT_FPR);
}

/// Keys a keyed filter's batch query hashes ahead of the engine at a time: the hashes of a
/// chunk (32 KiB) stay in the L1 and L2 caches until queried.
const KEYED_BATCH_CHUNK: usize = 4096;

/// A hasher that gives back the one `u64` written: the batch query of a keyed filter feeds
/// the engine hashes already computed (eight keys at a time), and this is how it reads them
/// back as keys, for nothing once inlined.
#[derive(Default)]
struct Passthrough(u64);

impl core::hash::Hasher for Passthrough {
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys come here, through `write_u64`; fold anything else in anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The batch query of a blocked filter's blocks, wherever they lie (the owning filter's
/// memory, a view's bytes): the workspace's batch engine over [`BatchOf`], with `kernel`'s
/// block test chosen once, outside the loop, so each implementation gets a loop of its own
/// with no dispatch per key. With `PREHASHED`, the keys are the filter's hashes of the real
/// keys (a keyed filter's batch hashes them ahead, eight at a time).
#[inline(always)]
pub(crate) fn batch_into<S: BlockRead<Block>, T: Hash, const PREHASHED: bool>(
    kernel: Kernel,
    blocks: S,
    hashing: Hashing,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    struct Run<'k, S, T, const PREHASHED: bool> {
        blocks: S,
        hashing: Hashing,
        kernel: Kernel,
        keys: &'k [T],
        out: &'k mut Vec<bool>,
    }
    impl<S: BlockRead<Block>, T: Hash, const PREHASHED: bool> probe::TestUser<()>
        for Run<'_, S, T, PREHASHED>
    {
        #[inline(always)]
        fn run(self, test: impl Fn(&Block, u64) -> bool + Copy) {
            let query = BatchOf::<S, _, PREHASHED> {
                blocks: self.blocks,
                hashing: self.hashing,
                kernel: self.kernel,
                test,
            };
            batch::contains_batch_into(&Lines(&query), self.keys, self.out);
        }
    }
    kernel.with_test(Run::<S, T, PREHASHED> {
        blocks,
        hashing,
        kernel,
        keys,
        out,
    });
}

/// A blocked filter's blocks in the batch engine, with the block test of its kernel: one
/// block per key. With `PREHASHED`, the keys are hashes already.
struct BatchOf<S, Q, const PREHASHED: bool> {
    blocks: S,
    hashing: Hashing,
    /// For blocks tested on their bytes ([`Kernel::contains_le`]); `test` is its test of
    /// aligned blocks, chosen once.
    kernel: Kernel,
    test: Q,
}

impl<S: BlockRead<Block>, Q: Fn(&Block, u64) -> bool, const PREHASHED: bool> OneLine
    for BatchOf<S, Q, PREHASHED>
{
    /// The key's block and the word that places its bits there ([`probe::spread`]).
    type Staged = (S::At, u64);

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.blocks.footprint()
    }

    #[inline(always)]
    fn locate<T: Hash>(&self, key: &T) -> (S::At, u64) {
        let hash = if PREHASHED {
            let mut passthrough = Passthrough::default();
            key.hash(&mut passthrough);
            core::hash::Hasher::finish(&passthrough)
        } else {
            self.hashing.hash64(key)
        };
        (self.blocks.at(hash), probe::spread(hash))
    }

    #[inline(always)]
    fn prefetch(&self, (block, _): (S::At, u64)) {
        S::prefetch(block);
    }

    #[inline(always)]
    fn test(&self, (block, g): (S::At, u64)) -> bool {
        S::test(
            block,
            |block| (self.test)(block, g),
            |bytes| {
                bytes
                    .try_into()
                    .is_ok_and(|b| self.kernel.contains_le(b, g))
            },
        )
    }

    #[inline(always)]
    fn empty(&self) -> (S::At, u64) {
        (self.blocks.at(0), 0)
    }
}

#[cfg(feature = "rayon")]
bloom_core::internal::par_queries_via_batch!(BlockedBloomFilter, insert: mut);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_hashes_sets_the_bits_insert_all_sets() {
        // Lengths around the prefetch distance and the bursts, on filters of one block or
        // line and of many.
        for n in [0u64, 1, 15, 16, 17, 31, 32, 33, 100, 5_000] {
            for size in [1u64, 10_000] {
                let mut by_keys = BlockedBloomFilter::new(size, 0.01).unwrap().with_seed(n);
                by_keys.insert_all(0..n);
                let mut by_hashes = BlockedBloomFilter::new(size, 0.01).unwrap().with_seed(n);
                let hashes: Vec<u64> = (0..n).map(|k| by_hashes.hash(&k)).collect();
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
        let mut f = BlockedBloomFilter::new(100, 0.001).unwrap();
        assert!(!f.insert(&1u32));
        assert!(f.insert(&1u32));
        assert!(f.contains(&1u32));
        // k positions, drawn with replacement: at most k bits.
        assert!((1..=u64::from(f.num_hashes())).contains(&f.count_ones()));
    }

    #[test]
    fn any_block_count_and_tiny_sizes() {
        for bits in [1u64, 512, 513, 3 * 512, 7 * 512 + 1] {
            let mut f = BlockedBloomFilter::with_params(bits, 6).unwrap();
            assert_eq!(f.num_blocks() as u64, bits.div_ceil(512));
            f.insert_all(0..200u32);
            assert!((0..200u32).all(|k| f.contains(&k)));
        }
        assert!(BlockedBloomFilter::with_params(0, 3).is_err());
        assert!(BlockedBloomFilter::with_params(512, 0).is_err());
        assert!(BlockedBloomFilter::with_params(512, 17).is_err());
        assert!(BlockedBloomFilter::with_params(512, 16).is_ok());
        assert!(BlockedBloomFilter::with_params(u64::MAX, 3).is_err());
        // The largest filter allowed (128 GiB): an error where the machine cannot map it,
        // never an abort; where it can, lazily zeroed memory that is never touched.
        match BlockedBloomFilter::with_params(1 << 40, 6) {
            Ok(f) => assert_eq!(f.num_blocks(), 1 << 31),
            Err(e) => assert!(matches!(e, Error::OutOfMemory { .. }), "{e}"),
        }
    }

    #[test]
    fn batch_matches_single_with_both_probes() {
        let mut f = BlockedBloomFilter::new(5_000, 0.05).unwrap();
        f.insert_all(0..5_000u64);
        let keys: Vec<u64> = (0..20_037).collect();
        let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
        assert_eq!(f.contains_batch(&keys), single);
        let portable = f.clone().with_probe(Probe::Portable).unwrap();
        assert_eq!(portable.contains_batch(&keys), single);
        let mut buf = vec![true; 3];
        f.contains_batch_into(&keys[..5], &mut buf);
        assert_eq!(buf, vec![true; 5]);
        // Lengths around the pipeline's depth, and none at all.
        for len in [0, 1, 31, 32, 33, 63, 64, 65] {
            let part = &keys[4_990..4_990 + len];
            f.contains_batch_into(part, &mut buf);
            assert_eq!(buf, &single[4_990..4_990 + len], "{len}");
        }
    }

    #[test]
    fn batch_matches_single_beyond_the_cache_share() {
        // Larger than the engine's CACHED_MAX_BYTES: the batch goes through bursts.
        let mut f = BlockedBloomFilter::with_params(48 << 20, 7).unwrap();
        assert!(f.blocks.heap_bytes() > bloom_core::internal::batch::CACHED_MAX_BYTES);
        f.insert_all(0..400_000u64);
        let keys: Vec<u64> = (399_000..401_000).collect();
        let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
        assert!(single[..1_000].iter().all(|&x| x));
        let mut buf = Vec::new();
        for len in [0, 1, 127, 128, 129, 300, 2_000] {
            f.contains_batch_into(&keys[..len], &mut buf);
            assert_eq!(buf, &single[..len], "{len}");
        }
        let portable = f.clone().with_probe(Probe::Portable).unwrap();
        assert_eq!(portable.contains_batch(&keys), single);
    }

    #[test]
    fn estimates_are_sensible() {
        let mut f = BlockedBloomFilter::new(100_000, 0.01).unwrap();
        assert_eq!(f.estimated_fpr(), 0.0);
        f.insert_all(0..100_000u32);
        let expected = f.expected_fpr(100_000);
        assert!(
            (f.estimated_fpr() / expected - 1.0).abs() < 0.1,
            "{} vs {expected}",
            f.estimated_fpr()
        );
        assert!(f.estimated_len().abs_diff(100_000) < 2_000);
        f.clear();
        assert_eq!(f.count_ones(), 0);
    }

    #[test]
    fn union_intersect_check_parameters() {
        let a = BlockedBloomFilter::new(100, 0.01).unwrap();
        let mut b = a.clone().with_seed(1);
        assert!(matches!(
            b.union(&a),
            Err(Error::Incompatible {
                parameter: "seed",
                ..
            })
        ));
        let mut x = a.clone();
        let mut y = a.clone();
        x.insert_all(0..60u32);
        y.insert_all(40..100u32);
        x.intersect(&y).unwrap();
        assert!((40..60u32).all(|k| x.contains(&k)));
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_build_equals_sequential() {
        use rayon::prelude::*;
        let keys: Vec<u64> = (0..200_000).collect();
        let mut seq = BlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
        seq.insert_all(&keys);
        // Every plan, whatever this machine's cache would choose for a filter this size.
        use bloom_core::internal::par::{Plan, with_plan};
        for plan in [
            Plan::Sequential,
            Plan::Copies(2),
            Plan::Copies(3),
            Plan::Scatter,
        ] {
            let mut par = BlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
            with_plan(plan, || par.par_insert_all(&keys));
            assert_eq!(seq, par, "{plan:?}");
        }
        let collected: BlockedBloomFilter = keys.par_iter().collect();
        assert_eq!(collected, seq);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_is_the_byte_format() {
        let mut f = BlockedBloomFilter::new(100, 0.01).unwrap();
        f.insert("serde");
        let json = serde_json::to_string(&f).unwrap();
        let back: BlockedBloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        assert!(serde_json::from_str::<BlockedBloomFilter>("[1,2,3]").is_err());
    }
}
