//! The memory probe's sanity: a buffer far larger than the caches never reads faster than
//! one that fits the first-level cache.

use std::time::Duration;

use bloom_compare::probe::probe;

#[test]
fn a_large_buffer_never_reads_faster_than_l1() {
    let budget = Duration::from_millis(30);
    let small = probe(16 << 10, 1, budget);
    let large = probe(256 << 20, 2, budget);
    assert_eq!(small.bytes, 16 << 10);
    assert_eq!(large.bytes, 256 << 20);
    assert!(
        large.single_ns >= small.single_ns,
        "dependent reads: 256 MiB {} ns < 16 KiB {} ns",
        large.single_ns,
        small.single_ns
    );
    assert!(
        large.batched_ns >= small.batched_ns,
        "batched reads: 256 MiB {} ns < 16 KiB {} ns",
        large.batched_ns,
        small.batched_ns
    );
    // Overlapping prefetched reads beat waiting for each one, in memory.
    assert!(large.batched_ns < large.single_ns, "{large:?}");
}
