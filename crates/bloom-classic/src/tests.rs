//! The classic filters' own tests: the three storages of the classic layout, against each
//! other and against the plain model; the shared suite in `tests/` runs the rest.

use alloc::vec::Vec;

use crate::*;
use bloom_core::Error;

#[test]
fn insert_all_sets_the_bits_of_insert_beyond_the_cache_too() {
    // One filter in the L2 cache (key by key) and one beyond it (bursts): the bits of
    // `insert` one key at a time, whatever the count's remainder by the burst.
    let beyond = (bloom_core::internal::caches::l2_cache_bytes() as u64 + 4096) * 8 * 2;
    for bits in [10_000u64, beyond] {
        for n in [0u64, 1, 15, 16, 17, 5_000] {
            let mut all = BloomFilter::with_params(bits, 7).unwrap().with_seed(n);
            all.insert_all(0..n);
            let mut one = BloomFilter::with_params(bits, 7).unwrap().with_seed(n);
            for k in 0..n {
                one.insert(&k);
            }
            assert!(all.bits() == one.bits(), "{bits} bits, {n} keys");
        }
    }
}

#[test]
fn insert_reports_seen_before() {
    let mut f = BloomFilter::new(100, 0.001).unwrap();
    assert!(!f.insert(&1u32));
    assert!(f.insert(&1u32));
    assert!(f.contains(&1u32));
    assert_eq!(
        f.count_ones(),
        u64::from(f.num_hashes()).min(f.count_ones()).max(1)
    );
}

#[test]
fn tiny_sizes_work() {
    let mut f = BloomFilter::with_params(1, 3).unwrap();
    assert_eq!(f.num_bits(), 1);
    assert!(!f.contains("x"));
    f.insert("x");
    assert!(f.contains("x") && f.contains("y"));
    assert!(BloomFilter::with_params(0, 3).is_err());
    assert!(BloomFilter::with_params(64, 0).is_err());
    assert!(BloomFilter::with_params(64, 65).is_err());
    assert!(BloomFilter::with_params(u64::MAX, 3).is_err());
}

#[test]
fn batch_matches_single() {
    let mut f = BloomFilter::new(5_000, 0.05).unwrap();
    f.insert_all(0..5_000u64);
    let keys: Vec<u64> = (0..20_037).collect();
    let batch = f.contains_batch(&keys);
    let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert_eq!(batch, single);
    let mut buf = vec![true; 3];
    f.contains_batch_into(&keys[..5], &mut buf);
    assert_eq!(buf, vec![true; 5]);
}

#[test]
fn union_intersect_check_parameters() {
    let a = BloomFilter::new(100, 0.01).unwrap();
    let mut b = a.clone().with_seed(1);
    assert!(matches!(
        b.union(&a),
        Err(Error::Incompatible {
            parameter: "seed",
            ..
        })
    ));
    let c = BloomFilter::with_params(a.num_bits(), a.num_hashes() + 1).unwrap();
    let mut a2 = a.clone();
    assert!(matches!(
        a2.intersect(&c),
        Err(Error::Incompatible {
            parameter: "num_hashes",
            ..
        })
    ));
}

#[test]
fn intersection_keeps_common_keys() {
    let mut a = BloomFilter::new(1000, 0.01).unwrap();
    let mut b = a.clone();
    a.insert_all(0..600u32);
    b.insert_all(400..1000u32);
    a.intersect(&b).unwrap();
    assert!((400..600u32).all(|k| a.contains(&k)));
}

#[test]
fn seed_changes_positions_and_clears() {
    let mut a = BloomFilter::new(1000, 0.01).unwrap();
    a.insert("k");
    let b = a.clone().with_seed(99);
    assert_eq!(b.count_ones(), 0);
    assert_ne!(a.hash("k"), b.hash("k"));
    #[cfg(feature = "std")]
    assert_ne!(a.with_random_seed().seed(), b.with_random_seed().seed());
}

#[test]
fn collect_and_extend() {
    let f: BloomFilter = ["a", "b", "c"].into_iter().collect();
    assert!(f.contains("a") && f.contains("b") && f.contains("c"));
    let empty: BloomFilter = core::iter::empty::<u8>().collect();
    assert_eq!(empty.count_ones(), 0);
    let mut g = f.clone();
    g.extend(["d"]);
    assert!(g.contains("d"));
}

#[test]
fn estimates_are_sensible() {
    let mut f = BloomFilter::new(100_000, 0.01).unwrap();
    assert_eq!(f.estimated_fpr(), 0.0);
    f.insert_all(0..100_000u32);
    // Expected fill: 1 - e^{-kn/m}.
    let k = f64::from(f.num_hashes());
    let expected_fill = 1.0 - (-k * 100_000.0 / f.num_bits() as f64).exp();
    assert!(
        (f.fill_ratio() - expected_fill).abs() < 0.002,
        "{}",
        f.fill_ratio()
    );
    assert!(
        (f.estimated_fpr() - 0.01).abs() < 0.001,
        "{}",
        f.estimated_fpr()
    );
    assert!(f.estimated_len().abs_diff(100_000) < 1_000);
    assert!(f.memory_usage() >= 958_506 / 8);
    f.clear();
    assert_eq!(f.count_ones(), 0);
}

#[test]
fn is_send_and_sync() {
    fn assert_traits<T: Send + Sync>() {}
    assert_traits::<AtomicBloomFilter>();
}

#[test]
fn view_answers_like_the_filter_at_every_alignment() {
    // One filter in the cache (the direct loop) and one past the batch engine's cached
    // limit (the staged loop), each read at every offset from a word boundary.
    let beyond = bloom_core::internal::batch::direct_max_bytes(false) as u64 * 8 + 4096;
    for (bits, offsets) in [(10_007u64, 16usize), (beyond, 3)] {
        let mut f = BloomFilter::with_params(bits, 5).unwrap().with_seed(3);
        f.insert_all(0..1_000u64);
        let bytes = f.to_bytes();
        let keys: Vec<u64> = (0..5_000).collect();
        let expected = f.contains_batch(&keys);
        for offset in 0..offsets {
            let mut buf = vec![0u8; offset];
            buf.extend_from_slice(&bytes);
            let view = BloomFilterRef::from_bytes(&buf[offset..]).unwrap();
            assert_eq!(view.contains_batch(&keys), expected, "offset {offset}");
            let single: Vec<bool> = keys.iter().map(|k| view.contains(k)).collect();
            assert_eq!(single, expected);
            assert_eq!(view.count_ones(), f.count_ones());
            assert_eq!(view.to_bytes(), bytes);
        }
    }
}

#[test]
fn opening_skips_the_checksum_and_verify_checks_it() {
    let f: BloomFilter = (0..100u32).collect();
    let mut bytes = f.to_bytes();
    // A byte inside the payload (which starts at 64).
    bytes[bloom_core::format::payload_offset(12) + 4] ^= 0x10;
    let view = BloomFilterRef::from_bytes(&bytes).unwrap();
    assert!(matches!(view.verify(), Err(Error::ChecksumMismatch { .. })));
    assert!(matches!(
        view.to_owned(),
        Err(Error::ChecksumMismatch { .. })
    ));
}
