//! Guava's `com.google.common.hash.BloomFilter` with its default strategy, bit for bit (after
//! Guava's `BloomFilter.java`, `BloomFilterStrategies.java` (`MURMUR128_MITZ_64`),
//! `Murmur3_128HashFunction.java` and `Funnels.java`, checked against Guava 31.1's jar).

use std::io::{Read, Write};

use bloom_core::Error;
use bloom_core::internal::ByteReader;

use crate::batch::{self, Probes, Probing};
use crate::bits::{JvmBits, words_for_bits};
use crate::murmur3::{murmur3_x64_128, murmur3_x64_128_long};
use crate::spark::{check_fpp, jvm_optimal_num_bits, jvm_optimal_num_hashes};
use crate::wire::{self, Fields, Stream};

/// The ordinal of `MURMUR128_MITZ_64` in Guava's `BloomFilterStrategies`: the first byte of
/// the bytes of every filter Guava has created since version 11.
const MURMUR128_MITZ_64: u8 = 1;

/// A Bloom filter byte-compatible with Guava's `com.google.common.hash.BloomFilter` and its
/// default strategy, `MURMUR128_MITZ_64`.
///
/// A key is hashed with MurmurHash3 x64_128 (seed 0) over the bytes its funnel writes:
/// [`insert_i64`](Self::insert_i64) is `Funnels.longFunnel()` (eight little-endian bytes),
/// [`insert_str`](Self::insert_str) is `Funnels.stringFunnel(UTF_8)` (the UTF-8 bytes) and
/// [`insert_bytes`](Self::insert_bytes) is `Funnels.byteArrayFunnel()`, and the `put_*`
/// beside them are the same inserts with Guava's answer to `put` (whether a bit changed, the
/// opposite of `insert_*`'s "possibly present before"). The hash's two 64-bit
/// halves h1 and h2 give the k indices `(h1 + i * h2) & (2^63 - 1)` modulo the bit size, for i
/// from 0 to k - 1. A Guava filter over a funnel of another type hashes other bytes: read its
/// bytes here, but query it with the bytes that funnel writes.
///
/// The bytes of Guava's `writeTo`, read by its `readFrom` (big-endian, as Java's
/// `DataOutputStream` writes them): `byte` strategy ordinal (1), unsigned `byte` k,
/// `int` word count w, w `long`s; bit i is bit `i % 64` of word `i / 64`.
///
/// # Examples
///
/// ```
/// use bloom_jvm::GuavaBloomFilter;
///
/// let mut filter = GuavaBloomFilter::new(10_000, 0.01)?;
/// for i in 0..10_000i64 {
///     filter.insert_i64(i);
/// }
/// // No false negatives...
/// assert!((0..10_000i64).all(|i| filter.might_contain_long(i)));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000i64).filter(|&i| filter.might_contain_long(i)).count();
/// assert!(fp < 1_300, "{fp} false positives in 100,000");
/// // About as many elements as went in.
/// assert!((9_700..10_300).contains(&filter.approximate_element_count()));
/// let bytes = filter.to_bytes();
/// assert_eq!(GuavaBloomFilter::from_bytes(&bytes)?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct GuavaBloomFilter {
    num_hashes: u8,
    bits: JvmBits,
}

impl std::fmt::Debug for GuavaBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuavaBloomFilter")
            .field("num_hashes", &self.num_hashes)
            .field("bit_size", &self.bit_size())
            .field("bit_count", &self.bits.count_ones())
            .finish()
    }
}

/// `MURMUR128_MITZ_64`'s probes: `h1 + i * h2` for i from 0, with the sign bit cleared.
struct Mitz64;

impl Probing for Mitz64 {
    #[inline(always)]
    fn value(acc: u64) -> u64 {
        acc & (i64::MAX as u64)
    }
}

/// The probe sequence of a key's 128-bit hash: the first probe is `h1` itself.
#[inline(always)]
fn probes((h1, h2): (u64, u64)) -> Probes {
    Probes::new(h1.wrapping_sub(h2), h2)
}

impl GuavaBloomFilter {
    /// A filter for `expected_insertions` keys at false-positive probability `fpp`, sized as
    /// Guava's `BloomFilter.create(funnel, long, double)` sizes it: `-n ln p / (ln 2)^2` bits
    /// (truncated, then rounded up to whole words) and `m / n * ln 2` hashes, rounded.
    ///
    /// Guava treats 0 insertions as 1; here 0 is an error, as everywhere in this workspace.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 insertions or more than `i64::MAX`, an `fpp` outside
    /// (0, 1) or NaN, a size of 0 bits, or more than 255 hashes (an `fpp` below about
    /// 10^-77: the format stores k in a byte); [`Error::TooLarge`] beyond 2^31 - 1 words;
    /// [`Error::OutOfMemory`] when the allocator refuses the bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let filter = GuavaBloomFilter::new(1_000_000, 0.03)?;
    /// assert_eq!((filter.bit_size(), filter.num_hashes()), (7_298_496, 5));
    /// assert!(GuavaBloomFilter::new(1_000, f64::NAN).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_insertions: u64, fpp: f64) -> Result<Self, Error> {
        if expected_insertions == 0 || expected_insertions > i64::MAX as u64 {
            return Err(Error::invalid(
                "expected_insertions",
                format!("must be in [1, 2^63 - 1] (got {expected_insertions})"),
            ));
        }
        check_fpp(fpp)?;
        let num_bits = jvm_optimal_num_bits(expected_insertions, fpp);
        if num_bits <= 0 {
            return Err(Error::invalid(
                "fpp",
                format!("{fpp} gives Guava's formula 0 bits for {expected_insertions} insertions"),
            ));
        }
        let num_bits = num_bits as u64;
        let words = words_for_bits(num_bits)?;
        let k = jvm_optimal_num_hashes(expected_insertions, num_bits);
        let num_hashes = u8::try_from(k).map_err(|_| {
            Error::invalid(
                "fpp",
                format!("{fpp} needs {k} hash functions; Guava's format holds at most 255"),
            )
        })?;
        Ok(GuavaBloomFilter {
            num_hashes,
            bits: JvmBits::zeroed(words)?,
        })
    }

    /// Inserts a long (as Guava's `put` through `Funnels.longFunnel()`). Returns whether the
    /// key was possibly present before (all its bits were set), as every `insert` of the
    /// workspace does: `false` means it certainly was not.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// assert!(!filter.insert_i64(42)); // certainly new
    /// assert!(filter.insert_i64(42)); // possibly seen before
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert_i64(&mut self, key: i64) -> bool {
        !self.set_hash(murmur3_x64_128_long(key))
    }

    /// Inserts a string as its UTF-8 bytes (`Funnels.stringFunnel(UTF_8)`). Returns whether
    /// the key was possibly present before.
    #[inline]
    pub fn insert_str(&mut self, key: &str) -> bool {
        self.insert_bytes(key.as_bytes())
    }

    /// Inserts a byte array (`Funnels.byteArrayFunnel()`). Returns whether the key was
    /// possibly present before.
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        !self.set_hash(murmur3_x64_128(key))
    }

    /// Guava's `put` of a long (`Funnels.longFunnel()`), with Guava's answer: whether a bit
    /// changed, so `true` means the key is certainly new. The opposite of
    /// [`insert_i64`](Self::insert_i64): `put_long(k) == !insert_i64(k)`.
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

    /// Guava's `put` of a string (`Funnels.stringFunnel(UTF_8)`): whether a bit changed,
    /// `put_str(k) == !insert_str(k)` ([`insert_str`](Self::insert_str)).
    #[inline]
    pub fn put_str(&mut self, key: &str) -> bool {
        !self.insert_str(key)
    }

    /// Guava's `put` of a byte array (`Funnels.byteArrayFunnel()`): whether a bit changed,
    /// `put_bytes(k) == !insert_bytes(k)` ([`insert_bytes`](Self::insert_bytes)).
    #[inline]
    pub fn put_bytes(&mut self, key: &[u8]) -> bool {
        !self.insert_bytes(key)
    }

    /// Whether a long may have been inserted (Guava's `mightContain`): `false` means
    /// certainly not.
    #[inline]
    pub fn might_contain_long(&self, key: i64) -> bool {
        self.contains_hash(murmur3_x64_128_long(key))
    }

    /// Whether a string may have been inserted.
    #[inline]
    pub fn might_contain_str(&self, key: &str) -> bool {
        self.might_contain_bytes(key.as_bytes())
    }

    /// Whether a byte array may have been inserted.
    #[inline]
    pub fn might_contain_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(murmur3_x64_128(key))
    }

    /// [`might_contain_long`](Self::might_contain_long) for every key, in order, with the
    /// memory reads of a group of keys overlapped.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_i64(3);
    /// assert_eq!(filter.might_contain_long_batch(&[3, 4]), [true, filter.might_contain_long(4)]);
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
        self.batch_into(keys, |&key| murmur3_x64_128_long(key), out);
    }

    /// [`might_contain_bytes`](Self::might_contain_bytes) for every key, in order, with the
    /// memory reads of a group of keys overlapped. Strings go in as they are (`&str` and
    /// `String` are `AsRef<[u8]>`) and are hashed as their UTF-8 bytes, as
    /// [`might_contain_str`](Self::might_contain_str) hashes them.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_bytes(b"\x00\x01");
    /// let answers = filter.might_contain_bytes_batch(&[&b"\x00\x01"[..], b"\x02"]);
    /// assert_eq!(answers, [true, filter.might_contain_bytes(b"\x02")]);
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
        self.batch_into(keys, |key| murmur3_x64_128(key.as_ref()), out);
    }

    /// The batch query of keys that `hash` turns into Guava's 128-bit hash.
    fn batch_into<K>(&self, keys: &[K], hash: impl Fn(&K) -> (u64, u64), out: &mut Vec<bool>) {
        let start = |key: &K| probes(hash(key));
        batch::contains_batch::<Mitz64, _>(&self.bits, self.num_hashes(), keys, start, out);
    }

    /// ORs `other`'s bits into this filter (Guava's `putAll`): it then holds the keys of
    /// both.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the bit sizes or hash counts differ.
    pub fn put_all(&mut self, other: &GuavaBloomFilter) -> Result<(), Error> {
        Error::check_same(
            "num_hashes",
            u64::from(self.num_hashes),
            u64::from(other.num_hashes),
        )?;
        Error::check_same("bit_size", self.bit_size(), other.bit_size())?;
        self.bits.union(&other.bits);
        Ok(())
    }

    /// Guava's `approximateElementCount`: `-m / k * ln(1 - X / m)` for X bits set of m,
    /// rounded half up. Guava throws for a filter with every bit set (the estimate is
    /// infinite); this returns `u64::MAX` then.
    pub fn approximate_element_count(&self) -> u64 {
        let m = self.bit_size() as f64;
        let fraction = self.bits.count_ones() as f64 / m;
        let estimate = -(-fraction).ln_1p() * m / f64::from(self.num_hashes);
        if estimate.is_finite() {
            estimate.round() as u64
        } else {
            u64::MAX
        }
    }

    /// The false-positive rate estimated from the current fill: the fraction of bits set to
    /// the power k (what Guava's `expectedFpp` computes;
    /// [`expected_fpp`](Self::expected_fpp) is that name).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    ///
    /// let mut filter = GuavaBloomFilter::new(10_000, 0.01)?;
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

    /// Guava's name (`expectedFpp`) for [`estimated_fpr`](Self::estimated_fpr), which it
    /// returns: a rate from the current fill, not the one the filter was sized for.
    #[inline]
    pub fn expected_fpp(&self) -> f64 {
        self.estimated_fpr()
    }

    /// Bits in the filter: a multiple of 64.
    pub fn bit_size(&self) -> u64 {
        self.bits.bit_size()
    }

    /// Hash functions per key, k (1 to 255).
    pub fn num_hashes(&self) -> u32 {
        u32::from(self.num_hashes)
    }

    /// Bytes held by the bit array.
    pub fn memory_usage(&self) -> usize {
        self.bits.words().len() * 8
    }

    /// The bytes Guava's `writeTo` writes for this filter.
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(&self.header(), &self.bits)
    }

    /// Streams [`to_bytes`](Self::to_bytes) to `writer`, 64 KiB at a time, then flushes it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    pub fn write_to<W: Write>(&self, writer: W) -> Result<(), Error> {
        wire::write(writer, &self.header(), &self.bits)
    }

    /// Reads the bytes Guava's `writeTo` writes (Guava's `readFrom`).
    ///
    /// Stricter than Guava: the input must end with the filter, and allocation never exceeds
    /// the input's length, whatever the header claims.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when the input ends early; [`Error::UnsupportedHashScheme`] for a
    /// strategy other than `MURMUR128_MITZ_64` (ordinal 1); [`Error::Corrupt`] for k = 0, a
    /// word count below 1, or trailing bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::GuavaBloomFilter;
    /// use bloom_core::Error;
    ///
    /// // Strategy 1, k = 3, one word with bit 0 set.
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
    /// exactly the filter's bytes. Memory grows only as bytes arrive.
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](Self::from_bytes) (less trailing bytes), and [`Error::Io`]
    /// when the reader fails.
    pub fn read_from<R: Read>(reader: R) -> Result<Self, Error> {
        Self::decode(&mut Stream(reader))
    }

    fn decode(fields: &mut impl Fields) -> Result<Self, Error> {
        let strategy = fields.u8()?;
        if strategy != MURMUR128_MITZ_64 {
            return Err(Error::UnsupportedHashScheme { found: strategy });
        }
        let num_hashes = fields.u8()?;
        if num_hashes == 0 {
            return Err(Error::corrupt(
                "the number of hash functions is 0; it must be at least 1",
            ));
        }
        Ok(GuavaBloomFilter {
            num_hashes,
            bits: fields.bits()?,
        })
    }

    fn header(&self) -> [u8; 2] {
        [MURMUR128_MITZ_64, self.num_hashes]
    }

    /// Sets a key's bits; whether any was clear (Guava's `put` answer).
    #[inline(always)]
    fn set_hash(&mut self, hash: (u64, u64)) -> bool {
        let k = self.num_hashes();
        batch::insert::<Mitz64>(&mut self.bits, k, probes(hash))
    }

    #[inline(always)]
    fn contains_hash(&self, hash: (u64, u64)) -> bool {
        batch::contains::<Mitz64>(&self.bits, self.num_hashes(), probes(hash))
    }
}
