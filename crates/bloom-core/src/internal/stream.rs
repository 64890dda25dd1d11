//! Reading and writing streams a chunk at a time: the one buffer size of the format's streams
//! and the reads that retry when interrupted. Below the storage and the framing, which both
//! stream words.

#[cfg(feature = "std")]
use std::io;

/// Bytes the streaming writer and reader hold at a time: the payload passes through a
/// buffer of this size.
pub const STREAM_CHUNK: usize = 64 * 1024;

/// Reads and drops up to `len` bytes of `reader` through a small buffer: the bytes dropped,
/// fewer than `len` when the stream ended first. For bytes that are read only to tell a
/// truncated stream from a corrupt one.
#[cfg(feature = "std")]
pub(crate) fn skip(reader: &mut dyn io::Read, len: u64) -> io::Result<u64> {
    let mut scratch = [0u8; 4096];
    let mut got = 0u64;
    while got < len {
        let want = (len - got).min(scratch.len() as u64) as usize;
        match read_some(reader, &mut scratch[..want])? {
            0 => break,
            n => got += n as u64,
        }
    }
    Ok(got)
}

/// One `read` into `buf`, retried while it is interrupted: the bytes read (0 at the end of
/// the stream).
#[cfg(feature = "std")]
pub fn read_some(reader: &mut dyn io::Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}
