//! The scale run: a `BlockedBloomFilter` and a `BloomFilter` of `n` u64 keys (default 10^9)
//! at p = 1%, keys generated on the fly, on all of rayon's threads.
//!
//! For each filter, in one run:
//!
//! * **build**: `par_insert_iter` over the keys (`distinct_keys(0, n)`, generated as they are
//!   consumed, two chunks of 2^20 in memory), wall time, and the peak resident memory of
//!   the process during the build (`VmHWM`, reset before through `/proc/self/clear_refs`),
//!   against the filter's size;
//! * **queries**: `contains_batch` on one core and `par_contains_batch` on all, over 10^7
//!   present keys (drawn at random from the inserted ones) and 10^7 absent ones, wall ns
//!   per key, best of three; the false-positive rate seen on the absent keys;
//! * **the memory probe** of the same size in the same run: a random 64-byte line read per
//!   key, in prefetched bursts (`MemoryProbe::read_batched`), the floor of a query that
//!   touches one line per key; each batch time is also given as a multiple of it;
//! * **files**: `write_to` a file in the directory given (default the system's temporary
//!   directory), then the filter dropped and `read_from` that file, each with its wall time
//!   and the peak resident memory during it;
//! * **the view**: the file mapped with `memmap2` (page-aligned, so the payload is on a
//!   64-byte boundary), the zero-copy view's open time, its `verify` (which makes every page
//!   resident), and its batch and single-key queries against the owned filter's on the same
//!   present keys.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin scale -- [--n N] [--only blocked|classic] [--dir DIR]
//! ```
//!
//! Prints one Markdown table row per filter and measurement. Needs about 2.6 times the
//! filter's size in memory (the filter, the probe, the query keys), 3.2 GB at 10^9 keys.

use std::hint::black_box;
use std::time::Instant;

use bloom_blocked::{BlockedBloomFilter, BlockedBloomFilterRef};
use bloom_classic::{BloomFilter, BloomFilterRef};
use bloom_compare::design::best_ns;
use bloom_compare::probe::MemoryProbe;
use bloom_core::keys::{SplitMix64, distinct_keys, mix};

/// Present and absent keys queried per filter.
const QUERIES: usize = 10_000_000;
/// The target false-positive rate.
const FPR: f64 = 0.01;
/// Absent keys start here: `distinct_keys` never reaches it from 0 below 2^63 keys.
const ABSENT_START: u64 = 1 << 63;

/// The process's peak resident memory since the last [`reset_peak_rss`], in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

/// Resets the peak resident memory to the current one (Linux: `5` to `clear_refs`).
fn reset_peak_rss() {
    std::fs::write("/proc/self/clear_refs", "5").expect("writing /proc/self/clear_refs");
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// What the run needs of a filter type.
trait Subject: Sized + Sync {
    const NAME: &'static str;
    fn build(n: u64) -> Self;
    fn bytes(&self) -> usize;
    fn batch(&self, keys: &[u64]) -> Vec<bool>;
    fn par_batch(&self, keys: &[u64]) -> Vec<bool>;
    fn write(&self, w: std::fs::File) -> Result<(), bloom_core::Error>;
    fn read(r: std::fs::File) -> Result<Self, bloom_core::Error>;
    /// Present answers of `contains` over `keys`, one key at a time.
    fn count(&self, keys: &[u64]) -> usize;
    /// The zero-copy view over `bytes` (the filter's `to_bytes`), opened.
    fn open_view(bytes: &[u8]) -> Result<(), bloom_core::Error>;
    /// The view over `bytes`' `verify`.
    fn verify_view(bytes: &[u8]) -> Result<(), bloom_core::Error>;
    /// The view over `bytes`' `contains_batch`.
    fn view_batch(bytes: &[u8], keys: &[u64]) -> Vec<bool>;
    /// The view over `bytes`' present answers of `contains`, one key at a time.
    fn view_count(bytes: &[u8], keys: &[u64]) -> usize;
}

/// The [`Subject`] impl of a filter type with the workspace's common methods.
macro_rules! subject {
    ($filter:ident, $view:ident) => {
        impl Subject for $filter {
            const NAME: &'static str = stringify!($filter);
            fn build(n: u64) -> Self {
                let mut f = $filter::new(n, FPR).expect("valid parameters");
                f.par_insert_iter(distinct_keys(0, n));
                f
            }
            fn bytes(&self) -> usize {
                self.memory_usage()
            }
            fn batch(&self, keys: &[u64]) -> Vec<bool> {
                self.contains_batch(keys)
            }
            fn par_batch(&self, keys: &[u64]) -> Vec<bool> {
                self.par_contains_batch(keys)
            }
            fn write(&self, w: std::fs::File) -> Result<(), bloom_core::Error> {
                self.write_to(std::io::BufWriter::new(w))
            }
            fn read(r: std::fs::File) -> Result<Self, bloom_core::Error> {
                $filter::read_from(r)
            }
            fn count(&self, keys: &[u64]) -> usize {
                keys.iter().filter(|k| self.contains(*k)).count()
            }
            fn open_view(bytes: &[u8]) -> Result<(), bloom_core::Error> {
                black_box($view::from_bytes(bytes)?);
                Ok(())
            }
            fn verify_view(bytes: &[u8]) -> Result<(), bloom_core::Error> {
                $view::from_bytes(bytes)?.verify()
            }
            fn view_batch(bytes: &[u8], keys: &[u64]) -> Vec<bool> {
                $view::from_bytes(bytes)
                    .expect("opened before")
                    .contains_batch(keys)
            }
            fn view_count(bytes: &[u8], keys: &[u64]) -> usize {
                let view = $view::from_bytes(bytes).expect("opened before");
                keys.iter().filter(|k| view.contains(*k)).count()
            }
        }
    };
}

subject!(BlockedBloomFilter, BlockedBloomFilterRef);
subject!(BloomFilter, BloomFilterRef);

fn run<F: Subject>(n: u64, dir: &std::path::Path) {
    let name = F::NAME;
    reset_peak_rss();
    let base = peak_rss();
    let start = Instant::now();
    let filter = F::build(n);
    let build_s = start.elapsed().as_secs_f64();
    let build_peak = peak_rss().saturating_sub(base);
    let bytes = filter.bytes() as u64;
    println!(
        "| {name} | build | {build_s:.1} s | filter {:.2} GiB, peak RSS during build {:.2} GiB ({:.2}x) |",
        gib(bytes),
        gib(build_peak),
        build_peak as f64 / bytes as f64
    );

    let queries = QUERIES.min(n as usize);
    let mut pick = SplitMix64(2);
    let present: Vec<u64> = (0..queries).map(|_| mix(pick.below(n))).collect();
    let absent: Vec<u64> = distinct_keys(ABSENT_START, queries as u64).collect();
    let probe = MemoryProbe::new(bytes as usize, 3);
    let probe_ns = best_ns(queries, || probe.read_batched(&present));
    let threads = rayon::current_num_threads();
    for (set, keys) in [("present", &present), ("absent", &absent)] {
        let one = best_ns(queries, || {
            filter.batch(keys).iter().filter(|&&b| b).count()
        });
        let all = best_ns(queries, || {
            filter.par_batch(keys).iter().filter(|&&b| b).count()
        });
        let hits = filter.batch(keys).iter().filter(|&&b| b).count();
        if set == "present" {
            assert_eq!(hits, queries, "{name}: a false negative");
        }
        println!(
            "| {name} | {set} keys | batch {one:.2} ns ({:.2}x probe {probe_ns:.2} ns) | {threads} threads {all:.2} ns ({:.2}x one core) | answered present {:.4}% |",
            one / probe_ns,
            one / all,
            hits as f64 * 100.0 / queries as f64
        );
    }
    drop(probe);
    drop((present, absent));

    let path = dir.join(format!("bloom-scale-{}.bin", std::process::id()));
    reset_peak_rss();
    let base = peak_rss();
    let start = Instant::now();
    filter
        .write(std::fs::File::create(&path).expect("create the file"))
        .expect("write_to");
    let write_s = start.elapsed().as_secs_f64();
    let write_peak = peak_rss().saturating_sub(base);
    drop(filter);
    reset_peak_rss();
    let base = peak_rss();
    let start = Instant::now();
    let read = F::read(std::fs::File::open(&path).expect("open the file")).expect("read_from");
    let read_s = start.elapsed().as_secs_f64();
    let read_peak = peak_rss().saturating_sub(base);
    println!(
        "| {name} | files | write_to {write_s:.1} s, peak RSS added {:.3} GiB | read_from {read_s:.1} s, peak RSS added {:.2} GiB ({:.2}x the filter) |",
        gib(write_peak),
        gib(read_peak),
        read_peak as f64 / bytes as f64
    );
    view_run(&read, n, &path);
    let _ = std::fs::remove_file(&path);
}

/// The zero-copy view over the file `path` (written from `owned`), mapped with `memmap2`:
/// the time to open it (header only), to `verify` it (every page read, so all are resident
/// after), and its queries against the owned filter's on the same present keys, best of
/// three each, single keys and batches.
fn view_run<F: Subject>(owned: &F, n: u64, path: &std::path::Path) {
    let name = F::NAME;
    let file = std::fs::File::open(path).expect("open the file");
    // SAFETY: the file is this process's own and nothing writes it while it is mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("map the file");
    let start = Instant::now();
    F::open_view(&map).expect("open the view");
    let open_us = start.elapsed().as_secs_f64() * 1e6;
    let start = Instant::now();
    F::verify_view(&map).expect("the file's checksum");
    let verify_s = start.elapsed().as_secs_f64();
    let queries = QUERIES.min(n as usize);
    let mut pick = SplitMix64(3);
    let keys: Vec<u64> = (0..queries).map(|_| mix(pick.below(n))).collect();
    assert_eq!(
        F::view_batch(&map, &keys),
        owned.batch(&keys),
        "{name}: view answers"
    );
    let batch = best_ns(queries, || {
        owned.batch(&keys).iter().filter(|&&b| b).count()
    });
    let view_batch = best_ns(queries, || {
        F::view_batch(&map, &keys).iter().filter(|&&b| b).count()
    });
    let single = best_ns(queries, || owned.count(&keys));
    let view_single = best_ns(queries, || F::view_count(&map, &keys));
    println!(
        "| {name} | view of the mapped file | open {open_us:.1} us, verify {verify_s:.2} s | batch {view_batch:.2} ns ({:.3}x owned {batch:.2} ns) | single {view_single:.2} ns ({:.3}x owned {single:.2} ns) |",
        view_batch / batch,
        view_single / single
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let n = value("--n")
        .map(|v| v.parse::<f64>().expect("--n takes a number") as u64)
        .unwrap_or(1_000_000_000);
    let only = value("--only");
    let dir = value("--dir")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    println!("| filter | what | figure | | |");
    println!("|---|---|---|---|---|");
    if only.as_deref().is_none_or(|o| o == "blocked") {
        run::<BlockedBloomFilter>(n, &dir);
    }
    if only.as_deref().is_none_or(|o| o == "classic") {
        run::<BloomFilter>(n, &dir);
    }
}
