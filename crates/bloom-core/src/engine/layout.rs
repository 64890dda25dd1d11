//! The policy a filter crate implements ([`Layout`]), the capability of block layouts
//! ([`BlockLayout`]) and the choice of a layout's test ([`Probe`]).

use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use super::storage::Storage;
use crate::Error;
use crate::hash::KeyHashing;
use crate::internal::simd::Probe;

/// Where one hash's bits go: the policy a filter crate implements to make a filter of the
/// engine.
///
/// A layout value holds the parameters that fix the positions (sizes and the number of
/// bits per key); the engine holds the hashing and the storage. Its methods read and write
/// the bit array only through the storage's words (or the raw words of owned and atomic
/// storage, for inserts), so one implementation serves all three storages.
///
/// A layout promises what every query relies on: every position it derives is below
/// [`num_bits`](Layout::num_bits), and [`insert`](Layout::insert) sets exactly the bits
/// [`contains`](Layout::contains) tests, whatever the storage. The tests of each layout check
/// both against a `HashSet`, on every storage.
pub trait Layout: Copy + Eq + core::fmt::Debug + Send + Sync + 'static {
    /// The hash the layout takes: what `hash` returns and `insert_hash` and `contains_hash`
    /// take (`u128` for the classic layout's two halves, `u64` for a blocked one).
    type Hash: Copy + Default + PartialEq + core::fmt::Debug + Send + Sync;

    /// How the layout's filters hash keys: [`Hashing`](crate::hash::Hashing) (a seed or a
    /// secret key; its filters have `with_seed` and the [`Keyed`](crate::Keyed) methods), or
    /// a hash the layout's format fixes ([`ParquetHash`](crate::hash::ParquetHash)).
    type Hashing: KeyHashing;

    /// The name of the owned filter (the `Filter` trait's `NAME`).
    const NAME: &'static str;

    /// The name of the filter over atomic words.
    const ATOMIC_NAME: &'static str;

    /// The format's variant tag of this layout's bytes.
    const VARIANT: crate::format::Variant;

    /// Bytes of the layout's parameters in the format.
    const PARAMS_LEN: usize;

    /// The layout sized for `expected_items` keys at false-positive rate `fpr`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 keys or a rate outside (0, 1); [`Error::TooLarge`]
    /// for a size beyond the limits.
    fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error>;

    /// The layout of `num_bits` bits and `num_hashes` bits per key.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] or [`Error::TooLarge`] for parameters out of range.
    fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error>;

    /// The number of bits.
    fn num_bits(&self) -> u64;

    /// The number of bits each key sets.
    fn num_hashes(&self) -> u32;

    /// The hash of `key` under `hashing`.
    fn hash<T: Hash + ?Sized>(hashing: &Self::Hashing, key: &T) -> Self::Hash;

    /// Whether every bit of `hash` is set in `store`.
    ///
    /// # Safety
    ///
    /// `store` must hold exactly [`num_bits`](Layout::num_bits) bits (the engine's filters
    /// always do), so that the layout reads its words without a check per query.
    unsafe fn contains<S: Storage>(&self, store: &S, hash: Self::Hash) -> bool;

    /// Prefetches the lines `contains` and `insert` will read for `hash`.
    fn prefetch<S: Storage>(&self, store: &S, hash: Self::Hash);

    /// Sets the bits of `hash` in `words`; whether all of them were set before.
    fn insert(&self, words: &mut [u64], hash: Self::Hash) -> bool;

    /// Sets the bits of `hash` in atomic `words` (`fetch_or`, `Relaxed`); whether all of them
    /// were set before.
    fn insert_shared(&self, words: &[AtomicU64], hash: Self::Hash) -> bool;

    /// The answers for `keys`, in order, into `out` (cleared first): the batch query.
    fn contains_batch_into<S: Storage, T: Hash>(
        &self,
        hashing: &Self::Hashing,
        store: &S,
        keys: &[T],
        out: &mut Vec<bool>,
    );

    /// Keys per burst of a burst insert past the L2 cache: the lines of a burst's keys are
    /// prefetched before any of them is inserted. At most
    /// [`MAX_INSERT_BURST`](crate::internal::batch::MAX_INSERT_BURST) (64), the longest burst
    /// `insert_all` keeps on the stack; a longer one is cut to it.
    const INSERT_BURST: usize;

    /// The filter size in bytes above which `insert_all` inserts in bursts whose lines are
    /// prefetched; up to it, in groups without prefetches. By default the L2 cache's size: in
    /// the cache a classic filter's prefetches cost more than they hide.
    fn bursts_from(&self) -> usize {
        crate::internal::caches::l2_cache_bytes()
    }

    /// The expected false-positive rate after `num_items` distinct keys.
    fn expected_fpr(&self, num_items: u64) -> f64;

    /// The number of keys the bits of `store` suggest (may be infinite when it is full).
    fn estimated_len<S: Storage>(&self, store: &S) -> f64;

    /// The false-positive rate the bits of `store` suggest.
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64;

    /// `Ok` when two layouts put a key's bits in the same places, so their bits combine.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] naming the first parameter that differs.
    fn check_same(&self, other: &Self) -> Result<(), Error>;

    /// The parameters in the format, [`PARAMS_LEN`](Layout::PARAMS_LEN) bytes.
    fn write_params(&self, out: &mut [u8]);

    /// The layout the format's parameters describe.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for parameters out of range.
    fn read_params(params: &[u8]) -> Result<Self, Error>;

    /// The implementation of the test this layout runs: [`Probe::Portable`] unless the layout
    /// has vector kernels.
    fn probe(&self) -> Probe {
        Probe::Portable
    }

    /// The layout running `probe`'s implementation of its test.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the CPU or the layout lacks it.
    fn with_probe(self, probe: Probe) -> Result<Self, Error> {
        match probe {
            Probe::Portable => Ok(self),
            other => Err(Error::invalid(
                "probe",
                alloc::format!("this layout has no {other:?} kernel"),
            )),
        }
    }

    /// The factors by which `self` and `other` must be folded for their bits to combine
    /// (`(1, 1)` for the same layout): a layout that folds combines filters whose sizes
    /// differ by a power of two.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when they cannot combine; by default, when they differ at
    /// all ([`check_same`](Layout::check_same)).
    fn fold_factors(&self, other: &Self) -> Result<(u32, u32), Error> {
        self.check_same(other).map(|()| (1, 1))
    }

    /// Words per block, the unit a fold merges (0 for a layout that does not fold).
    const BLOCK_WORDS: usize = 0;

    /// This layout with `factor` times fewer blocks.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `factor` is not a power of two dividing the blocks,
    /// or the layout does not fold.
    fn folded(&self, factor: u32) -> Result<Self, Error> {
        let _ = factor;
        Err(Error::invalid("factor", "this layout does not fold"))
    }

    /// Whether `par_insert_all` spreads the build over threads by bloom-core's plans (copies
    /// merged in the cache, the scatter past it); `false` where those plans measured slower
    /// than `insert_all` for this layout, whose parallel build is then `insert_all`.
    #[cfg(feature = "rayon")]
    const PARALLEL_BUILD: bool = true;

    /// Sets the bits of every key of `keys` in `words` using all of rayon's threads, with
    /// the same result as inserting them one by one. By default, one by one on this thread.
    #[cfg(feature = "rayon")]
    fn par_scatter<T: Hash + Sync>(&self, hashing: &Self::Hashing, words: &mut [u64], keys: &[T]) {
        for key in keys {
            self.insert(words, Self::hash(hashing, key));
        }
    }
}

/// A layout of fixed-size blocks, each key's bits in one block (the blocked filters): its
/// filters have a block count, fold to a smaller size by OR-ing groups of blocks, and choose
/// the number of bits per key by a block's own formula.
pub trait BlockLayout: Layout {
    /// The number of blocks.
    fn num_blocks(&self) -> u64;

    /// The number of bits per key that gives the lowest rate at `bits_per_key` bits of
    /// memory per key (1 for a value that is not a positive number).
    fn optimal_num_hashes(bits_per_key: f64) -> u32;

    /// The largest power-of-two factor this layout folds by and still has at least
    /// `needed_blocks` blocks (1 when it cannot fold at all).
    fn largest_fold(&self, needed_blocks: u64) -> u32 {
        let blocks = self.num_blocks();
        let mut factor = 1u32;
        while factor < 1 << 31
            && blocks.is_multiple_of(2 * u64::from(factor))
            && blocks / (2 * u64::from(factor)) >= needed_blocks.max(1)
        {
            factor *= 2;
        }
        factor
    }
}
