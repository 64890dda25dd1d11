//! Size, probe count and seed of a 512-bit blocked filter: sizing, the k table, and the
//! parameters' bytes.

use alloc::format;
use bloom_core::internal::float::{Float, Native};
use bloom_core::math::{self, smallest_fitting};
use bloom_core::{Error, internal};

use crate::probe::{BLOCK_BITS, MAX_PROBES};

/// The share of the target rate [`Params::for_items`] sizes for. A filter's measured rate
/// scatters around its expectation (which keys share a block is chance); sizing for the
/// target exactly would leave half of all filters measuring above it. With 2% of headroom a
/// filter of 200,000 keys at 0.1% measured 0.1015% on 2 million absent keys (the sampling
/// error alone is about 2%); 5% costs 0.15 bits per key at 1% (10.04 against 9.89 for the
/// distinct-bit optimum, 1.015 times it) and keeps the rates of the suite's seeded filters
/// at or below p (`new_meets_the_rate_with_near_optimal_bits` in tests/tests/blocked.rs).
pub(crate) const SIZING_HEADROOM: f64 = 0.95;

/// The validated parameters of a blocked filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    pub(crate) num_blocks: u64,
    pub(crate) num_hashes: u32,
}

/// The false-positive rate of `num_blocks` blocks, `num_hashes` positions per key (drawn
/// with replacement), holding `num_items` keys.
pub(crate) fn theory_fpr(num_blocks: u64, num_hashes: u32, num_items: u64) -> f64 {
    theory_fpr_with::<Native>(num_blocks, num_hashes, num_items)
}

/// [`theory_fpr`] with the float functions of `F`.
fn theory_fpr_with<F: Float>(num_blocks: u64, num_hashes: u32, num_items: u64) -> f64 {
    let num_bits = num_blocks * BLOCK_BITS;
    internal::blocked_fpr_replacement_with::<F>(num_bits, BLOCK_BITS, num_hashes, num_items)
}

/// The number of positions per key that minimises the false-positive rate of a 512-bit
/// blocked filter with `bits_per_key` bits per key, by [`math::blocked_fpr_replacement`].
pub(crate) fn optimal_num_hashes(bits_per_key: f64) -> u32 {
    if !(bits_per_key.is_finite() && bits_per_key > 0.0) {
        return 1;
    }
    // A large n makes the Poisson mixture exact; only the ratio matters.
    let n = 1u64 << 30;
    let bits = ((n as f64 * bits_per_key) as u64).max(1);
    let fpr = |k: u32| math::blocked_fpr_replacement(bits, BLOCK_BITS, k, n);
    let mut best = 1;
    let mut best_fpr = fpr(1);
    for k in 2..=MAX_PROBES {
        let p = fpr(k);
        if p < best_fpr {
            best = k;
            best_fpr = p;
        } else if p > best_fpr * 1.5 {
            // The rate is unimodal in k: far past the minimum, stop.
            break;
        }
    }
    best
}

/// Checks a blocked filter's probe count: 1..=[`MAX_PROBES`].
fn check_probes(num_hashes: u32) -> Result<(), Error> {
    if (1..=MAX_PROBES).contains(&num_hashes) {
        Ok(())
    } else {
        Err(Error::invalid(
            "num_hashes",
            format!(
                "must be in 1..={MAX_PROBES} for a 512-bit block, one vector lane per bit (got {num_hashes})"
            ),
        ))
    }
}

impl Params {
    /// The smallest filter (and, among equal sizes, the smallest k) whose
    /// [`theory_fpr`] holding `expected_items` keys is at most `fpr` x [`SIZING_HEADROOM`].
    pub(crate) fn for_items(expected_items: u64, fpr: f64) -> Result<Params, Error> {
        Params::for_items_with::<Native>(expected_items, fpr)
    }

    /// [`Params::for_items`] with the float functions of `F`.
    fn for_items_with<F: Float>(expected_items: u64, fpr: f64) -> Result<Params, Error> {
        // A blocked filter never beats the classic optimum: start the search there.
        let classic = internal::optimal_num_bits_with::<F>(expected_items, fpr)?;
        let fpr = fpr * SIZING_HEADROOM;
        let classic_k = math::optimal_num_hashes(classic, expected_items)?;
        let max_blocks = math::MAX_NUM_BITS / BLOCK_BITS;
        let start = (classic / BLOCK_BITS).clamp(1, max_blocks);
        let max_k = (classic_k + 2).min(MAX_PROBES);
        let mut best: Option<(u64, u32)> = None;
        // The k near the classic one first: the best size found so far then bounds every
        // other k, which a single evaluation at that size usually rules out (each evaluation
        // sums a Poisson mixture; trying k upwards from 1 made `new` take over a millisecond).
        for k in spiral(classic_k.min(max_k), max_k) {
            let fits = |blocks: u64| theory_fpr_with::<F>(blocks, k, expected_items) <= fpr;
            // Bracket the smallest fitting size: fits(hi), and lo below the classic size or
            // known not to fit.
            let hi = match best {
                // Only a size at most the best one can win (or tie with a smaller k).
                Some((b, _)) if !fits(b) => continue,
                Some((b, _)) => smallest_fitting(start - 1, b, fits),
                None => match smallest_from(start, fits) {
                    Some(hi) => hi,
                    None => continue,
                },
            };
            let better = match best {
                None => true,
                Some((b, bk)) => hi < b || (hi == b && k < bk),
            };
            if better {
                best = Some((hi, k));
            }
        }
        match best {
            Some((num_blocks, num_hashes)) => Params::with_blocks(num_blocks, num_hashes),
            None => Err(Error::TooLarge {
                requested_bits: (classic as f64).max(math::MAX_NUM_BITS as f64 + 1.0),
                max_bits: math::MAX_NUM_BITS,
            }),
        }
    }

    /// `num_bits` rounded up to whole blocks.
    pub(crate) fn with_bits(num_bits: u64, num_hashes: u32) -> Result<Params, Error> {
        internal::check_num_bits(num_bits)?;
        Params::with_blocks(num_bits.div_ceil(BLOCK_BITS), num_hashes)
    }

    fn with_blocks(num_blocks: u64, num_hashes: u32) -> Result<Params, Error> {
        internal::check_num_bits(num_blocks.saturating_mul(BLOCK_BITS))?;
        check_probes(num_hashes)?;
        Ok(Params {
            num_blocks,
            num_hashes,
        })
    }
}

/// The smallest number of blocks from `start` (at least 1) for which `fits` holds, `fits`
/// monotonic (more blocks, a lower rate): gallop up from `start` to bracket it, then bisect
/// ([`smallest_fitting`]). `None` when even the most blocks a filter may have do not fit.
pub(crate) fn smallest_from(start: u64, fits: impl Fn(u64) -> bool) -> Option<u64> {
    let max_blocks = math::MAX_NUM_BITS / BLOCK_BITS;
    let (mut lo, mut hi) = (start - 1, start);
    while !fits(hi) && hi < max_blocks {
        lo = hi;
        hi = (hi * 2).min(max_blocks);
    }
    fits(hi).then(|| smallest_fitting(lo, hi, &fits))
}

/// The parameters of a layout of 512-bit blocks in the format: `num_bits` (u64) and
/// `num_hashes` (u32), little-endian.
pub(crate) fn write_block_params(num_blocks: u64, num_hashes: u32, out: &mut [u8]) {
    out[..8].copy_from_slice(&(num_blocks * BLOCK_BITS).to_le_bytes());
    out[8..12].copy_from_slice(&num_hashes.to_le_bytes());
}

/// The number of blocks and `num_hashes` of [`write_block_params`]'s bytes; the caller
/// checks `num_hashes` against its layout.
///
/// # Errors
///
/// [`Error::Corrupt`] for a `num_bits` that is not a whole number of blocks in range, and
/// for parameters shorter than their 12 bytes.
pub(crate) fn read_block_params(params: &[u8]) -> Result<(u64, u32), Error> {
    let mut r = internal::ByteReader::new(params);
    let (num_bits, num_hashes) = (r.u64()?, r.u32()?);
    if num_bits == 0 || num_bits % BLOCK_BITS != 0 || num_bits > math::MAX_NUM_BITS {
        return Err(Error::corrupt(format!(
            "num_bits {num_bits} is not a whole number of 512-bit blocks in range"
        )));
    }
    Ok((num_bits / BLOCK_BITS, num_hashes))
}

/// `first`, then the values of `1..=last` ever farther from it, alternating below and above
/// (`first - 1`, `first + 1`, `first - 2`, ...): every k of the sizing search, the likely
/// best first.
fn spiral(first: u32, last: u32) -> impl Iterator<Item = u32> {
    let first = first.clamp(1, last.max(1));
    (0..last).flat_map(move |d| {
        let below = (d > 0 && first > d).then(|| first - d);
        let above = (d > 0 && first + d <= last).then_some(first + d);
        let here = (d == 0).then_some(first);
        here.into_iter().chain(below).chain(above)
    })
}

/// The factor that folds `large` blocks onto `small`: `large / small` when that is a power of
/// two (up to 2^31), the one shape of sizes two filters can be combined across.
///
/// # Errors
///
/// [`Error::Incompatible`] naming `num_bits` (of 512-bit blocks as `block_bits`) otherwise.
pub(crate) fn fold_factor(large: usize, small: usize, block_bits: u64) -> Result<u32, Error> {
    let incompatible = || Error::Incompatible {
        parameter: "num_bits",
        left: large as u64 * block_bits,
        right: small as u64 * block_bits,
    };
    if small == 0 || !large.is_multiple_of(small) {
        return Err(incompatible());
    }
    match u32::try_from(large / small) {
        Ok(factor) if factor.is_power_of_two() => Ok(factor),
        _ => Err(incompatible()),
    }
}

/// The factors by which two block layouts of `ours` and `theirs` blocks of `block_bits` bits
/// fold to combine: `(1, 1)` for the same size, else the larger folds onto the smaller
/// (`Layout::fold_factors`).
///
/// # Errors
///
/// [`Error::Incompatible`] naming `num_bits` when the sizes are not a power of two apart.
pub(crate) fn fold_factors(ours: u64, theirs: u64, block_bits: u64) -> Result<(u32, u32), Error> {
    let (ours, theirs) = (ours as usize, theirs as usize);
    if ours == theirs {
        Ok((1, 1))
    } else if ours < theirs {
        Ok((1, fold_factor(theirs, ours, block_bits)?))
    } else {
        Ok((fold_factor(ours, theirs, block_bits)?, 1))
    }
}

/// The number of blocks after folding `num_blocks` by `factor`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] naming `factor` when it is not a power of two dividing
/// `num_blocks`.
pub(crate) fn folded_blocks(num_blocks: u64, factor: u32) -> Result<u64, Error> {
    if !factor.is_power_of_two() || !num_blocks.is_multiple_of(u64::from(factor)) {
        return Err(Error::invalid(
            "factor",
            format!("must be a power of two dividing the {num_blocks} blocks (got {factor})"),
        ));
    }
    Ok(num_blocks / u64::from(factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libm (the float functions without `std`) against the standard library: the blocked
    /// sizing of a grid of (n, p) with each. The probe counts agree; the sizes agree or, where
    /// the formula's alternating sum magnifies the last-digit differences of the two libraries
    /// at a bisection's boundary (high k, tiny rates, many keys), settle one block apart.
    #[cfg(feature = "std")]
    #[test]
    fn libm_gives_the_std_sizes_within_a_block() {
        use bloom_core::internal::float::{Portable, Std};
        let (mut same, mut one_apart) = (0, 0);
        for i in 0..24u64 {
            let n = (bloom_core::keys::mix(i) >> (28 + i % 36)).max(1);
            for j in 0..24u64 {
                let p = (bloom_core::keys::mix(j + 99) % 5_000 + 1) as f64 / 10_000.0;
                let p = p / 10f64.powi((j % 7) as i32);
                match (
                    Params::for_items_with::<Std>(n, p),
                    Params::for_items_with::<Portable>(n, p),
                ) {
                    (Ok(a), Ok(b)) if a == b => same += 1,
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.num_hashes, b.num_hashes, "n {n}, p {p:e}");
                        assert_eq!(a.num_blocks.abs_diff(b.num_blocks), 1, "n {n}, p {p:e}");
                        one_apart += 1;
                    }
                    (Err(Error::TooLarge { .. }), Err(Error::TooLarge { .. })) => {}
                    other => panic!("n {n}, p {p:e}: {other:?}"),
                }
            }
        }
        assert!(
            same > 500 && one_apart <= 5,
            "{same} the same, {one_apart} a block apart"
        );
    }

    /// The search before its k order and bounds: every k from 1 up, each galloped and
    /// bisected to its own smallest size.
    fn for_items_reference(n: u64, fpr: f64) -> (u64, u32) {
        let classic = math::optimal_num_bits(n, fpr).unwrap();
        let fpr = fpr * SIZING_HEADROOM;
        let classic_k = math::optimal_num_hashes(classic, n).unwrap();
        let max_blocks = math::MAX_NUM_BITS / BLOCK_BITS;
        let start = (classic / BLOCK_BITS).clamp(1, max_blocks);
        let mut best: Option<(u64, u32)> = None;
        for k in 1..=(classic_k + 2).min(MAX_PROBES) {
            let fits = |blocks: u64| theory_fpr(blocks, k, n) <= fpr;
            let (mut lo, mut hi) = (start - 1, start);
            while !fits(hi) && hi < max_blocks {
                lo = hi;
                hi = (hi * 2).min(max_blocks);
            }
            if !fits(hi) {
                continue;
            }
            let hi = smallest_fitting(lo, hi, fits);
            if best.is_none_or(|(b, _)| hi < b) {
                best = Some((hi, k));
            }
        }
        best.unwrap()
    }

    #[test]
    fn sizing_equals_the_exhaustive_search() {
        for n in [1u64, 7, 100, 1_000, 12_345, 100_000, 1_000_000, 10_000_000] {
            for fpr in [0.5, 0.2, 0.1, 0.03, 0.01, 0.002, 0.001, 1e-4, 1e-5, 1e-6] {
                let p = Params::for_items(n, fpr).unwrap();
                assert_eq!(
                    (p.num_blocks, p.num_hashes),
                    for_items_reference(n, fpr),
                    "n {n} p {fpr}"
                );
            }
        }
    }

    #[test]
    fn spiral_visits_every_k_once_nearest_first() {
        assert_eq!(
            spiral(7, 9).collect::<Vec<_>>(),
            [7, 6, 8, 5, 9, 4, 3, 2, 1]
        );
        assert_eq!(spiral(1, 3).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(spiral(3, 3).collect::<Vec<_>>(), [3, 2, 1]);
        assert_eq!(spiral(16, 16).count(), 16);
    }

    #[test]
    fn k_table_follows_the_formula() {
        // The table docs/blocked.md prints.
        let table: Vec<(f64, u32)> = [4.0, 6.0, 8.0, 9.0, 10.0, 10.5, 12.0, 16.0, 20.0, 24.0, 32.0]
            .iter()
            .map(|&c| (c, optimal_num_hashes(c)))
            .collect();
        let expected = [3, 4, 5, 6, 6, 7, 8, 9, 11, 12, 15];
        for ((c, k), e) in table.iter().zip(expected) {
            assert_eq!(*k, e, "{c} bits per key");
        }
    }

    /// Bits per key far outside any filter's still give a k in range, and promptly (the rate
    /// sum once ran for minutes at 1e-300 bits per key).
    #[test]
    fn k_for_extreme_bits_per_key() {
        for bits_per_key in [1e-300, 1e-9, 0.01, 1e9, f64::MAX] {
            let k = optimal_num_hashes(bits_per_key);
            assert!((1..=MAX_PROBES).contains(&k), "{bits_per_key}: {k}");
        }
        assert_eq!(optimal_num_hashes(1e-300), 1);
    }

    #[test]
    fn sizing_meets_the_target_with_few_bits() {
        let p = Params::for_items(1_000_000, 0.01).unwrap();
        let fpr = theory_fpr(p.num_blocks, p.num_hashes, 1_000_000);
        assert!(fpr <= 0.01 * SIZING_HEADROOM);
        assert!(theory_fpr(p.num_blocks - 1, p.num_hashes, 1_000_000) > 0.01 * SIZING_HEADROOM);
        let bits_per_key = (p.num_blocks * BLOCK_BITS) as f64 / 1e6;
        assert!(bits_per_key < 10.5, "{bits_per_key}");
        assert!(Params::for_items(1 << 40, 1e-30).is_err());
        assert!(Params::for_items(10, 1e-30).is_ok());
        assert!(Params::for_items(1, 0.5).is_ok());
    }
}
