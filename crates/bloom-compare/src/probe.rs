//! The memory probe: what one random cache-line read costs in a buffer the size of a
//! filter, measured in the same run as the filter's queries, so each query time can be read
//! as a multiple of that physical limit.
//!
//! Two costs are measured on a buffer of 64-byte, 64-byte-aligned lines:
//!
//! * **one at a time** ([`ProbeResult::single_ns`]): a dependent chain. Each line holds the
//!   index of the next line to read, and the lines form one random cycle through the whole
//!   buffer (Sattolo's algorithm, which draws a uniformly random cyclic permutation:
//!   S. Sattolo, "An algorithm for random cyclic permutations", Inf. Proc. Letters 22,
//!   1986). The CPU cannot start a read before the previous one has returned, so this is
//!   the full latency of one random read: the cost of a query that must wait for its cache
//!   line. A loop of independent queries lets the CPU overlap some of their reads, so a
//!   filter's single-query time can come out below it (a multiple under 1).
//! * **batched** ([`ProbeResult::batched_ns`]): independent reads in groups of
//!   [`BATCH`]: the group's 32 line indices are taken from a precomputed random sequence
//!   (read sequentially, so it costs one cached load per read), every line is prefetched,
//!   then every line is read. The reads overlap as much as the memory system allows: the
//!   floor for a batch query that touches one line per key. The sequence has
//!   [`INDEX_COUNT`] entries (64 MiB worth of lines), so for buffers larger than the last
//!   cache level the revisited lines are still misses.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloom_core::bits::prefetch;
use serde::{Deserialize, Serialize};

use crate::keys::SplitMix64;

/// Addresses prefetched together by the batched probe.
pub const BATCH: usize = 32;

/// Random line indices the batched probe cycles through.
pub const INDEX_COUNT: usize = 1 << 20;

/// Bytes per line: the cache line of every x86-64 and most ARM cores.
pub const LINE_BYTES: usize = 64;

/// One cache line of the probe buffer: the index of the next line of the chain, padded to
/// the full line.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line {
    next: usize,
    _pad: [u64; 7],
}

/// The cost of a random cache-line read in a buffer of `bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// The buffer's size (a whole number of lines, at least two).
    pub bytes: usize,
    /// Nanoseconds per read, one at a time (dependent chain).
    pub single_ns: f64,
    /// Nanoseconds per read, in prefetched groups of [`BATCH`].
    pub batched_ns: f64,
}

/// A probe buffer: `bytes` rounded up to whole lines (at least two), linked into one random
/// cycle.
struct Buffer {
    lines: Vec<Line>,
}

impl Buffer {
    fn new(bytes: usize, seed: u64) -> Buffer {
        let count = bytes.div_ceil(LINE_BYTES).max(2);
        let mut lines: Vec<Line> = (0..count)
            .map(|i| Line {
                next: i,
                _pad: [0; 7],
            })
            .collect();
        // Sattolo: swapping each position with a strictly earlier one yields a single cycle.
        let mut rng = SplitMix64(seed);
        for i in (1..count).rev() {
            let j = rng.below(i as u64) as usize;
            let (a, b) = (lines[i].next, lines[j].next);
            lines[i].next = b;
            lines[j].next = a;
        }
        Buffer { lines }
    }

    fn bytes(&self) -> usize {
        self.lines.len() * LINE_BYTES
    }

    /// Follows the chain for `steps` reads from `start`; returns where it stopped.
    #[inline(never)]
    fn chase(&self, start: usize, steps: usize) -> usize {
        let mut i = start;
        for _ in 0..steps {
            i = self.lines[i].next;
        }
        i
    }

    /// Random line indices for [`batched`](Buffer::batched): at most [`INDEX_COUNT`], a
    /// whole number of groups.
    fn random_indices(&self, seed: u64) -> Vec<u32> {
        let mut rng = SplitMix64(seed);
        let count = self.lines.len() as u64;
        (0..INDEX_COUNT).map(|_| rng.below(count) as u32).collect()
    }

    /// Reads `groups * BATCH` lines named by `indices` (cyclically, from group `start`),
    /// prefetching each group first; returns the next group and a value derived from every
    /// line read.
    #[inline(never)]
    fn batched(&self, indices: &[u32], start: usize, groups: usize) -> (usize, usize) {
        let mut acc = 0usize;
        let chunks = indices.len() / BATCH;
        let mut at = start % chunks;
        for _ in 0..groups {
            let group = &indices[at * BATCH..(at + 1) * BATCH];
            for &slot in group {
                prefetch(&self.lines[slot as usize]);
            }
            for &slot in group {
                acc ^= self.lines[slot as usize].next;
            }
            at += 1;
            if at == chunks {
                at = 0;
            }
        }
        (at, acc)
    }
}

/// Repeats `run(steps)` in growing chunks for about `budget`, in three timed parts, and
/// returns the fastest part's nanoseconds per step: the least disturbed by other work on a
/// shared machine.
fn best_ns_per_step(budget: Duration, mut run: impl FnMut(usize)) -> f64 {
    let part = budget / 3;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let mut steps_done = 0usize;
        let mut chunk = 4096;
        let start = Instant::now();
        loop {
            run(chunk);
            steps_done += chunk;
            let elapsed = start.elapsed();
            if elapsed >= part {
                let ns = elapsed.as_nanos() as f64 / steps_done as f64;
                best = best.min(ns);
                break;
            }
            chunk = (chunk * 2).min(1 << 20);
        }
    }
    best
}

/// Measures both read costs in a fresh buffer of `bytes` bytes, for about `budget` each.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use bloom_compare::probe::probe;
///
/// let r = probe(64 * 1024, 1, Duration::from_millis(6));
/// assert_eq!(r.bytes, 64 * 1024);
/// assert!(r.single_ns > 0.0 && r.batched_ns > 0.0);
/// ```
pub fn probe(bytes: usize, seed: u64, budget: Duration) -> ProbeResult {
    let buffer = Buffer::new(bytes, seed);
    // Warm up: one pass over (up to a million lines of) the chain, so a buffer that fits a
    // cache is in it, as a filter that was just queried would be.
    let warm = buffer.lines.len().min(1 << 20);
    let mut at = black_box(buffer.chase(0, warm));
    let single_ns = best_ns_per_step(budget, |steps| {
        at = black_box(buffer.chase(at, steps));
    });
    let indices = buffer.random_indices(seed ^ 0x5EED);
    let mut group = 0;
    // `steps` counts reads: a group of BATCH reads per step of BATCH.
    let batched_ns = best_ns_per_step(budget, |steps| {
        let (next, acc) = buffer.batched(&indices, group, steps / BATCH);
        group = next;
        black_box(acc);
    });
    ProbeResult {
        bytes: buffer.bytes(),
        single_ns,
        batched_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_is_one_cycle_through_every_line() {
        for count in [2usize, 3, 17, 1000] {
            let b = Buffer::new(count * LINE_BYTES, count as u64);
            let mut seen = vec![false; count];
            let mut i = 0;
            for _ in 0..count {
                assert!(!seen[i], "line {i} visited twice among {count}");
                seen[i] = true;
                i = b.lines[i].next;
            }
            assert_eq!(i, 0);
            assert!(seen.iter().all(|&s| s));
        }
        assert_eq!(Buffer::new(1, 0).bytes(), 2 * LINE_BYTES);
        assert_eq!(Buffer::new(129, 0).bytes(), 3 * LINE_BYTES);
    }

    #[test]
    fn batched_reads_the_lines_the_indices_name() {
        let b = Buffer::new(64 * LINE_BYTES, 3);
        let indices = b.random_indices(1);
        assert_eq!(indices.len(), INDEX_COUNT);
        assert!(indices.iter().all(|&i| i < 64));
        let (next, got) = b.batched(&indices, 5, 10);
        assert_eq!(next, 15);
        let expected = indices[5 * BATCH..15 * BATCH]
            .iter()
            .fold(0, |acc, &i| acc ^ b.lines[i as usize].next);
        assert_eq!(got, expected);
        // Cycles past the end.
        let last = INDEX_COUNT / BATCH - 1;
        let (next, _) = b.batched(&indices, last, 2);
        assert_eq!(next, 1);
    }
}
