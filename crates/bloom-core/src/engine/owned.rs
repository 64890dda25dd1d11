//! Owned words: the filter one thread writes (`&mut self` inserts), its constructors, its
//! set operations, its decoders, and the bursts every owning filter inserts in.

use core::hash::Hash;
use core::marker::PhantomData;
use core::ops::Deref;

use super::filter::Engine;
use super::layout::Layout;
use super::storage::Storage;
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};
use crate::hash::KeyHashing;
use crate::internal::batch::{BurstInsert, insert_hashes_in_bursts, insert_keys};
use crate::internal::simd::compiled_for_cpu;

/// Owned words, written by one thread at a time (`&mut self`).
impl<L: Layout> Engine<L, BitStore> {
    /// An empty filter of `layout`, with the default seed.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] or [`Error::OutOfMemory`] when the bits cannot be allocated.
    pub fn from_layout(layout: L) -> Result<Self, Error> {
        Ok(Engine {
            layout,
            hashing: L::Hashing::default(),
            store: BitStore::new(layout.num_bits())?,
        })
    }

    /// A filter over an existing bit array: `bits.len()` bits, `num_hashes` bits per key,
    /// hashed by `hashing` (a seed, or a [`Hashing`](crate::hash::Hashing); the fixed hash of a
    /// layout whose format fixes it). The bits are taken as they are, so this
    /// rebuilds a filter whose bits were stored elsewhere (one layer inside another filter's
    /// bytes) without clearing or copying them, and turns any structure that keeps a bit per
    /// position (a counting filter's non-zero counters) into a filter that answers as it
    /// does: "possibly present" exactly when every bit of the key is set.
    ///
    /// Nothing checks that the bits were set with these parameters: a filter rebuilt with
    /// others than those its keys were inserted with answers "absent" for them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for parameters the layout does not accept;
    /// [`Error::Incompatible`] naming `num_bits` when the layout's size is not the array's
    /// (a blocked layout needs a whole number of 512-bit blocks).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    /// use bloom_core::bits::BitStore;
    ///
    /// let mut filter = BloomFilter::new(1000, 0.01)?.with_seed(7);
    /// filter.insert("kept");
    /// let bits = BitStore::from_words(filter.bits().as_words(), filter.num_bits())?;
    /// let rebuilt = BloomFilter::from_bits(bits, filter.num_hashes(), 7)?;
    /// assert_eq!(rebuilt, filter);
    /// assert!(rebuilt.contains("kept"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bits(
        bits: BitStore,
        num_hashes: u32,
        hashing: impl Into<L::Hashing>,
    ) -> Result<Self, Error> {
        let layout = L::with_params(bits.len(), num_hashes)?;
        // A layout may round the size (the blocked one to whole blocks): the store must hold
        // exactly the layout's bits, which every query reads without a bounds check.
        Error::check_same("num_bits", layout.num_bits(), bits.len())?;
        Ok(Engine {
            layout,
            hashing: hashing.into(),
            store: bits,
        })
    }

    /// The bit array.
    pub fn bits(&self) -> &BitStore {
        &self.store
    }

    /// Adds a key. Returns `true` if it was possibly present already (all its bits were
    /// set): a "seen before?" check and an insert in one call.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut seen = BloomFilter::new(1000, 0.001)?;
    /// assert!(!seen.insert("https://example.com/"));
    /// assert!(seen.insert("https://example.com/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed hash (only hashes computed as
    /// [`hash`](Engine::hash) computes them can be found again). Returns whether it was
    /// possibly present before.
    #[inline]
    pub fn insert_hash(&mut self, hash: L::Hash) -> bool {
        self.layout.insert(self.store.as_words_mut(), hash)
    }

    /// Adds every key of `keys`, the same bits as [`insert`](Engine::insert) key by key. In
    /// a filter larger than the layout's [`bursts_from`](Layout::bursts_from) (the L2 cache
    /// for the classic layout; any size for the blocked one) the keys are hashed in bursts,
    /// the lines of each key prefetched as it is hashed, and a burst is inserted once all its
    /// keys are hashed, so the misses of a burst overlap where key by key each waits for its
    /// own lines; a smaller filter takes groups of keys hashed before any is inserted,
    /// without prefetches (`docs/design.md`, "Parallel build", has the measurements).
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        compiled_for_cpu(
            #[inline(always)]
            move || self.insert_all_inlined(keys),
        );
    }

    /// The body of [`insert_all`](Engine::insert_all), inlined into the loop compiled for
    /// the CPU ([`compiled_for_cpu`]).
    #[inline(always)]
    fn insert_all_inlined<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        let (burst, hashes) = (self.insert_burst(), Hashes::of(self, keys));
        insert_keys(&mut Bursts(self, PhantomData), burst, hashes);
    }

    /// Adds pre-computed hashes (as [`insert_hash`](Engine::insert_hash) one by one), in
    /// bursts whose lines are prefetched before any of the burst is inserted.
    pub fn insert_hashes(&mut self, hashes: &[L::Hash]) {
        insert_hashes_in_bursts(&mut Bursts(self, PhantomData), L::INSERT_BURST, hashes);
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.store.clear();
    }

    /// Adds every key of `other`: afterwards `self` answers "possibly present" for every key
    /// either filter held. The result is exactly the filter built from both key sets.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the layouts or the hashing (seed or key) differ; `self`
    /// is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut a = BloomFilter::new(1000, 0.01)?;
    /// let mut b = BloomFilter::new(1000, 0.01)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&BloomFilter::new(2000, 0.01)?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |a, b| *a |= b)
    }

    /// Keeps only bits set in both filters: afterwards `self` answers "possibly present" for
    /// every key both filters held (and possibly for others: an intersection has a higher
    /// false-positive rate than a filter built from the common keys alone).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the layouts or the hashing differ; `self` is unchanged.
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |a, b| *a &= b)
    }

    /// Combines the words of `other` into `self` with `op`, folding the larger of the two
    /// first where the layout folds and their sizes differ.
    fn combine(&mut self, other: &Self, op: impl Fn(&mut u64, u64)) -> Result<(), Error> {
        let (mine, theirs) = self.layout.fold_factors(&other.layout)?;
        self.hashing.check_same(&other.hashing)?;
        let folded;
        let theirs = if theirs > 1 {
            folded = other.folded(theirs)?;
            &folded.store
        } else {
            &other.store
        };
        if mine > 1 {
            *self = self.folded(mine)?;
        }
        for (a, &b) in self.store.as_words_mut().iter_mut().zip(theirs.as_words()) {
            op(a, b);
        }
        Ok(())
    }

    /// The filter folded by `factor`: block `i` of the result is the OR of blocks
    /// `i * factor .. (i + 1) * factor`, which is where each of their keys' bits land in a
    /// filter with `factor` times fewer blocks.
    pub(super) fn folded(&self, factor: u32) -> Result<Self, Error> {
        let layout = self.layout.folded(factor)?;
        let mut store = BitStore::new(layout.num_bits())?;
        let block = L::BLOCK_WORDS;
        let group = block * factor as usize;
        for (out, group) in store
            .as_words_mut()
            .chunks_exact_mut(block)
            .zip(self.store.as_words().chunks_exact(group))
        {
            for one in group.chunks_exact(block) {
                for (o, w) in out.iter_mut().zip(one) {
                    *o |= *w;
                }
            }
        }
        Ok(Engine {
            layout,
            hashing: self.hashing,
            store,
        })
    }

    /// Converts into the filter over atomic words, with the same bits: `&self` inserts from
    /// any number of threads.
    pub fn into_atomic(self) -> Engine<L, AtomicBitStore> {
        let store = AtomicBitStore::from(self.store);
        Engine {
            layout: self.layout,
            hashing: self.hashing,
            store,
        }
    }
}

/// A handle `insert_all` writes through: the owned filter's `&mut`, a lock-free one's `&`.
pub(super) trait Writer<L: Layout, S: Storage>: Deref<Target = Engine<L, S>> {
    /// Sets the bits of `hash`.
    fn set(&mut self, hash: L::Hash);
}

impl<L: Layout> Writer<L, BitStore> for &mut Engine<L, BitStore> {
    #[inline(always)]
    fn set(&mut self, hash: L::Hash) {
        self.insert_hash(hash);
    }
}

impl<L: Layout> Writer<L, AtomicBitStore> for &Engine<L, AtomicBitStore> {
    #[inline(always)]
    fn set(&mut self, hash: L::Hash) {
        self.insert_hash(hash);
    }
}

/// The hashes of keys as a filter's layout and hashing compute them, for [`insert_keys`]:
/// an iterator whose `next` is always inlined, so the hash joins the insert loop (a closure
/// over the hashing, with the keyed hash in its body, was left out of line).
pub(super) struct Hashes<L: Layout, I> {
    hashing: L::Hashing,
    keys: I,
    layout: PhantomData<L>,
}

impl<L: Layout, I: Iterator> Hashes<L, I> {
    /// The hashes of `keys` under `filter`'s hashing.
    pub(super) fn of<S, K>(filter: &Engine<L, S>, keys: K) -> Self
    where
        K: IntoIterator<IntoIter = I>,
    {
        Hashes {
            hashing: filter.hashing,
            keys: keys.into_iter(),
            layout: PhantomData,
        }
    }
}

impl<L: Layout, I: Iterator<Item: Hash>> Iterator for Hashes<L, I> {
    type Item = L::Hash;

    #[inline(always)]
    fn next(&mut self) -> Option<L::Hash> {
        match self.keys.next() {
            Some(key) => Some(L::hash(&self.hashing, &key)),
            None => None,
        }
    }
}

/// A filter's inserts for [`insert_keys`]: the engine's prefetch, the handle's insert.
pub(super) struct Bursts<L, S, W>(pub(super) W, pub(super) PhantomData<(L, S)>);

impl<L: Layout, S: Storage, W: Writer<L, S>> BurstInsert for Bursts<L, S, W> {
    type Hash = L::Hash;

    #[inline(always)]
    fn prefetch(&self, hash: L::Hash) {
        self.0.layout.prefetch(&self.0.store, hash);
    }

    #[inline(always)]
    fn insert(&mut self, hash: L::Hash) {
        self.0.set(hash);
    }
}

impl<L: Layout, S: Storage> Engine<L, S> {
    /// The burst its `insert_all` takes: none (groups without prefetches) up to the layout's
    /// [`bursts_from`](Layout::bursts_from) bytes, [`INSERT_BURST`](Layout::INSERT_BURST)
    /// keys above.
    pub(super) fn insert_burst(&self) -> Option<usize> {
        (self.memory_usage() > self.layout.bursts_from()).then_some(L::INSERT_BURST)
    }
}
