//! Where a key's bits go inside its block, and the implementations of the test: a portable
//! one, an AVX2 one and an AVX-512 one, chosen at run time. They give identical answers
//! (tested against each other on random blocks here, and on random filters in the shared
//! suite, on every CPU the tests run on).
//!
//! # The 512-bit block
//!
//! A key's hash is one 64-bit word `h` (the workspace's seeded hash). It
//! picks the block by multiply-shift ([`reduce`](bloom_core::internal::reduce)), so any block
//! count works. The positions inside the block come from a second word, `g = h ×
//! 0x9E3779B97F4A7C15 (mod 2^64)` ([`spread`]), whose two 32-bit halves `x_0` (low) and `x_1`
//! (high) feed the probes in turn: probe `i` (`0 <= i < k <= 16`) is the position
//!
//! ```text
//! p_i = (x_{i mod 2} × SALT[i] mod 2^32) >> 23        (0..512)
//! ```
//!
//! the top nine bits of a salted 32-bit product, as Parquet's split-block filter takes five.
//! Position p is bit `p % 32` of the block's 32-bit word `p / 32` (on a little-endian machine
//! also bit `p % 8` of byte `p / 8`, and bit `p % 64` of 64-bit word `p / 64`).
//!
//! The k positions are drawn independently and may repeat: the filter's rate is then
//! [`blocked_fpr_replacement`](bloom_core::math::blocked_fpr_replacement), which needs at
//! most 0.5% more bits per key than k distinct positions would at 10%, 1% and 0.1%
//! (docs/blocked.md). In exchange the test needs no search for distinct values: a vector
//! kernel computes all k positions with one multiplication, fetches each position's word with
//! one permutation of the block, and tests all bits at once.
//!
//! The mapping is part of the binary format: changing it changes which bits a key owns.

/// A 512-bit block of eight `u64` words: the tests' model of a block, against which the
/// kernels, which read a block's little-endian bytes, are checked.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Block(pub(crate) [u64; 8]);

/// Bits in a block of [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCK_BITS: u64 = 512;

/// The most bits a key sets in a 512-bit block: one vector lane each. (The optimal k of a
/// 512-bit block reaches 16 at about 36 bits per key, a rate near 2 x 10^-6; below that
/// the cap costs a little memory, 0.9% at 10^-7: docs/blocked.md.)
pub(crate) const MAX_PROBES: u32 = 16;

/// The multiplier of the blocked filter's probes: Parquet's eight salts (parquet-format,
/// BloomFilter.md), then eight more odd constants from published hash functions: the 32-bit
/// golden ratio, the two multipliers of MurmurHash3's finaliser and xxHash32's five primes
/// (any odd value keeps each product uniform; these also differ from each other in every
/// bit range that matters).
pub(crate) const PROBE_SALT: [u32; 16] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
    0x9e37_79b9,
    0x85eb_ca6b,
    0xc2b2_ae35,
    0x27d4_eb2f,
    0x1656_67b1,
    0x85eb_ca77,
    0xc2b2_ae3d,
    0x9e37_79b1,
];

use core::sync::atomic::AtomicU64;

pub use bloom_core::engine::Probe;
use bloom_core::engine::Storage;
use bloom_core::internal::simd::Level;

/// The word a key's positions come from (see the module docs): the hash times the 64-bit
/// golden ratio, so that its high half, which a large filter's block choice depends on, is
/// mixed with the low half.
#[inline(always)]
pub(crate) fn spread(hash: u64) -> u64 {
    hash.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Probe `i` of the key whose [`spread`] word is `g`: a position in the block.
#[inline(always)]
pub(crate) fn position(g: u64, i: u32) -> u32 {
    let x = (g >> (32 * (i & 1))) as u32;
    x.wrapping_mul(PROBE_SALT[i as usize]) >> 23
}

/// The key's bits as the block's eight 64-bit words (`num_hashes <= 16`).
#[inline]
pub(crate) fn mask(g: u64, num_hashes: u32) -> [u64; 8] {
    let mut mask = [0u64; 8];
    for i in 0..num_hashes {
        let p = position(g, i);
        mask[(p >> 6) as usize] |= 1 << (p & 63);
    }
    mask
}

/// Sets the key of `g`'s bits in `line`, one probe at a time: a load, a test and a store of
/// the probe's word. Assembling [`mask`] first costs more: its words are written one probe at
/// a time and then read two at a time by the vectorised OR into the line, and those reads
/// cannot be forwarded from the narrower stores (docs/blocked.md, "Inserts"). Whether every
/// bit was set before.
#[inline(always)]
pub(crate) fn set_bits(line: &mut [u64; 8], g: u64, num_hashes: u32) -> bool {
    let mut was = true;
    for i in 0..num_hashes {
        let p = position(g, i);
        let word = &mut line[(p >> 6) as usize];
        let bit = 1u64 << (p & 63);
        was &= *word & bit != 0;
        *word |= bit;
    }
    was
}

/// Whether every bit of the key of `g` is set in `block` (portable, branch-free: for an
/// absent key an early exit would be a coin flip per probe).
#[cfg(test)]
#[inline(always)]
pub(crate) fn contains_portable(block: &Block, g: u64, num_hashes: u32) -> bool {
    contains_words(|w| block.0[w], g, num_hashes)
}

/// [`contains_portable`] over any block whose 64-bit word `w` (0..8) `word` reads: the
/// atomic filter passes a relaxed load.
#[inline(always)]
pub(crate) fn contains_words(word: impl Fn(usize) -> u64, g: u64, num_hashes: u32) -> bool {
    // Probes in pairs, the even one from the low half of g and the odd one from the high
    // half: half the loop's overhead and no shift chosen per probe (measured: the portable
    // query at 100,000 keys went from 2.8 to 2.2 times the AVX2 kernel's time). Each word
    // is shifted so that its probe's bit lands in bit 0; bit 0 of the words ANDed says
    // whether all were set.
    let (lo, hi) = (g as u32, (g >> 32) as u32);
    let shifted = |x: u32, salt: u32| {
        let p = x.wrapping_mul(salt) >> 23;
        word((p >> 6) as usize) >> (p & 63)
    };
    let pairs = (num_hashes / 2) as usize;
    let mut all = !0u64;
    for salts in PROBE_SALT.chunks_exact(2).take(pairs) {
        all &= shifted(lo, salts[0]) & shifted(hi, salts[1]);
    }
    if num_hashes % 2 == 1 {
        all &= shifted(lo, PROBE_SALT[2 * pairs]);
    }
    all & 1 != 0
}

/// [`contains_portable`] on a block's 64 bytes as the format stores them (eight
/// little-endian `u64` words) at any address: a view's unaligned block.
#[inline(always)]
pub(crate) fn contains_le_bytes(block: &[u8], g: u64, num_hashes: u32) -> bool {
    contains_words(|w| le_word(block, w), g, num_hashes)
}

/// Word `w` of a block's little-endian bytes.
#[inline(always)]
fn le_word(block: &[u8], w: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&block[8 * w..8 * w + 8]);
    u64::from_le_bytes(word)
}

/// Sets the key's bits in `block`; returns whether all were set before.
#[cfg(test)]
#[inline]
pub(crate) fn insert_portable(block: &mut Block, g: u64, num_hashes: u32) -> bool {
    let mut was = true;
    for i in 0..num_hashes {
        let p = position(g, i);
        let (word, bit) = (&mut block.0[(p >> 6) as usize], 1u64 << (p & 63));
        was &= *word & bit != 0;
        *word |= bit;
    }
    was
}

/// The size of a line, the words one key's bits go in, as the types a layout's tests and
/// writes take: a cache line of eight words ([`Full`]) or half of one ([`Half`]).
pub(crate) trait Width: Copy {
    /// Words per line.
    const WORDS: usize;
    /// The line's words.
    type Words: Copy + Send + AsRef<[u64]> + AsMut<[u64]>;
    /// The line's little-endian bytes.
    type Bytes;
    /// The line's atomic words.
    type Atomics: AsRef<[AtomicU64]>;

    /// The bytes of the line at word `first` of a store that lends them.
    ///
    /// # Safety
    ///
    /// As [`Storage::line`]'s, for this width's bytes.
    unsafe fn bytes<'b, S: Storage>(base: S::Base, first: usize) -> &'b Self::Bytes;

    /// The atomic words of the line at word `first` of a store of shared lines.
    ///
    /// # Safety
    ///
    /// As [`Storage::shared_line`]'s, for this width's words.
    unsafe fn atomics<'b, S: Storage>(base: S::Base, first: usize) -> &'b Self::Atomics;

    /// The line at word `first` of `words`.
    ///
    /// # Panics
    ///
    /// When the line is not in `words` (a layout's bug).
    fn words_at(words: &mut [u64], first: usize) -> &mut Self::Words;

    /// The line at word `first` of atomic `words`.
    ///
    /// # Panics
    ///
    /// As [`words_at`](Width::words_at).
    fn atomics_at(words: &[AtomicU64], first: usize) -> &Self::Atomics;

    /// `words` as its lines (their count, `words.len() / WORDS`, whole).
    #[cfg(feature = "rayon")]
    fn lines_mut(words: &mut [u64]) -> &mut [Self::Words];
}

/// A [`Width`] of `$words` words.
macro_rules! width {
    ($(#[$doc:meta])* $name:ident, $words:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub(crate) struct $name;

        impl Width for $name {
            const WORDS: usize = $words;
            type Words = [u64; $words];
            type Bytes = [u8; 8 * $words];
            type Atomics = [AtomicU64; $words];

            #[inline(always)]
            unsafe fn bytes<'b, S: Storage>(base: S::Base, first: usize) -> &'b [u8; 8 * $words] {
                // SAFETY: the caller's contract.
                unsafe { S::line(base, first) }
            }

            #[inline(always)]
            unsafe fn atomics<'b, S: Storage>(
                base: S::Base,
                first: usize,
            ) -> &'b [AtomicU64; $words] {
                // SAFETY: the caller's contract.
                unsafe { S::shared_line(base, first) }
            }

            #[inline(always)]
            fn words_at(words: &mut [u64], first: usize) -> &mut [u64; $words] {
                (&mut words[first..first + $words])
                    .try_into()
                    .expect("a whole line")
            }

            #[inline(always)]
            fn atomics_at(words: &[AtomicU64], first: usize) -> &[AtomicU64; $words] {
                words[first..first + $words]
                    .try_into()
                    .expect("a whole line")
            }

            #[cfg(feature = "rayon")]
            fn lines_mut(words: &mut [u64]) -> &mut [[u64; $words]] {
                let lines = words.len() / $words;
                // SAFETY: `[u64; N]` has the layout of N consecutive `u64` (alignment 8), and
                // `lines` of them fit in `words`; the exclusive borrow moves to the lines for
                // its life.
                unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), lines) }
            }
        }
    };
}

width!(
    /// A cache line: eight words, 512 bits.
    Full,
    8
);
width!(
    /// Half a cache line: four words, 256 bits.
    Half,
    4
);

/// Code that runs with a kernel's tests of a line of width `Z` ([`Kernel::with_test`],
/// [`LineLayout::with_test`](crate::lines::LineLayout::with_test)): generic over the tests
/// so each implementation gets its own copy.
pub(crate) trait TestUser<R, Z: Width = Full> {
    /// Runs with `test`, the kernel's test of a line's bytes (little-endian words), and
    /// `shared`, its test of a line of atomic words read in place (`None` from the portable
    /// kernel, whose caller then reads the words one atomic load at a time).
    fn run(
        self,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        shared: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> R;

    /// Runs with an AVX2 kernel's tests (`token` proves the CPU has what they need): `test`
    /// and `shared` as [`run`](TestUser::run) takes them, and `compiled`, the test `test` is
    /// written with intrinsics, which code compiled for AVX2 inlines with its constants kept
    /// in registers from key to key: what a loop compiled for AVX2 runs (the batch query).
    /// By default, `run`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn run_avx2(
        self,
        token: avx2::Avx2,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        compiled: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        shared: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> R
    where
        Self: Sized,
    {
        let _ = (token, compiled);
        self.run(test, shared)
    }

    /// Runs with an AVX-512 kernel's tests, as [`run_avx2`](TestUser::run_avx2) does with
    /// an AVX2 one: `compiled` is for a loop compiled for AVX-512. By default, `run`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn run_avx512(
        self,
        token: avx2::Avx512,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        compiled: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        shared: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> R
    where
        Self: Sized,
    {
        let _ = (token, compiled);
        self.run(test, shared)
    }
}

/// The query implementation a filter holds: chosen from its [`Probe`] and its k when it is
/// built, so a query pays a predictable branch or two to reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kernel {
    kind: Kind,
    num_hashes: u32,
    /// The constant rows the `asm!` kernels read for this k.
    #[cfg(target_arch = "x86_64")]
    rows: avx2::Rows,
    /// `kind` again where it is a one-pass kernel (k <= 8, the usual k), for
    /// [`with_single_test`](Kernel::with_single_test).
    #[cfg(target_arch = "x86_64")]
    narrow: Narrow,
}

/// The one-pass kernels, a field of their own so that a branch on it stays a branch: a
/// `match` on [`Kind`]'s five variants compiles to a jump table.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Narrow {
    None,
    Avx2(avx2::Avx2),
    Avx512(avx2::Avx512),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// [`contains_portable`].
    Portable,
    /// The AVX2 test of up to 8 probes (one 256-bit pass), with the proof of AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
    /// The AVX2 test of 9 to 16 probes (two passes).
    #[cfg(target_arch = "x86_64")]
    Avx2Wide(avx2::Avx2),
    /// The AVX-512 test of up to 16 probes, with the proof of AVX-512 F and VL.
    #[cfg(target_arch = "x86_64")]
    Avx512(avx2::Avx512),
    /// The AVX-512 VL test of up to 8 probes in 256-bit registers (one two-table permute).
    #[cfg(target_arch = "x86_64")]
    Avx512Narrow(avx2::Avx512),
}

/// Hands `run` the kernel `$test` on a line's bytes, its intrinsics form `$compiled` and the
/// kernel on a line of atomic words in place, for [`Kernel`] `$kernel`.
#[cfg(target_arch = "x86_64")]
macro_rules! both_tests {
    ($kernel:expr, $run:expr, $level:ident $token:expr, $test:path, $compiled:path) => {{
        let (t, k, rows) = ($token, $kernel.num_hashes, $kernel.rows);
        both_tests!(@run $run, $level, t,
            move |b: &[u8; 64], g| $test(t, b.into(), g, rows),
            move |b: &[u8; 64], g| $compiled(t, b, g, k),
            move |line: &[AtomicU64; 8], g| Some($test(t, avx2::Line::shared(line), g, rows)))
    }};
    (@run $run:expr, avx2, $t:expr, $($tests:expr),*) => { $run.run_avx2($t, $($tests),*) };
    (@run $run:expr, avx512, $t:expr, $($tests:expr),*) => { $run.run_avx512($t, $($tests),*) };
}

impl Kernel {
    /// The kernel for `probe` and `num_hashes` (1..=16). [`Probe::Avx512`] runs the 512-bit
    /// test for k > 8 and the 256-bit VL test for k <= 8 (which measured faster than the AVX2
    /// test, itself faster there than the 512-bit one, docs/blocked.md); CPUs without a
    /// feature get the next best kernel whatever `probe` asks for: a vector kind can only be
    /// built from a detection result.
    pub(crate) fn new(probe: Probe, num_hashes: u32) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        let kind = {
            let avx2 = avx2::Avx2::detect();
            let avx512 = avx2::Avx512::detect();
            match (probe, avx2, avx512) {
                _ if num_hashes > MAX_PROBES => Kind::Portable,
                (Probe::Avx512, _, Some(token)) if num_hashes > 8 => Kind::Avx512(token),
                (Probe::Avx512, _, Some(token)) => Kind::Avx512Narrow(token),
                (Probe::Avx512 | Probe::Avx2, Some(token), _) if num_hashes <= 8 => {
                    Kind::Avx2(token)
                }
                (Probe::Avx512 | Probe::Avx2, Some(token), _) => Kind::Avx2Wide(token),
                _ => Kind::Portable,
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let kind = {
            let _ = probe;
            Kind::Portable
        };
        Kernel::of(kind, num_hashes)
    }

    /// The kernel of `kind` for `num_hashes` probes.
    fn of(kind: Kind, num_hashes: u32) -> Kernel {
        Kernel {
            kind,
            num_hashes,
            #[cfg(target_arch = "x86_64")]
            rows: avx2::Rows::of(num_hashes),
            #[cfg(target_arch = "x86_64")]
            narrow: match kind {
                Kind::Avx2(t) => Narrow::Avx2(t),
                Kind::Avx512Narrow(t) => Narrow::Avx512(t),
                _ => Narrow::None,
            },
        }
    }

    /// Every kernel of the given implementation that can test `num_hashes` probes on this
    /// CPU (for AVX-512 and k <= 8 both the narrow and the full-width one), for the tests
    /// that compare them: empty when the CPU lacks it.
    #[cfg(test)]
    pub(crate) fn forced(probe: Probe, num_hashes: u32) -> Vec<Kernel> {
        let mut kinds = Vec::new();
        match probe {
            Probe::Portable => kinds.push(Kind::Portable),
            #[cfg(target_arch = "x86_64")]
            Probe::Avx2 => {
                // The two-pass kernel masks only lanes 8..16: it serves k > 8 alone.
                if let Some(token) = avx2::Avx2::detect() {
                    kinds.push(if num_hashes <= 8 {
                        Kind::Avx2(token)
                    } else {
                        Kind::Avx2Wide(token)
                    });
                }
            }
            #[cfg(target_arch = "x86_64")]
            Probe::Avx512 => {
                if let Some(token) = avx2::Avx512::detect() {
                    if num_hashes <= 8 {
                        kinds.push(Kind::Avx512Narrow(token));
                    }
                    kinds.push(Kind::Avx512(token));
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            Probe::Avx2 | Probe::Avx512 => {}
        }
        kinds
            .into_iter()
            .map(|kind| Kernel::of(kind, num_hashes))
            .collect()
    }

    /// The implementation this kernel runs.
    pub(crate) fn probe(&self) -> Probe {
        match self.kind {
            Kind::Portable => Probe::Portable,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(_) | Kind::Avx2Wide(_) => Probe::Avx2,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(_) | Kind::Avx512Narrow(_) => Probe::Avx512,
        }
    }

    /// Runs `run` with this kernel's test as a plain function of (block, g), chosen here
    /// once: a loop inside `run` is compiled once per implementation and holds no dispatch.
    #[inline(always)]
    pub(crate) fn with_test<R>(&self, run: impl TestUser<R>) -> R {
        let k = self.num_hashes;
        match self.kind {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => {
                both_tests!(self, run, avx2 t, avx2::contains8, avx2::compiled::contains8)
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2Wide(t) => {
                both_tests!(self, run, avx2 t, avx2::contains16, avx2::compiled::contains16)
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(t) => {
                both_tests!(self, run, avx512 t, avx2::contains512, avx2::compiled::contains512)
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512Narrow(t) => both_tests!(
                self,
                run,
                avx512 t,
                avx2::contains8_512,
                avx2::compiled::contains8_512
            ),
            Kind::Portable => run.run(
                move |b: &[u8; 64], g| contains_le_bytes(b, g, k),
                |_: &[AtomicU64; 8], _| None,
            ),
        }
    }

    /// [`with_test`](Kernel::with_test) for one key's query: the one-pass kernels are
    /// reached by a compare or two, the others through `with_test`'s `match`, which the
    /// compiler lowers to a jump table (an indirect jump into the kernel and one back per
    /// query; docs/blocked.md, "One branch to the kernel").
    #[inline(always)]
    pub(crate) fn with_single_test<R>(&self, run: impl TestUser<R>) -> R {
        #[cfg(target_arch = "x86_64")]
        match self.narrow {
            Narrow::Avx512(t) => both_tests!(
                self,
                run,
                avx512 t,
                avx2::contains8_512,
                avx2::compiled::contains8_512
            ),
            Narrow::Avx2(t) => {
                both_tests!(self, run, avx2 t, avx2::contains8, avx2::compiled::contains8)
            }
            Narrow::None => self.with_test(run),
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.with_test(run)
    }

    /// Whether the key whose [`spread`] word is `g` is in `block`, by this kernel.
    #[cfg(test)]
    pub(crate) fn contains(&self, block: &Block, g: u64) -> bool {
        let bytes: [u8; 64] = core::array::from_fn(|i| block.0[i / 8].to_le_bytes()[i % 8]);
        let answer = self.with_test(OnBytes(&bytes, g));
        let single = self.with_single_test(OnBytes(&bytes, g));
        assert_eq!(
            single, answer,
            "the single-key dispatch runs another kernel"
        );
        answer
    }
}

/// A test of one line's bytes, run by whatever [`TestUser::run`] is handed: the tests that
/// compare kernels call each through it.
#[cfg(test)]
pub(crate) struct OnBytes<'a, Z: Width = Full>(pub(crate) &'a Z::Bytes, pub(crate) u64);

#[cfg(test)]
impl<Z: Width> TestUser<bool, Z> for OnBytes<'_, Z> {
    fn run(
        self,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        _: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> bool {
        test(self.0, self.1)
    }

    /// The kernel's answer, after checking that its two forms give it.
    #[cfg(target_arch = "x86_64")]
    fn run_avx2(
        self,
        _: avx2::Avx2,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        compiled: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        _: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> bool {
        let answer = test(self.0, self.1);
        assert_eq!(
            compiled(self.0, self.1),
            answer,
            "the intrinsics form differs"
        );
        answer
    }

    /// The kernel's answer, after checking that its two forms give it.
    #[cfg(target_arch = "x86_64")]
    fn run_avx512(
        self,
        token: avx2::Avx512,
        test: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        compiled: impl Fn(&Z::Bytes, u64) -> bool + Copy,
        shared: impl Fn(&Z::Atomics, u64) -> Option<bool> + Copy,
    ) -> bool {
        self.run_avx2(token.avx2(), test, compiled, shared)
    }
}

/// Parquet's insert of `x` into a block of four `u64` words (`u32` word 2j in the low half
/// of word j) by the split-block filter's kernel, `level` (AVX2 where it is, else portable);
/// returns whether all its bits were set before.
#[inline(always)]
pub(crate) fn split_insert(level: Level, block: &mut [u64; 4], x: u32) -> bool {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2(token) => avx2::split_insert(token, block, x),
        _ => split_insert_words(block, x),
    }
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

/// [`split_mask`] as the block's four `u64` words: `u32` word 2j in the low half of word j.
#[inline(always)]
pub(crate) fn split_mask_words(x: u32) -> [u64; 4] {
    let mask = split_mask(x);
    core::array::from_fn(|j| u64::from(mask[2 * j]) | u64::from(mask[2 * j + 1]) << 32)
}

/// Parquet's check on a block whose `u64` word `j` (0..4) `word` reads: `u32` word 2j in
/// its low half, 2j + 1 in its high half (the test of atomic words, and of any words on a
/// big-endian machine, where a block's bytes are not its words).
#[inline(always)]
pub(crate) fn split_contains_words(word: impl Fn(usize) -> u64, x: u32) -> bool {
    let mask = split_mask_words(x);
    (0..4).fold(true, |all, j| all & (word(j) & mask[j] == mask[j]))
}

/// Parquet's check on a block's 32 bytes as the format stores them (eight little-endian
/// `u32` words) at any address: a view's unaligned block.
#[inline(always)]
pub(crate) fn split_contains_le_bytes(block: &[u8], x: u32) -> bool {
    block
        .chunks_exact(4)
        .zip(split_mask(x))
        .fold(true, |all, (w, m)| {
            let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            all & (w & m != 0)
        })
}

/// Parquet's insert (portable) into a block of four `u64` words, as
/// [`split_contains_words`] reads them; returns whether all bits were set before.
#[inline(always)]
pub(crate) fn split_insert_words(block: &mut [u64; 4], x: u32) -> bool {
    let mut was = true;
    for (w, m) in block.iter_mut().zip(split_mask_words(x)) {
        was &= *w & m == m;
        *w |= m;
    }
    was
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    //! The vector kernels. Every function takes a token, [`Avx2`] or [`Avx512`], the proof
    //! that the CPU has the feature, which only detection makes (`bloom_core::internal::simd`,
    //! the workspace's one home of CPU tokens): so they are safe to call.
    //!
    //! The query kernels are inline assembly rather than `#[target_feature]` functions: code
    //! built for the baseline x86-64 target (what `cargo build` produces) cannot inline a
    //! `#[target_feature(enable = "avx2")]` function, so each single-key query would pay a
    //! call, argument moves and reloaded constants (measured: about 1.2 ns of a 6 ns query on
    //! a filter in L2). An `asm!` block inlines into any caller; the filter checks for the
    //! feature once, when it is built. A batch query is one call for many keys, so there the
    //! whole loop is compiled for AVX2 or AVX-512 (`Avx2::compiled`, `Avx512::compiled`) and
    //! runs the kernels' intrinsics twins ([`compiled`]), which it inlines with their
    //! constants in registers and no `vzeroupper` per key.
    //!
    //! The blocked kernels use 256- and 512-bit registers. To stay sound whatever code they
    //! are inlined into (a caller may itself be compiled for AVX and hold 256-bit values), each
    //! block declares all sixteen `xmm` registers clobbered (in LLVM's model that covers the
    //! whole `ymm`/`zmm` register), ends with `vzeroupper` so the SSE code around it pays no
    //! transition penalty, and touches neither `zmm16`-`zmm31` nor the mask registers.
    // The intrinsics below are safe to call inside `#[target_feature]` functions on recent
    // compilers and unsafe on older ones; one `unsafe` block per function serves both.
    #![allow(unused_unsafe)]

    use core::arch::asm;
    use core::arch::x86_64::*;
    use core::marker::PhantomData;
    use core::sync::atomic::AtomicU64;

    use super::{PROBE_SALT, SALT};

    /// `asm!` for the vector kernels: the template and operands given, then every vector
    /// register declared clobbered (all sixteen `xmm`, which in LLVM's model covers the whole
    /// `ymm`/`zmm` register; see the module docs) and the options every kernel has: it reads
    /// memory, writes none, and uses no stack.
    ///
    /// `shared: SHARED;` first makes the options depend on the kernel's [`Line`]: a line of
    /// atomic words that other threads may be writing is read without `pure`, so the
    /// compiler neither merges nor hoists two reads of it (as it would not merge two atomic
    /// loads of a word that may change), where a line of plain memory keeps `pure`.
    macro_rules! vector_asm {
        (shared: $shared:expr; $($body:tt)*) => {
            if $shared {
                vector_asm!(@options(readonly, nostack) $($body)*)
            } else {
                vector_asm!($($body)*)
            }
        };
        (@options($($option:ident),*) $($body:tt)*) => {
            asm!(
                $($body)*
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
                out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
                options($($option),*),
            )
        };
        ($($body:tt)*) => {
            vector_asm!(@options(pure, readonly, nostack) $($body)*)
        };
    }

    pub(crate) use bloom_core::internal::simd::{Avx2, Avx512};

    /// The answer a kernel's `set<cc>` left in its byte: 0 or 1, which is a `bool`'s
    /// representation, so the byte is taken as the `bool` it is rather than tested again
    /// (a comparison with 0 that an inlining order can leave in the caller).
    #[inline(always)]
    #[expect(
        clippy::transmute_int_to_bool,
        reason = "the comparison with 0 it suggests is what this avoids"
    )]
    fn flag_set(flag: u8) -> bool {
        // SAFETY: every kernel writes `flag` with one `set<cc>`, which stores 0 or 1, the
        // two valid bytes of a `bool`.
        unsafe { core::mem::transmute::<u8, bool>(flag) }
    }

    /// The 64 bytes of a block the kernels read, wherever they lie: a filter's line, a
    /// view's block at any address as the format's little-endian bytes (which on x86_64,
    /// little-endian, are the block's words as they would be in memory), or
    /// (`SHARED`) a block of atomic words that other threads may be setting bits in; `N` bytes,
    /// 64 for a line and 32 for a split block. Made from a reference to the bytes, or to the
    /// atomic words, so the kernels may read all of them for the borrow's life; none of their
    /// instructions needs the bytes aligned.
    ///
    /// A shared line is read by the `asm!` in place, never through a Rust reference to its
    /// bytes (which would claim they do not change). The asm's loads are the hardware's:
    /// x86-64 reads each naturally aligned 8-byte word of a vector load whole. The Intel SDM
    /// (Vol. 3A, "Guaranteed Atomic Operations") makes an aligned quadword access atomic,
    /// lets SSE and AVX accesses wider than a quadword be carried out as several memory
    /// accesses, and on CPUs with AVX guarantees even aligned 16-byte loads whole; neither it
    /// nor the AMD APM (Vol. 2, "Access Atomicity") describes a split below an aligned
    /// quadword. So a kernel reads what eight `Relaxed` loads of the words could have read, a
    /// whole value of each word, never a torn one. Its asm is not `pure`
    /// ([`vector_asm!`]).
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Line<'a, const SHARED: bool = false, const N: usize = 64> {
        first: *const u8,
        bytes: PhantomData<&'a [u8; N]>,
    }

    impl<const SHARED: bool, const N: usize> Line<'_, SHARED, N> {
        /// The first byte, for the asm.
        #[inline(always)]
        fn as_ptr(self) -> *const u8 {
            self.first
        }
    }

    impl<'a> Line<'a, true> {
        /// The line of eight atomic words, read in place by the kernels.
        #[inline(always)]
        pub(crate) fn shared(words: &'a [AtomicU64; 8]) -> Line<'a, true> {
            Line {
                first: words.as_ptr().cast(),
                bytes: PhantomData,
            }
        }
    }

    impl<'a> Line<'a, true, 32> {
        /// A split block of four atomic words, read in place by its kernel.
        #[inline(always)]
        pub(crate) fn shared_block(words: &'a [AtomicU64; 4]) -> Line<'a, true, 32> {
            Line {
                first: words.as_ptr().cast(),
                bytes: PhantomData,
            }
        }
    }

    impl<'a> From<&'a [u8; 32]> for Line<'a, false, 32> {
        #[inline(always)]
        fn from(bytes: &'a [u8; 32]) -> Line<'a, false, 32> {
            Line {
                first: bytes.as_ptr(),
                bytes: PhantomData,
            }
        }
    }

    impl<'a> From<&'a [u8; 64]> for Line<'a> {
        #[inline(always)]
        fn from(bytes: &'a [u8; 64]) -> Line<'a> {
            Line {
                first: bytes.as_ptr(),
                bytes: PhantomData,
            }
        }
    }

    /// The constants of the blocked kernels, one 64-byte-aligned static.
    #[repr(C, align(64))]
    struct Consts {
        /// [`PROBE_SALT`], lane i for probe i.
        salt: [u32; 16],
        /// Eight ones: the bit each lane must have after its word is shifted.
        ones: [u32; 8],
        /// Eight 31s: the shift count mask of the AVX2 kernel.
        thirty_one: [u32; 8],
        /// `unused[k]`: 1 in the lanes `k..16` a filter of k probes does not use, so that
        /// they pass the test whatever their word holds.
        unused: [[u32; 16]; 17],
        /// `needed[k]`: 1 in the lanes `0..k` of a filter of k probes (at most 8), the bits
        /// `vptest` requires: the test of up to eight lanes needs no [`unused`](Self::unused)
        /// row ORed in first.
        needed: [[u32; 8]; 9],
    }

    const fn unused_lanes() -> [[u32; 16]; 17] {
        let mut table = [[0u32; 16]; 17];
        let mut k = 0;
        while k <= 16 {
            let mut lane = k;
            while lane < 16 {
                table[k][lane] = 1;
                lane += 1;
            }
            k += 1;
        }
        table
    }

    const fn needed_lanes() -> [[u32; 8]; 9] {
        let mut table = [[0u32; 8]; 9];
        let mut k = 0;
        while k <= 8 {
            let mut lane = 0;
            while lane < k {
                table[k][lane] = 1;
                lane += 1;
            }
            k += 1;
        }
        table
    }

    impl Consts {
        /// The values, known to the compiler where the intrinsics kernels use them.
        const VALUES: Consts = Consts {
            salt: PROBE_SALT,
            ones: [1; 8],
            thirty_one: [31; 8],
            unused: unused_lanes(),
            needed: needed_lanes(),
        };
    }

    /// The constants in memory, where the `asm!` kernels read them.
    static CONSTS: Consts = Consts::VALUES;

    /// Byte offsets of the fields of [`Consts`], for the asm.
    const ONES: usize = core::mem::offset_of!(Consts, ones);
    const THIRTY_ONE: usize = core::mem::offset_of!(Consts, thirty_one);

    /// The rows of [`CONSTS`] the `asm!` kernels test a filter of k probes with, found once
    /// when its kernel is chosen: a single query then loads their address from the filter
    /// rather than computing it from k (a clamp, the static's address and an offset).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Rows {
        /// [`Consts::needed`]'s row for k (k at most 8).
        needed: &'static [u32; 8],
        /// [`Consts::unused`]'s row for k.
        unused: &'static [u32; 16],
    }

    impl Rows {
        /// The rows for `num_hashes` probes.
        pub(crate) fn of(num_hashes: u32) -> Rows {
            Rows {
                needed: &CONSTS.needed[num_hashes.min(8) as usize],
                unused: &CONSTS.unused[num_hashes.min(16) as usize],
            }
        }
    }

    /// The blocked test of up to 8 probes in one 256-bit pass: lane i computes probe i's
    /// position, fetches its 32-bit word from either half of the block (two `vpermd`s and a
    /// blend on the position's top bit, which is the product's sign), shifts the word by the
    /// position's low five bits, and all used lanes must then hold a one.
    #[inline(always)]
    pub(crate) fn contains8<const SHARED: bool>(
        _: Avx2,
        block: Line<'_, SHARED>,
        g: u64,
        rows: Rows,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX2, which the token proves. The memory read is the
        // 64 bytes `block` points at (readable while it lives; `vpermd`'s memory operand
        // needs no alignment), bytes 0..32, 96..128 of
        // `CONSTS` and the 32 bytes of a row of its `needed` table. The asm writes no memory,
        // uses no stack, declares every vector register clobbered and ends with `vzeroupper`
        // (see the module docs).
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vmovq xmm0, {g}",
                "vpbroadcastq ymm0, xmm0",
                "vpmulld ymm0, ymm0, ymmword ptr [{c}]",
                // Word index (bits 28..32 of the product: 0..16); vpermd reads its low 3 bits
                // and the blend its top one, the product's sign.
                "vpsrld ymm1, ymm0, 28",
                "vpermd ymm2, ymm1, ymmword ptr [{block}]",
                "vpermd ymm1, ymm1, ymmword ptr [{block} + 32]",
                "vblendvps ymm2, ymm2, ymm1, ymm0",
                // Bit index: bits 23..28 of the product.
                "vpsrld ymm0, ymm0, 23",
                "vpand ymm0, ymm0, ymmword ptr [{c} + {thirty_one}]",
                "vpsrlvd ymm2, ymm2, ymm0",
                // CF: bit 0 is set in every lane the k probes use.
                "vptest ymm2, ymmword ptr [{needed}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &CONSTS,
                block = in(reg) block.as_ptr(),
                needed = in(reg) rows.needed.as_ptr(),
                thirty_one = const THIRTY_ONE,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// [`contains8`] for 9 to 16 probes: two passes, lanes 0..8 and 8..16, whose results are
    /// combined before the one test.
    #[inline(always)]
    pub(crate) fn contains16<const SHARED: bool>(
        _: Avx2,
        block: Line<'_, SHARED>,
        g: u64,
        rows: Rows,
    ) -> bool {
        let present: u8;
        // SAFETY: as in `contains8`; the memory read is the 64 bytes `block` points at, bytes
        // 0..128 of `CONSTS` and the 64 bytes of a row of its `unused` table.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vmovq xmm0, {g}",
                "vpbroadcastq ymm0, xmm0",
                "vpmulld ymm3, ymm0, ymmword ptr [{c} + 32]",
                "vpmulld ymm0, ymm0, ymmword ptr [{c}]",
                "vpsrld ymm1, ymm0, 28",
                "vpsrld ymm4, ymm3, 28",
                "vpermd ymm2, ymm1, ymmword ptr [{block}]",
                "vpermd ymm1, ymm1, ymmword ptr [{block} + 32]",
                "vpermd ymm5, ymm4, ymmword ptr [{block}]",
                "vpermd ymm4, ymm4, ymmword ptr [{block} + 32]",
                "vblendvps ymm2, ymm2, ymm1, ymm0",
                "vblendvps ymm5, ymm5, ymm4, ymm3",
                "vmovdqa ymm6, ymmword ptr [{c} + {thirty_one}]",
                "vpsrld ymm0, ymm0, 23",
                "vpsrld ymm3, ymm3, 23",
                "vpand ymm0, ymm0, ymm6",
                "vpand ymm3, ymm3, ymm6",
                "vpsrlvd ymm2, ymm2, ymm0",
                "vpsrlvd ymm5, ymm5, ymm3",
                "vpor ymm5, ymm5, ymmword ptr [{unused} + 32]",
                "vpand ymm2, ymm2, ymm5",
                "vptest ymm2, ymmword ptr [{c} + {ones}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &CONSTS,
                block = in(reg) block.as_ptr(),
                unused = in(reg) rows.unused.as_ptr(),
                ones = const ONES,
                thirty_one = const THIRTY_ONE,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// The blocked test of up to 16 probes with AVX-512: the block is one register; one
    /// `vpermd` fetches every probe's word and one rotate moves its bit to bit 0. The 16
    /// lanes are folded to 8 and tested with `vptest`, so no mask register is touched.
    #[inline(always)]
    pub(crate) fn contains512<const SHARED: bool>(
        _: Avx512,
        block: Line<'_, SHARED>,
        g: u64,
        rows: Rows,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX-512 F and AVX2, which the token proves. The
        // memory read is the 64 bytes `block` points at (no alignment needed by an EVEX
        // memory operand), bytes 0..96 of `CONSTS` and
        // the 64 bytes of a row of its `unused` table (aligned to 64). The asm writes no
        // memory, uses no stack, uses only `zmm0`/`zmm1` of the vector registers, declares all
        // sixteen clobbered and ends with `vzeroupper`.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vpbroadcastq zmm0, {g}",
                "vpmulld zmm0, zmm0, zmmword ptr [{c}]",
                "vpsrld zmm1, zmm0, 28",
                "vpsrld zmm0, zmm0, 23",
                "vpermd zmm1, zmm1, zmmword ptr [{block}]",
                "vprorvd zmm1, zmm1, zmm0",
                "vpord zmm1, zmm1, zmmword ptr [{unused}]",
                "vextracti64x4 ymm0, zmm1, 1",
                "vpand ymm1, ymm1, ymm0",
                "vptest ymm1, ymmword ptr [{c} + {ones}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &CONSTS,
                block = in(reg) block.as_ptr(),
                unused = in(reg) rows.unused.as_ptr(),
                ones = const ONES,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// [`contains8`] with AVX-512 VL: one two-table `vpermi2d` fetches every probe's word
    /// from either half of the block (its index's bit 3 picks the half), and one rotate moves
    /// its bit to bit 0, with no mask and no blend: 11 instructions against 14.
    #[inline(always)]
    pub(crate) fn contains8_512<const SHARED: bool>(
        _: Avx512,
        block: Line<'_, SHARED>,
        g: u64,
        rows: Rows,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX-512 F and VL, which the token proves. The memory
        // read is the 64 bytes `block` points at (`vmovdqu` and the EVEX memory operand need
        // no alignment), bytes 0..32 of `CONSTS` and the 32 bytes of a row of its `needed`
        // table. The asm writes no memory, uses no stack, uses only `ymm0`-`ymm2` of the
        // vector registers, declares all sixteen clobbered and ends with `vzeroupper`.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vpbroadcastq ymm0, {g}",
                "vpmulld ymm0, ymm0, ymmword ptr [{c}]",
                "vpsrld ymm1, ymm0, 28",
                "vmovdqu ymm2, ymmword ptr [{block}]",
                "vpermi2d ymm1, ymm2, ymmword ptr [{block} + 32]",
                "vpsrld ymm0, ymm0, 23",
                "vprorvd ymm1, ymm1, ymm0",
                "vptest ymm1, ymmword ptr [{needed}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &CONSTS,
                block = in(reg) block.as_ptr(),
                needed = in(reg) rows.needed.as_ptr(),
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// The constants of the multiblock kernels, one 64-byte-aligned static.
    #[repr(C, align(64))]
    struct MultiConsts {
        /// Lane i's shift of the field word: its bit field i starts at bit `6 i`.
        shifts: [u64; 8],
        /// Four 64-bit ones: the bit each lane must have after its word is shifted.
        ones: [u64; 4],
        /// Four 63s: the shift count mask of the AVX2 kernel (AVX-512 rotates, mod 64).
        sixty_three: [u64; 4],
    }

    impl MultiConsts {
        /// The values, known to the compiler where the intrinsics kernels use them.
        const VALUES: MultiConsts = MultiConsts {
            shifts: [0, 6, 12, 18, 24, 30, 36, 42],
            ones: [1; 4],
            sixty_three: [63; 4],
        };
    }

    /// The constants in memory, where the `asm!` kernels read them.
    static MULTI_CONSTS: MultiConsts = MultiConsts::VALUES;

    /// Byte offsets of the fields of [`MultiConsts`], for the asm.
    const MULTI_ONES: usize = core::mem::offset_of!(MultiConsts, ones);
    const MULTI_SIXTY_THREE: usize = core::mem::offset_of!(MultiConsts, sixty_three);

    /// The multiblock test with AVX2: lane i of two 256-bit halves shifts word i of the line
    /// right by field i of `g` (six bits, masked), and `vptest` says whether bit 0 of every
    /// lane is set. No multiplication.
    #[inline(always)]
    pub(crate) fn multi_contains<const SHARED: bool>(
        _: Avx2,
        line: Line<'_, SHARED>,
        g: u64,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX2, which the token proves. The memory read is
        // the 64 bytes `line` points at (`vmovdqu` needs no alignment) and the 128 bytes of
        // `MULTI_CONSTS` (a static aligned to 64). The asm writes no memory, uses no stack,
        // declares every vector register clobbered and ends with `vzeroupper`.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vmovq xmm0, {g}",
                "vpbroadcastq ymm0, xmm0",
                "vpsrlvq ymm1, ymm0, ymmword ptr [{c}]",
                "vpsrlvq ymm0, ymm0, ymmword ptr [{c} + 32]",
                "vmovdqa ymm4, ymmword ptr [{c} + {sixty_three}]",
                "vpand ymm1, ymm1, ymm4",
                "vpand ymm0, ymm0, ymm4",
                "vmovdqu ymm2, ymmword ptr [{line}]",
                "vmovdqu ymm3, ymmword ptr [{line} + 32]",
                "vpsrlvq ymm2, ymm2, ymm1",
                "vpsrlvq ymm3, ymm3, ymm0",
                "vpand ymm2, ymm2, ymm3",
                // CF: every lane's bit 0 is set.
                "vptest ymm2, ymmword ptr [{c} + {ones}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &MULTI_CONSTS,
                line = in(reg) line.as_ptr(),
                ones = const MULTI_ONES,
                sixty_three = const MULTI_SIXTY_THREE,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// The multiblock test with AVX-512: the line is one register; one variable shift puts
    /// field i of `g` in lane i, one variable rotate (counts taken mod 64, so no mask) moves
    /// each word's bit to bit 0, and the lanes are folded to 256 bits for `vptest`, so no
    /// mask register is touched.
    #[inline(always)]
    pub(crate) fn multi_contains_512<const SHARED: bool>(
        _: Avx512,
        line: Line<'_, SHARED>,
        g: u64,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX-512 F and AVX2, which the token proves. The
        // memory read is the 64 bytes `line` points at (an unaligned load) and bytes 0..96
        // of `MULTI_CONSTS` (a static aligned to 64). The asm writes no memory, uses no
        // stack, uses only `zmm0`/`zmm1` of the vector registers, declares all sixteen
        // clobbered and ends with `vzeroupper`.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vpbroadcastq zmm0, {g}",
                "vpsrlvq zmm0, zmm0, zmmword ptr [{c}]",
                "vmovdqu64 zmm1, zmmword ptr [{line}]",
                "vprorvq zmm1, zmm1, zmm0",
                "vextracti64x4 ymm0, zmm1, 1",
                "vpand ymm1, ymm1, ymm0",
                "vptest ymm1, ymmword ptr [{c} + {ones}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &MULTI_CONSTS,
                line = in(reg) line.as_ptr(),
                ones = const MULTI_ONES,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// The constants of the 32-bit multiblock kernels, one 32-byte-aligned static.
    #[repr(C, align(32))]
    struct Multi32Consts {
        /// The shifts of the field word that put field i in the low five bits of 32-bit lane
        /// i: lanes 2j and 2j + 1 read bits `5j` and `5j + 32` (`multiblock32::SHIFTS`).
        shifts: [u64; 4],
        /// Eight 32-bit ones: the bit each lane must have after its word is shifted.
        ones: [u32; 8],
        /// Eight 31s: the shift count mask.
        thirty_one: [u32; 8],
    }

    impl Multi32Consts {
        /// The values, known to the compiler where the intrinsics kernels use them.
        const VALUES: Multi32Consts = Multi32Consts {
            shifts: [0, 5, 10, 15],
            ones: [1; 8],
            thirty_one: [31; 8],
        };
    }

    /// The constants in memory, where the `asm!` kernels read them.
    static MULTI32_CONSTS: Multi32Consts = Multi32Consts::VALUES;

    /// Byte offsets of the fields of [`Multi32Consts`], for the asm.
    const MULTI32_ONES: usize = core::mem::offset_of!(Multi32Consts, ones);
    const MULTI32_THIRTY_ONE: usize = core::mem::offset_of!(Multi32Consts, thirty_one);

    /// The 32-bit multiblock test with AVX2 on `block`: lane i shifts 32-bit word i right by
    /// field i of `g` (five bits, masked), and `vptest` says whether bit 0 of every lane is
    /// set. No multiplication.
    #[inline(always)]
    pub(crate) fn multi32_contains<const SHARED: bool>(
        _: Avx2,
        block: Line<'_, SHARED, 32>,
        g: u64,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX2, which the token proves. The memory read is
        // the 32 bytes `block` points at (`vmovdqu` needs no alignment), and the 96 bytes of
        // `MULTI32_CONSTS` (a static aligned to 32). The asm writes no memory, uses no
        // stack, declares every vector register clobbered and ends with `vzeroupper`.
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vmovq xmm0, {g}",
                "vpbroadcastq ymm0, xmm0",
                "vpsrlvq ymm0, ymm0, ymmword ptr [{c}]",
                "vpand ymm0, ymm0, ymmword ptr [{c} + {thirty_one}]",
                "vmovdqu ymm1, ymmword ptr [{block}]",
                "vpsrlvd ymm1, ymm1, ymm0",
                // CF: every lane's bit 0 is set.
                "vptest ymm1, ymmword ptr [{c} + {ones}]",
                "setb {present}",
                "vzeroupper",
                g = in(reg) g,
                c = in(reg) &MULTI32_CONSTS,
                block = in(reg) block.as_ptr(),
                ones = const MULTI32_ONES,
                thirty_one = const MULTI32_THIRTY_ONE,
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// Parquet's salts, then eight ones (the shifted value), 32-byte aligned for the asm.
    #[repr(C, align(32))]
    struct SplitConsts([u32; 16]);

    static SPLIT_CONSTS: SplitConsts = SplitConsts([
        SALT[0], SALT[1], SALT[2], SALT[3], SALT[4], SALT[5], SALT[6], SALT[7], 1, 1, 1, 1, 1, 1,
        1, 1,
    ]);

    /// Parquet's check: every word of the block has its bit. The eight shifts
    /// `(x * SALT[j]) >> 27` in one 256-bit register, one bit per word, then `vptest`'s carry
    /// says that `~block & mask` is zero.
    #[inline(always)]
    pub(crate) fn split_contains<const SHARED: bool>(
        _: Avx2,
        block: Line<'_, SHARED, 32>,
        x: u32,
    ) -> bool {
        let present: u8;
        // SAFETY: the instructions need AVX2, which the `Avx2` token proves. The memory read
        // is `SPLIT_CONSTS`, a 64-byte static aligned to 32 (the eight salts, then eight
        // ones; the asm loads its bytes 0..32 and 32..64), and the 32 bytes of `block`, a
        // live reference (read unaligned). The asm writes no memory, uses no stack, uses only
        // `ymm0`-`ymm2` of the vector registers, declares all sixteen clobbered and ends
        // with `vzeroupper` (see the module docs).
        unsafe {
            vector_asm!(
                shared: SHARED;
                "vmovd xmm0, {x:e}",
                "vpbroadcastd ymm0, xmm0",
                "vpmulld ymm0, ymm0, ymmword ptr [{consts}]",
                "vpsrld ymm0, ymm0, 27",
                "vmovdqa ymm1, ymmword ptr [{consts} + 32]",
                "vpsllvd ymm0, ymm1, ymm0",
                "vmovdqu ymm2, ymmword ptr [{block}]",
                "vptest ymm2, ymm0",
                "setb {present}",
                "vzeroupper",
                x = in(reg) x,
                consts = in(reg) SPLIT_CONSTS.0.as_ptr(),
                block = in(reg) block.as_ptr(),
                present = out(reg_byte) present,
            );
        }
        flag_set(present)
    }

    /// The query kernels again, written with intrinsics for code compiled for AVX2 or
    /// AVX-512: a loop compiled so (the batch query's) inlines them and keeps their constants
    /// in registers, where each `asm!` kernel loads its constants and ends with `vzeroupper`
    /// for every key. Each computes what its `asm!` twin does (the tests that compare kernels
    /// check both forms against the portable test), though not always with the same last
    /// instructions: each ending was chosen by measurement (docs/blocked.md). Their constants
    /// are the values the compiler knows (`VALUES`), not the statics the asm reads: knowing
    /// that a shift count is below 32, it keeps each variable shift one instruction.
    pub(crate) mod compiled {
        use core::arch::x86_64::*;

        use super::{Avx2, Avx512, CONSTS, Consts, Multi32Consts, MultiConsts, split_mask};

        /// 32 bytes from `words`, unaligned.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2, and `words` hold 32 readable bytes.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn load<T>(words: *const T) -> __m256i {
            // SAFETY: the caller's contract.
            unsafe { _mm256_loadu_si256(words.cast()) }
        }

        /// 64 bytes from `words`, unaligned.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX-512 F, and `words` hold 64 readable bytes.
        #[target_feature(enable = "avx512f")]
        #[inline]
        unsafe fn load512<T>(words: *const T) -> __m512i {
            // SAFETY: the caller's contract.
            unsafe { _mm512_loadu_si512(words.cast()) }
        }

        /// Lanes 0..8 or 8..16 (`HIGH`) of [`super::contains8`]: each probe's word shifted so
        /// that its bit lands in bit 0 (the lanes k does not use hold anything: the test
        /// passes over them, [`needed`], or sets them first, [`unused`]).
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn probes<const HIGH: bool>(block: &[u8; 64], g: u64) -> __m256i {
            let half = if HIGH { 8 } else { 0 };
            // SAFETY: AVX2 is available (the caller's contract); every load reads 32 bytes
            // of `block` or of the constants.
            unsafe {
                let product = _mm256_mullo_epi32(
                    _mm256_set1_epi64x(g as i64),
                    load(Consts::VALUES.salt[half..].as_ptr()),
                );
                let index = _mm256_srli_epi32::<28>(product);
                let low = _mm256_permutevar8x32_epi32(load(block.as_ptr()), index);
                let high = _mm256_permutevar8x32_epi32(load(block[32..].as_ptr()), index);
                let word = _mm256_castps_si256(_mm256_blendv_ps(
                    _mm256_castsi256_ps(low),
                    _mm256_castsi256_ps(high),
                    _mm256_castsi256_ps(product),
                ));
                let bit = _mm256_and_si256(
                    _mm256_srli_epi32::<23>(product),
                    load(Consts::VALUES.thirty_one.as_ptr()),
                );
                _mm256_srlv_epi32(word, bit)
            }
        }

        /// The `needed` row of k = `num_hashes` (at most 8): bit 0 in the lanes k uses, all
        /// `vptest` must find set.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn needed(num_hashes: u32) -> __m256i {
            // SAFETY: AVX2 is available (the caller's contract); the load reads the row's
            // 32 bytes.
            unsafe { load(CONSTS.needed[num_hashes.min(8) as usize].as_ptr()) }
        }

        /// `lanes` ORed with lanes `from .. from + 8` (`from` 0 or 8) of the `unused` row of
        /// k = `num_hashes`: ones in the lanes k does not use, so that they pass the test.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn unused(lanes: __m256i, num_hashes: u32, from: usize) -> __m256i {
            let row = &CONSTS.unused[num_hashes.min(16) as usize];
            // SAFETY: AVX2 is available (the caller's contract); the load reads 32 bytes of
            // the row, `from` being 0 or 8 of its 16 lanes.
            unsafe { _mm256_or_si256(lanes, load(row[from..].as_ptr())) }
        }

        /// [`super::contains8`].
        #[inline(always)]
        pub(crate) fn contains8(_: Avx2, block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
            #[target_feature(enable = "avx2")]
            #[inline]
            unsafe fn test(block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
                // SAFETY: AVX2 is available (this function's contract).
                unsafe { _mm256_testc_si256(probes::<false>(block, g), needed(num_hashes)) != 0 }
            }
            // SAFETY: the token proves the CPU has AVX2.
            unsafe { test(block, g, num_hashes) }
        }

        /// [`super::contains16`].
        #[inline(always)]
        pub(crate) fn contains16(_: Avx2, block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
            #[target_feature(enable = "avx2")]
            #[inline]
            unsafe fn test(block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
                // SAFETY: AVX2 is available (this function's contract).
                unsafe {
                    let lanes = _mm256_and_si256(
                        // Lanes 0..8 all serve a k above 8.
                        probes::<false>(block, g),
                        unused(probes::<true>(block, g), num_hashes, 8),
                    );
                    _mm256_testc_si256(lanes, load(Consts::VALUES.ones.as_ptr())) != 0
                }
            }
            // SAFETY: the token proves the CPU has AVX2.
            unsafe { test(block, g, num_hashes) }
        }

        /// [`super::contains8_512`].
        #[inline(always)]
        pub(crate) fn contains8_512(_: Avx512, block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            unsafe fn test(block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
                // SAFETY: AVX2, AVX-512 F and VL are available (this function's contract);
                // every load reads 32 bytes of `block` or of the constants.
                unsafe {
                    let product = _mm256_mullo_epi32(
                        _mm256_set1_epi64x(g as i64),
                        load(Consts::VALUES.salt.as_ptr()),
                    );
                    let word = _mm256_permutex2var_epi32(
                        load(block.as_ptr()),
                        _mm256_srli_epi32::<28>(product),
                        load(block[32..].as_ptr()),
                    );
                    let lanes = _mm256_rorv_epi32(word, _mm256_srli_epi32::<23>(product));
                    _mm256_testc_si256(lanes, needed(num_hashes)) != 0
                }
            }
            // SAFETY: the token proves the CPU has AVX2, AVX-512 F and VL.
            unsafe { test(block, g, num_hashes) }
        }

        /// [`super::contains512`], the answer read from a mask register (`vptestmd`) where
        /// the asm folds the halves for `vptest`: the faster end in a compiled loop.
        #[inline(always)]
        pub(crate) fn contains512(_: Avx512, block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
            #[target_feature(enable = "avx512f")]
            #[inline]
            unsafe fn test(block: &[u8; 64], g: u64, num_hashes: u32) -> bool {
                // SAFETY: AVX-512 F is available (this function's contract); every load reads
                // the 64 bytes of `block` or of the salts.
                unsafe {
                    let product = _mm512_mullo_epi32(
                        _mm512_set1_epi64(g as i64),
                        load512(Consts::VALUES.salt.as_ptr()),
                    );
                    let word = _mm512_permutexvar_epi32(
                        _mm512_srli_epi32::<28>(product),
                        load512(block.as_ptr()),
                    );
                    let lanes = _mm512_rorv_epi32(word, _mm512_srli_epi32::<23>(product));
                    let used = (1u32 << num_hashes.min(16)) - 1;
                    let set = _mm512_test_epi32_mask(lanes, _mm512_set1_epi32(1));
                    u32::from(set) & used == used
                }
            }
            // SAFETY: the token proves the CPU has AVX-512 F.
            unsafe { test(block, g, num_hashes) }
        }

        /// [`super::multi_contains_512`], the answer read from a mask register (`vptestmq`):
        /// the asm's end (the halves folded for `vptest`) the compiler turns into a reduction
        /// of the lanes.
        #[inline(always)]
        pub(crate) fn multi512(_: Avx512, line: &[u8; 64], g: u64) -> bool {
            #[target_feature(enable = "avx512f")]
            #[inline]
            unsafe fn test(line: &[u8; 64], g: u64) -> bool {
                let c = &MultiConsts::VALUES;
                // SAFETY: AVX-512 F is available (this function's contract); every load reads
                // the 64 bytes of `line` or of the shifts.
                unsafe {
                    let fields =
                        _mm512_srlv_epi64(_mm512_set1_epi64(g as i64), load512(c.shifts.as_ptr()));
                    let words = _mm512_rorv_epi64(load512(line.as_ptr()), fields);
                    _mm512_test_epi64_mask(words, _mm512_set1_epi64(1)) == u8::MAX
                }
            }
            // SAFETY: the token proves the CPU has AVX-512 F.
            unsafe { test(line, g) }
        }

        /// [`super::multi_contains`].
        #[inline(always)]
        pub(crate) fn multi(_: Avx2, line: &[u8; 64], g: u64) -> bool {
            #[target_feature(enable = "avx2")]
            #[inline]
            unsafe fn test(line: &[u8; 64], g: u64) -> bool {
                let c = &MultiConsts::VALUES;
                // SAFETY: AVX2 is available (this function's contract); every load reads 32
                // bytes of `line` or of the constants.
                // Each word is shifted left by 63 minus its field (`!field & 63`), its bit to
                // the sign, which `vmovmskpd` collects: tested with `vptest` against ones in
                // bit 0, as the asm is, the compiler makes the test a reduction of the lanes.
                unsafe {
                    let g = _mm256_set1_epi64x(g as i64);
                    let mask = load(c.sixty_three.as_ptr());
                    let low = _mm256_srlv_epi64(g, load(c.shifts.as_ptr()));
                    let high = _mm256_srlv_epi64(g, load(c.shifts[4..].as_ptr()));
                    let words = _mm256_and_si256(
                        _mm256_sllv_epi64(load(line.as_ptr()), _mm256_andnot_si256(low, mask)),
                        _mm256_sllv_epi64(
                            load(line[32..].as_ptr()),
                            _mm256_andnot_si256(high, mask),
                        ),
                    );
                    _mm256_movemask_pd(_mm256_castsi256_pd(words)) == 0b1111
                }
            }
            // SAFETY: the token proves the CPU has AVX2.
            unsafe { test(line, g) }
        }

        /// [`super::multi32_contains`].
        #[inline(always)]
        pub(crate) fn multi32(_: Avx2, block: &[u8; 32], g: u64) -> bool {
            #[target_feature(enable = "avx2")]
            #[inline]
            unsafe fn test(block: &[u8; 32], g: u64) -> bool {
                let c = &Multi32Consts::VALUES;
                // SAFETY: AVX2 is available (this function's contract); every load reads 32
                // bytes of `block` or of the constants.
                unsafe {
                    let fields = _mm256_and_si256(
                        _mm256_srlv_epi64(_mm256_set1_epi64x(g as i64), load(c.shifts.as_ptr())),
                        load(c.thirty_one.as_ptr()),
                    );
                    let words = _mm256_srlv_epi32(load(block.as_ptr()), fields);
                    _mm256_testc_si256(words, load(c.ones.as_ptr())) != 0
                }
            }
            // SAFETY: the token proves the CPU has AVX2.
            unsafe { test(block, g) }
        }

        /// [`super::split_contains`].
        #[inline(always)]
        pub(crate) fn split(_: Avx2, block: &[u8; 32], x: u32) -> bool {
            #[target_feature(enable = "avx2")]
            #[inline]
            unsafe fn test(block: &[u8; 32], x: u32) -> bool {
                // SAFETY: AVX2 is available (this function's contract); the load reads the
                // 32 bytes of `block`.
                unsafe { _mm256_testc_si256(load(block.as_ptr()), split_mask(x)) != 0 }
            }
            // SAFETY: the token proves the CPU has AVX2.
            unsafe { test(block, x) }
        }
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
    pub(crate) fn split_insert(_: Avx2, block: &mut [u64; 4], x: u32) -> bool {
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
    unsafe fn split_insert_avx2(block: &mut [u64; 4], x: u32) -> bool {
        // SAFETY: AVX2 is available; `block` is a live, exclusive reference to 32 bytes, read
        // and written unaligned. On x86-64 (little-endian) `u64` word j holds `u32` words 2j
        // and 2j + 1 in that order, as the vector's lanes do.
        unsafe {
            let ptr = block.as_mut_ptr().cast::<__m256i>();
            let words = _mm256_loadu_si256(ptr);
            let mask = split_mask(x);
            let was = _mm256_testc_si256(words, mask) != 0;
            _mm256_storeu_si256(ptr, _mm256_or_si256(words, mask));
            was
        }
    }
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::AtomicU64;

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
    fn masks_hold_the_probes_positions() {
        let mut next = rng(7);
        for k in 1..=MAX_PROBES {
            for _ in 0..200 {
                let g = next();
                let m = mask(g, k);
                let ones: u32 = m.iter().map(|w| w.count_ones()).sum();
                assert!((1..=k).contains(&ones), "k {k}: {ones} bits");
                for i in 0..k {
                    let p = position(g, i);
                    assert!(p < 512);
                    assert_ne!(m[(p >> 6) as usize] & (1 << (p & 63)), 0);
                }
                let mut block = Block([0; 8]);
                assert!(!insert_portable(&mut block, g, k));
                assert_eq!(block.0, m);
                assert!(insert_portable(&mut block, g, k));
            }
        }
        // Probe 0 reads the low half of g, probe 1 the high half.
        let g = 0x0000_0001_0000_0000u64;
        assert_eq!(position(g, 0), 0);
        assert_eq!(position(g, 1), PROBE_SALT[1] >> 23);
        assert!(PROBE_SALT.iter().all(|s| s % 2 == 1));
    }

    /// The portable test (probes in pairs) against the definition, probe by probe.
    #[test]
    fn portable_test_follows_the_positions() {
        let mut next = rng(11);
        for k in 1..=MAX_PROBES {
            for density in [1u32, 2, 3, 6] {
                for _ in 0..500 {
                    let mut block = Block([0; 8]);
                    for w in &mut block.0 {
                        *w = (0..density).fold(0, |acc, _| acc | next());
                    }
                    let g = next();
                    let expected = (0..k).all(|i| {
                        let p = position(g, i);
                        block.0[(p >> 6) as usize] >> (p & 63) & 1 == 1
                    });
                    assert_eq!(contains_portable(&block, g, k), expected, "k {k}");
                    let atomic = block.0.map(AtomicU64::new);
                    let relaxed = |w: usize| atomic[w].load(core::sync::atomic::Ordering::Relaxed);
                    assert_eq!(contains_words(relaxed, g, k), expected, "k {k}");
                    // A view's unaligned block: the same words as little-endian bytes, one
                    // byte past an aligned address.
                    let mut bytes = [0u8; 65];
                    for (chunk, w) in bytes[1..].chunks_exact_mut(8).zip(block.0) {
                        chunk.copy_from_slice(&w.to_le_bytes());
                    }
                    assert_eq!(contains_le_bytes(&bytes[1..], g, k), expected, "k {k}");
                    let x = g as u32;
                    assert_eq!(
                        split_contains_le_bytes(&bytes[1..33], x),
                        split_contains_words(|w| block.0[w], x)
                    );
                }
            }
        }
    }

    /// Setting the bits one probe at a time gives the line ORed with the key's mask, and
    /// says "all set before" exactly when the mask was already in the line.
    #[test]
    fn set_bits_is_the_mask_ored_in() {
        let mut next = rng(17);
        for _ in 0..20_000 {
            let g = spread(next());
            let k = 1 + (next() % MAX_PROBES as u64) as u32;
            let sparse = next().is_multiple_of(4);
            let mut line: [u64; 8] = core::array::from_fn(|_| {
                if sparse {
                    next() & next() & next()
                } else {
                    next() | next()
                }
            });
            let m = mask(g, k);
            let expected: [u64; 8] = core::array::from_fn(|w| line[w] | m[w]);
            let all_before = line.iter().zip(&m).all(|(w, m)| w & m == *m);
            assert_eq!(set_bits(&mut line, g, k), all_before);
            assert_eq!(line, expected);
        }
    }

    #[test]
    fn positions_are_uniform() {
        let mut next = rng(3);
        let mut words = [0u32; 16];
        let mut bits = [0u32; 32];
        for _ in 0..20_000 {
            let g = spread(next());
            for i in 0..MAX_PROBES {
                let p = position(g, i);
                words[(p >> 5) as usize] += 1;
                bits[(p & 31) as usize] += 1;
            }
        }
        // 320,000 positions: 20,000 per word, 10,000 per bit index.
        assert!(
            words.iter().all(|&c| (19_200..20_800).contains(&c)),
            "{words:?}"
        );
        assert!(
            bits.iter().all(|&c| (9_400..10_600).contains(&c)),
            "{bits:?}"
        );
    }

    #[test]
    fn split_mask_has_one_bit_per_word() {
        for x in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert!(split_mask(x).iter().all(|w| w.count_ones() == 1));
        }
    }

    /// The vector kernels exist only where detection found their feature; asking for them
    /// anywhere else gives the next best kernel, never an unsound one.
    #[test]
    fn kernels_come_only_from_detection() {
        #[cfg(target_arch = "x86_64")]
        let (has_avx2, has_avx512) = (
            avx2::Avx2::detect().is_some(),
            avx2::Avx512::detect().is_some(),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (has_avx2, has_avx512) = (false, false);
        assert_eq!(Probe::Avx2.is_available(), has_avx2);
        assert_eq!(Probe::Avx512.is_available(), has_avx512);
        for k in 1..=MAX_PROBES + 2 {
            for probe in [Probe::Portable, Probe::Avx2, Probe::Avx512] {
                let runs = Kernel::new(probe, k).probe();
                let expected = match probe {
                    _ if k > MAX_PROBES => Probe::Portable,
                    Probe::Avx512 if has_avx512 => Probe::Avx512,
                    Probe::Avx512 | Probe::Avx2 if has_avx2 => Probe::Avx2,
                    _ => Probe::Portable,
                };
                assert_eq!(runs, expected, "{probe:?} k {k}");
                if k <= MAX_PROBES {
                    let block = Block([u64::MAX; 8]);
                    assert!(Kernel::new(probe, k).contains(&block, 12345));
                }
            }
        }
        // The split block, 256 bits, runs AVX2's test under either vector probe.
        let split = crate::SplitBlockBloomFilter::with_num_bytes(32);
        assert_eq!(
            split.probe(),
            if has_avx2 {
                Probe::Avx2
            } else {
                Probe::Portable
            }
        );
        for probe in [Probe::Portable, Probe::Avx2, Probe::Avx512] {
            if let Ok(forced) = split.clone().with_probe(probe) {
                assert_eq!(forced.probe(), probe.min(Probe::Avx2), "{probe:?}");
            }
        }
    }

    /// Every kernel this CPU has, against the portable test, on random blocks of every
    /// density and every k, plus the edge cases: a block holding exactly the key's bits, and
    /// the same block with one of them cleared.
    #[test]
    fn vector_kernels_agree_with_portable_on_random_blocks() {
        let mut next = rng(99);
        let mut tested = 0;
        for probe in [Probe::Avx2, Probe::Avx512] {
            for k in 1..=MAX_PROBES {
                for kernel in Kernel::forced(probe, k) {
                    tested += 1;
                    for density in [0u32, 1, 2, 3, 6] {
                        for _ in 0..1_000 {
                            let mut block = Block([0; 8]);
                            for w in &mut block.0 {
                                // Dense blocks (several random words ORed) make "present" common.
                                *w = (0..density).fold(0, |acc, _| acc | next());
                            }
                            let g = next();
                            let expected = contains_portable(&block, g, k);
                            assert_eq!(kernel.contains(&block, g), expected, "{probe:?} k {k}");
                            // The same block as a view's bytes, one byte past a boundary.
                            let mut bytes = [0u8; 65];
                            for (chunk, w) in bytes[1..].chunks_exact_mut(8).zip(block.0) {
                                chunk.copy_from_slice(&w.to_le_bytes());
                            }
                            let unaligned: &[u8; 64] = bytes[1..].try_into().unwrap();
                            assert_eq!(
                                kernel.with_test(OnBytes(unaligned, g)),
                                expected,
                                "{probe:?}"
                            );
                            let exact = Block(mask(g, k));
                            assert!(kernel.contains(&exact, g), "{probe:?} k {k}");
                            let p = position(g, (next() % u64::from(k)) as u32);
                            let mut less = exact;
                            less.0[(p >> 6) as usize] &= !(1 << (p & 63));
                            assert!(!kernel.contains(&less, g), "{probe:?} k {k}");
                        }
                    }
                }
            }
        }
        // AVX2: one kernel per k; AVX-512: the full-width kernel for k = 1..=16 and the
        // narrow one for k = 1..=8.
        #[cfg(target_arch = "x86_64")]
        {
            let expected = usize::from(Probe::Avx2.is_available()) * 16
                + usize::from(Probe::Avx512.is_available()) * 24;
            assert_eq!(tested, expected);
        }
        let _ = tested;
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn split_avx2_agrees_with_portable() {
        let Some(token) = avx2::Avx2::detect() else {
            assert!(!Probe::Avx2.is_available());
            return;
        };
        let mut next = rng(5);
        for density in [0u32, 1, 2, 3, 6] {
            for _ in 0..3_000 {
                let mut split = [0u64; 4];
                for w in &mut split {
                    *w = (0..density).fold(0, |acc, _| acc | next());
                }
                let bytes = |words: &[u64; 4]| -> [u8; 32] {
                    let mut out = [0u8; 32];
                    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
                        chunk.copy_from_slice(&w.to_le_bytes());
                    }
                    out
                };
                let x = next() as u32;
                let fast = avx2::split_contains(token, (&bytes(&split)).into(), x);
                assert_eq!(fast, split_contains_words(|w| split[w], x));
                assert_eq!(fast, avx2::compiled::split(token, &bytes(&split), x));
                assert_eq!(fast, split_contains_le_bytes(&bytes(&split), x));
                let mut a = split;
                let mut b = split;
                let fast = avx2::split_insert(token, &mut a, x);
                assert_eq!(fast, split_insert_words(&mut b, x));
                assert_eq!(a, b);
                assert!(avx2::split_contains(token, (&bytes(&a)).into(), x));
            }
        }
    }
}
