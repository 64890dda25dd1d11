//! Queries over the layers of a filter too large for the cache: one key at a time, and a
//! software-pipelined batch.
//!
//! Every layer derives its probes from the key's one hash: step j of the sequence
//! ([`Steps`]) is the same for every layer, and each layer reduces it to its own pair of
//! positions ([`BitStore::pair_set`]). A layer with k probes has `ceil(k / 2)` pairs, the
//! last one a lone probe when k is odd. `docs/scalable.md` has the measurements behind both
//! designs.

use std::hash::Hash;

use bloom_core::bits::BitStore;
use bloom_core::hash::Hashing;
use bloom_core::internal::Steps;
use bloom_core::internal::batch::{BatchQuery, Loop};

use crate::layer::Layer;

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

/// Whether some layer holds every probe of `hash`, for layers in the cache: each layer's own
/// query, newest first (its branch-free fold suits cached bits).
#[inline]
pub(crate) fn contains_hash_cached(layers: &[Layer], hash: u128) -> bool {
    layers
        .iter()
        .rev()
        .any(|layer| layer.filter.contains_hash(hash))
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

/// The scalable filter's query for the workspace's batch engine (`bloom_core::internal::batch`), a
/// pipeline of a staging and three tests (the engine runs them `D` keys apart, D about four
/// keys for seven layers):
///
/// 0. staging: hash the key and prefetch pair 0 of every layer;
/// 1. round 0: test pair 0 of every layer (no branch between layers); the layers that pass,
///    a quarter at the usual fill, prefetch pair 1;
/// 2. round 1: test pair 1 of those; the layers that pass again, a sixteenth, prefetch all
///    their remaining pairs;
/// 3. final test: the rest of those, newest first, stopping at the first layer that holds
///    the key.
///
/// Each stage works on lines prefetched `D` keys earlier, so the cache misses of several
/// keys overlap instead of following one another, and an absent key costs about one line
/// per layer plus a few, all fetched in the background.
pub(crate) struct LayeredBatch<'a> {
    layers: &'a [Layer],
    probes: Vec<LayerProbes<'a>>,
    hashing: Hashing,
}

impl<'a> LayeredBatch<'a> {
    /// The query over `layers`, whose keys are hashed by `hashing`.
    pub(crate) fn new(layers: &'a [Layer], hashing: Hashing) -> Self {
        debug_assert!(layers.len() <= 64, "one bit per layer in the masks");
        LayeredBatch {
            layers,
            probes: layers.iter().map(LayerProbes::new).collect(),
            hashing,
        }
    }
}

impl BatchQuery for LayeredBatch<'_> {
    /// The key's hash, and the mask of its layers still in the running.
    type State = (u128, u64);
    const ROUNDS: usize = 2;
    const LOOP: Loop = Loop::Pipelined;

    fn footprint(&self) -> usize {
        self.probes.iter().map(|p| p.bits.heap_bytes()).sum()
    }

    #[inline(always)]
    fn lines_per_key(&self) -> usize {
        self.probes.len()
    }

    #[inline(always)]
    fn empty(&self) -> (u128, u64) {
        (0, 0)
    }

    #[inline(always)]
    fn stage<T: Hash>(&self, key: &T, _eager: bool) -> (u128, u64) {
        let hash = self.hashing.hash(key);
        let x0 = Steps::new(hash).value();
        for p in self.probes.iter().rev() {
            p.bits.prefetch_pair(x0);
        }
        (hash, 0)
    }

    #[inline(always)]
    fn round(&self, (hash, alive): &mut (u128, u64), round: usize) -> Option<bool> {
        let mut steps = Steps::new(*hash);
        let x0 = steps.next_value();
        if round == 0 {
            let x1 = steps.value();
            for (i, p) in self.probes.iter().enumerate() {
                *alive |= u64::from(p.pair_set(x0, 0)) << i;
            }
            for_each_layer(*alive, |i| {
                let p = self.probes[i];
                if p.num_pairs() > 1 {
                    p.bits.prefetch_pair(x1);
                }
            });
        } else {
            let x1 = steps.next_value();
            let mut left = *alive;
            for_each_layer(*alive, |i| {
                let p = self.probes[i];
                // A layer of one pair (k <= 2) already passed all of it.
                if p.num_pairs() > 1 && !p.pair_set(x1, 1) {
                    left &= !(1 << i);
                } else {
                    p.prefetch_from(steps, 2);
                }
            });
            *alive = left;
        }
        (*alive == 0).then_some(false)
    }

    #[inline(always)]
    fn finish(&self, &(hash, mut alive): &(u128, u64)) -> bool {
        let mut steps = Steps::new(hash);
        steps.next_value();
        steps.next_value();
        while alive != 0 {
            let i = 63 - alive.leading_zeros() as usize;
            alive &= !(1 << i);
            if self.probes[i].holds_from(steps, 2) {
                return true;
            }
        }
        false
    }

    /// The direct loop runs on cached layers.
    #[inline(always)]
    fn contains_now<T: Hash>(&self, key: &T) -> bool {
        contains_hash_cached(self.layers, self.hashing.hash(key))
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
    use bloom_core::Keyed;
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
            let query = LayeredBatch::new(&f.layers, f.hashing());
            for len in [0, 1, 4, 13, 100, queries.len()] {
                let part = &queries[..len.min(queries.len())];
                let mut out = vec![true; 3];
                bloom_core::internal::batch::contains_batch_uncached(&query, part, &mut out);
                prop_assert_eq!(&out[..], &expected[..part.len()]);
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
        let query = LayeredBatch::new(&f.layers, f.hashing());
        bloom_core::internal::batch::contains_batch_uncached(&query, &queries, &mut out);
        for (k, got) in queries.iter().zip(out) {
            assert_eq!(got, naive(&f, f.hash(k)), "{k}");
            assert_eq!(contains_hash(&f.layers, f.hash(k)), got);
        }
    }
}
