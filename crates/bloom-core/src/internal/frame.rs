//! The framing every filter's bytes go through: writing a frame in memory or to a stream
//! ([`encode_to`], [`Sink`]), reading one from bytes ([`decode_frame`]) or from a
//! stream ([`read_frame`], [`FrameReader`]), and the classic layout's shared parameters
//! ([`SizeAndHashes`]). `format` documents the fields; this module writes and checks them.

#[cfg(feature = "std")]
use alloc::boxed::Box;
use alloc::{format, vec::Vec};
#[cfg(feature = "std")]
use std::io;

#[cfg(feature = "std")]
use xxhash_rust::xxh3::Xxh3;
use xxhash_rust::xxh3::xxh3_64;

use crate::Error;
use crate::format::fields::*;
#[cfg(feature = "std")]
use crate::internal::stream::{STREAM_CHUNK, read_some, skip};

/// The bytes of framing a frame with `params_len` bytes of parameters has around its
/// parameters and payload: [`FRAMING_LEN`] and the padding.
pub const fn framing_len(params_len: usize) -> usize {
    FRAMING_LEN + padding_len(params_len)
}

/// Where [`encode_to`] sends a frame: into a `Vec` it returns (`to_bytes`), or through a
/// writer (`write_to`), 64 KiB at a time.
pub enum Output<'w> {
    /// Build the whole frame in memory and return it.
    Bytes,
    /// Stream the frame to the writer; `encode_to` returns an empty `Vec`. Only with `std`.
    #[cfg(feature = "std")]
    Writer(&'w mut dyn io::Write),
    /// Without `std` there is no writer: this variant cannot be made.
    #[cfg(not(feature = "std"))]
    Never(core::convert::Infallible, core::marker::PhantomData<&'w ()>),
}

/// Serialises one filter to either [`Output`], one framing for `to_bytes` and `write_to`:
/// header, `params`, then a payload of exactly `payload_len` bytes put into the [`Sink`] by
/// `write_payload`, then the checksum. Streaming, the frame passes through a buffer of
/// [`STREAM_CHUNK`] bytes (plus the largest single [`Sink::put`]), and the checksum is
/// computed as it passes; the bytes are those built in memory.
///
/// # Errors
///
/// [`Error::Io`] when the writer fails (nothing more is written after the first failure).
///
/// # Panics
///
/// If `write_payload` puts a number of bytes other than `payload_len` (a bug in the
/// calling filter, not something input can cause).
///
/// # Examples
///
/// ```
/// use bloom_core::format::{decode, HashScheme, Variant};
/// use bloom_core::internal::{encode_to, Output};
///
/// let bytes = encode_to(Output::Bytes, Variant::Classic, HashScheme::Seeded, 7, &[1, 2], 3, |out| {
///     out.put(&[9, 9, 9])
/// })?;
/// let frame = decode(&bytes, Variant::Classic, HashScheme::Seeded, 2)?;
/// assert_eq!((frame.seed, frame.params, frame.payload), (7, &[1u8, 2][..], &[9u8, 9, 9][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_to(
    output: Output<'_>,
    variant: Variant,
    scheme: HashScheme,
    seed: u64,
    params: &[u8],
    payload_len: u64,
    write_payload: impl FnOnce(&mut Sink<'_>),
) -> Result<Vec<u8>, Error> {
    let mut sink = match output {
        Output::Bytes => {
            Sink::in_memory(framing_len(params.len()) + params.len() + payload_len as usize)
        }
        #[cfg(feature = "std")]
        Output::Writer(out) => Sink {
            // Headroom for the last `put` before a flush: puts are a few words at most.
            buf: Vec::with_capacity(STREAM_CHUNK + 64),
            limit: STREAM_CHUNK,
            stream: Some(Stream {
                out,
                hasher: Box::new(Xxh3::new()),
                error: None,
            }),
            flushed: 0,
        },
    };
    sink.put(&MAGIC);
    sink.put(&VERSION.to_le_bytes());
    sink.put(&[variant as u8, scheme as u8]);
    sink.put(&seed.to_le_bytes());
    sink.put(params);
    sink.put(&payload_len.to_le_bytes());
    sink.put(&PADDING[..padding_len(params.len())]);
    let payload_start = sink.written();
    write_payload(&mut sink);
    assert_eq!(
        sink.written() - payload_start,
        payload_len,
        "payload length announced and written differ"
    );
    match sink.stream.take() {
        None => {
            let mut out = sink.buf;
            let checksum = xxh3_64(&out);
            out.extend_from_slice(&checksum.to_le_bytes());
            Ok(out)
        }
        #[cfg(feature = "std")]
        Some(mut stream) => {
            stream.send(&sink.buf);
            if let Some(e) = stream.error {
                return Err(e.into());
            }
            stream
                .out
                .write_all(&stream.hasher.digest().to_le_bytes())?;
            stream.out.flush()?;
            Ok(Vec::new())
        }
    }
}

/// Where a filter puts its payload bytes: the `Vec` of `to_bytes`, or the bounded buffer
/// of `write_to`, flushed to the writer (and into the checksum) whenever it fills. One
/// payload writer per variant serves both.
pub struct Sink<'w> {
    buf: Vec<u8>,
    /// Flush when `buf` reaches this length: `usize::MAX` in memory.
    limit: usize,
    stream: Option<Stream<'w>>,
    /// Bytes flushed so far.
    flushed: u64,
}

#[cfg(feature = "std")]
struct Stream<'w> {
    out: &'w mut dyn io::Write,
    // Boxed: the hasher's state is large, and a `Sink` is passed around by reference only.
    hasher: Box<Xxh3>,
    /// The first write error; later bytes are dropped.
    error: Option<io::Error>,
}

/// Without `std` there is no writer to stream to: no `Stream` can be made, and the code that
/// would use one is unreachable (a `Sink` is always in memory).
#[cfg(not(feature = "std"))]
struct Stream<'w>(core::convert::Infallible, core::marker::PhantomData<&'w ()>);

#[cfg(not(feature = "std"))]
impl Stream<'_> {
    fn send(&mut self, _: &[u8]) {
        match self.0 {}
    }
}

#[cfg(feature = "std")]
impl Stream<'_> {
    fn send(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.hasher.update(bytes);
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }
}

impl Sink<'_> {
    /// Puts 64-bit words, little-endian: a bit array's payload.
    #[inline]
    pub fn put_words(&mut self, words: impl IntoIterator<Item = u64>) {
        for w in words {
            self.put(&w.to_le_bytes());
        }
    }

    /// Appends `bytes`.
    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= self.limit {
            self.flush();
        }
    }

    #[cold]
    fn flush(&mut self) {
        if let Some(stream) = &mut self.stream {
            stream.send(&self.buf);
            self.flushed += self.buf.len() as u64;
            self.buf.clear();
        }
    }

    /// Bytes put so far, header included.
    fn written(&self) -> u64 {
        self.flushed + self.buf.len() as u64
    }

    /// A sink collecting into memory, for a variant's other byte forms (Parquet's bitset).
    pub fn in_memory(capacity: usize) -> Self {
        Sink {
            buf: Vec::with_capacity(capacity),
            limit: usize::MAX,
            stream: None,
            flushed: 0,
        }
    }

    /// The bytes of a sink made by [`Sink::in_memory`].
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads one frame from a stream, checking its header as [`decode`] does before reading
/// further, and returns its bytes (header to checksum) for the variant's `from_bytes`, which
/// checks the rest. Reads exactly the frame: bytes after it stay in the stream.
///
/// The buffer grows only as bytes arrive, [`STREAM_CHUNK`] at a time (doubling, never past
/// the announced length): a header that claims more than the stream holds costs at most
/// twice the bytes read plus one chunk before [`Error::Truncated`].
///
/// # Errors
///
/// [`Error::Truncated`] when the stream ends inside the frame; the header errors of
/// [`decode`]; [`Error::Io`] when the reader fails.
#[cfg(feature = "std")]
pub fn read_frame(
    reader: &mut dyn io::Read,
    variant: Variant,
    scheme: HashScheme,
    params_len: usize,
) -> Result<Vec<u8>, Error> {
    let (mut bytes, _, _, payload_len) = read_head(reader, variant, scheme, params_len)?;
    let needed = payload_len.checked_add(8).ok_or(Error::Truncated {
        needed: payload_len,
        available: 0,
    })?;
    read_field(reader, &mut bytes, needed)?;
    Ok(bytes)
}

/// Reads a frame's bytes up to its payload (header, parameters, payload length, padding) from
/// `reader`, the header checked before the rest is read and the padding after: the bytes,
/// the hash scheme found, the seed field and the payload length.
#[cfg(feature = "std")]
fn read_head(
    reader: &mut dyn io::Read,
    variant: Variant,
    scheme: HashScheme,
    params_len: usize,
) -> Result<(Vec<u8>, HashScheme, u64, u64), Error> {
    let mut head = Vec::new();
    read_field(reader, &mut head, HEADER_LEN as u64)?;
    let (scheme, seed) = check_header(&mut ByteReader::new(&head), variant, scheme)?;
    let len_at = HEADER_LEN + params_len;
    read_field(
        reader,
        &mut head,
        (payload_offset(params_len) - HEADER_LEN) as u64,
    )?;
    let payload_len = u64::from_le_bytes(
        head[len_at..len_at + 8]
            .try_into()
            .expect("8 bytes were read"),
    );
    check_padding(&head[len_at + 8..])?;
    Ok((head, scheme, seed, payload_len))
}

/// A frame being read from a stream, its payload parsed piece by piece straight into the
/// stores a filter keeps: the streaming form of [`decode`] for `read_from`, which so holds
/// the payload once instead of a byte buffer and a copy.
///
/// [`FrameReader::open`] reads and checks the header, the parameters, the payload length and
/// the padding; the variant then reads the payload in order ([`FrameReader::read_array`]
/// for its small fields, [`FrameReader::read_words`] for its word arrays), checking each
/// piece as it comes, and [`FrameReader::finish`] checks that the payload was read whole and
/// the checksum, computed over every byte as it passed.
#[cfg(feature = "std")]
pub struct FrameReader<'r> {
    reader: &'r mut dyn io::Read,
    // Boxed: the hasher's state is large.
    checksum: Box<Xxh3>,
    /// Payload bytes not read yet.
    remaining: u64,
    /// The hash scheme found (as in [`Frame::scheme`]).
    pub scheme: HashScheme,
    /// The header's hashing field: the seed, or a keyed filter's key fingerprint.
    pub seed: u64,
    /// The variant parameters.
    pub params: Vec<u8>,
}

#[cfg(feature = "std")]
impl<'r> FrameReader<'r> {
    /// Reads a frame's header, parameters, payload length and padding from `reader`,
    /// checked as [`read_frame`] checks them.
    ///
    /// # Errors
    ///
    /// Those of [`read_frame`] before the payload.
    pub fn open(
        reader: &'r mut dyn io::Read,
        variant: Variant,
        scheme: HashScheme,
        params_len: usize,
    ) -> Result<Self, Error> {
        let (mut head, scheme, seed, remaining) = read_head(reader, variant, scheme, params_len)?;
        let mut checksum = Box::new(Xxh3::new());
        checksum.update(&head);
        head.truncate(HEADER_LEN + params_len);
        Ok(FrameReader {
            reader,
            checksum,
            remaining,
            scheme,
            seed,
            params: head.split_off(HEADER_LEN),
        })
    }

    /// Payload bytes not read yet.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// Takes `len` more bytes of the payload into account, or reports them missing.
    fn claim(&mut self, len: u64) -> Result<(), Error> {
        if len > self.remaining {
            return Err(Error::corrupt(format!(
                "a field of {len} bytes where the payload has {} left",
                self.remaining
            )));
        }
        self.remaining -= len;
        Ok(())
    }

    /// The next `N` bytes of the payload.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] past the payload's announced end; [`Error::Truncated`] when the
    /// stream ends first; [`Error::Io`] when the reader fails.
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        self.claim(N as u64)?;
        let mut bytes = Vec::new();
        read_field(self.reader, &mut bytes, N as u64)?;
        self.checksum.update(&bytes);
        Ok(bytes.try_into().expect("N bytes were read"))
    }

    /// The next `byte_len` bytes of the payload as little-endian 64-bit words, read straight
    /// into a word store ([`Words::read_le_from`](crate::bits::Words::read_le_from)), which
    /// grows only as bytes arrive.
    ///
    /// # Errors
    ///
    /// As [`FrameReader::read_array`]; [`Error::Corrupt`] for a length that is not whole
    /// words.
    pub fn read_words(&mut self, byte_len: u64) -> Result<crate::bits::Words<u64>, Error> {
        self.claim(byte_len)?;
        let checksum = &mut self.checksum;
        crate::bits::Words::read_le_from(self.reader, byte_len, &mut |bytes| checksum.update(bytes))
    }

    /// Reads the rest of the payload as words ([`FrameReader::read_words`]) and ends the frame
    /// ([`FrameReader::finish`]): the form of the variants whose payload is one word array.
    ///
    /// # Errors
    ///
    /// Those of [`FrameReader::read_words`] and [`FrameReader::finish`].
    pub fn finish_with_words(mut self) -> Result<crate::bits::Words<u64>, Error> {
        let words = self.read_words(self.remaining)?;
        self.finish()?;
        Ok(words)
    }

    /// Ends the frame: the payload must have been read whole, then the stored checksum is
    /// read and compared with the one computed.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for payload bytes left unread (after reading them: a stream that
    /// ends first is [`Error::Truncated`], as [`decode`] says of the same bytes);
    /// [`Error::Truncated`] or [`Error::Io`] reading the checksum;
    /// [`Error::ChecksumMismatch`].
    pub fn finish(self) -> Result<(), Error> {
        if self.remaining != 0 {
            // As `decode` on the same bytes: a stream that ends inside the announced payload
            // is truncated, one that holds it is corrupt.
            let got = skip(self.reader, self.remaining)?;
            if got < self.remaining {
                return Err(Error::Truncated {
                    needed: self.remaining + 8,
                    available: got,
                });
            }
            return Err(Error::corrupt(format!(
                "{} payload bytes after the last field",
                self.remaining
            )));
        }
        let mut stored = Vec::new();
        read_field(self.reader, &mut stored, 8)?;
        let stored = u64::from_le_bytes(stored[..8].try_into().expect("8 bytes were read"));
        let computed = self.checksum.digest();
        if stored != computed {
            return Err(Error::ChecksumMismatch { computed, stored });
        }
        Ok(())
    }
}

/// The padding before the payload must be zero: anything else is not a frame this build
/// wrote ([`Error::Corrupt`]).
fn check_padding(padding: &[u8]) -> Result<(), Error> {
    match padding.iter().position(|&b| b != 0) {
        None => Ok(()),
        Some(at) => Err(Error::corrupt(format!(
            "padding byte {at} before the payload is {:#04x}, not zero",
            padding[at]
        ))),
    }
}

/// Appends `len` bytes from `reader` to `bytes`, a chunk at a time.
#[cfg(feature = "std")]
fn read_field(reader: &mut dyn io::Read, bytes: &mut Vec<u8>, len: u64) -> Result<(), Error> {
    let mut got = 0u64;
    while got < len {
        let want = (len - got).min(STREAM_CHUNK as u64) as usize;
        if bytes.capacity() - bytes.len() < want {
            // Double, but never beyond what the field still announces.
            let grow = (bytes.len().max(STREAM_CHUNK) as u64).min(len - got) as usize;
            bytes.reserve_exact(grow.max(want));
        }
        let start = bytes.len();
        bytes.resize(start + want, 0);
        match read_some(reader, &mut bytes[start..]) {
            Ok(0) => {
                bytes.truncate(start);
                return Err(Error::Truncated {
                    needed: len,
                    available: got,
                });
            }
            Ok(n) => {
                bytes.truncate(start + n);
                got += n as u64;
            }
            Err(e) => {
                bytes.truncate(start);
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// Checks the framing of `bytes` and returns its parts.
///
/// # Errors
///
/// [`Error::Truncated`] when the input ends early; [`Error::BadMagic`],
/// [`Error::UnsupportedVersion`], [`Error::WrongVariant`], [`Error::UnsupportedHashScheme`]
/// for a header that is not this filter's; [`Error::Corrupt`] for trailing bytes;
/// [`Error::ChecksumMismatch`] when the content was altered.
pub fn decode<'a>(
    bytes: &'a [u8],
    variant: Variant,
    scheme: HashScheme,
    params_len: usize,
) -> Result<Frame<'a>, Error> {
    decode_frame(bytes, variant, scheme, params_len, Checksum::Verify)
}

/// Whether a decoder reads the whole input to check the checksum ([`Checksum::Verify`], what
/// `from_bytes` does) or trusts it ([`Checksum::Skip`], what a zero-copy view does when it
/// opens: O(1) in the payload's size; its `verify` checks the checksum later).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    /// Check the checksum ([`verify_checksum`]) after the framing.
    Verify,
    /// Check the framing only.
    Skip,
}

/// [`decode`], with the checksum checked or not: the one framing decoder behind
/// `from_bytes` and the views' `from_bytes`. With [`Checksum::Skip`] it reads the header,
/// the parameters and the payload length, and no byte of the payload.
///
/// # Errors
///
/// Those of [`decode`] ([`Error::ChecksumMismatch`] only with [`Checksum::Verify`]).
pub fn decode_frame<'a>(
    bytes: &'a [u8],
    variant: Variant,
    scheme: HashScheme,
    params_len: usize,
    checksum: Checksum,
) -> Result<Frame<'a>, Error> {
    let mut r = ByteReader::new(bytes);
    let (scheme, seed) = check_header(&mut r, variant, scheme)?;
    let params = r.take(params_len)?;
    let payload_len = r.u64()?;
    let padding = r.take(padding_len(params_len))?;
    let available = r.remaining() as u64;
    // The payload and its checksum are read as one field: the input must end right after.
    // A length too large to add the checksum to is reported as the payload alone.
    let needed = payload_len.checked_add(8).ok_or(Error::Truncated {
        needed: payload_len,
        available,
    })?;
    if needed > available {
        return Err(Error::Truncated { needed, available });
    }
    if needed < available {
        return Err(Error::corrupt(format!(
            "{} bytes after the checksum",
            available - needed
        )));
    }
    check_padding(padding)?;
    let payload = r.take(payload_len as usize)?;
    if checksum == Checksum::Verify {
        verify_checksum(bytes)?;
    }
    Ok(Frame {
        scheme,
        seed,
        params,
        payload,
    })
}

/// Checks the last 8 bytes of `bytes` against the XXH3-64 of the others: the checksum of a
/// frame whose framing [`decode_frame`] accepted.
///
/// # Errors
///
/// [`Error::ChecksumMismatch`] when they differ; [`Error::Truncated`] for fewer than 8 bytes.
pub fn verify_checksum(bytes: &[u8]) -> Result<(), Error> {
    let checked_len = bytes.len().checked_sub(8).ok_or(Error::Truncated {
        needed: 8,
        available: bytes.len() as u64,
    })?;
    let stored = ByteReader::new(&bytes[checked_len..]).u64()?;
    let computed = xxh3_64(&bytes[..checked_len]);
    if stored != computed {
        return Err(Error::ChecksumMismatch { computed, stored });
    }
    Ok(())
}

/// Reads the [`HEADER_LEN`] bytes before the parameters, checks them in `decode`'s order and
/// returns the scheme found (`scheme`, or the keyed scheme where `scheme` is the seeded one) and the
/// seed field.
fn check_header(
    r: &mut ByteReader<'_>,
    variant: Variant,
    scheme: HashScheme,
) -> Result<(HashScheme, u64), Error> {
    let magic: [u8; 4] = r.take(4)?.try_into().expect("took 4 bytes");
    if magic != MAGIC {
        return Err(Error::BadMagic { found: magic });
    }
    let version = r.u16()?;
    if version != VERSION {
        return Err(Error::UnsupportedVersion { found: version });
    }
    let found_variant = r.u8()?;
    if found_variant != variant as u8 {
        return Err(Error::WrongVariant {
            expected: variant as u8,
            found: found_variant,
        });
    }
    let found_scheme = r.u8()?;
    let keyable = scheme == HashScheme::Seeded;
    let found = match HashScheme::from_tag(found_scheme) {
        Some(found) if found == scheme => found,
        Some(HashScheme::SipHash13Keyed) if keyable => HashScheme::SipHash13Keyed,
        _ => {
            return Err(Error::UnsupportedHashScheme {
                found: found_scheme,
            });
        }
    };
    Ok((found, r.u64()?))
}

/// A cursor over bytes that reads little-endian fields and reports [`Error::Truncated`]
/// instead of panicking.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::ByteReader;
///
/// let mut r = ByteReader::new(&[1, 0, 2]);
/// assert_eq!(r.u16()?, 1);
/// assert!(r.u16().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer than `n` remain.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.remaining() {
            return Err(Error::Truncated {
                needed: n as u64,
                available: self.remaining() as u64,
            });
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        Ok(self.take(N)?.try_into().expect("took N bytes"))
    }

    /// Reads a `u8`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] at the end of the input.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a little-endian `u16`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer than 2 bytes remain.
    pub fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// Reads a little-endian `u32`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer than 4 bytes remain.
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Reads a little-endian `u64`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer than 8 bytes remain.
    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Reads a little-endian IEEE-754 `f64`.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] when fewer than 8 bytes remain.
    pub fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// Checks that every byte was read.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when bytes are left over.
    pub fn finish(&self) -> Result<(), Error> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(Error::corrupt(format!(
                "{n} unexpected bytes at the end of a field"
            ))),
        }
    }
}

/// Parameter bytes of the variants whose parameters are a size and a probe count (the
/// classic, counting and blocked filters): the size as a `u64`, then `num_hashes` as a `u32`.
pub const SIZE_AND_HASHES_LEN: usize = 12;

/// A decoded frame of a variant whose parameters are a size and a probe count.
#[derive(Debug, Clone, Copy)]
pub struct SizeAndHashes<'a> {
    /// The size: bits or counters, as the variant counts them.
    pub size: u64,
    /// The number of probes, checked by [`check_num_hashes`](crate::internal::checks::check_num_hashes).
    pub num_hashes: u32,
    /// The hashing the header gives, checked against the key the caller gave.
    pub hashing: crate::hash::Hashing,
    /// The payload.
    pub payload: &'a [u8],
}

/// Serialises a filter whose parameters are `size` and `num_hashes`
/// ([`SIZE_AND_HASHES_LEN`] bytes), hashed with `hashing`; see [`encode_to`].
///
/// # Errors
///
/// As [`encode_to`].
pub fn encode_size_and_hashes(
    output: Output<'_>,
    variant: Variant,
    hashing: &crate::hash::Hashing,
    size: u64,
    num_hashes: u32,
    payload_len: u64,
    write_payload: impl FnOnce(&mut Sink<'_>),
) -> Result<Vec<u8>, Error> {
    let mut params = [0u8; SIZE_AND_HASHES_LEN];
    params[..8].copy_from_slice(&size.to_le_bytes());
    params[8..].copy_from_slice(&num_hashes.to_le_bytes());
    encode_to(
        output,
        variant,
        hashing.scheme(),
        hashing.header_word(),
        &params,
        payload_len,
        write_payload,
    )
}

/// Reads a frame written by [`encode_size_and_hashes`]: the framing as [`decode_frame`]
/// checks it (the checksum as `checksum` says), the hashing against `key` (see [`Hashing::from_header`](crate::hash::Hashing::from_header)),
/// then the size through the variant's `check_size`, then the probe count.
///
/// # Errors
///
/// Those of [`decode`] and of `Hashing::from_header`; the error of `check_size`;
/// [`Error::Corrupt`] for a probe count out of range.
pub fn decode_size_and_hashes<'a>(
    bytes: &'a [u8],
    variant: Variant,
    key: Option<&crate::hash::SecretKey>,
    checksum: Checksum,
    check_size: impl FnOnce(u64) -> Result<(), Error>,
) -> Result<SizeAndHashes<'a>, Error> {
    let frame = decode_frame(
        bytes,
        variant,
        HashScheme::Seeded,
        SIZE_AND_HASHES_LEN,
        checksum,
    )?;
    let (size, num_hashes, hashing) =
        size_and_hashes(frame.scheme, frame.seed, frame.params, key, check_size)?;
    Ok(SizeAndHashes {
        size,
        num_hashes,
        hashing,
        payload: frame.payload,
    })
}

/// The streaming form of [`decode_size_and_hashes`]: one frame read from `reader` by a
/// [`FrameReader`], its size, probe count and hashing checked as there before the payload is
/// read; returns them with the payload's words (whose length is the variant's to check
/// against them).
///
/// # Errors
///
/// Those of [`FrameReader`] and of [`decode_size_and_hashes`]'s checks.
#[cfg(feature = "std")]
pub fn read_size_and_hashes_words(
    reader: &mut dyn io::Read,
    variant: Variant,
    key: Option<&crate::hash::SecretKey>,
    check_size: impl FnOnce(u64) -> Result<(), Error>,
) -> Result<(u64, u32, crate::hash::Hashing, crate::bits::Words<u64>), Error> {
    let frame = FrameReader::open(reader, variant, HashScheme::Seeded, SIZE_AND_HASHES_LEN)?;
    let (size, num_hashes, hashing) =
        size_and_hashes(frame.scheme, frame.seed, &frame.params, key, check_size)?;
    Ok((size, num_hashes, hashing, frame.finish_with_words()?))
}

/// The size, probe count and hashing of a size-and-hashes frame's header and parameters.
fn size_and_hashes(
    scheme: HashScheme,
    seed: u64,
    params: &[u8],
    key: Option<&crate::hash::SecretKey>,
    check_size: impl FnOnce(u64) -> Result<(), Error>,
) -> Result<(u64, u32, crate::hash::Hashing), Error> {
    let hashing = crate::hash::Hashing::from_header(scheme, seed, key)?;
    let mut r = ByteReader::new(params);
    let size = r.u64()?;
    let num_hashes = r.u32()?;
    check_size(size)?;
    if crate::internal::checks::check_num_hashes(num_hashes).is_err() {
        return Err(Error::corrupt(format!(
            "num_hashes {num_hashes} out of range"
        )));
    }
    Ok((size, num_hashes, hashing))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        encode_to(
            Output::Bytes,
            Variant::Counting,
            HashScheme::Seeded,
            0xABCD,
            &[5; 12],
            16,
            |out| out.put(&[0x11; 16]),
        )
        .unwrap()
    }

    #[test]
    fn layout_is_as_documented() {
        let b = sample();
        assert_eq!(&b[0..4], b"BLMF");
        assert_eq!(&b[4..6], &[5, 0]);
        assert_eq!(b[6], 2);
        assert_eq!(b[7], 1);
        assert_eq!(&b[8..16], &0xABCDu64.to_le_bytes());
        assert_eq!(&b[16..28], &[5; 12]);
        assert_eq!(&b[28..36], &16u64.to_le_bytes());
        assert_eq!(&b[36..64], &[0; 28]);
        assert_eq!(&b[64..80], &[0x11; 16]);
        assert_eq!(&b[80..88], &xxh3_64(&b[..80]).to_le_bytes());
        assert_eq!(b.len(), framing_len(12) + 12 + 16);
    }

    #[test]
    fn the_payload_is_aligned_for_every_parameter_size() {
        for params_len in 0..200 {
            let start = payload_offset(params_len);
            assert_eq!(start % PAYLOAD_ALIGN, 0, "{params_len}");
            assert!(start >= HEADER_LEN + params_len + 8, "{params_len}");
            assert!(
                start < HEADER_LEN + params_len + 8 + PAYLOAD_ALIGN,
                "{params_len}"
            );
            let b = encode_to(
                Output::Bytes,
                Variant::Classic,
                HashScheme::Seeded,
                1,
                &vec![7; params_len],
                3,
                |out| out.put(&[9, 9, 9]),
            )
            .unwrap();
            assert_eq!(&b[start..start + 3], &[9, 9, 9]);
            let frame = decode(&b, Variant::Classic, HashScheme::Seeded, params_len).unwrap();
            assert_eq!(frame.payload, &[9, 9, 9]);
        }
    }

    #[test]
    fn nonzero_padding_is_corrupt() {
        let b = sample();
        for at in 36..64 {
            let mut x = b.clone();
            x[at] = 1;
            let end = x.len() - 8;
            let sum = xxh3_64(&x[..end]);
            x[end..].copy_from_slice(&sum.to_le_bytes());
            assert!(
                matches!(
                    decode(&x, Variant::Counting, HashScheme::Seeded, 12),
                    Err(Error::Corrupt { .. })
                ),
                "padding byte {at}"
            );
            #[cfg(feature = "std")]
            assert!(
                matches!(
                    read_frame(&mut &x[..], Variant::Counting, HashScheme::Seeded, 12),
                    Err(Error::Corrupt { .. })
                ),
                "streamed padding byte {at}"
            );
        }
    }

    #[test]
    fn every_truncation_is_an_error() {
        let b = sample();
        for len in 0..b.len() {
            assert!(decode(&b[..len], Variant::Counting, HashScheme::Seeded, 12).is_err());
        }
        assert!(decode(&b, Variant::Counting, HashScheme::Seeded, 12).is_ok());
    }

    #[test]
    fn header_checks() {
        let b = sample();
        let d = |bytes: &[u8]| decode(bytes, Variant::Counting, HashScheme::Seeded, 12).map(|_| ());
        let mut x = b.clone();
        x[0] = b'X';
        assert!(matches!(d(&x), Err(Error::BadMagic { .. })));
        // Version 1 (the blocked filter's earlier bit placement), 2 (no padding before the
        // payload), 3 (seeded XXH3-128), 4 (the multiply hash up to 16 bytes) and any later
        // one.
        for version in [1u8, 2, 3, 4, 6] {
            let mut x = b.clone();
            x[4] = version;
            assert!(matches!(
                d(&x),
                Err(Error::UnsupportedVersion { found }) if found == u16::from(version)
            ));
        }
        assert!(matches!(
            decode(&b, Variant::Classic, HashScheme::Seeded, 12),
            Err(Error::WrongVariant {
                expected: 1,
                found: 2
            })
        ));
        assert!(matches!(
            decode(&b, Variant::Counting, HashScheme::ParquetXxh64, 12),
            Err(Error::UnsupportedHashScheme { found: 1 })
        ));
        let mut x = b.clone();
        x[70] ^= 1;
        assert!(matches!(d(&x), Err(Error::ChecksumMismatch { .. })));
        let mut x = b.clone();
        x.push(0);
        assert!(matches!(d(&x), Err(Error::Corrupt { .. })));
        // A payload length far beyond the input (or near u64::MAX) is a truncation.
        for len in [1u64 << 40, u64::MAX, u64::MAX - 7] {
            let mut x = b.clone();
            x[28..36].copy_from_slice(&len.to_le_bytes());
            assert!(matches!(d(&x), Err(Error::Truncated { .. })), "{len}");
        }
    }

    /// A payload of `len` bytes streamed through [`encode_to`], as bytes.
    #[cfg(feature = "std")]
    fn streamed(len: u64) -> (Vec<u8>, Vec<u8>) {
        let payload = |out: &mut Sink<'_>| {
            for i in 0..len {
                out.put(&[i as u8]);
            }
        };
        let frame = |output| {
            encode_to(
                output,
                Variant::Counting,
                HashScheme::Seeded,
                9,
                &[5; 12],
                len,
                payload,
            )
            .unwrap()
        };
        let bytes = frame(Output::Bytes);
        let mut streamed = Vec::new();
        let empty = frame(Output::Writer(&mut streamed));
        assert!(empty.is_empty());
        (bytes, streamed)
    }

    #[cfg(feature = "std")]
    #[test]
    fn streaming_writes_the_same_bytes() {
        // Below, at and across the buffer's size: the incremental checksum equals the
        // one-shot XXH3-64 of the whole.
        for len in [
            0,
            1,
            1000,
            STREAM_CHUNK as u64 - 36,
            3 * STREAM_CHUNK as u64 + 5,
        ] {
            let (bytes, streamed) = streamed(len);
            assert_eq!(bytes, streamed, "{len}");
            let mut r = &streamed[..];
            let read = read_frame(&mut r, Variant::Counting, HashScheme::Seeded, 12).unwrap();
            assert_eq!(read, bytes);
            assert!(r.is_empty());
        }
    }

    #[cfg(feature = "std")]
    #[test]
    fn stream_reader_checks_the_header_first() {
        let b = sample();
        let read = |bytes: &[u8], variant| {
            read_frame(&mut &bytes[..], variant, HashScheme::Seeded, 12).map(|_| ())
        };
        assert!(matches!(
            read(&b[..16], Variant::Classic),
            Err(Error::WrongVariant { .. })
        ));
        let mut x = b.clone();
        x[0] = 0;
        assert!(matches!(
            read(&x, Variant::Counting),
            Err(Error::BadMagic { .. })
        ));
        for len in 0..b.len() {
            assert!(matches!(
                read(&b[..len], Variant::Counting),
                Err(Error::Truncated { .. })
            ));
        }
        // A lying length on a short stream: Truncated, the buffer no larger than one chunk
        // beyond what arrived.
        let mut x = b.clone();
        x[28..36].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(matches!(
            read(&x, Variant::Counting),
            Err(Error::Truncated { .. })
        ));
        let mut buf = Vec::new();
        let err = read_field(&mut &x[..], &mut buf, 1 << 40).unwrap_err();
        assert!(matches!(err, Error::Truncated { needed, available: 88 } if needed == 1 << 40));
        assert!(buf.capacity() <= 88 + STREAM_CHUNK, "{}", buf.capacity());
    }

    #[test]
    fn variant_tags_round_trip() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_tag(v as u8), Some(v));
        }
        assert_eq!(Variant::from_tag(0), None);
        assert_eq!(Variant::from_tag(9), None);
    }

    #[test]
    fn reader_fields() {
        let mut bytes = vec![7u8];
        bytes.extend_from_slice(&0x0102u16.to_le_bytes());
        bytes.extend_from_slice(&0x0304_0506u32.to_le_bytes());
        bytes.extend_from_slice(&1.5f64.to_le_bytes());
        let mut r = ByteReader::new(&bytes);
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u16().unwrap(), 0x0102);
        assert!(r.finish().is_err());
        assert_eq!(r.u32().unwrap(), 0x0304_0506);
        assert_eq!(r.f64().unwrap(), 1.5);
        assert!(r.finish().is_ok());
        assert!(matches!(
            r.u8(),
            Err(Error::Truncated {
                needed: 1,
                available: 0
            })
        ));
    }
}
