//! Guava's `com.google.common.hash.BloomFilter` with its default strategy, bit for bit (after
//! Guava's `BloomFilter.java`, `BloomFilterStrategies.java` (`MURMUR128_MITZ_64`),
//! `Murmur3_128HashFunction.java` and `Funnels.java`, checked against Guava 31.1's jar).

use bloom_core::Error;

use crate::batch::{self, Probes, Probing};
use crate::bits::{JvmBits, words_for_bits};
use crate::filter::{JvmBloomFilter, sealed::Rules};
use crate::murmur3::{murmur3_x64_128, murmur3_x64_128_long};
use crate::spark::{check_num_hashes, jvm_optimal_num_bits, jvm_optimal_num_hashes};
use crate::wire::Fields;

/// The ordinal of `MURMUR128_MITZ_64` in Guava's `BloomFilterStrategies`: the first byte of
/// the bytes of every filter Guava has created since version 11.
const MURMUR128_MITZ_64: u8 = 1;

/// A Bloom filter byte-compatible with Guava's `com.google.common.hash.BloomFilter` and its
/// default strategy, `MURMUR128_MITZ_64`.
///
/// A key is hashed with MurmurHash3 x64_128 (seed 0) over the bytes its funnel writes:
/// [`insert_i64`](JvmBloomFilter::insert_i64) is `Funnels.longFunnel()` (eight little-endian bytes),
/// [`insert_str`](JvmBloomFilter::insert_str) is `Funnels.stringFunnel(UTF_8)` (the UTF-8 bytes) and
/// [`insert_bytes`](JvmBloomFilter::insert_bytes) is `Funnels.byteArrayFunnel()`, and the `put_*`
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
pub type GuavaBloomFilter = JvmBloomFilter<Guava>;

/// Guava's format, `MURMUR128_MITZ_64` ([`GuavaBloomFilter`]): nothing beyond k to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guava;

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

impl Rules for Guava {
    const NAME: &'static str = "GuavaBloomFilter";
    type Hash = (u64, u64);

    #[inline(always)]
    fn hash_long(self, key: i64) -> (u64, u64) {
        murmur3_x64_128_long(key)
    }

    #[inline(always)]
    fn hash_bytes(self, key: &[u8]) -> (u64, u64) {
        murmur3_x64_128(key)
    }

    #[inline(always)]
    fn set(self, bits: &mut JvmBits, k: u32, hash: (u64, u64)) -> bool {
        batch::insert::<Mitz64>(bits, k, probes(hash))
    }

    #[inline(always)]
    fn contains(self, bits: &JvmBits, k: u32, hash: (u64, u64)) -> bool {
        batch::contains::<Mitz64>(bits, k, probes(hash))
    }

    #[inline(always)]
    fn prefetch(self, bits: &JvmBits, k: u32, hash: (u64, u64)) {
        batch::prefetch_all::<Mitz64>(bits, k, probes(hash));
    }

    fn contains_batch<K>(
        self,
        bits: &JvmBits,
        k: u32,
        keys: &[K],
        hash: impl Fn(&K) -> (u64, u64),
        out: &mut Vec<bool>,
    ) {
        batch::contains_batch::<Mitz64, _>(bits, k, keys, |key: &K| probes(hash(key)), out);
    }

    fn header(self, k: u32) -> Vec<u8> {
        // k is below 256: `new` and `decode` make no other.
        vec![MURMUR128_MITZ_64, k as u8]
    }

    /// The strategy ordinal (`MURMUR128_MITZ_64` only) and an unsigned byte k of at least 1.
    fn decode(fields: &mut impl Fields) -> Result<(Guava, u32), Error> {
        let strategy = fields.u8()?;
        if strategy != MURMUR128_MITZ_64 {
            return Err(Error::UnsupportedHashScheme { found: strategy });
        }
        Ok((Guava, check_num_hashes(fields.u8()?.into())?))
    }
}

impl JvmBloomFilter<Guava> {
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
        let num_bits = jvm_optimal_num_bits(
            expected_insertions,
            fpp,
            ("Guava", "expected_insertions", "insertions"),
        )?;
        let words = words_for_bits(num_bits)?;
        let k = jvm_optimal_num_hashes(expected_insertions, num_bits);
        let num_hashes = u8::try_from(k).map_err(|_| {
            Error::invalid(
                "fpp",
                format!("{fpp} needs {k} hash functions; Guava's format holds at most 255"),
            )
        })?;
        Ok(JvmBloomFilter {
            format: Guava,
            num_hashes: u32::from(num_hashes),
            bits: JvmBits::zeroed(words)?,
        })
    }

    /// ORs `other`'s bits into this filter (Guava's `putAll`): it then holds the keys of
    /// both.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the bit sizes or hash counts differ.
    pub fn put_all(&mut self, other: &GuavaBloomFilter) -> Result<(), Error> {
        self.union_if_same(other, |f| {
            [
                ("num_hashes", u64::from(f.num_hashes)),
                ("bit_size", f.bit_size()),
            ]
        })
    }

    /// Guava's `approximateElementCount`: `-m / k * ln(1 - X / m)` for X bits set of m,
    /// rounded half up. Guava throws for a filter with every bit set (the estimate is
    /// infinite); this returns `u64::MAX` then.
    pub fn approximate_element_count(&self) -> u64 {
        let m = self.bit_size() as f64;
        let fraction = self.bits.count_ones() as f64 / m;
        // Never NaN (the fraction is in [0, 1]), and `as` saturates: every bit set, an
        // infinite estimate, gives u64::MAX.
        (-(-fraction).ln_1p() * m / f64::from(self.num_hashes)).round() as u64
    }
}
