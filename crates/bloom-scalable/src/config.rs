//! The validated parameters of a scalable filter and the layer schedule they imply.

use bloom_core::{Error, internal, math};

/// The most layers a filter may have, whatever its `max_layers`: enough for a growth factor
/// of 2 to go from one key to `2^64`, and a bound on the bookkeeping `from_bytes` allocates.
pub const MAX_LAYERS: usize = 64;

/// The growth factor s used unless the builder sets another: each layer holds twice as many
/// keys as the one before. Chosen from the measurements in `docs/scalable.md`.
pub const DEFAULT_GROWTH_FACTOR: u32 = 2;

/// The tightening ratio r used unless the builder sets another: each layer's false-positive
/// rate is 0.8 times the previous one's. Chosen from the measurements in `docs/scalable.md`.
pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.8;

/// Everything that decides what a filter's layers are, checked once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Config {
    /// n0: the keys the first layer holds.
    pub(crate) initial_capacity: u64,
    /// P: the compound false-positive rate the filter keeps below.
    pub(crate) fpr: f64,
    /// s: layer i holds `n0 s^i` keys.
    pub(crate) growth_factor: u32,
    /// r: layer i has false-positive rate `P (1 - r) r^i`.
    pub(crate) tightening_ratio: f64,
    /// The most layers the filter may open (stored as a `u32` in the bytes).
    pub(crate) max_layers: usize,
    /// The most bytes the filter may hold (`u64::MAX`: no cap).
    pub(crate) max_bytes: u64,
    /// False for a filter that never opens a second layer (its one layer gets all of P).
    pub(crate) scaling: bool,
    /// How every layer hashes (one seed or one key for all).
    pub(crate) hashing: bloom_core::hash::Hashing,
}

/// The size of one layer: the keys it takes and the classic filter that holds them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LayerSize {
    pub(crate) capacity: u64,
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
}

impl Config {
    /// Checks every parameter; the errors name the builder method at fault.
    pub(crate) fn validate(&self) -> Result<(), Error> {
        internal::check_count("initial_capacity", self.initial_capacity)?;
        internal::check_fpr(self.fpr)?;
        if self.growth_factor < 2 {
            return Err(Error::invalid(
                "growth_factor",
                format!("must be at least 2 (got {})", self.growth_factor),
            ));
        }
        internal::check_rate("tightening_ratio", self.tightening_ratio)?;
        if !(1..=MAX_LAYERS).contains(&self.max_layers) {
            return Err(Error::invalid(
                "max_layers",
                format!("must be in 1..={MAX_LAYERS} (got {})", self.max_layers),
            ));
        }
        internal::check_count("max_bytes", self.max_bytes)
    }

    /// The false-positive rate of layer `index`: `P (1 - r) r^i` (Almeida, Baquero, Preguiça,
    /// Hutchison, "Scalable Bloom Filters", Information Processing Letters 101(6), 2007, §4),
    /// so that the compound rate `1 - prod(1 - p_i)` stays below `P sum (1 - r) r^i < P`.
    /// A non-scaling filter has one layer and gives it all of P.
    pub(crate) fn layer_fpr(&self, index: usize) -> f64 {
        if !self.scaling {
            return self.fpr;
        }
        let r = self.tightening_ratio;
        // `index` is below MAX_LAYERS, so the cast is exact.
        self.fpr * (1.0 - r) * r.powi(index as i32)
    }

    /// The keys layer `index` takes, `n0 s^i`, or `None` when that overflows `u64`.
    pub(crate) fn layer_capacity(&self, index: usize) -> Option<u64> {
        let exponent = u32::try_from(index).ok()?;
        u64::from(self.growth_factor)
            .checked_pow(exponent)?
            .checked_mul(self.initial_capacity)
    }

    /// The size of layer `index`: its capacity, and the smallest classic filter whose rate
    /// at that capacity is at most the layer's rate (see [`size_for`]).
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] when the capacity overflows or the layer would exceed
    /// [`MAX_NUM_BITS`](math::MAX_NUM_BITS); [`Error::InvalidParameter`] when its rate
    /// underflows to 0 (a tightening ratio so small that `r^i` vanishes).
    pub(crate) fn layer_size(&self, index: usize) -> Result<LayerSize, Error> {
        let capacity = self.layer_capacity(index).ok_or(Error::TooLarge {
            requested_bits: f64::INFINITY,
            max_bits: math::MAX_NUM_BITS,
        })?;
        let (num_bits, num_hashes) = size_for(capacity, self.layer_fpr(index))?;
        Ok(LayerSize {
            capacity,
            num_bits,
            num_hashes,
        })
    }

    /// Whether two filters were built alike, so that their layers line up.
    pub(crate) fn check_compatible(&self, other: &Config) -> Result<(), Error> {
        // The floats compare by their bits: never NaN, and a union needs the same schedule.
        let fields = |c: &Config| {
            [
                ("initial_capacity", c.initial_capacity),
                ("fpr", c.fpr.to_bits()),
                ("growth_factor", u64::from(c.growth_factor)),
                ("tightening_ratio", c.tightening_ratio.to_bits()),
                ("non_scaling", u64::from(!c.scaling)),
            ]
        };
        for ((name, ours), (_, theirs)) in fields(self).into_iter().zip(fields(other)) {
            Error::check_same(name, ours, theirs)?;
        }
        self.hashing.check_same(&other.hashing)
    }
}

/// The fewest bits, and the probe count, with which a classic filter holding `capacity` keys
/// has a rate of at most `fpr`.
///
/// The usual sizing `m = -n ln p / (ln 2)^2` reaches p only with the real-valued optimum
/// `k = (m / n) ln 2`; rounded to an integer, k gives a slightly higher rate (up to a few
/// percent more), and a scalable filter's compound bound is only as good as each layer's.
/// So each of the two integers around the optimum is tried with the size that makes
/// `(1 - e^{-kn/m})^k = p` exact, `m = -k n / ln(1 - p^{1/k})` (the classic rate solved for
/// m; Broder and Mitzenmacher, "Network Applications of Bloom Filters: A Survey", 2004,
/// §2.1), and the smaller filter wins.
pub(crate) fn size_for(capacity: u64, fpr: f64) -> Result<(u64, u32), Error> {
    let optimum = math::optimal_num_bits(capacity, fpr)?;
    let k_real = optimum as f64 / capacity as f64 * std::f64::consts::LN_2;
    let n = capacity as f64;
    let mut best: Option<(u64, u32)> = None;
    for k in [k_real.floor(), k_real.ceil()] {
        let k = k.clamp(1.0, f64::from(math::MAX_NUM_HASHES));
        // ln(1 - p^{1/k}), computed without cancellation for p^{1/k} near 0 or 1.
        let ln_miss = (-(fpr.ln() / k).exp()).ln_1p();
        let bits = (-k * n / ln_miss).ceil();
        if !(bits.is_finite() && bits >= 1.0) {
            continue;
        }
        if bits > math::MAX_NUM_BITS as f64 {
            return Err(Error::TooLarge {
                requested_bits: bits,
                max_bits: math::MAX_NUM_BITS,
            });
        }
        let bits = bits as u64;
        if best.is_none_or(|(b, _)| bits < b) {
            best = Some((bits, k as u32));
        }
    }
    best.ok_or(Error::invalid(
        "fpr",
        format!("no filter reaches a rate of {fpr}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config {
            initial_capacity: 1000,
            fpr: 0.01,
            growth_factor: 2,
            tightening_ratio: 0.5,
            max_layers: MAX_LAYERS,
            max_bytes: u64::MAX,
            scaling: true,
            hashing: bloom_core::hash::Hashing::Seeded(1),
        }
    }

    #[test]
    fn schedule_follows_the_paper() {
        let c = config();
        assert_eq!(c.layer_capacity(0), Some(1000));
        assert_eq!(c.layer_capacity(3), Some(8000));
        assert_eq!(c.layer_fpr(0), 0.005);
        assert_eq!(c.layer_fpr(2), 0.00125);
        // The rates of any number of layers add up to less than P.
        let total: f64 = (0..MAX_LAYERS).map(|i| c.layer_fpr(i)).sum();
        assert!(total < c.fpr);
        let non_scaling = Config {
            scaling: false,
            ..c
        };
        assert_eq!(non_scaling.layer_fpr(0), 0.01);
    }

    #[test]
    fn layers_meet_their_rate_with_an_integer_probe_count() {
        for n in [1u64, 7, 100, 12_345, 10_000_000] {
            for p in [0.3, 0.01, 0.0016, 1e-4, 1e-9, 1e-25] {
                let (m, k) = size_for(n, p).unwrap();
                let rate = math::classic_fpr(m, k, n);
                assert!(rate <= p * (1.0 + 1e-9), "n {n} p {p}: {rate}");
                // Barely more than the real-valued optimum needs (k is free at 1e-25
                // only up to 64 probes, so that one costs more).
                let optimum = math::optimal_num_bits(n, p).unwrap();
                assert!(m >= optimum.saturating_sub(1), "n {n} p {p}");
                if p > 1e-15 && n > 10 {
                    assert!(
                        (m as f64) < optimum as f64 * 1.03,
                        "n {n} p {p}: {m} vs {optimum}"
                    );
                }
            }
        }
        assert!(matches!(
            size_for(1 << 40, 0.01),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn overflowing_layers_are_errors() {
        let c = Config {
            growth_factor: 1 << 20,
            ..config()
        };
        assert_eq!(c.layer_capacity(4), None);
        assert!(matches!(c.layer_size(4), Err(Error::TooLarge { .. })));
        assert!(matches!(c.layer_size(2), Err(Error::TooLarge { .. })));
        let tiny_r = Config {
            tightening_ratio: 1e-300,
            ..config()
        };
        assert!(tiny_r.layer_size(3).is_err());
    }

    #[test]
    fn validation_names_the_parameter() {
        let bad = |c: Config| match c.validate() {
            Err(Error::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            bad(Config {
                growth_factor: 1,
                ..config()
            }),
            "growth_factor"
        );
        for r in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(
                bad(Config {
                    tightening_ratio: r,
                    ..config()
                }),
                "tightening_ratio"
            );
        }
        for l in [0, MAX_LAYERS + 1] {
            assert_eq!(
                bad(Config {
                    max_layers: l,
                    ..config()
                }),
                "max_layers"
            );
        }
        assert_eq!(
            bad(Config {
                max_bytes: 0,
                ..config()
            }),
            "max_bytes"
        );
        assert!(config().validate().is_ok());
    }
}
