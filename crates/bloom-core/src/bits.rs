//! Bit storage: the one word storage of every filter ([`Words`]) and the bit array over it
//! ([`Bits`]: [`BitStore`], the bits of a `BloomFilter`, and [`AtomicBitStore`], those of an
//! `AtomicBloomFilter`).
//!
//! [`BitStore`] keeps bit `i` in word `i / 64` at position `i % 64` counted from the least
//! significant bit. That layout is also the on-disk layout (words written little-endian), so
//! the raw words ([`BitStore::as_words`]) can be serialised as they are. `bitvec`'s per-bit
//! view serves [`get`](BitStore::get) and [`set`](BitStore::set), where speed does not
//! matter; the filters' probe loops work on the raw `u64` words, because the per-bit API
//! costs a bounds-checked pointer-and-offset computation per access that a benchmark of
//! `contains` shows (see `docs/design.md`).
//!
//! The atomic twin (the store of `AtomicBloomFilter`) is the same layout in `AtomicU64` words,
//! for filters shared between threads: setting a bit is one `fetch_or`, reading one is a
//! `load`, all `Relaxed`. Relaxed is enough because bits only ever go from 0 to 1 and no other
//! memory is published through them: a reader that sees a bit set needs nothing else to have
//! happened before it. A key inserted by one thread is visible to another once the inserting
//! call has returned and the threads have synchronised by any means (a join, a channel, a
//! lock).
//!
//! Large stores ask the kernel for transparent huge pages (Linux only; see [`BitStore::new`]),
//! because a filter probes random words and 4 KiB pages make most probes of a large filter a
//! TLB miss as well as a cache miss.

use alloc::alloc::Layout;
use alloc::format;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bitvec::prelude::Lsb0;
use bitvec::slice::BitSlice;

use crate::Error;
use crate::internal::checks::{MAX_NUM_BITS, check_num_bits};
#[cfg(test)]
use crate::internal::memory::set_bit;
use crate::internal::memory::{advise_huge_pages, out_of_memory, prefetch, words_for};
use crate::internal::probe::pair_at;

/// The mask of the bits of the last word that lie inside a store of `num_bits` bits.
#[inline]
fn tail_mask(num_bits: u64) -> u64 {
    match num_bits % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// [`Error::Corrupt`] when `last`, the last word of a store of `num_bits` bits, has bits set
/// past its end.
fn check_tail(last: u64, num_bits: u64) -> Result<(), Error> {
    if last & !tail_mask(num_bits) != 0 {
        return Err(Error::corrupt(format!(
            "bits set beyond the end ({num_bits} bits)"
        )));
    }
    Ok(())
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for core::sync::atomic::AtomicU64 {}
}

/// A word type [`Words`] holds: `u64` for stores with one writer, `AtomicU64` for stores
/// shared between threads. Both have the size and alignment of a `u64` and zero as a valid
/// value. Sealed: no other type can implement it.
pub trait Word: sealed::Sealed + Sized {
    /// Whether the words may be read as plain memory, a line at a time by a vector load:
    /// `u64` words may, atomic words (which other threads write) only through atomic loads.
    const PLAIN: bool;

    /// The name of a bit array of these words ([`BitStore`], [`AtomicBitStore`]), for
    /// `Debug`.
    const STORE: &'static str;

    /// The word's bits now: the word itself, or a `Relaxed` load of an atomic word.
    fn value(&self) -> u64;
}

impl Word for u64 {
    const PLAIN: bool = true;
    const STORE: &'static str = "BitStore";

    #[inline(always)]
    fn value(&self) -> u64 {
        *self
    }
}

impl Word for AtomicU64 {
    const PLAIN: bool = false;
    const STORE: &'static str = "AtomicBitStore";

    #[inline(always)]
    fn value(&self) -> u64 {
        self.load(Ordering::Relaxed)
    }
}

/// The alignment of every store: one cache line.
const LINE_BYTES: usize = 64;
/// Words allocated beyond the store so that it can start at a 64-byte boundary.
const SLACK_WORDS: usize = LINE_BYTES / 8 - 1;

/// The one word storage of every filter of the workspace: `len` zeroed words of type `W`,
/// starting on a 64-byte (cache-line) boundary, allocated fallibly and advised for huge pages.
///
/// * **Lazily zeroed.** The memory comes from the allocator's zeroed allocation with the
///   alignment of a `u64` (`calloc`), whose large blocks are fresh pages the kernel zeroes on
///   first touch: a filter of a gigabyte costs nothing until keys land in it. (An allocation
///   with 64-byte alignment would be zeroed by writing every byte, so the store over-allocates
///   by seven words and starts at the first line boundary inside.)
/// * **Fallible.** A size the address space cannot hold is [`Error::TooLarge`], and memory the
///   allocator refuses is [`Error::OutOfMemory`]: never an abort.
/// * **Aligned.** Word 0 starts a cache line, so a 512-bit block is one line.
/// * **Huge pages.** On Linux, stores of 4 MiB and more are advised to use transparent huge
///   pages (`madvise(MADV_HUGEPAGE)`).
/// * **Knows whether it was written.** Clearing a store that was never written touches
///   nothing, so re-seeding a fresh filter (`with_seed`) is free whatever its size. Every
///   mutable access marks the store written; shared writers of an atomic store call
///   [`Words::writable`].
///
/// # Examples
///
/// ```
/// use bloom_core::bits::Words;
///
/// let mut words = Words::<u64>::zeroed(1000)?;
/// assert_eq!(words.as_ptr() as usize % 64, 0);
/// assert!(words.as_slice().iter().all(|&w| w == 0));
/// words.as_mut_slice()[3] = 7;
/// assert_eq!(words.try_clone()?.as_slice()[3], 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Words<W: Word> {
    /// Word 0: the first 64-byte boundary of the allocation, which starts `offset` words
    /// before it (at most [`SLACK_WORDS`]) and holds `cap` `u64` words, 8-byte aligned.
    start: NonNull<u64>,
    cap: usize,
    offset: usize,
    len: usize,
    /// Whether any word may be non-zero (set by every write access).
    written: AtomicBool,
    _word: PhantomData<W>,
}

// SAFETY: `Words` owns its allocation as a `Vec<W>` would and hands out references to it only
// through `&self`/`&mut self`, so it is `Send`/`Sync` exactly when `W` is.
unsafe impl<W: Word + Send> Send for Words<W> {}
// SAFETY: as above.
unsafe impl<W: Word + Sync> Sync for Words<W> {}

impl<W: Word> Words<W> {
    /// `len` zeroed words starting on a 64-byte boundary (`len` may be 0).
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] when the size overflows the address space,
    /// [`Error::OutOfMemory`] when the allocator refuses it.
    pub fn zeroed(len: usize) -> Result<Self, Error> {
        let too_large = || Error::TooLarge {
            requested_bits: len as f64 * 64.0,
            max_bits: MAX_NUM_BITS,
        };
        let cap = len.checked_add(SLACK_WORDS).ok_or_else(too_large)?;
        let layout = cap
            .checked_mul(8)
            .and_then(|bytes| Layout::from_size_align(bytes, 8).ok())
            .ok_or_else(too_large)?;
        // SAFETY: the layout's size is at least SLACK_WORDS * 8 > 0.
        let raw = unsafe { alloc::alloc::alloc_zeroed(layout) }.cast::<u64>();
        let base = NonNull::new(raw).ok_or(Error::OutOfMemory {
            bytes: layout.size(),
        })?;
        let address = base.as_ptr() as usize;
        let offset = (address.next_multiple_of(LINE_BYTES) - address) / 8;
        // SAFETY: `offset <= SLACK_WORDS < cap`, so the pointer stays inside the allocation.
        let start = unsafe { base.add(offset) };
        let words = Words {
            start,
            cap,
            offset,
            len,
            written: AtomicBool::new(false),
            _word: PhantomData,
        };
        advise_huge_pages(words.as_slice());
        Ok(words)
    }

    /// The number of words.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the store has no words.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A pointer to word 0 (64-byte aligned), for block views over the words. Reading through
    /// it is fine while `self` is borrowed; writing needs [`as_mut_ptr`](Words::as_mut_ptr) or,
    /// for atomic words, [`writable`](Words::writable) first.
    #[inline(always)]
    pub fn as_ptr(&self) -> *const W {
        self.start.as_ptr().cast::<W>()
    }

    /// A pointer to word 0 for writing; marks the store written.
    #[inline(always)]
    pub fn as_mut_ptr(&mut self) -> *mut W {
        *self.written.get_mut() = true;
        self.start.as_ptr().cast::<W>()
    }

    /// The words.
    #[inline(always)]
    pub fn as_slice(&self) -> &[W] {
        // SAFETY: `as_ptr` is 64-byte aligned (so aligned for `W`, whose alignment is 8) and
        // points at `len` initialised words inside the live allocation (zero is a valid `W`);
        // the shared borrow of `self` excludes any `&mut` to them.
        unsafe { core::slice::from_raw_parts(self.as_ptr(), self.len) }
    }

    /// The words, mutable; marks the store written.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [W] {
        let len = self.len;
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes this the only
        // reference to the words.
        unsafe { core::slice::from_raw_parts_mut(self.as_mut_ptr(), len) }
    }

    /// The words, for writers that share the store (atomic words): marks it written. The flag
    /// is read first and stored only once, so concurrent writers keep its cache line shared.
    #[inline(always)]
    pub fn writable(&self) -> &[W] {
        self.mark_written();
        self.as_slice()
    }

    /// Marks the store written, for shared writers that reach the words through a view of
    /// their own (the blocks of an atomic blocked filter). The flag is read first and stored
    /// only once, so concurrent writers keep its cache line shared.
    #[inline(always)]
    pub fn mark_written(&self) {
        if !self.written.load(Ordering::Relaxed) {
            self.written.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any word may be non-zero: false for a store never written since it was
    /// allocated or [cleared](Words::clear).
    #[inline]
    pub fn is_written(&self) -> bool {
        self.written.load(Ordering::Relaxed)
    }

    /// Zeroes every word; a store never written is left untouched (its pages stay lazy).
    pub fn clear(&mut self) {
        if *self.written.get_mut() {
            let len = self.len;
            // SAFETY: `len` words at `as_mut_ptr` lie in the allocation and zero is a valid `W`.
            unsafe { core::ptr::write_bytes(self.as_mut_ptr(), 0, len) };
            *self.written.get_mut() = false;
        }
    }

    /// Bytes of heap held (the words and the alignment slack).
    #[inline]
    pub fn heap_bytes(&self) -> usize {
        self.cap * 8
    }

    /// The same memory as words of another type: `u64` and `AtomicU64` convert both ways
    /// without a copy.
    pub fn cast<V: Word>(self) -> Words<V> {
        let this = ManuallyDrop::new(self);
        Words {
            start: this.start,
            cap: this.cap,
            offset: this.offset,
            len: this.len,
            written: AtomicBool::new(this.written.load(Ordering::Relaxed)),
            _word: PhantomData,
        }
    }

    fn layout(&self) -> Layout {
        Layout::from_size_align(self.cap * 8, 8).expect("checked when allocated")
    }
}

impl Words<u64> {
    /// The words of little-endian `bytes` (whose length must be a multiple of 8), in fresh
    /// memory: the payload of every variant's bytes. Allocates `bytes.len()` bytes, no more.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the length is not a multiple of 8; [`Error::OutOfMemory`].
    pub fn from_le_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if !bytes.len().is_multiple_of(8) {
            return Err(Error::corrupt(format!(
                "{} payload bytes: not a whole number of 64-bit words",
                bytes.len()
            )));
        }
        let mut words = Words::zeroed(bytes.len() / 8)?;
        for (w, chunk) in words.as_mut_slice().iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        }
        Ok(words)
    }

    /// The words of the next `byte_len` little-endian bytes of `reader` (a multiple of 8),
    /// read straight into the store a stream's payload ends up in, each piece also handed to
    /// `feed` (the frame's checksum) as it arrives.
    ///
    /// The store starts at one [`STREAM_CHUNK`](crate::internal::stream::STREAM_CHUNK) and
    /// doubles as bytes arrive, never past `byte_len`: a length that claims more than the stream holds
    /// costs at most twice the bytes read before [`Error::Truncated`], and an honest stream
    /// ends in exactly the store the filter keeps, with no copy of the payload beside it. The
    /// store grows by `realloc`, which moves large blocks by remapping their pages (no copy)
    /// where the allocator can; the words added are zeroed before they are read into.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when the stream ends first; [`Error::Corrupt`] when `byte_len`
    /// is not a multiple of 8 and the stream holds that many bytes; [`Error::Io`] when it fails; [`Error::TooLarge`] or
    /// [`Error::OutOfMemory`] when the store cannot grow.
    #[cfg(feature = "std")]
    #[doc(hidden)]
    pub fn read_le_from(
        reader: &mut dyn std::io::Read,
        byte_len: u64,
        feed: &mut dyn FnMut(&[u8]),
    ) -> Result<Self, Error> {
        if !byte_len.is_multiple_of(8) {
            // No store can hold it; a short stream is still reported as one.
            let got = crate::internal::stream::skip(reader, byte_len)?;
            if got < byte_len {
                return Err(Error::Truncated {
                    needed: byte_len,
                    available: got,
                });
            }
            return Err(Error::corrupt(format!(
                "{byte_len} payload bytes: not a whole number of 64-bit words"
            )));
        }
        let total = usize::try_from(byte_len / 8).map_err(|_| Error::TooLarge {
            requested_bits: byte_len as f64 * 8.0,
            max_bits: MAX_NUM_BITS,
        })?;
        let chunk_words = crate::internal::stream::STREAM_CHUNK / 8;
        let mut words = Words::<u64>::zeroed(total.min(chunk_words))?;
        let mut got = 0usize;
        while got < total * 8 {
            if got == words.len * 8 {
                words.grow(words.len.saturating_mul(2).min(total))?;
            }
            let end = (words.len * 8).min(got + crate::internal::stream::STREAM_CHUNK);
            let bytes = words.bytes_mut();
            let n = crate::internal::stream::read_some(reader, &mut bytes[got..end])?;
            if n == 0 {
                return Err(Error::Truncated {
                    needed: byte_len,
                    available: got as u64,
                });
            }
            feed(&bytes[got..got + n]);
            got += n;
        }
        for w in words.as_mut_slice() {
            *w = u64::from_le(*w);
        }
        advise_huge_pages(words.as_slice());
        Ok(words)
    }

    /// The words as bytes, for reading into.
    #[cfg(feature = "std")]
    fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len * 8;
        // SAFETY: the words are `len` initialised `u64`s; viewing them as `8 * len` bytes
        // (alignment 1, every bit pattern valid both ways) through the exclusive borrow of
        // `self` aliases nothing.
        unsafe { core::slice::from_raw_parts_mut(self.as_mut_ptr().cast::<u8>(), len) }
    }

    /// Grows the store to `len` words (at least its length), keeping its words and zeroing
    /// the new ones, by `realloc`; the store still starts on a 64-byte boundary.
    ///
    /// It advises no huge pages (its caller does, once the store has its size): `madvise`
    /// on the aligned part of a mapping splits it in two, and the kernel refuses to remap a
    /// range over two mappings (`mremap` fails with `EFAULT`), so glibc's `realloc` would copy
    /// the whole store at every growth instead of moving its pages (measured: a 0.58 GiB
    /// filter read back at a peak of 1.00 GiB).
    #[cfg(feature = "std")]
    fn grow(&mut self, len: usize) -> Result<(), Error> {
        debug_assert!(len >= self.len);
        let too_large = || Error::TooLarge {
            requested_bits: len as f64 * 64.0,
            max_bits: MAX_NUM_BITS,
        };
        let cap = len.checked_add(SLACK_WORDS).ok_or_else(too_large)?;
        let bytes = cap.checked_mul(8).ok_or_else(too_large)?;
        Layout::from_size_align(bytes, 8).map_err(|_| too_large())?;
        let old = self.layout();
        // SAFETY: the pointer is the one the global allocator returned for `old` (`offset`
        // words before `start`), and `bytes` is non-zero and, rounded to the alignment,
        // does not overflow `isize` (checked by `Layout::from_size_align` above).
        let raw = unsafe {
            alloc::alloc::realloc(self.start.as_ptr().sub(self.offset).cast(), old, bytes)
        };
        let base = NonNull::new(raw.cast::<u64>()).ok_or(Error::OutOfMemory { bytes })?;
        let address = base.as_ptr() as usize;
        let offset = (address.next_multiple_of(LINE_BYTES) - address) / 8;
        // SAFETY: `realloc` kept the first `old.size()` bytes, so the words sit `self.offset`
        // words into the new block; moving them to `offset` (both at most SLACK_WORDS, and
        // `offset + self.len <= cap`) stays inside it, and `ptr::copy` allows overlap. The
        // words from `self.len` to `len` are then zeroed, inside the block too.
        unsafe {
            if offset != self.offset {
                core::ptr::copy(
                    base.as_ptr().add(self.offset),
                    base.as_ptr().add(offset),
                    self.len,
                );
            }
            core::ptr::write_bytes(base.as_ptr().add(offset + self.len), 0, len - self.len);
            self.start = base.add(offset);
        }
        self.cap = cap;
        self.offset = offset;
        self.len = len;
        self.written.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// A copy in fresh memory (aligned and advised like a new store).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the allocator refuses the copy.
    pub fn try_clone(&self) -> Result<Self, Error> {
        let mut copy = Words::zeroed(self.len)?;
        if self.is_written() {
            copy.as_mut_slice().copy_from_slice(self.as_slice());
        }
        Ok(copy)
    }
}

impl Words<AtomicU64> {
    /// A plain copy of the words as they are now (`Relaxed` loads: concurrent writes may or
    /// may not be in it), in fresh memory.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the allocator refuses the copy.
    pub fn snapshot(&self) -> Result<Words<u64>, Error> {
        let mut copy = Words::zeroed(self.len)?;
        if self.is_written() {
            for (w, a) in copy.as_mut_slice().iter_mut().zip(self.as_slice()) {
                *w = a.load(Ordering::Relaxed);
            }
        }
        Ok(copy)
    }
}

impl<W: Word> Drop for Words<W> {
    fn drop(&mut self) {
        let layout = self.layout();
        // SAFETY: `offset` words before `start` is the pointer the global allocator returned
        // for exactly this layout; it is freed once, here.
        unsafe { alloc::alloc::dealloc(self.start.as_ptr().sub(self.offset).cast(), layout) };
    }
}

/// A clone copies into fresh memory; like the standard collections, it aborts through
/// [`handle_alloc_error`](alloc::alloc::handle_alloc_error) if the allocator refuses.
/// [`Words::try_clone`] is the fallible form.
impl Clone for Words<u64> {
    fn clone(&self) -> Self {
        self.try_clone()
            .unwrap_or_else(|_| out_of_memory(self.heap_bytes()))
    }
}

/// Equal when the words are.
impl PartialEq for Words<u64> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Words<u64> {}

impl<W: Word> core::fmt::Debug for Words<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Words")
            .field("len", &self.len)
            .field("written", &self.is_written())
            .finish()
    }
}

/// A fixed-size array of bits in [`Words`] of `W`: bit `i` in word `i / 64`, position `i % 64`
/// from the least significant bit. Bits past `len()` in the last word are always zero; every
/// constructor checks it.
///
/// One type for both word kinds, under two names: [`BitStore`] (plain `u64` words, one
/// writer, the bits of a `BloomFilter`) and [`AtomicBitStore`] (`AtomicU64` words shared
/// between threads, the bits of an `AtomicBloomFilter`). What reads the bits is written once
/// for both ([`len`](Bits::len), [`count_ones`](Bits::count_ones), the engine's `Storage`);
/// what writes them differs by kind: `&mut self` and plain writes for one, `&self` and
/// `fetch_or` for the other.
pub struct Bits<W: Word> {
    words: Words<W>,
    num_bits: u64,
}

/// The bit array of one writer: [`Bits`] of plain `u64` words. `bitvec`'s `BitSlice` is the
/// bit-level view of the words ([`get`](Bits::get), [`set`](Bits::set)); the probe loops work
/// on the words.
///
/// # Examples
///
/// ```
/// use bloom_core::bits::BitStore;
///
/// let mut bits = BitStore::new(100)?;
/// assert!(!bits.set(70));
/// assert!(bits.set(70));
/// assert!(bits.get(70));
/// assert_eq!(bits.count_ones(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type BitStore = Bits<u64>;

/// The atomic twin of [`BitStore`]: [`Bits`] of `AtomicU64` words, every method `&self`,
/// lock-free.
///
/// # Examples
///
/// ```
/// use bloom_core::bits::AtomicBitStore;
///
/// let bits = AtomicBitStore::new(1000)?;
/// std::thread::scope(|s| {
///     s.spawn(|| bits.set(1));
///     s.spawn(|| bits.set(999));
/// });
/// assert!(bits.get(1) && bits.get(999));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type AtomicBitStore = Bits<AtomicU64>;

impl<W: Word> core::fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(W::STORE)
            .field("len", &self.num_bits)
            .field("count_ones", &self.count_ones())
            .finish()
    }
}

impl Clone for BitStore {
    fn clone(&self) -> Self {
        BitStore {
            words: self.words.clone(),
            num_bits: self.num_bits,
        }
    }
}

/// A clone is a snapshot ([`AtomicBitStore::to_bit_store`]) made atomic again, without a
/// second copy. Like the standard collections, it aborts if the allocator refuses the copy.
impl Clone for AtomicBitStore {
    fn clone(&self) -> Self {
        self.to_bit_store().into()
    }
}

impl PartialEq for BitStore {
    fn eq(&self, other: &Self) -> bool {
        self.num_bits == other.num_bits && self.words == other.words
    }
}

impl Eq for BitStore {}

impl<W: Word> Bits<W> {
    /// A store of `num_bits` zero bits, in [`Words`] (lazily zeroed, 64-byte aligned, huge
    /// pages advised for 4 MiB and more).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 bits, [`Error::TooLarge`] beyond
    /// [`MAX_NUM_BITS`] or the address space, [`Error::OutOfMemory`] when the allocator
    /// refuses the memory.
    pub fn new(num_bits: u64) -> Result<Self, Error> {
        check_num_bits(num_bits)?;
        let words = Words::zeroed(words_for(num_bits)?)?;
        Ok(Bits { words, num_bits })
    }

    /// The number of bits.
    #[inline]
    pub fn len(&self) -> u64 {
        self.num_bits
    }

    /// Whether the store has no bits (never true: constructors require at least one).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.num_bits == 0
    }

    /// The raw words, bit `i` at word `i / 64`, position `i % 64` from the least significant
    /// bit. Bits past `len()` are zero.
    #[inline]
    pub fn as_words(&self) -> &[W] {
        self.words.as_slice()
    }

    /// The number of set bits (of an atomic store, a snapshot: concurrent inserts may or may
    /// not be counted).
    pub fn count_ones(&self) -> u64 {
        self.as_words()
            .iter()
            .map(|w| u64::from(w.value().count_ones()))
            .sum()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits as f64
    }

    /// Bytes of heap held by the words.
    pub fn heap_bytes(&self) -> usize {
        self.words.heap_bytes()
    }
}

impl Bits<u64> {
    /// A store of `num_bits` bits holding a copy of `words` (LSB-first).
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when `words` has the wrong length for `num_bits` or has bits set
    /// past `num_bits`; the errors of [`new`](Bits::new).
    pub fn from_words(words: &[u64], num_bits: u64) -> Result<Self, Error> {
        let mut copy = Words::zeroed(words.len())?;
        copy.as_mut_slice().copy_from_slice(words);
        BitStore::from_parts(copy, num_bits)
    }

    /// A store of `num_bits` bits over `words`, taken as they are (no copy).
    ///
    /// # Errors
    ///
    /// As [`from_words`](Bits::from_words).
    pub fn from_parts(words: Words<u64>, num_bits: u64) -> Result<Self, Error> {
        check_num_bits(num_bits)?;
        let expected = words_for(num_bits)?;
        if words.len() != expected {
            return Err(Error::corrupt(format!(
                "{} words given for {num_bits} bits, {expected} expected",
                words.len()
            )));
        }
        check_tail(words.as_slice().last().map_or(0, |&w| w), num_bits)?;
        Ok(BitStore { words, num_bits })
    }

    /// Reads `num_bits` bits from little-endian words, as a filter's payload holds
    /// them. Allocates only after checking the length, so at most `bytes.len()` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the length does not match or bits are set past `num_bits`.
    pub fn from_le_bytes(bytes: &[u8], num_bits: u64) -> Result<Self, Error> {
        BitStore::check_le_bytes(bytes, num_bits)?;
        BitStore::from_parts(Words::from_le_bytes(bytes)?, num_bits)
    }

    /// Checks, without reading more than the last word, that `bytes` can be the
    /// little-endian words of a store of `num_bits` bits: the checks of
    /// [`from_le_bytes`](Bits::from_le_bytes), for a reader that uses the bytes in place
    /// (a zero-copy view) and reads bit `p` as bit `p % 8` of byte `p / 8`.
    ///
    /// # Errors
    ///
    /// As [`from_le_bytes`](Bits::from_le_bytes), without allocating.
    #[doc(hidden)]
    pub fn check_le_bytes(bytes: &[u8], num_bits: u64) -> Result<(), Error> {
        check_num_bits(num_bits)?;
        let words = words_for(num_bits)?;
        if bytes.len() as u64 != words as u64 * 8 {
            return Err(Error::corrupt(format!(
                "{} payload bytes for {num_bits} bits, {} expected",
                bytes.len(),
                words as u64 * 8
            )));
        }
        let last = bytes
            .last_chunk::<8>()
            .map_or(0, |w| u64::from_le_bytes(*w));
        check_tail(last, num_bits)
    }

    /// The bit-level view.
    #[inline]
    fn bit_slice(&self) -> &BitSlice<u64, Lsb0> {
        &BitSlice::from_slice(self.as_words())[..self.num_bits as usize]
    }

    /// Whether bit `index` is set.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn get(&self, index: u64) -> bool {
        self.bit_slice()[index as usize]
    }

    /// Sets bit `index`, returning whether it was set before.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn set(&mut self, index: u64) -> bool {
        assert!(
            index < self.num_bits,
            "bit index {index} out of range {}",
            self.num_bits
        );
        let bits = BitSlice::<u64, Lsb0>::from_slice_mut(self.words.as_mut_slice());
        let was = bits[index as usize];
        bits.set(index as usize, true);
        was
    }

    /// The raw words, mutable, for probe loops.
    ///
    /// Callers must keep bits past `len()` zero; the filters do, because their positions are
    /// always below `len()`.
    #[inline]
    pub fn as_words_mut(&mut self) -> &mut [u64] {
        self.words.as_mut_slice()
    }

    /// Whether the positions of one probe pair are set: the pair that step value `x` gives in
    /// this store ([`pair_at`]`(x, self.len())`, pair j of a key when `x` is its step j,
    /// see [`Steps`](crate::internal::probe::Steps)). With `lone`, only the first position is tested:
    /// the last pair of an odd number of probes.
    ///
    /// This is how a query tests a key against several stores in lockstep (one pair of each
    /// store at a time) at the cost of a one-store query: the positions are in range by
    /// construction, so no bounds check is needed, and nothing branches on the bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::bits::BitStore;
    /// use bloom_core::hash::{hash_key, DEFAULT_SEED};
    /// use bloom_core::internal::{Probes, Steps};
    ///
    /// let mut bits = BitStore::new(10_000)?;
    /// let h = hash_key("key", DEFAULT_SEED);
    /// for p in Probes::new(h, 5, 10_000) {
    ///     bits.set(p);
    /// }
    /// // Five probes: two full pairs and a lone last probe.
    /// let mut steps = Steps::new(h);
    /// assert!(bits.pair_set(steps.next_value(), false));
    /// assert!(bits.pair_set(steps.next_value(), false));
    /// assert!(bits.pair_set(steps.next_value(), true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    #[doc(hidden)]
    pub fn pair_set(&self, x: u64, lone: bool) -> bool {
        let words = self.as_words();
        let (p, q) = pair_at(x, self.len());
        let q = if lone { p } else { q };
        let shifted = |pos: u64| {
            debug_assert!(pos < self.len());
            // SAFETY: `pair_at(x, m)` gives positions below `m` for every `x` and every
            // `m >= 1` (documented there and tested), `m == self.len() >= 1` here, and a
            // store of `len` bits has `ceil(len / 64)` words, so `pos / 64` is a valid index.
            let word = unsafe { *words.get_unchecked((pos >> 6) as usize) };
            word >> (pos & 63)
        };
        // The two bits are combined as integers, not as `bool`s: with `&` of two `bool`s
        // feeding a loop's exit, the compiler may test them with two branches, and for an
        // absent key the first bit alone is a coin flip.
        shifted(p) & shifted(q) & 1 != 0
    }

    /// Prefetches the cache lines of the pair that step value `x` gives in this store (see
    /// [`pair_set`](BitStore::pair_set) and [`prefetch`]): both lines when the pair's
    /// 512-bit group straddles two.
    #[inline(always)]
    #[doc(hidden)]
    pub fn prefetch_pair(&self, x: u64) {
        let words = self.as_words();
        let (p, q) = pair_at(x, self.len());
        for pos in [p, q] {
            // SAFETY: as in `pair_set`: both positions are below `self.len()`, so
            // `pos / 64` indexes one of the store's `ceil(len / 64)` words.
            prefetch(unsafe { words.get_unchecked((pos >> 6) as usize) });
        }
    }

    /// Clears every bit. A store never written since it was made (or last cleared) is not
    /// touched, so clearing a fresh store of any size costs nothing.
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// ORs `other` into `self` (set union).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn union_with(&mut self, other: &BitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.len(), other.len())?;
        for (a, b) in self.as_words_mut().iter_mut().zip(other.as_words()) {
            *a |= *b;
        }
        Ok(())
    }

    /// ANDs `other` into `self` (set intersection).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn intersect_with(&mut self, other: &BitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.len(), other.len())?;
        for (a, b) in self.as_words_mut().iter_mut().zip(other.as_words()) {
            *a &= *b;
        }
        Ok(())
    }

    /// Bytes of the words in little-endian order: the length of a filter's payload.
    pub fn le_bytes_len(&self) -> usize {
        self.as_words().len() * 8
    }

    /// Moves the words out.
    pub fn into_words(self) -> Words<u64> {
        self.words
    }
}

impl Bits<AtomicU64> {
    /// The raw atomic words, for writing (`fetch_or`): marks the store written, so that a
    /// later [`clear_mut`](Bits::clear_mut) knows it has bits to clear.
    #[inline(always)]
    pub fn as_words_for_write(&self) -> &[AtomicU64] {
        self.words.writable()
    }

    /// Whether bit `index` is set (a `Relaxed` load).
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn get(&self, index: u64) -> bool {
        assert!(
            index < self.num_bits,
            "bit index {index} out of range {}",
            self.num_bits
        );
        (self.as_words()[(index >> 6) as usize].load(Ordering::Relaxed) >> (index & 63)) & 1 != 0
    }

    /// Sets bit `index` with one `Relaxed` `fetch_or`, returning whether it was set before.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[inline]
    pub fn set(&self, index: u64) -> bool {
        assert!(
            index < self.num_bits,
            "bit index {index} out of range {}",
            self.num_bits
        );
        let mask = 1u64 << (index & 63);
        self.words.writable()[(index >> 6) as usize].fetch_or(mask, Ordering::Relaxed) & mask != 0
    }

    /// Clears every bit. Inserts racing with it may survive or not. A store never written
    /// is not touched.
    pub fn clear(&self) {
        if self.words.is_written() {
            for w in self.as_words() {
                w.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Clears every bit of a store no other thread can reach (its owner's `&mut`): like
    /// [`clear`](Bits::clear), and it also forgets that the store was written, so that the
    /// next clear of a store left empty costs nothing.
    pub fn clear_mut(&mut self) {
        self.words.clear();
    }

    /// ORs `other` into `self` word by word.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn union_with(&self, other: &AtomicBitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        for (a, b) in self.words.writable().iter().zip(other.as_words()) {
            a.fetch_or(b.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        Ok(())
    }

    /// ANDs `other` into `self` word by word.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn intersect_with(&self, other: &AtomicBitStore) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        for (a, b) in self.words.writable().iter().zip(other.as_words()) {
            a.fetch_and(b.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        Ok(())
    }

    /// A plain copy of the current bits, in fresh memory (aligned and advised like a new
    /// store).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when the allocator refuses the copy.
    pub fn try_to_bit_store(&self) -> Result<BitStore, Error> {
        Ok(BitStore {
            words: self.words.snapshot()?,
            num_bits: self.num_bits,
        })
    }

    /// [`try_to_bit_store`](Bits::try_to_bit_store); like the standard collections' clones,
    /// it aborts if the allocator refuses the copy.
    pub fn to_bit_store(&self) -> BitStore {
        self.try_to_bit_store()
            .unwrap_or_else(|_| out_of_memory(self.heap_bytes()))
    }
}

/// The same memory, no copy.
impl From<BitStore> for AtomicBitStore {
    fn from(bits: BitStore) -> Self {
        AtomicBitStore {
            words: bits.words.cast(),
            num_bits: bits.num_bits,
        }
    }
}

/// The same memory, no copy.
impl From<AtomicBitStore> for BitStore {
    fn from(bits: AtomicBitStore) -> Self {
        BitStore {
            words: bits.words.cast(),
            num_bits: bits.num_bits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::memory::{HUGE_PAGE_THRESHOLD, test_bit};

    /// Clones copy into fresh memory (advised like a new store): equal, independent, and the
    /// same for the atomic store; also for a store past the huge-page threshold.
    #[test]
    fn clones_are_equal_and_independent() {
        for num_bits in [1u64, 200, (HUGE_PAGE_THRESHOLD as u64 + 4096) * 8] {
            let mut a = BitStore::new(num_bits).unwrap();
            for i in (0..num_bits).step_by(997) {
                a.set(i);
            }
            let mut b = a.clone();
            assert_eq!(a, b);
            b.set(num_bits - 1);
            assert_eq!(a.get(num_bits - 1), (num_bits - 1) % 997 == 0);
            let atomic = AtomicBitStore::from(a.clone());
            let copy = atomic.clone();
            atomic.set(num_bits - 1);
            assert_eq!(BitStore::from(copy), a);
        }
    }

    #[test]
    fn raw_words_agree_with_bitvec() {
        let mut s = BitStore::new(200).unwrap();
        for i in [0u64, 1, 63, 64, 65, 127, 199] {
            assert!(!s.set(i));
        }
        for i in 0..200u64 {
            assert_eq!(s.get(i), test_bit(s.as_words(), i), "{i}");
        }
        assert_eq!(s.as_words()[0], 1 | 2 | (1 << 63));
        assert!(set_bit(s.as_words_mut(), 199));
        assert!(!set_bit(s.as_words_mut(), 198));
        assert_eq!(s.count_ones(), 8);
        assert!((s.fill_ratio() - 0.04).abs() < 1e-12);
    }

    #[test]
    fn pair_set_agrees_with_the_bits() {
        use crate::hash::hash_key;
        use crate::internal::probe::{Steps, pair_at};
        for num_bits in [1u64, 7, 64, 511, 512, 513, 1000, 4096, 100_003] {
            let mut s = BitStore::new(num_bits).unwrap();
            // About half the bits set.
            for i in (0..num_bits).filter(|i| hash_key(i, 9) as u64 & 1 == 0) {
                s.set(i);
            }
            for key in 0..2_000u64 {
                let x = Steps::new(hash_key(&key, 4)).nth(key as usize % 5).unwrap();
                let (p, q) = pair_at(x, num_bits);
                assert_eq!(
                    s.pair_set(x, false),
                    s.get(p) && s.get(q),
                    "{num_bits} {key}"
                );
                assert_eq!(s.pair_set(x, true), s.get(p), "{num_bits} {key}");
                s.prefetch_pair(x);
            }
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert!(BitStore::new(0).is_err());
        assert!(BitStore::new(MAX_NUM_BITS + 1).is_err());
        assert!(words_for(u64::MAX).is_err());
        assert_eq!(words_for(65).unwrap(), 2);
    }

    #[test]
    fn from_words_rejects_bad_tails_and_lengths() {
        assert!(BitStore::from_words(&[0, 0], 65).is_ok());
        assert!(BitStore::from_words(&[0, 2], 65).is_err());
        assert!(BitStore::from_words(&[0], 65).is_err());
        assert!(BitStore::from_words(&[u64::MAX], 64).is_ok());
        let words = Words::zeroed(2).unwrap();
        assert!(BitStore::from_parts(words, 65).is_ok());
        let mut words = Words::zeroed(2).unwrap();
        words.as_mut_slice()[1] = 2;
        assert!(BitStore::from_parts(words, 65).is_err());
        assert!(BitStore::from_parts(Words::zeroed(1).unwrap(), 65).is_err());
    }

    #[test]
    fn le_bytes_round_trip() {
        let mut s = BitStore::new(130).unwrap();
        s.set(3);
        s.set(129);
        let out: Vec<u8> = s.as_words().iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(out.len(), s.le_bytes_len());
        assert_eq!(out[0], 8);
        assert_eq!(BitStore::from_le_bytes(&out, 130).unwrap(), s);
        assert!(BitStore::from_le_bytes(&out[1..], 130).is_err());
        assert!(BitStore::from_le_bytes(&out, 129).is_err());
    }

    #[test]
    fn union_and_intersection() {
        let mut a = BitStore::new(100).unwrap();
        let mut b = BitStore::new(100).unwrap();
        a.set(1);
        a.set(2);
        b.set(2);
        b.set(3);
        let mut u = a.clone();
        u.union_with(&b).unwrap();
        assert_eq!(u.count_ones(), 3);
        a.intersect_with(&b).unwrap();
        assert_eq!(a.count_ones(), 1);
        assert!(a.get(2));
        let c = BitStore::new(101).unwrap();
        assert!(a.union_with(&c).is_err());
        assert!(a.intersect_with(&c).is_err());
    }

    #[test]
    fn atomic_twin_matches() {
        let a = AtomicBitStore::new(1000).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let a = &a;
                s.spawn(move || {
                    for i in (t..1000).step_by(4) {
                        a.set(i);
                    }
                });
            }
        });
        assert_eq!(a.count_ones(), 1000);
        let plain: BitStore = a.clone().into();
        assert_eq!(plain.count_ones(), 1000);
        let b = AtomicBitStore::from(BitStore::new(1000).unwrap());
        b.set(5);
        a.intersect_with(&b).unwrap();
        assert_eq!(a.count_ones(), 1);
        a.clear();
        assert_eq!(a.count_ones(), 0);
        a.union_with(&b).unwrap();
        assert!(a.get(5));
        assert_eq!(a.to_bit_store().count_ones(), 1);
        assert!(a.union_with(&AtomicBitStore::new(10).unwrap()).is_err());
    }

    #[test]
    fn words_are_aligned_zeroed_and_track_writes() {
        for len in [0usize, 1, 7, 8, 9, 1000] {
            let mut w = Words::<u64>::zeroed(len).unwrap();
            assert_eq!(w.as_ptr() as usize % 64, 0);
            assert_eq!(w.len(), len);
            assert!(w.as_slice().iter().all(|&x| x == 0));
            assert!(!w.is_written());
            w.clear();
            assert!(!w.is_written());
            if len > 0 {
                w.as_mut_slice()[len - 1] = 9;
                assert!(w.is_written());
                let copy = w.try_clone().unwrap();
                assert_eq!(copy.as_ptr() as usize % 64, 0);
                assert_eq!(copy, w);
                w.clear();
                assert!(!w.is_written() && w.as_slice().iter().all(|&x| x == 0));
                assert_ne!(copy, w);
            }
            let atomic: Words<AtomicU64> = w.cast();
            assert_eq!(atomic.len(), len);
            if len > 0 {
                atomic.writable()[0].store(5, Ordering::Relaxed);
                assert!(atomic.is_written());
                assert_eq!(atomic.snapshot().unwrap().as_slice()[0], 5);
            }
        }
    }

    /// Sizes the address space cannot hold are errors, not aborts. (Sizes it can hold but
    /// this machine cannot are tested in a child process by the workspace's suite.)
    #[test]
    fn impossible_word_counts_are_errors() {
        assert!(matches!(
            Words::<u64>::zeroed(usize::MAX),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            Words::<u64>::zeroed(usize::MAX / 8),
            Err(Error::TooLarge { .. })
        ));
        assert!(Words::<u64>::zeroed(isize::MAX as usize / 8 - 7).is_err());
    }

    /// Clearing a store that was never written touches nothing; after a write it clears, and
    /// the atomic store's shared writers mark it too.
    #[test]
    fn clearing_is_lazy_and_exact() {
        let mut s = BitStore::new(1000).unwrap();
        s.clear();
        s.set(999);
        s.clear();
        assert_eq!(s.count_ones(), 0);
        let mut a = AtomicBitStore::new(1000).unwrap();
        a.clear_mut();
        a.set(3);
        a.clear_mut();
        assert_eq!(a.count_ones(), 0);
        a.as_words_for_write()[1].fetch_or(1, Ordering::Relaxed);
        a.clear();
        assert_eq!(a.count_ones(), 0);
        a.as_words_for_write()[1].fetch_or(1, Ordering::Relaxed);
        a.clear_mut();
        assert_eq!(a.count_ones(), 0);
    }

    #[test]
    fn large_store_gets_zeroed_pages() {
        let s = BitStore::new(64 << 20).unwrap();
        assert_eq!(s.count_ones(), 0);
        // The words, and the seven words of slack that align them to a cache line.
        assert_eq!(s.heap_bytes(), (8 << 20) + 56);
    }
}
