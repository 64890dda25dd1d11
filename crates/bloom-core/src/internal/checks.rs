//! The checks every constructor runs on its parameters, and the largest sizes they accept:
//! one wording of each error for every variant. Below the sizing math and the storage,
//! which both check sizes.

use alloc::format;

use crate::Error;
use crate::format::parquet::{BITSET_MAX_BYTES, BITSET_MIN_BYTES};
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
    check_count("num_bits", num_bits)?;
    if num_bits > MAX_NUM_BITS {
        return Err(Error::TooLarge {
            requested_bits: num_bits as f64,
            max_bits: MAX_NUM_BITS,
        });
    }
    Ok(())
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

/// The filter every `FromIterator` (and rayon's `FromParallelIterator`) of the workspace
/// collects into, once it has gathered `keys`: `new(n)` for exactly their number `n` (at
/// least 1), then `insert(filter, keys)`.
///
/// # Panics
///
/// When `new` refuses `n`: more keys than a filter can be sized for (or more memory than
/// the allocator gives), a collection of that many keys in memory being itself the larger
/// problem. Callers that want an `Err` size a filter with `new` themselves.
///
/// # Examples
///
/// ```
/// use bloom_core::internal::checks::collect_sized;
///
/// let sizes: Vec<u64> = collect_sized(&[7u8; 3], |n| Ok(vec![n]), |f, keys| f.push(keys.len() as u64));
/// assert_eq!(sizes, [3, 3]);
/// assert_eq!(collect_sized(&[] as &[u8], |n| Ok(vec![n]), |_, _| ()), [1]);
/// ```
pub fn collect_sized<T, F>(
    keys: &[T],
    new: impl FnOnce(u64) -> Result<F, Error>,
    insert: impl FnOnce(&mut F, &[T]),
) -> F {
    // A slice's length always fits a `u64` (no target has a wider `usize`).
    let mut filter =
        new(keys.len().max(1) as u64).expect("the number of keys held in memory fits a filter");
    insert(&mut filter, keys);
    filter
}

/// The length of a bitset Parquet allows: a multiple of 32 between 32 bytes and 128 MiB
/// (any whole number of blocks: the block index formula needs no power of two, though
/// Parquet writers produce one).
///
/// # Errors
///
/// [`Error::Corrupt`] for any other length: the bitset of a frame or a Parquet file that
/// does not hold a split-block filter.
pub fn check_bitset_len(n: u64) -> Result<usize, Error> {
    match usize::try_from(n) {
        Ok(n) if (BITSET_MIN_BYTES..=BITSET_MAX_BYTES).contains(&n) && n % 32 == 0 => Ok(n),
        _ => Err(Error::corrupt(format!(
            "a bitset of {n} bytes: not a multiple of 32 in 32..={BITSET_MAX_BYTES}"
        ))),
    }
}
