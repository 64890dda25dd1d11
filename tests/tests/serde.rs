//! Serde for every filter: a compact base64 string in JSON, the same bytes as `to_bytes`, no
//! key lost on the way back (proptest), and errors that say what was wrong.

use std::fmt::Debug;

use bloom_aging::AgingBloomFilter;
use bloom_blocked::{
    AtomicBlockedBloomFilter, AtomicMultiblock32BloomFilter, AtomicMultiblockBloomFilter,
    AtomicSplitBlockBloomFilter, BlockedBloomFilter, Multiblock32BloomFilter,
    MultiblockBloomFilter, SplitBlockBloomFilter,
};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::{Filter, Persist};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use bloom_tests::Subject;
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Base64 decoding by the book, one bit at a time (RFC 4648 §4): the oracle the filters'
/// JSON is checked against, written independently of bloom-core's decoder.
fn reference_base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digits = text.trim_end_matches('=');
    let mut bits = Vec::new();
    for c in digits.chars() {
        let value = ALPHABET.find(c).expect("a base64 digit");
        bits.extend((0..6).rev().map(|i| (value >> i) & 1 == 1));
    }
    // Whole bytes only: the last 2 or 4 bits of a padded text are fill.
    bits.chunks_exact(8)
        .map(|byte| byte.iter().fold(0u8, |acc, &bit| acc << 1 | u8::from(bit)))
        .collect()
}

/// JSON holds one string, the bytes of `to_bytes` in base64, about 4/3 of their size, and
/// reads back to an equal filter.
fn check_json_round_trip<F>(filter: &F)
where
    F: Filter + Persist + Serialize + DeserializeOwned + Debug,
{
    let bytes = filter.to_bytes();
    let json = serde_json::to_string(filter).unwrap();
    let text: String = serde_json::from_str(&json).expect("a JSON string");
    assert_eq!(text.len(), bytes.len().div_ceil(3) * 4, "{}", F::NAME);
    assert_eq!(reference_base64_decode(&text), bytes, "{}", F::NAME);
    let back: F = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), bytes, "{}", F::NAME);
    // Through serde_json's own value tree as well (also human-readable).
    let value = serde_json::to_value(filter).unwrap();
    assert!(value.is_string(), "{}", F::NAME);
    let back: F = serde_json::from_value(value).unwrap();
    assert_eq!(back.to_bytes(), bytes, "{}", F::NAME);
}

/// Bad JSON is reported for what it is, never as a byte-format error of the wrong cause.
fn check_json_errors<F>()
where
    F: Filter + DeserializeOwned + Debug,
{
    let err = |json: &str| serde_json::from_str::<F>(json).unwrap_err().to_string();
    assert_eq!(
        err("[1,2,3]"),
        "invalid type: sequence, expected a base64 string of a serialised filter's bytes at \
         line 1 column 0",
        "{}",
        F::NAME
    );
    assert_eq!(
        err("7"),
        "invalid type: integer `7`, expected a base64 string of a serialised filter's bytes at \
         line 1 column 1",
        "{}",
        F::NAME
    );
    assert_eq!(
        err(r#""QkxN!0YB""#),
        "invalid base64 at character 5: '!' is not a base64 digit at line 1 column 10",
        "{}",
        F::NAME
    );
    assert_eq!(
        err(r#""QkxNRg""#),
        "invalid base64: 6 characters, not a multiple of 4 (cut short?) at line 1 column 8",
        "{}",
        F::NAME
    );
    // Good base64 of bytes that are not a filter: what `from_bytes` found.
    assert_eq!(
        err(r#""AAAAAAAA""#),
        "not a filter: bad magic number [00, 00, 00, 00]",
        "{}",
        F::NAME
    );
}

/// `filter` holding the keys 0 to 499.
fn filled<F: Filter>(mut filter: F) -> F {
    for k in 0..500u64 {
        filter.insert(&k).unwrap();
    }
    filter
}

#[test]
fn every_variant_round_trips_through_json() {
    check_json_round_trip(&filled(BloomFilter::new(500, 0.01).unwrap()));
    check_json_round_trip(&filled(AtomicBloomFilter::new(500, 0.01).unwrap()));
    check_json_round_trip(&filled(CountingBloomFilter::new(500, 0.01).unwrap()));
    let scalable = filled(ScalableBloomFilter::new(100, 0.01).unwrap());
    assert!(scalable.num_layers() > 1);
    check_json_round_trip(&scalable);
    check_json_round_trip(&filled(BlockedBloomFilter::new(500, 0.01).unwrap()));
    check_json_round_trip(&filled(AtomicBlockedBloomFilter::new(500, 0.01).unwrap()));
    check_json_round_trip(&filled(SplitBlockBloomFilter::new(500, 0.01).unwrap()));
    check_json_round_trip(&filled(AgingBloomFilter::new(500, 0.01).unwrap()));
}

#[test]
fn every_variant_reports_bad_json_for_what_it_is() {
    check_json_errors::<BloomFilter>();
    check_json_errors::<AtomicBloomFilter>();
    check_json_errors::<CountingBloomFilter>();
    check_json_errors::<ScalableBloomFilter>();
    check_json_errors::<BlockedBloomFilter>();
    check_json_errors::<AtomicBlockedBloomFilter>();
    check_json_errors::<SplitBlockBloomFilter>();
    check_json_errors::<AgingBloomFilter>();
}

#[test]
fn a_180_kb_filter_is_about_4_3_of_its_bytes_in_json() {
    let mut f = BloomFilter::new(150_000, 0.01).unwrap();
    f.insert_all(0..150_000u64);
    let bytes = f.to_bytes().len();
    assert!((179_000..181_000).contains(&bytes), "{bytes}");
    let json = serde_json::to_string(&f).unwrap().len();
    // It was 646,893 characters as an array of numbers (3.6 per byte).
    assert_eq!(json, bytes.div_ceil(3) * 4 + 2);
    assert!(json < bytes * 4 / 3 + 8, "{json} for {bytes} bytes");
    // Bytes of the wrong variant, in good base64: the type names, not a tag number.
    let counting = CountingBloomFilter::new(100, 0.01).unwrap();
    let err = serde_json::from_str::<BloomFilter>(&serde_json::to_string(&counting).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "wrong filter variant: these bytes hold a CountingBloomFilter, not a BloomFilter"
        ),
        "{err}"
    );
}

/// `F` built for `capacity` keys, holding `keys`, read back from a JSON string and from
/// serde_json's value tree: every key is present in each copy.
fn check_serde_keeps_every_key<F>(capacity: usize, keys: &[u64]) -> Result<(), TestCaseError>
where
    F: Subject + Serialize + DeserializeOwned,
{
    let mut filter = F::build(capacity.max(1) as u64, 0.05).unwrap();
    for key in keys {
        filter.insert(key).unwrap();
    }
    let back: F = serde_json::from_str(&serde_json::to_string(&filter).unwrap()).unwrap();
    for key in keys {
        prop_assert!(
            back.contains(key),
            "{}: false negative for {} after JSON",
            F::NAME,
            key
        );
    }
    prop_assert!(back.contains_batch(keys).iter().all(|&b| b), "{}", F::NAME);
    let back: F = serde_json::from_value(serde_json::to_value(&filter).unwrap()).unwrap();
    prop_assert!(back.contains_batch(keys).iter().all(|&b| b), "{}", F::NAME);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every variant read back through serde (a JSON string and serde_json's value tree)
    /// finds every key it held, over arbitrary keys: filters sized for half of them (a
    /// scalable filter grows), the aging window for all (it would rightly forget the rest).
    #[test]
    fn serde_keeps_every_key_of_every_variant(keys in proptest::collection::vec(any::<u64>(), 0..1_000)) {
        let half = keys.len() / 2;
        check_serde_keeps_every_key::<BloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AtomicBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<CountingBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<ScalableBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<BlockedBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AtomicBlockedBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<MultiblockBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AtomicMultiblockBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<Multiblock32BloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AtomicMultiblock32BloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<SplitBlockBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AtomicSplitBlockBloomFilter>(half, &keys)?;
        check_serde_keeps_every_key::<AgingBloomFilter>(keys.len(), &keys)?;
    }
}
