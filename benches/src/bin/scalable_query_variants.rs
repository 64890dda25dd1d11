//! Times ways of querying a `ScalableBloomFilter`'s layers on the filter of the benchmark
//! (100,000 to 10 million u64 keys at 1%): the evidence behind the query order and the
//! absence of prefetching described in `docs/scalable.md`.
//!
//! Each variant answers from the same precomputed hashes, through the filter's public
//! parts (its layers' words and `Probes`), in interleaved rounds; the best and the median
//! round are printed, in ns per query. `growable-bloom-filter` and the crate's own
//! `contains` (hashing included) are timed alongside.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin scalable_query_variants
//! ```

use std::hint::black_box;
use std::time::Instant;

use bloom_benches::u64_keys;
use bloom_classic::BloomFilter;
use bloom_core::bits::{prefetch, test_bit};
use bloom_core::hash::Probes;
use bloom_scalable::ScalableBloomFilter;
use growable_bloom_filter::GrowableBloom;

const ROUNDS: usize = 9;

fn probes(f: &BloomFilter, h: u128) -> Probes {
    Probes::new(h, f.num_hashes(), f.num_bits())
}

fn prefetch_probes(words: &[u64], p: Probes) {
    for pos in p {
        prefetch(&words[(pos >> 6) as usize]);
    }
}

/// Every probe tested, no branch per probe.
fn all_set(words: &[u64], p: Probes) -> bool {
    p.fold(true, |a, pos| a & test_bit(words, pos))
}

/// Stops at the first zero bit.
fn all_set_early(words: &[u64], mut p: Probes) -> bool {
    p.all(|pos| test_bit(words, pos))
}

/// Newest first, each layer stopping at its first zero bit, no prefetch.
fn plain(f: &ScalableBloomFilter, h: u128) -> bool {
    f.layers()
        .iter()
        .rev()
        .any(|l| all_set_early(l.filter().bits().as_words(), probes(l.filter(), h)))
}

/// The first two probes of every layer prefetched, then as `plain`.
fn prefetch_all_layers(f: &ScalableBloomFilter, h: u128) -> bool {
    for l in f.layers().iter().rev() {
        prefetch_probes(l.filter().bits().as_words(), probes(l.filter(), h).first(2));
    }
    plain(f, h)
}

/// As `plain`, prefetching the first two probes of the next layer while testing one.
fn prefetch_one_ahead(f: &ScalableBloomFilter, h: u128) -> bool {
    let layers = f.layers();
    if let Some(l) = layers.last() {
        prefetch_probes(l.filter().bits().as_words(), probes(l.filter(), h).first(2));
    }
    for i in (0..layers.len()).rev() {
        if i > 0 {
            let next = &layers[i - 1];
            prefetch_probes(
                next.filter().bits().as_words(),
                probes(next.filter(), h).first(2),
            );
        }
        let l = &layers[i];
        if all_set_early(l.filter().bits().as_words(), probes(l.filter(), h)) {
            return true;
        }
    }
    false
}

/// In stages: prefetch the first two probes of every layer; test them; the layers that pass
/// prefetch the rest; test those, newest first.
fn staged(f: &ScalableBloomFilter, h: u128) -> bool {
    let layers = f.layers();
    for l in layers.iter().rev() {
        prefetch_probes(l.filter().bits().as_words(), probes(l.filter(), h).first(2));
    }
    let mut alive = 0u64;
    for (i, l) in layers.iter().enumerate().rev() {
        let words = l.filter().bits().as_words();
        if all_set(words, probes(l.filter(), h).first(2)) {
            alive |= 1 << i;
            prefetch_probes(words, probes(l.filter(), h).after(2));
        }
    }
    while alive != 0 {
        let i = 63 - alive.leading_zeros() as usize;
        alive &= !(1 << i);
        let l = &layers[i];
        if all_set(l.filter().bits().as_words(), probes(l.filter(), h).after(2)) {
            return true;
        }
    }
    false
}

fn ns_per_query<T>(items: &[T], f: impl Fn(&T) -> bool) -> f64 {
    let start = Instant::now();
    black_box(items.iter().filter(|x| f(x)).count());
    start.elapsed().as_nanos() as f64 / items.len() as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let present = u64_keys(10_000_000, 1);
    let absent = u64_keys(200_000, 2);
    let mut ours = ScalableBloomFilter::new(100_000, 0.01)?;
    ours.insert_all(&present)?;
    let mut peer = GrowableBloom::new(0.01, 100_000);
    for k in &present {
        peer.insert(k);
    }
    let present: Vec<u64> = present.iter().step_by(50).copied().collect();
    for (which, keys) in [("present", &present), ("absent", &absent)] {
        let hashes: Vec<u128> = keys.iter().map(|k| ours.hash(k)).collect();
        let names = [
            "plain",
            "prefetch-all-layers",
            "prefetch-one-ahead",
            "staged",
            "ScalableBloomFilter::contains_hash",
            "ScalableBloomFilter::contains",
            "growable-bloom-filter",
        ];
        let mut runs: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
        for _ in 0..ROUNDS {
            let round = [
                ns_per_query(&hashes, |&h| plain(&ours, h)),
                ns_per_query(&hashes, |&h| prefetch_all_layers(&ours, h)),
                ns_per_query(&hashes, |&h| prefetch_one_ahead(&ours, h)),
                ns_per_query(&hashes, |&h| staged(&ours, h)),
                ns_per_query(&hashes, |&h| ours.contains_hash(h)),
                ns_per_query(keys, |k| ours.contains(k)),
                ns_per_query(keys, |k| peer.contains(k)),
            ];
            for (r, t) in runs.iter_mut().zip(round) {
                r.push(t);
            }
        }
        println!("{which} keys, ns per query (best / median of {ROUNDS} rounds):");
        for (name, r) in names.iter().zip(&mut runs) {
            r.sort_by(f64::total_cmp);
            println!("  {name:<36} {:>6.0} / {:>6.0}", r[0], r[ROUNDS / 2]);
        }
    }
    Ok(())
}
