//! Where a key's bits go inside its block, and the implementations of the test: a portable
//! one and an AVX2 one chosen at run time. They give identical answers (tested against each
//! other on random blocks, and on random filters in the shared suite).
//!
//! # The 512-bit block
//!
//! A key's 128-bit hash has two 64-bit halves. The low half picks the block by
//! multiply-shift ([`reduce`](bloom_core::internal::reduce)), so any block count works. The high
//! half is read as seven 9-bit **fields**, bits `9j .. 9j + 9` for `j = 0..7` (bit 63 is not
//! used), each a position in the block; after the seven fields of a word,
//! [`next_word`] (SplitMix64's finaliser) gives seven more. The key's bits are the **first k
//! distinct values** of that sequence of fields.
//!
//! The fields are independent and uniform, so the first k distinct of them are a uniformly
//! random k-subset of the 512 positions: exactly the model of
//! [`blocked_fpr_distinct`](bloom_core::math::blocked_fpr_distinct). Letting a key keep a
//! repeated field instead (k positions drawn with replacement, as a salted multiplication
//! per bit does) costs about 1.2% of accuracy at 10 bits per key (0.967% instead of
//! 0.955%), which the accuracy target does not allow.
//!
//! A repeat among the first k fields is rare (about 3% of keys at k = 6), so the AVX2 test
//! takes the first k fields as they are, and checks for a repeat only when all their bits
//! are set; for the few keys that have one, the exact scalar test decides. The portable test
//! always builds the exact mask.
//!
//! Position p of a block is bit `p % 64` of its word `p / 64`, which on a little-endian
//! machine is also bit `p % 8` of its byte `p / 8`: the layout the AVX2 code reads.
//!
//! The mapping is part of the binary format: changing it changes which bits a key owns.

use crate::storage::{Block, SplitBlock};

/// Bits in a block of [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCK_BITS: u64 = 512;

/// Bits per field: one position in a 512-bit block.
const FIELD_BITS: u32 = 9;

/// Fields read from one 64-bit word.
pub(crate) const FIELDS_PER_WORD: u32 = 7;

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
    /// AVX2-era vector instructions (x86_64 CPUs that have AVX2, detected at run time).
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

/// Field `j` (`0..7`) of a word: a position in the block.
#[inline(always)]
pub(crate) fn field(word: u64, j: u32) -> u32 {
    ((word >> (FIELD_BITS * j)) & (BLOCK_BITS - 1)) as u32
}

/// The word the next seven fields come from: SplitMix64's output function (Steele, Lea and
/// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the constants are
/// Vigna's) applied to `word` plus the golden-ratio increment. A bijection with full
/// avalanche, so the new fields are independent of the old ones for every practical purpose.
/// Only keys that need more than seven fields (k > 7, or a repeat) ever call it.
#[inline]
pub(crate) fn next_word(word: u64) -> u64 {
    let mut z = word.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key's k bits as the block's eight words: the first `num_hashes` distinct fields of the
/// sequence keyed by `high` (see the module docs).
#[inline]
pub(crate) fn mask(high: u64, num_hashes: u32) -> [u64; 8] {
    let mut mask = [0u64; 8];
    let mut word = high;
    let mut j = 0;
    let mut distinct = 0;
    while distinct < num_hashes {
        if j == FIELDS_PER_WORD {
            word = next_word(word);
            j = 0;
        }
        let p = field(word, j);
        j += 1;
        let (w, bit) = ((p >> 6) as usize, 1u64 << (p & 63));
        distinct += u32::from(mask[w] & bit == 0);
        mask[w] |= bit;
    }
    mask
}

/// Whether every bit of `mask` is set in `block` (branch-free: for an absent key, an early
/// exit would be a coin flip per word).
#[inline(always)]
fn covers(block: &Block, mask: &[u64; 8]) -> bool {
    block
        .0
        .iter()
        .zip(mask)
        .fold(true, |all, (&w, &m)| all & (w & m == m))
}

/// Whether every bit of the key keyed by `high` is set in `block` (portable).
#[inline]
pub(crate) fn contains_portable(block: &Block, high: u64, num_hashes: u32) -> bool {
    covers(block, &mask(high, num_hashes))
}

/// Sets the key's bits in `block`; returns whether all were set before.
#[inline]
pub(crate) fn insert_portable(block: &mut Block, high: u64, num_hashes: u32) -> bool {
    let mask = mask(high, num_hashes);
    let was = covers(block, &mask);
    for (word, m) in block.0.iter_mut().zip(mask) {
        *word |= m;
    }
    was
}

/// The answer of the fast block test ([`Kernel::quick`]). The discriminants are the codes
/// the AVX2 kernel computes, so turning its code into an `Answer` costs no instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Answer {
    /// Some tested bit is clear: the key is absent.
    Absent = 0,
    /// The key's bits are all set.
    Present = 1,
    /// Every bit of the first k fields is set but two of them are equal, so the key owns
    /// further bits: the exact test ([`contains_outlined`]) must decide.
    Repeat = 2,
}

impl Answer {
    /// Whether the key keyed by `high` is in `block`, given this answer of the fast test:
    /// [`Answer::Repeat`] calls the exact test out of line.
    #[inline(always)]
    pub(crate) fn resolve(self, block: &Block, high: u64, num_hashes: u32) -> bool {
        match self {
            Answer::Repeat => contains_outlined(block, high, num_hashes),
            answer => answer == Answer::Present,
        }
    }

    /// The answer of a complete test.
    #[inline(always)]
    pub(crate) fn exact(present: bool) -> Answer {
        if present {
            Answer::Present
        } else {
            Answer::Absent
        }
    }
}

/// The query implementation a filter holds: chosen from its [`Probe`] and its k when it is
/// built, so a query pays one predictable branch to reach it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel {
    kind: Kind,
    #[cfg(target_arch = "x86_64")]
    tables: avx2::Tables,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// [`contains_portable`].
    Portable,
    /// The AVX2 test of the first k fields (2 <= k <= 7), with the proof that the CPU has
    /// AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
}

impl Kernel {
    /// The kernel for `probe` and `num_hashes`. The AVX2 test covers 2 to 7 bits per key
    /// (every k the k table picks up to about 13 bits per key); other k, and CPUs without
    /// AVX2 whatever `probe` asks for, use the portable test: the AVX2 kind can only be
    /// built from a detection result.
    pub(crate) fn new(probe: Probe, num_hashes: u32) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        let kind = match (probe, num_hashes, avx2::Avx2::detect()) {
            (Probe::Avx2, 2..=7, Some(token)) => Kind::Avx2(token),
            _ => Kind::Portable,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let kind = {
            let _ = probe;
            Kind::Portable
        };
        Kernel {
            kind,
            #[cfg(target_arch = "x86_64")]
            tables: avx2::Tables::new(num_hashes),
        }
    }

    /// Whether the key keyed by `high` is in `block`.
    #[inline(always)]
    pub(crate) fn contains(&self, block: &Block, high: u64, num_hashes: u32) -> bool {
        self.quick(block, high, num_hashes)
            .resolve(block, high, num_hashes)
    }

    /// The fast part of [`contains`](Kernel::contains). The batch query collects the rare
    /// [`Answer::Repeat`]s and decides them after its loop, so the loop makes no call and
    /// keeps the kernel's constants in registers.
    #[inline(always)]
    pub(crate) fn quick(&self, block: &Block, high: u64, num_hashes: u32) -> Answer {
        match self.kind {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(token) => avx2::contains(token, block, high, &self.tables),
            Kind::Portable => Answer::exact(contains_outlined(block, high, num_hashes)),
        }
    }

    /// The proof of AVX2 when this is the AVX2 kernel, for loops that dispatch once outside
    /// and then call [`quick_avx2`](Kernel::quick_avx2).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn avx2(&self) -> Option<avx2::Avx2> {
        match self.kind {
            Kind::Avx2(token) => Some(token),
            Kind::Portable => None,
        }
    }

    /// [`quick`](Kernel::quick) of the AVX2 kernel without the dispatch. The tables are this
    /// kernel's, built for the filter's k.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn quick_avx2(&self, token: avx2::Avx2, block: &Block, high: u64) -> Answer {
        avx2::contains(token, block, high, &self.tables)
    }
}

/// The split-block filter's implementation of Parquet's block test, chosen once from a
/// [`Probe`]: the AVX2 kind holds the proof that the CPU has AVX2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SplitKernel {
    /// [`split_contains_portable`] and [`split_insert_portable`].
    Portable,
    /// The AVX2 test and insert.
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
}

impl SplitKernel {
    /// The kernel for `probe`: AVX2 only where detection finds it.
    pub(crate) fn new(probe: Probe) -> SplitKernel {
        match probe {
            #[cfg(target_arch = "x86_64")]
            Probe::Avx2 => avx2::Avx2::detect().map_or(SplitKernel::Portable, SplitKernel::Avx2),
            _ => SplitKernel::Portable,
        }
    }

    /// The implementation this kernel runs.
    pub(crate) fn probe(self) -> Probe {
        match self {
            SplitKernel::Portable => Probe::Portable,
            #[cfg(target_arch = "x86_64")]
            SplitKernel::Avx2(_) => Probe::Avx2,
        }
    }

    /// Parquet's check of `x` (the low 32 bits of the hash) in `block`.
    #[inline(always)]
    pub(crate) fn contains(self, block: &SplitBlock, x: u32) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            SplitKernel::Avx2(token) => avx2::split_contains(token, block, x),
            SplitKernel::Portable => split_contains_portable(block, x),
        }
    }

    /// Parquet's insert of `x`; returns whether all its bits were set before.
    #[inline(always)]
    pub(crate) fn insert(self, block: &mut SplitBlock, x: u32) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            SplitKernel::Avx2(token) => avx2::split_insert(token, block, x),
            SplitKernel::Portable => split_insert_portable(block, x),
        }
    }
}

/// [`contains_portable`] out of line: for single-key queries of a portable kernel (a call
/// is little next to its work) and for the rare keys whose first fields repeat, so the AVX2
/// query loop stays small and keeps its registers.
#[inline(never)]
pub(crate) fn contains_outlined(block: &Block, high: u64, num_hashes: u32) -> bool {
    contains_portable(block, high, num_hashes)
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
    //! The vector kernels. Every function takes an [`Avx2`] token, the proof that the CPU
    //! has AVX2, which only run-time detection makes: so they are safe to call.
    //!
    //! The query kernels are inline assembly rather than `#[target_feature]` functions: code
    //! built for the baseline x86-64 target (what `cargo build` produces) cannot inline a
    //! `#[target_feature(enable = "avx2")]` function, so each single-key query would pay a
    //! call, argument moves and reloaded constants (measured: about 1.2 ns of a 6 ns query on
    //! a filter in L2). An `asm!` block inlines into any caller; the filter checks for AVX2
    //! once, when it is built. The instructions are VEX-encoded 128-bit ones (AVX, AVX2's
    //! `vpsllvd`), which leave the upper halves of the vector registers clean, so the
    //! surrounding SSE code pays no transition penalty.
    // The intrinsics below are safe to call inside `#[target_feature]` functions on recent
    // compilers and unsafe on older ones; one `unsafe` block per function serves both.
    #![allow(unused_unsafe)]

    use std::arch::asm;
    use std::arch::x86_64::*;

    use super::{Answer, FIELD_BITS, FIELDS_PER_WORD, SALT};
    use crate::storage::{Block, SplitBlock};

    /// Proof that the running CPU has AVX2. The only way to get one is [`Avx2::detect`], so
    /// the functions that take one may execute AVX2 instructions, and no safe code can reach
    /// them on a CPU without it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Avx2 {
        _detected: (),
    }

    impl Avx2 {
        /// A token when the CPU has AVX2 (`is_x86_feature_detected!`, cached by the standard
        /// library after the first call).
        #[inline]
        pub(crate) fn detect() -> Option<Avx2> {
            std::arch::is_x86_feature_detected!("avx2").then_some(Avx2 { _detected: () })
        }
    }

    /// The constants of the block test for one k, in vector registers.
    ///
    /// The fields of the high half land in the eight 16-bit lanes of a vector: `spread`
    /// copies bytes `j, j + 1` of the word into lane j, and multiplying by `mull[j]` =
    /// 2^(7 - j) moves field j (at bit j of the lane) to the top nine bits, so a shift right
    /// by 7 leaves the field alone. Lanes `k..8` repeat lane 0 (testing a bit twice is
    /// harmless). Each position p then splits into its byte `p >> 3` and its bit `p & 7`,
    /// packed into the low and high eight bytes of one vector. Repeats are found by comparing
    /// `pshufb(f, rho)` with `pshufb(f, tau[c])`: every pair of the first k lanes is one of
    /// those compares (see [`cover`]).
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Tables {
        spread: __m128i,
        mull: __m128i,
        seven: __m128i,
        bits: __m128i,
        rho: __m128i,
        tau: [__m128i; 3],
    }

    impl Tables {
        /// The tables for `num_hashes` bits per key.
        pub(crate) fn new(num_hashes: u32) -> Tables {
            let k = (num_hashes as usize).clamp(1, FIELDS_PER_WORD as usize);
            let mut spread = [0u8; 16];
            let mut mull = [0u16; 8];
            for lane in 0..8 {
                let j = if lane < k { lane } else { 0 };
                spread[2 * lane] = j as u8;
                spread[2 * lane + 1] = j as u8 + 1;
                mull[lane] = 1 << (16 - FIELD_BITS as usize - j);
            }
            let mut bits = [0u8; 16];
            for (i, b) in bits.iter_mut().enumerate() {
                *b = 1 << (i % 8);
            }
            let (rho, tau) = cover(k);
            let words = |lanes: [u8; 8]| -> [u8; 16] {
                let mut bytes = [0u8; 16];
                for (i, &l) in lanes.iter().enumerate() {
                    bytes[2 * i] = 2 * l;
                    bytes[2 * i + 1] = 2 * l + 1;
                }
                bytes
            };
            let v = |bytes: [u8; 16]| -> __m128i {
                // SAFETY: an unaligned load of a 16-byte local array (SSE2, always present
                // on x86_64).
                unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
            };
            let u16s = |w: [u16; 8]| -> [u8; 16] {
                let mut bytes = [0u8; 16];
                for (i, x) in w.iter().enumerate() {
                    bytes[2 * i..2 * i + 2].copy_from_slice(&x.to_le_bytes());
                }
                bytes
            };
            Tables {
                spread: v(spread),
                mull: v(u16s(mull)),
                seven: v(u16s([7; 8])),
                bits: v(bits),
                rho: v(words(rho)),
                tau: tau.map(|t| v(words(t))),
            }
        }
    }

    /// Lanes to compare so that every pair of the first `k` lanes (`k <= 7`) is compared:
    /// lane i of `pshufb(f, rho)` against lane i of `pshufb(f, tau[c])` for c = 0, 1, 2 (21
    /// pairs at most, in 24 slots). Found by augmenting paths (Kuhn's matching of pairs to
    /// slots); slots left over compare two different lanes again, which is harmless. For
    /// k = 1 there is no pair and the tables are unused.
    pub(crate) fn cover(k: usize) -> ([u8; 8], [[u8; 8]; 3]) {
        let mut rho = [0u8; 8];
        let mut tau = [[0u8; 8]; 3];
        if k < 2 {
            return (rho, tau);
        }
        for (i, r) in rho.iter_mut().enumerate() {
            *r = (i % k) as u8;
        }
        let slots: Vec<(usize, usize)> = (0..3).flat_map(|c| (0..8).map(move |i| (c, i))).collect();
        let pairs: Vec<(u8, u8)> = (0..k as u8)
            .flat_map(|a| (a + 1..k as u8).map(move |b| (a, b)))
            .collect();
        let mut owner: Vec<Option<usize>> = vec![None; slots.len()];
        fn augment(
            p: usize,
            pairs: &[(u8, u8)],
            slots: &[(usize, usize)],
            rho: &[u8; 8],
            owner: &mut [Option<usize>],
            seen: &mut [bool],
        ) -> bool {
            let (a, b) = pairs[p];
            for s in 0..slots.len() {
                let r = rho[slots[s].1];
                if seen[s] || (r != a && r != b) {
                    continue;
                }
                seen[s] = true;
                let free = match owner[s] {
                    None => true,
                    Some(q) => augment(q, pairs, slots, rho, owner, seen),
                };
                if free {
                    owner[s] = Some(p);
                    return true;
                }
            }
            false
        }
        for p in 0..pairs.len() {
            let mut seen = vec![false; slots.len()];
            let placed = augment(p, &pairs, &slots, &rho, &mut owner, &mut seen);
            assert!(placed, "every pair of {k} lanes fits the compare slots");
        }
        for (s, &(c, i)) in slots.iter().enumerate() {
            let r = rho[i];
            tau[c][i] = match owner[s] {
                Some(p) => {
                    let (a, b) = pairs[p];
                    if a == r { b } else { a }
                }
                None => (r + 1) % k as u8,
            };
        }
        (rho, tau)
    }

    /// Tests the first k fields of `high` in `block` (2 <= k <= 7, `tables` built for that
    /// k): [`Answer::Absent`], [`Answer::Present`], or [`Answer::Repeat`] when all their bits
    /// are set but two fields are equal (the key then owns further bits, and the exact test
    /// decides). Only keys whose bits are all set pay for the check for repeats. Tables of
    /// another k give wrong answers, never undefined behaviour.
    #[inline(always)]
    pub(crate) fn contains(_: Avx2, block: &Block, high: u64, tables: &Tables) -> Answer {
        let code: u32;
        // SAFETY: the instructions need AVX2, which the `Avx2` token proves. The only memory
        // read is the 64 bytes of `block`, a live reference aligned to 64; the asm writes no
        // memory, uses no stack, and declares every register it changes.
        unsafe {
            asm!(
                // f: the fields, one per 16-bit lane.
                "vmovq {f}, {high}",
                "vpshufb {f}, {f}, {spread}",
                "vpmullw {f}, {f}, {mull}",
                "vpsrlw {f}, {f}, 7",
                // p: bytes 0..8 the byte index p >> 3, bytes 8..16 the bit index p & 7.
                "vpsrlw {p}, {f}, 3",
                "vpand {q0}, {f}, {seven}",
                "vpackuswb {p}, {p}, {q0}",
                // The 64 bytes of the block, looked up by byte index 16 at a time and merged
                // on bits 4 and 5 of the index.
                "vmovdqa {q0}, xmmword ptr [{block}]",
                "vmovdqa {q1}, xmmword ptr [{block} + 16]",
                "vmovdqa {q2}, xmmword ptr [{block} + 32]",
                "vmovdqa {q3}, xmmword ptr [{block} + 48]",
                "vpshufb {q0}, {q0}, {p}",
                "vpshufb {q1}, {q1}, {p}",
                "vpshufb {q2}, {q2}, {p}",
                "vpshufb {q3}, {q3}, {p}",
                "vpsllw {s}, {p}, 3",
                "vpblendvb {q0}, {q0}, {q1}, {s}",
                "vpblendvb {q2}, {q2}, {q3}, {s}",
                "vpsllw {s}, {p}, 2",
                "vpblendvb {q0}, {q0}, {q2}, {s}",
                // The bit masks, moved under the bytes they test; CF: all bits set.
                "vpshufb {q1}, {bits}, {p}",
                "vpsrldq {q1}, {q1}, 8",
                "xor {code:e}, {code:e}",
                "vptest {q0}, {q1}",
                "jnc 2f",
                "inc {code:e}",
                // Any two of the first k fields equal?
                "vpshufb {q0}, {f}, {rho}",
                "vpshufb {q1}, {f}, {tau0}",
                "vpshufb {q2}, {f}, {tau1}",
                "vpshufb {q3}, {f}, {tau2}",
                "vpcmpeqw {q1}, {q1}, {q0}",
                "vpcmpeqw {q2}, {q2}, {q0}",
                "vpcmpeqw {q3}, {q3}, {q0}",
                "vpor {q1}, {q1}, {q2}",
                "vpor {q1}, {q1}, {q3}",
                "vptest {q1}, {q1}",
                "jz 2f",
                "inc {code:e}",
                "2:",
                high = in(reg) high,
                block = in(reg) block.0.as_ptr(),
                code = out(reg) code,
                spread = in(xmm_reg) tables.spread,
                mull = in(xmm_reg) tables.mull,
                seven = in(xmm_reg) tables.seven,
                bits = in(xmm_reg) tables.bits,
                rho = in(xmm_reg) tables.rho,
                tau0 = in(xmm_reg) tables.tau[0],
                tau1 = in(xmm_reg) tables.tau[1],
                tau2 = in(xmm_reg) tables.tau[2],
                f = out(xmm_reg) _,
                p = out(xmm_reg) _,
                q0 = out(xmm_reg) _,
                q1 = out(xmm_reg) _,
                q2 = out(xmm_reg) _,
                q3 = out(xmm_reg) _,
                s = out(xmm_reg) _,
                options(pure, readonly, nostack),
            );
        }
        // SAFETY: the asm sets `code` to 0 and increments it at most twice (once when every
        // bit is set, once more when a field repeats), so it is 0, 1 or 2. Telling the
        // compiler lets the match below compile to nothing (the discriminants are the codes).
        unsafe { std::hint::assert_unchecked(code <= 2) };
        match code {
            0 => Answer::Absent,
            1 => Answer::Present,
            _ => Answer::Repeat,
        }
    }

    /// Parquet's salts, then four ones (the shifted value), 16-byte aligned for the asm.
    #[repr(C, align(16))]
    struct SplitConsts([u32; 12]);

    static SPLIT_CONSTS: SplitConsts = SplitConsts([
        SALT[0], SALT[1], SALT[2], SALT[3], SALT[4], SALT[5], SALT[6], SALT[7], 1, 1, 1, 1,
    ]);

    /// Parquet's check: every word of the block has its bit (Parquet's mask built in two
    /// 128-bit halves).
    #[inline(always)]
    pub(crate) fn split_contains(_: Avx2, block: &SplitBlock, x: u32) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX2, which the `Avx2` token proves. The memory read
        // is `SPLIT_CONSTS`, a 48-byte static aligned to 16 (the eight salts, then four
        // ones; the asm loads its bytes 0..16, 16..32 and 32..48), and the 32 bytes of
        // `block`, a live reference aligned to 32; the asm writes no memory, uses no stack
        // and declares every register it changes.
        unsafe {
            asm!(
                // The eight shifts `(x * SALT[j]) >> 27`, in two halves.
                "vmovd {a}, {x:e}",
                "vpshufd {a}, {a}, 0",
                "vpmulld {b}, {a}, xmmword ptr [{consts} + 16]",
                "vpmulld {a}, {a}, xmmword ptr [{consts}]",
                "vpsrld {a}, {a}, 27",
                "vpsrld {b}, {b}, 27",
                // One bit per word, then `~block & mask` must be zero.
                "vmovdqa {c}, xmmword ptr [{consts} + 32]",
                "vpsllvd {a}, {c}, {a}",
                "vpsllvd {b}, {c}, {b}",
                "vmovdqa {c}, xmmword ptr [{block}]",
                "vpandn {a}, {c}, {a}",
                "vmovdqa {c}, xmmword ptr [{block} + 16]",
                "vpandn {b}, {c}, {b}",
                "vpor {a}, {a}, {b}",
                "vptest {a}, {a}",
                "setz {present}",
                x = in(reg) x,
                consts = in(reg) SPLIT_CONSTS.0.as_ptr(),
                block = in(reg) block.0.as_ptr(),
                present = out(reg_byte) present,
                a = out(xmm_reg) _,
                b = out(xmm_reg) _,
                c = out(xmm_reg) _,
                options(pure, readonly, nostack),
            );
        }
        present != 0
    }

    /// Parquet's mask for the low 32 bits of a hash, as one vector.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn split_mask(x: u32) -> __m256i {
        // SAFETY: AVX2 is available (the caller's contract); `SALT` is eight `u32`s, the 32
        // bytes the unaligned load reads.
        unsafe {
            let salt = _mm256_loadu_si256(SALT.as_ptr().cast());
            let shifts =
                _mm256_srli_epi32::<27>(_mm256_mullo_epi32(_mm256_set1_epi32(x as i32), salt));
            _mm256_sllv_epi32(_mm256_set1_epi32(1), shifts)
        }
    }

    /// Parquet's insert; returns whether all bits were set before.
    #[inline]
    pub(crate) fn split_insert(_: Avx2, block: &mut SplitBlock, x: u32) -> bool {
        // SAFETY: the `Avx2` token proves the CPU has the feature `split_insert_avx2` is
        // compiled for.
        unsafe { split_insert_avx2(block, x) }
    }

    /// The body of [`split_insert`], compiled for AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn split_insert_avx2(block: &mut SplitBlock, x: u32) -> bool {
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

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn masks_hold_k_distinct_bits_from_the_fields() {
        let mut next = rng(7);
        for k in 1..=64u32 {
            for _ in 0..200 {
                let high = next();
                let m = mask(high, k);
                assert_eq!(m.iter().map(|w| w.count_ones()).sum::<u32>(), k);
                // The first field is always a bit of the key.
                let p = field(high, 0);
                assert_ne!(m[(p >> 6) as usize] & (1 << (p & 63)), 0);
            }
        }
        // Repeated fields are skipped: all seven fields equal (p = 5), then the next word.
        let same = (0..7).fold(0u64, |w, j| w | 5 << (9 * j));
        let m = mask(same, 2);
        let q = field(next_word(same), 0);
        let mut expected = [0u64; 8];
        expected[0] |= 1 << 5;
        expected[(q >> 6) as usize] |= 1 << (q & 63);
        assert_ne!(q, 5);
        assert_eq!(m, expected);
    }

    #[test]
    fn fields_are_uniform() {
        let mut next = rng(3);
        let mut counts = [0u32; 8];
        for _ in 0..40_000 {
            let w = next();
            for j in 0..FIELDS_PER_WORD {
                counts[(field(w, j) >> 6) as usize] += 1;
            }
        }
        // 280,000 fields over 8 words: 35,000 each.
        assert!(
            counts.iter().all(|&c| (34_000..36_000).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn split_mask_has_one_bit_per_word() {
        for x in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert!(split_mask(x).iter().all(|w| w.count_ones() == 1));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn compare_tables_cover_every_pair() {
        for k in 2..=7usize {
            let (rho, tau) = avx2::cover(k);
            let compares = if k <= 6 { 2 } else { 3 };
            let mut seen = std::collections::HashSet::new();
            for t in &tau[..compares] {
                for i in 0..8 {
                    let (a, b) = (rho[i], t[i]);
                    assert!(a != b && (a as usize) < k && (b as usize) < k, "k {k}");
                    seen.insert((a.min(b), a.max(b)));
                }
            }
            assert_eq!(seen.len(), k * (k - 1) / 2, "k {k}");
        }
    }

    /// A high half whose first fields repeat: fields `values[j]`, the rest random.
    fn with_fields(values: &[u32], rest: u64) -> u64 {
        let mut w = rest & !((1u64 << (9 * values.len())) - 1);
        for (j, &v) in values.iter().enumerate() {
            w |= u64::from(v) << (9 * j);
        }
        w
    }

    /// The AVX2 kernels exist only where detection found AVX2 and k is one they cover;
    /// asking for them anywhere else gives the portable kernel, never an unsound one.
    #[test]
    fn kernels_come_only_from_detection() {
        #[cfg(target_arch = "x86_64")]
        let detected = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let detected = false;
        assert_eq!(Probe::Avx2.is_available(), detected);
        for k in 1..=16u32 {
            let kernel = Kernel::new(Probe::Avx2, k);
            #[cfg(target_arch = "x86_64")]
            assert_eq!(
                kernel.avx2().is_some(),
                detected && (2..=7).contains(&k),
                "k {k}"
            );
            #[cfg(target_arch = "x86_64")]
            assert!(Kernel::new(Probe::Portable, k).avx2().is_none());
            let block = Block([u64::MAX; 8]);
            assert!(kernel.contains(&block, 12345, k));
        }
        assert_eq!(SplitKernel::new(Probe::Portable).probe(), Probe::Portable);
        let split = SplitKernel::new(Probe::Avx2).probe();
        assert_eq!(split == Probe::Avx2, detected);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_agrees_with_portable_on_random_blocks() {
        let Some(token) = avx2::Avx2::detect() else {
            assert!(!Probe::Avx2.is_available());
            return;
        };
        let mut next = rng(99);
        for density in [0u32, 1, 2, 3, 6] {
            for round in 0..3_000 {
                let mut block = Block([0; 8]);
                for w in &mut block.0 {
                    // Dense blocks (several random words ORed) make positive answers common.
                    *w = (0..density).fold(0, |acc, _| acc | next());
                }
                let mut high = next();
                if round % 4 == 0 {
                    // Force a repeat among the first fields.
                    let a = (next() % 512) as u32;
                    let b = (next() % 512) as u32;
                    high = with_fields(&[a, b, a, b, a, (next() % 512) as u32], high);
                }
                for k in 1..=16u32 {
                    let kernel = Kernel::new(Probe::Avx2, k);
                    let expected = contains_portable(&block, high, k);
                    assert_eq!(kernel.contains(&block, high, k), expected, "k {k}");
                    // A block holding exactly the key's bits answers yes; one bit less, no.
                    let m = mask(high, k);
                    let exact = Block(m);
                    assert!(kernel.contains(&exact, high, k), "k {k}");
                    let w = m.iter().position(|&x| x != 0).unwrap();
                    let mut less = exact;
                    less.0[w] &= less.0[w] - 1;
                    assert!(!kernel.contains(&less, high, k), "k {k}");
                }
                let mut split = SplitBlock([0; 8]);
                for w in &mut split.0 {
                    *w = (0..density).fold(0, |acc, _| acc | next() as u32);
                }
                let x = next() as u32;
                let fast = avx2::split_contains(token, &split, x);
                assert_eq!(fast, split_contains_portable(&split, x));
                let mut a = split;
                let mut b = split;
                let fast = avx2::split_insert(token, &mut a, x);
                assert_eq!(fast, split_insert_portable(&mut b, x));
                assert_eq!(a, b);
                assert!(avx2::split_contains(token, &a, x));
            }
        }
    }
}
