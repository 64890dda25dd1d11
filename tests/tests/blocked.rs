//! The shared suite and the blocked-specific checks for `BlockedBloomFilter`,
//! `AtomicBlockedBloomFilter` and `SplitBlockBloomFilter`.

use bloom_blocked::{
    AtomicBlockedBloomFilter, BlockedBloomFilter, ParquetHeader, Probe, SplitBlockBloomFilter,
};
use bloom_core::hash::hash_key;
use bloom_core::internal::{low_half, reduce};
use bloom_tests::{SplitMix64, distinct_keys, filter_suite};
use proptest::prelude::*;

filter_suite!(blocked, BlockedBloomFilter);
filter_suite!(atomic_blocked, AtomicBlockedBloomFilter);
filter_suite!(split_block, SplitBlockBloomFilter);

/// Every pair of probes gives the same answers on random filters of random sizes (block
/// counts that are not powers of two included), for every k.
#[test]
fn simd_and_portable_probes_agree_on_random_filters() {
    let mut rng = SplitMix64(11);
    for round in 0..40 {
        let num_blocks = 1 + rng.next_u64() % 3000;
        let k = 1 + (rng.next_u64() % 24) as u32;
        let mut f = BlockedBloomFilter::with_params(num_blocks * 512, k).unwrap();
        let n = num_blocks * 512 / (4 + rng.next_u64() % 16);
        f.insert_all(distinct_keys(round << 32, n));
        let portable = f.clone().with_probe(Probe::Portable).unwrap();
        let best = f.clone().with_probe(Probe::best()).unwrap();
        let queries: Vec<u64> = (0..20_000).map(|_| rng.next_u64()).collect();
        let a = portable.contains_batch(&queries);
        let b = best.contains_batch(&queries);
        assert_eq!(a, b, "round {round}: {num_blocks} blocks, k {k}");
        for (q, &expected) in queries.iter().zip(&a).take(2_000) {
            assert_eq!(best.contains(q), expected);
        }
        assert!(a.iter().any(|&x| x), "some positives to compare");
    }
    let mut s = SplitBlockBloomFilter::with_num_bytes(1 << 14);
    s.insert_all(0..3_000u64);
    let portable = s.clone().with_probe(Probe::Portable).unwrap();
    for q in 0..50_000u64 {
        assert_eq!(s.contains(&q), portable.contains(&q));
    }
}

#[test]
fn accuracy_at_ten_bits_per_key_and_at_one_percent() {
    let n = 200_000u64;
    let k = BlockedBloomFilter::optimal_num_hashes(10.0);
    let mut f = BlockedBloomFilter::with_params(10 * n, k).unwrap();
    f.insert_all(distinct_keys(1 << 40, n));
    let negatives: Vec<u64> = distinct_keys(2 << 40, 2_000_000).collect();
    let fp = f.contains_batch(&negatives).iter().filter(|&&b| b).count() as f64;
    let measured = fp / negatives.len() as f64;
    // Theory: 0.955%; sigma of the measurement about 0.007%.
    assert!(measured < 0.0098, "{measured}");
    let mut g = BlockedBloomFilter::new(n, 0.01).unwrap();
    assert!(g.num_bits() as f64 / n as f64 <= 10.5);
    g.insert_all(distinct_keys(3 << 40, n));
    let fp = g.contains_batch(&negatives).iter().filter(|&&b| b).count() as f64;
    assert!(
        fp / negatives.len() as f64 <= 0.0102,
        "{}",
        fp / negatives.len() as f64
    );
}

/// A filter of 2^33 bits (1 GiB, zeroed lazily by the kernel): keys land in blocks beyond bit
/// 2^32 and are found there.
#[test]
fn a_filter_above_two_to_the_32_bits() {
    let num_bits = 1u64 << 33;
    let mut f = BlockedBloomFilter::with_params(num_bits, 6).unwrap();
    assert_eq!(f.num_blocks(), 1 << 24);
    let keys: Vec<u64> = distinct_keys(5 << 40, 20_000).collect();
    f.insert_all(&keys);
    let high = keys
        .iter()
        .filter(|k| reduce(low_half(hash_key(*k, f.seed())), f.num_blocks() as u64) >= 1 << 23)
        .count();
    assert!(
        (9_000..11_000).contains(&high),
        "{high} keys above bit 2^32"
    );
    assert!(f.contains_batch(&keys).iter().all(|&b| b));
    assert!(keys.iter().all(|k| f.contains(k)));
    let atomic = f.into_atomic();
    assert!(keys.iter().all(|k| atomic.contains(k)));
}

/// The bytes of small filters, pinned: a change here is a change of format. The blocked
/// vectors come from `tests/golden/blocked_golden.py`, an independent model (the reference
/// XXH3 through Python's `xxhash`, the block choice, the bit positions and the framing written
/// out from `docs/format.md`).
#[test]
fn golden_bytes() {
    let mut f = BlockedBloomFilter::with_params(1024, 6).unwrap();
    f.insert_all(0..10u64);
    let bytes = f.to_bytes();
    assert_eq!(&bytes[..8], b"BLMF\x01\x00\x04\x01");
    assert_eq!(bytes.len(), 16 + 12 + 8 + 128 + 8);
    assert_eq!(hex(&bytes), GOLDEN_BLOCKED);
    assert_eq!(BlockedBloomFilter::from_bytes(&bytes).unwrap(), f);

    // Three blocks and k = 16: past the seven fields of the high half, and repeats skipped.
    let mut g = BlockedBloomFilter::with_params(1536, 16)
        .unwrap()
        .with_seed(7);
    for i in 0..40 {
        g.insert(format!("key{i}").as_str());
    }
    let bytes = g.to_bytes();
    assert_eq!(hex(&bytes), GOLDEN_BLOCKED_K16);
    assert_eq!(BlockedBloomFilter::from_bytes(&bytes).unwrap(), g);
    assert_eq!(
        AtomicBlockedBloomFilter::from_bytes(&bytes)
            .unwrap()
            .to_bytes(),
        bytes
    );

    let mut s = SplitBlockBloomFilter::with_num_bytes(64);
    for i in 0..10i64 {
        s.insert_i64(i);
    }
    let bytes = s.to_bytes();
    assert_eq!(&bytes[..8], b"BLMF\x01\x00\x05\x02");
    assert_eq!(hex(&bytes), GOLDEN_SPLIT_BLOCK);
    // Parquet's header for 64 bytes: i32 field 1 = zigzag varint 128, three one-member unions.
    assert_eq!(
        hex(&s.to_parquet_bytes()[..16]),
        "1580011c1c00001c1c00001c1c000000"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const GOLDEN_BLOCKED: &str = "424c4d4601000401157c4a7fb979379e00040000000000000600000080000000000000000030000441001001000004008300108120000404100440004040000000000001600010000100000020002008508000000210010000008008000000018000800000080000004000000000200000000000000140000000000000000010000100000800082000040004000100000000400000000000000000000002080000410000362e9406a713c19d";
const GOLDEN_BLOCKED_K16: &str = "424c4d46010004010700000000000000000600000000000010000000c000000000000000504a4d601104c5223520ea74c282cd13200d009a115305104024481b1dc8beda09340604165fe218411459491459861301143a0b4a44d1814136208290c217255a8397c058f7a55c100e2f11b6bf49a92143a804588809c621a20c3500a920303b91fc29ac268a0e13706294b8e20bb78fbd80b960409a666b605d4588d04183ba330055ae402900098d042080883b200c0110102033094020800c0002201002143124900428742191a1024a0202023044c9201110c85020519101b00006212a48ea389b6b97e695";
const GOLDEN_SPLIT_BLOCK: &str = "424c4d46010005020000000000000000400000000000000040000000000000001002000084000004002080080002000a320000000100401000420000005100000882180806084406024580024000264c4001402600c08288400400243829400045ce11e6d1af69be";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The Parquet header reader never panics and whatever it accepts re-encodes to an
    /// equivalent header.
    #[test]
    fn parquet_header_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok((header, len)) = ParquetHeader::read(&bytes) {
            prop_assert!(len <= bytes.len());
            let mut again = Vec::new();
            header.write(&mut again);
            prop_assert_eq!(ParquetHeader::read(&again).unwrap().0, header);
        }
        let _ = SplitBlockBloomFilter::from_parquet_bytes(&bytes);
    }

    /// No false negatives after a parallel build, for any keys.
    #[test]
    fn no_false_negatives_after_parallel_build(keys in proptest::collection::vec(any::<u64>(), 0..40_000)) {
        let mut f = BlockedBloomFilter::new(keys.len().max(1) as u64, 0.01).unwrap();
        f.par_insert_all(&keys);
        prop_assert!(keys.iter().all(|k| f.contains(k)));
        let atomic = AtomicBlockedBloomFilter::new(keys.len().max(1) as u64, 0.01).unwrap();
        atomic.par_insert_all(&keys);
        prop_assert!(keys.iter().all(|k| atomic.contains(k)));
    }
}
