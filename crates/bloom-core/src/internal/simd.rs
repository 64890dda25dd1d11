//! The one home of the CPU tokens every vector kernel of the workspace takes (the blocked
//! and split-block queries, the aging filter's mask, the keyed hash's SipHash lanes), and of
//! the doors to loops compiled for the CPU ([`Avx2::compiled`], [`Avx512::compiled`],
//! [`compiled_for_cpu`]).
//!
//! A token is the proof that the running CPU has a feature: [`Avx2`] (with BMI1 and BMI2)
//! and [`Avx512`] (F, BW and VL, with what `Avx2` proves) are zero-sized and made only by
//! their `detect`, so a safe function that takes one may execute the feature's
//! instructions, and no safe code reaches it on a CPU without them. [`Level`] is the best of
//! them, detected once and kept by whoever chooses a kernel (a filter when it is built, a
//! batch of keyed hashes when it starts); [`Probe`] is the public name of a level, what
//! users choose a filter's kernel by ([`Level::at_most`]).
//!
//! With `std`, the running CPU is asked (`is_x86_feature_detected!`, cached by the standard
//! library after the first call). Without it there is no portable way to ask, so the answer
//! is what the build was compiled for (`cfg!(target_feature = ..)`): a `no_std` build with
//! `-C target-cpu=native` or `-C target-feature=+avx2` gets the vector kernels, and one
//! without gets the portable ones. Either way a token is a guarantee the kernels may rely
//! on: code compiled for a feature runs only on CPUs that have it. On other architectures
//! no token is ever made.

use crate::Error;

/// Whether the CPU has every `$feature` (string literals), as the module docs say.
#[cfg(target_arch = "x86_64")]
macro_rules! has {
    ($($feature:tt),+) => {{
        #[cfg(feature = "std")]
        let found = $(std::arch::is_x86_feature_detected!($feature))&&+;
        #[cfg(not(feature = "std"))]
        let found = cfg!(all($(target_feature = $feature),+));
        found
    }};
}

/// AVX2, with BMI1 and BMI2: the AVX2 token proves all three, so that code compiled for it
/// may use `mulx`, `shrx` and `andn` beside the vectors (every CPU with AVX2 from Intel since
/// Haswell and from AMD since Excavator has the two; one without them gets the portable code).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    has!("avx2", "bmi1", "bmi2")
}

/// AVX-512 Foundation.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512f() -> bool {
    has!("avx512f")
}

/// AVX-512 Vector Length extensions (the 128- and 256-bit forms of AVX-512 instructions).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512vl() -> bool {
    has!("avx512vl")
}

/// AVX-512 Byte and Word instructions.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512bw() -> bool {
    has!("avx512bw")
}

/// Proof that the running CPU has AVX2, BMI1 and BMI2; made only by [`Avx2::detect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx2 {
    _detected: (),
}

impl Avx2 {
    /// A token when the CPU has AVX2, BMI1 and BMI2 (as the module docs say); `None`
    /// elsewhere.
    #[inline]
    pub fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            return Some(Avx2 { _detected: () });
        }
        None
    }

    /// Runs `f` inlined into a function compiled for AVX2, BMI1 and BMI2, so that the loops
    /// `f` inlines are compiled for them too: the hash's products with `mulx`, the masks
    /// and tests in vector registers, and the intrinsics of the kernels inlined with their
    /// constants in registers. For work over many keys (a batch query, a bulk insert). `f`
    /// must be inlined for any of that: an `#[inline(always)]` closure (a plain one is
    /// left out of line, compiled for the baseline, and nothing changes).
    #[inline(always)]
    pub fn compiled<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            /// `f()`, compiled for the features the token proves.
            ///
            /// # Safety
            ///
            /// The CPU must have AVX2, BMI1 and BMI2.
            #[target_feature(enable = "avx2,bmi1,bmi2")]
            unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: the token proves the CPU has the features `run` is compiled for.
            unsafe { run(f) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        f()
    }
}

/// Runs `f` as [`Avx2::compiled`] does where the CPU has AVX2, BMI1 and BMI2, and as it is
/// elsewhere: the bulk inserts' way to their AVX2 loop.
#[inline(always)]
pub fn compiled_for_cpu<R>(f: impl FnOnce() -> R) -> R {
    match Avx2::detect() {
        Some(token) => token.compiled(f),
        None => f(),
    }
}

/// Proof that the running CPU has AVX-512 F, BW and VL, and what [`Avx2`] proves (every CPU
/// with AVX-512 since the first Xeon with it, Skylake-SP, has them all; the kernels use them
/// together).
/// Made only by [`Avx512::detect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx512 {
    _detected: (),
}

impl Avx512 {
    /// A token when the CPU has AVX-512 F, BW and VL, and what [`Avx2`] proves; `None`
    /// elsewhere.
    #[inline]
    pub fn detect() -> Option<Avx512> {
        #[cfg(target_arch = "x86_64")]
        if has_avx512f() && has_avx512bw() && has_avx512vl() && has_avx2() {
            return Some(Avx512 { _detected: () });
        }
        None
    }

    /// The AVX2 token this one implies.
    #[inline]
    pub fn avx2(self) -> Avx2 {
        Avx2 { _detected: () }
    }

    /// Runs `f` as [`Avx2::compiled`] does, in a function compiled for AVX-512 F, BW and VL
    /// as well: the loops `f` inlines may use the 512-bit registers, the rotates and the
    /// two-table permutes of the AVX-512 kernels' intrinsics forms, with their constants in
    /// registers. `f` must be an `#[inline(always)]` closure, as there.
    #[inline(always)]
    pub fn compiled<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            /// `f()`, compiled for the features the token proves.
            ///
            /// # Safety
            ///
            /// The CPU must have AVX-512 F, BW and VL, AVX2, BMI1 and BMI2.
            #[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl")]
            unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: the token proves the CPU has the features `run` is compiled for.
            unsafe { run(f) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        f()
    }
}

/// Which implementation of its test a filter runs: every one gives the same answers.
///
/// Filters pick [`Probe::best`] when built; `with_probe` forces one (to compare them, or to
/// rule out a SIMD path), and `probe` says which runs. A layout without vector kernels (the
/// classic one) runs [`Probe::Portable`]; over atomic words the kernels read a block in
/// place ([`Storage::SHARED_LINES`](crate::engine::Storage::SHARED_LINES)).
///
/// # Examples
///
/// ```
/// use bloom_blocked::{BlockedBloomFilter, Probe};
///
/// let mut filter = BlockedBloomFilter::new(1000, 0.01)?;
/// filter.insert("key");
/// let portable = filter.clone().with_probe(Probe::Portable)?;
/// assert_eq!(portable.contains("key"), filter.contains("key"));
/// assert!(Probe::Portable.is_available());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Probe {
    /// Plain Rust, on every target.
    Portable,
    /// AVX2 vector instructions, 256 bits at a time (x86_64 CPUs that have AVX2, detected at
    /// run time; without `std`, builds whose target features include AVX2).
    Avx2,
    /// AVX-512 (F, BW and VL) vector instructions: a 512-bit block is one register (x86_64
    /// CPUs that have them and AVX2, detected at run time; without `std`, builds whose target
    /// features include them). The split-block and 32-bit multiblock filters, whose blocks
    /// are 256 bits, run their AVX2 test under this probe (and report [`Probe::Avx2`]).
    Avx512,
}

impl Probe {
    /// Whether this implementation runs on the current CPU: asked at run time with `std`;
    /// without it, whether the build targets the implementation's CPU features.
    pub fn is_available(self) -> bool {
        match self {
            Probe::Portable => true,
            Probe::Avx2 => Avx2::detect().is_some(),
            Probe::Avx512 => Avx512::detect().is_some(),
        }
    }

    /// The best implementation the current CPU has: AVX-512, else AVX2, else portable.
    pub fn best() -> Probe {
        Level::detect().probe()
    }

    /// `Ok(self)` when available.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming `probe` when the CPU lacks it.
    pub fn check(self) -> Result<Probe, Error> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(Error::invalid(
                "probe",
                alloc::format!("{self:?} is not available on this CPU"),
            ))
        }
    }
}

/// The widest vector instructions the CPU has, as a token: what a kernel is chosen by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// No vector instructions the kernels use: the portable code.
    Portable,
    /// AVX2.
    Avx2(Avx2),
    /// AVX-512 F, BW and VL, and AVX2.
    Avx512(Avx512),
}

impl Level {
    /// The widest level the CPU has.
    #[inline]
    pub fn detect() -> Level {
        if let Some(token) = Avx512::detect() {
            Level::Avx512(token)
        } else if let Some(token) = Avx2::detect() {
            Level::Avx2(token)
        } else {
            Level::Portable
        }
    }

    /// The widest level the CPU has of those `probe` allows: the kernels a filter asked to
    /// run `probe` runs (the next narrower ones where the CPU lacks them).
    #[inline]
    pub fn at_most(probe: Probe) -> Level {
        let fits = |level: &Level| level.probe() <= probe;
        Level::available().find(fits).unwrap_or(Level::Portable)
    }

    /// The workspace's name for this level's kernels.
    #[inline]
    pub fn probe(self) -> Probe {
        match self {
            Level::Portable => Probe::Portable,
            Level::Avx2(_) => Probe::Avx2,
            Level::Avx512(_) => Probe::Avx512,
        }
    }

    /// Every level this CPU can run, widest first, down to [`Level::Portable`]: what the tests
    /// check each kernel against the portable one with.
    pub fn available() -> impl Iterator<Item = Level> {
        let avx512 = Avx512::detect().map(Level::Avx512);
        let avx2 = Avx2::detect().map(Level::Avx2);
        avx512.into_iter().chain(avx2).chain([Level::Portable])
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Every `true` holds on the running CPU (what the kernels rely on), in either build: with
    /// `std` the answers are the run-time detection itself; without it they are the build's
    /// target features, which the CPU running this test must then have.
    #[test]
    fn answers_hold_on_this_cpu() {
        let found = [has_avx2(), has_avx512f(), has_avx512vl(), has_avx512bw()];
        let running = [
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2"),
            std::arch::is_x86_feature_detected!("avx512f"),
            std::arch::is_x86_feature_detected!("avx512vl"),
            std::arch::is_x86_feature_detected!("avx512bw"),
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
                cfg!(all(
                    target_feature = "avx2",
                    target_feature = "bmi1",
                    target_feature = "bmi2"
                )),
                cfg!(target_feature = "avx512f"),
                cfg!(target_feature = "avx512vl"),
                cfg!(target_feature = "avx512bw")
            ]
        );
    }

    #[test]
    fn tokens_follow_the_features() {
        assert_eq!(Avx2::detect().is_some(), has_avx2());
        let avx512 = has_avx512f() && has_avx512bw() && has_avx512vl() && has_avx2();
        assert_eq!(Avx512::detect().is_some(), avx512);
        let expected = if avx512 {
            Level::Avx512(Avx512::detect().unwrap())
        } else if has_avx2() {
            Level::Avx2(Avx2::detect().unwrap())
        } else {
            Level::Portable
        };
        assert_eq!(Level::detect(), expected);
        let levels: Vec<Level> = Level::available().collect();
        assert_eq!(levels.first(), Some(&expected));
        assert_eq!(levels.last(), Some(&Level::Portable));
        assert_eq!(
            levels.len(),
            1 + usize::from(avx512) + usize::from(has_avx2())
        );
    }
}
