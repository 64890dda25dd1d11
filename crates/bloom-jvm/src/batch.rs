//! Probe sequences, and the queries over them: single keys, inserts, and batches.
//!
//! Both JVM libraries derive a key's k probes from two hashes by repeated addition (after
//! Spark's `BloomFilterImpl.java` / `BloomFilterImplV2.java` and Guava's
//! `BloomFilterStrategies.java`): an accumulator gains a step before each probe, and the probe
//! is the accumulator made non-negative in the library's own way ([`Probing`]), then reduced
//! modulo the bit size. [`Probes`] is that accumulator, so one loop serves every format, and
//! a batch can stop a key's sequence after its first probes and resume it later.
//!
//! Spark's V2 accumulator makes a progression: its probe values are the accumulator, or its
//! bit inversion when negative, and as long as the k accumulators share a sign (every key
//! but those whose `h1` is within about k of 0) they step by a constant. Then the indices step
//! by that constant modulo the bit size ([`Stride`]): one exact remainder for the first index
//! and one for the step, then an addition and a conditional subtraction per probe, where the
//! general path takes a remainder per probe (two multiplications and a correction). Single
//! queries beyond the L2 cache use it; see [`contains`] for where it does not pay.
//!
//! Batches: the bit indices of a group of keys are computed and their words prefetched a
//! group ahead of the tests, so a query's memory reads overlap with those of the keys around
//! it instead of following one another (the JVM libraries test one key at a time). In two
//! steps, because an absent key needs only its first clear bit: a group's first [`LEADING`]
//! words are prefetched and, a group later, tested; only the keys whose leading bits are all
//! set (every present key, and about a quarter of the absent ones at the usual half-full
//! filter) have their other probes computed and their words prefetched, and are tested a
//! group later still. An absent key so costs about 3 memory reads and probe computations
//! instead of k. A filter that fits in the L2 cache has no misses to overlap: there a group's
//! keys are hashed first and their bits then tested without a branch
//! ([`contains_batch_in_cache`]), which lets the CPU overlap the keys' work.

use bloom_core::internal::prefetch;

use crate::bits::JvmBits;

/// Keys whose reads are started together.
const GROUP: usize = 16;

/// The most hashes per key the staged paths handle (single keys and batches); filters with
/// more (which neither library's sizing gives at a sane false-positive rate) are queried one
/// probe at a time.
const MAX_STAGED_HASHES: usize = 16;

/// The probes of a key tested before the others are computed and fetched.
const LEADING: usize = 2;

/// `function::<K>(args)` with the hash count `k` as the constant `K` when it is 1 to
/// [`MAX_STAGED_HASHES`], so that a key's indices can stay in registers; `fallback` else.
macro_rules! with_constant_count {
    ($k:expr, $function:ident $args:tt, $fallback:expr) => {
        with_constant_count!(@arms $k, $function $args, $fallback;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@arms $k:expr, $function:ident $args:tt, $fallback:expr; $($count:literal)*) => {
        match $k {
            $($count => $function::<$count> $args,)*
            _ => $fallback,
        }
    };
}

/// How a format turns its accumulator into a non-negative probe value.
pub(crate) trait Probing {
    /// The probe value of `acc`, before the modulo.
    fn value(acc: u64) -> u64;

    /// The `k` probe values of `probes` as `(first, delta)` when they are exactly `first`,
    /// `first + delta`, ..., `first + (k - 1) delta` (no wrap-around, no change of form);
    /// `None` when they are not, which the default says of every key.
    #[inline(always)]
    fn progression(_probes: Probes, _k: u32) -> Option<(u64, i64)> {
        None
    }
}

/// A key's probe sequence: an accumulator and the step it gains before each probe.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Probes {
    acc: u64,
    step: u64,
}

impl Probes {
    /// The sequence whose first accumulator is `start + step`.
    #[inline(always)]
    pub(crate) fn new(start: u64, step: u64) -> Self {
        Probes { acc: start, step }
    }

    /// The next probe's value, before the modulo.
    #[inline(always)]
    fn next_value<P: Probing>(&mut self) -> u64 {
        self.acc = self.acc.wrapping_add(self.step);
        P::value(self.acc)
    }

    /// The next probe's bit index.
    #[inline(always)]
    fn next_index<P: Probing>(&mut self, bits: &JvmBits) -> u64 {
        bits.index(self.next_value::<P>())
    }

    /// [`Probing::progression`] for a format whose probe value is the 64-bit accumulator
    /// read as signed, bit-inverted when negative (Spark's V2). When none of the `k`
    /// accumulators overflows and the first and the last have the same sign, all of them
    /// have it (they are monotonic), and the values step by `step` (non-negative
    /// accumulators) or by `-step` (negative ones, since `!(a + s) = !a - s`).
    #[inline(always)]
    pub(crate) fn sign_folded_progression(self, k: u32) -> Option<(u64, i64)> {
        let (start, step) = (self.acc as i64, self.step as i64);
        let first = start.checked_add(step)?;
        let last = start.checked_add(step.checked_mul(i64::from(k))?)?;
        if (first ^ last) < 0 {
            None
        } else if first >= 0 {
            Some((first as u64, step))
        } else {
            Some((!first as u64, step.checked_neg()?))
        }
    }
}

/// The indices of a key whose probe values form a progression: each index is the previous
/// one plus the stride, modulo the bit size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stride {
    /// The next index, below the bit size.
    index: u64,
    /// The progression's step modulo the bit size (in `[0, bit size)`).
    stride: u64,
}

impl Stride {
    /// The indices of the values `first + i * delta`: `first % m` then the step `delta`
    /// modulo `m` (as a non-negative remainder), `m` the bit size.
    #[inline(always)]
    fn new(bits: &JvmBits, (first, delta): (u64, i64)) -> Self {
        let rem = bits.index(delta.unsigned_abs());
        let stride = if delta < 0 && rem != 0 {
            bits.bit_size() - rem
        } else {
            rem
        };
        Stride {
            index: bits.index(first),
            stride,
        }
    }

    /// The next index; `bit_size` is the filter's (at most 2^37, so the sum cannot wrap).
    #[inline(always)]
    fn next(&mut self, bit_size: u64) -> u64 {
        let index = self.index;
        let sum = index + self.stride;
        // `sum - bit_size` wraps to above `sum` when `sum` is below `bit_size`.
        self.index = sum.min(sum.wrapping_sub(bit_size));
        index
    }
}

/// Whether all `k` bits of `probes` are set (a query), stopping at the first clear one.
///
/// In a filter larger than the L2 cache every probe is likely a miss: the words of all k are
/// prefetched before the first test, so a present key's k misses overlap whatever the branch
/// predictor guessed about the previous keys (the JVM's loop, and this one in a small filter,
/// start each read only once the CPU has speculated past the test before it). The
/// prefetches retire without waiting for their lines, so an absent key's query ends with
/// its first clear bit while its other lines are still on their way. There a key whose
/// probes form a progression takes its indices from a [`Stride`] (about 8% faster than a
/// remainder per probe, `docs/distributed.md`); in the cache the remainders are faster (about
/// 10%): each is computed on its own, where the stride's indices follow one another, and
/// with the reads short that chain is what the early exit waits for.
#[inline(always)]
pub(crate) fn contains<P: Probing>(bits: &JvmBits, k: u32, mut probes: Probes) -> bool {
    if !bits.beyond_l2() {
        return contains_in_turn(bits, k, || probes.next_index::<P>(bits));
    }
    match P::progression(probes, k) {
        Some(progression) => {
            let mut stride = Stride::new(bits, progression);
            let bit_size = bits.bit_size();
            contains_prefetched(bits, k, move || stride.next(bit_size))
        }
        None => contains_prefetched(bits, k, move || probes.next_index::<P>(bits)),
    }
}

/// [`contains`] for a filter in the cache: each probe computed and tested in turn.
#[inline(always)]
fn contains_in_turn(bits: &JvmBits, k: u32, mut next: impl FnMut() -> u64) -> bool {
    (0..k).all(|_| bits.get(next()))
}

/// [`contains`] beyond the L2 cache: every word prefetched, then the bits tested in order.
/// The hash count is made a constant for the compiler (up to [`MAX_STAGED_HASHES`]), so
/// the indices stay in registers.
#[inline]
fn contains_prefetched(bits: &JvmBits, k: u32, next: impl FnMut() -> u64) -> bool {
    with_constant_count!(
        k,
        contains_prefetched_k(bits, next),
        contains_in_turn(bits, k, next)
    )
}

/// [`contains_prefetched`] for `K` hashes.
#[inline(always)]
fn contains_prefetched_k<const K: usize>(bits: &JvmBits, mut next: impl FnMut() -> u64) -> bool {
    // Each word is looked up (and its bound checked) once, for the prefetch and the test.
    let mut probes = [(&0u64, 0u64); K];
    for (word, index) in &mut probes {
        *index = next();
        *word = bits.word(*index);
        prefetch(*word);
    }
    probes
        .iter()
        .all(|&(word, index)| word & (1 << (index & 63)) != 0)
}

/// Sets all `k` bits of `probes` (an insert); whether any was clear.
#[inline(always)]
pub(crate) fn insert<P: Probing>(bits: &mut JvmBits, k: u32, mut probes: Probes) -> bool {
    bits.set(k, || probes.next_value::<P>()) != 0
}

/// Prefetches the words all `k` bits of `probes` lie in, ahead of their insert.
#[inline(always)]
pub(crate) fn prefetch_all<P: Probing>(bits: &JvmBits, k: u32, mut probes: Probes) {
    for _ in 0..k {
        prefetch(bits.word(probes.next_index::<P>(bits)));
    }
}

/// A group's leading indices, and where each key's sequence stopped.
#[derive(Default)]
struct Leading {
    indices: [[u64; LEADING]; GROUP],
    probes: [Probes; GROUP],
    len: usize,
}

/// The other indices of the keys that passed their leading bits, and where their answers go.
#[derive(Default)]
struct Rest {
    indices: [[u64; MAX_STAGED_HASHES - LEADING]; GROUP],
    positions: [usize; GROUP],
    len: usize,
}

impl Leading {
    /// Starts the keys' sequences and prefetches their leading words.
    ///
    /// The batch keeps every key on the exact path, one remainder per probe: the stride's two
    /// remainders up front cost more than the leading probes' two, and most absent keys stop
    /// there (measured in `docs/distributed.md`).
    fn fill<P: Probing, K>(
        &mut self,
        bits: &JvmBits,
        lead: usize,
        keys: &[K],
        start: &impl Fn(&K) -> Probes,
    ) {
        for ((slot, state), key) in self.indices.iter_mut().zip(&mut self.probes).zip(keys) {
            let mut probes = start(key);
            for index in &mut slot[..lead] {
                *index = probes.next_index::<P>(bits);
                prefetch(bits.word(*index));
            }
            *state = probes;
        }
        self.len = keys.len();
    }

    /// Tests the leading bits of every key, appending the answers to `out`; the keys that
    /// pass go to `rest` (their answer provisionally `true`), their other words prefetched.
    fn test<P: Probing>(&self, bits: &JvmBits, k: usize, out: &mut Vec<bool>, rest: &mut Rest) {
        rest.len = 0;
        let lead = k.min(LEADING);
        for (slot, probes) in self.indices[..self.len].iter().zip(&self.probes) {
            // No early exit: a branch per bit would be mispredicted for many absent keys.
            let mut all = true;
            for &i in &slot[..lead] {
                all &= bits.get(i);
            }
            if all && k > lead {
                let mut probes = *probes;
                for index in &mut rest.indices[rest.len][..k - lead] {
                    *index = probes.next_index::<P>(bits);
                    prefetch(bits.word(*index));
                }
                rest.positions[rest.len] = out.len();
                rest.len += 1;
            }
            out.push(all);
        }
    }
}

impl Rest {
    /// Tests the other bits of the keys [`Leading::test`] passed on, correcting their answers.
    fn test(&self, bits: &JvmBits, others: usize, out: &mut [bool]) {
        for (slot, &at) in self.indices[..self.len].iter().zip(&self.positions) {
            let mut all = true;
            for &i in &slot[..others] {
                all &= bits.get(i);
            }
            out[at] = all;
        }
    }
}

/// The answer for every key, in order, into `out` (cleared first); `start` hashes a key.
pub(crate) fn contains_batch<P: Probing, K>(
    bits: &JvmBits,
    num_hashes: u32,
    keys: &[K],
    start: impl Fn(&K) -> Probes,
    out: &mut Vec<bool>,
) {
    out.clear();
    out.reserve(keys.len());
    let k = num_hashes as usize;
    if k > MAX_STAGED_HASHES {
        out.extend(
            keys.iter()
                .map(|key| contains::<P>(bits, num_hashes, start(key))),
        );
        return;
    }
    if !bits.beyond_l2() {
        contains_batch_in_cache::<P, K>(bits, num_hashes, keys, start, out);
        return;
    }
    let (lead, others) = (k.min(LEADING), k.saturating_sub(LEADING));
    // Three groups in flight: `ahead` fetching its leading words, `middle` testing them and
    // fetching the rest, `behind` testing the rest. The stages trade places by swapping
    // references, not the kilobytes of state behind them.
    let (mut ahead, mut middle) = (&mut Leading::default(), &mut Leading::default());
    let (mut behind, mut next) = (&mut Rest::default(), &mut Rest::default());
    for group in keys.chunks(GROUP) {
        ahead.fill::<P, K>(bits, lead, group, &start);
        middle.test::<P>(bits, k, out, next);
        behind.test(bits, others, out);
        std::mem::swap(&mut behind, &mut next);
        std::mem::swap(&mut middle, &mut ahead);
    }
    middle.test::<P>(bits, k, out, next);
    behind.test(bits, others, out);
    next.test(bits, others, out);
}

/// [`contains_batch`] for a filter in the cache: a group's keys hashed first, then each
/// key's k bits tested without a branch.
///
/// Key by key, a query is a chain of dependent steps (two hashes, a remainder, a read, a
/// test) that the early exit makes the CPU wait on for every absent key; the JVM's loop and
/// [`contains`] both run at that chain's pace. Split in two passes over a group, each pass
/// is short chains of independent work that the CPU overlaps across keys, and no branch
/// depends on a bit.
fn contains_batch_in_cache<P: Probing, K>(
    bits: &JvmBits,
    num_hashes: u32,
    keys: &[K],
    start: impl Fn(&K) -> Probes,
    out: &mut Vec<bool>,
) {
    let mut starts = [Probes::default(); GROUP];
    for group in keys.chunks(GROUP) {
        for (slot, key) in starts.iter_mut().zip(group) {
            *slot = start(key);
        }
        out.extend(
            starts[..group.len()]
                .iter()
                .map(|&(mut probes)| all_set(bits, num_hashes, || probes.next_index::<P>(bits))),
        );
    }
}

/// Whether the `k` bits `next` gives are all set, tested without a branch on any of them;
/// `k` is made a constant for the compiler up to [`MAX_STAGED_HASHES`].
#[inline(always)]
fn all_set(bits: &JvmBits, k: u32, mut next: impl FnMut() -> u64) -> bool {
    with_constant_count!(
        k,
        all_set_k(bits, next),
        (0..k).fold(true, |all, _| all & bits.get(next()))
    )
}

/// [`all_set`] for `K` bits.
#[inline(always)]
fn all_set_k<const K: usize>(bits: &JvmBits, mut next: impl FnMut() -> u64) -> bool {
    let mut all = true;
    for _ in 0..K {
        all &= bits.get(next());
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guava's value function: no progression.
    struct Masked;

    impl Probing for Masked {
        fn value(acc: u64) -> u64 {
            acc & (i64::MAX as u64)
        }
    }

    /// Spark V2's value function, with its progression.
    struct Folded;

    impl Probing for Folded {
        fn value(acc: u64) -> u64 {
            let c = acc as i64;
            (c ^ (c >> 63)) as u64
        }

        fn progression(probes: Probes, k: u32) -> Option<(u64, i64)> {
            probes.sign_folded_progression(k)
        }
    }

    /// splitmix64, for the test's bits and hashes.
    fn mix(i: u64) -> u64 {
        let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The accumulator a Spark V2 key starts with, from its two 32-bit hashes.
    fn v2_probes(h1: i32, h2: i32) -> Probes {
        Probes::new(
            (i64::from(h1) * i64::from(i32::MAX)) as u64,
            i64::from(h2) as u64,
        )
    }

    /// Starts of every shape: V2's (random, and `h1` near 0, where the accumulator changes
    /// sign), and arbitrary 64-bit ones (which overflow).
    fn starts(count: u64) -> Vec<Probes> {
        (0..count)
            .map(|i| match i % 4 {
                0 | 1 => v2_probes(mix(3 * i) as i32, mix(3 * i + 1) as i32),
                2 => v2_probes((mix(3 * i) % 41) as i32 - 20, mix(3 * i + 1) as i32),
                _ => Probes::new(mix(3 * i), mix(3 * i + 1)),
            })
            .collect()
    }

    /// The reference: each probe's value and remainder computed on its own.
    fn exact_indices<P: Probing>(bits: &JvmBits, k: u32, mut probes: Probes) -> Vec<u64> {
        (0..k).map(|_| probes.next_index::<P>(bits)).collect()
    }

    fn exact_answer<P: Probing>(bits: &JvmBits, k: u32, probes: Probes) -> bool {
        exact_indices::<P>(bits, k, probes)
            .into_iter()
            .all(|i| bits.get(i))
    }

    #[test]
    fn progressions_give_the_exact_indices() {
        let starts = starts(4_000);
        let mut strided = 0;
        for words in [1usize, 3, 1_001, 15_625_013] {
            let bits = JvmBits::from_words(vec![0; words]);
            for k in [1u32, 2, 5, 7, 16, 17, 40] {
                for &probes in &starts {
                    let Some(progression) = Folded::progression(probes, k) else {
                        continue;
                    };
                    strided += 1;
                    let mut stride = Stride::new(&bits, progression);
                    let indices: Vec<u64> = (0..k).map(|_| stride.next(bits.bit_size())).collect();
                    assert_eq!(
                        indices,
                        exact_indices::<Folded>(&bits, k, probes),
                        "{probes:?}, k = {k}, {words} words"
                    );
                }
            }
        }
        // Both forms were taken: the V2-shaped starts stride, most others do not.
        assert!(strided > starts.len() * 4 * 7 / 3 && strided < starts.len() * 4 * 7);
    }

    #[test]
    fn constant_counts_cover_the_staged_ones() {
        fn count<const K: usize>() -> usize {
            K
        }
        for k in 1..=MAX_STAGED_HASHES as u32 {
            assert_eq!(with_constant_count!(k, count(), 0), k as usize);
        }
        assert_eq!(with_constant_count!(0u32, count(), 99), 99);
        assert_eq!(
            with_constant_count!(MAX_STAGED_HASHES as u32 + 1, count(), 99),
            99
        );
    }

    #[test]
    fn sign_changes_and_overflow_leave_the_progression() {
        // h1 = 1: the accumulator starts at 2^31 - 1 and crosses 0 at the second step.
        assert!(
            v2_probes(1, -(1 << 30))
                .sign_folded_progression(3)
                .is_none()
        );
        assert!(
            v2_probes(1, -(1 << 30))
                .sign_folded_progression(1)
                .is_some()
        );
        assert_eq!(v2_probes(0, 5).sign_folded_progression(3), Some((5, 5)));
        assert_eq!(v2_probes(0, -5).sign_folded_progression(3), Some((4, 5)));
        // All negative: values are the inverted accumulators, stepping by -h2.
        assert_eq!(
            Probes::new(-100i64 as u64, 7).sign_folded_progression(3),
            Some((92, -7))
        );
        assert!(
            Probes::new(i64::MAX as u64, 1)
                .sign_folded_progression(1)
                .is_none()
        );
        assert!(Probes::new(0, 1 << 62).sign_folded_progression(2).is_none());
    }

    #[test]
    fn every_path_gives_the_same_answers() {
        // 32 MiB with three bits in four set (an odd number of words), beyond any L2 cache.
        let words: Vec<u64> = (0..(4 << 20) + 3)
            .map(|i| mix(i) | mix(i + (1 << 40)))
            .collect();
        let large = JvmBits::from_words(words);
        assert!(large.beyond_l2());
        let small = JvmBits::from_words((0..1_001).map(|i| mix(i) | mix(i + 7)).collect());
        assert!(!small.beyond_l2());
        let starts = starts(20_000);
        for bits in [&large, &small] {
            for k in [1u32, 2, 3, 7, 16, 17] {
                check_paths::<Masked>(bits, k, &starts);
                check_paths::<Folded>(bits, k, &starts);
            }
        }
    }

    fn check_paths<P: Probing>(bits: &JvmBits, k: u32, starts: &[Probes]) {
        let expected: Vec<bool> = starts
            .iter()
            .map(|&p| exact_answer::<P>(bits, k, p))
            .collect();
        assert!(expected.iter().any(|&b| b) && expected.iter().any(|&b| !b));
        let single: Vec<bool> = starts.iter().map(|&p| contains::<P>(bits, k, p)).collect();
        assert_eq!(single, expected, "k = {k}");
        let prefetched: Vec<bool> = starts
            .iter()
            .map(|&(mut p)| contains_prefetched(bits, k, || p.next_index::<P>(bits)))
            .collect();
        assert_eq!(prefetched, expected, "k = {k}");
        let mut batch = Vec::new();
        contains_batch::<P, Probes>(bits, k, starts, |&p| p, &mut batch);
        assert_eq!(batch, expected, "k = {k}");
        let mut copy = JvmBits::from_words(vec![0; bits.words().len()]);
        for &p in &starts[..64] {
            let first = insert::<P>(&mut copy, k, p);
            assert!(!insert::<P>(&mut copy, k, p) && contains::<P>(&copy, k, p));
            assert!(first || exact_answer::<P>(&copy, k, p));
            for i in exact_indices::<P>(&copy, k, p) {
                assert!(copy.get(i));
            }
        }
    }
}
