//! `BloomFilter` and `AtomicBloomFilter` against `fastbloom`, fed the same XXH3 hash, on
//! u64, 16-byte and ~80-byte keys at n = 10 thousand, 1 million and 10 million, p = 1%.

use std::hash::Hash;
use std::hint::black_box;
use std::time::Duration;

use bloom_benches::{peer_hasher, short_string_keys, u64_keys, url_keys};
use bloom_classic::BloomFilter;
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};

const SIZES: [usize; 3] = [10_000, 1_000_000, 10_000_000];
const FPR: f64 = 0.01;
/// Queries per measured iteration (at most n). A large filter needs many distinct queries:
/// with few, the lines they touch stay in the last-level cache between iterations and the
/// benchmark measures the cache, not the filter.
const QUERIES: usize = 1_000_000;

pub(crate) fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

type Fastbloom = fastbloom::BloomFilter<bloom_core::hash::BuildKeyHasher>;

fn fastbloom_for(n: usize) -> Fastbloom {
    fastbloom::BloomFilter::with_false_pos(FPR)
        .hasher(peer_hasher())
        .expected_items(n)
}

fn kinds() -> [&'static str; 3] {
    ["u64", "str16", "url80"]
}

/// Runs `f` with `count` keys of `kind` from `seed`.
fn with_keys<R>(kind: &str, count: usize, seed: u64, f: impl FnOnce(&dyn KeySet) -> R) -> R {
    match kind {
        "u64" => f(&u64_keys(count, seed)),
        "str16" => f(&short_string_keys(count, seed)),
        _ => f(&url_keys(count, seed)),
    }
}

/// Object-safe access to a key set of any type, so one bench body serves every key kind.
trait KeySet {
    fn insert_into(&self, f: &mut BloomFilter);
    fn insert_into_peer(&self, f: &mut Fastbloom);
    fn count_in(&self, f: &BloomFilter, range: std::ops::Range<usize>) -> usize;
    fn count_in_batch(
        &self,
        f: &BloomFilter,
        range: std::ops::Range<usize>,
        buf: &mut Vec<bool>,
    ) -> usize;
    fn count_in_peer(&self, f: &Fastbloom, range: std::ops::Range<usize>) -> usize;
}

impl<T: Hash> KeySet for Vec<T> {
    fn insert_into(&self, f: &mut BloomFilter) {
        for k in self {
            f.insert(k);
        }
    }
    fn insert_into_peer(&self, f: &mut Fastbloom) {
        for k in self {
            f.insert(k);
        }
    }
    fn count_in(&self, f: &BloomFilter, range: std::ops::Range<usize>) -> usize {
        self[range].iter().filter(|k| f.contains(*k)).count()
    }
    fn count_in_batch(
        &self,
        f: &BloomFilter,
        range: std::ops::Range<usize>,
        buf: &mut Vec<bool>,
    ) -> usize {
        f.contains_batch_into(&self[range], buf);
        buf.iter().filter(|&&b| b).count()
    }
    fn count_in_peer(&self, f: &Fastbloom, range: std::ops::Range<usize>) -> usize {
        self[range].iter().filter(|k| f.contains(*k)).count()
    }
}

pub(crate) fn insert(c: &mut Criterion) {
    for kind in kinds() {
        let mut group = c.benchmark_group(format!("classic/insert/{kind}"));
        for n in SIZES {
            with_keys(kind, n, 1, |keys| {
                group.throughput(Throughput::Elements(n as u64));
                group.bench_function(BenchmarkId::new("BloomFilter", n), |b| {
                    b.iter_batched_ref(
                        || BloomFilter::new(n as u64, FPR).unwrap(),
                        |f| keys.insert_into(f),
                        BatchSize::PerIteration,
                    )
                });
                group.bench_function(BenchmarkId::new("fastbloom", n), |b| {
                    b.iter_batched_ref(
                        || fastbloom_for(n),
                        |f| keys.insert_into_peer(f),
                        BatchSize::PerIteration,
                    )
                });
            });
        }
        group.finish();
    }
}

pub(crate) fn contains(c: &mut Criterion) {
    for kind in kinds() {
        let mut group = c.benchmark_group(format!("classic/contains/{kind}"));
        for n in SIZES {
            with_keys(kind, n, 1, |present| {
                with_keys(kind, QUERIES, 2, |absent| {
                    let mut ours = BloomFilter::new(n as u64, FPR).unwrap();
                    present.insert_into(&mut ours);
                    let mut peer = fastbloom_for(n);
                    present.insert_into_peer(&mut peer);
                    let q = QUERIES.min(n);
                    group.throughput(Throughput::Elements(q as u64));
                    let mut buf = Vec::with_capacity(q);
                    for (which, keys) in [("present", present), ("absent", absent)] {
                        group.bench_function(
                            BenchmarkId::new(format!("BloomFilter/{which}"), n),
                            |b| b.iter(|| black_box(keys.count_in(&ours, 0..q))),
                        );
                        group.bench_function(
                            BenchmarkId::new(format!("BloomFilter-batch/{which}"), n),
                            |b| b.iter(|| black_box(keys.count_in_batch(&ours, 0..q, &mut buf))),
                        );
                        group.bench_function(
                            BenchmarkId::new(format!("fastbloom/{which}"), n),
                            |b| b.iter(|| black_box(keys.count_in_peer(&peer, 0..q))),
                        );
                    }
                });
            });
        }
        group.finish();
    }
}

pub(crate) fn parallel_build(c: &mut Criterion) {
    let n = 10_000_000;
    let keys = u64_keys(n, 1);
    let mut group = c.benchmark_group("classic/build-10M");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.bench_function("sequential", |b| {
        b.iter_batched_ref(
            || BloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("rayon", |b| {
        b.iter_batched_ref(
            || BloomFilter::new(n as u64, FPR).unwrap(),
            |f| f.par_insert_all(&keys),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}
