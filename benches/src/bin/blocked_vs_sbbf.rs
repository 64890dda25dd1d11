//! `BlockedBloomFilter::contains` and `contains_batch` against `sbbf-rs-safe` 0.3 fed
//! XXH3-64 of the key's 8 little-endian bytes (what its users write) on u64 keys at p = 1%,
//! measured so that the ratios survive a noisy shared machine, with a floor for the in-cache
//! case. `MultiblockBloomFilter` is measured beside it, single and batch, on the same keys.
//! Each portable test is timed against its filter's own kernel: the blocked layout's (seven
//! salted multiplies per key) and the multiblock layout's (bit-fields, no multiply).
//! Parquet's `SplitBlockBloomFilter` is measured three times: on the peer's own hashes
//! computed in the loop (`contains_hash`, the same work as the peer's), on the same hashes
//! computed beforehand (against the peer's `contains_hash` on them: the filters' own work,
//! the hash left out of both), and on the keys with Parquet's hash (`contains`, XXH64 of the
//! 8 bytes).
//!
//! For each n, both filters are built from the same keys, `sbbf-rs-safe` with the same
//! memory. The queries (present keys, then keys never inserted; at most 1,000,000 of each)
//! are cut into chunks of 10,000 and timed by [`chunked_ratios`]: each round, a pass over
//! the chunks for each candidate and one for `sbbf-rs-safe`, each after an untimed pass of
//! its own, in an order that alternates from round to round. The time is the thread's CPU
//! time. Printed per n and key set: the median ns per query over the chunks,
//! and the medians over the chunks of each candidate's time divided by `sbbf-rs-safe`'s on
//! the same chunk (below 1 means faster than `sbbf-rs-safe`).
//!
//! The **floor** is the least any query of a 512-bit blocked filter keyed by the
//! workspace's hash can do: hash the key, pick the block, read one word of the block and test
//! one bit chosen by a multiple of the hash (its answers are not a filter's; it reads a
//! buffer of the filter's size). A real query tests k bits, and so can only cost more.
//!
//! The **line read** is the physical limit of the batch query: one random cache-line read per
//! key in a buffer of the filter's size ([`MemoryProbe`]), in
//! bursts of [`BLOCKED_BURST`] keys prefetched before they are
//! read, the pattern of `contains_batch` on a filter larger than a cache share. Its column is
//! the median over the chunks of the batch's ratio to `sbbf-rs-safe` divided by the line
//! read's ratio on the same chunk.
//!
//! With 1,000,000 queries per key set, a chunk is queried again only after all the others
//! (at 10 million keys, about 250 MB of other lines through the cache), so a filter larger
//! than the cache is measured as one, not as the few megabytes a reused query set touches.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin blocked_vs_sbbf [n ...]
//! ```

use bloom_benches::{
    BLOCKED_BURST, PROBE_SEED, QueryKeys, chunked_ratios, cpu_ns_per_key, median, sizes_from_args,
};
use bloom_blocked::{BlockedBloomFilter, MultiblockBloomFilter, Probe, SplitBlockBloomFilter};
use bloom_compare::probe::MemoryProbe;
use bloom_core::internal::reduce;
use xxhash_rust::xxh3::xxh3_64;

/// Times each chunk is timed, per candidate.
const ROUNDS: usize = 5;
/// Queries per timed chunk.
const CHUNK: usize = 10_000;
/// Most queries per key set.
const MAX_QUERIES: usize = 1_000_000;
/// The target false-positive rate.
const FPR: f64 = 0.01;

/// The hash `sbbf-rs-safe` is fed: XXH3-64 of the key's 8 little-endian bytes, what its
/// users write.
#[inline(always)]
fn peer_hash(key: &u64) -> u64 {
    xxh3_64(&key.to_le_bytes())
}

fn main() {
    let sizes = sizes_from_args(&[100_000, 10_000_000]);
    println!(
        "| n | keys | kernel | ours ns | sbbf-rs-safe ns | ours / sbbf | batch / sbbf | portable / ours | multiblock / sbbf | multiblock batch / sbbf | split-block hash / sbbf | split-block pre-hashed / sbbf pre-hashed | split-block u64 / sbbf | floor / sbbf | batch / line read | multiblock portable / multiblock |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let key_sets = QueryKeys::new(n, MAX_QUERIES);
        let present = &key_sets.present;
        let mut ours = BlockedBloomFilter::new(n as u64, FPR).expect("valid parameters");
        ours.insert_all(present);
        let mut multi = MultiblockBloomFilter::new(n as u64, FPR).expect("valid parameters");
        multi.insert_all(present);
        let portable = ours
            .clone()
            .with_probe(Probe::Portable)
            .expect("the portable probe runs everywhere");
        let multi_portable = multi
            .clone()
            .with_probe(Probe::Portable)
            .expect("the portable probe runs everywhere");
        let bits_per_key = (ours.num_bits() as usize).div_ceil(n);
        let mut peer = sbbf_rs_safe::Filter::new(bits_per_key, n);
        for k in present {
            peer.insert_hash(peer_hash(k));
        }
        // Parquet's split-block filter on the same hashes, sized like the peer (Parquet
        // rounds to a power of two bytes, so it may hold up to twice the memory).
        let mut split = SplitBlockBloomFilter::with_num_bytes(ours.num_bits() as usize / 8);
        for k in present {
            split.insert_hash(peer_hash(k));
        }
        let blocks = ours.num_blocks();
        let buffer = vec![0x5555_5555_5555_5555u64; blocks * 8];
        let floor = |k: &u64| {
            let h = ours.hash(k);
            let g = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let block = reduce(h, blocks as u64) as usize;
            buffer[block * 8 + (g & 7) as usize] >> (g >> 58) & 1 != 0
        };
        let probe = MemoryProbe::new(ours.num_bits() as usize / 8, PROBE_SEED);
        for (which, keys) in key_sets.sets() {
            // The peer's hashes of the queries, computed before any timing, for the
            // pre-hashed pair; a chunk's hashes are found by its offset in `keys`.
            let hashed: Vec<u64> = keys.iter().map(peer_hash).collect();
            let hashes_of = |chunk: &[u64]| {
                let at = (chunk.as_ptr() as usize - keys.as_ptr() as usize) / 8;
                &hashed[at..at + chunk.len()]
            };
            if which == "present" {
                assert!(keys.iter().all(|k| ours.contains(k)
                    && peer.contains_hash(peer_hash(k))
                    && split.contains_hash(peer_hash(k))));
            }
            let mut buf = Vec::with_capacity(CHUNK);
            let mut run = |which: usize, chunk: &[u64]| match which {
                0 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| ours.contains(*k)).count()),
                1 => cpu_ns_per_key(chunk, |c| {
                    c.iter()
                        .filter(|k| peer.contains_hash(peer_hash(k)))
                        .count()
                }),
                2 => cpu_ns_per_key(chunk, |c| {
                    ours.contains_batch_into(c, &mut buf);
                    buf.iter().filter(|&&x| x).count()
                }),
                3 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| floor(k)).count()),
                5 => cpu_ns_per_key(chunk, |c| {
                    c.iter().filter(|k| portable.contains(*k)).count()
                }),
                6 => cpu_ns_per_key(chunk, |c| {
                    c.iter()
                        .filter(|k| split.contains_hash(peer_hash(k)))
                        .count()
                }),
                7 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| split.contains(*k)).count()),
                8 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| multi.contains(*k)).count()),
                9 => cpu_ns_per_key(chunk, |c| {
                    multi.contains_batch_into(c, &mut buf);
                    buf.iter().filter(|&&x| x).count()
                }),
                10 => cpu_ns_per_key(chunk, |c| {
                    c.iter().filter(|k| multi_portable.contains(*k)).count()
                }),
                11 => cpu_ns_per_key(hashes_of(chunk), |c| {
                    c.iter().filter(|&&h| peer.contains_hash(h)).count()
                }),
                12 => cpu_ns_per_key(hashes_of(chunk), |c| {
                    c.iter().filter(|&&h| split.contains_hash(h)).count()
                }),
                _ => cpu_ns_per_key(chunk, |c| probe.read_bursts::<BLOCKED_BURST>(c)),
            };
            let t = chunked_ratios(
                keys,
                CHUNK,
                ROUNDS,
                &[0, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                1,
                &mut run,
            );
            let pre_hashed = chunked_ratios(keys, CHUNK, ROUNDS, &[12], 11, &mut run);
            let to_line_read = median(
                t.ratios[2]
                    .iter()
                    .zip(&t.ratios[4])
                    .map(|(batch, read)| batch / read)
                    .collect(),
            );
            let portable_to_ours = t.median_ratio(5) / t.median_ratio(0);
            let multi_portable_to_multi = t.median_ratio(10) / t.median_ratio(8);
            println!(
                "| {n} | {which} | {:?} | {:.2} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
                ours.probe(),
                t.median_time(0),
                t.median_time(1),
                t.median_ratio(0),
                t.median_ratio(2),
                portable_to_ours,
                t.median_ratio(8),
                t.median_ratio(9),
                t.median_ratio(6),
                pre_hashed.median_ratio(12),
                t.median_ratio(7),
                t.median_ratio(3),
                to_line_read,
                multi_portable_to_multi
            );
        }
    }
}
