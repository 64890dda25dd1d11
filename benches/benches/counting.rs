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
//! absent keys, and `counting/interleaved` prints the same comparisons measured in
//! alternating rounds (see [`interleaved`]), the robust ratios on a shared machine, with a
//! floor line: the time to load a present key's counters without testing them, the least any
//! single-key query with these positions can cost.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloom_benches::{in_turn, median, u64_keys};
use bloom_classic::BloomFilter;
use bloom_core::internal::Probes;
use bloom_counting::CountingBloomFilter;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};
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
    let mut ours = CountingBloomFilter::new(n as u64, FPR).unwrap();
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

/// A timed operation on one filter over a key set, and what undoes it outside the timing
/// (told whether the keys are the present ones).
struct Undone<F> {
    op: fn(&mut F, &[u64]),
    undo: fn(&mut F, &[u64], bool),
}

/// Benchmarks `ours` on the counting filter and `peer` on `fastbloom-rs`'s in the group
/// `name`, at every size, with present and with absent keys; then checks that the rounds,
/// undone, left every present key in both filters, so a fast wrong answer never wins.
fn bench_undone(
    c: &mut Criterion,
    name: &str,
    ours: Undone<CountingBloomFilter>,
    peer: Undone<Peer>,
) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(QUERIES as u64));
    for n in SIZES {
        let mut l = load(n);
        let present: Vec<u64> = l.present[..QUERIES].to_vec();
        let absent = std::mem::take(&mut l.absent);
        for (which, keys) in [("present", &present), ("absent", &absent)] {
            let id = |filter: &str| BenchmarkId::new(format!("{filter}/{which}"), n);
            let is_present = which == "present";
            rounds(
                &mut group,
                id("CountingBloomFilter"),
                &mut l.ours,
                keys,
                is_present,
                &ours,
            );
            rounds(
                &mut group,
                id("fastbloom-rs"),
                &mut l.peer,
                keys,
                is_present,
                &peer,
            );
        }
        assert!(l.present.iter().all(|k| l.ours.contains(k)));
        assert!(l.present.iter().all(|k| l.peer.contains(&k.to_le_bytes())));
    }
    group.finish();
}

/// Benchmarks `ops` on `filter` over `keys` as `id`: each round of the operation is timed,
/// then undone outside the timing, so every round starts from the same filter.
fn rounds<F>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    filter: &mut F,
    keys: &[u64],
    present: bool,
    ops: &Undone<F>,
) {
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                (ops.op)(filter, keys);
                total += start.elapsed();
                (ops.undo)(filter, keys, present);
            }
            total
        })
    });
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
        let mut classic = BloomFilter::new(n as u64, FPR).unwrap();
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
    bench_undone(
        c,
        "counting/insert/u64",
        Undone {
            op: |f, keys| {
                for k in keys {
                    black_box(f.insert(k));
                }
            },
            // The outcome of undoing is not measured.
            undo: |f, keys, _| {
                for k in keys {
                    let _ = f.remove(k).unwrap();
                }
            },
        },
        Undone {
            op: |f, keys| {
                for k in keys {
                    f.add(&k.to_le_bytes());
                }
            },
            undo: |f, keys, _| {
                for k in keys {
                    f.remove(&k.to_le_bytes());
                }
            },
        },
    );
}

/// Removing an absent key changes nothing (it is not a false positive of either filter), so
/// only removals of present keys are undone.
pub(crate) fn remove(c: &mut Criterion) {
    bench_undone(
        c,
        "counting/remove/u64",
        Undone {
            op: |f, keys| {
                for k in keys {
                    let _ = black_box(f.remove(k));
                }
            },
            undo: |f, keys, present| {
                if present {
                    f.insert_all(keys);
                }
            },
        },
        Undone {
            op: |f, keys| {
                for k in keys {
                    f.remove(&k.to_le_bytes());
                }
            },
            undo: |f, keys, present| {
                if present {
                    for k in keys {
                        f.add(&k.to_le_bytes());
                    }
                }
            },
        },
    );
}

/// Nanoseconds per key of `op` over `keys`, then `undo` outside the timing.
fn per_key<S>(
    state: &mut S,
    keys: &[u64],
    op: impl Fn(&mut S, &u64),
    undo: impl Fn(&mut S, &u64),
) -> f64 {
    let start = Instant::now();
    for k in keys {
        op(state, k);
    }
    let elapsed = start.elapsed();
    for k in keys {
        undo(state, k);
    }
    elapsed.as_nanos() as f64 / keys.len() as f64
}

/// The ratios of the groups above, measured interleaved: each round times every operation
/// of every filter once (100,000 keys each, the filters' order alternating from round to
/// round), so all see the same machine load, and the median over 15 rounds of each
/// per-round ratio is printed. The criterion groups above time each function on its own,
/// seconds apart; on a machine shared with other jobs that moves their ratios by tens of
/// percent.
///
/// Runs when criterion's filter (if any) is a substring of `counting/interleaved`.
pub(crate) fn interleaved(_c: &mut Criterion) {
    const ROUNDS: usize = 15;
    const NAME: &str = "counting/interleaved";
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| NAME.contains(f.as_str())) {
        return;
    }
    for n in SIZES {
        let mut l = load(n);
        let mut classic = BloomFilter::new(n as u64, FPR).unwrap();
        classic.insert_all(&l.present);
        let present: Vec<u64> = l.present[..QUERIES].to_vec();
        let absent_all = u64_keys(QUERIES, 2);
        let absent = std::mem::take(&mut l.absent);
        let mut buf = Vec::with_capacity(QUERIES);
        // (name, ours, peer) per round; the batch/classic comparison as a fourth kind.
        let mut rows: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
        for round in 0..ROUNDS {
            let mut results: Vec<(String, f64, f64)> = Vec::new();
            let peer_first = round % 2 == 1;
            for (which, keys) in [("present", &present[..]), ("absent", &absent_all[..])] {
                let ours = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| {
                            black_box(l.ours.contains(k));
                        },
                        |_, _| {},
                    )
                };
                let peer = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| {
                            black_box(l.peer.contains(&k.to_le_bytes()));
                        },
                        |_, _| {},
                    )
                };
                let (o, p) = in_turn(&mut l, peer_first, ours, peer);
                results.push((format!("contains {which}"), o, p));
                if which == "present" {
                    // The floor of any query of a present key with these positions: load each
                    // of its counters, test nothing (the answers are not used). The peer's
                    // `contains` divided by this bounds the ratio `contains` can reach.
                    let floor = |l: &mut Loaded| {
                        per_key(
                            l,
                            keys,
                            |l, k| {
                                let f = &l.ours;
                                let probes =
                                    Probes::new(f.hash(k), f.num_hashes(), f.num_counters());
                                let any = probes
                                    .into_iter()
                                    .fold(0u8, |a, pos| a | f.counter(pos).unwrap_or(0));
                                black_box(any);
                            },
                            |_, _| {},
                        )
                    };
                    let (o, p) = in_turn(&mut l, peer_first, floor, peer);
                    results.push((
                        "floor: counters loaded, untested, present".to_string(),
                        o,
                        p,
                    ));
                }
                // The batch query against the classic filter's single-key query.
                let mut batch = || {
                    let start = Instant::now();
                    l.ours.contains_batch_into(keys, &mut buf);
                    black_box(&buf);
                    start.elapsed().as_nanos() as f64 / keys.len() as f64
                };
                let single = || {
                    let start = Instant::now();
                    for k in keys {
                        black_box(classic.contains(k));
                    }
                    start.elapsed().as_nanos() as f64 / keys.len() as f64
                };
                let (b, s) = in_turn(&mut (), peer_first, |_| batch(), |_| single());
                results.push((format!("batch vs classic {which}"), b, s));
            }
            for (which, keys) in [("present", &present), ("absent", &absent)] {
                let ours_insert = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| {
                            black_box(l.ours.insert(k));
                        },
                        |l, k| {
                            let _ = l.ours.remove(k).unwrap();
                        },
                    )
                };
                let peer_insert = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| l.peer.add(&k.to_le_bytes()),
                        |l, k| l.peer.remove(&k.to_le_bytes()),
                    )
                };
                let (o, p) = in_turn(&mut l, peer_first, ours_insert, peer_insert);
                results.push((format!("insert {which}"), o, p));
                let undo = which == "present";
                let ours_remove = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| {
                            let _ = black_box(l.ours.remove(k));
                        },
                        |l, k| {
                            if undo {
                                l.ours.insert(k);
                            }
                        },
                    )
                };
                let peer_remove = |l: &mut Loaded| {
                    per_key(
                        l,
                        keys,
                        |l, k| l.peer.remove(&k.to_le_bytes()),
                        |l, k| {
                            if undo {
                                l.peer.add(&k.to_le_bytes());
                            }
                        },
                    )
                };
                let (o, p) = in_turn(&mut l, peer_first, ours_remove, peer_remove);
                results.push((format!("remove {which}"), o, p));
            }
            for (i, (name, o, p)) in results.into_iter().enumerate() {
                if round == 0 {
                    rows.push((name, Vec::new(), Vec::new()));
                }
                rows[i].1.push(o);
                rows[i].2.push(p);
            }
        }
        for (name, ours, other) in rows {
            let ratios: Vec<f64> = ours.iter().zip(&other).map(|(o, p)| p / o).collect();
            let against = if name.starts_with("batch") {
                "BloomFilter single"
            } else {
                "fastbloom-rs"
            };
            eprintln!(
                "counting/interleaved n={n} {name}: CountingBloomFilter {:.1} ns, {against} {:.1} ns, \
                 ratio {:.2}x (median of {ROUNDS} rounds; min {:.2}x, max {:.2}x)",
                median(ours),
                median(other),
                median(ratios.clone()),
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(0.0, f64::max),
            );
        }
        assert!(l.present.iter().all(|k| l.ours.contains(k)));
        assert!(l.present.iter().all(|k| l.peer.contains(&k.to_le_bytes())));
    }
}
