//! Shared helpers of the criterion benchmarks: seeded keys of each kind, and the hasher
//! peers are fed so that every filter pays for the same hash.

use bloom_core::hash::BuildKeyHasher;

/// SplitMix64: seeded, so every run measures the same keys.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `count` random u64 keys from `seed` (distinct seeds give disjoint sets with
/// overwhelming probability: 2^-64 per pair).
pub fn u64_keys(count: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    (0..count).map(|_| rng.next_u64()).collect()
}

/// `count` random 16-byte string keys (hex digits).
pub fn short_string_keys(count: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    (0..count)
        .map(|_| format!("{:016x}", rng.next_u64()))
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

/// The hasher peers get: the workspace's own (seeded XXH3-128, truncated to 64 bits by
/// `Hasher::finish`), so a comparison measures the filters, not their hash functions.
pub fn peer_hasher() -> BuildKeyHasher {
    BuildKeyHasher::default()
}

/// The memory probe: random 64-byte line reads in a buffer of a given size, the physical
/// limit of a one-cache-line filter query. The buffer is allocated as a filter's is (zeroed
/// lazily, advised to use transparent huge pages, then written), so both see the same pages.
#[derive(Debug)]
pub struct MemoryProbe {
    words: Vec<u64>,
    /// Words before the first 64-byte boundary.
    offset: usize,
    lines: u64,
}

/// Keys per group of the batched probe ([`MemoryProbe::read_batched`]), the group size the
/// earlier figures in docs/ were measured with. The blocked filter's batch on large filters
/// reads in bursts of [`BLOCKED_BURST`] instead.
pub const PROBE_BATCH: usize = 32;

/// Keys per burst of `BlockedBloomFilter::contains_batch` on a filter larger than a cache
/// share (bloom-blocked's `BURST`), for [`MemoryProbe::read_bursts`].
pub const BLOCKED_BURST: usize = 128;

/// Keys per group of the pipelined probe (`BlockedBloomFilter`'s batch group size until
/// 2026-11-30).
pub const PIPELINE_BATCH: usize = 16;

impl MemoryProbe {
    /// A buffer of `bytes` bytes (rounded up to whole lines) filled with random words.
    pub fn new(bytes: usize) -> Self {
        let lines = bytes.div_ceil(64);
        let mut words = vec![0u64; lines * 8 + 7];
        bloom_core::bits::advise_huge_pages(&words);
        let mut rng = SplitMix64(42);
        for w in words.iter_mut() {
            *w = rng.next_u64();
        }
        let offset = (words.as_ptr() as usize).next_multiple_of(64) - words.as_ptr() as usize;
        MemoryProbe {
            words,
            offset: offset / 8,
            lines: lines as u64,
        }
    }

    #[inline(always)]
    fn word(&self, key: u64) -> &u64 {
        let line = bloom_core::hash::reduce(key, self.lines) as usize;
        &self.words[self.offset + line * 8]
    }

    /// One random line read per key (the line picked by multiply-shift of the key), one key
    /// after another: how many read words have their low bit set.
    pub fn read_each(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|&&k| self.word(k) & 1 != 0).count()
    }

    /// The same reads in groups of [`PROBE_BATCH`]: the lines of a group are prefetched
    /// before any is read ([`read_bursts`](MemoryProbe::read_bursts) with groups of 32).
    pub fn read_batched(&self, keys: &[u64]) -> usize {
        self.read_bursts(keys, PROBE_BATCH)
    }

    /// The same reads in bursts of `burst` keys: every line of a burst is prefetched, then
    /// every one is read. With [`BLOCKED_BURST`], the pattern of `BlockedBloomFilter`'s batch
    /// query on a filter larger than a cache share.
    ///
    /// # Panics
    ///
    /// If `burst` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_benches::{BLOCKED_BURST, MemoryProbe, u64_keys};
    ///
    /// let probe = MemoryProbe::new(1 << 16);
    /// let keys = u64_keys(1000, 5);
    /// assert_eq!(probe.read_bursts(&keys, BLOCKED_BURST), probe.read_each(&keys));
    /// ```
    pub fn read_bursts(&self, keys: &[u64], burst: usize) -> usize {
        let mut count = 0;
        for group in keys.chunks(burst) {
            for &k in group {
                bloom_core::bits::prefetch(self.word(k));
            }
            count += group.iter().filter(|&&k| self.word(k) & 1 != 0).count();
        }
        count
    }

    /// The same reads software-pipelined in groups of [`PIPELINE_BATCH`]: the lines of one
    /// group are prefetched, then the previous group is read. (`BlockedBloomFilter`'s batch
    /// query worked on groups of this size until 2026-11-30; it now reads large filters in
    /// bursts of 128, prefetched first.)
    pub fn read_pipelined(&self, keys: &[u64]) -> usize {
        let mut groups = keys.chunks(PIPELINE_BATCH);
        let Some(mut ready) = groups.next() else {
            return 0;
        };
        for &k in ready {
            bloom_core::bits::prefetch(self.word(k));
        }
        let mut count = 0;
        for group in groups {
            for &k in group {
                bloom_core::bits::prefetch(self.word(k));
            }
            count += ready.iter().filter(|&&k| self.word(k) & 1 != 0).count();
            ready = group;
        }
        count + ready.iter().filter(|&&k| self.word(k) & 1 != 0).count()
    }
}

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
pub fn in_turn<S>(
    state: &mut S,
    other_first: bool,
    ours: impl FnOnce(&mut S) -> f64,
    other: impl FnOnce(&mut S) -> f64,
) -> (f64, f64) {
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
/// Each round makes one pass over all chunks per candidate, and times each chunk for the
/// candidate and the reference one after the other, in an order that alternates from chunk
/// to chunk ([`in_turn`]). Two candidates that read the same filter (a single-key and a
/// batch query) so never run back to back on a chunk, and neither finds the other's lines in
/// the cache; the reference reads another structure.
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
    for _ in 0..rounds {
        for &c in candidates {
            for (i, part) in keys.chunks(chunk).enumerate() {
                let (a, b) = in_turn(&mut run, i % 2 == 1, |r| r(c, part), |r| r(reference, part));
                out.times[c].push(a);
                out.times[reference].push(b);
                out.ratios[c].push(a / b);
            }
        }
    }
    out
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
        let probe = MemoryProbe::new(1 << 16);
        let keys = u64_keys(1000, 3);
        assert_eq!(probe.read_each(&keys), probe.read_batched(&keys));
        let (t0, t1) = (thread_cpu_ns(), thread_cpu_ns());
        assert!(t1 >= t0);
        assert_eq!(probe.read_each(&keys), probe.read_pipelined(&keys));
        let a = u64_keys(1000, 1);
        let b = u64_keys(1000, 2);
        assert!(a.iter().all(|k| !b.contains(k)));
    }
}
