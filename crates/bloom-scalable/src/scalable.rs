//! The scalable Bloom filter: classic layers of growing size and tightening error.

use std::hash::Hash;
use std::io::{Read, Write};

use bloom_core::internal::batch::CACHED_MAX_BYTES;
use bloom_core::{Error, Filter, Persist, PersistIo};

use crate::Builder;
use crate::config::Config;
use crate::layer::Layer;
use crate::query;

/// A Bloom filter that grows: when its newest layer has taken the keys it is sized for, it
/// opens a larger one, so it needs no size up front and keeps its false-positive rate at
/// the target however many keys arrive.
///
/// Layer i is a classic [`BloomFilter`](bloom_classic::BloomFilter) for `n0 s^i` keys at
/// rate `P (1 - r) r^i` (Almeida, Baquero, Preguiça, Hutchison, "Scalable Bloom Filters",
/// 2007), so the compound rate `1 - prod(1 - p_i)` stays below P at every size. A key is
/// hashed once per operation whatever the number of layers: every layer derives its
/// probes from the same 128-bit hash. Queries test the newest (largest) layer first,
/// because it holds the most keys.
///
/// Growth can be capped ([`Builder::max_bytes`], [`Builder::max_layers`]) or turned off
/// ([`Builder::non_scaling`]); then [`insert`](ScalableBloomFilter::insert) returns
/// [`Error::Full`] for a key that would need more room, and changes nothing.
///
/// # Examples
///
/// ```
/// use bloom_scalable::ScalableBloomFilter;
///
/// // Sized for 1,000 keys, given 100,000.
/// let mut filter = ScalableBloomFilter::new(1_000, 0.01)?;
/// for i in 0..100_000u64 {
///     filter.insert(&i)?;
/// }
/// assert!(filter.num_layers() > 1);
/// // No false negatives...
/// assert!((0..100_000u64).all(|i| filter.contains(&i)));
/// // ...and still at most about 1% false positives.
/// let fp = (100_000..200_000u64).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_000, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScalableBloomFilter {
    pub(crate) config: Config,
    /// Oldest first; never empty.
    pub(crate) layers: Vec<Layer>,
    /// Whether all layers together fit a cache share, so queries test probes without
    /// branches; kept up to date whenever layers are added or dropped.
    cached: bool,
}

/// `fpr` and `tightening_ratio` are never NaN (checked when built and when read), so
/// equality is reflexive.
impl Eq for ScalableBloomFilter {}

impl ScalableBloomFilter {
    /// A growing filter whose first layer holds `initial_capacity` keys and whose compound
    /// false-positive rate stays below `fpr`, with the default growth factor (2), tightening
    /// ratio (0.8), seed, and no cap but 64 layers. Use [`builder`](ScalableBloomFilter::builder)
    /// to change any of them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `initial_capacity = 0` or `fpr` not in (0, 1) (NaN and
    /// infinities included); [`Error::TooLarge`] when the first layer exceeds
    /// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let filter = ScalableBloomFilter::new(10_000, 0.01)?;
    /// assert_eq!((filter.num_layers(), filter.capacity()), (1, 10_000));
    /// assert!(ScalableBloomFilter::new(0, 0.01).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(initial_capacity: u64, fpr: f64) -> Result<Self, Error> {
        Self::builder(initial_capacity, fpr).build()
    }

    /// A [`Builder`] for a filter whose first layer holds `initial_capacity` keys and whose
    /// compound false-positive rate stays below `fpr`.
    pub fn builder(initial_capacity: u64, fpr: f64) -> Builder {
        Builder::new(initial_capacity, fpr)
    }

    pub(crate) fn from_config(config: Config) -> Result<Self, Error> {
        config.validate()?;
        let size = config.layer_size(0)?;
        let needed = std::mem::size_of::<Self>() as u64 + Layer::bytes_for(size.num_bits)?;
        if needed > config.max_bytes {
            return Err(Error::invalid(
                "max_bytes",
                format!(
                    "the first layer needs {needed} bytes, more than the cap of {}",
                    config.max_bytes
                ),
            ));
        }
        let layer = Layer::new(&size, config.hashing)?;
        Ok(Self::from_parts(config, vec![layer]))
    }

    pub(crate) fn from_parts(config: Config, layers: Vec<Layer>) -> Self {
        let mut filter = ScalableBloomFilter {
            config,
            layers,
            cached: true,
        };
        filter.update_cached();
        filter
    }

    fn update_cached(&mut self) {
        let bytes: usize = self
            .layers
            .iter()
            .map(|l| l.filter.bits().heap_bytes())
            .sum();
        self.cached = bytes <= CACHED_MAX_BYTES;
    }

    /// The 128-bit hash every layer derives its probes from (the seeded hash widened, or keyed
    /// SipHash-1-3: see [`Hashing`](bloom_core::hash::Hashing)), as taken by
    /// [`insert_hash`](ScalableBloomFilter::insert_hash) and
    /// [`contains_hash`](ScalableBloomFilter::contains_hash).
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.config.hashing.hash(key)
    }

    /// Adds a key. Returns `Ok(true)` if it was possibly present already (some layer holds
    /// all its bits), and then adds nothing; `Ok(false)` when it was new and is now held.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] when the key is new, the newest layer is at capacity, and opening
    /// another would break [`max_bytes`](Builder::max_bytes),
    /// [`max_layers`](Builder::max_layers) or the size limit of a layer, or the filter is
    /// [non-scaling](Builder::non_scaling). The filter is then unchanged: every key added
    /// before is still found, and keys already held still return `Ok(true)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_core::Error;
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::builder(2, 0.01).non_scaling().build()?;
    /// assert_eq!(filter.insert("a")?, false);
    /// assert_eq!(filter.insert("a")?, true);
    /// assert_eq!(filter.insert("b")?, false);
    /// assert!(matches!(filter.insert("c"), Err(Error::Full { .. })));
    /// assert!(filter.contains("a") && filter.contains("b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> Result<bool, Error> {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed hash; see [`insert`](ScalableBloomFilter::insert).
    ///
    /// # Errors
    ///
    /// As [`insert`](ScalableBloomFilter::insert).
    pub fn insert_hash(&mut self, hash: u128) -> Result<bool, Error> {
        if self.contains_hash(hash) {
            return Ok(true);
        }
        if self.newest().is_full() {
            self.grow()?;
        }
        let newest = self.layers.last_mut().expect("a filter always has a layer");
        // No layer holds every bit of the key, so this sets at least one new bit: the key
        // counts against the capacity.
        newest.filter.insert_hash(hash);
        newest.len += 1;
        Ok(false)
    }

    /// Opens the next layer, or explains why it cannot.
    #[cold]
    fn grow(&mut self) -> Result<(), Error> {
        let (index, max_layers) = (self.layers.len(), self.config.max_layers);
        let cannot = |e: Error| full(format!("layer {index} cannot be made: {e}"));
        if !self.config.scaling {
            return Err(full(format!(
                "non-scaling filter holds its capacity of {} keys",
                self.config.initial_capacity
            )));
        }
        if index >= max_layers {
            return Err(full(format!("all {max_layers} layers allowed are full")));
        }
        let size = self.config.layer_size(index).map_err(cannot)?;
        let needed = (self.memory_usage() as u64)
            .saturating_add(Layer::bytes_for(size.num_bits).unwrap_or(u64::MAX));
        if needed > self.config.max_bytes {
            return Err(full(format!(
                "layer {index} would bring the filter to {needed} bytes, beyond the cap of {}",
                self.config.max_bytes
            )));
        }
        let layer = Layer::new(&size, self.config.hashing).map_err(cannot)?;
        self.layers.push(layer);
        self.update_cached();
        Ok(())
    }

    /// Whether `key` may be present: `false` means it was certainly never inserted.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    ///
    /// Layers are tested newest (largest) first, since it holds the most keys: a present key
    /// is usually found in the first or second layer tested. Every layer's probes come from
    /// the one hash. A filter that fits a cache share tests each layer's probes without
    /// branches (the classic filter's in-cache query). In a larger one, each layer stops at
    /// its first pair of probes with a zero bit: an absent key then reads about one and a
    /// third cache lines per layer instead of `k / 2`. (Testing every layer's first pair
    /// before any layer's second, and prefetching, were measured too: `docs/scalable.md`
    /// says why they are not used here but in
    /// [`contains_batch`](ScalableBloomFilter::contains_batch).)
    #[inline]
    pub fn contains_hash(&self, hash: u128) -> bool {
        if self.cached {
            return query::contains_hash_cached(&self.layers, hash);
        }
        query::contains_hash(&self.layers, hash)
    }

    /// Answers [`contains`](ScalableBloomFilter::contains) for every key, in order; on a
    /// filter larger than a cache share, several times faster than a loop, above all for
    /// absent keys.
    ///
    /// An absent key has to be rejected by every layer, and one key at a time the layers'
    /// cache misses partly follow one another. Here the keys go through a software
    /// pipeline: the first pair of probes of every layer is prefetched for a key a few keys
    /// before it is tested, the layers that pass it prefetch their second pair, and so on,
    /// so the misses of several keys overlap. A filter that fits a cache share is answered
    /// key by key.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_all(0..10_000u32)?;
    /// let answers = filter.contains_batch(&[1u32, 5_000, 9_999]);
    /// assert_eq!(answers, vec![true, true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        self.contains_batch_into(keys, &mut out);
        out
    }

    /// [`contains_batch`](ScalableBloomFilter::contains_batch) writing into a caller's
    /// buffer: `out` is cleared and receives one answer per key, so a reused buffer costs no
    /// allocation.
    pub fn contains_batch_into<T: Hash>(&self, keys: &[T], out: &mut Vec<bool>) {
        let query = query::LayeredBatch::new(&self.layers, self.config.hashing);
        bloom_core::internal::batch::contains_batch_into(&query, keys, out);
    }

    /// Adds every key of `keys`, stopping at the first error.
    ///
    /// # Errors
    ///
    /// [`Error::Full`] as [`insert`](ScalableBloomFilter::insert): the keys before the one
    /// refused are held, the rest are not.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) -> Result<(), Error> {
        for key in keys {
            self.insert(&key)?;
        }
        Ok(())
    }

    /// The number of layers (at least 1).
    pub fn num_layers(&self) -> usize {
        self.layers.len()
    }

    /// The layers, oldest (smallest) first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The keys the current layers are sized for, together.
    pub fn capacity(&self) -> u64 {
        self.layer_sum(|l| l.capacity)
    }

    /// The sum of `f` over the layers, saturating at `u64::MAX`.
    fn layer_sum(&self, f: impl Fn(&Layer) -> u64) -> u64 {
        self.layers
            .iter()
            .fold(0, |sum, l| sum.saturating_add(f(l)))
    }

    /// The number of keys added: inserts that returned `Ok(false)` (a new key that collided
    /// with earlier ones in every layer is counted as already present and not added). After
    /// a union, an upper bound.
    pub fn len(&self) -> u64 {
        self.layer_sum(|l| l.len)
    }

    /// Whether no key was added.
    pub fn is_empty(&self) -> bool {
        self.layers.iter().all(Layer::is_empty)
    }

    /// The number of distinct keys held, estimated from each layer's fill (see
    /// [`BloomFilter::estimated_len`](bloom_classic::BloomFilter::estimated_len)) and summed;
    /// `u64::MAX` when a layer has every bit set.
    pub fn estimated_len(&self) -> u64 {
        self.layer_sum(|l| l.filter.estimated_len())
    }

    /// The compound false-positive rate at the current fill: a key is a false positive if
    /// any layer answers "maybe", so `1 - prod(1 - f_i^k_i)` with `f_i` the fill ratio of
    /// layer i. Below the target rate as long as no layer was overfilled by a union.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_all(0..50_000u32)?;
    /// assert!(filter.estimated_fpr() < 0.01);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        let pass = self
            .layers
            .iter()
            .map(|l| 1.0 - l.filter.estimated_fpr())
            .product::<f64>();
        1.0 - pass
    }

    /// Bytes held by the filter: every layer's bit array and bookkeeping, and the struct.
    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.layers.iter().map(Layer::memory_usage).sum::<usize>()
    }

    /// The target false-positive rate: the compound rate the filter keeps below at every
    /// size, as given to [`new`](Self::new) or [`builder`](Self::builder) (and stored in its
    /// bytes). [`estimated_fpr`](Self::estimated_fpr) is the rate at the current fill.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(1_000, 0.01)?;
    /// filter.insert_all(0..10_000u32)?;
    /// assert_eq!(filter.target_fpr(), 0.01);
    /// assert!(filter.estimated_fpr() <= filter.target_fpr());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn target_fpr(&self) -> f64 {
        self.config.fpr
    }

    /// The keys the first layer holds (n0).
    pub fn initial_capacity(&self) -> u64 {
        self.config.initial_capacity
    }

    /// The growth factor s.
    pub fn growth_factor(&self) -> u32 {
        self.config.growth_factor
    }

    /// The tightening ratio r.
    pub fn tightening_ratio(&self) -> f64 {
        self.config.tightening_ratio
    }

    /// The layer cap.
    pub fn max_layers(&self) -> usize {
        self.config.max_layers
    }

    /// The byte cap, if one was set (as given to [`Builder::max_bytes`]; a cap read from
    /// bytes that is beyond this machine's address space reads as `usize::MAX`).
    pub fn max_bytes(&self) -> Option<usize> {
        (self.config.max_bytes != u64::MAX)
            .then(|| usize::try_from(self.config.max_bytes).unwrap_or(usize::MAX))
    }

    /// Whether the filter may open new layers (false for a [non-scaling](Builder::non_scaling)
    /// filter).
    pub fn is_scaling(&self) -> bool {
        self.config.scaling
    }

    /// The hash seed every layer uses; `None` for a [keyed](bloom_core::Keyed::with_key)
    /// filter.
    pub fn seed(&self) -> Option<u64> {
        self.config.hashing.seed()
    }

    /// Returns this filter emptied (as [`clear`](ScalableBloomFilter::clear) empties it) and
    /// hashing with `seed` in every layer: the same call as every other filter's
    /// `with_seed`, and the same filter as [`Builder::seed`] builds. Filters unite only with
    /// filters of the same seed.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut filter = ScalableBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&"a")?;
    /// let filter = filter.with_seed(42);
    /// assert_eq!(filter.seed(), Some(42));
    /// assert!(!filter.contains(&"a"));
    /// assert_eq!(
    ///     filter.to_bytes(),
    ///     ScalableBloomFilter::builder(1000, 0.01).seed(42).build()?.to_bytes()
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(self, seed: u64) -> Self {
        bloom_core::Keyed::with_hashing(self, bloom_core::hash::Hashing::Seeded(seed))
    }

    /// Returns this filter emptied and hashing with a seed from the operating system's
    /// randomness ([`random_seed`](bloom_core::hash::random_seed)).
    pub fn with_random_seed(self) -> Self {
        self.with_seed(bloom_core::hash::random_seed())
    }

    /// Removes every key: drops every layer but the first, and empties that one, so the
    /// filter is as new.
    pub fn clear(&mut self) {
        self.layers.truncate(1);
        let first = &mut self.layers[0];
        first.filter.clear();
        first.len = 0;
        self.update_cached();
    }

    /// Adds every key of `other`: afterwards `self` answers "possibly present" for every key
    /// either filter held.
    ///
    /// Layer i of the result is the bitwise OR of both filters' layer i (layers only one side
    /// has are copied), and its count is the sum of both counts. The result is exact (no
    /// false negatives) but its false-positive rate keeps below the target only when the
    /// united layers stay within their capacity, as when the two filters hold few or mostly
    /// the same keys; [`estimated_fpr`](ScalableBloomFilter::estimated_fpr) tells. A layer
    /// whose summed count reaches its capacity takes no more keys: later inserts open a new
    /// layer.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the initial capacity, rate, growth factor, tightening
    /// ratio, scaling mode, seed, or a layer's size differ; [`Error::Full`] when the result
    /// would break `self`'s byte or layer cap. `self` is unchanged on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_scalable::ScalableBloomFilter;
    ///
    /// let mut a = ScalableBloomFilter::new(100, 0.01)?;
    /// let mut b = ScalableBloomFilter::new(100, 0.01)?;
    /// a.insert_all(0..50u32)?;
    /// b.insert_all(1_000..1_500u32)?; // grows to 3 layers
    /// a.union(&b)?;
    /// assert_eq!(a.num_layers(), 3);
    /// assert!((0..50u32).chain(1_000..1_500).all(|k| a.contains(&k)));
    /// assert!(a.union(&ScalableBloomFilter::new(200, 0.01)?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &ScalableBloomFilter) -> Result<(), Error> {
        self.config.check_compatible(&other.config)?;
        for (a, b) in self.layers.iter().zip(&other.layers) {
            Error::check_same("num_bits", a.filter.num_bits(), b.filter.num_bits())?;
            Error::check_same("num_hashes", a.filter.num_hashes(), b.filter.num_hashes())?;
        }
        let extra = &other.layers[self.layers.len().min(other.layers.len())..];
        let (layers, cap) = (self.layers.len() + extra.len(), self.config.max_layers);
        if layers > cap {
            return Err(full(format!(
                "the union needs {layers} layers, beyond the cap of {cap}"
            )));
        }
        let needed = extra.iter().fold(self.memory_usage() as u64, |sum, l| {
            sum.saturating_add(l.memory_usage() as u64)
        });
        if needed > self.config.max_bytes {
            let cap = self.config.max_bytes;
            return Err(full(format!(
                "the union needs {needed} bytes, beyond the cap of {cap}"
            )));
        }
        for (a, b) in self.layers.iter_mut().zip(&other.layers) {
            a.filter.union(&b.filter)?;
            a.len = a.len.saturating_add(b.len);
        }
        self.layers.extend(extra.iter().cloned());
        self.update_cached();
        Ok(())
    }

    pub(crate) fn newest(&self) -> &Layer {
        self.layers.last().expect("a filter always has a layer")
    }

    /// Adds every key of `keys`, stopping at the first error: the fallible twin of
    /// [`Extend::extend`].
    ///
    /// # Errors
    ///
    /// As [`insert_all`](ScalableBloomFilter::insert_all).
    pub fn try_extend<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) -> Result<(), Error> {
        self.insert_all(keys)
    }
}

/// The error of an insert or a union that needs more room than the filter may take.
fn full(reason: String) -> Error {
    Error::Full { reason }
}

/// Adds every key.
///
/// # Panics
///
/// When an insert returns [`Error::Full`] (only possible with a cap, a non-scaling filter,
/// or a layer beyond [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS)). Use
/// [`try_extend`](ScalableBloomFilter::try_extend) to get the error instead.
impl<T: Hash> Extend<T> for ScalableBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        if let Err(e) = self.insert_all(iter) {
            panic!("ScalableBloomFilter::extend: {e}");
        }
    }
}

/// Collects keys into a filter whose first layer is sized for exactly their number at a
/// 1% compound false-positive rate ([`DEFAULT_FPR`](bloom_classic::DEFAULT_FPR)), with the
/// default growth factor, tightening ratio and seed. The keys are gathered first, to count
/// them; the filter grows as usual afterwards.
///
/// # Panics
///
/// Only if the number of keys needs more than
/// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS) bits (over 10^11 keys); build with
/// [`ScalableBloomFilter::new`] to get an `Err` instead.
impl<T: Hash> FromIterator<T> for ScalableBloomFilter {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let keys: Vec<T> = iter.into_iter().collect();
        bloom_core::internal::checks::collect_sized(
            &keys,
            |n| ScalableBloomFilter::new(n, bloom_classic::DEFAULT_FPR),
            |filter, keys| filter.extend(keys),
        )
    }
}

impl Filter for ScalableBloomFilter {
    type Hash = u128;
    const NAME: &'static str = "ScalableBloomFilter";

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: u128) -> Result<bool, Error> {
        ScalableBloomFilter::insert_hash(self, hash)
    }

    fn contains_hash(&self, hash: u128) -> bool {
        ScalableBloomFilter::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        ScalableBloomFilter::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        ScalableBloomFilter::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        ScalableBloomFilter::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        ScalableBloomFilter::estimated_len(self)
    }

    fn clear(&mut self) {
        ScalableBloomFilter::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        ScalableBloomFilter::union(self, other)
    }
}

impl Persist for ScalableBloomFilter {
    fn to_bytes(&self) -> Vec<u8> {
        ScalableBloomFilter::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        ScalableBloomFilter::from_bytes(bytes)
    }
}

impl PersistIo for ScalableBloomFilter {
    fn write_to<W: Write>(&self, writer: W) -> Result<(), Error> {
        ScalableBloomFilter::write_to(self, writer)
    }

    fn read_from<R: Read>(reader: R) -> Result<Self, Error> {
        ScalableBloomFilter::read_from(reader)
    }
}

/// The bytes of [`to_bytes`](ScalableBloomFilter::to_bytes) (base64 in human-readable formats).
#[cfg(feature = "serde")]
impl serde::Serialize for ScalableBloomFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        bloom_core::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
    }
}

/// From the bytes of [`to_bytes`](ScalableBloomFilter::to_bytes), checked as
/// [`from_bytes`](ScalableBloomFilter::from_bytes) checks them.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ScalableBloomFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        bloom_core::internal::serde_bytes::deserialize(deserializer, Self::from_bytes)
    }
}

#[cfg(feature = "rayon")]
impl ScalableBloomFilter {
    /// [`contains_batch`](ScalableBloomFilter::contains_batch) on all of rayon's threads: the keys
    /// split into one task per share, each answered by the batch query. The answers are
    /// those of `contains_batch`.
    pub fn par_contains_batch<T: Hash + Sync>(&self, keys: &[T]) -> Vec<bool> {
        bloom_core::internal::par::par_contains_batch(keys, |part, out| {
            self.contains_batch_into(part, out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_mode_follows_the_size() {
        let mut f = ScalableBloomFilter::new(1_000, 0.01).unwrap();
        assert!(f.cached);
        f.insert_all(0..20_000u32).unwrap();
        assert!(f.cached, "a filter of {} bytes", f.memory_usage());
        let mut big = ScalableBloomFilter::new(1_000_000, 0.01).unwrap();
        assert!(big.cached);
        big.insert_all(0..1_200_000u32).unwrap();
        assert_eq!(big.num_layers(), 2);
        assert!(!big.cached);
        assert!((0..1_200_000u32).step_by(97).all(|k| big.contains(&k)));
        // Every query path gives the same answers: early exit, the pipelined batch, and
        // the branch-free path of cached filters.
        let keys: Vec<u32> = (0..200_000u32).map(|k| k * 7).collect();
        let early: Vec<bool> = keys.iter().map(|k| big.contains(k)).collect();
        assert_eq!(big.contains_batch(&keys), early);
        big.cached = true;
        let branch_free: Vec<bool> = keys.iter().map(|k| big.contains(k)).collect();
        assert_eq!(early, branch_free);
        assert_eq!(big.contains_batch(&keys), early);
        big.clear();
        assert!(big.cached);
    }

    #[test]
    fn memory_counts_every_layer() {
        let mut f = ScalableBloomFilter::new(1_000, 0.01).unwrap();
        f.insert_all(0..10_000u32).unwrap();
        let bits: usize = f
            .layers()
            .iter()
            .map(|l| l.filter().bits().heap_bytes())
            .sum();
        assert!(f.memory_usage() > bits);
        assert!(f.memory_usage() < bits + 4096);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_is_the_byte_format() {
        let mut f = ScalableBloomFilter::new(10, 0.01).unwrap();
        f.insert_all(0..100u32).unwrap();
        let json = serde_json::to_string(&f).unwrap();
        let back: ScalableBloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        // The bytes in base64: 4 characters for every 3, and the quotes.
        assert_eq!(json.len(), f.to_bytes().len().div_ceil(3) * 4 + 2);
        assert!(serde_json::from_str::<ScalableBloomFilter>("[1,2,3]").is_err());
    }
}
