//! Sliding windows over u64 keys: `AgingBloomFilter` against what users build today from
//! this workspace's filters, in one run (the aging filter's figures).
//!
//! * **aging**: `AgingBloomFilter::new(window, p)`: the blocked layout, its query by the
//!   AVX-512 or AVX2 kernel where the CPU has one. The same filter's portable query
//!   (`with_probe(Probe::Portable)`) is timed too, on a line of its own, and its answers are checked
//!   equal to the kernel's on the absent keys.
//! * **pair**: two `BloomFilter`s, each `new(window, p)`. Inserts go to the current one;
//!   every `window` inserts the older one is cleared and becomes current. A query asks both.
//!   Every key of the last `window` inserts is found, and keys stay up to `2 window` inserts.
//!   Both filters answer, so its false-positive rate is up to about 2p; the memory of a pair
//!   sized for p/2 each (the same combined rate) is printed too.
//! * **aging l = 20**: `AgingBloomFilter::builder(window, p).generations(20)`: fewer
//!   slices to scan, more slack.
//! * **one BloomFilter**, for inserts only: `BloomFilter::new(window, p)` cleared every
//!   window, the reference "a `BloomFilter` insert" of the insert target.
//! * **counting**: `CountingBloomFilter::new(window, p)` and a queue of the last `window`
//!   keys: each insert past the window removes the key leaving it. The queue (8 bytes per
//!   key) is part of its memory: the removal needs the key.
//!
//! Each structure sees the same stream: `3 window` inserts to reach the steady state, then
//! `window` more, timed in chunks of 10,000 (the structures take turns on each chunk, in an
//! order that rotates), stopping 8 times along the way to measure, untimed, the rate at which
//! keys of each age past the window still answer present, and the false-positive rate of
//! keys never inserted. Then `contains` is timed on present keys (the last `window / 2`
//! inserted) and on absent ones, by `chunked_ratios` against the pair. Times are the thread's
//! CPU time.
//!
//! Printed per window and p: memory in bits per key of the window and as a multiple of the
//! pair's, insert and contains ns per key (medians over chunks) and their ratios to the
//! pair's, the measured false-positive rate (the highest of the 8 points), and the slack:
//! how far past the window (as a fraction of it) keys still answered present at a rate above
//! p + 3 sigma, the most over the 8 points, in buckets of 2% of the window.
//!
//! ```text
//! cargo run --release -p bloom-benches --bin aging_window [window ...]
//! ```

use std::collections::VecDeque;

use bloom_aging::AgingBloomFilter;
use bloom_benches::{chunked_ratios, cpu_ns_per_key, median, sizes_from_args, u64_keys};
use bloom_classic::BloomFilter;
use bloom_core::engine::Probe;
use bloom_counting::CountingBloomFilter;

/// Keys per timed chunk.
const CHUNK: usize = 10_000;
/// Rounds of `chunked_ratios` for the queries.
const ROUNDS: usize = 5;
/// Points along the measured window where expiry and the false-positive rate are measured.
const POINTS: usize = 8;
/// Buckets of key age per window in the expiry measurement.
const BUCKETS: usize = 50;

/// Two classic filters taking turns.
struct Pair {
    current: BloomFilter,
    previous: BloomFilter,
    count: u64,
    window: u64,
}

impl Pair {
    fn new(window: u64, p: f64) -> Pair {
        let f = BloomFilter::new(window, p).expect("valid parameters");
        Pair {
            current: f.clone(),
            previous: f,
            count: 0,
            window,
        }
    }

    fn insert(&mut self, key: &u64) -> bool {
        let seen = self.contains(key);
        self.current.insert(key);
        self.count += 1;
        if self.count == self.window {
            std::mem::swap(&mut self.current, &mut self.previous);
            self.current.clear();
            self.count = 0;
        }
        seen
    }

    fn contains(&self, key: &u64) -> bool {
        self.current.contains(key) || self.previous.contains(key)
    }

    fn memory_usage(&self) -> usize {
        self.current.memory_usage() + self.previous.memory_usage() + 2 * size_of::<u64>()
    }
}

/// A counting filter that removes the key leaving the window.
struct Counting {
    filter: CountingBloomFilter,
    queue: VecDeque<u64>,
    window: usize,
}

impl Counting {
    fn new(window: u64, p: f64) -> Counting {
        Counting {
            filter: CountingBloomFilter::new(window, p).expect("valid parameters"),
            queue: VecDeque::with_capacity(window as usize + 1),
            window: window as usize,
        }
    }

    fn insert(&mut self, key: &u64) -> bool {
        let seen = self.filter.insert(key);
        self.queue.push_back(*key);
        if self.queue.len() > self.window {
            let old = self
                .queue
                .pop_front()
                .expect("the queue is past the window");
            // A key whose counters all saturated stays present: what users of this scheme get.
            let _outcome = self
                .filter
                .remove(&old)
                .expect("a key of the queue was inserted");
        }
        seen
    }

    fn contains(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }

    fn memory_usage(&self) -> usize {
        self.filter.memory_usage() + self.queue.capacity() * size_of::<u64>()
    }
}

/// The three structures, fed the same stream.
struct Contenders {
    aging: AgingBloomFilter,
    pair: Pair,
    counting: Counting,
    /// Fewer generations: faster, more slack.
    aging_short: AgingBloomFilter,
    /// One `BloomFilter` for the window, cleared every window: the reference for inserts.
    single: BloomFilter,
    single_count: u64,
    /// `aging` on the portable query, copied from it before the queries are timed.
    portable: AgingBloomFilter,
}

impl Contenders {
    fn contains(&self, which: usize, key: &u64) -> bool {
        match which {
            0 => self.aging.contains(key),
            1 => self.pair.contains(key),
            2 => self.counting.contains(key),
            3 => self.aging_short.contains(key),
            _ => self.portable.contains(key),
        }
    }

    fn insert_chunk(&mut self, which: usize, chunk: &[u64]) -> f64 {
        match which {
            0 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.aging.insert(*k)).count()
            }),
            1 => cpu_ns_per_key(chunk, |c| c.iter().filter(|k| self.pair.insert(k)).count()),
            2 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.counting.insert(k)).count()
            }),
            3 => cpu_ns_per_key(chunk, |c| {
                c.iter().filter(|k| self.aging_short.insert(*k)).count()
            }),
            _ => cpu_ns_per_key(chunk, |c| {
                let window = self.pair.window;
                c.iter()
                    .filter(|k| {
                        let seen = self.single.insert(*k);
                        self.single_count += 1;
                        if self.single_count == window {
                            self.single.clear();
                            self.single_count = 0;
                        }
                        seen
                    })
                    .count()
            }),
        }
    }
}

const NAMES: [&str; 4] = ["aging", "pair", "counting", "aging l = 20"];
/// The slot of the aging filter's portable query (timed, not a structure of its own).
const PORTABLE: usize = NAMES.len() + 1;
/// The structures.
const ALL: usize = NAMES.len();
/// The generations of the second aging filter.
const SHORT_GENERATIONS: u32 = 20;

fn main() {
    let windows = sizes_from_args(&[100_000, 1_000_000]);
    println!(
        "| window | p | structure | bits per key | memory / pair | insert ns | insert / pair | contains present ns | contains absent ns | contains / pair (present, absent) | measured FPR | slack past the window |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for window in windows {
        for p in [0.01, 0.001] {
            run(window, p);
        }
    }
}

fn run(window: usize, p: f64) {
    let w = window as u64;
    let aging = AgingBloomFilter::new(w, p).expect("valid parameters");
    let mut c = Contenders {
        portable: aging
            .clone()
            .with_probe(Probe::Portable)
            .expect("the portable loop runs anywhere"),
        aging,
        pair: Pair::new(w, p),
        counting: Counting::new(w, p),
        aging_short: AgingBloomFilter::builder(w, p)
            .generations(SHORT_GENERATIONS)
            .build()
            .expect("valid parameters"),
        single: BloomFilter::new(w, p).expect("valid parameters"),
        single_count: 0,
    };
    let stream = u64_keys(4 * window, (window as u64) << 8 | (p * 1e4) as u64);
    let absent = u64_keys(window.min(1_000_000), 1 << 60 | window as u64);
    let warm = 3 * window;
    for k in &stream[..warm] {
        c.aging.insert(k);
        c.pair.insert(k);
        c.counting.insert(k);
        c.aging_short.insert(k);
    }
    c.single_count = (warm % window) as u64;

    // The structures' inserts, and the single filter's (slot ALL).
    let mut insert_times = vec![Vec::new(); ALL + 1];
    let mut fpr = [0.0f64; ALL];
    let mut slack = [0usize; ALL];
    let mut done = warm;
    let per_point = window / POINTS;
    for point in 0..POINTS {
        let end = warm + (point + 1) * per_point;
        for (i, chunk) in stream[done..end].chunks(CHUNK).enumerate() {
            for turn in 0..=ALL {
                let which = (turn + i) % (ALL + 1);
                insert_times[which].push(c.insert_chunk(which, chunk));
            }
        }
        done = end;
        for which in 0..ALL {
            // Keys of each age past the window: bucket b holds ages
            // [window + b window / BUCKETS, window + (b + 1) window / BUCKETS). The slack
            // ends at the first bucket, from the young end, whose rate is down to p (within
            // 3 sigma): the rate falls with age, and scanning from the young end keeps a
            // noisy old bucket from counting.
            let width = window / BUCKETS;
            let sigma = (p * (1.0 - p) / width as f64).sqrt();
            let down = (0..BUCKETS).find(|&b| {
                let newest = done - window - b * width;
                let bucket = &stream[newest - width..newest];
                let hits = bucket.iter().filter(|k| c.contains(which, k)).count();
                hits as f64 / width as f64 <= p + 3.0 * sigma
            });
            slack[which] = slack[which].max(down.unwrap_or(BUCKETS));
            let fp = absent.iter().filter(|k| c.contains(which, k)).count();
            fpr[which] = fpr[which].max(fp as f64 / absent.len() as f64);
        }
        // The window itself is all there, at every point.
        for (which, name) in NAMES.iter().enumerate() {
            assert!(
                stream[done - window..done]
                    .iter()
                    .all(|k| c.contains(which, k)),
                "{name}: false negative in the window"
            );
        }
    }

    c.portable = c
        .aging
        .clone()
        .with_probe(Probe::Portable)
        .expect("the portable loop runs anywhere");
    let present = &stream[done - window / 2..done];
    let queries = present.len().min(absent.len());
    let run_contains = |which: usize, chunk: &[u64]| {
        cpu_ns_per_key(chunk, |keys| {
            keys.iter().filter(|k| c.contains(which, k)).count()
        })
    };
    assert!(
        absent
            .iter()
            .chain(present)
            .all(|k| c.aging.contains(k) == c.portable.contains(k)),
        "the vector query answers otherwise than the portable one"
    );
    let others = [0, 2, 3, PORTABLE];
    let on_present = chunked_ratios(&present[..queries], CHUNK, ROUNDS, &others, 1, run_contains);
    let on_absent = chunked_ratios(&absent[..queries], CHUNK, ROUNDS, &others, 1, run_contains);

    let memory = [
        c.aging.memory_usage(),
        c.pair.memory_usage(),
        c.counting.memory_usage(),
        c.aging_short.memory_usage(),
    ];
    let insert_ns: Vec<f64> = insert_times.iter().map(|t| median(t.clone())).collect();
    for which in 0..ALL {
        let bits = memory[which] as f64 * 8.0 / w as f64;
        let (present_ns, absent_ns) = (on_present.median_time(which), on_absent.median_time(which));
        let ratio = if which == 1 {
            "1".to_string()
        } else {
            format!(
                "{:.2}, {:.2}",
                on_present.median_ratio(which),
                on_absent.median_ratio(which)
            )
        };
        println!(
            "| {window} | {p} | {} | {bits:.1} | {:.3} | {:.1} | {:.2} | {present_ns:.1} | {absent_ns:.1} | {ratio} | {:.5} | {:.0}% |",
            NAMES[which],
            memory[which] as f64 / memory[1] as f64,
            insert_ns[which],
            insert_ns[which] / insert_ns[1],
            fpr[which],
            100.0 * slack[which] as f64 / BUCKETS as f64,
        );
    }
    println!(
        "| {window} | {p} | aging, portable query{} | | | | | {:.1} | {:.1} | {:.2}, {:.2} | | |",
        if c.aging.probe() != Probe::Portable {
            ""
        } else {
            " (no vector kernel: as above)"
        },
        on_present.median_time(PORTABLE),
        on_absent.median_time(PORTABLE),
        on_present.median_ratio(PORTABLE),
        on_absent.median_ratio(PORTABLE),
    );
    println!(
        "| {window} | {p} | one BloomFilter, insert only | | | {:.1} | {:.2} | | | | | |",
        insert_ns[ALL],
        insert_ns[ALL] / insert_ns[1]
    );
    println!(
        "| {window} | {p} | aging insert / one BloomFilter insert | | | {:.2} (l = 20: {:.2}) | | | | | | |",
        insert_ns[0] / insert_ns[ALL],
        insert_ns[3] / insert_ns[ALL],
    );
    let half = Pair::new(w, p / 2.0);
    println!(
        "| {window} | {p} | pair at p/2 each | {:.1} | {:.3} | | | | | | | |",
        half.memory_usage() as f64 * 8.0 / w as f64,
        half.memory_usage() as f64 / memory[1] as f64
    );
}
