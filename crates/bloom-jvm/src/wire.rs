//! The bytes both JVM formats end with, after their own few header bytes: the word count as
//! a big-endian `int`, then the words as big-endian `long`s (Java's `DataOutputStream`), as
//! Spark's `BitArray.writeTo` and Guava's `BloomFilter.writeTo` write them.
//!
//! Readers never trust the word count before the bytes exist: the reader of bytes compares it
//! with the input's length before allocating, and the reader of a stream grows its buffer
//! only as bytes arrive.

use std::convert::Infallible;
use std::io::{self, Read, Write};

use bloom_core::Error;
use bloom_core::internal::stream::read_some;
use bloom_core::internal::{ByteReader, STREAM_CHUNK};

use crate::bits::{JvmBits, allocate};

/// The bytes of a filter: `header`, the word count, the words, built in place.
pub(crate) fn encode(header: &[u8], bits: &JvmBits) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(header, bits));
    let Ok(()) = fill::<Infallible>(&mut out, header, bits, usize::MAX, |_| Ok(()));
    out
}

/// Bytes of [`encode`]'s output.
fn encoded_len(header: &[u8], bits: &JvmBits) -> usize {
    header.len() + 4 + bits.words().len() * 8
}

/// Appends the bytes of a filter (`header`, the word count, the words) to `buf`, handing it
/// to `flush` whenever a word would take it past `chunk` bytes (`flush` empties it).
fn fill<E>(
    buf: &mut Vec<u8>,
    header: &[u8],
    bits: &JvmBits,
    chunk: usize,
    mut flush: impl FnMut(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let words = bits.words();
    buf.extend_from_slice(header);
    buf.extend_from_slice(&(words.len() as i32).to_be_bytes());
    for w in words {
        if buf.len() + 8 > chunk {
            flush(buf)?;
        }
        buf.extend_from_slice(&w.to_be_bytes());
    }
    Ok(())
}

/// Streams the bytes of [`encode`] to `writer` through a buffer of [`STREAM_CHUNK`], then
/// flushes it.
pub(crate) fn write<W: Write>(mut writer: W, header: &[u8], bits: &JvmBits) -> Result<(), Error> {
    let mut buf = Vec::with_capacity(STREAM_CHUNK.min(encoded_len(header, bits)));
    fill(&mut buf, header, bits, STREAM_CHUNK, |buf| {
        writer.write_all(buf)?;
        buf.clear();
        Ok::<(), io::Error>(())
    })?;
    writer.write_all(&buf)?;
    writer.flush()?;
    Ok(())
}

/// The word count a reader found, checked: Java arrays of a negative length cannot exist, and
/// an empty bit array is no filter (both libraries would divide by its zero bit size).
fn check_word_count(count: i32) -> Result<usize, Error> {
    if count <= 0 {
        return Err(Error::corrupt(format!(
            "the bit array's length is {count} words; it must be at least 1"
        )));
    }
    Ok(count as usize)
}

/// The big-endian words of `bytes`, a whole number of them.
fn be_words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let word = |c: &[u8]| u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    bytes.chunks_exact(8).map(word)
}

/// Fills `buf` from `reader`, or reports it [`Error::Truncated`]: `needed` bytes wanted, of
/// which the stream held those it put in `buf`.
fn read_exact<R: Read>(reader: &mut R, buf: &mut [u8], needed: u64) -> Result<(), Error> {
    let mut filled = 0;
    while filled < buf.len() {
        match read_some(reader, &mut buf[filled..])? {
            0 => {
                return Err(Error::Truncated {
                    needed,
                    available: filled as u64,
                });
            }
            n => filled += n,
        }
    }
    Ok(())
}

/// Where a reader takes a filter's fields from: the bytes of `from_bytes`, which must end
/// with the filter, or the stream of `read_from`, read exactly as far as the filter goes. One
/// decoder per format serves both. (`pub` in this private module only because the formats'
/// sealed trait names it.)
pub trait Fields {
    /// The next `N` bytes.
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error>;

    /// The word count and the words, the filter's last fields.
    fn bits(&mut self) -> Result<JvmBits, Error>;

    /// The next byte.
    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    /// The next big-endian `int`.
    fn i32(&mut self) -> Result<i32, Error> {
        Ok(i32::from_be_bytes(self.array()?))
    }
}

impl Fields for ByteReader<'_> {
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }

    /// The word count and the words at the reader's position, which must be the input's end.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer bytes remain than the count names, [`Error::Corrupt`]
    /// for a count below 1 or bytes after the words.
    fn bits(&mut self) -> Result<JvmBits, Error> {
        let count = check_word_count(self.i32()?)?;
        let needed = count as u64 * 8;
        let available = self.remaining() as u64;
        if available < needed {
            return Err(Error::Truncated { needed, available });
        }
        if available > needed {
            return Err(Error::corrupt(format!(
                "{} trailing bytes after the bit array",
                available - needed
            )));
        }
        let bytes = self.take(count * 8)?;
        let mut words = allocate(count)?;
        words.extend(be_words(bytes));
        Ok(JvmBits::from_words(words))
    }
}

/// A stream as [`Fields`].
pub(crate) struct Stream<R>(pub(crate) R);

impl<R: Read> Fields for Stream<R> {
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut array = [0; N];
        read_exact(&mut self.0, &mut array, N as u64)?;
        Ok(array)
    }

    /// The word count and the words, reading exactly their bytes. Memory grows a chunk at a
    /// time as bytes arrive, whatever count the stream claims.
    ///
    /// # Errors
    ///
    /// As for bytes (less the trailing bytes, which a stream leaves unread), and
    /// [`Error::Io`] for the reader's own errors.
    fn bits(&mut self) -> Result<JvmBits, Error> {
        let count = check_word_count(self.i32()?)?;
        let mut words: Vec<u64> = Vec::new();
        // The count's bytes may not fit a 32-bit `usize`: the chunk is the smaller.
        let mut chunk = vec![0u8; STREAM_CHUNK.min(count.saturating_mul(8))];
        while words.len() < count {
            let n = (count - words.len()).min(STREAM_CHUNK / 8);
            let bytes = &mut chunk[..n * 8];
            read_exact(&mut self.0, bytes, (count - words.len()) as u64 * 8)?;
            words.try_reserve(n).map_err(|_| Error::OutOfMemory {
                bytes: (words.len() + n).saturating_mul(8),
            })?;
            words.extend(be_words(bytes));
        }
        Ok(JvmBits::from_words(words))
    }
}
