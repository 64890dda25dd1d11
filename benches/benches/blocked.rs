//! The blocked filters against `sbbf-rs-safe` (Parquet's split-block layout, AVX2), fed the
//! same XXH3 hash, and against the memory probe (one random cache-line read in a buffer of the
//! filter's size), all on the same u64 keys in one run.
//!
//! ```text
//! cargo bench -p bloom-benches -- blocked/
//! ```

use std::hint::black_box;
use std::time::Duration;

use bloom_benches::{BLOCKED_BURST, PROBE_SEED, u64_keys};
use bloom_blocked::{AtomicBlockedBloomFilter, BlockedBloomFilter, Probe, SplitBlockBloomFilter};
use bloom_compare::probe::MemoryProbe;
use bloom_core::hash::{DEFAULT_SEED, hash_key};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};

const FPR: f64 = 0.01;
/// Queries per measured iteration.
const QUERIES: usize = 100_000;

pub(crate) fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

/// The hash `sbbf-rs-safe` is fed: the workspace's own XXH3 (low 64 bits), so both pay the
/// same hash per key.
#[inline(always)]
fn peer_hash(key: &u64) -> u64 {
    hash_key(key, DEFAULT_SEED) as u64
}

/// `sbbf-rs-safe` with the same memory as `ours` (its size is bits per key times keys).
fn peer_for(ours: &BlockedBloomFilter, n: usize) -> sbbf_rs_safe::Filter {
    let bits_per_key = (ours.num_bits() as usize).div_ceil(n);
    sbbf_rs_safe::Filter::new(bits_per_key, n)
}

/// Windows of `QUERIES` keys the large-filter benches rotate through: one iteration queries
/// one window, the next iteration the next one.
const WINDOWS: usize = 10;

/// Consecutive windows of a pool of keys, one per call of [`Rotation::next`], wrapping
/// around. With ten windows, a window's cache lines have had 900,000 other keys' lines
/// (about 58 MB) pass through the cache since it was last queried, so a 10-million-key filter
/// is measured as a filter far beyond every cache level is used. A single window reused by
/// every iteration would touch the same 100,000 lines (6.4 MB) again and again, and most would
/// stay in this machine's 8 MB last-level cache.
struct Rotation<'a> {
    pool: &'a [u64],
    window: usize,
    next: std::cell::Cell<usize>,
}

impl<'a> Rotation<'a> {
    fn new(pool: &'a [u64], window: usize) -> Self {
        Rotation {
            pool,
            window,
            next: std::cell::Cell::new(0),
        }
    }

    fn next(&self) -> &'a [u64] {
        let i = self.next.get();
        self.next.set((i + 1) % (self.pool.len() / self.window));
        &self.pool[i * self.window..(i + 1) * self.window]
    }
}

pub(crate) fn contains(c: &mut Criterion) {
    for n in [100_000usize, 10_000_000] {
        let present = u64_keys(n, 1);
        let q = QUERIES.min(n);
        // Filters in cache are queried on one window; large ones rotate through ten.
        let windows = if n > QUERIES { WINDOWS } else { 1 };
        let absent = u64_keys(q * windows, 2);
        let mut ours = BlockedBloomFilter::new(n as u64, FPR).unwrap();
        ours.insert_all(&present);
        let portable = ours.clone().with_probe(Probe::Portable).unwrap();
        let mut peer = peer_for(&ours, n);
        for k in &present {
            peer.insert_hash(peer_hash(k));
        }
        let probe = MemoryProbe::new(ours.num_bits() as usize / 8, PROBE_SEED);
        let mut group = c.benchmark_group(format!("blocked/contains/{n}"));
        group.throughput(Throughput::Elements(q as u64));
        let mut buf = Vec::with_capacity(q);
        for (which, pool) in [
            ("present", &present[..q * windows]),
            ("absent", &absent[..]),
        ] {
            let keys = Rotation::new(pool, q);
            group.bench_function(BenchmarkId::new("BlockedBloomFilter", which), |b| {
                b.iter(|| black_box(keys.next().iter().filter(|k| ours.contains(*k)).count()))
            });
            let keys = Rotation::new(pool, q);
            group.bench_function(
                BenchmarkId::new("BlockedBloomFilter-portable", which),
                |b| {
                    b.iter(|| {
                        black_box(keys.next().iter().filter(|k| portable.contains(*k)).count())
                    })
                },
            );
            let keys = Rotation::new(pool, q);
            group.bench_function(BenchmarkId::new("BlockedBloomFilter-batch", which), |b| {
                b.iter(|| {
                    ours.contains_batch_into(keys.next(), &mut buf);
                    black_box(buf.iter().filter(|&&x| x).count())
                })
            });
            let keys = Rotation::new(pool, q);
            group.bench_function(BenchmarkId::new("sbbf-rs-safe", which), |b| {
                b.iter(|| {
                    black_box(
                        keys.next()
                            .iter()
                            .filter(|k| peer.contains_hash(peer_hash(k)))
                            .count(),
                    )
                })
            });
        }
        // The physical limit, on the same keys, in the same run.
        let keys = Rotation::new(&absent, q);
        group.bench_function(BenchmarkId::new("memory-probe", "single"), |b| {
            b.iter(|| black_box(probe.read_each(keys.next())))
        });
        let keys = Rotation::new(&absent, q);
        group.bench_function(BenchmarkId::new("memory-probe", "batch"), |b| {
            b.iter(|| black_box(probe.read_batched(keys.next())))
        });
        let keys = Rotation::new(&absent, q);
        group.bench_function(BenchmarkId::new("memory-probe", "burst"), |b| {
            b.iter(|| black_box(probe.read_bursts::<BLOCKED_BURST>(keys.next())))
        });
        let keys = Rotation::new(&absent, q);
        group.bench_function(BenchmarkId::new("memory-probe", "pipelined"), |b| {
            b.iter(|| black_box(probe.read_pipelined(keys.next())))
        });
        group.finish();
    }
}

pub(crate) fn split_block(c: &mut Criterion) {
    for n in [100_000usize, 10_000_000] {
        let present = u64_keys(n, 1);
        let hashes: Vec<u64> = present.iter().take(QUERIES).map(peer_hash).collect();
        let absent: Vec<u64> = u64_keys(QUERIES, 2).iter().map(peer_hash).collect();
        let mut ours = SplitBlockBloomFilter::new(n as u64, FPR).unwrap();
        let bits_per_key = (ours.num_bytes() * 8).div_ceil(n);
        let mut peer = sbbf_rs_safe::Filter::new(bits_per_key, n);
        for k in &present {
            ours.insert_hash(peer_hash(k));
            peer.insert_hash(peer_hash(k));
        }
        let mut group = c.benchmark_group(format!("blocked/split-block-contains-hash/{n}"));
        group.throughput(Throughput::Elements(QUERIES as u64));
        for (which, hs) in [("present", &hashes), ("absent", &absent)] {
            group.bench_function(BenchmarkId::new("SplitBlockBloomFilter", which), |b| {
                b.iter(|| black_box(hs.iter().filter(|&&h| ours.contains_hash(h)).count()))
            });
            group.bench_function(BenchmarkId::new("sbbf-rs-safe", which), |b| {
                b.iter(|| black_box(hs.iter().filter(|&&h| peer.contains_hash(h)).count()))
            });
        }
        group.finish();
    }
}

pub(crate) fn insert(c: &mut Criterion) {
    let n = 1_000_000;
    let keys = u64_keys(n, 1);
    let mut group = c.benchmark_group("blocked/insert/1000000");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("BlockedBloomFilter", |b| {
        b.iter_batched_ref(
            || BlockedBloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("sbbf-rs-safe", |b| {
        b.iter_batched_ref(
            || sbbf_rs_safe::Filter::new(10, n),
            |f| {
                for k in &keys {
                    f.insert_hash(peer_hash(k));
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

pub(crate) fn parallel_build(c: &mut Criterion) {
    let n = 10_000_000;
    let keys = u64_keys(n, 1);
    let mut group = c.benchmark_group("blocked/build-10M");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.bench_function("sequential", |b| {
        b.iter_batched_ref(
            || BlockedBloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("rayon", |b| {
        b.iter_batched_ref(
            || BlockedBloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.par_insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("atomic-rayon", |b| {
        b.iter_batched_ref(
            || AtomicBlockedBloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.par_insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("SplitBlockBloomFilter-sequential", |b| {
        b.iter_batched_ref(
            || SplitBlockBloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}
