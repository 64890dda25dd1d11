//! Sizing and accuracy formulas, all with checked inputs.
//!
//! Notation: n keys, m bits, k probes per key, p the false-positive rate.
//!
//! * Optimal size: `m = -n ln p / (ln 2)^2`, optimal probes `k = (m / n) ln 2` (Bloom 1970;
//!   Broder and Mitzenmacher, "Network Applications of Bloom Filters: A Survey", 2004, §2.1).
//! * Classic false-positive rate: `(1 - e^{-kn/m})^k` (same survey, eq. 1).
//! * Blocked false-positive rate: keys fall into `m / B` blocks of B bits as a Poisson
//!   variable of mean `λ = nB/m`; a block holding i keys answers a foreign key positive with
//!   the classic rate of a B-bit filter holding i keys, so the rate is the mixture
//!   `Σ_i Pois(i; λ) (1 - (1 - 1/B)^{ki})^k` (Putze, Sanders, Singler, "Cache-, Hash- and
//!   Space-Efficient Bloom Filters", WEA 2007, §3).
//! * Blocked false-positive rate with distinct probes: when each key sets k *distinct* bits of
//!   its block, a block holding i keys answers a foreign key's k distinct bits positive with
//!   probability `Σ_{j=0}^{k} (-1)^j C(k,j) (C(B-j,k)/C(B,k))^i` (inclusion–exclusion over the
//!   j of the k bits that no key set; each key misses j given bits with probability
//!   `C(B-j,k)/C(B,k)`, independently of the others). This is exact for such a scheme, where the
//!   mixture above, which raises the mean fill to the power k, is an approximation.
//! * Blocked false-positive rate with probes drawn with replacement: a block holding i keys
//!   answers positive with probability `Σ_j (-1)^j (1 - j/B)^{ki} Σ_s P(s) C(s,j)`, where
//!   `P(s)` is the chance that a query's k positions cover s distinct bits (the occupancy
//!   distribution); see [`blocked_fpr_replacement`].
//! * Cardinality from fill: with X of m bits set, `n ≈ -(m/k) ln(1 - X/m)` (Swamidass and
//!   Baldi, "Mathematical correction for fingerprint similarity measures", 2007).

use crate::Error;
use crate::internal::float::{Float, Native};
use alloc::{vec, vec::Vec};

#[cfg(test)]
use crate::internal::checks::check_num_bits;
pub use crate::internal::checks::{MAX_NUM_BITS, MAX_NUM_HASHES};
use crate::internal::checks::{check_count, check_fpr, check_items, check_num_hashes};

/// `(ln 2)^2`.
const LN2_SQUARED: f64 = core::f64::consts::LN_2 * core::f64::consts::LN_2;

/// The number of bits a classic filter needs to hold `expected_items` keys at false-positive
/// rate `fpr`: `ceil(-n ln p / (ln 2)^2)`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] for `expected_items = 0` or `fpr` outside (0, 1) (NaN and
/// infinities included); [`Error::TooLarge`] when the result exceeds [`MAX_NUM_BITS`].
///
/// # Examples
///
/// ```
/// use bloom_core::math::optimal_num_bits;
///
/// assert_eq!(optimal_num_bits(100_000, 0.01)?, 958_506);
/// assert!(optimal_num_bits(100, f64::NAN).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimal_num_bits(expected_items: u64, fpr: f64) -> Result<u64, Error> {
    optimal_num_bits_with::<Native>(expected_items, fpr)
}

/// [`optimal_num_bits`] with the float functions of `F` (`internal::float`).
///
/// # Errors
///
/// As [`optimal_num_bits`].
#[doc(hidden)]
pub fn optimal_num_bits_with<F: Float>(expected_items: u64, fpr: f64) -> Result<u64, Error> {
    check_items(expected_items)?;
    check_fpr(fpr)?;
    let bits = F::ceil(-(expected_items as f64) * F::ln(fpr) / LN2_SQUARED);
    // `bits` is finite and positive here: n >= 1 and ln p < 0 for p in (0, 1).
    if bits > MAX_NUM_BITS as f64 {
        return Err(Error::TooLarge {
            requested_bits: bits,
            max_bits: MAX_NUM_BITS,
        });
    }
    Ok((bits as u64).max(1))
}

/// The number of probes that minimises the false-positive rate of `num_bits` bits holding
/// `expected_items` keys: `round((m / n) ln 2)`, clamped to `1..=MAX_NUM_HASHES`.
///
/// # Errors
///
/// [`Error::InvalidParameter`] when either argument is 0.
///
/// # Examples
///
/// ```
/// use bloom_core::math::optimal_num_hashes;
///
/// assert_eq!(optimal_num_hashes(958_506, 100_000)?, 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimal_num_hashes(num_bits: u64, expected_items: u64) -> Result<u32, Error> {
    check_items(expected_items)?;
    check_count("num_bits", num_bits)?;
    let k = Native::round(num_bits as f64 / expected_items as f64 * core::f64::consts::LN_2);
    Ok(k.clamp(1.0, f64::from(MAX_NUM_HASHES)) as u32)
}

/// The classic false-positive rate of `num_bits` bits and `num_hashes` probes holding
/// `num_items` keys: `(1 - e^{-kn/m})^k`. Returns 0 for an empty filter.
///
/// # Examples
///
/// ```
/// use bloom_core::math::classic_fpr;
///
/// let p = classic_fpr(958_506, 7, 100_000);
/// assert!((p - 0.01).abs() < 0.0005);
/// ```
pub fn classic_fpr(num_bits: u64, num_hashes: u32, num_items: u64) -> f64 {
    if num_bits == 0 {
        return 1.0;
    }
    let k = f64::from(num_hashes);
    let exponent = -k * num_items as f64 / num_bits as f64;
    Native::powf(-Native::exp_m1(exponent), k)
}

/// The expected false-positive rate of a filter whose probes come in pairs sharing a 512-bit
/// group (the layout of `BloomFilter`, described in `docs/design.md`), holding `num_items`
/// keys.
///
/// Each key visits `ceil(k/2)` uniformly chosen groups, setting two uniform bits of each
/// (one for an odd k's last visit), so the bits set in a group are `T = 2 V2 + V1` with
/// `V2 ~ Pois(λ2 = n floor(k/2) 512 / m)` and `V1 ~ Pois(λ1 = n (k mod 2) 512 / m)`, whose
/// generating function is `G(z) = exp(λ2 (z^2 - 1) + λ1 (z - 1))`. With `r = 1 - 1/512`,
/// a bit is clear with probability `E[r^T] = G(r)`, and both bits of a query's pair are set
/// with probability `E[(1 - r^T)^2] = 1 - 2 G(r) + G(r^2)` (the two coincide with
/// probability 1/512, when only one bit is tested). The rate is the product over the query's
/// pairs. At the optimal load it is within about 1.5% of [`classic_fpr`]; on a lightly
/// loaded filter it is higher in relative terms (a group's fill varies more around a small
/// mean), though tiny in absolute terms.
///
/// # Examples
///
/// ```
/// use bloom_core::math::{classic_fpr, paired_fpr};
///
/// let (m, k, n) = (9_585_059, 7, 1_000_000);
/// let ratio = paired_fpr(m, k, n) / classic_fpr(m, k, n);
/// assert!(ratio > 1.0 && ratio < 1.02, "{ratio}");
/// ```
pub fn paired_fpr(num_bits: u64, num_hashes: u32, num_items: u64) -> f64 {
    if num_bits == 0 {
        return 1.0;
    }
    if num_items == 0 {
        return 0.0;
    }
    // Groups of fewer than 512 bits exist only in arrays smaller than one group, or as the
    // last, partial group; use the array's own size for the former.
    let group = num_bits.min(crate::internal::probe::PAIR_GROUP) as f64;
    let scale = num_items as f64 * group / num_bits as f64;
    let lambda2 = scale * f64::from(num_hashes / 2);
    let lambda1 = scale * f64::from(num_hashes % 2);
    let g = |z: f64| Native::exp(lambda2 * (z * z - 1.0) + lambda1 * (z - 1.0));
    let r = 1.0 - 1.0 / group;
    let single = 1.0 - g(r);
    let both = 1.0 - 2.0 * g(r) + g(r * r);
    let pair = (1.0 - 1.0 / group) * both + single / group;
    Native::powi(pair, (num_hashes / 2) as i32) * Native::powi(single, (num_hashes % 2) as i32)
}

/// The false-positive rate of a filter whose `num_bits` bits are a fraction `fill` set, for
/// a key probing `num_hashes` independent positions: `fill^k`. This is the estimate at the
/// current state, as opposed to [`classic_fpr`], the expectation for a number of keys.
pub fn fpr_from_fill(fill: f64, num_hashes: u32) -> f64 {
    Native::powi(fill.clamp(0.0, 1.0), num_hashes as i32)
}

/// The estimated number of distinct keys in a filter of `num_bits` bits with `num_ones` set,
/// probed `num_hashes` times per key: `-(m/k) ln(1 - X/m)`. Infinite when every bit is set
/// (the filter is saturated and the count cannot be known).
///
/// # Examples
///
/// ```
/// use bloom_core::math::estimate_cardinality;
///
/// assert_eq!(estimate_cardinality(1000, 3, 0), 0.0);
/// assert!(estimate_cardinality(1000, 3, 1000).is_infinite());
/// ```
pub fn estimate_cardinality(num_bits: u64, num_hashes: u32, num_ones: u64) -> f64 {
    if num_bits == 0 || num_hashes == 0 {
        return 0.0;
    }
    if num_ones >= num_bits {
        return f64::INFINITY;
    }
    let m = num_bits as f64;
    -(m / f64::from(num_hashes)) * Native::ln_1p(-(num_ones as f64) / m)
}

/// The expected false-positive rate of a blocked filter: `num_bits` bits in blocks of
/// `block_bits` bits, each key setting `num_hashes` (not necessarily distinct) bits of one
/// uniformly chosen block, holding `num_items` keys. The Poisson mixture of Putze, Sanders and
/// Singler (see the module docs), summed until the remaining tail is below 1e-16.
///
/// # Examples
///
/// ```
/// use bloom_core::math::{blocked_fpr, classic_fpr};
///
/// // Blocking costs accuracy at the same size: 10 bits per key, 512-bit blocks.
/// let blocked = blocked_fpr(10_000_000, 512, 7, 1_000_000);
/// let classic = classic_fpr(10_000_000, 7, 1_000_000);
/// assert!(blocked > classic);
/// assert!(blocked < 0.0105);
/// ```
pub fn blocked_fpr(num_bits: u64, block_bits: u64, num_hashes: u32, num_items: u64) -> f64 {
    blocked_mixture::<Native, _>(num_bits, block_bits, num_items, || {
        mean_fill_block_fpr::<Native>(block_bits, num_hashes)
    })
}

/// The rate of one `block_bits`-bit block holding i keys of `num_hashes` bits each, as its
/// mean fill raised to the power k ([`blocked_fpr`]'s per-block rate).
fn mean_fill_block_fpr<F: Float>(block_bits: u64, num_hashes: u32) -> impl Fn(f64) -> f64 {
    let k = f64::from(num_hashes);
    let per_key_miss = F::powf(1.0 - 1.0 / block_bits as f64, k);
    move |i: f64| -> f64 { F::powf(1.0 - F::powf(per_key_miss, i), k) }
}

/// The most hashes for which [`blocked_fpr_distinct`] and [`blocked_fpr_replacement`] sum a
/// block's exact rate. The sums cost k^2 and k^3 operations and lose their digits to
/// cancellation long before; above this k, which no layout takes (the blocked ones take at
/// most 16), they take [`blocked_fpr`]'s per-block rate, which at k = 256 in 512-bit blocks
/// agrees with the exact one to 1e-4.
const EXACT_MAX_HASHES: u32 = 256;

/// The expected false-positive rate of a blocked filter whose keys set `num_hashes`
/// *distinct* bits of one uniformly chosen `block_bits`-bit block: the Poisson mixture of
/// [`blocked_fpr`] with the exact per-block rate for distinct probes (see the module docs).
///
/// Above 256 hashes (no layout takes more than 16) it is [`blocked_fpr`]: the exact sum costs
/// k^2 operations and loses its digits there.
///
/// [`blocked_fpr`] raises a block's mean fill to the power k; that ignores how the fill of a
/// block varies around its mean (which raises the rate) and, for a filter whose probes are
/// distinct, that a query tests k different bits (which lowers it). This formula accounts for
/// both and matches such filters to within measurement noise.
///
/// # Examples
///
/// ```
/// use bloom_core::math::{blocked_fpr, blocked_fpr_distinct};
///
/// // 10 bits per key in 512-bit blocks: 6 distinct probes beat 7.
/// let six = blocked_fpr_distinct(10_000_000, 512, 6, 1_000_000);
/// let seven = blocked_fpr_distinct(10_000_000, 512, 7, 1_000_000);
/// assert!(six < seven && six < 0.00956);
/// assert!((six / blocked_fpr(10_000_000, 512, 6, 1_000_000) - 1.0).abs() < 0.01);
/// ```
pub fn blocked_fpr_distinct(
    num_bits: u64,
    block_bits: u64,
    num_hashes: u32,
    num_items: u64,
) -> f64 {
    if num_hashes > EXACT_MAX_HASHES {
        return blocked_fpr(num_bits, block_bits, num_hashes, num_items);
    }
    blocked_mixture::<Native, _>(num_bits, block_bits, num_items, || {
        distinct_block_fpr(block_bits, num_hashes)
    })
}

/// The expected false-positive rate of a blocked filter whose keys set the bits at
/// `num_hashes` positions of one uniformly chosen `block_bits`-bit block, each position drawn
/// independently and uniformly, **with replacement** (two of a key's positions may be equal):
/// the Poisson mixture over the keys a block holds of the exact per-block rate (see the module
/// docs).
///
/// A block holding i keys has each given set of j bits untouched by all of them with
/// probability `(1 - j/B)^{ki}`; a query's k positions cover s distinct bits with the
/// occupancy probability `P(s)`, so by inclusion–exclusion the block answers positive with
/// probability `Σ_j (-1)^j (1 - j/B)^{ki} Σ_s P(s) C(s, j)`. Unlike [`blocked_fpr`], which
/// raises the mean fill to the power k, this is exact for such a scheme. Above 256 hashes
/// (no layout takes more than 16) the per-block rate is [`blocked_fpr`]'s: the exact sum
/// costs k^3 operations and loses its digits there.
///
/// # Examples
///
/// ```
/// use bloom_core::math::{blocked_fpr_distinct, blocked_fpr_replacement};
///
/// // 10 bits per key in 512-bit blocks, 6 probes: repeats raise the rate by about 1.2%
/// // (0.9665% against 0.9550%), which 0.03 more bits per key win back.
/// let with = blocked_fpr_replacement(10_000_000, 512, 6, 1_000_000);
/// let distinct = blocked_fpr_distinct(10_000_000, 512, 6, 1_000_000);
/// assert!(with > distinct && with < distinct * 1.02);
/// ```
pub fn blocked_fpr_replacement(
    num_bits: u64,
    block_bits: u64,
    num_hashes: u32,
    num_items: u64,
) -> f64 {
    blocked_fpr_replacement_with::<Native>(num_bits, block_bits, num_hashes, num_items)
}

/// The expected false-positive rate of a multiblock filter: each key sets one bit in each of
/// the `num_words` words of `word_bits` bits of one uniformly chosen block (a block is
/// `num_words` words; each bit drawn independently and uniformly in its word), and the filter
/// holds `num_items` keys in `num_bits` bits.
///
/// A block holding i keys has a given bit of a word clear with probability
/// `(1 - 1/word_bits)^i`, independently across its words, so a query's bits are all set with
/// probability `(1 - (1 - 1/word_bits)^i)^num_words`; the rate is the Poisson mixture of that
/// over the keys per block (Putze, Sanders and Singler's model, as [`blocked_fpr`]). It is
/// exact for such a layout, which is the "sectorized" filter of Lang et al. (PVLDB 12(5),
/// 2019) with one bit per sector.
///
/// # Examples
///
/// ```
/// use bloom_core::math::{blocked_fpr_replacement, multiblock_fpr};
///
/// // One bit in each of the eight words of a 512-bit block, 10 bits per key: a little
/// // above k = 8 bits anywhere in the block, which is itself near the blocked optimum.
/// let multi = multiblock_fpr(10_000_000, 64, 8, 1_000_000);
/// let anywhere = blocked_fpr_replacement(10_000_000, 512, 8, 1_000_000);
/// assert!(multi > anywhere && multi < 0.0107);
/// ```
pub fn multiblock_fpr(num_bits: u64, word_bits: u64, num_words: u32, num_items: u64) -> f64 {
    if word_bits == 0 || num_words == 0 {
        return 1.0;
    }
    let clear = 1.0 - 1.0 / word_bits as f64;
    let k = num_words as i32;
    let block_bits = word_bits * u64::from(num_words);
    blocked_mixture::<Native, _>(num_bits, block_bits, num_items, || {
        move |i| Native::powi(1.0 - Native::powf(clear, i), k)
    })
}

/// [`blocked_fpr_replacement`] with the float functions of `F` (`internal::float`).
#[doc(hidden)]
pub fn blocked_fpr_replacement_with<F: Float>(
    num_bits: u64,
    block_bits: u64,
    num_hashes: u32,
    num_items: u64,
) -> f64 {
    if num_hashes > EXACT_MAX_HASHES {
        return blocked_mixture::<F, _>(num_bits, block_bits, num_items, || {
            mean_fill_block_fpr::<F>(block_bits, num_hashes)
        });
    }
    blocked_mixture::<F, _>(num_bits, block_bits, num_items, || {
        replacement_block_fpr::<F>(block_bits, num_hashes)
    })
}

/// The false-positive rate of one `block_bits`-bit block holding i keys that each set
/// `num_hashes` positions drawn with replacement, as a function of i (see
/// [`blocked_fpr_replacement`]).
fn replacement_block_fpr<F: Float>(block_bits: u64, num_hashes: u32) -> impl Fn(f64) -> f64 {
    let b = block_bits as f64;
    let k = num_hashes.min(block_bits.min(u64::from(u32::MAX)) as u32) as usize;
    // occupancy[s]: the chance that k uniform draws from B cover exactly s distinct values.
    let mut occupancy = vec![0.0f64; k + 1];
    occupancy[0] = 1.0;
    for _ in 0..k {
        for s in (0..=k).rev() {
            let stay = occupancy[s] * s as f64 / b;
            let grow = if s > 0 {
                occupancy[s - 1] * (b - (s - 1) as f64) / b
            } else {
                0.0
            };
            occupancy[s] = stay + grow;
        }
    }
    // coefficient[j] = Σ_s P(s) C(s, j); ratio[j] = (1 - j/B)^k, one key avoiding j bits.
    let binomial = |n: usize, r: usize| -> f64 {
        (0..r).fold(1.0, |c, t| c * (n - t) as f64 / (t + 1) as f64)
    };
    let coefficients: Vec<f64> = (0..=k)
        .map(|j| (j..=k).map(|s| occupancy[s] * binomial(s, j)).sum())
        .collect();
    let ratios: Vec<f64> = (0..=k)
        .map(|j| F::powi((1.0 - j as f64 / b).max(0.0), k as i32))
        .collect();
    // Where the alternating sum loses its digits, the chance that the query's s distinct
    // bits are all among the `ones` set at the block's mean fill.
    move |i: f64| -> f64 {
        inclusion_exclusion::<F>(&coefficients, &ratios, b, i, |ones| {
            (0..=k)
                .map(|s| {
                    occupancy[s]
                        * (0..s)
                            .map(|t| ((ones - t as f64) / (b - t as f64)).clamp(0.0, 1.0))
                            .product::<f64>()
                })
                .sum()
        })
    }
}

/// The false-positive rate of one `block_bits`-bit block holding i keys that each set
/// `num_hashes` distinct bits, as a function of i (see [`blocked_fpr_distinct`]).
fn distinct_block_fpr(block_bits: u64, num_hashes: u32) -> impl Fn(f64) -> f64 {
    let b = block_bits as f64;
    let k = num_hashes.min(block_bits.min(u64::from(u32::MAX)) as u32);
    // r[j] = C(B - j, k) / C(B, k) = prod_{t < k} (B - j - t) / (B - t): the chance that one
    // key's k distinct bits avoid j given bits.
    let ratios: Vec<f64> = (0..=k)
        .map(|j| {
            (0..k)
                .map(|t| ((b - f64::from(j) - f64::from(t)) / (b - f64::from(t))).max(0.0))
                .product()
        })
        .collect();
    let binomials: Vec<f64> = (0..=k)
        .scan(1.0f64, |c, j| {
            let out = *c;
            *c = *c * f64::from(k - j) / f64::from(j + 1);
            Some(out)
        })
        .collect();
    // Where the alternating sum loses its digits, the hypergeometric rate at the mean fill.
    move |i: f64| -> f64 {
        inclusion_exclusion::<Native>(&binomials, &ratios, b, i, |ones| {
            (0..k)
                .map(|t| ((ones - f64::from(t)) / (b - f64::from(t))).clamp(0.0, 1.0))
                .product()
        })
    }
}

/// A block's rate by inclusion–exclusion over the bits no key set, for a block of `b` bits
/// holding `i` keys: `Σ_j (-1)^j weights[j] ratios[j]^i`, where `ratios[j]` is the chance
/// that one key avoids j given bits. The alternating sum cancels; where it loses the digits
/// that matter (large k, very few keys in the block, where the rate is negligible anyway),
/// the rate is `at_mean(ones)` instead, of the block's mean count of set bits
/// `ones = b (1 - ratios[1]^i)`.
fn inclusion_exclusion<F: Float>(
    weights: &[f64],
    ratios: &[f64],
    b: f64,
    i: f64,
    at_mean: impl FnOnce(f64) -> f64,
) -> f64 {
    let mut sum = 0.0;
    let mut largest: f64 = 0.0;
    for (j, (&weight, &ratio)) in weights.iter().zip(ratios).enumerate() {
        let term = weight * F::powf(ratio, i);
        largest = largest.max(term);
        sum += if j % 2 == 0 { term } else { -term };
    }
    if sum > largest * 1e-9 {
        sum.min(1.0)
    } else {
        at_mean(b * (1.0 - F::powf(ratios[1], i)))
    }
}

/// The rate of a filter of `num_bits` bits in `block_bits`-bit blocks holding `num_items`
/// keys: the Poisson mixture, over the keys one block holds, of the per-block rate that
/// `per_block` builds (called only for a filter with bits and keys).
fn blocked_mixture<F: Float, R: Fn(f64) -> f64>(
    num_bits: u64,
    block_bits: u64,
    num_items: u64,
    per_block: impl FnOnce() -> R,
) -> f64 {
    if num_bits == 0 || block_bits == 0 {
        return 1.0;
    }
    if num_items == 0 {
        return 0.0;
    }
    poisson_mixture::<F>(
        num_items as f64 * block_bits as f64 / num_bits as f64,
        per_block(),
    )
}

/// `Σ_i Pois(i; λ) f(i)`, summed outwards from the mode until the pmf is below 1e-18 and
/// renormalised by the mass summed.
///
/// The pmf spans about 18 √λ counts. From [`STRIDED_FROM`] keys a block on (far past any
/// filter's fill: a 512-bit block at 1% holds about 50) the sum takes every `step`-th count,
/// `step` about √λ / 256, each standing for its neighbours (the pmf and the block's rate
/// barely change over `step` counts), so it costs a few thousand terms at any λ; and past
/// [`MEAN_FROM`], where even that step would be lost in the float (`i + step == i`) and
/// √λ / λ is below 1e-12, it is the rate at the mean. Without the stride the loop ran
/// 18 √λ times, and never ended past 2^53, where `i + 1 == i`.
fn poisson_mixture<F: Float>(lambda: f64, f: impl Fn(f64) -> f64) -> f64 {
    if lambda >= MEAN_FROM {
        return f(lambda);
    }
    let step = if lambda < STRIDED_FROM {
        1.0
    } else {
        F::floor(F::powf(lambda, 0.5) / 256.0)
    };
    let mode = F::floor(lambda);
    let ln_pmf = |i: f64| -> f64 { i * F::ln(lambda) - lambda - ln_gamma::<F>(i + 1.0) };
    let (mut total, mut mass) = (0.0, 0.0);
    let mut i = mode;
    loop {
        let pmf = F::exp(ln_pmf(i));
        total += pmf * f(i);
        mass += pmf;
        if pmf < 1e-18 && i > lambda {
            break;
        }
        i += step;
    }
    let mut i = mode - step;
    while i >= 0.0 {
        let pmf = F::exp(ln_pmf(i));
        total += pmf * f(i);
        mass += pmf;
        if pmf < 1e-18 {
            break;
        }
        i -= step;
    }
    total / mass
}

/// Keys a block from which [`poisson_mixture`] sums every `step`-th count: 2^20.
const STRIDED_FROM: f64 = (1u64 << 20) as f64;

/// Keys a block from which [`poisson_mixture`] is the rate at the mean: 2^80.
const MEAN_FROM: f64 = (1u128 << 80) as f64;

/// `ln Γ(x)` for x ≥ 1, by the Lanczos approximation (g = 7, n = 9; Numerical Recipes, 3rd
/// ed., §6.1), accurate to about 1e-15 relative.
fn ln_gamma<F: Float>(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = COEFFICIENTS[0];
    let t = x + G + 0.5;
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * F::ln(2.0 * core::f64::consts::PI) + (x + 0.5) * F::ln(t) - t + F::ln(a)
}

/// The smallest number of bits that keeps a blocked filter of `block_bits`-bit blocks with
/// `num_hashes` probes at or below `fpr` for `expected_items` keys, rounded up to whole blocks;
/// found by bisection on [`blocked_fpr`].
///
/// # Errors
///
/// As [`optimal_num_bits`]; [`Error::TooLarge`] when no size up to [`MAX_NUM_BITS`] is enough
/// (the rate cannot be reached with so few probes).
pub fn blocked_num_bits(
    expected_items: u64,
    fpr: f64,
    block_bits: u64,
    num_hashes: u32,
) -> Result<u64, Error> {
    check_items(expected_items)?;
    check_fpr(fpr)?;
    check_num_hashes(num_hashes)?;
    check_count("block_bits", block_bits)?;
    let max_blocks = MAX_NUM_BITS / block_bits;
    let fpr_of =
        |blocks: u64| blocked_fpr(blocks * block_bits, block_bits, num_hashes, expected_items);
    if fpr_of(max_blocks) > fpr {
        let classic = optimal_num_bits(expected_items, fpr).unwrap_or(MAX_NUM_BITS) as f64;
        return Err(Error::TooLarge {
            requested_bits: classic.max(MAX_NUM_BITS as f64 + 1.0),
            max_bits: MAX_NUM_BITS,
        });
    }
    // 0 blocks never fit (their rate is taken as 1).
    Ok(smallest_fitting(0, max_blocks, |blocks| fpr_of(blocks) <= fpr) * block_bits)
}

/// The smallest size in `lo + 1..=hi` for which `fits` holds, by bisection: `fits(hi)`
/// holds, `lo` does not fit (or is below the range), and `fits` is monotonic (a larger size,
/// a lower rate). The search every sizing by an exact rate closes with.
///
/// # Examples
///
/// ```
/// use bloom_core::math::smallest_fitting;
///
/// assert_eq!(smallest_fitting(0, 1 << 20, |n| n * n >= 1_000), 32);
/// ```
#[doc(hidden)]
pub fn smallest_fitting(mut lo: u64, mut hi: u64, fits: impl Fn(u64) -> bool) -> u64 {
    while hi > lo && hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The information-theoretic lower bound on bits per key for a filter with false-positive
/// rate `fpr`: `log2(1 / p)` (Carter, Floyd, Gill, Markowsky, Wegman, "Exact and approximate
/// membership testers", STOC 1978).
pub fn bits_per_key_lower_bound(fpr: f64) -> f64 {
    -Native::log2(fpr)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classic sizes (m, then k; `u64::MAX` for an error) of a grid of (n, p), hashed.
    /// The digest pins them: without `std` the float functions are `libm`'s
    /// (`internal::float`), and CI runs this test both ways, so a filter sized by a `no_std`
    /// build has exactly the size the `std` build gives it.
    #[test]
    fn sizes_are_the_std_build_sizes() {
        let (mut sizes, mut sized) = (Vec::new(), 0);
        for i in 0..64u64 {
            let n = (crate::internal::digest::mix(i) >> (20 + i % 44)).max(1);
            for j in 0..64u64 {
                let p = (crate::internal::digest::mix(!j) % 10_000 + 1) as f64
                    / 20_000.0
                    / 10f64.powi((j % 9) as i32);
                let m = optimal_num_bits(n, p).unwrap_or(u64::MAX);
                sized += usize::from(m != u64::MAX);
                let k = optimal_num_hashes(m.min(MAX_NUM_BITS), n).map_or(u64::MAX, u64::from);
                sizes.extend([m, k].map(u64::to_le_bytes).concat());
            }
        }
        // Most of the grid fits (the rest is `TooLarge`, also pinned).
        assert!(sized > 3_000, "{sized}");
        assert_eq!(xxhash_rust::xxh3::xxh3_64(&sizes), 0x88f2_3880_7643_1d08);
    }

    /// libm sizes classic filters exactly as the standard library does: the same
    /// `optimal_num_bits` over a finer grid than the pinned one, both computed here. (Past
    /// [`MAX_NUM_BITS`] both are `TooLarge`, whose requested size may differ in the last bit.)
    #[cfg(feature = "std")]
    #[test]
    fn libm_gives_the_std_classic_sizes() {
        use crate::internal::float::{Portable, Std};
        let mut sized = 0;
        for i in 0..300u64 {
            let n = (crate::internal::digest::mix(i) >> (28 + i % 36)).max(1);
            for j in 1..=300u64 {
                let p = j as f64 / 601.0 / 10f64.powi((i % 12) as i32);
                let (with_std, with_libm) = (
                    optimal_num_bits_with::<Std>(n, p),
                    optimal_num_bits_with::<Portable>(n, p),
                );
                match (with_std, with_libm) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "n {n}, p {p:e}"),
                    (Err(Error::TooLarge { .. }), Err(Error::TooLarge { .. })) => continue,
                    other => panic!("n {n}, p {p:e}: {other:?}"),
                }
                sized += 1;
            }
        }
        assert!(sized > 80_000, "{sized}");
    }

    #[test]
    fn known_figures() {
        // n = 100,000, p = 1%: 958,506 bits (about 117 KiB), k = 7.
        let m = optimal_num_bits(100_000, 0.01).unwrap();
        assert_eq!(m, 958_506);
        assert_eq!((m / 8) / 1024, 117);
        assert_eq!(optimal_num_hashes(m, 100_000).unwrap(), 7);
        // n = 10 million, p = 0.1%: about 143.8 million bits (about 17.1 MiB), k = 10.
        let m = optimal_num_bits(10_000_000, 0.001).unwrap();
        assert_eq!(m / 100_000, 1437);
        assert!(
            (m as f64 / 8.0 / 1024.0 / 1024.0 - 17.14).abs() < 0.01,
            "{m}"
        );
        assert_eq!(optimal_num_hashes(m, 10_000_000).unwrap(), 10);
    }

    #[test]
    fn classic_fpr_at_the_optimum_is_the_target() {
        for &(n, p) in &[(1_000u64, 0.1), (100_000, 0.01), (1_000_000, 0.001)] {
            let m = optimal_num_bits(n, p).unwrap();
            let k = optimal_num_hashes(m, n).unwrap();
            let got = classic_fpr(m, k, n);
            // Rounding k costs a little accuracy; it stays within 5% of the target.
            assert!((got / p - 1.0).abs() < 0.05, "n {n} p {p}: {got}");
        }
        assert_eq!(classic_fpr(1000, 3, 0), 0.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        for p in [
            0.0,
            1.0,
            -0.5,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert!(matches!(
                optimal_num_bits(10, p),
                Err(Error::InvalidParameter { name: "fpr", .. })
            ));
        }
        assert!(matches!(
            optimal_num_bits(0, 0.01),
            Err(Error::InvalidParameter {
                name: "expected_items",
                ..
            })
        ));
        assert!(matches!(
            optimal_num_bits(u64::MAX, 0.01),
            Err(Error::TooLarge { .. })
        ));
        assert!(optimal_num_bits(1, f64::MIN_POSITIVE).is_ok());
        assert!(matches!(
            optimal_num_bits(1 << 40, 1e-300),
            Err(Error::TooLarge { .. })
        ));
        assert!(optimal_num_hashes(0, 1).is_err());
        assert!(optimal_num_hashes(1, 0).is_err());
        assert_eq!(optimal_num_hashes(1, 1_000_000).unwrap(), 1);
        assert_eq!(optimal_num_hashes(u64::MAX, 1).unwrap(), MAX_NUM_HASHES);
        assert!(check_num_bits(0).is_err());
        assert!(check_num_bits(MAX_NUM_BITS + 1).is_err());
        assert!(check_num_hashes(0).is_err());
        assert!(check_num_hashes(65).is_err());
    }

    #[test]
    fn cardinality_inverts_the_expected_fill() {
        let (m, k, n) = (1_000_000u64, 7u32, 50_000u64);
        let expected_ones = m as f64 * (1.0 - (-(k as f64) * n as f64 / m as f64).exp());
        let est = estimate_cardinality(m, k, expected_ones.round() as u64);
        assert!((est / n as f64 - 1.0).abs() < 1e-3, "{est}");
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut fact = 1.0f64;
        for i in 1..30 {
            fact *= i as f64;
            let got = ln_gamma::<Native>(i as f64 + 1.0);
            assert!((got - fact.ln()).abs() < 1e-9 * fact.ln().max(1.0), "{i}");
        }
    }

    #[test]
    fn blocked_fpr_tends_to_classic_for_huge_blocks() {
        // With one block the mixture degenerates to a point mass at n.
        let one_block = blocked_fpr(10_000, 10_000, 5, 1_000);
        let classic = classic_fpr(10_000, 5, 1_000);
        assert!(
            (one_block / classic - 1.0).abs() < 0.02,
            "{one_block} vs {classic}"
        );
        // Blocking costs some accuracy at the same size, but little at 8 bits per key with
        // 512-bit blocks (about 64 keys per block, so the Poisson spread is narrow).
        let blocked = blocked_fpr(8_000_000, 512, 6, 1_000_000);
        let classic = classic_fpr(8_000_000, 6, 1_000_000);
        assert!(
            blocked > classic && blocked < 1.4 * classic,
            "{blocked} vs {classic}"
        );
    }

    #[test]
    fn blocked_num_bits_reaches_the_target() {
        for &(n, p, k) in &[(1_000_000u64, 0.01, 7u32), (10_000, 0.001, 9), (50, 0.1, 3)] {
            let m = blocked_num_bits(n, p, 512, k).unwrap();
            assert_eq!(m % 512, 0);
            assert!(blocked_fpr(m, 512, k, n) <= p);
            assert!(blocked_fpr(m - 512, 512, k, n) > p || m == 512);
        }
        assert!(blocked_num_bits(10, 1e-30, 512, 1).is_err());
    }

    #[test]
    fn paired_fpr_is_close_to_classic_at_the_optimum() {
        for &(n, p) in &[
            (1_000u64, 0.1),
            (100_000, 0.01),
            (1_000_000, 0.01),
            (1_000_000, 0.001),
        ] {
            let m = optimal_num_bits(n, p).unwrap();
            let k = optimal_num_hashes(m, n).unwrap();
            let ratio = paired_fpr(m, k, n) / classic_fpr(m, k, n);
            assert!((1.0..1.02).contains(&ratio), "n {n} p {p}: {ratio}");
        }
        // Lightly loaded, pairing costs more in relative terms.
        let light = paired_fpr(1 << 33, 2, 20_000_000) / classic_fpr(1 << 33, 2, 20_000_000);
        assert!(light > 1.5 && light < 2.5, "{light}");
        assert_eq!(paired_fpr(1000, 3, 0), 0.0);
        // One probe: no pairs, the classic rate.
        let single = paired_fpr(100_000, 1, 10_000) / classic_fpr(100_000, 1, 10_000);
        assert!((single - 1.0).abs() < 1e-3, "{single}");
    }

    #[test]
    fn distinct_block_rate_agrees_with_a_direct_count() {
        // Two keys in a 16-bit block, 3 distinct probes each: enumerate every pair of key
        // patterns and every query pattern (C(16,3) = 560 each) for the exact rate.
        let subsets: Vec<u32> = (0u32..1 << 16).filter(|s| s.count_ones() == 3).collect();
        let mut hits = 0u64;
        for &a in &subsets {
            for &b in &subsets {
                let set = a | b;
                hits += subsets.iter().filter(|&&q| q & set == q).count() as u64;
            }
        }
        let exact = hits as f64 / (subsets.len() as f64).powi(3);
        let formula = distinct_block_fpr(16, 3)(2.0);
        assert!(
            (formula / exact - 1.0).abs() < 1e-12,
            "{formula} vs {exact}"
        );
        assert_eq!(distinct_block_fpr(16, 3)(0.0), 0.0);
    }

    #[test]
    fn replacement_block_rate_agrees_with_a_direct_count() {
        // Two keys in an 8-bit block, 3 probes each drawn with replacement: enumerate every
        // sequence of the keys' and the query's positions (8^9) for the exact rate.
        let mut hits = 0u64;
        for a in 0u32..512 {
            let key_a = (0..3).fold(0u32, |m, t| m | 1 << ((a >> (3 * t)) & 7));
            for b in 0u32..512 {
                let set = key_a | (0..3).fold(0u32, |m, t| m | 1 << ((b >> (3 * t)) & 7));
                hits += (0u32..512)
                    .filter(|q| (0..3).all(|t| set >> ((q >> (3 * t)) & 7) & 1 == 1))
                    .count() as u64;
            }
        }
        let exact = hits as f64 / 512f64.powi(3);
        let formula = replacement_block_fpr::<Native>(8, 3)(2.0);
        assert!(
            (formula / exact - 1.0).abs() < 1e-12,
            "{formula} vs {exact}"
        );
        assert_eq!(replacement_block_fpr::<Native>(8, 3)(0.0), 0.0);
        // Probes with replacement never beat distinct ones, and lose little in 512 bits.
        for &(bits_per_key, k) in &[(5u64, 3u32), (10, 6), (16, 9), (24, 12)] {
            let n = 1_000_000;
            let r = blocked_fpr_replacement(n * bits_per_key, 512, k, n);
            let d = blocked_fpr_distinct(n * bits_per_key, 512, k, n);
            assert!(r >= d && r < d * 1.06, "{bits_per_key} {k}: {r} vs {d}");
        }
        assert_eq!(blocked_fpr_replacement(1000, 512, 3, 0), 0.0);
        assert_eq!(blocked_fpr_replacement(0, 512, 3, 10), 1.0);
        let p = blocked_fpr_replacement(512 * 10, 512, 16, 100);
        assert!((0.0..=1.0).contains(&p), "{p}");
    }

    #[test]
    fn blocked_fpr_distinct_is_close_to_the_mean_fill_formula() {
        for &(bits_per_key, k) in &[(8u64, 5u32), (10, 6), (10, 7), (16, 9), (24, 12)] {
            let n = 1_000_000;
            let d = blocked_fpr_distinct(n * bits_per_key, 512, k, n);
            let m = blocked_fpr(n * bits_per_key, 512, k, n);
            assert!((d / m - 1.0).abs() < 0.05, "{bits_per_key} {k}: {d} vs {m}");
        }
        assert_eq!(blocked_fpr_distinct(1000, 512, 3, 0), 0.0);
        assert_eq!(blocked_fpr_distinct(0, 512, 3, 10), 1.0);
        // Large k stays a probability.
        let p = blocked_fpr_distinct(512 * 10, 512, 64, 100);
        assert!((0.0..=1.0).contains(&p), "{p}");
    }

    #[test]
    fn lower_bound() {
        assert!((bits_per_key_lower_bound(0.01) - 6.643_856).abs() < 1e-6);
    }

    /// The mixture's mean and second moment are the Poisson's (λ and λ + λ²), below the
    /// stride, across it and far above it, where the sum takes every `step`-th count or the
    /// mean alone.
    #[test]
    fn poisson_mixture_has_the_poisson_moments_at_every_scale() {
        for lambda in [
            0.5,
            10.0,
            1e3,
            STRIDED_FROM - 1.0,
            STRIDED_FROM + 7.0,
            1e9,
            1e15,
            2f64.powi(60),
            1e30,
        ] {
            // The pmf's logarithm loses digits to cancellation as λ grows (`i ln λ` and λ
            // are near 3.5e16 at λ = 1e15), hence the looser bound there.
            let tolerance = if lambda < 1e12 { 1e-9 } else { 1e-5 };
            let mean = poisson_mixture::<Native>(lambda, |i| i);
            assert!(
                (mean / lambda - 1.0).abs() < tolerance,
                "λ {lambda}: mean {mean}"
            );
            let second = poisson_mixture::<Native>(lambda, |i| i * i);
            let expected = lambda + lambda * lambda;
            assert!(
                (second / expected - 1.0).abs() < tolerance.max(1e-6),
                "λ {lambda}: second moment {second} against {expected}"
            );
        }
    }

    /// Rates of filters holding far more keys than bits, or of blocks larger than the
    /// filter, are computed (near 1), where the sum once ran without end.
    #[test]
    fn rates_of_absurd_fills_end() {
        for p in [
            blocked_fpr(1024, 512, 7, u64::MAX),
            blocked_fpr_distinct(1024, 512, 7, u64::MAX),
            blocked_fpr_replacement(1024, 512, 7, u64::MAX),
            blocked_fpr_replacement(1 << 20, 512, 7, 1 << 40),
            multiblock_fpr(1024, 64, 8, u64::MAX),
            multiblock_fpr(512, 32, 8, 1 << 53),
        ] {
            assert!((0.99..=1.0).contains(&p), "{p}");
        }
        // More hashes than the exact sums take: the mean fill's rate, promptly.
        for k in [EXACT_MAX_HASHES + 1, 100_000, u32::MAX] {
            for p in [
                blocked_fpr_distinct(1 << 40, 1 << 30, k, 1 << 20),
                blocked_fpr_replacement(1 << 40, 1 << 30, k, 1 << 20),
            ] {
                assert!((0.0..=1.0).contains(&p), "k {k}: {p}");
            }
        }
        assert_eq!(
            blocked_fpr_replacement(1 << 24, 512, EXACT_MAX_HASHES + 1, 1 << 20),
            blocked_fpr(1 << 24, 512, EXACT_MAX_HASHES + 1, 1 << 20)
        );
        // A block larger than the filter: a number, if not a meaningful one.
        assert!((0.0..=1.0).contains(&blocked_fpr(512, u64::MAX, 7, 100)));
        assert_eq!(smallest_fitting(10, 5, |_| true), 5);
    }
}
