//! A zero-copy view of a classic filter's bytes: queries read the bits where they lie.

use alloc::vec::Vec;
use core::hash::Hash;

use bloom_core::Error;
use bloom_core::bits::BitStore;
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::batch::ProbeSet;
use bloom_core::internal::{self, Probes, prefetch};

use crate::BloomFilter;
use crate::params::Params;

/// A read-only [`BloomFilter`] over the bytes of its [`to_bytes`](BloomFilter::to_bytes) (a
/// memory-mapped file, a page of a block cache), queried where they lie: opening reads the
/// header and nothing of the bit array, so it costs the same for a kilobyte and a gigabyte.
///
/// It answers [`contains`](BloomFilterRef::contains), [`contains_hash`](BloomFilterRef::contains_hash)
/// and [`contains_batch`](BloomFilterRef::contains_batch) exactly as the owning filter would.
/// The bytes may start at any address: bit `p` is read as bit `p % 8` of byte `p / 8` of the
/// payload (the words are little-endian), so no alignment and no byte order is assumed.
///
/// Opening does not read the checksum (it would read every byte):
/// [`verify`](BloomFilterRef::verify) does, when the caller wants it;
/// [`to_owned`](BloomFilterRef::to_owned) copies into a [`BloomFilter`], checksum included.
///
/// # Examples
///
/// ```
/// use bloom_classic::{BloomFilter, BloomFilterRef};
///
/// let mut filter = BloomFilter::new(10_000, 0.01)?;
/// filter.insert_all(0..10_000u64);
/// let bytes = filter.to_bytes();
/// let view = BloomFilterRef::from_bytes(&bytes)?;
/// view.verify()?;
/// // No false negatives...
/// assert!((0..10_000u64).all(|i| view.contains(&i)));
/// // ...about 1% false positives, the owning filter's answers exactly.
/// let fp = (10_000..110_000u64).filter(|i| view.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// assert!((10_000..20_000u64).all(|i| view.contains(&i) == filter.contains(&i)));
/// assert_eq!(view.to_owned()?, filter);
///
/// // A keyed filter's bytes open with its key only.
/// let key = *b"0123456789abcdef";
/// let mut keyed = BloomFilter::new(1000, 0.01)?.with_key(key);
/// keyed.insert("secret");
/// let bytes = keyed.to_bytes();
/// assert!(BloomFilterRef::from_bytes(&bytes).is_err());
/// assert!(BloomFilterRef::from_bytes_with_key(&bytes, &key)?.contains("secret"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BloomFilterRef<'a> {
    /// The whole frame, for `verify` and `to_owned`.
    bytes: &'a [u8],
    bits: ByteBits<'a>,
    params: Params,
}

impl<'a> BloomFilterRef<'a> {
    /// The owning filter's decoder, the checksum skipped, and the payload's check.
    fn open(bytes: &'a [u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (params, payload) = Params::decode(bytes, key, internal::Checksum::Skip)?;
        BitStore::check_le_bytes(payload, params.num_bits)?;
        Ok(BloomFilterRef {
            bytes,
            bits: ByteBits {
                bytes: payload,
                num_bits: params.num_bits,
            },
            params,
        })
    }

    /// The owning filter of these bytes, read by [`BloomFilter::from_bytes`] (or
    /// [`from_bytes_with_key`](BloomFilter::from_bytes_with_key) for a keyed view), so the
    /// checksum is checked.
    ///
    /// # Errors
    ///
    /// [`Error::ChecksumMismatch`] when the bytes were altered; [`Error::OutOfMemory`] when
    /// the allocator refuses the copy.
    pub fn to_owned(&self) -> Result<BloomFilter, Error> {
        BloomFilter::decode_with(self.bytes, self.params.hashing.secret_key())
    }

    /// The number of bits.
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.params.num_bits
    }

    /// The number of probes (bits set) per key.
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.params.num_hashes
    }

    /// The hash seed; `None` for a keyed filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.params.hashing.seed()
    }

    /// How the filter hashes its keys: its seed, or the key the view was opened with.
    pub fn hashing(&self) -> Hashing {
        self.params.hashing
    }

    /// The 128-bit hash of `key`, as [`BloomFilter::hash`] computes it.
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.params.hashing.hash(key)
    }

    /// Whether `key` may be present: `false` means it was certainly never inserted.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash ([`hash`](BloomFilterRef::hash)) may be present.
    #[inline]
    pub fn contains_hash(&self, hash: u128) -> bool {
        self.bits.all_set(Probes::new(
            hash,
            self.params.num_hashes,
            self.params.num_bits,
        ))
    }

    /// Answers [`contains`](BloomFilterRef::contains) for every key, in order, through the
    /// batch engine the owning filter's [`contains_batch`](BloomFilter::contains_batch) runs
    /// (keys hashed in bursts, their lines prefetched before any is tested).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_classic::{BloomFilter, BloomFilterRef};
    ///
    /// let filter: BloomFilter = (0..100u32).collect();
    /// let bytes = filter.to_bytes();
    /// let view = BloomFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.contains_batch(&[1u32, 50, 99]), vec![true, true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](BloomFilterRef::contains_batch) writing into a caller's buffer:
    /// `out` is cleared and receives one answer per key.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        bloom_core::internal::batch::contains_batch_into(&self.params.query(&self.bits), keys, out);
    }
}

bloom_core::internal::view_via_open!(keyed BloomFilterRef, BloomFilter);

/// The bits of a classic filter as its payload's bytes: bit `p` is bit `p % 8` of byte
/// `p / 8`, whatever the address and the machine's byte order (the words are little-endian).
#[derive(Debug, Clone, Copy)]
struct ByteBits<'a> {
    /// `8 * ceil(num_bits / 64)` bytes, checked when the view was opened.
    bytes: &'a [u8],
    num_bits: u64,
}

impl ByteBits<'_> {
    /// The byte holding bit `pos` (`pos < num_bits`), and the bit in it shifted to bit 0.
    #[inline(always)]
    fn shifted(&self, pos: u64) -> u8 {
        // In bounds: `pos < num_bits <= 8 * bytes.len()` (the probes' range is `num_bits`).
        self.bytes[(pos >> 3) as usize] >> (pos & 7)
    }
}

impl ProbeSet for ByteBits<'_> {
    #[inline(always)]
    fn all_set(&self, probes: Probes) -> bool {
        debug_assert_eq!(probes.range(), self.num_bits);
        probes.all_pairs(|p, q| self.shifted(p) & self.shifted(q) & 1 != 0)
    }

    #[inline(always)]
    fn prefetch(&self, probes: Probes) {
        probes.all_pairs(|p, q| {
            prefetch(&self.bytes[(p >> 3) as usize]);
            prefetch(&self.bytes[(q >> 3) as usize]);
            true
        });
    }

    #[inline(always)]
    fn footprint(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_answers_like_the_filter_at_every_alignment() {
        let mut f = BloomFilter::with_params(10_007, 5).unwrap().with_seed(3);
        f.insert_all(0..1_000u64);
        let bytes = f.to_bytes();
        let keys: Vec<u64> = (0..5_000).collect();
        let expected = f.contains_batch(&keys);
        for offset in 0..16 {
            let mut buf = vec![0u8; offset];
            buf.extend_from_slice(&bytes);
            let view = BloomFilterRef::from_bytes(&buf[offset..]).unwrap();
            assert_eq!(view.contains_batch(&keys), expected, "offset {offset}");
            let single: Vec<bool> = keys.iter().map(|k| view.contains(k)).collect();
            assert_eq!(single, expected);
            let mut out = Vec::new();
            bloom_core::internal::batch::contains_batch_uncached(
                &view.params.query(&view.bits),
                &keys,
                &mut out,
            );
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn opening_skips_the_checksum_and_verify_checks_it() {
        let f: BloomFilter = (0..100u32).collect();
        let mut bytes = f.to_bytes();
        // A byte inside the payload (which starts at 64).
        bytes[bloom_core::format::payload_offset(12) + 4] ^= 0x10;
        let view = BloomFilterRef::from_bytes(&bytes).unwrap();
        assert!(matches!(view.verify(), Err(Error::ChecksumMismatch { .. })));
        assert!(matches!(
            view.to_owned(),
            Err(Error::ChecksumMismatch { .. })
        ));
    }
}
