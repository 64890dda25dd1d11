//! The false-positive rate estimate and its confidence interval.
//!
//! A query for a key never inserted is a Bernoulli trial that succeeds (a false positive)
//! with the filter's rate p. With x false positives among N such queries the estimate is
//! x / N, and the interval is Wilson's score interval (E. B. Wilson, "Probable inference,
//! the law of succession, and statistical inference", JASA 22, 1927):
//!
//! ```text
//! centre = (x + z²/2) / (N + z²)
//! half   = z / (N + z²) · sqrt(x (N - x) / N + z²/4)
//! ```
//!
//! Unlike the textbook `p ± z sqrt(p(1-p)/N)`, it keeps its coverage when x is small or
//! zero, which is where a good filter at a low rate lives (Brown, Cai, DasGupta, "Interval
//! estimation for a binomial proportion", Statistical Science 16, 2001).

use serde::{Deserialize, Serialize};

/// The normal quantile for a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A measured false-positive rate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FprEstimate {
    /// Queries for keys never inserted.
    pub negatives: u64,
    /// How many of them answered "possibly present".
    pub false_positives: u64,
    /// `false_positives / negatives`.
    pub rate: f64,
    /// Lower end of the 95% Wilson interval.
    pub low: f64,
    /// Upper end of the 95% Wilson interval.
    pub high: f64,
}

impl FprEstimate {
    /// The estimate from counts (`false_positives` at most `negatives`; an empty sample
    /// gives the uninformative interval [0, 1]).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_compare::stats::FprEstimate;
    ///
    /// let e = FprEstimate::from_counts(1_000, 100_000);
    /// assert_eq!(e.rate, 0.01);
    /// assert!(e.low < 0.01 && 0.01 < e.high);
    /// assert!(e.high - e.low < 0.0013);
    /// ```
    pub fn from_counts(false_positives: u64, negatives: u64) -> Self {
        let x = false_positives.min(negatives);
        if negatives == 0 {
            return FprEstimate {
                negatives,
                false_positives: x,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let (low, high) = wilson_interval(x, negatives, Z_95);
        FprEstimate {
            negatives,
            false_positives: x,
            rate: x as f64 / negatives as f64,
            low,
            high,
        }
    }

    /// Whether the interval lies wholly above `factor` times `target`: the measured rate is
    /// far above it, beyond what chance explains at 95%.
    pub fn far_above(&self, target: f64, factor: f64) -> bool {
        self.low > target * factor
    }
}

/// Wilson's score interval for `successes` out of `trials` (`trials > 0`) at normal
/// quantile `z`, clamped to [0, 1].
pub fn wilson_interval(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    let n = trials as f64;
    let x = successes as f64;
    let z2 = z * z;
    let centre = (x + z2 / 2.0) / (n + z2);
    let half = z / (n + z2) * (x * (n - x) / n + z2 / 4.0).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// How many negatives give about `expected_false_positives` false positives at rate `fpr`,
/// within `[min, max]`: with x expected false positives the 95% interval is about
/// ±1.96/√x of the rate (±4.4% at 2,000).
pub fn negatives_for(fpr: f64, expected_false_positives: f64, min: usize, max: usize) -> usize {
    let wanted = (expected_false_positives / fpr.max(f64::MIN_POSITIVE)).ceil();
    if wanted.is_finite() {
        (wanted as usize).clamp(min, max)
    } else {
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_matches_known_values() {
        // 0 of 100: Wilson gives [0, 0.0370] at 95%.
        let (low, high) = wilson_interval(0, 100, Z_95);
        assert_eq!(low, 0.0);
        assert!((high - 0.0370).abs() < 1e-4, "{high}");
        // 50 of 100: [0.4038, 0.5962].
        let (low, high) = wilson_interval(50, 100, Z_95);
        assert!((low - 0.4038).abs() < 1e-4 && (high - 0.5962).abs() < 1e-4);
        // All successes: the upper end is 1.
        let (low, high) = wilson_interval(20, 20, Z_95);
        assert!(high == 1.0 && low > 0.8);
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let e = FprEstimate::from_counts(5, 0);
        assert_eq!((e.low, e.high), (0.0, 1.0));
        let e = FprEstimate::from_counts(10, 5);
        assert_eq!(e.false_positives, 5);
        assert!(!e.far_above(0.9, 1.5));
        assert_eq!(negatives_for(0.01, 2000.0, 1000, 10_000_000), 200_000);
        assert_eq!(negatives_for(0.5, 2000.0, 10_000, 10_000_000), 10_000);
        assert_eq!(negatives_for(0.0, 2000.0, 10, 1_000), 1_000);
    }
}
