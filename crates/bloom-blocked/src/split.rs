//! Apache Parquet's split-block layout, bit for bit (parquet-format, BloomFilter.md): the
//! filter Spark, DuckDB, DataFusion, Trino and the `parquet` crate read and write.
//!
//! * A value is hashed with XXH64, seed 0, over its plain encoding
//!   ([`ParquetHash`]).
//! * The bitset is z blocks of eight little-endian `u32` words (four of the engine's `u64`
//!   words, word 2j in the low half of `u64` word j). The hash's high 32 bits pick the block,
//!   `((h >> 32) * z) >> 32`; in word j of it the bit `(low32(h) * SALT[j]) >> 27` is set
//!   (wrapping 32-bit multiplication, the spec's eight salts).
//! * Sizes follow Parquet's rule (`new(ndv, fpp)`: `-8 ndv / ln(1 - fpp^(1/8))` bits, in
//!   bytes rounded up to a power of two, 32 bytes to 128 MiB).
//!
//! The filters are the engine's (`Engine<SplitBlock, _>`); Parquet's own methods (values by
//! their plain encoding, the Thrift header, `with_num_bytes`, `fold_to_fpp`) are the
//! engine's for every layout hashed by [`ParquetHash`] (`bloom_core::engine`).

use alloc::{format, vec::Vec};
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use bloom_core::engine::{BlockLayout, Layout, Probe, Storage};
use bloom_core::format::{BITSET_MAX_BYTES, Variant, parquet_num_bytes};
use bloom_core::hash::ParquetHash;
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::simd::Level;
use bloom_core::internal::{self, ByteReader};
use bloom_core::{Error, math};

use crate::layout::line_layout_methods;
use crate::lines::{self, LineLayout};
use crate::multiblock::{estimated_fpr_of, estimated_len_of};
use crate::multiblock32::halves_ones;
use crate::params;
use crate::probe::{
    Half, TestUser, split_contains_le_bytes, split_contains_words, split_insert, split_mask_words,
};

/// Bits of one block: eight 32-bit words.
const BLOCK_BITS: u64 = 256;

/// The engine's 64-bit words per block.
const BLOCK_WORDS: usize = 4;

/// Bits each value sets: one per 32-bit word of its block.
const HASHES: u32 = 8;

/// Keys hashed per burst of a burst insert (each prefetching its block).
const INSERT_BURST: usize = 64;

/// Where a value's bits go in a [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter):
/// Parquet's positions in one of `num_blocks` 256-bit blocks, and the kernel that tests them
/// (chosen from the CPU when the filter is built; it never changes an answer, so two layouts
/// are equal whatever their kernels).
#[derive(Debug, Clone, Copy)]
pub struct SplitBlock {
    num_blocks: u64,
    kernel: Level,
}

impl PartialEq for SplitBlock {
    fn eq(&self, other: &Self) -> bool {
        self.num_blocks == other.num_blocks
    }
}

impl Eq for SplitBlock {}

impl SplitBlock {
    /// The layout of `num_blocks` blocks (at most 128 MiB of them, checked by the caller).
    fn of(num_blocks: u64) -> SplitBlock {
        SplitBlock {
            num_blocks,
            kernel: Level::at_most(Probe::Avx2),
        }
    }

    /// The first word of `hash`'s block: block `((h >> 32) * z) >> 32`, four words each.
    #[inline(always)]
    fn first_word(&self, hash: u64) -> usize {
        // Below `num_blocks` (at most 2^22), so the product fits 64 bits and the block a
        // `usize`.
        (((hash >> 32) * self.num_blocks) >> 32) as usize * BLOCK_WORDS
    }

    /// The bytes Parquet's rule gives `(ndv, fpp)`, before rounding to a power of two, with
    /// the float functions of `F`.
    fn bytes_for<F: Float>(ndv: u64, fpp: f64) -> Result<usize, Error> {
        internal::check_count("ndv", ndv)?;
        internal::check_rate("fpp", fpp)?;
        let num_bits = -8.0 * ndv as f64 / F::ln(1.0 - F::powf(fpp, 1.0 / 8.0));
        let num_bytes = num_bits / 8.0;
        // `num_bytes` is finite and positive here (ndv >= 1, fpp in (0, 1)).
        if num_bytes > BITSET_MAX_BYTES as f64 {
            return Err(Error::TooLarge {
                requested_bits: num_bits,
                max_bits: BITSET_MAX_BYTES as u64 * 8,
            });
        }
        Ok(num_bytes as usize)
    }
}

impl Layout for SplitBlock {
    type Hash = u64;
    type Hashing = ParquetHash;
    const NAME: &'static str = "SplitBlockBloomFilter";
    const ATOMIC_NAME: &'static str = "AtomicSplitBlockBloomFilter";
    const VARIANT: Variant = Variant::SplitBlock;
    /// `num_bytes`, u64.
    const PARAMS_LEN: usize = 8;
    const INSERT_BURST: usize = INSERT_BURST;
    const BLOCK_WORDS: usize = BLOCK_WORDS;
    /// Measured slower than `insert_all` (whose bursts prefetch past the L2 cache) where
    /// bloom-core's plans would use them: copies at 1M keys, the scatter at 50M
    /// (docs/blocked.md, "Parquet's split-block filter").
    #[cfg(feature = "rayon")]
    const PARALLEL_BUILD: bool = false;

    /// Parquet's rule: `m = -8 ndv / ln(1 - fpp^(1/8))` bits (the split-block rate, Putze,
    /// Sanders and Singler, WEA 2007, solved for m with k = 8), in bytes rounded up to a
    /// power of two (at least 32): the `parquet` crate's `Sbbf::new_with_ndv_fpp` size.
    /// [`Error::TooLarge`] beyond Parquet's 128 MiB (the `parquet` crate clamps silently,
    /// and its filter then misses the rate).
    fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        let num_bytes = parquet_num_bytes(Self::bytes_for::<Native>(expected_items, fpr)?);
        Ok(SplitBlock::of((num_bytes / 32) as u64))
    }

    /// `num_bits` rounded up to whole 256-bit blocks; `num_hashes` must be 8 (one bit per
    /// word of the block), and the bitset at most Parquet's 128 MiB.
    fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        if num_hashes != HASHES {
            return Err(Error::invalid(
                "num_hashes",
                format!("Parquet's split-block filter sets 8 bits per value (got {num_hashes})"),
            ));
        }
        if num_bits == 0 {
            return Err(Error::invalid("num_bits", "must be at least 1"));
        }
        let num_blocks = num_bits.div_ceil(BLOCK_BITS);
        if num_blocks > (BITSET_MAX_BYTES / 32) as u64 {
            return Err(Error::TooLarge {
                requested_bits: num_bits as f64,
                max_bits: BITSET_MAX_BYTES as u64 * 8,
            });
        }
        Ok(SplitBlock::of(num_blocks))
    }

    #[inline(always)]
    fn num_bits(&self) -> u64 {
        self.num_blocks * BLOCK_BITS
    }

    #[inline(always)]
    fn num_hashes(&self) -> u32 {
        HASHES
    }

    #[inline(always)]
    fn hash<T: Hash + ?Sized>(_: &ParquetHash, key: &T) -> u64 {
        ParquetHash::hash(key)
    }

    line_layout_methods!();

    /// The rate of one bit in each of eight 32-bit words of one block
    /// ([`multiblock_fpr`](math::multiblock_fpr), the Poisson mixture over blocks). Parquet
    /// sizes with the simpler `(1 - e^(-8n/m))^8`, which leaves out the blocks' uneven loads.
    fn expected_fpr(&self, num_items: u64) -> f64 {
        math::multiblock_fpr(self.num_bits(), 32, HASHES, num_items)
    }

    /// The values each 32-bit word's fill suggests, summed over the words and divided by the
    /// eight words every value sets a bit in.
    fn estimated_len<S: Storage>(&self, store: &S) -> f64 {
        estimated_len_of(halves_ones(store), 32)
    }

    /// The mean over blocks of the product over their eight words of `x/32`, the chance a
    /// query's bit is set in a word with x bits set.
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64 {
        estimated_fpr_of(halves_ones(store), 32, self.num_blocks)
    }

    fn check_same(&self, other: &Self) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits(), other.num_bits())
    }

    fn write_params(&self, out: &mut [u8]) {
        out.copy_from_slice(&(self.num_blocks * 32).to_le_bytes());
    }

    /// The bitset's length: a multiple of 32 from 32 bytes to 128 MiB.
    fn read_params(params: &[u8]) -> Result<Self, Error> {
        let num_bytes = internal::check_bitset_len(ByteReader::new(params).u64()?)?;
        Ok(SplitBlock::of((num_bytes / 32) as u64))
    }

    fn probe(&self) -> Probe {
        self.kernel.probe()
    }

    fn with_probe(self, probe: Probe) -> Result<Self, Error> {
        Ok(SplitBlock {
            kernel: Level::at_most(probe.min(Probe::Avx2)),
            ..self
        })
    }

    /// Parquet's sizes are powers of two, so any two of its filters combine: the larger is
    /// folded to the smaller.
    fn fold_factors(&self, other: &Self) -> Result<(u32, u32), Error> {
        params::fold_factors(self.num_blocks, other.num_blocks, BLOCK_BITS)
    }

    /// Block `j` of the result is the OR of blocks `j * factor .. (j + 1) * factor`: Parquet
    /// picks a value's block as `((h >> 32) * z) >> 32` and its bits from the low 32 bits of
    /// `h`, so that is exactly (byte for byte) the filter of `z / factor` blocks built from
    /// the same values, and any Parquet reader finds every value in it.
    fn folded(&self, factor: u32) -> Result<Self, Error> {
        Ok(SplitBlock {
            num_blocks: params::folded_blocks(self.num_blocks, factor)?,
            ..*self
        })
    }
}

impl BlockLayout for SplitBlock {
    #[inline]
    fn num_blocks(&self) -> u64 {
        self.num_blocks
    }

    /// 8: Parquet's filters set one bit per word of the block, whatever the memory.
    fn optimal_num_hashes(_bits_per_key: f64) -> u32 {
        HASHES
    }
}

/// Parquet's blocks are the layout's lines, half a cache line each: the single-key test,
/// the batch query and the inserts are the line layouts' (`lines.rs`), with Parquet's
/// positions.
impl LineLayout for SplitBlock {
    type Width = Half;

    #[inline(always)]
    fn num_lines(&self) -> u64 {
        self.num_blocks
    }

    /// The block's first word, and the hash, whose low 32 bits place the bits there.
    #[inline(always)]
    fn locate(&self, hash: u64) -> (usize, u64) {
        (self.first_word(hash), hash)
    }

    #[inline(always)]
    fn test_words(&self, word: impl Fn(usize) -> u64, x: u64) -> bool {
        split_contains_words(word, x as u32)
    }

    #[inline(always)]
    fn with_test<R>(&self, run: impl TestUser<R, Half>) -> R {
        #[cfg(target_arch = "x86_64")]
        if let Level::Avx2(t) = self.kernel {
            use crate::probe::avx2::{Line, compiled, split_contains};
            return run.run_avx2(
                t,
                move |block: &[u8; 32], x| split_contains(t, block.into(), x as u32),
                move |block: &[u8; 32], x| compiled::split(t, block, x as u32),
                move |block: &[AtomicU64; BLOCK_WORDS], x| {
                    Some(split_contains(t, Line::shared_block(block), x as u32))
                },
            );
        }
        run.run(
            |block: &[u8; 32], x| split_contains_le_bytes(block, x as u32),
            |_: &[AtomicU64; BLOCK_WORDS], _| None,
        )
    }

    #[inline(always)]
    fn mask(&self, x: u64) -> [u64; BLOCK_WORDS] {
        split_mask_words(x as u32)
    }

    /// The kernel's insert (AVX2 where the filter's kernel is).
    #[inline(always)]
    fn set_line(&self, block: &mut [u64; BLOCK_WORDS], x: u64) -> bool {
        split_insert(self.kernel, block, x as u32)
    }

    /// Each of the block's four words written in turn, as Parquet's insert writes them.
    #[inline(always)]
    fn set_shared(&self, block: &[AtomicU64; BLOCK_WORDS], x: u64) -> bool {
        let mut was = true;
        for (word, bits) in block.iter().zip(split_mask_words(x as u32)) {
            was &= internal::or_relaxed(word, bits);
        }
        was
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitBlockBloomFilter;
    use crate::probe::{split_insert_words, split_mask};

    /// libm (the float functions without `std`) gives the split-block filter the size the
    /// standard library gives it, over a grid of (ndv, fpp).
    #[cfg(feature = "std")]
    #[test]
    fn libm_gives_the_std_sizes() {
        use bloom_core::internal::float::{Portable, Std};
        for i in 0..200u64 {
            let ndv = (bloom_core::keys::mix(i) >> (30 + i % 34)).max(1);
            for j in 1..=200u64 {
                let fpp = j as f64 / 401.0 / 10f64.powi((i % 9) as i32);
                let size = |bytes: Result<usize, Error>| bytes.map(parquet_num_bytes);
                let with_std = size(SplitBlock::bytes_for::<Std>(ndv, fpp));
                let with_libm = size(SplitBlock::bytes_for::<Portable>(ndv, fpp));
                assert_eq!(with_std.is_ok(), with_libm.is_ok(), "{ndv} {fpp:e}");
                if let (Ok(a), Ok(b)) = (with_std, with_libm) {
                    assert_eq!(a, b, "ndv {ndv}, fpp {fpp:e}");
                }
            }
        }
    }

    /// The atomic insert sets the bits of the plain one, and both answer as the portable
    /// test of the words does.
    #[test]
    fn atomic_and_portable_paths_set_and_test_the_same_bits() {
        let layout = SplitBlock::of(16);
        let mut words = [0u64; 64];
        let atomic: Vec<AtomicU64> = (0..64).map(|_| AtomicU64::new(0)).collect();
        for i in 0..200u64 {
            let hash = bloom_core::keys::mix(i);
            assert_eq!(
                layout.insert(&mut words, hash),
                layout.insert_shared(&atomic, hash)
            );
        }
        for (w, a) in words.iter().zip(&atomic) {
            assert_eq!(*w, a.load(core::sync::atomic::Ordering::Relaxed));
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let filter = SplitBlockBloomFilter::from_bitset(&bytes).unwrap();
        for i in 0..2_000u64 {
            let hash = bloom_core::keys::mix(i);
            let first = layout.first_word(hash);
            let portable = split_contains_words(|w| words[first + w], hash as u32);
            if i < 200 {
                assert!(portable, "inserted hash {i}");
            }
            assert_eq!(filter.contains_hash(hash), portable, "{i}");
        }
    }

    /// Words of a smaller filter are refused with a panic, never written past.
    #[test]
    #[should_panic(expected = "out of range for slice of length 8")]
    fn insert_refuses_words_short_of_the_blocks() {
        let mut words = [0u64; 8];
        SplitBlock::of(4).insert(&mut words, u64::MAX);
    }

    #[test]
    fn with_params_takes_whole_blocks_and_eight_bits() {
        assert_eq!(SplitBlock::with_params(1, 8).unwrap().num_bits(), 256);
        assert_eq!(SplitBlock::with_params(257, 8).unwrap().num_bits(), 512);
        assert!(SplitBlock::with_params(256, 7).is_err());
        assert!(SplitBlock::with_params(0, 8).is_err());
        assert!(matches!(
            SplitBlock::with_params(BITSET_MAX_BYTES as u64 * 8 + 1, 8),
            Err(Error::TooLarge { .. })
        ));
    }

    /// A `u64` word's halves are the block's `u32` words 2j and 2j + 1: the mask of the
    /// insert is Parquet's, word by word.
    #[test]
    fn words_hold_parquets_u32_words() {
        let layout = SplitBlock::of(1);
        for i in 0..100u64 {
            let hash = bloom_core::keys::mix(i);
            let mut words = [0u64; 4];
            layout.insert(&mut words, hash);
            let mask = split_mask(hash as u32);
            for j in 0..4 {
                assert_eq!(words[j] as u32, mask[2 * j]);
                assert_eq!((words[j] >> 32) as u32, mask[2 * j + 1]);
            }
            assert!(split_insert_words(&mut words, hash as u32));
        }
    }
}
