//! A crawler's "seen this URL?" check.
//!
//! A crawler pulls URLs off a frontier; many are links it has already fetched. Keeping every
//! URL in a `HashSet<String>` costs about a hundred bytes per URL; a Bloom filter at 1% costs
//! 1.2 bytes, and its one failure mode is benign: a new URL wrongly reported as seen is
//! skipped (1% of new pages are missed), while a seen URL is never fetched twice.
//!
//! This example streams a few million synthetic URLs (with repeats) through both, and prints
//! the memory of each and the false-positive rate the filter actually had.
//!
//! ```text
//! cargo run --release -p bloom-classic --example url_dedup [distinct_urls] [fpr]
//! ```

use std::collections::HashSet;

use bloom_classic::BloomFilter;
// The workspace's seeded generator, so every run sees the same URLs.
use bloom_core::keys::RepeatStream;

const HOSTS: [&str; 8] = [
    "news", "shop", "blog", "docs", "forum", "wiki", "static", "api",
];
const SECTIONS: [&str; 6] = [
    "articles",
    "products",
    "posts",
    "reference",
    "threads",
    "pages",
];

/// The URL with identity `id`: the same id always gives the same URL, different ids give
/// different URLs.
fn url(id: u64) -> String {
    let host = HOSTS[(id % 8) as usize];
    let section = SECTIONS[((id / 8) % 6) as usize];
    format!(
        "https://{host}.example-{}.com/{section}/{}?ref=crawl&page={}",
        id % 997,
        id,
        id % 31
    )
}

/// Heap bytes of a `HashSet<String>`: hashbrown keeps one control byte per bucket plus the
/// `String` headers, and each string owns its buffer.
fn hash_set_bytes(set: &HashSet<String>) -> usize {
    let buckets = (set.capacity() * 8 / 7).next_power_of_two();
    buckets * (std::mem::size_of::<String>() + 1) + set.iter().map(String::capacity).sum::<usize>()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let distinct: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(3_000_000);
    let fpr: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0.01);

    let mut filter = BloomFilter::new(distinct, fpr)?;
    let mut exact: HashSet<String> = HashSet::new();

    // A frontier of `distinct` new URLs interleaved with links to pages seen earlier: every
    // third URL is a repeat.
    let mut ids = RepeatStream::new(2026, 3);
    let mut total = 0u64;
    let (mut new_urls, mut false_positives, mut false_negatives) = (0u64, 0u64, 0u64);
    while ids.num_new() < distinct {
        let id = ids.next_id();
        let u = url(id);
        total += 1;
        let filter_says_seen = filter.insert(u.as_str());
        let really_seen = !exact.insert(u);
        if !really_seen {
            new_urls += 1;
            false_positives += u64::from(filter_says_seen);
        } else {
            false_negatives += u64::from(!filter_says_seen);
        }
    }

    let filter_bytes = filter.memory_usage();
    let set_bytes = hash_set_bytes(&exact);
    println!("URLs streamed:        {total} ({new_urls} distinct)");
    println!(
        "BloomFilter:          {:.1} MiB ({:.2} bytes per URL, k = {}, target FPR {fpr})",
        filter_bytes as f64 / 1_048_576.0,
        filter_bytes as f64 / new_urls as f64,
        filter.num_hashes()
    );
    println!(
        "HashSet<String>:      {:.1} MiB ({:.1} bytes per URL), {:.0}x the filter",
        set_bytes as f64 / 1_048_576.0,
        set_bytes as f64 / new_urls as f64,
        set_bytes as f64 / filter_bytes as f64
    );
    println!(
        "new URLs reported seen while streaming: {false_positives} = {:.3}% \
         (the filter's estimate at its final fill: {:.3}%)",
        100.0 * false_positives as f64 / new_urls as f64,
        100.0 * filter.estimated_fpr()
    );
    println!("seen URLs reported new (false negatives): {false_negatives}");
    // The rate above averages over a filter that was filling up; the full filter's rate is
    // measured on URLs it has never seen.
    let probes = 1_000_000u64;
    let full_fp = (distinct..distinct + probes)
        .filter(|&id| filter.contains(url(id).as_str()))
        .count();
    println!(
        "full filter against {probes} never-seen URLs: {:.3}% false positives (target {:.3}%)",
        100.0 * full_fp as f64 / probes as f64,
        100.0 * fpr
    );
    println!(
        "distinct URLs estimated from the fill: {}",
        filter.estimated_len()
    );
    if false_negatives > 0 {
        return Err("a Bloom filter must never forget a URL".into());
    }
    Ok(())
}
