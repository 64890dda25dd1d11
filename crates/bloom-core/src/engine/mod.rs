//! The engine every fixed-size filter is made of: a [`Layout`] (where one hash's bits go)
//! over a [`Storage`] (where the bits live), written once.
//!
//! A filter is an [`Engine<L, S>`]: its layout's parameters, its hashing (a seed, or a secret
//! key) and its storage. Queries, batch queries, burst inserts, the parallel build, union and
//! intersection, fill estimates, the binary format (`to_bytes`, `from_bytes`, `write_to`,
//! `read_from`) and the keyed forms are methods of the engine, written once over the layout
//! and the storage; a filter crate supplies only its layout and names the three filters it
//! makes of it:
//!
//! ```text
//! BloomFilter        = Engine<Classic, BitStore>        owned words, `&mut self` inserts
//! AtomicBloomFilter  = Engine<Classic, AtomicBitStore>  atomic words, `&self` inserts
//! BloomFilterRef<'a> = Engine<Classic, LeBits<'a>>      a view of a filter's bytes
//! ```
//!
//! The three storages are this module's ([`BitStore`], [`AtomicBitStore`], [`LeBits`]);
//! a layout is any type that implements [`Layout`] (`docs/design.md`, "Adding a layout",
//! says what one costs). Methods that only some storages have are in impl blocks of their
//! own: inserts and set operations on owned and atomic words, `verify` and `as_bytes` on
//! views.
//!
//! # Example
//!
//! ```
//! use bloom_classic::{AtomicBloomFilter, BloomFilter, BloomFilterRef};
//!
//! let mut filter = BloomFilter::new(1_000, 0.01)?;
//! filter.insert("a");
//! let shared: AtomicBloomFilter = filter.into_atomic();
//! shared.insert("b");
//! let bytes = shared.to_bytes();
//! let view = BloomFilterRef::from_bytes(&bytes)?;
//! assert!(view.contains("a") && view.contains("b"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod storage;

use alloc::vec::Vec;
use core::hash::Hash;
use core::sync::atomic::AtomicU64;

pub use storage::{LeBits, Storage};

use crate::Error;
pub use crate::bits::{AtomicBitStore, BitStore};
use crate::hash::{Hashing, SecretKey};
use crate::internal::frame::{Checksum, Output, Sink};

/// Where one hash's bits go: the policy a filter crate implements to make a filter of the
/// engine.
///
/// A layout value holds the parameters that fix the positions (sizes and the number of
/// bits per key); the engine holds the hashing and the storage. Its methods read and write
/// the bit array only through the storage's words (or the raw words of owned and atomic
/// storage, for inserts), so one implementation serves all three storages.
///
/// A layout promises what every query relies on: every position it derives is below
/// [`num_bits`](Layout::num_bits), and [`insert`](Layout::insert) sets exactly the bits
/// [`contains`](Layout::contains) tests, whatever the storage. The tests of each layout check
/// both against a `HashSet`, on every storage.
pub trait Layout: Copy + Eq + core::fmt::Debug + Send + Sync + 'static {
    /// The hash the layout takes: what `hash` returns and `insert_hash` and `contains_hash`
    /// take (`u128` for the classic layout's two halves, `u64` for a blocked one).
    type Hash: Copy + PartialEq + core::fmt::Debug + Send + Sync;

    /// The name of the owned filter (the `Filter` trait's `NAME`).
    const NAME: &'static str;

    /// The name of the filter over atomic words.
    const ATOMIC_NAME: &'static str;

    /// The format's variant tag of this layout's bytes.
    const VARIANT: crate::format::Variant;

    /// Bytes of the layout's parameters in the format.
    const PARAMS_LEN: usize;

    /// The layout sized for `expected_items` keys at false-positive rate `fpr`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for 0 keys or a rate outside (0, 1); [`Error::TooLarge`]
    /// for a size beyond the limits.
    fn for_items(expected_items: u64, fpr: f64) -> Result<Self, Error>;

    /// The layout of `num_bits` bits and `num_hashes` bits per key.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] or [`Error::TooLarge`] for parameters out of range.
    fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error>;

    /// The number of bits.
    fn num_bits(&self) -> u64;

    /// The number of bits each key sets.
    fn num_hashes(&self) -> u32;

    /// The hash of `key` under `hashing`.
    fn hash<T: Hash + ?Sized>(hashing: &Hashing, key: &T) -> Self::Hash;

    /// Whether every bit of `hash` is set in `store`.
    ///
    /// # Safety
    ///
    /// `store` must hold exactly [`num_bits`](Layout::num_bits) bits (the engine's filters
    /// always do), so that the layout reads its words without a check per query.
    unsafe fn contains<S: Storage>(&self, store: &S, hash: Self::Hash) -> bool;

    /// Prefetches the lines `contains` and `insert` will read for `hash`.
    fn prefetch<S: Storage>(&self, store: &S, hash: Self::Hash);

    /// Sets the bits of `hash` in `words`; whether all of them were set before.
    fn insert(&self, words: &mut [u64], hash: Self::Hash) -> bool;

    /// Sets the bits of `hash` in atomic `words` (`fetch_or`, `Relaxed`); whether all of them
    /// were set before.
    fn insert_shared(&self, words: &[AtomicU64], hash: Self::Hash) -> bool;

    /// The answers for `keys`, in order, into `out` (cleared first): the batch query.
    fn contains_batch_into<S: Storage, T: Hash>(
        &self,
        hashing: &Hashing,
        store: &S,
        keys: &[T],
        out: &mut Vec<bool>,
    );

    /// Keys per burst of a burst insert past the L2 cache: the lines of a burst's keys are
    /// prefetched before any of them is inserted.
    const INSERT_BURST: usize;

    /// The expected false-positive rate after `num_items` distinct keys.
    fn expected_fpr(&self, num_items: u64) -> f64;

    /// The number of keys the bits of `store` suggest (may be infinite when it is full).
    fn estimated_len<S: Storage>(&self, store: &S) -> f64;

    /// The false-positive rate the bits of `store` suggest.
    fn estimated_fpr<S: Storage>(&self, store: &S) -> f64;

    /// `Ok` when two layouts put a key's bits in the same places, so their bits combine.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] naming the first parameter that differs.
    fn check_same(&self, other: &Self) -> Result<(), Error>;

    /// The parameters in the format, [`PARAMS_LEN`](Layout::PARAMS_LEN) bytes.
    fn write_params(&self, out: &mut [u8]);

    /// The layout the format's parameters describe.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for parameters out of range.
    fn read_params(params: &[u8]) -> Result<Self, Error>;

    /// The implementation of the test this layout runs: [`Probe::Portable`] unless the layout
    /// has vector kernels.
    fn probe(&self) -> Probe {
        Probe::Portable
    }

    /// The layout running `probe`'s implementation of its test.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the CPU or the layout lacks it.
    fn with_probe(self, probe: Probe) -> Result<Self, Error> {
        match probe {
            Probe::Portable => Ok(self),
            other => Err(Error::invalid(
                "probe",
                alloc::format!("this layout has no {other:?} kernel"),
            )),
        }
    }

    /// The factors by which `self` and `other` must be folded for their bits to combine
    /// (`(1, 1)` for the same layout): a layout that folds combines filters whose sizes
    /// differ by a power of two.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when they cannot combine; by default, when they differ at
    /// all ([`check_same`](Layout::check_same)).
    fn fold_factors(&self, other: &Self) -> Result<(u32, u32), Error> {
        self.check_same(other).map(|()| (1, 1))
    }

    /// Words per block, the unit a fold merges (0 for a layout that does not fold).
    const BLOCK_WORDS: usize = 0;

    /// This layout with `factor` times fewer blocks.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `factor` is not a power of two dividing the blocks,
    /// or the layout does not fold.
    fn folded(&self, factor: u32) -> Result<Self, Error> {
        let _ = factor;
        Err(Error::invalid("factor", "this layout does not fold"))
    }

    /// Sets the bits of every key of `keys` in `words` using all of rayon's threads, with
    /// the same result as inserting them one by one. By default, one by one on this thread.
    #[cfg(feature = "rayon")]
    fn par_scatter<T: Hash + Sync>(&self, hashing: &Hashing, words: &mut [u64], keys: &[T]) {
        for key in keys {
            self.insert(words, Self::hash(hashing, key));
        }
    }
}

/// Which implementation of its test a filter runs: every one gives the same answers.
///
/// Filters pick [`Probe::best`] when built; `with_probe` forces one (to compare them, or to
/// rule out a SIMD path), and `probe` says which runs. A layout without vector kernels (the
/// classic one), and any filter over atomic words, runs [`Probe::Portable`].
///
/// # Examples
///
/// ```
/// use bloom_blocked::{BlockedBloomFilter, Probe};
///
/// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
/// filter.insert("key");
/// let portable = filter.clone().with_probe(Probe::Portable)?;
/// assert_eq!(portable.contains("key"), filter.contains("key"));
/// assert!(Probe::Portable.is_available());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Probe {
    /// Plain Rust, on every target.
    Portable,
    /// AVX2 vector instructions, 256 bits at a time (x86_64 CPUs that have AVX2, detected at
    /// run time; without `std`, builds whose target features include AVX2).
    Avx2,
    /// AVX-512 (F, BW and VL) vector instructions: a 512-bit block is one register (x86_64
    /// CPUs that have them and AVX2, detected at run time; without `std`, builds whose target
    /// features include them). The split-block filter, whose blocks are 256 bits, runs its
    /// AVX2 test under this probe.
    Avx512,
}

impl Probe {
    /// Whether this implementation runs on the current CPU: asked at run time with `std`;
    /// without it, whether the build targets the implementation's CPU features.
    pub fn is_available(self) -> bool {
        use crate::internal::simd::{Avx2, Avx512};
        match self {
            Probe::Portable => true,
            Probe::Avx2 => Avx2::detect().is_some(),
            Probe::Avx512 => Avx512::detect().is_some(),
        }
    }

    /// The best implementation the current CPU has: AVX-512, else AVX2, else portable.
    pub fn best() -> Probe {
        if Probe::Avx512.is_available() {
            Probe::Avx512
        } else if Probe::Avx2.is_available() {
            Probe::Avx2
        } else {
            Probe::Portable
        }
    }

    /// `Ok(self)` when available.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `probe` when the CPU lacks it.
    pub fn check(self) -> Result<Probe, Error> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(Error::invalid(
                "probe",
                alloc::format!("{self:?} is not available on this CPU"),
            ))
        }
    }
}

/// A layout of fixed-size blocks, each key's bits in one block (the blocked filters): its
/// filters have a block count, fold to a smaller size by OR-ing groups of blocks, and choose
/// the number of bits per key by a block's own formula.
pub trait BlockLayout: Layout {
    /// The number of blocks.
    fn num_blocks(&self) -> u64;

    /// The number of bits per key that gives the lowest rate at `bits_per_key` bits of
    /// memory per key (1 for a value that is not a positive number).
    fn optimal_num_hashes(bits_per_key: f64) -> u32;

    /// The largest power-of-two factor this layout folds by and still has at least
    /// `needed_blocks` blocks (1 when it cannot fold at all).
    fn largest_fold(&self, needed_blocks: u64) -> u32 {
        let blocks = self.num_blocks();
        let mut factor = 1u32;
        while factor < 1 << 31
            && blocks % (2 * u64::from(factor)) == 0
            && blocks / (2 * u64::from(factor)) >= needed_blocks.max(1)
        {
            factor *= 2;
        }
        factor
    }
}

/// A fixed-size filter: a [`Layout`] over a [`Storage`], with its hashing.
///
/// Every filter crate names its filters as aliases of this type (`BloomFilter`,
/// `BlockedBloomFilter`, and their atomic twins and views); the module docs show how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine<L, S> {
    layout: L,
    hashing: Hashing,
    store: S,
}

/// Every storage: the parameters, the hash and the queries.
impl<L: Layout, S: Storage> Engine<L, S> {
    /// The number of bits.
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.layout.num_bits()
    }

    /// The number of bits each key sets.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.layout.num_hashes()
    }

    /// The hash seed; `None` for a [keyed](Engine::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.hashing.seed()
    }

    /// How keys are hashed: the seed, or the secret key (whose bytes never leave the filter).
    #[inline]
    pub fn hashing(&self) -> Hashing {
        self.hashing
    }

    /// The layout: the parameters that fix where a key's bits go.
    #[inline]
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The implementation of the test this filter runs ([`Probe`]); over atomic words,
    /// always the portable one.
    pub fn probe(&self) -> Probe {
        if S::LINES {
            self.layout.probe()
        } else {
            Probe::Portable
        }
    }

    /// Runs `probe`'s implementation of the test from now on; the answers do not change.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the CPU or the layout lacks it.
    pub fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        self.layout = self.layout.with_probe(probe.check()?)?;
        Ok(self)
    }

    /// The hash this filter computes for `key` (under its seed, or its key: see
    /// [`Hashing`]), as taken by [`insert_hash`](Engine::insert_hash) and
    /// [`contains_hash`](Engine::contains_hash).
    #[inline(always)]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> L::Hash {
        L::hash(&self.hashing, key)
    }

    /// Whether `key` may be present: `false` means it was certainly never inserted.
    #[inline(always)]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline(always)]
    pub fn contains_hash(&self, hash: L::Hash) -> bool {
        // SAFETY: every constructor gives the store exactly the layout's bits (`from_layout`,
        // `from_bits`, the decoders and the folds make the store from the layout's size, or
        // the layout from the store's), and nothing changes either afterwards.
        unsafe { self.layout.contains(&self.store, hash) }
    }

    /// [`contains`](Engine::contains) for every key of `keys`, in order. Past the cache the
    /// keys are hashed in groups, their lines prefetched, then tested, so the misses of a
    /// group overlap (`docs/design.md`, "Batch queries"); the answers are those of
    /// `contains`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let filter: BloomFilter = (0..1_000u64).collect();
    /// let keys: Vec<u64> = (0..2_000).collect();
    /// let answers = filter.contains_batch(&keys);
    /// assert!(answers[..1_000].iter().all(|&a| a));
    /// assert!(answers.iter().zip(&keys).all(|(&a, k)| a == filter.contains(k)));
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](Engine::contains_batch) into `out`, which is cleared first and
    /// keeps its allocation, for a caller that queries batch after batch.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        self.layout
            .contains_batch_into(&self.hashing, &self.store, keys, out);
    }

    /// The number of bits set.
    pub fn count_ones(&self) -> u64 {
        self.store.count_ones()
    }

    /// The fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits() as f64
    }

    /// The number of distinct keys the fill suggests (Swamidass and Baldi's estimate for the
    /// classic layout, the layout's own for others); `u64::MAX` when every bit is set.
    pub fn estimated_len(&self) -> u64 {
        crate::internal::checks::round_count(self.layout.estimated_len(&self.store))
    }

    /// The false-positive rate at the current fill: the rate the layout's formula gives for
    /// what the bits show; 1 when every bit is set.
    pub fn estimated_fpr(&self) -> f64 {
        self.layout.estimated_fpr(&self.store)
    }

    /// The false-positive rate the layout's formula expects after `num_items` distinct keys.
    pub fn expected_fpr(&self, num_items: u64) -> f64 {
        self.layout.expected_fpr(num_items)
    }

    /// Bytes held by the filter (the bit array it owns plus the struct itself; a view owns
    /// no bytes).
    pub fn memory_usage(&self) -> usize {
        core::mem::size_of::<Self>() + self.store.heap_bytes()
    }

    /// The filter in the workspace's binary format (`docs/format.md`): a 16-byte header,
    /// the layout's parameters, the bit array as little-endian words, and a checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::BloomFilter;
    ///
    /// let mut filter = BloomFilter::new(1000, 0.01)?;
    /// filter.insert(&7u8);
    /// let copy = BloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(BloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    crate::if_std! {
        /// Writes the bytes of [`to_bytes`](Engine::to_bytes) to `writer`, 64 KiB at a time:
        /// memory beyond the filter is that buffer, whatever the filter's size. Atomic words
        /// are loaded one at a time: bits set meanwhile may or may not be written.
        ///
        /// # Errors
        ///
        /// [`Error::Io`] when the writer fails.
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::BloomFilter;
        ///
        /// let mut filter = BloomFilter::new(1000, 0.01)?;
        /// filter.insert(&7u8);
        /// let mut file = Vec::new();
        /// filter.write_to(&mut file)?;
        /// assert_eq!(file, filter.to_bytes());
        /// assert_eq!(BloomFilter::read_from(&file[..])?, filter);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<(), Error> {
            self.encode(Output::Writer(&mut writer)).map(drop)
        }
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let mut params = [0u8; 64];
        let params = &mut params[..L::PARAMS_LEN];
        self.layout.write_params(params);
        let payload_len = self.num_bits().div_ceil(64) * 8;
        crate::internal::frame::encode_to(
            output,
            L::VARIANT,
            self.hashing.scheme(),
            self.hashing.header_word(),
            params,
            payload_len,
            |out: &mut Sink<'_>| out.put_words(self.store.words()),
        )
    }
}

/// The frame of `bytes`, decoded: the layout, the hashing and the payload.
fn decode<'a, L: Layout>(
    bytes: &'a [u8],
    key: Option<&SecretKey>,
    checksum: Checksum,
) -> Result<(L, Hashing, &'a [u8]), Error> {
    let frame = crate::internal::frame::decode_frame(
        bytes,
        L::VARIANT,
        crate::format::HashScheme::Xxh3_128,
        L::PARAMS_LEN,
        checksum,
    )?;
    let hashing = Hashing::from_header(frame.scheme, frame.seed, key)?;
    let layout = L::read_params(frame.params)?;
    Ok((layout, hashing, frame.payload))
}

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
    fn folded(&self, factor: u32) -> Result<Self, Error> {
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

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
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
trait Bursts {
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
fn in_bursts<F: Bursts, T: Hash, I: IntoIterator<Item = T>>(filter: &mut F, keys: I) {
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

/// Atomic words, shared between threads (`&self` inserts, lock-free).
///
/// Each bit is set by one `AtomicU64::fetch_or` and read by one `load`, all with `Relaxed`
/// ordering. That is enough for a Bloom filter: bits only go from 0 to 1 and nothing else is
/// published through them, so a key is found by every query that starts after its insert
/// returned (and the threads synchronised, by a join, a channel, or a lock), and a concurrent
/// query may see some of its bits or all of them. It answers exactly like the owned filter
/// holding the same keys, has the same binary format, and converts to and from one.
impl<L: Layout> Engine<L, AtomicBitStore> {
    /// A filter sized for `expected_items` keys at false-positive rate `fpr`; see
    /// [`Engine::new`].
    ///
    /// # Errors
    ///
    /// As [`Engine::new`].
    pub fn new(expected_items: u64, fpr: f64) -> Result<Self, Error> {
        Ok(Engine::<L, BitStore>::new(expected_items, fpr)?.into_atomic())
    }

    /// A filter of `num_bits` bits and `num_hashes` bits per key; see
    /// [`Engine::with_params`].
    ///
    /// # Errors
    ///
    /// As [`Engine::with_params`].
    pub fn with_params(num_bits: u64, num_hashes: u32) -> Result<Self, Error> {
        Ok(Engine::<L, BitStore>::with_params(num_bits, num_hashes)?.into_atomic())
    }

    /// Returns this filter emptied and re-keyed with `seed`; see [`Engine::with_seed`].
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    /// Returns this filter emptied and keyed with a secret key; see [`Engine::with_key`].
    pub fn with_key(self, key: [u8; 16]) -> Self {
        self.with_hashing(Hashing::Keyed(SecretKey::from_bytes(key)))
    }

    crate::if_std! {
        /// Returns this filter emptied and re-keyed with a random seed; see
        /// [`Engine::with_random_seed`].
        pub fn with_random_seed(self) -> Self {
            self.with_seed(crate::hash::random_seed())
        }

        /// Returns this filter emptied and keyed with a random key; see
        /// [`Engine::with_random_key`].
        pub fn with_random_key(self) -> Self {
            self.with_hashing(Hashing::Keyed(SecretKey::random()))
        }
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.hashing = hashing;
        self.store.clear_mut();
        self
    }

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
    /// does: past the L2 cache in bursts whose lines are prefetched first.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&self, keys: I) {
        if self.memory_usage() <= crate::internal::caches::l2_cache_bytes() {
            for key in keys {
                self.insert(&key);
            }
            return;
        }
        let mut this = self;
        in_bursts(&mut this, keys);
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

    /// Reads a filter written by `to_bytes`; see [`Engine::from_bytes`].
    ///
    /// # Errors
    ///
    /// As [`Engine::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Ok(Engine::<L, BitStore>::from_bytes(bytes)?.into_atomic())
    }

    /// Reads a keyed filter's bytes; see [`Engine::from_bytes_with_key`].
    ///
    /// # Errors
    ///
    /// As [`Engine::from_bytes_with_key`].
    pub fn from_bytes_with_key(bytes: &[u8], key: &[u8; 16]) -> Result<Self, Error> {
        Ok(Engine::<L, BitStore>::from_bytes_with_key(bytes, key)?.into_atomic())
    }

    crate::if_std! {
        /// Reads a filter from `reader`; see [`Engine::read_from`].
        ///
        /// # Errors
        ///
        /// As [`Engine::read_from`].
        pub fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error> {
            Ok(Engine::<L, BitStore>::read_from(reader)?.into_atomic())
        }

        /// Reads a keyed filter from `reader`; see [`Engine::read_from_with_key`].
        ///
        /// # Errors
        ///
        /// As [`Engine::read_from_with_key`].
        pub fn read_from_with_key<R: std::io::Read>(
            reader: R,
            key: &[u8; 16],
        ) -> Result<Self, Error> {
            Ok(Engine::<L, BitStore>::read_from_with_key(reader, key)?.into_atomic())
        }
    }
}

/// A view: the bytes of a filter's `to_bytes`, queried where they lie (a memory-mapped
/// file), opened in O(1).
impl<'a, L: Layout> Engine<L, LeBits<'a>> {
    /// A view of the bytes of `to_bytes`. Checks the header, the parameters and the
    /// payload's length, not the checksum: O(1) in the filter's size.
    ///
    /// # Errors
    ///
    /// Those of the owned filter's `from_bytes` but [`Error::ChecksumMismatch`] (see
    /// [`verify`](Engine::verify)); never a panic. A keyed filter's bytes are
    /// [`Error::KeyRequired`]: open them with
    /// [`from_bytes_with_key`](Engine::from_bytes_with_key).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::{BloomFilter, BloomFilterRef};
    ///
    /// let filter: BloomFilter = (0..1_000u64).collect();
    /// let bytes = filter.to_bytes();
    /// let view = BloomFilterRef::from_bytes(&bytes)?;
    /// assert!((0..1_000u64).all(|k| view.contains(&k)));
    /// view.verify()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::open(bytes, None)
    }

    /// [`from_bytes`](Engine::from_bytes) for a [keyed](Engine::with_key) filter's bytes.
    ///
    /// # Errors
    ///
    /// Those of `from_bytes`, [`Error::WrongKey`] and [`Error::NotKeyed`].
    pub fn from_bytes_with_key(bytes: &'a [u8], key: &[u8; 16]) -> Result<Self, Error> {
        Self::open(bytes, Some(&SecretKey::from_bytes(*key)))
    }

    fn open(bytes: &'a [u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (layout, hashing, payload) = decode::<L>(bytes, key, Checksum::Skip)?;
        let store = LeBits::new(bytes, payload, layout.num_bits())?;
        Ok(Engine {
            layout,
            hashing,
            store,
        })
    }

    /// Checks the checksum: O(n), reading every byte once.
    ///
    /// # Errors
    ///
    /// [`Error::ChecksumMismatch`] when the bytes were altered since they were written.
    pub fn verify(&self) -> Result<(), Error> {
        crate::internal::frame::verify_checksum(self.store.frame())
    }

    /// Whether the payload starts on a 64-byte boundary (a page-aligned frame's does), so
    /// each block is one cache line. Any alignment gives the same answers.
    pub fn is_aligned(&self) -> bool {
        self.store.is_aligned()
    }

    /// The bytes the view reads.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.store.frame()
    }

    /// An owned copy of the filter (checking the checksum, as the owned `from_bytes` does).
    ///
    /// # Errors
    ///
    /// [`Error::ChecksumMismatch`] when the bytes were altered.
    pub fn to_owned(&self) -> Result<Engine<L, BitStore>, Error> {
        Engine::<L, BitStore>::decode_with(self.store.frame(), self.hashing.secret_key())
    }
}

/// Filters of a [`BlockLayout`]: their blocks, and folding.
impl<L: BlockLayout, S: Storage> Engine<L, S> {
    /// The number of blocks.
    #[inline]
    pub fn num_blocks(&self) -> usize {
        // A block count that exists in memory fits a `usize`.
        self.layout.num_blocks() as usize
    }
}

/// Owned filters of a [`BlockLayout`]: sizing by the block's formula, and folding.
impl<L: BlockLayout> Engine<L, BitStore> {
    /// The number of bits per key that gives the lowest rate at `bits_per_key` bits of
    /// memory per key, by the layout's own formula (not the classic `(m/n) ln 2`).
    pub fn optimal_num_hashes(bits_per_key: f64) -> u32 {
        L::optimal_num_hashes(bits_per_key)
    }

    /// The filter with `factor` times fewer blocks (a power of two dividing the block count),
    /// holding every key this one holds: block `i` is the OR of blocks `i * factor` to
    /// `(i + 1) * factor - 1`, exactly where each of their keys lands in the smaller filter.
    /// The rate rises to what the smaller size gives for the keys held; the bytes are those
    /// of the smaller filter built from the same keys.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when `factor` is not a power of two dividing the block
    /// count.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::BlockedBloomFilter;
    ///
    /// let mut big = BlockedBloomFilter::with_params(64 * 512, 7)?;
    /// big.insert_all(0..100u32);
    /// let small = big.fold(4)?;
    /// assert_eq!(small.num_blocks(), 16);
    /// assert!((0..100u32).all(|k| small.contains(&k)));
    /// let mut direct = BlockedBloomFilter::with_params(16 * 512, 7)?;
    /// direct.insert_all(0..100u32);
    /// assert_eq!(small.to_bytes(), direct.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold(&self, factor: u32) -> Result<Self, Error> {
        self.folded(factor)
    }

    /// The smallest fold of this filter (by a power of two) still sized for
    /// `expected_items` keys at `fpr`: for a filter built large because its key count was
    /// not known, once it is.
    ///
    /// # Errors
    ///
    /// Those of [`new`](Engine::new) for `expected_items` and `fpr`.
    pub fn fold_to_fit(&self, expected_items: u64, fpr: f64) -> Result<Self, Error> {
        let needed = L::for_items(expected_items, fpr)?.num_blocks();
        self.folded(self.layout.largest_fold(needed))
    }
}

impl<L: Layout> From<Engine<L, BitStore>> for Engine<L, AtomicBitStore> {
    fn from(filter: Engine<L, BitStore>) -> Self {
        filter.into_atomic()
    }
}

impl<L: Layout> From<Engine<L, AtomicBitStore>> for Engine<L, BitStore> {
    fn from(filter: Engine<L, AtomicBitStore>) -> Self {
        filter.into_plain()
    }
}

/// Adds every key of the iterator ([`insert_all`](Engine::insert_all)).
impl<L: Layout, T: Hash> Extend<T> for Engine<L, BitStore> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

/// Adds every key of the iterator.
impl<L: Layout, T: Hash> Extend<T> for Engine<L, AtomicBitStore> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
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
impl<L: Layout, T: Hash> FromIterator<T> for Engine<L, BitStore> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let keys: Vec<T> = iter.into_iter().collect();
        // A slice's length always fits a `u64` (no target has a wider `usize`).
        let mut filter = Self::new(keys.len().max(1) as u64, DEFAULT_FPR)
            .expect("the number of keys held in memory fits a filter");
        filter.insert_all(&keys);
        filter
    }
}

/// Collects keys as the owned filter does, then converts.
///
/// # Panics
///
/// As the owned filter's `FromIterator`.
impl<L: Layout, T: Hash> FromIterator<T> for Engine<L, AtomicBitStore> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Engine::<L, BitStore>::from_iter(iter).into_atomic()
    }
}

/// The false-positive rate `FromIterator` sizes for.
pub const DEFAULT_FPR: f64 = 0.01;

impl<L: Layout> crate::Filter for Engine<L, BitStore> {
    type Hash = L::Hash;
    const NAME: &'static str = L::NAME;

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> L::Hash {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: L::Hash) -> Result<bool, Error> {
        Ok(Engine::<L, BitStore>::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: L::Hash) -> bool {
        Engine::<L, BitStore>::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        Engine::<L, BitStore>::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        Engine::<L, BitStore>::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        Engine::<L, BitStore>::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        Engine::<L, BitStore>::estimated_len(self)
    }

    fn clear(&mut self) {
        Engine::<L, BitStore>::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        Engine::<L, BitStore>::union(self, other)
    }

    fn to_bytes(&self) -> Vec<u8> {
        Engine::<L, BitStore>::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Engine::<L, BitStore>::from_bytes(bytes)
    }

    crate::if_std! {
        fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error> {
            Engine::<L, BitStore>::write_to(self, writer)
        }

        fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error> {
            Engine::<L, BitStore>::read_from(reader)
        }
    }
}

impl<L: Layout> crate::Filter for Engine<L, AtomicBitStore> {
    type Hash = L::Hash;
    const NAME: &'static str = L::ATOMIC_NAME;

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> L::Hash {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: L::Hash) -> Result<bool, Error> {
        Ok(Engine::<L, AtomicBitStore>::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: L::Hash) -> bool {
        Engine::<L, AtomicBitStore>::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        Engine::<L, AtomicBitStore>::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        Engine::<L, AtomicBitStore>::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        Engine::<L, AtomicBitStore>::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        Engine::<L, AtomicBitStore>::estimated_len(self)
    }

    fn clear(&mut self) {
        Engine::<L, AtomicBitStore>::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        Engine::<L, AtomicBitStore>::union(self, other)
    }

    fn to_bytes(&self) -> Vec<u8> {
        Engine::<L, AtomicBitStore>::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Engine::<L, AtomicBitStore>::from_bytes(bytes)
    }

    crate::if_std! {
        fn write_to<W: std::io::Write>(&self, writer: W) -> Result<(), Error> {
            Engine::<L, AtomicBitStore>::write_to(self, writer)
        }

        fn read_from<R: std::io::Read>(reader: R) -> Result<Self, Error> {
            Engine::<L, AtomicBitStore>::read_from(reader)
        }
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::*;

    /// The bytes of `to_bytes` (base64 in human-readable formats).
    impl<L: Layout> serde::Serialize for Engine<L, BitStore> {
        fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            crate::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
        }
    }

    /// From the bytes of `to_bytes`, checked as `from_bytes` checks them.
    impl<'de, L: Layout> serde::Deserialize<'de> for Engine<L, BitStore> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            crate::internal::serde_bytes::deserialize(deserializer, Self::from_bytes)
        }
    }

    /// The bytes of `to_bytes` (base64 in human-readable formats).
    impl<L: Layout> serde::Serialize for Engine<L, AtomicBitStore> {
        fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            crate::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
        }
    }

    /// From the bytes of `to_bytes`, checked as `from_bytes` checks them.
    impl<'de, L: Layout> serde::Deserialize<'de> for Engine<L, AtomicBitStore> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            crate::internal::serde_bytes::deserialize(deserializer, Self::from_bytes)
        }
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::*;
    use crate::internal::par;
    use rayon::iter::{
        FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
    };

    impl<L: Layout, S: Storage + Sync> Engine<L, S> {
        /// [`contains_batch`](Engine::contains_batch) on all of rayon's threads: the keys
        /// split into one task per share, each answered by the batch query. The answers are
        /// those of `contains_batch`.
        pub fn par_contains_batch<T: Hash + Sync>(&self, keys: &[T]) -> Vec<bool> {
            par::par_contains_batch(keys, |part, out| self.contains_batch_into(part, out))
        }
    }

    impl<L: Layout> Engine<L, BitStore> {
        /// Adds every key of `keys` using all of rayon's threads. The result is identical to
        /// [`insert_all`](Engine::insert_all)'s.
        ///
        /// Keys are hashed in parallel and their positions sorted into regions of the bit
        /// array, each region then written by one thread (the parallel scatter): no atomics,
        /// no per-thread copy of the filter. A filter of at most a quarter of the last-level
        /// cache, given enough keys per thread, is built instead as whole copies, one per
        /// thread, then merged; one larger but still in the cache, or a call with fewer keys
        /// or one thread, by `insert_all` (`docs/design.md`, "Parallel build").
        ///
        /// # Examples
        ///
        /// ```
        /// use bloom_classic::BloomFilter;
        ///
        /// let keys: Vec<u64> = (0..100_000).collect();
        /// let mut filter = BloomFilter::new(keys.len() as u64, 0.01)?;
        /// filter.par_insert_all(&keys);
        /// assert!(keys.iter().all(|k| filter.contains(k)));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_insert_all<T: Hash + Sync>(&mut self, keys: &[T]) {
            par::par_insert_all(self, keys);
        }

        /// Adds every key of an iterator using all of rayon's threads: the keys are gathered
        /// in chunks, each chunk built by [`par_insert_all`](Engine::par_insert_all) while the
        /// next is gathered.
        pub fn par_insert_iter<T, I>(&mut self, keys: I)
        where
            T: Hash + Send + Sync,
            I: IntoIterator<Item = T>,
            I::IntoIter: Send,
        {
            par::par_insert_iter(keys, |chunk: &[T]| self.par_insert_all(chunk));
        }
    }

    impl<L: Layout> Engine<L, AtomicBitStore> {
        /// Adds every key of `keys` from all of rayon's threads, through the atomic inserts.
        ///
        /// For building a filter from scratch, the owned filter's `par_insert_all` (then
        /// `into_atomic`) is faster: it needs no locked instructions. With one thread or few
        /// keys it inserts them on the calling thread.
        pub fn par_insert_all<T: Hash + Sync>(&self, keys: &[T]) {
            par::par_insert_shared(keys, |part| self.insert_all(part));
        }

        /// Adds every key of an iterator from all of rayon's threads, in chunks.
        pub fn par_insert_iter<T, I>(&self, keys: I)
        where
            T: Hash + Send + Sync,
            I: IntoIterator<Item = T>,
            I::IntoIter: Send,
        {
            par::par_insert_iter(keys, |chunk: &[T]| self.par_insert_all(chunk));
        }
    }

    impl<L: Layout> par::ParBuild for Engine<L, BitStore> {
        fn empty_twin(&self) -> Option<Self> {
            let mut twin = Self::from_layout(self.layout).ok()?;
            twin.hashing = self.hashing;
            Some(twin)
        }

        fn insert_keys<T: Hash>(&mut self, keys: &[T]) {
            self.insert_all(keys);
        }

        fn scatter<T: Hash + Sync>(&mut self, keys: &[T]) {
            let (layout, hashing) = (self.layout, self.hashing);
            layout.par_scatter(&hashing, self.store.as_words_mut(), keys);
        }
    }

    /// Adds the keys with [`par_insert_all`](Engine::par_insert_all).
    impl<L: Layout, T: Hash + Send + Sync> ParallelExtend<T> for Engine<L, BitStore> {
        fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
            let keys: Vec<T> = par_iter.into_par_iter().collect();
            self.par_insert_all(&keys);
        }
    }

    /// Collects keys into a filter sized for their number at 1%, built by
    /// [`par_insert_all`](Engine::par_insert_all).
    ///
    /// # Panics
    ///
    /// As `FromIterator`.
    impl<L: Layout, T: Hash + Send + Sync> FromParallelIterator<T> for Engine<L, BitStore> {
        fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
            let keys: Vec<T> = par_iter.into_par_iter().collect();
            // A slice's length always fits a `u64` (no target has a wider `usize`).
            let mut filter = Self::new(keys.len().max(1) as u64, DEFAULT_FPR)
                .expect("the number of keys held in memory fits a filter");
            filter.par_insert_all(&keys);
            filter
        }
    }
}
