//! `AgingBloomFilter`: the shared suite's checks that fit a filter which forgets, a model of
//! the window (a queue of recent keys with their generations), expiry, the false-positive
//! rate along a long stream, time windows, and golden bytes.
//!
//! The suite's `filter_suite!` inserts twice a filter's capacity in one of its proptests,
//! which a sliding window rightly forgets; its other checks run here one by one, and the
//! model test takes that proptest's place.

use std::collections::VecDeque;

use bloom_aging::AgingBloomFilter;
use bloom_core::{Error, Keyed as _};
use bloom_tests::{SplitMix64, Subject, distinct_keys};
use proptest::prelude::*;

/// What a test does to the filters it models.
#[derive(Debug, Clone)]
enum Op {
    /// Insert a key into the left (`false`) or right (`true`) filter.
    Insert(bool, u64),
    /// Force a generation shift on one filter.
    Advance(bool),
    /// Replace the left filter by its copy read back from bytes.
    RoundTrip,
    /// Unite the right filter into the left.
    Union,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (any::<bool>(), 0..400u64).prop_map(|(side, key)| Op::Insert(side, key)),
        2 => any::<bool>().prop_map(Op::Advance),
        1 => Just(Op::RoundTrip),
        1 => Just(Op::Union),
    ]
}

/// The model of one filter: each key with the generation it was inserted in, and the
/// generation count and insert count the filter should have.
#[derive(Debug, Clone, Default)]
struct Model {
    keys: VecDeque<(u64, u64)>,
    generation: u64,
    count: u64,
}

impl Model {
    fn insert(&mut self, key: u64, generation_len: u64) {
        self.keys.push_back((key, self.generation));
        self.count += 1;
        if self.count == generation_len {
            self.shift();
        }
    }

    fn shift(&mut self) {
        self.generation += 1;
        self.count = 0;
    }

    /// The keys the filter must find: at most l generations old.
    fn alive(&self, l: u64) -> impl Iterator<Item = u64> + '_ {
        self.keys
            .iter()
            .filter(move |&&(_, g)| self.generation - g <= l)
            .map(|&(k, _)| k)
    }

    /// The union of aligned rings: each key of `right` joins with its age, if this filter's
    /// generations reach that far back.
    fn absorb(&mut self, right: &Model) {
        for &(key, g) in &right.keys {
            let age = right.generation - g;
            if age <= self.generation {
                self.keys.push_back((key, self.generation - age));
            }
        }
        self.count = self.count.max(right.count);
    }
}

/// Checks that each filter counts its generation's inserts as its model does and finds every
/// key its model holds alive (at most `l` generations old).
fn check_models(
    filters: &[AgingBloomFilter],
    models: &[Model],
    l: u32,
) -> Result<(), TestCaseError> {
    for (filter, model) in filters.iter().zip(models) {
        prop_assert_eq!(filter.generation_inserts(), model.count);
        for key in model.alive(u64::from(l)) {
            prop_assert!(filter.contains(&key), "false negative for {}", key);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// No false negatives within the window after any sequence of inserts, shifts, round
    /// trips and unions, against a model that ages keys as the filter must.
    #[test]
    fn window_model(
        ops in proptest::collection::vec(op(), 1..600),
        window in 20u64..200,
        k in 1u32..6,
        l in 1u32..8,
    ) {
        let empty = AgingBloomFilter::builder(window, 0.05).slices(k, l).build().unwrap();
        let g = empty.generation_len();
        prop_assert_eq!(g, window.div_ceil(u64::from(l)));
        let mut filters = [empty.clone(), empty];
        let mut models = [Model::default(), Model::default()];
        for op in ops {
            match op {
                Op::Insert(side, key) => {
                    let side = usize::from(side);
                    let before = models[side].alive(u64::from(l)).any(|k| k == key);
                    let seen = filters[side].insert(&key);
                    prop_assert!(seen || !before, "{key} in the window reported new");
                    models[side].insert(key, g);
                }
                Op::Advance(side) => {
                    let side = usize::from(side);
                    filters[side].advance();
                    models[side].shift();
                }
                Op::RoundTrip => {
                    let copy = AgingBloomFilter::from_bytes(&filters[0].to_bytes()).unwrap();
                    prop_assert_eq!(&copy, &filters[0]);
                    filters[0] = copy;
                }
                Op::Union => {
                    let right = filters[1].clone();
                    let slices = u64::from(k + l);
                    if models[0].generation % slices != models[1].generation % slices {
                        // Rings not aligned: refused, and nothing changes.
                        let before = filters[0].clone();
                        let refused = matches!(
                            filters[0].union(&right),
                            Err(Error::Incompatible { parameter: "ring position", .. })
                        );
                        prop_assert!(refused);
                        prop_assert_eq!(&filters[0], &before);
                        continue;
                    }
                    filters[0].union(&right).unwrap();
                    // Ages are aligned: a key of the right filter keeps its age on the left.
                    let [left, right] = &mut models;
                    left.absorb(right);
                }
            }
            check_models(&filters, &models, l)?;
        }
    }

    /// With a time window, a key inserted at time t is found at every time before
    /// `t + span`, whatever the insert times and however far the clock jumps.
    #[test]
    fn time_window_model(
        steps in proptest::collection::vec((0..300u64, 0..1_000u64), 1..400),
        span in 1u64..2_000,
        l in 1u32..12,
    ) {
        let mut f = AgingBloomFilter::builder(200, 0.05).time_window(span, l).build().unwrap();
        let mut now = 0;
        let mut recent: VecDeque<(u64, u64)> = VecDeque::new();
        for (dt, key) in steps {
            now += dt;
            while recent.front().is_some_and(|&(t, _)| t + span <= now) {
                recent.pop_front();
            }
            for &(_, k) in &recent {
                prop_assert!(f.contains_at(&k, now).unwrap(), "{} lost before its span", k);
            }
            f.insert_at(&key, now).unwrap();
            recent.push_back((now, key));
            for &(_, k) in &recent {
                prop_assert!(f.contains(&k));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A seeded or a keyed window streamed out and back (`write_to`, then `read_from`, or
    /// `read_from_with_key`) at any point keeps every key of the window, and so does the
    /// union of two keyed windows whose rings are aligned: the window model above, through
    /// streams and secret keys.
    #[test]
    fn streamed_and_keyed_windows_keep_their_keys(
        ops in proptest::collection::vec(op(), 1..300),
        window in 20u64..200,
        k in 1u32..6,
        l in 1u32..8,
        keyed: bool,
    ) {
        const KEY: [u8; 16] = *b"aging-secret-key";
        let mut builder = AgingBloomFilter::builder(window, 0.05).slices(k, l);
        if keyed {
            builder = builder.key(KEY);
        }
        let empty = builder.build().unwrap();
        let g = empty.generation_len();
        let mut filters = [empty.clone(), empty];
        let mut models = [Model::default(), Model::default()];
        for op in ops {
            match op {
                Op::Insert(side, key) => {
                    filters[usize::from(side)].insert(&key);
                    models[usize::from(side)].insert(key, g);
                }
                // Both sides shift together, so their rings stay aligned for the union.
                Op::Advance(_) => {
                    for (filter, model) in filters.iter_mut().zip(&mut models) {
                        filter.advance();
                        model.shift();
                    }
                }
                Op::RoundTrip => {
                    let mut bytes = Vec::new();
                    filters[0].write_to(&mut bytes).unwrap();
                    let copy = if keyed {
                        AgingBloomFilter::read_from_with_key(&bytes[..], &KEY).unwrap()
                    } else {
                        AgingBloomFilter::read_from(&bytes[..]).unwrap()
                    };
                    prop_assert_eq!(&copy, &filters[0]);
                    filters[0] = copy;
                }
                Op::Union => {
                    let slices = u64::from(k + l);
                    if models[0].generation % slices != models[1].generation % slices {
                        // Rings not aligned: a refused union, checked by the model above.
                        continue;
                    }
                    let right = filters[1].clone();
                    filters[0].union(&right).unwrap();
                    let [left, right] = &mut models;
                    left.absorb(right);
                }
            }
            check_models(&filters, &models, l)?;
        }
    }
}

/// Keys pass out of the window on time: the last `window` keys are all found, and keys
/// followed by the window and the slack (10% of it) or more answer like never-inserted
/// keys, at a rate at most p (with a 3-sigma margin) at p = 1% and 0.1%.
#[test]
fn expired_keys_answer_like_new_ones() {
    for (p, seed) in [(0.01, 1u64), (0.001, 2)] {
        let window = 20_000;
        let mut f = AgingBloomFilter::new(window, p).unwrap();
        let slack = u64::from(bloom_aging::DEFAULT_SLACK_GENERATIONS) * f.generation_len();
        assert!(slack <= window / 10);
        let keys: Vec<u64> = distinct_keys(seed << 40, 300_000).collect();
        let (mut expired_hits, mut expired_total) = (0u64, 0u64);
        for (i, key) in keys.iter().enumerate() {
            f.insert(key);
            let done = i as u64 + 1;
            if done.is_multiple_of(23_456) && done > 2 * window {
                let recent = &keys[(done - window) as usize..done as usize];
                assert!(recent.iter().all(|k| f.contains(k)), "p {p}: window lost");
                let expired = &keys[..(done - f.window() - slack) as usize];
                expired_hits += f.contains_batch(expired).iter().filter(|&&b| b).count() as u64;
                expired_total += expired.len() as u64;
            }
        }
        let rate = expired_hits as f64 / expired_total as f64;
        let sigma = (p * (1.0 - p) / expired_total as f64).sqrt();
        assert!(
            rate <= p + 3.0 * sigma,
            "p {p}: {expired_hits} of {expired_total} expired keys present ({rate:.5})"
        );
    }
}

/// The false-positive rate for keys never inserted stays at or below p at every point of a
/// long stream (checked at many points, the worst ones just before a shift included), and
/// the theory of the sizing (`target_fpr`) holds it there.
#[test]
fn fpr_stays_below_target_along_the_stream() {
    for (p, seed) in [(0.01, 3u64), (0.001, 4)] {
        let window = 30_000;
        let mut f = AgingBloomFilter::new(window, p).unwrap();
        assert!(f.target_fpr() <= p);
        let g = f.generation_len();
        let negatives: Vec<u64> = distinct_keys((seed << 40) + (1 << 39), 200_000).collect();
        let mut rng = SplitMix64(seed);
        let (mut hits, mut total, mut points) = (0u64, 0u64, 0);
        let mut inserted = 0u64;
        for key in distinct_keys(seed << 40, 400_000) {
            f.insert(&key);
            inserted += 1;
            // Just before a shift (the fullest the slices get), and at random points.
            let point =
                f.generation_inserts() == g - 1 && rng.below(4) == 0 || rng.below(20_000) == 0;
            if point {
                let fp = f.contains_batch(&negatives).iter().filter(|&&b| b).count() as u64;
                let rate = fp as f64 / negatives.len() as f64;
                let sigma = (p * (1.0 - p) / negatives.len() as f64).sqrt();
                assert!(
                    rate <= p + 4.0 * sigma,
                    "p {p}: rate {rate:.5} after {inserted} inserts"
                );
                assert!(f.estimated_fpr() <= p * 1.1, "p {p}: {}", f.estimated_fpr());
                hits += fp;
                total += negatives.len() as u64;
                points += 1;
            }
        }
        assert!(points >= 20, "{points} points");
        let rate = hits as f64 / total as f64;
        let sigma = (p * (1.0 - p) / total as f64).sqrt();
        assert!(rate <= p + 3.0 * sigma, "p {p}: overall {rate:.5}");
    }
}

#[test]
fn fpr_matches_theory_over_a_sweep() {
    for (i, &n) in [1_000u64, 10_000, 100_000].iter().enumerate() {
        for (j, &p) in [0.1, 0.01, 0.001].iter().enumerate() {
            bloom_tests::check_fpr_against_theory::<AgingBloomFilter>(n, p, (i * 3 + j) as u64 + 1);
        }
    }
}

/// The rate stays within its formula on every kind of key of the shared checks (sequential
/// and strided integers, as integers and as bytes, URLs, keys one byte apart), as the other
/// variants' suites check it.
#[test]
fn rate_holds_on_every_kind_of_key() {
    for p in [0.1, 0.01, 0.001] {
        bloom_tests::check_rate_on_every_kind_of_key::<AgingBloomFilter>(100_000, p);
    }
}

/// Within the span and past it, on the caller's clock; a clock going backwards is an error
/// that changes nothing; times on a filter without a time window are errors.
#[test]
fn time_windows_expire_on_the_clock() {
    let (span, l) = (3_600u64, 12u32);
    let step = span / u64::from(l);
    let mut f = AgingBloomFilter::builder(10_000, 0.01)
        .time_window(span, l)
        .build()
        .unwrap();
    let keys: Vec<u64> = distinct_keys(0, 5_000).collect();
    for (i, k) in keys.iter().enumerate() {
        f.insert_at(k, 10_000 + i as u64 / 10).unwrap();
    }
    let last = 10_000 + 499;
    assert!(
        keys.iter()
            .all(|k| f.contains_at(k, 10_000 + span - 1).unwrap())
    );
    let gone = last + span + step;
    let present = keys
        .iter()
        .filter(|k| f.contains_at(*k, gone).unwrap())
        .count();
    // Bits are left, but the newer slices are empty: no run of k can form.
    assert_eq!(present, 0);
    let before = f.to_bytes();
    assert!(matches!(
        f.insert_at(&1u8, last - 1),
        Err(Error::InvalidParameter { name: "now", .. })
    ));
    assert!(f.contains_at(&1u8, last - 1).is_err());
    assert_eq!(f.to_bytes(), before, "a refused time changed the filter");
    f.advance_to(gone).unwrap();
    assert!(!f.is_empty());
    f.advance_to(gone + u64::from(f.num_slices()) * step)
        .unwrap();
    assert!(f.is_empty(), "the whole ring was shifted out");
    let copy = AgingBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(copy, f);

    let mut counted = AgingBloomFilter::new(100, 0.01).unwrap();
    assert!(counted.insert_at(&1u8, 5).is_err());
    assert!(counted.contains_at(&1u8, 5).is_err());
}

#[test]
fn bad_parameters_are_errors() {
    bloom_tests::check_bad_parameters::<AgingBloomFilter>();
    let b = || AgingBloomFilter::builder(1000, 0.01);
    // k above 16 (the exact rate's cost), l above 127, k + l above 128 (the query's mask).
    for (k, l) in [
        (0, 5),
        (17, 5),
        (65, 5),
        (3, 0),
        (3, 128),
        (3, 1025),
        (16, 113),
    ] {
        assert!(
            matches!(
                b().slices(k, l).build(),
                Err(Error::InvalidParameter { .. })
            ),
            "k {k} l {l}"
        );
    }
    assert!(b().time_window(0, 10).build().is_err());
    assert!(b().time_window(60, 0).build().is_err());
    assert!(b().time_window(60, 10).slices(4, 11).build().is_err());
    assert!(b().time_window(60, 10).slices(4, 10).build().is_ok());
    assert!(b().generations(12).time_window(60, 10).build().is_err());
    assert!(b().generations(10).slices(4, 10).build().is_ok());
    assert!(b().generations(0).build().is_err());
    assert!(b().slack(0).build().is_err());
    assert!(b().generations(128).build().is_err());
    assert!(b().time_window(60, 128).build().is_err());
    assert!(b().slices(16, 112).build().is_ok());
    // A single row at the least: a window of one key.
    assert_eq!(AgingBloomFilter::new(1, 0.5).unwrap().num_rows(), 1);
}

/// A union of two windows finds what either found, and refuses filters built otherwise.
#[test]
fn union_checks_parameters() {
    let a = AgingBloomFilter::new(1000, 0.01).unwrap();
    let mut seeded = AgingBloomFilter::builder(1000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    assert!(matches!(
        seeded.union(&a),
        Err(Error::Incompatible {
            parameter: "seed",
            ..
        })
    ));
    let mut other = AgingBloomFilter::builder(1000, 0.01)
        .slices(5, 10)
        .build()
        .unwrap();
    assert!(matches!(other.union(&a), Err(Error::Incompatible { .. })));
    let left: Vec<u64> = (0..500).collect();
    let right: Vec<u64> = (500..1000).collect();
    bloom_tests::check_union(&a, &left, &right);
}

/// Time windows unite on the clock: the filter behind moves to the later time first, so
/// each key keeps its age.
#[test]
fn union_of_time_windows_aligns_the_clocks() {
    let build = || {
        AgingBloomFilter::builder(1_000, 0.01)
            .time_window(100, 10)
            .build()
            .unwrap()
    };
    let (mut a, mut b) = (build(), build());
    a.insert_at("early", 0).unwrap();
    b.insert_at("late", 95).unwrap();
    a.union(&b).unwrap();
    assert!(a.contains_at("early", 99).unwrap() && a.contains_at("late", 99).unwrap());
    assert!(!a.contains_at("early", 110).unwrap());
    assert!(a.contains_at("late", 190).unwrap());
    let mut c = build();
    c.union(&a).unwrap();
    assert!(c.contains_at("early", 99).unwrap() && c.contains_at("late", 99).unwrap());
    assert_eq!(c.estimated_len(), a.estimated_len());
    assert!(c.contains_at("late", 96).is_ok() && c.contains_at("late", 94).is_err());
}

#[test]
fn no_false_negatives_for_strings_and_bytes() {
    let mut rng = SplitMix64(9);
    let strings: Vec<String> = (0..3_000)
        .map(|i| format!("key-{i}-{}", rng.next_u64()))
        .collect();
    let mut f = AgingBloomFilter::new(strings.len() as u64, 0.01).unwrap();
    bloom_tests::check_no_false_negatives(&mut f, &strings);
    bloom_tests::check_round_trip(&f, &strings);
    let bytes: Vec<Vec<u8>> = strings.iter().map(|s| s.as_bytes().to_vec()).collect();
    let mut f = AgingBloomFilter::new(bytes.len() as u64, 0.01).unwrap();
    bloom_tests::check_no_false_negatives(&mut f, &bytes);
}

#[test]
fn integers_of_every_width_are_one_key() {
    bloom_tests::check_integer_widths::<AgingBloomFilter>();
}

#[test]
fn batch_queries_past_the_cache_answer_like_single_ones() {
    bloom_tests::check_batch_past_the_cache::<AgingBloomFilter>();
}

fn filled(n: u64, extra_shifts: u32) -> AgingBloomFilter {
    let mut f = AgingBloomFilter::new(n, 0.01).unwrap();
    for k in 0..n + n / 3 {
        f.insert(&k);
    }
    for _ in 0..extra_shifts {
        f.advance();
    }
    f
}

#[test]
fn truncated_and_mutated_bytes_are_errors() {
    let f = filled(100, 2);
    bloom_tests::check_truncations(&f);
    bloom_tests::check_mutations(&f, 5_000, 7);
    let timed = {
        let mut t = AgingBloomFilter::builder(100, 0.01)
            .time_window(60, 6)
            .build()
            .unwrap();
        for k in 0..100u64 {
            t.insert_at(&k, 1_000 + k).unwrap();
        }
        t
    };
    bloom_tests::check_truncations(&timed);
    bloom_tests::check_mutations(&timed, 2_000, 8);
}

#[test]
fn streaming_gives_the_bytes_of_to_bytes() {
    bloom_tests::check_streaming(&filled(100, 1));
    // Several times the stream buffer (64 KiB).
    bloom_tests::check_streaming(&filled(100_000, 0));
}

#[test]
fn garbage_is_an_error() {
    let mut rng = SplitMix64(3);
    for len in 0..2_000usize {
        let bytes: Vec<u8> = (0..len % 300).map(|_| rng.next_u64() as u8).collect();
        assert!(AgingBloomFilter::from_bytes(&bytes).is_err());
    }
}

/// The inputs committed under `fuzz/regressions/aging_from_bytes/` decode to working
/// filters or errors.
#[test]
fn fuzz_regressions_replay() {
    let count = bloom_tests::replay_fuzz_inputs::<AgingBloomFilter>("aging_from_bytes", |_| {});
    assert!(count >= 1);
}

/// The length estimate follows the keys in the window, not every key ever inserted.
#[test]
fn estimated_len_counts_the_window() {
    let mut f = AgingBloomFilter::new(50_000, 0.01).unwrap();
    f.insert_all(distinct_keys(0, 25_000));
    assert!(
        f.estimated_len().abs_diff(25_000) < 1_000,
        "{}",
        f.estimated_len()
    );
    f.insert_all(distinct_keys(1 << 40, 500_000));
    let window = f.window() + f.generation_len() / 2;
    let estimate = f.estimated_len();
    assert!(
        estimate.abs_diff(window) < window / 10,
        "{estimate} for about {window} keys in the window"
    );
    assert!(f.len() == estimate && !f.is_empty());
    f.clear();
    assert!(f.is_empty() && f.estimated_len() == 0);
}

/// The theory of `Subject` agrees with what the filter reports from its own fill.
#[test]
fn theory_and_fill_agree() {
    let mut f = AgingBloomFilter::new(20_000, 0.01).unwrap();
    let n = 90_000;
    f.insert_all(distinct_keys(5 << 40, n));
    let theory = f.theory_fpr(n);
    let fill = f.estimated_fpr();
    assert!((fill / theory - 1.0).abs() < 0.1, "{fill} vs {theory}");
}

/// The bytes of a small filter, pinned: a change here is a change of the binary format (or
/// of the hash, or of where a key's bits go) and must be deliberate. The layout is
/// docs/format.md's "Aging" section. Computed independently of the Rust code by
/// `tests/golden/aging_golden.py`: that layout, the seeded hash written out in Python (with
/// the reference XXH3-64 of Python's `xxhash` for long keys) and the rows' and blocks' positions.
#[test]
fn golden_bytes() {
    let mut f = AgingBloomFilter::builder(6, 0.002)
        .slices(2, 3)
        .build()
        .unwrap();
    assert_eq!((f.num_rows(), f.generation_len()), (2, 2));
    for k in 0..10u64 {
        f.insert(&k);
    }
    f.insert("golden");
    let hex: String = f.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, GOLDEN_AGING_HEX);
    assert_eq!(AgingBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
}

const GOLDEN_AGING_HEX: &str = concat!(
    "424c4d46",         // magic "BLMF"
    "0500",             // version 5
    "06",               // variant: aging
    "01",               // hash scheme: the seeded hash
    "157c4a7fb979379e", // seed: DEFAULT_SEED
    "02000000",         // k = 2
    "03000000",         // l = 3
    "0001000000000000", // slice_bits = 256: 2 rows of 128-bit blocks
    "0200000000000000", // generation_len = 2
    "0000000000000000", // span = 0: generations count inserts
    "00000000",         // newest slice: physical 0
    "01000000",         // layout 1: rows of 128-bit blocks
    "0100000000000000", // inserts into the current generation = 1
    "0000000000000000", // generation of the clock (no clock)
    "0000000000000000", // latest time (no clock)
    "a000000000000000", // payload length = 160
    "0000000000000000", // zero padding to offset 128 (40 bytes)
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "0000000000000000",
    "00000000000000000000000000000000", // row 0, physical slice 0: two words
    "00000000000000000000000000000000", // row 0, physical slice 1: two words
    "40000000000000000000000000000000", // row 0, physical slice 2: two words
    "00000000000000000000000000400400", // row 0, physical slice 3: two words
    "00000080000000020000000000000000", // row 0, physical slice 4: two words
    "00000000000000000000000000000200", // row 1, physical slice 0: two words
    "00000100008000000000000000001000", // row 1, physical slice 1: two words
    "00000000000000002000000000000400", // row 1, physical slice 2: two words
    "00000000000000000000040000020000", // row 1, physical slice 3: two words
    "00400000000800000000000000000000", // row 1, physical slice 4: two words
    "25f3570bb1c57b1c",                 // XXH3-64 checksum
);

/// Times near `u64::MAX` with a span shorter than the generations: the generation number
/// saturates, nothing overflows, and the bytes stay valid.
#[test]
fn extreme_times_saturate() {
    let mut f = AgingBloomFilter::builder(100, 0.01)
        .time_window(1, 100)
        .build()
        .unwrap();
    f.insert_at(&1u8, u64::MAX - 1).unwrap();
    f.insert_at(&2u8, u64::MAX).unwrap();
    assert!(f.contains_at(&2u8, u64::MAX).unwrap());
    f.advance();
    f.advance();
    assert!(f.contains(&2u8));
    let copy = AgingBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(copy, f);
    let mut g = AgingBloomFilter::builder(100, 0.01)
        .time_window(1, 100)
        .build()
        .unwrap();
    g.insert_at(&3u8, 5).unwrap();
    g.union(&f).unwrap();
    assert!(g.contains(&2u8) && !g.contains(&3u8));
}
