//! Atomic words: the filter any number of threads write at once (`&self` inserts).

use core::hash::Hash;
use core::marker::PhantomData;

use super::filter::Engine;
use super::layout::Layout;
use super::owned::{Bursts, Hashes};
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};
use crate::hash::KeyHashing;
use crate::internal::batch::insert_keys;
use crate::internal::simd::compiled_for_cpu;

/// Atomic words, shared between threads (`&self` inserts, lock-free).
///
/// Each bit is set by one `AtomicU64::fetch_or` and read by one `load`, all with `Relaxed`
/// ordering. That is enough for a Bloom filter: bits only go from 0 to 1 and nothing else is
/// published through them, so a key is found by every query that starts after its insert
/// returned (and the threads synchronised, by a join, a channel, or a lock), and a concurrent
/// query may see some of its bits or all of them. It answers exactly like the owned filter
/// holding the same keys, has the same binary format, and converts to and from one.
impl<L: Layout> Engine<L, AtomicBitStore> {
    /// Adds a key from any thread; returns `true` if it was possibly present already (all
    /// its bits were set).
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed hash; whether it was possibly present before.
    #[inline]
    pub fn insert_hash(&self, hash: L::Hash) -> bool {
        self.layout
            .insert_shared(self.store.as_words_for_write(), hash)
    }

    /// Adds every key of `keys`, as the owned filter's [`insert_all`](Engine::insert_all)
    /// does: groups of keys hashed before any is inserted, and past the layout's
    /// [`bursts_from`](Layout::bursts_from) bursts whose lines are prefetched first.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&self, keys: I) {
        compiled_for_cpu(
            #[inline(always)]
            move || self.insert_all_inlined(keys),
        );
    }

    /// The body of [`insert_all`](Engine::insert_all), inlined into the loop compiled for
    /// the CPU ([`compiled_for_cpu`]).
    #[inline(always)]
    fn insert_all_inlined<T: Hash, I: IntoIterator<Item = T>>(&self, keys: I) {
        let (burst, hashes) = (self.insert_burst(), Hashes::of(self, keys));
        insert_keys(&mut Bursts(self, PhantomData), burst, hashes);
    }

    /// Removes every key. Concurrent inserts may or may not survive it.
    pub fn clear(&self) {
        self.store.clear();
    }

    /// Adds every key of `other`, word by word (each an atomic `fetch_or`).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the layouts or the hashing differ; `self` is unchanged.
    pub fn union(&self, other: &Self) -> Result<(), Error> {
        self.layout.check_same(&other.layout)?;
        self.hashing.check_same(&other.hashing)?;
        self.store.union_with(&other.store)
    }

    /// Keeps only bits set in both filters, word by word (each an atomic `fetch_and`).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the layouts or the hashing differ; `self` is unchanged.
    pub fn intersect(&self, other: &Self) -> Result<(), Error> {
        self.layout.check_same(&other.layout)?;
        self.hashing.check_same(&other.hashing)?;
        self.store.intersect_with(&other.store)
    }

    /// A copy as the owned filter (each word loaded once: inserts running meanwhile may or
    /// may not be included).
    pub fn to_plain(&self) -> Engine<L, BitStore> {
        Engine {
            layout: self.layout,
            hashing: self.hashing,
            store: self.store.to_bit_store(),
        }
    }

    /// Converts into the owned filter with the same bits, without copying them.
    pub fn into_plain(self) -> Engine<L, BitStore> {
        let store = BitStore::from(self.store);
        Engine {
            layout: self.layout,
            hashing: self.hashing,
            store,
        }
    }
}
