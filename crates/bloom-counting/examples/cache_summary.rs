//! A cache that admits and evicts keys, and a counting filter that tracks what it holds.
//!
//! This is the setting counting Bloom filters were made for (Fan, Cao, Almeida, Broder,
//! "Summary Cache", 2000): a group of caches that ask one another for objects. Asking a peer
//! that does not hold the object wastes a round trip, so each cache publishes a summary of
//! its contents, and peers ask only when the summary says "possibly". The cache's contents
//! change with every miss (a key is admitted, the least recently used one evicted), so the
//! owner keeps a counting filter in step with them, inserting on admission and removing on
//! eviction, and ships its quarter-size classic copy (`to_bloom_filter`) to the peers.
//!
//! The example runs a skewed request stream through an LRU cache, publishes a summary every
//! so often, and checks each one: every cached key must be in it (no false negatives), and
//! keys that are not cached should pass at about the target rate. Beside it runs what a
//! classic filter can do without deletes: remember every key ever admitted, which keeps
//! evicted keys forever and sends more and more useless requests.
//!
//! ```text
//! cargo run --release -p bloom-counting --example cache_summary [capacity] [requests]
//! ```

use std::collections::{BTreeMap, HashMap};

use bloom_core::keys::SplitMix64;
use bloom_counting::{BloomFilter, CountingBloomFilter};

/// A uniform number in [0, 1) from the top 53 bits of the next value. (The generator is
/// the workspace's own, so every run sees the same requests.)
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A least-recently-used cache of object ids (the objects themselves do not matter here).
struct LruCache {
    capacity: usize,
    clock: u64,
    last_use: HashMap<u64, u64>,
    by_age: BTreeMap<u64, u64>,
}

impl LruCache {
    fn new(capacity: usize) -> Self {
        LruCache {
            capacity,
            clock: 0,
            last_use: HashMap::with_capacity(capacity + 1),
            by_age: BTreeMap::new(),
        }
    }

    fn len(&self) -> usize {
        self.last_use.len()
    }

    fn contains(&self, key: u64) -> bool {
        self.last_use.contains_key(&key)
    }

    /// Touches `key` if cached and returns true; otherwise admits it and returns false, with
    /// the key evicted to make room, if any.
    fn request(&mut self, key: u64, evicted: &mut Option<u64>) -> bool {
        self.clock += 1;
        *evicted = None;
        if let Some(stamp) = self.last_use.insert(key, self.clock) {
            self.by_age.remove(&stamp);
            self.by_age.insert(self.clock, key);
            return true;
        }
        self.by_age.insert(self.clock, key);
        if self.last_use.len() > self.capacity {
            let (_, oldest) = self.by_age.pop_first().expect("cache is not empty");
            self.last_use.remove(&oldest);
            *evicted = Some(oldest);
        }
        false
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let capacity: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let requests: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(5_000_000);
    let universe = capacity as f64 * 20.0;
    let fpr = 0.01;

    let mut cache = LruCache::new(capacity);
    // The cache holds `capacity` objects in memory (a `usize`); the filters count keys (`u64`).
    let mut contents = CountingBloomFilter::new(capacity as u64, fpr)?;
    // What a filter without deletes can track: every key ever admitted.
    let mut ever_admitted = BloomFilter::new(capacity as u64, fpr)?;
    let mut rng = SplitMix64(2000);
    let mut probe_rng = SplitMix64(7);
    let mut evicted = None;
    let mut hits = 0u64;
    let publish_every = requests / 5;

    println!(
        "LRU cache of {capacity} objects, {requests} requests over {universe} objects (skewed)"
    );
    println!(
        "counting filter: {} KiB; the summary it publishes: {} KiB",
        contents.memory_usage() / 1024,
        contents.to_bloom_filter().memory_usage() / 1024
    );
    println!();
    println!(
        "{:>10} {:>9} {:>10} {:>13} {:>15} {:>17} {:>10}",
        "requests",
        "hit rate",
        "cached",
        "est. cached",
        "summary FPR",
        "no-delete FPR",
        "saturated"
    );
    for i in 1..=requests {
        // Cubing a uniform number skews requests towards small ids: popular objects.
        let key = (unit(&mut rng).powi(3) * universe) as u64;
        if cache.request(key, &mut evicted) {
            hits += 1;
        } else {
            contents.insert(&key);
            ever_admitted.insert(&key);
            if let Some(old) = evicted {
                // Every evicted key was admitted once: its removal cannot fail. Should it
                // report `Saturated` (counters shared by 15 cached keys), `old` stays in the
                // summary: a useless request later, never a missed object. The "saturated"
                // column shows whether any counter ever stuck.
                let _ = contents.remove(&old)?;
            }
        }
        if i % publish_every == 0 {
            let summary = contents.to_bloom_filter();
            // Every cached object must be in the summary: a peer would otherwise miss it.
            assert!(cache.last_use.keys().all(|k| summary.contains(k)));
            // Useless requests a peer would send: summary says "possibly", cache says no.
            let (mut outside, mut passed, mut passed_no_delete) = (0u64, 0u64, 0u64);
            while outside < 200_000 {
                let k = probe_rng.next_u64() % (universe as u64);
                if cache.contains(k) {
                    continue;
                }
                outside += 1;
                passed += u64::from(summary.contains(&k));
                passed_no_delete += u64::from(ever_admitted.contains(&k));
            }
            println!(
                "{:>10} {:>8.1}% {:>10} {:>13} {:>14.3}% {:>16.3}% {:>10}",
                i,
                100.0 * hits as f64 / i as f64,
                cache.len(),
                contents.estimated_len(),
                100.0 * passed as f64 / outside as f64,
                100.0 * passed_no_delete as f64 / outside as f64,
                contents.saturated_counters(),
            );
        }
    }
    println!();
    println!(
        "target FPR {:.1}%: the counting filter's summary stays at it however long the cache \
         runs; a filter without deletes fills up with evicted keys.",
        100.0 * fpr
    );
    Ok(())
}
