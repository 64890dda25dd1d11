//! The one type both JVM filters are: a bit array, a hash count and a format, the library
//! whose hashes, probes and header bytes it follows. What the two share (the inserts and
//! queries by key kind, their batches, the estimates, the bytes' framing) is written here
//! once; what each library defines is its format's ([`Guava`] in `guava.rs`, [`Spark`] in
//! `spark.rs`).

use std::io::{Read, Write};

use bloom_core::Error;
use bloom_core::internal::ByteReader;
use bloom_core::internal::batch::{BurstInsert, direct_max_bytes, insert_keys};

use crate::bits::JvmBits;
use crate::guava::Guava;
use crate::spark::Spark;
use crate::wire::{self, Fields, Stream};

/// A JVM library's filter format: how a key's hash is computed and turned into probes, and
/// what the library's bytes hold before the bit array. Sealed: the formats are [`Guava`]
/// ([`GuavaBloomFilter`](crate::GuavaBloomFilter)) and [`Spark`]
/// ([`SparkBloomFilter`](crate::SparkBloomFilter)).
pub trait Format: sealed::Rules {}

impl Format for Guava {}
impl Format for Spark {}

pub(crate) mod sealed {
    use super::{Error, Fields, JvmBits};

    /// What a format decides, in terms of the crate's own types.
    pub trait Rules: Copy + Eq + core::fmt::Debug {
        /// The filter's type name, for `Debug`.
        const NAME: &'static str;
        /// A key's hash, from which its probes derive.
        type Hash: Copy + Default;
        /// The hash of a long (as the library's long funnel or `putLong` writes it).
        fn hash_long(self, key: i64) -> Self::Hash;
        /// The hash of a byte array (a string is its UTF-8 bytes).
        fn hash_bytes(self, key: &[u8]) -> Self::Hash;
        /// Sets the `k` bits of `hash`; whether any was clear (the library's `put` answer).
        fn set(self, bits: &mut JvmBits, k: u32, hash: Self::Hash) -> bool;
        /// Whether the `k` bits of `hash` are all set.
        fn contains(self, bits: &JvmBits, k: u32, hash: Self::Hash) -> bool;
        /// Prefetches the words the `k` bits of `hash` lie in (an insert's, ahead of it).
        fn prefetch(self, bits: &JvmBits, k: u32, hash: Self::Hash);
        /// [`contains`](Rules::contains) for every key, hashed by `hash`, into `out`.
        fn contains_batch<K>(
            self,
            bits: &JvmBits,
            k: u32,
            keys: &[K],
            hash: impl Fn(&K) -> Self::Hash,
            out: &mut Vec<bool>,
        );
        /// The bytes before the bit array.
        fn header(self, k: u32) -> Vec<u8>;
        /// Reads the fields before the bit array: the format and k.
        fn decode(fields: &mut impl Fields) -> Result<(Self, u32), Error>;
    }
}

/// A Bloom filter byte-compatible with a JVM library's: [`GuavaBloomFilter`] or
/// [`SparkBloomFilter`], whose docs give each library's hash, probes and bytes.
///
/// Its inserts come twice: `insert_*` answer as every `insert` of the workspace (whether the
/// key was possibly present before: `false` means it certainly was not), `put_*` as the
/// library's `put` (whether a bit changed, the opposite answer). Keys are longs, UTF-8
/// strings and byte arrays, hashed as the library hashes them.
///
/// [`GuavaBloomFilter`]: crate::GuavaBloomFilter
/// [`SparkBloomFilter`]: crate::SparkBloomFilter
#[derive(Clone, PartialEq, Eq)]
pub struct JvmBloomFilter<F: Format> {
    pub(crate) format: F,
    pub(crate) num_hashes: u32,
    pub(crate) bits: JvmBits,
}

impl<F: Format> std::fmt::Debug for JvmBloomFilter<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(F::NAME)
            .field("format", &self.format)
            .field("num_hashes", &self.num_hashes)
            .field("bit_size", &self.bit_size())
            .field("bit_count", &self.bits.count_ones())
            .finish()
    }
}

impl<F: Format> JvmBloomFilter<F> {
    /// Inserts a long (Guava's `put` through `Funnels.longFunnel()`; Spark's `putLong`, also
    /// its `put` of a `Byte`, `Short` or `Integer`, widened). Returns whether the key was
    /// possibly present before (all its bits were set), as every `insert` of the workspace
    /// does: `false` means it certainly was not.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter};
    ///
    /// let mut filter = SparkBloomFilter::new(1_000, 0.01)?;
    /// assert!(!filter.insert_i64(7)); // certainly new
    /// assert!(filter.insert_i64(7)); // possibly seen before
    /// let mut guava = GuavaBloomFilter::new(1_000, 0.01)?;
    /// assert!(!guava.insert_i64(42) && guava.insert_i64(42));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert_i64(&mut self, key: i64) -> bool {
        !self.set_hash(self.format.hash_long(key))
    }

    /// Inserts a string as its UTF-8 bytes (Guava's `Funnels.stringFunnel(UTF_8)`, Spark's
    /// `putString`). Returns whether the key was possibly present before.
    #[inline]
    pub fn insert_str(&mut self, key: &str) -> bool {
        self.insert_bytes(key.as_bytes())
    }

    /// Inserts a byte array (Guava's `Funnels.byteArrayFunnel()`, Spark's `putBinary`).
    /// Returns whether the key was possibly present before.
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        !self.set_hash(self.format.hash_bytes(key))
    }

    /// Inserts every long of `keys` in order: the same bits as
    /// [`insert_i64`](Self::insert_i64) key by key, faster. The keys go in groups of 16, each
    /// hashed before any of it is inserted; in a filter larger than a share of the last-level
    /// cache the words of a group's probes are also prefetched first, so their cache misses
    /// overlap where key by key (as the JVM libraries insert) each waits for its own
    /// (`docs/distributed.md`, "Building a JVM filter", has the measurements).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::SparkBloomFilter;
    ///
    /// let mut filter = SparkBloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all_i64(0..10_000);
    /// assert!((0..10_000).all(|k| filter.might_contain_long(k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert_all_i64<I: IntoIterator<Item = i64>>(&mut self, keys: I) {
        let format = self.format;
        self.insert_hashes(keys.into_iter().map(move |key| format.hash_long(key)));
    }

    /// Inserts every byte array (or string, as its UTF-8 bytes) of `keys` in order, as
    /// [`insert_bytes`](Self::insert_bytes) key by key, in groups as
    /// [`insert_all_i64`](Self::insert_all_i64) inserts.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_all_bytes(["alice", "bob"]);
    /// assert!(filter.might_contain_str("alice") && filter.might_contain_str("bob"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert_all_bytes<B: AsRef<[u8]>, I: IntoIterator<Item = B>>(&mut self, keys: I) {
        let format = self.format;
        self.insert_hashes(
            keys.into_iter()
                .map(move |key| format.hash_bytes(key.as_ref())),
        );
    }

    /// Inserts the keys hashed as `hashes` yields them, through the workspace's
    /// [`insert_keys`]: groups of keys hashed before any is inserted, and past the share of
    /// the cache where the batch queries of a filter of k probes start prefetching
    /// ([`direct_max_bytes`]) bursts whose probes' words are prefetched as each key is hashed.
    /// In the cache the core overlaps those reads by itself, and recomputing each probe's
    /// index for its prefetch costs more than it hides.
    #[inline]
    fn insert_hashes(&mut self, hashes: impl Iterator<Item = F::Hash>) {
        let burst = (self.memory_usage() > direct_max_bytes(false)).then_some(INSERT_BURST);
        insert_keys(&mut Bursts(self), burst, hashes);
    }

    /// The library's `put` of a long (Guava's `put` through the long funnel, Spark's
    /// `putLong`), with its answer: whether a bit changed, so `true` means the key is
    /// certainly new. The opposite of [`insert_i64`](Self::insert_i64):
    /// `put_long(k) == !insert_i64(k)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// assert!(filter.put_long(42)); // bits changed: certainly new
    /// assert!(!filter.put_long(42)); // nothing changed: possibly seen before
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn put_long(&mut self, key: i64) -> bool {
        !self.insert_i64(key)
    }

    /// The library's `put` of a string (Guava's through `Funnels.stringFunnel(UTF_8)`,
    /// Spark's `putString`): whether a bit changed, `put_str(k) == !insert_str(k)`
    /// ([`insert_str`](Self::insert_str)).
    #[inline]
    pub fn put_str(&mut self, key: &str) -> bool {
        !self.insert_str(key)
    }

    /// The library's `put` of a byte array (Guava's through `Funnels.byteArrayFunnel()`,
    /// Spark's `putBinary`): whether a bit changed, `put_bytes(k) == !insert_bytes(k)`
    /// ([`insert_bytes`](Self::insert_bytes)).
    #[inline]
    pub fn put_bytes(&mut self, key: &[u8]) -> bool {
        !self.insert_bytes(key)
    }

    /// Whether a long may have been inserted (Guava's `mightContain`, Spark's
    /// `mightContainLong`): `false` means certainly not.
    #[inline]
    pub fn might_contain_long(&self, key: i64) -> bool {
        self.contains_hash(self.format.hash_long(key))
    }

    /// Whether a string may have been inserted (Spark's `mightContainString`).
    #[inline]
    pub fn might_contain_str(&self, key: &str) -> bool {
        self.might_contain_bytes(key.as_bytes())
    }

    /// Whether a byte array may have been inserted (Spark's `mightContainBinary`).
    #[inline]
    pub fn might_contain_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.format.hash_bytes(key))
    }

    /// [`might_contain_long`](Self::might_contain_long) for every key, in order.
    ///
    /// Faster than a loop over single queries on a filter larger than the CPU's caches: the
    /// memory reads of a group of keys are started before any of them is tested, so they
    /// overlap instead of following one another.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::SparkBloomFilter;
    ///
    /// let mut filter = SparkBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_i64(3);
    /// let answers = filter.might_contain_long_batch(&[3, 4, 3]);
    /// assert_eq!(answers, [true, filter.might_contain_long(4), true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn might_contain_long_batch(&self, keys: &[i64]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.might_contain_long_batch_into(keys, &mut out);
        out
    }

    /// [`might_contain_long_batch`](Self::might_contain_long_batch) into `out` (cleared
    /// first), reusing its allocation.
    pub fn might_contain_long_batch_into(&self, keys: &[i64], out: &mut Vec<bool>) {
        let format = self.format;
        let hash = |&key: &i64| format.hash_long(key);
        format.contains_batch(&self.bits, self.num_hashes, keys, hash, out);
    }

    /// [`might_contain_bytes`](Self::might_contain_bytes) for every key, in order, with the
    /// memory reads of a group of keys overlapped as in
    /// [`might_contain_long_batch`](Self::might_contain_long_batch). Strings go in as they
    /// are (`&str` and `String` are `AsRef<[u8]>`) and are hashed as their UTF-8 bytes, as
    /// [`might_contain_str`](Self::might_contain_str) hashes them.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_str("alice");
    /// let answers = filter.might_contain_bytes_batch(&["alice", "bob"]);
    /// assert_eq!(answers, [true, filter.might_contain_str("bob")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn might_contain_bytes_batch<B: AsRef<[u8]>>(&self, keys: &[B]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.might_contain_bytes_batch_into(keys, &mut out);
        out
    }

    /// [`might_contain_bytes_batch`](Self::might_contain_bytes_batch) into `out` (cleared
    /// first), reusing its allocation.
    pub fn might_contain_bytes_batch_into<B: AsRef<[u8]>>(&self, keys: &[B], out: &mut Vec<bool>) {
        let format = self.format;
        let hash = |key: &B| format.hash_bytes(key.as_ref());
        format.contains_batch(&self.bits, self.num_hashes, keys, hash, out);
    }

    /// Bits in the filter (Spark's `bitSize`): a multiple of 64.
    pub fn bit_size(&self) -> u64 {
        self.bits.bit_size()
    }

    /// Hash functions per key, k.
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Bytes held by the bit array.
    pub fn memory_usage(&self) -> usize {
        self.bits.words().len() * 8
    }

    /// The false-positive rate estimated from the current fill: the fraction of bits set to
    /// the power k, the probability that an absent key finds all its bits set (what the
    /// library's `expectedFpp` computes; [`expected_fpp`](Self::expected_fpp) is that name).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::SparkBloomFilter;
    ///
    /// let mut filter = SparkBloomFilter::new(10_000, 0.01)?;
    /// assert_eq!(filter.estimated_fpr(), 0.0);
    /// for i in 0..10_000i64 {
    ///     filter.insert_i64(i);
    /// }
    /// assert!(filter.estimated_fpr() < 0.012);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        (self.bits.count_ones() as f64 / self.bit_size() as f64).powf(f64::from(self.num_hashes))
    }

    /// The library's name (`expectedFpp`) for [`estimated_fpr`](Self::estimated_fpr), which
    /// it returns: a rate from the current fill, not the one the filter was sized for.
    #[inline]
    pub fn expected_fpp(&self) -> f64 {
        self.estimated_fpr()
    }

    /// The bytes the library's `writeTo` writes for this filter (the table in the type's
    /// docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(&self.format.header(self.num_hashes), &self.bits)
    }

    /// Streams [`to_bytes`](Self::to_bytes) to `writer`, 64 KiB at a time, then flushes it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    pub fn write_to<W: Write>(&self, writer: W) -> Result<(), Error> {
        wire::write(writer, &self.format.header(self.num_hashes), &self.bits)
    }

    /// Reads the bytes the library's `writeTo` writes (its `readFrom`).
    ///
    /// Stricter than the library: the input must end with the filter, and allocation never
    /// exceeds the input's length, whatever the header claims.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when the input ends early; the format's errors for its header
    /// fields (the type's docs); [`Error::Corrupt`] for a word count below 1, more than 255
    /// hashes and more hashes than bits, or trailing bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::Error;
    /// use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter};
    ///
    /// // Spark's V1 bytes: version 1, k = 1, one word, bit 0 set.
    /// let bytes = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    /// let filter = SparkBloomFilter::from_bytes(&bytes)?;
    /// assert_eq!((filter.bit_size(), filter.cardinality()), (64, 1));
    /// assert!(SparkBloomFilter::from_bytes(&bytes[..19]).is_err());
    /// // Guava's: strategy 1, k = 3, one word with bit 0 set.
    /// let bytes = [1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    /// let filter = GuavaBloomFilter::from_bytes(&bytes)?;
    /// assert_eq!((filter.bit_size(), filter.num_hashes()), (64, 3));
    /// let mut other = bytes;
    /// other[0] = 0; // MURMUR128_MITZ_32
    /// assert_eq!(GuavaBloomFilter::from_bytes(&other), Err(Error::UnsupportedHashScheme { found: 0 }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode(&mut ByteReader::new(bytes))
    }

    /// Reads a filter from `reader` as [`from_bytes`](Self::from_bytes) reads bytes, reading
    /// exactly the filter's bytes (what follows is left in the reader). Memory grows only as
    /// bytes arrive.
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](Self::from_bytes) (less trailing bytes), and [`Error::Io`]
    /// when the reader fails.
    pub fn read_from<R: Read>(reader: R) -> Result<Self, Error> {
        Self::decode(&mut Stream(reader))
    }

    /// The header, then the words; k at most the bit count where it is above 255. Spark
    /// writes no more hashes than bits (its `m / n ln 2` is below m for any n), Guava's k is
    /// a byte (any of which its reader takes), and a corrupt Spark k of up to 2^31 would make
    /// every query of a small filter run for seconds.
    fn decode(fields: &mut impl Fields) -> Result<Self, Error> {
        let (format, num_hashes) = F::decode(fields)?;
        let bits = fields.bits()?;
        if u64::from(num_hashes) > bits.bit_size().max(255) {
            return Err(Error::corrupt(format!(
                "{num_hashes} hash functions for {} bits: more hashes than bits",
                bits.bit_size()
            )));
        }
        Ok(JvmBloomFilter {
            format,
            num_hashes,
            bits,
        })
    }

    /// ORs `other`'s bits into these once every field `fields` names agrees between the two
    /// filters (checked in order, the first to differ being the error).
    pub(crate) fn union_if_same<const N: usize>(
        &mut self,
        other: &Self,
        fields: impl Fn(&Self) -> [(&'static str, u64); N],
    ) -> Result<(), Error> {
        for ((name, ours), (_, theirs)) in fields(self).into_iter().zip(fields(other)) {
            Error::check_same(name, ours, theirs)?;
        }
        self.bits.union(&other.bits);
        Ok(())
    }

    /// Sets a key's bits; whether any was clear (the library's `put` answer).
    #[inline(always)]
    fn set_hash(&mut self, hash: F::Hash) -> bool {
        self.format.set(&mut self.bits, self.num_hashes, hash)
    }

    #[inline(always)]
    fn contains_hash(&self, hash: F::Hash) -> bool {
        self.format.contains(&self.bits, self.num_hashes, hash)
    }
}

/// Keys per burst of the batch inserts past the cache: each prefetches the words of its k
/// probes (7 at 1%), so a burst keeps about a hundred lines in flight.
const INSERT_BURST: usize = 16;

/// A JVM filter's inserts for [`insert_keys`]: the words of a key's probes prefetched, then
/// its bits set.
struct Bursts<'a, F: Format>(&'a mut JvmBloomFilter<F>);

impl<F: Format> BurstInsert for Bursts<'_, F> {
    type Hash = F::Hash;

    #[inline(always)]
    fn prefetch(&self, hash: F::Hash) {
        self.0
            .format
            .prefetch(&self.0.bits, self.0.num_hashes, hash);
    }

    #[inline(always)]
    fn insert(&mut self, hash: F::Hash) {
        self.0.set_hash(hash);
    }
}
