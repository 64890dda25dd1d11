//! `ScalableBloomFilter` against `growable-bloom-filter` 2.x, both grown from n0 = 100,000
//! to 10 million u64 keys at P = 1%, with a classic filter sized for the final 10 million as
//! the reference.
//!
//! Before the timings, the same run prints the figures that are not times: the measured
//! false-positive rate of each grown filter (on keys never inserted) and the memory of the
//! scalable filter against the classic one.
//!
//! `scalable/contains-10M` also times `contains_batch`, and the query `contains` used before
//! the pair-by-pair early exit (each layer probe by probe, bounds-checked), rebuilt here from
//! the filter's public parts, so before and after are compared in one run.
//!
//! The group measures the thread's CPU time (`ThreadCpuTime`), not wall time: on a machine
//! shared with other builds and benchmarks, time the scheduler gives to other processes
//! would otherwise land at random in one filter's samples and not another's.
//!
//! ```text
//! cargo bench -p bloom-benches --bench main -- scalable/
//! ```

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use bloom_benches::{thread_cpu_ns, u64_keys};
use bloom_classic::BloomFilter;
use bloom_core::internal::{Probes, test_bit};
use bloom_scalable::ScalableBloomFilter;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use growable_bloom_filter::GrowableBloom;

const INITIAL: usize = 100_000;
const FINAL: usize = 10_000_000;
const FPR: f64 = 0.01;
/// Queries per measured iteration.
const QUERIES: usize = 100_000;
/// Keys never inserted, for the false-positive rates: about 10,000 false positives at 1%,
/// a standard deviation of 1% of the rate.
const NEGATIVES: usize = 1_000_000;

pub(crate) fn config() -> Criterion<ThreadCpuTime> {
    Criterion::default()
        .with_measurement(ThreadCpuTime)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

/// Criterion measurement of the benchmarking thread's CPU time
/// ([`thread_cpu_ns`]), printed like wall time.
pub(crate) struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }

    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(thread_cpu_ns().saturating_sub(start))
    }

    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, like wall time.
        static WALL_TIME: WallTime = WallTime;
        WALL_TIME.formatter()
    }
}

/// The three filters holding the same 10 million keys, built once per run.
struct Grown {
    present: Vec<u64>,
    absent: Vec<u64>,
    ours: ScalableBloomFilter,
    peer: GrowableBloom,
    classic: BloomFilter,
}

fn grown() -> &'static Grown {
    static GROWN: OnceLock<Grown> = OnceLock::new();
    GROWN.get_or_init(|| {
        let present = u64_keys(FINAL, 1);
        let absent = u64_keys(NEGATIVES, 2);
        let mut ours = ScalableBloomFilter::new(INITIAL as u64, FPR).expect("valid parameters");
        ours.insert_all(&present).expect("no cap set");
        let mut peer = GrowableBloom::new(FPR, INITIAL);
        for k in &present {
            peer.insert(k);
        }
        let mut classic = BloomFilter::new(FINAL as u64, FPR).expect("valid parameters");
        classic.insert_all(&present);
        assert!(present.iter().step_by(101).all(|k| ours.contains(k)));
        let rate = |hits: usize| 100.0 * hits as f64 / NEGATIVES as f64;
        let ours_fp = absent.iter().filter(|k| ours.contains(*k)).count();
        let peer_fp = absent.iter().filter(|k| peer.contains(*k)).count();
        let classic_fp = absent.iter().filter(|k| classic.contains(*k)).count();
        println!(
            "scalable/figures: {INITIAL} -> {FINAL} u64 keys at P = {FPR}, {NEGATIVES} negatives"
        );
        println!(
            "scalable/figures: ScalableBloomFilter {} layers, measured FPR {:.4}%, \
             estimated {:.4}%, {} bytes",
            ours.num_layers(),
            rate(ours_fp),
            100.0 * ours.estimated_fpr(),
            ours.memory_usage()
        );
        println!(
            "scalable/figures: growable-bloom-filter measured FPR {:.4}%",
            rate(peer_fp)
        );
        println!(
            "scalable/figures: BloomFilter sized for {FINAL}: measured FPR {:.4}%, {} bytes; \
             scalable / classic memory = {:.3}",
            rate(classic_fp),
            classic.memory_usage(),
            ours.memory_usage() as f64 / classic.memory_usage() as f64
        );
        Grown {
            present,
            absent,
            ours,
            peer,
            classic,
        }
    })
}

/// The query of the first version of the crate, for the before/after comparison: newest
/// layer first, each layer stopping at its first zero bit, probe by probe.
fn contains_per_probe(f: &ScalableBloomFilter, key: &u64) -> bool {
    let h = f.hash(key);
    f.layers().iter().rev().any(|l| {
        let (bits, k) = (l.filter().bits(), l.filter().num_hashes());
        let words = bits.as_words();
        Probes::new(h, k, bits.len()).all(|pos| test_bit(words, pos))
    })
}

pub(crate) fn contains(c: &mut Criterion<ThreadCpuTime>) {
    let g = grown();
    let mut group = c.benchmark_group("scalable/contains-10M");
    group.throughput(Throughput::Elements(QUERIES as u64));
    // Present keys spread over every layer: a stride through the insertion order.
    let stride = FINAL / QUERIES;
    let present: Vec<u64> = g.present.iter().step_by(stride).copied().collect();
    let absent = &g.absent[..QUERIES];
    for (which, keys) in [("present", &present[..]), ("absent", absent)] {
        assert!(
            keys.iter()
                .all(|k| g.ours.contains(k) == contains_per_probe(&g.ours, k))
        );
        group.bench_function(BenchmarkId::new("ScalableBloomFilter", which), |b| {
            b.iter(|| black_box(keys.iter().filter(|k| g.ours.contains(*k)).count()))
        });
        group.bench_function(BenchmarkId::new("ScalableBloomFilter-batch", which), |b| {
            let mut out = Vec::with_capacity(keys.len());
            b.iter(|| {
                g.ours.contains_batch_into(keys, &mut out);
                black_box(out.iter().filter(|&&x| x).count())
            })
        });
        group.bench_function(BenchmarkId::new("ScalableBloomFilter-before", which), |b| {
            b.iter(|| {
                black_box(
                    keys.iter()
                        .filter(|k| contains_per_probe(&g.ours, k))
                        .count(),
                )
            })
        });
        group.bench_function(BenchmarkId::new("growable-bloom-filter", which), |b| {
            b.iter(|| black_box(keys.iter().filter(|k| g.peer.contains(*k)).count()))
        });
        group.bench_function(BenchmarkId::new("BloomFilter-10M", which), |b| {
            b.iter(|| black_box(keys.iter().filter(|k| g.classic.contains(*k)).count()))
        });
    }
    group.finish();
}

pub(crate) fn insert(c: &mut Criterion<ThreadCpuTime>) {
    // Growth from 10,000 to 1 million keys: 100x, seven layers, as above at a tenth the size.
    let n0 = INITIAL / 10;
    let n = FINAL / 10;
    let keys = u64_keys(n, 3);
    let mut group = c.benchmark_group("scalable/insert-1M");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.bench_function("ScalableBloomFilter", |b| {
        b.iter_batched_ref(
            || ScalableBloomFilter::new(n0 as u64, FPR).expect("valid parameters"),
            |f| f.insert_all(&keys).expect("no cap set"),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("growable-bloom-filter", |b| {
        b.iter_batched_ref(
            || GrowableBloom::new(FPR, n0),
            |f| {
                for k in &keys {
                    f.insert(k);
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}
