//! The `f64` functions `core` lacks, for the sizing math and the estimates of every crate.
//!
//! Two implementations of one [`Float`] trait: [`Std`], the standard library's methods, and
//! [`Portable`], `libm`'s port of musl (and `powi` as the compiler's runtime computes it).
//! [`Native`] is what this build uses: `Std` with the `std` feature, so sizes are what they
//! always were (the golden tests pin them), `Portable` without it. The sizing functions are
//! generic over the trait, so tests built with `std` can size with both and compare.
//!
//! The two agree to within an ulp or so (`ceil`, `floor`, `round` and `powi` exactly). The
//! classic sizes come out the same (`math`'s tests, over a grid of `(n, p)`); the blocked
//! filter's sizing sums an alternating series whose cancellation can magnify that ulp, so
//! once in a while (high k, a tiny rate, hundreds of millions of keys) the two settle a
//! block (64 bytes) apart among millions (`bloom-blocked`'s `params.rs` tests bound it).

/// The float functions the sizing math needs, from one library or the other.
pub trait Float {
    /// `ln x`.
    fn ln(x: f64) -> f64;

    /// `ln(1 + x)`, accurate for `x` near zero.
    fn ln_1p(x: f64) -> f64;

    /// `log2 x`.
    fn log2(x: f64) -> f64;

    /// `e^x`.
    fn exp(x: f64) -> f64;

    /// `e^x - 1`, accurate for `x` near zero.
    fn exp_m1(x: f64) -> f64;

    /// `x^y`.
    fn powf(x: f64, y: f64) -> f64;

    /// `x^n` by repeated squaring.
    fn powi(x: f64, n: i32) -> f64;

    /// The smallest integer at least `x`.
    fn ceil(x: f64) -> f64;

    /// The largest integer at most `x`.
    fn floor(x: f64) -> f64;

    /// The nearest integer to `x`, halves away from zero.
    fn round(x: f64) -> f64;
}

/// Implements [`Float`] for `$ty`, each function a call of the given function with the
/// same arguments.
macro_rules! float_by_calls {
    ($ty:ty { $($name:ident($($arg:ident: $t:ty),+) => $call:path;)* }) => {
        impl Float for $ty {
            $(
                #[inline]
                fn $name($($arg: $t),+) -> f64 {
                    $call($($arg),+)
                }
            )*
        }
    };
}

/// The standard library's methods (only with the `std` feature).
#[cfg(feature = "std")]
#[derive(Debug)]
pub enum Std {}

#[cfg(feature = "std")]
float_by_calls!(Std {
    ln(x: f64) => f64::ln;
    ln_1p(x: f64) => f64::ln_1p;
    log2(x: f64) => f64::log2;
    exp(x: f64) => f64::exp;
    exp_m1(x: f64) => f64::exp_m1;
    powf(x: f64, y: f64) => f64::powf;
    powi(x: f64, n: i32) => f64::powi;
    ceil(x: f64) => f64::ceil;
    floor(x: f64) => f64::floor;
    round(x: f64) => f64::round;
});

/// `libm`'s functions, and `powi` as the compiler's runtime computes it: what a build
/// without `std` uses, and available with it for comparison.
#[derive(Debug)]
pub enum Portable {}

float_by_calls!(Portable {
    ln(x: f64) => libm::log;
    ln_1p(x: f64) => libm::log1p;
    log2(x: f64) => libm::log2;
    exp(x: f64) => libm::exp;
    exp_m1(x: f64) => libm::expm1;
    powf(x: f64, y: f64) => libm::pow;
    powi(x: f64, n: i32) => powidf2;
    ceil(x: f64) => libm::ceil;
    floor(x: f64) => libm::floor;
    round(x: f64) => libm::round;
});

/// [`Portable`]'s `powi`: the loop of `__powidf2`, which `f64::powi` compiles to, so the
/// products (and their roundings) are the same, in the same order.
#[inline]
fn powidf2(x: f64, n: i32) -> f64 {
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

/// The implementation this build uses: [`Std`] with the `std` feature.
#[cfg(feature = "std")]
pub type Native = Std;

/// The implementation this build uses: [`Portable`] without the `std` feature.
#[cfg(not(feature = "std"))]
pub type Native = Portable;

#[cfg(test)]
mod tests {
    use super::*;

    type P = Portable;

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
        let spread =
            (0..4_000).map(|i| crate::internal::digest::mix(i) as f64 / (1u64 << 50) as f64 - 8.0);
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
            assert!(same(P::ceil(x), x.ceil()), "{x}");
            assert!(same(P::floor(x), x.floor()), "{x}");
            assert!(same(P::round(x), x.round()), "{x}");
            for n in [-3, -1, 0, 1, 2, 3, 7, 8, 16, 31, 1_000] {
                assert!(same(P::powi(x, n), x.powi(n)), "{x}^{n}");
            }
        }
    }

    #[test]
    fn libm_agrees_with_std_to_an_ulp() {
        for x in inputs() {
            assert!(close(P::ln(x.abs()), x.abs().ln(), 1), "ln {x}");
            assert!(close(P::ln_1p(x), x.ln_1p(), 1), "ln_1p {x}");
            assert!(close(P::log2(x.abs()), x.abs().log2(), 1), "log2 {x}");
            assert!(close(P::exp(x), x.exp(), 1), "exp {x}");
            assert!(close(P::exp_m1(x), x.exp_m1(), 1), "exp_m1 {x}");
            let base = x.abs().min(1.0);
            assert!(close(P::powf(base, 7.5), base.powf(7.5), 1), "pow {x}");
        }
    }
}
