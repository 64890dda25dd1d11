//! The three storages a fixed-size filter's words live in: owned words ([`BitStore`]),
//! atomic words ([`AtomicBitStore`], `fetch_or` with `Relaxed` ordering) and borrowed
//! little-endian bytes ([`LeBits`], a view over a memory map). A layout reads every one of
//! them through [`Storage`], so a query is written once for all three.

use core::sync::atomic::Ordering;

use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};
use crate::internal::memory::prefetch;

/// Read access to a filter's bit array: what every query of every layout needs from the
/// memory its bits live in.
///
/// Bit `i` is bit `i % 64` (from the least significant) of word `i / 64`, whatever the
/// storage; bits past [`num_bits`](Storage::num_bits) in the last word are zero.
pub trait Storage: sealed::Sealed {
    /// The number of bits.
    fn num_bits(&self) -> u64;

    /// Word `index`, which must be below `num_bits().div_ceil(64)`.
    ///
    /// # Panics
    ///
    /// May panic (or, in a release build, read another word of the array) for an index out
    /// of range; layouts derive indices from positions below `num_bits`.
    fn word(&self, index: usize) -> u64;

    /// Brings the cache line of word `index` closer to the core, without waiting for it.
    fn prefetch_word(&self, index: usize);

    /// Brings the 64 bytes of words `first..first + 8` closer to the core: one line where
    /// the storage is aligned, both lines a block may straddle where it is not.
    #[inline(always)]
    fn prefetch_line(&self, first: usize) {
        self.prefetch_word(first);
        self.prefetch_word(first + 7);
    }

    /// Bytes the queries read from: the array's size, which the batch engine chooses its
    /// loop by.
    fn footprint(&self) -> usize;

    /// Bytes of memory the storage owns (0 for a borrowed view).
    fn heap_bytes(&self) -> usize;

    /// Every word in order, each read once: the payload of `to_bytes`.
    fn words(&self) -> impl Iterator<Item = u64> + '_;

    /// Whether [`line`](Storage::line) gives the bytes of a cache line, for the vector
    /// kernels (false for atomic words, which only atomic loads may read).
    const LINES: bool = false;

    /// The 64 bytes of words `first..first + 8` as little-endian bytes, where the storage
    /// can lend them ([`LINES`](Storage::LINES)) and they exist; `None` otherwise.
    #[inline(always)]
    fn line(&self, first: usize) -> Option<&[u8; 64]> {
        let _ = first;
        None
    }

    /// The number of bits set.
    fn count_ones(&self) -> u64 {
        self.words().map(|w| u64::from(w.count_ones())).sum()
    }
}

mod sealed {
    /// Only this module's storages: a layout relies on their invariants (lengths checked
    /// when they are made, words that exist for every position below the size).
    pub trait Sealed {}
    impl Sealed for crate::bits::BitStore {}
    impl Sealed for crate::bits::AtomicBitStore {}
    impl Sealed for super::LeBits<'_> {}
}

impl Storage for BitStore {
    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.len()
    }

    /// The words start on a 64-byte boundary: eight of them from a multiple of 8 are one
    /// line.
    #[inline(always)]
    fn prefetch_line(&self, first: usize) {
        self.prefetch_word(first);
    }

    #[inline(always)]
    fn word(&self, index: usize) -> u64 {
        let words = self.as_words();
        debug_assert!(index < words.len());
        // SAFETY: a store of `len` bits has `ceil(len / 64)` words, and the trait's contract
        // (every layout's positions are below `num_bits`) keeps `index` below that.
        unsafe { *words.get_unchecked(index) }
    }

    #[inline(always)]
    fn prefetch_word(&self, index: usize) {
        if let Some(word) = self.as_words().get(index) {
            prefetch(word);
        }
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.heap_bytes()
    }

    #[inline]
    fn heap_bytes(&self) -> usize {
        BitStore::heap_bytes(self)
    }

    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.as_words().iter().copied()
    }

    fn count_ones(&self) -> u64 {
        BitStore::count_ones(self)
    }

    /// Words in memory are the little-endian bytes only on a little-endian machine.
    const LINES: bool = cfg!(target_endian = "little");

    #[inline(always)]
    fn line(&self, first: usize) -> Option<&[u8; 64]> {
        if !Self::LINES {
            return None;
        }
        let words: &[u64; 8] = self.as_words().get(first..first + 8)?.try_into().ok()?;
        // SAFETY: eight initialised `u64` are 64 initialised bytes, borrowed for as long as
        // `self`; `[u8; 64]` has alignment 1. On a little-endian machine (checked above)
        // they are the words' little-endian bytes.
        Some(unsafe { &*(words as *const [u64; 8]).cast::<[u8; 64]>() })
    }
}

impl Storage for AtomicBitStore {
    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.len()
    }

    /// Aligned as [`BitStore`]'s words are.
    #[inline(always)]
    fn prefetch_line(&self, first: usize) {
        self.prefetch_word(first);
    }

    #[inline(always)]
    fn word(&self, index: usize) -> u64 {
        let words = self.as_words();
        debug_assert!(index < words.len());
        // SAFETY: as for `BitStore`: the store has `ceil(len / 64)` words and layouts index
        // below that.
        unsafe { words.get_unchecked(index) }.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn prefetch_word(&self, index: usize) {
        if let Some(word) = self.as_words().get(index) {
            prefetch(word);
        }
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.heap_bytes()
    }

    #[inline]
    fn heap_bytes(&self) -> usize {
        AtomicBitStore::heap_bytes(self)
    }

    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.as_words().iter().map(|w| w.load(Ordering::Relaxed))
    }

    fn count_ones(&self) -> u64 {
        AtomicBitStore::count_ones(self)
    }
}

/// A bit array read in place from little-endian bytes: the payload of a filter's bytes, at
/// any address (a memory-mapped file), never copied.
#[derive(Debug, Clone, Copy)]
pub struct LeBits<'a> {
    /// The whole frame the payload came from, for `verify`, `as_bytes` and `to_owned`.
    frame: &'a [u8],
    payload: &'a [u8],
    num_bits: u64,
}

impl<'a> LeBits<'a> {
    /// The bits of `payload`, a frame's payload of `num_bits` bits, inside `frame`.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the payload's length is not that of `num_bits` bits in whole
    /// words, or a bit past the end is set ([`BitStore::check_le_bytes`]).
    pub(crate) fn new(frame: &'a [u8], payload: &'a [u8], num_bits: u64) -> Result<Self, Error> {
        BitStore::check_le_bytes(payload, num_bits)?;
        Ok(LeBits {
            frame,
            payload,
            num_bits,
        })
    }

    /// The frame's bytes.
    pub(crate) fn frame(&self) -> &'a [u8] {
        self.frame
    }

    /// Whether the payload starts on a 64-byte boundary (a page-aligned frame's does), on a
    /// little-endian machine (where a line's bytes are its words).
    pub(crate) fn is_aligned(&self) -> bool {
        self.payload.as_ptr() as usize % 64 == 0 && cfg!(target_endian = "little")
    }
}

impl Storage for LeBits<'_> {
    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.num_bits
    }

    #[inline(always)]
    fn word(&self, index: usize) -> u64 {
        // The slice's bounds check stays: `new` checked the length once, but a view's bytes
        // are read at any alignment, and the check costs one compare beside the load.
        let bytes = &self.payload[index * 8..index * 8 + 8];
        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }

    #[inline(always)]
    fn prefetch_word(&self, index: usize) {
        // A word at an odd address may straddle two lines: fetch the line of each end.
        if let Some(word) = self.payload.get(index * 8..index * 8 + 8) {
            prefetch(&word[0]);
            prefetch(&word[7]);
        }
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.payload.len()
    }

    fn heap_bytes(&self) -> usize {
        0
    }

    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.payload
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("chunks of 8")))
    }

    const LINES: bool = true;

    #[inline(always)]
    fn line(&self, first: usize) -> Option<&[u8; 64]> {
        self.payload.get(first * 8..first * 8 + 64)?.try_into().ok()
    }
}
