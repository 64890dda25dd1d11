//! The shared suite and the counting-specific checks for `CountingBloomFilter`: a model-based
//! property test against a multiset, saturation, equivalence with the classic filter, and
//! golden bytes.

use std::collections::HashMap;

use bloom_classic::BloomFilter;
use bloom_core::internal::Probes;
use bloom_core::{Error, Filter, Keyed};
use bloom_counting::{CountingBloomFilter, Removed};
use bloom_tests::{SplitMix64, distinct_keys, filter_suite};
use proptest::prelude::*;

filter_suite!(counting, CountingBloomFilter);

/// One step of the model-based test.
#[derive(Debug, Clone)]
enum Op {
    /// Insert a key this many times.
    Insert(u16, u8),
    /// Remove a key, whether the model holds it or not.
    Remove(u16),
    /// Query a key.
    Contains(u16),
    /// Unite with a filter built from these keys.
    Union(Vec<u16>),
    /// Replace the filter by its copy read back from bytes.
    RoundTrip,
    /// Empty the filter.
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    // Keys from a small universe so they repeat; a few "hot" keys reach saturation.
    let key = prop_oneof![3 => 0u16..12, 2 => 0u16..400];
    prop_oneof![
        6 => (key.clone(), prop_oneof![9 => Just(1u8), 1 => 2u8..20]).prop_map(|(k, n)| Op::Insert(k, n)),
        6 => key.clone().prop_map(Op::Remove),
        2 => key.clone().prop_map(Op::Contains),
        1 => proptest::collection::vec(key, 0..30).prop_map(Op::Union),
        1 => Just(Op::RoundTrip),
        1 => Just(Op::Clear),
    ]
}

/// The filter built from scratch from the model's multiset.
fn rebuild(empty: &CountingBloomFilter, model: &HashMap<u16, u32>) -> CountingBloomFilter {
    let mut f = empty.clone();
    for (k, &n) in model {
        for _ in 0..n {
            f.insert(k);
        }
    }
    f
}

/// What removing `key` must report: [`Removed::Saturated`] when all its counters are at 15.
fn expected_removal(f: &CountingBloomFilter, key: &u16) -> Removed {
    let mut probes = Probes::new(f.hash(key), f.num_hashes(), f.num_counters());
    if probes.all(|p| f.counter(p) == Some(15)) {
        Removed::Saturated
    } else {
        Removed::Decremented
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random sequences of insert, remove (of present and absent keys), contains, union, round
    /// trip and clear, checked against a `HashMap<key, multiplicity>`:
    ///
    /// * never a false negative for a key of multiplicity above zero, after any step;
    /// * removing a key the model holds succeeds, reporting `Saturated` exactly when all its
    ///   counters are at 15 (and the key then stays present); a removal that returns the
    ///   error leaves the bytes unchanged (and it must return the error when the filter says
    ///   "absent");
    /// * `count_estimate` is at least the multiplicity (capped at 15);
    /// * while no counter has saturated, the filter equals the one built from the model.
    #[test]
    fn model_based(
        params in prop_oneof![Just((200u64, 3u32)), Just((700, 4)), Just((64, 2))],
        ops in proptest::collection::vec(op(), 1..200),
    ) {
        let empty = CountingBloomFilter::with_params(params.0, params.1).unwrap();
        let mut f = empty.clone();
        let mut model: HashMap<u16, u32> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(k, n) => {
                    for _ in 0..n {
                        f.insert(&k);
                    }
                    *model.entry(k).or_default() += u32::from(n);
                }
                Op::Remove(k) => {
                    let held = model.get(&k).copied().unwrap_or(0);
                    if held > 0 {
                        let expected = expected_removal(&f, &k);
                        let before = f.to_bytes();
                        prop_assert_eq!(f.remove(&k), Ok(expected), "removing held key {}", k);
                        if expected == Removed::Saturated {
                            prop_assert_eq!(f.to_bytes(), before, "saturated key {} changed", k);
                        }
                        if held == 1 {
                            model.remove(&k);
                        } else {
                            model.insert(k, held - 1);
                        }
                    } else if !f.contains(&k) {
                        let before = f.to_bytes();
                        prop_assert_eq!(f.remove(&k), Err(Error::NotPresent));
                        prop_assert_eq!(f.to_bytes(), before);
                    } else {
                        // A false positive: removing it would take counts from the keys that
                        // share its counters. The documented misuse, not exercised here; a
                        // removal that fails must still change nothing.
                        let before = f.to_bytes();
                        let mut copy = f.clone();
                        if copy.remove(&k).is_err() {
                            prop_assert_eq!(copy.to_bytes(), before);
                        }
                    }
                }
                Op::Contains(k) => {
                    let held = model.get(&k).copied().unwrap_or(0);
                    if held > 0 {
                        prop_assert!(f.contains(&k));
                    }
                    prop_assert!(u32::from(f.count_estimate(&k)) >= held.min(15));
                }
                Op::Union(keys) => {
                    let mut other = empty.clone();
                    for k in &keys {
                        other.insert(k);
                        *model.entry(*k).or_default() += 1;
                    }
                    f.union(&other).unwrap();
                }
                Op::RoundTrip => {
                    let copy = CountingBloomFilter::from_bytes(&f.to_bytes()).unwrap();
                    prop_assert_eq!(&copy, &f);
                    f = copy;
                }
                Op::Clear => {
                    f.clear();
                    model.clear();
                }
            }
            for (k, &n) in &model {
                prop_assert!(f.contains(k), "false negative for {} (multiplicity {})", k, n);
            }
            if f.saturated_counters() == 0 {
                prop_assert_eq!(&f, &rebuild(&empty, &model));
            }
        }
        let summary = f.to_bloom_filter();
        for k in 0..400u16 {
            prop_assert_eq!(summary.contains(&k), f.contains(&k));
        }
    }

    /// Mutated bytes with a valid checksum never panic, and whatever decodes is a filter that
    /// can be used and written back.
    #[test]
    fn any_counter_payload_decodes_to_a_usable_filter(payload in proptest::collection::vec(any::<u8>(), 8)) {
        let mut f = CountingBloomFilter::with_params(16, 3).unwrap();
        f.insert("x");
        let mut bytes = f.to_bytes();
        let start = bytes.len() - 16;
        bytes[start..start + 8].copy_from_slice(&payload);
        let end = bytes.len() - 8;
        let sum = bloom_core::format::checksum(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        let mut g = CountingBloomFilter::from_bytes(&bytes).unwrap();
        g.insert("y");
        prop_assert!(g.contains("y"));
        let _ = g.remove("z");
        prop_assert_eq!(CountingBloomFilter::from_bytes(&g.to_bytes()).unwrap(), g);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Removing inserted keys, from a seeded or a keyed filter, leaves every other inserted
    /// key present, also in the copy read back from bytes (with the key) and removed from
    /// further there: a removal takes only the counts its own key added.
    #[test]
    fn removal_keeps_the_other_keys(
        keys in proptest::collection::hash_set(any::<u32>(), 1..400),
        removed in proptest::collection::vec(any::<bool>(), 400),
        capacity in 20u64..400,
        keyed: bool,
    ) {
        const KEY: [u8; 16] = *b"counting-secret!";
        let mut f = CountingBloomFilter::new(capacity, 0.05).unwrap();
        if keyed {
            f = f.with_key(KEY);
        }
        let keys: Vec<u32> = keys.into_iter().collect();
        for k in &keys {
            f.insert(k);
        }
        let gone: Vec<u32> = keys.iter().enumerate().filter(|&(i, _)| removed[i]).map(|(_, &k)| k).collect();
        let kept: Vec<u32> = keys.iter().enumerate().filter(|&(i, _)| !removed[i]).map(|(_, &k)| k).collect();
        let (half, rest) = gone.split_at(gone.len() / 2);
        for k in half {
            prop_assert!(f.remove(k).is_ok(), "removing inserted key {}", k);
        }
        for k in kept.iter().chain(rest) {
            prop_assert!(f.contains(k), "false negative for {} after removals", k);
        }
        let bytes = f.to_bytes();
        let mut copy = if keyed {
            CountingBloomFilter::from_bytes_with_key(&bytes, &KEY).unwrap()
        } else {
            CountingBloomFilter::from_bytes(&bytes).unwrap()
        };
        for k in rest {
            prop_assert!(copy.remove(k).is_ok(), "removing inserted key {} after a round trip", k);
        }
        for k in &kept {
            prop_assert!(copy.contains(k), "false negative for {} after a round trip", k);
        }
    }
}

#[test]
fn a_key_inserted_twenty_times_and_removed_thirty_reports_saturated() {
    let mut f = CountingBloomFilter::new(1_000, 0.01).unwrap();
    for _ in 0..20 {
        f.insert("hot");
    }
    assert_eq!(f.count_estimate("hot"), 15);
    for i in 0..30 {
        assert_eq!(f.remove("hot"), Ok(Removed::Saturated), "remove {i}");
    }
    assert!(f.contains("hot"));
    assert_eq!(f.count_estimate("hot"), 15);
    // Why: its counters saturated and stuck.
    let probes = Probes::new(f.hash("hot"), f.num_hashes(), f.num_counters());
    let mut distinct: Vec<u64> = probes.collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(f.saturated_counters(), distinct.len() as u64);
    assert!(distinct.iter().all(|&p| f.counter(p) == Some(15)));
    // A key inserted once beside it is decremented, then gone.
    f.insert("cold");
    assert_eq!(f.remove("cold"), Ok(Removed::Decremented));
    assert!(!f.contains("cold"));
    assert_eq!(f.remove("cold"), Err(Error::NotPresent));
}

#[test]
fn keys_sharing_a_saturated_counter_are_never_lost() {
    // A filter that wraps its counters (or decrements saturated ones) loses these keys: the
    // hot key's removals would take the shared counters to zero.
    let mut f = CountingBloomFilter::new(10_000, 0.01).unwrap();
    let hot = u64::MAX;
    let hot_positions: Vec<u64> =
        Probes::new(f.hash(&hot), f.num_hashes(), f.num_counters()).collect();
    let sharing: Vec<u64> = (0..1_000_000u64)
        .filter(|k| {
            Probes::new(f.hash(k), f.num_hashes(), f.num_counters())
                .any(|p| hot_positions.contains(&p))
        })
        .take(50)
        .collect();
    assert_eq!(sharing.len(), 50);
    for _ in 0..20 {
        f.insert(&hot);
    }
    for k in &sharing {
        f.insert(k);
    }
    for _ in 0..20 {
        assert_eq!(f.remove(&hot), Ok(Removed::Saturated));
    }
    assert!(f.saturated_counters() > 0);
    assert!(sharing.iter().all(|k| f.contains(k)));
    // Removing half of them keeps the other half. Each shares a saturated counter with the
    // hot key, but its other counters still count, so each removal takes effect.
    for k in &sharing[..25] {
        assert_eq!(f.remove(k), Ok(Removed::Decremented));
    }
    assert!(sharing[25..].iter().all(|k| f.contains(k)));
    // Repeated inserts of a sharing key saturate more counters; still nothing is lost.
    for _ in 0..30 {
        f.insert(&sharing[30]);
    }
    for _ in 0..30 {
        assert_eq!(f.remove(&sharing[30]), Ok(Removed::Saturated));
    }
    assert!(sharing[25..].iter().all(|k| f.contains(k)));
}

/// The same keys give the same answers as a classic filter of the same size, probe count and
/// seed, so the measured FPR is the classic filter's (required within 5%; it is equal).
#[test]
fn fpr_equals_the_classic_filters_at_one_million() {
    let n = 1_000_000u64;
    let mut counting = CountingBloomFilter::new(n, 0.01).unwrap();
    let mut classic = BloomFilter::new(n, 0.01).unwrap();
    for k in distinct_keys(1 << 40, n) {
        counting.insert(&k);
        classic.insert(&k);
    }
    assert_eq!(counting.to_bloom_filter(), classic);
    let negatives: Vec<u64> = distinct_keys(1 << 41, 2_000_000).collect();
    let fp_counting = counting
        .contains_batch(&negatives)
        .iter()
        .filter(|&&b| b)
        .count();
    let fp_classic = classic
        .contains_batch(&negatives)
        .iter()
        .filter(|&&b| b)
        .count();
    let ratio = fp_counting as f64 / fp_classic as f64;
    assert!((ratio - 1.0).abs() <= 0.05, "{fp_counting} vs {fp_classic}");
    let rate = fp_counting as f64 / negatives.len() as f64;
    assert!((0.009..0.011).contains(&rate), "{rate}");
}

#[test]
fn remove_then_reinsert_matches_a_fresh_filter() {
    let keys: Vec<u64> = SplitMix64(5).take(20_000).collect();
    let mut f = CountingBloomFilter::new(20_000, 0.01).unwrap();
    f.insert_all(&keys);
    for k in &keys[..10_000] {
        assert_eq!(f.remove(k), Ok(Removed::Decremented));
    }
    let mut fresh = CountingBloomFilter::new(20_000, 0.01).unwrap();
    fresh.insert_all(&keys[10_000..]);
    assert_eq!(f, fresh);
    assert!(keys[10_000..].iter().all(|k| f.contains(k)));
}

/// The same on a filter larger than the cache threshold (5 MB of counters), where `insert`
/// and `remove` prefetch every line of a key before touching it: the prefetch changes no
/// answer, a failed removal still changes nothing, and removals leave exactly the filter of
/// the remaining keys.
#[test]
fn large_filter_removes_exactly() {
    let keys: Vec<u64> = SplitMix64(6).take(40_000).collect();
    let mut f = CountingBloomFilter::with_params(10_000_000, 7).unwrap();
    assert!(f.memory_usage() > bloom_core::internal::batch::CACHED_MAX_BYTES);
    for k in &keys {
        f.insert(k);
    }
    for k in &keys[..20_000] {
        assert_eq!(f.remove(k), Ok(Removed::Decremented));
    }
    let mut fresh = CountingBloomFilter::with_params(10_000_000, 7).unwrap();
    for k in &keys[20_000..] {
        fresh.insert(k);
    }
    assert_eq!(f, fresh);
    assert!(keys[20_000..].iter().all(|k| f.contains(k)));
    let before = f.to_bytes();
    let mut accepted = Vec::new();
    for k in &keys[..20_000] {
        match f.remove(k) {
            Ok(_) => accepted.push(*k),
            Err(e) => assert_eq!(e, Error::NotPresent),
        }
    }
    // Only false positives (about 1%, at this fill far fewer) can be accepted.
    assert!(
        accepted.len() < 100,
        "{} of 20,000 accepted",
        accepted.len()
    );
    for k in &accepted {
        f.insert(k);
    }
    assert_eq!(f.to_bytes(), before);
}

#[test]
fn filter_trait_sees_the_same_filter() {
    fn through_trait<F: Filter>(f: &mut F) -> bool {
        f.insert("generic").unwrap() || !f.contains("generic")
    }
    let mut f = CountingBloomFilter::new(100, 0.01).unwrap();
    assert!(!through_trait(&mut f));
    assert_eq!(f.count_estimate("generic"), 1);
    assert_eq!(
        <CountingBloomFilter as Filter>::key_hash(&f, "k"),
        f.hashing().hash("k")
    );
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Golden bytes, computed by `tests/golden/counting_golden.py`, an independent model (the
/// seeded hash written out in Python, the probes and framing written out from
/// `docs/format.md`). If this test fails, the format changed.
#[test]
fn golden_bytes() {
    let mut a = CountingBloomFilter::with_params(40, 3).unwrap();
    for k in [1u64, 2, 3, 3] {
        a.insert(&k);
    }
    assert_eq!(
        a.to_bytes(),
        hex(
            "424c4d4605000201157c4a7fb979379e2800000000000000030000001800000000000000000000000000000000000000000000000000000000000000000000002000000002000000000100002010010010110000000000003eba7d473cf65d28"
        )
    );
    let mut b = CountingBloomFilter::with_params(20, 4)
        .unwrap()
        .with_seed(7);
    for _ in 0..16 {
        b.insert("hello");
    }
    b.insert("world");
    assert_eq!(
        b.to_bytes(),
        hex(
            "424c4d4605000201070000000000000014000000000000000400000010000000000000000000000000000000000000000000000000000000000000000000000000ff1001000000f0f00000000000000077376286163512c0"
        )
    );
    assert_eq!(b.saturated_counters(), 4);
    assert_eq!(CountingBloomFilter::from_bytes(&b.to_bytes()).unwrap(), b);
}

#[test]
fn structural_errors_are_named() {
    let f = CountingBloomFilter::with_params(40, 3).unwrap();
    let bytes = f.to_bytes();
    let reframe = |mutate: &dyn Fn(&mut Vec<u8>)| {
        let mut m = bytes.clone();
        mutate(&mut m);
        let end = m.len() - 8;
        let sum = bloom_core::format::checksum(&m[..end]);
        m[end..].copy_from_slice(&sum.to_le_bytes());
        CountingBloomFilter::from_bytes(&m)
    };
    // num_counters 0, beyond the maximum, or disagreeing with the payload.
    for counters in [0u64, 32, 49, 1 << 39, u64::MAX] {
        let r = reframe(&|m| m[16..24].copy_from_slice(&counters.to_le_bytes()));
        assert!(matches!(r, Err(Error::Corrupt { .. })), "{counters}: {r:?}");
    }
    // num_hashes 0 or 65.
    for k in [0u32, 65] {
        let r = reframe(&|m| m[24..28].copy_from_slice(&k.to_le_bytes()));
        assert!(matches!(r, Err(Error::Corrupt { .. })), "{k}");
    }
    // A counter past the end (counter 40 of 48 slots).
    let r = reframe(&|m| m[36 + 20] = 1);
    assert!(matches!(r, Err(Error::Corrupt { .. })), "{r:?}");
    // A classic filter's bytes are not a counting filter.
    let classic = BloomFilter::new(10, 0.01).unwrap().to_bytes();
    assert!(matches!(
        CountingBloomFilter::from_bytes(&classic),
        Err(Error::WrongVariant {
            expected: 2,
            found: 1
        })
    ));
}

/// The inputs committed from fuzzing `from_bytes` (seeds and any minimized crash) still pass.
#[test]
fn fuzz_regressions_replay() {
    let count = bloom_tests::replay_fuzz_inputs::<CountingBloomFilter>(
        "counting_from_bytes",
        bloom_tests::counting::decoded_filter_checks,
    );
    assert!(count > 0);
}
