//! Zeroed, 64-byte-aligned arrays of fixed-size blocks.
//!
//! A blocked filter wants every block to be exactly one cache line, so a query touches one
//! line and never two. `bitvec`'s `BitVec<u64>` (the core's `BitStore`) only promises the
//! alignment of a `u64`, and a `Vec<Block>` of an `align(64)` type is allocated by the
//! standard library with an aligned `alloc_zeroed`, which on Unix writes every byte (touching
//! every page of a filter that may be gigabytes and mostly empty). This array instead takes
//! its memory from a `Vec<u64>` (zeroed lazily by the kernel, through `calloc`) with 56 bytes
//! of slack, and starts the blocks at the first 64-byte boundary inside it.

use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;

use bloom_core::Error;
use bloom_core::hash::reduce;

/// A block type the array can hold.
///
/// # Safety
///
/// Implementors promise that the all-zero byte pattern is a valid value, that the type has no
/// drop glue and no padding, that its size is a non-zero multiple of 8 and at most 64, that
/// its alignment divides 64, and that every value's bytes may be read as `u64` words (no
/// uninitialised bytes). Interior mutability is allowed (atomics): the memory is never
/// accessed through a `&u64` while a `&Self` to it exists.
pub(crate) unsafe trait BlockType: Sized {}

/// A 512-bit block of eight `u64` words, aligned to a cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(64))]
pub(crate) struct Block(pub(crate) [u64; 8]);

/// The atomic twin of [`Block`].
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct AtomicBlock(pub(crate) [AtomicU64; 8]);

/// Parquet's 256-bit block of eight `u32` words (32-byte aligned, two per cache line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(32))]
pub(crate) struct SplitBlock(pub(crate) [u32; 8]);

// SAFETY: eight u64 words, size 64, align 64, no padding; zero is a valid value.
unsafe impl BlockType for Block {}
// SAFETY: eight AtomicU64 (same layout as u64), size 64, align 64, no padding; zero is valid.
unsafe impl BlockType for AtomicBlock {}
// SAFETY: eight u32 words, size 32, align 32, no padding; zero is valid.
unsafe impl BlockType for SplitBlock {}

const ALIGN: usize = 64;
const SLACK_WORDS: usize = ALIGN / 8 - 1;

/// `len` blocks of type `B`, zero-initialised, starting on a 64-byte boundary.
pub(crate) struct Blocks<B: BlockType> {
    /// The memory, over-allocated by [`SLACK_WORDS`]; only `[offset, offset + len * words)`
    /// holds blocks.
    words: Vec<u64>,
    /// Words skipped to reach the first 64-byte boundary.
    offset: usize,
    len: usize,
    _marker: PhantomData<B>,
}

/// `len` zeroed words, or `None` when the allocator refuses (instead of aborting the process,
/// which is what `vec![0; len]` does): a filter too large for this machine is an `Error`.
/// Zeroed allocations with the alignment of `u64` come from `calloc`, whose large blocks are
/// fresh pages the kernel zeroes on first touch.
fn zeroed_words(len: usize) -> Option<Vec<u64>> {
    let layout = std::alloc::Layout::array::<u64>(len).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was just allocated by the global allocator with the layout of `len`
    // `u64`s, which is the layout a `Vec<u64>` of capacity `len` deallocates with; all `len`
    // words are initialised (zeroed).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

impl<B: BlockType> Blocks<B> {
    const WORDS_PER_BLOCK: usize = size_of::<B>() / 8;

    /// `len` zero blocks (at least one).
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] when the size overflows the address space.
    pub(crate) fn zeroed(len: usize) -> Result<Self, Error> {
        if len == 0 {
            // `at` relies on there being a block; every filter has one.
            return Err(Error::invalid("num_blocks", "0 blocks"));
        }
        let too_large = || Error::TooLarge {
            requested_bits: len as f64 * size_of::<B>() as f64 * 8.0,
            max_bits: bloom_core::math::MAX_NUM_BITS,
        };
        let total = len
            .checked_mul(Self::WORDS_PER_BLOCK)
            .and_then(|w| w.checked_add(SLACK_WORDS))
            .filter(|w| w.checked_mul(8).is_some_and(|b| b <= isize::MAX as usize))
            .ok_or_else(too_large)?;
        let words = zeroed_words(total).ok_or_else(too_large)?;
        let offset = (words.as_ptr() as usize).next_multiple_of(ALIGN) - words.as_ptr() as usize;
        let blocks = Blocks {
            words,
            offset: offset / 8,
            len,
            _marker: PhantomData,
        };
        bloom_core::bits::advise_huge_pages(blocks.as_slice());
        Ok(blocks)
    }

    /// The number of blocks.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The blocks.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[B] {
        // SAFETY: `offset` words from the start of `words` is a 64-byte boundary (an 8-byte
        // aligned pointer plus at most 7 words reaches one), so the pointer is aligned for
        // `B` (whose alignment divides 64). `len` blocks fit: `words` holds
        // `len * WORDS_PER_BLOCK + 7` words and `offset <= 7`. Every byte is initialised
        // and zero is a valid `B` (the `BlockType` contract); the shared borrow of `self`
        // keeps the memory alive and unaliased by any `&mut`.
        unsafe {
            std::slice::from_raw_parts(self.words.as_ptr().add(self.offset).cast::<B>(), self.len)
        }
    }

    /// The block a uniformly distributed 64-bit value selects: number
    /// `reduce(x, len)` (multiply-shift, Lemire 2019). The index is below `len` by
    /// construction, so no bounds check is paid per query.
    #[inline(always)]
    pub(crate) fn at(&self, x: u64) -> &B {
        let i = reduce(x, self.len as u64) as usize;
        debug_assert!(i < self.len);
        // SAFETY: `reduce(x, n) = (x * n) >> 64 < n` because `x < 2^64`, and `len >= 1`
        // (`zeroed` refuses 0), so `i < len`: in bounds of `as_slice`.
        unsafe { self.as_slice().get_unchecked(i) }
    }

    /// [`at`](Blocks::at), mutable.
    #[inline(always)]
    pub(crate) fn at_mut(&mut self, x: u64) -> &mut B {
        let i = reduce(x, self.len as u64) as usize;
        debug_assert!(i < self.len);
        // SAFETY: as in `at`.
        unsafe { self.as_mut_slice().get_unchecked_mut(i) }
    }

    /// The blocks, mutable.
    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [B] {
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes this the only
        // reference to the memory.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.words.as_mut_ptr().add(self.offset).cast::<B>(),
                self.len,
            )
        }
    }

    /// Bytes of heap held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Moves the memory into an array of another block type of the same size.
    pub(crate) fn cast<C: BlockType>(self) -> Blocks<C> {
        assert_eq!(size_of::<B>(), size_of::<C>(), "block types of one size");
        Blocks {
            words: self.words,
            offset: self.offset,
            len: self.len,
            _marker: PhantomData,
        }
    }
}

/// Word access for plain (non-atomic) blocks only: reading atomic blocks as plain words
/// while another thread writes them would be a data race.
impl<B: BlockType + Copy> Blocks<B> {
    /// The block words as `u64`s, in order (for serialisation and popcounts).
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words[self.offset..self.offset + self.len * Self::WORDS_PER_BLOCK]
    }

    /// The block words, mutable.
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        let end = self.offset + self.len * Self::WORDS_PER_BLOCK;
        &mut self.words[self.offset..end]
    }
}

impl<B: BlockType + Copy> Clone for Blocks<B> {
    fn clone(&self) -> Self {
        // A clone of the `Vec` may land at another alignment: copy into fresh blocks.
        let mut out = Blocks::zeroed(self.len).expect("an array of this size exists already");
        out.words_mut().copy_from_slice(self.words());
        out
    }
}

impl<B: BlockType + Copy> PartialEq for Blocks<B> {
    fn eq(&self, other: &Self) -> bool {
        self.words() == other.words()
    }
}

impl<B: BlockType + Copy> Eq for Blocks<B> {}

impl<B: BlockType> std::fmt::Debug for Blocks<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocks").field("len", &self.len).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_zeroed_and_clone_keeps_alignment() {
        for len in [1usize, 2, 3, 17, 1000] {
            let mut b = Blocks::<Block>::zeroed(len).unwrap();
            assert_eq!(b.as_slice().as_ptr() as usize % 64, 0);
            assert!(b.words().iter().all(|&w| w == 0));
            assert_eq!(b.words().len(), len * 8);
            b.as_mut_slice()[len - 1].0[7] = 5;
            assert_eq!(b.words()[len * 8 - 1], 5);
            let c = b.clone();
            assert_eq!(c.as_slice().as_ptr() as usize % 64, 0);
            assert_eq!(c, b);
            let s = Blocks::<SplitBlock>::zeroed(len).unwrap();
            assert_eq!(s.as_slice().as_ptr() as usize % 64, 0);
            assert_eq!(s.words().len(), len * 4);
        }
    }

    #[test]
    fn oversized_arrays_are_errors() {
        assert!(Blocks::<Block>::zeroed(usize::MAX / 8).is_err());
        assert!(Blocks::<Block>::zeroed(0).is_err());
    }

    #[test]
    fn at_is_multiply_shift() {
        let mut b = Blocks::<Block>::zeroed(3).unwrap();
        for x in [0u64, 1, u64::MAX / 3, u64::MAX / 3 + 1, u64::MAX] {
            let i = reduce(x, 3) as usize;
            assert!(std::ptr::eq(b.at(x), &b.as_slice()[i]));
            assert!(std::ptr::eq(b.at_mut(x) as *const Block, &b.as_slice()[i]));
        }
        assert!(std::ptr::eq(b.at(u64::MAX), &b.as_slice()[2]));
    }
}
