//! What keyed hashing costs: `contains` of a keyed `BloomFilter` and `BlockedBloomFilter`
//! (SipHash-1-3 under a secret key) against the same filter with the default seeded hash,
//! built from the same u64 keys at p = 1%, queried with the same keys in one run.
//!
//! The queries (present keys, then keys never inserted) are cut into chunks of 10,000 and
//! timed by [`chunked_ratios`]: each round, a pass over the chunks for the keyed filter and
//! one for the seeded one, each after an untimed pass of its own, in an order that
//! alternates from round to round, in thread CPU time. Printed per variant, n and key set:
//! the median ns per query of both, and the median over the chunks of the keyed time divided
//! by the seeded time on the same chunk (the figure the keyed-hashing target bounds at 1.3
//! for n = 1M); the batch query's ratio the same way. The first rows time the
//! hash alone: `Hashing::hash64` key by key, and `hash64_batch` (SIMD lanes for the keyed
//! scheme).
//!
//! ```text
//! cargo run --release -p bloom-benches --bin keyed_cost [n ...]
//! ```

use bloom_benches::{ChunkTimes, QueryKeys, chunked_ratios, cpu_ns_per_key, sizes_from_args};
use bloom_blocked::BlockedBloomFilter;
use bloom_classic::BloomFilter;
use bloom_core::Keyed;
use bloom_core::hash::{Hashing, SecretKey};

/// Times each chunk is timed, per candidate.
const ROUNDS: usize = 7;
/// Queries per timed chunk.
const CHUNK: usize = 10_000;
/// Most queries per key set.
const MAX_QUERIES: usize = 1_000_000;
/// The target false-positive rate.
const FPR: f64 = 0.01;
/// The secret key of the keyed filters (any 16 bytes do).
const KEY: [u8; 16] = *b"keyed-cost bench";

/// Prints one table row per key set for a seeded and a keyed filter of one type: the single
/// queries timed against each other, then the batch queries. Each arm is its own loop, so
/// both sides inline their filter's query alike.
macro_rules! report {
    ($name:expr, $n:expr, $seeded:expr, $keyed:expr, $sets:expr) => {
        for (set, queries) in $sets {
            let (seeded, keyed) = (&$seeded, &$keyed);
            let t = chunked_ratios(queries, CHUNK, ROUNDS, &[1], 0, |c, chunk| match c {
                0 => cpu_ns_per_key(chunk, |ks| {
                    ks.iter().filter(|k| seeded.contains(*k)).count()
                }),
                _ => cpu_ns_per_key(chunk, |ks| ks.iter().filter(|k| keyed.contains(*k)).count()),
            });
            let b = chunked_ratios(queries, CHUNK, ROUNDS, &[1], 0, |c, chunk| match c {
                0 => cpu_ns_per_key(chunk, |ks| {
                    seeded.contains_batch(ks).iter().filter(|&&x| x).count()
                }),
                _ => cpu_ns_per_key(chunk, |ks| {
                    keyed.contains_batch(ks).iter().filter(|&&x| x).count()
                }),
            });
            print_row($name, $n, set, &t, &b);
        }
    };
}

/// One table row: the seeded (candidate 0) and keyed (1) medians of `single` and `batch`.
fn print_row(name: &str, n: usize, set: &str, single: &ChunkTimes, batch: &ChunkTimes) {
    println!(
        "| {name} | {n} | {set} | {:.2} | {:.2} | {:.3} | {:.2} | {:.2} | {:.3} |",
        single.median_time(0),
        single.median_time(1),
        single.median_ratio(1),
        batch.median_time(0),
        batch.median_time(1),
        batch.median_ratio(1),
    );
}

fn main() {
    let sizes = sizes_from_args(&[10_000, 1_000_000]);
    println!(
        "| filter | n | keys | seeded ns | keyed ns | keyed / seeded | seeded batch ns | keyed batch ns | keyed / seeded batch |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let key_sets = QueryKeys::new(n, MAX_QUERIES);
        let (present, sets) = (&key_sets.present, key_sets.sets());

        // The hash alone: the digest's low word folded, so none is optimised away.
        let (seeded, keyed) = (
            Hashing::default(),
            Hashing::Keyed(SecretKey::from_bytes(KEY)),
        );
        for (set, queries) in sets {
            let t = chunked_ratios(queries, CHUNK, ROUNDS, &[1], 0, |c, chunk| {
                let h = if c == 0 { seeded } else { keyed };
                cpu_ns_per_key(chunk, |ks| {
                    ks.iter().fold(0u64, |acc, k| acc ^ h.hash64(k)) as usize
                })
            });
            let mut hashes = Vec::new();
            let b = chunked_ratios(queries, CHUNK, ROUNDS, &[1], 0, |c, chunk| {
                let h = if c == 0 { seeded } else { keyed };
                cpu_ns_per_key(chunk, |ks| {
                    h.hash64_batch(ks, &mut hashes);
                    hashes.iter().fold(0u64, |acc, &x| acc ^ x) as usize
                })
            });
            print_row("hash64 alone", n, set, &t, &b);
        }

        let mut seeded = BloomFilter::new(n as u64, FPR).expect("valid parameters");
        let mut keyed = seeded.clone().with_key(KEY);
        seeded.insert_all(present);
        keyed.insert_all(present);
        report!("BloomFilter", n, seeded, keyed, sets);

        let mut seeded = BlockedBloomFilter::new(n as u64, FPR).expect("valid parameters");
        let mut keyed = seeded.clone().with_key(KEY);
        seeded.insert_all(present);
        keyed.insert_all(present);
        report!("BlockedBloomFilter", n, seeded, keyed, sets);
    }
}
