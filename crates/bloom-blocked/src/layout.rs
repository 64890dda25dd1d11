//! The blocked layout: each key's bits in one 512-bit block (a cache line), the block chosen
//! by multiply-shift of its hash, the bits inside it by salted products of its spread word
//! (`probe`'s module docs), tested by the vector kernel the CPU has.

use alloc::{format, vec::Vec};
use core::hash::Hash;
use core::sync::atomic::{AtomicU64, Ordering};

use bloom_core::engine::{BlockLayout, Layout, Probe, Storage};
use bloom_core::format::Variant;
use bloom_core::hash::Hashing;
use bloom_core::internal::batch::{self, Lines, OneLine};
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::{self, ByteReader, reduce};
use bloom_core::{Error, math};

use crate::params::{self, Params};
use crate::probe::{self, BLOCK_BITS, Kernel, MAX_PROBES};

/// Words per block.
const BLOCK_WORDS: usize = (BLOCK_BITS / 64) as usize;

/// Keys hashed per burst of a burst insert (each prefetching its one line).
const INSERT_BURST: usize = 64;

/// Keys of a keyed filter's batch query hashed at a time (in SIMD lanes) before they are
/// tested: enough to amortise the lanes' setup, few enough to stay in L1.
const KEYED_BATCH_CHUNK: usize = 4096;

/// Where a key's bits go in a [`BlockedBloomFilter`](crate::BlockedBloomFilter): `num_hashes`
/// bits in one of `num_blocks` 512-bit blocks, and the kernel that tests them (chosen from
/// the CPU when the filter is built; it never changes an answer, so two layouts are equal
/// whatever their kernels).
#[derive(Debug, Clone, Copy)]
pub struct Blocked {
    num_blocks: u64,
    num_hashes: u32,
    kernel: Kernel,
}

impl PartialEq for Blocked {
    fn eq(&self, other: &Self) -> bool {
        self.num_blocks == other.num_blocks && self.num_hashes == other.num_hashes
    }
}

impl Eq for Blocked {}

impl Blocked {
    fn of(params: Params) -> Blocked {
        Blocked {
            num_blocks: params.num_blocks,
            num_hashes: params.num_hashes,
            kernel: Kernel::new(Probe::best(), params.num_hashes),
        }
    }

    /// The first word of `hash`'s block and its spread word.
    #[inline(always)]
    fn locate(&self, hash: u64) -> (usize, u64) {
        // Below `num_blocks`, which exists in memory, so the product fits a `usize`.
        let block = reduce(hash, self.num_blocks) as usize;
        (block * BLOCK_WORDS, probe::spread(hash))
    }

    /// The test of the block at word `first` of `store`, a store of this layout's size:
    /// the kernel on the line's bytes where the storage lends them, the portable test of its
    /// words where it does not.
    ///
    /// # Safety
    ///
    /// `store` must hold `self.num_bits()` bits and `first` be the first word of one of its
    /// blocks.
    #[inline(always)]
    unsafe fn test<S: Storage>(&self, store: &S, first: usize, g: u64) -> bool {
        let base = store.base();
        if S::LINES {
            // SAFETY: the caller's contract puts the block's eight words in the store, which
            // `base` is of.
            return self.kernel.contains_le(unsafe { S::line(base, first) }, g);
        }
        let block = S::advance(base, first);
        // SAFETY: as above, for each of the block's words, read from the block's base.
        probe::contains_words(|w| unsafe { S::read(block, w) }, g, self.num_hashes)
    }

    /// # Panics
    ///
    /// If `store` does not hold exactly this layout's bits.
    #[inline(always)]
    fn check_store<S: Storage>(&self, store: &S) {
        assert_eq!(store.num_bits(), self.num_bits(), "a store of another size");
    }
}

impl Layout for Blocked {
    type Hash = u64;
    const NAME: &'static str = "BlockedBloomFilter";
    const ATOMIC_NAME: &'static str = "AtomicBlockedBloomFilter";
    const VARIANT: Variant = Variant::Blocked;
    const PARAMS_LEN: usize = internal::SIZE_AND_HASHES_LEN;
    const INSERT_BURST: usize = INSERT_BURST;
    const BLOCK_WORDS: usize = BLOCK_WORDS;

    /// The smallest number of blocks, and the k, whose rate by the blocked formula
    /// ([`blocked_fpr_replacement`](bloom_core::math::blocked_fpr_replacement)) is at most
    /// `fpr` for `expected_items` keys (docs/blocked.md).
    fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Params::for_items(expected_items, fpr).map(Blocked::of)
    }

    /// `num_bits` rounded up to whole 512-bit blocks, `num_hashes` from 1 to 16.
    fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Params::with_bits(num_bits, num_hashes).map(Blocked::of)
    }

    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.num_blocks * BLOCK_BITS
    }

    #[inline(always)]
    fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    #[inline(always)]
    fn hash<T: Hash + ?Sized>(hashing: &Hashing, key: &T) -> u64 {
        hashing.hash64(key)
    }

    #[inline(always)]
    unsafe fn contains<S: Storage>(&self, store: &S, hash: u64) -> bool {
        let (first, g) = self.locate(hash);
        // SAFETY: the caller gives a store of this layout's size; `locate` picks a block
        // below `num_blocks`.
        unsafe { self.test(store, first, g) }
    }

    #[inline(always)]
    fn prefetch<S: Storage>(&self, store: &S, hash: u64) {
        S::prefetch_line(store.base(), self.locate(hash).0);
    }

    #[inline]
    fn insert(&self, words: &mut [u64], hash: u64) -> bool {
        let (first, g) = self.locate(hash);
        let block = &mut words[first..first + BLOCK_WORDS];
        let mut was = true;
        for i in 0..self.num_hashes {
            let p = probe::position(g, i);
            let (word, bit) = (&mut block[(p >> 6) as usize], 1u64 << (p & 63));
            was &= *word & bit != 0;
            *word |= bit;
        }
        was
    }

    #[inline]
    fn insert_shared(&self, words: &[AtomicU64], hash: u64) -> bool {
        let (first, g) = self.locate(hash);
        let block = &words[first..first + BLOCK_WORDS];
        let mut was_present = true;
        for (word, m) in block.iter().zip(probe::mask(g, self.num_hashes)) {
            // Skipping the locked write when the bits are set already keeps the line shared
            // between cores instead of bouncing it on every insert of a known key.
            if m != 0 && word.load(Ordering::Relaxed) & m != m {
                was_present &= word.fetch_or(m, Ordering::Relaxed) & m == m;
            }
        }
        was_present
    }

    fn contains_batch_into<S: Storage, T: Hash>(
        &self,
        hashing: &Hashing,
        store: &S,
        keys: &[T],
        out: &mut Vec<bool>,
    ) {
        self.check_store(store);
        if !hashing.is_keyed() {
            batch_into::<S, T, false>(self, store, hashing, keys, out);
            return;
        }
        // Keyed: SipHash in SIMD lanes for a chunk of keys, then the chunk's hashes tested.
        out.clear();
        out.reserve(keys.len());
        let (mut hashes, mut answers) = (Vec::new(), Vec::new());
        for chunk in keys.chunks(KEYED_BATCH_CHUNK) {
            hashing.hash64_batch(chunk, &mut hashes);
            batch_into::<S, u64, true>(self, store, hashing, &hashes, &mut answers);
            out.extend_from_slice(&answers);
        }
    }

    fn expected_fpr(&self, num_items: u64) -> f64 {
        params::theory_fpr(self.num_blocks, self.num_hashes, num_items)
    }

    /// The sum over blocks of the keys each block's fill suggests (a block of x bits set
    /// holds about `ln(1 - x/512) / (k ln(1 - 1/512))` keys).
    fn estimated_len<S: Storage>(&self, store: &S) -> f64 {
        let b = BLOCK_BITS as f64;
        let per_key = f64::from(self.num_hashes) * Native::ln_1p(-1.0 / b);
        block_fills(store)
            .map(|x| {
                if u64::from(x) >= BLOCK_BITS {
                    f64::INFINITY
                } else {
                    Native::ln_1p(-f64::from(x) / b) / per_key
                }
            })
            .sum()
    }

    /// The mean over blocks of `(x/512)^k`, the chance a query's k bits are all set in a
    /// block with x bits set.
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64 {
        let b = BLOCK_BITS as f64;
        let k = self.num_hashes as i32;
        let table: Vec<f64> = (0..=BLOCK_BITS)
            .map(|x| Native::powi(x as f64 / b, k))
            .collect();
        block_fills(store).map(|x| table[x as usize]).sum::<f64>() / self.num_blocks as f64
    }

    fn check_same(&self, other: &Self) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits(), other.num_bits())?;
        self.check_hashes(other)
    }

    fn write_params(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.num_bits().to_le_bytes());
        out[8..12].copy_from_slice(&self.num_hashes.to_le_bytes());
    }

    fn read_params(params: &[u8]) -> Result<Self, Error> {
        let mut r = ByteReader::new(params);
        let (num_bits, num_hashes) = (r.u64()?, r.u32()?);
        if num_bits == 0 || num_bits % BLOCK_BITS != 0 || num_bits > math::MAX_NUM_BITS {
            return Err(Error::corrupt(format!(
                "num_bits {num_bits} is not a whole number of 512-bit blocks in range"
            )));
        }
        if !(1..=MAX_PROBES).contains(&num_hashes) {
            return Err(Error::corrupt(format!(
                "num_hashes {num_hashes} is not in 1..={MAX_PROBES}"
            )));
        }
        Ok(Blocked::of(Params {
            num_blocks: num_bits / BLOCK_BITS,
            num_hashes,
        }))
    }

    /// Always in bursts, whatever the size: one line per key keeps a burst cheap.
    fn bursts_from(&self) -> usize {
        0
    }

    fn probe(&self) -> Probe {
        self.kernel.probe()
    }

    fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        self.kernel = Kernel::new(probe, self.num_hashes);
        Ok(self)
    }

    /// Same k, and sizes a power of two apart: the larger folds to the smaller.
    fn fold_factors(&self, other: &Self) -> Result<(u32, u32), Error> {
        self.check_hashes(other)?;
        let (ours, theirs) = (self.num_blocks, other.num_blocks);
        if ours == theirs {
            Ok((1, 1))
        } else if ours < theirs {
            Ok((
                1,
                params::fold_factor(theirs as usize, ours as usize, BLOCK_BITS)?,
            ))
        } else {
            Ok((
                params::fold_factor(ours as usize, theirs as usize, BLOCK_BITS)?,
                1,
            ))
        }
    }

    fn folded(&self, factor: u32) -> Result<Self, Error> {
        if !factor.is_power_of_two() || self.num_blocks % u64::from(factor) != 0 {
            return Err(Error::invalid(
                "factor",
                format!(
                    "must be a power of two dividing the {} blocks (got {factor})",
                    self.num_blocks
                ),
            ));
        }
        Ok(Blocked {
            num_blocks: self.num_blocks / u64::from(factor),
            ..*self
        })
    }

    #[cfg(feature = "rayon")]
    fn par_scatter<T: Hash + Sync>(&self, hashing: &Hashing, words: &mut [u64], keys: &[T]) {
        assert_eq!(words.len(), self.num_blocks as usize * BLOCK_WORDS);
        // SAFETY: `[u64; 8]` has the layout of eight consecutive `u64` (alignment 8), and
        // `words` holds exactly `num_blocks` of them (asserted above); the exclusive borrow
        // moves to the block slice for its life.
        let blocks: &mut [[u64; BLOCK_WORDS]] = unsafe {
            core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() / BLOCK_WORDS)
        };
        let layout = *self;
        bloom_core::internal::par::par_scatter_into(
            blocks,
            keys,
            |key| {
                let hash = hashing.hash64(key);
                [(reduce(hash, layout.num_blocks) as usize, hash)]
            },
            |(block, _)| block,
            |block, (_, hash)| {
                // The block was chosen above: insert into it as into the whole array.
                let g = probe::spread(hash);
                for i in 0..layout.num_hashes {
                    let p = probe::position(g, i);
                    block[(p >> 6) as usize] |= 1u64 << (p & 63);
                }
            },
        );
    }
}

impl Blocked {
    fn check_hashes(&self, other: &Self) -> Result<(), Error> {
        Error::check_same(
            "num_hashes",
            u64::from(self.num_hashes),
            u64::from(other.num_hashes),
        )
    }
}

impl BlockLayout for Blocked {
    #[inline]
    fn num_blocks(&self) -> u64 {
        self.num_blocks
    }

    fn optimal_num_hashes(bits_per_key: f64) -> u32 {
        params::optimal_num_hashes(bits_per_key)
    }
}

/// The number of bits set in each block, in order.
fn block_fills<S: Storage>(store: &S) -> impl Iterator<Item = u32> + '_ {
    let mut words = store.words();
    core::iter::from_fn(move || {
        let mut fill = 0;
        for _ in 0..BLOCK_WORDS {
            fill += words.next()?.count_ones();
        }
        Some(fill)
    })
}

/// A hasher that passes a `u64` through: the batch query of pre-computed hashes (a keyed
/// filter's, from the SIMD lanes) feeds them as keys.
#[derive(Default)]
struct Passthrough(u64);

impl core::hash::Hasher for Passthrough {
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys come here, through `write_u64`; fold anything else in anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The batch query over any storage, the kernel's test chosen once outside the loop
/// ([`Kernel::with_test`]); `PREHASHED` keys are the hashes themselves.
#[inline(always)]
fn batch_into<S: Storage, T: Hash, const PREHASHED: bool>(
    layout: &Blocked,
    store: &S,
    hashing: &Hashing,
    keys: &[T],
    out: &mut Vec<bool>,
) {
    struct Run<'k, S, T, const PREHASHED: bool> {
        layout: &'k Blocked,
        store: &'k S,
        hashing: Hashing,
        keys: &'k [T],
        out: &'k mut Vec<bool>,
    }
    impl<S: Storage, T: Hash, const PREHASHED: bool> probe::TestUser<()> for Run<'_, S, T, PREHASHED> {
        #[inline(always)]
        fn run(self, test: impl Fn(&[u8; 64], u64) -> bool + Copy) {
            let query = BatchOf::<S, _, PREHASHED> {
                layout: self.layout,
                store: self.store,
                base: self.store.base(),
                hashing: self.hashing,
                test,
            };
            batch::contains_batch_into(&Lines(&query), self.keys, self.out);
        }
    }
    layout.kernel.with_test(Run::<S, T, PREHASHED> {
        layout,
        store,
        hashing: *hashing,
        keys,
        out,
    });
}

/// The batch engine's view of a blocked filter: one line per key. Made only by
/// `contains_batch_into`, after the store's size is checked.
struct BatchOf<'a, S: Storage, Q, const PREHASHED: bool> {
    layout: &'a Blocked,
    store: &'a S,
    /// The store's words, taken once: the loops hold it in a register.
    base: S::Base,
    hashing: Hashing,
    test: Q,
}

impl<S: Storage, Q: Fn(&[u8; 64], u64) -> bool, const PREHASHED: bool> OneLine
    for BatchOf<'_, S, Q, PREHASHED>
{
    type Staged = (usize, u64);

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.store.footprint()
    }

    #[inline(always)]
    fn locate<T: Hash>(&self, key: &T) -> (usize, u64) {
        let hash = if PREHASHED {
            let mut passthrough = Passthrough::default();
            key.hash(&mut passthrough);
            core::hash::Hasher::finish(&passthrough)
        } else {
            self.hashing.hash64(key)
        };
        self.layout.locate(hash)
    }

    #[inline(always)]
    fn prefetch(&self, (first, _): (usize, u64)) {
        S::prefetch_line(self.base, first);
    }

    #[inline(always)]
    fn test(&self, (first, g): (usize, u64)) -> bool {
        if S::LINES {
            // SAFETY: `contains_batch_into` checked the store's size (the base is its), and
            // `locate` picked a block below `num_blocks`.
            return (self.test)(unsafe { S::line(self.base, first) }, g);
        }
        let block = S::advance(self.base, first);
        // SAFETY: as above, for each of the block's words, read from the block's base.
        probe::contains_words(|w| unsafe { S::read(block, w) }, g, self.layout.num_hashes)
    }

    #[inline(always)]
    fn empty(&self) -> (usize, u64) {
        (0, 0)
    }
}
