//! Zero-copy views: `BloomFilterRef`, `BlockedBloomFilterRef`, the multiblock views and
//! `SplitBlockBloomFilterRef` answer exactly as the owning filters do, from the bytes of
//! `to_bytes` at every alignment, open in O(1) without panicking on bad bytes, and leave
//! the checksum to `verify`.

use std::fmt::Debug;

use bloom_blocked::{
    BlockedBloomFilter, BlockedBloomFilterRef, Multiblock32BloomFilter, Multiblock32BloomFilterRef,
    MultiblockBloomFilter, MultiblockBloomFilterRef, SplitBlockBloomFilter,
    SplitBlockBloomFilterRef,
};
use bloom_classic::{BloomFilter, BloomFilterRef};
use bloom_core::format::payload_offset;
use bloom_core::{Error, Keyed};
use proptest::prelude::*;

/// An owning filter with a view type: what the checks below need of each.
trait Viewed: Sized + PartialEq + Debug {
    /// The view over borrowed bytes.
    type View<'a>: Copy;
    /// Where the payload starts in the frame.
    const PAYLOAD_AT: usize;
    /// A filter of about `size` bits holding `keys`.
    fn build(size: u64, keys: &[u64]) -> Self;
    fn to_bytes(&self) -> Vec<u8>;
    fn contains_batch(&self, keys: &[u64]) -> Vec<bool>;
    fn open(bytes: &[u8]) -> Result<Self::View<'_>, Error>;
    /// The view's `contains`, and its `contains_hash` of its `hash`, for `key`.
    fn view_contains(view: Self::View<'_>, key: &u64) -> (bool, bool);
    fn view_batch(view: Self::View<'_>, keys: &[u64], out: &mut Vec<bool>) -> Vec<bool>;
    fn verify(view: Self::View<'_>) -> Result<(), Error>;
    fn to_owned(view: Self::View<'_>) -> Result<Self, Error>;
}

/// Implements [`Viewed`] for an owning filter and its view, whose methods have the same
/// names: `$build` makes the filter of about `size` bits holding `keys`.
macro_rules! viewed {
    ($owned:ty, $view:ident, $payload_at:expr, |$size:ident, $keys:ident| $build:expr) => {
        impl Viewed for $owned {
            type View<'a> = $view<'a>;
            const PAYLOAD_AT: usize = $payload_at;
            fn build($size: u64, $keys: &[u64]) -> Self {
                $build
            }
            fn to_bytes(&self) -> Vec<u8> {
                <$owned>::to_bytes(self)
            }
            fn contains_batch(&self, keys: &[u64]) -> Vec<bool> {
                <$owned>::contains_batch(self, keys)
            }
            fn open(bytes: &[u8]) -> Result<$view<'_>, Error> {
                $view::from_bytes(bytes)
            }
            fn view_contains(view: $view<'_>, key: &u64) -> (bool, bool) {
                (view.contains(key), view.contains_hash(view.hash(key)))
            }
            fn view_batch(view: $view<'_>, keys: &[u64], out: &mut Vec<bool>) -> Vec<bool> {
                view.contains_batch_into(keys, out);
                view.contains_batch(keys)
            }
            fn verify(view: $view<'_>) -> Result<(), Error> {
                view.verify()
            }
            fn to_owned(view: $view<'_>) -> Result<Self, Error> {
                view.to_owned()
            }
        }
    };
}

viewed!(
    BloomFilter,
    BloomFilterRef,
    payload_offset(12),
    |size, keys| {
        let mut f = BloomFilter::with_params(size, 7).unwrap().with_seed(size);
        f.insert_all(keys);
        f
    }
);

viewed!(
    BlockedBloomFilter,
    BlockedBloomFilterRef,
    payload_offset(12),
    |size, keys| {
        let k = 1 + (size % 16) as u32;
        let mut f = BlockedBloomFilter::with_params(size, k)
            .unwrap()
            .with_seed(size);
        f.insert_all(keys);
        f
    }
);

viewed!(
    MultiblockBloomFilter,
    MultiblockBloomFilterRef,
    payload_offset(12),
    |size, keys| {
        let mut f = MultiblockBloomFilter::with_params(size, 8)
            .unwrap()
            .with_seed(size);
        f.insert_all(keys);
        f
    }
);

viewed!(
    Multiblock32BloomFilter,
    Multiblock32BloomFilterRef,
    payload_offset(12),
    |size, keys| {
        let mut f = Multiblock32BloomFilter::with_params(size, 8)
            .unwrap()
            .with_seed(size);
        f.insert_all(keys);
        f
    }
);

viewed!(
    SplitBlockBloomFilter,
    SplitBlockBloomFilterRef,
    payload_offset(8),
    |size, keys| {
        let mut f = SplitBlockBloomFilter::with_num_bytes((size / 8) as usize);
        f.insert_all(keys);
        f
    }
);

/// A buffer holding `bytes` at `offset` bytes past a 64-byte boundary, and that start.
fn at_offset(bytes: &[u8], offset: usize) -> (Vec<u8>, usize) {
    let mut buf = vec![0xA5u8; bytes.len() + 128];
    let start = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
    buf[start..start + bytes.len()].copy_from_slice(bytes);
    (buf, start)
}

/// The view of `F`'s bytes at every alignment 0..64 answers `present` and `absent` keys as
/// the owning filter does, singly, by hash and in batches, and round-trips through
/// `to_owned`.
fn check_answers<F: Viewed>(size: u64, present: &[u64], absent: &[u64]) {
    let f = F::build(size, present);
    let bytes = f.to_bytes();
    let keys: Vec<u64> = present.iter().chain(absent).copied().collect();
    let expected = f.contains_batch(&keys);
    assert!(
        expected[..present.len()].iter().all(|&x| x),
        "no false negative"
    );
    let mut out = vec![true; 3];
    for offset in 0..64 {
        let (buf, start) = at_offset(&bytes, offset);
        let view = F::open(&buf[start..start + bytes.len()]).unwrap();
        for (key, &e) in keys.iter().zip(&expected) {
            assert_eq!(F::view_contains(view, key), (e, e), "offset {offset}");
        }
        assert_eq!(F::view_batch(view, &keys, &mut out), expected, "{offset}");
        assert_eq!(out, expected, "offset {offset}");
        F::verify(view).unwrap();
        assert_eq!(F::to_owned(view).unwrap(), f, "offset {offset}");
    }
}

/// Every truncation of the bytes is an error, and random damage to the header and the
/// parameters is an error or a view (never a panic) whose queries do not panic either.
fn check_bad_bytes<F: Viewed>(size: u64, seed: u64) {
    let f = F::build(size, &[1, 2, 3]);
    let bytes = f.to_bytes();
    for len in 0..bytes.len() {
        assert!(F::open(&bytes[..len]).is_err(), "{len} of {}", bytes.len());
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(F::open(&longer), Err(Error::Corrupt { .. })));
    let mut rng = bloom_core::keys::SplitMix64(seed);
    for _ in 0..2_000 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(F::PAYLOAD_AT as u64) as usize;
            damaged[at] ^= 1 << rng.below(8);
        }
        if let Ok(view) = F::open(&damaged) {
            let _ = F::view_contains(view, &7);
            let _ = F::view_batch(view, &[1, 2, 3], &mut Vec::new());
            // The damage opening let through (a seed, a probe count) the checksum catches,
            // unless the flips cancelled out.
            assert_eq!(F::verify(view).is_ok(), damaged == bytes);
        }
    }
}

/// `verify` finds a flipped bit of the payload, which opening does not read; `to_owned`
/// refuses the bytes.
fn check_verify<F: Viewed>(size: u64, bit: u64) {
    let f = F::build(size, &(0..100).collect::<Vec<u64>>());
    let mut bytes = f.to_bytes();
    // A bit inside the payload's first `size` bits (never in the classic filter's tail).
    let bit = bit % size;
    bytes[F::PAYLOAD_AT + (bit / 8) as usize] ^= 1 << (bit % 8);
    let view = F::open(&bytes).unwrap();
    assert!(matches!(
        F::verify(view),
        Err(Error::ChecksumMismatch { .. })
    ));
    assert!(matches!(
        F::to_owned(view),
        Err(Error::ChecksumMismatch { .. })
    ));
    let n = bytes.len();
    bytes[n - 1] ^= 0x80;
    assert!(
        F::open(&bytes).is_ok(),
        "the checksum is not read on opening"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn classic_views_answer_as_the_filter(
        size in 1u64..40_000,
        present in prop::collection::vec(any::<u64>(), 0..600),
        absent in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        check_answers::<BloomFilter>(size, &present, &absent);
    }

    #[test]
    fn blocked_views_answer_as_the_filter(
        blocks in 1u64..80,
        present in prop::collection::vec(any::<u64>(), 0..600),
        absent in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        check_answers::<BlockedBloomFilter>(blocks * 512 + blocks % 16, &present, &absent);
    }

    #[test]
    fn multiblock_views_answer_as_the_filter(
        blocks in 1u64..80,
        present in prop::collection::vec(any::<u64>(), 0..600),
        absent in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        check_answers::<MultiblockBloomFilter>(blocks * 512 + blocks % 16, &present, &absent);
    }

    #[test]
    fn multiblock32_views_answer_as_the_filter(
        lines in 1u64..80,
        present in prop::collection::vec(any::<u64>(), 0..600),
        absent in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        check_answers::<Multiblock32BloomFilter>(lines * 512 + lines % 16, &present, &absent);
    }

    #[test]
    fn split_block_views_answer_as_the_filter(
        log_bytes in 5u32..14,
        present in prop::collection::vec(any::<u64>(), 0..600),
        absent in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        check_answers::<SplitBlockBloomFilter>(8 << log_bytes, &present, &absent);
    }

    #[test]
    fn verify_finds_a_flipped_payload_bit(bit in any::<u64>(), size in 64u64..20_000) {
        check_verify::<BloomFilter>(size, bit);
        check_verify::<BlockedBloomFilter>(size / 512 * 512 + 512, bit);
        check_verify::<MultiblockBloomFilter>(size / 512 * 512 + 512, bit);
        check_verify::<Multiblock32BloomFilter>(size / 512 * 512 + 512, bit);
        check_verify::<SplitBlockBloomFilter>(size.next_power_of_two().max(256), bit);
    }
}

#[test]
fn bad_bytes_are_errors_never_panics() {
    check_bad_bytes::<BloomFilter>(1_000, 1);
    check_bad_bytes::<BloomFilter>(64, 2);
    check_bad_bytes::<BlockedBloomFilter>(2_048, 3);
    check_bad_bytes::<MultiblockBloomFilter>(2_048, 5);
    check_bad_bytes::<Multiblock32BloomFilter>(2_048, 6);
    check_bad_bytes::<SplitBlockBloomFilter>(1_024, 4);
    // Another variant's bytes, and garbage.
    let classic = BloomFilter::with_params(1_000, 3).unwrap().to_bytes();
    let blocked = BlockedBloomFilter::with_params(1_024, 3)
        .unwrap()
        .to_bytes();
    assert!(matches!(
        BlockedBloomFilterRef::from_bytes(&classic),
        Err(Error::WrongVariant { .. })
    ));
    assert!(matches!(
        SplitBlockBloomFilterRef::from_bytes(&blocked),
        Err(Error::WrongVariant { .. })
    ));
    assert!(matches!(
        BloomFilterRef::from_bytes(&blocked),
        Err(Error::WrongVariant { .. })
    ));
    assert!(BloomFilterRef::from_bytes(&[0; 100]).is_err());
    // A classic payload with a bit set past num_bits, with a valid checksum: refused as
    // from_bytes refuses it.
    let mut tail = BloomFilter::with_params(100, 3).unwrap().to_bytes();
    tail[payload_offset(12) + 15] |= 0x80;
    let n = tail.len();
    let sum = bloom_core::format::checksum(&tail[..n - 8]);
    tail[n - 8..].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        BloomFilter::from_bytes(&tail),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        BloomFilterRef::from_bytes(&tail),
        Err(Error::Corrupt { .. })
    ));
    // A blocked frame whose num_bits is not whole blocks.
    let mut odd = blocked.clone();
    odd[16..24].copy_from_slice(&1000u64.to_le_bytes());
    assert!(matches!(
        BlockedBloomFilterRef::from_bytes(&odd),
        Err(Error::Corrupt { .. })
    ));
}

#[test]
fn keyed_views_need_the_key() {
    const KEY: [u8; 16] = *b"view-test-key-00";
    const OTHER: [u8; 16] = *b"view-test-key-01";
    let keys: Vec<u64> = (0..3_000).collect();
    let mut classic = BloomFilter::new(2_000, 0.01).unwrap().with_key(KEY);
    classic.insert_all(0..2_000u64);
    let mut blocked = BlockedBloomFilter::new(2_000, 0.01).unwrap().with_key(KEY);
    blocked.insert_all(0..2_000u64);
    let (cb, bb) = (classic.to_bytes(), blocked.to_bytes());
    let seeded = BloomFilter::new(10, 0.01).unwrap().to_bytes();
    let seeded_blocked = BlockedBloomFilter::new(10, 0.01).unwrap().to_bytes();

    assert_eq!(
        BloomFilterRef::from_bytes(&cb).unwrap_err(),
        Error::KeyRequired
    );
    assert_eq!(
        BloomFilterRef::from_bytes_with_key(&cb, &OTHER).unwrap_err(),
        Error::WrongKey
    );
    assert_eq!(
        BloomFilterRef::from_bytes_with_key(&seeded, &KEY).unwrap_err(),
        Error::NotKeyed
    );
    assert_eq!(
        BlockedBloomFilterRef::from_bytes(&bb).unwrap_err(),
        Error::KeyRequired
    );
    assert_eq!(
        BlockedBloomFilterRef::from_bytes_with_key(&bb, &OTHER).unwrap_err(),
        Error::WrongKey
    );
    assert_eq!(
        BlockedBloomFilterRef::from_bytes_with_key(&seeded_blocked, &KEY).unwrap_err(),
        Error::NotKeyed
    );

    for offset in [0, 1, 28, 63] {
        let (buf, start) = at_offset(&cb, offset);
        let view =
            BloomFilterRef::from_bytes_with_key(&buf[start..start + cb.len()], &KEY).unwrap();
        assert_eq!(view.contains_batch(&keys), classic.contains_batch(&keys));
        assert!(keys.iter().all(|k| view.contains(k) == classic.contains(k)));
        assert_eq!(view.seed(), None);
        assert_eq!(view.to_owned().unwrap(), classic);
        let (buf, start) = at_offset(&bb, offset);
        let view = BlockedBloomFilterRef::from_bytes_with_key(&buf[start..start + bb.len()], &KEY)
            .unwrap();
        assert_eq!(view.contains_batch(&keys), blocked.contains_batch(&keys));
        assert!(keys.iter().all(|k| view.contains(k) == blocked.contains(k)));
        assert_eq!(view.to_owned().unwrap(), blocked);
    }
}

/// A frame on a 64-byte boundary (the start of a page-aligned memory map) has its payload on
/// one too, so the blocked views' blocks each lie in one cache line; one byte off, or half a
/// line off, they do not (the split-block view's 32-byte blocks too: `is_aligned` is the
/// payload's line alignment, for every view).
#[test]
fn frames_on_a_cache_line_give_aligned_views() {
    let mut blocked = BlockedBloomFilter::new(10_000, 0.01).unwrap();
    blocked.insert_all(0..10_000u64);
    let mut split = SplitBlockBloomFilter::with_num_bytes(4_096);
    split.insert_all(0..1_000u64);
    let little = cfg!(target_endian = "little");
    for offset in [0, 1, 32] {
        let bytes = blocked.to_bytes();
        let (buf, start) = at_offset(&bytes, offset);
        let view = BlockedBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
        assert_eq!(
            view.is_aligned(),
            little && offset == 0,
            "blocked, {offset}"
        );
        let bytes = split.to_bytes();
        let (buf, start) = at_offset(&bytes, offset);
        let view = SplitBlockBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
        assert_eq!(
            view.is_aligned(),
            little && offset == 0,
            "split block, {offset}"
        );
    }
}

/// A classic filter past the batch engine's direct-loop limit runs the burst loop with its
/// prefetches: the view's answers are the filter's there too.
#[test]
fn classic_view_past_the_cache_answers_as_the_filter() {
    let size = 8 * bloom_core::internal::batch::direct_max_bytes(false) as u64 + 4_001;
    let mut f = BloomFilter::with_params(size, 7).unwrap();
    f.insert_all(0..200_000u64);
    let bytes = f.to_bytes();
    let keys: Vec<u64> = (190_000..210_000).collect();
    let expected = f.contains_batch(&keys);
    for offset in [0, 1, 36] {
        let (buf, start) = at_offset(&bytes, offset);
        let view = BloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
        assert_eq!(view.contains_batch(&keys), expected, "offset {offset}");
    }
}

#[test]
fn accessors_are_the_filters() {
    let f = BloomFilter::with_params(12_345, 5).unwrap().with_seed(9);
    let bytes = f.to_bytes();
    let v = BloomFilterRef::from_bytes(&bytes).unwrap();
    assert_eq!(
        (v.num_bits(), v.num_hashes(), v.seed()),
        (12_345, 5, Some(9))
    );
    assert_eq!(v.as_bytes(), &bytes[..]);
    let b = BlockedBloomFilter::with_params(512 * 10, 6)
        .unwrap()
        .with_seed(4);
    let bytes = b.to_bytes();
    let v = BlockedBloomFilterRef::from_bytes(&bytes).unwrap();
    assert_eq!(
        (v.num_bits(), v.num_blocks(), v.num_hashes(), v.seed()),
        (b.num_bits(), b.num_blocks(), b.num_hashes(), b.seed())
    );
    assert_eq!(v.hashing(), b.hashing());
    let s = SplitBlockBloomFilter::with_num_bytes(4_096);
    let bytes = s.to_bytes();
    let v = SplitBlockBloomFilterRef::from_bytes(&bytes).unwrap();
    assert_eq!(
        (v.num_bytes(), v.num_blocks()),
        (s.num_bytes(), s.num_blocks())
    );
}

/// The fuzz targets' view check (`bloom_tests::check_view_bytes!`) on a filter's bytes, every
/// truncation of them, single-byte changes and garbage: the view accepts (with `verify`)
/// exactly what `from_bytes` accepts and answers as the filter it gives.
#[test]
fn the_fuzz_targets_view_check_holds_on_cut_and_damaged_bytes() {
    let keys: Vec<u64> = bloom_tests::distinct_keys(0, 300).collect();
    let mut classic = BloomFilter::new(300, 0.01).unwrap();
    classic.insert_all(&keys);
    let mut blocked = BlockedBloomFilter::new(300, 0.01).unwrap();
    blocked.insert_all(&keys);
    let mut split = SplitBlockBloomFilter::new(300, 0.01).unwrap();
    split.insert_all(&keys);
    let mut rng = bloom_tests::SplitMix64(5);
    for bytes in [classic.to_bytes(), blocked.to_bytes(), split.to_bytes()] {
        let mut inputs: Vec<Vec<u8>> = (0..=bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        for _ in 0..200 {
            let mut damaged = bytes.clone();
            let at = rng.below(damaged.len() as u64) as usize;
            damaged[at] ^= 1 << rng.below(8);
            inputs.push(damaged);
        }
        inputs.push((0..bytes.len()).map(|_| rng.next_u64() as u8).collect());
        for data in &inputs {
            bloom_tests::check_view_bytes!(data, BloomFilterRef, BloomFilter);
            bloom_tests::check_view_bytes!(data, BlockedBloomFilterRef, BlockedBloomFilter);
            bloom_tests::check_view_bytes!(data, SplitBlockBloomFilterRef, SplitBlockBloomFilter);
        }
    }
}
