//! Shared helpers of the criterion benchmarks: seeded keys of each kind, and the hasher
//! peers are fed so that every filter pays for the same hash.
//!
//! The keys come from the workspace's one generator ([`bloom_core::keys`]); the memory probe
//! is the comparison's ([`bloom_compare::probe::MemoryProbe`]).

use bloom_core::hash::BuildKeyHasher;
use bloom_core::keys::SplitMix64;

/// `count` random u64 keys from `seed` (distinct seeds give disjoint sets with
/// overwhelming probability: 2^-64 per pair).
pub fn u64_keys(count: usize, seed: u64) -> Vec<u64> {
    SplitMix64(seed).take(count).collect()
}

/// `count` random 16-byte string keys (hex digits).
pub fn short_string_keys(count: usize, seed: u64) -> Vec<String> {
    SplitMix64(seed)
        .take(count)
        .map(|k| format!("{k:016x}"))
        .collect()
}

/// `count` URL-like keys of about 80 bytes.
pub fn url_keys(count: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    (0..count)
        .map(|_| {
            let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            format!(
                "https://www.example-{:04}.com/articles/{:016x}/{:012x}?ref=bench",
                a % 10_000,
                b,
                c >> 16
            )
        })
        .collect()
}

/// The hasher peers get: the workspace's own (the seeded hash, 64 bits, by
/// `Hasher::finish`), so a comparison measures the filters, not their hash functions.
pub fn peer_hasher() -> BuildKeyHasher {
    BuildKeyHasher::default()
}

/// XXH3-64 of the bytes a key writes, in one call (`xxh3_64`) when it writes one integer:
/// what a user of a peer crate who wants a fast hasher writes, and the hasher the speed
/// targets name for the peers.
///
/// # Examples
///
/// ```
/// use std::hash::BuildHasher;
///
/// use xxhash_rust::xxh3::xxh3_64;
///
/// assert_eq!(bloom_benches::Xxh3Hasher.hash_one(7u64), xxh3_64(&7u64.to_le_bytes()));
/// // More than one integer: the same digest as of all the bytes at once.
/// let both = [7u64.to_le_bytes(), 9u64.to_le_bytes()].concat();
/// assert_eq!(bloom_benches::Xxh3Hasher.hash_one((7u64, 9u64)), xxh3_64(&both));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Xxh3Hasher;

/// The state of [`Xxh3Hasher`]: one integer written is kept and hashed at `finish`; more
/// bytes go through the streaming XXH3, which gives the same digest.
#[derive(Default)]
pub struct Xxh3State {
    integer: Option<u64>,
    stream: Option<xxhash_rust::xxh3::Xxh3>,
}

impl std::hash::BuildHasher for Xxh3Hasher {
    type Hasher = Xxh3State;

    fn build_hasher(&self) -> Xxh3State {
        Xxh3State::default()
    }
}

impl std::hash::Hasher for Xxh3State {
    fn write(&mut self, bytes: &[u8]) {
        let integer = self.integer.take();
        let stream = self.stream.get_or_insert_with(|| {
            let mut stream = xxhash_rust::xxh3::Xxh3::new();
            if let Some(value) = integer {
                stream.update(&value.to_le_bytes());
            }
            stream
        });
        stream.update(bytes);
    }

    fn write_u64(&mut self, value: u64) {
        if self.integer.is_none() && self.stream.is_none() {
            self.integer = Some(value);
        } else {
            self.write(&value.to_le_bytes());
        }
    }

    fn finish(&self) -> u64 {
        match (&self.stream, self.integer) {
            (Some(stream), _) => stream.digest(),
            (None, Some(value)) => xxhash_rust::xxh3::xxh3_64(&value.to_le_bytes()),
            (None, None) => xxhash_rust::xxh3::xxh3_64(&[]),
        }
    }
}

/// Keys per burst of `BlockedBloomFilter::contains_batch` on a filter larger than a cache
/// share (bloom-blocked's `BURST`), for the memory probe's
/// [`read_bursts`](bloom_compare::probe::MemoryProbe::read_bursts).
pub const BLOCKED_BURST: usize = 128;

/// The seed of the memory probe's chain in the benchmarks.
pub const PROBE_SEED: u64 = 42;

/// Nanoseconds the calling thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`): time the
/// scheduler gives to other processes is not counted, which keeps timings comparable on a
/// machine shared with other builds and benchmarks (the cache they disturb still counts).
///
/// # Panics
///
/// If the platform has no per-thread CPU clock.
pub fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// CPU nanoseconds per key that `f` takes over `chunk` ([`thread_cpu_ns`]); the chunk and
/// `f`'s result go through `black_box`, so neither the input nor the work is optimised away.
pub fn cpu_ns_per_key(chunk: &[u64], mut f: impl FnMut(&[u64]) -> usize) -> f64 {
    let start = thread_cpu_ns();
    std::hint::black_box(f(std::hint::black_box(chunk)));
    (thread_cpu_ns() - start) as f64 / chunk.len() as f64
}

/// The median of `xs` (the upper one of an even count).
///
/// # Panics
///
/// If `xs` is empty.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `ours` and `other` on `state` one after the other, `other` first when
/// `other_first`, and returns their results in the order (ours, other): the comparison tools
/// alternate the order from round to round or chunk to chunk, so neither side always runs
/// on the cache the other left.
///
/// # Examples
///
/// ```
/// let mut log = Vec::new();
/// let (a, b) = bloom_benches::in_turn(
///     &mut log,
///     true,
///     |l| { l.push("ours"); 1.0 },
///     |l| { l.push("other"); 2.0 },
/// );
/// assert_eq!((a, b), (1.0, 2.0));
/// assert_eq!(log, ["other", "ours"]);
/// ```
pub fn in_turn<S, R>(
    state: &mut S,
    other_first: bool,
    ours: impl FnOnce(&mut S) -> R,
    other: impl FnOnce(&mut S) -> R,
) -> (R, R) {
    if other_first {
        let p = other(state);
        (ours(state), p)
    } else {
        let o = ours(state);
        (o, other(state))
    }
}

/// Per-chunk timings of several candidates against a reference, from [`chunked_ratios`].
#[derive(Debug, Clone, Default)]
pub struct ChunkTimes {
    /// `times[c]`: candidate `c`'s ns per key, one entry per timed chunk (the reference's
    /// entries come from every candidate's passes).
    pub times: Vec<Vec<f64>>,
    /// `ratios[c]`: candidate `c`'s time divided by the reference's on the same chunk.
    pub ratios: Vec<Vec<f64>>,
}

impl ChunkTimes {
    /// The median of candidate `c`'s ns per key over its chunks.
    pub fn median_time(&self, c: usize) -> f64 {
        median(self.times[c].clone())
    }

    /// The median over its chunks of candidate `c`'s time divided by the reference's.
    pub fn median_ratio(&self, c: usize) -> f64 {
        median(self.ratios[c].clone())
    }
}

/// Times `candidates` against `reference` on `keys` cut into chunks of `chunk`, `rounds`
/// times over; `run(c, chunk)` times candidate `c` on one chunk (ns per key).
///
/// Each round times, per candidate, one whole pass over the chunks for the candidate and one
/// for the reference, in an order that alternates from round to round ([`in_turn`]); the
/// ratio of a chunk is the candidate's time on it over the reference's in the same round.
/// Each timed pass follows an untimed pass of the same structure, so each is timed in the
/// cache state its own queries make, as a program that queries one filter sees it, whatever
/// ran before. Chunks timed alternately (the first form of this function) made the two
/// structures evict each other: at sizes where each fits the L2 cache but both do not, the
/// one that touches more lines per key lost more; and with passes alone, the reference, run
/// beside every candidate, stayed in the cache while each candidate found it full of the
/// others' structures (docs/design.md, "Timing by passes").
///
/// # Examples
///
/// ```
/// let keys: Vec<u64> = (0..100).collect();
/// let t = bloom_benches::chunked_ratios(&keys, 10, 2, &[0, 2], 1, |c, chunk| {
///     (c + 1) as f64 * chunk.len() as f64
/// });
/// assert_eq!(t.ratios[2].len(), 20);
/// assert!(t.ratios[2].iter().all(|&r| r == 1.5));
/// assert!(t.ratios[0].iter().all(|&r| r == 0.5));
/// assert_eq!(t.median_ratio(2), 1.5);
/// assert_eq!(t.median_time(0), 10.0);
/// ```
pub fn chunked_ratios(
    keys: &[u64],
    chunk: usize,
    rounds: usize,
    candidates: &[usize],
    reference: usize,
    mut run: impl FnMut(usize, &[u64]) -> f64,
) -> ChunkTimes {
    let slots = candidates.iter().copied().max().unwrap_or(0).max(reference) + 1;
    let mut out = ChunkTimes {
        times: vec![Vec::new(); slots],
        ratios: vec![Vec::new(); slots],
    };
    let pass = |run: &mut dyn FnMut(usize, &[u64]) -> f64, which: usize| -> Vec<f64> {
        // An untimed pass first, so that the timed one finds the structure as its own
        // queries leave it, whatever ran before.
        keys.chunks(chunk).for_each(|part| {
            run(which, part);
        });
        keys.chunks(chunk).map(|part| run(which, part)).collect()
    };
    for round in 0..rounds {
        for &c in candidates {
            let (ours, theirs) = in_turn(
                &mut run,
                round % 2 == 1,
                |r| pass(r, c),
                |r| pass(r, reference),
            );
            for (a, b) in ours.into_iter().zip(theirs) {
                out.times[c].push(a);
                out.times[reference].push(b);
                out.ratios[c].push(a / b);
            }
        }
    }
    out
}

/// The keys of a query benchmark on `n` keys: the `n` keys inserted (seed 1), and keys
/// never inserted (seed 2), as many as are queried of each set.
#[derive(Debug, Clone)]
pub struct QueryKeys {
    /// The keys inserted.
    pub present: Vec<u64>,
    /// Keys never inserted, `min(n, max_queries)` of them.
    pub absent: Vec<u64>,
}

impl QueryKeys {
    /// `n` keys to insert and up to `max_queries` to query from each set.
    pub fn new(n: usize, max_queries: usize) -> QueryKeys {
        QueryKeys {
            present: u64_keys(n, 1),
            absent: u64_keys(n.min(max_queries), 2),
        }
    }

    /// The two query sets by name: `"present"`, a prefix of the inserted keys, and
    /// `"absent"`, of the same length.
    ///
    /// # Examples
    ///
    /// ```
    /// let keys = bloom_benches::QueryKeys::new(10, 4);
    /// let [(_, present), (_, absent)] = keys.sets();
    /// assert_eq!((keys.present.len(), present.len(), absent.len()), (10, 4, 4));
    /// assert_eq!(present, &keys.present[..4]);
    /// ```
    pub fn sets(&self) -> [(&'static str, &[u64]); 2] {
        let present = &self.present[..self.absent.len()];
        [("present", present), ("absent", &self.absent)]
    }
}

/// The filter sizes given as command-line arguments, or `default` when there are none.
///
/// # Panics
///
/// If an argument is not an integer.
pub fn sizes_from_args(default: &[usize]) -> Vec<usize> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("n must be an integer"))
        .collect();
    if sizes.is_empty() {
        default.to_vec()
    } else {
        sizes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each timed pass is the second of two passes of one structure over every chunk in
    /// order, and which of candidate and reference goes first alternates from round to
    /// round.
    #[test]
    fn every_timed_pass_follows_an_untimed_one() {
        let keys: Vec<u64> = (0..25).collect();
        let mut calls = Vec::new();
        // Each call answers its own ordinal (1, 2, ...), so the times kept tell which
        // calls were timed.
        let t = chunked_ratios(&keys, 10, 2, &[0, 2], 1, |c, chunk| {
            calls.push((c, chunk[0]));
            calls.len() as f64
        });
        let pass = |c: usize| [(c, 0), (c, 10), (c, 20)];
        let twice = |c: usize| [pass(c), pass(c)].concat();
        let expected: Vec<(usize, u64)> = [
            // Round 0: each candidate before the reference.
            twice(0),
            twice(1),
            twice(2),
            twice(1),
            // Round 1: the reference before each candidate.
            twice(1),
            twice(0),
            twice(1),
            twice(2),
        ]
        .concat();
        assert_eq!(calls, expected);
        // The times kept are those of the second pass of each pair.
        assert_eq!(t.times[0], [4.0, 5.0, 6.0, 34.0, 35.0, 36.0]);
        assert_eq!(t.times[2], [16.0, 17.0, 18.0, 46.0, 47.0, 48.0]);
        assert_eq!(
            t.times[1],
            [
                10.0, 11.0, 12.0, 22.0, 23.0, 24.0, 28.0, 29.0, 30.0, 40.0, 41.0, 42.0
            ]
        );
        assert_eq!(t.ratios[0][3], 34.0 / 28.0);
    }

    #[test]
    fn keys_have_the_promised_shapes() {
        assert_eq!(
            short_string_keys(3, 1).iter().map(String::len).max(),
            Some(16)
        );
        let urls = url_keys(100, 2);
        assert!(
            urls.iter().all(|u| (75..=90).contains(&u.len())),
            "{:?}",
            urls[0]
        );
        let (t0, t1) = (thread_cpu_ns(), thread_cpu_ns());
        assert!(t1 >= t0);
        let a = u64_keys(1000, 1);
        let b = u64_keys(1000, 2);
        assert!(a.iter().all(|k| !b.contains(k)));
    }
}
