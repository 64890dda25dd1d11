//! What every owning filter (owned or atomic words) is made by, written once over
//! [`Writable`]: the constructors, the seed and the key, and the decoders of its bytes.

use super::filter::{Engine, decode};
use super::layout::Layout;
use super::traits::Writable;
use crate::bits::BitStore;
#[cfg(feature = "std")]
use crate::hash::KeyHashing;
use crate::hash::{Hashing, SecretKey};
use crate::internal::frame::Checksum;
use crate::{Error, Keyed};

/// Owned and atomic words alike: an atomic filter is made as an owned one, then its words
/// moved to atomic ones (no copy).
impl<L: Layout, S: Writable> Engine<L, S> {
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
        Engine::<L, BitStore>::from_layout(L::for_items(expected_items, fpr)?).map(S::from_owned)
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
        Engine::<L, BitStore>::from_layout(L::with_params(num_bits, num_hashes)?).map(S::from_owned)
    }

    /// Reads a filter written by `to_bytes` (by this filter, its atomic twin or a view's
    /// `to_bytes`).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a
    /// panic, and never an allocation larger than `bytes`. [`Error::KeyRequired`] for a
    /// [keyed](crate::Keyed::with_key) filter's bytes (see
    /// [`from_bytes_with_key`](crate::Keyed::from_bytes_with_key)).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_keyed(bytes, None)
    }

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
    #[cfg(feature = "std")]
    pub fn read_from<R: std::io::Read>(mut reader: R) -> Result<Self, Error> {
        Self::read_keyed(&mut reader, None)
    }
}

impl<L: Layout, S: Writable> Engine<L, S> {
    /// The filter of `bytes`, hashed as its header says (under `key` for a keyed one).
    pub(super) fn decode_keyed(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (layout, hashing, payload) = decode::<L>(bytes, key, Checksum::Verify)?;
        let store = BitStore::from_le_bytes(payload, layout.num_bits())?;
        Ok(S::from_owned(Engine {
            layout,
            hashing,
            store,
        }))
    }

    /// The filter `reader` holds, hashed as its header says (under `key` for a keyed one).
    #[cfg(feature = "std")]
    pub(super) fn read_keyed(
        reader: &mut dyn std::io::Read,
        key: Option<&SecretKey>,
    ) -> Result<Self, Error> {
        let frame = crate::internal::frame::FrameReader::open(
            reader,
            L::VARIANT,
            L::Hashing::SCHEME,
            L::PARAMS_LEN,
        )?;
        let hashing = L::Hashing::from_header(frame.scheme, frame.seed, key)?;
        let layout = L::read_params(&frame.params)?;
        let store = BitStore::from_parts(frame.finish_with_words()?, layout.num_bits())?;
        Ok(S::from_owned(Engine {
            layout,
            hashing,
            store,
        }))
    }
}

/// The seed of filters whose layout is hashed by a seed or a secret key.
impl<L: Layout<Hashing = Hashing>, S: Writable> Engine<L, S> {
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
    /// false-positive rate; a secret [key](crate::Keyed::with_key) protects even filters whose
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

    /// Returns this filter emptied and re-keyed with a seed from the operating system's
    /// randomness ([`random_seed`](crate::hash::random_seed)). Only with the `std`
    /// feature.
    #[cfg(feature = "std")]
    pub fn with_random_seed(self) -> Self {
        self.with_seed(crate::hash::random_seed())
    }
}

impl<L: Layout<Hashing = Hashing>, S: Writable> crate::internal::Sealed for Engine<L, S> {}

/// The keyed forms, written once for every owning filter hashed by a seed or a secret key.
impl<L: Layout<Hashing = Hashing>, S: Writable> Keyed for Engine<L, S> {
    fn hashing(&self) -> Hashing {
        self.hashing
    }

    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.hashing = hashing;
        S::reset(&mut self.store);
        self
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        Self::decode_keyed(bytes, key)
    }

    #[cfg(feature = "std")]
    fn read_with(reader: &mut dyn std::io::Read, key: Option<&SecretKey>) -> Result<Self, Error> {
        Self::read_keyed(reader, key)
    }
}
