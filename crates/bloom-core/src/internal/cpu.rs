//! Whether the CPU has the features the vector kernels need (the keyed hash's SipHash lanes,
//! the blocked filters' queries): the one place that decides how that is known.
//!
//! With `std`, the running CPU is asked (`is_x86_feature_detected!`, cached by the standard
//! library after the first call). Without it there is no portable way to ask, so the answer
//! is what the build was compiled for (`cfg!(target_feature = ..)`): a `no_std` build with
//! `-C target-cpu=native` or `-C target-feature=+avx2` gets the vector kernels, and one
//! without gets the portable ones. Either way a `true` is a guarantee the kernels may rely
//! on: code compiled for a feature runs only on CPUs that have it.

/// Whether the CPU has `$feature` (a string literal), as the module docs say.
#[cfg(target_arch = "x86_64")]
macro_rules! has {
    ($feature:tt) => {{
        #[cfg(feature = "std")]
        let found = std::arch::is_x86_feature_detected!($feature);
        #[cfg(not(feature = "std"))]
        let found = cfg!(target_feature = $feature);
        found
    }};
}

/// AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx2() -> bool {
    has!("avx2")
}

/// AVX-512 Foundation.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx512f() -> bool {
    has!("avx512f")
}

/// AVX-512 Vector Length extensions (the 128- and 256-bit forms of AVX-512 instructions).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx512vl() -> bool {
    has!("avx512vl")
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Every `true` holds on the running CPU (what the kernels rely on), in either build: with
    /// `std` the answers are the run-time detection itself; without it they are the build's
    /// target features, which the CPU running this test must then have.
    #[test]
    fn answers_hold_on_this_cpu() {
        let found = [has_avx2(), has_avx512f(), has_avx512vl()];
        let running = [
            std::arch::is_x86_feature_detected!("avx2"),
            std::arch::is_x86_feature_detected!("avx512f"),
            std::arch::is_x86_feature_detected!("avx512vl"),
        ];
        for (found, running) in found.into_iter().zip(running) {
            assert!(!found || running);
            #[cfg(feature = "std")]
            assert_eq!(found, running);
        }
        #[cfg(not(feature = "std"))]
        assert_eq!(
            found,
            [
                cfg!(target_feature = "avx2"),
                cfg!(target_feature = "avx512f"),
                cfg!(target_feature = "avx512vl")
            ]
        );
    }
}
