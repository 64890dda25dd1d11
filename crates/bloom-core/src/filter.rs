//! The [`Filter`] trait every variant implements.

use alloc::vec::Vec;
use core::hash::Hash;

use crate::Error;
use crate::hash::{Hashing, SecretKey};

/// Approximate membership: the operations every filter of the workspace shares, so generic
/// code (the shared test suite, the comparison crate, a caller that wants to switch variants
/// with a one-line change) can treat them alike.
///
/// Each filter type also has these methods inherently, so most callers never import this
/// trait. The inherent `insert` of a filter that cannot fail returns a plain `bool`; the trait
/// method returns `Result<bool, Error>` because some variants can refuse a key (a scalable
/// filter at its size cap). For the others it is always `Ok`.
///
/// Saving and loading are traits of their own, which every type implementing this one
/// implements too: [`Persist`](crate::Persist) (`to_bytes`, `from_bytes`) and, with the `std`
/// feature, [`PersistIo`](crate::PersistIo) (`write_to`, `read_from`). Generic code that saves
/// a filter asks for `F: Filter + Persist`.
///
/// # Examples
///
/// ```
/// use bloom_core::{Error, Filter};
///
/// // Works with any variant.
/// fn dedup<F: Filter>(filter: &mut F, words: &[&str]) -> Result<usize, Error> {
///     let mut fresh = 0;
///     for w in words {
///         if !filter.insert(w)? {
///             fresh += 1;
///         }
///     }
///     Ok(fresh)
/// }
/// # let _ = dedup::<DummyFilter>;
/// # struct DummyFilter;
/// # impl Filter for DummyFilter {
/// #     type Hash = u128;
/// #     const NAME: &'static str = "dummy";
/// #     fn key_hash<T: std::hash::Hash + ?Sized>(&self, _: &T) -> u128 { 0 }
/// #     fn insert_hash(&mut self, _: u128) -> Result<bool, Error> { Ok(false) }
/// #     fn contains_hash(&self, _: u128) -> bool { true }
/// #     fn memory_usage(&self) -> usize { 0 }
/// #     fn estimated_fpr(&self) -> f64 { 1.0 }
/// #     fn estimated_len(&self) -> u64 { 0 }
/// #     fn clear(&mut self) {}
/// #     fn union(&mut self, _: &Self) -> Result<(), Error> { Ok(()) }
/// # }
/// ```
pub trait Filter {
    /// The pre-computed hash a key is reduced to: `u128` (the seeded hash, widened) for the
    /// classic, counting, scalable and aging filters; `u64` for the blocked and multiblock
    /// filters (the seeded hash) and for Parquet's split-block filter (XXH64).
    type Hash: Copy;

    /// The type's name, for reports.
    const NAME: &'static str;

    /// The hash this filter computes for `key` (with its own seed and scheme).
    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> Self::Hash;

    /// Adds a key; returns whether it was possibly present before.
    ///
    /// # Errors
    ///
    /// Only for filters that can refuse a key (a scalable filter at its cap, `Error::Full`).
    fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> Result<bool, Error> {
        let hash = self.key_hash(key);
        self.insert_hash(hash)
    }

    /// Whether the key may be present (`false` means certainly absent).
    fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.key_hash(key))
    }

    /// Adds a pre-computed hash; returns whether it was possibly present before.
    ///
    /// # Errors
    ///
    /// As [`Filter::insert`].
    fn insert_hash(&mut self, hash: Self::Hash) -> Result<bool, Error>;

    /// Whether a pre-computed hash may be present.
    fn contains_hash(&self, hash: Self::Hash) -> bool;

    /// Answers [`Filter::contains`] for every key, in order. Filters that can hide memory
    /// latency across keys (prefetching) override this.
    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        keys.iter().map(|k| self.contains(k)).collect()
    }

    /// Bytes held by the filter, heap and inline.
    fn memory_usage(&self) -> usize;

    /// The false-positive rate at the current fill.
    fn estimated_fpr(&self) -> f64;

    /// The number of distinct keys inserted, estimated from the fill and rounded to the
    /// nearest count; `u64::MAX` when the fill says nothing about it (every bit set).
    fn estimated_len(&self) -> u64;

    /// Removes every key.
    fn clear(&mut self);

    /// Adds every key of `other` to `self`.
    ///
    /// # Errors
    ///
    /// `Error::Incompatible` when the two filters' parameters or seeds differ.
    fn union(&mut self, other: &Self) -> Result<(), Error>
    where
        Self: Sized;
}

/// Keyed hashing: a filter whose keys are hashed with SipHash-1-3 under a 128-bit secret key
/// instead of the seeded hash ([`Hashing::Keyed`]), so nobody without the key can tell
/// which bits a key sets or craft keys that collide. `docs/security.md` weighs keys and seeds.
///
/// Every filter of the shared format that owns its bits and is hashed by a seed implements
/// it: the classic, blocked, multiblock and 32-bit multiblock filters and their atomic
/// twins, the counting, scalable and aging filters (not Parquet's split-block filter, whose
/// hash Parquet fixes).
/// The trait is sealed: the promise that keyed bytes never load without their key is kept by
/// the format readers of this workspace, so no other crate implements it. (A view reads keyed
/// bytes with its own `from_bytes_with_key`, which borrows them.)
///
/// # Examples
///
/// ```
/// use bloom_classic::BloomFilter;
/// use bloom_core::{Error, Keyed};
///
/// let key = *b"0123456789abcdef";
/// let mut seen = BloomFilter::new(10_000, 0.01)?.with_key(key);
/// seen.insert("https://example.com/");
/// let bytes = seen.to_bytes();
/// assert_eq!(BloomFilter::from_bytes(&bytes), Err(Error::KeyRequired));
/// let loaded = BloomFilter::from_bytes_with_key(&bytes, &key)?;
/// assert!(loaded.contains("https://example.com/"));
/// # Ok::<(), Error>(())
/// ```
pub trait Keyed: Sized + crate::internal::Sealed {
    /// Returns this filter emptied and keyed with the 128-bit secret `key`. The filter's
    /// bytes hold only the key's fingerprint: load them with
    /// [`from_bytes_with_key`](Keyed::from_bytes_with_key). Filters merge only with filters
    /// of the same key.
    fn with_key(self, key: [u8; 16]) -> Self {
        self.with_hashing(Hashing::Keyed(SecretKey::from_bytes(key)))
    }

    /// Returns this filter emptied and keyed with a key from the operating system's
    /// randomness ([`SecretKey::random`]). The key lives only in memory:
    /// [`hashing`](Keyed::hashing) gives it to a caller who must save the filter and load it
    /// again. Only with the `std` feature.
    #[cfg(feature = "std")]
    fn with_random_key(self) -> Self {
        self.with_hashing(Hashing::Keyed(SecretKey::random()))
    }

    /// How this filter hashes its keys: a seed, or a secret key.
    fn hashing(&self) -> Hashing;

    /// Reads a keyed filter's bytes (from `to_bytes` or `write_to`) with its key.
    ///
    /// # Errors
    ///
    /// Those of the type's `from_bytes`; [`Error::WrongKey`] when `key` is not the filter's;
    /// [`Error::NotKeyed`] for the bytes of a seeded filter.
    fn from_bytes_with_key(bytes: &[u8], key: &[u8; 16]) -> Result<Self, Error> {
        Self::decode_with(bytes, Some(&SecretKey::from_bytes(*key)))
    }

    /// [`from_bytes_with_key`](Keyed::from_bytes_with_key) from a stream, as the type's
    /// `read_from` reads (exactly the filter's bytes, memory growing as they arrive). Only
    /// with the `std` feature.
    ///
    /// # Errors
    ///
    /// Those of the type's `read_from` and of
    /// [`from_bytes_with_key`](Keyed::from_bytes_with_key).
    #[cfg(feature = "std")]
    fn read_from_with_key<R: std::io::Read>(mut reader: R, key: &[u8; 16]) -> Result<Self, Error> {
        Self::read_with(&mut reader, Some(&SecretKey::from_bytes(*key)))
    }

    /// The filter emptied and hashing with `hashing`.
    #[doc(hidden)]
    fn with_hashing(self, hashing: Hashing) -> Self;

    /// `from_bytes`, the header's hashing checked against `key` (`None`: seeded bytes only).
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes_with_key`](Keyed::from_bytes_with_key).
    #[doc(hidden)]
    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error>;

    /// `read_from`, the header's hashing checked against `key`.
    ///
    /// # Errors
    ///
    /// Those of [`read_from_with_key`](Keyed::read_from_with_key).
    #[cfg(feature = "std")]
    #[doc(hidden)]
    fn read_with(reader: &mut dyn std::io::Read, key: Option<&SecretKey>) -> Result<Self, Error>;
}
