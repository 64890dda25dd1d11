//! The three storages a fixed-size filter's words live in: owned words ([`BitStore`]),
//! atomic words ([`AtomicBitStore`], `fetch_or` with `Relaxed` ordering) and borrowed
//! little-endian bytes ([`LeBits`], a view over a memory map). A layout reads every one of
//! them through [`Storage`], so a query is written once for all three.

use core::sync::atomic::AtomicU64;

use crate::Error;
#[cfg(doc)]
use crate::bits::AtomicBitStore;
use crate::bits::{BitStore, Bits, Word};
use crate::internal::memory::prefetch_address;

/// Read access to a filter's bit array: what every query of every layout needs from the
/// memory its bits live in.
///
/// Bit `i` is bit `i % 64` (from the least significant) of word `i / 64`, whatever the
/// storage; bits past [`num_bits`](Storage::num_bits) in the last word are zero. The words
/// are [`num_words`](Storage::num_words) = `num_bits().div_ceil(64)`.
///
/// The reads a query makes come in an unchecked form ([`read`](Storage::read) from the
/// words' [`base`](Storage::base)): a layout relies on the storage having its size
/// (`num_bits`), then reads the words its positions name, which are below that size by
/// construction, without a bounds check per probe. [`word`](Storage::word) is the checked
/// read.
pub trait Storage: sealed::Sealed {
    /// The number of bits.
    fn num_bits(&self) -> u64;

    /// The number of 64-bit words.
    #[inline(always)]
    fn num_words(&self) -> usize {
        // The words exist in memory, so their count fits a `usize`.
        self.num_bits().div_ceil(64) as usize
    }

    /// Word `index`.
    ///
    /// # Panics
    ///
    /// If `index` is not below [`num_words`](Storage::num_words).
    #[inline(always)]
    fn word(&self, index: usize) -> u64 {
        assert!(index < self.num_words(), "word {index} out of range");
        // SAFETY: the base is this storage's, and `index` was checked just above.
        unsafe { Self::read(self.base(), index) }
    }

    /// Where the words start: taken once by a query that reads several of them, so that
    /// each read is one load from it.
    type Base: Copy;

    /// The start of the words.
    fn base(&self) -> Self::Base;

    /// Word `index` from `base`.
    ///
    /// # Safety
    ///
    /// `base` must come from [`base`](Storage::base) of a storage that is still borrowed,
    /// and `index` be below its [`num_words`](Storage::num_words).
    unsafe fn read(base: Self::Base, index: usize) -> u64;

    /// The base of the words from word `words` on: a block's own base, from which its words
    /// are read at constant offsets. (The address is computed without a claim that it lies
    /// in the array; reading through it is what needs one.)
    fn advance(base: Self::Base, words: usize) -> Self::Base;

    /// Brings the cache line of word `index` from `base` closer to the core, without waiting
    /// for it. A hint: an index out of range prefetches nothing useful but is harmless.
    fn prefetch(base: Self::Base, index: usize);

    /// Brings the 64 bytes of words `first..first + 8` from `base` closer to the core: one
    /// line where the storage is aligned, both lines a block may straddle where it is not.
    fn prefetch_line(base: Self::Base, first: usize);

    /// Whether [`line`](Storage::line) lends the bytes of a block, for the vector kernels
    /// (false for atomic words, which only atomic loads may read).
    const LINES: bool = false;

    /// The `N` bytes of the words from `first` on (64 for a line, 32 for a half line), as
    /// little-endian bytes.
    ///
    /// # Safety
    ///
    /// [`LINES`](Storage::LINES) must be true, `base` come from [`base`](Storage::base) of a
    /// storage borrowed for `'b`, and `first + N / 8` be at most its
    /// [`num_words`](Storage::num_words).
    unsafe fn line<'b, const N: usize>(base: Self::Base, first: usize) -> &'b [u8; N];

    /// Whether the words are atomic ones that other threads may be setting bits in while a
    /// query reads them: they lend no bytes ([`LINES`](Storage::LINES) is false), but a
    /// vector kernel written in `asm!` may read a block in place through
    /// [`shared_line`](Storage::shared_line), since x86-64 reads each aligned 8-byte word of
    /// a vector load in one access (`docs/design.md`, "The atomic filter"). True only for
    /// [`AtomicBitStore`].
    const SHARED_LINES: bool = false;

    /// The `N` atomic words from `first` on (8 for a line, 4 for a split block), for a
    /// kernel to read in place while other threads may be setting bits in them.
    ///
    /// # Safety
    ///
    /// [`SHARED_LINES`](Storage::SHARED_LINES) must be true, `base` come from
    /// [`base`](Storage::base) of a storage borrowed for `'b`, and `first + N` be at most its
    /// [`num_words`](Storage::num_words).
    unsafe fn shared_line<'b, const N: usize>(base: Self::Base, first: usize)
    -> &'b [AtomicU64; N];

    /// Bytes the queries read from: the array's size, which the batch engine chooses its
    /// loop by.
    fn footprint(&self) -> usize;

    /// Bytes of memory the storage owns (0 for a borrowed view).
    fn heap_bytes(&self) -> usize;

    /// Every word in order, each read once: the payload of `to_bytes`.
    fn words(&self) -> impl Iterator<Item = u64> + '_;

    /// The number of bits set.
    fn count_ones(&self) -> u64 {
        self.words().map(|w| u64::from(w.count_ones())).sum()
    }
}

mod sealed {
    /// Only this module's storages: a layout relies on their invariants (lengths checked
    /// when they are made, words that exist for every position below the size).
    pub trait Sealed {}
    impl<W: crate::bits::Word> Sealed for crate::bits::Bits<W> {}
    impl Sealed for super::LeBits<'_> {}
}

/// Owned words, plain ([`BitStore`]) or atomic ([`AtomicBitStore`]): one implementation,
/// the word type's [`value`](Word::value) reading each word (an atomic one by a `Relaxed`
/// load, as concurrent writers require).
impl<W: Word> Storage for Bits<W> {
    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.len()
    }

    #[inline(always)]
    fn num_words(&self) -> usize {
        self.as_words().len()
    }

    type Base = *const W;

    #[inline(always)]
    fn base(&self) -> *const W {
        self.as_words().as_ptr()
    }

    #[inline(always)]
    unsafe fn read(base: *const W, index: usize) -> u64 {
        // SAFETY: the caller keeps `index` below `num_words` of the live store `base` is of.
        unsafe { (*base.add(index)).value() }
    }

    #[inline(always)]
    fn advance(base: *const W, words: usize) -> *const W {
        base.wrapping_add(words)
    }

    #[inline(always)]
    fn prefetch(base: *const W, index: usize) {
        prefetch_address(base.wrapping_add(index));
    }

    /// The words start on a 64-byte boundary: eight of them from a multiple of 8 are one
    /// line.
    #[inline(always)]
    fn prefetch_line(base: *const W, first: usize) {
        Self::prefetch(base, first);
    }

    /// Plain words in memory are their little-endian bytes on a little-endian machine;
    /// atomic words lend no bytes.
    const LINES: bool = W::PLAIN && cfg!(target_endian = "little");

    /// Atomic words are shared; their lines go to the kernels by address.
    const SHARED_LINES: bool = !W::PLAIN;

    #[inline(always)]
    unsafe fn shared_line<'b, const N: usize>(base: *const W, first: usize) -> &'b [AtomicU64; N] {
        debug_assert!(
            Self::SHARED_LINES,
            "plain words are not shared (word {first})"
        );
        // SAFETY: `SHARED_LINES` (the caller's contract) makes the words `AtomicU64`s, and
        // the caller keeps `first + N` within the words of a store borrowed for `'b`.
        unsafe { &*base.add(first).cast::<[AtomicU64; N]>() }
    }

    #[inline(always)]
    unsafe fn line<'b, const N: usize>(base: *const W, first: usize) -> &'b [u8; N] {
        debug_assert!(Self::LINES, "atomic words lend no bytes (word {first})");
        // SAFETY: the caller keeps `first + N / 8` within the words of a store borrowed for
        // `'b`, so the N bytes from word `first` are initialised and live; `[u8; N]` has
        // alignment 1, and `LINES` (the caller's contract) makes them plain `u64` words on a
        // little-endian machine: their little-endian bytes, which no other thread writes.
        unsafe { &*base.add(first).cast::<[u8; N]>() }
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.heap_bytes()
    }

    #[inline]
    fn heap_bytes(&self) -> usize {
        Bits::heap_bytes(self)
    }

    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.as_words().iter().map(Word::value)
    }
}

/// A bit array read in place from little-endian bytes: the payload of a filter's bytes, at
/// any address (a memory-mapped file), never copied.
#[derive(Debug, Clone, Copy)]
pub struct LeBits<'a> {
    /// The whole frame the payload came from, for `verify`, `as_bytes` and `to_owned`.
    frame: &'a [u8],
    /// Exactly `8 * num_bits.div_ceil(64)` bytes (checked by `new`).
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
        (self.payload.as_ptr() as usize).is_multiple_of(64) && cfg!(target_endian = "little")
    }
}

impl Storage for LeBits<'_> {
    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.num_bits
    }

    type Base = *const u8;

    #[inline(always)]
    fn base(&self) -> *const u8 {
        self.payload.as_ptr()
    }

    #[inline(always)]
    unsafe fn read(base: *const u8, index: usize) -> u64 {
        // SAFETY: the payload holds `num_words` words (`new` checked its length) and the
        // caller keeps `index` below that; the read is unaligned, as a view's words may be.
        let bytes = unsafe { base.add(index * 8).cast::<[u8; 8]>().read() };
        u64::from_le_bytes(bytes)
    }

    #[inline(always)]
    fn advance(base: *const u8, words: usize) -> *const u8 {
        base.wrapping_add(words * 8)
    }

    #[inline(always)]
    fn prefetch(base: *const u8, index: usize) {
        prefetch_address(base.wrapping_add(index * 8));
    }

    /// A block at any address: its first and its last byte, which are in the two lines it
    /// straddles when it straddles two.
    #[inline(always)]
    fn prefetch_line(base: *const u8, first: usize) {
        let start = base.wrapping_add(first * 8);
        prefetch_address(start);
        prefetch_address(start.wrapping_add(63));
    }

    const LINES: bool = true;

    /// Never called: a view's bytes are not shared (`SHARED_LINES` is false).
    unsafe fn shared_line<'b, const N: usize>(_: *const u8, first: usize) -> &'b [AtomicU64; N] {
        unreachable!("a view lends no atomic words (word {first})")
    }

    #[inline(always)]
    unsafe fn line<'b, const N: usize>(base: *const u8, first: usize) -> &'b [u8; N] {
        // SAFETY: the caller keeps `first + N / 8` within the words, which the payload of a
        // view borrowed for `'b` holds; `[u8; N]` has alignment 1.
        unsafe { &*base.add(first * 8).cast::<[u8; N]>() }
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
}
