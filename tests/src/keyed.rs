//! [`Keyed`]: any keyable filter of the workspace, built and loaded with the suite's secret
//! key, so the whole shared suite runs on keyed filters too.

use std::fmt::Debug;
use std::hash::Hash;
use std::io;

use bloom_aging::AgingBloomFilter;
use bloom_blocked::{
    AtomicBlockedBloomFilter, AtomicMultiblock32BloomFilter, AtomicMultiblockBloomFilter,
    BlockedBloomFilter, Multiblock32BloomFilter, MultiblockBloomFilter,
};
use bloom_classic::{AtomicBloomFilter, BloomFilter};
use bloom_core::{Error, Filter, Keyed as _, Persist, PersistIo};
use bloom_counting::CountingBloomFilter;
use bloom_scalable::ScalableBloomFilter;

use crate::Subject;

/// The key every [`Keyed`] filter of the suite hashes with.
pub const SUITE_KEY: [u8; 16] = *b"suite-secret-key";

/// A filter that can hash under a secret key: the keyed methods every general-purpose
/// variant has (`with_key`, `from_bytes_with_key`, `read_from_with_key`), as a trait.
pub trait Keyable: Subject {
    /// The filter emptied and keyed with `key`.
    fn keyed(self, key: [u8; 16]) -> Self;
    /// Reads a keyed filter's bytes with its key.
    ///
    /// # Errors
    ///
    /// The variant's `from_bytes_with_key` errors.
    fn from_bytes_keyed(bytes: &[u8], key: &[u8; 16]) -> Result<Self, Error>;
    /// Reads a keyed filter from a stream with its key.
    ///
    /// # Errors
    ///
    /// The variant's `read_from_with_key` errors.
    fn read_from_keyed<R: io::Read>(reader: R, key: &[u8; 16]) -> Result<Self, Error>;
}

macro_rules! keyable {
    ($($ty:ty),*) => {$(
        impl Keyable for $ty {
            fn keyed(self, key: [u8; 16]) -> Self {
                self.with_key(key)
            }

            fn from_bytes_keyed(bytes: &[u8], key: &[u8; 16]) -> Result<Self, Error> {
                <$ty>::from_bytes_with_key(bytes, key)
            }

            fn read_from_keyed<R: io::Read>(reader: R, key: &[u8; 16]) -> Result<Self, Error> {
                <$ty>::read_from_with_key(reader, key)
            }
        }
    )*};
}

keyable!(
    BloomFilter,
    AtomicBloomFilter,
    CountingBloomFilter,
    ScalableBloomFilter,
    BlockedBloomFilter,
    AtomicBlockedBloomFilter,
    MultiblockBloomFilter,
    AtomicMultiblockBloomFilter,
    Multiblock32BloomFilter,
    AtomicMultiblock32BloomFilter,
    AgingBloomFilter
);

/// A filter of type `F` keyed with [`SUITE_KEY`]: built keyed, and read back from bytes and
/// streams with the key. Every other call goes to `F`.
#[derive(Clone, Debug)]
pub struct Keyed<F>(pub F);

impl<F: Keyable> Filter for Keyed<F> {
    type Hash = F::Hash;
    const NAME: &'static str = F::NAME;

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> F::Hash {
        self.0.key_hash(key)
    }

    fn insert_hash(&mut self, hash: F::Hash) -> Result<bool, Error> {
        self.0.insert_hash(hash)
    }

    fn contains_hash(&self, hash: F::Hash) -> bool {
        self.0.contains_hash(hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        self.0.contains_batch(keys)
    }

    fn memory_usage(&self) -> usize {
        self.0.memory_usage()
    }

    fn estimated_fpr(&self) -> f64 {
        self.0.estimated_fpr()
    }

    fn estimated_len(&self) -> u64 {
        self.0.estimated_len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.0.union(&other.0)
    }
}

impl<F: Keyable> Persist for Keyed<F> {
    fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes()
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        F::from_bytes_keyed(bytes, &SUITE_KEY).map(Keyed)
    }
}

impl<F: Keyable> PersistIo for Keyed<F> {
    fn write_to<W: io::Write>(&self, writer: W) -> Result<(), Error> {
        self.0.write_to(writer)
    }

    fn read_from<R: io::Read>(reader: R) -> Result<Self, Error> {
        F::read_from_keyed(reader, &SUITE_KEY).map(Keyed)
    }
}

impl<F: Keyable> Subject for Keyed<F> {
    fn build(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Ok(Keyed(F::build(expected_items, fpr)?.keyed(SUITE_KEY)))
    }

    fn theory_fpr(&self, num_items: u64) -> f64 {
        self.0.theory_fpr(num_items)
    }

    fn rate_spread(&self, num_items: u64) -> f64 {
        self.0.rate_spread(num_items)
    }

    fn bytes_are_exact() -> bool {
        F::bytes_are_exact()
    }

    fn canonical_integers() -> bool {
        F::canonical_integers()
    }
}
