//! Checks of the one engine under a layout, through the public API of its plain and atomic
//! filters: the calls every layout has (`insert_hashes`, the parallel build, serde, the
//! atomic storage) must agree with the plain key-by-key path, whatever the layout.
//!
//! Each variant's file under `tests/tests/` runs them for its layout:
//! `bloom_tests::engine::check_insert_hashes::<Classic>()`.

use std::fmt::Debug;

use bloom_core::Error;
use bloom_core::engine::{AtomicBitStore, BitStore, Engine, Layout, LeBits};
use bloom_core::hash::Hashing;
use bloom_core::internal::par::{Plan, with_plan};
use rayon::prelude::*;

use crate::SplitMix64;

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

/// Generates the engine's checks for one layout: `engine_suite!(module, Layout);`, a test
/// per check of [`engine`](crate::engine); for a layout hashed by a seed or a secret key,
/// `engine_suite!(module, Layout, seeded)` adds the seeds' check.
#[macro_export]
macro_rules! engine_suite {
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

            $(
                #[test]
                fn $seeded() {
                    $crate::engine::check_atomic_refuses_another_seed::<$layout>();
                }
            )?
        }
    };
}
