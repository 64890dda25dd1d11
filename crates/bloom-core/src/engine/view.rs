//! Views: a filter's bytes queried where they lie.

use super::filter::{Engine, decode};
use super::layout::Layout;
use super::storage::LeBits;
use crate::Error;
use crate::bits::BitStore;
use crate::hash::{Hashing, KeyHashing, SecretKey};
use crate::internal::frame::Checksum;

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
        Engine::<L, BitStore>::decode_keyed(self.store.frame(), self.hashing.secret_key())
    }
}

/// Views of filters hashed by a seed or a secret key.
impl<'a, L: Layout<Hashing = Hashing>> Engine<L, LeBits<'a>> {
    /// [`from_bytes`](Engine::from_bytes) for a [keyed](crate::Keyed::with_key) filter's bytes.
    ///
    /// # Errors
    ///
    /// Those of `from_bytes`, [`Error::WrongKey`] and [`Error::NotKeyed`].
    pub fn from_bytes_with_key(bytes: &'a [u8], key: &[u8; 16]) -> Result<Self, Error> {
        Self::open(bytes, Some(&SecretKey::from_bytes(*key)))
    }
}
