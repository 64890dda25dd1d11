//! `SparkBloomFilter::might_contain_long` (single key and batch) against Spark's own
//! `BloomFilter.mightContainLong` on the JVM: the same filter, the same keys, one run on the
//! same machine, one after the other (never in parallel).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin jvm_vs_spark [-- N [FPP]]
//! ```
//!
//! N defaults to 10,000,000 and FPP to 0.01; `JVM_FLAGS` (split at white space) is passed to
//! `java`, e.g. `JVM_FLAGS=-XX:+UseTransparentHugePages` to give the JVM huge pages as well
//! (this side asks for them, as the workspace's storage does; the JVM does not by default). The JVM side is `tests/golden/jvm/SparkBench.java`,
//! compiled here against the `spark-sketch` jar of the installed `pyspark` (or
//! `SPARK_SKETCH_JAR`) and run first: it builds `BloomFilter.create(N, FPP)` (Spark's default
//! version, V2) over the keys `Keys.gen(i)`, i < N, writes its bytes, and times N queries of
//! the keys `Keys.gen(i)`, N/2 <= i < 3N/2 (half of them inserted) after five warm-up passes
//! for the JIT. This program then reads those bytes (so the filter is the JVM's own), queries
//! the same keys in the same order, five passes after a warm-up pass, single-key and batch,
//! checks that all three give the same number of positive answers, and prints the median
//! (and least) nanoseconds per key of each, with the ratios. Both sides time wall-clock over
//! whole passes, in the thread's CPU time (`ThreadMXBean.getCurrentThreadCpuTime`,
//! `CLOCK_THREAD_CPUTIME_ID`), so time the scheduler gives to other processes on a shared
//! machine is not counted.

use std::path::PathBuf;
use std::process::Command;

use bloom_benches::thread_cpu_ns;
use bloom_jvm::SparkBloomFilter;
use bloom_tests::jvm::{golden_dir, key_long};

const TIMED: usize = 5;

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

/// Median and least of `TIMED` passes of `pass`, in ns per key, after one warm-up pass; and
/// the positives it counted.
fn time(n: usize, mut pass: impl FnMut() -> usize) -> (f64, f64, usize) {
    let positives = pass();
    let mut ns: Vec<f64> = (0..TIMED)
        .map(|_| {
            let t0 = thread_cpu_ns();
            let p = pass();
            let elapsed = (thread_cpu_ns() - t0) as f64 / n as f64;
            assert_eq!(p, positives, "answers changed between passes");
            elapsed
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    (ns[TIMED / 2], ns[0], positives)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(10_000_000, |a| a.parse().expect("N"));
    let fpp: f64 = args.get(1).map_or(0.01, |a| a.parse().expect("FPP"));
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
    let out = Command::new("java")
        .args(jvm_flags.split_whitespace())
        .arg("-cp")
        .arg(format!(
            "{}:{}",
            jar.display(),
            work.join("classes").display()
        ))
        .args(["SparkBench", &n.to_string(), &fpp.to_string()])
        .arg(&bytes_path)
        .output()
        .expect("java runs");
    assert!(
        out.status.success(),
        "SparkBench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).expect("UTF-8");
    let field = |name: &str| -> Vec<f64> {
        report
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {report}"))
            .split_whitespace()
            .map(|w| w.parse().expect("number"))
            .collect()
    };
    let jvm_positives = field("positives ")[0] as usize;
    let jvm = field("spark_ns_per_key ");

    let filter =
        SparkBloomFilter::from_bytes(&std::fs::read(&bytes_path).expect("the JVM's bytes"))
            .expect("Spark's bytes");
    let _ = std::fs::remove_dir_all(&work);
    let keys: Vec<i64> = (0..n as u64).map(|i| key_long(n as u64 / 2 + i)).collect();
    let single = time(n, || {
        keys.iter()
            .filter(|&&k| filter.might_contain_long(k))
            .count()
    });
    let mut answers = Vec::with_capacity(n);
    let batch = time(n, || {
        filter.might_contain_long_batch_into(&keys, &mut answers);
        answers.iter().filter(|&&a| a).count()
    });
    assert_eq!(
        single.2, jvm_positives,
        "Rust and the JVM answer differently"
    );
    assert_eq!(batch.2, jvm_positives, "the batch answers differently");

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
        "{:<34} {:>10} {:>10} {:>14}",
        "ns per key", "median", "least", "Spark / this"
    );
    println!(
        "{:<34} {:>10.2} {:>10.2} {:>14}",
        "Spark mightContainLong (JVM)", jvm[0], jvm[1], "1.00"
    );
    for (name, (median, least, _)) in [
        ("bloom-jvm might_contain_long", single),
        ("bloom-jvm might_contain_long_batch", batch),
    ] {
        println!(
            "{name:<34} {median:>10.2} {least:>10.2} {:>14.2}",
            jvm[0] / median
        );
    }
}
