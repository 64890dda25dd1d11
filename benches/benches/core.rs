//! The measurements behind bloom-core's design choices (docs/design.md), kept so each choice
//! can be re-checked on another machine:
//!
//! * `core/hash`: `hash_key` through the buffering hasher against XXH3 on the raw bytes;
//! * `core/probe-sequence`: the 64-bit probe sequence against the earlier recurrence modulo
//!   m (add, compare, subtract per step);
//! * `core/probe-strategy`: early exit against branch-free probing, probe by probe and pair
//!   by pair, by filter size;
//! * `core/memory`: one random cache-line read in a buffer, with and without huge pages.

use std::hint::black_box;

use bloom_benches::u64_keys;
use bloom_classic::BloomFilter;
use bloom_core::bits::BitStore;
use bloom_core::hash::{hash_bytes, hash_key};
use bloom_core::internal::{Probes, reduce, test_bit};
use criterion::{BenchmarkId, Criterion, Throughput};

const QUERIES: usize = 100_000;

pub(crate) fn hash(c: &mut Criterion) {
    let keys = u64_keys(QUERIES, 1);
    let mut group = c.benchmark_group("core/hash");
    group.throughput(Throughput::Elements(QUERIES as u64));
    group.bench_function("hash_key-u64", |b| {
        b.iter(|| {
            keys.iter()
                .fold(0u128, |acc, k| acc ^ hash_key(black_box(k), 7))
        })
    });
    group.bench_function("xxh3-128-raw-8-bytes", |b| {
        b.iter(|| {
            keys.iter().fold(0u128, |acc, k| {
                acc ^ hash_bytes(&black_box(k).to_le_bytes(), 7)
            })
        })
    });
    group.finish();
}

/// The recurrence of Dillinger and Manolios modulo m, as first implemented.
fn modular_probes(hash: u128, k: u32, m: u64) -> impl Iterator<Item = u64> {
    let (mut x, mut y) = (reduce(hash as u64, m), reduce((hash >> 64) as u64, m));
    (0..u64::from(k)).map(move |i| {
        let p = x;
        x += y;
        if x >= m {
            x -= m;
        }
        y += i + 1;
        if y >= m {
            y -= m;
        }
        p
    })
}

fn filled(n: usize) -> (BloomFilter, Vec<u64>, Vec<u64>) {
    let present = u64_keys(n, 1);
    let mut f = BloomFilter::new(n as u64, 0.01).unwrap();
    f.insert_all(&present);
    let absent = u64_keys(QUERIES, 2);
    (f, present[..QUERIES.min(n)].to_vec(), absent)
}

pub(crate) fn probe_sequence(c: &mut Criterion) {
    let (f, present, _) = filled(100_000);
    let (k, m, hashing) = (f.num_hashes(), f.num_bits(), f.hashing());
    let words = f.bits().as_words();
    let mut group = c.benchmark_group("core/probe-sequence");
    group.throughput(Throughput::Elements(present.len() as u64));
    group.bench_function("64-bit (current)", |b| {
        b.iter(|| {
            present
                .iter()
                .filter(|key| Probes::new(hashing.hash(*key), k, m).all(|p| test_bit(words, p)))
                .count()
        })
    });
    group.bench_function("modulo m (earlier)", |b| {
        b.iter(|| {
            present
                .iter()
                .filter(|key| modular_probes(hashing.hash(*key), k, m).all(|p| test_bit(words, p)))
                .count()
        })
    });
    group.finish();
}

pub(crate) fn probe_strategy(c: &mut Criterion) {
    for n in [100_000, 1_000_000, 10_000_000] {
        let (f, present, absent) = filled(n);
        let (k, m, hashing) = (f.num_hashes(), f.num_bits(), f.hashing());
        let words = f.bits().as_words();
        let mut group = c.benchmark_group(format!("core/probe-strategy/{n}"));
        group.throughput(Throughput::Elements(QUERIES as u64));
        for (which, keys) in [("present", &present), ("absent", &absent)] {
            group.bench_function(BenchmarkId::new("early-exit", which), |b| {
                b.iter(|| {
                    keys.iter()
                        .filter(|key| {
                            Probes::new(hashing.hash(*key), k, m).all(|p| test_bit(words, p))
                        })
                        .count()
                })
            });
            group.bench_function(BenchmarkId::new("branch-free", which), |b| {
                b.iter(|| {
                    keys.iter()
                        .filter(|key| {
                            Probes::new(hashing.hash(*key), k, m)
                                .fold(true, |all, p| all & test_bit(words, p))
                        })
                        .count()
                })
            });
            // The pair-wise forms `BitStore::all_set` chose between: every pair's two words
            // shifted and combined, then either folded without a branch or tested per pair.
            let shifted = |pos: u64| words[(pos >> 6) as usize] >> (pos & 63);
            group.bench_function(BenchmarkId::new("pairs-branch-free", which), |b| {
                b.iter(|| {
                    keys.iter()
                        .filter(|key| {
                            Probes::new(hashing.hash(*key), k, m)
                                .pairs()
                                .fold(1, |all, (p, q)| all & shifted(p) & shifted(q))
                                & 1
                                != 0
                        })
                        .count()
                })
            });
            group.bench_function(BenchmarkId::new("pairs-early-exit", which), |b| {
                b.iter(|| {
                    keys.iter()
                        .filter(|key| {
                            Probes::new(hashing.hash(*key), k, m)
                                .pairs()
                                .all(|(p, q)| shifted(p) & shifted(q) & 1 != 0)
                        })
                        .count()
                })
            });
            group.bench_function(BenchmarkId::new("BloomFilter::contains", which), |b| {
                b.iter(|| keys.iter().filter(|key| f.contains(*key)).count())
            });
        }
        group.finish();
    }
}

pub(crate) fn memory(c: &mut Criterion) {
    let reads = u64_keys(QUERIES, 3);
    let mut group = c.benchmark_group("core/memory");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for mib in [12u64, 128] {
        let words = (mib << 20) / 8;
        // `BitStore::new` advises huge pages; a plain `Vec` does not.
        let mut huge = BitStore::new(words * 64).unwrap();
        huge.as_words_mut()
            .iter_mut()
            .enumerate()
            .for_each(|(i, w)| *w = i as u64);
        let small: Vec<u64> = (0..words).collect();
        let index: Vec<usize> = reads.iter().map(|&r| reduce(r, words) as usize).collect();
        group.bench_function(BenchmarkId::new("huge-pages", format!("{mib}MiB")), |b| {
            b.iter(|| index.iter().fold(0, |acc, &i| acc ^ huge.as_words()[i]))
        });
        group.bench_function(BenchmarkId::new("4KiB-pages", format!("{mib}MiB")), |b| {
            b.iter(|| index.iter().fold(0, |acc, &i| acc ^ small[i]))
        });
    }
    group.finish();
}
