//! Seeded keys for tests, benchmarks and examples: the workspace's one key generator.
//!
//! No filter uses this module; it is here, in the crate every other one depends on, so that
//! the test suite, the benchmarks, the comparison and the filter crates' examples all draw
//! their keys from the same code. It is SplitMix64 (G. L. Steele, D. Lea, C. H. Flood, "Fast
//! splittable pseudorandom number generators", OOPSLA 2014): a 64-bit counter stepped by an
//! odd constant and passed through [`mix`], which is a bijection on `u64`.
//!
//! * [`SplitMix64`]: a seeded stream of values, for random choices and random keys. Two
//!   streams of different seeds rarely share a value (about 2^-64 per pair), but nothing
//!   promises that they never do.
//! * [`distinct_keys`]: keys that are distinct by construction, for a test that needs a
//!   known number of distinct keys, or negatives that can never be positives.
//! * [`RepeatStream`]: the workload of a deduplicator, new ids mixed with repeats of earlier
//!   ones.
//!
//! # Examples
//!
//! ```
//! use bloom_core::keys::{SplitMix64, distinct_keys};
//!
//! let keys: Vec<u64> = SplitMix64(7).take(1000).collect();
//! assert_eq!(keys, SplitMix64(7).take(1000).collect::<Vec<_>>());
//! let roll = SplitMix64(7).below(6);
//! assert!(roll < 6);
//!
//! let positives: Vec<u64> = distinct_keys(0, 1000).collect();
//! let negatives: Vec<u64> = distinct_keys(1 << 40, 1000).collect();
//! assert!(negatives.iter().all(|k| !positives.contains(k)));
//! ```

/// The step of the SplitMix64 counter: 2^64 divided by the golden ratio, made odd.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

pub use crate::internal::digest::mix;

/// SplitMix64: a seeded stream of 64-bit values, the same on every platform and run. The
/// field is the whole state; any value is a seed.
///
/// It is also an endless [`Iterator`] of its values.
///
/// # Examples
///
/// ```
/// use bloom_core::keys::SplitMix64;
///
/// let mut rng = SplitMix64(0);
/// assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
/// assert_eq!(rng.next(), Some(0x6E78_9E6A_A1B9_65F4));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// A value in `[0, bound)`, by multiply-shift of the next value (the high 64 bits of
    /// `value * bound`, as the filters reduce a hash); the bias is below `bound / 2^64`. 0 for
    /// a bound of 0.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        crate::internal::probe::reduce(self.next_u64(), bound)
    }
}

impl Iterator for SplitMix64 {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        Some(self.next_u64())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// `count` keys, distinct by construction: [`mix`] of each of `start`, `start + 1`, …
/// (wrapping). `mix` is a bijection, so calls over ranges that do not overlap never share a
/// key, and a longer call extends a shorter one from the same `start`.
///
/// # Examples
///
/// ```
/// use std::collections::HashSet;
/// use bloom_core::keys::distinct_keys;
///
/// let keys: HashSet<u64> = distinct_keys(u64::MAX - 5, 10_000).collect();
/// assert_eq!(keys.len(), 10_000);
/// ```
pub fn distinct_keys(start: u64, count: u64) -> impl Iterator<Item = u64> {
    (0..count).map(move |i| mix(start.wrapping_add(i)))
}

/// An endless stream of ids, new ones mixed with repeats: the workload of a deduplicator (a
/// crawler's frontier, an event log with retries). New ids come in order, 0, 1, 2, …; about
/// one id in `one_in` repeats an earlier one, drawn uniformly from the ids given so far.
///
/// # Examples
///
/// ```
/// use bloom_core::keys::RepeatStream;
///
/// // Every third id, on average, is a repeat.
/// let mut ids = RepeatStream::new(7, 3);
/// let mut seen = std::collections::HashSet::new();
/// let mut repeats = 0;
/// while ids.num_new() < 10_000 {
///     let id = ids.next_id();
///     assert!(id < ids.num_new());
///     repeats += usize::from(!seen.insert(id));
/// }
/// assert_eq!(seen.len(), 10_000);
/// assert!((4_000..6_000).contains(&repeats), "{repeats}");
/// ```
#[derive(Debug, Clone)]
pub struct RepeatStream {
    rng: SplitMix64,
    one_in: u64,
    num_new: u64,
}

impl RepeatStream {
    /// A stream drawn from `seed` in which about one id in `one_in` is a repeat.
    ///
    /// # Panics
    ///
    /// If `one_in` is 0.
    pub fn new(seed: u64, one_in: u64) -> RepeatStream {
        assert!(one_in > 0, "one id in 0 cannot repeat");
        RepeatStream {
            rng: SplitMix64(seed),
            one_in,
            num_new: 0,
        }
    }

    /// How many new ids the stream has given: they are `0..num_new()`.
    pub fn num_new(&self) -> u64 {
        self.num_new
    }

    /// The next id.
    pub fn next_id(&mut self) -> u64 {
        if self.num_new > 0 && self.rng.next_u64().is_multiple_of(self.one_in) {
            self.rng.next_u64() % self.num_new
        } else {
            self.num_new += 1;
            self.num_new - 1
        }
    }
}

impl Iterator for RepeatStream {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        Some(self.next_id())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn streams_are_deterministic_and_match_the_reference() {
        // The first values of the reference C implementation (Vigna's splitmix64.c) for
        // seed 0.
        let reference = [
            0xE220_A839_7B1D_CDAF,
            0x6E78_9E6A_A1B9_65F4,
            0x06C4_5D18_8009_454F,
        ];
        assert_eq!(SplitMix64(0).take(3).collect::<Vec<_>>(), reference);
        let a: Vec<u64> = SplitMix64(42).take(10_000).collect();
        assert_eq!(a, SplitMix64(42).take(10_000).collect::<Vec<_>>());
        assert_ne!(a, SplitMix64(43).take(10_000).collect::<Vec<_>>());
        // A clone continues the same stream.
        let mut rng = SplitMix64(9);
        rng.next_u64();
        let mut copy = rng.clone();
        assert_eq!(rng.next_u64(), copy.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64(3);
        let mut seen = [false; 7];
        for _ in 0..1_000 {
            let v = rng.below(7);
            assert!(v < 7);
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rng.below(1), 0);
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn distinct_keys_are_distinct_and_disjoint_ranges_share_none() {
        let a: HashSet<u64> = distinct_keys(0, 100_000).collect();
        assert_eq!(a.len(), 100_000);
        let b: Vec<u64> = distinct_keys(100_000, 100_000).collect();
        assert!(b.iter().all(|k| !a.contains(k)));
        // Across the wrap of the counter.
        let c: HashSet<u64> = distinct_keys(u64::MAX - 10, 20).collect();
        assert_eq!(c.len(), 20);
        assert!(c.contains(&mix(u64::MAX)) && c.contains(&mix(0)));
        // Deterministic, and a longer call extends a shorter one.
        let short: Vec<u64> = distinct_keys(5, 10).collect();
        let long: Vec<u64> = distinct_keys(5, 100).collect();
        assert_eq!(short[..], long[..10]);
        assert_eq!(distinct_keys(5, 0).count(), 0);
    }

    #[test]
    fn repeat_streams_give_new_ids_in_order_and_repeat_only_earlier_ones() {
        let ids: Vec<u64> = RepeatStream::new(1, 4).take(100_000).collect();
        assert_eq!(
            ids,
            RepeatStream::new(1, 4).take(100_000).collect::<Vec<_>>()
        );
        let mut num_new = 0;
        for &id in &ids {
            if id == num_new {
                num_new += 1;
            } else {
                assert!(id < num_new, "{id} before {num_new} new ids");
            }
        }
        // About a quarter are repeats.
        let repeats = ids.len() as u64 - num_new;
        assert!((23_000..27_000).contains(&repeats), "{repeats}");
        // One in 1: every id after the first repeats it.
        assert!(RepeatStream::new(2, 1).take(100).all(|id| id == 0));
    }

    #[test]
    #[should_panic]
    fn a_repeat_stream_of_one_in_zero_panics() {
        RepeatStream::new(1, 0);
    }
}
