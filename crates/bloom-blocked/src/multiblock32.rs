//! The 32-bit multiblock layout: each key sets one bit in each of the eight 32-bit words of
//! one 256-bit block (half a cache line), the bit of each word taken from a five-bit field of
//! the key's hash. No multiplication inside the block, and half the bytes of the 512-bit
//! layouts per query, for about 6% more memory than the blocked layout at 1%.
//!
//! # The positions
//!
//! A key's hash is one 64-bit word `h` (as the other blocked layouts'). Its block is
//! `reduce(h, 2 × num_lines)`, the 256-bit blocks counted two per 512-bit line of the
//! format, and the kernels load the block from its own address: the address waits for that
//! one multiply and no other. (A line layout of the cache line's width would name the line
//! and carry the half to the kernel; the half-line [`Width`](crate::probe::Width) spares the
//! query those instructions, docs/blocked.md, "The 32-bit multiblock layout".)
//!
//! The fields are the five-bit groups of `g = h ^ (h << 20)` at bits 0, 5, 10 and 15 and at
//! 32, 37, 42 and 47 (`SHIFTS`), so that one variable shift of four 64-bit lanes puts field
//! i in the low five bits of 32-bit lane i. Bits 0..20 of `g` are those of `h`, and bits
//! 32..52 are `h`'s XORed with its bits 12..32: the fields are uniform and independent of
//! the block for up to 2^24 blocks (512 MiB), whose number the top 24 bits of `h` fix (bits
//! 20..40 of `h`, free of both the block and the lower fields, make the upper fields
//! uniform). No multiply re-mixes them.
//!
//! Block `i` of `b` blocks is block `i / F` of the same hash in `b / F`, so a filter folds
//! by ORing runs of `F` blocks (whole lines of the format, as `F` divides their count).
//!
//! The layout is Boost.Bloom's `fast_multiblock32<8>` (boostorg/bloom,
//! `include/boost/bloom/fast_multiblock32.hpp`) in shape; its positions and its format are
//! the workspace's own (variant tag 8). Its rate is
//! [`multiblock_fpr`](bloom_core::math::multiblock_fpr) with 32-bit words.
//!
//! Taking the fields from the low half of the block's product (Boost's way, which saves a
//! few operations) would make them depend on the block count, and the filter could no longer
//! fold (docs/blocked.md, "The 32-bit multiblock layout").

use alloc::format;
use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use bloom_core::engine::{BlockLayout, Layout, Probe, Storage};
use bloom_core::format::Variant;
use bloom_core::hash::Hashing;
use bloom_core::internal::float::Native;
use bloom_core::internal::simd::Level;
use bloom_core::internal::{self, reduce};
use bloom_core::{Error, math};

use crate::layout::line_layout_methods;
use crate::lines::{self, LineLayout};
use crate::multiblock::{estimated_fpr_of, estimated_len_of, multiblock_layout_methods};
use crate::params::{self, SIZING_HEADROOM};
use crate::probe::{BLOCK_BITS, Half, TestUser};

/// Bits each key sets: one per 32-bit word of its block.
pub const MULTIBLOCK32_HASHES: u32 = 8;

/// Bits per block: eight 32-bit words, half a cache line.
pub const MULTIBLOCK32_BLOCK_BITS: u64 = 256;

/// Keys hashed per burst of a burst insert (each prefetching its one line).
const INSERT_BURST: usize = 64;

/// Words per block.
const BLOCK_WORDS: usize = 4;

/// Where field i starts in the field word: lanes 2j and 2j + 1 of a 64-bit lane j shifted
/// right by `5j` hold bits `5j` and `5j + 32` in their low five bits.
const SHIFTS: [u32; 8] = [0, 32, 5, 37, 10, 42, 15, 47];

/// How far the hash is shifted left before it is XORed into itself: bits 32..52 of the field
/// word take in bits 12..32 of the hash, so that its top 24 bits (the block's) are never a
/// field's only source.
const SPREAD: u32 = 20;

/// The masks of the key of `g` on the four 64-bit words of its block: word j holds 32-bit
/// words 2j (low half) and 2j + 1 (high half).
#[inline(always)]
fn masks(g: u64) -> [u64; 4] {
    core::array::from_fn(|j| {
        let low = (g >> SHIFTS[2 * j]) & 31;
        let high = (g >> SHIFTS[2 * j + 1]) & 31;
        (1u64 << low) | (1u64 << (32 + high))
    })
}

/// The portable test on a block whose word `w` `word` reads: each of the block's eight 32-bit
/// words (two per 64-bit word) shifted right by its field so that its bit lands in bit 0, the
/// shifted words ANDed without a branch. The count is taken mod 32 (`wrapping_shr`), which
/// x86-64's 32-bit `shr` does by itself, so a field needs no mask.
#[inline(always)]
fn test_words(word: impl Fn(usize) -> u64, g: u64) -> bool {
    let mut all = u32::MAX;
    for j in 0..4 {
        let w = word(j);
        let (low, high) = (w as u32, (w >> 32) as u32);
        all &= low.wrapping_shr((g >> SHIFTS[2 * j]) as u32)
            & high.wrapping_shr((g >> SHIFTS[2 * j + 1]) as u32);
    }
    all & 1 != 0
}

/// [`test_words`] on a block's 32 little-endian bytes.
#[inline(always)]
fn test_le_bytes(block: &[u8; 32], g: u64) -> bool {
    test_words(
        |w| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&block[8 * w..8 * w + 8]);
            u64::from_le_bytes(word)
        },
        g,
    )
}

/// The bits set in each 32-bit word of `store`, in order: the low then the high half of
/// each 64-bit word.
pub(crate) fn halves_ones<S: Storage>(store: &S) -> impl Iterator<Item = u32> + '_ {
    store
        .words()
        .flat_map(|word| [(word as u32).count_ones(), (word >> 32).count_ones()])
}

/// Where a key's bits go in a [`Multiblock32BloomFilter`](crate::Multiblock32BloomFilter):
/// one bit in each 32-bit word of one of the two 256-bit blocks of one of `num_lines` lines,
/// and the kernel that tests them (chosen from the CPU when the filter is built; it never
/// changes an answer, so two layouts are equal whatever their kernels).
#[derive(Debug, Clone, Copy)]
pub struct Multiblock32 {
    num_lines: u64,
    kernel: Level,
}

impl PartialEq for Multiblock32 {
    fn eq(&self, other: &Self) -> bool {
        self.num_lines == other.num_lines
    }
}

impl Eq for Multiblock32 {}

impl Multiblock32 {
    fn of(num_lines: u64) -> Result<Multiblock32, Error> {
        internal::check_num_bits(num_lines.saturating_mul(BLOCK_BITS))?;
        Ok(Multiblock32 {
            num_lines,
            kernel: Multiblock32::kernel_for(Probe::best()),
        })
    }

    /// The kernel for `probe`: AVX2's serves AVX-512 too. The block is one 256-bit register,
    /// and the one instruction AVX-512 would save (the count mask, with a variable rotate) did
    /// not pay for the second dispatch branch (docs/blocked.md, "The 32-bit multiblock
    /// layout").
    fn kernel_for(probe: Probe) -> Level {
        Level::at_most(probe.min(Probe::Avx2))
    }

    /// The expected rate of `num_lines` lines holding `num_items` keys.
    fn rate(num_lines: u64, num_items: u64) -> f64 {
        math::multiblock_fpr(num_lines * BLOCK_BITS, 32, MULTIBLOCK32_HASHES, num_items)
    }
}

impl Layout for Multiblock32 {
    type Hash = u64;
    type Hashing = Hashing;
    const NAME: &'static str = "Multiblock32BloomFilter";
    const ATOMIC_NAME: &'static str = "AtomicMultiblock32BloomFilter";
    const VARIANT: Variant = Variant::Multiblock32;
    const PARAMS_LEN: usize = internal::SIZE_AND_HASHES_LEN;
    const INSERT_BURST: usize = INSERT_BURST;
    /// A fold merges runs of 256-bit blocks: block `i` of the folded filter holds the keys
    /// of blocks `iF .. (i + 1)F`.
    const BLOCK_WORDS: usize = BLOCK_WORDS;

    multiblock_layout_methods!("32-bit multiblock");

    line_layout_methods!(hash64);

    fn expected_fpr(&self, num_items: u64) -> f64 {
        Multiblock32::rate(self.num_lines, num_items)
    }

    /// The keys each 32-bit word's fill suggests, summed over the words and divided by the
    /// eight words every key sets a bit in (`estimated_len_of`).
    fn estimated_len<S: Storage>(&self, store: &S) -> f64 {
        estimated_len_of(halves_ones(store), 32)
    }

    /// The mean over blocks of the product over their eight 32-bit words of `x/32`, the
    /// chance a query's bit is set in a word with x bits set (`estimated_fpr_of`).
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64 {
        estimated_fpr_of(halves_ones(store), 32, 2 * self.num_lines)
    }

    /// Block `i` of the result is the OR of blocks `i × factor .. (i + 1) × factor`: `factor`
    /// must divide the line count, so that the result is whole lines.
    fn folded(&self, factor: u32) -> Result<Self, Error> {
        if !factor.is_power_of_two() || !self.num_lines.is_multiple_of(u64::from(factor)) {
            return Err(Error::invalid(
                "factor",
                format!(
                    "must be a power of two dividing the {} lines of two blocks (got {factor})",
                    self.num_lines
                ),
            ));
        }
        Ok(Multiblock32 {
            num_lines: self.num_lines / u64::from(factor),
            ..*self
        })
    }
}

impl BlockLayout for Multiblock32 {
    /// The number of 256-bit blocks: two per line.
    #[inline]
    fn num_blocks(&self) -> u64 {
        2 * self.num_lines
    }

    /// Always 8: the layout sets one bit in each word of a block.
    fn optimal_num_hashes(_bits_per_key: f64) -> u32 {
        MULTIBLOCK32_HASHES
    }

    /// The largest power of two dividing the line count that leaves at least
    /// `needed_blocks` blocks (the result stays whole lines).
    fn largest_fold(&self, needed_blocks: u64) -> u32 {
        let needed_lines = needed_blocks.div_ceil(2).max(1);
        let mut factor = 1u32;
        while factor < 1 << 31
            && self.num_lines.is_multiple_of(2 * u64::from(factor))
            && self.num_lines / (2 * u64::from(factor)) >= needed_lines
        {
            factor *= 2;
        }
        factor
    }
}

/// A line of this layout is a 256-bit block, half a cache line: the storage, the batch engine
/// and the fold take it whole, and the kernels load it from its own address.
impl LineLayout for Multiblock32 {
    type Width = Half;

    /// The number of 256-bit blocks, two per 512-bit line of the format.
    #[inline(always)]
    fn num_lines(&self) -> u64 {
        2 * self.num_lines
    }

    /// The block's first word, and the field word (see the module docs).
    #[inline(always)]
    fn locate(&self, hash: u64) -> (usize, u64) {
        // Below the block count, which exists in memory, so it fits a `usize`.
        let block = reduce(hash, 2 * self.num_lines) as usize;
        (block * BLOCK_WORDS, hash ^ (hash << SPREAD))
    }

    #[inline(always)]
    fn test_words(&self, word: impl Fn(usize) -> u64, g: u64) -> bool {
        test_words(word, g)
    }

    #[inline(always)]
    fn with_test<R>(&self, run: impl TestUser<R, Half>) -> R {
        #[cfg(target_arch = "x86_64")]
        if let Level::Avx2(t) = self.kernel {
            use crate::probe::avx2::{Line, compiled, multi32_contains};
            return run.run_avx2(
                t,
                move |block: &[u8; 32], g| multi32_contains(t, block.into(), g),
                move |block: &[u8; 32], g| compiled::multi32(t, block, g),
                move |block: &[AtomicU64; BLOCK_WORDS], g| {
                    Some(multi32_contains(t, Line::shared_block(block), g))
                },
            );
        }
        run.run(test_le_bytes, |_: &[AtomicU64; BLOCK_WORDS], _| None)
    }

    /// The block's four words (two of the key's bits in each), each tested and written in
    /// turn: for this layout a branch per word measured faster than the default's loads
    /// first and loop over the words to write (docs/design.md, "The atomic filter").
    #[inline(always)]
    fn set_shared(&self, block: &[AtomicU64; BLOCK_WORDS], g: u64) -> bool {
        let mut was = true;
        for (word, m) in block.iter().zip(masks(g)) {
            was &= internal::or_relaxed(word, m);
        }
        was
    }

    #[inline(always)]
    fn mask(&self, g: u64) -> [u64; BLOCK_WORDS] {
        masks(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::keys::SplitMix64;

    /// The portable test and every kernel the CPU has give the answer of the key's mask, on
    /// random blocks of every density and random field words, present and absent.
    #[test]
    fn kernels_agree_with_the_portable_test() {
        let mut rng = SplitMix64(13);
        let kernels: Vec<Level> = [Probe::Portable, Probe::Avx2]
            .into_iter()
            .filter(|p| p.is_available())
            .map(Multiblock32::kernel_for)
            .collect();
        let layout = |kernel| Multiblock32 {
            num_lines: 1,
            kernel,
        };
        for density in [1u32, 2, 3, 5, 8] {
            for _ in 0..20_000 {
                let mut words = [0u64; BLOCK_WORDS];
                for w in &mut words {
                    *w = !(0..density).fold(!0, |a, _| a & rng.next_u64());
                }
                let g = rng.next_u64();
                // Half the time, the key's own bits set: a present key.
                if rng.next_u64() & 1 == 0 {
                    for (w, m) in words.iter_mut().zip(masks(g)) {
                        *w |= m;
                    }
                }
                let mut block = [0u8; 32];
                for (chunk, w) in block.chunks_exact_mut(8).zip(words) {
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
                // The definition: every bit of the key's mask set, as an insert sets them.
                let expected = words.iter().zip(masks(g)).all(|(w, m)| w & m == m);
                assert_eq!(test_words(|w| words[w], g), expected);
                for &kernel in &kernels {
                    assert_eq!(
                        crate::lines::test_line(&layout(kernel), &block, g),
                        expected,
                        "{kernel:?}"
                    );
                }
            }
        }
    }

    /// A key's block is `reduce(h, 2 × num_lines)`, its fields do not depend on the number of
    /// lines, and a filter folded by F puts the key in block `block / F`.
    #[test]
    fn the_block_is_the_reduced_hash_and_the_fields_do_not_move() {
        let of = |num_lines| Multiblock32 {
            num_lines,
            kernel: Level::Portable,
        };
        let block = |layout: &Multiblock32, h| {
            let (first, g) = layout.locate(h);
            ((first / BLOCK_WORDS) as u64, g)
        };
        for h in SplitMix64(21).take(20_000) {
            for num_lines in [1u64, 3, 12, 1 << 20, (1 << 33) + 6] {
                let (b, fields) = block(&of(num_lines), h);
                assert_eq!(b, reduce(h, 2 * num_lines));
                assert_eq!(fields, block(&of(1), h).1);
                for factor in [2u64, 4] {
                    if num_lines % factor == 0 {
                        assert_eq!(block(&of(num_lines / factor), h).0, b / factor);
                    }
                }
            }
        }
    }

    /// A key's mask is one bit in each 32-bit word of its block, every bit of every word is
    /// reachable, and the fields are the five-bit groups the kernels read.
    #[test]
    fn one_bit_per_word_and_every_bit_reachable() {
        let layout = Multiblock32 {
            num_lines: 3,
            kernel: Level::Portable,
        };
        let mut seen = [0u64; BLOCK_WORDS];
        for h in SplitMix64(5).take(40_000) {
            let (first, g) = layout.locate(h);
            assert_eq!(first % BLOCK_WORDS, 0);
            let mask = layout.mask(g);
            for m in mask {
                assert_eq!((m & 0xFFFF_FFFF).count_ones(), 1);
                assert_eq!((m >> 32).count_ones(), 1);
            }
            for i in 0..8 {
                let field = (g >> SHIFTS[i]) & 31;
                let word = mask[i / 2] >> (32 * (i % 2));
                assert_eq!(word & 0xFFFF_FFFF, 1 << field);
            }
            for (s, m) in seen.iter_mut().zip(mask) {
                *s |= m;
            }
        }
        assert_eq!(seen, [!0u64; BLOCK_WORDS]);
    }
}
