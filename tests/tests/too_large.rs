//! Filters far larger than the machine's memory are an `Error`, never an abort.
//!
//! The allocations are asked for in a child process (this test binary run again with
//! `BLOOM_TOO_LARGE_CHILD` set), so that an abort ("memory allocation of N bytes failed")
//! fails the test instead of killing the test runner with every other test in it.

use std::process::Command;

use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, SplitBlockBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::Error;
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;

const CHILD: &str = "BLOOM_TOO_LARGE_CHILD";

/// Whether the kernel refuses allocations larger than the machine can back. Linux's default
/// heuristic (`vm.overcommit_memory = 0`) and strict mode (2) do; with 1 ("always
/// overcommit") a 100 GB zeroed allocation succeeds lazily and no error can be seen, so the
/// child then checks only that nothing aborts.
fn kernel_refuses_huge_allocations() -> bool {
    match std::fs::read_to_string("/proc/sys/vm/overcommit_memory") {
        Ok(mode) => mode.trim() != "1",
        // Not Linux: the allocator's own refusal is all there is to see.
        Err(_) => true,
    }
}

/// Far more than this machine (24 GiB) or CI's holds: 10^11 keys is about 120 GB for a
/// classic filter at 1%.
fn child_checks() {
    let refuses = kernel_refuses_huge_allocations();
    let check = |what: &str, result: Result<(), Error>| match result {
        Err(Error::OutOfMemory { bytes }) => {
            assert!(bytes > 64 << 30, "{what}: {bytes} bytes refused");
        }
        Err(e @ Error::TooLarge { .. }) => panic!("{what}: a valid size refused as {e}"),
        Err(e) => panic!("{what}: unexpected error {e}"),
        Ok(()) => assert!(
            !refuses,
            "{what}: a filter beyond this machine's memory was built"
        ),
    };
    check(
        "BloomFilter::with_params(2^40 bits)",
        BloomFilter::with_params(1 << 40, 7).map(drop),
    );
    check(
        "BloomFilter::new(1e11)",
        BloomFilter::new(100_000_000_000, 0.01).map(drop),
    );
    check(
        "AtomicBloomFilter::new(1e11)",
        AtomicBloomFilter::new(100_000_000_000, 0.01).map(drop),
    );
    check(
        "ScalableBloomFilter::new(5e10)",
        ScalableBloomFilter::new(50_000_000_000, 0.01).map(drop),
    );
    check(
        "CountingBloomFilter::new(2e10)",
        CountingBloomFilter::new(20_000_000_000, 0.01).map(drop),
    );
    check(
        "BlockedBloomFilter::new(1e11)",
        BlockedBloomFilter::new(100_000_000_000, 0.01).map(drop),
    );
    check(
        "AtomicBlockedBloomFilter::new(1e11)",
        AtomicBlockedBloomFilter::new(100_000_000_000, 0.01).map(drop),
    );
    // Parquet caps its filters at 128 MiB: a distinct count beyond that is refused up front.
    match SplitBlockBloomFilter::new(100_000_000_000, 0.01) {
        Ok(f) => assert!(f.num_bytes() <= 128 << 20, "{}", f.num_bytes()),
        Err(e) => assert!(
            matches!(e, Error::InvalidParameter { .. } | Error::TooLarge { .. }),
            "{e}"
        ),
    }
}

#[test]
fn filters_beyond_memory_are_errors_not_aborts() {
    if std::env::var_os(CHILD).is_some() {
        child_checks();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(exe)
        .args([
            "--exact",
            "filters_beyond_memory_are_errors_not_aborts",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child failed ({:?}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran no check:\n{stdout}"
    );
}

/// Re-seeding a fresh filter touches none of its memory: a 1e9-key filter (1.2 GB) is
/// re-seeded, and the process's resident memory grows by far less than the filter.
#[cfg(target_os = "linux")]
#[test]
fn seeding_a_fresh_filter_touches_no_page() {
    fn resident_bytes() -> u64 {
        let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
        let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
        pages * 4096
    }
    let before = resident_bytes();
    let classic = BloomFilter::new(1_000_000_000, 0.01).unwrap().with_seed(7);
    let atomic = AtomicBloomFilter::new(1_000_000_000, 0.01)
        .unwrap()
        .with_seed(7);
    let blocked = BlockedBloomFilter::new(1_000_000_000, 0.01)
        .unwrap()
        .with_seed(7);
    let atomic_blocked = AtomicBlockedBloomFilter::new(1_000_000_000, 0.01)
        .unwrap()
        .with_seed(7);
    let counting = CountingBloomFilter::new(250_000_000, 0.01)
        .unwrap()
        .with_seed(7);
    let grown = resident_bytes().saturating_sub(before);
    let total = classic.memory_usage()
        + atomic.memory_usage()
        + blocked.memory_usage()
        + atomic_blocked.memory_usage()
        + counting.memory_usage();
    assert!(total > 5 << 30, "{total}");
    assert!(
        grown < 64 << 20,
        "re-seeding fresh filters of {total} bytes made {grown} bytes resident"
    );
    // A filter that holds keys is cleared by a new seed.
    let mut small = BloomFilter::new(1000, 0.01).unwrap();
    small.insert(&1u64);
    assert_eq!(small.with_seed(9).count_ones(), 0);
    let small = AtomicBlockedBloomFilter::new(1000, 0.01).unwrap();
    small.insert(&1u64);
    assert_eq!(small.with_seed(9).count_ones(), 0);
    let mut small = CountingBloomFilter::new(1000, 0.01).unwrap();
    small.insert(&1u64);
    assert!(!small.with_seed(9).contains(&1u64));
}
