//! The checks every constructor runs on its parameters, and the largest sizes they accept:
//! one wording of each error for every variant. Below the sizing math and the storage,
//! which both check sizes.

use alloc::format;

use crate::Error;
use crate::internal::float::{Float, Native};

/// The largest filter any constructor accepts: 2^40 bits (128 GiB). Anything bigger is
/// rejected with [`Error::TooLarge`] rather than attempted.
pub const MAX_NUM_BITS: u64 = 1 << 40;

/// The most probes per key any constructor accepts. An optimal filter needs 64 probes only
/// at a false-positive rate near 10^-19.
pub const MAX_NUM_HASHES: u32 = 64;

/// Checks a target false-positive rate: finite and strictly between 0 and 1.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `fpr` otherwise.
pub fn check_fpr(fpr: f64) -> Result<(), Error> {
    check_rate("fpr", fpr)
}

/// Checks a rate (a probability) finite and strictly between 0 and 1, for the parameter a
/// constructor calls `name` (`fpr`, Parquet's `fpp`, ...).
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `name` otherwise.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::check_rate;
///
/// assert!(check_rate("fpp", 0.01).is_ok());
/// let err = check_rate("fpp", 1.5).unwrap_err();
/// assert_eq!(err.to_string(), "invalid fpp: must be a number in (0, 1) (got 1.5)");
/// ```
pub fn check_rate(name: &'static str, rate: f64) -> Result<(), Error> {
    if rate.is_finite() && rate > 0.0 && rate < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            format!("must be a number in (0, 1) (got {rate})"),
        ))
    }
}

/// Checks an expected number of items: at least 1.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `expected_items` when it is 0.
pub fn check_items(expected_items: u64) -> Result<(), Error> {
    check_count("expected_items", expected_items)
}

/// Checks a number of keys at least 1, for the parameter a constructor calls `name`
/// (`expected_items`, `initial_capacity`, Parquet's `ndv`, ...).
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `name` when it is 0.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::check_count;
///
/// assert!(check_count("ndv", 1).is_ok());
/// let err = check_count("ndv", 0).unwrap_err();
/// assert_eq!(err.to_string(), "invalid ndv: must be at least 1 (got 0)");
/// ```
pub fn check_count(name: &'static str, count: u64) -> Result<(), Error> {
    if count == 0 {
        Err(Error::invalid(name, "must be at least 1 (got 0)"))
    } else {
        Ok(())
    }
}

/// Checks a number of probes: 1 to [`MAX_NUM_HASHES`].
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `num_hashes` otherwise.
pub fn check_num_hashes(num_hashes: u32) -> Result<(), Error> {
    if (1..=MAX_NUM_HASHES).contains(&num_hashes) {
        Ok(())
    } else {
        Err(Error::invalid(
            "num_hashes",
            format!("must be in 1..={MAX_NUM_HASHES} (got {num_hashes})"),
        ))
    }
}

/// Checks a number of bits: at least 1 and at most [`MAX_NUM_BITS`].
///
/// # Errors
///
/// [`Error::InvalidParameter`] for 0, [`Error::TooLarge`] above the maximum.
pub fn check_num_bits(num_bits: u64) -> Result<(), Error> {
    if num_bits == 0 {
        Err(Error::invalid("num_bits", "must be at least 1 (got 0)"))
    } else if num_bits > MAX_NUM_BITS {
        Err(Error::TooLarge {
            requested_bits: num_bits as f64,
            max_bits: MAX_NUM_BITS,
        })
    } else {
        Ok(())
    }
}

/// A count estimated as a real number (a cardinality from [`estimate_cardinality`](crate::math::estimate_cardinality)) as the
/// `u64` every filter's `estimated_len` returns: rounded to the nearest integer; `u64::MAX`
/// for an infinite estimate (a saturated filter) or one beyond `u64`; 0 for NaN.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::round_count;
/// use bloom_core::math::estimate_cardinality;
///
/// assert_eq!(round_count(estimate_cardinality(1000, 3, 0)), 0);
/// assert_eq!(round_count(estimate_cardinality(1000, 3, 1000)), u64::MAX);
/// assert_eq!(round_count(41.6), 42);
/// ```
pub fn round_count(estimate: f64) -> u64 {
    // `as` saturates: +inf and anything past u64::MAX become u64::MAX, NaN becomes 0.
    Native::round(estimate) as u64
}
