//! The parallel bulk build (`par_insert_all`, feature `rayon`) against the sequential one
//! (`insert_all`) of every variant that has both, on u64 keys at p = 1%: the evidence behind
//! the size below which `par_insert_all` runs sequentially.
//!
//! For each n, each variant builds a fresh filter from the same keys, sequentially and in
//! parallel, in [`RUNS`] pairs whose order alternates; printed are the median wall-clock
//! time of each (ns per key), the median over the pairs of the speed-up (the pair's
//! sequential time over its parallel time: above 1 means the parallel build is faster) and
//! the lowest and highest pair's speed-up. On a shared VM a build of a filter that lives in
//! the last-level cache moves by a factor of two from one second to the next, so only the
//! pairs' ratios, taken moments apart, are worth comparing. Wall-clock time, because a
//! parallel build's point is the time a caller waits; run it on idle cores, and name the CPU
//! and the thread count (printed) with the figures.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin par_build [n ...]
//! ```

use std::time::Instant;

use bloom_benches::{median, sizes_from_args, u64_keys};
use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_counting::CountingBloomFilter;

/// Pairs of builds (one sequential, one parallel) per variant and size.
const RUNS: usize = 9;
/// The target false-positive rate.
const FPR: f64 = 0.01;

/// What [`pairs`] measured: median times in ns per key and the speed-ups of the pairs.
struct Pairs {
    sequential: f64,
    parallel: f64,
    speedups: Vec<f64>,
}

/// [`RUNS`] pairs of wall-clock builds, `sequential` and `parallel` in alternating order,
/// each of a fresh filter made by `make`.
fn pairs<F>(
    keys: &[u64],
    make: impl Fn() -> F,
    sequential: impl Fn(&mut F, &[u64]),
    parallel: impl Fn(&mut F, &[u64]),
) -> Pairs {
    let time = |build: &dyn Fn(&mut F, &[u64])| {
        let mut filter = make();
        let start = Instant::now();
        build(&mut filter, keys);
        let ns = start.elapsed().as_nanos() as f64 / keys.len() as f64;
        std::hint::black_box(&filter);
        ns
    };
    let (mut seq, mut par, mut speedups) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..RUNS {
        let (s, p) = if run % 2 == 0 {
            let s = time(&sequential);
            (s, time(&parallel))
        } else {
            let p = time(&parallel);
            (time(&sequential), p)
        };
        seq.push(s);
        par.push(p);
        speedups.push(s / p);
    }
    Pairs {
        sequential: median(seq),
        parallel: median(par),
        speedups,
    }
}

fn main() {
    let sizes = sizes_from_args(&[10_000, 100_000, 1_000_000, 10_000_000]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("threads: {threads}");
    println!(
        "| variant | n | sequential ns/key | parallel ns/key | speed-up (median) | lowest | highest |"
    );
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let keys = u64_keys(n, 1);
        let row = |name: &str, p: Pairs| {
            let low = p.speedups.iter().copied().fold(f64::INFINITY, f64::min);
            let high = p.speedups.iter().copied().fold(0.0, f64::max);
            println!(
                "| {name} | {n} | {:.2} | {:.2} | {:.2} | {low:.2} | {high:.2} |",
                p.sequential,
                p.parallel,
                median(p.speedups)
            );
        };
        let cap = n as u64;
        // Each variant's sequential and parallel builds of a fresh filter of `cap` keys.
        macro_rules! measure {
            ($($filter:ident),*) => {$(
                row(
                    stringify!($filter),
                    pairs(
                        &keys,
                        || $filter::new(cap, FPR).expect("valid parameters"),
                        |f, k| f.insert_all(k),
                        |f, k| f.par_insert_all(k),
                    ),
                );
            )*};
        }
        measure!(
            BloomFilter,
            AtomicBloomFilter,
            CountingBloomFilter,
            BlockedBloomFilter,
            AtomicBlockedBloomFilter
        );
    }
}
