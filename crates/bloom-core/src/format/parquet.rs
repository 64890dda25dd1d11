//! Parquet's `BloomFilterHeader` in Thrift's compact protocol: the bytes that precede a
//! split-block bitset in a Parquet file.
//!
//! From parquet-format's `parquet.thrift`:
//!
//! ```text
//! struct BloomFilterHeader {
//!   1: required i32 numBytes;                         // bytes of the bitset
//!   2: required BloomFilterAlgorithm algorithm;       // union { 1: SplitBlockAlgorithm BLOCK }
//!   3: required BloomFilterHash hash;                 // union { 1: XxHash XXHASH }
//!   4: required BloomFilterCompression compression;   // union { 1: Uncompressed UNCOMPRESSED }
//! }
//! ```
//!
//! The three unions each hold one empty struct. The writer emits the short form every Parquet
//! writer emits (`15 <zigzag varint numBytes> 1c 1c 00 00 1c 1c 00 00 1c 1c 00 00 00`); the
//! reader accepts any valid compact encoding of that struct (long-form field headers, fields
//! in any order, unknown fields skipped as Thrift requires) and checks strictly: every
//! required field present once with its type, the BLOCK algorithm, the XXHASH hash, no
//! compression, and a size Parquet allows.

use alloc::{format, vec::Vec};

use crate::Error;

/// The smallest bitset Parquet writes: one 32-byte block.
pub const BITSET_MIN_BYTES: usize = 32;

/// The largest bitset Parquet writes: 128 MiB (parquet-format, BloomFilter.md, "Sizing an
/// SBBF"; the Java and Rust implementations use the same cap).
pub const BITSET_MAX_BYTES: usize = 128 << 20;

/// Parquet's size of a bitset asked for `num_bytes` bytes: clamped to
/// [`BITSET_MIN_BYTES`]..=[`BITSET_MAX_BYTES`], then rounded up to a power of two, as the
/// `parquet` crate's `Sbbf::new_with_num_of_bytes` sizes it.
///
/// # Examples
///
/// ```
/// use bloom_core::format::parquet_num_bytes;
///
/// assert_eq!(parquet_num_bytes(1000), 1024);
/// assert_eq!(parquet_num_bytes(0), 32);
/// ```
pub fn parquet_num_bytes(num_bytes: usize) -> usize {
    num_bytes
        .clamp(BITSET_MIN_BYTES, BITSET_MAX_BYTES)
        .next_power_of_two()
}

/// Compact protocol type ids (Thrift, "Compact protocol", field types).
const TYPE_BOOL_TRUE: u8 = 1;
const TYPE_BOOL_FALSE: u8 = 2;
const TYPE_BYTE: u8 = 3;
const TYPE_I16: u8 = 4;
const TYPE_I32: u8 = 5;
const TYPE_I64: u8 = 6;
const TYPE_DOUBLE: u8 = 7;
const TYPE_BINARY: u8 = 8;
const TYPE_LIST: u8 = 9;
const TYPE_SET: u8 = 10;
const TYPE_MAP: u8 = 11;
const TYPE_STRUCT: u8 = 12;

/// Nesting the reader follows before giving up: deeper input is hostile, not a header.
const MAX_DEPTH: u32 = 32;

/// A Parquet `BloomFilterHeader` for a split-block filter: the only variable field is the
/// bitset's size.
///
/// # Examples
///
/// ```
/// use bloom_core::format::ParquetHeader;
///
/// let mut bytes = Vec::new();
/// ParquetHeader { num_bytes: 1024 }.write(&mut bytes);
/// let (header, len) = ParquetHeader::read(&bytes)?;
/// assert_eq!((header.num_bytes, len), (1024, bytes.len()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParquetHeader {
    /// Bytes of the bitset that follows the header: a multiple of 32 from 32 to 128 MiB
    /// ([`BITSET_MIN_BYTES`], [`BITSET_MAX_BYTES`]). A `usize`, as every size of memory in
    /// the workspace; Parquet stores it as an `i32`.
    pub num_bytes: usize,
}

impl ParquetHeader {
    /// Appends the header in Thrift's compact protocol. Parquet's field is an `i32`: a
    /// `num_bytes` above `i32::MAX` is written as -1, which [`ParquetHeader::read`] (like
    /// every Parquet reader) rejects.
    pub fn write(&self, out: &mut Vec<u8>) {
        // Field 1, i32, delta 1: the zigzag varint of numBytes.
        out.push(0x15);
        let n = i32::try_from(self.num_bytes).unwrap_or(-1);
        let mut z = u64::from(((n << 1) ^ (n >> 31)) as u32);
        loop {
            let byte = (z & 0x7f) as u8;
            z >>= 7;
            if z == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        // Fields 2, 3, 4: a union (struct, delta 1) whose field 1 is an empty struct.
        for _ in 0..3 {
            out.extend_from_slice(&[0x1c, 0x1c, 0x00, 0x00]);
        }
        out.push(0x00);
    }

    /// Reads a header from the start of `bytes`; returns it and the number of bytes it took.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when the input ends inside the header; [`Error::Corrupt`] for
    /// malformed Thrift, a missing, repeated or mistyped field, another algorithm, hash or
    /// compression, or a size that is not a multiple of 32 between 32 bytes and 128 MiB.
    pub fn read(bytes: &[u8]) -> Result<(ParquetHeader, usize), Error> {
        let mut r = Reader { bytes, pos: 0 };
        let mut num_bytes: Option<i32> = None;
        let mut seen = [false; 5];
        let mut last_id = 0i16;
        while let Some((id, ty)) = r.field_header(&mut last_id)? {
            let known = (1..=4).contains(&id);
            if known && core::mem::replace(&mut seen[id as usize], true) {
                return Err(Error::corrupt(format!("header field {id} repeated")));
            }
            match (id, ty) {
                (1, TYPE_I32) => num_bytes = Some(r.i32()?),
                (2..=4, TYPE_STRUCT) => r.one_empty_member_union(id)?,
                (1..=4, _) => {
                    return Err(Error::corrupt(format!(
                        "header field {id} has Thrift type {ty}"
                    )));
                }
                _ => r.skip(ty, 0)?,
            }
        }
        if let Some(missing) = (1..=4).find(|&i| !seen[i]) {
            return Err(Error::corrupt(format!(
                "required header field {missing} missing"
            )));
        }
        let field = num_bytes.expect("field 1 seen");
        let num_bytes = usize::try_from(field)
            .ok()
            .filter(|n| {
                (BITSET_MIN_BYTES..=BITSET_MAX_BYTES).contains(n) && n % BITSET_MIN_BYTES == 0
            })
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "numBytes {field} is not a multiple of 32 in 32..={BITSET_MAX_BYTES}"
                ))
            })?;
        Ok((ParquetHeader { num_bytes }, r.pos))
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Error> {
        self.take(1)?;
        Ok(self.bytes[self.pos - 1])
    }

    fn varint(&mut self) -> Result<u64, Error> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(Error::corrupt("varint overflows 64 bits"));
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Error::corrupt("varint longer than 10 bytes"))
    }

    fn zigzag(&mut self) -> Result<i64, Error> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn i32(&mut self) -> Result<i32, Error> {
        i32::try_from(self.zigzag()?).map_err(|_| Error::corrupt("i32 field out of range"))
    }

    /// The next field's id and type, or `None` at the struct's stop byte.
    fn field_header(&mut self, last_id: &mut i16) -> Result<Option<(i16, u8)>, Error> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let ty = b & 0x0f;
        let delta = b >> 4;
        let id = if delta == 0 {
            i16::try_from(self.zigzag()?).map_err(|_| Error::corrupt("field id out of range"))?
        } else {
            last_id
                .checked_add(i16::from(delta))
                .ok_or_else(|| Error::corrupt("field id out of range"))?
        };
        *last_id = id;
        Ok(Some((id, ty)))
    }

    /// A union whose only valid member is field 1, an empty struct (Parquet's BLOCK, XXHASH
    /// and UNCOMPRESSED). Unknown members would be other algorithms: rejected.
    fn one_empty_member_union(&mut self, field: i16) -> Result<(), Error> {
        let mut last = 0;
        match self.field_header(&mut last)? {
            Some((1, TYPE_STRUCT)) => {}
            other => {
                return Err(Error::corrupt(format!(
                    "header field {field}: unsupported member {other:?} (only the split-block \
                     algorithm, XXHASH and no compression exist)"
                )));
            }
        }
        // The member struct is empty in every version of the format; skip anything a future
        // version adds to it.
        self.skip(TYPE_STRUCT, 1)?;
        let mut last = 1;
        match self.field_header(&mut last)? {
            None => Ok(()),
            Some(_) => Err(Error::corrupt(format!(
                "header field {field}: a union with more than one member"
            ))),
        }
    }

    /// Skips a value of type `ty`.
    fn skip(&mut self, ty: u8, depth: u32) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(Error::corrupt("Thrift nesting too deep"));
        }
        match ty {
            TYPE_BOOL_TRUE | TYPE_BOOL_FALSE => Ok(()),
            TYPE_BYTE => self.byte().map(|_| ()),
            TYPE_I16 | TYPE_I32 | TYPE_I64 => self.varint().map(|_| ()),
            TYPE_DOUBLE => self.take(8),
            TYPE_BINARY => {
                let len = self.varint()?;
                self.take(len)
            }
            TYPE_LIST | TYPE_SET => {
                let head = self.byte()?;
                let elem = head & 0x0f;
                let count = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                // Each element takes at least one byte (booleans in lists do): a count beyond
                // the input is truncation, found before looping over it.
                self.ensure(count)?;
                for _ in 0..count {
                    if elem == TYPE_BOOL_TRUE || elem == TYPE_BOOL_FALSE {
                        self.byte()?;
                    } else {
                        self.skip(elem, depth + 1)?;
                    }
                }
                Ok(())
            }
            TYPE_MAP => {
                let count = self.varint()?;
                if count == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                self.ensure(count)?;
                for _ in 0..count {
                    self.skip(types >> 4, depth + 1)?;
                    self.skip(types & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            TYPE_STRUCT => {
                let mut last = 0;
                while let Some((_, t)) = self.field_header(&mut last)? {
                    self.skip(t, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(Error::corrupt(format!("unknown Thrift type {ty}"))),
        }
    }

    /// [`Error::Truncated`] unless at least `n` bytes are left.
    fn ensure(&self, n: u64) -> Result<(), Error> {
        let available = (self.bytes.len() - self.pos) as u64;
        if n > available {
            return Err(Error::Truncated {
                needed: n,
                available,
            });
        }
        Ok(())
    }

    /// Skips `n` bytes.
    fn take(&mut self, n: u64) -> Result<(), Error> {
        self.ensure(n)?;
        self.pos += n as usize;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_short_form() {
        let mut out = Vec::new();
        ParquetHeader { num_bytes: 32 }.write(&mut out);
        assert_eq!(
            out,
            [
                0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0
            ]
        );
        for too_large in [u32::MAX as usize, usize::MAX, (1 << 31) + 64] {
            let mut out = Vec::new();
            ParquetHeader {
                num_bytes: too_large,
            }
            .write(&mut out);
            assert!(ParquetHeader::read(&out).is_err(), "{too_large}");
        }
        for n in [32usize, 64, 1 << 20, 128 << 20] {
            let mut out = Vec::new();
            ParquetHeader { num_bytes: n }.write(&mut out);
            assert_eq!(
                ParquetHeader::read(&out).unwrap(),
                (ParquetHeader { num_bytes: n }, out.len())
            );
        }
    }

    #[test]
    fn accepts_long_form_reordered_and_unknown_fields() {
        // Field 4 first in long form (type 12, id zigzag(4) = 8), then 2, 3 by delta, an
        // unknown i64 field 9 and a binary field 10, then 1 in long form.
        let body = [0x1c, 0, 0]; // member 1: an empty struct; then the union's stop
        let mut b = vec![0x0c, 0x08]; // field 4, long form
        b.extend_from_slice(&body);
        b.extend_from_slice(&[0x0c, 0x04]); // field 2, long form (the id went down)
        b.extend_from_slice(&body);
        b.push(0x1c); // field 3, delta 1
        b.extend_from_slice(&body);
        b.extend_from_slice(&[0x66, 0x02]); // field 9 (delta 6), i64 = 1
        b.extend_from_slice(&[0x18, 0x02, 0xaa, 0xbb]); // field 10, binary of 2 bytes
        b.extend_from_slice(&[0x05, 0x02, 0x80, 0x01]); // field 1 long form, i32 = 64
        b.push(0);
        let (h, len) = ParquetHeader::read(&b).unwrap();
        assert_eq!((h.num_bytes, len), (64, b.len()));
    }

    #[test]
    fn rejects_bad_headers() {
        let mut good = Vec::new();
        ParquetHeader { num_bytes: 64 }.write(&mut good);
        for len in 0..good.len() {
            assert!(ParquetHeader::read(&good[..len]).is_err(), "{len}");
        }
        let mut bad = good.clone();
        bad[1] = 0x41; // negative size
        assert!(ParquetHeader::read(&bad).is_err());
        let mut bad = good.clone();
        bad[1] = 0x42; // 33 bytes
        assert!(ParquetHeader::read(&bad).is_err());
        let mut bad = good.clone();
        bad[4] = 0x2c; // algorithm member 2: unknown
        assert!(ParquetHeader::read(&bad).is_err());
        let mut bad = good.clone();
        bad[0] = 0x16; // numBytes as i64
        assert!(ParquetHeader::read(&bad).is_err());
        // A repeated field.
        let mut bad = vec![0x15, 0x80, 0x01, 0x05, 0x02, 0x80, 0x01];
        bad.extend_from_slice(&good[3..]);
        assert!(ParquetHeader::read(&bad).is_err());
        // Hostile nesting and huge counts end in errors, not overflow or allocation.
        let deep: Vec<u8> = core::iter::repeat_n(0x9c, 10_000).collect();
        assert!(ParquetHeader::read(&deep).is_err());
        let huge_list = [0x99, 0xf5, 0xff, 0xff, 0xff, 0x0f];
        assert!(ParquetHeader::read(&huge_list).is_err());
    }
}
