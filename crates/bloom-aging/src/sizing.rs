//! The false-positive rate of an age-partitioned filter and the slice size that reaches a
//! target rate.
//!
//! A key that was never inserted finds its bit set in slice i with probability `f_i`, the
//! fill of that slice, independently from slice to slice (each slice has its own position for
//! the key). The filter answers "present" when k consecutive slices have the key's bit set,
//! so its false-positive rate is the probability of a run of at least k successes in a
//! sequence of independent Bernoulli trials of probabilities `f_0, ..., f_{k+l-1}`, computed
//! exactly by a recurrence over the length of the current run. (The structure is Shtul,
//! Baquero, Almeida's, "Age-Partitioned Bloom Filters", arXiv 2001.03147.)

use bloom_core::{Error, math};

/// The most generations (`l`) a filter may have: the query scans `k + l` slices, so more
/// would make it slow long before it saved memory (docs/aging.md has the table).
pub const MAX_GENERATIONS: u32 = 1024;

/// The most slices a key sets (`k`), as for every filter's probe count.
pub(crate) const MAX_NUM_HASHES: u32 = math::MAX_NUM_HASHES;

/// The generations [`AgingBloomFilter::new`](crate::AgingBloomFilter::new) uses. With
/// [`DEFAULT_SLACK_GENERATIONS`] it bounds the slack, how long a key may still answer present
/// after its window, to 10% of the window, for memory within 1.08 times a pair of classic
/// filters sized for the window at 1% and below it at 0.1% (docs/aging.md has the table).
pub const DEFAULT_GENERATIONS: u32 = 80;

/// Generations past its window after which a key of a filter built by
/// [`AgingBloomFilter::new`](crate::AgingBloomFilter::new) answers present with probability
/// at most p, like a key never inserted: `DEFAULT_GENERATIONS / 10`.
pub const DEFAULT_SLACK_GENERATIONS: u32 = DEFAULT_GENERATIONS / 10;

/// The probability that some k consecutive trials of `fills` (in order) all succeed, the
/// trials independent and trial i succeeding with probability `fills[i]` (clamped to
/// [0, 1]): an age-partitioned filter's false-positive rate when slice i (0 the newest) has
/// the fraction `fills[i]` of its bits set, computed exactly by a recurrence over the length
/// of the current run. Public for models of other layouts (the `aging_layout` bench's
/// blocked one conditions on a row's fills and averages this over rows).
///
/// A run of `k = 0` trials is always there: 1.
///
/// # Examples
///
/// ```
/// use bloom_aging::run_probability;
///
/// assert_eq!(run_probability([1.0, 1.0, 0.0], 2), 1.0);
/// assert_eq!(run_probability([0.0], 0), 1.0);
/// assert!((run_probability([0.5; 3], 2) - 0.375).abs() < 1e-12);
/// ```
pub fn run_probability(fills: impl IntoIterator<Item = f64>, k: u32) -> f64 {
    if k == 0 {
        return 1.0;
    }
    // runs[r]: the probability that the current run has length r and no run of k was seen.
    let k = k as usize;
    let mut runs = vec![0.0; k];
    runs[0] = 1.0;
    let mut found = 0.0;
    for f in fills {
        let f = f.clamp(0.0, 1.0);
        found += runs[k - 1] * f;
        let alive: f64 = runs.iter().sum();
        for r in (1..k).rev() {
            runs[r] = runs[r - 1] * f;
        }
        runs[0] = alive * (1.0 - f);
    }
    found.clamp(0.0, 1.0)
}

/// The expected fill of a slice of `slice_bits` bits after `keys` keys each set one uniform
/// bit: `1 - (1 - 1/m)^keys`.
pub(crate) fn expected_fill(slice_bits: f64, keys: f64) -> f64 {
    if keys <= 0.0 {
        return 0.0;
    }
    -(keys * (-1.0 / slice_bits).ln_1p()).exp_m1()
}

/// The keys slice `i` (0 the newest) holds when every generation received `generation_len`
/// keys and the current one `current` so far: a slice receives the keys of the generations
/// during which it is one of the k newest, so slice i holds the current generation's and
/// those of the `min(i, k - 1)` before it.
pub(crate) fn keys_in_slice(i: u32, k: u32, generation_len: u64, current: u64) -> f64 {
    current as f64 + f64::from(i.min(k - 1)) * generation_len as f64
}

/// The false-positive rate with every generation full: the most a filter of these
/// parameters reaches in a steady stream, the rate `new(window, p)` sizes for.
pub(crate) fn steady_fpr(k: u32, l: u32, generation_len: u64, slice_bits: f64) -> f64 {
    run_probability(
        (0..k + l).map(|i| {
            expected_fill(
                slice_bits,
                keys_in_slice(i, k, generation_len, generation_len),
            )
        }),
        k,
    )
}

/// The probability that a key `past` generations past its window (`l + past` shifts after
/// its insert, `1 <= past`) answers present in a steady stream: its `k - past` bits left in
/// the oldest slices are set, and the other slices have their steady fills. From `past = k`
/// on, no bit of it is left and this is the steady rate.
pub(crate) fn expired_fpr(k: u32, l: u32, generation_len: u64, slice_bits: f64, past: u32) -> f64 {
    run_probability(
        (0..k + l).map(|i| {
            if i >= l + past {
                1.0
            } else {
                expected_fill(
                    slice_bits,
                    keys_in_slice(i, k, generation_len, generation_len),
                )
            }
        }),
        k,
    )
}

/// The rate sizing holds at or below the target: the steady rate, and with `slack` the rate
/// of keys `slack` generations past their window.
fn sized_rate(k: u32, l: u32, generation_len: u64, slice_bits: f64, slack: Option<u32>) -> f64 {
    let steady = steady_fpr(k, l, generation_len, slice_bits);
    match slack {
        Some(past) if past < k => steady.max(expired_fpr(k, l, generation_len, slice_bits, past)),
        _ => steady,
    }
}

/// The keys per generation for a window of `window` keys over `l` generations.
pub(crate) fn generation_len(window: u64, l: u32) -> u64 {
    window.div_ceil(u64::from(l))
}

/// The smallest slice size, a multiple of 64 bits, whose steady rate is at most `fpr`, and
/// with `slack` also the rate of keys `slack` generations past their window.
///
/// # Errors
///
/// [`Error::TooLarge`] when the filter would exceed
/// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
pub(crate) fn slice_bits_for(
    k: u32,
    l: u32,
    generation_len: u64,
    fpr: f64,
    slack: Option<u32>,
) -> Result<u64, Error> {
    let slices = u64::from(k + l);
    let max_slice_words = math::MAX_NUM_BITS / slices / 64;
    let rate = |bits: f64| sized_rate(k, l, generation_len, bits, slack);
    let fits = |words: u64| rate((words * 64) as f64) <= fpr;
    if max_slice_words == 0 || !fits(max_slice_words) {
        // What the target needs, found by doubling past the limit, for the error's message.
        let mut bits = (max_slice_words.max(1) * 64) as f64;
        while bits < 1e30 && rate(bits) > fpr {
            bits *= 2.0;
        }
        return Err(Error::TooLarge {
            requested_bits: bits * slices as f64,
            max_bits: math::MAX_NUM_BITS,
        });
    }
    // The rate falls as the slices grow: bisect on whole words.
    let (mut lo, mut hi) = (1u64, max_slice_words);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo * 64)
}

/// The k that takes the least memory for `l` generations at `fpr` (and `slack`, as for
/// [`slice_bits_for`]), with its slice size.
///
/// # Errors
///
/// [`Error::TooLarge`] when no k fits in [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
pub(crate) fn best_k(
    l: u32,
    generation_len: u64,
    fpr: f64,
    slack: Option<u32>,
) -> Result<(u32, u64), Error> {
    let total = |(k, bits): (u32, u64)| u128::from(k + l) * u128::from(bits);
    let mut best: Option<(u32, u64)> = None;
    let mut first_error = None;
    // The memory falls with k to one minimum and rises after it (one k can tie its
    // neighbour after rounding to whole words): stop a few k past the best.
    let mut worse = 0;
    for k in 1..=MAX_NUM_HASHES {
        match slice_bits_for(k, l, generation_len, fpr, slack) {
            Ok(bits) => {
                if best.is_none_or(|b| total((k, bits)) < total(b)) {
                    best = Some((k, bits));
                    worse = 0;
                } else {
                    worse += 1;
                    if worse == 3 {
                        break;
                    }
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match (best, first_error) {
        (Some(b), _) => Ok(b),
        (None, Some(e)) => Err(e),
        (None, None) => unreachable!("every k was tried"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probability of a run, by listing every outcome of a few trials.
    fn brute_force(fills: &[f64], k: usize) -> f64 {
        let n = fills.len();
        (0u32..1 << n)
            .map(|outcome| {
                let p: f64 = (0..n)
                    .map(|i| {
                        if outcome >> i & 1 == 1 {
                            fills[i]
                        } else {
                            1.0 - fills[i]
                        }
                    })
                    .product();
                let mut run = 0;
                let mut hit = false;
                for i in 0..n {
                    run = if outcome >> i & 1 == 1 { run + 1 } else { 0 };
                    hit |= run >= k;
                }
                if hit { p } else { 0.0 }
            })
            .sum()
    }

    #[test]
    fn run_probability_matches_enumeration() {
        let fills = [0.1, 0.5, 0.7, 0.3, 0.9, 0.6, 0.45, 0.2, 0.8];
        for k in 1..=5 {
            let exact = brute_force(&fills, k as usize);
            let dp = run_probability(fills, k);
            assert!((exact - dp).abs() < 1e-12, "k {k}: {exact} vs {dp}");
        }
        assert_eq!(run_probability([0.0; 5], 2), 0.0);
        assert_eq!(run_probability([1.0; 5], 5), 1.0);
        assert_eq!(run_probability([1.0; 4], 5), 0.0);
    }

    #[test]
    fn slices_are_the_smallest_that_reach_the_target() {
        for (l, fpr, slack) in [
            (20, 0.01, None),
            (20, 0.001, None),
            (5, 0.05, None),
            (1, 0.2, None),
            (80, 0.01, Some(8)),
            (80, 0.001, Some(8)),
        ] {
            let g = generation_len(100_000, l);
            let (k, bits) = best_k(l, g, fpr, slack).unwrap();
            assert_eq!(bits % 64, 0);
            let rate = |bits: u64| sized_rate(k, l, g, bits as f64, slack);
            assert!(rate(bits) <= fpr);
            assert!(rate(bits - 64) > fpr);
            if let Some(past) = slack {
                assert!(expired_fpr(k, l, g, bits as f64, past) <= fpr);
            }
        }
    }

    #[test]
    fn too_large_is_an_error() {
        assert!(matches!(
            slice_bits_for(8, 20, u64::MAX / 20, 0.01, None),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            best_k(20, 1 << 40, 0.5, Some(2)),
            Err(Error::TooLarge { .. })
        ));
    }
}

#[cfg(test)]
mod expiry_tests {
    use super::*;

    #[test]
    fn expired_keys_fade_to_the_steady_rate() {
        let (k, l, g) = (6, 20, 500);
        let bits = 16_384.0;
        let steady = steady_fpr(k, l, g, bits);
        let rates: Vec<f64> = (1..=k).map(|j| expired_fpr(k, l, g, bits, j)).collect();
        assert!(rates.windows(2).all(|w| w[0] >= w[1]), "{rates:?}");
        assert!((rates[k as usize - 1] - steady).abs() < 1e-15);
        assert!(rates[0] > 10.0 * steady);
    }
}
