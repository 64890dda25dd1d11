//! Where a key's bits are in the blocked layout, and the query's mask of them.
//!
//! A key picks one row by multiply-shift of the low half of its hash. A row is `k + l`
//! blocks of [`BLOCK_BITS`](crate::BLOCK_BITS) = 128 bits (two words), one per physical slice,
//! side by side in physical order. With `x` and `c` the low and high 32-bit halves of the
//! hash's high half (`c` made odd), the key's bit in the block of physical slice j is the top
//! 7 bits of MurmurHash3's 32-bit finalizer of `x + j c` (modulo 2^32). The finalizer is a
//! bijection and `c` is odd, so the values `x + j c` of one key are distinct for the up to
//! 128 slices; the finalizer keeps neighbouring slices' positions independent (without it,
//! two keys sharing their bits in two slices would tend to share them in all: docs/aging.md).
//!
//! The query gathers the key's bits of all slices into one 128-bit mask (bit j: physical
//! slice j), by the AVX-512 kernel where the CPU has it (16 positions per register, each
//! lane's 32-bit word picked from four loads of the 16 blocks by two two-table permutes, 16
//! bits tested at once), by the AVX2 kernel where it has AVX2 only (8 positions per
//! register, each lane's word picked from four loads of the 8 blocks by four one-table
//! permutes and three blends), or by the portable loop: all three give the same mask.

use bloom_core::engine::Probe;
use bloom_core::internal::simd::Level;
use bloom_core::internal::{high_half, low_half, reduce};

/// The words of one block.
pub(crate) const BLOCK_WORDS: usize = 2;

/// MurmurHash3's 32-bit finalizer (Appleby, MurmurHash3, `fmix32`): a bijection.
#[inline(always)]
pub(crate) fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// A key's place in the filter: its row and the seeds of its positions in the row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    /// The row's index.
    pub(crate) row: u64,
    pub(crate) x: u32,
    /// Odd.
    pub(crate) c: u32,
}

impl Key {
    /// The key of `hash` in a filter of `rows` rows.
    #[inline(always)]
    pub(crate) fn new(hash: u128, rows: u64) -> Key {
        let b = high_half(hash);
        Key {
            row: reduce(low_half(hash), rows),
            x: b as u32,
            c: (b >> 32) as u32 | 1,
        }
    }

    /// The key's bit in the block of physical slice `j`: the word within the row, and the
    /// bit's mask.
    #[inline(always)]
    pub(crate) fn bit(&self, j: u32) -> (usize, u64) {
        let pos = fmix32(self.x.wrapping_add(j.wrapping_mul(self.c))) >> 25;
        (
            BLOCK_WORDS * j as usize + (pos >> 6) as usize,
            1 << (pos & 63),
        )
    }
}

/// The key's bits in `row` (a row of `row.len() / 2` slices, at most 128), bit j for
/// physical slice j, a slice at a time.
pub(crate) fn mask_portable(row: &[u64], key: &Key) -> u128 {
    let slices = (row.len() / BLOCK_WORDS) as u32;
    (0..slices).fold(0, |mask, j| {
        let (word, bit) = key.bit(j);
        mask | (u128::from(row[word] & bit != 0) << j)
    })
}

/// How the mask is computed: chosen once per filter from what the CPU has, one kernel per
/// level of its vector instructions ([`mask_portable`] for [`Level::Portable`]); holding a
/// vector level's token proves the CPU has its instructions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel(Level);

impl Kernel {
    /// The fastest kernel the CPU has.
    pub(crate) fn detect() -> Kernel {
        Kernel(Level::detect())
    }

    /// Every kernel this CPU runs, the fastest first, the portable one last.
    pub(crate) fn available() -> impl Iterator<Item = Kernel> {
        Level::available().map(Kernel)
    }

    /// The implementation this kernel is, by the workspace's name for it.
    pub(crate) fn probe(self) -> Probe {
        self.0.probe()
    }

    /// The key's bits in `row`, as [`mask_portable`] gives them.
    #[inline(always)]
    pub(crate) fn mask(self, row: &[u64], key: &Key) -> u128 {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Level::Avx2(token) => avx2::mask(token, row, key.x, key.c),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512(token) => avx512::mask(token, row, key.x, key.c),
            // Off x86_64 no token of a vector level is ever made.
            _ => mask_portable(row, key),
        }
    }
}

/// Whether `mask` (bit j: physical slice j, `slices` of them) has k set bits in a row in
/// ring order among the `alive` newest slices, the newest being physical slice `head`.
/// Found by shifts: after them, bit i of `run` is set when bits i to i + k - 1 are.
#[inline(always)]
pub(crate) fn has_run(mask: u128, slices: u32, head: u32, k: u32, alive: u32) -> bool {
    if alive < k {
        return false;
    }
    // Logical slice i is physical (head + i) mod slices.
    let ring = if head == 0 {
        mask
    } else {
        (mask >> head) | (mask << (slices - head))
    };
    let live = if alive >= 128 {
        u128::MAX
    } else {
        (1 << alive) - 1
    };
    let mut run = ring & live;
    let mut len = 1;
    while len < k {
        let step = len.min(k - len);
        run &= run >> step;
        len += step;
    }
    run != 0
}

/// The AVX2 kernel: the AVX-512 kernel's steps at half the width, for the CPUs without
/// AVX-512 (AMD's before Zen 4, Intel's client cores).
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    use super::BLOCK_WORDS;

    pub(crate) use bloom_core::internal::simd::Avx2;

    /// The mask of a row of at most 128 blocks of two words.
    #[inline(always)]
    pub(crate) fn mask(_token: Avx2, row: &[u64], x: u32, c: u32) -> u128 {
        assert!(row.len().is_multiple_of(BLOCK_WORDS) && row.len() <= 128 * BLOCK_WORDS);
        // SAFETY: the token proves the CPU has AVX2; the row's length was checked.
        unsafe { mask_avx2(row, x, c) }
    }

    /// The mask of a row of blocks of two words.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2; `row.len()` must be twice the slices, at most 128 slices.
    #[target_feature(enable = "avx2")]
    unsafe fn mask_avx2(row: &[u64], x: u32, c: u32) -> u128 {
        // Lane i handles slice 8 g + i of group g, starting at x + (8 g + i) c.
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mut v = _mm256_add_epi32(
            _mm256_set1_epi32(x as i32),
            _mm256_mullo_epi32(lane, _mm256_set1_epi32(c as i32)),
        );
        let step = _mm256_set1_epi32(c.wrapping_mul(8) as i32);
        let mut chunks = [0u8; 16];
        let mut groups = row.chunks_exact(8 * BLOCK_WORDS);
        for (chunk, group) in chunks.iter_mut().zip(&mut groups) {
            // SAFETY: four unaligned 32-byte loads, words 0..16 of the group.
            let words = unsafe {
                [0, 4, 8, 12].map(|at| _mm256_loadu_si256(group.as_ptr().add(at).cast()))
            };
            *chunk = group_mask(v, words);
            v = _mm256_add_epi32(v, step);
        }
        // A last group of fewer than eight slices: masked loads read the row's words and give
        // zeros past its end (where they touch no memory), whose lanes never test set.
        let rest = groups.remainder();
        if !rest.is_empty() {
            let len = _mm256_set1_epi64x(rest.len() as i64);
            let words = [0, 4, 8, 12].map(|at| {
                let lanes = _mm256_setr_epi64x(at, at + 1, at + 2, at + 3);
                let live = _mm256_cmpgt_epi64(len, lanes);
                let from = rest.as_ptr().wrapping_add(at as usize);
                // SAFETY: a masked load reads only its live lanes, words of `rest`.
                unsafe { _mm256_maskload_epi64(from.cast(), live) }
            });
            chunks[row.len() / (8 * BLOCK_WORDS)] = group_mask(v, words);
        }
        u128::from_le_bytes(chunks)
    }

    /// The key's bits in a group of eight blocks, bit i for block i, where `v` holds lane i's
    /// `x + j c` and `words` the group's 16 words, four to a register.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn group_mask(v: __m256i, words: [__m256i; 4]) -> u8 {
        let mut h = _mm256_xor_si256(v, _mm256_srli_epi32::<16>(v));
        h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x85eb_ca6b_u32 as i32));
        h = _mm256_xor_si256(h, _mm256_srli_epi32::<13>(h));
        h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0xc2b2_ae35_u32 as i32));
        h = _mm256_xor_si256(h, _mm256_srli_epi32::<16>(h));
        // The top 7 bits: the position in the block.
        let pos = _mm256_srli_epi32::<25>(h);
        // The eight blocks are four registers of two: lane i's block is 32-bit words
        // 4 (i % 2) to 4 (i % 2) + 3 of register i / 2, and the key's bit is bit `pos % 32`
        // of 32-bit word `pos / 32` of the block (little-endian, as in the AVX-512 kernel).
        let [r0, r1, r2, r3] = words;
        // Every register permuted by the lanes' word indices, then lanes 0-1 kept from the
        // first, 2-3 from the second, and so on.
        let index = _mm256_or_si256(
            _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4),
            _mm256_srli_epi32::<5>(pos),
        );
        let low = _mm256_blend_epi32::<0b0000_1100>(
            _mm256_permutevar8x32_epi32(r0, index),
            _mm256_permutevar8x32_epi32(r1, index),
        );
        let high = _mm256_blend_epi32::<0b1100_0000>(
            _mm256_permutevar8x32_epi32(r2, index),
            _mm256_permutevar8x32_epi32(r3, index),
        );
        let word = _mm256_blend_epi32::<0b1111_0000>(low, high);
        let low_bits = _mm256_and_si256(pos, _mm256_set1_epi32(31));
        let bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), low_bits);
        let set = _mm256_cmpeq_epi32(_mm256_and_si256(word, bit), bit);
        _mm256_movemask_ps(_mm256_castsi256_ps(set)) as u8
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use std::arch::x86_64::*;

    use super::BLOCK_WORDS;

    pub(crate) use bloom_core::internal::simd::Avx512;

    /// The mask of a row of at most 128 blocks of two words.
    #[inline(always)]
    pub(crate) fn mask(_token: Avx512, row: &[u64], x: u32, c: u32) -> u128 {
        assert!(row.len().is_multiple_of(BLOCK_WORDS) && row.len() <= 128 * BLOCK_WORDS);
        // SAFETY: the token proves the CPU has AVX-512 F; the row's length was checked.
        unsafe { mask_avx512(row, x, c) }
    }

    /// The mask of a row of blocks of two words.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX-512 F; `row.len()` must be twice the slices, at most 128
    /// slices.
    #[target_feature(enable = "avx512f")]
    unsafe fn mask_avx512(row: &[u64], x: u32, c: u32) -> u128 {
        let slices = row.len() / BLOCK_WORDS;
        // Lane i handles slice 16 g + i of group g: its block is 32-bit words 4i to 4i + 3
        // of the group's 64 (little-endian: word w of the block holds 32-bit words 2w and
        // 2w + 1), and the key's bit is bit `pos % 32` of 32-bit word `pos / 32` of it.
        let lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let lane4 = _mm512_slli_epi32::<2>(lane);
        let (low_bits, one) = (_mm512_set1_epi32(31), _mm512_set1_epi32(1));
        // x + j c for the group's slices, stepped by 16 c.
        let mut v = _mm512_add_epi32(
            _mm512_set1_epi32(x as i32),
            _mm512_mullo_epi32(lane, _mm512_set1_epi32(c as i32)),
        );
        let step = _mm512_set1_epi32(c.wrapping_mul(16) as i32);
        let mut chunks = [0u16; 8];
        for (g, chunk) in chunks.iter_mut().enumerate().take(slices.div_ceil(16)) {
            let mut h = _mm512_xor_si512(v, _mm512_srli_epi32::<16>(v));
            h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0x85eb_ca6b_u32 as i32));
            h = _mm512_xor_si512(h, _mm512_srli_epi32::<13>(h));
            h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0xc2b2_ae35_u32 as i32));
            h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
            v = _mm512_add_epi32(v, step);
            // The top 7 bits: the position in the block.
            let pos = _mm512_srli_epi32::<25>(h);
            // The row's 64-bit words of these 16 slices (32 words; those past the row masked
            // off, read as zero: their lanes are never set).
            let first = 16 * g;
            let words = BLOCK_WORDS * (slices - first).min(16);
            let live = if words == 32 {
                u32::MAX
            } else {
                (1u32 << words) - 1
            };
            let at = row.as_ptr().wrapping_add(BLOCK_WORDS * first);
            // SAFETY: a masked load reads only its live lanes, words `2 first` to
            // `2 first + words` of the row, inside it; the pointers are only offset with
            // `wrapping_add`.
            let [w0, w1, w2, w3] = unsafe {
                [0, 8, 16, 24].map(|offset| {
                    _mm512_maskz_loadu_epi64((live >> offset) as u8, at.wrapping_add(offset).cast())
                })
            };
            // The 32-bit word of each lane's bit; the permutes use the index's low 5 bits,
            // lanes 0 to 7 from the first 32 words, 8 to 15 from the last 32.
            let index = _mm512_or_si512(lane4, _mm512_srli_epi32::<5>(pos));
            let first_half = _mm512_permutex2var_epi32(w0, index, w1);
            let second_half = _mm512_permutex2var_epi32(w2, index, w3);
            let word = _mm512_mask_blend_epi32(0xff00, first_half, second_half);
            let bit = _mm512_sllv_epi32(one, _mm512_and_si512(pos, low_bits));
            *chunk = _mm512_test_epi32_mask(word, bit);
        }
        chunks
            .iter()
            .rev()
            .fold(0, |mask, &chunk| mask << 16 | u128::from(chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::keys::SplitMix64;

    /// Every slice count from 1 to 128 (the vector kernels' steps of 8 and 16 and their
    /// short last groups), rows of random words at several fills: every kernel the CPU runs
    /// gives the portable mask, bit for bit. On a CPU without AVX2 the portable kernel is
    /// the only one, and this checks nothing more than that.
    #[test]
    fn kernel_masks_agree_with_the_portable_one() {
        let kernels: Vec<Kernel> = Kernel::available().collect();
        if kernels.len() == 1 {
            eprintln!("no vector kernel on this CPU: the portable mask only");
        }
        let mut rng = SplitMix64(11);
        for slices in 1..=128usize {
            for density in 0..4 {
                let row: Vec<u64> = (0..slices * BLOCK_WORDS)
                    .map(|_| {
                        let mut w = rng.next_u64();
                        for _ in 0..density {
                            w |= rng.next_u64();
                        }
                        w
                    })
                    .collect();
                for _ in 0..50 {
                    let hash = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                    let key = Key::new(hash, 1);
                    let portable = mask_portable(&row, &key);
                    for kernel in &kernels {
                        assert_eq!(kernel.mask(&row, &key), portable, "{kernel:?} {slices}");
                    }
                    assert!(slices == 128 || portable >> slices == 0);
                }
            }
        }
    }

    /// A key's positions in one row are distinct words' bits spread over both words.
    #[test]
    fn positions_use_both_words_of_a_block() {
        let mut rng = SplitMix64(3);
        let mut seen = [0u32; 128];
        for _ in 0..10_000 {
            let key = Key::new(u128::from(rng.next_u64()) << 64, 1);
            let (word, bit) = key.bit(5);
            assert!(word == 10 || word == 11);
            seen[(word - 10) * 64 + bit.trailing_zeros() as usize] += 1;
        }
        // 10,000 draws over 128 positions: about 78 each.
        assert!(seen.iter().all(|&n| (40..130).contains(&n)), "{seen:?}");
    }

    /// The run search against a naive one, for every head and alive count of small rings.
    #[test]
    fn runs_are_found_in_ring_order() {
        let mut rng = SplitMix64(7);
        for slices in [1u32, 2, 5, 9, 64, 90, 127, 128] {
            for _ in 0..200 {
                let all = if slices == 128 {
                    u128::MAX
                } else {
                    (1 << slices) - 1
                };
                let mask = (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
                    | (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()));
                let mask = mask & all;
                let head = rng.below(u64::from(slices)) as u32;
                let k = 1 + rng.below(u64::from(slices.min(16))) as u32;
                let alive = rng.below(u64::from(slices) + 1) as u32;
                let naive = {
                    let mut run = 0;
                    let mut hit = false;
                    for i in 0..alive {
                        let j = (head + i) % slices;
                        run = if mask >> j & 1 == 1 { run + 1 } else { 0 };
                        hit |= run >= k;
                    }
                    hit
                };
                assert_eq!(has_run(mask, slices, head, k, alive), naive);
            }
        }
    }
}
