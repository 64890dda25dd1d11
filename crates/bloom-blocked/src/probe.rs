//! Where a key's bits go inside its block, and the two implementations of the test: a
//! portable one and an AVX2 one chosen at run time. Both give identical answers (tested
//! against each other on random filters).
//!
//! # The 512-bit block
//!
//! A key's 128-bit hash has two 64-bit halves. The low half picks the block by
//! multiply-shift ([`reduce`](bloom_core::hash::reduce)), so any block count works. The high
//! half keys a permutation π of the 512 bit positions, and the key's k bits are
//! `π(0), π(1), ..., π(k-1)`: always k *distinct* bits, which a blocked filter needs to
//! reach the accuracy of [`blocked_fpr_distinct`](bloom_core::math::blocked_fpr_distinct)
//! (drawing k positions independently lets some keys set fewer bits, and costs about 1% of
//! accuracy at 10 bits per key). π is two rounds of a keyed odd multiplication modulo 512
//! followed by an xor-shift:
//!
//! ```text
//! x = ((j ^ c1) * m1) mod 512;  x ^= x >> 4
//! x = ((x ^ c2) * m2) mod 512;  x ^= x >> 5        π(j) = x
//! ```
//!
//! with `c1` = bits 0..9 of the high half, `m1` = bits 16..25 with bit 0 forced to 1,
//! `c2` = bits 32..41, and `m2` = bits 48..57 with bit 0 forced to 1. Each step is a
//! bijection of 9-bit values (xor with a constant, multiplication by an odd number modulo a
//! power of two, and `x ^ (x >> s)` all are), so the k bits are distinct for every k up to
//! 512. Bit p of a block is bit `p % 64` of its word `p / 64`, which on a little-endian
//! machine is also bit `p % 32` of its 32-bit word `p / 32`: the layout the AVX2 code reads.
//!
//! The mapping is part of the binary format: changing it changes which bits a key owns.

use crate::storage::{Block, SplitBlock};

/// Bits in a block of [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCK_BITS: u64 = 512;

/// How a filter tests and sets the bits of a block.
///
/// Filters pick [`Probe::best`] when built; [`with_probe`](crate::BlockedBloomFilter::with_probe)
/// forces one (to compare them, or to rule out a SIMD path). Every implementation gives the
/// same answers for the same filter.
///
/// # Examples
///
/// ```
/// use bloom_blocked::{BlockedBloomFilter, Probe};
///
/// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
/// filter.insert("key");
/// let portable = filter.clone().with_probe(Probe::Portable)?;
/// assert_eq!(portable.contains("key"), filter.contains("key"));
/// assert!(Probe::Portable.is_available());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Probe {
    /// Plain Rust, on every target.
    Portable,
    /// 256-bit AVX2 vectors (x86_64 CPUs that have AVX2, detected at run time).
    Avx2,
}

impl Probe {
    /// Whether this implementation runs on the current CPU.
    pub fn is_available(self) -> bool {
        match self {
            Probe::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Probe::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Probe::Avx2 => false,
        }
    }

    /// The fastest implementation available on the current CPU.
    pub fn best() -> Probe {
        if Probe::Avx2.is_available() {
            Probe::Avx2
        } else {
            Probe::Portable
        }
    }

    /// `Ok(self)` when available.
    pub(crate) fn check(self) -> Result<Probe, bloom_core::Error> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(bloom_core::Error::invalid(
                "probe",
                format!("{self:?} is not available on this CPU"),
            ))
        }
    }
}

/// The keyed permutation of the 512 bit positions (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pattern {
    c1: u32,
    m1: u32,
    c2: u32,
    m2: u32,
}

impl Pattern {
    /// The permutation keyed by the high half of a key's hash.
    #[inline(always)]
    pub(crate) fn new(high: u64) -> Pattern {
        // One 16-bit field each, so the AVX2 code can spread them with byte shuffles; only
        // the low 9 bits of each matter modulo 512.
        Pattern {
            c1: high as u16 as u32,
            m1: (high >> 16) as u16 as u32 | 1,
            c2: (high >> 32) as u16 as u32,
            m2: (high >> 48) as u16 as u32 | 1,
        }
    }

    /// π(j): the position of the key's j-th bit, in `0..512`.
    #[inline(always)]
    pub(crate) fn position(&self, j: u32) -> u32 {
        let mut x = ((j ^ self.c1).wrapping_mul(self.m1)) & 511;
        x ^= x >> 4;
        x = ((x ^ self.c2).wrapping_mul(self.m2)) & 511;
        x ^ (x >> 5)
    }

    /// The key's k bits as eight words.
    #[inline(always)]
    pub(crate) fn mask(&self, num_hashes: u32) -> [u64; 8] {
        let mut mask = [0u64; 8];
        for j in 0..num_hashes {
            let p = self.position(j);
            mask[(p >> 6) as usize] |= 1 << (p & 63);
        }
        mask
    }
}

/// Whether every bit of the key keyed by `high` is set in `block` (portable).
#[inline(always)]
pub(crate) fn contains_portable(block: &Block, high: u64, num_hashes: u32) -> bool {
    let pattern = Pattern::new(high);
    // Branch-free: for an absent key, an early exit would be a coin flip per bit.
    (0..num_hashes).fold(true, |all, j| {
        let p = pattern.position(j);
        all & ((block.0[(p >> 6) as usize] >> (p & 63)) & 1 != 0)
    })
}

/// Sets the key's bits in `block`; returns whether all were set before.
#[inline(always)]
pub(crate) fn insert_portable(block: &mut Block, high: u64, num_hashes: u32) -> bool {
    let mask = Pattern::new(high).mask(num_hashes);
    let mut was = true;
    for (word, m) in block.0.iter_mut().zip(mask) {
        was &= *word & m == m;
        *word |= m;
    }
    was
}

/// Parquet's eight salts (parquet-format, BloomFilter.md, "Technical Approach").
pub(crate) const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Parquet's block mask for the low 32 bits of a hash: in word j, bit
/// `(x * SALT[j]) >> 27` (wrapping 32-bit multiplication).
#[inline(always)]
pub(crate) fn split_mask(x: u32) -> [u32; 8] {
    let mut mask = [0u32; 8];
    for (m, salt) in mask.iter_mut().zip(SALT) {
        *m = 1 << (x.wrapping_mul(salt) >> 27);
    }
    mask
}

/// Parquet's check (portable).
#[inline(always)]
pub(crate) fn split_contains_portable(block: &SplitBlock, x: u32) -> bool {
    let mask = split_mask(x);
    block
        .0
        .iter()
        .zip(mask)
        .fold(true, |all, (&w, m)| all & (w & m != 0))
}

/// Parquet's insert (portable); returns whether all bits were set before.
#[inline(always)]
pub(crate) fn split_insert_portable(block: &mut SplitBlock, x: u32) -> bool {
    let mask = split_mask(x);
    let mut was = true;
    for (w, m) in block.0.iter_mut().zip(mask) {
        was &= *w & m != 0;
        *w |= m;
    }
    was
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    //! The AVX2 kernels. Every function needs AVX2: callers check
    //! [`Probe::Avx2.is_available()`](super::Probe::is_available) first.
    // The intrinsics are safe to call inside `#[target_feature]` functions on recent
    // compilers and unsafe on older ones; one `unsafe` block per function serves both.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::*;

    use super::SALT;
    use crate::storage::{Block, SplitBlock};

    /// `LANES[r]`: all-ones in the first r of eight 32-bit lanes.
    static LANES: [[u32; 8]; 9] = {
        let mut t = [[0u32; 8]; 9];
        let mut r = 0;
        while r <= 8 {
            let mut l = 0;
            while l < r {
                t[r][l] = u32::MAX;
                l += 1;
            }
            r += 1;
        }
        t
    };

    /// The four keys of π spread over eight 16-bit lanes: `(c1, m1, c2, m2)`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn keys(high: u64) -> [__m128i; 4] {
        // SAFETY: AVX2 (and so SSSE3) is available: the caller's contract.
        unsafe {
            let h = _mm_cvtsi64_si128(high as i64);
            let one16 = _mm_set1_epi16(1);
            [
                _mm_shuffle_epi8(h, _mm_set1_epi16(0x0100)),
                _mm_or_si128(_mm_shuffle_epi8(h, _mm_set1_epi16(0x0302)), one16),
                _mm_shuffle_epi8(h, _mm_set1_epi16(0x0504)),
                _mm_or_si128(_mm_shuffle_epi8(h, _mm_set1_epi16(0x0706)), one16),
            ]
        }
    }

    /// π(j) for the eight j in the lanes of `j`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn permute(j: __m128i, [c1, m1, c2, m2]: [__m128i; 4]) -> __m128i {
        // SAFETY: AVX2 is available: the caller's contract.
        unsafe {
            let nine_bits = _mm_set1_epi16(511);
            let mut x = _mm_and_si128(_mm_mullo_epi16(_mm_xor_si128(j, c1), m1), nine_bits);
            x = _mm_xor_si128(x, _mm_srli_epi16::<4>(x));
            x = _mm_and_si128(_mm_mullo_epi16(_mm_xor_si128(x, c2), m2), nine_bits);
            _mm_xor_si128(x, _mm_srli_epi16::<5>(x))
        }
    }

    /// Whether every bit of the key keyed by `high` is set in `block`.
    ///
    /// Eight positions at a time: the permutation in 32-bit lanes, then each lane's 32-bit
    /// word of the block is fetched from registers (`vpermd` on both halves of the line and a
    /// blend on bit 8 of the position), and one `vptest` checks all eight bits.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn contains(block: &Block, high: u64, num_hashes: u32) -> bool {
        // SAFETY: AVX2 is available (the caller's contract). The two loads read the 64 bytes
        // of `block`, a live reference aligned to 64; `LANES[r]` is a 32-byte static.
        unsafe {
            // The permutation runs in 16-bit lanes of a 128-bit register (one micro-op per
            // instruction even on CPUs that split 256-bit ones); the four keys are the four
            // 16-bit fields of `high`, spread to every lane by byte shuffles.
            let keys = keys(high);
            let one = _mm256_set1_epi32(1);
            let low5 = _mm256_set1_epi32(31);
            let ptr = block.0.as_ptr().cast::<__m256i>();
            let lo = _mm256_load_si256(ptr);
            let hi = _mm256_load_si256(ptr.add(1));
            let mut j = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
            let eight = _mm_set1_epi16(8);
            let mut all = 1;
            let mut done = 0;
            while done < num_hashes {
                let left = (num_hashes - done).min(8) as usize;
                let x = _mm256_cvtepu16_epi32(permute(j, keys));
                let lanes = _mm256_loadu_si256(LANES[left].as_ptr().cast());
                let bit =
                    _mm256_and_si256(_mm256_sllv_epi32(one, _mm256_and_si256(x, low5)), lanes);
                let word = _mm256_srli_epi32::<5>(x);
                let from_lo = _mm256_permutevar8x32_epi32(lo, word);
                let from_hi = _mm256_permutevar8x32_epi32(hi, word);
                // Bit 8 of the position (words 8..16) moved to the sign bit selects `hi`.
                let select = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(x));
                let words = _mm256_castps_si256(_mm256_blendv_ps(
                    _mm256_castsi256_ps(from_lo),
                    _mm256_castsi256_ps(from_hi),
                    select,
                ));
                all &= _mm256_testc_si256(words, bit);
                j = _mm_add_epi16(j, eight);
                done += 8;
            }
            all != 0
        }
    }

    /// Parquet's mask for the low 32 bits of a hash, as one vector.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn split_mask(x: u32) -> __m256i {
        // SAFETY: AVX2 is available (the caller's contract); `SALT` is a 32-byte array.
        unsafe {
            let salt = _mm256_loadu_si256(SALT.as_ptr().cast());
            let shifts =
                _mm256_srli_epi32::<27>(_mm256_mullo_epi32(_mm256_set1_epi32(x as i32), salt));
            _mm256_sllv_epi32(_mm256_set1_epi32(1), shifts)
        }
    }

    /// Parquet's check: every word of the block has its bit.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn split_contains(block: &SplitBlock, x: u32) -> bool {
        // SAFETY: AVX2 is available; `block` is a live reference aligned to 32 bytes.
        unsafe {
            let words = _mm256_load_si256(block.0.as_ptr().cast());
            _mm256_testc_si256(words, split_mask(x)) != 0
        }
    }

    /// Parquet's insert; returns whether all bits were set before.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn split_insert(block: &mut SplitBlock, x: u32) -> bool {
        // SAFETY: AVX2 is available; `block` is a live, exclusive reference aligned to 32
        // bytes, so reading and writing its 32 bytes is sound.
        unsafe {
            let ptr = block.0.as_mut_ptr().cast::<__m256i>();
            let words = _mm256_load_si256(ptr);
            let mask = split_mask(x);
            let was = _mm256_testc_si256(words, mask) != 0;
            _mm256_store_si256(ptr, _mm256_or_si256(words, mask));
            was
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_distinct_and_in_range() {
        let mut rng = 0x1234_5678_9abc_def0u64;
        for _ in 0..2_000 {
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let pattern = Pattern::new(rng ^ (rng >> 29));
            let mut seen = [false; 512];
            for j in 0..512 {
                let p = pattern.position(j) as usize;
                assert!(!seen[p], "position repeated");
                seen[p] = true;
            }
        }
    }

    #[test]
    fn split_mask_has_one_bit_per_word() {
        for x in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert!(split_mask(x).iter().all(|w| w.count_ones() == 1));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_agrees_with_portable_on_random_blocks() {
        if !Probe::Avx2.is_available() {
            return;
        }
        let mut rng = 99u64;
        let mut next = || {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^ (z >> 31)
        };
        for density in [0u32, 1, 2, 3, 6] {
            for _ in 0..5_000 {
                let mut block = Block([0; 8]);
                for w in &mut block.0 {
                    // Dense blocks (several random words ORed) make positive answers common.
                    *w = (0..density).fold(0, |acc, _| acc | next());
                }
                let high = next();
                for k in [1u32, 2, 5, 6, 7, 8, 9, 15, 16, 17, 24, 64] {
                    // SAFETY: AVX2 was detected above.
                    let fast = unsafe { avx2::contains(&block, high, k) };
                    assert_eq!(fast, contains_portable(&block, high, k), "k {k}");
                }
                let mut split = SplitBlock([0; 8]);
                for w in &mut split.0 {
                    *w = (0..density).fold(0, |acc, _| acc | next() as u32);
                }
                let x = next() as u32;
                // SAFETY: AVX2 was detected above.
                let fast = unsafe { avx2::split_contains(&split, x) };
                assert_eq!(fast, split_contains_portable(&split, x));
                let mut a = split;
                let mut b = split;
                // SAFETY: AVX2 was detected above.
                let fast = unsafe { avx2::split_insert(&mut a, x) };
                assert_eq!(fast, split_insert_portable(&mut b, x));
                assert_eq!(a, b);
            }
        }
    }
}
