//! The zero-copy view of the split-block filter's bytes: queries read the blocks where they
//! lie. (The blocked filter's view is the engine's, over `LeBits`.)

use alloc::{format, vec::Vec};
use core::hash::Hash;

use bloom_core::Error;
use bloom_core::internal::Checksum;

use crate::probe::{self, Probe, SplitKernel};
use crate::sbbf::{self, SplitBatch, SplitBlockBloomFilter};
use crate::storage::{BlockRead, BlockSlice, BlockType, LeBlocks, SplitBlock};

/// A view's blocks: as `&[B]` where the payload lies on the block's alignment on a
/// little-endian machine (exactly the owning filter's path), otherwise as bytes, each block
/// tested where it lies (spread over two cache lines: docs/format.md, "Views", has what that
/// costs). Decided once, when the view opens.
#[derive(Debug, Clone, Copy)]
enum ViewBlocks<'a, B: BlockType + Copy> {
    Aligned(BlockSlice<'a, B>),
    Bytes(LeBlocks<'a, B>),
}

impl<'a, B: BlockType + Copy> ViewBlocks<'a, B> {
    /// The blocks of a payload whose length the parameters were checked against.
    fn new(payload: &'a [u8]) -> Result<Self, Error> {
        let bytes = LeBlocks::new(payload).ok_or_else(|| {
            Error::corrupt(format!(
                "{} payload bytes: not a whole number of blocks",
                payload.len()
            ))
        })?;
        Ok(bytes
            .aligned()
            .map_or(ViewBlocks::Bytes(bytes), ViewBlocks::Aligned))
    }

    /// Tests the block `x` selects, as [`BlockRead::test`].
    #[inline(always)]
    fn test(
        &self,
        x: u64,
        in_place: impl FnOnce(&B) -> bool,
        on_bytes: impl FnOnce(&[u8]) -> bool,
    ) -> bool {
        match self {
            ViewBlocks::Aligned(blocks) => BlockSlice::test(blocks.at(x), in_place, on_bytes),
            ViewBlocks::Bytes(blocks) => LeBlocks::test(blocks.at(x), in_place, on_bytes),
        }
    }

    /// Whether the kernels read the bytes in place.
    fn is_aligned(&self) -> bool {
        matches!(self, ViewBlocks::Aligned(_))
    }
}

/// A read-only [`SplitBlockBloomFilter`] over the bytes of its
/// [`to_bytes`](SplitBlockBloomFilter::to_bytes), queried where they lie: opening reads the
/// header and nothing of the bitset.
///
/// It answers as the owning filter would, with the same kernels and batch engine. The
/// payload starts 32 bytes into the frame, so a frame at a 32-byte-aligned address (the
/// start of a page-aligned mapping) has its 256-bit blocks aligned and read in place (on a
/// little-endian machine); at other addresses each block is tested on its bytes by the
/// portable test, with unaligned little-endian loads.
/// [`verify`](SplitBlockBloomFilterRef::verify) checks the checksum, which opening skips.
///
/// # Examples
///
/// ```
/// use bloom_blocked::{SplitBlockBloomFilter, SplitBlockBloomFilterRef};
///
/// let mut filter = SplitBlockBloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000i64);
/// let bytes = filter.to_bytes();
/// let view = SplitBlockBloomFilterRef::from_bytes(&bytes)?;
/// view.verify()?;
/// assert!((0..10_000i64).all(|i| view.contains(&i)));
/// let fp = (10_000..110_000i64).filter(|i| view.contains(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000");
/// assert!(view.contains_bytes(&5i64.to_le_bytes()));
/// assert_eq!(view.to_owned()?, filter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SplitBlockBloomFilterRef<'a> {
    /// The whole frame, for `verify` and `to_owned`.
    bytes: &'a [u8],
    blocks: ViewBlocks<'a, SplitBlock>,
    kernel: SplitKernel,
}

impl<'a> SplitBlockBloomFilterRef<'a> {
    /// A view of the bytes of [`SplitBlockBloomFilter::to_bytes`]. Checks the header, the
    /// parameters and the payload's length, not the checksum: O(1) in the filter's size.
    ///
    /// # Errors
    ///
    /// Those of [`SplitBlockBloomFilter::from_bytes`] but [`Error::ChecksumMismatch`] (see
    /// [`verify`](Self::verify)); never a panic.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::open(bytes)
    }

    /// Checks the checksum: reads every byte once.
    ///
    /// # Errors
    ///
    /// [`Error::ChecksumMismatch`] when the bytes were altered since they were written.
    pub fn verify(&self) -> Result<(), Error> {
        bloom_core::internal::verify_checksum(self.bytes)
    }

    /// The bytes the view reads: the whole frame, as given to `from_bytes`.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The owning filter's decoder, the checksum skipped.
    fn open(bytes: &'a [u8]) -> Result<Self, Error> {
        let payload = sbbf::decode_payload(bytes, Checksum::Skip)?;
        Ok(SplitBlockBloomFilterRef {
            bytes,
            blocks: ViewBlocks::new(payload)?,
            kernel: SplitKernel::new(Probe::best()),
        })
    }

    /// Returns this view using the given query implementation (same answers).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `probe` is not available on this CPU.
    pub fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        self.kernel = SplitKernel::new(probe.check()?);
        Ok(self)
    }

    /// The query implementation in use.
    pub fn probe(&self) -> Probe {
        self.kernel.probe()
    }

    /// Whether the bitset lies on a 32-byte boundary (on a little-endian machine), so the
    /// kernels read the blocks in place.
    pub fn is_aligned(&self) -> bool {
        self.blocks.is_aligned()
    }

    /// The owning filter, read by [`SplitBlockBloomFilter::from_bytes`] (checksum included).
    ///
    /// # Errors
    ///
    /// [`Error::ChecksumMismatch`] when the bytes were altered; [`Error::OutOfMemory`] when
    /// the allocator refuses the copy.
    pub fn to_owned(&self) -> Result<SplitBlockBloomFilter, Error> {
        SplitBlockBloomFilter::from_bytes(self.bytes)
    }

    /// Bytes of the bitset (32 per block).
    pub fn num_bytes(&self) -> usize {
        self.num_blocks() * size_of::<SplitBlock>()
    }

    /// The number of 256-bit blocks, z.
    pub fn num_blocks(&self) -> usize {
        match self.blocks {
            ViewBlocks::Aligned(blocks) => blocks.len(),
            ViewBlocks::Bytes(blocks) => blocks.len(),
        }
    }

    /// The hash of a generic key, as [`SplitBlockBloomFilter::hash`] computes it.
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        sbbf::hash_key(key)
    }

    /// Whether a pre-computed XXH64 hash may be present.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.blocks.test(
            SplitBlockBloomFilter::block_key(hash),
            |block| self.kernel.contains(block, hash as u32),
            |bytes| probe::split_contains_le_bytes(bytes, hash as u32),
        )
    }

    /// Whether a generic key may be present (see [`SplitBlockBloomFilter`] on how generic
    /// keys are hashed).
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a value given by its plain-encoded bytes may be present (Parquet's
    /// `BYTE_ARRAY`; `INT64` as `value.to_le_bytes()`, and so on).
    #[inline]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_hash(SplitBlockBloomFilter::hash_bytes(bytes))
    }

    /// Answers [`contains`](SplitBlockBloomFilterRef::contains) for every key, in order,
    /// through the owning filter's batch engine.
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](SplitBlockBloomFilterRef::contains_batch) into a caller's buffer
    /// (cleared first).
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        let kernel = self.kernel;
        match self.blocks {
            ViewBlocks::Aligned(blocks) => {
                SplitBatch { blocks, kernel }.contains_batch_into(keys, out)
            }
            ViewBlocks::Bytes(blocks) => {
                SplitBatch { blocks, kernel }.contains_batch_into(keys, out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockedBloomFilter, BlockedBloomFilterRef};

    /// `bytes` copied to a buffer whose address is `offset` past a 64-byte boundary.
    fn at_offset(bytes: &[u8], offset: usize) -> (Vec<u8>, usize) {
        let mut buf = vec![0u8; bytes.len() + 128];
        let start = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
        buf[start..start + bytes.len()].copy_from_slice(bytes);
        (buf, start)
    }

    #[test]
    fn blocked_view_takes_the_aligned_path_only_when_aligned() {
        let mut f = BlockedBloomFilter::with_params(512 * 37, 7).unwrap();
        f.insert_all(0..2_000u64);
        let bytes = f.to_bytes();
        let keys: Vec<u64> = (0..6_000).collect();
        let expected = f.contains_batch(&keys);
        for offset in 0..64 {
            let (buf, start) = at_offset(&bytes, offset);
            let view = BlockedBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
            // The payload is 64 bytes in: aligned where the frame is.
            let payload = bloom_core::format::payload_offset(12);
            let aligned = (offset + payload) % 64 == 0 && cfg!(target_endian = "little");
            assert_eq!(view.is_aligned(), aligned, "offset {offset}");
            for probe in [Probe::Portable, Probe::Avx2, Probe::Avx512] {
                let Ok(view) = view.with_probe(probe) else {
                    continue;
                };
                assert_eq!(view.contains_batch(&keys), expected, "{offset} {probe:?}");
                assert!(
                    keys.iter()
                        .zip(&expected)
                        .all(|(k, &e)| view.contains(k) == e)
                );
            }
        }
    }

    #[test]
    fn split_view_answers_like_the_filter_at_every_offset() {
        let mut f = SplitBlockBloomFilter::with_num_bytes(32 * 64);
        f.insert_all(0..1_500u64);
        let bytes = f.to_bytes();
        let keys: Vec<u64> = (0..5_000).collect();
        let expected = f.contains_batch(&keys);
        for offset in 0..64 {
            let (buf, start) = at_offset(&bytes, offset);
            let view =
                SplitBlockBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
            assert_eq!(
                view.is_aligned(),
                offset % 32 == 0 && cfg!(target_endian = "little")
            );
            assert_eq!(view.num_bytes(), f.num_bytes());
            for probe in [Probe::Portable, Probe::Avx2] {
                let Ok(view) = view.with_probe(probe) else {
                    continue;
                };
                assert_eq!(view.contains_batch(&keys), expected, "{offset} {probe:?}");
            }
        }
    }

    /// Past the L2 cache the batch engine runs its burst loop, with the prefetches: the
    /// views' answers stay the filters' there too, aligned and not.
    #[test]
    fn views_of_filters_past_the_cache_answer_alike() {
        let mut f = BlockedBloomFilter::with_params(8 << 23, 7).unwrap();
        let mut s = SplitBlockBloomFilter::with_num_bytes(8 << 20);
        assert!(8 << 20 > bloom_core::internal::batch::direct_max_bytes(true));
        f.insert_all(0..100_000u64);
        s.insert_all(0..100_000u64);
        let keys: Vec<u64> = (90_000..110_000).collect();
        let (expected, expected_split) = (f.contains_batch(&keys), s.contains_batch(&keys));
        let (bytes, split_bytes) = (f.to_bytes(), s.to_bytes());
        for offset in [0, 1, 28, 32] {
            let (buf, start) = at_offset(&bytes, offset);
            let view = BlockedBloomFilterRef::from_bytes(&buf[start..start + bytes.len()]).unwrap();
            assert_eq!(view.contains_batch(&keys), expected, "{offset}");
            let (buf, start) = at_offset(&split_bytes, offset);
            let view = SplitBlockBloomFilterRef::from_bytes(&buf[start..start + split_bytes.len()])
                .unwrap();
            assert_eq!(view.contains_batch(&keys), expected_split, "{offset}");
        }
    }
}
