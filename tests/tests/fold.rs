//! Folding: a blocked, multiblock (64- or 32-bit words) or split-block filter folded by a power
//! of two is byte for byte the
//! filter built at the smaller size from the same keys; `fold_to_fit`, unions and
//! intersections across sizes keep every key they must, seeded and keyed; and Parquet's
//! reader finds every value in a folded split-block filter.

use bloom_blocked::{
    BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter, SplitBlockBloomFilter,
};
use bloom_core::engine::{BitStore, BlockLayout, Engine};
use bloom_core::{Error, Keyed as _};
use parquet::bloom_filter::Sbbf;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn blocked_fold_is_the_smaller_filter(
        keys in proptest::collection::vec(any::<u64>(), 0..3_000),
        odd in prop_oneof![Just(1u64), Just(3), Just(5), Just(7)],
        log_blocks in 0u32..9,
        log_factor in 0u32..9,
        k in 1u32..=16,
    ) {
        check_fold(&keys, odd << log_blocks, log_factor.min(log_blocks), |blocks| {
            BlockedBloomFilter::with_params(blocks * 512, k).unwrap()
        })?;
    }

    #[test]
    fn multiblock_fold_is_the_smaller_filter(
        keys in proptest::collection::vec(any::<u64>(), 0..3_000),
        odd in prop_oneof![Just(1u64), Just(3), Just(5), Just(7)],
        log_blocks in 0u32..9,
        log_factor in 0u32..9,
    ) {
        check_fold(&keys, odd << log_blocks, log_factor.min(log_blocks), |blocks| {
            MultiblockBloomFilter::with_params(blocks * 512, 8).unwrap()
        })?;
    }

    /// Folds by whole lines (each of two 256-bit blocks): a key keeps its half of the line.
    #[test]
    fn multiblock32_fold_is_the_smaller_filter(
        keys in proptest::collection::vec(any::<u64>(), 0..3_000),
        odd in prop_oneof![Just(1u64), Just(3), Just(5), Just(7)],
        log_lines in 0u32..9,
        log_factor in 0u32..9,
    ) {
        check_fold(&keys, odd << log_lines, log_factor.min(log_lines), |lines| {
            Multiblock32BloomFilter::with_params(lines * 512, 8).unwrap()
        })?;
    }

    #[test]
    fn split_block_fold_is_the_smaller_filter(
        values in proptest::collection::vec(any::<i64>(), 0..3_000),
        log_bytes in 5u32..18,
        log_factor in 0u32..13,
    ) {
        let log_factor = log_factor.min(log_bytes - 5);
        let mut large = SplitBlockBloomFilter::with_num_bytes(1 << log_bytes);
        let mut small = SplitBlockBloomFilter::with_num_bytes(1 << (log_bytes - log_factor));
        for &v in &values {
            large.insert_i64(v);
            small.insert_i64(v);
        }
        let folded = large.fold(1 << log_factor).unwrap();
        prop_assert_eq!(folded.to_bytes(), small.to_bytes());
        prop_assert!(values.iter().all(|&v| folded.contains_i64(v)));
    }

    /// The three line layouts, on the same keys and sizes.
    #[test]
    fn line_layout_union_across_sizes_is_the_smaller_filter_of_both(
        left in proptest::collection::vec(any::<u64>(), 0..1_000),
        right in proptest::collection::vec(any::<u64>(), 0..1_000),
        log_small in 0u32..6,
        log_factor in 0u32..6,
        self_is_larger in any::<bool>(),
    ) {
        let sizes = (1u64 << log_small, log_factor, self_is_larger);
        check_union_across_sizes(&left, &right, sizes, |blocks| {
            BlockedBloomFilter::with_params(blocks * 512, 7).unwrap()
        })?;
        check_union_across_sizes(&left, &right, sizes, |blocks| {
            MultiblockBloomFilter::with_params(blocks * 512, 8).unwrap()
        })?;
        check_union_across_sizes(&left, &right, sizes, |lines| {
            Multiblock32BloomFilter::with_params(lines * 512, 8).unwrap()
        })?;
    }

    #[test]
    fn split_block_union_across_sizes_is_the_smaller_filter_of_both(
        left in proptest::collection::vec(any::<i64>(), 0..1_000),
        right in proptest::collection::vec(any::<i64>(), 0..1_000),
        log_small in 5u32..12,
        log_factor in 0u32..6,
    ) {
        let mut large = SplitBlockBloomFilter::with_num_bytes(1 << (log_small + log_factor));
        let mut small = SplitBlockBloomFilter::with_num_bytes(1 << log_small);
        let mut expected = SplitBlockBloomFilter::with_num_bytes(1 << log_small);
        for &v in &left {
            large.insert_i64(v);
            expected.insert_i64(v);
        }
        for &v in &right {
            small.insert_i64(v);
            expected.insert_i64(v);
        }
        let mut a = large.clone();
        a.union(&small).unwrap();
        prop_assert_eq!(a.bitset_bytes(), expected.bitset_bytes());
        let mut b = small.clone();
        b.union(&large).unwrap();
        prop_assert_eq!(b.bitset_bytes(), expected.bitset_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `fold_to_fit` of a filter sized large for keys not yet counted keeps every key, in
    /// each line layout and the split-block one, for any key count it is fitted to at least.
    #[test]
    fn fold_to_fit_keeps_every_key(
        keys in proptest::collection::vec(any::<u64>(), 0..2_000),
        odd in prop_oneof![Just(1u64), Just(3), Just(5)],
        log_blocks in 0u32..9,
        slack in 0u64..2_000,
    ) {
        let (blocks, fit) = (odd << log_blocks, keys.len() as u64 + slack + 1);
        check_fold_to_fit(&keys, blocks, fit, |blocks| {
            BlockedBloomFilter::with_params(blocks * 512, 7).unwrap()
        })?;
        check_fold_to_fit(&keys, blocks, fit, |blocks| {
            MultiblockBloomFilter::with_params(blocks * 512, 8).unwrap()
        })?;
        check_fold_to_fit(&keys, blocks, fit, |lines| {
            Multiblock32BloomFilter::with_params(lines * 512, 8).unwrap()
        })?;
        check_fold_to_fit(&keys, blocks, fit, |blocks| {
            SplitBlockBloomFilter::with_params(blocks * 256, 8).unwrap()
        })?;
    }

    /// An intersection across sizes (the larger filter folded first) keeps the common keys,
    /// in each line layout and the split-block one.
    #[test]
    fn intersection_across_sizes_keeps_common_keys(
        left in proptest::collection::vec(any::<u64>(), 0..500),
        right in proptest::collection::vec(any::<u64>(), 0..500),
        common in proptest::collection::vec(any::<u64>(), 0..500),
        log_small in 0u32..6,
        log_factor in 0u32..6,
    ) {
        let (keys, sizes) = ((&left[..], &right[..], &common[..]), (1u64 << log_small, log_factor));
        check_intersection_across_sizes(keys, sizes, |blocks| {
            BlockedBloomFilter::with_params(blocks * 512, 7).unwrap()
        })?;
        check_intersection_across_sizes(keys, sizes, |blocks| {
            MultiblockBloomFilter::with_params(blocks * 512, 8).unwrap()
        })?;
        check_intersection_across_sizes(keys, sizes, |lines| {
            Multiblock32BloomFilter::with_params(lines * 512, 8).unwrap()
        })?;
        check_intersection_across_sizes(keys, sizes, |blocks| {
            SplitBlockBloomFilter::with_params(blocks * 256, 8).unwrap()
        })?;
    }

    /// Filters keyed with a secret key fold, fit, unite and intersect across sizes as seeded
    /// ones do: the key is kept, and so is every key the result must hold.
    #[test]
    fn keyed_line_layouts_fold_and_combine_across_sizes(
        left in proptest::collection::vec(any::<u64>(), 0..500),
        right in proptest::collection::vec(any::<u64>(), 0..500),
        log_small in 0u32..6,
        log_factor in 0u32..6,
        self_is_larger in any::<bool>(),
    ) {
        const KEY: [u8; 16] = *b"fold-secret-key!";
        let (small, sizes) = (1u64 << log_small, (1u64 << log_small, log_factor, self_is_larger));
        let (keys, fit) = ((&left[..], &right[..], &left[..left.len() / 2]), left.len() as u64 + 1);
        let blocked = |blocks| BlockedBloomFilter::with_params(blocks * 512, 7).unwrap().with_key(KEY);
        check_fold(&left, small << log_factor, log_factor, blocked)?;
        check_fold_to_fit(&left, small << log_factor, fit, blocked)?;
        check_union_across_sizes(&left, &right, sizes, blocked)?;
        check_intersection_across_sizes(keys, (small, log_factor), blocked)?;
        let multiblock = |blocks| MultiblockBloomFilter::with_params(blocks * 512, 8).unwrap().with_key(KEY);
        check_fold(&left, small << log_factor, log_factor, multiblock)?;
        check_fold_to_fit(&left, small << log_factor, fit, multiblock)?;
        check_union_across_sizes(&left, &right, sizes, multiblock)?;
        check_intersection_across_sizes(keys, (small, log_factor), multiblock)?;
        let multiblock32 = |lines| Multiblock32BloomFilter::with_params(lines * 512, 8).unwrap().with_key(KEY);
        check_fold(&left, small << log_factor, log_factor, multiblock32)?;
        check_fold_to_fit(&left, small << log_factor, fit, multiblock32)?;
        check_union_across_sizes(&left, &right, sizes, multiblock32)?;
        check_intersection_across_sizes(keys, (small, log_factor), multiblock32)?;
    }
}

/// A filter of `large_blocks` blocks holding `keys`, fitted with `fold_to_fit` to
/// `expected_items` keys at 1%, finds every key, has no fewer blocks than the filter `new`
/// sizes for them (unless it was smaller to begin with), and is the filter `fold` gives at
/// its size (which the fold tests above hold to the filter built there).
fn check_fold_to_fit<L: BlockLayout<Hash = u64>>(
    keys: &[u64],
    large_blocks: u64,
    expected_items: u64,
    make: impl Fn(u64) -> Engine<L, BitStore>,
) -> Result<(), TestCaseError> {
    let mut large = make(large_blocks);
    large.insert_all(keys);
    let fitted = large.fold_to_fit(expected_items, 0.01).unwrap();
    let needed = Engine::<L, BitStore>::new(expected_items, 0.01)
        .unwrap()
        .num_blocks();
    prop_assert!(fitted.num_blocks() >= needed.min(large.num_blocks()));
    prop_assert!(keys.iter().all(|key| fitted.contains(key)));
    let factor = (large.num_blocks() / fitted.num_blocks()) as u32;
    prop_assert_eq!(fitted.to_bytes(), large.fold(factor).unwrap().to_bytes());
    Ok(())
}

/// The intersection of a filter of `small_blocks << log_factor` blocks holding `left` and
/// `common` with one of `small_blocks` blocks holding `right` and `common` (either way
/// round) finds every common key, and is the intersection of the two filters built at the
/// smaller size.
fn check_intersection_across_sizes<L: BlockLayout<Hash = u64>>(
    (left, right, common): (&[u64], &[u64], &[u64]),
    (small_blocks, log_factor): (u64, u32),
    make: impl Fn(u64) -> Engine<L, BitStore>,
) -> Result<(), TestCaseError> {
    let (mut large, mut small) = (make(small_blocks << log_factor), make(small_blocks));
    large.insert_all(left.iter().chain(common));
    small.insert_all(right.iter().chain(common));
    let mut expected = make(small_blocks);
    expected.insert_all(left.iter().chain(common));
    expected.intersect(&small).unwrap();
    for (mut ours, theirs) in [(large.clone(), &small), (small.clone(), &large)] {
        ours.intersect(theirs).unwrap();
        prop_assert!(common.iter().all(|key| ours.contains(key)));
        prop_assert_eq!(ours.to_bytes(), expected.to_bytes());
    }
    Ok(())
}

/// A filter of `large_blocks` blocks folded by `2^log_factor` is byte for byte the filter
/// built at the smaller size from the same keys, and finds every key; `make` builds an empty
/// filter of a number of blocks.
fn check_fold<L: BlockLayout<Hash = u64>>(
    keys: &[u64],
    large_blocks: u64,
    log_factor: u32,
    make: impl Fn(u64) -> Engine<L, BitStore>,
) -> Result<(), TestCaseError> {
    let mut large = make(large_blocks);
    let mut small = make(large_blocks >> log_factor);
    large.insert_all(keys);
    small.insert_all(keys);
    let folded = large.fold(1 << log_factor).unwrap();
    prop_assert_eq!(folded.to_bytes(), small.to_bytes());
    prop_assert!(keys.iter().all(|key| folded.contains(key)));
    Ok(())
}

/// A union of filters of `small_blocks` and `small_blocks << log_factor` blocks (`self` the
/// larger when `self_is_larger`) is the smaller filter holding both sets of keys.
fn check_union_across_sizes<L: BlockLayout<Hash = u64>>(
    left: &[u64],
    right: &[u64],
    (small_blocks, log_factor, self_is_larger): (u64, u32, bool),
    make: impl Fn(u64) -> Engine<L, BitStore>,
) -> Result<(), TestCaseError> {
    let large_blocks = small_blocks << log_factor;
    let (ours_blocks, theirs_blocks) = if self_is_larger {
        (large_blocks, small_blocks)
    } else {
        (small_blocks, large_blocks)
    };
    let (mut ours, mut theirs) = (make(ours_blocks), make(theirs_blocks));
    let mut expected = make(small_blocks);
    ours.insert_all(left);
    theirs.insert_all(right);
    expected.insert_all(left.iter().chain(right));
    ours.union(&theirs).unwrap();
    prop_assert_eq!(ours.to_bytes(), expected.to_bytes());
    Ok(())
}

#[test]
fn bad_factors_and_sizes_are_errors() {
    let f = BlockedBloomFilter::with_params(512 * 12, 6).unwrap();
    for factor in [0, 3, 8, 16, 1 << 31] {
        assert!(
            matches!(
                f.fold(factor),
                Err(Error::InvalidParameter { name: "factor", .. })
            ),
            "factor {factor}"
        );
    }
    assert_eq!(f.fold(4).unwrap().num_blocks(), 3);
    assert_eq!(f.fold(1).unwrap(), f);

    // Sizes 3 blocks against 2, or 12 against 4 (a factor of 3): not foldable.
    let mut a = BlockedBloomFilter::with_params(512 * 12, 6).unwrap();
    for blocks in [8u64, 4, 5] {
        let b = BlockedBloomFilter::with_params(512 * blocks, 6).unwrap();
        assert!(
            matches!(
                a.union(&b),
                Err(Error::Incompatible {
                    parameter: "num_bits",
                    ..
                })
            ),
            "{blocks} blocks"
        );
        assert_eq!(a.num_blocks(), 12, "a failed union leaves self unchanged");
    }
    // Another k or seed is still an error, whatever the sizes.
    let other_k = BlockedBloomFilter::with_params(512 * 6, 7).unwrap();
    assert!(a.union(&other_k).is_err());
    let other_seed = BlockedBloomFilter::with_params(512 * 6, 6)
        .unwrap()
        .with_seed(1);
    assert!(a.union(&other_seed).is_err());

    let s = SplitBlockBloomFilter::with_num_bytes(1024);
    assert!(s.fold(64).is_err(), "32 blocks cannot fold by 64");
    assert_eq!(s.fold(32).unwrap().num_bytes(), 32);
    assert!(s.fold(6).is_err());
}

#[test]
fn parquet_reads_a_folded_filter_and_finds_every_value() {
    // A writer that does not know the column chunk's distinct count sizes for the most it
    // may hold, then fits the filter to the count it saw.
    let mut filter = SplitBlockBloomFilter::new(4_000_000, 0.01).unwrap();
    let values: Vec<i64> = bloom_tests::SplitMix64(11)
        .take(30_000)
        .map(|v| v as i64)
        .collect();
    for &v in &values {
        filter.insert_i64(v);
    }
    let fitted = filter.fold_to_fit(30_000, 0.01).unwrap();
    assert_eq!(
        fitted.num_bytes(),
        SplitBlockBloomFilter::new(30_000, 0.01)
            .unwrap()
            .num_bytes()
    );
    assert!(fitted.num_bytes() * 64 <= filter.num_bytes());
    let theirs = Sbbf::from_bytes(&fitted.to_parquet_bytes()).unwrap();
    assert!(values.iter().all(|v| theirs.check(v)));
    // And the rate is the smaller filter's: about 1% of absent values pass.
    let passed = bloom_tests::SplitMix64(12)
        .take(100_000)
        .filter(|&v| theirs.check(&(v as i64)))
        .count();
    assert!(passed < 1_500, "{passed} of 100,000 absent values pass");
}

#[test]
fn fold_to_fpp_gives_the_bytes_of_parquets_fold() {
    for (num_bytes, count, target) in [
        (1usize << 20, 10_000usize, 0.01),
        (1 << 16, 500, 0.001),
        (1 << 12, 0, 0.05),
        (1 << 18, 200_000, 0.01),
    ] {
        let mut ours = SplitBlockBloomFilter::with_num_bytes(num_bytes);
        let mut theirs = Sbbf::new_with_num_of_bytes(num_bytes);
        for v in bloom_tests::SplitMix64(num_bytes as u64).take(count) {
            ours.insert_i64(v as i64);
            theirs.insert(&(v as i64));
        }
        let folded = ours.fold_to_fpp(target).unwrap();
        theirs.fold_to_target_fpp(target);
        let mut expected = Vec::new();
        theirs.write_bitset(&mut expected).unwrap();
        assert_eq!(
            folded.bitset_bytes(),
            expected,
            "{num_bytes} bytes, {count} values, target {target}"
        );
    }
    let f = SplitBlockBloomFilter::with_num_bytes(64);
    assert!(f.fold_to_fpp(0.0).is_err());
    assert!(f.fold_to_fpp(f64::NAN).is_err());
}
