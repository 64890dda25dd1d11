//! Building the JVM-compatible filters: `insert_all_i64` against a loop of `insert_i64` over
//! the same keys (what a caller writes without it, and what the JVM libraries do), for
//! Spark's V2 filter and Guava's, sized for the keys at p = 1%.
//!
//! For each n and format, a fresh filter is built both ways in [`RUNS`] pairs whose order
//! alternates; printed are the median wall-clock time of each (ns per key) and the median,
//! lowest and highest over the pairs of the loop's time over `insert_all_i64`'s (above 1:
//! the batch insert is faster). Both builds must end with the same bits. Run it on an idle
//! machine and name the CPU with the figures.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin jvm_build [n ...]
//! ```

use std::time::Instant;

use bloom_benches::{median, sizes_from_args, u64_keys};
use bloom_jvm::{Format, GuavaBloomFilter, JvmBloomFilter, SparkBloomFilter};

/// Pairs of builds (one of each kind) per format and size.
const RUNS: usize = 5;
/// The target false-positive rate.
const FPR: f64 = 0.01;

/// The loop a caller writes: one `insert_i64` per key, in a function of its own (as in a
/// caller's code, the filter behind a reference).
#[inline(never)]
fn one_by_one<F: Format>(filter: &mut JvmBloomFilter<F>, keys: &[i64]) {
    for &key in keys {
        filter.insert_i64(key);
    }
}

/// The batch insert, in a function of its own as well.
#[inline(never)]
fn batch<F: Format>(filter: &mut JvmBloomFilter<F>, keys: &[i64]) {
    filter.insert_all_i64(keys.iter().copied());
}

/// Prints the row of one format: [`RUNS`] pairs of builds of a fresh filter from `make`.
fn row<F: Format>(name: &str, keys: &[i64], make: impl Fn() -> JvmBloomFilter<F>) {
    let time = |build: fn(&mut JvmBloomFilter<F>, &[i64])| {
        let mut filter = make();
        let start = Instant::now();
        build(&mut filter, keys);
        (
            start.elapsed().as_nanos() as f64 / keys.len() as f64,
            filter,
        )
    };
    let (mut loops, mut batches, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..RUNS {
        let ((l, a), (b, c)) = if run % 2 == 0 {
            let l = time(one_by_one);
            (l, time(batch))
        } else {
            let b = time(batch);
            (time(one_by_one), b)
        };
        assert!(a == c, "both builds set the same bits");
        loops.push(l);
        batches.push(b);
        ratios.push(l / b);
    }
    let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratios.iter().copied().fold(0.0, f64::max);
    println!(
        "| {name} | {} | {:.2} | {:.2} | {:.2} | {low:.2} | {high:.2} |",
        keys.len(),
        median(loops),
        median(batches),
        median(ratios)
    );
}

fn main() {
    let sizes = sizes_from_args(&[100_000, 1_000_000, 10_000_000]);
    println!(
        "| filter | n | `insert_i64` loop ns/key | `insert_all_i64` ns/key | loop / batch (median) | lowest | highest |"
    );
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let keys: Vec<i64> = u64_keys(n, 1).into_iter().map(|k| k as i64).collect();
        let cap = n as u64;
        row("SparkBloomFilter (V2)", &keys, || {
            SparkBloomFilter::new(cap, FPR).expect("valid parameters")
        });
        row("GuavaBloomFilter", &keys, || {
            GuavaBloomFilter::new(cap, FPR).expect("valid parameters")
        });
    }
}
