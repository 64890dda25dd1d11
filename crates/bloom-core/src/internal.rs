//! What the workspace's own crates share and a user of the filters does not need: the probe
//! sequence, the raw bit loops, the batch engine, the format's building blocks, the checks
//! behind every constructor and the macros that implement the shared traits.
//!
//! This module is for the crates of the bloom-family workspace (the filter crates, the
//! comparison, the shared tests and the benchmarks). It is not covered by semantic
//! versioning and may change without notice in any release; nothing in it is documented
//! for use outside the workspace. A user of the filters needs only what the crate root
//! documents.

// The batch engine, the cache sizes it is tuned by, CPU feature detection, the float
// functions `core` lacks, parallel bulk insertion and serde support: whole modules of
// internals.
pub mod batch;
pub mod caches;
pub mod cpu;
pub mod float;
#[cfg(feature = "rayon")]
pub mod par;
#[cfg(feature = "serde")]
pub mod serde_bytes;

// Hashing: the probe sequence and the hash functions behind it.
pub use crate::hash::{
    BufferedHasher, Digest, Pairs, Probes, Steps, Xxh3_128, Xxh64, high_half, low_half, reduce,
};

// Bit storage: raw word loops, allocation and the atomic store.
pub use crate::bits::{
    AtomicBitStore, advise_huge_pages, out_of_memory, prefetch, test_bit, words_for,
};

// The binary format's building blocks (a user reads bytes through `format::decode`).
pub use crate::format::{
    ByteReader, Checksum, FRAMING_LEN, HEADER_LEN, Output, SIZE_AND_HASHES_LEN, STREAM_CHUNK, Sink,
    SizeAndHashes, decode_frame, decode_size_and_hashes, encode, encode_size_and_hashes, encode_to,
    framing_len, verify_checksum,
};
#[cfg(feature = "std")]
pub use crate::format::{FrameReader, read_frame, read_size_and_hashes_words};

// The checks every constructor runs, the rounding of estimates, and the sizing functions
// generic over the float functions (`float`).
pub use crate::math::{
    blocked_fpr_replacement_with, check_count, check_fpr, check_num_bits, check_num_hashes,
    check_rate, optimal_num_bits_with, round_count,
};

// The macros that implement the shared traits (exported at the crate root, as every
// `#[macro_export]` macro is; named here so the crates have one path for everything internal).
#[cfg(feature = "serde")]
pub use crate::serde_via_bytes;
pub use crate::{
    collect_via_insert_all, filter_via_inherent, if_std, keyed_via_inherent, view_via_open,
};

// What the macros and the filter crates name through this crate, so that a crate built
// without `std` names no `std` path of its own: `Vec` from `alloc`, and `std::io` (only with
// `std`).
#[cfg(feature = "rayon")]
pub use crate::{par_collect_via_par_insert_all, par_queries_via_batch};
pub use alloc::vec::Vec;
#[cfg(feature = "std")]
pub use std::io;
