//! Batch queries: the bit indices of a group of keys are computed and their words prefetched
//! a group ahead of the tests, so a query's memory reads overlap with those of the keys
//! around it instead of following one another (the JVM libraries test one key at a time).
//!
//! In two steps, because an absent key needs only its first clear bit: a group's first
//! [`LEADING`] words are prefetched and, a group later, tested; only the keys whose leading
//! bits are all set (every present key, and about a quarter of the absent ones at the usual
//! half-full filter) have their other words prefetched, and are tested a group later still.
//! An absent key so costs about 3 memory reads instead of k, where memory-level parallelism,
//! not instructions, bounds the speed.
//!
//! A filter that fits in the L2 cache has no misses to overlap: there the staging would only
//! add work, so its keys are queried one at a time.

use bloom_core::internal::caches::l2_cache_bytes;
use bloom_core::internal::prefetch;

use crate::bits::JvmBits;

/// Keys whose reads are started together.
const GROUP: usize = 16;

/// The most hashes per key the staged path handles; filters with more (which neither
/// library's sizing gives at a sane false-positive rate) are queried one key at a time.
const MAX_STAGED_HASHES: usize = 16;

/// The probes of a key tested before the others are fetched.
const LEADING: usize = 2;

/// How a filter turns a key into its bit indices.
pub(crate) trait Scheme {
    /// The key type.
    type Key;
    /// Hashes `key` and passes each of its probe values (before the modulo) to `f`, until
    /// `f` returns `false`; whether it never did.
    fn probes(&self, key: &Self::Key, f: impl FnMut(u64) -> bool) -> bool;
}

/// The bit indices of up to [`GROUP`] keys, and where their answers go in the output.
struct Stage {
    indices: [[u64; MAX_STAGED_HASHES]; GROUP],
    positions: [usize; GROUP],
    len: usize,
}

impl Stage {
    fn new() -> Self {
        Stage {
            indices: [[0; MAX_STAGED_HASHES]; GROUP],
            positions: [0; GROUP],
            len: 0,
        }
    }

    /// Computes every index of `keys`, and prefetches the leading ones.
    fn fill<S: Scheme>(&mut self, bits: &JvmBits, scheme: &S, keys: &[S::Key]) {
        for (slot, key) in self.indices.iter_mut().zip(keys) {
            let mut n = 0;
            scheme.probes(key, |p| {
                let index = bits.index(p);
                if n < LEADING {
                    prefetch(bits.word(index));
                }
                slot[n] = index;
                n += 1;
                true
            });
        }
        self.len = keys.len();
    }

    /// Tests the leading bits of every key, appending the answers to `out`; the keys that
    /// pass go to `rest` (their answer provisionally `true`), their other words prefetched.
    fn test_leading(&self, bits: &JvmBits, k: usize, out: &mut Vec<bool>, rest: &mut Stage) {
        rest.len = 0;
        let lead = k.min(LEADING);
        for slot in &self.indices[..self.len] {
            // No early exit: a branch per bit would be mispredicted for many absent keys.
            let mut all = true;
            for &i in &slot[..lead] {
                all &= bits.get(i);
            }
            if all && k > lead {
                for &i in &slot[lead..k] {
                    prefetch(bits.word(i));
                }
                rest.indices[rest.len] = *slot;
                rest.positions[rest.len] = out.len();
                rest.len += 1;
            }
            out.push(all);
        }
    }

    /// Tests the other bits of the keys `test_leading` passed on, correcting their answers.
    fn test_rest(&self, bits: &JvmBits, k: usize, out: &mut [bool]) {
        for (slot, &at) in self.indices[..self.len].iter().zip(&self.positions) {
            let mut all = true;
            for &i in &slot[LEADING..k] {
                all &= bits.get(i);
            }
            out[at] = all;
        }
    }
}

/// The answer for every key, in order, into `out` (cleared first).
pub(crate) fn contains_batch<S: Scheme>(
    bits: &JvmBits,
    scheme: &S,
    num_hashes: u32,
    keys: &[S::Key],
    out: &mut Vec<bool>,
) {
    out.clear();
    out.reserve(keys.len());
    let k = num_hashes as usize;
    if k > MAX_STAGED_HASHES || bits.words().len() * 8 <= l2_cache_bytes() {
        out.extend(
            keys.iter()
                .map(|key| scheme.probes(key, |p| bits.get(bits.index(p)))),
        );
        return;
    }
    // Three groups in flight: `ahead` fetching its leading words, `middle` testing them and
    // fetching the rest, `behind` testing the rest.
    let (mut ahead, mut middle, mut behind, mut next) =
        (Stage::new(), Stage::new(), Stage::new(), Stage::new());
    for group in keys.chunks(GROUP) {
        ahead.fill(bits, scheme, group);
        middle.test_leading(bits, k, out, &mut next);
        behind.test_rest(bits, k, out);
        std::mem::swap(&mut behind, &mut next);
        std::mem::swap(&mut middle, &mut ahead);
    }
    middle.test_leading(bits, k, out, &mut next);
    behind.test_rest(bits, k, out);
    next.test_rest(bits, k, out);
}
