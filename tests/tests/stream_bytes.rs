//! `read_from` on damaged and arbitrary streams, for every variant of the shared format: the
//! checks of the `read_from` fuzz target ([`check_stream_bytes`]) over valid frames, frames
//! followed by more bytes, every truncation, seeded random damage (with the checksum
//! resealed, so the checks behind it are reached) and the inputs committed under
//! `fuzz/regressions/`.

use bloom_aging::AgingBloomFilter;
use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::{Filter, PersistIo};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;
use bloom_tests::{SplitMix64, check_stream_bytes, replay_fuzz_dir};

/// Every check of [`check_stream_bytes`] on `filter`'s bytes and their damaged forms;
/// `regressions` names the `from_bytes` fuzz target whose committed inputs are read too,
/// where it has a folder of them.
fn check<F: Filter + PersistIo>(filter: &F, regressions: Option<&str>, seed: u64) {
    let bytes = filter.to_bytes();
    check_stream_bytes::<F>(&bytes);
    // Two frames back to back, and a frame followed by garbage: one frame is read.
    let mut two = bytes.clone();
    two.extend_from_slice(&bytes);
    check_stream_bytes::<F>(&two);
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(&[0xAB; 19]);
    check_stream_bytes::<F>(&trailing);
    let step = (bytes.len() / 300).max(1);
    for len in (0..bytes.len()).step_by(step) {
        check_stream_bytes::<F>(&bytes[..len]);
    }
    let mut rng = SplitMix64(seed);
    for _ in 0..400 {
        let mut damaged = bytes.clone();
        // Mostly the header, the parameters and the padding, where the structure is.
        let reach = if rng.next_u64().is_multiple_of(4) {
            damaged.len()
        } else {
            damaged.len().min(160)
        };
        for _ in 0..1 + rng.next_u64() % 3 {
            let at = (rng.next_u64() % reach as u64) as usize;
            damaged[at] ^= 1 + (rng.next_u64() % 255) as u8;
        }
        check_stream_bytes::<F>(&damaged);
    }
    if let Some(target) = regressions {
        assert!(
            replay_fuzz_dir(target, check_stream_bytes::<F>) > 0,
            "{target}"
        );
    }
}

#[test]
fn classic_streams() {
    let mut f = BloomFilter::new(2_000, 0.01).unwrap();
    f.insert_all(0..2_000u64);
    check(&f, None, 1);
    let atomic = AtomicBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    check(&atomic, None, 2);
}

#[test]
fn counting_streams() {
    let mut f = CountingBloomFilter::new(1_000, 0.01).unwrap();
    f.insert_all(0..1_000u64);
    check(&f, Some("counting_from_bytes"), 3);
}

#[test]
fn scalable_streams() {
    let mut f = ScalableBloomFilter::new(100, 0.01).unwrap();
    f.insert_all(0..1_000u64).unwrap();
    assert!(f.num_layers() > 1);
    check(&f, None, 4);
}

#[test]
fn blocked_streams() {
    let mut f = BlockedBloomFilter::new(2_000, 0.01).unwrap();
    f.insert_all(0..2_000u64);
    check(&f, None, 5);
    let atomic = AtomicBlockedBloomFilter::from_bytes(&f.to_bytes()).unwrap();
    check(&atomic, None, 6);
    let mut s = SplitBlockBloomFilter::with_num_bytes(2_048);
    s.insert_all(0..1_000u64);
    check(&s, None, 7);
}

#[test]
fn aging_streams() {
    let mut f = AgingBloomFilter::new(1_000, 0.01).unwrap();
    f.insert_all(0..3_000u64);
    check(&f, Some("aging_from_bytes"), 8);
}

/// The inputs committed under `fuzz/regressions/read_from/` (seeds: one valid frame of each
/// variant behind its selector byte, and any minimized crash found since).
#[test]
fn read_from_fuzz_regressions_replay() {
    let count = replay_fuzz_dir("read_from", bloom_tests::check_stream_input);
    assert!(count >= 8, "{count} inputs");
}
