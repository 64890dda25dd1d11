//! `SparkBloomFilter::might_contain_long` (single key and batch) against Spark's own
//! `BloomFilter.mightContainLong` on the JVM: the same filter, the same keys, on the same
//! machine, in turn (never in parallel).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin jvm_vs_spark [-- N [FPP [ROUNDS [CHUNKS]]]]
//! ```
//!
//! N defaults to 10,000,000, FPP to 0.01, ROUNDS to 9 and CHUNKS to 10; `JVM_FLAGS` (split at
//! white space) is passed to `java`, e.g. `JVM_FLAGS=-XX:+UseTransparentHugePages` to give the
//! JVM huge pages as well (this side asks for them, as the workspace's storage does; the JVM
//! does not by default). The JVM side is `tests/golden/jvm/SparkBench.java`, compiled here
//! against the `spark-sketch` jar of the installed `pyspark` (or `SPARK_SKETCH_JAR`): it
//! builds `BloomFilter.create(N, FPP)` (Spark's default version, V2) over the keys
//! `Keys.gen(i)`, i < N, writes its bytes, makes five warm-up passes for the JIT over the N
//! keys `Keys.gen(i)`, N/2 <= i < 3N/2 (half of them inserted), and then waits for requests.
//! This program reads those bytes (so the filter is the JVM's own), makes one warm-up pass of
//! each of its queries over the same keys in the same order, then ROUNDS rounds over the
//! keys in CHUNKS consecutive chunks: for each chunk three timed passes, the JVM's (requested
//! over a pipe), the single-key and the batch query, in an order that rotates from chunk to
//! chunk. Each pass is timed in the thread's CPU time (`ThreadMXBean.getCurrentThreadCpuTime`,
//! `CLOCK_THREAD_CPUTIME_ID`), so time the scheduler gives to other processes is not
//! counted. All passes must count the same positives.
//!
//! Printed: the median and least ns per key of each over the rounds (a round's time is the
//! sum over its chunks), and the ratios Spark / this computed per chunk, over all rounds
//! (median, and the quartiles). The chunks are what make the ratio worth reading on a shared
//! machine: there the memory's speed drifts by a factor of two within seconds, and passes over
//! all N keys (what this tool did before, a pass of each side per round) left the per-round
//! single-key ratio anywhere between 0.8 and 2.1 within one run; three passes over a chunk
//! of a million keys are timed within a few tenths of a second.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use bloom_benches::thread_cpu_ns;
use bloom_jvm::SparkBloomFilter;
use bloom_tests::jvm::{golden_dir, key_long};

/// Rounds of timed passes when the command line names none.
const ROUNDS: usize = 9;

/// Chunks of the keys per round when the command line names none.
const CHUNKS: usize = 10;

fn spark_jar() -> PathBuf {
    if let Ok(jar) = std::env::var("SPARK_SKETCH_JAR") {
        return PathBuf::from(jar);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "pyspark is not installed (pip install pyspark)"
    );
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("jars");
    std::fs::read_dir(&dir)
        .expect("pyspark's jars folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("spark-sketch_"))
        })
        .expect("a spark-sketch jar in pyspark/jars")
}

/// One pass of `pass` over `range` timed in this thread's CPU time: ns per key, and the
/// positives it counted.
fn timed(
    range: std::ops::Range<usize>,
    pass: &mut impl FnMut(std::ops::Range<usize>) -> usize,
) -> (f64, usize) {
    let n = range.len();
    let t0 = thread_cpu_ns();
    let positives = pass(range);
    ((thread_cpu_ns() - t0) as f64 / n as f64, positives)
}

/// The median and least of `values`.
fn spread(values: &[f64]) -> (f64, f64) {
    let mut values = values.to_vec();
    values.sort_by(f64::total_cmp);
    (values[values.len() / 2], values[0])
}

/// The first quartile, median and third quartile of `values`.
fn quartiles(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: usize| values[(values.len() - 1) * q / 4];
    (at(1), at(2), at(3))
}

/// The JVM side: a `SparkBench` process that makes one timed pass per request.
struct Jvm {
    child: std::process::Child,
    requests: std::process::ChildStdin,
    answers: BufReader<std::process::ChildStdout>,
}

impl Jvm {
    /// The next line the JVM prints, split into numbers.
    fn line(&mut self) -> Vec<f64> {
        let mut line = String::new();
        let read = self.answers.read_line(&mut line).expect("the JVM's output");
        assert!(read > 0, "SparkBench ended early");
        line.split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect()
    }

    /// One timed pass of Spark's query over the keys in `range`: ns per key and positives.
    fn pass(&mut self, range: std::ops::Range<usize>) -> (f64, usize) {
        writeln!(self.requests, "pass {} {}", range.start, range.end)
            .expect("a request to the JVM");
        self.requests.flush().expect("a request to the JVM");
        let answer = self.line();
        (answer[0], answer[1] as usize)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(10_000_000, |a| a.parse().expect("N"));
    let fpp: f64 = args.get(1).map_or(0.01, |a| a.parse().expect("FPP"));
    let rounds: usize = args.get(2).map_or(ROUNDS, |a| a.parse().expect("ROUNDS"));
    let chunks: usize = args.get(3).map_or(CHUNKS, |a| a.parse().expect("CHUNKS"));
    assert!(rounds > 0, "ROUNDS must be at least 1");
    assert!((1..=n).contains(&chunks), "CHUNKS must be in [1, N]");
    let jar = spark_jar();
    let work = std::env::temp_dir().join(format!("bloom-jvm-bench-{}", std::process::id()));
    std::fs::create_dir_all(work.join("classes")).expect("scratch folder");
    let src = golden_dir();
    let status = Command::new("javac")
        .arg("-nowarn")
        .arg("-cp")
        .arg(&jar)
        .arg("-d")
        .arg(work.join("classes"))
        .arg(src.join("Keys.java"))
        .arg(src.join("SparkBench.java"))
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac failed");
    let bytes_path = work.join("filter.bin");
    let jvm_flags = std::env::var("JVM_FLAGS").unwrap_or_default();
    let mut child = Command::new("java")
        .args(jvm_flags.split_whitespace())
        .arg("-cp")
        .arg(format!(
            "{}:{}",
            jar.display(),
            work.join("classes").display()
        ))
        .args(["SparkBench", &n.to_string(), &fpp.to_string()])
        .arg(&bytes_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java runs");
    let mut jvm = Jvm {
        requests: child.stdin.take().expect("piped"),
        answers: BufReader::new(child.stdout.take().expect("piped")),
        child,
    };
    // "ready P": the filter is written and the JIT warmed up.
    let jvm_positives = jvm.line()[0] as usize;

    let filter =
        SparkBloomFilter::from_bytes(&std::fs::read(&bytes_path).expect("the JVM's bytes"))
            .expect("Spark's bytes");
    let _ = std::fs::remove_dir_all(&work);
    let keys: Vec<i64> = (0..n as u64).map(|i| key_long(n as u64 / 2 + i)).collect();
    let mut single = |range: std::ops::Range<usize>| {
        keys[range]
            .iter()
            .filter(|&&k| filter.might_contain_long(k))
            .count()
    };
    let mut answers = Vec::with_capacity(n);
    let mut batch = |range: std::ops::Range<usize>| {
        filter.might_contain_long_batch_into(&keys[range], &mut answers);
        answers.iter().filter(|&&a| a).count()
    };
    assert_eq!(
        single(0..n),
        jvm_positives,
        "Rust and the JVM answer differently"
    );
    assert_eq!(batch(0..n), jvm_positives, "the batch answers differently");
    // ns per key of [Spark, single, batch] per round (summed over its chunks), and per chunk.
    let mut per_round: [Vec<f64>; 3] = Default::default();
    let mut per_chunk: [Vec<f64>; 3] = Default::default();
    for r in 0..rounds {
        let mut round = [(0.0, 0usize); 3];
        for chunk in 0..chunks {
            let range = chunk * n / chunks..(chunk + 1) * n / chunks;
            for turn in 0..3 {
                let which = (r * chunks + chunk + turn) % 3;
                let (time, positives) = match which {
                    0 => jvm.pass(range.clone()),
                    1 => timed(range.clone(), &mut single),
                    _ => timed(range.clone(), &mut batch),
                };
                let ns = time * range.len() as f64;
                round[which] = (round[which].0 + ns, round[which].1 + positives);
                per_chunk[which].push(time);
            }
        }
        for (which, &(ns, positives)) in round.iter().enumerate() {
            assert_eq!(positives, jvm_positives, "answers changed between passes");
            per_round[which].push(ns / n as f64);
        }
    }
    drop(jvm.requests);
    let status = jvm.child.wait().expect("the JVM ends");
    assert!(status.success(), "SparkBench failed");

    println!(
        "filter: Spark {:?}, {} bits ({:.1} MB), k = {}, {n} keys inserted, {n} queries (half inserted), {jvm_positives} positive",
        filter.version(),
        filter.bit_size(),
        filter.memory_usage() as f64 / 1e6,
        filter.num_hashes()
    );
    println!(
        "spark sketch jar: {}, JVM_FLAGS: {jvm_flags:?}",
        jar.display()
    );
    println!(
        "{rounds} rounds of {chunks} chunks, the order of the three passes rotating; ratios computed per chunk"
    );
    println!(
        "{:<34} {:>10} {:>10} {:>28}",
        "ns per key (round totals)", "median", "least", "Spark / this per chunk: median"
    );
    let (jvm_median, jvm_least) = spread(&per_round[0]);
    println!(
        "{:<34} {jvm_median:>10.2} {jvm_least:>10.2} {:>28}",
        "Spark mightContainLong (JVM)", "1.00"
    );
    for (which, name) in [
        (1, "bloom-jvm might_contain_long"),
        (2, "bloom-jvm might_contain_long_batch"),
    ] {
        let (median, least) = spread(&per_round[which]);
        let ratios = per_chunk[0]
            .iter()
            .zip(&per_chunk[which])
            .map(|(j, r)| j / r)
            .collect();
        let (low, ratio, high) = quartiles(ratios);
        let range = format!("{ratio:.2} (quartiles {low:.2}-{high:.2})");
        println!("{name:<34} {median:>10.2} {least:>10.2} {range:>28}");
    }
}
