//! The memory probe: what a random cache-line read costs in a buffer the size of a filter,
//! the physical limit of a query that touches one line per key. It is the workspace's one
//! probe: the comparison times it in the same run as the filters' queries ([`probe`]), so
//! each query time can be read as a multiple of that limit, and the benchmarks time its read
//! patterns ([`MemoryProbe`]'s `read_*` methods) beside a filter's queries on the same keys.
//!
//! The buffer is allocated as a filter's storage is: zeroed lazily, advised to use
//! transparent huge pages (by the same call as `bloom-core`'s word storage), then written, so
//! the probe and the filter see the same kind of pages. It is a whole number of 64-byte lines
//! (at least two), aligned to 64 bytes. The first word of each line holds the index of the
//! next line of one random cycle through the whole buffer (Sattolo's algorithm, which draws
//! a uniformly random cyclic permutation: S. Sattolo, "An algorithm for random cyclic
//! permutations", Inf. Proc. Letters 22, 1986).
//!
//! The read patterns:
//!
//! * **dependent** ([`ProbeResult::single_ns`]): the chain is followed from line to line. The
//!   CPU cannot start a read before the previous one has returned, so this is the full
//!   latency of one random read: the cost of a query that must wait for its cache line. A
//!   loop of independent queries lets the CPU overlap some of their reads, so a filter's
//!   single-query time can come out below it (a multiple under 1).
//! * **one key at a time** ([`MemoryProbe::read_each`]): each key names a line by
//!   multiply-shift, as a filter's hash names a block, and the lines are read one key after
//!   another, independent reads the CPU may overlap.
//! * **in bursts** ([`MemoryProbe::read_bursts`], [`MemoryProbe::read_batched`] for bursts of
//!   [`BATCH`]): every line of a burst is prefetched, then every one is read. The reads
//!   overlap as much as the memory system allows: the floor for a batch query that touches
//!   one line per key. The comparison's [`ProbeResult::batched_ns`] is this pattern over a
//!   precomputed sequence of [`INDEX_COUNT`] random line indices (read sequentially, so it
//!   costs one cached load per read, and no multiply-shift: the floor pays for the reads
//!   alone). That is 64 MiB worth of lines, so for buffers larger than the last cache level
//!   the revisited lines are still misses.
//! * **pipelined** ([`MemoryProbe::read_pipelined`]): the lines of one group of
//!   [`PIPELINE_BATCH`] keys are prefetched, then the previous group is read.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloom_core::internal::{advise_huge_pages, prefetch, reduce};
use bloom_core::keys::SplitMix64;
use serde::{Deserialize, Serialize};

/// Keys per burst of the batched probe ([`MemoryProbe::read_batched`] and
/// [`ProbeResult::batched_ns`]).
pub const BATCH: usize = 32;

/// Keys per group of the pipelined probe ([`MemoryProbe::read_pipelined`]):
/// `BlockedBloomFilter`'s batch group size until 2026-11-30.
pub const PIPELINE_BATCH: usize = 16;

/// Random keys the comparison's batched probe cycles through.
pub const INDEX_COUNT: usize = 1 << 20;

/// Bytes per line: the cache line of every x86-64 and most ARM cores.
pub const LINE_BYTES: usize = 64;

/// The cost of a random cache-line read in a buffer of `bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// The buffer's size (a whole number of lines, at least two).
    pub bytes: usize,
    /// Nanoseconds per read, one at a time (dependent chain).
    pub single_ns: f64,
    /// Nanoseconds per read, in prefetched bursts of [`BATCH`].
    pub batched_ns: f64,
}

/// A probe buffer: 64-byte lines linked into one random cycle, read by the patterns of the
/// [module documentation](self).
///
/// # Examples
///
/// ```
/// use bloom_compare::probe::{BATCH, MemoryProbe};
/// use bloom_core::keys::SplitMix64;
///
/// let probe = MemoryProbe::new(1 << 16, 1);
/// assert_eq!((probe.bytes(), probe.num_lines()), (1 << 16, 1024));
/// let keys: Vec<u64> = SplitMix64(5).take(1000).collect();
/// let odd = probe.read_each(&keys);
/// assert!(odd > 0);
/// assert_eq!(probe.read_bursts::<128>(&keys), odd);
/// assert_eq!(probe.read_bursts::<BATCH>(&keys), probe.read_batched(&keys));
/// assert_eq!(probe.read_pipelined(&keys), odd);
/// ```
#[derive(Debug)]
pub struct MemoryProbe {
    /// The lines, from `offset` on. Bytes rather than words: a line's first word is then at
    /// the line index shifted by 6, an address the CPU forms without a scaled index, which
    /// on some cores (AMD Zen) would add a cycle to every step of the dependent chain.
    memory: Vec<u8>,
    /// Bytes before the first 64-byte boundary of `memory`.
    offset: usize,
    lines: usize,
}

impl MemoryProbe {
    /// A buffer of `bytes` bytes, rounded up to whole lines (at least two), its lines linked
    /// into one random cycle drawn from `seed`.
    ///
    /// # Panics
    ///
    /// If the buffer cannot be allocated.
    pub fn new(bytes: usize, seed: u64) -> MemoryProbe {
        let lines = bytes.div_ceil(LINE_BYTES).max(2);
        let memory = vec![0u8; lines * LINE_BYTES + LINE_BYTES - 1];
        advise_huge_pages(&memory);
        let start = memory.as_ptr() as usize;
        let offset = start.next_multiple_of(LINE_BYTES) - start;
        let mut probe = MemoryProbe {
            memory,
            offset,
            lines,
        };
        for i in 0..lines {
            probe.set_next(i, i);
        }
        // Sattolo: swapping each position with a strictly earlier one yields a single cycle.
        let mut rng = SplitMix64(seed);
        for i in (1..lines).rev() {
            let j = rng.below(i as u64) as usize;
            let (a, b) = (probe.next_of(i), probe.next_of(j));
            probe.set_next(i, b);
            probe.set_next(j, a);
        }
        probe
    }

    /// The buffer's size in bytes: [`num_lines`](MemoryProbe::num_lines) × 64.
    pub fn bytes(&self) -> usize {
        self.lines * LINE_BYTES
    }

    /// The number of 64-byte lines.
    pub fn num_lines(&self) -> usize {
        self.lines
    }

    /// The lines, each 64 bytes, the first one 64-byte aligned.
    #[inline(always)]
    fn lines(&self) -> &[u8] {
        &self.memory[self.offset..self.offset + self.lines * LINE_BYTES]
    }

    /// The index of the line after line `i` in the cycle: line `i`'s first word.
    #[inline(always)]
    fn next_of(&self, i: usize) -> usize {
        next_in(self.lines(), i)
    }

    fn set_next(&mut self, i: usize, next: usize) {
        let at = self.offset + i * LINE_BYTES;
        self.memory[at..at + 8].copy_from_slice(&(next as u64).to_ne_bytes());
    }

    /// The line `key` names: multiply-shift of the key by the number of lines.
    #[inline(always)]
    fn line_of(&self, key: u64) -> usize {
        reduce(key, self.lines as u64) as usize
    }

    /// One line read per key, one key after another: how many of the lines read hold an odd
    /// index.
    pub fn read_each(&self, keys: &[u64]) -> usize {
        self.each_by(keys, |k| self.line_of(k))
    }

    /// The same reads in bursts of [`BATCH`] ([`read_bursts`](MemoryProbe::read_bursts)).
    pub fn read_batched(&self, keys: &[u64]) -> usize {
        self.read_bursts::<BATCH>(keys)
    }

    /// The same reads in bursts of `BURST` keys (the last burst takes what is left): every
    /// line of a burst is prefetched, then every one is read. The burst size is a constant,
    /// as a filter's is, so the compiler can unroll a burst and keep its lines in registers
    /// between the two passes (bursts of 32 in a 16 KiB buffer: 0.5 ns per read, against
    /// 1.1 ns with the size a run-time value). A `BURST` of 0 does not compile.
    pub fn read_bursts<const BURST: usize>(&self, keys: &[u64]) -> usize {
        self.bursts_by::<BURST, _>(keys, |k| self.line_of(k))
    }

    /// The same reads software-pipelined in groups of [`PIPELINE_BATCH`]: the lines of one
    /// group are prefetched, then the previous group is read.
    pub fn read_pipelined(&self, keys: &[u64]) -> usize {
        let line = |k| self.line_of(k);
        let mut groups = keys.chunks(PIPELINE_BATCH);
        let Some(mut ready) = groups.next() else {
            return 0;
        };
        self.prefetch_by(ready, line);
        let mut count = 0;
        for group in groups {
            self.prefetch_by(group, line);
            count += self.each_by(ready, line);
            ready = group;
        }
        count + self.each_by(ready, line)
    }

    // The read loops, generic over how a key names its line: the `read_*` methods take
    // `u64` keys by multiply-shift, as a filter's hash picks its block; the comparison's
    // batched probe takes precomputed line indices, so that its floor pays for the reads
    // alone.

    #[inline(always)]
    fn each_by<K: Copy>(&self, keys: &[K], line: impl Fn(K) -> usize) -> usize {
        let lines = self.lines();
        keys.iter()
            .filter(|&&k| next_in(lines, line(k)) & 1 != 0)
            .count()
    }

    #[inline(always)]
    fn prefetch_by<K: Copy>(&self, keys: &[K], line: impl Fn(K) -> usize) {
        let lines = self.lines();
        for &k in keys {
            prefetch(&lines[line(k) * LINE_BYTES]);
        }
    }

    #[inline(always)]
    fn bursts_by<const N: usize, K: Copy>(&self, keys: &[K], line: impl Fn(K) -> usize) -> usize {
        const { assert!(N > 0, "a burst holds at least one key") };
        let groups = keys.chunks_exact(N);
        let rest = groups.remainder();
        let mut count = 0;
        for group in groups {
            self.prefetch_by(group, &line);
            count += self.each_by(group, &line);
        }
        self.prefetch_by(rest, &line);
        count + self.each_by(rest, &line)
    }

    /// Follows the chain for `steps` reads from line `start`; returns where it stopped.
    #[inline(never)]
    fn chase(&self, start: usize, steps: usize) -> usize {
        let lines = self.lines();
        let mut i = start;
        for _ in 0..steps {
            i = next_in(lines, i);
        }
        i
    }

    /// [`INDEX_COUNT`] random line indices, for [`batched_lines`](MemoryProbe::batched_lines).
    fn random_indices(&self, seed: u64) -> Vec<u32> {
        let mut rng = SplitMix64(seed);
        let count = self.lines as u64;
        (0..INDEX_COUNT).map(|_| rng.below(count) as u32).collect()
    }

    /// The lines `indices` name, read in bursts of [`BATCH`]: the comparison's batched probe.
    #[inline(never)]
    fn batched_lines(&self, indices: &[u32]) -> usize {
        self.bursts_by::<BATCH, _>(indices, |i| i as usize)
    }
}

/// The first word of line `i` of `lines`.
#[inline(always)]
fn next_in(lines: &[u8], i: usize) -> usize {
    let at = i * LINE_BYTES;
    let word: [u8; 8] = lines[at..at + 8].try_into().expect("8 bytes");
    u64::from_ne_bytes(word) as usize
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

/// Measures the dependent and the batched read cost in a fresh buffer of `bytes` bytes, for
/// about `budget` each.
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
    let buffer = MemoryProbe::new(bytes, seed);
    // Warm up: one pass over (up to a million lines of) the chain, so a buffer that fits a
    // cache is in it, as a filter that was just queried would be.
    let warm = buffer.lines.min(1 << 20);
    let mut at = black_box(buffer.chase(0, warm));
    let single_ns = best_ns_per_step(budget, |steps| {
        at = black_box(buffer.chase(at, steps));
    });
    let indices = buffer.random_indices(seed ^ 0x5EED);
    let mut next = 0;
    let batched_ns = best_ns_per_step(budget, |steps| {
        // `steps` reads, cycling through the indices.
        let mut left = steps;
        while left > 0 {
            let run = left.min(indices.len() - next);
            black_box(buffer.batched_lines(&indices[next..next + run]));
            next = (next + run) % indices.len();
            left -= run;
        }
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
    fn the_buffer_has_the_size_and_lines_it_claims() {
        for (bytes, lines) in [
            (0, 2),
            (1, 2),
            (128, 2),
            (129, 3),
            (64 << 10, 1024),
            (5 << 20, 81_920),
        ] {
            let p = MemoryProbe::new(bytes, 1);
            assert_eq!(p.num_lines(), lines, "{bytes} bytes");
            assert_eq!(p.bytes(), lines * LINE_BYTES, "{bytes} bytes");
            // Every line is a whole, 64-byte aligned line inside the allocation.
            assert_eq!(p.lines().as_ptr() as usize % LINE_BYTES, 0);
            assert_eq!(p.lines().len(), lines * LINE_BYTES);
        }
    }

    #[test]
    fn the_chain_is_one_cycle_through_every_line() {
        for count in [2usize, 3, 17, 1000] {
            let p = MemoryProbe::new(count * LINE_BYTES, count as u64);
            let mut seen = vec![false; count];
            let mut i = 0;
            for _ in 0..count {
                assert!(!seen[i], "line {i} visited twice among {count}");
                seen[i] = true;
                i = p.next_of(i);
            }
            assert_eq!(i, 0);
            assert!(seen.iter().all(|&s| s));
            assert_eq!(p.chase(0, count), 0);
        }
    }

    #[test]
    fn every_pattern_reads_the_lines_the_keys_name() {
        let p = MemoryProbe::new(64 * LINE_BYTES, 3);
        let keys: Vec<u64> = SplitMix64(4).take(10_000).collect();
        // The model: the line is the multiply-shift of the key, the answer its word's low bit.
        let lines: Vec<usize> = keys.iter().map(|&k| reduce(k, 64) as usize).collect();
        let odd = lines.iter().filter(|&&l| p.next_of(l) & 1 != 0).count();
        // Random keys name every line, and half the lines hold an odd index.
        assert!((0..64).all(|l| lines.contains(&l)));
        assert!(odd > 0 && odd < keys.len(), "{odd}");
        assert_eq!(p.read_each(&keys), odd);
        assert_eq!(p.read_batched(&keys), odd);
        assert_eq!(p.read_pipelined(&keys), odd);
        assert_eq!(p.read_bursts::<1>(&keys), odd);
        assert_eq!(p.read_bursts::<7>(&keys), odd);
        assert_eq!(p.read_bursts::<128>(&keys), odd);
        assert_eq!(p.read_bursts::<20_000>(&keys), odd);
        let indices: Vec<u32> = lines.iter().map(|&l| l as u32).collect();
        assert_eq!(p.batched_lines(&indices), odd);
        for short in [&keys[..0], &keys[..5], &keys[..PIPELINE_BATCH + 1]] {
            let expected = p.read_each(short);
            assert_eq!(p.read_pipelined(short), expected);
            assert_eq!(p.read_batched(short), expected);
            assert_eq!(p.read_bursts::<3>(short), expected);
        }
    }

    #[test]
    fn the_batched_probe_reads_lines_spread_over_the_buffer() {
        let p = MemoryProbe::new(64 * LINE_BYTES, 3);
        let indices = p.random_indices(1);
        assert_eq!(indices.len(), INDEX_COUNT);
        assert!(indices.iter().all(|&i| i < 64));
        assert!((0..64).all(|l| indices[..10_000].contains(&l)));
        let odd = indices
            .iter()
            .filter(|&&i| p.next_of(i as usize) & 1 != 0)
            .count();
        assert_eq!(p.batched_lines(&indices), odd);
    }

    #[test]
    fn probe_measures_a_buffer_of_the_size_asked() {
        let r = probe(100 * LINE_BYTES + 1, 2, Duration::from_millis(3));
        assert_eq!(r.bytes, 101 * LINE_BYTES);
        assert!(r.single_ns > 0.0 && r.single_ns.is_finite(), "{r:?}");
        assert!(r.batched_ns > 0.0 && r.batched_ns.is_finite(), "{r:?}");
    }
}
