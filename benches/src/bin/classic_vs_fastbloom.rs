//! `BloomFilter::contains` and `contains_batch` against `fastbloom` 0.17 on u64 keys at
//! p = 1%: the ratios the classic filter's targets are stated in, measured so that they
//! survive a noisy shared machine. `fastbloom` is measured twice: fed the workspace's own
//! seeded hash (the filters' work alone, the same hash on both sides), and fed XXH3-64 of
//! the key's bytes ([`Xxh3Hasher`], what its users who want a fast hasher write, and the
//! hasher the target names).
//!
//! For each n, both filters are built from the same keys. The queries (present keys, then
//! keys never inserted) are cut into chunks of 10,000 and timed by
//! [`chunked_ratios`]: each round, a pass over the chunks for each candidate and one for
//! `fastbloom`, each after an untimed pass of its own, in an order that alternates from
//! round to round, so each filter is timed in the cache state its own queries make (timed
//! chunk by chunk in turn, the two filters evicted each other where both do not fit the L2
//! cache). The time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), so time the
//! scheduler gives to other processes is not counted. Printed per n and key set: the median
//! ns per query over the chunks, and the median over the chunks of our time divided by
//! `fastbloom`'s on the same chunk (below 1 means we are faster), against each of its two
//! hashers. A branch-free pair-wise query (every pair tested, no early exit) is timed
//! alongside, the alternative `BitStore::all_set` was chosen over.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin classic_vs_fastbloom [n ...]
//! ```

use bloom_benches::{
    QueryKeys, Xxh3Hasher, chunked_ratios, cpu_ns_per_key, peer_hasher, sizes_from_args,
};
use bloom_classic::BloomFilter;
use bloom_core::hash::BuildKeyHasher;
use bloom_core::internal::Probes;

/// Times each chunk is timed, per candidate.
const ROUNDS: usize = 7;
/// Queries per timed chunk.
const CHUNK: usize = 10_000;
/// Most queries per key set.
const MAX_QUERIES: usize = 1_000_000;
/// The target false-positive rate.
const FPR: f64 = 0.01;

type Fastbloom = fastbloom::BloomFilter<BuildKeyHasher>;
type FastbloomXxh3 = fastbloom::BloomFilter<Xxh3Hasher>;

/// The pair-wise query without early exit: every pair's two words shifted, all folded.
fn branch_free(f: &BloomFilter, key: &u64) -> bool {
    let words = f.bits().as_words();
    let shifted = |pos: u64| words[(pos >> 6) as usize] >> (pos & 63);
    Probes::new(f.hash(key), f.num_hashes(), f.num_bits())
        .pairs()
        .fold(1, |all, (p, q)| all & shifted(p) & shifted(q))
        & 1
        != 0
}

fn main() {
    let sizes = sizes_from_args(&[100_000, 1_000_000, 10_000_000]);
    println!(
        "| n | keys | ours ns | fastbloom ns | ours / fastbloom | branch-free / fastbloom | batch / fastbloom | fastbloom (XXH3-64) ns | ours / fastbloom (XXH3-64) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let key_sets = QueryKeys::new(n, MAX_QUERIES);
        let present = &key_sets.present;
        let mut ours = BloomFilter::new(n as u64, FPR).expect("valid parameters");
        ours.insert_all(present);
        let mut peer: Fastbloom = fastbloom::BloomFilter::with_false_pos(FPR)
            .hasher(peer_hasher())
            .expected_items(n);
        let mut peer_xxh3: FastbloomXxh3 = fastbloom::BloomFilter::with_false_pos(FPR)
            .hasher(Xxh3Hasher)
            .expected_items(n);
        for k in present {
            peer.insert(k);
            peer_xxh3.insert(k);
        }
        for (which, keys) in key_sets.sets() {
            // The answers agree before anything is timed (fastbloom's false positives may
            // differ from ours, so only present keys must match exactly).
            if which == "present" {
                assert!(
                    keys.iter()
                        .all(|k| ours.contains(k) && peer.contains(k) && peer_xxh3.contains(k))
                );
            }
            assert!(
                keys.iter()
                    .all(|k| ours.contains(k) == branch_free(&ours, k))
            );
            let mut buf = Vec::with_capacity(CHUNK);
            let mut run = |which: usize, chunk: &[u64]| match which {
                0 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| ours.contains(*k)).count()),
                1 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| peer.contains(*k)).count()),
                2 => cpu_ns_per_key(chunk, |c| {
                    c.iter().filter(|k| branch_free(&ours, k)).count()
                }),
                4 => cpu_ns_per_key(chunk, |c| {
                    c.iter().filter(|k| peer_xxh3.contains(*k)).count()
                }),
                _ => cpu_ns_per_key(chunk, |c| {
                    ours.contains_batch_into(c, &mut buf);
                    buf.iter().filter(|&&x| x).count()
                }),
            };
            let t = chunked_ratios(keys, CHUNK, ROUNDS, &[0, 2, 3], 1, &mut run);
            let xxh3 = chunked_ratios(keys, CHUNK, ROUNDS, &[0], 4, &mut run);
            println!(
                "| {n} | {which} | {:.1} | {:.1} | {:.3} | {:.3} | {:.3} | {:.1} | {:.3} |",
                t.median_time(0),
                t.median_time(1),
                t.median_ratio(0),
                t.median_ratio(2),
                t.median_ratio(3),
                xxh3.median_time(4),
                xxh3.median_ratio(0)
            );
        }
    }
}
