//! All cores: `par_contains_batch` answers as `contains_batch` for every variant with a
//! batch query, and `par_insert_iter` builds what `insert_all` builds, on a pool of four
//! threads (so the parallel paths run whatever the machine's core count).

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::keys::distinct_keys;
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;

/// Runs `f` on a pool of four threads.
fn on_four_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap()
        .install(f)
}

/// Present keys, then absent ones: enough for many tasks of 16,384.
fn queries() -> Vec<u64> {
    distinct_keys(0, 60_000)
        .chain(distinct_keys(1 << 40, 90_000))
        .collect()
}

macro_rules! check_queries {
    ($filter:expr) => {{
        #[allow(unused_mut)] // the atomic twins insert through `&self`
        let mut f = $filter;
        for k in distinct_keys(0, 60_000) {
            let _ = f.insert(&k);
        }
        let queries = queries();
        let expected = f.contains_batch(&queries);
        let got = on_four_threads(|| f.par_contains_batch(&queries));
        assert_eq!(got, expected);
        assert!(got[..60_000].iter().all(|&b| b), "a false negative");
        // Short inputs take the one-call path.
        assert_eq!(
            on_four_threads(|| f.par_contains_batch(&queries[..100])),
            f.contains_batch(&queries[..100])
        );
        assert!(on_four_threads(|| f.par_contains_batch::<u64>(&[])).is_empty());
    }};
}

#[test]
fn par_contains_batch_answers_as_contains_batch() {
    check_queries!(BloomFilter::new(60_000, 0.01).unwrap());
    check_queries!(AtomicBloomFilter::new(60_000, 0.01).unwrap());
    check_queries!(CountingBloomFilter::new(60_000, 0.01).unwrap());
    check_queries!(ScalableBloomFilter::new(10_000, 0.01).unwrap());
    check_queries!(BlockedBloomFilter::new(60_000, 0.01).unwrap());
    check_queries!(AtomicBlockedBloomFilter::new(60_000, 0.01).unwrap());
    check_queries!(SplitBlockBloomFilter::new(60_000, 0.01).unwrap());
}

/// Keys for the iterator builds: past two chunks of 2^20, so three chunks are gathered.
const ITER_KEYS: u64 = (2 << 20) + 12_345;

#[test]
fn par_insert_iter_builds_what_insert_all_builds() {
    let keys = || distinct_keys(7 << 32, ITER_KEYS);

    let mut expected = BloomFilter::new(ITER_KEYS, 0.01).unwrap();
    expected.insert_all(keys());
    let mut got = BloomFilter::new(ITER_KEYS, 0.01).unwrap();
    on_four_threads(|| got.par_insert_iter(keys()));
    assert_eq!(got, expected);
    let atomic = AtomicBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    on_four_threads(|| atomic.par_insert_iter(keys()));
    assert_eq!(atomic.to_bytes(), expected.to_bytes());

    let mut expected = CountingBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    expected.insert_all(keys());
    let mut got = CountingBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    on_four_threads(|| got.par_insert_iter(keys()));
    assert_eq!(got, expected);

    let mut expected = BlockedBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    expected.insert_all(keys());
    let mut got = BlockedBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    on_four_threads(|| got.par_insert_iter(keys()));
    assert_eq!(got, expected);
    let atomic = AtomicBlockedBloomFilter::new(ITER_KEYS, 0.01).unwrap();
    on_four_threads(|| atomic.par_insert_iter(keys()));
    assert_eq!(atomic.to_bytes(), expected.to_bytes());

    // An iterator of owned strings, gathered as it is consumed.
    let mut strings = BlockedBloomFilter::new(100_000, 0.01).unwrap();
    on_four_threads(|| strings.par_insert_iter((0..100_000u32).map(|i| format!("key-{i}"))));
    assert!((0..100_000u32).all(|i| strings.contains(&format!("key-{i}"))));
}
