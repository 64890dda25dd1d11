//! Owned words: the filter one thread writes (`&mut self` inserts), its constructors, its
//! set operations, its decoders, and the bursts every owning filter inserts in.

use alloc::vec::Vec;
use core::hash::Hash;

use super::filter::{Engine, decode};
use super::layout::Layout;
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};
use crate::hash::{Hashing, SecretKey};
use crate::internal::frame::Checksum;

/// Owned words, written by one thread at a time (`&mut self`).
impl<L: Layout> Engine<L, BitStore> {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`, with the
    /// layout's optimal size and number of bits per key and the
    /// [default seed](crate::hash::DEFAULT_SEED).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `expected_items = 0` or `fpr` not in (0, 1) (NaN and
    /// infinities included); [`Error::TooLarge`] when the size exceeds
    /// [`MAX_NUM_BITS`](crate::math::MAX_NUM_BITS) or the address space.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::new(100_000, 0.01)?;
    /// assert_eq!((filter.num_bits(), filter.num_hashes()), (958_506, 7));
    /// assert!(BloomFilter::new(0, 0.01).is_err());
    /// assert!(BloomFilter::new(100, f64::NAN).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Self::from_layout(L::for_items(expected_items, fpr)?)
    }

    /// A filter of `num_bits` bits and `num_hashes` bits per key, for callers who size it
    /// themselves.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 bits or `num_hashes` out of the layout's range;
    /// [`Error::TooLarge`] beyond [`MAX_NUM_BITS`](crate::math::MAX_NUM_BITS).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::with_params(1 << 20, 5)?;
    /// assert_eq!(filter.memory_usage() / 1024, 128);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Self::from_layout(L::with_params(num_bits, num_hashes)?)
    }

    /// An empty filter of `layout`, with the default seed.
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] or [`Error::OutOfMemory`] when the bits cannot be allocated.
    pub fn from_layout(layout: L) -> Result<Self, Error> {
        Ok(Engine {
            layout,
            hashing: Hashing::default(),
            store: BitStore::new(layout.num_bits())?,
        })
    }

    /// A filter over an existing bit array: `bits.len()` bits, `num_hashes` bits per key,
    /// hashed by `hashing` (a seed, or a [`Hashing`]). The bits are taken as they are, so this
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
    /// [`Error::InvalidParameter`] for parameters the layout does not accept.
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
        hashing: impl Into<Hashing>,
    ) -> Result<Self, Error> {
        let layout = L::with_params(bits.len(), num_hashes)?;
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

    /// Returns this filter emptied and re-keyed with `seed`.
    ///
    /// A filter that was never written (fresh from [`new`](Engine::new)) is not touched: its
    /// memory stays lazily zeroed, so seeding a gigabyte filter costs no more than seeding a
    /// small one. A filter that holds keys is cleared.
    ///
    /// Filters can only be merged with filters of the same seed. Use the default seed when
    /// filters built in different places must be merged; use a secret seed (for example
    /// [`with_random_seed`](Engine::with_random_seed)) when keys may come from an
    /// adversary, who could otherwise craft keys that share bits and inflate the
    /// false-positive rate; a secret [key](Engine::with_key) protects even filters whose
    /// bytes are published (`docs/security.md`).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter = BloomFilter::new(1000, 0.01)?.with_seed(42);
    /// assert_eq!(filter.seed(), Some(42));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    /// Returns this filter emptied and keyed with a 128-bit secret key: keys are hashed
    /// with SipHash-1-3 under it ([`Hashing::Keyed`]), so nobody without the key can craft
    /// keys that share bits, find false positives offline, or test keys against the bytes.
    /// The bytes keep only the key's fingerprint; loading them needs the key again
    /// ([`from_bytes_with_key`](Engine::from_bytes_with_key)). `docs/security.md` has the
    /// threats and the cost.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    /// use bloom_core::Error;
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
    pub fn with_key(self, key: [u8; 16]) -> Self {
        self.with_hashing(Hashing::Keyed(SecretKey::from_bytes(key)))
    }

    crate::if_std! {
        /// Returns this filter emptied and re-keyed with a seed from the operating system's
        /// randomness ([`random_seed`](crate::hash::random_seed)). Only with the `std`
        /// feature.
        pub fn with_random_seed(self) -> Self {
            self.with_seed(crate::hash::random_seed())
        }

        /// [`with_key`](Engine::with_key) with a key from the operating system's randomness
        /// ([`SecretKey::random`]). The key lives only in this filter: its bytes cannot be
        /// read again by any other. Only with the `std` feature.
        pub fn with_random_key(self) -> Self {
            self.with_hashing(Hashing::Keyed(SecretKey::random()))
        }
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.hashing = hashing;
        self.clear();
        self
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
    /// a filter larger than the L2 cache the keys are hashed in bursts, the lines of each
    /// key prefetched as it is hashed, and a burst is inserted once all its keys are hashed,
    /// so the misses of a burst overlap where key by key each waits for its own lines; in the
    /// cache the bursts cost more than they hide, so smaller filters insert key by key
    /// (`docs/design.md`, "Parallel build", has the measurements).
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        if self.memory_usage() <= crate::internal::caches::l2_cache_bytes() {
            for key in keys {
                self.insert(&key);
            }
            return;
        }
        in_bursts(self, keys);
    }

    /// Adds pre-computed hashes (as [`insert_hash`](Engine::insert_hash) one by one), in
    /// bursts whose lines are prefetched before any of the burst is inserted.
    pub fn insert_hashes(&mut self, hashes: &[L::Hash]) {
        for burst in hashes.chunks(L::INSERT_BURST) {
            for &hash in burst {
                self.layout.prefetch(&self.store, hash);
            }
            for &hash in burst {
                self.insert_hash(hash);
            }
        }
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

    /// Reads a filter written by `to_bytes` (by this filter, its atomic twin or a view's
    /// `to_bytes`).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a
    /// panic, and never an allocation larger than `bytes`. [`Error::KeyRequired`] for a
    /// [keyed](Engine::with_key) filter's bytes (see
    /// [`from_bytes_with_key`](Engine::from_bytes_with_key)).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }

    /// [`from_bytes`](Engine::from_bytes) for a [keyed](Engine::with_key) filter's bytes.
    ///
    /// # Errors
    ///
    /// Those of `from_bytes`, and [`Error::WrongKey`] when `key` is not the one the bytes
    /// were written with, [`Error::NotKeyed`] for a seeded filter's bytes.
    pub fn from_bytes_with_key(bytes: &[u8], key: &[u8; 16]) -> Result<Self, Error> {
        Self::decode_with(bytes, Some(&SecretKey::from_bytes(*key)))
    }

    pub(super) fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (layout, hashing, payload) = decode::<L>(bytes, key, Checksum::Verify)?;
        let store = BitStore::from_le_bytes(payload, layout.num_bits())?;
        Ok(Engine {
            layout,
            hashing,
            store,
        })
    }

    crate::if_std! {
        /// Reads a filter from `reader`, as [`from_bytes`](Engine::from_bytes) reads the
        /// bytes of [`to_bytes`](Engine::to_bytes) or [`write_to`](Engine::write_to). Reads
        /// exactly the filter's bytes, the payload straight into the bit array; memory grows
        /// only as bytes arrive (`docs/format.md`, "Streaming").
        ///
        /// # Errors
        ///
        /// Those of [`from_bytes`](Engine::from_bytes) ([`Error::Truncated`] when the stream
        /// ends early, whatever length the header claims); [`Error::Io`] when the reader
        /// fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use std::io::Cursor;
        /// use bloom_classic::BloomFilter;
        ///
        /// let filter = BloomFilter::new(1000, 0.01)?;
        /// let mut stream = Cursor::new(Vec::new());
        /// filter.write_to(&mut stream)?;
        /// stream.set_position(0);
        /// assert_eq!(BloomFilter::read_from(&mut stream)?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn read_from<R: std::io::Read>(mut reader: R) -> Result<Self, Error> {
            Self::read_with(&mut reader, None)
        }

        /// [`read_from`](Engine::read_from) for a [keyed](Engine::with_key) filter's bytes.
        ///
        /// # Errors
        ///
        /// Those of `read_from` and of [`from_bytes_with_key`](Engine::from_bytes_with_key).
        pub fn read_from_with_key<R: std::io::Read>(
            mut reader: R,
            key: &[u8; 16],
        ) -> Result<Self, Error> {
            Self::read_with(&mut reader, Some(&SecretKey::from_bytes(*key)))
        }

        fn read_with(
            reader: &mut dyn std::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<Self, Error> {
            let frame = crate::internal::frame::FrameReader::open(
                reader,
                L::VARIANT,
                crate::format::HashScheme::Xxh3_128,
                L::PARAMS_LEN,
            )?;
            let hashing = Hashing::from_header(frame.scheme, frame.seed, key)?;
            let layout = L::read_params(&frame.params)?;
            let store = BitStore::from_parts(frame.finish_with_words()?, layout.num_bits())?;
            Ok(Engine {
                layout,
                hashing,
                store,
            })
        }
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

/// A filter that inserts in bursts: the owned filter, or a reference to an atomic one.
pub(super) trait Bursts {
    type Hash: Copy;
    /// Keys per burst.
    const BURST: usize;
    /// Hashes `key` and prefetches its lines.
    fn locate<T: Hash>(&mut self, key: &T) -> Self::Hash;
    /// Sets the bits of `hash`.
    fn set(&mut self, hash: Self::Hash);
}

impl<L: Layout> Bursts for Engine<L, BitStore> {
    type Hash = L::Hash;
    const BURST: usize = L::INSERT_BURST;

    #[inline(always)]
    fn locate<T: Hash>(&mut self, key: &T) -> L::Hash {
        let hash = self.hash(key);
        self.layout.prefetch(&self.store, hash);
        hash
    }

    #[inline(always)]
    fn set(&mut self, hash: L::Hash) {
        self.insert_hash(hash);
    }
}

impl<L: Layout> Bursts for &Engine<L, AtomicBitStore> {
    type Hash = L::Hash;
    const BURST: usize = L::INSERT_BURST;

    #[inline(always)]
    fn locate<T: Hash>(&mut self, key: &T) -> L::Hash {
        let hash = self.hash(key);
        self.layout.prefetch(&self.store, hash);
        hash
    }

    #[inline(always)]
    fn set(&mut self, hash: L::Hash) {
        self.insert_hash(hash);
    }
}

/// Inserts `keys` in bursts of `F::BURST`: a burst's keys are hashed and their lines
/// prefetched, then its bits set, so the misses of a burst overlap where key by key each
/// waits for its own lines.
pub(super) fn in_bursts<F: Bursts, T: Hash, I: IntoIterator<Item = T>>(filter: &mut F, keys: I) {
    let mut burst: Vec<F::Hash> = Vec::with_capacity(F::BURST);
    for key in keys {
        burst.push(filter.locate(&key));
        if burst.len() == F::BURST {
            burst.iter().for_each(|&hash| filter.set(hash));
            burst.clear();
        }
    }
    burst.iter().for_each(|&hash| filter.set(hash));
}
