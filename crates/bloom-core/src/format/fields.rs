//! The fixed fields of the format: its constants, the variant and hash-scheme tags, the
//! decoded frame and the checksum. The bottom of the format's layers: it imports nothing of
//! this crate, so the error type can name a variant.

use xxhash_rust::xxh3::xxh3_64;

/// The four bytes every serialised filter starts with.
pub const MAGIC: [u8; 4] = *b"BLMF";

/// The format version this build writes and reads: 5, whose seeded hash takes two
/// multiplies for a key of at most 8 bytes and seeded XXH3-64 beyond (version 4 took its
/// multiply hash up to 16 bytes, version 3 XXH3-128; the payload alignment is kept: the
/// payload starts at a multiple of [`PAYLOAD_ALIGN`] bytes from the frame's start).
pub const VERSION: u16 = 5;

/// The payload of every frame starts at a multiple of this many bytes from the frame's first
/// byte: zero bytes after the payload length fill the gap. A frame at a page-aligned address
/// (a memory-mapped file) then has its payload on a cache-line boundary, so a zero-copy view's
/// blocks are aligned.
pub const PAYLOAD_ALIGN: usize = 64;

/// Bytes before the variant parameters: magic, version, variant, scheme, seed.
pub const HEADER_LEN: usize = 16;

/// Bytes of the fixed framing fields around parameters and payload: header, payload length,
/// checksum (the padding before the payload, [`padding_len`], comes on top).
pub const FRAMING_LEN: usize = HEADER_LEN + 8 + 8;

/// Zero bytes between the payload length and the payload of a frame whose parameters take
/// `params_len` bytes, so the payload starts at a multiple of [`PAYLOAD_ALIGN`].
///
/// # Examples
///
/// ```
/// use bloom_core::format::{padding_len, payload_offset};
///
/// // Classic parameters (12 bytes): header 16 + 12 + length 8 = 36, padded to 64.
/// assert_eq!((padding_len(12), payload_offset(12)), (28, 64));
/// assert_eq!(payload_offset(40), 64);
/// assert_eq!(payload_offset(41), 128);
/// ```
pub const fn padding_len(params_len: usize) -> usize {
    let fixed = (HEADER_LEN + params_len + 8) % PAYLOAD_ALIGN;
    (PAYLOAD_ALIGN - fixed) % PAYLOAD_ALIGN
}

/// Where the payload starts in a frame whose parameters take `params_len` bytes: a multiple
/// of [`PAYLOAD_ALIGN`].
pub const fn payload_offset(params_len: usize) -> usize {
    HEADER_LEN + params_len + 8 + padding_len(params_len)
}

/// The zero bytes the padding is written from.
pub(crate) const PADDING: [u8; PAYLOAD_ALIGN] = [0; PAYLOAD_ALIGN];

/// Which filter the bytes hold. The tag values are part of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Variant {
    /// `BloomFilter` and `AtomicBloomFilter` (the same bytes).
    Classic = 1,
    /// `CountingBloomFilter`.
    Counting = 2,
    /// `ScalableBloomFilter`.
    Scalable = 3,
    /// `BlockedBloomFilter` and `AtomicBlockedBloomFilter` (the same bytes).
    Blocked = 4,
    /// `SplitBlockBloomFilter` (Parquet's split-block filter).
    SplitBlock = 5,
    /// `AgingBloomFilter` (age-partitioned slices in a ring).
    Aging = 6,
    /// `MultiblockBloomFilter` and `AtomicMultiblockBloomFilter` (the same bytes).
    Multiblock = 7,
    /// `Multiblock32BloomFilter` and `AtomicMultiblock32BloomFilter` (the same bytes).
    Multiblock32 = 8,
}

impl Variant {
    /// Every variant, in tag order.
    pub const ALL: [Variant; 8] = [
        Variant::Classic,
        Variant::Counting,
        Variant::Scalable,
        Variant::Blocked,
        Variant::SplitBlock,
        Variant::Aging,
        Variant::Multiblock,
        Variant::Multiblock32,
    ];

    /// The variant whose tag is `tag`, or `None` for a tag this build does not know.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::format::Variant;
    ///
    /// assert_eq!(Variant::from_tag(2), Some(Variant::Counting));
    /// assert_eq!(Variant::from_tag(0), None);
    /// ```
    pub fn from_tag(tag: u8) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| *v as u8 == tag)
    }

    /// The types whose bytes carry this variant's tag, as error messages name them:
    /// `"BloomFilter or AtomicBloomFilter"` for [`Variant::Classic`].
    pub fn type_names(self) -> &'static str {
        match self {
            Variant::Classic => "BloomFilter or AtomicBloomFilter",
            Variant::Counting => "CountingBloomFilter",
            Variant::Scalable => "ScalableBloomFilter",
            Variant::Blocked => "BlockedBloomFilter or AtomicBlockedBloomFilter",
            Variant::SplitBlock => "SplitBlockBloomFilter",
            Variant::Aging => "AgingBloomFilter",
            Variant::Multiblock => "MultiblockBloomFilter or AtomicMultiblockBloomFilter",
            Variant::Multiblock32 => "Multiblock32BloomFilter or AtomicMultiblock32BloomFilter",
        }
    }
}

/// How keys become positions. The tag values are part of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HashScheme {
    /// The seeded hash over the bytes `Hash` writes (integers little-endian in one canonical
    /// width): two multiplies for at most 8 bytes, seeded XXH3-64 beyond, widened by
    /// a re-mix where a layout takes two halves (see [`crate::hash`]). Until format version 3
    /// this tag meant seeded XXH3-128.
    Seeded = 1,
    /// Parquet's: XXH64 with seed 0 over the value's plain encoding.
    ParquetXxh64 = 2,
    /// SipHash-1-3 under a secret 128-bit key over the bytes `Hash` writes (integers as for
    /// [`Seeded`](HashScheme::Seeded)), the second half a mix of the first (see
    /// [`Hashing`](crate::hash::Hashing)); the header's seed field holds the key's
    /// [fingerprint](crate::hash::SecretKey::fingerprint), never the key.
    SipHash13Keyed = 3,
}

impl HashScheme {
    /// Every scheme, in tag order.
    pub const ALL: [HashScheme; 3] = [
        HashScheme::Seeded,
        HashScheme::ParquetXxh64,
        HashScheme::SipHash13Keyed,
    ];

    /// The scheme with this tag, if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::format::HashScheme;
    ///
    /// assert_eq!(HashScheme::from_tag(3), Some(HashScheme::SipHash13Keyed));
    /// assert_eq!(HashScheme::from_tag(9), None);
    /// ```
    pub fn from_tag(tag: u8) -> Option<HashScheme> {
        HashScheme::ALL.into_iter().find(|s| *s as u8 == tag)
    }
}

/// A decoded frame: the header fields and borrowed parameter and payload bytes.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The hash scheme: the one asked for, or [`HashScheme::SipHash13Keyed`] where the
    /// variant's scheme is [`HashScheme::Seeded`] (every such variant can be keyed).
    pub scheme: HashScheme,
    /// The header's hashing field: the seed, or a keyed filter's key fingerprint.
    pub seed: u64,
    /// The variant parameters, exactly as many bytes as the caller asked for.
    pub params: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

/// The format's checksum: XXH3-64 with seed 0.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}
