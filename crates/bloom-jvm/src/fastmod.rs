//! `x % d` by multiplication, for the fixed `d` of a filter (its bit size).
//!
//! Both JVM formats reduce a non-negative hash to a bit index with Java's `%`, so the index
//! must be exactly the remainder (a multiply-shift range reduction would pick other bits and
//! break byte compatibility). A 64-bit division costs tens of cycles on x86 (up to 45 on Zen 1,
//! Agner Fog's instruction tables) and a query does k of them; the remainder by direct
//! computation of Lemire, Kaser and Kurz ("Faster Remainder by Direct Computation", Software:
//! Practice and Experience, 2019) replaces each with three multiplications: with
//! `M = ceil(2^128 / d)`, `x % d` is the high 128 bits of `(M * x mod 2^128) * d`, exactly,
//! for every 64-bit `x` and every `d` in `[1, 2^64)`.

/// A divisor with its precomputed reciprocal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FastMod {
    divisor: u64,
    /// `ceil(2^128 / divisor)` modulo 2^128 (0 for a divisor of 1: then every remainder is 0,
    /// and so is the product below).
    reciprocal: u128,
}

impl FastMod {
    /// The reciprocal of `divisor`, which must be at least 1 (the filters' bit sizes are).
    pub(crate) fn new(divisor: u64) -> Self {
        let divisor = divisor.max(1);
        FastMod {
            divisor,
            reciprocal: (u128::MAX / u128::from(divisor)).wrapping_add(1),
        }
    }

    /// `x % divisor`.
    #[inline(always)]
    pub(crate) fn rem(self, x: u64) -> u64 {
        let low = self.reciprocal.wrapping_mul(u128::from(x));
        // The high 128 bits of the 192-bit product low * divisor: the remainder is below
        // 2^64, so only the top word of it is non-zero.
        let d = u128::from(self.divisor);
        let lo = (low as u64 as u128) * d;
        let hi = (low >> 64) * d;
        ((hi + (lo >> 64)) >> 64) as u64
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
            u64::MAX - 1,
            u64::MAX,
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
        fn equals_the_remainder(d in 1u64.., x: u64) {
            prop_assert_eq!(FastMod::new(d).rem(x), x % d);
        }

        #[test]
        fn equals_the_remainder_small(d in 1u64..1 << 40, x: u64) {
            prop_assert_eq!(FastMod::new(d).rem(x), x % d);
        }
    }
}
