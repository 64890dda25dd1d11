//! The blocked filters' own tests: the blocked layout on its three storages, against each
//! other and against the plain model; the shared suite in `tests/` runs the rest.

use alloc::vec::Vec;

use crate::*;
use bloom_core::Error;

#[test]
fn insert_reports_seen_before() {
    let mut f = BlockedBloomFilter::new(100, 0.001).unwrap();
    assert!(!f.insert(&1u32));
    assert!(f.insert(&1u32));
    assert!(f.contains(&1u32));
    // k positions, drawn with replacement: at most k bits.
    assert!((1..=u64::from(f.num_hashes())).contains(&f.count_ones()));
}

#[test]
fn any_block_count_and_tiny_sizes() {
    for bits in [1u64, 512, 513, 3 * 512, 7 * 512 + 1] {
        let mut f = BlockedBloomFilter::with_params(bits, 6).unwrap();
        assert_eq!(f.num_blocks() as u64, bits.div_ceil(512));
        f.insert_all(0..200u32);
        assert!((0..200u32).all(|k| f.contains(&k)));
    }
    assert!(BlockedBloomFilter::with_params(0, 3).is_err());
    assert!(BlockedBloomFilter::with_params(512, 0).is_err());
    assert!(BlockedBloomFilter::with_params(512, 17).is_err());
    assert!(BlockedBloomFilter::with_params(512, 16).is_ok());
    assert!(BlockedBloomFilter::with_params(u64::MAX, 3).is_err());
    // The largest filter allowed (128 GiB): an error where the machine cannot map it,
    // never an abort; where it can, lazily zeroed memory that is never touched.
    match BlockedBloomFilter::with_params(1 << 40, 6) {
        Ok(f) => assert_eq!(f.num_blocks(), 1 << 31),
        Err(e) => assert!(matches!(e, Error::OutOfMemory { .. }), "{e}"),
    }
}

#[test]
fn batch_matches_single_with_both_probes() {
    let mut f = BlockedBloomFilter::new(5_000, 0.05).unwrap();
    f.insert_all(0..5_000u64);
    let keys: Vec<u64> = (0..20_037).collect();
    let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert_eq!(f.contains_batch(&keys), single);
    let portable = f.clone().with_probe(Probe::Portable).unwrap();
    assert_eq!(portable.contains_batch(&keys), single);
    let mut buf = vec![true; 3];
    f.contains_batch_into(&keys[..5], &mut buf);
    assert_eq!(buf, vec![true; 5]);
    // Lengths around the pipeline's depth, and none at all.
    for len in [0, 1, 31, 32, 33, 63, 64, 65] {
        let part = &keys[4_990..4_990 + len];
        f.contains_batch_into(part, &mut buf);
        assert_eq!(buf, &single[4_990..4_990 + len], "{len}");
    }
}

#[test]
fn batch_matches_single_beyond_the_cache_share() {
    // Larger than the engine's CACHED_MAX_BYTES: the batch goes through the overlapped loop
    // (through bursts on a machine whose last-level cache is smaller than the filter).
    let mut f = BlockedBloomFilter::with_params(48 << 20, 7).unwrap();
    assert!(f.memory_usage() > bloom_core::internal::batch::CACHED_MAX_BYTES);
    f.insert_all(0..400_000u64);
    let keys: Vec<u64> = (399_000..401_000).collect();
    let single: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert!(single[..1_000].iter().all(|&x| x));
    let mut buf = Vec::new();
    for len in [0, 1, 31, 32, 33, 64, 65, 127, 128, 129, 300, 2_000] {
        f.contains_batch_into(&keys[..len], &mut buf);
        assert_eq!(buf, &single[..len], "{len}");
    }
    let portable = f.clone().with_probe(Probe::Portable).unwrap();
    assert_eq!(portable.contains_batch(&keys), single);
}

#[test]
fn estimates_are_sensible() {
    let mut f = BlockedBloomFilter::new(100_000, 0.01).unwrap();
    assert_eq!(f.estimated_fpr(), 0.0);
    f.insert_all(0..100_000u32);
    let expected = f.expected_fpr(100_000);
    assert!(
        (f.estimated_fpr() / expected - 1.0).abs() < 0.1,
        "{} vs {expected}",
        f.estimated_fpr()
    );
    assert!(f.estimated_len().abs_diff(100_000) < 2_000);
    f.clear();
    assert_eq!(f.count_ones(), 0);
}

#[test]
fn union_intersect_check_parameters() {
    let a = BlockedBloomFilter::new(100, 0.01).unwrap();
    let mut b = a.clone().with_seed(1);
    assert!(matches!(
        b.union(&a),
        Err(Error::Incompatible {
            parameter: "seed",
            ..
        })
    ));
    let mut x = a.clone();
    let mut y = a.clone();
    x.insert_all(0..60u32);
    y.insert_all(40..100u32);
    x.intersect(&y).unwrap();
    assert!((40..60u32).all(|k| x.contains(&k)));
}

#[test]
fn is_send_and_sync() {
    fn assert_traits<T: Send + Sync>() {}
    assert_traits::<AtomicBlockedBloomFilter>();
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_atomic_inserts_find_every_key() {
    let keys: Vec<u64> = (0..100_000).collect();
    let f = AtomicBlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
    f.par_insert_all(&keys);
    let mut plain = BlockedBloomFilter::new(keys.len() as u64, 0.01).unwrap();
    plain.insert_all(&keys);
    assert_eq!(f.into_plain(), plain);
}

#[test]
fn from_bits_takes_only_whole_blocks() {
    use bloom_core::bits::BitStore;
    // 513 bits round up to two blocks, which the array does not hold: refused.
    let short = BitStore::new(513).unwrap();
    assert!(matches!(
        BlockedBloomFilter::from_bits(short, 7, 0),
        Err(Error::Incompatible {
            parameter: "num_bits",
            ..
        })
    ));
    let mut filter = BlockedBloomFilter::with_params(1024, 7)
        .unwrap()
        .with_seed(3);
    filter.insert_all(0..100u32);
    let bits = BitStore::from_words(filter.bits().as_words(), 1024).unwrap();
    let rebuilt = BlockedBloomFilter::from_bits(bits, 7, 3).unwrap();
    assert_eq!(rebuilt, filter);
    assert!((0..100u32).all(|k| rebuilt.contains(&k)));
}
