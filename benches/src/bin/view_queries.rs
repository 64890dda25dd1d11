//! What a zero-copy view costs: `contains` and `contains_batch` of a
//! `BlockedBloomFilterRef` over the bytes of `to_bytes` against the owning
//! `BlockedBloomFilter`, built from the same u64 keys at p = 1% and queried with the same
//! keys in one run (the target: once resident, a view should query within 1.1x the owned
//! filter's time).
//!
//! The bytes are placed three ways: at the start of a 64-byte-aligned buffer, which puts the
//! payload on a 64-byte boundary (format version 3 pads the header to 64 bytes, so this is
//! what a page-aligned memory map of a file gives: the view reads the blocks in place); one
//! byte past it; and 36 bytes past it (where version 2's payload lay in such a map). Off the
//! boundary every block straddles two cache lines. Every byte is touched before
//! timing, so all pages are resident. Each placement is measured in a buffer of 4 KiB pages
//! (what a memory map of a file gets) and in one advised to use transparent huge pages (what
//! the owned filter's memory gets), so the cost of the TLB is told apart from the view's.
//!
//! Queries (present keys, then keys never inserted) are cut into chunks of 10,000 and timed
//! by [`chunked_ratios`]: each round, a pass over the chunks for a view and one for the owned
//! filter, each after an untimed pass of its own, in an order that alternates from round to
//! round, in thread CPU time. Printed per placement and key set: the median ns per key of
//! both and the median over chunks of view time / owned time on the same chunk, for the
//! single-key and the batch query. Each run first checks that the views answer as the
//! filter does.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin view_queries [n ...]
//! ```

use bloom_benches::{QueryKeys, chunked_ratios, cpu_ns_per_key, sizes_from_args};
use bloom_blocked::{BlockedBloomFilter, BlockedBloomFilterRef};

/// Times each chunk is timed, per candidate.
const ROUNDS: usize = 7;
/// Queries per timed chunk.
const CHUNK: usize = 10_000;
/// Most queries per key set.
const MAX_QUERIES: usize = 1_000_000;
/// The target false-positive rate.
const FPR: f64 = 0.01;
/// Where the blocked filter's payload starts in its frame.
const PAYLOAD_AT: usize =
    bloom_core::format::payload_offset(bloom_core::internal::SIZE_AND_HASHES_LEN);

/// A buffer holding `bytes` starting `offset` bytes past a 64-byte boundary, and the start;
/// backed by transparent huge pages where the kernel grants them when `huge`, as the owned
/// filter's memory is (the advice is given before the first touch).
fn placed(bytes: &[u8], offset: usize, huge: bool) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 128];
    if huge {
        bloom_core::internal::advise_huge_pages(&buf);
    }
    let start = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
    buf[start..start + bytes.len()].copy_from_slice(bytes);
    (buf, start)
}

fn main() {
    let sizes = sizes_from_args(&[10_000_000]);
    println!(
        "| n | placement | keys | owned ns | view ns | view / owned | owned batch ns | view batch ns | view / owned batch |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let key_sets = QueryKeys::new(n, MAX_QUERIES);
        let (present, sets) = (&key_sets.present, key_sets.sets());

        let mut filter = BlockedBloomFilter::new(n as u64, FPR).expect("valid parameters");
        filter.insert_all(present);
        let bytes = filter.to_bytes();
        let placements = [
            ("frame and payload 64-aligned", (64 - PAYLOAD_AT) % 64),
            ("payload 64-aligned + 1", (64 - PAYLOAD_AT) % 64 + 1),
            (
                "payload 64-aligned + 36 (version 2's place)",
                (64 - PAYLOAD_AT) % 64 + 36,
            ),
        ];
        for ((name, offset), huge) in placements.into_iter().flat_map(|p| [(p, false), (p, true)]) {
            let (buf, start) = placed(&bytes, offset, huge);
            let pages = if huge { "huge pages" } else { "4 KiB pages" };
            let view =
                BlockedBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).expect("view");
            let aligned =
                (offset + PAYLOAD_AT).is_multiple_of(64) && cfg!(target_endian = "little");
            assert_eq!(view.is_aligned(), aligned, "{name}");
            for (_, keys) in sets {
                assert_eq!(
                    view.contains_batch(keys),
                    filter.contains_batch(keys),
                    "{name}"
                );
            }
            let owned = &filter;
            for (set, keys) in sets {
                let t = chunked_ratios(keys, CHUNK, ROUNDS, &[1], 0, |c, chunk| match c {
                    0 => {
                        cpu_ns_per_key(chunk, |ks| ks.iter().filter(|k| owned.contains(*k)).count())
                    }
                    _ => {
                        cpu_ns_per_key(chunk, |ks| ks.iter().filter(|k| view.contains(*k)).count())
                    }
                });
                let b = chunked_ratios(keys, CHUNK, ROUNDS, &[1], 0, |c, chunk| match c {
                    0 => cpu_ns_per_key(chunk, |ks| {
                        owned.contains_batch(ks).iter().filter(|&&x| x).count()
                    }),
                    _ => cpu_ns_per_key(chunk, |ks| {
                        view.contains_batch(ks).iter().filter(|&&x| x).count()
                    }),
                });
                println!(
                    "| {n} | {name}, {pages} | {set} | {:.2} | {:.2} | {:.3} | {:.2} | {:.2} | {:.3} |",
                    t.median_time(0),
                    t.median_time(1),
                    t.median_ratio(1),
                    b.median_time(0),
                    b.median_time(1),
                    b.median_ratio(1),
                );
            }
        }
    }
}
