//! Filters of a layout hashed as Parquet hashes ([`ParquetHash`]: Parquet's split-block
//! filter). Values go in by their plain encoding, sizes follow Parquet's rule, and the filter
//! reads and writes Parquet's own bytes: the Thrift `BloomFilterHeader` and the bitset.

use alloc::{format, vec::Vec};

use super::filter::Engine;
use super::layout::BlockLayout;
use super::storage::Storage;
use super::traits::Writable;
use crate::Error;
use crate::bits::{AtomicBitStore, BitStore};
use crate::format::{ParquetHeader, parquet_num_bytes};
use crate::hash::ParquetHash;
use crate::internal::checks::check_bitset_len;
use crate::internal::float::{Float, Native};

/// Bits Parquet's filters set per value: one in each of a block's eight 32-bit words.
const PARQUET_HASHES: u32 = 8;

/// Every storage: the hash of plain-encoded values, the queries by value and Parquet's bytes.
impl<L: BlockLayout<Hash = u64, Hashing = ParquetHash>, S: Storage> Engine<L, S> {
    /// Parquet's hash of a value's plain-encoded bytes: XXH64 with seed 0.
    #[inline(always)]
    pub fn hash_bytes(bytes: &[u8]) -> u64 {
        ParquetHash::hash_bytes(bytes)
    }

    /// Whether a value given by its plain-encoded bytes (a `BYTE_ARRAY` or
    /// `FIXED_LEN_BYTE_ARRAY` value's bytes, a UTF-8 string's bytes) may be present.
    #[inline]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_hash(Self::hash_bytes(bytes))
    }

    /// Whether an `INT32` value may be present (plain encoding: 4 bytes little-endian).
    #[inline]
    pub fn contains_i32(&self, value: i32) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Whether an `INT64` value may be present (plain encoding: 8 bytes little-endian).
    #[inline]
    pub fn contains_i64(&self, value: i64) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Whether a `FLOAT` value may be present (its IEEE-754 bits, 4 bytes little-endian).
    #[inline]
    pub fn contains_f32(&self, value: f32) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Whether a `DOUBLE` value may be present (its IEEE-754 bits, 8 bytes little-endian).
    #[inline]
    pub fn contains_f64(&self, value: f64) -> bool {
        self.contains_bytes(&value.to_le_bytes())
    }

    /// Bytes of the bitset (32 per block).
    pub fn num_bytes(&self) -> usize {
        // A bitset that exists in memory has a byte count that fits a `usize`.
        (self.num_bits() / 8) as usize
    }

    /// The raw bitset as Parquet stores it: the blocks' `u32` words, little-endian.
    pub fn bitset_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.num_bytes());
        self.put_bitset(&mut out);
        out
    }

    /// Parquet's serialised form, as stored in a file: the Thrift-compact
    /// `BloomFilterHeader` ([`ParquetHeader`]) followed by the bitset.
    pub fn to_parquet_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.num_bytes());
        ParquetHeader {
            num_bytes: self.num_bytes(),
        }
        .write(&mut out);
        self.put_bitset(&mut out);
        out
    }

    fn put_bitset(&self, out: &mut Vec<u8>) {
        for word in self.store.words() {
            out.extend_from_slice(&word.to_le_bytes());
        }
    }
}

/// Owned and atomic words: the filters made from Parquet's sizes and bytes.
impl<L: BlockLayout<Hash = u64, Hashing = ParquetHash>, S: Writable> Engine<L, S> {
    /// A filter of `num_bytes` bytes by Parquet's rule: clamped to 32 bytes..128 MiB and
    /// rounded up to a power of two, as the `parquet` crate's `Sbbf::new_with_num_of_bytes`.
    ///
    /// # Panics
    ///
    /// When the allocator refuses the bitset (at most 128 MiB).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// assert_eq!(SplitBlockBloomFilter::with_num_bytes(1000).num_bytes(), 1024);
    /// assert_eq!(SplitBlockBloomFilter::with_num_bytes(0).num_bytes(), 32);
    /// ```
    pub fn with_num_bytes(num_bytes: usize) -> Self {
        let num_bits = parquet_num_bytes(num_bytes) as u64 * 8;
        Self::with_params(num_bits, PARQUET_HASHES).expect("a bitset of at most 128 MiB")
    }

    /// A filter over a raw Parquet bitset.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] unless the length is a multiple of 32 between 32 bytes and 128 MiB
    /// (any whole number of blocks: the block index formula needs no power of two, though
    /// Parquet writers produce one); [`Error::OutOfMemory`].
    pub fn from_bitset(bitset: &[u8]) -> Result<Self, Error> {
        let num_bits = check_bitset_len(bitset.len() as u64)? as u64 * 8;
        let bits = BitStore::from_le_bytes(bitset, num_bits)?;
        Engine::<L, BitStore>::from_bits(bits, PARQUET_HASHES, ParquetHash).map(S::from_owned)
    }

    /// Reads Parquet's serialised form: a `BloomFilterHeader` and exactly the bitset it
    /// announces (the `parquet` crate's `Sbbf::write` output, or a filter's bytes cut from a
    /// file using the column chunk's `bloom_filter_length`).
    ///
    /// # Errors
    ///
    /// The errors of [`ParquetHeader::read`]; [`Error::Truncated`] when the bitset is
    /// shorter than announced, [`Error::Corrupt`] when bytes follow it.
    pub fn from_parquet_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (header, header_len) = ParquetHeader::read(bytes)?;
        let bitset = &bytes[header_len..];
        let expected = header.num_bytes;
        if bitset.len() < expected {
            return Err(Error::Truncated {
                needed: expected as u64,
                available: bitset.len() as u64,
            });
        }
        if bitset.len() > expected {
            return Err(Error::corrupt(format!(
                "{} bytes after the bitset",
                bitset.len() - expected
            )));
        }
        Self::from_bitset(bitset)
    }
}

/// Owned words: inserts by value, and folding to a rate.
impl<L: BlockLayout<Hash = u64, Hashing = ParquetHash>> Engine<L, BitStore> {
    /// Adds a value by its plain-encoded bytes (see
    /// [`contains_bytes`](Engine::contains_bytes)); whether all its bits were set before.
    #[inline]
    pub fn insert_bytes(&mut self, bytes: &[u8]) -> bool {
        self.insert_hash(Self::hash_bytes(bytes))
    }

    /// Adds an `INT32` value (plain encoding: 4 bytes little-endian).
    #[inline]
    pub fn insert_i32(&mut self, value: i32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Adds an `INT64` value (plain encoding: 8 bytes little-endian).
    #[inline]
    pub fn insert_i64(&mut self, value: i64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Adds a `FLOAT` value (plain encoding: its IEEE-754 bits, 4 bytes little-endian; `0.0`
    /// and `-0.0`, and NaNs with different payloads, are different values).
    #[inline]
    pub fn insert_f32(&mut self, value: f32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// Adds a `DOUBLE` value (plain encoding: its IEEE-754 bits, 8 bytes little-endian).
    #[inline]
    pub fn insert_f64(&mut self, value: f64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// The filter folded as often as its expected rate stays within `target_fpp`, judged
    /// from its fill: with a share `f` of bits set, `j` folds (each ORing pairs of blocks)
    /// leave a fill of `1 - (1 - f)^(2^j)` and an expected rate of that to the 8th power (8
    /// bits tested per value); an empty filter folds to one block. This is the rule of the
    /// `parquet` crate's `Sbbf::fold_to_target_fpp` (version 59), and gives its bytes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `target_fpp` not in (0, 1).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_blocked::SplitBlockBloomFilter;
    ///
    /// let mut filter = SplitBlockBloomFilter::with_num_bytes(1 << 20);
    /// for v in 0..10_000i64 {
    ///     filter.insert_i64(v);
    /// }
    /// let folded = filter.fold_to_fpp(0.01)?;
    /// assert!(folded.num_bytes() <= 1 << 14);
    /// assert!(folded.estimated_fpr() <= 0.011);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fold_to_fpp(&self, target_fpp: f64) -> Result<Self, Error> {
        crate::internal::checks::check_rate("target_fpp", target_fpp)?;
        let max_folds = self.layout.num_blocks().trailing_zeros();
        // An empty filter's rate stays 0 whatever the folds: it folds to one block.
        let mut clear = 1.0 - self.fill_ratio();
        let mut folds = 0;
        while folds < max_folds {
            clear *= clear;
            if Native::powi(1.0 - clear, PARQUET_HASHES as i32) > target_fpp {
                break;
            }
            folds += 1;
        }
        self.fold(1 << folds)
    }
}

/// Atomic words: the inserts by value take `&self`, from any number of threads.
impl<L: BlockLayout<Hash = u64, Hashing = ParquetHash>> Engine<L, AtomicBitStore> {
    /// [`insert_bytes`](Engine::insert_bytes) from any thread.
    #[inline]
    pub fn insert_bytes(&self, bytes: &[u8]) -> bool {
        self.insert_hash(Self::hash_bytes(bytes))
    }

    /// [`insert_i32`](Engine::insert_i32) from any thread.
    #[inline]
    pub fn insert_i32(&self, value: i32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// [`insert_i64`](Engine::insert_i64) from any thread.
    #[inline]
    pub fn insert_i64(&self, value: i64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// [`insert_f32`](Engine::insert_f32) from any thread.
    #[inline]
    pub fn insert_f32(&self, value: f32) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }

    /// [`insert_f64`](Engine::insert_f64) from any thread.
    #[inline]
    pub fn insert_f64(&self, value: f64) -> bool {
        self.insert_bytes(&value.to_le_bytes())
    }
}
