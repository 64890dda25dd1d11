//! The `f64` functions `core` lacks, for the sizing math and the estimates of every crate.
//!
//! With the `std` feature each is the standard library's method of the same name, so sizes
//! are what they always were (the golden tests pin them). Without it, `libm`'s port of musl
//! does the work ([`portable`]); it agrees with the platform's library to within an ulp or so,
//! and `ceil`, `floor` and `round` are exact in both, so a size can differ only where a
//! formula lands within that of a whole number. `sizes_are_the_std_build_sizes` (in
//! `math.rs`, run with and without `std`) checks that the sizes every constructor computes
//! are the same over a grid of `(n, p)`.

#[cfg(not(feature = "std"))]
pub use self::portable::*;
#[cfg(feature = "std")]
pub use self::with_std::*;

/// The standard library's methods: what the crate calls with `std`.
#[cfg(feature = "std")]
mod with_std {
    /// `ln x`.
    #[inline]
    pub fn ln(x: f64) -> f64 {
        x.ln()
    }

    /// `ln(1 + x)`, accurate for `x` near zero.
    #[inline]
    pub fn ln_1p(x: f64) -> f64 {
        x.ln_1p()
    }

    /// `log2 x`.
    #[inline]
    pub fn log2(x: f64) -> f64 {
        x.log2()
    }

    /// `e^x`.
    #[inline]
    pub fn exp(x: f64) -> f64 {
        x.exp()
    }

    /// `e^x - 1`, accurate for `x` near zero.
    #[inline]
    pub fn exp_m1(x: f64) -> f64 {
        x.exp_m1()
    }

    /// `x^y`.
    #[inline]
    pub fn powf(x: f64, y: f64) -> f64 {
        x.powf(y)
    }

    /// `x^n` by repeated squaring.
    #[inline]
    pub fn powi(x: f64, n: i32) -> f64 {
        x.powi(n)
    }

    /// The smallest integer at least `x`.
    #[inline]
    pub fn ceil(x: f64) -> f64 {
        x.ceil()
    }

    /// The largest integer at most `x`.
    #[inline]
    pub fn floor(x: f64) -> f64 {
        x.floor()
    }

    /// The nearest integer to `x`, halves away from zero.
    #[inline]
    pub fn round(x: f64) -> f64 {
        x.round()
    }
}

/// The same functions without the standard library: `libm`'s, and `powi` as the compiler's
/// runtime computes it. What the functions above call without `std`; public so that tests
/// can compare the two builds' answers in one process.
pub mod portable {
    /// `ln x`.
    #[inline]
    pub fn ln(x: f64) -> f64 {
        libm::log(x)
    }

    /// `ln(1 + x)`.
    #[inline]
    pub fn ln_1p(x: f64) -> f64 {
        libm::log1p(x)
    }

    /// `log2 x`.
    #[inline]
    pub fn log2(x: f64) -> f64 {
        libm::log2(x)
    }

    /// `e^x`.
    #[inline]
    pub fn exp(x: f64) -> f64 {
        libm::exp(x)
    }

    /// `e^x - 1`.
    #[inline]
    pub fn exp_m1(x: f64) -> f64 {
        libm::expm1(x)
    }

    /// `x^y`.
    #[inline]
    pub fn powf(x: f64, y: f64) -> f64 {
        libm::pow(x, y)
    }

    /// `x^n`: the loop of `__powidf2`, which `f64::powi` compiles to, so the products (and
    /// their roundings) are the same, in the same order.
    #[inline]
    pub fn powi(x: f64, n: i32) -> f64 {
        let mut base = x;
        let mut exponent = n.unsigned_abs();
        let mut product = 1.0;
        loop {
            if exponent & 1 != 0 {
                product *= base;
            }
            exponent >>= 1;
            if exponent == 0 {
                break;
            }
            base *= base;
        }
        if n < 0 { 1.0 / product } else { product }
    }

    /// The smallest integer at least `x`.
    #[inline]
    pub fn ceil(x: f64) -> f64 {
        libm::ceil(x)
    }

    /// The largest integer at most `x`.
    #[inline]
    pub fn floor(x: f64) -> f64 {
        libm::floor(x)
    }

    /// The nearest integer to `x`, halves away from zero.
    #[inline]
    pub fn round(x: f64) -> f64 {
        libm::round(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of every magnitude the sizing math meets, and the edges.
    fn inputs() -> impl Iterator<Item = f64> {
        let specials = [
            0.0,
            -0.0,
            0.5,
            1.0,
            2.0,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NAN,
        ];
        let spread = (0..4_000).map(|i| crate::keys::mix(i) as f64 / (1u64 << 50) as f64 - 8.0);
        let tiny = (1..200).map(|i| 1.0 - 1.0 / f64::from(i).powi(3));
        specials.into_iter().chain(spread).chain(tiny)
    }

    fn same(a: f64, b: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan())
    }

    /// Within `ulps` units in the last place (NaNs and infinities exactly).
    fn close(a: f64, b: f64, ulps: u64) -> bool {
        same(a, b)
            || (a.is_finite()
                && b.is_finite()
                && a.signum() == b.signum()
                && a.to_bits().abs_diff(b.to_bits()) <= ulps)
    }

    #[test]
    fn rounding_and_powi_are_exactly_std() {
        for x in inputs() {
            assert!(same(portable::ceil(x), x.ceil()), "{x}");
            assert!(same(portable::floor(x), x.floor()), "{x}");
            assert!(same(portable::round(x), x.round()), "{x}");
            for n in [-3, -1, 0, 1, 2, 3, 7, 8, 16, 31, 1_000] {
                assert!(same(portable::powi(x, n), x.powi(n)), "{x}^{n}");
            }
        }
    }

    #[test]
    fn libm_agrees_with_std_to_an_ulp() {
        for x in inputs() {
            assert!(close(portable::ln(x.abs()), x.abs().ln(), 1), "ln {x}");
            assert!(close(portable::ln_1p(x), x.ln_1p(), 1), "ln_1p {x}");
            assert!(
                close(portable::log2(x.abs()), x.abs().log2(), 1),
                "log2 {x}"
            );
            assert!(close(portable::exp(x), x.exp(), 1), "exp {x}");
            assert!(close(portable::exp_m1(x), x.exp_m1(), 1), "exp_m1 {x}");
            let base = x.abs().min(1.0);
            assert!(
                close(portable::powf(base, 7.5), base.powf(7.5), 1),
                "pow {x}"
            );
        }
    }
}
