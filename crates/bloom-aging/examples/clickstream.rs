//! A click-stream deduplicator with a one-hour window, driven by the events' own timestamps.
//!
//! Ad and analytics pipelines count a click once even when the browser retries, the user
//! double-clicks or a collector replays a batch; but the same user clicking the same link
//! tomorrow is a new click. So "duplicate" means "seen within the last hour", and the
//! deduplicator must forget. An exact answer keeps every (user, link) pair of the last hour
//! in a map with its time; the filter keeps a few bits per click and drops a click when it
//! says "seen within the hour".
//!
//! The example generates three hours of clicks (timestamps in milliseconds, arriving in
//! order, at a rate that rises and falls), with retries a few seconds later and repeats
//! after one to ninety minutes, and runs the filter beside the exact map. It reports how
//! many clicks each kept, and checks the filter's promise: no click repeated within the
//! hour is ever kept (no false negatives), and a few new clicks are dropped (false
//! positives, at about the target rate at most). A click repeated just after its hour may
//! still be dropped: its bits leave the filter one minute at a time, and the slices are
//! sized so that 6 minutes on (10% of the hour) it answers like a new click.
//!
//! ```text
//! cargo run --release -p bloom-aging --example clickstream [clicks per hour] [fpr]
//! ```

use std::collections::{HashMap, VecDeque};

use bloom_aging::AgingBloomFilter;
use bloom_core::keys::SplitMix64;

const HOUR_MS: u64 = 3_600_000;

/// One click: who clicked which link, and when.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
struct Click {
    user: u32,
    link: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let per_hour: u64 = args.next().map_or(Ok(200_000), |a| a.parse())?;
    let fpr: f64 = args.next().map_or(Ok(0.001), |a| a.parse())?;

    // At most `per_hour` distinct clicks in any hour at the peak rate; 60 generations of a
    // minute, and slices sized so that 6 minutes (10%) past its hour a click answers like a
    // new one.
    const SLACK_MINUTES: u32 = 6;
    let mut seen = AgingBloomFilter::builder(per_hour, fpr)
        .time_window(HOUR_MS, 60)
        .slack(SLACK_MINUTES)
        .build()?;
    println!(
        "filter: k = {}, l = {}, {} slices of {} bits, {:.1} KiB ({:.1} bits per click of the hour)",
        seen.num_hashes(),
        seen.generations(),
        seen.num_slices(),
        seen.slice_bits(),
        seen.memory_usage() as f64 / 1024.0,
        seen.num_bits() as f64 / per_hour as f64,
    );

    // The exact answer: each click's last time, and the clicks in time order to expire them.
    let mut last_seen: HashMap<Click, u64> = HashMap::new();
    let mut in_order: VecDeque<(u64, Click)> = VecDeque::new();
    // Every click's last time, never expired: tells a drop within the slack (the hour plus
    // a generation and the slack's generations) from a false positive.
    let mut ever: HashMap<Click, u64> = HashMap::new();
    let slack_ms = HOUR_MS / u64::from(seen.generations()) * u64::from(SLACK_MINUTES + 1);

    let mut rng = SplitMix64(2026);
    // Repeats waiting for their time: (due time, click).
    let mut repeats: Vec<(u64, Click)> = Vec::new();
    let (mut kept_exact, mut kept_filter, mut total) = (0u64, 0u64, 0u64);
    let (mut slack_drops, mut false_drops) = (0u64, 0u64);
    let mut now = 0u64;
    let end = 3 * HOUR_MS;
    while now < end {
        // A rate that swings between half and all of the peak over the hour; 70% of it fresh
        // clicks, the rest retries and repeats.
        let phase = (now % HOUR_MS) as f64 / HOUR_MS as f64;
        let rate = per_hour as f64 * (0.75 + 0.25 * (phase * std::f64::consts::TAU).sin()) * 0.7;
        now += (HOUR_MS as f64 / rate * 2.0 * unit(&mut rng)) as u64 + 1;

        let click = match repeats.iter().position(|&(due, _)| due <= now) {
            Some(i) => repeats.swap_remove(i).1,
            None => {
                let click = Click {
                    user: rng.next_u64() as u32,
                    link: (rng.next_u64() % 5_000) as u32,
                };
                let r = unit(&mut rng);
                if r < 0.15 {
                    // A retry within five seconds.
                    repeats.push((now + rng.next_u64() % 5_000, click));
                } else if r < 0.3 {
                    // The same click again after one to ninety minutes.
                    repeats.push((now + 60_000 + rng.next_u64() % (89 * 60_000), click));
                }
                click
            }
        };
        total += 1;

        // Exact: a duplicate when the click was seen less than an hour ago.
        while in_order.front().is_some_and(|&(t, _)| t + HOUR_MS <= now) {
            let (t, old) = in_order.pop_front().expect("front exists");
            if last_seen.get(&old) == Some(&t) {
                last_seen.remove(&old);
            }
        }
        let duplicate = last_seen.insert(click, now).is_some();
        in_order.push_back((now, click));

        let dropped = seen.insert_at(&click, now)?;
        let previous = ever.insert(click, now);
        if duplicate {
            assert!(dropped, "{click:?} repeated within the hour was kept");
        } else {
            kept_exact += 1;
            if dropped && previous.is_some_and(|t| now - t < HOUR_MS + slack_ms) {
                slack_drops += 1;
            } else if dropped {
                false_drops += 1;
            }
        }
        if !dropped {
            kept_filter += 1;
        }
    }

    println!("{total} clicks over three hours");
    println!("exact (map of the last hour): kept {kept_exact}");
    println!(
        "filter: kept {kept_filter}; dropped {slack_drops} repeats from 60 to {} minutes after \
         the first (the slack)",
        60 + SLACK_MINUTES + 1
    );
    println!(
        "filter: dropped {false_drops} new clicks ({:.4}% of them, target {:.4}%), \
         the estimated rate now {:.4}%",
        100.0 * false_drops as f64 / kept_exact as f64,
        100.0 * fpr,
        100.0 * seen.estimated_fpr()
    );
    println!(
        "clicks within the last hour: exact {}, estimated from the filter {}",
        last_seen.len(),
        seen.estimated_len()
    );
    Ok(())
}

/// A uniform number in [0, 1) from the top 53 bits of the next value.
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
