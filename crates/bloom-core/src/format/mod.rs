//! The binary framing every filter's `to_bytes` writes and `from_bytes` reads.
//!
//! ```text
//! offset  size  field
//! 0       4     magic "BLMF"
//! 4       2     format version (u16 LE), currently 5 (VERSION)
//! 6       1     variant tag (see Variant)
//! 7       1     hash scheme tag (see HashScheme)
//! 8       8     seed (u64 LE); for a keyed filter, the key's fingerprint
//! 16      P     variant parameters (fixed size P per variant and version)
//! 16+P    8     payload length L (u64 LE)
//! 24+P    Z     zero padding, Z = padding_len(P): the payload starts at a multiple of 64
//! O       L     payload, at O = payload_offset(P) = 24+P+Z
//! O+L     8     XXH3-64 (seed 0) of bytes [0, O+L), u64 LE
//! ```
//!
//! Everything is little-endian. [`decode`] checks, in order: that the header is complete, the
//! magic, the version, the variant, the hash scheme, that the parameters and the padding are
//! complete, that the payload length matches the bytes present exactly (no trailing bytes),
//! that the padding is zero, and the checksum. It
//! never allocates: the returned [`Frame`] borrows the input. The variant then checks that its
//! parameters are in range and agree with the payload. `docs/format.md` documents every
//! variant's parameters and payload.

pub(crate) mod fields;
pub(crate) mod parquet;

pub use crate::internal::frame::decode;
pub use fields::{
    FRAMING_LEN, Frame, HEADER_LEN, HashScheme, MAGIC, PAYLOAD_ALIGN, VERSION, Variant, checksum,
    padding_len, payload_offset,
};
pub use parquet::{BITSET_MAX_BYTES, BITSET_MIN_BYTES, ParquetHeader, parquet_num_bytes};
