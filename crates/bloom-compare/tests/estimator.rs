//! The false-positive estimate and its interval, checked on a synthetic candidate whose rate
//! is known exactly, measured through the same adapter and measuring code as real filters.

use std::collections::HashSet;
use std::time::Duration;

use bloom_compare::candidate::{BuildResult, Built, Candidate, Info, Origin};
use bloom_compare::keys::{Key, KeyKind, KeySet};
use bloom_compare::measure::{Context, Entry, ProbeCache, Setting, measure};
use bloom_compare::report::Row;
use bloom_compare::stats::FprEstimate;
use bloom_core::hash::hash_key;
use bloom_core::internal::low_half;

#[global_allocator]
static ALLOCATOR: bloom_compare::alloc::CountingAllocator = bloom_compare::alloc::CountingAllocator;

/// The rate of [`KnownRate`].
const RATE: f64 = 0.05;

/// Answers "present" for every inserted key, and for a foreign key exactly when its hash
/// falls below `RATE * 2^64`: a filter whose false-positive rate is `RATE` by construction.
struct KnownRate;

struct KnownRateFilter {
    inserted: HashSet<u64>,
    seed: u64,
}

impl Candidate for KnownRate {
    type Filter<K: Key> = KnownRateFilter;

    const INFO: Info = Info {
        id: "known-rate",
        name: "KnownRate",
        crate_name: "(test)",
        origin: Origin::Ours,
        hasher: "the seeded hash",
        structure: "hash set plus a hash threshold",
        fixed_fpr: Some(RATE),
        ..Info::PLAIN
    };

    fn build<K: Key>(capacity: u64, fpr: f64, keys: &[K]) -> BuildResult<KnownRateFilter> {
        // The target rate carries the per-trial seed of the threshold hash (see `trial`).
        let seed = (fpr * 1e12) as u64 ^ capacity;
        let inserted = keys.iter().map(|k| low_half(hash_key(k, seed))).collect();
        Ok(Built::all(KnownRateFilter { inserted, seed }, keys.len()))
    }

    fn contains<K: Key>(filter: &KnownRateFilter, key: &K) -> bool {
        let h = low_half(hash_key(key, filter.seed));
        filter.inserted.contains(&h) || (h as f64) < RATE * 2f64.powi(64)
    }
}

/// One measurement of [`KnownRate`] with its own keys.
fn trial(seed: u64, negatives: usize) -> FprEstimate {
    let keys = KeySet::generate(KeyKind::U64, 1_000, negatives, seed);
    let KeySet::U64 {
        positives,
        negatives: negs,
    } = &keys
    else {
        unreachable!("u64 key set")
    };
    let setting = Setting {
        kind: KeyKind::U64,
        capacity: 1_000,
        load_percent: 100,
        fpr: (seed % 1_000_000 + 1) as f64 * 1e-9,
    };
    let mut probes = ProbeCache::new();
    let mut context = Context {
        negatives,
        pool: None,
        probes: &mut probes,
        probe_budget: Duration::from_millis(1),
        seed,
    };
    let m = measure::<KnownRate, u64>(&setting, positives, negs, &mut context).unwrap();
    assert_eq!(m.false_negatives, 0);
    let row = Row::new(&Entry::of::<KnownRate>(), &setting, &m, 1, None);
    assert_eq!(row.nominal_fpr, RATE);
    assert!(!row.has_false_negatives());
    row.fpr_estimate()
}

#[test]
fn estimate_is_close_and_interval_covers_the_true_rate() {
    // One large trial: the estimate is tight.
    let e = trial(12_345, 400_000);
    assert_eq!(e.negatives, 400_000);
    assert!((e.rate - RATE).abs() < 0.002, "{e:?}");
    assert!(e.low < RATE && RATE < e.high, "{e:?}");
    assert!(e.high - e.low < 0.0015, "{e:?}");
    assert!(!e.far_above(RATE, 1.5));

    // Many small trials: the 95% interval covers the true rate about 95% of the time.
    let trials = 300;
    let covered = (0..trials)
        .filter(|&t| {
            let e = trial(1_000 + t, 4_000);
            e.low <= RATE && RATE <= e.high
        })
        .count();
    let coverage = covered as f64 / trials as f64;
    // Binomial(300, 0.95) lies in [0.91, 0.99] with probability above 0.999.
    assert!((0.91..=0.99).contains(&coverage), "coverage {coverage}");
}

#[test]
fn a_rate_far_above_target_is_flagged() {
    let e = FprEstimate::from_counts(500, 10_000);
    assert!(e.far_above(0.01, 1.5));
    assert!(!e.far_above(0.04, 1.5));
}
