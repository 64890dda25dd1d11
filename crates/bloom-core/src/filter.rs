//! The [`Filter`] trait every variant implements.

use alloc::vec::Vec;
use core::hash::Hash;

use crate::Error;

/// Approximate membership: the operations every filter of the workspace shares, so generic
/// code (the shared test suite, the comparison crate, a caller that wants to switch variants
/// with a one-line change) can treat them alike.
///
/// Each filter type also has these methods inherently, so most callers never import this
/// trait. The inherent `insert` of a filter that cannot fail returns a plain `bool`; the trait
/// method returns `Result<bool, Error>` because some variants can refuse a key (a scalable
/// filter at its size cap). For the others it is always `Ok`.
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
/// #     fn to_bytes(&self) -> Vec<u8> { Vec::new() }
/// #     fn from_bytes(_: &[u8]) -> Result<Self, Error> { Ok(DummyFilter) }
/// #     fn write_to<W: std::io::Write>(&self, _: W) -> Result<(), Error> { Ok(()) }
/// #     fn read_from<R: std::io::Read>(_: R) -> Result<Self, Error> { Ok(DummyFilter) }
/// # }
/// ```
pub trait Filter {
    /// The pre-computed hash a key is reduced to: `u128` (the seeded hash, widened) for the workspace's
    /// own filters, `u64` (XXH64) for Parquet's split-block filter.
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

    /// The filter in the workspace's binary format (`docs/format.md`).
    fn to_bytes(&self) -> Vec<u8>;

    /// Reads a filter written by [`Filter::to_bytes`].
    ///
    /// # Errors
    ///
    /// Any framing or consistency error; never panics, never allocates more than the input's
    /// length.
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error>
    where
        Self: Sized;

    /// Writes the bytes of [`Filter::to_bytes`] to `writer` through a bounded buffer,
    /// without building them in memory. Only with the `std` feature.
    ///
    /// # Errors
    ///
    /// `Error::Io` when the writer fails.
    #[cfg(feature = "std")]
    fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error>;

    /// Reads a filter from `reader` as [`Filter::from_bytes`] reads bytes, allocating only
    /// as bytes arrive; reads exactly one filter's bytes. Only with the `std` feature.
    ///
    /// # Errors
    ///
    /// Those of [`Filter::from_bytes`] (`Error::Truncated` when the stream ends early);
    /// `Error::Io` when the reader fails.
    #[cfg(feature = "std")]
    fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error>
    where
        Self: Sized;
}

/// Expands to the items given when bloom-core has its `std` feature, to nothing without it.
///
/// For the I/O items of the macros below and of the filter crates (`write_to`, `read_from`,
/// random keys): a `#[cfg(feature = "std")]` there would test the feature of the crate that
/// expands it, and a filter crate's items must exist exactly when this crate's [`Filter`]
/// asks for them, whichever crate of a build turned `std` on.
#[cfg(feature = "std")]
#[macro_export]
#[doc(hidden)]
macro_rules! if_std {
    ($($items:tt)*) => {
        $($items)*
    };
}

/// Without `std`: nothing (see the other definition).
#[cfg(not(feature = "std"))]
#[macro_export]
#[doc(hidden)]
macro_rules! if_std {
    ($($items:tt)*) => {};
}

/// Implements [`Filter`] for a filter type by calling its inherent methods of the same names:
/// `hash` (for `key_hash`), `insert_hash`, `contains_hash`, `contains_batch`, `memory_usage`,
/// `estimated_fpr`, `estimated_len`, `clear`, `union`, `to_bytes`, `from_bytes`, `write_to`
/// and `read_from`. `NAME`
/// is the type's name.
///
/// `hash: H` is the type's hash (`u128` for the workspace's widened hash, `u64` for Parquet's
/// XXH64). An inherent `insert_hash` returns `bool`; with `insert: fallible` it returns
/// `Result<bool, Error>` (a filter that can refuse a key, such as a scalable one at its cap).
///
/// # Examples
///
/// ```
/// use std::hash::Hash;
/// use bloom_core::{Error, Filter};
///
/// /// A stand-in for a filter: remembers whether anything was inserted.
/// #[derive(Default)]
/// struct Flag(bool);
///
/// impl Flag {
///     fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
///         bloom_core::hash::hash_key(key, 1)
///     }
///     fn insert_hash(&mut self, _: u128) -> bool {
///         std::mem::replace(&mut self.0, true)
///     }
///     fn contains_hash(&self, _: u128) -> bool {
///         self.0
///     }
///     fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
///         vec![self.0; keys.len()]
///     }
///     fn memory_usage(&self) -> usize {
///         1
///     }
///     fn estimated_fpr(&self) -> f64 {
///         f64::from(u8::from(self.0))
///     }
///     fn estimated_len(&self) -> u64 {
///         u64::from(self.0)
///     }
///     fn clear(&mut self) {
///         self.0 = false;
///     }
///     fn union(&mut self, other: &Self) -> Result<(), Error> {
///         self.0 |= other.0;
///         Ok(())
///     }
///     fn to_bytes(&self) -> Vec<u8> {
///         vec![u8::from(self.0)]
///     }
///     fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
///         match bytes {
///             [0] => Ok(Flag(false)),
///             [1] => Ok(Flag(true)),
///             _ => Err(Error::corrupt("one byte, 0 or 1, expected")),
///         }
///     }
///     fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<(), Error> {
///         Ok(writer.write_all(&self.to_bytes())?)
///     }
///     fn read_from<R: std::io::Read>(mut reader: R) -> Result<Self, Error> {
///         let mut byte = [0];
///         reader.read_exact(&mut byte)?;
///         Self::from_bytes(&byte)
///     }
/// }
///
/// bloom_core::internal::filter_via_inherent!(Flag, hash: u128);
///
/// let mut flag = Flag::default();
/// assert_eq!(Filter::insert(&mut flag, "key")?, false);
/// assert!(Filter::contains(&flag, "anything"));
/// assert_eq!(Flag::NAME, "Flag");
/// # Ok::<(), Error>(())
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! filter_via_inherent {
    ($filter:ident, hash: $hash:ty) => {
        $crate::filter_via_inherent!(@impl $filter, $hash, |f, h| Ok($filter::insert_hash(f, h)));
    };
    ($filter:ident, hash: $hash:ty, insert: fallible) => {
        $crate::filter_via_inherent!(@impl $filter, $hash, |f, h| $filter::insert_hash(f, h));
    };
    (@impl $filter:ident, $hash:ty, |$f:ident, $h:ident| $insert:expr) => {
        impl $crate::Filter for $filter {
            type Hash = $hash;
            const NAME: &'static str = stringify!($filter);

            fn key_hash<T: ::core::hash::Hash + ?Sized>(&self, key: &T) -> $hash {
                $filter::hash(self, key)
            }

            fn insert_hash(&mut self, hash: $hash) -> Result<bool, $crate::Error> {
                let ($f, $h) = (self, hash);
                $insert
            }

            fn contains_hash(&self, hash: $hash) -> bool {
                $filter::contains_hash(self, hash)
            }

            fn contains_batch<T: ::core::hash::Hash>(
                &self,
                keys: &[T],
            ) -> $crate::internal::Vec<bool> {
                $filter::contains_batch(self, keys)
            }

            fn memory_usage(&self) -> usize {
                $filter::memory_usage(self)
            }

            fn estimated_fpr(&self) -> f64 {
                $filter::estimated_fpr(self)
            }

            fn estimated_len(&self) -> u64 {
                $filter::estimated_len(self)
            }

            fn clear(&mut self) {
                $filter::clear(self);
            }

            fn union(&mut self, other: &Self) -> Result<(), $crate::Error> {
                $filter::union(self, other)
            }

            fn to_bytes(&self) -> $crate::internal::Vec<u8> {
                $filter::to_bytes(self)
            }

            fn from_bytes(bytes: &[u8]) -> Result<Self, $crate::Error> {
                $filter::from_bytes(bytes)
            }

            $crate::if_std! {
                fn write_to<W: $crate::internal::io::Write>(
                    &self,
                    writer: W,
                ) -> Result<(), $crate::Error> {
                    $filter::write_to(self, writer)
                }

                fn read_from<R: $crate::internal::io::Read>(
                    reader: R,
                ) -> Result<Self, $crate::Error> {
                    $filter::read_from(reader)
                }
            }
        }
    };
}

/// Implements `Extend` and `FromIterator` for a filter type through its inherent
/// `insert_all(keys)` and `new(n, p)`: `extend` inserts every key, and `collect` gathers the
/// keys first (to count them) and builds a filter sized for exactly their number at `fpr`
/// with the default seed. `collect` panics only if that number is beyond what the filter can
/// be sized for (build with `new` to get an `Err` instead).
///
/// # Examples
///
/// ```
/// use bloom_core::Error;
///
/// /// A stand-in for a filter: it remembers how many keys it was given.
/// struct Count(usize);
///
/// impl Count {
///     fn new(_n: u64, _p: f64) -> Result<Self, Error> {
///         Ok(Count(0))
///     }
///     fn insert_all<T, I: IntoIterator<Item = T>>(&mut self, keys: I) {
///         self.0 += keys.into_iter().count();
///     }
/// }
///
/// bloom_core::internal::collect_via_insert_all!(Count, fpr: 0.01);
///
/// let mut count: Count = (0..10u32).collect();
/// count.extend(["a", "b"]);
/// assert_eq!(count.0, 12);
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! collect_via_insert_all {
    ($filter:ident, fpr: $fpr:expr) => {
        impl<T: ::core::hash::Hash> ::core::iter::Extend<T> for $filter {
            fn extend<I: ::core::iter::IntoIterator<Item = T>>(&mut self, iter: I) {
                self.insert_all(iter);
            }
        }

        /// Collects keys into a filter sized for exactly their number at the crate's default
        /// false-positive rate (1%), with the default seed. The keys are gathered first, to
        /// count them.
        ///
        /// # Panics
        ///
        /// Only if the number of keys is more than a filter can be sized for; build with
        /// `new` to get an `Err` instead.
        impl<T: ::core::hash::Hash> ::core::iter::FromIterator<T> for $filter {
            fn from_iter<I: ::core::iter::IntoIterator<Item = T>>(iter: I) -> Self {
                let keys: $crate::internal::Vec<T> = iter.into_iter().collect();
                // A slice's length always fits a `u64` (no target has a wider `usize`).
                let mut filter = $filter::new(keys.len().max(1) as u64, $fpr)
                    .expect("the number of keys held in memory fits a filter");
                filter.insert_all(&keys);
                filter
            }
        }
    };
}

/// Implements the keyed-hashing methods of a filter type (`with_key`, `with_random_key`,
/// `from_bytes_with_key`, `read_from_with_key`, `hashing`) through four private inherent
/// functions every keyable variant has:
///
/// * `fn with_hashing(self, hashing: Hashing) -> Self`: the filter emptied and rehashed;
/// * `fn current_hashing(&self) -> Hashing`;
/// * `fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error>`:
///   `from_bytes`, checking the header's scheme against the key;
/// * `fn read_with(reader: &mut dyn Read, key: Option<&SecretKey>) -> Result<Self, Error>`:
///   `read_from`, checking the header's scheme against the key.
///
/// One set of methods, documented once, for the classic, atomic, counting, scalable,
/// blocked and atomic blocked filters.
#[macro_export]
#[doc(hidden)]
macro_rules! keyed_via_inherent {
    ($filter:ident) => {
        impl $filter {
            /// Returns this filter emptied and keyed with the 128-bit secret `key`: keys
            /// are hashed with SipHash-1-3 under it instead of the seeded hash
            /// ([`Hashing::Keyed`]($crate::hash::Hashing::Keyed)), so nobody without the
            /// key can tell which bits a key sets or craft keys that collide. The filter's
            /// bytes hold only the key's fingerprint: load them with
            /// [`from_bytes_with_key`](Self::from_bytes_with_key). Filters merge only with
            /// filters of the same key. `docs/security.md` weighs keys and seeds.
            pub fn with_key(self, key: [u8; 16]) -> Self {
                self.with_hashing($crate::hash::Hashing::Keyed(
                    $crate::hash::SecretKey::from_bytes(key),
                ))
            }

            $crate::if_std! {
                /// Returns this filter emptied and keyed with a key from the operating
                /// system's randomness
                /// ([`SecretKey::random`]($crate::hash::SecretKey::random)). The key lives
                /// only in memory: [`hashing`](Self::hashing) gives it to a caller who must
                /// save the filter and load it again. Only with the `std` feature.
                pub fn with_random_key(self) -> Self {
                    self.with_hashing($crate::hash::Hashing::Keyed(
                        $crate::hash::SecretKey::random(),
                    ))
                }
            }

            /// How this filter hashes its keys: a seed, or a secret key.
            pub fn hashing(&self) -> $crate::hash::Hashing {
                self.current_hashing()
            }

            /// Reads a keyed filter's bytes (from `to_bytes` or `write_to`) with its key.
            ///
            /// # Errors
            ///
            /// Those of `from_bytes`, and [`Error::WrongKey`]($crate::Error::WrongKey) when
            /// `key` is not the filter's; [`Error::NotKeyed`]($crate::Error::NotKeyed) for the
            /// bytes of a seeded filter.
            pub fn from_bytes_with_key(
                bytes: &[u8],
                key: &[u8; 16],
            ) -> Result<Self, $crate::Error> {
                Self::decode_with(bytes, Some(&$crate::hash::SecretKey::from_bytes(*key)))
            }

            $crate::if_std! {
                /// [`from_bytes_with_key`](Self::from_bytes_with_key) from a stream, as
                /// `read_from` reads (exactly the filter's bytes, memory growing as they
                /// arrive). Only with the `std` feature.
                ///
                /// # Errors
                ///
                /// Those of `read_from` and of
                /// [`from_bytes_with_key`](Self::from_bytes_with_key).
                pub fn read_from_with_key<R: $crate::internal::io::Read>(
                    mut reader: R,
                    key: &[u8; 16],
                ) -> Result<Self, $crate::Error> {
                    Self::read_with(
                        &mut reader,
                        Some(&$crate::hash::SecretKey::from_bytes(*key)),
                    )
                }
            }
        }
    };
}
