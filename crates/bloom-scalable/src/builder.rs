//! The builder of a [`ScalableBloomFilter`], for everything `new` leaves at its default.

use bloom_core::Error;
use bloom_core::hash::{Hashing, SecretKey, random_seed};

use crate::ScalableBloomFilter;
use crate::config::{Config, DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, MAX_LAYERS};

/// Configures a [`ScalableBloomFilter`]: start from
/// [`ScalableBloomFilter::builder`], set what differs from the defaults, then
/// [`build`](Builder::build). Nothing is checked before `build`, which reports the first
/// bad parameter by the name of its method.
///
/// | setting | default |
/// |---|---|
/// | [`growth_factor`](Builder::growth_factor) | [`DEFAULT_GROWTH_FACTOR`] (2) |
/// | [`tightening_ratio`](Builder::tightening_ratio) | [`DEFAULT_TIGHTENING_RATIO`] (0.8) |
/// | [`max_bytes`](Builder::max_bytes) | no cap |
/// | [`max_layers`](Builder::max_layers) | [`MAX_LAYERS`] (64) |
/// | [`non_scaling`](Builder::non_scaling) | off: the filter grows |
/// | [`seed`](Builder::seed) | [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED) |
/// | [`key`](Builder::key), [`random_key`](Builder::random_key) | none: hashed with the seed |
///
/// # Examples
///
/// ```
/// use bloom_scalable::ScalableBloomFilter;
///
/// // At most 1 MiB: inserts beyond what fits return `Err(Full)`.
/// let mut filter = ScalableBloomFilter::builder(10_000, 0.001)
///     .growth_factor(4)
///     .tightening_ratio(0.85)
///     .max_bytes(1 << 20)
///     .seed(42)
///     .build()?;
/// filter.insert("key")?;
/// assert!(filter.contains("key"));
/// assert!(filter.memory_usage() <= 1 << 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder {
    config: Config,
}

impl Builder {
    pub(crate) fn new(initial_capacity: u64, fpr: f64) -> Builder {
        Builder {
            config: Config {
                initial_capacity,
                fpr,
                growth_factor: DEFAULT_GROWTH_FACTOR,
                tightening_ratio: DEFAULT_TIGHTENING_RATIO,
                max_layers: MAX_LAYERS,
                max_bytes: u64::MAX,
                scaling: true,
                hashing: Hashing::default(),
            },
        }
    }

    /// Sets s: each layer is sized for s times the keys of the one before. At least 2.
    ///
    /// A larger s means fewer layers (faster queries) but more memory allocated ahead of
    /// need; `docs/scalable.md` measures the trade.
    pub fn growth_factor(mut self, s: u32) -> Builder {
        self.config.growth_factor = s;
        self
    }

    /// Sets r, in (0, 1): layer i gets the false-positive rate `P (1 - r) r^i`.
    ///
    /// A small r gives the first layers a large share of P but tightens later layers fast
    /// (more bits per key as the filter grows); a large r does the opposite.
    pub fn tightening_ratio(mut self, r: f64) -> Builder {
        self.config.tightening_ratio = r;
        self
    }

    /// Caps the bytes the filter holds ([`memory_usage`](ScalableBloomFilter::memory_usage)):
    /// an insert that would need a layer beyond the cap returns
    /// [`Error::Full`] instead. Counts the first layer too, so `build` fails when even that
    /// does not fit.
    pub fn max_bytes(mut self, bytes: usize) -> Builder {
        // No target has a `usize` wider than 64 bits; the bytes store the cap as a `u64`.
        self.config.max_bytes = bytes as u64;
        self
    }

    /// Caps the number of layers, 1 to [`MAX_LAYERS`]: an insert that would open one more
    /// returns [`Error::Full`] instead.
    pub fn max_layers(mut self, layers: usize) -> Builder {
        self.config.max_layers = layers;
        self
    }

    /// Makes a filter that never grows: one layer of `initial_capacity` keys at the full rate
    /// P (no share is set aside for later layers). Inserting a new key once that many were
    /// added returns [`Error::Full`]. A classic filter with an honest "full" signal.
    pub fn non_scaling(mut self) -> Builder {
        self.config.scaling = false;
        self
    }

    /// Sets the seed every layer hashes with. Filters can only be united when their seeds
    /// are equal; use a secret seed when keys may come from an adversary (see
    /// [`bloom_core::hash`]).
    pub fn seed(mut self, seed: u64) -> Builder {
        self.config.hashing = Hashing::Seeded(seed);
        self
    }

    /// Sets a seed drawn from the operating system's randomness
    /// ([`bloom_core::hash::random_seed`]).
    pub fn random_seed(self) -> Builder {
        self.seed(random_seed())
    }

    /// Hashes every layer's keys with SipHash-1-3 under the secret `key` instead of a seed
    /// ([`Hashing::Keyed`]): see
    /// [`ScalableBloomFilter::with_key`](bloom_core::Keyed::with_key). The bytes of the filter hold only the key's
    /// fingerprint; load them with
    /// [`from_bytes_with_key`](bloom_core::Keyed::from_bytes_with_key).
    pub fn key(mut self, key: [u8; 16]) -> Builder {
        self.config.hashing = Hashing::Keyed(SecretKey::from_bytes(key));
        self
    }

    /// Hashes with a secret key drawn from the operating system's randomness
    /// ([`SecretKey::random`]).
    pub fn random_key(mut self) -> Builder {
        self.config.hashing = Hashing::Keyed(SecretKey::random());
        self
    }

    /// Builds the filter with its first layer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] naming the parameter: `initial_capacity` (0), `fpr` (not in
    /// (0, 1)), `growth_factor` (below 2), `tightening_ratio` (not in (0, 1)),
    /// `max_layers` (not in 1..=64), `max_bytes` (0, or smaller than the first layer);
    /// [`Error::TooLarge`] when the first layer exceeds
    /// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS) or the address space.
    pub fn build(self) -> Result<ScalableBloomFilter, Error> {
        ScalableBloomFilter::from_config(self.config)
    }
}
