//! Apache Spark's sketch `BloomFilter`, bit for bit (after Spark's `BloomFilter.java`,
//! `BloomFilterImpl.java`, `BloomFilterImplV2.java`, `BloomFilterBase.java`, `BitArray.java`
//! and `Murmur3_x86_32.java` in `common/sketch`, checked against the `spark-sketch` jars of
//! Spark 4.1.0 and 4.3.0, whose classes are identical).

use bloom_core::Error;

use crate::batch::{self, Probes, Probing};
use crate::bits::{JvmBits, words_for_bits};
use crate::filter::{JvmBloomFilter, sealed::Rules};
use crate::murmur3::{spark_hash_bytes, spark_hash_long};
use crate::wire::Fields;

/// The binary versions of Spark's filter: the first `int` of its bytes.
///
/// Both use the same bit array and the same two Murmur3 x86_32 hashes `h1 = hash(key, seed)`
/// and `h2 = hash(key, h1)`; they differ in how the k bit indices derive from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SparkVersion {
    /// Spark up to 4.0 (`BloomFilterImpl`): index i (1 to k) is `h1 + i * h2` in 32-bit
    /// arithmetic, bit-inverted when negative, modulo the bit size. The seed is always 0 and
    /// is not in the bytes. Being 31 bits, the indices reach only the first 2^31 bits of a
    /// larger filter.
    V1,
    /// Spark 4.1 and later, their default (`BloomFilterImplV2`): a 64-bit accumulator starts
    /// at `h1 * (2^31 - 1)` and adds `h2` before each probe; the probe is the accumulator,
    /// bit-inverted when negative, modulo the bit size. The seed is a field of the bytes.
    V2,
}

impl SparkVersion {
    /// The version Spark 4.1 and later create by default.
    pub const DEFAULT: SparkVersion = SparkVersion::V2;

    /// The version number the bytes start with.
    pub fn number(self) -> i32 {
        match self {
            SparkVersion::V1 => 1,
            SparkVersion::V2 => 2,
        }
    }

    /// The version of a version number, if it is one.
    pub fn from_number(number: i32) -> Option<SparkVersion> {
        [SparkVersion::V1, SparkVersion::V2]
            .into_iter()
            .find(|version| version.number() == number)
    }
}

/// A Bloom filter byte-compatible with Apache Spark's `org.apache.spark.util.sketch.BloomFilter`
/// (what `DataFrameStatFunctions.bloomFilter` builds and the runtime join filter's
/// `bloom_filter_agg` ships), in both of its binary versions.
///
/// For the same parameters and the same keys it holds the same bits as Spark's filter, answers
/// every `put*` and `mightContain*` as Spark does, and [`to_bytes`](JvmBloomFilter::to_bytes) gives the
/// bytes of Spark's `writeTo`. Its inserts come twice: `insert_*` answer as every `insert` of
/// the workspace (whether the key was possibly present before), `put_*` as Spark's `put*`
/// (whether a bit changed), the opposite answer. Spark's `readFrom` reads what this writes, and
/// [`from_bytes`](JvmBloomFilter::from_bytes) reads what Spark writes. Keys are longs (Spark's `Byte`,
/// `Short`, `Integer` and `Long` are all hashed as a `long`: pass them as `i64`), UTF-8 strings
/// and byte arrays (`String` is hashed as its UTF-8 bytes, so `insert_str("a")` and
/// `insert_bytes(b"a")` insert the same key).
///
/// The bytes (all integers big-endian, as Java's `DataOutputStream` writes them):
///
/// | version | fields |
/// |---|---|
/// | V1 | `int` 1, `int` k, `int` word count w, w `long`s |
/// | V2 | `int` 2, `int` k, `int` seed, `int` word count w, w `long`s |
///
/// Bit i of the filter is bit `i % 64` of word `i / 64`.
///
/// # Examples
///
/// ```
/// use bloom_jvm::{SparkBloomFilter, SparkVersion};
///
/// let mut filter = SparkBloomFilter::new(10_000, 0.01)?;
/// assert_eq!(filter.version(), SparkVersion::V2);
/// for i in 0..10_000i64 {
///     filter.insert_i64(i);
/// }
/// filter.insert_str("spark");
/// // No false negatives...
/// assert!((0..10_000i64).all(|i| filter.might_contain_long(i)));
/// assert!(filter.might_contain_str("spark") && filter.might_contain_bytes(b"spark"));
/// // ...and about 1% false positives.
/// let fp = (10_000..110_000i64).filter(|&i| filter.might_contain_long(i)).count();
/// assert!(fp < 1_300, "{fp} false positives in 100,000");
/// // Spark's `BloomFilter.readFrom` reads these bytes.
/// let bytes = filter.to_bytes();
/// assert_eq!(SparkBloomFilter::from_bytes(&bytes)?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type SparkBloomFilter = JvmBloomFilter<Spark>;

/// Spark's format ([`SparkBloomFilter`]): the binary version and the seed keys are hashed
/// with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spark {
    version: SparkVersion,
    seed: i32,
}

/// V1's probes: `h1 + i * h2` in Java's `int` arithmetic (the accumulator's low 32 bits),
/// bit-inverted when negative.
struct V1;

impl Probing for V1 {
    #[inline(always)]
    fn value(acc: u64) -> u64 {
        let c = acc as u32 as i32;
        (c ^ (c >> 31)) as u64
    }
}

/// V2's probes: the 64-bit accumulator, bit-inverted when negative. The inversion gives the
/// probe only: the accumulator keeps its sign (as the 4.1 and 4.3 jars do). The accumulator
/// starts at `h1 * (2^31 - 1)` and steps by `h2`, a 32-bit value, so it changes sign within
/// k probes only for `h1` within about k of 0: every other key's probes form a progression.
struct V2;

impl Probing for V2 {
    #[inline(always)]
    fn value(acc: u64) -> u64 {
        let c = acc as i64;
        (c ^ (c >> 63)) as u64
    }

    #[inline(always)]
    fn progression(probes: Probes, k: u32) -> Option<(u64, i64)> {
        probes.sign_folded_progression(k)
    }
}

/// The probe sequence of a key's two hashes in `version`.
#[inline(always)]
fn probes(version: SparkVersion, (h1, h2): (i32, i32)) -> Probes {
    match version {
        // Wrapping 64-bit sums have the low 32 bits of Java's wrapping `int` sums.
        SparkVersion::V1 => Probes::new(h1 as u32 as u64, h2 as u32 as u64),
        // Java's `(long) h1 * Integer.MAX_VALUE`, then `+= h2` (sign-extended) per probe.
        SparkVersion::V2 => Probes::new(
            (i64::from(h1) * i64::from(i32::MAX)) as u64,
            i64::from(h2) as u64,
        ),
    }
}

impl Rules for Spark {
    const NAME: &'static str = "SparkBloomFilter";
    /// Spark's two hashes, `h1 = hash(key, seed)` and `h2 = hash(key, h1)`.
    type Hash = (i32, i32);

    #[inline(always)]
    fn hash_long(self, key: i64) -> (i32, i32) {
        let h1 = spark_hash_long(key, self.seed);
        (h1, spark_hash_long(key, h1))
    }

    #[inline(always)]
    fn hash_bytes(self, key: &[u8]) -> (i32, i32) {
        let h1 = spark_hash_bytes(key, self.seed);
        (h1, spark_hash_bytes(key, h1))
    }

    #[inline(always)]
    fn set(self, bits: &mut JvmBits, k: u32, hash: (i32, i32)) -> bool {
        let p = probes(self.version, hash);
        match self.version {
            SparkVersion::V1 => batch::insert::<V1>(bits, k, p),
            SparkVersion::V2 => batch::insert::<V2>(bits, k, p),
        }
    }

    #[inline(always)]
    fn contains(self, bits: &JvmBits, k: u32, hash: (i32, i32)) -> bool {
        let p = probes(self.version, hash);
        match self.version {
            SparkVersion::V1 => batch::contains::<V1>(bits, k, p),
            SparkVersion::V2 => batch::contains::<V2>(bits, k, p),
        }
    }

    #[inline(always)]
    fn prefetch(self, bits: &JvmBits, k: u32, hash: (i32, i32)) {
        let p = probes(self.version, hash);
        match self.version {
            SparkVersion::V1 => batch::prefetch_all::<V1>(bits, k, p),
            SparkVersion::V2 => batch::prefetch_all::<V2>(bits, k, p),
        }
    }

    fn contains_batch<K>(
        self,
        bits: &JvmBits,
        k: u32,
        keys: &[K],
        hash: impl Fn(&K) -> (i32, i32),
        out: &mut Vec<bool>,
    ) {
        let version = self.version;
        let start = |key: &K| probes(version, hash(key));
        match version {
            SparkVersion::V1 => batch::contains_batch::<V1, _>(bits, k, keys, start, out),
            SparkVersion::V2 => batch::contains_batch::<V2, _>(bits, k, keys, start, out),
        }
    }

    fn header(self, k: u32) -> Vec<u8> {
        let fields = [self.version.number(), k as i32, self.seed].map(i32::to_be_bytes);
        // The version and k, then the seed in V2 only.
        let len = 2 + usize::from(self.version == SparkVersion::V2);
        fields[..len].concat()
    }

    /// The version ([`Error::UnsupportedVersion`] for one other than 1 and 2,
    /// [`Error::Corrupt`] when it is not even a `u16`), k of at least 1, and V2's seed.
    fn decode(fields: &mut impl Fields) -> Result<(Spark, u32), Error> {
        let version = check_version(fields.i32()?)?;
        let num_hashes = check_num_hashes(fields.i32()?)?;
        let seed = match version {
            SparkVersion::V1 => 0,
            SparkVersion::V2 => fields.i32()?,
        };
        Ok((Spark { version, seed }, num_hashes))
    }
}

impl JvmBloomFilter<Spark> {
    /// A filter for `expected_items` keys at false-positive probability `fpp`, in Spark's
    /// default version (V2) with seed 0, sized as Spark's `BloomFilter.create(long, double)`
    /// sizes it: [`optimal_num_bits`](Self::optimal_num_bits) bits (rounded up to whole
    /// words) and [`optimal_num_hashes`](Self::optimal_num_hashes) hashes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 items, more than `i64::MAX`, an `fpp` outside (0, 1)
    /// or NaN, or a size of 0 bits (an `fpp` so close to 1 that Spark's formula gives no bit);
    /// [`Error::TooLarge`] beyond 2^31 - 1 words (the format's word count is an `int`);
    /// [`Error::OutOfMemory`] when the allocator refuses the bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::SparkBloomFilter;
    ///
    /// let filter = SparkBloomFilter::new(1_000_000, 0.03)?;
    /// assert_eq!(filter.bit_size(), 7_298_496); // Spark's 7,298,440 bits, in whole words
    /// assert_eq!(filter.num_hashes(), 5);
    /// assert!(SparkBloomFilter::new(0, 0.01).is_err());
    /// assert!(SparkBloomFilter::new(100, 1.0).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_items: u64, fpp: f64) -> Result<Self, Error> {
        let num_bits = Self::optimal_num_bits(expected_items, fpp)?;
        Self::with_version(SparkVersion::DEFAULT, expected_items, num_bits, 0)
    }

    /// A filter of `version` with `num_bits` bits (rounded up to whole words) and the
    /// number of hashes that suits `expected_items` keys, as Spark's
    /// `BloomFilter.create(Version, long, long, int)`.
    ///
    /// V1 has no seed: its keys are always hashed with seed 0, and Spark ignores the one it
    /// is given. Here a non-zero `seed` with V1 is an error instead, because the bytes could
    /// not carry it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 items or bits, more than `i64::MAX` items, or a
    /// non-zero seed with V1; [`Error::TooLarge`] beyond 2^31 - 1 words;
    /// [`Error::OutOfMemory`] when the allocator refuses the bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_jvm::{SparkBloomFilter, SparkVersion};
    ///
    /// let mut v1 = SparkBloomFilter::with_version(SparkVersion::V1, 1_000, 10_000, 0)?;
    /// assert_eq!((v1.bit_size(), v1.num_hashes()), (10_048, 7));
    /// assert!(!v1.insert_i64(7) && v1.insert_i64(7));
    /// assert!(SparkBloomFilter::with_version(SparkVersion::V1, 1_000, 10_000, 5).is_err());
    /// let v2 = SparkBloomFilter::with_version(SparkVersion::V2, 1_000, 10_000, 5)?;
    /// assert_eq!(v2.seed(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_version(
        version: SparkVersion,
        expected_items: u64,
        num_bits: u64,
        seed: i32,
    ) -> Result<Self, Error> {
        check_items("expected_items", expected_items)?;
        if version == SparkVersion::V1 && seed != 0 {
            return Err(Error::invalid(
                "seed",
                format!("Spark's V1 format has no seed: it must be 0 (got {seed})"),
            ));
        }
        let words = words_for_bits(num_bits)?;
        let num_hashes = Self::optimal_num_hashes(expected_items, num_bits);
        Ok(JvmBloomFilter {
            format: Spark { version, seed },
            num_hashes,
            bits: JvmBits::zeroed(words)?,
        })
    }

    /// Bits for `expected_items` keys at false-positive probability `fpp`, as Spark's
    /// `BloomFilter.optimalNumOfBits(long, double)`: `-n ln p / (ln 2)^2`, truncated.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 items, more than `i64::MAX`, an `fpp` outside (0, 1)
    /// or NaN, or a result of 0 bits.
    pub fn optimal_num_bits(expected_items: u64, fpp: f64) -> Result<u64, Error> {
        jvm_optimal_num_bits(expected_items, fpp, ("Spark", "expected_items", "items"))
    }

    /// Hashes for `expected_items` keys in `num_bits` bits, as Spark's
    /// `optimalNumOfHashFunctions`: `m / n * ln 2` rounded, at least 1, and truncated to a
    /// Java `int` as Spark does (so absurd ratios, above 3 * 10^9 bits per key, wrap).
    pub fn optimal_num_hashes(expected_items: u64, num_bits: u64) -> u32 {
        jvm_optimal_num_hashes(expected_items, num_bits)
    }

    /// ORs `other`'s bits into this filter (Spark's `mergeInPlace`): it then holds the keys of
    /// both.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the versions, bit sizes, hash counts or seeds differ.
    pub fn merge(&mut self, other: &SparkBloomFilter) -> Result<(), Error> {
        self.union_if_same(other, |f| {
            [
                ("version", f.version().number() as u64),
                ("bit_size", f.bit_size()),
                ("num_hashes", u64::from(f.num_hashes)),
                ("seed", f.seed() as u32 as u64),
            ]
        })
    }

    /// Bits set (Spark's `cardinality`).
    pub fn cardinality(&self) -> u64 {
        self.bits.count_ones()
    }

    /// The seed keys are hashed with (always 0 in V1).
    pub fn seed(&self) -> i32 {
        self.format.seed
    }

    /// The binary version.
    pub fn version(&self) -> SparkVersion {
        self.format.version
    }
}

/// A count of keys, the argument `name`: in [1, 2^63 - 1], as a Java `long` holds it.
fn check_items(name: &'static str, n: u64) -> Result<(), Error> {
    if n == 0 || n > i64::MAX as u64 {
        return Err(Error::invalid(
            name,
            format!("must be in [1, 2^63 - 1] (got {n})"),
        ));
    }
    Ok(())
}

/// Both libraries' `optimalNumOfBits(long n, double p)`: `(long) (-n * Math.log(p) /
/// (Math.log(2) * Math.log(2)))`, with Java's saturating cast, for `n` keys (the argument
/// `name`, counted in `unit`s) at `fpp`. Checks `n` (`check_items`), `fpp` in (0, 1)
/// (which also rules out NaN) and that `library`'s formula gives at least one bit.
pub(crate) fn jvm_optimal_num_bits(
    n: u64,
    fpp: f64,
    (library, name, unit): (&str, &'static str, &str),
) -> Result<u64, Error> {
    check_items(name, n)?;
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::invalid(
            "fpp",
            format!("must be in (0, 1) (got {fpp})"),
        ));
    }
    let ln2 = 2f64.ln();
    let bits = ((-(n as i64)) as f64 * fpp.ln() / (ln2 * ln2)) as i64;
    if bits <= 0 {
        return Err(Error::invalid(
            "fpp",
            format!("{fpp} gives {library}'s formula 0 bits for {n} {unit}"),
        ));
    }
    Ok(bits as u64)
}

/// Both libraries' `optimalNumOfHashFunctions(long n, long m)`:
/// `Math.max(1, (int) Math.round((double) m / n * Math.log(2)))`, with Java's casts (a
/// saturating `long`, then its low 32 bits).
pub(crate) fn jvm_optimal_num_hashes(n: u64, m: u64) -> u32 {
    let k = ((m as i64) as f64 / (n as i64) as f64 * 2f64.ln()).round() as i64 as i32;
    k.max(1) as u32
}

fn check_version(number: i32) -> Result<SparkVersion, Error> {
    SparkVersion::from_number(number).ok_or_else(|| match u16::try_from(number) {
        Ok(found) => Error::UnsupportedVersion { found },
        Err(_) => Error::corrupt(format!(
            "{number} is no Spark BloomFilter version (1 and 2 are)"
        )),
    })
}

/// A hash count read from bytes, as both formats' readers check it: at least 1.
pub(crate) fn check_num_hashes(k: i32) -> Result<u32, Error> {
    if k < 1 {
        return Err(Error::corrupt(format!(
            "the number of hash functions is {k}; it must be at least 1"
        )));
    }
    Ok(k as u32)
}
