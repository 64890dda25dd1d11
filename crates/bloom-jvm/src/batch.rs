//! Probe sequences, and the queries over them: single keys, inserts, and batches.
//!
//! Both JVM libraries derive a key's k probes from two hashes by repeated addition (after
//! Spark's `BloomFilterImpl.java` / `BloomFilterImplV2.java` and Guava's
//! `BloomFilterStrategies.java`): an accumulator gains a step before each probe, and the probe
//! is the accumulator made non-negative in the library's own way ([`Probing`]), then reduced
//! modulo the bit size. [`Probes`] is that accumulator, so one loop serves every format, and
//! a batch can stop a key's sequence after its first probes and resume it later.
//!
//! Batches: the bit indices of a group of keys are computed and their words prefetched a
//! group ahead of the tests, so a query's memory reads overlap with those of the keys around
//! it instead of following one another (the JVM libraries test one key at a time). In two
//! steps, because an absent key needs only its first clear bit: a group's first [`LEADING`]
//! words are prefetched and, a group later, tested; only the keys whose leading bits are all
//! set (every present key, and about a quarter of the absent ones at the usual half-full
//! filter) have their other probes computed and their words prefetched, and are tested a
//! group later still. An absent key so costs about 3 memory reads and probe computations
//! instead of k. A filter that fits in the L2 cache has no misses to overlap: there the
//! staging would only add work, so its keys are queried one at a time.

use bloom_core::internal::prefetch;

use crate::bits::JvmBits;

/// Keys whose reads are started together.
const GROUP: usize = 16;

/// The most hashes per key the staged path handles; filters with more (which neither
/// library's sizing gives at a sane false-positive rate) are queried one key at a time.
const MAX_STAGED_HASHES: usize = 16;

/// The probes of a key tested before the others are computed and fetched.
const LEADING: usize = 2;

/// How a format turns its accumulator into a non-negative probe value.
pub(crate) trait Probing {
    /// The probe value of `acc`, before the modulo.
    fn value(acc: u64) -> u64;
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

    /// The next probe's bit index.
    #[inline(always)]
    fn next_index<P: Probing>(&mut self, bits: &JvmBits) -> u64 {
        self.acc = self.acc.wrapping_add(self.step);
        bits.index(P::value(self.acc))
    }
}

/// Whether all `k` bits of `probes` are set (a query), stopping at the first clear one.
///
/// In a filter larger than the L2 cache every probe is likely a miss: the words of all k are
/// prefetched before the first test, so a present key's k misses overlap whatever the branch
/// predictor guessed about the previous keys (the JVM's loop, and this one in a small filter,
/// start each read only once the CPU has speculated past the test before it).
#[inline(always)]
pub(crate) fn contains<P: Probing>(bits: &JvmBits, k: u32, probes: Probes) -> bool {
    if bits.beyond_l2() && k as usize <= MAX_STAGED_HASHES {
        contains_prefetched::<P>(bits, k as usize, probes)
    } else {
        contains_in_turn::<P>(bits, k, probes)
    }
}

/// [`contains`] for a filter in the cache: each probe computed and tested in turn.
#[inline(always)]
fn contains_in_turn<P: Probing>(bits: &JvmBits, k: u32, mut probes: Probes) -> bool {
    (0..k).all(|_| bits.get(probes.next_index::<P>(bits)))
}

/// [`contains`] beyond the L2 cache: every word prefetched, then the bits tested in order.
#[inline(always)]
fn contains_prefetched<P: Probing>(bits: &JvmBits, k: usize, mut probes: Probes) -> bool {
    let mut indices = [0u64; MAX_STAGED_HASHES];
    for index in &mut indices[..k] {
        *index = probes.next_index::<P>(bits);
        prefetch(bits.word(*index));
    }
    indices[..k].iter().all(|&i| bits.get(i))
}

/// Sets all `k` bits of `probes` (an insert); whether any was clear.
#[inline(always)]
pub(crate) fn insert<P: Probing>(bits: &mut JvmBits, k: u32, mut probes: Probes) -> bool {
    let mut changed = false;
    for _ in 0..k {
        let index = probes.next_index::<P>(bits);
        changed |= bits.set(index);
    }
    changed
}

/// A group's leading indices, and where each key's sequence stopped.
struct Leading {
    indices: [[u64; LEADING]; GROUP],
    probes: [Probes; GROUP],
    len: usize,
}

/// The other indices of the keys that passed their leading bits, and where their answers go.
struct Rest {
    indices: [[u64; MAX_STAGED_HASHES - LEADING]; GROUP],
    positions: [usize; GROUP],
    len: usize,
}

impl Leading {
    /// Starts the keys' sequences and prefetches their leading words.
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
    if k > MAX_STAGED_HASHES || !bits.beyond_l2() {
        out.extend(
            keys.iter()
                .map(|key| contains::<P>(bits, num_hashes, start(key))),
        );
        return;
    }
    let (lead, others) = (k.min(LEADING), k.saturating_sub(LEADING));
    let leading = || Leading {
        indices: [[0; LEADING]; GROUP],
        probes: [Probes::default(); GROUP],
        len: 0,
    };
    let rest = || Rest {
        indices: [[0; MAX_STAGED_HASHES - LEADING]; GROUP],
        positions: [0; GROUP],
        len: 0,
    };
    // Three groups in flight: `ahead` fetching its leading words, `middle` testing them and
    // fetching the rest, `behind` testing the rest.
    let (mut ahead, mut middle) = (leading(), leading());
    let (mut behind, mut next) = (rest(), rest());
    for group in keys.chunks(GROUP) {
        ahead.fill::<P, K>(bits, lead, group, &start);
        middle.test::<P>(bits, k, out, &mut next);
        behind.test(bits, others, out);
        std::mem::swap(&mut behind, &mut next);
        std::mem::swap(&mut middle, &mut ahead);
    }
    middle.test::<P>(bits, k, out, &mut next);
    behind.test(bits, others, out);
    next.test(bits, others, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Masked;

    impl Probing for Masked {
        fn value(acc: u64) -> u64 {
            acc & (i64::MAX as u64)
        }
    }

    /// splitmix64, for the test's bits and hashes.
    fn mix(i: u64) -> u64 {
        let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn every_path_gives_the_same_answers() {
        // 32 MiB with three bits in four set (an odd number of words), beyond any L2 cache.
        let words: Vec<u64> = (0..(4 << 20) + 3)
            .map(|i| mix(i) | mix(i + (1 << 40)))
            .collect();
        let bits = JvmBits::from_words(words);
        assert!(bits.beyond_l2());
        let starts: Vec<Probes> = (0..20_000)
            .map(|i| Probes::new(mix(3 * i), mix(3 * i + 1)))
            .collect();
        for k in [1u32, 2, 3, 7, 16] {
            let expected: Vec<bool> = starts
                .iter()
                .map(|&p| contains_in_turn::<Masked>(&bits, k, p))
                .collect();
            assert!(expected.iter().any(|&b| b) && expected.iter().any(|&b| !b));
            let prefetched: Vec<bool> = starts
                .iter()
                .map(|&p| contains_prefetched::<Masked>(&bits, k as usize, p))
                .collect();
            assert_eq!(prefetched, expected, "k = {k}");
            let mut batch = Vec::new();
            contains_batch::<Masked, Probes>(&bits, k, &starts, |&p| p, &mut batch);
            assert_eq!(batch, expected, "k = {k}");
        }
    }
}
