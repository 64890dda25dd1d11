//! What the workspace's own crates share and a user of the filters does not need: the probe
//! sequence, the raw bit loops, the batch engine, the format's building blocks, the checks
//! behind every constructor and the seal of [`Keyed`](crate::Keyed).
//!
//! This module is for the crates of the bloom-family workspace (the filter crates, the
//! comparison, the shared tests and the benchmarks). It is not covered by semantic
//! versioning and may change without notice in any release; nothing in it is documented
//! for use outside the workspace. A user of the filters needs only what the crate root
//! documents.

// Each idea in one file, listed from the bottom up: a file imports only files above it in
// this list, and the public modules (`hash`, `math`, `bits`, `format`) sit between them as
// docs/design.md draws ("bloom-core's layers").
pub mod batch;
pub mod caches;
pub mod checks;
pub mod digest;
pub mod float;
pub mod frame;
pub mod memory;
#[cfg(feature = "rayon")]
pub mod par;
pub mod probe;
#[cfg(feature = "serde")]
pub mod serde_bytes;
pub mod simd;
pub mod siphash;
pub mod stream;

// The names the filter crates use most, at one path.
pub use digest::{BufferedHasher, Digest, Seeded64, Xxh64};
pub use probe::{Pairs, Probes, Steps, high_half, low_half, reduce};
pub use stream::STREAM_CHUNK;

pub use crate::bits::AtomicBitStore;
pub use memory::{advise_huge_pages, or_relaxed, out_of_memory, prefetch, test_bit, words_for};

pub use crate::format::fields::{FRAMING_LEN, HEADER_LEN};
pub use frame::{
    ByteReader, Checksum, Output, SIZE_AND_HASHES_LEN, Sink, SizeAndHashes, decode_frame,
    decode_size_and_hashes, encode_size_and_hashes, encode_to, framing_len, verify_checksum,
};
#[cfg(feature = "std")]
pub use frame::{FrameReader, read_frame, read_size_and_hashes_words};

// The checks every constructor runs, the rounding of estimates, and the sizing functions
// generic over the float functions (`float`).
pub use crate::math::{blocked_fpr_replacement_with, optimal_num_bits_with};
pub use checks::{
    check_bitset_len, check_count, check_fpr, check_num_bits, check_num_hashes, check_rate,
    round_count,
};

/// The seal of [`Keyed`](crate::Keyed): implemented by the workspace's filter types only, in
/// their crates (this module is no public interface).
pub trait Sealed {}
