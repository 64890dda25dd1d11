//! The digests a key is hashed with, and the hasher that feeds them: [`BufferedHasher`]
//! buffers the bytes a key's `Hash` writes (integers in one canonical width) and finishes
//! with one call of a [`Digest`] ([`Seeded64`], the shared format's hash; [`Xxh64`],
//! Parquet's; SipHash-1-3 in [`siphash`](super::siphash)). The bottom of the hashing layers:
//! it imports nothing of this crate.

use alloc::boxed::Box;
use core::hash::Hasher;

use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

/// Bytes a [`BufferedHasher`] keeps on the stack before it switches to streaming. Keys up to
/// this size (as `Hash` writes them) cost one one-shot call of the hash function.
const INLINE_CAPACITY: usize = 128;

/// A hash function that [`BufferedHasher`] finishes with: a one-shot form for the buffered
/// bytes and an incremental form for longer input, which give the same digest.
pub trait Digest {
    /// The digest.
    type Output: Copy;
    /// What the function is seeded or keyed with.
    type Key: Copy;
    /// The incremental state.
    type Stream: Clone;
    /// The digest of `bytes` in one call.
    fn oneshot(bytes: &[u8], key: Self::Key) -> Self::Output;
    /// A fresh incremental state.
    fn stream(key: Self::Key) -> Self::Stream;
    /// Feeds `bytes` to the state.
    fn update(stream: &mut Self::Stream, bytes: &[u8]);
    /// The digest of everything fed to the state.
    fn digest(stream: &Self::Stream) -> Self::Output;
    /// The 64 bits `Hasher::finish` returns.
    fn low64(output: Self::Output) -> u64;
    /// Whether [`BufferedHasher`] writes every integer that fits in 64 bits as one 64-bit
    /// value (see [`KeyHasher`](crate::hash::KeyHasher)), or each type at its own width (as Parquet's plain
    /// encoding does).
    const CANONICAL_INTEGERS: bool;
}

/// The shared format's seeded key hash (format version 5): an input of at most 8 bytes (an
/// integer in its canonical width, a short string) goes through [`short_hash`], two
/// multiplies; a longer one through seeded XXH3-64 (its path for 9 to 16 bytes written out
/// as [`xxh3_64_9to16`]).
#[derive(Debug, Clone, Copy)]
pub struct Seeded64;

impl Digest for Seeded64 {
    type Output = u64;
    type Key = u64;
    type Stream = Xxh3;
    const CANONICAL_INTEGERS: bool = true;

    #[inline(always)]
    fn oneshot(bytes: &[u8], seed: u64) -> u64 {
        match bytes.len() {
            0..=SHORT_MAX => short_hash(bytes, seed),
            9..=16 => xxh3_64_9to16(bytes, seed),
            _ => xxh3_64_with_seed(bytes, seed),
        }
    }

    fn stream(seed: u64) -> Xxh3 {
        Xxh3::with_seed(seed)
    }

    fn update(stream: &mut Xxh3, bytes: &[u8]) {
        stream.update(bytes);
    }

    /// Streaming starts only past the inline buffer (128 bytes), where the one-shot form is
    /// XXH3-64 too: the two agree.
    fn digest(stream: &Xxh3) -> u64 {
        stream.digest()
    }

    #[inline(always)]
    fn low64(output: u64) -> u64 {
        output
    }
}

/// The longest input [`short_hash`] takes; longer ones take seeded XXH3-64.
pub const SHORT_MAX: usize = 8;

/// The multipliers and whiteners of [`short_hash`]: the 64-bit golden ratio and three of
/// XXH64's primes (odd, with set bits spread over the whole word).
const SHORT_K: [u64; 4] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0x27D4_EB2F_1656_67C5,
];

/// XORs of words of XXH3's default secret that its path for inputs of 9 to 16 bytes uses:
/// bytes 24..32 ^ 32..40 and 40..48 ^ 48..56.
const SECRET_9_16: [u64; 2] = [0x6782_737B_EA42_39B9, 0xAF56_BC3B_0996_523A];

/// The multiplier of XXH3's avalanche.
const XXH3_AVALANCHE: u64 = 0x1656_6791_9E37_79F9;

/// `lo ^ hi` of the 128-bit product: one `mulx` and one `xor`. Every bit of each factor
/// reaches the high half; the low half keeps the low bits' detail.
#[inline(always)]
pub const fn fold_mul(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

/// XXH64's final avalanche.
#[inline(always)]
const fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(P64_3);
    h ^ (h >> 32)
}

/// The seeded hash of an input of at most 8 bytes. The input becomes two words `a` and `b`:
/// 8 bytes, the input twice; 4 to 7 bytes, the first and the last 4 (overlapping); 1 to 3
/// bytes, the first, middle and last byte in `a` and 0; none, zeros. Then, with `n` the
/// input's length and `(lo, hi)` the two halves of a 128-bit product,
///
/// ```text
/// (lo, hi) = (a ^ K0 ^ seed) * (b ^ K1)
/// h        = fold_mul(lo ^ K2 ^ n, hi ^ K3)
/// ```
///
/// wyhash's shape (`_wymix` of both halves of a first `_wymum`, Wang Yi's wyhash): the
/// second product multiplies the two halves of the first, so the hash is not linear in any
/// word of the key, and keys with structure (sequential, strided) fill a filter as random
/// keys do. Inlined where the length is a constant (an integer key, in its canonical 8
/// bytes), it is one load and two multiplies.
#[inline(always)]
pub fn short_hash(bytes: &[u8], seed: u64) -> u64 {
    debug_assert!(bytes.len() <= SHORT_MAX);
    let len = bytes.len();
    let le32 = |at: usize| {
        let mut word = [0u8; 4];
        word.copy_from_slice(&bytes[at..at + 4]);
        u64::from(u32::from_le_bytes(word))
    };
    let (a, b) = match len {
        8.. => {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[..8]);
            let word = u64::from_le_bytes(word);
            (word, word)
        }
        4.. => (le32(0), le32(len - 4)),
        1.. => (
            u64::from(bytes[0]) << 16 | u64::from(bytes[len / 2]) << 8 | u64::from(bytes[len - 1]),
            0,
        ),
        0 => (0, 0),
    };
    let x = u128::from(a ^ SHORT_K[0] ^ seed) * u128::from(b ^ SHORT_K[1]);
    fold_mul(
        x as u64 ^ SHORT_K[2] ^ len as u64,
        (x >> 64) as u64 ^ SHORT_K[3],
    )
}

/// Seeded XXH3-64 of an input of 9 to 16 bytes, as XXH3 computes it (`XXH3_len_9to16_64b` of
/// `xxhash.h`, Cyan4973/xxHash 0.8, over the default secret):
///
/// ```text
/// lo = le64(B[..8]) ^ (S0 + seed), hi = le64(B[n-8..]) ^ (S1 - seed)
/// x  = n + bswap64(lo) + hi + fold_mul(lo, hi)
/// x  = (x ^ (x >> 37)) * 0x165667919E3779F9;  h = x ^ (x >> 32)
/// ```
///
/// The same digest as `xxhash_rust::xxh3::xxh3_64_with_seed` (tested on every such length
/// and many seeds), written out so that inlined it skips the library's length dispatch.
#[inline(always)]
pub fn xxh3_64_9to16(bytes: &[u8], seed: u64) -> u64 {
    debug_assert!((9..=16).contains(&bytes.len()));
    let len = bytes.len();
    let le64 = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let lo = le64(0) ^ SECRET_9_16[0].wrapping_add(seed);
    let hi = le64(len - 8) ^ SECRET_9_16[1].wrapping_sub(seed);
    let x = (len as u64)
        .wrapping_add(lo.swap_bytes())
        .wrapping_add(hi)
        .wrapping_add(fold_mul(lo, hi));
    let x = (x ^ (x >> 37)).wrapping_mul(XXH3_AVALANCHE);
    x ^ (x >> 32)
}

/// Seeded XXH64, the hash Apache Parquet's split-block filter specifies (with seed 0).
#[derive(Debug, Clone, Copy)]
pub struct Xxh64;

impl Digest for Xxh64 {
    type Output = u64;
    type Key = u64;
    type Stream = xxhash_rust::xxh64::Xxh64;
    /// Parquet's plain encoding writes an INT32 in 4 bytes and an INT64 in 8: the split-block
    /// filter hashes each integer at its own width.
    const CANONICAL_INTEGERS: bool = false;

    /// Inputs shorter than one 32-byte stripe (every integer, most short strings) take
    /// [`xxh64_short`]: inlined, it is a few multiplies for a length known at compile time.
    #[inline(always)]
    fn oneshot(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() < 32 {
            xxh64_short(bytes, seed)
        } else {
            xxhash_rust::xxh64::xxh64(bytes, seed)
        }
    }

    fn stream(seed: u64) -> Self::Stream {
        xxhash_rust::xxh64::Xxh64::new(seed)
    }

    fn update(stream: &mut Self::Stream, bytes: &[u8]) {
        stream.update(bytes);
    }

    fn digest(stream: &Self::Stream) -> u64 {
        stream.digest()
    }

    #[inline(always)]
    fn low64(output: u64) -> u64 {
        output
    }
}

/// XXH64's primes (the XXH64 specification, `doc/xxhash_spec.md` of Cyan4973/xxHash).
const P64_1: u64 = 0x9E37_79B1_85EB_CA87;
const P64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P64_3: u64 = 0x1656_67B1_9E37_79F9;
const P64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const P64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// XXH64 of an input shorter than 32 bytes, as the specification computes it for an input
/// without a full stripe: the seed plus the fifth prime plus the length, then each 8-byte
/// lane, a 4-byte lane and each last byte mixed in, then the final avalanche. The same
/// digest as `xxhash_rust::xxh64::xxh64` (tested on every length below 32), written out so
/// that inlined at a call whose length is a constant (an `i32` or `u64` value of a Parquet
/// column) it is straight-line code.
///
/// # Panics
///
/// Debug builds assert `bytes.len() < 32`; longer input needs the stripes this skips.
#[inline(always)]
pub fn xxh64_short(bytes: &[u8], seed: u64) -> u64 {
    debug_assert!(bytes.len() < 32);
    let mut acc = seed.wrapping_add(P64_5).wrapping_add(bytes.len() as u64);
    let mut rest = bytes;
    while let Some((lane, tail)) = rest.split_first_chunk::<8>() {
        let lane = u64::from_le_bytes(*lane).wrapping_mul(P64_2);
        acc ^= lane.rotate_left(31).wrapping_mul(P64_1);
        acc = acc.rotate_left(27).wrapping_mul(P64_1).wrapping_add(P64_4);
        rest = tail;
    }
    if let Some((lane, tail)) = rest.split_first_chunk::<4>() {
        acc ^= u64::from(u32::from_le_bytes(*lane)).wrapping_mul(P64_1);
        acc = acc.rotate_left(23).wrapping_mul(P64_2).wrapping_add(P64_3);
        rest = tail;
    }
    for &byte in rest {
        acc ^= u64::from(byte).wrapping_mul(P64_5);
        acc = acc.rotate_left(11).wrapping_mul(P64_1);
    }
    xxh64_avalanche(acc)
}

/// A [`Hasher`] that buffers the bytes a key writes and digests them with one call of the
/// hash function `D`.
///
/// Keys longer than an internal buffer (128 bytes) are streamed through the function's
/// incremental state instead; the digest is the same either way, because the streaming and
/// one-shot forms agree. With [`Seeded64`], integers that fit in 64 bits are written in the
/// canonical width (see the [module docs](self)); with [`Xxh64`], each at its own width,
/// little-endian, `usize` and `isize` as 64 bits.
pub struct BufferedHasher<D: Digest> {
    key: D::Key,
    len: usize,
    buf: [u8; INLINE_CAPACITY],
    stream: Option<Box<D::Stream>>,
}

impl<D: Digest> Clone for BufferedHasher<D> {
    fn clone(&self) -> Self {
        BufferedHasher {
            key: self.key,
            len: self.len,
            buf: self.buf,
            stream: self.stream.clone(),
        }
    }
}

impl<D: Digest> core::fmt::Debug for BufferedHasher<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The key is left out: a keyed hasher's key is a secret.
        f.debug_struct("BufferedHasher")
            .field("buffered", &self.len)
            .field("streaming", &self.stream.is_some())
            .finish()
    }
}

impl<D: Digest> BufferedHasher<D> {
    /// Creates an empty hasher with the given seed or key.
    #[inline]
    pub fn new(key: D::Key) -> Self {
        BufferedHasher {
            key,
            len: 0,
            buf: [0; INLINE_CAPACITY],
            stream: None,
        }
    }

    /// The digest of everything written so far.
    // Inlined into each key type's hashing so the length (known at compile time for
    // integer keys) selects the hash function's short-input path statically.
    #[inline(always)]
    pub fn digest(&self) -> D::Output {
        match &self.stream {
            None => D::oneshot(&self.buf[..self.len], self.key),
            Some(stream) => {
                let mut stream = stream.clone();
                D::update(&mut stream, &self.buf[..self.len]);
                D::digest(&stream)
            }
        }
    }

    /// Every byte written since the last reset, when they all fit the inline buffer (none
    /// went to the streaming state): what the SIMD lanes hash a group of keys at a time from.
    #[inline(always)]
    pub(crate) fn inline_bytes(&self) -> Option<&[u8]> {
        match self.stream {
            None => Some(&self.buf[..self.len]),
            Some(_) => None,
        }
    }

    /// Empties the hasher for the next key, keeping its seed or key.
    #[inline(always)]
    pub(crate) fn reset(&mut self) {
        self.len = 0;
        self.stream = None;
    }

    #[cold]
    fn spill(&mut self, bytes: &[u8]) {
        let key = self.key;
        let stream = self.stream.get_or_insert_with(|| Box::new(D::stream(key)));
        D::update(stream, &self.buf[..self.len]);
        self.len = 0;
        if bytes.len() <= INLINE_CAPACITY {
            self.buf[..bytes.len()].copy_from_slice(bytes);
            self.len = bytes.len();
        } else {
            D::update(stream, bytes);
        }
    }
}

/// The integer methods of a [`Hasher`] written once: each passes its integer to the type's
/// `integer(value, native)`, `value` zero- or sign-extended to 64 bits (the canonical width)
/// and `native` its own little-endian bytes (`usize` and `isize` as 64 bits, so every
/// platform writes the same bytes). A 128-bit integer outside the 64-bit range is written
/// as its 16 bytes.
macro_rules! integer_writes {
    () => {
        integer_writes!(
            write_u8(u8 as u8, u64), write_u16(u16 as u16, u64), write_u32(u32 as u32, u64),
            write_u64(u64 as u64, u64), write_usize(usize as u64, u64),
            write_i8(i8 as i8, i64), write_i16(i16 as i16, i64), write_i32(i32 as i32, i64),
            write_i64(i64 as i64, i64), write_isize(isize as i64, i64)
        );
        integer_writes!(@wide write_u128(u128, u64), write_i128(i128, i64));
    };
    ($($method:ident($int:ty as $native:ty, $extended:ty)),*) => {$(
        #[inline(always)]
        fn $method(&mut self, i: $int) {
            self.integer(i as $native as $extended as u64, &(i as $native).to_le_bytes());
        }
    )*};
    (@wide $($method:ident($int:ty, $small:ty)),*) => {$(
        #[inline(always)]
        fn $method(&mut self, i: $int) {
            match <$small>::try_from(i) {
                Ok(small) => self.integer(small as u64, &i.to_le_bytes()),
                Err(_) => self.write(&i.to_le_bytes()),
            }
        }
    )*};
}
pub(crate) use integer_writes;

impl<D: Digest> BufferedHasher<D> {
    /// Writes an integer: in the canonical width (`value`, as 8 little-endian bytes) when
    /// the digest asks for it, else its own little-endian bytes `native`.
    #[inline(always)]
    pub(crate) fn integer(&mut self, value: u64, native: &[u8]) {
        if D::CANONICAL_INTEGERS {
            self.write(&value.to_le_bytes());
        } else {
            self.write(native);
        }
    }
}

impl<D: Digest> Hasher for BufferedHasher<D> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if end <= INLINE_CAPACITY {
            self.buf[self.len..end].copy_from_slice(bytes);
            self.len = end;
        } else {
            self.spill(bytes);
        }
    }

    integer_writes!();

    /// The low 64 bits of the digest.
    #[inline]
    fn finish(&self) -> u64 {
        D::low64(self.digest())
    }
}

/// Catches the one 8-byte word a key writes, as a [`BufferedHasher`] with canonical integers
/// would hold it: any integer key that fits in 64 bits, or a key whose one write is 8 bytes.
/// A key that writes anything else (two writes, another length) has no word, and its
/// caller takes the buffered path. What SIMD lanes gather a group of keys through, at the
/// cost of a register move per integer key where a buffered hasher stores and reloads its
/// bytes.
#[derive(Debug, Default)]
pub(crate) struct WordOf {
    word: Option<u64>,
    len: usize,
}

impl WordOf {
    /// The word `key` writes, if it writes exactly one 8-byte word.
    #[inline(always)]
    pub(crate) fn of<T: core::hash::Hash + ?Sized>(key: &T) -> Option<u64> {
        let mut catcher = WordOf::default();
        key.hash(&mut catcher);
        catcher.word.filter(|_| catcher.len == 8)
    }

    /// A word written (an integer's canonical value): kept when it is the first write.
    #[inline(always)]
    fn integer(&mut self, word: u64, _native: &[u8]) {
        self.word = (self.len == 0).then_some(word);
        self.len += 8;
    }
}

impl Hasher for WordOf {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        match <[u8; 8]>::try_from(bytes) {
            Ok(word) => self.integer(u64::from_le_bytes(word), bytes),
            Err(_) if bytes.is_empty() => {}
            Err(_) => {
                self.word = None;
                self.len += bytes.len();
            }
        }
    }

    integer_writes!();

    /// The word caught so far (0 when none): a catcher is read through [`WordOf::of`].
    fn finish(&self) -> u64 {
        self.word.unwrap_or(0)
    }
}

/// The SplitMix64 output function: a bijection on `u64` (each step is invertible: a
/// xor-shift, or a multiplication by an odd constant), whose output bits each depend on every
/// input bit.
///
/// # Examples
///
/// ```
/// use bloom_core::keys::mix;
///
/// assert_eq!(mix(0), 0);
/// assert_ne!(mix(1), mix(2));
/// ```
#[inline]
pub const fn mix(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word `WordOf` catches is the 8 bytes a buffered hasher holds for the key; every
    /// integer of at most 64 bits (and a `u128` or `i128` of that size) is caught; keys that
    /// write other lengths or more than one piece are not.
    #[test]
    fn caught_words_are_the_buffered_bytes() {
        fn buffered<T: core::hash::Hash + ?Sized>(key: &T) -> alloc::vec::Vec<u8> {
            let mut hasher = BufferedHasher::<Seeded64>::new(0);
            key.hash(&mut hasher);
            hasher
                .inline_bytes()
                .expect("short keys stay inline")
                .to_vec()
        }
        fn caught<T: core::hash::Hash + ?Sized>(key: &T) -> Option<[u8; 8]> {
            WordOf::of(key).map(u64::to_le_bytes)
        }
        fn check<T: core::hash::Hash + ?Sized>(key: &T) {
            assert_eq!(caught(key).expect("caught").to_vec(), buffered(key));
        }
        check(&-3i8);
        check(&40_000u16);
        check(&-70_000i32);
        check(&u32::MAX);
        check(&u64::MAX);
        check(&-1i64);
        check(&7usize);
        check(&-7isize);
        check(&(1u128 << 63));
        check(&i128::from(i64::MIN));
        check(&[0u8; 8][..0]);
        check(&(((), 5u8),));
        assert_eq!(caught(&(1u128 << 64)), None);
        assert_eq!(caught(&(i128::from(i64::MIN) - 1)), None);
        assert_eq!(caught(&(1u32, 2u32)), None);
        assert_eq!(caught("8 bytes"), None);
        assert_eq!(caught(&[1u8, 2, 3, 4][..]), None);
    }

    /// Any sequence of writes: when `WordOf` catches a word, a buffered hasher holds exactly
    /// those 8 bytes; and a single integer write of at most 64 bits is always caught.
    #[test]
    fn caught_words_agree_with_the_buffer_on_any_writes() {
        use proptest::prelude::*;
        /// One `Hasher` call.
        #[derive(Debug, Clone)]
        enum Write {
            U8(u8),
            U32(u32),
            I16(i16),
            U64(u64),
            U128(u128),
            I128(i128),
            Bytes(alloc::vec::Vec<u8>),
        }
        fn apply(writes: &[Write], hasher: &mut impl Hasher) {
            for w in writes {
                match w {
                    Write::U8(v) => hasher.write_u8(*v),
                    Write::U32(v) => hasher.write_u32(*v),
                    Write::I16(v) => hasher.write_i16(*v),
                    Write::U64(v) => hasher.write_u64(*v),
                    Write::U128(v) => hasher.write_u128(*v),
                    Write::I128(v) => hasher.write_i128(*v),
                    Write::Bytes(b) => hasher.write(b),
                }
            }
        }
        let write = prop_oneof![
            any::<u8>().prop_map(Write::U8),
            any::<u32>().prop_map(Write::U32),
            any::<i16>().prop_map(Write::I16),
            any::<u64>().prop_map(Write::U64),
            prop_oneof![any::<u64>().prop_map(u128::from), any::<u128>()].prop_map(Write::U128),
            prop_oneof![any::<i64>().prop_map(i128::from), any::<i128>()].prop_map(Write::I128),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Write::Bytes),
        ];
        proptest!(|(writes in proptest::collection::vec(write, 0..4))| {
            let mut catcher = WordOf::default();
            apply(&writes, &mut catcher);
            let caught = catcher.word.filter(|_| catcher.len == 8);
            let mut buffered = BufferedHasher::<Seeded64>::new(0);
            apply(&writes, &mut buffered);
            let bytes = buffered.inline_bytes().expect("inline").to_vec();
            if let Some(word) = caught {
                prop_assert_eq!(word.to_le_bytes().to_vec(), bytes);
            }
            if let [Write::U8(_) | Write::U32(_) | Write::I16(_) | Write::U64(_)] = writes[..] {
                prop_assert!(caught.is_some());
            }
        });
    }

    #[test]
    fn xxh3_of_9_to_16_bytes_is_xxh3() {
        let mut state = 1u64;
        for _ in 0..20_000 {
            state = mix(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            let len = 9 + (state % 8) as usize;
            let input: alloc::vec::Vec<u8> =
                (0..len as u64).map(|i| mix(state ^ i) as u8).collect();
            for seed in [0, u64::MAX, mix(state ^ 0x5555)] {
                assert_eq!(
                    xxh3_64_9to16(&input, seed),
                    xxh3_64_with_seed(&input, seed),
                    "{input:?}, seed {seed:#x}"
                );
            }
        }
    }

    #[test]
    fn short_xxh64_is_xxh64() {
        let bytes: alloc::vec::Vec<u8> = (0..64u64).map(|i| mix(i + 1) as u8).collect();
        for len in 0..32 {
            for seed in [0, 1, mix(len as u64)] {
                assert_eq!(
                    xxh64_short(&bytes[..len], seed),
                    xxhash_rust::xxh64::xxh64(&bytes[..len], seed),
                    "length {len}, seed {seed:#x}"
                );
            }
        }
        for len in 0..64 {
            assert_eq!(
                Xxh64::oneshot(&bytes[..len], 5),
                xxhash_rust::xxh64::xxh64(&bytes[..len], 5)
            );
        }
    }
}
