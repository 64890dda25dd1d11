//! Size, probe count and hashing: what the plain and the atomic filter share.

use alloc::{format, vec::Vec};
use bloom_core::format::Variant;
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::batch::Probed;
use bloom_core::internal::float::{Float, Native};
use bloom_core::{Error, internal, math};

/// The validated parameters of a classic filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
    pub(crate) hashing: Hashing,
}

impl Params {
    pub(crate) fn for_items(expected_items: u64, fpr: f64) -> Result<Params, Error> {
        let num_bits = math::optimal_num_bits(expected_items, fpr)?;
        let num_hashes = math::optimal_num_hashes(num_bits, expected_items)?;
        Params::with_bits(num_bits, num_hashes)
    }

    pub(crate) fn with_bits(num_bits: u64, num_hashes: u32) -> Result<Params, Error> {
        internal::check_num_bits(num_bits)?;
        internal::check_num_hashes(num_hashes)?;
        Ok(Params {
            num_bits,
            num_hashes,
            hashing: Hashing::default(),
        })
    }

    /// The batch engine's query over `store`, the bits of a filter with these parameters
    /// (the plain and atomic filters' own, or a view's bytes).
    #[inline(always)]
    pub(crate) fn query<'a, S>(&self, store: &'a S) -> Probed<'a, S> {
        Probed::new(store, self.hashing, self.num_hashes, self.num_bits)
    }

    pub(crate) fn check_compatible(&self, other: &Params) -> Result<(), Error> {
        Error::check_same("num_bits", self.num_bits, other.num_bits)?;
        Error::check_same(
            "num_hashes",
            u64::from(self.num_hashes),
            u64::from(other.num_hashes),
        )?;
        self.hashing.check_same(&other.hashing)
    }

    /// Frames the filter into `output` (`to_bytes` and `write_to` share this).
    pub(crate) fn encode(
        &self,
        output: internal::Output<'_>,
        payload_len: u64,
        write: impl FnOnce(&mut internal::Sink<'_>),
    ) -> Result<Vec<u8>, Error> {
        internal::encode_size_and_hashes(
            output,
            Variant::Classic,
            &self.hashing,
            self.num_bits,
            self.num_hashes,
            payload_len,
            write,
        )
    }

    bloom_core::internal::if_std! {
        /// Reads one frame from a stream, its payload straight into the word store the filter
        /// keeps (`internal::read_frame_words`); returns the parameters, checked against `key`,
        /// and the words.
        pub(crate) fn read_frame(
            reader: &mut dyn internal::io::Read,
            key: Option<&SecretKey>,
        ) -> Result<(Params, bloom_core::bits::Words<u64>), Error> {
            let (num_bits, num_hashes, hashing, words) =
                internal::read_size_and_hashes_words(reader, Variant::Classic, key, check_size)?;
            Ok((
                Params {
                    num_bits,
                    num_hashes,
                    hashing,
                },
                words,
            ))
        }
    }

    /// Decodes and validates the frame (its checksum as `checksum` says: `from_bytes`
    /// verifies it, a view's `from_bytes` skips it), its hashing checked against `key`; returns the
    /// parameters and the payload (the words).
    pub(crate) fn decode<'a>(
        bytes: &'a [u8],
        key: Option<&SecretKey>,
        checksum: internal::Checksum,
    ) -> Result<(Params, &'a [u8]), Error> {
        let frame =
            internal::decode_size_and_hashes(bytes, Variant::Classic, key, checksum, check_size)?;
        Ok((
            Params {
                num_bits: frame.size,
                num_hashes: frame.num_hashes,
                hashing: frame.hashing,
            },
            frame.payload,
        ))
    }
}

/// Checks a stored bit count: 1..=`MAX_NUM_BITS`.
fn check_size(num_bits: u64) -> Result<(), Error> {
    if (1..=math::MAX_NUM_BITS).contains(&num_bits) {
        Ok(())
    } else {
        Err(Error::corrupt(format!("num_bits {num_bits} out of range")))
    }
}

/// The expected false-positive rate of a filter with `num_ones` of its bits set: the paired
/// layout's rate for the number of keys that fill implies; 1 when every bit is set.
pub(crate) fn fpr_for_fill(num_bits: u64, num_hashes: u32, num_ones: u64) -> f64 {
    let n = math::estimate_cardinality(num_bits, num_hashes, num_ones);
    if n.is_finite() {
        math::paired_fpr(num_bits, num_hashes, Native::round(n) as u64)
    } else {
        1.0
    }
}
