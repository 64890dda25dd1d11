//! The shared suite and the classic-specific checks for `BloomFilter` and
//! `AtomicBloomFilter`: concurrent inserts, the parallel build, serde, golden bytes, and a
//! filter beyond 2^32 bits.

use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::internal::par::{Plan, with_plan};
use bloom_core::math;
use bloom_tests::{distinct_keys, engine_suite, filter_suite};
use proptest::prelude::*;

filter_suite!(plain, BloomFilter);
filter_suite!(atomic, AtomicBloomFilter);
engine_suite!(engine, bloom_classic::Classic, seeded);

/// Queries running beside inserts find every key inserted before they began.
#[test]
fn atomic_queries_during_inserts_find_every_inserted_key() {
    bloom_tests::check_queries_during_inserts(100_000, |n| {
        AtomicBloomFilter::new(n, 0.01).unwrap()
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Several threads insert disjoint shares at once; afterwards every key is present, and
    /// the bits are exactly those of a sequential build.
    #[test]
    fn concurrent_inserts_lose_nothing(keys in proptest::collection::vec(any::<u64>(), 1..4000), threads in 2usize..6) {
        let shared = AtomicBloomFilter::new(keys.len() as u64, 0.01).unwrap();
        std::thread::scope(|s| {
            for share in keys.chunks(keys.len().div_ceil(threads)) {
                let shared = &shared;
                s.spawn(move || {
                    for k in share {
                        shared.insert(k);
                    }
                });
            }
        });
        prop_assert!(keys.iter().all(|k| shared.contains(k)));
        let mut sequential = BloomFilter::new(keys.len() as u64, 0.01).unwrap();
        sequential.insert_all(&keys);
        prop_assert_eq!(shared.to_plain(), sequential);
    }

    /// The rayon build gives the sequential build's bits, whatever the thread count.
    #[test]
    fn parallel_build_equals_sequential(len in 0u64..60_000, threads in 1usize..5, seed in any::<u64>()) {
        let keys: Vec<u64> = distinct_keys(seed >> 20, len).collect();
        let mut sequential = BloomFilter::new(len.max(1), 0.02).unwrap();
        sequential.insert_all(&keys);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        // Every plan: filters this small would take copies or build sequentially here.
        for plan in [Plan::Copies(threads), Plan::Scatter, Plan::Sequential] {
            let mut parallel = BloomFilter::new(len.max(1), 0.02).unwrap();
            pool.install(|| with_plan(plan, || parallel.par_insert_all(&keys)));
            prop_assert_eq!(&parallel, &sequential, "{:?}", plan);
        }
        let atomic = AtomicBloomFilter::new(len.max(1), 0.02).unwrap();
        pool.install(|| atomic.par_insert_all(&keys));
        prop_assert_eq!(atomic.to_plain(), sequential);
    }

    /// Union of filters built from two sets equals the filter built from their union.
    #[test]
    fn union_is_the_filter_of_the_union(a in proptest::collection::vec(any::<u32>(), 0..500), b in proptest::collection::vec(any::<u32>(), 0..500)) {
        let mut left = BloomFilter::new(1000, 0.01).unwrap();
        let mut right = left.clone();
        let mut both = left.clone();
        left.insert_all(&a);
        right.insert_all(&b);
        both.insert_all(a.iter().chain(&b));
        left.union(&right).unwrap();
        prop_assert_eq!(left, both);
    }
}

#[test]
fn serde_round_trip_keeps_every_key() {
    let keys: Vec<u64> = distinct_keys(0, 10_000).collect();
    let mut f = BloomFilter::new(10_000, 0.01).unwrap();
    f.insert_all(&keys);
    let json = serde_json::to_vec(&f).unwrap();
    let back: BloomFilter = serde_json::from_slice(&json).unwrap();
    assert!(keys.iter().all(|k| back.contains(k)));
    let atomic: AtomicBloomFilter = serde_json::from_slice(&json).unwrap();
    assert!(keys.iter().all(|k| atomic.contains(k)));
    assert_eq!(serde_json::to_vec(&atomic).unwrap(), json);
}

/// The bytes of a small filter, pinned: a change here is a change of the binary format (or
/// of the hash, or of the probe sequence) and must be deliberate.
#[test]
fn golden_bytes() {
    let mut f = BloomFilter::with_params(128, 3).unwrap();
    for k in 0..10u64 {
        f.insert(&k);
    }
    f.insert("golden");
    let hex: String = f.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, GOLDEN_CLASSIC_HEX);
    assert_eq!(BloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
}

/// Computed independently of the Rust code by `tests/golden/classic_golden.py`: docs/format.md's
/// layout, the seeded hash written out in Python and the probe
/// sequence's closed form.
const GOLDEN_CLASSIC_HEX: &str = concat!(
    "424c4d46",                         // magic "BLMF"
    "0500",                             // version 5
    "01",                               // variant: classic
    "01",                               // hash scheme: the seeded hash
    "157c4a7fb979379e",                 // seed: DEFAULT_SEED
    "8000000000000000",                 // num_bits = 128
    "03000000",                         // num_hashes = 3
    "1000000000000000",                 // payload length = 16
    "00000000000000000000000000000000", // zero padding to offset 64 (28 bytes)
    "000000000000000000000000",
    "b80080058080082a1e00012620260704", // the two words of bits
    "5eef5d2e6896e297",                 // XXH3-64 checksum
);

/// A filter of 2^33 bits (1 GiB): positions above 2^32 are used, nothing is lost, and the
/// false-positive rate is what theory says for its load.
#[test]
fn filter_beyond_2_pow_32_bits() {
    let num_bits = 1u64 << 33;
    let num_hashes = 2;
    let n = 20_000_000u64;
    let mut f = BloomFilter::with_params(num_bits, num_hashes).unwrap();
    let keys: Vec<u64> = distinct_keys(1 << 50, n).collect();
    f.par_insert_all(&keys);
    let present = f.contains_batch(&keys);
    assert!(
        present.iter().all(|&p| p),
        "false negative in a 2^33-bit filter"
    );

    // Set bits are spread over every sixteenth of the range, the top ones included.
    let words = f.bits().as_words();
    let per_part = words.len() / 16;
    let expected =
        num_bits as f64 / 16.0 * (1.0 - (-(num_hashes as f64) * n as f64 / num_bits as f64).exp());
    for (i, part) in words.chunks(per_part).enumerate() {
        let ones: u64 = part.iter().map(|w| u64::from(w.count_ones())).sum();
        assert!(
            (ones as f64 / expected - 1.0).abs() < 0.01,
            "part {i} of 16 has {ones} bits set, expected about {expected:.0}"
        );
    }

    let negatives: Vec<u64> = distinct_keys(1 << 51, 10_000_000).collect();
    let fp = f.contains_batch(&negatives).iter().filter(|&&p| p).count() as f64;
    // Lightly loaded (0.5% of the bits set), the paired layout's rate is well above the
    // classic formula's; `paired_fpr` is the expectation for this layout.
    let theory = math::paired_fpr(num_bits, num_hashes, n);
    let sigma = (theory * (1.0 - theory) / negatives.len() as f64).sqrt();
    let measured = fp / negatives.len() as f64;
    assert!(
        (measured - theory).abs() <= theory * 0.1 + 3.0 * sigma,
        "measured {measured:.3e}, theory {theory:.3e}"
    );
}
