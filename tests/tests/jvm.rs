//! The JVM-compatible filters (`bloom-jvm`) beyond the golden vectors: no false negatives
//! against a `HashSet` model (proptest, also after a round trip and a merge), `insert`'s
//! answer and `put`'s (its opposite), the false-positive rate against the JVM's own formula,
//! bad parameters, and corrupt, truncated and streamed bytes. They cannot join the shared `Subject` suite: that suite
//! drives filters through the workspace's `Filter` trait over `T: Hash` keys, which these
//! filters do not implement (the JVM hashes its own funnels' bytes, not Rust's `Hash`).

use std::io::{self, Read, Write};

use bloom_core::Error;
use bloom_core::internal::batch::direct_max_bytes;
use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};
use bloom_tests::SplitMix64;
use bloom_tests::jvm::{
    JvmFilter, check_guava_bytes, check_spark_bytes, key_bytes, key_long, key_str, replay_fuzz_dir,
};
use proptest::prelude::*;

fn spark(version: SparkVersion, n: u64, seed: i32) -> SparkBloomFilter {
    let bits = SparkBloomFilter::optimal_num_bits(n, 0.01).unwrap();
    SparkBloomFilter::with_version(version, n, bits, seed).unwrap()
}

fn version(v2: bool) -> SparkVersion {
    if v2 {
        SparkVersion::V2
    } else {
        SparkVersion::V1
    }
}

/// Offers the same keys (kind 0 a long, 1 a string, 2 a byte array; the index picks the key)
/// to two copies of `fresh`, one through `put_*` and one through `insert_*`: every put answers
/// the opposite of the insert of the same key at the same point (Guava's and Spark's "bits
/// changed" against the workspace's "possibly present before"), and both end with the same
/// bits.
fn check_put_is_not_insert<F>(fresh: &F, keys: &[(u8, u64)]) -> Result<(), TestCaseError>
where
    F: JvmFilter + Clone + PartialEq + std::fmt::Debug,
{
    let (mut put, mut insert) = (fresh.clone(), fresh.clone());
    for (at, &(kind, i)) in keys.iter().enumerate() {
        let (put_answer, insert_answer) = match kind {
            0 => (put.put_long(key_long(i)), insert.insert_i64(key_long(i))),
            1 => (put.put_str(&key_str(i)), insert.insert_str(&key_str(i))),
            _ => (
                put.put_bytes(&key_bytes(i)),
                insert.insert_bytes(&key_bytes(i)),
            ),
        };
        prop_assert_eq!(put_answer, !insert_answer, "key {} ({:?})", at, (kind, i));
    }
    prop_assert_eq!(&put, &insert);
    Ok(())
}

/// What [`check_put_keys_survive_every_byte_path`] needs of a JVM filter beyond
/// [`JvmFilter`]: its bytes, in memory and in streams.
trait JvmBytes: JvmFilter + Sized {
    fn to_bytes(&self) -> Vec<u8>;
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error>;
    fn write_to(&self, out: &mut Vec<u8>) -> Result<(), Error>;
    fn read_from(reader: impl Read) -> Result<Self, Error>;
}

macro_rules! jvm_bytes {
    ($($ty:ty),*) => {$(
        impl JvmBytes for $ty {
            fn to_bytes(&self) -> Vec<u8> {
                <$ty>::to_bytes(self)
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                <$ty>::from_bytes(bytes)
            }
            fn write_to(&self, out: &mut Vec<u8>) -> Result<(), Error> {
                <$ty>::write_to(self, out)
            }
            fn read_from(reader: impl Read) -> Result<Self, Error> {
                <$ty>::read_from(reader)
            }
        }
    )*};
}

jvm_bytes!(SparkBloomFilter, GuavaBloomFilter);

/// `fresh` given `longs` and `strs` through `put_*`, read back through `from_bytes` and
/// through `read_from` one byte per read: each copy finds every key.
fn check_put_keys_survive_every_byte_path<F: JvmBytes + Clone>(
    fresh: &F,
    longs: &[i64],
    strs: &[String],
) -> Result<(), TestCaseError> {
    let mut f = fresh.clone();
    for &k in longs {
        f.put_long(k);
    }
    for s in strs {
        f.put_str(s);
    }
    let mut streamed = Vec::new();
    f.write_to(&mut streamed).unwrap();
    let copies = [
        F::from_bytes(&f.to_bytes()).unwrap(),
        F::read_from(bloom_tests::OneByteReader(&streamed)).unwrap(),
    ];
    for copy in &copies {
        prop_assert!(longs.iter().all(|&k| copy.might_contain_long(k)));
        prop_assert!(copy.might_contain_long_batch(longs).iter().all(|&b| b));
        prop_assert!(strs.iter().all(|s| copy.might_contain_str(s)));
        prop_assert!(copy.might_contain_str_batch(strs).iter().all(|&b| b));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Small filters (many false "possibly present" answers) and keys from a small pool
    /// (many repeats), so both answers are exercised.
    #[test]
    fn put_answers_the_opposite_of_insert(
        seed: i32,
        keys in prop::collection::vec((0u8..3, 0u64..40), 0..300),
    ) {
        check_put_is_not_insert(&spark(SparkVersion::V1, 30, 0), &keys)?;
        check_put_is_not_insert(&spark(SparkVersion::V2, 30, seed), &keys)?;
        check_put_is_not_insert(&GuavaBloomFilter::new(30, 0.01).unwrap(), &keys)?;
    }

    #[test]
    fn spark_has_no_false_negatives(
        v2: bool,
        seed: i32,
        longs in prop::collection::vec(any::<i64>(), 0..300),
        strs in prop::collection::vec(".{0,12}", 0..100),
        bytes in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 0..100),
    ) {
        let seed = if v2 { seed } else { 0 };
        let mut f = spark(version(v2), 500, seed);
        let mut half = f.clone();
        for (i, &k) in longs.iter().enumerate() {
            let before = f.might_contain_long(k);
            // Insert returns what the query said just before.
            prop_assert_eq!(f.insert_i64(k), before);
            if i % 2 == 0 {
                half.insert_i64(k);
            }
        }
        strs.iter().for_each(|s| {
 f.insert_str(s);
 });
        bytes.iter().for_each(|b| {
 f.insert_bytes(b);
 });
        let check = |f: &SparkBloomFilter| {
            longs.iter().all(|&k| f.might_contain_long(k))
                && f.might_contain_long_batch(&longs).iter().all(|&b| b)
                && strs.iter().all(|s| f.might_contain_str(s) && f.might_contain_bytes(s.as_bytes()))
                && f.might_contain_bytes_batch(&strs).iter().all(|&b| b)
                && bytes.iter().all(|b| f.might_contain_bytes(b))
                && f.might_contain_bytes_batch(&bytes).iter().all(|&b| b)
        };
        prop_assert!(check(&f));
        let copy = SparkBloomFilter::from_bytes(&f.to_bytes()).unwrap();
        prop_assert!(check(&copy));
        prop_assert_eq!(&copy, &f);
        // A merge holds the keys of both.
        half.merge(&f).unwrap();
        prop_assert!(check(&half));
    }

    #[test]
    fn guava_has_no_false_negatives(
        longs in prop::collection::vec(any::<i64>(), 0..300),
        strs in prop::collection::vec(".{0,12}", 0..100),
        bytes in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..100),
    ) {
        let mut f = GuavaBloomFilter::new(500, 0.01).unwrap();
        let mut other = f.clone();
        for &k in &longs {
            let before = f.might_contain_long(k);
            prop_assert_eq!(f.insert_i64(k), before);
        }
        strs.iter().for_each(|s| {
 other.insert_str(s);
 });
        bytes.iter().for_each(|b| {
 other.insert_bytes(b);
 });
        f.put_all(&other).unwrap();
        let check = |f: &GuavaBloomFilter| {
            longs.iter().all(|&k| f.might_contain_long(k))
                && f.might_contain_long_batch(&longs).iter().all(|&b| b)
                && strs.iter().all(|s| f.might_contain_str(s))
                && f.might_contain_bytes_batch(&strs).iter().all(|&b| b)
                && bytes.iter().all(|b| f.might_contain_bytes(b))
                && f.might_contain_bytes_batch(&bytes).iter().all(|&b| b)
        };
        prop_assert!(check(&f));
        let copy = GuavaBloomFilter::read_from(&f.to_bytes()[..]).unwrap();
        prop_assert!(check(&copy));
    }

    /// Keys put with `put_*` (the JVM's own calls) survive every way back from bytes, for
    /// Spark's two versions and Guava: `to_bytes` and `from_bytes`, and `write_to` and
    /// `read_from` one byte per read.
    #[test]
    fn put_keys_survive_every_byte_path(
        seed: i32,
        n in 1u64..1_000,
        longs in prop::collection::vec(any::<i64>(), 0..300),
        strs in prop::collection::vec(".{0,12}", 0..100),
    ) {
        check_put_keys_survive_every_byte_path(&spark(SparkVersion::V1, n, 0), &longs, &strs)?;
        check_put_keys_survive_every_byte_path(&spark(SparkVersion::V2, n, seed), &longs, &strs)?;
        let guava = GuavaBloomFilter::new(n, 0.01).unwrap();
        check_put_keys_survive_every_byte_path(&guava, &longs, &strs)?;
    }

    #[test]
    fn guava_longs_are_their_eight_le_bytes(k: i64) {
        let mut a = GuavaBloomFilter::new(100, 0.01).unwrap();
        a.insert_i64(k);
        prop_assert!(a.might_contain_bytes(&k.to_le_bytes()));
    }
}

/// Measured false-positive rate of `might_contain` over `negatives` keys never inserted,
/// against `expected`, the filter's `estimated_fpr` (the JVM's `expectedFpp`: the fill ratio
/// to the power k), within four standard deviations of a binomial and 5% of slack for the
/// formula's approximation.
/// `insert_all_i64` and `insert_all_bytes` set the bits of inserting the same keys one by
/// one, for Spark's two versions and Guava, in a filter in the cache (key by key) and in one
/// larger than the share of the cache past which they insert in bursts.
#[test]
fn insert_all_sets_the_bits_of_single_inserts() {
    let longs: Vec<i64> = SplitMix64(41).take(20_000).map(|k| k as i64).collect();
    let strs: Vec<String> = (0..3_000).map(|i| format!("key {i}")).collect();
    let bursts_from = direct_max_bytes(false) as u64;
    for bytes in [16 << 10, bursts_from + (1 << 20)] {
        let spark_v1 = SparkBloomFilter::with_version(SparkVersion::V1, 20_000, bytes * 8, 0);
        let spark_v2 = SparkBloomFilter::with_version(SparkVersion::V2, 20_000, bytes * 8, 7);
        for fresh in [spark_v1.unwrap(), spark_v2.unwrap()] {
            let (mut one_by_one, mut all) = (fresh.clone(), fresh);
            longs.iter().for_each(|&k| {
                one_by_one.insert_i64(k);
            });
            strs.iter().for_each(|s| {
                one_by_one.insert_str(s);
            });
            all.insert_all_i64(longs.iter().copied());
            all.insert_all_bytes(&strs);
            assert_eq!(all, one_by_one, "{:?}, {bytes} bytes", all.version());
            assert_eq!(all.cardinality(), one_by_one.cardinality());
        }
        // Guava's sizing: about 9.6 bits per key at 1%.
        let fresh = GuavaBloomFilter::new(bytes * 8 / 9, 0.01).unwrap();
        assert!((fresh.memory_usage() as u64 > bursts_from) == (bytes > bursts_from));
        let (mut one_by_one, mut all) = (fresh.clone(), fresh);
        longs.iter().for_each(|&k| {
            one_by_one.insert_i64(k);
        });
        strs.iter().for_each(|s| {
            one_by_one.insert_bytes(s.as_bytes());
        });
        all.insert_all_i64(longs.iter().copied());
        all.insert_all_bytes(strs.iter().map(String::as_bytes));
        assert_eq!(all, one_by_one, "Guava, {bytes} bytes");
        assert!(longs.iter().all(|&k| all.might_contain_long(k)));
        assert!(strs.iter().all(|s| all.might_contain_str(s)));
    }
}

fn assert_fpr(name: &str, expected: f64, negatives: u64, mut contains: impl FnMut(i64) -> bool) {
    let mut rng = SplitMix64(0x5eed);
    let fp = (0..negatives)
        .filter(|_| contains((rng.next_u64() | 1 << 63) as i64))
        .count() as f64;
    let measured = fp / negatives as f64;
    let sigma = (expected * (1.0 - expected) / negatives as f64).sqrt();
    assert!(
        (measured - expected).abs() <= 4.0 * sigma + 0.05 * expected,
        "{name}: measured {measured}, the JVM's formula {expected}"
    );
}

#[test]
fn fpr_matches_the_jvm_formula() {
    for (n, p) in [(10_000u64, 0.01), (50_000, 0.001), (20_000, 0.1)] {
        // Inserted keys are below 2^63 and probes above: disjoint.
        let keys: Vec<i64> = (0..n as i64).collect();
        for v in [SparkVersion::V1, SparkVersion::V2] {
            let bits = SparkBloomFilter::optimal_num_bits(n, p).unwrap();
            let mut f = SparkBloomFilter::with_version(v, n, bits, 0).unwrap();
            keys.iter().for_each(|&k| {
                f.insert_i64(k);
            });
            assert!(
                f.estimated_fpr() < p * 1.2,
                "{v:?} {n} {p}: {}",
                f.estimated_fpr()
            );
            assert_fpr(
                &format!("spark {v:?} n={n} p={p}"),
                f.estimated_fpr(),
                400_000,
                |k| f.might_contain_long(k),
            );
        }
        let mut g = GuavaBloomFilter::new(n, p).unwrap();
        keys.iter().for_each(|&k| {
            g.insert_i64(k);
        });
        assert!(
            g.estimated_fpr() < p * 1.2,
            "guava {n} {p}: {}",
            g.estimated_fpr()
        );
        let count = g.approximate_element_count() as f64;
        assert!(
            (count / n as f64 - 1.0).abs() < 0.03,
            "guava estimate {count} for {n}"
        );
        assert_fpr(
            &format!("guava n={n} p={p}"),
            g.estimated_fpr(),
            400_000,
            |k| g.might_contain_long(k),
        );
    }
}

#[test]
fn bad_parameters_are_errors() {
    for fpp in bloom_tests::NOT_PROBABILITIES {
        assert!(matches!(
            SparkBloomFilter::new(100, fpp),
            Err(Error::InvalidParameter { name: "fpp", .. })
        ));
        assert!(matches!(
            GuavaBloomFilter::new(100, fpp),
            Err(Error::InvalidParameter { name: "fpp", .. })
        ));
    }
    assert!(matches!(
        SparkBloomFilter::new(0, 0.01),
        Err(Error::InvalidParameter {
            name: "expected_items",
            ..
        })
    ));
    assert!(matches!(
        SparkBloomFilter::new(1 << 63, 0.01),
        Err(Error::InvalidParameter {
            name: "expected_items",
            ..
        })
    ));
    assert!(matches!(
        GuavaBloomFilter::new(0, 0.01),
        Err(Error::InvalidParameter {
            name: "expected_insertions",
            ..
        })
    ));
    // Zero bits from the formula: one item at 99%.
    assert!(SparkBloomFilter::new(1, 0.99).is_err());
    assert!(GuavaBloomFilter::new(1, 0.99).is_err());
    // Guava stores k in a byte.
    assert!(GuavaBloomFilter::new(1, 1e-300).is_err());
    for v in [SparkVersion::V1, SparkVersion::V2] {
        assert!(SparkBloomFilter::with_version(v, 10, 0, 0).is_err());
        assert!(SparkBloomFilter::with_version(v, 0, 100, 0).is_err());
        // Beyond 2^31 - 1 words: refused before allocating anything.
        assert!(matches!(
            SparkBloomFilter::with_version(v, 10, (i32::MAX as u64) * 64 + 1, 0),
            Err(Error::TooLarge { .. })
        ));
    }
    assert!(SparkBloomFilter::with_version(SparkVersion::V1, 10, 100, 1).is_err());
    // Sizes the formulas give beyond the format: refused, not truncated.
    assert!(matches!(
        SparkBloomFilter::new(i64::MAX as u64, 0.01),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        GuavaBloomFilter::new(1 << 40, 0.01),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn merge_needs_the_same_parameters() {
    let a = spark(SparkVersion::V2, 1_000, 1);
    let mut b = a.clone();
    assert!(b.merge(&spark(SparkVersion::V2, 1_000, 2)).is_err());
    assert!(b.merge(&spark(SparkVersion::V1, 1_000, 0)).is_err());
    assert!(b.merge(&spark(SparkVersion::V2, 2_000, 1)).is_err());
    let k_differs = SparkBloomFilter::with_version(SparkVersion::V2, 10, a.bit_size(), 1).unwrap();
    assert!(matches!(
        b.merge(&k_differs),
        Err(Error::Incompatible {
            parameter: "num_hashes",
            ..
        })
    ));
    b.merge(&a).unwrap();
    let mut g = GuavaBloomFilter::new(1_000, 0.01).unwrap();
    assert!(
        g.put_all(&GuavaBloomFilter::new(2_000, 0.01).unwrap())
            .is_err()
    );
    assert!(
        g.put_all(&GuavaBloomFilter::new(1_000, 0.02).unwrap())
            .is_err()
    );
}

fn samples() -> Vec<(bool, Vec<u8>)> {
    let mut v1 = spark(SparkVersion::V1, 300, 0);
    let mut v2 = spark(SparkVersion::V2, 300, -9);
    let mut g = GuavaBloomFilter::new(300, 0.01).unwrap();
    for i in 0..300 {
        v1.insert_i64(i);
        v2.insert_str(&i.to_string());
        g.insert_i64(i);
    }
    vec![
        (true, v1.to_bytes()),
        (true, v2.to_bytes()),
        (false, g.to_bytes()),
    ]
}

fn decode(is_spark: bool, bytes: &[u8]) -> Result<(), Error> {
    if is_spark {
        SparkBloomFilter::from_bytes(bytes).map(drop)
    } else {
        GuavaBloomFilter::from_bytes(bytes).map(drop)
    }
}

fn stream(is_spark: bool, bytes: &[u8]) -> Result<(), Error> {
    if is_spark {
        SparkBloomFilter::read_from(bytes).map(drop)
    } else {
        GuavaBloomFilter::read_from(bytes).map(drop)
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (is_spark, bytes) in samples() {
        for len in 0..bytes.len() {
            assert!(
                matches!(
                    decode(is_spark, &bytes[..len]),
                    Err(Error::Truncated { .. })
                ),
                "{len} of {}",
                bytes.len()
            );
            assert!(matches!(
                stream(is_spark, &bytes[..len]),
                Err(Error::Truncated { .. })
            ));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            decode(is_spark, &longer),
            Err(Error::Corrupt { .. })
        ));
        // A stream stops at the filter's end.
        assert_eq!(stream(is_spark, &longer), Ok(()));
    }
}

fn with(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + value.len()].copy_from_slice(value);
    out
}

#[test]
fn bad_headers_are_errors() {
    let samples = samples();
    let (v1, v2, g) = (&samples[0].1, &samples[1].1, &samples[2].1);
    for version in [0i32, 3, -1] {
        assert!(matches!(
            SparkBloomFilter::from_bytes(&with(v1, 0, &version.to_be_bytes())),
            Err(Error::UnsupportedVersion { .. } | Error::Corrupt { .. })
        ));
    }
    assert!(matches!(
        SparkBloomFilter::from_bytes(&with(v1, 0, &3i32.to_be_bytes())),
        Err(Error::UnsupportedVersion { found: 3 })
    ));
    for k in [0i32, -1, i32::MIN] {
        assert!(matches!(
            SparkBloomFilter::from_bytes(&with(v2, 4, &k.to_be_bytes())),
            Err(Error::Corrupt { .. })
        ));
    }
    // More hashes than bits (and than 255): no Spark writes it, and every query would run
    // through them all.
    let bits = SparkBloomFilter::from_bytes(v2).unwrap().bit_size();
    let most = bits.max(255) as i32;
    assert!(SparkBloomFilter::from_bytes(&with(v2, 4, &most.to_be_bytes())).is_ok());
    for k in [most + 1, i32::MAX] {
        assert!(matches!(
            SparkBloomFilter::from_bytes(&with(v2, 4, &k.to_be_bytes())),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            SparkBloomFilter::read_from(&with(v1, 4, &k.to_be_bytes())[..]),
            Err(Error::Corrupt { .. })
        ));
    }
    for words in [0i32, -1, i32::MIN] {
        assert!(matches!(
            SparkBloomFilter::from_bytes(&with(v1, 8, &words.to_be_bytes())),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            SparkBloomFilter::from_bytes(&with(v2, 12, &words.to_be_bytes())),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            GuavaBloomFilter::from_bytes(&with(g, 2, &words.to_be_bytes())),
            Err(Error::Corrupt { .. })
        ));
    }
    // A V1 header over V2 bytes (or the reverse) leaves the lengths inconsistent.
    assert!(SparkBloomFilter::from_bytes(&with(v2, 0, &1i32.to_be_bytes())).is_err());
    assert!(SparkBloomFilter::from_bytes(&with(v1, 0, &2i32.to_be_bytes())).is_err());
    for strategy in [0u8, 2, 255] {
        assert_eq!(
            GuavaBloomFilter::from_bytes(&with(g, 0, &[strategy])),
            Err(Error::UnsupportedHashScheme { found: strategy })
        );
    }
    assert!(matches!(
        GuavaBloomFilter::from_bytes(&with(g, 1, &[0])),
        Err(Error::Corrupt { .. })
    ));
    // Any k from 1 to 255 is Guava's.
    assert!(GuavaBloomFilter::from_bytes(&with(g, 1, &[255])).is_ok());
}

#[test]
fn random_mutations_never_panic() {
    let mut rng = SplitMix64(18);
    for (is_spark, bytes) in samples() {
        for _ in 0..3_000 {
            let mut m = bytes.clone();
            for _ in 0..1 + rng.next_u64() % 4 {
                let at = (rng.next_u64() % m.len() as u64) as usize;
                // Mostly the header, where a flip changes the structure.
                let at = if rng.next_u64().is_multiple_of(2) {
                    at % 16
                } else {
                    at
                };
                m[at] ^= 1 << (rng.next_u64() % 8);
            }
            if rng.next_u64().is_multiple_of(4) {
                m.truncate((rng.next_u64() % m.len() as u64) as usize);
            }
            if is_spark {
                check_spark_bytes(&m);
            } else {
                check_guava_bytes(&m);
            }
        }
    }
}

/// A reader that hands out one byte per call, with interruptions between.
struct Trickle<'a>(&'a [u8], bool);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.1 = !self.1;
        if self.1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

struct Failing;

impl Write for Failing {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("disk full"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("network down"))
    }
}

#[test]
fn streaming() {
    let mut big = SparkBloomFilter::new(200_000, 0.01).unwrap();
    (0..200_000).for_each(|i| {
        big.insert_i64(i);
    });
    let mut out = Vec::new();
    big.write_to(&mut out).unwrap();
    assert_eq!(out, big.to_bytes());
    assert_eq!(SparkBloomFilter::read_from(&out[..]).unwrap(), big);
    for (is_spark, bytes) in samples() {
        if is_spark {
            let f = SparkBloomFilter::read_from(Trickle(&bytes, false)).unwrap();
            assert_eq!(f.to_bytes(), bytes);
            assert!(matches!(f.write_to(Failing), Err(Error::Io(_))));
            assert!(matches!(
                SparkBloomFilter::read_from(Failing),
                Err(Error::Io(_))
            ));
        } else {
            let f = GuavaBloomFilter::read_from(Trickle(&bytes, false)).unwrap();
            assert_eq!(f.to_bytes(), bytes);
            assert!(matches!(f.write_to(Failing), Err(Error::Io(_))));
            assert!(matches!(
                GuavaBloomFilter::read_from(Failing),
                Err(Error::Io(_))
            ));
        }
    }
    // Two filters back to back in one stream.
    let samples = samples();
    let mut both = samples[0].1.clone();
    both.extend_from_slice(&samples[1].1);
    let mut reader = &both[..];
    assert_eq!(
        SparkBloomFilter::read_from(&mut reader).unwrap().to_bytes(),
        samples[0].1
    );
    assert_eq!(
        SparkBloomFilter::read_from(&mut reader).unwrap().to_bytes(),
        samples[1].1
    );
    assert!(reader.is_empty());
}

#[test]
fn batch_equals_single_past_the_cache() {
    let mut rng = SplitMix64(7);
    let keys: Vec<i64> = (0..100_003).map(|_| rng.next_u64() as i64).collect();
    // Filters of 6 to 64 MiB, larger than the L2 cache the staged path starts at, with
    // k = 1, 2 (no probes after the leading ones), 6 and 7; and k = 22, beyond the staged
    // path.
    let mut spark = vec![];
    for (v, n, bits) in [
        (SparkVersion::V2, 1u64 << 26, 1u64 << 29),
        (SparkVersion::V1, 1 << 24, 3 << 24),
        (SparkVersion::V2, 1 << 26, 1 << 26),
        (SparkVersion::V2, 1 << 24, 1 << 29),
    ] {
        spark.push(SparkBloomFilter::with_version(v, n, bits, 0).unwrap());
    }
    assert_eq!(
        spark.iter().map(|f| f.num_hashes()).collect::<Vec<_>>(),
        [6, 2, 1, 22]
    );
    let mut guava = GuavaBloomFilter::new(1 << 22, 0.01).unwrap();
    assert_eq!(guava.num_hashes(), 7);
    for &k in keys.iter().step_by(3) {
        spark.iter_mut().for_each(|f| {
            f.insert_i64(k);
        });
        guava.insert_i64(k);
    }
    for f in &spark {
        let single: Vec<bool> = keys.iter().map(|&k| f.might_contain_long(k)).collect();
        assert_eq!(
            f.might_contain_long_batch(&keys),
            single,
            "k = {}",
            f.num_hashes()
        );
        assert!(single.iter().step_by(3).all(|&b| b));
        // Every length around the group size, so the pipeline's ends are covered.
        for len in 0..70 {
            assert_eq!(f.might_contain_long_batch(&keys[..len]), single[..len]);
        }
    }
    let single: Vec<bool> = keys.iter().map(|&k| guava.might_contain_long(k)).collect();
    let mut out = vec![true; 5];
    guava.might_contain_long_batch_into(&keys, &mut out);
    assert_eq!(out, single);
    // String and byte keys through the same staged path.
    let strs: Vec<String> = (0..20_000).map(key_str).collect();
    let bytes: Vec<Vec<u8>> = (0..20_000).map(key_bytes).collect();
    for (s, b) in strs.iter().zip(&bytes).step_by(3) {
        spark.iter_mut().for_each(|f| {
            f.insert_str(s);
            f.insert_bytes(b);
        });
        guava.insert_str(s);
        guava.insert_bytes(b);
    }
    for f in &spark {
        let single: Vec<bool> = strs.iter().map(|s| f.might_contain_str(s)).collect();
        assert_eq!(f.might_contain_bytes_batch(&strs), single);
        assert!(single.iter().step_by(3).all(|&b| b));
        let single: Vec<bool> = bytes.iter().map(|b| f.might_contain_bytes(b)).collect();
        f.might_contain_bytes_batch_into(&bytes, &mut out);
        assert_eq!(out, single);
    }
    let single: Vec<bool> = strs.iter().map(|s| guava.might_contain_str(s)).collect();
    assert_eq!(guava.might_contain_bytes_batch(&strs), single);
    let single: Vec<bool> = bytes.iter().map(|b| guava.might_contain_bytes(b)).collect();
    guava.might_contain_bytes_batch_into(&bytes, &mut out);
    assert_eq!(out, single);
}

#[test]
fn fuzz_regressions_replay() {
    assert!(replay_fuzz_dir("spark_from_bytes", check_spark_bytes) > 0);
    assert!(replay_fuzz_dir("guava_from_bytes", check_guava_bytes) > 0);
}
