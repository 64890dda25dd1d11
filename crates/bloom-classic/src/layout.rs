//! The classic layout: `num_bits` bits, each key setting `num_hashes` of them anywhere in the
//! array, in pairs that share a 512-bit group (`bloom_core::internal::Probes`; the sequence
//! is part of the binary format, `docs/design.md` describes it).

use alloc::{format, vec::Vec};
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use bloom_core::engine::{Layout, Storage};
use bloom_core::format::Variant;
use bloom_core::hash::Hashing;
use bloom_core::internal::batch::{self, ProbeSet};
use bloom_core::internal::float::{Float, Native};
#[cfg(feature = "rayon")]
use bloom_core::internal::probe::PAIR_GROUP;
use bloom_core::internal::{ByteReader, Probes};
use bloom_core::{Error, internal, math};

/// The number of probes `new(n, DEFAULT_FPR)` gives (`optimal_num_hashes` at 1%: 9.59 bits per
/// key, ln 2 times that rounded), whose query the layout unrolls.
const DEFAULT_RATE_HASHES: u32 = 7;

/// Where a key's bits go in a [`BloomFilter`](crate::BloomFilter): `num_bits` bits, each key
/// setting `num_hashes` of them anywhere in the array (in pairs that share a cache line's
/// 512-bit group), the positions derived from the two halves of its 128-bit hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Classic {
    num_bits: u64,
    num_hashes: u32,
    /// Whether a single-key query prefetches its second pair's line before it tests the
    /// first: in a filter past the cache share that queries key by key
    /// ([`direct_max_bytes`](batch::direct_max_bytes)), with a second pair. A function of
    /// the two fields above on this machine, so it never makes two layouts unequal.
    prefetch_second: bool,
}

impl Classic {
    /// The layout of these parameters (checked by the caller).
    fn of(num_bits: u64, num_hashes: u32) -> Classic {
        Classic {
            num_bits,
            num_hashes,
            prefetch_second: num_hashes > 2 && num_bits / 8 > batch::direct_max_bytes(false) as u64,
        }
    }

    #[inline(always)]
    fn probes(&self, hash: u128) -> Probes {
        Probes::new(hash, self.num_hashes, self.num_bits)
    }

    /// The store's word count for these bits: every position's word must exist.
    #[inline(always)]
    fn check_words(&self, len: usize) {
        assert!(
            len as u64 >= self.num_bits.div_ceil(64),
            "{len} words for {} bits",
            self.num_bits
        );
    }
}

impl Layout for Classic {
    type Hash = u128;
    type Hashing = Hashing;
    const NAME: &'static str = "BloomFilter";
    const ATOMIC_NAME: &'static str = "AtomicBloomFilter";
    const VARIANT: Variant = Variant::Classic;
    const PARAMS_LEN: usize = internal::SIZE_AND_HASHES_LEN;
    /// About 64 lines at k = 7: enough misses in flight to keep the memory busy (chosen with
    /// `bloom add`, docs/cli.md).
    const INSERT_BURST: usize = 16;

    /// `m = -n ln p / (ln 2)^2`, `k = (m/n) ln 2`.
    fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        let num_bits = math::optimal_num_bits(expected_items, fpr)?;
        let num_hashes = math::optimal_num_hashes(num_bits, expected_items)?;
        Self::with_params(num_bits, num_hashes)
    }

    fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        internal::check_num_bits(num_bits)?;
        internal::check_num_hashes(num_hashes)?;
        Ok(Classic::of(num_bits, num_hashes))
    }

    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.num_bits
    }

    #[inline(always)]
    fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    #[inline(always)]
    fn hash<T: Hash + ?Sized>(hashing: &Hashing, key: &T) -> u128 {
        hashing.hash(key)
    }

    #[inline(always)]
    unsafe fn contains<S: Storage>(&self, store: &S, hash: u128) -> bool {
        if self.prefetch_second {
            // The second pair's first probe's word lies in the pair's line. An absent key
            // whose first pair passes (a quarter of them at the optimal fill) then finds that
            // line on its way.
            let p1 = Probes::second_pair_position(hash, self.num_bits);
            S::prefetch(store.base(), (p1 >> 6) as usize);
        }
        // SAFETY: the caller gives a store of this layout's size.
        let words = unsafe { Words::unchecked(store) };
        // The default rate's count as a constant, so that the compiler unrolls the pairs'
        // loop for it (docs/design.md, "The default rate's probes, unrolled"); any other
        // count runs the loop.
        if self.num_hashes == DEFAULT_RATE_HASHES {
            words.all_set(Probes::new(hash, DEFAULT_RATE_HASHES, self.num_bits))
        } else {
            words.all_set(self.probes(hash))
        }
    }

    #[inline(always)]
    fn prefetch<S: Storage>(&self, store: &S, hash: u128) {
        // The partner lies in the same 64-byte group, which the first line may not cover
        // entirely when the array is not 64-byte aligned: prefetch both.
        let base = store.base();
        self.probes(hash).all_pairs(|p, q| {
            S::prefetch(base, (p >> 6) as usize);
            S::prefetch(base, (q >> 6) as usize);
            true
        });
    }

    #[inline]
    fn insert(&self, words: &mut [u64], hash: u128) -> bool {
        self.check_words(words.len());
        let mut all = true;
        self.probes(hash).all_pairs(|p, q| {
            let (wp, wq) = ((p >> 6) as usize, (q >> 6) as usize);
            let (mp, mq) = (1u64 << (p & 63), 1u64 << (q & 63));
            // SAFETY: positions are below `num_bits` (multiply-shift maps into
            // `[0, num_bits)`), and `check_words` asserted that `words` has a word for each.
            // Both bits are read before either is set, so a pair that repeats a position
            // (the odd tail) or shares a word reports correctly.
            unsafe {
                all &= (*words.get_unchecked(wp) & mp != 0) & (*words.get_unchecked(wq) & mq != 0);
                *words.get_unchecked_mut(wp) |= mp;
                *words.get_unchecked_mut(wq) |= mq;
            }
            true
        });
        all
    }

    #[inline]
    fn insert_shared(&self, words: &[AtomicU64], hash: u128) -> bool {
        self.check_words(words.len());
        let mut was_present = true;
        self.probes(hash).all_pairs(|p, q| {
            for pos in [p, q] {
                // SAFETY: as in `insert`: positions are below `num_bits`, and `check_words`
                // asserted a word for each.
                let word = unsafe { words.get_unchecked((pos >> 6) as usize) };
                was_present &= internal::or_relaxed(word, 1u64 << (pos & 63));
            }
            true
        });
        was_present
    }

    fn contains_batch_into<S: Storage, T: Hash>(
        &self,
        hashing: &Hashing,
        store: &S,
        keys: &[T],
        out: &mut Vec<bool>,
    ) {
        let words = Words::new(store, self);
        batch::probed_batch_into(&words, *hashing, self.num_hashes, self.num_bits, keys, out);
    }

    fn expected_fpr(&self, num_items: u64) -> f64 {
        math::paired_fpr(self.num_bits, self.num_hashes, num_items)
    }

    fn estimated_len<S: Storage>(&self, store: &S) -> f64 {
        math::estimate_cardinality(self.num_bits, self.num_hashes, store.count_ones())
    }

    /// The expected rate ([`paired_fpr`](bloom_core::math::paired_fpr)) for the number of
    /// keys the fill suggests; 1 when every bit is set.
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64 {
        let n = self.estimated_len(store);
        if n.is_finite() {
            self.expected_fpr(Native::round(n) as u64)
        } else {
            1.0
        }
    }

    fn check_same(&self, other: &Self) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        Error::check_same("num_hashes", self.num_hashes, other.num_hashes)
    }

    fn write_params(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.num_bits.to_le_bytes());
        out[8..12].copy_from_slice(&self.num_hashes.to_le_bytes());
    }

    fn read_params(params: &[u8]) -> Result<Self, Error> {
        let mut r = ByteReader::new(params);
        let (num_bits, num_hashes) = (r.u64()?, r.u32()?);
        if !(1..=math::MAX_NUM_BITS).contains(&num_bits) {
            return Err(Error::corrupt(format!("num_bits {num_bits} out of range")));
        }
        if internal::check_num_hashes(num_hashes).is_err() {
            return Err(Error::corrupt(format!(
                "num_hashes {num_hashes} out of range"
            )));
        }
        Ok(Classic::of(num_bits, num_hashes))
    }

    #[cfg(feature = "rayon")]
    fn par_scatter<T: Hash + Sync>(&self, hashing: &Hashing, words: &mut [u64], keys: &[T]) {
        self.check_words(words.len());
        let layout = *self;
        // One entry per pair of probes (both in one 512-bit group, eight words), packed in
        // one word: half the entries to bucket, move and prefetch that one per probe would be.
        bloom_core::internal::par::par_scatter_grouped(
            words,
            (PAIR_GROUP / 64) as usize,
            keys,
            |key| layout.probes(hashing.hash(key)).pairs().map(pack_pair),
            |e| (pair_first(e) >> 6) as usize,
            |region, base, e| {
                for pos in [pair_first(e), pair_second(e)] {
                    region[(pos >> 6) as usize - base] |= 1 << (pos & 63);
                }
            },
        );
    }
}

/// Bits of a packed pair (the parallel build's entries) that hold its first position: every position is below
/// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS), 2^40.
#[cfg(feature = "rayon")]
const PAIR_FIRST_BITS: u32 = 55;

/// A pair of positions in one [`PAIR_GROUP`] as one word: the first position, and the
/// second's offset from the start of their group in the top nine bits.
#[cfg(feature = "rayon")]
#[inline(always)]
fn pack_pair((p, q): (u64, u64)) -> u64 {
    p | ((q - (p - p % PAIR_GROUP)) << PAIR_FIRST_BITS)
}

/// The first position of a [`pack_pair`] word.
#[cfg(feature = "rayon")]
#[inline(always)]
fn pair_first(e: u64) -> u64 {
    e & ((1 << PAIR_FIRST_BITS) - 1)
}

/// The second position of a [`pack_pair`] word.
#[cfg(feature = "rayon")]
#[inline(always)]
fn pair_second(e: u64) -> u64 {
    let p = pair_first(e);
    p - p % PAIR_GROUP + (e >> PAIR_FIRST_BITS)
}

/// A storage checked to hold a layout's bits: the reads of its probe positions (below the
/// layout's size by construction) need no bounds check. Also the batch engine's view of it.
struct Words<'a, S: Storage> {
    store: &'a S,
    base: S::Base,
}

impl<'a, S: Storage> Words<'a, S> {
    /// # Panics
    ///
    /// If `store` does not hold exactly `layout`'s bits.
    #[inline(always)]
    fn new(store: &'a S, layout: &Classic) -> Self {
        assert_eq!(store.num_bits(), layout.num_bits, "a store of another size");
        // SAFETY: checked just above.
        unsafe { Self::unchecked(store) }
    }

    /// [`new`](Words::new) without the check.
    ///
    /// # Safety
    ///
    /// `store` must hold exactly the bits of the layout whose probes will be tested.
    #[inline(always)]
    unsafe fn unchecked(store: &'a S) -> Self {
        Words {
            store,
            base: store.base(),
        }
    }

    /// Word `pos / 64` shifted so that bit `pos` is bit 0.
    #[inline(always)]
    fn shifted(&self, pos: u64) -> u64 {
        debug_assert!(pos < self.store.num_bits());
        // SAFETY: positions come from `Probes` over the layout's `num_bits` (multiply-shift
        // maps into `[0, num_bits)`), and the store has that many bits (`new` checked it, or
        // the caller of `unchecked` promised it), so `pos / 64` is below its word count; the
        // base is the store's, borrowed for `'a`.
        unsafe { S::read(self.base, (pos >> 6) as usize) >> (pos & 63) }
    }
}

impl<S: Storage> ProbeSet for Words<'_, S> {
    #[inline(always)]
    fn all_set(&self, probes: Probes) -> bool {
        // `Probed` makes its probes over the layout's size, which `new` checked.
        debug_assert_eq!(probes.range(), self.store.num_bits());
        probes.all_pairs(|p, q| self.shifted(p) & self.shifted(q) & 1 != 0)
    }

    #[inline(always)]
    fn prefetch(&self, probes: Probes) {
        probes.all_pairs(|p, q| {
            S::prefetch(self.base, (p >> 6) as usize);
            S::prefetch(self.base, (q >> 6) as usize);
            true
        });
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.store.footprint()
    }
}

/// The prefetch of the second pair, and the parallel build's packed pairs.
#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::keys::SplitMix64;

    /// A filter past the cache share prefetches its second pair's line, one in it does not,
    /// and the answers of both are the probes' definition (every position set).
    #[test]
    fn queries_past_the_cache_share_answer_as_the_definition() {
        let large_bits = 8 * (batch::direct_max_bytes(false) as u64 + 4096);
        for (num_bits, prefetches) in [(100_003, false), (large_bits, true)] {
            let mut filter = crate::BloomFilter::with_params(num_bits, 7).unwrap();
            assert_eq!(filter.layout().prefetch_second, prefetches);
            let keys: Vec<u64> = SplitMix64(4).take(20_000).collect();
            filter.insert_all(&keys);
            assert_answers_as_the_definition(&filter, &keys, 5);
        }
        // Two probes make one pair: nothing to prefetch.
        assert!(!Classic::of(large_bits, 2).prefetch_second);
    }

    /// The default rate gives the count whose query is unrolled, and the unrolled query and
    /// the loop answer as the probes' definition, on both sides of that count.
    #[test]
    fn the_default_rate_count_is_unrolled_and_answers_as_the_definition() {
        for n in [1_000, 100_000, 10_000_000] {
            let filter = crate::BloomFilter::new(n, crate::DEFAULT_FPR).unwrap();
            assert_eq!(filter.num_hashes(), DEFAULT_RATE_HASHES, "{n} keys");
        }
        for k in [
            DEFAULT_RATE_HASHES - 1,
            DEFAULT_RATE_HASHES,
            DEFAULT_RATE_HASHES + 1,
        ] {
            let num_bits = 60_013;
            let mut filter = crate::BloomFilter::with_params(num_bits, k).unwrap();
            let keys: Vec<u64> = SplitMix64(8).take(5_000).collect();
            filter.insert_all(&keys);
            assert_answers_as_the_definition(&filter, &keys, 9);
        }
    }

    /// The atomic insert reports what the plain one reports (whether every bit was set
    /// before) and sets the same bits, for odd and even probe counts.
    #[test]
    fn atomic_inserts_report_and_set_as_the_plain_ones() {
        for k in [1, 2, 6, 7, 13] {
            let mut plain = crate::BloomFilter::with_params(20_011, k).unwrap();
            let atomic = crate::AtomicBloomFilter::with_params(20_011, k).unwrap();
            for key in SplitMix64(k.into()).take(3_000).map(|x| x % 4_000) {
                assert_eq!(atomic.insert(&key), plain.insert(&key), "k = {k}");
            }
            assert_eq!(atomic.into_plain(), plain, "k = {k}");
        }
    }

    /// `filter`, which holds `keys`, answers each of them and 20,000 keys drawn from
    /// `absent_seed` as the probes' definition says (every position set), and holds them all.
    fn assert_answers_as_the_definition(
        filter: &crate::BloomFilter,
        keys: &[u64],
        absent_seed: u64,
    ) {
        let (k, num_bits) = (filter.num_hashes(), filter.num_bits());
        let words = filter.bits().as_words();
        let absent: Vec<u64> = SplitMix64(absent_seed).take(20_000).collect();
        for key in keys.iter().chain(&absent) {
            let set = Probes::new(filter.hash(key), k, num_bits)
                .all(|p| words[(p / 64) as usize] >> (p % 64) & 1 == 1);
            assert_eq!(filter.contains(key), set, "k = {k}, {num_bits} bits");
        }
        assert!(
            keys.iter().all(|key| filter.contains(key)),
            "k = {k}, {num_bits} bits"
        );
    }

    /// Every pair of every key packs into one word and back, in filters of every size up
    /// to the largest (sizes that end in a partial group included).
    #[cfg(feature = "rayon")]
    #[test]
    fn pairs_pack_into_one_word() {
        let mut rng = SplitMix64(21);
        for _ in 0..20_000 {
            let m = 1 + rng.next_u64() % bloom_core::math::MAX_NUM_BITS;
            let k = 1 + (rng.next_u64() % 30) as u32;
            let hash = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            for (p, q) in Probes::new(hash, k, m).pairs() {
                let e = pack_pair((p, q));
                assert_eq!((pair_first(e), pair_second(e)), (p, q), "m {m}");
            }
        }
    }
}
