//! Batch queries: the bit indices of a group of keys are computed and their words prefetched
//! one group ahead of the tests, so a query's memory reads overlap with those of the keys
//! around it instead of following one another (the JVM libraries test one key at a time).

use bloom_core::internal::prefetch;

use crate::bits::JvmBits;

/// Keys whose reads are started together.
const GROUP: usize = 16;

/// The most hashes per key the staged path handles; filters with more (which neither
/// library's sizing gives at a sane false-positive rate) are queried one key at a time.
const MAX_STAGED_HASHES: usize = 16;

/// How a filter turns a key into its bit indices.
pub(crate) trait Scheme {
    /// The key type.
    type Key;
    /// Hashes `key` and passes each of its probe values (before the modulo) to `f`, until
    /// `f` returns `false`; whether it never did.
    fn probes(&self, key: &Self::Key, f: impl FnMut(u64) -> bool) -> bool;
}

/// The bit indices of up to [`GROUP`] keys, their words prefetched.
struct Stage {
    indices: [[u64; MAX_STAGED_HASHES]; GROUP],
    len: usize,
}

impl Stage {
    fn fill<S: Scheme>(&mut self, bits: &JvmBits, scheme: &S, keys: &[S::Key]) {
        for (slot, key) in self.indices.iter_mut().zip(keys) {
            let mut n = 0;
            scheme.probes(key, |p| {
                let index = bits.index(p);
                prefetch(bits.word(index));
                slot[n] = index;
                n += 1;
                true
            });
        }
        self.len = keys.len();
    }

    fn test(&self, bits: &JvmBits, num_hashes: usize, out: &mut Vec<bool>) {
        for slot in &self.indices[..self.len] {
            out.push(slot[..num_hashes].iter().all(|&i| bits.get(i)));
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
    if k > MAX_STAGED_HASHES {
        out.extend(
            keys.iter()
                .map(|key| scheme.probes(key, |p| bits.get(bits.index(p)))),
        );
        return;
    }
    let mut ahead = Stage {
        indices: [[0; MAX_STAGED_HASHES]; GROUP],
        len: 0,
    };
    let mut behind = Stage {
        indices: [[0; MAX_STAGED_HASHES]; GROUP],
        len: 0,
    };
    for group in keys.chunks(GROUP) {
        ahead.fill(bits, scheme, group);
        behind.test(bits, k, out);
        std::mem::swap(&mut ahead, &mut behind);
    }
    behind.test(bits, k, out);
}
