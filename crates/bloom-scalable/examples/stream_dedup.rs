//! Deduplicating a stream whose size is not known in advance.
//!
//! A log pipeline drops repeated events (retries, replays, at-least-once delivery) before
//! they reach an expensive sink. How many distinct events a day brings is anyone's guess:
//! a quiet day has ten thousand, an incident a hundred times more. A classic filter sized
//! for the guess fills up and starts dropping nearly every new event as a "repeat"; one
//! sized for the worst case wastes memory every quiet day. A scalable filter starts at the
//! guess and grows, keeping its false-positive rate (new events wrongly dropped) at the
//! target.
//!
//! This example streams events (a third of them repeats) through a scalable filter that
//! starts at 10,000 keys, and through a classic filter sized for the same 10,000, and prints
//! how each fares, checked against an exact `HashSet`.
//!
//! ```text
//! cargo run --release -p bloom-scalable --example stream_dedup [distinct_events] [fpr]
//! ```

use std::collections::HashSet;

use bloom_classic::BloomFilter;
// The workspace's seeded generator, so every run sees the same stream.
use bloom_core::keys::RepeatStream;
use bloom_scalable::ScalableBloomFilter;

/// The event with identity `id`, as a pipeline would key it.
fn event_key(id: u64) -> String {
    format!("order-service/{:08x}/payment-captured", id)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let distinct: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let fpr: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0.01);
    let guess = 10_000;

    let mut scalable = ScalableBloomFilter::new(guess, fpr)?;
    let mut classic = BloomFilter::new(guess, fpr)?;
    let mut exact: HashSet<u64> = HashSet::new();

    // A third of the events are repeats.
    let mut ids = RepeatStream::new(4, 3);
    let mut total = 0u64;
    let (mut dropped_new, mut classic_dropped_new, mut passed_repeats) = (0u64, 0u64, 0u64);
    let mut next_report = guess;
    println!("distinct events  layers  memory (KiB)  estimated FPR");
    while ids.num_new() < distinct {
        let id = ids.next_id();
        total += 1;
        let key = event_key(id);
        let is_repeat = !exact.insert(id);
        let scalable_says_repeat = scalable.insert(key.as_str())?;
        let classic_says_repeat = classic.insert(key.as_str());
        if is_repeat {
            passed_repeats += u64::from(!scalable_says_repeat);
        } else {
            dropped_new += u64::from(scalable_says_repeat);
            classic_dropped_new += u64::from(classic_says_repeat);
        }
        if ids.num_new() == next_report && !is_repeat {
            println!(
                "{next_report:>15}  {:>6}  {:>12.1}  {:>12.4}%",
                scalable.num_layers(),
                scalable.memory_usage() as f64 / 1024.0,
                100.0 * scalable.estimated_fpr()
            );
            next_report *= 10;
        }
    }

    println!();
    println!("events streamed: {total} ({distinct} distinct)");
    println!(
        "scalable filter: {} layers, {:.1} KiB ({:.2} bytes per event), \
         new events dropped as repeats: {dropped_new} = {:.3}% (target {:.3}%)",
        scalable.num_layers(),
        scalable.memory_usage() as f64 / 1024.0,
        scalable.memory_usage() as f64 / distinct as f64,
        100.0 * dropped_new as f64 / distinct as f64,
        100.0 * fpr
    );
    println!(
        "classic filter sized for the guess of {guess}: {:.1} KiB, \
         new events dropped as repeats: {classic_dropped_new} = {:.1}%",
        classic.memory_usage() as f64 / 1024.0,
        100.0 * classic_dropped_new as f64 / distinct as f64
    );
    // The rate while streaming averages over a filter that was growing; the final filter's
    // rate is measured on events it has never seen.
    let probes = 1_000_000u64;
    let fp = (distinct..distinct + probes)
        .filter(|&id| scalable.contains(event_key(id).as_str()))
        .count();
    println!(
        "final scalable filter against {probes} never-seen events: {:.3}% false positives \
         (estimated from its fill: {:.3}%)",
        100.0 * fp as f64 / probes as f64,
        100.0 * scalable.estimated_fpr()
    );
    println!("repeats let through (false negatives): {passed_repeats}");
    if passed_repeats > 0 {
        return Err("a Bloom filter must never forget an event".into());
    }
    Ok(())
}
