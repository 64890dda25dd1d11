//! Checks of the one engine under a layout, through the public API of its plain and atomic
//! filters: the calls every layout has (`insert_hashes`, the parallel build, serde, the
//! atomic storage) must agree with the plain key-by-key path, whatever the layout.
//!
//! Each variant's file under `tests/tests/` runs them for its layout:
//! `bloom_tests::engine::check_insert_hashes::<Classic>()`.

use std::fmt::Debug;

use bloom_core::engine::{AtomicBitStore, BitStore, Engine, Layout, LeBits};
use bloom_core::hash::Hashing;
use bloom_core::internal::par::{Plan, with_plan};
use bloom_core::{Error, Keyed};
use proptest::prelude::*;
use rayon::prelude::*;

use crate::keyed::SUITE_KEY;
use crate::{OneByteReader, SplitMix64};

/// The plain filter of layout `L`.
type Plain<L> = Engine<L, BitStore>;
/// The lock-free filter of layout `L`.
type Atomic<L> = Engine<L, AtomicBitStore>;

/// Every plan of a parallel build: sequential, copies for two and three threads, scatter.
const PLANS: [Plan; 4] = [
    Plan::Sequential,
    Plan::Copies(2),
    Plan::Copies(3),
    Plan::Scatter,
];

/// Checks that `insert_hashes` sets the bits `insert_all` sets, for key counts around the
/// prefetch distance and the bursts, on filters of one block or line and of many (each
/// count's keys its own, so the counts do not test the same bits over and over).
///
/// # Panics
///
/// When the two differ.
pub fn check_insert_hashes<L: Layout>() {
    for n in [0u64, 1, 15, 16, 17, 31, 32, 33, 100, 5_000] {
        for size in [1u64, 10_000] {
            let keys = (0..n).map(|k| k + (n << 32));
            let mut by_keys = Plain::<L>::new(size, 0.01).unwrap();
            by_keys.insert_all(keys.clone());
            let mut by_hashes = Plain::<L>::new(size, 0.01).unwrap();
            let hashes: Vec<L::Hash> = keys.map(|k| by_hashes.hash(&k)).collect();
            by_hashes.insert_hashes(&hashes);
            assert_eq!(
                by_hashes.to_bytes(),
                by_keys.to_bytes(),
                "{n} keys, size {size}"
            );
        }
    }
}

/// Checks that every parallel build (each plan of `par_insert_all`, `collect` and
/// `par_extend`) gives the bits of the sequential build, whatever this machine's cache would
/// choose for a filter this size.
///
/// # Panics
///
/// When a parallel build differs.
pub fn check_parallel_build<L: Layout + Debug>() {
    let keys: Vec<u64> = (0..200_000).collect();
    let new = || Plain::<L>::new(keys.len() as u64, 0.01).unwrap();
    let mut seq = new();
    seq.insert_all(&keys);
    for plan in PLANS {
        let mut par = new();
        with_plan(plan, || par.par_insert_all(&keys));
        assert_eq!(seq, par, "{plan:?}");
    }
    let collected: Plain<L> = keys.par_iter().collect();
    assert_eq!(collected, seq);
    let mut extended = new();
    extended.par_extend(keys.par_iter());
    assert_eq!(extended, seq);
}

/// Checks that a filter's serde form is its bytes, in base64 (4 characters for every 3,
/// and the quotes), and that what is not such a string is an error.
///
/// # Panics
///
/// When the form differs or the round trip fails.
pub fn check_serde_is_the_byte_format<L: Layout + Debug>() {
    let mut f = Plain::<L>::new(100, 0.01).unwrap();
    f.insert("serde");
    let json = serde_json::to_string(&f).unwrap();
    let back: Plain<L> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, f);
    assert_eq!(json.len(), f.to_bytes().len().div_ceil(3) * 4 + 2);
    assert!(serde_json::from_str::<Plain<L>>("[1,2,3]").is_err());
}

/// Checks that the atomic filter answers as the plain one given the same keys: inserts,
/// queries single and batch, bytes, estimates, and every conversion between the two.
///
/// # Panics
///
/// When an answer differs.
pub fn check_atomic_answers_like_plain<L: Layout + Debug>() {
    let mut plain = Plain::<L>::new(2_000, 0.02).unwrap();
    let atomic = Atomic::<L>::new(2_000, 0.02).unwrap();
    // New keys, then half of them again: both inserts report the same for each.
    for k in (0..2_000u32).chain(1_000..3_000) {
        assert_eq!(plain.insert(&k), atomic.insert(&k), "{k}");
    }
    for k in 0..10_000u32 {
        assert_eq!(plain.contains(&k), atomic.contains(&k));
    }
    assert_eq!(atomic.to_bytes(), plain.to_bytes());
    assert_eq!(atomic.to_plain(), plain);
    let keys: Vec<u32> = (0..5000).collect();
    assert_eq!(atomic.contains_batch(&keys), plain.contains_batch(&keys));
    assert_eq!(
        Atomic::<L>::from_bytes(&plain.to_bytes())
            .unwrap()
            .to_plain(),
        plain
    );
    assert_eq!(Plain::<L>::from(Atomic::<L>::from(plain.clone())), plain);
    assert_eq!(atomic.estimated_len(), plain.estimated_len());
    assert_eq!(atomic.estimated_fpr(), plain.estimated_fpr());
    let copy = atomic.clone();
    assert_eq!(copy.count_ones(), atomic.count_ones());
}

/// Checks that two threads inserting halves of a key set into one atomic filter set exactly
/// the bits of one-by-one inserts into a plain one, for key sets of several sizes (the
/// halves' blocks interleave, so their `fetch_or`s meet on shared words).
///
/// # Panics
///
/// When the bytes differ.
pub fn check_concurrent_inserts<L: Layout + Debug>() {
    for (round, n) in [1u64, 1_000, 20_000].into_iter().enumerate() {
        let keys: Vec<u64> = SplitMix64(round as u64 + 40).take(n as usize).collect();
        let mut sequential = Plain::<L>::new(n, 0.01).unwrap();
        sequential.insert_all(&keys);
        let atomic = Atomic::<L>::new(n, 0.01).unwrap();
        std::thread::scope(|s| {
            for half in keys.chunks(keys.len() / 2 + 1) {
                let atomic = &atomic;
                s.spawn(move || atomic.insert_all(half));
            }
        });
        assert_eq!(atomic.to_bytes(), sequential.to_bytes(), "{n} keys");
    }
}

/// Checks that a layout of eight bits per key (the multiblock layouts) refuses every other
/// k, sizes it cannot hold and rates out of range, and that its bytes with another k are
/// corrupt and a blocked filter's bytes another variant, owned and viewed.
///
/// # Panics
///
/// When one of them is accepted.
pub fn check_eight_bits_per_key_errors<L: Layout + Debug>() {
    for k in [0, 1, 7, 9, 16] {
        assert!(matches!(
            Plain::<L>::with_params(1024, k),
            Err(Error::InvalidParameter { .. })
        ));
    }
    assert!(Plain::<L>::new(0, 0.01).is_err());
    assert!(Plain::<L>::new(10, 1.0).is_err());
    assert!(matches!(
        Plain::<L>::new(u64::MAX, 1e-9),
        Err(Error::TooLarge { .. })
    ));
    let mut bytes = Plain::<L>::with_params(1024, 8).unwrap().to_bytes();
    bytes[24] = 7;
    assert!(Plain::<L>::from_bytes(&bytes).is_err());
    assert!(Engine::<L, LeBits<'_>>::from_bytes(&bytes).is_err());
    let blocked = bloom_blocked::BlockedBloomFilter::with_params(1024, 8)
        .unwrap()
        .to_bytes();
    assert!(matches!(
        Plain::<L>::from_bytes(&blocked),
        Err(Error::WrongVariant { .. })
    ));
}

/// Checks the bytes of the two small filters a layout of eight bits per key (the multiblock
/// layouts) pins against its independent model (`tests/golden/multiblock*_golden.py`): 1024
/// bits holding the `u64` keys 0..10, whose first eight bytes must be `header`, read back
/// equal; and 1536 bits seeded with 7 holding `"key0"` to `"key39"`, whose bytes the atomic
/// filter reads back unchanged.
///
/// # Panics
///
/// When the bytes differ from `golden_a` and `golden_b` (lowercase hex).
pub fn check_eight_bits_per_key_golden<L: Layout<Hashing = Hashing> + Debug>(
    header: &[u8; 8],
    golden_a: &str,
    golden_b: &str,
) {
    let hex = |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
    let mut f = Plain::<L>::with_params(1024, 8).unwrap();
    f.insert_all(0..10u64);
    let bytes = f.to_bytes();
    assert_eq!(&bytes[..8], header);
    assert_eq!(hex(&bytes), golden_a);
    assert_eq!(Plain::<L>::from_bytes(&bytes).unwrap(), f);

    let mut g = Plain::<L>::with_params(1536, 8).unwrap().with_seed(7);
    for i in 0..40 {
        g.insert(format!("key{i}").as_str());
    }
    let bytes = g.to_bytes();
    assert_eq!(hex(&bytes), golden_b);
    assert_eq!(Atomic::<L>::from_bytes(&bytes).unwrap().to_bytes(), bytes);
}

/// Checks the atomic filter's union, intersection and clear, and that both refuse a filter
/// of a size theirs cannot fold to or from (15 lines of 512 bits against a filter of a
/// hundred keys: no power of two apart in any layout).
///
/// # Panics
///
/// When one misbehaves.
pub fn check_atomic_union_and_intersect<L: Layout>() {
    let a = Atomic::<L>::new(100, 0.01).unwrap();
    let b = Atomic::<L>::new(100, 0.01).unwrap();
    a.insert("a");
    b.insert("b");
    a.union(&b).unwrap();
    assert!(a.contains("a") && a.contains("b"));
    a.intersect(&b).unwrap();
    assert!(a.contains("b"));
    let c = Atomic::<L>::with_params(15 * 512, a.num_hashes()).unwrap();
    c.insert("c");
    let before = a.to_bytes();
    assert!(matches!(a.union(&c), Err(Error::Incompatible { .. })));
    assert!(matches!(a.intersect(&c), Err(Error::Incompatible { .. })));
    assert_eq!(
        a.to_bytes(),
        before,
        "a refused operation changed the filter"
    );
    a.clear();
    assert_eq!(a.count_ones(), 0);
}

/// Checks that the atomic filter's union and intersection refuse a filter of another seed,
/// for a layout hashed by a seed or a secret key.
///
/// # Panics
///
/// When one accepts it.
pub fn check_atomic_refuses_another_seed<L: Layout<Hashing = Hashing>>() {
    let a = Atomic::<L>::new(100, 0.01).unwrap();
    let c = Atomic::<L>::new(100, 0.01).unwrap().with_seed(3);
    assert!(a.union(&c).is_err());
    assert!(a.intersect(&c).is_err());
}

/// An empty filter of layout `L` for `n` keys, or keyed with [`SUITE_KEY`] when `keyed`
/// (`keyed` is for layouts hashed by a seed or a secret key only).
fn empty<L: Layout>(n: u64, keyed: Option<fn(Plain<L>) -> Plain<L>>) -> Plain<L> {
    let f = Plain::<L>::new(n.max(1), 0.01).unwrap();
    match keyed {
        Some(key) => key(f),
        None => f,
    }
}

/// Keys with the [`SUITE_KEY`], for the empty filters the suite starts from.
pub fn with_suite_key<L: Layout<Hashing = Hashing>>(filter: Plain<L>) -> Plain<L> {
    filter.with_key(SUITE_KEY)
}

/// Checks that every key of `keys` is present in `filter`, one by one and in a batch.
fn all_present<L: Layout, S: bloom_core::engine::Storage>(
    filter: &Engine<L, S>,
    keys: &[u64],
    stage: &str,
) -> Result<(), TestCaseError> {
    for key in keys {
        prop_assert!(filter.contains(key), "false negative for {} {}", key, stage);
    }
    prop_assert!(
        filter.contains_batch(keys).iter().all(|&b| b),
        "batch false negative {}",
        stage
    );
    Ok(())
}

/// Checks that the intersection of a filter holding `left` and `common` with one holding
/// `right` and `common` answers present for every key of `common`, for the plain filters and
/// their atomic twins (which give the plain intersection's bits); `keyed` keys both.
///
/// # Errors
///
/// On a false negative among the common keys, or atomic bits unlike the plain ones.
pub fn check_intersection_keeps_common_keys<L: Layout>(
    (left, right, common): (&[u64], &[u64], &[u64]),
    keyed: Option<fn(Plain<L>) -> Plain<L>>,
) -> Result<(), TestCaseError> {
    let n = (left.len() + right.len() + common.len()) as u64;
    let (mut a, mut b) = (empty::<L>(n, keyed), empty::<L>(n, keyed));
    a.insert_all(left.iter().chain(common));
    b.insert_all(right.iter().chain(common));
    let (atomic_a, atomic_b) = (Atomic::<L>::from(a.clone()), Atomic::<L>::from(b.clone()));
    a.intersect(&b).unwrap();
    all_present(&a, common, "after an intersection")?;
    atomic_a.intersect(&atomic_b).unwrap();
    all_present(&atomic_a, common, "after an atomic intersection")?;
    prop_assert_eq!(atomic_a.to_bytes(), a.to_bytes());
    Ok(())
}

/// Checks that `threads` threads inserting shares of `keys` into one atomic filter at once
/// (even shares key by key, odd shares with `insert_all`) lose no key, and set the bits of a
/// sequential build; `keyed` keys the filters.
///
/// # Errors
///
/// On a false negative or bits unlike the sequential build's.
pub fn check_concurrent_inserts_keep_every_key<L: Layout>(
    keys: &[u64],
    threads: usize,
    keyed: Option<fn(Plain<L>) -> Plain<L>>,
) -> Result<(), TestCaseError> {
    let n = keys.len() as u64;
    let mut sequential = empty::<L>(n, keyed);
    let shared = Atomic::<L>::from(sequential.clone());
    std::thread::scope(|s| {
        for (i, share) in keys.chunks(keys.len().div_ceil(threads).max(1)).enumerate() {
            let shared = &shared;
            s.spawn(move || {
                if i % 2 == 0 {
                    for key in share {
                        shared.insert(key);
                    }
                } else {
                    shared.insert_all(share);
                }
            });
        }
    });
    all_present(&shared, keys, "after concurrent inserts")?;
    sequential.insert_all(keys);
    prop_assert_eq!(shared.to_bytes(), sequential.to_bytes());
    Ok(())
}

/// Checks that a filter holding `keys` and its atomic twin keep every key through each way
/// back from bytes: `from_bytes`, `read_from` (one byte per read) and a zero-copy view of
/// the bytes, as plain and as atomic filters.
///
/// # Errors
///
/// On a false negative after any of them.
pub fn check_bytes_round_trips<L: Layout>(keys: &[u64]) -> Result<(), TestCaseError> {
    let mut plain = empty::<L>(keys.len() as u64, None);
    plain.insert_all(keys);
    let atomic = Atomic::<L>::from(plain.clone());
    for bytes in [plain.to_bytes(), atomic.to_bytes()] {
        all_present(&Plain::<L>::from_bytes(&bytes).unwrap(), keys, "from_bytes")?;
        all_present(
            &Atomic::<L>::from_bytes(&bytes).unwrap(),
            keys,
            "atomic from_bytes",
        )?;
        let read = Plain::<L>::read_from(OneByteReader(&bytes)).unwrap();
        all_present(&read, keys, "read_from")?;
        let read = Atomic::<L>::read_from(&bytes[..]).unwrap();
        all_present(&read, keys, "atomic read_from")?;
        let view = Engine::<L, LeBits<'_>>::from_bytes(&bytes).unwrap();
        all_present(&view, keys, "in a view")?;
    }
    Ok(())
}

/// [`check_bytes_round_trips`] for filters keyed with [`SUITE_KEY`], read back with it:
/// `from_bytes_with_key`, `read_from_with_key` and a view's `from_bytes_with_key`.
///
/// # Errors
///
/// On a false negative after any of them.
pub fn check_keyed_bytes_round_trips<L: Layout<Hashing = Hashing>>(
    keys: &[u64],
) -> Result<(), TestCaseError> {
    let mut plain = empty::<L>(keys.len() as u64, Some(with_suite_key::<L>));
    plain.insert_all(keys);
    let atomic = Atomic::<L>::from(plain.clone());
    for bytes in [plain.to_bytes(), atomic.to_bytes()] {
        let key = &SUITE_KEY;
        all_present(
            &Plain::<L>::from_bytes_with_key(&bytes, key).unwrap(),
            keys,
            "from_bytes",
        )?;
        let copy = Atomic::<L>::from_bytes_with_key(&bytes, key).unwrap();
        all_present(&copy, keys, "atomic from_bytes")?;
        let read = Plain::<L>::read_from_with_key(OneByteReader(&bytes), key).unwrap();
        all_present(&read, keys, "read_from")?;
        let read = Atomic::<L>::read_from_with_key(&bytes[..], key).unwrap();
        all_present(&read, keys, "atomic read_from")?;
        let view = Engine::<L, LeBits<'_>>::from_bytes_with_key(&bytes, key).unwrap();
        all_present(&view, keys, "in a view")?;
    }
    Ok(())
}

/// Generates the engine's checks for one layout: `engine_suite!(module, Layout);`, a test
/// per check of [`engine`](crate::engine), and proptests of no false negatives after an
/// intersection, concurrent inserts and every way back from bytes (views included); for a
/// layout hashed by a seed or a secret key, `engine_suite!(module, Layout, seeded)` adds the
/// seeds' check and those proptests on filters keyed with the suite's key.
#[macro_export]
macro_rules! engine_suite {
    // The proptests of no false negatives, `$cases` cases each: after an intersection, after
    // concurrent inserts (both on filters `$keyed` keys, or seeded for `None`), and through
    // every way back from bytes (`$bytes`: the seeded or the keyed round trips).
    (@no_false_negatives $module:ident, $layout:ty, $cases:expr, $keyed:expr, $bytes:ident) => {
        mod $module {
            use proptest::prelude::*;

            proptest::proptest! {
                #![proptest_config(ProptestConfig::with_cases($cases))]

                /// An intersection keeps the keys both filters held, plain and atomic: the
                /// keys only one side held may go, never a common one.
                #[test]
                fn after_an_intersection(
                    left in proptest::collection::vec(any::<u64>(), 0..500),
                    right in proptest::collection::vec(any::<u64>(), 0..500),
                    common in proptest::collection::vec(any::<u64>(), 0..500),
                ) {
                    $crate::engine::check_intersection_keeps_common_keys::<$layout>(
                        (&left, &right, &common),
                        $keyed,
                    )?;
                }

                /// Threads inserting into one atomic filter at once lose no key, whatever
                /// the keys and the number of threads.
                #[test]
                fn after_concurrent_inserts(
                    keys in proptest::collection::vec(any::<u64>(), 1..3_000),
                    threads in 2usize..5,
                ) {
                    $crate::engine::check_concurrent_inserts_keep_every_key::<$layout>(
                        &keys, threads, $keyed,
                    )?;
                }

                /// Every way back from bytes keeps every key: owned and atomic filters
                /// from their bytes and streams, and a view over the bytes.
                #[test]
                fn after_bytes_streams_and_views(
                    keys in proptest::collection::vec(any::<u64>(), 0..2_000),
                ) {
                    $crate::engine::$bytes::<$layout>(&keys)?;
                }
            }
        }
    };
    ($module:ident, $layout:ty $(, $seeded:ident)?) => {
        mod $module {
            #[test]
            fn insert_hashes_sets_the_bits_insert_all_sets() {
                $crate::engine::check_insert_hashes::<$layout>();
            }

            #[test]
            fn parallel_build_equals_sequential() {
                $crate::engine::check_parallel_build::<$layout>();
            }

            #[test]
            fn serde_is_the_byte_format() {
                $crate::engine::check_serde_is_the_byte_format::<$layout>();
            }

            #[test]
            fn atomic_answers_like_the_plain_filter() {
                $crate::engine::check_atomic_answers_like_plain::<$layout>();
            }

            #[test]
            fn concurrent_inserts_set_the_sequential_bits() {
                $crate::engine::check_concurrent_inserts::<$layout>();
            }

            #[test]
            fn atomic_union_and_intersect() {
                $crate::engine::check_atomic_union_and_intersect::<$layout>();
            }

            $crate::engine_suite!(
                @no_false_negatives no_false_negatives, $layout, 32, None,
                check_bytes_round_trips
            );

            $(
                #[test]
                fn $seeded() {
                    $crate::engine::check_atomic_refuses_another_seed::<$layout>();
                }

                $crate::engine_suite!(
                    @no_false_negatives keyed_no_false_negatives, $layout, 24,
                    Some($crate::engine::with_suite_key::<$layout>),
                    check_keyed_bytes_round_trips
                );
            )?
        }
    };
}
