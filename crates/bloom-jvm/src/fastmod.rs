//! `x % d` by multiplication, for the fixed `d` of a filter (its bit size).
//!
//! Both JVM formats reduce a non-negative hash to a bit index with Java's `%`, so the index
//! must be exactly the remainder (a multiply-shift range reduction would pick other bits and
//! break byte compatibility). A 64-bit division costs tens of cycles on x86 and is not
//! pipelined (up to 45 cycles of latency on Zen 1, Agner Fog's instruction tables), and a
//! query does k of them. Here the quotient is estimated with one multiplication by the
//! precomputed `M = floor((2^64 - 1) / d)` (Granlund and Montgomery, "Division by Invariant
//! Integers using Multiplication", PLDI 1994, give the exact form; this is the cheaper
//! estimate with a correction step): `q = floor(x * M / 2^64)` is the true quotient or one less,
//! because `M = 2^64 / d - e` with `0 < e <= 1` makes `x * M / 2^64` fall short of `x / d` by
//! `x * e / 2^64 < 1`. So `x - q * d` lies in `[0, 2d)`, and one conditional subtraction gives
//! the remainder: two multiplications instead of a division.

/// A divisor with its precomputed reciprocal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FastMod {
    divisor: u64,
    /// `floor((2^64 - 1) / divisor)`.
    reciprocal: u64,
}

impl FastMod {
    /// The reciprocal of `divisor`, which must be in `[1, 2^63]` (the filters' bit sizes are
    /// at most 2^37); 0 is taken as 1.
    pub(crate) fn new(divisor: u64) -> Self {
        let divisor = divisor.max(1);
        debug_assert!(divisor <= 1 << 63);
        FastMod {
            divisor,
            reciprocal: u64::MAX / divisor,
        }
    }

    /// `x % divisor`.
    #[inline(always)]
    pub(crate) fn rem(self, x: u64) -> u64 {
        let q = ((u128::from(x) * u128::from(self.reciprocal)) >> 64) as u64;
        // q * divisor <= x, and the difference is below 2 * divisor <= 2^64.
        let r = x - q * self.divisor;
        if r >= self.divisor {
            r - self.divisor
        } else {
            r
        }
    }

    /// The divisor.
    #[inline(always)]
    pub(crate) fn divisor(self) -> u64 {
        self.divisor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges() {
        let divisors = [
            1u64,
            2,
            3,
            7,
            63,
            64,
            65,
            1 << 31,
            (1 << 31) - 1,
            1 << 37,
            137_438_953_408,
            u64::MAX / 3,
            (1 << 63) - 1,
            1 << 63,
        ];
        let xs = [
            0u64,
            1,
            2,
            63,
            64,
            65,
            i32::MAX as u64,
            i64::MAX as u64,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
        ];
        for &d in &divisors {
            let f = FastMod::new(d);
            for &x in &xs {
                assert_eq!(f.rem(x), x % d, "{x} % {d}");
            }
        }
    }

    proptest! {
        #[test]
        fn equals_the_remainder(d in 1u64..=1 << 63, x: u64) {
            prop_assert_eq!(FastMod::new(d).rem(x), x % d);
        }

        #[test]
        fn equals_the_remainder_small(d in 1u64..1 << 40, x: u64) {
            prop_assert_eq!(FastMod::new(d).rem(x), x % d);
        }
    }
}
