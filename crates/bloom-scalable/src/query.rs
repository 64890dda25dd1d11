//! Queries over the layers of a filter too large for the cache: one key at a time, and a
//! software-pipelined batch.
//!
//! Every layer derives its probes from the key's one hash: step j of the sequence
//! ([`Steps`]) is the same for every layer, and each layer reduces it to its own pair of
//! positions ([`BitStore::pair_set`]). A layer with k probes has `ceil(k / 2)` pairs, the
//! last one a lone probe when k is odd. `docs/scalable.md` has the measurements behind both
//! designs.

use bloom_core::bits::BitStore;
use bloom_core::hash::Steps;

use crate::layer::Layer;

/// How far apart, in keys, the stages of the batch pipeline run: key t has its first pairs
/// prefetched while key t - D tests them, key t - 2D tests its second pairs and key t - 3D
/// is answered. Four keys of seven layers put about 40 cache lines in flight, more than a
/// core can track at once, so the memory system never idles; distances of 2 and 8
/// measured the same.
const DISTANCE: usize = 4;

/// Slots of the pipeline's ring: the keys between the first stage and the last.
const RING: usize = 4 * DISTANCE;

/// What a query needs of one layer.
#[derive(Clone, Copy)]
struct LayerProbes<'a> {
    bits: &'a BitStore,
    /// Probes per key (k).
    num_hashes: u32,
}

impl<'a> LayerProbes<'a> {
    #[inline(always)]
    fn new(layer: &'a Layer) -> Self {
        LayerProbes {
            bits: layer.filter.bits(),
            num_hashes: layer.filter.num_hashes(),
        }
    }

    /// Pairs per key: `ceil(k / 2)`.
    #[inline(always)]
    fn num_pairs(self) -> u32 {
        self.num_hashes.div_ceil(2)
    }

    /// Whether pair `j` of the key, whose step j is `x`, is set. Pair `k / 2` exists only
    /// when k is odd, and is then the lone last probe.
    #[inline(always)]
    fn pair_set(self, x: u64, j: u32) -> bool {
        self.bits.pair_set(x, j == self.num_hashes / 2)
    }

    /// Whether pairs `from..` are all set, `steps` being at step `from`; stops at the first
    /// pair with a zero bit.
    #[inline(always)]
    fn holds_from(self, mut steps: Steps, from: u32) -> bool {
        (from..self.num_pairs()).all(|j| self.pair_set(steps.next_value(), j))
    }

    /// Prefetches pairs `from..` (`steps` at step `from`).
    #[inline(always)]
    fn prefetch_from(self, mut steps: Steps, from: u32) {
        for _ in from..self.num_pairs() {
            self.bits.prefetch_pair(steps.next_value());
        }
    }
}

/// Whether some layer holds every probe of `hash`: newest (largest) layer first, each
/// layer stopping at its first pair with a zero bit.
///
/// Testing a pair costs one cache line (or two adjacent ones) and one branch. A present
/// key's branches all go one way, so the processor runs ahead through its layer's pairs and
/// their misses overlap; an absent key's first pairs fail in most layers, so the branches
/// are predicted "fail", the next layers' lines are fetched ahead too, and each layer whose
/// first pair happens to pass (a quarter of them) costs a misprediction. Each layer
/// prefetches its second pair before testing its first, so such a layer finds its second
/// pair already on the way.
#[inline]
pub(crate) fn contains_hash(layers: &[Layer], hash: u128) -> bool {
    layers.iter().rev().any(|layer| {
        let probes = LayerProbes::new(layer);
        let mut steps = Steps::new(hash);
        let x0 = steps.next_value();
        if probes.num_pairs() > 1 {
            probes.bits.prefetch_pair(steps.value());
        }
        probes.pair_set(x0, 0) && probes.holds_from(steps, 1)
    })
}

/// The answers for `keys` (`hash` gives each key's hash), pushed to `out` in order, through a
/// software pipeline of four stages `DISTANCE` keys apart:
///
/// 1. prefetch pair 0 of every layer;
/// 2. test pair 0 of every layer (no branch between layers); the layers that pass, a
///    quarter at the usual fill, prefetch pair 1;
/// 3. test pair 1 of those; the layers that pass again, a sixteenth, prefetch all their
///    remaining pairs;
/// 4. test the rest of those, newest first, stopping at the first layer that holds the key.
///
/// Each stage works on lines prefetched `DISTANCE` keys earlier, so the cache misses of
/// several keys overlap instead of following one another, and an absent key costs about
/// one line per layer plus a few, all fetched in the background.
pub(crate) fn contains_pipelined<T>(
    layers: &[Layer],
    keys: &[T],
    hash: impl Fn(&T) -> u128,
    out: &mut Vec<bool>,
) {
    let probes: Vec<LayerProbes<'_>> = layers.iter().map(LayerProbes::new).collect();
    debug_assert!(probes.len() <= 64, "one bit per layer in the masks");
    // Slot t % RING holds key t's hash and the mask of its layers still in the running.
    let mut ring_hash = [0u128; RING];
    let mut ring_alive = [0u64; RING];
    let len = keys.len();
    for t in 0..len + 3 * DISTANCE {
        if let Some(key) = keys.get(t) {
            let h = hash(key);
            ring_hash[t % RING] = h;
            let x0 = Steps::new(h).value();
            for p in probes.iter().rev() {
                p.bits.prefetch_pair(x0);
            }
        }
        if let Some(key) = t.checked_sub(DISTANCE).filter(|&key| key < len) {
            let slot = key % RING;
            let mut steps = Steps::new(ring_hash[slot]);
            let x0 = steps.next_value();
            let x1 = steps.value();
            let mut alive = 0u64;
            for (i, p) in probes.iter().enumerate() {
                alive |= u64::from(p.pair_set(x0, 0)) << i;
            }
            ring_alive[slot] = alive;
            for_each_layer(alive, |i| {
                let p = probes[i];
                if p.num_pairs() > 1 {
                    p.bits.prefetch_pair(x1);
                }
            });
        }
        if let Some(key) = t.checked_sub(2 * DISTANCE).filter(|&key| key < len) {
            let slot = key % RING;
            let mut steps = Steps::new(ring_hash[slot]);
            steps.next_value();
            let x1 = steps.next_value();
            let mut alive = ring_alive[slot];
            for_each_layer(alive, |i| {
                let p = probes[i];
                // A layer of one pair (k <= 2) already passed all of it.
                if p.num_pairs() > 1 && !p.pair_set(x1, 1) {
                    alive &= !(1 << i);
                } else {
                    p.prefetch_from(steps, 2);
                }
            });
            ring_alive[slot] = alive;
        }
        if let Some(key) = t.checked_sub(3 * DISTANCE).filter(|&key| key < len) {
            let slot = key % RING;
            let mut steps = Steps::new(ring_hash[slot]);
            steps.next_value();
            steps.next_value();
            let mut alive = ring_alive[slot];
            let mut found = false;
            while alive != 0 {
                let i = 63 - alive.leading_zeros() as usize;
                alive &= !(1 << i);
                if probes[i].holds_from(steps, 2) {
                    found = true;
                    break;
                }
            }
            out.push(found);
        }
    }
}

/// Calls `f` with the index of every set bit of `mask`, lowest first.
#[inline(always)]
fn for_each_layer(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScalableBloomFilter;
    use proptest::prelude::*;

    /// The reference: every layer asked through its classic filter's own query.
    fn naive(f: &ScalableBloomFilter, hash: u128) -> bool {
        f.layers().iter().any(|l| l.filter().contains_hash(hash))
    }

    fn grown(n0: u64, p: f64, s: u32, r: f64, keys: &[u64]) -> ScalableBloomFilter {
        let mut f = ScalableBloomFilter::builder(n0, p)
            .growth_factor(s)
            .tightening_ratio(r)
            .build()
            .unwrap();
        f.insert_all(keys).unwrap();
        f
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Both queries of this module give the classic filters' answers, on filters of
        /// many layers filled to about half (closed layers), so that keys pass some pairs
        /// of a layer and fail later ones; odd and even k, down to k = 1.
        #[test]
        fn queries_agree_with_each_layers_own_query(
            n0 in 1u64..40,
            s in 2u32..4,
            r in 0.3f64..0.95,
            p in prop_oneof![Just(0.9), Just(0.5), Just(0.1), Just(0.01), Just(0.001)],
            keys in proptest::collection::vec(any::<u64>(), 0..2000),
            extra in proptest::collection::vec(any::<u64>(), 0..300),
        ) {
            let f = grown(n0, p, s, r, &keys);
            // Inserted keys, and others (mostly absent, some false positives).
            let queries: Vec<u64> = keys.iter().step_by(3).chain(&extra).copied().collect();
            let expected: Vec<bool> = queries.iter().map(|k| naive(&f, f.hash(k))).collect();
            let one_by_one: Vec<bool> =
                queries.iter().map(|k| contains_hash(&f.layers, f.hash(k))).collect();
            prop_assert_eq!(&one_by_one, &expected);
            for len in [0, 1, DISTANCE, 3 * DISTANCE + 1, queries.len()] {
                let part = &queries[..len.min(queries.len())];
                let mut out = vec![true; 3];
                contains_pipelined(&f.layers, part, |k| f.hash(k), &mut out);
                prop_assert_eq!(&out[3..], &expected[..part.len()]);
            }
        }
    }

    #[test]
    fn one_layer_of_one_probe() {
        // k = 1: a single lone probe per key.
        let f = grown(1000, 0.9, 2, 0.5, &(0..500u64).collect::<Vec<_>>());
        assert_eq!(f.layers()[0].filter().num_hashes(), 1);
        let queries: Vec<u64> = (0..3000).collect();
        let mut out = Vec::new();
        contains_pipelined(&f.layers, &queries, |k| f.hash(k), &mut out);
        for (k, got) in queries.iter().zip(out) {
            assert_eq!(got, naive(&f, f.hash(k)), "{k}");
            assert_eq!(contains_hash(&f.layers, f.hash(k)), got);
        }
    }
}
