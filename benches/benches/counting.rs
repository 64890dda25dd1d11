//! `CountingBloomFilter` against `fastbloom-rs`'s 4-bit `CountingBloomFilter`, and its batch
//! query against the classic `BloomFilter`'s single-key query, on u64 keys at n = 1 million
//! and 10 million, p = 1%.
//!
//! Each filter is loaded with n keys, then measured on 100,000 operations with present keys
//! (inserted ones) and absent keys (a disjoint set). Inserts and removals are undone after
//! each timed round, outside the timing, so every round sees a filter holding n keys.
//! `fastbloom-rs` takes keys as bytes and hashes them itself (two XXH3-64 calls); it accepts
//! no other hasher, so each filter pays for its own hashing here.
//!
//! The setup also prints the measured false-positive rate of each filter on a million
//! absent keys.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloom_benches::u64_keys;
use bloom_classic::BloomFilter;
use bloom_counting::CountingBloomFilter;
use criterion::{BenchmarkId, Criterion, Throughput};
use fastbloom_rs::{Deletable, FilterBuilder, Membership};

const SIZES: [usize; 2] = [1_000_000, 10_000_000];
const FPR: f64 = 0.01;
/// Operations per timed round.
const QUERIES: usize = 100_000;
/// Absent keys the false-positive rates are measured on.
const FPR_NEGATIVES: usize = 1_000_000;

pub(crate) fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

type Peer = fastbloom_rs::CountingBloomFilter;

fn peer_for(n: usize) -> Peer {
    FilterBuilder::new(n as u64, FPR).build_counting_bloom_filter()
}

/// The n present keys, and absent keys that no filter holds: the absent set excludes the few
/// keys either counting filter reports present (false positives), because removing one of
/// those from `fastbloom-rs` would decrement other keys' counters and change the filter
/// between rounds.
struct Loaded {
    present: Vec<u64>,
    absent: Vec<u64>,
    ours: CountingBloomFilter,
    peer: Peer,
}

fn load(n: usize) -> Loaded {
    let present = u64_keys(n, 1);
    let mut ours = CountingBloomFilter::new(n, FPR).unwrap();
    ours.insert_all(&present);
    let mut peer = peer_for(n);
    for k in &present {
        peer.add(&k.to_le_bytes());
    }
    let absent = u64_keys(QUERIES * 11 / 10, 2)
        .into_iter()
        .filter(|k| !ours.contains(k) && !peer.contains(&k.to_le_bytes()))
        .take(QUERIES)
        .collect();
    Loaded {
        present,
        absent,
        ours,
        peer,
    }
}

/// Times `op` over `iters` rounds, running `undo` after each round outside the timing.
fn timed_rounds<S>(
    state: &mut S,
    iters: u64,
    mut op: impl FnMut(&mut S),
    mut undo: impl FnMut(&mut S),
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        op(state);
        total += start.elapsed();
        undo(state);
    }
    total
}

fn print_fpr(n: usize, l: &Loaded, classic: &BloomFilter) {
    let negatives = u64_keys(FPR_NEGATIVES, 3);
    let rate = |hits: usize| hits as f64 / negatives.len() as f64;
    let ours = rate(
        l.ours
            .contains_batch(&negatives)
            .iter()
            .filter(|&&b| b)
            .count(),
    );
    let theirs = rate(
        negatives
            .iter()
            .filter(|k| l.peer.contains(&k.to_le_bytes()))
            .count(),
    );
    let classic_rate = rate(
        classic
            .contains_batch(&negatives)
            .iter()
            .filter(|&&b| b)
            .count(),
    );
    eprintln!(
        "counting/fpr n={n} p={FPR}: CountingBloomFilter {ours:.5}, BloomFilter {classic_rate:.5} \
         (ratio {:.4}), fastbloom-rs counting {theirs:.5}; memory {} vs {} bytes (classic)",
        ours / classic_rate,
        l.ours.memory_usage(),
        classic.memory_usage(),
    );
}

pub(crate) fn contains(c: &mut Criterion) {
    let mut group = c.benchmark_group("counting/contains/u64");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for n in SIZES {
        let l = load(n);
        let mut classic = BloomFilter::new(n, FPR).unwrap();
        classic.insert_all(&l.present);
        print_fpr(n, &l, &classic);
        // Queries of absent keys include the false positives, as real queries do.
        let absent = u64_keys(QUERIES, 2);
        let mut buf = Vec::with_capacity(QUERIES);
        for (which, keys) in [("present", &l.present[..QUERIES]), ("absent", &absent[..])] {
            group.bench_function(
                BenchmarkId::new(format!("CountingBloomFilter/{which}"), n),
                |b| b.iter(|| black_box(keys.iter().filter(|k| l.ours.contains(*k)).count())),
            );
            group.bench_function(
                BenchmarkId::new(format!("CountingBloomFilter-batch/{which}"), n),
                |b| {
                    b.iter(|| {
                        l.ours.contains_batch_into(keys, &mut buf);
                        black_box(buf.iter().filter(|&&x| x).count())
                    })
                },
            );
            group.bench_function(BenchmarkId::new(format!("fastbloom-rs/{which}"), n), |b| {
                b.iter(|| {
                    black_box(
                        keys.iter()
                            .filter(|k| l.peer.contains(&k.to_le_bytes()))
                            .count(),
                    )
                })
            });
            group.bench_function(BenchmarkId::new(format!("BloomFilter/{which}"), n), |b| {
                b.iter(|| black_box(keys.iter().filter(|k| classic.contains(*k)).count()))
            });
        }
    }
    group.finish();
}

pub(crate) fn insert(c: &mut Criterion) {
    let mut group = c.benchmark_group("counting/insert/u64");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for n in SIZES {
        let mut l = load(n);
        let present: Vec<u64> = l.present[..QUERIES].to_vec();
        let absent = std::mem::take(&mut l.absent);
        for (which, keys) in [("present", &present), ("absent", &absent)] {
            group.bench_function(
                BenchmarkId::new(format!("CountingBloomFilter/{which}"), n),
                |b| {
                    b.iter_custom(|iters| {
                        timed_rounds(
                            &mut l.ours,
                            iters,
                            |f| {
                                for k in keys {
                                    black_box(f.insert(k));
                                }
                            },
                            |f| {
                                for k in keys {
                                    f.remove(k).unwrap();
                                }
                            },
                        )
                    })
                },
            );
            group.bench_function(BenchmarkId::new(format!("fastbloom-rs/{which}"), n), |b| {
                b.iter_custom(|iters| {
                    timed_rounds(
                        &mut l.peer,
                        iters,
                        |f| {
                            for k in keys {
                                f.add(&k.to_le_bytes());
                            }
                        },
                        |f| {
                            for k in keys {
                                f.remove(&k.to_le_bytes());
                            }
                        },
                    )
                })
            });
        }
    }
    group.finish();
}

pub(crate) fn remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("counting/remove/u64");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for n in SIZES {
        let mut l = load(n);
        let present: Vec<u64> = l.present[..QUERIES].to_vec();
        let absent = std::mem::take(&mut l.absent);
        for (which, keys) in [("present", &present), ("absent", &absent)] {
            // Removing an absent key changes nothing (it is not a false positive of either
            // filter), so only removals of present keys need undoing.
            let undo = which == "present";
            group.bench_function(
                BenchmarkId::new(format!("CountingBloomFilter/{which}"), n),
                |b| {
                    b.iter_custom(|iters| {
                        timed_rounds(
                            &mut l.ours,
                            iters,
                            |f| {
                                for k in keys {
                                    let _ = black_box(f.remove(k));
                                }
                            },
                            |f| {
                                if undo {
                                    f.insert_all(keys);
                                }
                            },
                        )
                    })
                },
            );
            group.bench_function(BenchmarkId::new(format!("fastbloom-rs/{which}"), n), |b| {
                b.iter_custom(|iters| {
                    timed_rounds(
                        &mut l.peer,
                        iters,
                        |f| {
                            for k in keys {
                                f.remove(&k.to_le_bytes());
                            }
                        },
                        |f| {
                            if undo {
                                for k in keys {
                                    f.add(&k.to_le_bytes());
                                }
                            }
                        },
                    )
                })
            });
        }
        // The rounds restored every filter: check it, so a fast wrong answer never wins.
        assert!(l.present.iter().all(|k| l.ours.contains(k)));
        assert!(l.present.iter().all(|k| l.peer.contains(&k.to_le_bytes())));
    }
    group.finish();
}
