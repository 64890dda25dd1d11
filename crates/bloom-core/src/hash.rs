//! Key hashing and probe positions.
//!
//! Every operation hashes its key exactly once: [`hash_key`] feeds whatever
//! [`Hash`] writes into a [`KeyHasher`], which buffers the bytes and finishes
//! with a single seeded XXH3-128 call. The two 64-bit halves of that digest are all a filter
//! needs: the k bit positions derive from them by enhanced double hashing, each reduced to the
//! filter's range with Lemire's multiply-shift (no `%`, no modulo bias, no 32-bit ceiling).
//! `docs/design.md` describes the probe sequence; it is part of the binary format.
//!
//! # Integer keys: one canonical width
//!
//! [`KeyHasher`] writes every integer whose value fits in 64 bits as that value in 8
//! little-endian bytes: unsigned types zero-extended, signed types sign-extended. So `5u8`,
//! `5i32`, `5u64`, `5usize` and `5u128` are one key, and a filter filled with `u64` keys
//! answers a query written with an untyped literal (`contains(&5)`, an `i32`) correctly,
//! where hashing each type at its own width would silently answer "absent". `u128`/`i128`
//! values beyond 64 bits are written in 16 bytes. The same key hashes to the same digest (and
//! the same positions) on every platform, whatever its endianness or pointer width; golden
//! values in the tests pin this down. `docs/design.md` gives the reasons for this choice over
//! a filter typed by its key.
//!
//! What this cannot reach, because `Hash` never shows the hasher an integer there:
//!
//! * slices, arrays and `Vec`s of integers other than bytes hash their elements' raw memory
//!   in one write (the standard library's `hash_slice`), so `[5u32]` and `[5u64]` differ
//!   (and, for those, so do little- and big-endian machines);
//! * `&str` and `&[u8]` of the same bytes differ (`str` appends a terminator, a slice
//!   prefixes its length), and so do `String` and `Vec<u8>`;
//! * a negative value and the unsigned value of the same 64-bit pattern (`-1i32` and
//!   `u64::MAX`) are one key: a possible false positive between them, never a false
//!   negative.
//!
//! # Seeds
//!
//! Filters built with the same seed can be merged and compared, across processes and
//! machines. [`DEFAULT_SEED`] is the seed every constructor uses unless told otherwise; it is
//! public and fixed, which is right when the keys are not chosen by an adversary. When keys
//! come from untrusted input (URLs, user names), an attacker who knows the seed can craft keys
//! that all land on the same bits and drive the false-positive rate up; give such filters a
//! secret seed (for example [`random_seed`]) and keep it with the filter, or, better, a
//! secret key ([`Hashing::Keyed`]): SipHash-1-3 under a 128-bit [`SecretKey`], a keyed
//! pseudo-random function whose key never reaches the filter's bytes (`docs/security.md`).

use alloc::{boxed::Box, vec::Vec};
use core::hash::{BuildHasher, Hash, Hasher};

use xxhash_rust::xxh3::{Xxh3, xxh3_128_with_seed};

/// The seed every filter uses unless given another: the 64-bit golden-ratio constant
/// `0x9E37_79B9_7F4A_7C15`. Fixed forever, so filters built anywhere can be merged.
pub const DEFAULT_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Bytes a [`BufferedHasher`] keeps on the stack before it switches to streaming. Keys up to
/// this size (as `Hash` writes them) cost one one-shot call of the hash function.
const INLINE_CAPACITY: usize = 128;

/// A hash function that [`BufferedHasher`] finishes with: a one-shot form for the buffered
/// bytes and an incremental form for longer input, which give the same digest.
#[doc(hidden)]
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
    /// value (see [`KeyHasher`]), or each type at its own width (as Parquet's plain
    /// encoding does).
    const CANONICAL_INTEGERS: bool;
}

/// Seeded XXH3-128, the project's key hash ([`KeyHasher`]).
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Xxh3_128;

impl Digest for Xxh3_128 {
    type Output = u128;
    type Key = u64;
    type Stream = Xxh3;
    const CANONICAL_INTEGERS: bool = true;

    #[inline(always)]
    fn oneshot(bytes: &[u8], seed: u64) -> u128 {
        xxh3_128_with_seed(bytes, seed)
    }

    fn stream(seed: u64) -> Xxh3 {
        Xxh3::with_seed(seed)
    }

    fn update(stream: &mut Xxh3, bytes: &[u8]) {
        stream.update(bytes);
    }

    fn digest(stream: &Xxh3) -> u128 {
        stream.digest128()
    }

    #[inline(always)]
    fn low64(output: u128) -> u64 {
        output as u64
    }
}

/// Seeded XXH64, the hash Apache Parquet's split-block filter specifies (with seed 0).
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Xxh64;

impl Digest for Xxh64 {
    type Output = u64;
    type Key = u64;
    type Stream = xxhash_rust::xxh64::Xxh64;
    /// Parquet's plain encoding writes an INT32 in 4 bytes and an INT64 in 8: the split-block
    /// filter hashes each integer at its own width.
    const CANONICAL_INTEGERS: bool = false;

    #[inline(always)]
    fn oneshot(bytes: &[u8], seed: u64) -> u64 {
        xxhash_rust::xxh64::xxh64(bytes, seed)
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

/// A [`Hasher`] that buffers the bytes a key writes and digests them with one call of the
/// hash function `D`.
///
/// Keys longer than an internal buffer (128 bytes) are streamed through the function's
/// incremental state instead; the digest is the same either way, because the streaming and
/// one-shot forms agree. With [`Xxh3_128`], integers that fit in 64 bits are written in the
/// canonical width (see the [module docs](self)); with [`Xxh64`], each at its own width,
/// little-endian, `usize` and `isize` as 64 bits.
#[doc(hidden)]
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

impl<D: Digest> BufferedHasher<D> {
    /// Writes an integer narrower than 64 bits: in the canonical width (`value`, the integer
    /// zero- or sign-extended to 64 bits, as 8 little-endian bytes) when the digest asks for
    /// it, else its own little-endian bytes `native`.
    #[inline(always)]
    fn write_narrow(&mut self, value: u64, native: &[u8]) {
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

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_narrow(u64::from(i), &[i]);
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_narrow(u64::from(i), &i.to_le_bytes());
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_narrow(u64::from(i), &i.to_le_bytes());
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        match u64::try_from(i) {
            Ok(small) if D::CANONICAL_INTEGERS => self.write_u64(small),
            _ => self.write(&i.to_le_bytes()),
        }
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }

    #[inline]
    fn write_i8(&mut self, i: i8) {
        self.write_narrow(i64::from(i) as u64, &i.to_le_bytes());
    }

    #[inline]
    fn write_i16(&mut self, i: i16) {
        self.write_narrow(i64::from(i) as u64, &i.to_le_bytes());
    }

    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.write_narrow(i64::from(i) as u64, &i.to_le_bytes());
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write(&i.to_le_bytes());
    }

    #[inline]
    fn write_i128(&mut self, i: i128) {
        match i64::try_from(i) {
            Ok(small) if D::CANONICAL_INTEGERS => self.write_i64(small),
            _ => self.write(&i.to_le_bytes()),
        }
    }

    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.write(&(i as i64).to_le_bytes());
    }

    /// The low 64 bits of the digest.
    #[inline]
    fn finish(&self) -> u64 {
        D::low64(self.digest())
    }
}

/// The project's key hasher: it buffers the bytes a key's [`Hash`] writes and digests them
/// with one call of seeded XXH3-128, the digest [`hash_key`] returns.
///
/// Integers that fit in 64 bits are written in one canonical width, so `5u8`, `5i32` and
/// `5u64` are one key (see the [module docs](self)). Keys longer than an internal buffer of
/// 128 bytes are streamed; the digest is the same either way. Most callers want
/// [`hash_key`]; this type is for APIs that take a [`Hasher`] (`Default` gives
/// [`DEFAULT_SEED`]) and, through [`BuildKeyHasher`], a [`BuildHasher`].
///
/// # Examples
///
/// ```
/// use std::hash::{Hash, Hasher};
/// use bloom_core::hash::{KeyHasher, hash_key, DEFAULT_SEED};
///
/// let mut hasher = KeyHasher::new(DEFAULT_SEED);
/// "hello".hash(&mut hasher);
/// assert_eq!(hasher.finish128(), hash_key("hello", DEFAULT_SEED));
/// assert_eq!(hasher.finish(), hash_key("hello", DEFAULT_SEED) as u64);
/// ```
#[derive(Clone, Debug)]
pub struct KeyHasher(BufferedHasher<Xxh3_128>);

impl KeyHasher {
    /// An empty hasher with the given seed.
    #[inline]
    pub fn new(seed: u64) -> Self {
        KeyHasher(BufferedHasher::new(seed))
    }

    /// The full 128-bit digest of everything written so far.
    #[inline(always)]
    pub fn finish128(&self) -> u128 {
        self.0.digest()
    }
}

/// A hasher with [`DEFAULT_SEED`], for APIs that build their hasher with `Default` (as
/// [`BuildKeyHasher::default`] does through `BuildHasher`).
impl Default for KeyHasher {
    #[inline]
    fn default() -> Self {
        KeyHasher::new(DEFAULT_SEED)
    }
}

/// Every method forwards, so the integer writes keep their canonical width.
impl Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i);
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.0.write_u16(i);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.0.write_u128(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0.write_usize(i);
    }

    #[inline]
    fn write_i8(&mut self, i: i8) {
        self.0.write_i8(i);
    }

    #[inline]
    fn write_i16(&mut self, i: i16) {
        self.0.write_i16(i);
    }

    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.0.write_i32(i);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.0.write_i64(i);
    }

    #[inline]
    fn write_i128(&mut self, i: i128) {
        self.0.write_i128(i);
    }

    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.0.write_isize(i);
    }

    /// The low 64 bits of [`finish128`](KeyHasher::finish128).
    #[inline]
    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// A [`BuildHasher`] for [`KeyHasher`] with a fixed seed, so the project's hashing can be used
/// in a `HashMap` or handed to other crates that take a `BuildHasher`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildKeyHasher {
    /// The seed every hasher built starts from.
    pub seed: u64,
}

impl Default for BuildKeyHasher {
    fn default() -> Self {
        BuildKeyHasher { seed: DEFAULT_SEED }
    }
}

impl BuildHasher for BuildKeyHasher {
    type Hasher = KeyHasher;

    #[inline]
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher::new(self.seed)
    }
}

/// Hashes a key to the 128-bit digest every filter of the workspace derives its positions
/// from: seeded XXH3-128 over the bytes `key.hash()` writes.
///
/// The same key and seed give the same digest on every platform.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{hash_key, DEFAULT_SEED};
///
/// let a = hash_key(&42u64, DEFAULT_SEED);
/// assert_eq!(a, hash_key(&42u64, DEFAULT_SEED));
/// assert_ne!(a, hash_key(&42u64, 7));
/// ```
#[inline]
pub fn hash_key<T: Hash + ?Sized>(key: &T, seed: u64) -> u128 {
    let mut hasher = BufferedHasher::<Xxh3_128>::new(seed);
    key.hash(&mut hasher);
    hasher.digest()
}

/// Hashes raw bytes with seeded XXH3-128 (no `Hash` framing: `hash_bytes(b"ab", s)` differs
/// from `hash_key("ab", s)`, because `str`'s `Hash` appends a `0xff` terminator).
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{hash_bytes, hash_key, DEFAULT_SEED};
///
/// // A u64 key hashes as its 8 little-endian bytes.
/// assert_eq!(hash_key(&7u64, DEFAULT_SEED), hash_bytes(&7u64.to_le_bytes(), DEFAULT_SEED));
/// ```
#[inline]
pub fn hash_bytes(bytes: &[u8], seed: u64) -> u128 {
    xxh3_128_with_seed(bytes, seed)
}

/// A seed drawn from the operating system's randomness (through the standard library's
/// `RandomState`), for filters whose keys an adversary may choose. Keep the seed with the
/// filter: it is stored in [`to_bytes`](crate::format) output, and a filter can only be merged
/// with filters of the same seed. Only with the `std` feature.
#[cfg(feature = "std")]
pub fn random_seed() -> u64 {
    let state = std::collections::hash_map::RandomState::new();
    let mut hasher = state.build_hasher();
    hasher.write_u64(DEFAULT_SEED);
    hasher.finish()
}

/// A 128-bit secret key for keyed hashing ([`Hashing::Keyed`]): SipHash-1-3, a keyed
/// pseudo-random function, replaces seeded XXH3, so positions cannot be predicted, or keys
/// crafted to collide, without the key.
///
/// The key never appears in a filter's bytes, nor in this type's `Debug` output; a filter
/// stores only its [`fingerprint`](SecretKey::fingerprint), which identifies the key without
/// revealing it. Two keys compare in constant time.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::SecretKey;
///
/// let key = SecretKey::from_bytes(*b"0123456789abcdef");
/// assert_eq!(key.to_bytes(), *b"0123456789abcdef");
/// assert_ne!(SecretKey::random(), SecretKey::random());
/// assert!(!format!("{key:?}").contains("0123"));
/// ```
#[derive(Clone, Copy)]
pub struct SecretKey([u64; 2]);

/// What [`SecretKey::fingerprint`] authenticates: the key's fingerprint is the SipHash-2-4 of
/// these bytes under the key (a different function from the keys' SipHash-1-3).
const FINGERPRINT_MESSAGE: &[u8] = b"bloom-family key fingerprint v1";

impl SecretKey {
    /// The key whose 16 bytes are `bytes` (two little-endian 64-bit words, as SipHash reads
    /// its key).
    pub const fn from_bytes(bytes: [u8; 16]) -> SecretKey {
        let mut low = [0u8; 8];
        let mut high = [0u8; 8];
        let mut i = 0;
        while i < 8 {
            low[i] = bytes[i];
            high[i] = bytes[i + 8];
            i += 1;
        }
        SecretKey([u64::from_le_bytes(low), u64::from_le_bytes(high)])
    }

    /// A key drawn from the operating system's randomness, through the standard library's
    /// `RandomState` (whose keys the OS provides): two 64-bit outputs of SipHash under a
    /// fresh random key. Only with the `std` feature.
    #[cfg(feature = "std")]
    pub fn random() -> SecretKey {
        let state = std::collections::hash_map::RandomState::new();
        let draw = |word: u64| {
            let mut hasher = state.build_hasher();
            hasher.write_u64(word);
            hasher.finish()
        };
        SecretKey([draw(0), draw(1)])
    }

    /// The key's 16 bytes, to keep it (in a secret store, never beside the filter).
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.0[0].to_le_bytes());
        bytes[8..].copy_from_slice(&self.0[1].to_le_bytes());
        bytes
    }

    /// A 64-bit identifier of the key, stored in a keyed filter's bytes in place of the seed:
    /// a MAC (SipHash-2-4 under the key) of a fixed message. It tells a loader whether it was
    /// given the right key; finding the key from it is as hard as breaking SipHash.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::hash::SecretKey;
    ///
    /// let a = SecretKey::from_bytes([1; 16]);
    /// assert_eq!(a.fingerprint(), SecretKey::from_bytes([1; 16]).fingerprint());
    /// assert_ne!(a.fingerprint(), SecretKey::from_bytes([2; 16]).fingerprint());
    /// ```
    pub fn fingerprint(&self) -> u64 {
        crate::siphash::sip::<2, 4>(FINGERPRINT_MESSAGE, self.0)
    }
}

/// Keys are compared in constant time: the comparison does not stop at the first differing
/// bit.
impl PartialEq for SecretKey {
    fn eq(&self, other: &SecretKey) -> bool {
        let diff = (self.0[0] ^ other.0[0]) | (self.0[1] ^ other.0[1]);
        core::hint::black_box(diff) == 0
    }
}

impl Eq for SecretKey {}

/// Shows the fingerprint, never the key.
impl core::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SecretKey(fingerprint {:#018x})", self.fingerprint())
    }
}

impl From<[u8; 16]> for SecretKey {
    fn from(bytes: [u8; 16]) -> SecretKey {
        SecretKey::from_bytes(bytes)
    }
}

/// How a filter hashes its keys: the two schemes every general-purpose variant can use.
///
/// * [`Seeded`](Hashing::Seeded): XXH3-128 with a 64-bit seed ([`hash_key`]), the default
///   ([`DEFAULT_SEED`]). Fast, identical everywhere, and the seed is stored in the filter's
///   bytes: right when keys are not chosen by an adversary, or the bytes stay private.
/// * [`Keyed`](Hashing::Keyed): SipHash-1-3 under a 128-bit [`SecretKey`], a keyed
///   pseudo-random function: without the key, nobody can tell which bits a key sets, so
///   keys cannot be crafted to answer "maybe" or to pile into a few blocks, even by someone
///   who reads the filter's bytes (they hold only the key's fingerprint). `docs/security.md`
///   weighs the two.
///
/// Either way one call hashes a key to the two 64-bit halves positions derive from. SipHash
/// gives 64 bits; the keyed scheme's second half is a fixed bijective mix of the first (the
/// SplitMix64 finaliser), so the pair is as unpredictable as the SipHash output itself.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{DEFAULT_SEED, Hashing, SecretKey, hash_key};
///
/// assert_eq!(Hashing::default(), Hashing::Seeded(DEFAULT_SEED));
/// assert_eq!(Hashing::default().hash("a"), hash_key("a", DEFAULT_SEED));
///
/// let keyed = Hashing::Keyed(SecretKey::from_bytes([7; 16]));
/// assert_ne!(keyed.hash("a"), Hashing::Keyed(SecretKey::from_bytes([8; 16])).hash("a"));
/// assert_eq!(keyed.hash("a") as u64, keyed.hash64("a"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Hashing {
    /// Seeded XXH3-128 ([`hash_key`]).
    Seeded(u64),
    /// SipHash-1-3 under a secret key.
    Keyed(SecretKey),
}

impl Default for Hashing {
    fn default() -> Hashing {
        Hashing::Seeded(DEFAULT_SEED)
    }
}

/// A seed is the seeded scheme with that seed.
impl From<u64> for Hashing {
    fn from(seed: u64) -> Hashing {
        Hashing::Seeded(seed)
    }
}

/// XORed into a keyed digest before the mix that gives its second half, so a digest of 0 does
/// not give a second half of 0 (the mix's fixed point).
const KEYED_HIGH_SALT: u64 = 0xD1B5_4A32_D192_ED03;

impl Hashing {
    /// The 128-bit digest of `key`, whose two halves a filter derives its positions from.
    #[inline(always)]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        match *self {
            Hashing::Seeded(seed) => hash_key(key, seed),
            Hashing::Keyed(secret) => {
                let low = keyed_hash(key, &secret);
                (u128::from(crate::keys::mix(low ^ KEYED_HIGH_SALT)) << 64) | u128::from(low)
            }
        }
    }

    /// The low 64 bits of [`hash`](Hashing::hash), for filters that need only one hash value
    /// (the blocked filters); the keyed scheme skips the second half's mix.
    #[inline(always)]
    pub fn hash64<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        match *self {
            Hashing::Seeded(seed) => hash_key(key, seed) as u64,
            Hashing::Keyed(secret) => keyed_hash(key, &secret),
        }
    }

    /// [`hash64`](Hashing::hash64) of every key of `keys`, in order, into `out` (cleared
    /// first). The keyed scheme hashes keys eight at a time in SIMD lanes (AVX-512 or AVX2
    /// where the CPU has them) when the eight write the same number of bytes, up to 128 (any
    /// eight integer keys, for example): the batch queries of keyed filters pay far less for
    /// SipHash than one key at a time.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::hash::{Hashing, SecretKey};
    ///
    /// let keyed = Hashing::Keyed(SecretKey::from_bytes([3; 16]));
    /// let keys: Vec<u64> = (0..100).collect();
    /// let mut hashes = Vec::new();
    /// keyed.hash64_batch(&keys, &mut hashes);
    /// assert!(keys.iter().zip(&hashes).all(|(k, &h)| h == keyed.hash64(k)));
    /// ```
    pub fn hash64_batch<T: Hash>(&self, keys: &[T], out: &mut Vec<u64>) {
        out.clear();
        out.reserve(keys.len());
        let secret = match *self {
            Hashing::Seeded(seed) => {
                out.extend(keys.iter().map(|k| hash_key(k, seed) as u64));
                return;
            }
            Hashing::Keyed(secret) => secret,
        };
        use crate::siphash::{LANES, Sip13, sip13_lanes, sip13_lanes_word};
        let mut hashers: [BufferedHasher<Sip13>; LANES] =
            core::array::from_fn(|_| BufferedHasher::new(secret.0));
        let mut groups = keys.chunks_exact(LANES);
        for group in &mut groups {
            for (hasher, key) in hashers.iter_mut().zip(group) {
                hasher.reset();
                key.hash(hasher);
            }
            let len = hashers[0].len;
            let uniform = hashers.iter().all(|h| h.stream.is_none() && h.len == len);
            if uniform && len == 8 {
                let words: [u64; LANES] = core::array::from_fn(|l| {
                    u64::from_le_bytes(hashers[l].buf[..8].try_into().expect("8 bytes"))
                });
                out.extend(sip13_lanes_word(words, secret.0));
            } else if uniform {
                let messages: [&[u8]; LANES] = core::array::from_fn(|l| &hashers[l].buf[..len]);
                out.extend(sip13_lanes(&messages, len, secret.0));
            } else {
                out.extend(hashers.iter().map(BufferedHasher::digest));
            }
        }
        out.extend(groups.remainder().iter().map(|k| keyed_hash(k, &secret)));
    }

    /// The seed, for the seeded scheme.
    pub fn seed(&self) -> Option<u64> {
        match *self {
            Hashing::Seeded(seed) => Some(seed),
            Hashing::Keyed(_) => None,
        }
    }

    /// The secret key, for a keyed hashing: what a filter's bytes must be read with again
    /// (a view's `to_owned` passes it to the owning type's decoder).
    #[doc(hidden)]
    pub fn secret_key(&self) -> Option<&SecretKey> {
        match self {
            Hashing::Seeded(_) => None,
            Hashing::Keyed(key) => Some(key),
        }
    }

    /// Whether keys are hashed under a secret key.
    pub fn is_keyed(&self) -> bool {
        matches!(self, Hashing::Keyed(_))
    }

    /// The format's tag for this scheme.
    pub fn scheme(&self) -> crate::format::HashScheme {
        match self {
            Hashing::Seeded(_) => crate::format::HashScheme::Xxh3_128,
            Hashing::Keyed(_) => crate::format::HashScheme::SipHash13Keyed,
        }
    }

    /// The header's 64-bit hashing field: the seed, or the key's fingerprint.
    #[doc(hidden)]
    pub fn header_word(&self) -> u64 {
        match self {
            Hashing::Seeded(seed) => *seed,
            Hashing::Keyed(secret) => secret.fingerprint(),
        }
    }

    /// The hashing of a filter whose header gives `scheme` and the field `word`, loaded with
    /// `key` (or none).
    ///
    /// # Errors
    ///
    /// [`Error::KeyRequired`](crate::Error::KeyRequired) for a keyed filter loaded without a
    /// key; [`Error::WrongKey`](crate::Error::WrongKey) when the key's fingerprint is not
    /// the one stored; [`Error::NotKeyed`](crate::Error::NotKeyed) for a key given to a
    /// seeded filter; [`Error::UnsupportedHashScheme`](crate::Error::UnsupportedHashScheme)
    /// for another scheme.
    #[doc(hidden)]
    pub fn from_header(
        scheme: crate::format::HashScheme,
        word: u64,
        key: Option<&SecretKey>,
    ) -> Result<Hashing, crate::Error> {
        use crate::format::HashScheme;
        match (scheme, key) {
            (HashScheme::Xxh3_128, None) => Ok(Hashing::Seeded(word)),
            (HashScheme::Xxh3_128, Some(_)) => Err(crate::Error::NotKeyed),
            (HashScheme::SipHash13Keyed, None) => Err(crate::Error::KeyRequired),
            (HashScheme::SipHash13Keyed, Some(secret)) => {
                if secret.fingerprint() == word {
                    Ok(Hashing::Keyed(*secret))
                } else {
                    Err(crate::Error::WrongKey)
                }
            }
            (other, _) => Err(crate::Error::UnsupportedHashScheme { found: other as u8 }),
        }
    }

    /// `Ok` when two filters hash alike, so their bits can be combined.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`](crate::Error::Incompatible) naming `"seed"` (two seeds), `"key"`
    /// (two keys, by fingerprint) or `"hash scheme"` (one seeded, one keyed, by scheme tag).
    #[doc(hidden)]
    pub fn check_same(&self, other: &Hashing) -> Result<(), crate::Error> {
        match (self, other) {
            (Hashing::Seeded(a), Hashing::Seeded(b)) => crate::Error::check_same("seed", *a, *b),
            (Hashing::Keyed(a), Hashing::Keyed(b)) if a == b => Ok(()),
            (Hashing::Keyed(a), Hashing::Keyed(b)) => {
                crate::Error::check_same("key", a.fingerprint(), b.fingerprint())
            }
            _ => {
                crate::Error::check_same("hash scheme", self.scheme() as u64, other.scheme() as u64)
            }
        }
    }
}

/// SipHash-1-3 of the bytes `key.hash()` writes (integers in the canonical width, as
/// [`hash_key`]), under `secret`.
#[inline(always)]
fn keyed_hash<T: Hash + ?Sized>(key: &T, secret: &SecretKey) -> u64 {
    let mut hasher = BufferedHasher::<crate::siphash::Sip13>::new(secret.0);
    key.hash(&mut hasher);
    hasher.digest()
}

/// Maps a uniformly distributed 64-bit value to `[0, n)` without division and without modulo
/// bias beyond `n / 2^64`: the high 64 bits of the 128-bit product `x * n` (Lemire, "Fast
/// random integer generation in an interval", ACM TOMACS 2019). Correct for every `n` up to
/// `u64::MAX`, so filters beyond 2^32 bits are addressed in full.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::reduce;
///
/// assert_eq!(reduce(0, 1000), 0);
/// assert_eq!(reduce(u64::MAX, 1000), 999);
/// assert_eq!(reduce(1 << 63, 1 << 40), 1 << 39);
/// ```
#[inline(always)]
#[doc(hidden)]
pub const fn reduce(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// The low half of a digest: the first of the two hash values positions derive from.
#[inline(always)]
#[doc(hidden)]
pub const fn low_half(hash: u128) -> u64 {
    hash as u64
}

/// The high half of a digest: the second of the two hash values positions derive from.
#[inline(always)]
#[doc(hidden)]
pub const fn high_half(hash: u128) -> u64 {
    (hash >> 64) as u64
}

/// The constant that scales the cubic term of [`Probes`]: the 64-bit golden ratio (odd, with
/// well-spread bits).
const PROBE_SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// Positions per group that the two probes of a pair share: 512 bits, one 64-byte cache line
/// of a classic filter's bit array.
pub(crate) const PAIR_GROUP: u64 = 512;

/// The k probe positions of one key in `[0, m)`: pairs of probes that share a 512-position
/// group, the pairs spread by enhanced double hashing in the 64-bit domain.
///
/// With `a` and `b` the two halves of the digest, step j (j = 0, 1, ...) computes
///
/// ```text
/// x_j = a + j b + C (j^3 - j) / 6      (mod 2^64),  C = 0x9E37_79B9_7F4A_7C15
/// p_j = reduce(x_j, m)                                  probe 2j
/// s_j = p_j - p_j mod 512,  L_j = min(512, m - s_j)
/// q_j = s_j + ((x_j mod 2^32) L_j) >> 32                 probe 2j + 1
/// ```
///
/// and yields `p_0, q_0, p_1, q_1, ...` until k positions are out (an odd k ends with a lone
/// `p`). `p_j` comes from the high bits of `x_j` and `q_j`'s offset in the group from its low
/// 32 bits, which `p_j` does not depend on (for m up to 2^32; beyond, they share a few bits).
/// The partner must not come from the increment `y_j`: the next step's position is
/// `p_j` plus the high bits of `y_j`, and a partner tied to them makes a key's whole pattern
/// a function of two numbers, which measurably raised the false-positive rate of small
/// filters. Each `p_j` is uniform over `[0, m)` and each `q_j` uniform over `p_j`'s group, so
/// every probe, on its own, is uniform over the whole array, as in a textbook Bloom filter;
/// only the two probes of a pair are tied to one group, so a query reads about `k / 2`
/// cache lines instead of k. The correlation this adds costs little accuracy: measured
/// false-positive rates stay within 1.5% of the classic formula `(1 - e^{-kn/m})^k` (the
/// variance of a 512-bit group's fill is small; [`paired_fpr`](crate::math::paired_fpr)
/// gives the exact expectation, and `docs/design.md` the measurements).
///
/// The `x` sequence is the enhanced double hashing of Dillinger and Manolios ("Bloom Filters
/// in Probabilistic Verification", FMCAD 2004), whose cubic term keeps a key's steps apart
/// even when `b` is degenerate (plain double hashing `a + j b` repeats when `b` is near a
/// multiple of `2^64 / i` for small i). They work modulo m; here the sequence runs modulo
/// 2^64 and multiply-shift ([`reduce`]) reads its high bits, so the cubic term is scaled by
/// the odd constant C to reach those bits. A step is three additions and two
/// multiplications: no division, no data-dependent branch, a one-addition dependency chain
/// between steps, and no limit on m below 2^64.
///
/// The sequence is part of the binary format: changing it changes which bits a key owns.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{hash_key, DEFAULT_SEED};
/// use bloom_core::internal::Probes;
///
/// let positions: Vec<u64> = Probes::new(hash_key("key", DEFAULT_SEED), 7, 100_000).collect();
/// assert_eq!(positions.len(), 7);
/// assert!(positions.iter().all(|&p| p < 100_000));
/// // Probes 0 and 1 share a 512-position group.
/// assert_eq!(positions[0] / 512, positions[1] / 512);
/// ```
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Probes {
    steps: Steps,
    remaining: u32,
    pending: Option<u64>,
    m: u64,
}

impl Probes {
    /// The `num_hashes` positions of `hash` in `[0, num_bits)`.
    #[inline(always)]
    pub fn new(hash: u128, num_hashes: u32, num_bits: u64) -> Self {
        Probes {
            steps: Steps::new(hash),
            remaining: num_hashes,
            pending: None,
            m: num_bits,
        }
    }

    /// The range `m` every position is below.
    #[inline(always)]
    pub fn range(&self) -> u64 {
        self.m
    }

    /// Only the first `count` of the remaining positions.
    #[inline(always)]
    pub fn first(mut self, count: u32) -> Self {
        self.remaining = self.remaining.min(count);
        self
    }

    /// The remaining positions after skipping `count`.
    #[inline(always)]
    pub fn after(mut self, count: u32) -> Self {
        for _ in 0..count.min(self.remaining) {
            self.next();
        }
        self
    }

    /// One step: the pair `(p_j, q_j)`, then the state moves to step j + 1.
    #[inline(always)]
    fn step(&mut self) -> (u64, u64) {
        pair_at(self.steps.next_value(), self.m)
    }

    /// Whether `test` holds for every remaining pair (the pairs of [`Probes::pairs`], the
    /// lone last probe as `(p, p)`), stopping at the first that fails: the loop of a query.
    /// It counts whole pairs instead of stepping the [`Pairs`] iterator, so the compiled loop
    /// has one branch per pair for the test and one for the count, and no per-pair state.
    ///
    /// Valid in any state: after an odd number of positions was taken (by
    /// [`after`](Probes::after) or the iterator), the partner left over is tested first, as
    /// `(q, q)`. For a fresh `Probes` that check folds away when inlined.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::hash::{hash_key, DEFAULT_SEED};
    /// use bloom_core::internal::Probes;
    ///
    /// let probes = Probes::new(hash_key("key", DEFAULT_SEED), 7, 100_000);
    /// let mut seen = Vec::new();
    /// assert!(probes.clone().all_pairs(|p, q| {
    ///     seen.push((p, q));
    ///     true
    /// }));
    /// assert_eq!(seen, probes.pairs().collect::<Vec<_>>());
    /// ```
    #[inline(always)]
    pub fn all_pairs(mut self, mut test: impl FnMut(u64, u64) -> bool) -> bool {
        if let Some(q) = self.pending.take() {
            self.remaining -= 1;
            if !test(q, q) {
                return false;
            }
        }
        for _ in 0..self.remaining / 2 {
            let (p, q) = self.step();
            if !test(p, q) {
                return false;
            }
        }
        if self.remaining % 2 == 1 {
            let (p, _) = self.step();
            return test(p, p);
        }
        true
    }

    /// The remaining positions as pairs, for probe loops: `ceil(remaining / 2)` pairs, the last
    /// one `(p, p)` when an odd number remains (testing or setting a bit twice is harmless).
    /// After an odd number of positions was taken, the first pair is the partner left over,
    /// as `(q, q)`: every remaining position is in exactly one pair, in any state.
    #[inline(always)]
    pub fn pairs(self) -> Pairs {
        Pairs { probes: self }
    }
}

/// The part of a key's probe sequence that does not depend on the filter: the step values
/// `x_0, x_1, ...` of [`Probes`] (`x_j = a + j b + C (j^3 - j) / 6 mod 2^64`), from which
/// [`pair_at`] derives pair j of any filter size.
///
/// Filters that test one key against several bit arrays (the layers of a scalable filter)
/// share one `Steps` between them: step j is computed once and each array reduces it to its
/// own range, and the arrays can be tested pair by pair in lockstep. For every `m` and `k`,
/// `Probes::new(hash, k, m).pairs()` yields `pair_at(x_j, m)` for j below `ceil(k / 2)`
/// (the last one `(p, p)` when k is odd); the tests check it for random hashes, m and k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Steps {
    x: u64,
    y: u64,
    w: u64,
}

impl Steps {
    /// The steps of `hash`, starting at `x_0`.
    #[inline(always)]
    pub const fn new(hash: u128) -> Self {
        Steps {
            x: low_half(hash),
            y: high_half(hash),
            w: 0,
        }
    }

    /// The current step value `x_j`, without moving on.
    #[inline(always)]
    pub const fn value(&self) -> u64 {
        self.x
    }

    /// The current step value `x_j`; the steps move on to `j + 1`. A step is three
    /// additions, and the next value depends on the previous one through one of them.
    #[inline(always)]
    pub fn next_value(&mut self) -> u64 {
        let x = self.x;
        self.w = self.w.wrapping_add(PROBE_SPREAD);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(self.w);
        x
    }
}

/// Never ends: a key has a step for every j (filters take the first `ceil(k / 2)`).
impl Iterator for Steps {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        Some(self.next_value())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The pair of positions `(p, q)` that step value `x` gives in `[0, m)`: `p = reduce(x, m)`,
/// and `q` in `p`'s 512-position group, from the low 32 bits of `x` (see [`Probes`]).
///
/// Both positions are below `m` for every `x` and every `m >= 1`: `p` by [`reduce`], and
/// `q` because its offset in the group is below `min(512, m - group start)`. Bit arrays rely
/// on this to test a pair without bounds checks (`BitStore::pair_set`); a property test
/// checks it over the whole range of `x` and `m`.
#[inline(always)]
pub(crate) const fn pair_at(x: u64, m: u64) -> (u64, u64) {
    let p = reduce(x, m);
    let group = p - p % PAIR_GROUP;
    let span = if m - group < PAIR_GROUP {
        m - group
    } else {
        PAIR_GROUP
    };
    let q = group + ((x as u32 as u64 * span) >> 32);
    (p, q)
}

/// The positions of a [`Probes`] two at a time; see [`Probes::pairs`].
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Pairs {
    probes: Probes,
}

impl Iterator for Pairs {
    type Item = (u64, u64);

    #[inline(always)]
    fn next(&mut self) -> Option<(u64, u64)> {
        if let Some(q) = self.probes.pending.take() {
            self.probes.remaining -= 1;
            return Some((q, q));
        }
        match self.probes.remaining {
            0 => None,
            1 => {
                self.probes.remaining = 0;
                let (p, _) = self.probes.step();
                Some((p, p))
            }
            _ => {
                self.probes.remaining -= 2;
                Some(self.probes.step())
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let pending = u32::from(self.probes.pending.is_some());
        let n = ((self.probes.remaining - pending).div_ceil(2) + pending) as usize;
        (n, Some(n))
    }
}

impl Iterator for Probes {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        if let Some(q) = self.pending.take() {
            return Some(q);
        }
        let (p, q) = self.step();
        if self.remaining > 0 {
            self.pending = Some(q);
        }
        Some(p)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Probes {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_hash_in_one_canonical_width() {
        let s = 12345;
        assert_eq!(
            hash_key(&0x0102_0304u32, s),
            hash_bytes(&[4, 3, 2, 1, 0, 0, 0, 0], s)
        );
        assert_eq!(hash_key(&-1i16, s), hash_bytes(&[0xff; 8], s));
        assert_eq!(hash_key(&7usize, s), hash_bytes(&7u64.to_le_bytes(), s));
        assert_eq!(hash_key(&-7isize, s), hash_bytes(&(-7i64).to_le_bytes(), s));
        assert_eq!(hash_key(&9u128, s), hash_bytes(&9u64.to_le_bytes(), s));
        let wide = (1u128 << 64) + 9;
        assert_eq!(hash_key(&wide, s), hash_bytes(&wide.to_le_bytes(), s));
        let very_negative = i128::from(i64::MIN) - 1;
        assert_eq!(
            hash_key(&very_negative, s),
            hash_bytes(&very_negative.to_le_bytes(), s)
        );
        // Every width of one value is one key, signed and unsigned alike.
        let five = hash_key(&5u64, s);
        for h in [
            hash_key(&5u8, s),
            hash_key(&5u16, s),
            hash_key(&5u32, s),
            hash_key(&5usize, s),
            hash_key(&5u128, s),
            hash_key(&5i8, s),
            hash_key(&5i16, s),
            hash_key(&5i32, s),
            hash_key(&5i64, s),
            hash_key(&5isize, s),
            hash_key(&5i128, s),
        ] {
            assert_eq!(h, five);
        }
        let minus_three = hash_key(&-3i64, s);
        for h in [
            hash_key(&-3i8, s),
            hash_key(&-3i16, s),
            hash_key(&-3i32, s),
            hash_key(&-3isize, s),
            hash_key(&-3i128, s),
        ] {
            assert_eq!(h, minus_three);
        }
        // Tuples and structs of integers are canonical field by field.
        assert_eq!(hash_key(&(1u8, 2i32), s), hash_key(&(1u64, 2u64), s));
        // Strings end with a canonical 0xff terminator (str's `Hash` writes a u8).
        let mut expected = b"ab".to_vec();
        expected.extend_from_slice(&0xffu64.to_le_bytes());
        assert_eq!(hash_key("ab", s), hash_bytes(&expected, s));
    }

    #[test]
    fn the_parquet_hasher_keeps_each_width() {
        let hash = |key: &dyn Fn(&mut BufferedHasher<Xxh64>)| {
            let mut h = BufferedHasher::<Xxh64>::new(0);
            key(&mut h);
            h.finish()
        };
        let xxh64 = |b: &[u8]| xxhash_rust::xxh64::xxh64(b, 0);
        assert_eq!(hash(&|h| 5i32.hash(h)), xxh64(&5i32.to_le_bytes()));
        assert_eq!(hash(&|h| 5i64.hash(h)), xxh64(&5i64.to_le_bytes()));
        assert_eq!(hash(&|h| 7u8.hash(h)), xxh64(&[7]));
        assert_eq!(hash(&|h| 9u128.hash(h)), xxh64(&9u128.to_le_bytes()));
        assert_eq!(hash(&|h| (-2i16).hash(h)), xxh64(&(-2i16).to_le_bytes()));
    }

    #[test]
    fn long_keys_stream_to_the_same_digest() {
        for len in [0, 1, 100, 127, 128, 129, 200, 256, 1000, 5000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            // A Vec<u8> writes its length prefix then the bytes.
            let mut expected = (len as u64).to_le_bytes().to_vec();
            expected.extend_from_slice(&bytes);
            assert_eq!(hash_key(&bytes, 99), hash_bytes(&expected, 99), "len {len}");
        }
        // Many small writes that cross the buffer boundary several times.
        let words: Vec<u64> = (0..100).collect();
        let mut expected = 100u64.to_le_bytes().to_vec();
        for w in &words {
            expected.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(hash_key(&words, 5), hash_bytes(&expected, 5));
    }

    #[test]
    fn finish128_is_repeatable_after_spilling() {
        let mut h = KeyHasher::new(1);
        h.write(&[1u8; 300]);
        h.write(&[2u8; 10]);
        assert_eq!(h.finish128(), h.finish128());
        assert_eq!(h.finish(), h.finish128() as u64);
    }

    /// Golden values: these pin the digest and the probe sequence, which are part of the binary
    /// format. If this test fails, the format changed.
    #[test]
    fn golden_digests_and_probes() {
        let h = hash_key(&42u64, DEFAULT_SEED);
        assert_eq!(h, hash_bytes(&42u64.to_le_bytes(), DEFAULT_SEED));
        assert_eq!(h, GOLDEN_42);
        let positions: Vec<u64> = Probes::new(h, 7, 958_506).collect();
        assert_eq!(positions, GOLDEN_42_PROBES);
        let h = hash_key("https://example.com/", DEFAULT_SEED);
        assert_eq!(h, GOLDEN_URL);
        let big: Vec<u64> = Probes::new(h, 4, 1 << 40).collect();
        assert_eq!(big, GOLDEN_URL_PROBES_2_40);
    }

    // Computed independently of this crate, with the reference XXH3 implementation (the C
    // library, through Python's `xxhash` package) and the closed form of the probe sequence
    // written out in Python. The URL's bytes end with its `str` terminator in the canonical
    // width: `0xff` as 8 little-endian bytes.
    const GOLDEN_42: u128 = 0xc8ad_0053_8ea0_9cd0_bf9c_129c_d1b5_be7c;
    const GOLDEN_42_PROBES: [u64; 7] = [
        717_417, 717_731, 510_275, 510_144, 895_521, 895_708, 548_534,
    ];
    const GOLDEN_URL: u128 = 0x60f1_264c_38c6_3cf8_a75d_2a37_7e96_50cc;
    const GOLDEN_URL_PROBES_2_40: [u64; 4] = [
        718_822_586_238,
        718_822_586_109,
        35_673_637_815,
        35_673_637_742,
    ];

    #[test]
    fn reduce_is_multiply_shift() {
        assert_eq!(reduce(u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(reduce(1 << 32, 1 << 32), 1);
        // Beyond 2^32: the top of the range is reachable.
        assert!(reduce(u64::MAX, 1 << 33) >= (1 << 33) - 1);
    }

    /// The closed form of the documentation, written out with wide integers.
    fn closed_form(h: u128, k: u32, m: u64) -> Vec<u64> {
        let (a, b) = (u128::from(h as u64), u128::from((h >> 64) as u64));
        let c = u128::from(PROBE_SPREAD);
        let mut out = Vec::new();
        for j in 0..u128::from(k).div_ceil(2) {
            let x = (a + j * b + c * ((j * j * j - j) / 6)) as u64;
            let p = reduce(x, m);
            let s = p - p % 512;
            let q = s + (((x & 0xffff_ffff) * (m - s).min(512)) >> 32);
            out.push(p);
            out.push(q);
        }
        out.truncate(k as usize);
        out
    }

    #[test]
    fn probes_stay_in_range_and_follow_the_closed_form() {
        for m in [
            1u64,
            2,
            64,
            65,
            511,
            512,
            513,
            1000,
            958_506,
            1 << 33,
            u64::MAX / 2,
            u64::MAX,
        ] {
            for seed in 0..200u64 {
                let h = hash_key(&seed, 3);
                for k in [1u32, 2, 7, 20] {
                    let p: Vec<u64> = Probes::new(h, k, m).collect();
                    assert_eq!(p.len(), k as usize);
                    assert!(p.iter().all(|&x| x < m), "m {m}");
                    assert_eq!(p, closed_form(h, k, m), "m {m} k {k}");
                    // The pair view gives the same positions (the odd tail doubled).
                    let pairs: Vec<u64> = Probes::new(h, k, m)
                        .pairs()
                        .flat_map(|(a, b)| [a, b])
                        .collect();
                    assert_eq!(&pairs[..k as usize], &p[..]);
                    assert_eq!(pairs.len(), k.div_ceil(2) as usize * 2);
                    // Steps and pair_at give the same pairs, whatever m.
                    let from_steps: Vec<(u64, u64)> = Steps::new(h)
                        .take(k.div_ceil(2) as usize)
                        .map(|x| pair_at(x, m))
                        .collect();
                    let from_pairs: Vec<(u64, u64)> = Probes::new(h, k, m).pairs().collect();
                    for (j, (a, b)) in from_steps.iter().zip(&from_pairs).enumerate() {
                        let lone = k % 2 == 1 && j + 1 == from_pairs.len();
                        assert_eq!(a.0, b.0, "m {m} k {k} pair {j}");
                        if !lone {
                            assert_eq!(a.1, b.1, "m {m} k {k} pair {j}");
                        }
                    }
                    if k % 2 == 1 {
                        assert_eq!(pairs[pairs.len() - 1], pairs[pairs.len() - 2]);
                    }
                }
                // first/after split the sequence.
                let all: Vec<u64> = Probes::new(h, 7, m).collect();
                let head: Vec<u64> = Probes::new(h, 7, m).first(2).collect();
                let tail: Vec<u64> = Probes::new(h, 7, m).after(2).collect();
                assert_eq!([head, tail].concat(), all);
            }
        }
    }

    mod range {
        use super::super::{PAIR_GROUP, pair_at};
        use proptest::prelude::*;

        proptest! {
            /// The range invariant `BitStore::pair_set` relies on: both positions below m,
            /// for any step value and any m, and in one 512-position group.
            #[test]
            fn pair_at_stays_in_range(
                x in any::<u64>(),
                m in prop_oneof![
                    1u64..2048,
                    any::<u64>().prop_map(|m| m.max(1)),
                    (0u64..1024).prop_map(|d| u64::MAX - d),
                ],
            ) {
                let (p, q) = pair_at(x, m);
                prop_assert!(p < m && q < m, "x {x} m {m}: {p} {q}");
                prop_assert_eq!(p / PAIR_GROUP, q / PAIR_GROUP);
                // The formula of `Probes`' docs, with its multiplication, whichever branch
                // `pair_at` took.
                let group = p - p % PAIR_GROUP;
                let span = (m - group).min(PAIR_GROUP);
                prop_assert_eq!(q, group + (((x & 0xffff_ffff) * span) >> 32));
            }
        }
    }

    /// `after(n)` then `all_pairs` or `pairs` covers exactly the positions after the first n,
    /// for odd n too (it once skipped the partner left over in release builds).
    #[test]
    fn pairs_after_any_count_cover_the_rest() {
        for key in 0..200u64 {
            let h = hash_key(&key, 11);
            for k in 1..=12u32 {
                let all: Vec<u64> = Probes::new(h, k, 10_007).collect();
                for n in 0..=k {
                    let mut tested = Vec::new();
                    assert!(Probes::new(h, k, 10_007).after(n).all_pairs(|p, q| {
                        tested.extend([p, q]);
                        true
                    }));
                    let mut paired: Vec<u64> = Probes::new(h, k, 10_007)
                        .after(n)
                        .pairs()
                        .flat_map(|(p, q)| [p, q])
                        .collect();
                    let pairs = Probes::new(h, k, 10_007).after(n).pairs();
                    assert_eq!(pairs.size_hint().0, pairs.count(), "k {k} n {n}");
                    let mut rest = all[n as usize..].to_vec();
                    for v in [&mut tested, &mut paired, &mut rest] {
                        v.sort_unstable();
                        v.dedup();
                    }
                    assert_eq!(tested, rest, "all_pairs, k {k} n {n}");
                    assert_eq!(paired, rest, "pairs, k {k} n {n}");
                    // A failing test stops the loop whatever the state.
                    let mut calls = 0;
                    let any = n < k;
                    assert_eq!(
                        !Probes::new(h, k, 10_007).after(n).all_pairs(|_, _| {
                            calls += 1;
                            false
                        }),
                        any
                    );
                    assert!(calls <= 1);
                }
            }
        }
    }

    #[test]
    fn steps_restart_from_value() {
        let h = hash_key(&3u64, 1);
        let mut s = Steps::new(h);
        assert_eq!(s.value(), h as u64);
        let first = s.next_value();
        assert_eq!(first, h as u64);
        let copy = s;
        assert_eq!(s.next_value(), copy.value());
        // x_5 = a + 5 b + C (5^3 - 5) / 6.
        let (a, b) = (low_half(h), high_half(h));
        let x5 = a
            .wrapping_add(b.wrapping_mul(5))
            .wrapping_add(PROBE_SPREAD.wrapping_mul(20));
        assert_eq!(Steps::new(h).nth(5), Some(x5));
    }

    #[test]
    fn pairs_share_a_group_and_partners_are_uniform() {
        let m = 1_000_000u64;
        let mut offsets = [0u32; 8];
        for key in 0..50_000u64 {
            let p: Vec<u64> = Probes::new(hash_key(&key, 1), 8, m).collect();
            for pair in p.chunks(2) {
                assert_eq!(pair[0] / 512, pair[1] / 512);
                offsets[(pair[1] % 512 / 64) as usize] += 1;
            }
        }
        // 200,000 partners over 8 equal slices of the group: 25,000 each.
        assert!(
            offsets.iter().all(|&c| (24_000..26_000).contains(&c)),
            "{offsets:?}"
        );
    }

    #[test]
    fn probes_of_degenerate_hashes_stay_apart() {
        // b = 2^63 would make plain double hashing alternate between two positions.
        let m = 1 << 20;
        for b in [0u64, 1 << 63, 1 << 62, u64::MAX / 3] {
            let h = (u128::from(b) << 64) | 12345;
            // The first probe of each pair (the partners share its group).
            let mut p: Vec<u64> = Probes::new(h, 20, m).step_by(2).collect();
            p.sort_unstable();
            p.dedup();
            assert!(p.len() >= 9, "b = {b:#x}: {p:?}");
        }
    }

    #[test]
    fn probes_spread_over_a_range_beyond_2_pow_32() {
        let m = 1u64 << 34;
        let mut above = 0;
        for key in 0..10_000u64 {
            above += Probes::new(hash_key(&key, 0), 4, m)
                .filter(|&p| p >= 1 << 33)
                .count();
        }
        // Half of 40,000 probes should land in the upper half.
        assert!((19_000..21_000).contains(&above), "{above}");
    }

    #[test]
    fn build_key_hasher_matches_hash_key() {
        let b = BuildKeyHasher::default();
        assert_eq!(b.hash_one("abc"), hash_key("abc", DEFAULT_SEED) as u64);
    }

    #[test]
    fn key_hasher_writes_every_integer_as_hash_key_does() {
        fn check<T: Hash>(key: T) {
            let mut h = KeyHasher::new(3);
            key.hash(&mut h);
            assert_eq!(h.finish128(), hash_key(&key, 3));
            assert_eq!(h.finish(), hash_key(&key, 3) as u64);
        }
        check(5u8);
        check(5u16);
        check(5u32);
        check(5u64);
        check(5u128);
        check(5usize);
        check(-5i8);
        check(-5i16);
        check(-5i32);
        check(-5i64);
        check(-5i128);
        check(-5isize);
        check((u128::MAX, "a long enough key to spill the buffer".repeat(8)));
        assert_eq!(hash_key(&5u8, 3), hash_key(&5u64, 3));
    }

    #[cfg(feature = "std")]
    #[test]
    fn random_seeds_differ() {
        assert_ne!(random_seed(), random_seed());
    }
}
