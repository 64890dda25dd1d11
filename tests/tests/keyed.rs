//! Keyed hashing: the shared suite on keyed filters of every keyable variant, and what a
//! keyed filter's bytes may and may not reveal.

use std::hash::Hasher;

use bloom_blocked::{
    AtomicBlockedBloomFilter, AtomicMultiblock32BloomFilter, AtomicMultiblockBloomFilter,
    BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter, Probe,
};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::keys::distinct_keys;
use bloom_core::{Error, Keyed as _};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use bloom_tests::filter_suite;
use bloom_tests::keyed::{Keyable, Keyed, SUITE_KEY};

filter_suite!(classic, Keyed<BloomFilter>);
filter_suite!(atomic, Keyed<AtomicBloomFilter>);
filter_suite!(counting, Keyed<CountingBloomFilter>);
filter_suite!(scalable, Keyed<ScalableBloomFilter>);
filter_suite!(blocked, Keyed<BlockedBloomFilter>);
filter_suite!(atomic_blocked, Keyed<AtomicBlockedBloomFilter>);

const OTHER_KEY: [u8; 16] = *b"another-key-here";

/// A keyed filter of type `F` holding 1,000 keys.
fn filled<F: Keyable>() -> F {
    let mut f = F::build(1_000, 0.01).unwrap().keyed(SUITE_KEY);
    for k in distinct_keys(0, 1_000) {
        f.insert(&k).unwrap();
    }
    f
}

/// Whether `needle` occurs anywhere in `haystack`.
fn contains_run(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The checks every keyable variant passes on its bytes.
fn check_keyed_bytes<F: Keyable>() {
    let f = filled::<F>();
    let bytes = f.to_bytes();
    // Neither the key nor either of its 8-byte halves is in the bytes.
    assert!(
        !contains_run(&bytes, &SUITE_KEY),
        "{}: key in bytes",
        F::NAME
    );
    assert!(!contains_run(&bytes, &SUITE_KEY[..8]), "{}", F::NAME);
    assert!(!contains_run(&bytes, &SUITE_KEY[8..]), "{}", F::NAME);
    // The scheme byte says keyed; the seed field holds the fingerprint.
    assert_eq!(bytes[7], 3, "{}: scheme tag", F::NAME);
    let fingerprint = SecretKey::from_bytes(SUITE_KEY).fingerprint();
    assert_eq!(bytes[8..16], fingerprint.to_le_bytes(), "{}", F::NAME);

    // Without the key, or with another, loading is an error that says so.
    assert_eq!(F::from_bytes(&bytes).unwrap_err(), Error::KeyRequired);
    assert_eq!(F::read_from(&bytes[..]).unwrap_err(), Error::KeyRequired);
    assert_eq!(
        F::from_bytes_keyed(&bytes, &OTHER_KEY).unwrap_err(),
        Error::WrongKey
    );
    assert_eq!(
        F::read_from_keyed(&bytes[..], &OTHER_KEY).unwrap_err(),
        Error::WrongKey
    );
    // With the key, the same filter: every key found, the same bytes.
    let copy = F::from_bytes_keyed(&bytes, &SUITE_KEY).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert!(distinct_keys(0, 1_000).all(|k| copy.contains(&k)));
    let streamed = F::read_from_keyed(&bytes[..], &SUITE_KEY).unwrap();
    assert_eq!(streamed.to_bytes(), bytes);

    // A seeded filter's bytes with a key: an error, not a silent misreading.
    let seeded = F::build(1_000, 0.01).unwrap().to_bytes();
    assert_eq!(
        F::from_bytes_keyed(&seeded, &SUITE_KEY).unwrap_err(),
        Error::NotKeyed
    );

    // Unions: same key only.
    let mut same = F::build(1_000, 0.01).unwrap().keyed(SUITE_KEY);
    same.union(&f).unwrap();
    assert!(distinct_keys(0, 1_000).all(|k| same.contains(&k)));
    let mut other = F::build(1_000, 0.01).unwrap().keyed(OTHER_KEY);
    assert!(matches!(
        other.union(&f),
        Err(Error::Incompatible {
            parameter: "key",
            ..
        })
    ));
    let mut plain = F::build(1_000, 0.01).unwrap();
    assert!(matches!(
        plain.union(&f),
        Err(Error::Incompatible {
            parameter: "hash scheme",
            ..
        })
    ));
}

#[test]
fn keyed_bytes_hold_no_key_and_need_it() {
    check_keyed_bytes::<BloomFilter>();
    check_keyed_bytes::<AtomicBloomFilter>();
    check_keyed_bytes::<CountingBloomFilter>();
    check_keyed_bytes::<ScalableBloomFilter>();
    check_keyed_bytes::<BlockedBloomFilter>();
    check_keyed_bytes::<AtomicBlockedBloomFilter>();
}

#[test]
fn a_keyed_aging_filter_keeps_its_key_out_of_its_bytes() {
    // The aging filter unites only filters whose rings are aligned, so the union checks of
    // `check_keyed_bytes` do not apply; the rest does.
    use bloom_aging::AgingBloomFilter;
    let f = filled::<AgingBloomFilter>();
    let bytes = f.to_bytes();
    assert!(!contains_run(&bytes, &SUITE_KEY[..8]));
    assert!(!contains_run(&bytes, &SUITE_KEY[8..]));
    assert_eq!(bytes[7], 3);
    assert_eq!(
        AgingBloomFilter::from_bytes(&bytes).unwrap_err(),
        Error::KeyRequired
    );
    assert_eq!(
        AgingBloomFilter::from_bytes_with_key(&bytes, &OTHER_KEY).unwrap_err(),
        Error::WrongKey
    );
    let copy = AgingBloomFilter::read_from_with_key(&bytes[..], &SUITE_KEY).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert!(distinct_keys(0, 1_000).all(|k| copy.contains(&k)));
    assert_eq!(copy.seed(), None);
    let built = AgingBloomFilter::builder(1_000, 0.01)
        .key(SUITE_KEY)
        .build()
        .unwrap();
    assert_eq!(built.hashing(), f.hashing());
}

/// Asserts that a keyed filter's batch answers `keys` as its single queries do.
fn assert_batch_is_single<F: Keyable, T: std::hash::Hash>(filter: &F, keys: &[T], what: &str) {
    let single: Vec<bool> = keys.iter().map(|k| filter.contains(k)).collect();
    assert_eq!(filter.contains_batch(keys), single, "{}: {what}", F::NAME);
}

/// A keyed filter of type `F` sized for `n` keys at 1%, holding every other key of
/// [`check_keyed_batches`]'s kinds.
fn keyed_batch_filter<F: Keyable>(n: u64) -> F {
    let mut filter = F::build(n, 0.01).unwrap().keyed(SUITE_KEY);
    let (words, mixed, long) = batch_key_kinds();
    for i in (0..600u64).step_by(2) {
        filter.insert(&i).unwrap();
    }
    for k in words.iter().chain(&mixed).step_by(2) {
        filter.insert(k).unwrap();
    }
    for k in long.iter().step_by(2) {
        filter.insert(k).unwrap();
    }
    filter
}

/// Keys of one length, keys of mixed lengths, and keys past the key hasher's buffer.
fn batch_key_kinds() -> (Vec<String>, Vec<String>, Vec<Vec<u8>>) {
    let words = (0..300).map(|i| format!("key-{i:05}")).collect();
    let mixed = (0..300).map(|i| "x".repeat(i % 37)).collect();
    let long = (0..40).map(|i| vec![i as u8; 130 + i % 3]).collect();
    (words, mixed, long)
}

/// A keyed filter in the cache hashes its batch's keys in SIMD lanes a group at a time,
/// beside the tests: every kind of group (integers, keys of one length, of mixed lengths,
/// past the hasher's buffer) and every count of keys around the groups' sizes, present and
/// absent, answers as the single queries do.
fn check_keyed_batches<F: Keyable>(filter: &F) {
    let (words, mixed, long) = batch_key_kinds();
    let integers: Vec<u64> = (0..600).collect();
    for len in [0, 1, 15, 16, 17, 63, 64, 65, 129, 300, 600] {
        assert_batch_is_single(filter, &integers[..len], &format!("{len} integers"));
    }
    let narrow: Vec<u16> = (0..200).collect();
    assert_batch_is_single(filter, &narrow, "u16 integers");
    for len in [17, 64, 300] {
        assert_batch_is_single(filter, &words[..len], &format!("{len} keys of one length"));
        assert_batch_is_single(
            filter,
            &mixed[..len],
            &format!("{len} keys of mixed lengths"),
        );
    }
    assert_batch_is_single(filter, &long, "keys past the hasher's buffer");
    assert!(integers.iter().step_by(2).all(|k| filter.contains(k)));
}

/// [`check_keyed_batches`] on a line layout's filter under every kernel the CPU has (the
/// batch loop each compiles differs), and on its atomic twin: a filter in the cache, and one
/// past the direct loop's limit (at about 10 bits a key, one key per byte of the limit),
/// whose groups are staged with prefetches before they are tested.
macro_rules! check_keyed_line_layout {
    ($plain:ty, $atomic:ty) => {{
        let past_direct = bloom_core::internal::batch::direct_max_bytes(true) as u64;
        for n in [2_000, past_direct] {
            let filter = keyed_batch_filter::<$plain>(n);
            for probe in [Probe::Portable, Probe::Avx2, Probe::Avx512] {
                if probe.is_available() {
                    check_keyed_batches(&filter.clone().with_probe(probe).unwrap());
                }
            }
            check_keyed_batches(&keyed_batch_filter::<$atomic>(n));
        }
    }};
}

#[test]
fn keyed_batches_answer_as_single_queries() {
    check_keyed_batches(&keyed_batch_filter::<BloomFilter>(2_000));
    check_keyed_line_layout!(BlockedBloomFilter, AtomicBlockedBloomFilter);
    check_keyed_line_layout!(MultiblockBloomFilter, AtomicMultiblockBloomFilter);
    check_keyed_line_layout!(Multiblock32BloomFilter, AtomicMultiblock32BloomFilter);
}

#[test]
fn plain_and_atomic_twins_read_each_others_keyed_bytes() {
    let plain = filled::<BloomFilter>();
    let atomic = AtomicBloomFilter::from_bytes_with_key(&plain.to_bytes(), &SUITE_KEY).unwrap();
    assert_eq!(atomic.to_bytes(), plain.to_bytes());
    let blocked = filled::<BlockedBloomFilter>();
    let atomic =
        AtomicBlockedBloomFilter::from_bytes_with_key(&blocked.to_bytes(), &SUITE_KEY).unwrap();
    assert_eq!(atomic.to_bytes(), blocked.to_bytes());
}

#[test]
fn a_keyed_filter_answers_with_other_positions_than_a_seeded_one() {
    // The same keys, seeded and keyed: different bits, so the key changes what a key sets.
    let seeded = BloomFilter::new(1_000, 0.01).unwrap();
    let mut seeded_full = seeded.clone();
    let mut keyed = seeded.with_key(SUITE_KEY);
    for k in distinct_keys(0, 1_000) {
        seeded_full.insert(&k);
        keyed.insert(&k);
    }
    assert_ne!(seeded_full.bits(), keyed.bits());
    assert_eq!(keyed.seed(), None);
    assert!(keyed.hashing().is_keyed());
    assert_eq!(seeded_full.seed(), Some(bloom_core::hash::DEFAULT_SEED));
}

#[test]
fn keyed_digests_are_siphash_1_3_of_the_key_bytes() {
    // An independent SipHash-1-3 (the siphasher crate) over the 8 little-endian bytes a u64
    // key hashes as: the keyed scheme is the published function, nothing of our own.
    let keyed = Hashing::Keyed(SecretKey::from_bytes(SUITE_KEY));
    for key in [0u64, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
        let mut reference = siphasher::sip::SipHasher13::new_with_key(&SUITE_KEY);
        reference.write(&key.to_le_bytes());
        assert_eq!(keyed.hash64(&key), reference.finish(), "{key}");
        assert_eq!(keyed.hash(&key) as u64, reference.finish());
    }
    // Strings hash as `Hash` writes them: the bytes, then the 0xff terminator, an integer
    // and so written in the canonical 8 bytes.
    let mut reference = siphasher::sip::SipHasher13::new_with_key(&SUITE_KEY);
    reference.write(b"https://example.com/");
    reference.write(&0xffu64.to_le_bytes());
    assert_eq!(keyed.hash64("https://example.com/"), reference.finish());
    // Keys past the hasher's 128-byte buffer stream through SipHash's incremental state.
    let long = vec![7u8; 1_000];
    let mut reference = siphasher::sip::SipHasher13::new_with_key(&SUITE_KEY);
    reference.write(&(long.len() as u64).to_le_bytes());
    reference.write(&long);
    assert_eq!(keyed.hash64(&long), reference.finish());
}

/// Set by the parent of [`the_same_key_gives_the_same_bytes_in_two_processes`] to ask the
/// child run of the same test for its bytes.
const CHILD_OUTPUT: &str = "BLOOM_KEYED_CHILD_OUTPUT";

/// Every keyable variant's bytes for the same keys under [`SUITE_KEY`], concatenated.
fn keyed_bytes_of_every_variant() -> Vec<u8> {
    [
        filled::<BloomFilter>().to_bytes(),
        filled::<CountingBloomFilter>().to_bytes(),
        filled::<ScalableBloomFilter>().to_bytes(),
        filled::<BlockedBloomFilter>().to_bytes(),
    ]
    .concat()
}

#[test]
fn the_same_key_gives_the_same_bytes_in_two_processes() {
    let ours = keyed_bytes_of_every_variant();
    if let Some(path) = std::env::var_os(CHILD_OUTPUT) {
        // The child: write the bytes for the parent to compare.
        std::fs::write(path, &ours).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("child.bytes");
    let name = bloom_tests::test_name(
        module_path!(),
        "the_same_key_gives_the_same_bytes_in_two_processes",
    );
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--test-threads=1"])
        .env(CHILD_OUTPUT, &path)
        // The child's own "test result" line would be counted as a run by CI's summary.
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let theirs = std::fs::read(&path).unwrap();
    assert_eq!(theirs.len(), ours.len());
    assert!(theirs == ours, "the child process wrote other bytes");
}

#[test]
fn random_keys_differ_and_are_not_shown() {
    let a = BlockedBloomFilter::new(100, 0.01)
        .unwrap()
        .with_random_key();
    let b = BlockedBloomFilter::new(100, 0.01)
        .unwrap()
        .with_random_key();
    assert_ne!(a.hashing(), b.hashing());
    let Hashing::Keyed(key) = a.hashing() else {
        panic!("with_random_key gives a keyed filter");
    };
    let shown = format!("{a:?} {key:?}");
    assert!(!shown.contains(&format!("{:?}", key.to_bytes())), "{shown}");
    // The holder of the key loads the filter.
    let bytes = a.to_bytes();
    let copy = BlockedBloomFilter::from_bytes_with_key(&bytes, &key.to_bytes()).unwrap();
    assert_eq!(copy, a);
}

#[test]
fn scalable_builder_keys_every_layer() {
    let mut f = ScalableBloomFilter::builder(100, 0.01)
        .key(SUITE_KEY)
        .build()
        .unwrap();
    f.insert_all(distinct_keys(0, 2_000)).unwrap();
    assert!(f.layers().len() > 1);
    assert!(f.layers().iter().all(|l| l.filter().hashing().is_keyed()));
    let copy = ScalableBloomFilter::from_bytes_with_key(&f.to_bytes(), &SUITE_KEY).unwrap();
    assert!(distinct_keys(0, 2_000).all(|k| copy.contains(&k)));
}
