//! `contains` and `contains_batch` of every variant at the sizes given (default 100,000 and
//! 10,000,000 keys at p = 1%), in nanoseconds per key: the best of five passes over one
//! million queries of present keys (drawn at random from the inserted ones) and of absent
//! keys.
//!
//! Written for before/after comparisons of the query code: it uses only the filters'
//! public constructors, `insert`, `contains` and `contains_batch`, so the same file builds
//! against an older tree (copy it into a scratch crate whose dependencies point there; pass
//! sizes with `as _` if the constructors' count type differs). Run the two builds in
//! alternation, several times, and compare medians: on a shared 2-core machine one run of
//! a 10-million-key single query moves by a factor of two from one process to the next
//! (page placement and the host), so single runs prove nothing.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin variant_queries [N...] [--only VARIANT]
//! ```
//!
//! `blocked-p0.001` is the blocked filter at p = 0.1% (k = 10: the 16-lane kernels). The
//! `-avx2` and `-portable` variants run the blocked and multiblock filters with that
//! kernel ([`with_probe`](bloom_blocked::BlockedBloomFilter::with_probe)) where the CPU has
//! it, beside the one chosen for the CPU.
//!
//! Output: one CSV line per variant and size: `variant,n,present,absent,batch present,batch
//! absent`.

use std::hint::black_box;
use std::time::Instant;

use bloom_blocked::Probe;
use bloom_core::keys::SplitMix64;

/// The best of five passes of `f` over `queries` keys, in ns per key.
fn best_ns(queries: usize, mut f: impl FnMut() -> usize) -> f64 {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_nanos() as f64 / queries as f64
        })
        .fold(f64::MAX, f64::min)
}

/// When `wanted($name)`, builds a filter for `n` keys with `make` (a `Result`), fills it with
/// `insert`, and prints its line.
macro_rules! measure {
    ($wanted:expr, $name:expr, $n:expr, $make:expr) => {
        if $wanted($name) {
            let n: u64 = $n;
            let keys: Vec<u64> = SplitMix64(1).take(n as usize).collect();
            let queries = 1_000_000usize.min(n as usize * 4);
            let mut pick = SplitMix64(2);
            let present: Vec<u64> = (0..queries).map(|_| keys[pick.below(n) as usize]).collect();
            // Another seed: a collision with the inserted keys has probability about 2^-64.
            let absent: Vec<u64> = SplitMix64(3).take(queries).collect();
            #[allow(unused_mut)]
            let mut filter = $make.expect("a valid size");
            for key in &keys {
                let _ = filter.insert(key);
            }
            let f = &filter;
            let single = |keys: &[u64]| keys.iter().filter(|k| black_box(f).contains(*k)).count();
            let batch = |keys: &[u64]| f.contains_batch(keys).iter().filter(|&&b| b).count();
            println!(
                "{},{},{:.2},{:.2},{:.2},{:.2}",
                $name,
                n,
                best_ns(queries, || single(&present)),
                best_ns(queries, || single(&absent)),
                best_ns(queries, || batch(&present)),
                best_ns(queries, || batch(&absent)),
            );
        }
    };
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let mut sizes: Vec<u64> = args
        .iter()
        .filter_map(|a| a.replace('_', "").parse().ok())
        .collect();
    if sizes.is_empty() {
        sizes = vec![100_000, 10_000_000];
    }
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    for n in sizes {
        measure!(
            wanted,
            "classic",
            n,
            bloom_classic::BloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "atomic-classic",
            n,
            bloom_classic::AtomicBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "counting",
            n,
            bloom_counting::CountingBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "scalable",
            n,
            bloom_scalable::ScalableBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "blocked",
            n,
            bloom_blocked::BlockedBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "atomic-blocked",
            n,
            bloom_blocked::AtomicBlockedBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "multiblock",
            n,
            bloom_blocked::MultiblockBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "atomic-multiblock",
            n,
            bloom_blocked::AtomicMultiblockBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "multiblock32",
            n,
            bloom_blocked::Multiblock32BloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "atomic-multiblock32",
            n,
            bloom_blocked::AtomicMultiblock32BloomFilter::new(n, 0.01)
        );
        for (probe, name) in [
            (Probe::Avx2, "blocked-avx2"),
            (Probe::Portable, "blocked-portable"),
        ] {
            if !probe.is_available() {
                continue;
            }
            measure!(
                wanted,
                name,
                n,
                bloom_blocked::BlockedBloomFilter::new(n, 0.01).and_then(|f| f.with_probe(probe))
            );
        }
        measure!(
            wanted,
            "blocked-p0.001",
            n,
            bloom_blocked::BlockedBloomFilter::new(n, 0.001)
        );
        for (probe, name) in [
            (Probe::Avx2, "multiblock-avx2"),
            (Probe::Portable, "multiblock-portable"),
        ] {
            if !probe.is_available() {
                continue;
            }
            measure!(
                wanted,
                name,
                n,
                bloom_blocked::MultiblockBloomFilter::new(n, 0.01)
                    .and_then(|f| f.with_probe(probe))
            );
        }
        measure!(
            wanted,
            "split-block",
            n,
            bloom_blocked::SplitBlockBloomFilter::new(n, 0.01)
        );
        measure!(
            wanted,
            "atomic-split-block",
            n,
            bloom_blocked::AtomicSplitBlockBloomFilter::new(n, 0.01)
        );
    }
}
