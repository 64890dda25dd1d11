//! Number of counters, probe count and hashing, and their place in the binary format.

use bloom_core::format::Variant;
use bloom_core::hash::{Hashing, SecretKey};
use bloom_core::internal::Probes;
use bloom_core::{Error, internal, math};

use crate::counters::{Counters, check_num_counters};

/// The validated parameters of a counting filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    pub(crate) num_counters: u64,
    pub(crate) num_hashes: u32,
    pub(crate) hashing: Hashing,
}

impl Params {
    /// The classic optimum: one counter where a classic filter has one bit, so the counting
    /// filter's non-zero counters are exactly the bits of the classic filter for (n, p).
    pub(crate) fn for_items(expected_items: u64, fpr: f64) -> Result<Params, Error> {
        let num_counters = math::optimal_num_bits(expected_items, fpr)?;
        let num_hashes = math::optimal_num_hashes(num_counters, expected_items)?;
        Params::with_counters(num_counters, num_hashes)
    }

    pub(crate) fn with_counters(num_counters: u64, num_hashes: u32) -> Result<Params, Error> {
        check_num_counters(num_counters)?;
        internal::check_num_hashes(num_hashes)?;
        Ok(Params {
            num_counters,
            num_hashes,
            hashing: Hashing::default(),
        })
    }

    pub(crate) fn check_compatible(&self, other: &Params) -> Result<(), Error> {
        Error::check_same("num_counters", self.num_counters, other.num_counters)?;
        Error::check_same("num_hashes", self.num_hashes, other.num_hashes)?;
        self.hashing.check_same(&other.hashing)
    }

    /// Frames the filter of these parameters and `counters` into `output` (`to_bytes` and
    /// `write_to` share this).
    pub(crate) fn encode(
        &self,
        output: internal::Output<'_>,
        counters: &Counters,
    ) -> Result<Vec<u8>, Error> {
        internal::encode_size_and_hashes(
            output,
            Variant::Counting,
            &self.hashing,
            self.num_counters,
            self.num_hashes,
            counters.le_bytes_len(),
            |out| counters.write_le_bytes(out),
        )
    }

    /// The probe positions of `hash`.
    #[inline(always)]
    pub(crate) fn probes(&self, hash: u128) -> Probes {
        Probes::new(hash, self.num_hashes, self.num_counters)
    }

    /// Reads one frame from a stream, its payload straight into the word store the counters
    /// keep (`internal::read_size_and_hashes_words`): returns the parameters, checked
    /// against `key`, and the counters.
    pub(crate) fn read_frame(
        reader: &mut dyn std::io::Read,
        key: Option<&SecretKey>,
    ) -> Result<(Params, Counters), Error> {
        let (num_counters, num_hashes, hashing, words) =
            internal::read_size_and_hashes_words(reader, Variant::Counting, key, check_size)?;
        let params = Params {
            num_counters,
            num_hashes,
            hashing,
        };
        Ok((params, Counters::from_words(words, num_counters)?))
    }

    /// Decodes and validates the frame, its hashing checked against `key`; returns the
    /// parameters and the counters.
    pub(crate) fn decode(
        bytes: &[u8],
        key: Option<&SecretKey>,
    ) -> Result<(Params, Counters), Error> {
        let frame = internal::decode_size_and_hashes(
            bytes,
            Variant::Counting,
            key,
            internal::Checksum::Verify,
            check_size,
        )?;
        let params = Params {
            num_counters: frame.size,
            num_hashes: frame.num_hashes,
            hashing: frame.hashing,
        };
        Ok((params, Counters::from_le_bytes(frame.payload, frame.size)?))
    }
}

/// The counter count a frame may announce: what a constructor accepts, but as corrupt bytes.
fn check_size(num_counters: u64) -> Result<(), Error> {
    check_num_counters(num_counters)
        .map_err(|_| Error::corrupt(format!("num_counters {num_counters} out of range")))
}
