//! The filter: [`Engine<L, S>`], and what it does over every storage.

use alloc::vec::Vec;
use core::hash::Hash;

use super::layout::Layout;
use super::storage::Storage;
use crate::Error;
use crate::hash::{Hashing, KeyHashing, SecretKey};
use crate::internal::frame::{Checksum, Output, Sink};
use crate::internal::simd::Probe;

/// A fixed-size filter: a [`Layout`] over a [`Storage`], with its hashing.
///
/// Every filter crate names its filters as aliases of this type (`BloomFilter`,
/// `BlockedBloomFilter`, and their atomic twins and views); the module docs show how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine<L: Layout, S> {
    pub(super) layout: L,
    pub(super) hashing: L::Hashing,
    pub(super) store: S,
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

    /// How keys are hashed: the seed, or the secret key (whose bytes never leave the filter);
    /// for a layout whose format fixes the hash, that hash.
    #[inline]
    pub fn hashing(&self) -> L::Hashing {
        self.hashing
    }

    /// The layout: the parameters that fix where a key's bits go.
    #[inline]
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The implementation of the test this filter runs ([`Probe`]), over every storage (the
    /// kernels read atomic words in place too: [`Storage::SHARED_LINES`]).
    pub fn probe(&self) -> Probe {
        self.layout.probe()
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
    #[cfg(feature = "std")]
    pub fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<(), Error> {
        self.encode(Output::Writer(&mut writer)).map(drop)
    }

    pub(super) fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let mut params = alloc::vec![0u8; L::PARAMS_LEN];
        self.layout.write_params(&mut params);
        let payload_len = self.num_bits().div_ceil(64) * 8;
        crate::internal::frame::encode_to(
            output,
            L::VARIANT,
            self.hashing.scheme(),
            self.hashing.header_word(),
            &params,
            payload_len,
            |out: &mut Sink<'_>| out.put_words(self.store.words()),
        )
    }
}

/// The filters of layouts hashed by a seed or a secret key.
impl<L: Layout<Hashing = Hashing>, S: Storage> Engine<L, S> {
    /// The hash seed; `None` for a [keyed](crate::Keyed::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.hashing.seed()
    }
}

/// The frame of `bytes`, decoded: the layout, the hashing and the payload.
pub(super) fn decode<'a, L: Layout>(
    bytes: &'a [u8],
    key: Option<&SecretKey>,
    checksum: Checksum,
) -> Result<(L, L::Hashing, &'a [u8]), Error> {
    let frame = crate::internal::frame::decode_frame(
        bytes,
        L::VARIANT,
        L::Hashing::SCHEME,
        L::PARAMS_LEN,
        checksum,
    )?;
    let hashing = L::Hashing::from_header(frame.scheme, frame.seed, key)?;
    let layout = L::read_params(frame.params)?;
    Ok((layout, hashing, frame.payload))
}

/// The false-positive rate `FromIterator` sizes for.
pub const DEFAULT_FPR: f64 = 0.01;
