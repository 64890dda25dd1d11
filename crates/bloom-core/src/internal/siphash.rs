//! SipHash-1-3 with 64-bit output: the keyed pseudo-random function behind
//! [`Hashing::Keyed`](crate::hash::Hashing::Keyed).
//!
//! Implemented from the specification in Aumasson and Bernstein, "SipHash: a fast short-input
//! PRF" (INDOCRYPT 2012), with one compression round per 8-byte word and three finalisation
//! rounds (the "1-3" variant the Rust standard library's `HashMap` uses). The tests check it
//! against the `siphasher` crate and, with two and four rounds, against the standard
//! library's SipHash-2-4.

use crate::internal::digest::Digest;
use crate::internal::simd::Level;

/// The initial-state constants: "somepseudorandomlygeneratedbytes" read as four
/// little-endian words.
const INIT: [u64; 4] = [
    0x736f_6d65_7073_6575,
    0x646f_7261_6e64_6f6d,
    0x6c79_6765_6e65_7261,
    0x7465_6462_7974_6573,
];

/// The running state of SipHash with `C` compression and `D` finalisation rounds: the four
/// state words, the bytes of an incomplete word and the total length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SipState<const C: usize, const D: usize> {
    v: [u64; 4],
    tail: u64,
    tail_len: usize,
    len: u64,
}

#[inline(always)]
fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

/// Up to 7 bytes as the low bytes of a little-endian word.
#[inline(always)]
fn partial_word(bytes: &[u8]) -> u64 {
    debug_assert!(bytes.len() < 8);
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

impl<const C: usize, const D: usize> SipState<C, D> {
    /// A fresh state under the 128-bit key `(k0, k1)`.
    #[inline(always)]
    pub(crate) fn new(key: [u64; 2]) -> Self {
        let [k0, k1] = key;
        SipState {
            v: [INIT[0] ^ k0, INIT[1] ^ k1, INIT[2] ^ k0, INIT[3] ^ k1],
            tail: 0,
            tail_len: 0,
            len: 0,
        }
    }

    #[inline(always)]
    fn compress(&mut self, word: u64) {
        self.v[3] ^= word;
        for _ in 0..C {
            round(&mut self.v);
        }
        self.v[0] ^= word;
    }

    /// Feeds `bytes`.
    #[inline(always)]
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        self.len = self.len.wrapping_add(bytes.len() as u64);
        if self.tail_len > 0 {
            let take = (8 - self.tail_len).min(bytes.len());
            self.tail |= partial_word(&bytes[..take]) << (8 * self.tail_len);
            self.tail_len += take;
            bytes = &bytes[take..];
            if self.tail_len < 8 {
                return;
            }
            let word = self.tail;
            self.compress(word);
            self.tail = 0;
            self.tail_len = 0;
        }
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.compress(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        self.tail = partial_word(rest);
        self.tail_len = rest.len();
    }

    /// The 64-bit digest of everything fed so far (the state is not consumed).
    #[inline(always)]
    pub(crate) fn finish(&self) -> u64 {
        let mut state = *self;
        let last = (state.len << 56) | state.tail;
        state.compress(last);
        state.v[2] ^= 0xff;
        for _ in 0..D {
            round(&mut state.v);
        }
        state.v[0] ^ state.v[1] ^ state.v[2] ^ state.v[3]
    }
}

/// SipHash with `C` compression and `D` finalisation rounds of `bytes` under `key`.
#[inline(always)]
pub(crate) fn sip<const C: usize, const D: usize>(bytes: &[u8], key: [u64; 2]) -> u64 {
    let mut state = SipState::<C, D>::new(key);
    state.update(bytes);
    state.finish()
}

/// SipHash-1-3 (64-bit output) as a [`Digest`] for the buffered key hasher, keyed by two
/// 64-bit words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sip13;

impl Digest for Sip13 {
    type Output = u64;
    type Key = [u64; 2];
    type Stream = SipState<1, 3>;
    const CANONICAL_INTEGERS: bool = true;

    #[inline(always)]
    fn oneshot(bytes: &[u8], key: [u64; 2]) -> u64 {
        sip::<1, 3>(bytes, key)
    }

    fn stream(key: [u64; 2]) -> Self::Stream {
        SipState::new(key)
    }

    fn update(stream: &mut Self::Stream, bytes: &[u8]) {
        stream.update(bytes);
    }

    fn digest(stream: &Self::Stream) -> u64 {
        stream.finish()
    }

    #[inline(always)]
    fn low64(output: u64) -> u64 {
        output
    }
}

/// Lanes of [`sip13_lanes`]: sixteen 64-bit lanes, two AVX-512 registers (four AVX2 ones).
/// A SipHash is a chain of dependent steps, so one register's eight lanes leave the vector
/// units waiting on each step's latency; two independent chains fill them. On an AMD EPYC
/// Zen 4 sixteen lanes hash a `u64` key batch in 3.3 ns per key against 4.2 with eight (and
/// 3.9 with 32, which run out of registers); docs/security.md has the measurement.
pub(crate) const LANES: usize = 16;

/// Sixteen SipHash states, one per lane, as four arrays of lanes: each step of a round is one
/// operation over all the lanes, which the compiler emits as one vector instruction per
/// register's worth.
type LaneState = [[u64; LANES]; 4];

/// One SipRound on every lane.
#[inline(always)]
fn lanes_round(v: &mut LaneState) {
    let [v0, v1, v2, v3] = v;
    for l in 0..LANES {
        v0[l] = v0[l].wrapping_add(v1[l]);
        v2[l] = v2[l].wrapping_add(v3[l]);
        v1[l] = v1[l].rotate_left(13) ^ v0[l];
        v3[l] = v3[l].rotate_left(16) ^ v2[l];
        v0[l] = v0[l].rotate_left(32);
        v2[l] = v2[l].wrapping_add(v1[l]);
        v0[l] = v0[l].wrapping_add(v3[l]);
        v1[l] = v1[l].rotate_left(17) ^ v2[l];
        v3[l] = v3[l].rotate_left(21) ^ v0[l];
        v2[l] = v2[l].rotate_left(32);
    }
}

/// One compression round of the message words `m` on every lane.
#[inline(always)]
fn lanes_compress(v: &mut LaneState, m: &[u64; LANES]) {
    for l in 0..LANES {
        v[3][l] ^= m[l];
    }
    lanes_round(v);
    for l in 0..LANES {
        v[0][l] ^= m[l];
    }
}

/// SipHash-1-3 of [`LANES`] messages of one length at once, each lane a message, under one
/// key: the rounds of [`sip`] over arrays of words. `word(i)` gives the `i`-th little-endian
/// word of the `len / 8` whole ones of every lane, `tail()` every lane's last `len % 8` bytes
/// as the low bytes of a word.
#[inline(always)]
fn sip13_lanes_generic(
    key: [u64; 2],
    len: usize,
    word: impl Fn(usize) -> [u64; LANES],
    tail: impl Fn() -> [u64; LANES],
) -> [u64; LANES] {
    let [k0, k1] = key;
    let mut v: LaneState = [
        [INIT[0] ^ k0; LANES],
        [INIT[1] ^ k1; LANES],
        [INIT[2] ^ k0; LANES],
        [INIT[3] ^ k1; LANES],
    ];
    for i in 0..len / 8 {
        lanes_compress(&mut v, &word(i));
    }
    let mut last = tail();
    for m in &mut last {
        *m |= (len as u64) << 56;
    }
    lanes_compress(&mut v, &last);
    for w in &mut v[2] {
        *w ^= 0xff;
    }
    for _ in 0..3 {
        lanes_round(&mut v);
    }
    core::array::from_fn(|l| v[0][l] ^ v[1][l] ^ v[2][l] ^ v[3][l])
}

/// SipHash-1-3 of [`LANES`] messages of `len` bytes each (`messages[l][..len]`), under `key`: the
/// digests [`sip`] gives them one by one. Runs the build of the lanes for `level` (AVX-512,
/// AVX2 or plain), which the caller detects once for all its groups.
pub(crate) fn sip13_lanes(
    level: Level,
    messages: &[&[u8]; LANES],
    len: usize,
    key: [u64; 2],
) -> [u64; LANES] {
    debug_assert!(messages.iter().all(|m| m.len() >= len));
    match level {
        // SAFETY: the token proves the CPU has AVX-512 F.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512(_) => unsafe { sip13_lanes_avx512(messages, len, key) },
        // SAFETY: the token proves the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2(_) => unsafe { sip13_lanes_avx2(messages, len, key) },
        _ => sip13_lanes_portable(messages, len, key),
    }
}

/// SipHash-1-3 of [`LANES`] 8-byte messages (each given as its little-endian word), under one
/// key: the common case of integer keys, with no loop over the length and no bounds check.
pub(crate) fn sip13_lanes_word(level: Level, words: [u64; LANES], key: [u64; 2]) -> [u64; LANES] {
    match level {
        // SAFETY: the token proves the CPU has AVX-512 F.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512(_) => unsafe { sip13_lanes_word_avx512(words, key) },
        // SAFETY: the token proves the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2(_) => unsafe { sip13_lanes_word_avx2(words, key) },
        _ => sip13_lanes_word_portable(words, key),
    }
}

/// [`sip13_lanes_word`] without target features.
#[inline(always)]
pub(crate) fn sip13_lanes_word_portable(words: [u64; LANES], key: [u64; 2]) -> [u64; LANES] {
    sip13_lanes_generic(key, 8, |_| words, || [0; LANES])
}

/// [`sip13_lanes_word`] built for AVX-512F.
///
/// # Safety
///
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sip13_lanes_word_avx512(words: [u64; LANES], key: [u64; 2]) -> [u64; LANES] {
    sip13_lanes_word_portable(words, key)
}

/// [`sip13_lanes_word`] built for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sip13_lanes_word_avx2(words: [u64; LANES], key: [u64; 2]) -> [u64; LANES] {
    sip13_lanes_word_portable(words, key)
}

/// The lanes read from byte slices: whole words, then the tail.
#[inline(always)]
fn sip13_lanes_of(messages: &[&[u8]; LANES], len: usize, key: [u64; 2]) -> [u64; LANES] {
    let whole = len / 8 * 8;
    let word = |l: usize, i: usize| {
        let bytes: [u8; 8] = messages[l][8 * i..8 * i + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(bytes)
    };
    sip13_lanes_generic(
        key,
        len,
        |i| core::array::from_fn(|l| word(l, i)),
        || {
            if whole == len {
                [0; LANES]
            } else {
                core::array::from_fn(|l| partial_word(&messages[l][whole..len]))
            }
        },
    )
}

/// [`sip13_lanes`] without target features: correct everywhere, vectorised as far as the
/// baseline instruction set allows.
pub(crate) fn sip13_lanes_portable(
    messages: &[&[u8]; LANES],
    len: usize,
    key: [u64; 2],
) -> [u64; LANES] {
    sip13_lanes_of(messages, len, key)
}

/// [`sip13_lanes`] built for AVX-512F.
///
/// # Safety
///
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sip13_lanes_avx512(messages: &[&[u8]; LANES], len: usize, key: [u64; 2]) -> [u64; LANES] {
    sip13_lanes_of(messages, len, key)
}

/// [`sip13_lanes`] built for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sip13_lanes_avx2(messages: &[&[u8]; LANES], len: usize, key: [u64; 2]) -> [u64; LANES] {
    sip13_lanes_of(messages, len, key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::hash::Hasher;

    fn key_words(key: &[u8; 16]) -> [u64; 2] {
        [
            u64::from_le_bytes(key[..8].try_into().unwrap()),
            u64::from_le_bytes(key[8..].try_into().unwrap()),
        ]
    }

    /// The reference key of the SipHash paper's test vectors: bytes 0, 1, ..., 15.
    fn reference_key() -> [u8; 16] {
        core::array::from_fn(|i| i as u8)
    }

    #[test]
    fn two_four_rounds_match_the_standard_library() {
        // With two and four rounds the same code is SipHash-2-4, which the standard
        // library still ships (deprecated) and writes raw bytes into with `write`.
        let key = reference_key();
        let [k0, k1] = key_words(&key);
        for len in 0..64usize {
            let input: Vec<u8> = (0..len as u8).collect();
            #[allow(deprecated)]
            let mut reference = core::hash::SipHasher::new_with_keys(k0, k1);
            reference.write(&input);
            assert_eq!(
                sip::<2, 4>(&input, [k0, k1]),
                reference.finish(),
                "len {len}"
            );
        }
    }

    #[test]
    fn paper_vector_for_fifteen_bytes() {
        // The SipHash paper's appendix: SipHash-2-4 of bytes 00..0e under key 00..0f.
        let input: Vec<u8> = (0..15).collect();
        assert_eq!(
            sip::<2, 4>(&input, key_words(&reference_key())),
            0xa129_ca61_49be_45e5
        );
    }

    #[test]
    fn one_three_rounds_match_siphasher() {
        let key = reference_key();
        for len in 0..80usize {
            let input: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut reference = siphasher::sip::SipHasher13::new_with_key(&key);
            reference.write(&input);
            assert_eq!(
                sip::<1, 3>(&input, key_words(&key)),
                reference.finish(),
                "len {len}"
            );
        }
    }

    #[test]
    fn lanes_give_the_digests_one_by_one_on_every_build() {
        let key = [0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908];
        for len in 0..70usize {
            let messages: Vec<Vec<u8>> = (0..LANES)
                .map(|l| (0..len).map(|i| (i * 13 + l * 101 + len) as u8).collect())
                .collect();
            let refs: [&[u8]; LANES] = core::array::from_fn(|l| &messages[l][..]);
            let expected: [u64; LANES] = core::array::from_fn(|l| sip::<1, 3>(refs[l], key));
            for level in Level::available() {
                assert_eq!(
                    sip13_lanes(level, &refs, len, key),
                    expected,
                    "{level:?} len {len}"
                );
            }
            assert_eq!(sip13_lanes_portable(&refs, len, key), expected, "len {len}");
        }
    }

    #[test]
    fn word_lanes_give_the_digests_one_by_one_on_every_build() {
        let key = [0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321];
        for seed in 0..50u64 {
            let words: [u64; LANES] =
                core::array::from_fn(|l| crate::internal::digest::mix(seed * 8 + l as u64));
            let expected: [u64; LANES] =
                core::array::from_fn(|l| sip::<1, 3>(&words[l].to_le_bytes(), key));
            for level in Level::available() {
                assert_eq!(sip13_lanes_word(level, words, key), expected, "{level:?}");
            }
            assert_eq!(sip13_lanes_word_portable(words, key), expected);
        }
    }

    #[test]
    fn streaming_in_any_pieces_gives_the_oneshot_digest() {
        let key = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210];
        let input: Vec<u8> = (0..200u32).map(|i| (i * 31) as u8).collect();
        let whole = sip::<1, 3>(&input, key);
        for split in [1usize, 3, 7, 8, 9, 15, 16, 17, 63] {
            let mut state = SipState::<1, 3>::new(key);
            for piece in input.chunks(split) {
                state.update(piece);
            }
            assert_eq!(state.finish(), whole, "pieces of {split}");
        }
    }
}
