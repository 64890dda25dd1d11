//! SipHash-1-3 with 64-bit output: the keyed pseudo-random function behind
//! [`Hashing::Keyed`](crate::hash::Hashing::Keyed).
//!
//! Implemented from the specification in Aumasson and Bernstein, "SipHash: a fast short-input
//! PRF" (INDOCRYPT 2012), with one compression round per 8-byte word and three finalisation
//! rounds (the "1-3" variant the Rust standard library's `HashMap` uses). The tests check it
//! against the `siphasher` crate and, with two and four rounds, against the standard
//! library's SipHash-2-4.

use alloc::vec::Vec;
use core::hash::Hash;

use crate::internal::digest::{BufferedHasher, Digest, WordOf};
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

/// SipHash-1-3 under `key` of the bytes `k` writes, buffered (integers in their canonical
/// width): the keyed scheme's hash of one key, which [`sip13_keys`] gives each key of a batch.
#[inline(always)]
pub(crate) fn sip13_key<T: Hash + ?Sized>(k: &T, key: [u64; 2]) -> u64 {
    let mut hasher = BufferedHasher::<Sip13>::new(key);
    k.hash(&mut hasher);
    hasher.digest()
}

/// Lanes of [`sip13_keys`]: sixteen 64-bit lanes, two AVX-512 registers (four AVX2 ones).
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

/// SipHash-1-3 of [`LANES`] messages of `len` bytes each (`messages[l][..len]`), under `key`:
/// the lanes read from byte slices, whole words, then the tail.
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

/// SipHash-1-3 under `key` of the bytes each key of `keys` writes (as a [`BufferedHasher`]
/// with canonical integers holds them), appended to `out` in order: the digests a
/// [`BufferedHasher<Sip13>`] gives the keys one by one. Sixteen keys at a time go through the
/// lanes when each writes one 8-byte word (any integer key, caught by [`WordOf`] with no
/// buffer) or all sixteen write the same number of bytes, up to 128; a group of mixed lengths,
/// and the last keys short of a group, are hashed one by one. Runs the build of the whole
/// loop for `level` (AVX-512, AVX2 or plain), so the lanes' words pass from the keys to the
/// rounds in registers rather than through a call per group.
pub(crate) fn sip13_keys<T: Hash>(level: Level, keys: &[T], key: [u64; 2], out: &mut Vec<u64>) {
    let start = out.len();
    out.resize(start + keys.len(), 0);
    let out = &mut out[start..];
    match level {
        // SAFETY: the token proves the CPU has AVX-512 F.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512(_) => unsafe { sip13_keys_avx512(keys, key, out) },
        // SAFETY: the token proves the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2(_) => unsafe { sip13_keys_avx2(keys, key, out) },
        _ => sip13_keys_into(keys, key, out),
    }
}

/// [`sip13_keys`] into `out` (as long as `keys`), compiled as the caller is: correct
/// everywhere, vectorised as far as the caller's target features allow. A loop compiled for
/// a CPU's features that hashes a few keys at a time and then uses their hashes (the keyed
/// batch of a filter in the cache) inlines it, so the lanes' work overlaps the tests'.
#[inline(always)]
pub(crate) fn sip13_keys_into<T: Hash>(keys: &[T], key: [u64; 2], out: &mut [u64]) {
    assert_eq!(keys.len(), out.len(), "one hash per key");
    let mut hashers: Option<[BufferedHasher<Sip13>; LANES]> = None;
    let mut groups = keys.chunks_exact(LANES);
    let mut outs = out.chunks_exact_mut(LANES);
    for (group, out) in (&mut groups).zip(&mut outs) {
        let out: &mut [u64; LANES] = out.try_into().expect("a group's hashes");
        let mut words = [0u64; LANES];
        if words
            .iter_mut()
            .zip(group)
            .all(|(word, k)| WordOf::of(k).map(|caught| *word = caught).is_some())
        {
            *out = sip13_lanes_generic(key, 8, |_| words, || [0; LANES]);
            continue;
        }
        let hashers =
            hashers.get_or_insert_with(|| core::array::from_fn(|_| BufferedHasher::new(key)));
        for (hasher, k) in hashers.iter_mut().zip(group) {
            hasher.reset();
            k.hash(hasher);
        }
        let len = hashers[0].inline_bytes().map(<[u8]>::len);
        *out = match len.filter(|&len| {
            hashers
                .iter()
                .all(|h| h.inline_bytes().map(<[u8]>::len) == Some(len))
        }) {
            Some(len) => {
                let messages: [&[u8]; LANES] =
                    core::array::from_fn(|l| hashers[l].inline_bytes().unwrap_or_default());
                sip13_lanes_of(&messages, len, key)
            }
            None => core::array::from_fn(|l| hashers[l].digest()),
        };
    }
    for (h, k) in outs.into_remainder().iter_mut().zip(groups.remainder()) {
        *h = sip13_key(k, key);
    }
}

/// [`sip13_keys`] built for AVX-512F.
///
/// # Safety
///
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sip13_keys_avx512<T: Hash>(keys: &[T], key: [u64; 2], out: &mut [u64]) {
    sip13_keys_into(keys, key, out);
}

/// [`sip13_keys`] built for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sip13_keys_avx2<T: Hash>(keys: &[T], key: [u64; 2], out: &mut [u64]) {
    sip13_keys_into(keys, key, out);
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

    /// A key that writes its bytes in the pieces given: `[8]` is one word, `[4, 4]` the same
    /// bytes in two writes.
    struct Pieces(Vec<Vec<u8>>);

    impl Hash for Pieces {
        fn hash<H: Hasher>(&self, state: &mut H) {
            for piece in &self.0 {
                state.write(piece);
            }
        }
    }

    /// `sip13_keys` on every build this CPU runs gives SipHash-1-3 of each key's bytes, one
    /// by one: whole groups of one length (0 to 69 bytes), groups of 8-byte pieces, groups of
    /// two 4-byte writes, groups of mixed lengths, and the keys past the last whole group.
    #[test]
    fn keys_give_the_digests_one_by_one_on_every_build() {
        let key = [0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908];
        let mut keys = Vec::new();
        for len in 0..70usize {
            for l in 0..LANES {
                keys.push(Pieces(vec![
                    (0..len).map(|i| (i * 13 + l * 101 + len) as u8).collect(),
                ]));
            }
        }
        for l in 0..3 * LANES + 5 {
            let bytes: Vec<u8> = (0..8).map(|i| (i * 7 + l) as u8).collect();
            let pieces = match l / LANES {
                0 => vec![bytes],
                1 => vec![bytes[..4].to_vec(), bytes[4..].to_vec()],
                _ => vec![bytes[..l % 9].to_vec()],
            };
            keys.push(Pieces(pieces));
        }
        let expected: Vec<u64> = keys
            .iter()
            .map(|k| sip::<1, 3>(&k.0.concat(), key))
            .collect();
        for level in Level::available() {
            let mut out = vec![7];
            sip13_keys(level, &keys, key, &mut out);
            assert_eq!(out[0], 7, "{level:?} appends");
            assert_eq!(out[1..], expected[..], "{level:?}");
        }
    }

    /// Integer keys of every width go through the lanes as their canonical 8-byte word.
    #[test]
    fn integer_keys_hash_as_their_canonical_word_on_every_build() {
        let key = [0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321];
        let words: Vec<u64> = (0..50u64).map(crate::internal::digest::mix).collect();
        let expected: Vec<u64> = words
            .iter()
            .map(|w| sip::<1, 3>(&w.to_le_bytes(), key))
            .collect();
        let narrow: Vec<i16> = words.iter().map(|&w| w as i16).collect();
        let narrow_expected: Vec<u64> = narrow
            .iter()
            .map(|&v| sip::<1, 3>(&i64::from(v).to_le_bytes(), key))
            .collect();
        for level in Level::available() {
            let mut out = Vec::new();
            sip13_keys(level, &words, key, &mut out);
            assert_eq!(out, expected, "{level:?}");
            out.clear();
            sip13_keys(level, &narrow, key, &mut out);
            assert_eq!(out, narrow_expected, "{level:?}");
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
