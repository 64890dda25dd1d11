//! The blocked layout: each key's bits in one 512-bit block (a cache line), the block chosen
//! by multiply-shift of its hash, the bits inside it by salted products of its spread word
//! (`probe`'s module docs), tested by the vector kernel the CPU has.

use alloc::{format, vec::Vec};
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use bloom_core::Error;
use bloom_core::engine::{BlockLayout, Layout, Probe, Storage};
use bloom_core::format::Variant;
use bloom_core::hash::Hashing;
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::{self, reduce};

use crate::lines::{self, LineLayout};
use crate::params::{self, Params};
use crate::probe::{self, BLOCK_BITS, Kernel, MAX_PROBES};

/// Words per block.
const BLOCK_WORDS: usize = (BLOCK_BITS / 64) as usize;

/// Keys hashed per burst of a burst insert (each prefetching its one line).
const INSERT_BURST: usize = 64;

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
}

/// The [`Layout`] methods of a layout of one line per key that hand the work to [`lines`]:
/// the single-key test, the prefetch, the inserts, the batch query and the parallel scatter,
/// written once for every [`LineLayout`]; with `hash64`, also the hash of the shared format
/// ([`Hashing::hash64`]). Expanded inside the `impl Layout` of a [`LineLayout`].
macro_rules! line_layout_methods {
    (hash64) => {
        #[inline(always)]
        fn hash<T: Hash + ?Sized>(hashing: &Hashing, key: &T) -> u64 {
            hashing.hash64(key)
        }

        line_layout_methods!();
    };
    () => {
        #[inline(always)]
        unsafe fn contains<S: Storage>(&self, store: &S, hash: u64) -> bool {
            let (first, g) = LineLayout::locate(self, hash);
            // SAFETY: the caller gives a store of this layout's size; `locate` picks a block
            // below `num_blocks`.
            unsafe { lines::test(self, store, first, g) }
        }

        #[inline(always)]
        fn prefetch<S: Storage>(&self, store: &S, hash: u64) {
            S::prefetch_line(store.base(), LineLayout::locate(self, hash).0);
        }

        #[inline]
        fn insert(&self, words: &mut [u64], hash: u64) -> bool {
            lines::insert(self, words, hash)
        }

        #[inline]
        fn insert_shared(&self, words: &[AtomicU64], hash: u64) -> bool {
            lines::insert_shared(self, words, hash)
        }

        fn contains_batch_into<S: Storage, T: Hash>(
            &self,
            hashing: &Self::Hashing,
            store: &S,
            keys: &[T],
            out: &mut Vec<bool>,
        ) {
            lines::contains_batch_into(self, hashing, store, keys, out);
        }

        #[cfg(feature = "rayon")]
        fn par_scatter<T: Hash + Sync>(
            &self,
            hashing: &Self::Hashing,
            words: &mut [u64],
            keys: &[T],
        ) {
            lines::par_scatter(self, hashing, words, keys);
        }
    };
}
pub(crate) use line_layout_methods;

impl Layout for Blocked {
    type Hash = u64;
    type Hashing = Hashing;
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

    line_layout_methods!(hash64);

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
        params::write_block_params(self.num_blocks, self.num_hashes, out);
    }

    fn read_params(params: &[u8]) -> Result<Self, Error> {
        let (num_blocks, num_hashes) = params::read_block_params(params)?;
        if !(1..=MAX_PROBES).contains(&num_hashes) {
            return Err(Error::corrupt(format!(
                "num_hashes {num_hashes} is not in 1..={MAX_PROBES}"
            )));
        }
        Ok(Blocked::of(Params {
            num_blocks,
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
        params::fold_factors(self.num_blocks, other.num_blocks, BLOCK_BITS)
    }

    fn folded(&self, factor: u32) -> Result<Self, Error> {
        Ok(Blocked {
            num_blocks: params::folded_blocks(self.num_blocks, factor)?,
            ..*self
        })
    }
}

impl Blocked {
    fn check_hashes(&self, other: &Self) -> Result<(), Error> {
        Error::check_same("num_hashes", self.num_hashes, other.num_hashes)
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

impl LineLayout for Blocked {
    type Width = crate::probe::Full;

    #[inline(always)]
    fn num_lines(&self) -> u64 {
        self.num_blocks
    }

    #[inline(always)]
    fn locate(&self, hash: u64) -> (usize, u64) {
        Blocked::locate(self, hash)
    }

    #[inline(always)]
    fn test_words(&self, word: impl Fn(usize) -> u64, g: u64) -> bool {
        probe::contains_words(word, g, self.num_hashes)
    }

    #[inline(always)]
    fn with_test<R>(&self, run: impl probe::TestUser<R>) -> R {
        self.kernel.with_test(run)
    }

    #[inline(always)]
    fn with_single_test<R>(&self, run: impl probe::TestUser<R>) -> R {
        self.kernel.with_single_test(run)
    }

    #[inline(always)]
    fn mask(&self, g: u64) -> [u64; 8] {
        probe::mask(g, self.num_hashes)
    }

    #[inline(always)]
    fn set_line(&self, line: &mut [u64; 8], g: u64) -> bool {
        probe::set_bits(line, g, self.num_hashes)
    }
}
