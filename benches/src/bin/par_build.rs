//! The parallel bulk build (`par_insert_all`, feature `rayon`) against the sequential one
//! (`insert_all`) of every variant that has both, on u64 keys at p = 1%: the evidence behind
//! the size below which `par_insert_all` runs sequentially.
//!
//! For each n, each variant builds a fresh filter from the same keys, sequentially and in
//! parallel in alternation, five times each; printed are the best wall-clock time of each
//! (ns per key) and the speed-up, sequential time over parallel time (above 1 means the
//! parallel build is faster). Wall-clock time, because a parallel build's point is the time
//! a caller waits; run it on idle cores, and name the CPU and the thread count (printed)
//! with the figures.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin par_build [n ...]
//! ```

use std::time::Instant;

use bloom_benches::{sizes_from_args, u64_keys};
use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_counting::CountingBloomFilter;

/// Builds timed per mode.
const RUNS: usize = 5;
/// The target false-positive rate.
const FPR: f64 = 0.01;

/// The best of [`RUNS`] wall-clock times of `sequential` and of `parallel`, run in
/// alternation, in ns per key; each run builds a fresh filter with `make`.
fn best_pair<F>(
    keys: &[u64],
    make: impl Fn() -> F,
    sequential: impl Fn(&mut F, &[u64]),
    parallel: impl Fn(&mut F, &[u64]),
) -> (f64, f64) {
    let time = |build: &dyn Fn(&mut F, &[u64])| {
        let mut filter = make();
        let start = Instant::now();
        build(&mut filter, keys);
        let ns = start.elapsed().as_nanos() as f64 / keys.len() as f64;
        std::hint::black_box(&filter);
        ns
    };
    let (mut seq, mut par) = (f64::INFINITY, f64::INFINITY);
    for run in 0..RUNS {
        if run % 2 == 0 {
            seq = seq.min(time(&sequential));
            par = par.min(time(&parallel));
        } else {
            par = par.min(time(&parallel));
            seq = seq.min(time(&sequential));
        }
    }
    (seq, par)
}

fn main() {
    let sizes = sizes_from_args(&[10_000, 100_000, 1_000_000, 10_000_000]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("threads: {threads}");
    println!("| variant | n | sequential ns/key | parallel ns/key | speed-up |");
    println!("|---|---|---|---|---|");
    for n in sizes {
        let keys = u64_keys(n, 1);
        let row = |name: &str, (seq, par): (f64, f64)| {
            println!("| {name} | {n} | {seq:.2} | {par:.2} | {:.2} |", seq / par);
        };
        let cap = n as u64;
        row(
            "BloomFilter",
            best_pair(
                &keys,
                || BloomFilter::new(cap, FPR).expect("valid parameters"),
                |f, k| f.insert_all(k),
                |f, k| f.par_insert_all(k),
            ),
        );
        row(
            "AtomicBloomFilter",
            best_pair(
                &keys,
                || AtomicBloomFilter::new(cap, FPR).expect("valid parameters"),
                |f, k| f.insert_all(k),
                |f, k| f.par_insert_all(k),
            ),
        );
        row(
            "CountingBloomFilter",
            best_pair(
                &keys,
                || CountingBloomFilter::new(cap, FPR).expect("valid parameters"),
                |f, k| f.insert_all(k),
                |f, k| f.par_insert_all(k),
            ),
        );
        row(
            "BlockedBloomFilter",
            best_pair(
                &keys,
                || BlockedBloomFilter::new(cap, FPR).expect("valid parameters"),
                |f, k| f.insert_all(k),
                |f, k| f.par_insert_all(k),
            ),
        );
        row(
            "AtomicBlockedBloomFilter",
            best_pair(
                &keys,
                || AtomicBlockedBloomFilter::new(cap, FPR).expect("valid parameters"),
                |f, k| f.insert_all(k),
                |f, k| f.par_insert_all(k),
            ),
        );
    }
}
