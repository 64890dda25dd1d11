//! The age-partitioned Bloom filter.

use std::hash::Hash;
use std::io::{Read, Write};

use bloom_core::bits::BitStore;
use bloom_core::engine::Probe;
use bloom_core::hash::{Hashing, SecretKey, random_seed};
use bloom_core::internal::{self, Output};
use bloom_core::{Error, Filter, Keyed, Persist, PersistIo, math};

use crate::params::{self, Ring, Shape};
use crate::row::{self, BLOCK_WORDS, Kernel, Key};
use crate::sizing::{self, BLOCK_BITS, DEFAULT_GENERATIONS, DEFAULT_SLACK_GENERATIONS};

/// The false-positive rate [`FromIterator`] sizes for.
pub const DEFAULT_FPR: f64 = 0.01;

/// A sliding-window Bloom filter: it answers "possibly present" for every key inserted
/// within the window, and forgets keys that have left it.
///
/// The filter is a ring of `k + l` slices of equal size (Shtul, Baquero, Almeida,
/// "Age-Partitioned Bloom Filters", arXiv 2001.03147), in their blocked layout: a key picks
/// one row, where each slice has a block of 128 bits, so a query reads one row of
/// `(k + l) 16` adjacent bytes. An insert sets the key's bit in each of the k newest slices; after every generation (a fixed number of inserts, or a step of
/// the caller's clock with a [time window](AgingBloomFilterBuilder::time_window)) the
/// oldest slice is cleared and becomes the newest. A query answers "present" when the key's
/// bits are set in k consecutive slices. A key's k slices survive l shifts, so it is found
/// for `l` generations after its own; once `l + 1` shifts have passed it keeps at most
/// `k - 1` of its bits, one fewer at each shift. Until its last bit has left the ring, the
/// few bits of an expired key make it likelier to answer present than a key never inserted;
/// [`expired_fpr`](AgingBloomFilter::expired_fpr) gives that rate generation by generation.
///
/// [`new(window, p)`](AgingBloomFilter::new) guarantees: every key among the last `window`
/// inserts is found; a key followed by the window and 10% more
/// ([`DEFAULT_SLACK_GENERATIONS`](crate::DEFAULT_SLACK_GENERATIONS) generations) answers
/// present with probability at most p, like a never-inserted key; the false-positive rate
/// stays at or below p at every point of a stream, by the exact rate of the blocked layout
/// ([`blocked_run_probability`](crate::blocked_run_probability)). Each key is hashed once
/// (the seeded hash, widened), whatever `k + l`.
///
/// # Examples
///
/// ```
/// use bloom_aging::AgingBloomFilter;
///
/// // The last 10,000 keys at 1%.
/// let mut recent = AgingBloomFilter::new(10_000, 0.01)?;
/// for i in 0..50_000u64 {
///     recent.insert(&i);
/// }
/// // No false negatives within the window...
/// assert!((40_000..50_000u64).all(|i| recent.contains(&i)));
/// // ...old keys are forgotten (they answer like keys never inserted)...
/// let old = (0..30_000u64).filter(|i| recent.contains(i)).count();
/// assert!(old < 450, "{old} of 30,000 expired keys still present");
/// // ...and about 1% false positives at most.
/// let fp = (1_000_000..1_100_000u64).filter(|i| recent.contains(i)).count();
/// assert!(fp < 1_150, "{fp} false positives in 100,000");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AgingBloomFilter {
    /// The rows one after another, each `k + l` blocks of two words in physical slice
    /// order: slice j's block of row r is words `(r (k + l) + j) 2` and the next.
    bits: BitStore,
    shape: Shape,
    ring: Ring,
    /// How queries compute a row's mask: detected once, not part of the filter's value.
    kernel: Kernel,
}

/// Filters are equal when their parameters, ring and bits are (whichever kernel each runs).
impl PartialEq for AgingBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.ring == other.ring && self.bits == other.bits
    }
}

impl Eq for AgingBloomFilter {}

/// Builds an [`AgingBloomFilter`] with chosen slices, seed or time window; from
/// [`AgingBloomFilter::builder`].
///
/// # Examples
///
/// ```
/// use bloom_aging::AgingBloomFilter;
///
/// // Keys seen in the last hour (timestamps in seconds), up to 100,000 of them per hour,
/// // in 30 generations of two minutes.
/// let mut seen = AgingBloomFilter::builder(100_000, 0.001)
///     .time_window(3_600, 30)
///     .seed(7)
///     .build()?;
/// assert!(!seen.insert_at("click-1", 1_000)?);
/// assert!(seen.contains_at("click-1", 4_599)?);
/// // One hour and one generation later it is gone.
/// assert!(!seen.contains_at("click-1", 1_000 + 3_600 + 120)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct AgingBloomFilterBuilder {
    window: u64,
    fpr: f64,
    slices: Option<(u32, u32)>,
    hashing: Hashing,
    time: Option<(u64, u32)>,
    slack: Option<u32>,
    generations: Option<u32>,
}

impl AgingBloomFilterBuilder {
    /// Uses `k` slices per key and `l` generations instead of the defaults (k for the least
    /// memory, [`DEFAULT_GENERATIONS`](crate::DEFAULT_GENERATIONS)). The slices are then
    /// sized for the false-positive rate of a steady stream only, unless
    /// [`slack`](Self::slack) asks for more. More generations make a generation, and the
    /// slack measured in generations, a smaller part of the window and the memory smaller,
    /// at the cost of a longer query scan; docs/aging.md has the table.
    pub fn slices(mut self, k: u32, l: u32) -> Self {
        self.slices = Some((k, l));
        self
    }

    /// Uses `l` generations, with the k that takes the least memory, sized for the
    /// false-positive rate of a steady stream (unless [`slack`](Self::slack) asks for
    /// more). Fewer generations than the default make queries faster and the memory larger,
    /// and let expired keys answer present for longer: about k generations, `k / l` of the
    /// window (docs/aging.md has the table).
    pub fn generations(mut self, l: u32) -> Self {
        self.generations = Some(l);
        self
    }

    /// Sizes the slices so that a key `generations` generations past its window answers
    /// present with probability at most p, like a key never inserted (the default, without
    /// [`slices`](Self::slices) or [`time_window`](Self::time_window), is
    /// [`DEFAULT_SLACK_GENERATIONS`](crate::DEFAULT_SLACK_GENERATIONS) of
    /// [`DEFAULT_GENERATIONS`](crate::DEFAULT_GENERATIONS)).
    ///
    /// A key's bits leave the ring one slice per generation once its window is over, and
    /// until the last one is gone the few left make it likelier to answer present than a
    /// new key: [`expired_fpr`](AgingBloomFilter::expired_fpr) gives the rate for each
    /// generation past. From k generations past, none is left; a smaller slack takes
    /// sparser, larger slices.
    pub fn slack(mut self, generations: u32) -> Self {
        self.slack = Some(generations);
        self
    }

    /// Keys the filter with `seed` instead of
    /// [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED). Only filters of the same seed can
    /// be united; use a secret seed when keys may come from an adversary.
    pub fn seed(mut self, seed: u64) -> Self {
        self.hashing = Hashing::Seeded(seed);
        self
    }

    /// Keys the filter with a seed from the operating system's randomness.
    pub fn random_seed(self) -> Self {
        self.seed(random_seed())
    }

    /// Hashes keys with SipHash-1-3 under the secret `key` instead of a seed
    /// ([`Hashing::Keyed`]): see [`AgingBloomFilter::with_key`](bloom_core::Keyed::with_key). The bytes hold only the
    /// key's fingerprint; load them with
    /// [`from_bytes_with_key`](bloom_core::Keyed::from_bytes_with_key).
    pub fn key(mut self, key: [u8; 16]) -> Self {
        self.hashing = Hashing::Keyed(SecretKey::from_bytes(key));
        self
    }

    /// Hashes keys under a secret key from the operating system's randomness
    /// ([`SecretKey::random`]).
    pub fn random_key(mut self) -> Self {
        self.hashing = Hashing::Keyed(SecretKey::random());
        self
    }

    /// Makes the window a span of time instead of a number of inserts: the caller passes
    /// the current time (any unit: seconds, milliseconds) to
    /// [`insert_at`](AgingBloomFilter::insert_at) and
    /// [`contains_at`](AgingBloomFilter::contains_at), and the ring shifts once per
    /// `span / generations` of it (generations are counted from time 0: the first time
    /// given shifts out what was inserted without one). The window's
    /// `window` is then the most keys inserted within one span that the false-positive rate
    /// is sized for: the rate holds while no `span / generations` receives more than its
    /// share, `window / generations`, and rises above p (reported by
    /// [`estimated_fpr`](AgingBloomFilter::estimated_fpr)) during bursts beyond it. No key
    /// is ever lost to a burst: a key inserted at time t is found at every time before
    /// `t + span`, and from `t + span + span / generations` on it is leaving the ring one
    /// slice per generation (see [`slack`](Self::slack)) (after Rodrigues, Shtul, Baquero,
    /// Almeida, "Time-limited Bloom Filter", arXiv 2306.06742, which shift age-partitioned
    /// slices on a clock).
    ///
    /// `generations` is the filter's `l`; with [`slices`](Self::slices) or
    /// [`generations`](Self::generations) too, their `l` must agree.
    pub fn time_window(mut self, span: u64, generations: u32) -> Self {
        self.time = Some((span, generations));
        self
    }

    /// Builds the filter.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a window of 0, a rate outside (0, 1) (NaN
    /// included), k outside 1..=16 ([`MAX_NUM_HASHES`](crate::MAX_NUM_HASHES): the exact
    /// rate the sizing needs doubles its cost with every k), l outside 1..=127 or
    /// `k + l` above 128 ([`MAX_SLICES`](crate::MAX_SLICES): a query's mask holds 128
    /// slices), a time span of 0 or generations that disagree with `slices`; [`Error::TooLarge`] when the slices would exceed
    /// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS); [`Error::OutOfMemory`] when the
    /// machine cannot hold them.
    pub fn build(self) -> Result<AgingBloomFilter, Error> {
        internal::check_count("window", self.window)?;
        internal::check_fpr(self.fpr)?;
        if let Some((0, _)) = self.time {
            return Err(Error::invalid("span", "must be at least 1"));
        }
        // Every way of giving l must agree.
        let (slices_l, time_l) = (self.slices.map(|(_, l)| l), self.time.map(|(_, l)| l));
        let mut given = [slices_l, time_l, self.generations].into_iter().flatten();
        let l_given = given.next();
        if let (Some(first), Some(other)) = (l_given, given.find(|&l| Some(l) != l_given)) {
            return Err(Error::invalid(
                "generations",
                format!("l is given twice, differently: {first} and {other}"),
            ));
        }
        let l = l_given.unwrap_or(DEFAULT_GENERATIONS);
        // The default slack comes with the default generations only.
        let default_slack = l_given.is_none().then_some(DEFAULT_SLACK_GENERATIONS);
        let slack = self.slack.or(default_slack);
        if slack == Some(0) {
            return Err(Error::invalid(
                "slack",
                "must be at least 1 generation: a key keeps bits until its window is over",
            ));
        }
        // Ranges first, so that a bad k or l is reported as such and not as a size.
        let shape = Shape {
            k: self.slices.map_or(1, |(k, _)| k),
            l,
            slice_bits: u64::from(BLOCK_BITS),
            generation_len: 1,
            span: self.time.map_or(0, |(span, _)| span),
            hashing: self.hashing,
        };
        shape.check()?;
        let generation_len = sizing::generation_len(self.window, l);
        let (k, rows) = match self.slices {
            Some((k, _)) => (
                k,
                sizing::rows_for(k, l, generation_len, self.fpr, slack, None)?.0,
            ),
            None => sizing::best_k(l, generation_len, self.fpr, slack)?,
        };
        let shape = Shape {
            k,
            slice_bits: rows * u64::from(BLOCK_BITS),
            generation_len,
            ..shape
        };
        // Checked again: the sized slices may exceed `MAX_NUM_BITS`.
        shape.check()?;
        let bits = BitStore::new(shape.num_bits())?;
        Ok(AgingBloomFilter::from_parts(bits, shape, Ring::default()))
    }
}

impl AgingBloomFilter {
    /// A filter for the last `window` inserts at false-positive rate `fpr`, with the
    /// default slices: [`DEFAULT_GENERATIONS`](crate::DEFAULT_GENERATIONS) generations,
    /// and the k and number of rows with the least memory for which both a never-inserted
    /// key and a key [`DEFAULT_SLACK_GENERATIONS`](crate::DEFAULT_SLACK_GENERATIONS)
    /// generations (10% of the window) past its window answer present with probability at
    /// most `fpr`, by the blocked layout's exact rate. The
    /// [default seed](bloom_core::hash::DEFAULT_SEED).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for `window = 0` or `fpr` not in (0, 1) (NaN and
    /// infinities included); [`Error::TooLarge`] when the size exceeds
    /// [`MAX_NUM_BITS`](bloom_core::math::MAX_NUM_BITS); [`Error::OutOfMemory`].
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let filter = AgingBloomFilter::new(100_000, 0.01)?;
    /// assert_eq!(filter.generations(), 80);
    /// assert!(filter.expired_fpr(8) <= 0.01);
    /// assert!(filter.window() >= 100_000);
    /// assert!(AgingBloomFilter::new(0, 0.01).is_err());
    /// assert!(AgingBloomFilter::new(100, f64::NAN).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(window: u64, fpr: f64) -> Result<Self, Error> {
        Self::builder(window, fpr).build()
    }

    /// A builder for a filter of the last `window` inserts (or, with a
    /// [time window](AgingBloomFilterBuilder::time_window), of at most `window` keys per
    /// span) at false-positive rate `fpr`.
    pub fn builder(window: u64, fpr: f64) -> AgingBloomFilterBuilder {
        AgingBloomFilterBuilder {
            window,
            fpr,
            slices: None,
            hashing: Hashing::default(),
            time: None,
            slack: None,
            generations: None,
        }
    }

    /// The filter of these parts, its queries on the fastest kernel the CPU has.
    fn from_parts(bits: BitStore, shape: Shape, ring: Ring) -> Self {
        AgingBloomFilter {
            bits,
            shape,
            ring,
            kernel: Kernel::detect(),
        }
    }

    /// Slices a key sets, and the run of set slices a query looks for (the paper's k).
    #[inline]
    pub fn num_hashes(&self) -> u32 {
        self.shape.k
    }

    /// Generations a key survives after its own (the paper's l).
    #[inline]
    pub fn generations(&self) -> u32 {
        self.shape.l
    }

    /// Slices in the ring: `k + l`.
    #[inline]
    pub fn num_slices(&self) -> u32 {
        self.shape.slices()
    }

    /// Bits per slice: [`num_rows`](AgingBloomFilter::num_rows) blocks of
    /// [`BLOCK_BITS`](crate::BLOCK_BITS).
    #[inline]
    pub fn slice_bits(&self) -> u64 {
        self.shape.slice_bits
    }

    /// Rows: a key's bits for all slices lie in one row, a block of
    /// [`BLOCK_BITS`](crate::BLOCK_BITS) bits per slice.
    #[inline]
    pub fn num_rows(&self) -> u64 {
        self.shape.rows()
    }

    /// Bits of all slices.
    #[inline]
    pub fn num_bits(&self) -> u64 {
        self.shape.num_bits()
    }

    /// Inserts per generation: the ring shifts after this many (without a time window).
    /// Also the slack: a key may answer present for up to this many inserts past the window.
    #[inline]
    pub fn generation_len(&self) -> u64 {
        self.shape.generation_len
    }

    /// The guaranteed window in inserts: `l * generation_len`, at least the `window` the
    /// filter was built for. Every key followed by fewer inserts is found.
    #[inline]
    pub fn window(&self) -> u64 {
        u64::from(self.shape.l) * self.shape.generation_len
    }

    /// The span of a time window, in the caller's units; `None` when generations count
    /// inserts.
    #[inline]
    pub fn time_span(&self) -> Option<u64> {
        (self.shape.span > 0).then_some(self.shape.span)
    }

    /// The hash seed; `None` for a [keyed](bloom_core::Keyed::with_key) filter.
    #[inline]
    pub fn seed(&self) -> Option<u64> {
        self.shape.hashing.seed()
    }

    /// Returns this filter emptied (as [`clear`](AgingBloomFilter::clear) empties it) and
    /// hashing with `seed`: the same call as every other filter's `with_seed`, and the same
    /// filter as the builder's [`seed`](AgingBloomFilterBuilder::seed) builds. Filters
    /// unite only with filters of the same seed.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut filter = AgingBloomFilter::new(1000, 0.01)?;
    /// filter.insert(&"a");
    /// let filter = filter.with_seed(42);
    /// assert_eq!(filter.seed(), Some(42));
    /// assert!(!filter.contains(&"a"));
    /// assert_eq!(
    ///     filter.to_bytes(),
    ///     AgingBloomFilter::builder(1000, 0.01).seed(42).build()?.to_bytes()
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(self, seed: u64) -> Self {
        self.with_hashing(Hashing::Seeded(seed))
    }

    /// Returns this filter emptied and hashing with a seed from the operating system's
    /// randomness ([`random_seed`]).
    pub fn with_random_seed(self) -> Self {
        self.with_seed(random_seed())
    }

    /// Which implementation of the query runs ([`Probe`]): [`Probe::Avx512`] where the CPU
    /// has it, else [`Probe::Avx2`] where it has that, else [`Probe::Portable`] (detected
    /// when the filter was made or read). All give the same answers.
    #[inline]
    pub fn probe(&self) -> Probe {
        self.kernel.probe()
    }

    /// The filter with its queries on `probe`'s implementation: for benchmarks and tests that
    /// compare the kernels (the answers are the same, and so are the filter's value and
    /// bytes). The aging filter has a portable loop, an AVX2 and an AVX-512 kernel.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] for a probe the CPU lacks.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    /// use bloom_core::engine::Probe;
    ///
    /// let mut fast = AgingBloomFilter::new(1_000, 0.01)?;
    /// fast.insert_all(0..1_000u32);
    /// for probe in [Probe::Portable, Probe::Avx2, Probe::Avx512] {
    ///     if probe.is_available() {
    ///         let other = fast.clone().with_probe(probe)?;
    ///         assert_eq!(other.probe(), probe);
    ///         assert_eq!(other, fast);
    ///         assert!((0..2_000u32).all(|k| other.contains(&k) == fast.contains(&k)));
    ///     } else {
    ///         assert!(fast.clone().with_probe(probe).is_err());
    ///     }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_probe(mut self, probe: Probe) -> Result<Self, Error> {
        let kernel = Kernel::available().find(|kernel| kernel.probe() == probe);
        self.kernel = kernel.ok_or_else(|| {
            Error::invalid("probe", format!("{probe:?} is not available on this CPU"))
        })?;
        Ok(self)
    }

    /// Inserts into the current generation so far.
    #[inline]
    pub fn generation_inserts(&self) -> u64 {
        self.ring.count
    }

    /// The 128-bit hash this filter computes for `key` (the seeded hash widened to 128 bits, or keyed SipHash-1-3:
    /// see [`Hashing`]), as taken by
    /// [`insert_hash`](AgingBloomFilter::insert_hash) and
    /// [`contains_hash`](AgingBloomFilter::contains_hash).
    #[inline]
    pub fn hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.shape.hashing.hash(key)
    }

    /// The physical slice of logical slice `i` (0 the newest).
    #[inline(always)]
    fn physical(&self, i: u32) -> u32 {
        let j = self.ring.head + i;
        let slices = self.shape.slices();
        if j >= slices { j - slices } else { j }
    }

    /// Words per row.
    #[inline(always)]
    fn row_words(&self) -> usize {
        self.shape.slices() as usize * BLOCK_WORDS
    }

    /// The key of `hash`, and the first word of its row.
    #[inline(always)]
    fn key(&self, hash: u128) -> (Key, usize) {
        let key = Key::new(hash, self.shape.rows());
        (key, key.row as usize * self.row_words())
    }

    /// The key's bits of every slice of its row: bit j for physical slice j.
    #[inline(always)]
    fn mask(&self, key: &Key, start: usize) -> u128 {
        let row = &self.bits.as_words()[start..start + self.row_words()];
        self.kernel.mask(row, key)
    }

    /// Whether the key's bits are set in k consecutive slices among the `alive` newest:
    /// the row's mask turned to ring order, the run found by shifts.
    #[inline]
    fn has_run(&self, hash: u128, alive: u32) -> bool {
        let (key, start) = self.key(hash);
        self.run_at(&key, start, alive)
    }

    /// [`has_run`](Self::has_run) of a key already placed.
    #[inline(always)]
    fn run_at(&self, key: &Key, start: usize, alive: u32) -> bool {
        let mask = self.mask(key, start);
        row::has_run(
            mask,
            self.shape.slices(),
            self.ring.head,
            self.shape.k,
            alive,
        )
    }

    /// Adds a key to the current generation. Returns `true` if it was possibly present
    /// already within the window: a "seen recently?" check and an insert in one call.
    /// Without a time window, every `generation_len` inserts end a generation.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut seen = AgingBloomFilter::new(1000, 0.001)?;
    /// assert!(!seen.insert("event-42"));
    /// assert!(seen.insert("event-42"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&mut self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Adds a key by its pre-computed 128-bit hash; see [`insert`](AgingBloomFilter::insert).
    pub fn insert_hash(&mut self, hash: u128) -> bool {
        let (key, start) = self.key(hash);
        let seen = self.run_at(&key, start, self.shape.slices());
        self.add(&key, start);
        seen
    }

    /// Sets the key's bits in the k newest slices of its row and counts the insert, ending
    /// the generation when it is full: [`insert_hash`](AgingBloomFilter::insert_hash)
    /// without the query.
    #[inline(always)]
    fn add(&mut self, key: &Key, start: usize) {
        let k = self.shape.k;
        for i in 0..k {
            let (word, bit) = key.bit(self.physical(i));
            self.bits.as_words_mut()[start + word] |= bit;
        }
        self.ring.count = self.ring.count.saturating_add(1);
        if self.shape.span == 0 && self.ring.count == self.shape.generation_len {
            self.shift();
        }
    }

    /// Whether `key` may have been inserted within the window: `false` means it certainly
    /// was not (it may be older).
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Whether a pre-computed hash may be present.
    #[inline]
    pub fn contains_hash(&self, hash: u128) -> bool {
        self.has_run(hash, self.shape.slices())
    }

    /// Adds every key of `keys`, in order: the bits and generations of
    /// [`insert`](AgingBloomFilter::insert) key by key, without its seen-before query,
    /// which reads the key's whole row.
    pub fn insert_all<T: Hash, I: IntoIterator<Item = T>>(&mut self, keys: I) {
        for key in keys {
            let (key, start) = self.key(self.hash(&key));
            self.add(&key, start);
        }
    }

    /// Answers [`contains`](AgingBloomFilter::contains) for every key, in order.
    ///
    /// Through the workspace's batch engine: in a filter larger than its direct loop's limit
    /// (a quarter of the last-level cache, at least 4 MiB), keys are hashed in bursts and
    /// every cache line of their rows prefetched before any is tested, so the reads of a
    /// burst overlap; smaller filters are queried key by key, where the bursts measured
    /// slower than the loop (docs/aging.md, "The query kernel").
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut filter = AgingBloomFilter::new(100, 0.01)?;
    /// filter.insert_all(0..100u32);
    /// assert_eq!(filter.contains_batch(&[1u32, 50, 99]), vec![true; 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        let mut out = Vec::with_capacity(keys.len());
        internal::batch::contains_batch_into(self, keys, &mut out);
        out
    }

    /// Ends the current generation now: the oldest slice is cleared and becomes the newest,
    /// so every key ages by one generation. With a time window the clock's own shifts still
    /// come at their times: a forced shift shortens the lives of the keys in the ring.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut filter = AgingBloomFilter::builder(1_000, 0.01).slices(4, 3).build()?;
    /// filter.insert("old");
    /// for _ in 0..3 {
    ///     filter.advance();
    /// }
    /// assert!(filter.contains("old")); // l = 3 generations later: still in the window
    /// filter.advance();
    /// assert!(!filter.contains("old")); // l + 1: three of its four bits are left
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn advance(&mut self) {
        if self.shape.span > 0 {
            self.shift_generations(1);
        } else {
            self.shift();
        }
    }

    /// Ends `shifts` generations of a time window's ring: that many shifts (all slices
    /// cleared past the whole ring), the generation number moved on as far. At the last
    /// generation number the ring still turns; the number stays, and the newest slice
    /// follows it as the format requires.
    fn shift_generations(&mut self, shifts: u64) {
        if shifts >= u64::from(self.shape.slices()) {
            self.bits.clear();
            self.ring.count = 0;
        } else {
            for _ in 0..shifts {
                self.shift();
            }
        }
        self.ring.epoch = self.ring.epoch.saturating_add(shifts);
        self.ring.head = Ring::head_of(self.ring.epoch, self.shape.slices());
    }

    fn shift(&mut self) {
        let slices = self.shape.slices();
        self.ring.head = (self.ring.head + slices - 1) % slices;
        // The oldest slice's block in every row.
        let (stride, at) = (self.row_words(), self.ring.head as usize * BLOCK_WORDS);
        for row in self.bits.as_words_mut().chunks_exact_mut(stride) {
            row[at..at + BLOCK_WORDS].fill(0);
        }
        self.ring.count = 0;
    }

    /// The generations between the ring's and the one `now` falls in.
    fn pending_shifts(&self, now: u64) -> Result<u64, Error> {
        if self.shape.span == 0 {
            return Err(Error::invalid(
                "now",
                "this filter counts generations in inserts; build it with time_window to pass times",
            ));
        }
        let last = self.ring.last_now;
        if now < last {
            let reason = format!("the clock went backwards: {now} after {last}");
            return Err(Error::invalid("now", reason));
        }
        Ok(self.shape.epoch_of(now).saturating_sub(self.ring.epoch))
    }

    /// Moves the filter's clock to `now`: one shift for every generation boundary passed
    /// since the last time given (all slices cleared when the clock jumps past the whole
    /// ring). Generations are counted from time 0.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when the filter has no time window, or `now` is earlier
    /// than a time given before (the clock went backwards); nothing changes then.
    pub fn advance_to(&mut self, now: u64) -> Result<(), Error> {
        let shifts = self.pending_shifts(now)?;
        self.shift_generations(shifts);
        self.ring.last_now = now;
        Ok(())
    }

    /// [`insert`](AgingBloomFilter::insert) at time `now` (a filter with a
    /// [time window](AgingBloomFilterBuilder::time_window)): first
    /// [`advance_to(now)`](AgingBloomFilter::advance_to), then the insert. Returns whether
    /// the key was possibly inserted within the span before `now`.
    ///
    /// # Errors
    ///
    /// As [`advance_to`](AgingBloomFilter::advance_to); the key is not inserted then.
    pub fn insert_at<T: Hash + ?Sized>(&mut self, key: &T, now: u64) -> Result<bool, Error> {
        self.advance_to(now)?;
        Ok(self.insert(key))
    }

    /// [`contains`](AgingBloomFilter::contains) at time `now`: answers as the filter would
    /// after [`advance_to(now)`](AgingBloomFilter::advance_to), without changing it.
    ///
    /// # Errors
    ///
    /// As [`advance_to`](AgingBloomFilter::advance_to).
    pub fn contains_at<T: Hash + ?Sized>(&self, key: &T, now: u64) -> Result<bool, Error> {
        let shifts = self.pending_shifts(now)?;
        // After the shifts, the `shifts` newest slices are empty and the oldest are gone:
        // a run can only lie in what is left of the current ring.
        let alive = u64::from(self.shape.slices()).saturating_sub(shifts) as u32;
        Ok(self.has_run(self.hash(key), alive))
    }

    /// Bits set in each slice (over all rows), newest first.
    fn slice_ones(&self) -> Vec<u64> {
        let blocks = self.slice_blocks();
        let mut ones = vec![0u64; blocks.len()];
        for row in self.bits.as_words().chunks_exact(self.row_words()) {
            for (n, &at) in ones.iter_mut().zip(&blocks) {
                *n += u64::from(block_ones(row, at));
            }
        }
        ones
    }

    /// Where each slice's block starts in a row (its first word), newest first: the ring's
    /// order, found once for a pass over every row.
    fn slice_blocks(&self) -> Vec<usize> {
        (0..self.shape.slices())
            .map(|i| self.physical(i) as usize * BLOCK_WORDS)
            .collect()
    }

    /// The false-positive rate at the current fill: the probability that a key never
    /// inserted finds its bits set in k consecutive slices of its row, from each block's
    /// fraction of bits set (a recurrence over run lengths, averaged over the rows; see
    /// docs/aging.md). Reads every word and runs the recurrence once per row.
    pub fn estimated_fpr(&self) -> f64 {
        let b = f64::from(BLOCK_BITS);
        let blocks = self.slice_blocks();
        let rows = self.bits.as_words().chunks_exact(self.row_words());
        let total: f64 = rows
            .map(|row| {
                let fills = blocks.iter().map(|&at| f64::from(block_ones(row, at)) / b);
                sizing::run_probability(fills, self.shape.k)
            })
            .sum();
        total / self.shape.rows() as f64
    }

    /// The false-positive rate theory predicts for `inserts` distinct keys inserted into an
    /// empty filter without a time window (generations of `generation_len` inserts): the
    /// blocked layout's exact rate ([`blocked_run_probability`](crate::blocked_run_probability))
    /// with each generation's keys spread over the rows. Once every slice has held its k
    /// generations (from `window + k * generation_len` inserts on) it peaks just before each
    /// shift, one key short of [`target_fpr`](AgingBloomFilter::target_fpr).
    pub fn expected_fpr(&self, inserts: u64) -> f64 {
        let s = &self.shape;
        sizing::rate_after(s.k, s.l, s.generation_len, s.rows(), inserts)
    }

    /// The target false-positive rate the filter's shape holds: the highest rate of a
    /// steady stream (every generation holding `generation_len` keys), by the blocked
    /// layout's exact rate. [`new(window, p)`](AgingBloomFilter::new) sizes the rows so that
    /// this is at most p; p itself is not stored (the bytes hold the shape), so this is the
    /// rate the filter was built to, derived from its shape.
    /// [`expected_fpr`](Self::expected_fpr) is the rate after a given number of inserts,
    /// [`estimated_fpr`](Self::estimated_fpr) the rate at the current fill.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let filter = AgingBloomFilter::new(100_000, 0.01)?;
    /// assert!(filter.target_fpr() <= 0.01);
    /// // A steady stream comes closest just before a shift, one key short of a generation.
    /// let k = u64::from(filter.num_hashes());
    /// let peak = filter.expected_fpr(filter.window() + k * filter.generation_len() - 1);
    /// assert!(peak <= filter.target_fpr() && peak > 0.999 * filter.target_fpr());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn target_fpr(&self) -> f64 {
        self.steady_rates(None).0
    }

    /// [`sizing::steady_rates`] of this filter.
    fn steady_rates(&self, past: Option<u32>) -> (f64, f64) {
        let s = &self.shape;
        sizing::steady_rates(s.k, s.l, s.generation_len, s.rows(), past)
    }

    /// The probability that a key `past` generations past its window (inserted `l + past`
    /// generations ago) answers present, in a steady stream at the fill
    /// [`target_fpr`](AgingBloomFilter::target_fpr) assumes: its bits leave the ring one slice
    /// per generation, and the `k - past` left make a run likelier than for a key never
    /// inserted. 1 for `past = 0` (the key is still in its window); from `past = k` on, the
    /// steady rate.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let filter = AgingBloomFilter::new(100_000, 0.01)?;
    /// // Gone within 10% of the window: 8 of its 80 generations.
    /// assert!(filter.expired_fpr(8) <= 0.01);
    /// assert!(filter.expired_fpr(1) > filter.expired_fpr(8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expired_fpr(&self, past: u32) -> f64 {
        if past == 0 {
            return 1.0;
        }
        self.steady_rates(Some(past.min(self.shape.k))).1
    }

    /// The number of distinct keys inserted within the window (the current generation and
    /// the l before it), estimated from the slices' fill. Slice i holds the keys of the
    /// generations aged `i - k + 1` to `i`, so slices `k - 1`, `2k - 1`, ... hold disjoint
    /// runs of k generations; each one's count is estimated as for a filter with one hash,
    /// `-m ln(1 - X/m)` (Swamidass, Baldi 2007), and the generations left over at the end of
    /// the window as their share of slice l. Rounded; `u64::MAX` when a slice is full (the
    /// count can then not be known).
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut filter = AgingBloomFilter::new(10_000, 0.01)?;
    /// filter.insert_all(0..5_000u32);
    /// assert!(filter.estimated_len().abs_diff(5_000) < 250);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_len(&self) -> u64 {
        let (k, l) = (self.shape.k as usize, self.shape.l as usize);
        let m = self.shape.slice_bits;
        let ones = self.slice_ones();
        let keys = |slice: usize| math::estimate_cardinality(m, 1, ones[slice]);
        let whole_runs = (l + 1) / k;
        let left_over = (l + 1 - whole_runs * k) as f64 / k as f64;
        let mut estimate: f64 = (1..=whole_runs).map(|t| keys(t * k - 1)).sum();
        if left_over > 0.0 {
            // Only then: a full slice's infinite estimate times 0 would be NaN.
            estimate += keys(l) * left_over;
        }
        // Never NaN: a full slice's infinity rounds to `u64::MAX`.
        internal::round_count(estimate)
    }

    /// [`estimated_len`](AgingBloomFilter::estimated_len): the keys in the window.
    pub fn len(&self) -> u64 {
        self.estimated_len()
    }

    /// Whether no bit is set: nothing inserted since the filter was made or cleared, or
    /// everything expired.
    pub fn is_empty(&self) -> bool {
        self.bits.as_words().iter().all(|&w| w == 0)
    }

    /// Bytes held: the slices and the filter's own fields.
    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.bits.heap_bytes()
    }

    /// Removes every key. The clock of a time window is kept: earlier times stay errors.
    pub fn clear(&mut self) {
        self.bits.clear();
        self.ring.count = 0;
        if self.shape.span == 0 {
            self.ring.head = 0;
        }
    }

    /// Adds the window of `other` to `self`: afterwards `self` finds every key either
    /// found, each at the age it had, so it expires when it would have in its own filter.
    ///
    /// The slice of each age in `other` is ORed into the slice of the same age in `self`.
    /// A key's bit in a slice depends on the slice's place in the ring, so this needs the
    /// two rings aligned: the slices of each age at the same place. Filters on a time
    /// window always are: ages are counted on the clock (`self` first moves to `other`'s
    /// time if it is later, and `other`'s slices older than the ring are dropped), and the
    /// place of the newest slice follows from the generation. Filters counting inserts are
    /// aligned when they have shifted the same number of times, modulo `k + l`: built alike
    /// and fed streams of the same length (shards of one stream taking turns, say), or
    /// advanced together; their current generations are then taken as one, whose insert
    /// count becomes the larger of the two.
    ///
    /// Each generation may then hold the keys of both filters: up to twice the keys the
    /// slices were sized for, and a false-positive rate above p until they age out
    /// ([`estimated_fpr`](AgingBloomFilter::estimated_fpr) says how far).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the two filters' k, l, slice size, generation length,
    /// time span or seed differ, or (counting inserts) their rings are not aligned
    /// (parameter `"ring position"`). Nothing changes then.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut a = AgingBloomFilter::new(1_000, 0.01)?;
    /// let mut b = a.clone();
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.shape.check_same(&other.shape)?;
        let offset = if self.shape.span > 0 {
            if other.ring.last_now > self.ring.last_now {
                self.advance_to(other.ring.last_now)?;
            }
            if other.ring.epoch > self.ring.epoch {
                // `other` was advanced by hand past its clock: follow it (past the whole
                // ring, nothing of `self` is left).
                self.shift_generations(other.ring.epoch - self.ring.epoch);
            }
            self.ring.epoch - other.ring.epoch
        } else {
            Error::check_same("ring position", self.ring.head, other.ring.head)?;
            0
        };
        if offset == 0 {
            self.ring.count = self.ring.count.max(other.ring.count);
            // Every slice of `other` has its place in `self`: the whole rows (of the same
            // length, the shapes being the same).
            return self.bits.union_with(&other.bits);
        }
        // The blocks (their first words) of the slices `other` keeps an age for in `self`
        // (the same places: the rings are aligned), ORed in every row.
        let mut kept = Vec::new();
        for i in 0..u64::from(self.shape.slices()).saturating_sub(offset) as u32 {
            let from = other.physical(i);
            debug_assert_eq!(from, self.physical(i + offset as u32), "aligned rings");
            kept.push(from as usize * BLOCK_WORDS);
        }
        let stride = self.row_words();
        let from_rows = other.bits.as_words().chunks_exact(stride);
        let to_rows = self.bits.as_words_mut().chunks_exact_mut(stride);
        for (to, from) in to_rows.zip(from_rows) {
            for &at in &kept {
                to[at] |= from[at];
                to[at + 1] |= from[at + 1];
            }
        }
        Ok(())
    }

    /// The filter in the workspace's binary format (docs/format.md, "Aging"): the
    /// parameters, the layout, the ring's position, the current generation's insert count
    /// and the clock of a time window, then the rows.
    ///
    /// # Examples
    ///
    /// ```
    /// use bloom_aging::AgingBloomFilter;
    ///
    /// let mut filter = AgingBloomFilter::new(1000, 0.01)?;
    /// filter.insert("kept");
    /// let copy = AgingBloomFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(AgingBloomFilter::from_bytes(&[0; 10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        // In memory the encoding cannot fail.
        self.encode(Output::Bytes).unwrap_or_default()
    }

    /// Writes the bytes of [`to_bytes`](AgingBloomFilter::to_bytes) to `writer`, 64 KiB at a
    /// time.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the writer fails.
    pub fn write_to<W: Write>(&self, mut writer: W) -> Result<(), Error> {
        self.encode(Output::Writer(&mut writer)).map(drop)
    }

    fn encode(&self, output: Output<'_>) -> Result<Vec<u8>, Error> {
        params::encode(&self.shape, &self.ring, &self.bits, output)
    }

    /// Reads a filter from `reader`, as [`from_bytes`](AgingBloomFilter::from_bytes) reads
    /// bytes; reads exactly the filter's bytes, and memory grows only as bytes arrive.
    ///
    /// # Errors
    ///
    /// Those of [`from_bytes`](AgingBloomFilter::from_bytes) ([`Error::Truncated`] when the
    /// stream ends early); [`Error::Io`] when the reader fails.
    pub fn read_from<R: Read>(mut reader: R) -> Result<Self, Error> {
        Self::read_with(&mut reader, None)
    }

    /// Reads a filter written by [`to_bytes`](AgingBloomFilter::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::WrongVariant`], [`Error::ChecksumMismatch`] or [`Error::Corrupt`]: never a
    /// panic, and never an allocation larger than `bytes`. [`Error::KeyRequired`] for a
    /// [keyed](bloom_core::Keyed::with_key) filter's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode_with(bytes, None)
    }
}

/// Bits set in the block starting at word `at` of a row (a slice's two words).
fn block_ones(row: &[u64], at: usize) -> u32 {
    row[at].count_ones() + row[at + 1].count_ones()
}

/// Adds every key of the iterator ([`insert_all`](AgingBloomFilter::insert_all)).
impl<T: Hash> Extend<T> for AgingBloomFilter {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.insert_all(iter);
    }
}

/// Collects keys into a filter sized for their number (at least 1) at a 1% false-positive
/// rate, with the default seed. The keys are gathered first, to count them.
///
/// # Panics
///
/// Only if the number of keys is more than a filter can be sized for; build with
/// [`new`](AgingBloomFilter::new) to get an `Err` instead.
impl<T: Hash> FromIterator<T> for AgingBloomFilter {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let keys: Vec<T> = iter.into_iter().collect();
        internal::checks::collect_sized(
            &keys,
            |n| AgingBloomFilter::new(n, DEFAULT_FPR),
            |filter, keys| filter.insert_all(keys),
        )
    }
}

impl Filter for AgingBloomFilter {
    type Hash = u128;
    const NAME: &'static str = "AgingBloomFilter";

    fn key_hash<T: Hash + ?Sized>(&self, key: &T) -> u128 {
        self.hash(key)
    }

    fn insert_hash(&mut self, hash: u128) -> Result<bool, Error> {
        Ok(AgingBloomFilter::insert_hash(self, hash))
    }

    fn contains_hash(&self, hash: u128) -> bool {
        AgingBloomFilter::contains_hash(self, hash)
    }

    fn contains_batch<T: Hash>(&self, keys: &[T]) -> Vec<bool> {
        AgingBloomFilter::contains_batch(self, keys)
    }

    fn memory_usage(&self) -> usize {
        AgingBloomFilter::memory_usage(self)
    }

    fn estimated_fpr(&self) -> f64 {
        AgingBloomFilter::estimated_fpr(self)
    }

    fn estimated_len(&self) -> u64 {
        AgingBloomFilter::estimated_len(self)
    }

    fn clear(&mut self) {
        AgingBloomFilter::clear(self);
    }

    fn union(&mut self, other: &Self) -> Result<(), Error> {
        AgingBloomFilter::union(self, other)
    }
}

impl Persist for AgingBloomFilter {
    fn to_bytes(&self) -> Vec<u8> {
        AgingBloomFilter::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        AgingBloomFilter::from_bytes(bytes)
    }
}

impl PersistIo for AgingBloomFilter {
    fn write_to<W: Write>(&self, writer: W) -> Result<(), Error> {
        AgingBloomFilter::write_to(self, writer)
    }

    fn read_from<R: Read>(reader: R) -> Result<Self, Error> {
        AgingBloomFilter::read_from(reader)
    }
}

impl bloom_core::internal::Sealed for AgingBloomFilter {}

impl Keyed for AgingBloomFilter {
    fn hashing(&self) -> Hashing {
        self.shape.hashing
    }

    /// The filter emptied and rehashed.
    fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.clear();
        self.shape.hashing = hashing;
        self
    }

    /// `read_from`, the hashing checked against `key`: the slices' words are read straight
    /// into the bit array, so the filter is held once.
    fn read_with(reader: &mut dyn Read, key: Option<&SecretKey>) -> Result<Self, Error> {
        let (shape, ring, bits) = params::read_frame(reader, key)?;
        Ok(Self::from_parts(bits, shape, ring))
    }

    fn decode_with(bytes: &[u8], key: Option<&SecretKey>) -> Result<Self, Error> {
        let (shape, ring, bits) = params::decode(bytes, key)?;
        Ok(Self::from_parts(bits, shape, ring))
    }
}

/// The bytes of [`to_bytes`](AgingBloomFilter::to_bytes) (base64 in human-readable formats).
#[cfg(feature = "serde")]
impl serde::Serialize for AgingBloomFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        bloom_core::internal::serde_bytes::serialize(&self.to_bytes(), serializer)
    }
}

/// From the bytes of [`to_bytes`](AgingBloomFilter::to_bytes), checked as
/// [`from_bytes`](AgingBloomFilter::from_bytes) checks them.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for AgingBloomFilter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        bloom_core::internal::serde_bytes::deserialize(deserializer, AgingBloomFilter::from_bytes)
    }
}

/// The batch engine's view of the filter: a key reads its row (every line of it), in one
/// test; its state is its hash.
impl internal::batch::BatchQuery for AgingBloomFilter {
    type State = u128;
    const ROUNDS: usize = 0;
    const LOOP: internal::batch::Loop = internal::batch::Loop::Bursts;

    fn footprint(&self) -> usize {
        self.bits.as_words().len() * 8
    }

    fn lines_per_key(&self) -> usize {
        (self.row_words() * 8).div_ceil(64) + 1
    }

    fn empty(&self) -> u128 {
        0
    }

    #[inline(always)]
    fn stage<T: Hash>(&self, key: &T, _eager: bool) -> u128 {
        let hash = self.hash(key);
        let (_, start) = self.key(hash);
        let row = &self.bits.as_words()[start..start + self.row_words()];
        for line in row.iter().step_by(8) {
            internal::prefetch(line);
        }
        hash
    }

    fn round(&self, _: &mut u128, _: usize) -> Option<bool> {
        unreachable!("the row is tested at once")
    }

    #[inline(always)]
    fn finish(&self, &hash: &u128) -> bool {
        self.has_run(hash, self.shape.slices())
    }

    #[inline(always)]
    fn contains_now<T: Hash>(&self, key: &T) -> bool {
        self.contains(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloom_core::keys::SplitMix64;

    /// `insert_all` leaves the filter `insert` leaves key by key (bits, ring position and
    /// generation count), across many generation shifts, for windows in inserts and in
    /// time, whatever the count's remainder by the generation.
    #[test]
    fn insert_all_leaves_the_filter_insert_leaves() {
        let shapes = [(1u32, 1u32), (2, 3), (7, 80), (16, 112)];
        for (case, &(k, l)) in shapes.iter().enumerate() {
            for timed in [false, true] {
                let mut builder = AgingBloomFilter::builder(500, 0.01).slices(k, l);
                if timed {
                    builder = builder.time_window(3_600, l);
                }
                let base = builder.seed(case as u64).build().unwrap();
                for n in [0u64, 1, 7, 499, 2_345] {
                    let mut all = base.clone();
                    all.insert_all(0..n);
                    let mut one = base.clone();
                    for key in 0..n {
                        one.insert(&key);
                    }
                    assert!(all == one, "k {k}, l {l}, timed {timed}, {n} keys");
                }
            }
        }
    }

    /// The batch engine's bursts answer as `contains` does, key by key, for burst
    /// remainders of every length, present and absent keys, at several ring positions.
    #[test]
    fn prefetched_batch_answers_as_contains() {
        for (k, l) in [(1u32, 1u32), (7, 80), (16, 112)] {
            let mut filter = AgingBloomFilter::builder(2_000, 0.01)
                .slices(k, l)
                .build()
                .unwrap();
            for start in [0u64, 1_000, 2_500] {
                filter.insert_all(start..start + 1_500);
                for n in [0usize, 1, 7, 8, 9, 3_001] {
                    let keys: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
                    let single: Vec<bool> = keys.iter().map(|key| filter.contains(key)).collect();
                    let mut bursts = Vec::new();
                    internal::batch::contains_batch_uncached(&filter, &keys, &mut bursts);
                    assert_eq!(bursts, single, "k {k}, l {l}");
                    assert_eq!(filter.contains_batch(&keys), single);
                }
            }
        }
    }

    /// Filters of random shapes and fills answer alike on every kernel the CPU runs, for keys
    /// inserted (in and past the window) and never inserted, at every ring position met.
    #[test]
    fn kernels_agree_on_random_filters() {
        let mut rng = SplitMix64(19);
        for case in 0..40 {
            let k = 1 + rng.below(16) as u32;
            let l = 1 + rng.below(u64::from(128 - k)) as u32;
            let window = 50 + rng.below(3_000);
            let fpr = [0.2, 0.05, 0.01][case % 3];
            let mut fast = AgingBloomFilter::builder(window, fpr)
                .slices(k, l)
                .seed(case as u64)
                .build()
                .unwrap();
            let inserts = rng.below(3 * window);
            for _ in 0..inserts {
                fast.insert(&rng.below(4 * window));
                if rng.below(500) == 0 {
                    fast.advance();
                }
            }
            let portable = fast.clone().with_probe(Probe::Portable).unwrap();
            for probe in [Probe::Avx2, Probe::Avx512] {
                let Ok(vector) = fast.clone().with_probe(probe) else {
                    continue;
                };
                for key in 0..4 * window + 2_000 {
                    let expected = portable.contains(&key);
                    assert_eq!(vector.contains(&key), expected, "{probe:?}, case {case}");
                }
            }
        }
    }

    /// Every key of the window is found while the ring turns, with each ring position.
    #[test]
    fn the_window_is_kept_at_every_ring_position() {
        let mut f = AgingBloomFilter::builder(300, 0.01)
            .slices(5, 10)
            .build()
            .unwrap();
        let window = f.window() as usize;
        let keys: Vec<u64> = (0..20 * window as u64).collect();
        for (i, key) in keys.iter().enumerate() {
            f.insert(key);
            let start = (i + 1).saturating_sub(window);
            assert!(keys[start..=i].iter().all(|k| f.contains(k)), "after {i}");
        }
    }
}
