//! The standard traits of the filters a storage owns (owned and atomic words), written once:
//! [`Filter`](crate::Filter), [`Persist`](crate::Persist) and (with `std`)
//! [`PersistIo`](crate::PersistIo), `Extend`, `FromIterator` and serde's.

use alloc::vec::Vec;
use core::hash::Hash;

use super::filter::{DEFAULT_FPR, Engine};
use super::layout::Layout;
use super::storage::Storage;
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};

/// A storage a filter owns and writes: owned words ([`BitStore`], `&mut self` inserts) or
/// atomic words ([`AtomicBitStore`], `&self` inserts). The traits every owning filter
/// implements are written once over it; a view, which borrows its bytes, has none of them.
pub trait Writable: Storage + Sized + sealed::Sealed {
    /// Whether inserts are atomic (`&self`), which the `Filter` trait's name tells.
    const ATOMIC: bool;

    /// Adds a key by its hash; whether it was possibly present.
    fn insert_hash<L: Layout>(filter: &mut Engine<L, Self>, hash: L::Hash) -> bool;

    /// Adds every key of `keys`.
    fn insert_all<L: Layout, T: Hash, I: IntoIterator<Item = T>>(
        filter: &mut Engine<L, Self>,
        keys: I,
    );

    /// Removes every key.
    fn clear<L: Layout>(filter: &mut Engine<L, Self>);

    /// Adds every key of `other`.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the layouts or the hashing differ.
    fn union<L: Layout>(filter: &mut Engine<L, Self>, other: &Engine<L, Self>)
    -> Result<(), Error>;

    /// The owned filter's words moved into this storage.
    fn from_owned<L: Layout>(filter: Engine<L, BitStore>) -> Engine<L, Self>;

    /// Clears every bit through the exclusive borrow (a re-seeded filter starts empty).
    fn reset(&mut self);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::bits::BitStore {}
    impl Sealed for crate::bits::AtomicBitStore {}
}

/// The two impls differ only in the receiver their filter's inherent methods take, which
/// the calls below do not spell: one body serves both.
macro_rules! writable {
    ($store:ty, atomic: $atomic:expr, from_owned: |$owned:ident| $convert:expr,
     reset: |$me:ident| $reset:expr) => {
        impl Writable for $store {
            const ATOMIC: bool = $atomic;

            #[inline]
            fn insert_hash<L: Layout>(filter: &mut Engine<L, Self>, hash: L::Hash) -> bool {
                filter.insert_hash(hash)
            }

            fn insert_all<L: Layout, T: Hash, I: IntoIterator<Item = T>>(
                filter: &mut Engine<L, Self>,
                keys: I,
            ) {
                filter.insert_all(keys);
            }

            fn clear<L: Layout>(filter: &mut Engine<L, Self>) {
                filter.clear();
            }

            fn union<L: Layout>(
                filter: &mut Engine<L, Self>,
                other: &Engine<L, Self>,
            ) -> Result<(), Error> {
                filter.union(other)
            }

            fn from_owned<L: Layout>($owned: Engine<L, BitStore>) -> Engine<L, Self> {
                $convert
            }

            fn reset(&mut self) {
                let $me = self;
                $reset
            }
        }
    };
}

writable!(BitStore, atomic: false, from_owned: |filter| filter, reset: |me| me.clear());
writable!(AtomicBitStore, atomic: true, from_owned: |filter| filter.into_atomic(),
    reset: |me| me.clear_mut());

/// Adds every key of the iterator (`insert_all`).
impl<L: Layout, S: Writable, T: Hash> Extend<T> for Engine<L, S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        S::insert_all(self, iter);
    }
}

/// Collects keys into a filter sized for their number (at least 1) at a 1% false-positive
/// rate.
///
/// # Panics
///
/// If the keys cannot be held in a filter (more than the largest filter's capacity at 1%, or
/// more memory than the allocator gives): a collection of that many keys in memory is itself
/// the larger problem. Size a filter with `new` for an `Err` instead.
impl<L: Layout, S: Writable, T: Hash> FromIterator<T> for Engine<L, S> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let keys: Vec<T> = iter.into_iter().collect();
        let filter = crate::internal::checks::collect_sized(
            &keys,
            |n| Engine::<L, BitStore>::new(n, DEFAULT_FPR),
            |filter, keys| filter.insert_all(keys),
        );
        S::from_owned(filter)
    }
}

impl<L: Layout, S: Writable> crate::Filter for Engine<L, S> {
    type Hash = L::Hash;
    const NAME: &'static str = if S::ATOMIC { L::ATOMIC_NAME } else { L::NAME };

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> L::Hash {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: L::Hash) -> Result<bool, Error> {
        Ok(S::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: L::Hash) -> bool {
        Engine::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        Engine::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        Engine::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        Engine::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        Engine::estimated_len(self)
    }

    fn clear(&mut self) {
        S::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        S::union(self, other)
    }
}

impl<L: Layout, S: Writable> crate::Persist for Engine<L, S> {
    fn to_bytes(&self) -> Vec<u8> {
        Engine::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Engine::<L, BitStore>::from_bytes(bytes).map(S::from_owned)
    }
}

#[cfg(feature = "std")]
impl<L: Layout, S: Writable> crate::PersistIo for Engine<L, S> {
    fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error> {
        Engine::write_to(self, writer)
    }

    fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error> {
        Engine::<L, BitStore>::read_from(reader).map(S::from_owned)
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::*;

    /// The bytes of `to_bytes` (base64 in human-readable formats).
    impl<L: Layout, S: Writable> serde::Serialize for Engine<L, S> {
        fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            crate::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
        }
    }

    /// From the bytes of `to_bytes`, checked as `from_bytes` checks them.
    impl<'de, L: Layout, S: Writable> serde::Deserialize<'de> for Engine<L, S> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            crate::internal::serde_bytes::deserialize(deserializer, |bytes| {
                Engine::<L, BitStore>::from_bytes(bytes).map(S::from_owned)
            })
        }
    }
}
