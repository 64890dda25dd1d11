//! Builds a `BlockedBloomFilter` of n keys (100 million by default, p = 1%), writes it to a
//! file with `write_to`, maps the file with `memmap2` and queries it in place through a
//! `BlockedBloomFilterRef`: no read, no copy. Prints the time to open the view (the header
//! only, so microseconds whatever the size), the time `verify` takes to read every byte
//! (which also makes the pages resident), then ns per key of `contains` and `contains_batch`
//! on the view and on the owned filter, with the same keys in the same run, once the pages
//! are resident.
//!
//! ```text
//! cargo run --release -p bloom-blocked --example mmap_view [n] [path]
//! ```
//!
//! Without a path the file goes to the system's temporary directory and is removed at the
//! end. Memory: the filter (about 1.25 bytes per key) plus its mapped file.

use std::fs::File;
use std::io::BufWriter;
use std::time::Instant;

use bloom_blocked::{BlockedBloomFilter, BlockedBloomFilterRef};
use bloom_core::keys::SplitMix64;

/// Keys per query set (present keys, then absent ones).
const QUERIES: usize = 1_000_000;
/// Timed passes per query and filter; the fastest is printed.
const PASSES: usize = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(Ok(100_000_000), |a| a.parse())?;
    let (path, temporary) = match args.next() {
        Some(path) => (std::path::PathBuf::from(path), false),
        None => (std::env::temp_dir().join("bloom_mmap_view.blf"), true),
    };

    let start = Instant::now();
    let mut filter = BlockedBloomFilter::new(n, 0.01)?;
    // Keys generated on the fly: no vector of n keys beside the filter.
    filter.insert_all(SplitMix64(1).take(n as usize));
    println!(
        "built {} keys into {:.1} MB in {:.2} s",
        n,
        filter.num_bits() as f64 / 8e6,
        start.elapsed().as_secs_f64()
    );

    let start = Instant::now();
    filter.write_to(BufWriter::new(File::create(&path)?))?;
    println!(
        "wrote {} in {:.2} s",
        path.display(),
        start.elapsed().as_secs_f64()
    );

    let file = File::open(&path)?;
    // SAFETY: memmap2's contract: the mapping must not change while it is borrowed. This
    // process wrote the file above and nothing else writes it while the example runs. A
    // program mapping files others may truncate or rewrite must rule that out itself
    // (a truncated mapping faults on access).
    let map = unsafe { memmap2::Mmap::map(&file)? };

    let start = Instant::now();
    let view = BlockedBloomFilterRef::from_bytes(&map)?;
    let open = start.elapsed();
    println!(
        "opened the view in {:.1} us ({} blocks, k = {}, blocks read {})",
        open.as_secs_f64() * 1e6,
        view.num_blocks(),
        view.num_hashes(),
        if view.is_aligned() {
            "in place"
        } else {
            "as unaligned bytes (the map is not on a 64-byte boundary)"
        }
    );

    let start = Instant::now();
    view.verify()?;
    println!(
        "verified the checksum (every byte read, pages now resident) in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let present: Vec<u64> = SplitMix64(1).take(QUERIES.min(n as usize)).collect();
    let absent: Vec<u64> = SplitMix64(2).take(QUERIES).collect();
    for (set, keys) in [("present", &present), ("absent", &absent)] {
        let answers = view.contains_batch(keys);
        assert_eq!(
            answers,
            filter.contains_batch(keys),
            "the view answers as the filter"
        );
        let hits = answers.iter().filter(|&&a| a).count();
        println!(
            "{set} keys: {:.2}% possibly present",
            100.0 * hits as f64 / keys.len() as f64
        );
        // Alternate view and owned filter pass by pass; keep each one's fastest pass.
        let ns_per_key = |f: &dyn Fn() -> usize| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64() * 1e9 / keys.len() as f64
        };
        let mut best = [f64::INFINITY; 4];
        for _ in 0..PASSES {
            let times = [
                ns_per_key(&|| keys.iter().filter(|k| view.contains(*k)).count()),
                ns_per_key(&|| keys.iter().filter(|k| filter.contains(*k)).count()),
                ns_per_key(&|| view.contains_batch(keys).iter().filter(|&&a| a).count()),
                ns_per_key(&|| filter.contains_batch(keys).iter().filter(|&&a| a).count()),
            ];
            for (b, t) in best.iter_mut().zip(times) {
                *b = b.min(t);
            }
        }
        println!(
            "  contains:       view {:.2} ns/key, owned {:.2} ns/key ({:.2}x)",
            best[0],
            best[1],
            best[0] / best[1]
        );
        println!(
            "  contains_batch: view {:.2} ns/key, owned {:.2} ns/key ({:.2}x)",
            best[2],
            best[3],
            best[2] / best[3]
        );
    }

    drop(map);
    if temporary {
        std::fs::remove_file(&path)?;
    }
    Ok(())
}
