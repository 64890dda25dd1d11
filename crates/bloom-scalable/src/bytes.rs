//! The binary format of a scalable filter: its parameters, then every layer.
//!
//! ```text
//! parameters (45 bytes)
//!   initial_capacity  u64   n0
//!   fpr               f64   P
//!   growth_factor     u32   s
//!   tightening_ratio  f64   r
//!   max_layers        u32
//!   max_bytes         u64   u64::MAX: no cap
//!   flags             u8    bit 0: non-scaling; other bits zero
//!   num_layers        u32
//! payload: num_layers times, oldest layer first
//!   num_bits          u64
//!   num_hashes        u32
//!   len               u64   keys added to the layer
//!   words             ceil(num_bits / 64) u64, little-endian
//! ```
//!
//! `docs/format.md` describes the checks `from_bytes` makes.

use std::io::{Read, Write};

use bloom_classic::BloomFilter;
use bloom_core::bits::BitStore;
use bloom_core::format::{self, HashScheme, Variant};
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::{self, ByteReader, Output};
use bloom_core::{Error, Keyed};

use crate::ScalableBloomFilter;
use crate::config::{Config, MAX_LAYERS};
use crate::layer::Layer;

/// Bytes of the parameters.
const PARAMS_LEN: usize = 45;

/// Bytes of a layer's header in the payload, before its words.
const LAYER_HEADER_LEN: u64 = 20;

/// The only flag defined: the filter never grows.
const FLAG_NON_SCALING: u8 = 1;

/// How far a stored layer size may be from the size this build computes from the
/// parameters: the sizing takes a logarithm, whose last bit may differ between platforms'
/// math libraries, so a size computed elsewhere may be off by a bit or so; anything further
/// is corruption.
fn size_agrees(stored: u64, computed: u64) -> bool {
    let tolerance = (computed as f64 * 1e-9).max(2.0) as u64;
    stored.abs_diff(computed) <= tolerance
}

impl ScalableBloomFilter {
    /// The filter in the workspace's binary format (`docs/format.md`): the framing header,
    /// the parameters, every layer's size, count and bits, and a checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(100, 0.01)?;
    /// filter.insert_all(0..1_000u32)?;
    /// let copy = ScalableBloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(ScalableBloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    /// Writes the bytes of [`to_bytes`](ScalableBloomFilter::to_bytes) to `writer`, every
    /// layer in one frame, 64 KiB at a time: memory beyond the filter is that buffer.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(100, 0.01)?;
    /// filter.insert_all(0..1_000u32)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// assert_eq!(ScalableBloomFilter::read_from(&file[..])?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to<W: Write>(&self, mut writer: W) -> Result<(), Error> {
        self.encode(Output::Writer(&mut writer)).map(drop)
    }

    /// Reads a filter from `reader`, as [`from_bytes`](ScalableBloomFilter::from_bytes)
    /// reads the bytes of [`to_bytes`](ScalableBloomFilter::to_bytes) or
    /// [`write_to`](ScalableBloomFilter::write_to). Reads exactly the filter's bytes; memory
    /// grows only as bytes arrive (`docs/format.md`, "Streaming").
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](ScalableBloomFilter::from_bytes) ([`Error::Truncated`] when
    /// the stream ends early, whatever length the header claims); [`Error::Io`] when the
    /// reader fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(100, 0.01)?;
    /// filter.insert_all(0..1_000u32)?;
    /// let mut stream = Cursor::new(Vec::new());
    /// filter.write_to(&mut stream)?;
    /// stream.set_position(0);
    /// assert_eq!(ScalableBloomFilter::read_from(&mut stream)?, filter);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from<R: Read>(mut reader: R) -> Result<Self, Error> {
        Self::read_with(&mut reader, None)
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        let c = &self.config;
        let mut params = Vec::with_capacity(PARAMS_LEN);
        params.extend_from_slice(&c.initial_capacity.to_le_bytes());
        params.extend_from_slice(&c.fpr.to_le_bytes());
        params.extend_from_slice(&c.growth_factor.to_le_bytes());
        params.extend_from_slice(&c.tightening_ratio.to_le_bytes());
        // At most MAX_LAYERS (validated), so the cast is exact.
        params.extend_from_slice(&(c.max_layers as u32).to_le_bytes());
        params.extend_from_slice(&c.max_bytes.to_le_bytes());
        params.push(if c.scaling { 0 } else { FLAG_NON_SCALING });
        params.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        debug_assert_eq!(params.len(), PARAMS_LEN);
        let payload_len = self
            .layers
            .iter()
            .map(|l| LAYER_HEADER_LEN + l.filter.bits().le_bytes_len() as u64)
            .sum();
        internal::encode_to(
            output,
            Variant::Scalable,
            c.hashing.scheme(),
            c.hashing.header_word(),
            &params,
            payload_len,
            |out| {
                for layer in &self.layers {
                    out.put(&layer.filter.num_bits().to_le_bytes());
                    out.put(&layer.filter.num_hashes().to_le_bytes());
                    out.put(&layer.len.to_le_bytes());
                    out.put_words(layer.filter.bits().as_words().iter().copied());
                }
            },
        )
    }

    /// Reads a filter written by [`to_bytes`](ScalableBloomFilter::to_bytes).
    ///
    /// Besides the framing, it checks that the parameters are valid, that the number of
    /// layers is within the cap and matches the payload exactly, that each layer's size
    /// agrees with the size its position in the schedule gives, and that each layer's bits
    /// agree with its count (no bits set past the end, none set without a key counted, no
    /// more than `len * num_hashes`).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::UnsupportedHashScheme`],
    /// [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a panic. Each layer's bits
    /// are allocated only once their bytes are known to be present, so a short input
    /// cannot make it allocate much: the bit arrays take the bytes the input holds for them,
    /// plus a fixed bookkeeping struct per layer (64 layers at most). [`Error::KeyRequired`]
    /// for a [keyed](bloom_core::Keyed::with_key) filter's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }
}

/// The configuration and the layer count of a frame's header and parameters, checked.
fn decode_params(
    scheme: HashScheme,
    seed: u64,
    params: &[u8],
    key: Option<&SecretKey>,
) -> Result<(Config, usize), Error> {
    let hashing = Hashing::from_header(scheme, seed, key)?;
    // The frame holds exactly PARAMS_LEN bytes of parameters: no read below runs short.
    let mut r = ByteReader::new(params);
    let config = Config {
        initial_capacity: r.u64()?,
        fpr: r.f64()?,
        growth_factor: r.u32()?,
        tightening_ratio: r.f64()?,
        // Beyond `usize` (a 16-bit target) is beyond MAX_LAYERS: rejected below.
        max_layers: usize::try_from(r.u32()?).unwrap_or(usize::MAX),
        max_bytes: r.u64()?,
        scaling: match r.u8()? {
            0 => true,
            FLAG_NON_SCALING => false,
            flags => return Err(Error::corrupt(format!("unknown flags {flags:#04x}"))),
        },
        hashing,
    };
    let num_layers = usize::try_from(r.u32()?).unwrap_or(usize::MAX);
    r.finish()?;
    config
        .validate()
        .map_err(|e| Error::corrupt(format!("bad parameters: {e}")))?;
    let layer_cap = if config.scaling { config.max_layers } else { 1 };
    if num_layers == 0 || num_layers > layer_cap {
        return Err(Error::corrupt(format!(
            "{num_layers} layers, expected 1 to {layer_cap}"
        )));
    }
    debug_assert!(num_layers <= MAX_LAYERS);

    Ok((config, num_layers))
}

/// Where the layers are read from: the payload in memory (`from_bytes`) or the stream
/// (`read_from`, each layer's words read straight into its bit array).
trait LayerSource {
    /// A layer's header: its bit count, probe count and key count.
    fn header(&mut self) -> Result<(u64, u32, u64), Error>;
    /// A layer's `num_bits` bits, stored in the next `words_len` bytes.
    fn bits(&mut self, words_len: u64, num_bits: u64) -> Result<BitStore, Error>;
}

impl LayerSource for ByteReader<'_> {
    fn header(&mut self) -> Result<(u64, u32, u64), Error> {
        Ok((self.u64()?, self.u32()?, self.u64()?))
    }

    fn bits(&mut self, words_len: u64, num_bits: u64) -> Result<BitStore, Error> {
        if words_len > self.remaining() as u64 {
            return Err(Error::Truncated {
                needed: words_len,
                available: self.remaining() as u64,
            });
        }
        // `words_len` fits in the input, hence in usize.
        BitStore::from_le_bytes(self.take(words_len as usize)?, num_bits)
    }
}

impl LayerSource for internal::FrameReader<'_> {
    fn header(&mut self) -> Result<(u64, u32, u64), Error> {
        let bytes: [u8; LAYER_HEADER_LEN as usize] = self.read_array()?;
        self::ByteReader::new(&bytes).header()
    }

    fn bits(&mut self, words_len: u64, num_bits: u64) -> Result<BitStore, Error> {
        BitStore::from_parts(self.read_words(words_len)?, num_bits)
    }
}

/// Reads and checks `num_layers` layers from `source`, then the memory cap.
fn read_layers(
    config: Config,
    num_layers: usize,
    source: &mut dyn LayerSource,
) -> Result<ScalableBloomFilter, Error> {
    let layers = (0..num_layers)
        .map(|index| read_layer(&config, index, source))
        .collect::<Result<Vec<_>, _>>()?;
    let memory: u64 = std::mem::size_of::<ScalableBloomFilter>() as u64
        + layers.iter().map(|l| l.memory_usage() as u64).sum::<u64>();
    if memory > config.max_bytes {
        return Err(Error::corrupt(format!(
            "{memory} bytes of layers, beyond the cap of {}",
            config.max_bytes
        )));
    }
    Ok(ScalableBloomFilter::from_parts(config, layers))
}

/// Reads and checks layer `index` of the payload.
fn read_layer(config: &Config, index: usize, source: &mut dyn LayerSource) -> Result<Layer, Error> {
    let (num_bits, num_hashes, len) = source.header()?;
    let expected = config
        .layer_size(index)
        .map_err(|e| Error::corrupt(format!("layer {index} cannot exist: {e}")))?;
    if !size_agrees(num_bits, expected.num_bits) {
        return Err(Error::corrupt(format!(
            "layer {index} has {num_bits} bits, its parameters give {}",
            expected.num_bits
        )));
    }
    if internal::check_num_hashes(num_hashes).is_err()
        || num_hashes.abs_diff(expected.num_hashes) > 1
    {
        return Err(Error::corrupt(format!(
            "layer {index} has {num_hashes} probes per key, its parameters give {}",
            expected.num_hashes
        )));
    }
    let bits = source.bits(num_bits.div_ceil(64) * 8, num_bits)?;
    let ones = bits.count_ones();
    if (len == 0) != (ones == 0) || ones > len.saturating_mul(u64::from(num_hashes)) {
        return Err(Error::corrupt(format!(
            "layer {index} has {ones} bits set for {len} keys of {num_hashes} probes"
        )));
    }
    Ok(Layer {
        filter: BloomFilter::from_bits(bits, num_hashes, config.hashing)?,
        capacity: expected.capacity,
        len,
    })
}

impl bloom_core::internal::Sealed for ScalableBloomFilter {}

impl Keyed for ScalableBloomFilter {
    fn hashing(&self) -> Hashing {
        self.config.hashing
    }

    /// The filter emptied (as [`clear`](ScalableBloomFilter::clear) empties it) and rehashed.
    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.clear();
        self.config.hashing = hashing;
        self.layers = std::mem::take(&mut self.layers)
            .into_iter()
            .map(|layer| Layer {
                filter: layer.filter.with_hashing(hashing),
                ..layer
            })
            .collect();
        self
    }

    /// `read_from`, the hashing checked against `key`: each layer's words are read straight
    /// into its bit array, so the filter is held once.
    fn read_with(reader: &mut dyn Read, key: Option<&SecretKey>) -> Result<Self, Error> {
        let mut frame =
            internal::FrameReader::open(reader, Variant::Scalable, HashScheme::Seeded, PARAMS_LEN)?;
        let (config, num_layers) = decode_params(frame.scheme, frame.seed, &frame.params, key)?;
        let filter = read_layers(config, num_layers, &mut frame)?;
        frame.finish()?;
        Ok(filter)
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let frame = format::decode(bytes, Variant::Scalable, HashScheme::Seeded, PARAMS_LEN)?;
        let (config, num_layers) = decode_params(frame.scheme, frame.seed, frame.params, key)?;
        let mut payload = ByteReader::new(frame.payload);
        let filter = read_layers(config, num_layers, &mut payload)?;
        if payload.remaining() != 0 {
            return Err(Error::corrupt(format!(
                "{} bytes after the last of {num_layers} layers",
                payload.remaining()
            )));
        }
        Ok(filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown() -> ScalableBloomFilter {
        let mut f = ScalableBloomFilter::builder(20, 0.01)
            .seed(5)
            .build()
            .unwrap();
        f.insert_all(0..200u32).unwrap();
        assert!(f.num_layers() >= 3);
        f
    }

    /// Rewrites the checksum so a structural change reaches the checks past it.
    fn reseal(bytes: &mut [u8]) {
        let end = bytes.len() - 8;
        let sum = format::checksum(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
    }

    fn params_at(field: usize) -> usize {
        internal::HEADER_LEN + field
    }

    #[test]
    fn round_trip_keeps_everything() {
        let f = grown();
        let bytes = f.to_bytes();
        assert_eq!(
            bytes.len(),
            internal::framing_len(PARAMS_LEN)
                + PARAMS_LEN
                + f.layers
                    .iter()
                    .map(|l| 20 + l.filter.bits().le_bytes_len())
                    .sum::<usize>()
        );
        let g = ScalableBloomFilter::from_bytes(&bytes).unwrap();
        assert_eq!(g, f);
        assert_eq!(g.to_bytes(), bytes);
        assert!((0..200u32).all(|k| g.contains(&k)));
    }

    #[test]
    fn layer_count_must_match_the_payload() {
        let f = grown();
        let bytes = f.to_bytes();
        let at = params_at(41);
        let n = f.num_layers() as u32;
        for bad in [0, n - 1, n + 1, MAX_LAYERS as u32 + 1, u32::MAX] {
            let mut b = bytes.clone();
            b[at..at + 4].copy_from_slice(&bad.to_le_bytes());
            reseal(&mut b);
            assert!(
                matches!(
                    ScalableBloomFilter::from_bytes(&b),
                    Err(Error::Corrupt { .. } | Error::Truncated { .. })
                ),
                "{bad} layers accepted"
            );
        }
    }

    #[test]
    fn layer_sizes_must_match_the_schedule() {
        let f = grown();
        let bytes = f.to_bytes();
        let first = format::payload_offset(PARAMS_LEN);
        let bits = f.layers[0].filter.num_bits();
        // Another size, even one whose words have the same length, is corrupt.
        for bad in [bits - 5, bits + 5, 1, 0, u64::MAX] {
            let mut b = bytes.clone();
            b[first..first + 8].copy_from_slice(&bad.to_le_bytes());
            reseal(&mut b);
            assert!(ScalableBloomFilter::from_bytes(&b).is_err(), "{bad} bits");
        }
        for bad in [0u32, 65, f.layers[0].filter.num_hashes() + 3] {
            let mut b = bytes.clone();
            b[first + 8..first + 12].copy_from_slice(&bad.to_le_bytes());
            reseal(&mut b);
            assert!(ScalableBloomFilter::from_bytes(&b).is_err(), "{bad} probes");
        }
        // A count of 0 with bits set, or too small for the bits set.
        for bad in [0u64, 1] {
            let mut b = bytes.clone();
            b[first + 12..first + 20].copy_from_slice(&bad.to_le_bytes());
            reseal(&mut b);
            assert!(ScalableBloomFilter::from_bytes(&b).is_err(), "len {bad}");
        }
    }

    #[test]
    fn parameters_are_checked() {
        let f = grown();
        let bytes = f.to_bytes();
        let patches: [(usize, Vec<u8>); 8] = [
            (0, 0u64.to_le_bytes().to_vec()),
            (8, f64::NAN.to_le_bytes().to_vec()),
            (8, 1.5f64.to_le_bytes().to_vec()),
            (16, 1u32.to_le_bytes().to_vec()),
            (20, 1.0f64.to_le_bytes().to_vec()),
            (28, 0u32.to_le_bytes().to_vec()),
            (40, vec![2]),
            // A layer cap below the layers present.
            (28, 1u32.to_le_bytes().to_vec()),
        ];
        for (field, value) in patches {
            let mut b = bytes.clone();
            let at = params_at(field);
            b[at..at + value.len()].copy_from_slice(&value);
            reseal(&mut b);
            assert!(
                matches!(
                    ScalableBloomFilter::from_bytes(&b),
                    Err(Error::Corrupt { .. })
                ),
                "field {field} = {value:?} accepted"
            );
        }
        // A byte cap below the memory held.
        let mut b = bytes.clone();
        let at = params_at(32);
        b[at..at + 8].copy_from_slice(&100u64.to_le_bytes());
        reseal(&mut b);
        assert!(ScalableBloomFilter::from_bytes(&b).is_err());
        // A non-scaling flag on a filter of several layers.
        let mut b = bytes.clone();
        b[params_at(40)] = FLAG_NON_SCALING;
        reseal(&mut b);
        assert!(ScalableBloomFilter::from_bytes(&b).is_err());
    }

    #[test]
    fn sizes_computed_elsewhere_within_rounding_are_accepted() {
        assert!(size_agrees(1000, 1001));
        assert!(size_agrees(1000, 998));
        assert!(!size_agrees(1000, 1003));
        assert!(size_agrees(10_000_000_000, 10_000_000_009));
        assert!(!size_agrees(10_000_000_000, 10_000_000_100));
    }
}
