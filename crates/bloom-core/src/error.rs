//! The one error type of the workspace.

use alloc::string::String;
#[cfg(feature = "std")]
use alloc::string::ToString;
#[cfg(feature = "std")]
use alloc::sync::Arc;
use core::fmt;
#[cfg(feature = "std")]
use std::io;

use crate::format::fields::Variant;

/// Everything that can go wrong when building, combining, decoding or updating a filter.
///
/// Every fallible call in the workspace returns this type, so callers match on one enum
/// whichever variant they use. It is `#[non_exhaustive]`: new cases may be added without a
/// breaking release, so a `match` needs a wildcard arm.
///
/// # Examples
///
/// ```
/// use bloom_core::{Error, math};
///
/// let err = math::optimal_num_bits(0, 0.01).unwrap_err();
/// assert!(matches!(err, Error::InvalidParameter { name: "expected_items", .. }));
/// println!("{err}"); // "invalid expected_items: must be at least 1 (got 0)"
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A constructor parameter is out of its valid range (zero items, a false-positive rate
    /// outside (0, 1), NaN, a growth factor below 2, ...).
    InvalidParameter {
        /// The parameter's name as the API spells it.
        name: &'static str,
        /// What is wrong with the value given.
        reason: String,
    },
    /// The requested filter would exceed the documented size limit (or overflow `usize`).
    TooLarge {
        /// What was asked for, in bits (may be beyond `u64` when it came from a formula).
        requested_bits: f64,
        /// The largest size accepted, in bits.
        max_bits: u64,
    },
    /// Two filters cannot be combined because their parameters differ.
    Incompatible {
        /// Which parameter differs.
        parameter: &'static str,
        /// The value on the left-hand filter.
        left: u64,
        /// The value on the right-hand filter.
        right: u64,
    },
    /// The input ended before the structure it describes: the next field needs `needed`
    /// bytes and only `available` are left, so at least `needed - available` are missing
    /// (more when fields follow it).
    Truncated {
        /// The size of the next field in bytes: what reading it needs (for a field whose
        /// length is only bounded, such as a list of variable-size elements, its shortest).
        needed: u64,
        /// Bytes left in the input, fewer than `needed`.
        available: u64,
    },
    /// The bytes do not start with the format's magic number.
    BadMagic {
        /// The first four bytes found.
        found: [u8; 4],
    },
    /// The format version is newer (or older) than this build understands.
    UnsupportedVersion {
        /// The version found in the bytes.
        found: u16,
    },
    /// The bytes hold another kind of filter than the one being decoded. The message names
    /// both types (see [`Variant`](crate::format::Variant) for the tags).
    WrongVariant {
        /// The variant tag the caller expected.
        expected: u8,
        /// The variant tag found.
        found: u8,
    },
    /// The bytes use a hash scheme this filter does not implement.
    UnsupportedHashScheme {
        /// The hash scheme tag found.
        found: u8,
    },
    /// The checksum at the end of the bytes does not match their content.
    ChecksumMismatch {
        /// The checksum computed over the bytes.
        computed: u64,
        /// The checksum stored in the bytes.
        stored: u64,
    },
    /// The bytes are well framed but describe an impossible filter (parameters that disagree
    /// with the payload, bits set beyond the end, trailing bytes, ...).
    Corrupt {
        /// What is inconsistent.
        reason: String,
    },
    /// A growing filter reached one of its caps (bytes or layers), or a non-scaling filter is
    /// at capacity. Nothing was inserted.
    Full {
        /// Which cap was reached.
        reason: String,
    },
    /// A key was removed that is not in the filter (one of its counters is zero). Nothing
    /// was changed.
    NotPresent,
    /// The allocator refused the memory a filter needs: the size is valid, but this machine
    /// cannot hold it now.
    OutOfMemory {
        /// The bytes asked for.
        bytes: usize,
    },
    /// Reading or writing a stream failed (`write_to`, `read_from`): the [`IoError`] holds
    /// the `std::io::Error`, also given by [`source`](core::error::Error::source). A stream
    /// that ends early is [`Error::Truncated`], not this. Only with the `std` feature.
    #[cfg(feature = "std")]
    Io(IoError),
    /// The bytes hold a keyed filter (its positions come from a secret key the bytes do not
    /// contain): load it with the filter's `from_bytes_with_key`.
    KeyRequired,
    /// The key given does not match the keyed filter's stored fingerprint.
    WrongKey,
    /// A key was given to load a filter that is not keyed (it hashes with a seed): load it
    /// with `from_bytes`.
    NotKeyed,
}

/// The `std::io::Error` behind an [`Error::Io`], shared so that [`Error`] stays `Clone`.
/// Only with the `std` feature.
///
/// Two are equal when they are the same error (one clone of the other) or have the same
/// kind and message.
///
/// # Examples
///
/// ```
/// use bloom_core::Error;
///
/// let err = Error::from(std::io::Error::other("disk full"));
/// assert!(matches!(&err, Error::Io(e) if e.kind() == std::io::ErrorKind::Other));
/// assert_eq!(err.to_string(), "I/O error: disk full");
/// ```
#[cfg(feature = "std")]
#[derive(Debug, Clone)]
pub struct IoError(Arc<io::Error>);

#[cfg(feature = "std")]
impl IoError {
    /// The error's kind.
    pub fn kind(&self) -> io::ErrorKind {
        self.0.kind()
    }

    /// The `std::io::Error` itself.
    pub fn get_ref(&self) -> &io::Error {
        &self.0
    }
}

#[cfg(feature = "std")]
impl PartialEq for IoError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.kind() == other.kind() && self.0.to_string() == other.0.to_string())
    }
}

#[cfg(feature = "std")]
impl From<io::Error> for Error {
    fn from(error: io::Error) -> Self {
        Error::Io(IoError(Arc::new(error)))
    }
}

impl Error {
    /// Builds an [`Error::InvalidParameter`].
    pub fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::Corrupt`].
    pub fn corrupt(reason: impl Into<String>) -> Self {
        Error::Corrupt {
            reason: reason.into(),
        }
    }

    /// Returns `Ok(())` when `left == right`, or an [`Error::Incompatible`] naming `parameter`
    /// (any unsigned integer up to 64 bits: a size, a count of hashes, a seed).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the values differ.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::Error;
    ///
    /// assert!(Error::check_same("num_hashes", 7u32, 7u32).is_ok());
    /// let e = Error::check_same("num_bits", 1024u64, 512u64).unwrap_err();
    /// assert_eq!(e.to_string(), "incompatible filters: num_bits differs (1024 vs 512)");
    /// ```
    pub fn check_same(
        parameter: &'static str,
        left: impl Into<u64>,
        right: impl Into<u64>,
    ) -> Result<(), Error> {
        let (left, right) = (left.into(), right.into());
        if left == right {
            Ok(())
        } else {
            Err(Error::Incompatible {
                parameter,
                left,
                right,
            })
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter { name, reason } => write!(f, "invalid {name}: {reason}"),
            Error::TooLarge {
                requested_bits,
                max_bits,
            } => write!(
                f,
                "filter too large: {requested_bits:.0} bits requested, at most {max_bits} allowed"
            ),
            Error::Incompatible {
                parameter,
                left,
                right,
            } => write!(
                f,
                "incompatible filters: {parameter} differs ({left} vs {right})"
            ),
            Error::Truncated { needed, available } => write!(
                f,
                "truncated input: at least {} missing (the next field needs {}, {available} left)",
                Bytes(needed.saturating_sub(*available)),
                Bytes(*needed),
            ),
            Error::BadMagic { found } => {
                write!(f, "not a filter: bad magic number {found:02x?}")
            }
            Error::UnsupportedVersion { found } => {
                write!(f, "unsupported format version {found}")
            }
            Error::WrongVariant { expected, found } => write!(
                f,
                "wrong filter variant: these bytes hold {}, not {}",
                VariantTag(*found),
                VariantTag(*expected),
            ),
            Error::UnsupportedHashScheme { found } => {
                write!(f, "unsupported hash scheme {found}")
            }
            Error::ChecksumMismatch { computed, stored } => write!(
                f,
                "checksum mismatch: computed {computed:#018x}, stored {stored:#018x}"
            ),
            Error::Corrupt { reason } => write!(f, "corrupt filter: {reason}"),
            Error::Full { reason } => write!(f, "filter full: {reason}"),
            Error::NotPresent => write!(f, "key not present: one of its counters is zero"),
            Error::OutOfMemory { bytes } => write!(
                f,
                "out of memory: the allocator refused {bytes} bytes ({:.1} GiB) for the filter",
                *bytes as f64 / (1u64 << 30) as f64
            ),
            #[cfg(feature = "std")]
            Error::Io(e) => write!(f, "I/O error: {}", e.0),
            Error::KeyRequired => write!(
                f,
                "keyed filter: its secret key is needed to load it (from_bytes_with_key)"
            ),
            Error::WrongKey => write!(
                f,
                "wrong key: the key's fingerprint is not the one the filter stores"
            ),
            Error::NotKeyed => write!(
                f,
                "not a keyed filter: it hashes with a seed, load it without a key (from_bytes)"
            ),
        }
    }
}

// `core::error::Error` is `std::error::Error`: the trait needs no `std`, only the I/O source.
impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            #[cfg(feature = "std")]
            Error::Io(e) => Some(e.get_ref()),
            _ => None,
        }
    }
}

/// A variant tag as the types it stands for, with an article.
struct VariantTag(u8);

impl fmt::Display for VariantTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match Variant::from_tag(self.0) {
            // Every type name starts with a consonant.
            Some(v) => write!(f, "a {}", v.type_names()),
            None => write!(f, "an unknown filter variant (tag {})", self.0),
        }
    }
}

/// A byte count with its unit, singular or plural.
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("1 byte"),
            n => write!(f, "{n} bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_problem() {
        let e = Error::invalid("fpr", "must be in (0, 1) (got NaN)");
        assert_eq!(e.to_string(), "invalid fpr: must be in (0, 1) (got NaN)");
        let e = Error::Incompatible {
            parameter: "seed",
            left: 1,
            right: 2,
        };
        assert_eq!(e.to_string(), "incompatible filters: seed differs (1 vs 2)");
        assert_eq!(
            Error::Truncated {
                needed: 8,
                available: 3
            }
            .to_string(),
            "truncated input: at least 5 bytes missing (the next field needs 8 bytes, 3 left)"
        );
        assert_eq!(
            Error::Truncated {
                needed: 1,
                available: 0
            }
            .to_string(),
            "truncated input: at least 1 byte missing (the next field needs 1 byte, 0 left)"
        );
    }

    #[test]
    fn wrong_variant_names_the_types() {
        let e = Error::WrongVariant {
            expected: Variant::Classic as u8,
            found: Variant::Counting as u8,
        };
        assert_eq!(
            e.to_string(),
            "wrong filter variant: these bytes hold a CountingBloomFilter, not a BloomFilter \
             or AtomicBloomFilter"
        );
        let e = Error::WrongVariant {
            expected: Variant::SplitBlock as u8,
            found: 200,
        };
        assert_eq!(
            e.to_string(),
            "wrong filter variant: these bytes hold an unknown filter variant (tag 200), not a \
             SplitBlockBloomFilter"
        );
    }

    #[test]
    fn check_same() {
        assert_eq!(Error::check_same("k", 3u32, 3u32), Ok(()));
        assert_eq!(
            Error::check_same("k", 3u8, 4u64),
            Err(Error::Incompatible {
                parameter: "k",
                left: 3,
                right: 4
            })
        );
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_errors_keep_their_source() {
        use std::error::Error as _;
        let e = Error::from(io::Error::new(io::ErrorKind::BrokenPipe, "pipe closed"));
        assert_eq!(e.to_string(), "I/O error: pipe closed");
        assert_eq!(
            e.source().map(|s| s.to_string()).as_deref(),
            Some("pipe closed")
        );
        assert_eq!(e.clone(), e);
        assert_ne!(e, Error::from(io::Error::other("pipe closed")));
        assert!(Error::NotPresent.source().is_none());
    }

    #[test]
    fn is_std_error_and_send_sync() {
        fn assert_traits<T: std::error::Error + Send + Sync + 'static>() {}
        assert_traits::<Error>();
    }
}
