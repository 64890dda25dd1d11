//! The parameters and ring state of an aging filter, and their bytes in the shared format.

use std::io::Read;

use bloom_core::bits::BitStore;
use bloom_core::format::{HashScheme, Variant};
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::{self, ByteReader, FrameReader, Output};
use bloom_core::{Error, math};

use crate::sizing::{BLOCK_BITS, MAX_GENERATIONS, MAX_NUM_HASHES, MAX_SLICES};

/// Bytes of the variant parameters in the frame (docs/format.md, "Aging").
pub(crate) const PARAMS_LEN: usize = 64;

/// The aging payload's layout version (the parameter at offset 52): 1, rows of 128-bit
/// blocks, one per slice (docs/format.md, "Aging"). The separate slices before it wrote 0
/// there, the same parameters over a payload in another order: those bytes are refused as
/// [`Error::UnsupportedVersion`] (nothing had been released), as the shared format refuses a
/// version whose layout changed.
pub(crate) const LAYOUT: u32 = 1;

/// What sizes the filter: fixed at construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Slices a key sets, and the run a query looks for.
    pub(crate) k: u32,
    /// Generations a key survives after its own.
    pub(crate) l: u32,
    /// Bits per slice: the rows times [`BLOCK_BITS`].
    pub(crate) slice_bits: u64,
    /// Inserts per generation (the ring shifts after this many, without a time window).
    pub(crate) generation_len: u64,
    /// The time window's span in the caller's units; 0 when generations count inserts.
    pub(crate) span: u64,
    /// How keys are hashed: a seed, or a secret key.
    pub(crate) hashing: Hashing,
}

impl Shape {
    /// Checks the ranges every constructor and the decoder share.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let (k, l, bits) = (self.k, self.l, self.slice_bits);
        let fault = if !(1..=MAX_NUM_HASHES).contains(&k) {
            Some(("k", format!("must be in 1..={MAX_NUM_HASHES} (got {k})")))
        } else if !(1..=MAX_GENERATIONS).contains(&l) {
            Some(("l", format!("must be in 1..={MAX_GENERATIONS} (got {l})")))
        } else if self.slices() > MAX_SLICES {
            let reason = format!("k + l must be at most {MAX_SLICES} (got {k} + {l})");
            Some(("l", reason))
        } else if bits == 0 || !bits.is_multiple_of(u64::from(BLOCK_BITS)) {
            let reason = format!("must be a positive multiple of {BLOCK_BITS} (got {bits})");
            Some(("slice_bits", reason))
        } else if self.generation_len == 0 {
            Some(("generation_len", "must be at least 1".to_owned()))
        } else {
            None
        };
        if let Some((name, reason)) = fault {
            return Err(Error::invalid(name, reason));
        }
        let total = u128::from(self.slices()) * u128::from(bits);
        if total > u128::from(math::MAX_NUM_BITS) {
            return Err(Error::TooLarge {
                requested_bits: total as f64,
                max_bits: math::MAX_NUM_BITS,
            });
        }
        Ok(())
    }

    /// `k + l`.
    #[inline(always)]
    pub(crate) fn slices(&self) -> u32 {
        self.k + self.l
    }

    /// Rows: blocks per slice.
    #[inline(always)]
    pub(crate) fn rows(&self) -> u64 {
        self.slice_bits / u64::from(BLOCK_BITS)
    }

    /// Bits of all slices.
    pub(crate) fn num_bits(&self) -> u64 {
        u64::from(self.slices()) * self.slice_bits
    }

    /// The generation a time falls in: `now * l / span`, counted from time 0; `u64::MAX`
    /// for the times past it (a span shorter than l units ends that early).
    pub(crate) fn epoch_of(&self, now: u64) -> u64 {
        let epoch = u128::from(now) * u128::from(self.l) / u128::from(self.span);
        u64::try_from(epoch).unwrap_or(u64::MAX)
    }

    /// [`Error::Incompatible`] unless `other` was built alike.
    pub(crate) fn check_same(&self, other: &Shape) -> Result<(), Error> {
        Error::check_same("k", self.k, other.k)?;
        Error::check_same("l", self.l, other.l)?;
        Error::check_same("slice_bits", self.slice_bits, other.slice_bits)?;
        Error::check_same("generation_len", self.generation_len, other.generation_len)?;
        Error::check_same("span", self.span, other.span)?;
        self.hashing.check_same(&other.hashing)
    }
}

/// Where the ring stands: changes with every insert and shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Ring {
    /// The physical index of the newest slice.
    pub(crate) head: u32,
    /// Inserts into the current generation.
    pub(crate) count: u64,
    /// With a time window: the current generation's number, `epoch_of(last_now)` plus the
    /// generations forced by `advance`. The newest slice is then always the physical slice
    /// `-epoch mod (k + l)`, so filters on one clock have their rings aligned. 0 without.
    pub(crate) epoch: u64,
    /// With a time window: the latest time passed in (earlier times are errors). 0 without.
    pub(crate) last_now: u64,
}

impl Ring {
    /// The newest slice of a time window's ring in generation `epoch`.
    pub(crate) fn head_of(epoch: u64, slices: u32) -> u32 {
        ((u64::from(slices) - epoch % u64::from(slices)) % u64::from(slices)) as u32
    }
}

/// A filter's parts, as read from its bytes: shape, ring and the rows' words.
pub(crate) type Parts = (Shape, Ring, BitStore);

/// Frames shape, ring and the rows' words into `output` (`to_bytes` and `write_to` share
/// this).
pub(crate) fn encode(
    shape: &Shape,
    ring: &Ring,
    bits: &BitStore,
    output: Output<'_>,
) -> Result<Vec<u8>, Error> {
    let mut params = Vec::with_capacity(PARAMS_LEN);
    params.extend_from_slice(&shape.k.to_le_bytes());
    params.extend_from_slice(&shape.l.to_le_bytes());
    params.extend_from_slice(&shape.slice_bits.to_le_bytes());
    params.extend_from_slice(&shape.generation_len.to_le_bytes());
    params.extend_from_slice(&shape.span.to_le_bytes());
    params.extend_from_slice(&ring.head.to_le_bytes());
    params.extend_from_slice(&LAYOUT.to_le_bytes());
    params.extend_from_slice(&ring.count.to_le_bytes());
    params.extend_from_slice(&ring.epoch.to_le_bytes());
    params.extend_from_slice(&ring.last_now.to_le_bytes());
    debug_assert_eq!(params.len(), PARAMS_LEN);
    internal::encode_to(
        output,
        Variant::Aging,
        shape.hashing.scheme(),
        shape.hashing.header_word(),
        &params,
        bits.le_bytes_len() as u64,
        |out| out.put_words(bits.as_words().iter().copied()),
    )
}

/// Reads one frame from a stream, its payload straight into the word store the filter keeps
/// (`internal::FrameReader`): shape and ring checked as [`decode`] checks them, then the
/// rows' words, whose length is checked once they have arrived (a short stream is
/// `Truncated`, as `decode` says of the same bytes).
pub(crate) fn read_frame(reader: &mut dyn Read, key: Option<&SecretKey>) -> Result<Parts, Error> {
    let frame = FrameReader::open(reader, Variant::Aging, HashScheme::Seeded, PARAMS_LEN)?;
    let (shape, ring) = decode_params(frame.scheme, frame.seed, &frame.params, key)?;
    let payload_len = frame.remaining();
    let words = frame.finish_with_words()?;
    check_payload_len(&shape, payload_len)?;
    Ok((shape, ring, BitStore::from_parts(words, shape.num_bits())?))
}

/// Decodes and validates a frame: shape, ring and the rows' words, the hashing checked
/// against `key`.
pub(crate) fn decode(bytes: &[u8], key: Option<&SecretKey>) -> Result<Parts, Error> {
    let frame = bloom_core::format::decode(bytes, Variant::Aging, HashScheme::Seeded, PARAMS_LEN)?;
    let (shape, ring) = decode_params(frame.scheme, frame.seed, frame.params, key)?;
    check_payload_len(&shape, frame.payload.len() as u64)?;
    let bits = BitStore::from_le_bytes(frame.payload, shape.num_bits())?;
    Ok((shape, ring, bits))
}

/// The shape and the ring of a frame's header and parameters, checked.
fn decode_params(
    scheme: HashScheme,
    seed: u64,
    params: &[u8],
    key: Option<&SecretKey>,
) -> Result<(Shape, Ring), Error> {
    let hashing = Hashing::from_header(scheme, seed, key)?;
    let mut r = ByteReader::new(params);
    let shape = Shape {
        k: r.u32()?,
        l: r.u32()?,
        slice_bits: r.u64()?,
        generation_len: r.u64()?,
        span: r.u64()?,
        hashing,
    };
    let head = r.u32()?;
    let layout = r.u32()?;
    if layout != LAYOUT {
        // The version fields hold 16 bits; a layout past them is no version.
        return Err(u16::try_from(layout).map_or_else(
            |_| Error::corrupt(format!("layout {layout}, {LAYOUT} expected")),
            |found| Error::UnsupportedVersion { found },
        ));
    }
    let ring = Ring {
        head,
        count: r.u64()?,
        epoch: r.u64()?,
        last_now: r.u64()?,
    };
    r.finish()?;
    shape.check().map_err(|e| match e {
        Error::InvalidParameter { name, reason } => Error::corrupt(format!("{name}: {reason}")),
        other => other,
    })?;
    let slices = shape.slices();
    let fault = if ring.head >= slices {
        format!("newest slice {} of {slices} slices", ring.head)
    } else if shape.span == 0 && (ring.epoch != 0 || ring.last_now != 0) {
        "a clock in a filter without a time window".to_owned()
    } else if shape.span == 0 && ring.count >= shape.generation_len {
        let (count, len) = (ring.count, shape.generation_len);
        format!("{count} inserts in a generation of {len}")
    } else if shape.span > 0 && ring.epoch < shape.epoch_of(ring.last_now) {
        let (epoch, now) = (ring.epoch, ring.last_now);
        format!("generation {epoch} is before that of time {now}")
    } else if shape.span > 0 && ring.head != Ring::head_of(ring.epoch, slices) {
        format!("newest slice {} in generation {}", ring.head, ring.epoch)
    } else {
        return Ok((shape, ring));
    };
    Err(Error::corrupt(fault))
}

/// The payload holds the slices' words exactly.
fn check_payload_len(shape: &Shape, len: u64) -> Result<(), Error> {
    let (slices, bits, expected) = (shape.slices(), shape.slice_bits, shape.num_bits() / 8);
    if len == expected {
        return Ok(());
    }
    Err(Error::corrupt(format!(
        "{len} payload bytes for {slices} slices of {bits} bits, {expected} expected"
    )))
}
