//! Apache Parquet's split-block Bloom filter, bit for bit.

use alloc::{format, vec::Vec};
use core::hash::{Hash, Hasher};

#[cfg(feature = "std")]
use bloom_core::PersistIo;
use bloom_core::format::{HashScheme, Variant};
use bloom_core::internal::batch::{
    BurstInsert, Lines, OneLine, insert_hashes_in_bursts, insert_keys,
};
use bloom_core::internal::caches::l2_cache_bytes;
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::{
    self, BufferedHasher, ByteReader, Checksum, Digest, Output, Sink, Xxh64, prefetch,
};
use bloom_core::{Error, Filter, Persist};

use crate::params::fold_factor;
use crate::probe::split_contains_le_bytes;
use crate::probe::{Probe, SplitKernel};
use crate::storage::{BlockRead, Blocks, SplitBlock};
use crate::thrift::{BITSET_MAX_BYTES, BITSET_MIN_BYTES, ParquetHeader};

/// Parameter bytes in the binary format: `num_bytes` u64.
const PARAMS_LEN: usize = 8;

/// Bytes of one 256-bit block.
const BLOCK_BYTES: usize = 32;

/// Keys hashed per burst of `insert_all`, each prefetching its block (the blocked layouts'
/// burst).
const INSERT_BURST: usize = 64;

/// Apache Parquet's split-block Bloom filter (SBBF), exactly as the Parquet format specifies
/// it (parquet-format, BloomFilter.md), so Spark, DuckDB, DataFusion, Trino and the `parquet`
/// crate read what it writes and it reads what they write.
///
/// * A value is hashed with XXH64, seed 0, over its plain encoding (little-endian `i32`,
///   `i64`, IEEE-754 `f32`/`f64`; the bytes of a byte array without their length prefix).
/// * The bitset is z blocks of eight little-endian `u32` words. The hash's high 32 bits pick
///   the block, `((h >> 32) * z) >> 32`; in word j of it the bit
///   `(low32(h) * SALT[j]) >> 27` is set (wrapping 32-bit multiplication, the spec's eight
///   salts).
///
/// The bitset alone is [`bitset_bytes`](SplitBlockBloomFilter::bitset_bytes); with
/// Parquet's Thrift `BloomFilterHeader` in front, as stored in a file, it is
/// [`to_parquet_bytes`](SplitBlockBloomFilter::to_parquet_bytes). [`to_bytes`](
/// SplitBlockBloomFilter::to_bytes) is the workspace's own checksummed format.
///
/// Generic keys (`insert(&key)` with `T: Hash`) are hashed over the bytes `Hash` writes, which
/// for integers is their plain encoding (`insert(&5i64)` equals `insert_i64(5)`), but for
/// strings and byte slices adds a length or terminator: use
/// [`insert_bytes`](SplitBlockBloomFilter::insert_bytes) for Parquet's byte arrays.
///
/// Unlike the workspace's other filters, this one hashes each integer type at its own width,
/// because Parquet does: an `INT32` column's filter holds 4-byte values and readers probe it
/// with 4-byte values. So `contains(&5)` (an `i32`) does not find a key inserted as `5i64`;
/// write the width of the column (`5i64`, or [`contains_i64`](SplitBlockBloomFilter::contains_i64)).
///
/// # Examples
///
/// ```
/// use bloom_blocked::SplitBlockBloomFilter;
///
/// let mut filter = SplitBlockBloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000i64 {
///     filter.insert_i64(i);
/// }
/// filter.insert_bytes(b"hello");
/// assert!((0..10_000i64).all(|i| filter.contains_i64(i)) && filter.contains_bytes(b"hello"));
/// let fp = (10_000..110_000i64).filter(|&i| filter.contains_i64(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000");
/// let parquet = filter.to_parquet_bytes();
/// assert_eq!(SplitBlockBloomFilter::from_parquet_bytes(&parquet)?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct SplitBlockBloomFilter {
    blocks: Blocks<SplitBlock>,
    kernel: SplitKernel,
}

impl PartialEq for SplitBlockBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

impl Eq for SplitBlockBloomFilter {}

impl core::fmt::Debug for SplitBlockBloomFilter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SplitBlockBloomFilter")
            .field("num_bytes", &self.num_bytes())
            .field("probe", &self.kernel.probe())
            .finish()
    }
}

/// Parquet's size for an explicit byte count: clamped to 32 bytes..128 MiB, then rounded up
/// to a power of two.
fn parquet_num_bytes(num_bytes: usize) -> usize {
    num_bytes
        .clamp(BITSET_MIN_BYTES, BITSET_MAX_BYTES)
        .next_power_of_two()
}

impl SplitBlockBloomFilter {
    /// A filter for `ndv` distinct values at false-positive rate `fpp`, sized by Parquet's
    /// rule: `m = -8 ndv / ln(1 - fpp^(1/8))` bits (the split-block rate, Putze, Sanders and
    /// Singler, WEA 2007, solved for m with k = 8), in bytes rounded up to a power of two
    /// (at least 32). The same `(ndv, fpp)` gives the same size as the `parquet` crate's
    /// `Sbbf::new_with_ndv_fpp`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `ndv = 0` or `fpp` not in (0, 1) (NaN included);
    /// [`Error::TooLarge`] when the rule asks for more than Parquet's 128 MiB limit (the
    /// `parquet` crate clamps silently, and its filter then misses the rate).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// assert_eq!(SplitBlockBloomFilter::new(1_000_000, 0.01)?.num_bytes(), 2 << 20);
    /// assert!(SplitBlockBloomFilter::new(1 << 40, 0.01).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(ndv: u64, fpp: f64) -> Result<Self, Error> {
        Ok(Self::with_num_bytes(Self::bytes_for::<Native>(ndv, fpp)?))
    }

    /// The bytes Parquet's rule gives `(ndv, fpp)`, before rounding to a power of two, with
    /// the float functions of `F`.
    fn bytes_for<F: Float>(ndv: u64, fpp: f64) -> Result<usize, Error> {
        bloom_core::internal::check_count("ndv", ndv)?;
        bloom_core::internal::check_rate("fpp", fpp)?;
        let num_bits = -8.0 * ndv as f64 / F::ln(1.0 - F::powf(fpp, 1.0 / 8.0));
        let num_bytes = num_bits / 8.0;
        // `num_bytes` is finite and positive here (ndv >= 1, fpp in (0, 1)).
        if num_bytes > BITSET_MAX_BYTES as f64 {
            return Err(Error::TooLarge {
                requested_bits: num_bits,
                max_bits: BITSET_MAX_BYTES as u64 * 8,
            });
        }
        Ok(num_bytes as usize)
    }

    /// A filter of `num_bytes` bytes by Parquet's rule: clamped to 32 bytes..128 MiB and
    /// rounded up to a power of two, as the `parquet` crate's `Sbbf::new_with_num_of_bytes`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// assert_eq!(SplitBlockBloomFilter::with_num_bytes(1000).num_bytes(), 1024);
    /// assert_eq!(SplitBlockBloomFilter::with_num_bytes(0).num_bytes(), 32);
    /// ```
    pub fn with_num_bytes(num_bytes: usize) -> Self {
        let blocks = parquet_num_bytes(num_bytes) / BLOCK_BYTES;
        SplitBlockBloomFilter {
            blocks: Blocks::zeroed(blocks).expect("at most 128 MiB"),
            kernel: SplitKernel::new(Probe::best()),
        }
    }

    /// Returns this filter using the given query implementation (same bits, same answers).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `probe` is not available on this CPU.
    pub fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        self.kernel = SplitKernel::new(probe.check()?);
        Ok(self)
    }

    /// The query implementation in use.
    pub fn probe(&self) -> Probe {
        self.kernel.probe()
    }

    /// Bytes of the bitset (32 per block).
    pub fn num_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
    }

    /// The number of 256-bit blocks, z.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Parquet's hash of a value's plain-encoded bytes: XXH64 with seed 0.
    #[inline]
    pub fn hash_bytes(bytes: &[u8]) -> u64 {
        <Xxh64 as Digest>::oneshot(bytes, 0)
    }

    /// The hash of a generic key: XXH64 (seed 0) over the bytes its `Hash` writes, integers
    /// little-endian (see the type's docs for what that means for strings).
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        hash_key(key)
    }

    /// Parquet's block for a hash: `((h >> 32) * z) >> 32` for z blocks, which is the
    /// multiply-shift of the high 32 bits placed at the top of a word.
    #[inline(always)]
    pub(crate) fn block_key(hash: u64) -> u64 {
        hash & !0xffff_ffff
    }

    /// Adds a pre-computed XXH64 hash; returns whether all its bits were set before.
    #[inline(always)]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let kernel = self.kernel;
        kernel.insert(self.blocks.at_mut(Self::block_key(hash)), hash as u32)
    }

    /// Whether a pre-computed XXH64 hash may be present.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.kernel
            .contains(self.blocks.at(Self::block_key(hash)), hash as u32)
    }

    /// Adds a generic key (see the type's docs); returns whether it was possibly present.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Whether a generic key may be present.
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Adds a value by its plain-encoded bytes (a `BYTE_ARRAY` or `FIXED_LEN_BYTE_ARRAY`
    /// value's bytes, a UTF-8 string's bytes).
    #[inline]
    pub fn insert_bytes(&mut self, bytes: &[u8]) -> bool {
        self.insert_hash(Self::hash_bytes(bytes))
    }

    /// Whether a value given by its plain-encoded bytes may be present.
    #[inline]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_hash(Self::hash_bytes(bytes))
    }

    /// Adds an `INT32` value (plain encoding: 4 bytes little-endian).
    #[inline]
    pub fn insert_i32(&mut self, value: i32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Whether an `INT32` value may be present.
    #[inline]
    pub fn contains_i32(&self, value: i32) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Adds an `INT64` value (plain encoding: 8 bytes little-endian).
    #[inline]
    pub fn insert_i64(&mut self, value: i64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Whether an `INT64` value may be present.
    #[inline]
    pub fn contains_i64(&self, value: i64) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Adds a `FLOAT` value (plain encoding: IEEE-754 bits, 4 bytes little-endian; `0.0`
    /// and `-0.0`, and NaNs with different payloads, are different values).
    #[inline]
    pub fn insert_f32(&mut self, value: f32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Whether a `FLOAT` value may be present.
    #[inline]
    pub fn contains_f32(&self, value: f32) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Adds a `DOUBLE` value (plain encoding: IEEE-754 bits, 8 bytes little-endian).
    #[inline]
    pub fn insert_f64(&mut self, value: f64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Whether a `DOUBLE` value may be present.
    #[inline]
    pub fn contains_f64(&self, value: f64) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Adds every key of `keys` (generic keys, see the type's docs), the same bits as
    /// [`insert`](SplitBlockBloomFilter::insert) key by key. The keys go in groups hashed
    /// before any is inserted; in a filter larger than the L2 cache, in bursts whose blocks
    /// are also prefetched first, so the cache misses overlap (`docs/blocked.md`, "Parquet's
    /// split-block filter", has the measurements).
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        let burst = (self.num_bytes() > l2_cache_bytes()).then_some(INSERT_BURST);
        let hashes = keys.into_iter().map(|key| hash_key(&key));
        insert_keys(&mut Bursts(self), burst, hashes);
    }

    /// Adds pre-computed XXH64 hashes (as [`insert_hash`](SplitBlockBloomFilter::insert_hash)
    /// one by one), in bursts whose blocks are prefetched before any of the burst is inserted:
    /// for a writer that hashes its values itself.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut filter = SplitBlockBloomFilter::new(1000, 0.01)?;
    /// let hashes: Vec<u64> = (0..1000i64)
    ///     .map(|v| SplitBlockBloomFilter::hash_bytes(&v.to_le_bytes()))
    ///     .collect();
    /// filter.insert_hashes(&hashes);
    /// assert!((0..1000i64).all(|v| filter.contains_i64(v)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_hashes(&mut self, hashes: &[u64]) {
        insert_hashes_in_bursts(&mut Bursts(self), INSERT_BURST, hashes);
    }

    /// Answers [`contains`](SplitBlockBloomFilter::contains) for every key, in order, through
    /// the workspace's batch engine (in `bloom-core`): the blocks of a burst of keys
    /// are prefetched before any is tested, on filters larger than the cache.
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](SplitBlockBloomFilter::contains_batch) into a caller's buffer
    /// (cleared first).
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        SplitBatch {
            blocks: self.blocks.reader(),
            kernel: self.kernel,
        }
        .contains_batch_into(keys, out);
    }

    fn words(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocks.as_slice().iter().flat_map(|b| b.0)
    }

    /// The number of bits set.
    pub fn count_ones(&self) -> u64 {
        self.words().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / (self.num_bytes() * 8) as f64
    }

    /// The false-positive rate at the current fill: the mean over blocks of the product over
    /// the eight words of the fraction of the word's bits set.
    pub fn estimated_fpr(&self) -> f64 {
        let total: f64 = self
            .blocks
            .as_slice()
            .iter()
            .map(|b| {
                b.0.iter()
                    .map(|w| f64::from(w.count_ones()) / 32.0)
                    .product::<f64>()
            })
            .sum();
        total / self.num_blocks() as f64
    }

    /// The number of distinct values inserted, estimated from the fill: each value sets one
    /// bit in each word of its block, so a word with X of 32 bits set has seen about
    /// `ln(1 - X/32) / ln(1 - 1/32)` values; the estimate averages the eight words of each
    /// block and sums over blocks, rounded to the nearest integer.
    /// `u64::MAX` when a word is full (the count can then not be known).
    pub fn estimated_len(&self) -> u64 {
        let per_value = Native::ln_1p(-1.0f64 / 32.0);
        let estimate = self
            .words()
            .map(|w| {
                if w == u32::MAX {
                    f64::INFINITY
                } else {
                    Native::ln_1p(-f64::from(w.count_ones()) / 32.0) / per_value / 8.0
                }
            })
            .sum::<f64>();
        bloom_core::internal::round_count(estimate)
    }

    /// Bytes held by the filter.
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.blocks.heap_bytes()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.blocks.clear();
    }

    /// Adds every value of `other`. Parquet's sizes are powers of two, so any two filters
    /// combine: the larger is [folded](SplitBlockBloomFilter::fold) to the smaller first
    /// (`self` shrinks when it is the larger), and the result is the filter of both value
    /// sets at the smaller size.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] (`num_bytes`) when the sizes are not a power of two apart
    /// (only for sizes Parquet does not produce); `self` is unchanged.
    pub fn union(&mut self, other: &SplitBlockBloomFilter) -> Result<(), Error> {
        self.combine(other, |a, b| *a |= b)
    }

    /// Keeps only bits set in both filters (the larger folded to the smaller first, as in
    /// [`union`](SplitBlockBloomFilter::union)).
    ///
    /// # Errors
    ///
    /// As [`union`](SplitBlockBloomFilter::union); `self` is unchanged.
    pub fn intersect(&mut self, other: &SplitBlockBloomFilter) -> Result<(), Error> {
        self.combine(other, |a, b| *a &= b)
    }

    /// Applies `op` word by word to `self` and `other`, the larger folded to the smaller.
    fn combine(
        &mut self,
        other: &SplitBlockBloomFilter,
        op: impl Fn(&mut u64, u64),
    ) -> Result<(), Error> {
        let (ours, theirs) = (self.num_blocks(), other.num_blocks());
        let block_bits = BLOCK_BYTES as u64 * 8;
        let folded;
        let other_words = if ours == theirs {
            other.blocks.words()
        } else if ours < theirs {
            folded = other.blocks.fold(fold_factor(theirs, ours, block_bits)?)?;
            folded.words()
        } else {
            *self = self.fold(fold_factor(ours, theirs, block_bits)?)?;
            other.blocks.words()
        };
        for (a, &b) in self.blocks.words_mut().iter_mut().zip(other_words) {
            op(a, b);
        }
        Ok(())
    }

    /// The filter folded by `factor` (a power of two dividing the block count): block `j` of
    /// the result is the OR of blocks `j * factor` to `j * factor + factor - 1`. Parquet picks
    /// a value's block as `((h >> 32) * z) >> 32` and its bits from the low 32 bits of `h`, so
    /// the result is exactly (byte for byte) the filter of `z / factor` blocks built from the
    /// same values, and any Parquet reader finds every value in it. Build a column chunk's
    /// filter at the largest size before its distinct count is known, then fold it to the
    /// size the count needs ([`fold_to_fit`](SplitBlockBloomFilter::fold_to_fit)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (`factor`) unless `factor` is a power of two dividing
    /// [`num_blocks`](SplitBlockBloomFilter::num_blocks) (at least one block is left);
    /// [`Error::OutOfMemory`] when the allocator refuses the result.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut large = SplitBlockBloomFilter::with_num_bytes(1 << 20);
    /// let mut small = SplitBlockBloomFilter::with_num_bytes(1 << 14);
    /// for v in 0..1_000i64 {
    ///     large.insert_i64(v);
    ///     small.insert_i64(v);
    /// }
    /// assert_eq!(large.fold(64)?.bitset_bytes(), small.bitset_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold(&self, factor: u32) -> Result<Self, Error> {
        Ok(SplitBlockBloomFilter {
            blocks: self.blocks.fold(factor)?,
            kernel: self.kernel,
        })
    }

    /// The filter folded to the size [`new(ndv, fpp)`](SplitBlockBloomFilter::new) gives,
    /// or left as it is (a copy) when it is already that small or smaller: Parquet's writers
    /// can size for the most values a column chunk may hold, and fit the filter to the count
    /// they saw when the chunk is written.
    ///
    /// # Errors
    ///
    /// Those of [`new`](SplitBlockBloomFilter::new) for the parameters, and of
    /// [`fold`](SplitBlockBloomFilter::fold).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut filter = SplitBlockBloomFilter::new(10_000_000, 0.01)?;
    /// for v in 0..50_000i64 {
    ///     filter.insert_i64(v);
    /// }
    /// let fitted = filter.fold_to_fit(50_000, 0.01)?;
    /// assert_eq!(fitted.num_bytes(), SplitBlockBloomFilter::new(50_000, 0.01)?.num_bytes());
    /// assert!((0..50_000i64).all(|v| fitted.contains_i64(v)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold_to_fit(&self, ndv: u64, fpp: f64) -> Result<Self, Error> {
        let needed = parquet_num_bytes(Self::bytes_for::<Native>(ndv, fpp)?) / BLOCK_BYTES;
        let factor = (self.num_blocks() / needed).max(1);
        // Both counts are powers of two, so the ratio is one (or below 1, clamped to 1).
        self.fold(u32::try_from(factor).unwrap_or(1 << 31))
    }

    /// The filter folded as often as its expected rate stays within `target_fpp`, judged
    /// from its fill: with a share `f` of bits set, `j` folds (each ORing pairs of blocks)
    /// leave a fill of `1 - (1 - f)^(2^j)` and an expected rate of that to the 8th power (8
    /// bits tested per value); an empty filter folds to one block. This is the rule of the
    /// `parquet` crate's `Sbbf::fold_to_target_fpp` (version 59), and gives its bytes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `target_fpp` not in (0, 1).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut filter = SplitBlockBloomFilter::with_num_bytes(1 << 20);
    /// for v in 0..10_000i64 {
    ///     filter.insert_i64(v);
    /// }
    /// let folded = filter.fold_to_fpp(0.01)?;
    /// assert!(folded.num_bytes() <= 1 << 14);
    /// assert!(folded.estimated_fpr() <= 0.011);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold_to_fpp(&self, target_fpp: f64) -> Result<Self, Error> {
        bloom_core::internal::check_rate("target_fpp", target_fpp)?;
        let blocks = self.num_blocks();
        let max_folds = blocks.trailing_zeros();
        let fill = self.count_ones() as f64 / (blocks as f64 * (BLOCK_BYTES * 8) as f64);
        let mut folds = 0;
        if fill == 0.0 {
            folds = max_folds;
        } else {
            let mut clear = 1.0 - fill;
            while folds < max_folds {
                clear *= clear;
                if Native::powi(1.0 - clear, 8) > target_fpp {
                    break;
                }
                folds += 1;
            }
        }
        self.fold(1 << folds)
    }

    /// The raw bitset as Parquet stores it: the blocks' `u32` words, little-endian.
    pub fn bitset_bytes(&self) -> Vec<u8> {
        let mut out = Sink::in_memory(self.num_bytes());
        self.write_bitset(&mut out);
        out.into_vec()
    }

    /// Puts the bitset into `out`: the payload of every byte form of the filter.
    fn write_bitset(&self, out: &mut Sink<'_>) {
        for w in self.words() {
            out.put(&w.to_le_bytes());
        }
    }

    /// A filter over a raw Parquet bitset.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] unless the length is a multiple of 32 between 32 bytes and 128 MiB
    /// (any whole number of blocks: the block index formula needs no power of two, though
    /// Parquet writers produce one).
    pub fn from_bitset(bitset: &[u8]) -> Result<Self, Error> {
        let n = check_bitset_len(bitset.len() as u64)?;
        let mut filter = SplitBlockBloomFilter {
            blocks: Blocks::zeroed(n / BLOCK_BYTES)?,
            kernel: SplitKernel::new(Probe::best()),
        };
        for (block, chunk) in filter
            .blocks
            .as_mut_slice()
            .iter_mut()
            .zip(bitset.chunks_exact(BLOCK_BYTES))
        {
            *block = SplitBlock::from_le_bytes(chunk);
        }
        Ok(filter)
    }

    /// Parquet's serialised form, as stored in a file: the Thrift-compact
    /// `BloomFilterHeader` ([`ParquetHeader`]) followed by the bitset.
    pub fn to_parquet_bytes(&self) -> Vec<u8> {
        let mut header = Vec::with_capacity(16);
        ParquetHeader {
            num_bytes: self.num_bytes(),
        }
        .write(&mut header);
        let mut out = Sink::in_memory(header.len() + self.num_bytes());
        out.put(&header);
        self.write_bitset(&mut out);
        out.into_vec()
    }

    /// Reads Parquet's serialised form: a `BloomFilterHeader` and exactly the bitset it
    /// announces (the `parquet` crate's `Sbbf::write` output, or a filter's bytes cut from a
    /// file using the column chunk's `bloom_filter_length`).
    ///
    /// # Errors
    ///
    /// The errors of [`ParquetHeader::read`]; [`Error::Truncated`] when the bitset is
    /// shorter than announced, [`Error::Corrupt`] when bytes follow it.
    pub fn from_parquet_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (header, header_len) = ParquetHeader::read(bytes)?;
        let bitset = &bytes[header_len..];
        let expected = header.num_bytes;
        if bitset.len() < expected {
            return Err(Error::Truncated {
                needed: expected as u64,
                available: bitset.len() as u64,
            });
        }
        if bitset.len() > expected {
            return Err(Error::corrupt(format!(
                "{} bytes after the bitset",
                bitset.len() - expected
            )));
        }
        Self::from_bitset(bitset)
    }

    /// The filter in the workspace's binary format (`docs/format.md`): the header (hash
    /// scheme Parquet's, seed 0), `num_bytes`, the Parquet bitset, and a checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        internal::encode_to(
            output,
            Variant::SplitBlock,
            HashScheme::ParquetXxh64,
            0,
            &(self.num_bytes() as u64).to_le_bytes(),
            self.num_bytes() as u64,
            |out| self.write_bitset(out),
        )
    }

    /// Writes the bytes of [`to_bytes`](SplitBlockBloomFilter::to_bytes) to `writer`, 64 KiB
    /// at a time: memory beyond the filter is that buffer, whatever the filter's size.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut filter = SplitBlockBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u64);
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// assert_eq!(SplitBlockBloomFilter::read_from(&file[..])?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<(), Error> {
        self.encode(Output::Writer(&mut writer)).map(drop)
    }

    /// Reads a filter from `reader`, as [`from_bytes`](SplitBlockBloomFilter::from_bytes)
    /// reads the bytes of [`to_bytes`](SplitBlockBloomFilter::to_bytes) or
    /// [`write_to`](SplitBlockBloomFilter::write_to). Reads exactly the filter's bytes;
    /// memory grows only as bytes arrive (`docs/format.md`, "Streaming").
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](SplitBlockBloomFilter::from_bytes) ([`Error::Truncated`] when
    /// the stream ends early, whatever length the header claims); [`Error::Io`] when the
    /// reader fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let filter = SplitBlockBloomFilter::new(1000, 0.01)?;
    /// let mut stream = Cursor::new(Vec::new());
    /// filter.write_to(&mut stream)?;
    /// stream.set_position(0);
    /// assert_eq!(SplitBlockBloomFilter::read_from(&mut stream)?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn read_from<R: std::io::Read>(mut reader: R) -> Result<Self, Error> {
        if cfg!(target_endian = "big") {
            // The blocks' u32 words are little-endian bytes; `read_words` gives native
            // u64s, whose halves a big-endian machine would see swapped: collect the
            // frame and decode it instead.
            let bytes = internal::read_frame(
                &mut reader,
                Variant::SplitBlock,
                HashScheme::ParquetXxh64,
                PARAMS_LEN,
            )?;
            return Self::from_bytes(&bytes);
        }
        // The bitset goes straight into the blocks the filter keeps.
        let mut frame = internal::FrameReader::open(
            &mut reader,
            Variant::SplitBlock,
            HashScheme::ParquetXxh64,
            PARAMS_LEN,
        )?;
        let (frame_seed, params) = (frame.seed, core::mem::take(&mut frame.params));
        // The payload first (its store grows only as bytes arrive), then the checks, so
        // a short stream is `Truncated` whatever its header says, as `from_bytes` says.
        let payload_len = frame.remaining();
        let words = frame.finish_with_words()?;
        let num_bytes = check_frame(frame_seed, &params, payload_len)?;
        Ok(SplitBlockBloomFilter {
            blocks: Blocks::from_words(words, num_bytes / BLOCK_BYTES)?,
            kernel: SplitKernel::new(Probe::best()),
        })
    }

    /// Reads a filter written by [`to_bytes`](SplitBlockBloomFilter::to_bytes).
    ///
    /// # Errors
    ///
    /// Any framing error of the format, [`Error::Corrupt`] for a seed other than 0, a size
    /// that disagrees with the payload, or a size Parquet does not allow. Never a panic;
    /// allocates the payload's size plus 56 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bitset(decode_payload(bytes, Checksum::Verify)?)
    }
}

/// Parquet's hash of a generic key: XXH64 (seed 0) over the bytes its `Hash` writes.
#[inline]
pub(crate) fn hash_key<T: Hash + ?Sized>(key: &T) -> u64 {
    // Buffers what `Hash` writes (integers little-endian) and finishes with one XXH64
    // (seed 0): for a single integer key, exactly Parquet's hash of its plain encoding.
    let mut hasher = BufferedHasher::<Xxh64>::new(0);
    key.hash(&mut hasher);
    hasher.finish()
}

/// The bitset of a split-block filter's bytes in the workspace's format, its framing, seed
/// and size checked (and its checksum as `checksum` says): `from_bytes` and the view's
/// `from_bytes` share it.
pub(crate) fn decode_payload(bytes: &[u8], checksum: Checksum) -> Result<&[u8], Error> {
    let frame = internal::decode_frame(
        bytes,
        Variant::SplitBlock,
        HashScheme::ParquetXxh64,
        PARAMS_LEN,
        checksum,
    )?;
    check_frame(frame.seed, frame.params, frame.payload.len() as u64)?;
    Ok(frame.payload)
}

/// Checks a split-block frame's seed (0) and size parameter against its payload's length:
/// the bitset's length in bytes.
fn check_frame(seed: u64, params: &[u8], payload_len: u64) -> Result<usize, Error> {
    if seed != 0 {
        return Err(Error::corrupt(format!(
            "seed {seed} (Parquet's hash has seed 0)"
        )));
    }
    let num_bytes = ByteReader::new(params).u64()?;
    if num_bytes != payload_len {
        return Err(Error::corrupt(format!(
            "num_bytes {num_bytes} for a payload of {payload_len} bytes"
        )));
    }
    check_bitset_len(num_bytes)
}

/// The length of a bitset Parquet allows: a multiple of 32 between 32 bytes and 128 MiB.
fn check_bitset_len(n: u64) -> Result<usize, Error> {
    match usize::try_from(n) {
        Ok(n) if (BITSET_MIN_BYTES..=BITSET_MAX_BYTES).contains(&n) && n % BLOCK_BYTES == 0 => {
            Ok(n)
        }
        _ => Err(Error::corrupt(format!(
            "a bitset of {n} bytes: not a multiple of 32 in 32..={BITSET_MAX_BYTES}"
        ))),
    }
}

impl<T: Hash> Extend<T> for SplitBlockBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

impl Filter for SplitBlockBloomFilter {
    type Hash = u64;
    const NAME: &'static str = "SplitBlockBloomFilter";

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: u64) -> Result<bool, Error> {
        Ok(SplitBlockBloomFilter::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: u64) -> bool {
        SplitBlockBloomFilter::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        SplitBlockBloomFilter::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        SplitBlockBloomFilter::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        SplitBlockBloomFilter::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        SplitBlockBloomFilter::estimated_len(self)
    }

    fn clear(&mut self) {
        SplitBlockBloomFilter::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        SplitBlockBloomFilter::union(self, other)
    }
}

impl Persist for SplitBlockBloomFilter {
    fn to_bytes(&self) -> Vec<u8> {
        SplitBlockBloomFilter::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        SplitBlockBloomFilter::from_bytes(bytes)
    }
}

#[cfg(feature = "std")]
impl PersistIo for SplitBlockBloomFilter {
    fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error> {
        SplitBlockBloomFilter::write_to(self, writer)
    }

    fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error> {
        SplitBlockBloomFilter::read_from(reader)
    }
}

/// The bytes of [`to_bytes`](SplitBlockBloomFilter::to_bytes) (base64 in human-readable formats).
#[cfg(feature = "serde")]
impl serde::Serialize for SplitBlockBloomFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        bloom_core::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
    }
}

/// From the bytes of [`to_bytes`](SplitBlockBloomFilter::to_bytes), checked as
/// [`from_bytes`](SplitBlockBloomFilter::from_bytes) checks them.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SplitBlockBloomFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        bloom_core::internal::serde_bytes::deserialize(
            deserializer,
            SplitBlockBloomFilter::from_bytes,
        )
    }
}

/// A split-block filter's inserts for [`insert_keys`]: the key's block prefetched, then its
/// bits set.
struct Bursts<'a>(&'a mut SplitBlockBloomFilter);

impl BurstInsert for Bursts<'_> {
    type Hash = u64;

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        prefetch(self.0.blocks.at(SplitBlockBloomFilter::block_key(hash)));
    }

    #[inline(always)]
    fn insert(&mut self, hash: u64) {
        self.0.insert_hash(hash);
    }
}

/// Split blocks in the batch engine, wherever they lie (the owning filter's memory, a
/// view's bytes): one block per key.
pub(crate) struct SplitBatch<S> {
    pub(crate) blocks: S,
    pub(crate) kernel: SplitKernel,
}

impl<S: BlockRead<SplitBlock>> SplitBatch<S> {
    /// The batch query of these blocks, through the workspace's batch engine.
    #[inline]
    pub(crate) fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        bloom_core::internal::batch::contains_batch_into(&Lines(self), keys, out);
    }
}

impl<S: BlockRead<SplitBlock>> OneLine for SplitBatch<S> {
    /// The key's block and the low 32 bits of its hash, which place its bits there.
    type Staged = (S::At, u32);

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.blocks.footprint()
    }

    #[inline(always)]
    fn locate<T: Hash>(&self, key: &T) -> (S::At, u32) {
        let hash = hash_key(key);
        (
            self.blocks.at(SplitBlockBloomFilter::block_key(hash)),
            hash as u32,
        )
    }

    #[inline(always)]
    fn prefetch(&self, (block, _): (S::At, u32)) {
        S::prefetch(block);
    }

    #[inline(always)]
    fn test(&self, (block, x): (S::At, u32)) -> bool {
        S::test(
            block,
            |block| self.kernel.contains(block, x),
            |bytes| split_contains_le_bytes(bytes, x),
        )
    }

    #[inline(always)]
    fn empty(&self) -> (S::At, u32) {
        (self.blocks.at(0), 0)
    }
}

#[cfg(feature = "rayon")]
impl SplitBlockBloomFilter {
    /// [`contains_batch`](SplitBlockBloomFilter::contains_batch) on all of rayon's threads: the keys
    /// split into one task per share, each answered by the batch query. The answers are
    /// those of `contains_batch`.
    pub fn par_contains_batch<T: Hash + Sync>(&self, keys: &[T]) -> Vec<bool> {
        bloom_core::internal::par::par_contains_batch(keys, |part, out| {
            self.contains_batch_into(part, out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libm (the float functions without `std`) gives the split-block filter the size the
    /// standard library gives it, over a grid of (ndv, fpp).
    #[cfg(feature = "std")]
    #[test]
    fn libm_gives_the_std_sizes() {
        use bloom_core::internal::float::{Portable, Std};
        for i in 0..200u64 {
            let ndv = (bloom_core::keys::mix(i) >> (30 + i % 34)).max(1);
            for j in 1..=200u64 {
                let fpp = j as f64 / 401.0 / 10f64.powi((i % 9) as i32);
                let size = |bytes: Result<usize, Error>| bytes.map(parquet_num_bytes);
                let with_std = size(SplitBlockBloomFilter::bytes_for::<Std>(ndv, fpp));
                let with_libm = size(SplitBlockBloomFilter::bytes_for::<Portable>(ndv, fpp));
                assert_eq!(with_std.is_ok(), with_libm.is_ok(), "{ndv} {fpp:e}");
                if let (Ok(a), Ok(b)) = (with_std, with_libm) {
                    assert_eq!(a, b, "ndv {ndv}, fpp {fpp:e}");
                }
            }
        }
    }

    #[test]
    fn generic_integers_hash_as_plain_encoding() {
        let f = SplitBlockBloomFilter::with_num_bytes(64);
        assert_eq!(
            f.hash(&5i64),
            SplitBlockBloomFilter::hash_bytes(&5i64.to_le_bytes())
        );
        assert_eq!(
            f.hash(&-3i32),
            SplitBlockBloomFilter::hash_bytes(&(-3i32).to_le_bytes())
        );
        // XXH64 of the empty input with seed 0 (the reference implementation's test vector).
        assert_eq!(
            SplitBlockBloomFilter::hash_bytes(b""),
            0xef46_db37_51d8_e999
        );
        let long: Vec<u8> = (0..200).map(|i| i as u8).collect();
        let mut expected = 200u64.to_le_bytes().to_vec();
        expected.extend_from_slice(&long);
        assert_eq!(f.hash(&long), SplitBlockBloomFilter::hash_bytes(&expected));
    }

    #[test]
    fn sizing_follows_parquet() {
        assert_eq!(SplitBlockBloomFilter::with_num_bytes(33).num_bytes(), 64);
        assert_eq!(
            SplitBlockBloomFilter::with_num_bytes(usize::MAX).num_bytes(),
            BITSET_MAX_BYTES
        );
        assert!(SplitBlockBloomFilter::new(0, 0.1).is_err());
        assert!(SplitBlockBloomFilter::new(10, 1.0).is_err());
        assert!(SplitBlockBloomFilter::new(10, f64::NAN).is_err());
    }

    #[test]
    fn bitset_and_parquet_forms_round_trip() {
        let mut f = SplitBlockBloomFilter::with_num_bytes(1024);
        for i in 0..100 {
            f.insert_i32(i);
            f.insert_f64(f64::from(i) / 3.0);
        }
        assert_eq!(
            SplitBlockBloomFilter::from_bitset(&f.bitset_bytes()).unwrap(),
            f
        );
        let p = f.to_parquet_bytes();
        assert_eq!(SplitBlockBloomFilter::from_parquet_bytes(&p).unwrap(), f);
        assert!(SplitBlockBloomFilter::from_parquet_bytes(&p[..p.len() - 1]).is_err());
        let mut longer = p.clone();
        longer.push(0);
        assert!(SplitBlockBloomFilter::from_parquet_bytes(&longer).is_err());
        assert!(SplitBlockBloomFilter::from_bitset(&[0; 48]).is_err());
        assert!(SplitBlockBloomFilter::from_bitset(&[]).is_err());
        assert!(SplitBlockBloomFilter::from_bitset(&[0; 96]).is_ok());
        assert_eq!(SplitBlockBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
    }

    /// `insert_all` (in groups in the cache, in prefetched bursts past it) and
    /// `insert_hashes` set the bits of inserting key by key.
    #[test]
    fn insert_all_and_insert_hashes_set_the_bits_of_single_inserts() {
        let past_l2 = 2 * l2_cache_bytes();
        for num_bytes in [1024, past_l2] {
            let mut bursts = SplitBlockBloomFilter::with_num_bytes(num_bytes);
            let (mut single, mut by_hash) = (bursts.clone(), bursts.clone());
            let keys: Vec<u64> = (0..50_000u64).map(|i| i * 0x9E37_79B9).collect();
            bursts.insert_all(&keys);
            for key in &keys {
                single.insert(key);
            }
            let hashes: Vec<u64> = keys.iter().map(|k| single.hash(k)).collect();
            by_hash.insert_hashes(&hashes);
            assert_eq!(bursts, single, "{num_bytes} bytes");
            assert_eq!(by_hash, single, "{num_bytes} bytes");
            assert!(keys.iter().all(|k| bursts.contains(k)));
        }
    }

    #[test]
    fn portable_and_simd_build_the_same_bits() {
        let mut a = SplitBlockBloomFilter::with_num_bytes(4096);
        let mut b = a.clone().with_probe(Probe::Portable).unwrap();
        for i in 0..2_000i64 {
            assert_eq!(a.insert_i64(i), b.insert_i64(i));
        }
        assert_eq!(a, b);
        for i in 0..20_000i64 {
            assert_eq!(a.contains_i64(i), b.contains_i64(i));
        }
    }
}
