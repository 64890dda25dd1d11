//! The multiblock layout: each key sets one bit in each of the eight 64-bit words of one
//! 512-bit block (a cache line), the bit of word i taken from bits `6i..6i + 6` of a
//! re-mixed hash. No multiplication inside the block: the vector kernels shift or rotate
//! each word by its field and test bit 0 of all eight at once.
//!
//! # The positions
//!
//! A key's hash is one 64-bit word `h` (as the blocked layout's). The block is `reduce(h,
//! num_blocks)` (multiply-shift, any block count). The fields come from `f = lo ^ hi` of the
//! 128-bit product `h × 0x9E3779B97F4A7C15` (one `mulx`): every bit of `f` depends on every
//! bit of `h`, so the fields stay independent of the block choice whatever the block count
//! (a filter above 2^32 bits keeps its rate). Word i's bit is `(f >> 6i) & 63`.
//!
//! The rate is [`multiblock_fpr`](bloom_core::math::multiblock_fpr): at 1% it needs 10.10
//! bits per key against the blocked layout's 9.90 (k = 8 bits anywhere in the block), and at
//! 0.1% 15.72 against 15.49 (docs/blocked.md, "The multiblock layout").
//!
//! The mapping is part of the binary format (variant tag 7): changing it changes which bits
//! a key owns.

use alloc::format;
use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

use bloom_core::engine::{BlockLayout, Layout, Probe, Storage};
use bloom_core::format::Variant;
use bloom_core::hash::Hashing;
use bloom_core::internal::digest::fold_mul;
use bloom_core::internal::float::{Float, Native};
use bloom_core::internal::simd::Level;
use bloom_core::internal::{self, reduce};
use bloom_core::{Error, math};

use crate::layout::line_layout_methods;
use crate::lines::{self, LINE_WORDS, LineLayout};
use crate::params::{self, SIZING_HEADROOM};
use crate::probe::{BLOCK_BITS, TestUser};

/// Bits each key sets: one per 64-bit word of its block.
pub const MULTIBLOCK_HASHES: u32 = 8;

/// Keys hashed per burst of a burst insert (each prefetching its one line).
const INSERT_BURST: usize = 64;

/// The multiplier of the field re-mix: the 64-bit golden ratio.
const FIELD_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// The word whose six-bit fields are a key's positions (see the module docs).
#[inline(always)]
pub(crate) fn fields(hash: u64) -> u64 {
    fold_mul(hash, FIELD_MIX)
}

/// Bit `(f >> 6i) & 63` of word i, as one mask per word.
#[inline(always)]
fn bit(f: u64, word: usize) -> u64 {
    1u64 << ((f >> (6 * word)) & 63)
}

/// The keys a multiblock filter holds, estimated from its fill: `ones` counts the bits set in
/// each of its `word_bits`-bit words, in order. A word of x bits set has seen about
/// `ln(1 - x/w) / ln(1 - 1/w)` keys of its block; the sum over words is divided by the eight
/// words every key sets a bit in.
pub(crate) fn estimated_len_of(ones: impl Iterator<Item = u32>, word_bits: u32) -> f64 {
    let w = f64::from(word_bits);
    let per_key = Native::ln_1p(-1.0 / w);
    let sum: f64 = ones
        .map(|x| {
            if x == word_bits {
                f64::INFINITY
            } else {
                Native::ln_1p(-f64::from(x) / w) / per_key
            }
        })
        .sum();
    sum / f64::from(MULTIBLOCK_HASHES)
}

/// The rate of a multiblock filter of `num_blocks` blocks of eight `word_bits`-bit words,
/// estimated from its fill (`ones` as for [`estimated_len_of`]): the mean over blocks of the
/// product over their words of `x/w`, the chance a query's bit is set in a word with x bits
/// set.
pub(crate) fn estimated_fpr_of(
    mut ones: impl Iterator<Item = u32>,
    word_bits: u32,
    num_blocks: u64,
) -> f64 {
    let w = f64::from(word_bits);
    let mut total = 0.0;
    for _ in 0..num_blocks {
        let mut block = 1.0;
        for x in ones.by_ref().take(MULTIBLOCK_HASHES as usize) {
            block *= f64::from(x) / w;
        }
        total += block;
    }
    total / num_blocks as f64
}

/// The [`Layout`] methods the multiblock layouts (64- and 32-bit words) share: sizing by their
/// rate over whole lines with the blocked layout's 5% of headroom, one bit in each of eight
/// words, the block parameters' bytes, the kernel choice, and combining sizes a power of two
/// apart. Expanded inside the `impl Layout` of a type with `num_lines` and `kernel` fields and
/// the associated functions `of(num_lines)`, `rate(num_lines, num_items)` and
/// `kernel_for(probe)`; `$what` names the layout in errors.
macro_rules! multiblock_layout_methods {
    ($what:literal) => {
        /// The smallest number of lines whose rate by the layout's formula
        /// ([`multiblock_fpr`](bloom_core::math::multiblock_fpr)) is at most `fpr` (with the
        /// blocked layout's 5% of headroom) for `expected_items` keys.
        fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error> {
            // A blocked filter never beats the classic optimum: start the search there.
            let classic = internal::optimal_num_bits_with::<Native>(expected_items, fpr)?;
            let target = fpr * SIZING_HEADROOM;
            let max_lines = math::MAX_NUM_BITS / BLOCK_BITS;
            let start = (classic / BLOCK_BITS).clamp(1, max_lines);
            match params::smallest_from(start, |lines| Self::rate(lines, expected_items) <= target)
            {
                Some(num_lines) => Self::of(num_lines),
                None => Err(Error::TooLarge {
                    requested_bits: (max_lines as f64 * 2.0) * BLOCK_BITS as f64,
                    max_bits: math::MAX_NUM_BITS,
                }),
            }
        }

        /// `num_bits` rounded up to whole 512-bit lines; `num_hashes` must be 8, the layout's
        /// one bit per word.
        fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
            internal::check_num_bits(num_bits)?;
            if num_hashes != 8 {
                return Err(Error::invalid(
                    "num_hashes",
                    format!(
                        concat!(
                            "a ",
                            $what,
                            " filter sets one bit in each of a block's 8 words (got {})"
                        ),
                        num_hashes
                    ),
                ));
            }
            Self::of(num_bits.div_ceil(BLOCK_BITS))
        }

        #[inline(always)]
        fn num_bits(&self) -> u64 {
            self.num_lines * BLOCK_BITS
        }

        #[inline(always)]
        fn num_hashes(&self) -> u32 {
            8
        }

        fn check_same(&self, other: &Self) -> Result<(), Error> {
            Error::check_same("num_bits", self.num_bits(), other.num_bits())
        }

        fn write_params(&self, out: &mut [u8]) {
            params::write_block_params(self.num_lines, 8, out);
        }

        fn read_params(params: &[u8]) -> Result<Self, Error> {
            let (num_lines, num_hashes) = params::read_block_params(params)?;
            if num_hashes != 8 {
                return Err(Error::corrupt(format!(
                    "num_hashes {num_hashes} is not 8, one bit per word"
                )));
            }
            Self::of(num_lines)
        }

        /// Always in bursts, whatever the size: one line per key keeps a burst cheap.
        fn bursts_from(&self) -> usize {
            0
        }

        fn probe(&self) -> Probe {
            self.kernel.probe()
        }

        fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
            self.kernel = Self::kernel_for(probe);
            Ok(self)
        }

        /// Sizes a power of two apart: the larger folds to the smaller.
        fn fold_factors(&self, other: &Self) -> Result<(u32, u32), Error> {
            params::fold_factors(self.num_lines, other.num_lines, BLOCK_BITS)
        }
    };
}
pub(crate) use multiblock_layout_methods;

/// Where a key's bits go in a [`MultiblockBloomFilter`](crate::MultiblockBloomFilter): one
/// bit in each 64-bit word of one of `num_blocks` 512-bit blocks, and the kernel that tests
/// them (chosen from the CPU when the filter is built; it never changes an answer, so two
/// layouts are equal whatever their kernels).
#[derive(Debug, Clone, Copy)]
pub struct Multiblock {
    /// The number of blocks, each one line.
    num_lines: u64,
    kernel: Level,
}

impl PartialEq for Multiblock {
    fn eq(&self, other: &Self) -> bool {
        self.num_lines == other.num_lines
    }
}

impl Eq for Multiblock {}

/// The portable test on a line whose word `w` `word` reads: each word shifted right by its
/// field so that its bit lands in bit 0, the shifted words ANDed without a branch (for an
/// absent key an early exit would be a coin flip per word). The shift is taken mod 64
/// (`wrapping_shr`), which x86-64's `shr` does by itself, so a field needs no mask: the
/// field word is shifted by six per word and its low bits are the count.
#[inline(always)]
fn test_words(word: impl Fn(usize) -> u64, f: u64) -> bool {
    let (mut all, mut fields) = (u64::MAX, f);
    for w in 0..LINE_WORDS {
        all &= word(w).wrapping_shr(fields as u32);
        fields >>= 6;
    }
    all & 1 != 0
}

/// [`test_words`] on a line's 64 little-endian bytes.
#[inline(always)]
fn test_le_bytes(line: &[u8; 64], f: u64) -> bool {
    test_words(
        |w| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&line[8 * w..8 * w + 8]);
            u64::from_le_bytes(word)
        },
        f,
    )
}

impl Multiblock {
    fn of(num_lines: u64) -> Result<Multiblock, Error> {
        internal::check_num_bits(num_lines.saturating_mul(BLOCK_BITS))?;
        Ok(Multiblock {
            num_lines,
            kernel: Level::detect(),
        })
    }

    /// The expected rate of `num_lines` blocks holding `num_items` keys.
    fn rate(num_lines: u64, num_items: u64) -> f64 {
        math::multiblock_fpr(num_lines * BLOCK_BITS, 64, MULTIBLOCK_HASHES, num_items)
    }

    /// The kernel for `probe`, or the next best one the CPU has.
    fn kernel_for(probe: Probe) -> Level {
        Level::at_most(probe)
    }
}

impl Layout for Multiblock {
    type Hash = u64;
    type Hashing = Hashing;
    const NAME: &'static str = "MultiblockBloomFilter";
    const ATOMIC_NAME: &'static str = "AtomicMultiblockBloomFilter";
    const VARIANT: Variant = Variant::Multiblock;
    const PARAMS_LEN: usize = internal::SIZE_AND_HASHES_LEN;
    const INSERT_BURST: usize = INSERT_BURST;
    const BLOCK_WORDS: usize = LINE_WORDS;

    multiblock_layout_methods!("multiblock");

    line_layout_methods!(hash64);

    fn expected_fpr(&self, num_items: u64) -> f64 {
        Multiblock::rate(self.num_lines, num_items)
    }

    /// The keys each 64-bit word's fill suggests, summed over the words and divided by the
    /// eight words every key sets a bit in (`estimated_len_of`).
    fn estimated_len<S: Storage>(&self, store: &S) -> f64 {
        estimated_len_of(store.words().map(u64::count_ones), 64)
    }

    /// The mean over blocks of the product over their words of `x/64`, the chance a
    /// query's bit is set in a word with x bits set (`estimated_fpr_of`).
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64 {
        estimated_fpr_of(store.words().map(u64::count_ones), 64, self.num_lines)
    }

    fn folded(&self, factor: u32) -> Result<Self, Error> {
        Ok(Multiblock {
            num_lines: params::folded_blocks(self.num_lines, factor)?,
            ..*self
        })
    }
}

impl BlockLayout for Multiblock {
    #[inline]
    fn num_blocks(&self) -> u64 {
        self.num_lines
    }

    /// Always 8: the layout sets one bit in each word of a block.
    fn optimal_num_hashes(_bits_per_key: f64) -> u32 {
        MULTIBLOCK_HASHES
    }
}

impl LineLayout for Multiblock {
    type Width = crate::probe::Full;

    #[inline(always)]
    fn num_lines(&self) -> u64 {
        self.num_lines
    }

    #[inline(always)]
    fn locate(&self, hash: u64) -> (usize, u64) {
        // Below `num_lines`, which exists in memory, so the product fits a `usize`.
        let block = reduce(hash, self.num_lines) as usize;
        (block * LINE_WORDS, fields(hash))
    }

    #[inline(always)]
    fn test_words(&self, word: impl Fn(usize) -> u64, f: u64) -> bool {
        test_words(word, f)
    }

    #[inline(always)]
    fn with_test<R>(&self, run: impl TestUser<R>) -> R {
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Level::Avx2(t) => run.run_avx2(
                t,
                move |line: &[u8; 64], f| crate::probe::avx2::multi_contains(t, line.into(), f),
                move |line: &[u8; 64], f| crate::probe::avx2::compiled::multi(t, line, f),
                move |line: &[AtomicU64; LINE_WORDS], f| {
                    let shared = crate::probe::avx2::Line::shared(line);
                    Some(crate::probe::avx2::multi_contains(t, shared, f))
                },
            ),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512(t) => run.run_avx512(
                t,
                move |line: &[u8; 64], f| crate::probe::avx2::multi_contains_512(t, line.into(), f),
                move |line: &[u8; 64], f| crate::probe::avx2::compiled::multi512(t, line, f),
                move |line: &[AtomicU64; LINE_WORDS], f| {
                    let shared = crate::probe::avx2::Line::shared(line);
                    Some(crate::probe::avx2::multi_contains_512(t, shared, f))
                },
            ),
            _ => run.run(test_le_bytes, |_: &[AtomicU64; LINE_WORDS], _| None),
        }
    }

    #[inline(always)]
    fn mask(&self, f: u64) -> [u64; LINE_WORDS] {
        core::array::from_fn(|w| bit(f, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::keys::SplitMix64;

    /// The portable test and every kernel the CPU has give the answer of the positions'
    /// definition, on random lines of every density and random field words, present and
    /// absent.
    #[test]
    fn kernels_agree_with_the_portable_test() {
        let mut rng = SplitMix64(11);
        let kernels: Vec<Level> = [Probe::Portable, Probe::Avx2, Probe::Avx512]
            .into_iter()
            .filter(|p| p.is_available())
            .map(Level::at_most)
            .collect();
        for density in [1u32, 2, 3, 5, 8] {
            for _ in 0..20_000 {
                let mut words = [0u64; 8];
                for w in &mut words {
                    *w = (0..density).fold(!0, |a, _| a & rng.next_u64());
                    *w = !*w;
                }
                let f = rng.next_u64();
                // Half the time, the key's own bits set: a present key.
                if rng.next_u64() & 1 == 0 {
                    for (w, word) in words.iter_mut().enumerate() {
                        *word |= bit(f, w);
                    }
                }
                let mut line = [0u8; 64];
                for (chunk, w) in line.chunks_exact_mut(8).zip(words) {
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
                // The definition: word w holds bit `bit(f, w)`, as an insert sets it.
                let expected = (0..LINE_WORDS).all(|w| words[w] & bit(f, w) != 0);
                assert_eq!(test_words(|w| words[w], f), expected);
                for &kernel in &kernels {
                    let layout = Multiblock {
                        num_lines: 1,
                        kernel,
                    };
                    assert_eq!(lines::test_line(&layout, &line, f), expected, "{kernel:?}");
                }
            }
        }
    }

    /// The fields take every value in every word (no position is unreachable).
    #[test]
    fn every_bit_of_every_word_is_reachable() {
        let mut seen = [0u64; 8];
        for h in SplitMix64(3).take(20_000) {
            let f = fields(h);
            for (w, s) in seen.iter_mut().enumerate() {
                *s |= bit(f, w);
            }
        }
        assert_eq!(seen, [!0u64; 8]);
    }
}
