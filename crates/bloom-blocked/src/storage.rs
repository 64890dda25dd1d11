//! Zeroed, 64-byte-aligned arrays of fixed-size blocks, over the core's word storage.
//!
//! A blocked filter wants every block to be exactly one cache line, so a query touches one
//! line and never two. `bloom_core::bits::Words` gives memory that starts on a line
//! boundary, is zeroed lazily by the kernel, is allocated fallibly and knows whether it was
//! written; this module only views it as blocks.

use alloc::format;
use core::marker::PhantomData;
#[cfg(test)]
use core::sync::atomic::AtomicU64;

use bloom_core::Error;
use bloom_core::bits::Words;
use bloom_core::internal::{prefetch, reduce};

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

#[cfg(test)]
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
#[cfg(test)]
unsafe impl BlockType for AtomicBlock {}
// SAFETY: eight u32 words, size 32, align 32, no padding; zero is valid.
unsafe impl BlockType for SplitBlock {}

impl SplitBlock {
    /// The block whose little-endian `u32` words are `bytes` (32 of them).
    pub(crate) fn from_le_bytes(bytes: &[u8]) -> SplitBlock {
        let mut block = SplitBlock::default();
        for (w, b) in block.0.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes(b.try_into().expect("chunks of 4"));
        }
        block
    }
}

/// Read access to a non-empty array of blocks, wherever it lives: a filter's own aligned
/// memory ([`BlockSlice`]) or a view's bytes at any address ([`LeBlocks`]). The queries of
/// the owning filters and of their views are written once over it.
pub(crate) trait BlockRead<B>: Copy {
    /// What selecting a block gives: a reference to it, or to its bytes.
    type At: Copy;
    /// Bytes of the blocks (the batch engine's footprint).
    fn footprint(&self) -> usize;
    /// The block a uniformly distributed 64-bit value selects: number `reduce(x, len)`
    /// (multiply-shift, Lemire 2019), as [`Blocks::at`] selects it.
    fn at(&self, x: u64) -> Self::At;
    /// Prefetches the cache lines of a selected block.
    fn prefetch(at: Self::At);
    /// Tests the selected block: `in_place` on blocks in aligned memory (the kernels), or
    /// `on_bytes` on the block's little-endian bytes at any address.
    fn test(
        at: Self::At,
        in_place: impl FnOnce(&B) -> bool,
        on_bytes: impl FnOnce(&[u8]) -> bool,
    ) -> bool;
}

/// Aligned blocks in memory: an owning filter's ([`Blocks::reader`]), or a view's payload
/// where it happens to lie on the block's alignment on a little-endian machine.
#[derive(Debug)]
pub(crate) struct BlockSlice<'a, B>(&'a [B]);

// Copied as a reference is, whatever `B` is (a derive would ask `B: Copy`).
impl<B> Clone for BlockSlice<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for BlockSlice<'_, B> {}

impl<'a, B> BlockSlice<'a, B> {
    /// The blocks, `None` when there are none (the selection needs one).
    pub(crate) fn new(blocks: &'a [B]) -> Option<Self> {
        (!blocks.is_empty()).then_some(BlockSlice(blocks))
    }

    /// The number of blocks.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl<'a, B: BlockType> BlockRead<B> for BlockSlice<'a, B> {
    type At = &'a B;

    #[inline(always)]
    fn footprint(&self) -> usize {
        size_of_val(self.0)
    }

    #[inline(always)]
    fn at(&self, x: u64) -> &'a B {
        let i = reduce(x, self.0.len() as u64) as usize;
        debug_assert!(i < self.0.len());
        // SAFETY: `reduce(x, n) = (x * n) >> 64 < n` because `x < 2^64`, and the slice is
        // not empty (`new` refuses an empty one), so `i < len`.
        unsafe { self.0.get_unchecked(i) }
    }

    #[inline(always)]
    fn prefetch(at: &'a B) {
        prefetch(at);
    }

    #[inline(always)]
    fn test(at: &'a B, in_place: impl FnOnce(&B) -> bool, _: impl FnOnce(&[u8]) -> bool) -> bool {
        in_place(at)
    }
}

/// Blocks as the format's little-endian bytes at any address: a selected block is tested
/// where it lies (the blocked vector kernels read its bytes with unaligned loads, the
/// portable tests each word with an unaligned little-endian load), never copied into an
/// aligned block, whose stores the vector kernels' wide loads could not be forwarded from.
/// On a machine of either byte order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeBlocks<'a, B: BlockType + Copy> {
    /// `len * size_of::<B>()` bytes.
    bytes: &'a [u8],
    len: usize,
    _marker: PhantomData<B>,
}

impl<'a, B: BlockType + Copy> LeBlocks<'a, B> {
    /// The blocks of `bytes`, `None` unless it is a non-zero whole number of blocks.
    pub(crate) fn new(bytes: &'a [u8]) -> Option<Self> {
        let len = bytes.len() / size_of::<B>();
        (len > 0 && bytes.len() % size_of::<B>() == 0).then_some(LeBlocks {
            bytes,
            len,
            _marker: PhantomData,
        })
    }

    /// The number of blocks.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The blocks as aligned memory, when the bytes lie on the block's alignment and the
    /// machine is little-endian (the bytes are then the blocks' words as they are in memory):
    /// the kernels read them in place, with no copy.
    pub(crate) fn aligned(&self) -> Option<BlockSlice<'a, B>> {
        if cfg!(target_endian = "big") || self.bytes.as_ptr() as usize % align_of::<B>() != 0 {
            return None;
        }
        // SAFETY: the pointer is aligned for `B` (checked above) and points at
        // `len * size_of::<B>()` initialised bytes borrowed for `'a` (`new` checked the
        // length); every byte pattern is a valid `B` whose words, on a little-endian
        // machine, are the little-endian words the bytes hold (the `BlockType` contract:
        // plain integer words, no padding). The shared borrow keeps the bytes immutable.
        let blocks =
            unsafe { core::slice::from_raw_parts(self.bytes.as_ptr().cast::<B>(), self.len) };
        BlockSlice::new(blocks)
    }
}

impl<'a, B: BlockType + Copy> BlockRead<B> for LeBlocks<'a, B> {
    /// The selected block's bytes.
    type At = &'a [u8];

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.bytes.len()
    }

    #[inline(always)]
    fn at(&self, x: u64) -> &'a [u8] {
        // `reduce(x, len) < len`, as in `BlockSlice::at`; the slicing's bounds check stays.
        let i = reduce(x, self.len as u64) as usize;
        let start = i * size_of::<B>();
        &self.bytes[start..start + size_of::<B>()]
    }

    #[inline(always)]
    fn prefetch(at: &'a [u8]) {
        // An unaligned block straddles two cache lines: fetch both.
        prefetch(&at[0]);
        prefetch(&at[at.len() - 1]);
    }

    #[inline(always)]
    fn test(
        at: &'a [u8],
        _: impl FnOnce(&B) -> bool,
        on_bytes: impl FnOnce(&[u8]) -> bool,
    ) -> bool {
        on_bytes(at)
    }
}

/// `len` blocks of type `B`, zero-initialised, starting on a 64-byte boundary.
pub(crate) struct Blocks<B: BlockType> {
    /// The memory: `len * WORDS_PER_BLOCK` words. Atomic blocks never read it as `&[u64]`
    /// (only through the raw pointer), so no plain reference aliases an atomic write.
    words: Words<u64>,
    len: usize,
    _marker: PhantomData<B>,
}

impl<B: BlockType> Blocks<B> {
    const WORDS_PER_BLOCK: usize = size_of::<B>() / 8;

    /// `len` zero blocks (at least one).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 blocks, [`Error::TooLarge`] when the size overflows
    /// the address space, [`Error::OutOfMemory`] when the allocator refuses it.
    pub(crate) fn zeroed(len: usize) -> Result<Self, Error> {
        if len == 0 {
            // `at` relies on there being a block; every filter has one.
            return Err(Error::invalid("num_blocks", "0 blocks"));
        }
        let words = len
            .checked_mul(Self::WORDS_PER_BLOCK)
            .ok_or(Error::TooLarge {
                requested_bits: len as f64 * size_of::<B>() as f64 * 8.0,
                max_bits: bloom_core::math::MAX_NUM_BITS,
            })?;
        Ok(Blocks {
            words: Words::zeroed(words)?,
            len,
            _marker: PhantomData,
        })
    }

    /// `len` blocks over `words` as they are (no copy): the store `read_from` read a payload
    /// into. `Words` start on a 64-byte boundary, as blocks need.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] unless `words` holds exactly `len` blocks (at least one).
    #[cfg(feature = "std")]
    pub(crate) fn from_words(words: Words<u64>, len: usize) -> Result<Self, Error> {
        if len == 0 || Some(words.len()) != len.checked_mul(Self::WORDS_PER_BLOCK) {
            return Err(Error::corrupt(format!(
                "{} words for {len} blocks of {} words",
                words.len(),
                Self::WORDS_PER_BLOCK
            )));
        }
        Ok(Blocks {
            words,
            len,
            _marker: PhantomData,
        })
    }

    /// The number of blocks.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The blocks.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[B] {
        // SAFETY: `Words::as_ptr` is 64-byte aligned, so aligned for `B` (whose alignment
        // divides 64), and points at `len * WORDS_PER_BLOCK` initialised words, exactly `len`
        // blocks. Zero is a valid `B` and every word's bytes are a valid part of one (the
        // `BlockType` contract); the shared borrow of `self` keeps the memory alive and
        // unaliased by any `&mut`.
        unsafe { core::slice::from_raw_parts(self.words.as_ptr().cast::<B>(), self.len) }
    }

    /// The blocks for the queries ([`BlockRead`]).
    #[inline(always)]
    pub(crate) fn reader(&self) -> BlockSlice<'_, B> {
        // `zeroed` refuses 0 blocks.
        BlockSlice(self.as_slice())
    }

    /// Zeroes every block; memory never written is left untouched.
    pub(crate) fn clear(&mut self) {
        self.words.clear();
    }

    /// Whether any block may be non-zero.
    pub(crate) fn is_written(&self) -> bool {
        self.words.is_written()
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
        let len = self.len;
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes this the only
        // reference to the memory (and `as_mut_ptr` marks it written).
        unsafe { core::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<B>(), len) }
    }

    /// Bytes of heap held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.heap_bytes()
    }
}

/// Word access for plain (non-atomic) blocks only: reading atomic blocks as plain words
/// while another thread writes them would be a data race.
impl<B: BlockType + Copy> Blocks<B> {
    /// The block words as `u64`s, in order (for serialisation and popcounts).
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        self.words.as_slice()
    }

    /// The block words, mutable.
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.words.as_mut_slice()
    }

    /// The array folded by `factor`: `len / factor` blocks, block `j` the OR of blocks
    /// `j * factor` to `j * factor + factor - 1`. With multiply-shift block selection
    /// ([`at`](Blocks::at)), a value that selects block `i` of `len` blocks selects block
    /// `i / factor` of `len / factor`: `floor(floor(x f n / 2^64) / f) = floor(x n / 2^64)`.
    /// So when the bits inside a block do not depend on the block count, the folded array is
    /// exactly the one the same keys would have filled at the smaller size.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] (`factor`) unless `factor` is a power of two that divides
    /// the number of blocks; [`Error::OutOfMemory`] when the allocator refuses the result.
    pub(crate) fn fold(&self, factor: u32) -> Result<Blocks<B>, Error> {
        let factor_blocks = factor as usize;
        if !factor.is_power_of_two() || self.len % factor_blocks != 0 {
            return Err(Error::invalid(
                "factor",
                format!(
                    "must be a power of two dividing the {} blocks (got {factor})",
                    self.len
                ),
            ));
        }
        let mut folded = Blocks::<B>::zeroed(self.len / factor_blocks)?;
        let group_words = factor_blocks * Self::WORDS_PER_BLOCK;
        if self.is_written() {
            for (out, group) in folded
                .words_mut()
                .chunks_exact_mut(Self::WORDS_PER_BLOCK)
                .zip(self.words().chunks_exact(group_words))
            {
                for block in group.chunks_exact(Self::WORDS_PER_BLOCK) {
                    for (o, w) in out.iter_mut().zip(block) {
                        *o |= *w;
                    }
                }
            }
        }
        Ok(folded)
    }
}

/// A copy in fresh aligned memory (aborting, as the standard collections do, if the
/// allocator refuses it).
impl<B: BlockType + Copy> Clone for Blocks<B> {
    fn clone(&self) -> Self {
        Blocks {
            words: self.words.clone(),
            len: self.len,
            _marker: PhantomData,
        }
    }
}

impl<B: BlockType + Copy> PartialEq for Blocks<B> {
    fn eq(&self, other: &Self) -> bool {
        self.words() == other.words()
    }
}

impl<B: BlockType + Copy> Eq for Blocks<B> {}

impl<B: BlockType> core::fmt::Debug for Blocks<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
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
            assert!(core::ptr::eq(b.at(x), &b.as_slice()[i]));
            assert!(core::ptr::eq(b.at_mut(x) as *const Block, &b.as_slice()[i]));
        }
        assert!(core::ptr::eq(b.at(u64::MAX), &b.as_slice()[2]));
    }
}
