//! Key hashing and probe positions.
//!
//! Every operation hashes its key exactly once: [`hash_key`] feeds whatever
//! [`Hash`] writes into a [`KeyHasher`], which buffers the bytes and finishes with one call
//! of the seeded hash: two 64x64-bit multiplies for a key of at most 8 bytes (every integer,
//! short strings), seeded XXH3-64 for a longer one. That gives one 64-bit word `h`;
//! a filter that needs more bits (the classic layout's two halves) takes a re-mix of `h` as
//! the second half, never a second hash of the key. The k bit positions derive from the
//! halves by enhanced double hashing, each reduced to the filter's range with Lemire's
//! multiply-shift (no `%`, no modulo bias, no 32-bit ceiling). `docs/format.md` ("The seeded hash")
//! describes the scheme; it is part of the binary format.
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

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hash, Hasher};

use crate::format::fields::HashScheme;
use crate::internal::digest::{BufferedHasher, Seeded64, integer_writes};

/// The seed every filter uses unless given another: the 64-bit golden-ratio constant
/// `0x9E37_79B9_7F4A_7C15`. Fixed forever, so filters built anywhere can be merged.
pub const DEFAULT_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// The project's key hasher: it buffers the bytes a key's [`Hash`] writes and digests them
/// with one call of the seeded hash, into the 128 bits [`hash_key`] returns.
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
pub struct KeyHasher(BufferedHasher<Seeded64>);

impl KeyHasher {
    /// An empty hasher with the given seed.
    #[inline]
    pub fn new(seed: u64) -> Self {
        KeyHasher(BufferedHasher::new(seed))
    }

    /// The 128 bits of everything written so far: the digest, and its re-mix above it.
    #[inline(always)]
    pub fn finish128(&self) -> u128 {
        widen(self.0.digest())
    }

    /// An integer, forwarded so that it keeps its canonical width.
    #[inline(always)]
    fn integer(&mut self, value: u64, native: &[u8]) {
        self.0.integer(value, native);
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

    integer_writes!();

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

/// Hashes a key to the 128 bits every filter of the workspace derives its positions from:
/// the seeded hash of the bytes `key.hash()` writes in the low half, its re-mix in the high
/// half ([`widen`]).
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
    widen(hash_key64(key, seed))
}

/// The low half of [`hash_key`]: the seeded hash alone, what the blocked layouts take.
#[inline(always)]
fn hash_key64<T: Hash + ?Sized>(key: &T, seed: u64) -> u64 {
    let mut hasher = BufferedHasher::<Seeded64>::new(seed);
    key.hash(&mut hasher);
    hasher.digest()
}

/// XORed into a digest before the mix that gives its second half, so a digest of 0 does not
/// give a second half of 0 (the mix's fixed point).
const HIGH_SALT: u64 = 0xD1B5_4A32_D192_ED03;

/// A 64-bit digest widened to the 128 bits the classic layout takes: the digest in the low
/// half, and above it `lo ^ hi` of the 128-bit product of the digest XOR a salt and the
/// 64-bit golden ratio (one `mulx`), a re-mix in which every bit depends on every bit of
/// the digest. Both schemes (seeded and keyed) widen this way: more bits come from re-mixing
/// the digest, never from hashing the key again.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::{DEFAULT_SEED, hash_key, widen};
///
/// let wide = hash_key(&7u64, DEFAULT_SEED);
/// assert_eq!(widen(wide as u64), wide);
/// ```
#[inline(always)]
pub fn widen(digest: u64) -> u128 {
    let high = crate::internal::digest::fold_mul(digest ^ HIGH_SALT, 0x9E37_79B9_7F4A_7C15);
    (u128::from(high) << 64) | u128::from(digest)
}

/// Hashes raw bytes with the seeded hash, widened as [`hash_key`] is (no `Hash` framing:
/// `hash_bytes(b"ab", s)` differs from `hash_key("ab", s)`, because `str`'s `Hash` appends a
/// `0xff` terminator).
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
    use crate::internal::digest::Digest;
    widen(Seeded64::oneshot(bytes, seed))
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
/// pseudo-random function, replaces the seeded hash, so positions cannot be predicted, or keys
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
pub struct SecretKey(pub(crate) [u64; 2]);

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
        crate::internal::siphash::sip::<2, 4>(FINGERPRINT_MESSAGE, self.0)
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
/// * [`Seeded`](Hashing::Seeded): the seeded hash with a 64-bit seed ([`hash_key`]), the default
///   ([`DEFAULT_SEED`]). Fast, identical everywhere, and the seed is stored in the filter's
///   bytes: right when keys are not chosen by an adversary, or the bytes stay private.
/// * [`Keyed`](Hashing::Keyed): SipHash-1-3 under a 128-bit [`SecretKey`], a keyed
///   pseudo-random function: without the key, nobody can tell which bits a key sets, so
///   keys cannot be crafted to answer "maybe" or to pile into a few blocks, even by someone
///   who reads the filter's bytes (they hold only the key's fingerprint). `docs/security.md`
///   weighs the two.
///
/// Either way one call hashes a key to the two 64-bit halves positions derive from. SipHash
/// gives 64 bits; the keyed scheme's second half is the re-mix of the first that widens the
/// seeded hash too (one multiply of the first half, salted), so the pair is as
/// unpredictable as the SipHash output itself.
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
    /// The seeded hash ([`hash_key`]).
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

impl Hashing {
    /// The 128-bit digest of `key`, whose two halves a filter derives its positions from.
    #[inline(always)]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        match *self {
            Hashing::Seeded(seed) => hash_key(key, seed),
            Hashing::Keyed(secret) => widen(keyed_hash(key, &secret)),
        }
    }

    /// The low 64 bits of [`hash`](Hashing::hash), for filters that need only one hash value
    /// (the blocked filters); the keyed scheme skips the second half's mix.
    #[inline(always)]
    pub fn hash64<T: Hash + ?Sized>(&self, key: &T) -> u64 {
        match *self {
            Hashing::Seeded(seed) => hash_key64(key, seed),
            Hashing::Keyed(secret) => keyed_hash(key, &secret),
        }
    }

    /// [`hash64`](Hashing::hash64) of every key of `keys`, in order, into `out` (cleared
    /// first). The keyed scheme hashes keys sixteen at a time in SIMD lanes (AVX-512 or
    /// AVX2 where the CPU has them) when the sixteen write the same number of bytes, up to 128
    /// (any sixteen integer keys, for example): the batch queries of keyed filters pay far less for
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
                out.extend(keys.iter().map(|k| hash_key64(k, seed)));
                return;
            }
            Hashing::Keyed(secret) => secret,
        };
        let level = crate::internal::simd::Level::detect();
        crate::internal::siphash::sip13_keys(level, keys, secret.0, out);
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
    pub fn scheme(&self) -> crate::format::fields::HashScheme {
        match self {
            Hashing::Seeded(_) => crate::format::fields::HashScheme::Seeded,
            Hashing::Keyed(_) => crate::format::fields::HashScheme::SipHash13Keyed,
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
        scheme: crate::format::fields::HashScheme,
        word: u64,
        key: Option<&SecretKey>,
    ) -> Result<Hashing, crate::Error> {
        use crate::format::fields::HashScheme;
        match (scheme, key) {
            (HashScheme::Seeded, None) => Ok(Hashing::Seeded(word)),
            (HashScheme::Seeded, Some(_)) => Err(crate::Error::NotKeyed),
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

/// How the filters of a layout hash their keys, and how the format's header records it: an
/// engine filter's hashing is its layout's
/// ([`Layout::Hashing`](crate::engine::Layout::Hashing)). [`Hashing`] (a seed or a secret key)
/// for the workspace's layouts, whose filters take `with_seed` and the [`Keyed`](crate::Keyed)
/// methods; [`ParquetHash`] for Parquet's split-block layout, whose format fixes the hash, so
/// its filters have neither.
pub trait KeyHashing: Copy + Eq + core::fmt::Debug + Default + Send + Sync + 'static {
    /// The scheme a decoder asks the header for ([`HashScheme::Seeded`] also admits the
    /// keyed scheme, whose key the caller then supplies).
    const SCHEME: HashScheme;

    /// The scheme written in the header.
    fn scheme(&self) -> HashScheme;

    /// The header's hashing word: the seed, a secret key's fingerprint, or 0.
    fn header_word(&self) -> u64;

    /// The hashing a header's scheme and word describe, with the secret key when the caller
    /// has one.
    ///
    /// # Errors
    ///
    /// Those of [`Hashing::from_header`]; [`Error::Corrupt`](crate::Error::Corrupt) for a
    /// word a fixed hash does not have.
    fn from_header(
        scheme: HashScheme,
        word: u64,
        key: Option<&SecretKey>,
    ) -> Result<Self, crate::Error>;

    /// `Ok` when two filters hash keys alike, so that their bits combine.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`](crate::Error::Incompatible) naming what differs.
    fn check_same(&self, other: &Self) -> Result<(), crate::Error>;

    /// The secret key of a keyed hashing.
    fn secret_key(&self) -> Option<&SecretKey> {
        None
    }
}

impl KeyHashing for Hashing {
    const SCHEME: HashScheme = HashScheme::Seeded;

    #[inline]
    fn scheme(&self) -> HashScheme {
        Hashing::scheme(self)
    }

    #[inline]
    fn header_word(&self) -> u64 {
        Hashing::header_word(self)
    }

    fn from_header(
        scheme: HashScheme,
        word: u64,
        key: Option<&SecretKey>,
    ) -> Result<Self, crate::Error> {
        Hashing::from_header(scheme, word, key)
    }

    fn check_same(&self, other: &Self) -> Result<(), crate::Error> {
        Hashing::check_same(self, other)
    }

    fn secret_key(&self) -> Option<&SecretKey> {
        Hashing::secret_key(self)
    }
}

/// Parquet's hashing, the split-block layout's: XXH64 with seed 0 over the bytes a key's
/// [`Hash`] writes, integers little-endian at their own width (which for one integer is
/// Parquet's plain encoding). The format fixes it: no seed and no key, the header's word 0.
///
/// # Examples
///
/// ```
/// use bloom_core::hash::ParquetHash;
///
/// // Parquet hashes an INT64 value's 8 little-endian bytes.
/// assert_eq!(ParquetHash::hash(&7i64), ParquetHash::hash_bytes(&7i64.to_le_bytes()));
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParquetHash;

impl ParquetHash {
    /// The hash of a key: XXH64 (seed 0) over the bytes its `Hash` writes.
    #[inline(always)]
    pub fn hash<T: Hash + ?Sized>(key: &T) -> u64 {
        let mut hasher = BufferedHasher::<crate::internal::digest::Xxh64>::new(0);
        key.hash(&mut hasher);
        hasher.finish()
    }

    /// The hash of a value's plain-encoded bytes: XXH64 with seed 0.
    #[inline(always)]
    pub fn hash_bytes(bytes: &[u8]) -> u64 {
        <crate::internal::digest::Xxh64 as crate::internal::digest::Digest>::oneshot(bytes, 0)
    }
}

impl KeyHashing for ParquetHash {
    const SCHEME: HashScheme = HashScheme::ParquetXxh64;

    #[inline]
    fn scheme(&self) -> HashScheme {
        HashScheme::ParquetXxh64
    }

    #[inline]
    fn header_word(&self) -> u64 {
        0
    }

    fn from_header(
        _scheme: HashScheme,
        word: u64,
        key: Option<&SecretKey>,
    ) -> Result<Self, crate::Error> {
        if key.is_some() {
            return Err(crate::Error::NotKeyed);
        }
        if word != 0 {
            return Err(crate::Error::corrupt(alloc::format!(
                "seed {word} (Parquet's hash has seed 0)"
            )));
        }
        Ok(ParquetHash)
    }

    fn check_same(&self, _other: &Self) -> Result<(), crate::Error> {
        Ok(())
    }
}

/// SipHash-1-3 of the bytes `key.hash()` writes (integers in the canonical width, as
/// [`hash_key`]), under `secret`.
#[inline(always)]
fn keyed_hash<T: Hash + ?Sized>(key: &T, secret: &SecretKey) -> u64 {
    crate::internal::siphash::sip13_key(key, secret.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::digest::Xxh64;

    /// The keyed batch gives each key's own digest whatever its group holds: groups of keys
    /// that all write one 8-byte word, groups of one other length, groups that start with
    /// 8-byte keys and then change length, mixed groups, and the remainder past the last
    /// whole group.
    #[test]
    fn keyed_batches_hash_each_key_as_one_by_one() {
        /// A key that writes its bytes as they are: 8 of them are one word.
        struct Raw(Vec<u8>);
        impl Hash for Raw {
            fn hash<H: Hasher>(&self, state: &mut H) {
                state.write(&self.0);
            }
        }
        let keyed = Hashing::Keyed(SecretKey::from_bytes([9; 16]));
        let mut state = 5u64;
        let mut next = || {
            state += 1;
            crate::internal::digest::mix(state)
        };
        let mut keys: Vec<Raw> = Vec::new();
        for run in 0..200 {
            let len = next() % 40;
            for i in 0..len {
                let r = next();
                let bytes = match run % 4 {
                    0 => 8,
                    1 => 12,
                    2 if i % 16 < 9 => 8,
                    _ => r % 20,
                };
                keys.push(Raw((0..bytes).map(|b| (r >> (b * 3)) as u8).collect()));
            }
        }
        let mut hashes = Vec::new();
        keyed.hash64_batch(&keys, &mut hashes);
        assert_eq!(hashes.len(), keys.len());
        for (key, &h) in keys.iter().zip(&hashes) {
            assert_eq!(h, keyed.hash64(key), "{:?}", key.0);
        }
        let integers: Vec<u64> = (0..1_000).map(|i| i * 0x9E37_79B9).collect();
        keyed.hash64_batch(&integers, &mut hashes);
        assert!(
            integers
                .iter()
                .zip(&hashes)
                .all(|(k, &h)| h == keyed.hash64(k))
        );
    }

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
