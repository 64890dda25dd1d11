//! Every filter of the bloom-family workspace behind one dependency, a feature per variant,
//! and the guide to choosing one.
//!
//! The filters live in their own crates (`bloom-classic`, `bloom-blocked`, `bloom-counting`,
//! `bloom-scalable`, `bloom-aging`), all built on `bloom-core`: one key hash, one bit storage, one binary
//! format, one [`Error`] type and the traits every filter implements: [`Filter`],
//! [`Persist`] and [`PersistIo`]. This crate re-exports them:
//!
//! * at the root, the filter types of every enabled variant ([`BloomFilter`],
//!   [`BlockedBloomFilter`], ...), with [`Error`], [`Filter`], [`Persist`] and [`Keyed`]
//!   always, and [`PersistIo`] with `std`;
//! * as modules, each enabled variant crate whole ([`classic`], [`blocked`], [`counting`],
//!   [`scalable`], [`aging`]), for its constants and helper types;
//! * the shared core's public modules ([`hash`], [`math`], [`bits`], [`format`](mod@format),
//!   [`keys`]), for callers who hash keys themselves, size filters, or read the bytes.
//!
//! Depending on this crate or on a single variant crate gives the same types: a
//! `bloom_family::BloomFilter` is a `bloom_classic::BloomFilter`. The variant crates stay
//! usable on their own, for a build that wants nothing else. `docs/family.md` in the
//! repository gives the reasons for this crate's choices.
//!
//! # Example
//!
//! Every filter has the same methods, and implements [`Filter`], so switching variants is a
//! one-line change (with the default features, `classic` and `blocked`):
//!
//! ```
//! # #[cfg(all(feature = "classic", feature = "blocked"))] {
//! use bloom_family::{BlockedBloomFilter, BloomFilter, Error, Filter};
//!
//! /// How many URLs were seen for the first time.
//! fn first_sightings<F: Filter>(seen: &mut F, urls: &[&str]) -> Result<usize, Error> {
//!     let mut fresh = 0;
//!     for url in urls {
//!         if !seen.insert(url)? {
//!             fresh += 1;
//!         }
//!     }
//!     Ok(fresh)
//! }
//!
//! let urls = ["https://a.example/", "https://b.example/", "https://a.example/"];
//! assert_eq!(first_sightings(&mut BloomFilter::new(100_000, 0.01)?, &urls)?, 2);
//! assert_eq!(first_sightings(&mut BlockedBloomFilter::new(100_000, 0.01)?, &urls)?, 2);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Choosing a variant
//!
//! | you need | take | feature | what it costs |
//! |---|---|---|---|
//! | a set whose size you know, in the fewest bits | [`BloomFilter`] | `classic` | up to ⌈k/2⌉ cache lines read per query (its probes come in pairs that share a line) |
//! | the same, filled by several threads at once | [`AtomicBloomFilter`] | `classic` | atomic writes: `&self` inserts with no lock, slower than the plain filter's on one thread |
//! | one cache line per query, for a filter larger than the cache | [`BlockedBloomFilter`] | `blocked` | a few more bits per key at the same rate (about 10.0 at 1%, against 9.6) |
//! | the same, filled by several threads at once | [`AtomicBlockedBloomFilter`] | `blocked` | atomic writes, as above |
//! | the fastest single-key query at rates of 2% and below, and on AVX2-only CPUs the fastest batch too (docs/blocked.md) | [`MultiblockBloomFilter`] (and [`AtomicMultiblockBloomFilter`]) | `blocked` | one bit per 64-bit word of a line: about 10.2 bits per key at 1% |
//! | half a line per query: 256-bit blocks, the AVX2 query with no 512-bit register | [`Multiblock32BloomFilter`] (and [`AtomicMultiblock32BloomFilter`]) | `blocked` | one bit per 32-bit word of a block: about 10.6 bits per key at 1%, 17.1 at 0.1% |
//! | bytes that Parquet readers (Spark, DuckDB, DataFusion, Trino) read | [`SplitBlockBloomFilter`] | `blocked` | Parquet's fixed scheme: k = 8, sizes rounded up to a power of two bytes, so bits per key jump with n |
//! | to remove keys that leave the set | [`CountingBloomFilter`] | `counting` | four times the classic filter's memory (4-bit counters) |
//! | keys that expire: the last n inserts, or the last hour | [`AgingBloomFilter`] | `aging` | about the memory of two classic filters sized for the window; a query reads one row: a 128-bit block of each of the k + l slices |
//! | a set whose final size you do not know | [`ScalableBloomFilter`] | `scalable` | about twice the memory of a filter sized exactly, and a query tests every layer |
//!
//! The bits per key are those `new(n, 0.01)` allocates. None of these filters ever answers
//! "absent" for a key it holds. The sections below show each one keeping that promise and
//! its false-positive rate on 10,000 keys; `docs/tradeoffs.md` in the repository has the
//! measured bits per key, rates and query times of all of them, with peer crates, and
//! `bloom-compare` measures them on your machine.
//!
//! ## Classic: [`BloomFilter`], [`AtomicBloomFilter`]
//!
//! `m` bits, each key setting `k` of them anywhere (in pairs that share a cache line): the
//! most accurate Bloom filter per bit, about 9.6 bits per key at 1%. Take it when you know
//! how many keys will come. [`AtomicBloomFilter`] is the same filter on atomic words, for
//! threads that insert and query one filter without a lock.
//!
//! ```
//! # #[cfg(feature = "classic")] {
//! use bloom_family::BloomFilter;
//!
//! let mut filter = BloomFilter::new(10_000, 0.01)?;
//! let bits_per_key = filter.num_bits() as f64 / 10_000.0;
//! assert!((9.5..9.7).contains(&bits_per_key), "{bits_per_key}");
//! filter.insert_all(0..10_000u64);
//! // No false negatives...
//! assert!((0..10_000u64).all(|key| filter.contains(&key)));
//! // ...and about 1% false positives among keys never inserted.
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! # #[cfg(feature = "classic")] {
//! use bloom_family::AtomicBloomFilter;
//!
//! let filter = AtomicBloomFilter::new(10_000, 0.01)?;
//! // Two threads fill one filter through `&self`.
//! std::thread::scope(|s| {
//!     s.spawn(|| filter.insert_all(0..5_000u64));
//!     s.spawn(|| filter.insert_all(5_000..10_000u64));
//! });
//! assert!((0..10_000u64).all(|key| filter.contains(&key)));
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Blocked: [`BlockedBloomFilter`], [`AtomicBlockedBloomFilter`], [`SplitBlockBloomFilter`]
//!
//! Each key's bits sit in one 512-bit, cache-line-aligned block, so a query costs one memory
//! read however large the filter: take it when the filter is larger than the cache and
//! queries are the hot path. It is sized so that the rate asked for is the rate reached, for
//! a few more bits per key than the classic filter. [`AtomicBlockedBloomFilter`] is its
//! lock-free twin. [`SplitBlockBloomFilter`] is Apache Parquet's split-block filter, byte for
//! byte, with the Thrift [`ParquetHeader`]: take it when the bytes must be a Parquet bloom
//! filter ([`AtomicSplitBlockBloomFilter`] when several threads fill it).
//!
//! ```
//! # #[cfg(feature = "blocked")] {
//! use bloom_family::BlockedBloomFilter;
//!
//! let mut filter = BlockedBloomFilter::new(10_000, 0.01)?;
//! // A few more bits per key than the classic filter's 9.6, in whole 512-bit blocks.
//! let bits_per_key = filter.num_bits() as f64 / 10_000.0;
//! assert!((10.0..10.2).contains(&bits_per_key), "{bits_per_key}");
//! let keys: Vec<u64> = (0..10_000).collect();
//! filter.insert_all(&keys);
//! assert!(filter.contains_batch(&keys).iter().all(|&present| present));
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! # #[cfg(feature = "blocked")] {
//! use bloom_family::AtomicBlockedBloomFilter;
//!
//! let filter = AtomicBlockedBloomFilter::new(10_000, 0.01)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| filter.insert_all(0..5_000u64));
//!     s.spawn(|| filter.insert_all(5_000..10_000u64));
//! });
//! assert!((0..10_000u64).all(|key| filter.contains(&key)));
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! # #[cfg(feature = "blocked")] {
//! use bloom_family::SplitBlockBloomFilter;
//!
//! // A column chunk's filter: 10,000 distinct values at 1%, sized by Parquet's rule.
//! let mut filter = SplitBlockBloomFilter::new(10_000, 0.01)?;
//! for value in 0..10_000i64 {
//!     filter.insert_i64(value);
//! }
//! assert!((0..10_000i64).all(|value| filter.contains_i64(value)));
//! let false_positives = (10_000..110_000i64).filter(|&v| filter.contains_i64(v)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! // The bitset and header a Parquet writer puts in the file.
//! let bytes = filter.to_parquet_bytes();
//! assert_eq!(SplitBlockBloomFilter::from_parquet_bytes(&bytes)?, filter);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Counting: [`CountingBloomFilter`]
//!
//! A 4-bit counter where the classic filter keeps a bit, so keys can be removed (cache
//! contents, open sessions). Counters stick at 15, so an overflow can only keep a key
//! longer, never lose one. It costs four times the classic filter's memory; its
//! [`to_bloom_filter`](CountingBloomFilter::to_bloom_filter) gives readers the classic
//! quarter-size copy (so the `counting` feature turns `classic` on).
//!
//! ```
//! # #[cfg(feature = "counting")] {
//! use bloom_family::{BloomFilter, CountingBloomFilter, Removed};
//!
//! let mut filter = CountingBloomFilter::new(10_000, 0.01)?;
//! // As many counters as the classic filter has bits, at four bits each.
//! let classic = BloomFilter::new(10_000, 0.01)?;
//! assert_eq!(filter.num_counters(), classic.num_bits());
//! let ratio = filter.memory_usage() as f64 / classic.memory_usage() as f64;
//! assert!((3.9..4.1).contains(&ratio), "{ratio}");
//! filter.insert_all(0..10_000u64);
//! assert!((0..10_000u64).all(|key| filter.contains(&key)));
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! // Removing half the keys never loses one of the other half.
//! for key in 0..5_000u64 {
//!     assert_eq!(filter.remove(&key)?, Removed::Decremented);
//! }
//! assert!((5_000..10_000u64).all(|key| filter.contains(&key)));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Scalable: [`ScalableBloomFilter`]
//!
//! A stack of classic filters, each larger and tighter than the last, opened as the keys
//! come: take it when you do not know how many keys there will be. Its false-positive rate
//! stays at or below the target however far it grows (Almeida et al. 2007), for about twice
//! the memory of a filter sized exactly. Growth can be capped ([`scalable::Builder`]); an
//! insert past the cap is an [`Error::Full`]. Its layers are classic filters, so the
//! `scalable` feature turns `classic` on.
//!
//! ```
//! # #[cfg(feature = "scalable")] {
//! use bloom_family::ScalableBloomFilter;
//!
//! // Sized for 1,000 keys, given ten times as many.
//! let mut filter = ScalableBloomFilter::new(1_000, 0.01)?;
//! filter.insert_all(0..10_000u64)?;
//! assert!(filter.num_layers() > 1);
//! // About twice the memory of a classic filter sized for the 10,000 keys up front.
//! let exact = bloom_family::BloomFilter::new(10_000, 0.01)?;
//! let ratio = filter.memory_usage() as f64 / exact.memory_usage() as f64;
//! assert!((1.5..2.5).contains(&ratio), "{ratio}");
//! assert!((0..10_000u64).all(|key| filter.contains(&key)));
//! let false_positives = (10_000..110_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## JVM-compatible: [`SparkBloomFilter`], [`GuavaBloomFilter`]
//!
//! Byte-compatible with Apache Spark's sketch `BloomFilter` (both binary versions,
//! [`SparkVersion`]) and Guava's `BloomFilter`: read the bytes a Spark job or a JVM service
//! wrote and answer every query as the JVM would, or write bytes they read. They hash and lay
//! out bits as the JVM does (Murmur3, Java's `%`, big-endian words), so they take longs,
//! strings and byte arrays rather than any `T: Hash`, and do not implement [`Filter`]. Take
//! them to share filters with the JVM; `docs/distributed.md` in the repository shows a filter
//! built by Spark over a large table and served from Rust.
//!
//! ```
//! # #[cfg(feature = "jvm")] {
//! use bloom_family::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};
//!
//! let mut filter = SparkBloomFilter::new(10_000, 0.01)?;
//! assert_eq!(filter.version(), SparkVersion::V2);
//! filter.insert_all_i64(0..10_000);
//! assert!((0..10_000i64).all(|key| filter.might_contain_long(key)));
//! let false_positives = (10_000..110_000i64).filter(|&key| filter.might_contain_long(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! // Spark's `BloomFilter.readFrom` reads these bytes.
//! assert_eq!(SparkBloomFilter::from_bytes(&filter.to_bytes())?, filter);
//!
//! let mut guava = GuavaBloomFilter::new(10_000, 0.01)?;
//! assert!(!guava.insert_str("alice")); // certainly new
//! assert!(guava.might_contain_str("alice"));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Aging: [`AgingBloomFilter`]
//!
//! A sliding window: every key among the last `window` inserts (or, with a time window,
//! inserted within the last span of the caller's clock) is found, and keys 10% of a window
//! past it answer like keys never inserted. Stream deduplication, "seen recently?",
//! crawl-again-later. About the memory of two classic filters sized for the window, which
//! is what rotating such a pair by hand costs, without its keys lingering for a second
//! window.
//!
//! ```
//! # #[cfg(feature = "aging")] {
//! use bloom_family::AgingBloomFilter;
//!
//! let mut filter = AgingBloomFilter::new(10_000, 0.01)?;
//! filter.insert_all(0..30_000u64);
//! // The last 10,000 keys are all there...
//! assert!((20_000..30_000u64).all(|key| filter.contains(&key)));
//! // ...older ones are forgotten...
//! let old = (0..15_000u64).filter(|key| filter.contains(key)).count();
//! assert!(old < 2 * 150, "{old}");
//! // ...and keys never inserted pass at about 1% at most.
//! let false_positives = (1_000_000..1_100_000u64).filter(|key| filter.contains(key)).count();
//! assert!(false_positives < 2 * 1_000, "{false_positives}");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! One feature per variant, and the variants' own features passed through:
//!
//! * `std` (default): the standard library, passed through to the core and to every enabled
//!   variant: streams (`write_to`, `read_from`, [`PersistIo`], [`Error::Io`]), random seeds
//!   and keys (`with_random_seed`, `with_random_key`, [`hash::random_seed`]), run-time CPU
//!   feature detection and huge pages. Without it, this crate, the core and the `classic` and
//!   `blocked` variants are `no_std` + `alloc` (`default-features = false, features =
//!   ["classic"]`); `counting`, `scalable`, `jvm`, `aging` and `rayon` need the standard
//!   library and turn `std` on.
//! * `classic` (default): [`BloomFilter`], [`AtomicBloomFilter`], the [`classic`] module.
//! * `blocked` (default): [`BlockedBloomFilter`], [`AtomicBlockedBloomFilter`],
//!   [`SplitBlockBloomFilter`], [`Probe`], [`ParquetHeader`], the [`blocked`] module.
//! * `counting`: [`CountingBloomFilter`], [`Removed`], the [`counting`] module; turns on
//!   `classic` and `std`.
//! * `scalable`: [`ScalableBloomFilter`], the [`scalable`] module; turns on `classic` and
//!   `std`.
//! * `jvm`: [`SparkBloomFilter`], [`SparkVersion`], [`GuavaBloomFilter`], the [`jvm`]
//!   module; turns on `std`. Not touched by `rayon` or `serde`.
//! * `aging`: [`AgingBloomFilter`], the [`aging`] module; turns on `std`.
//! * `datafusion`: the [`datafusion`] module, SQL functions that build and query filters in
//!   Apache DataFusion (`bloom_filter_agg`, `might_contain`, and Spark's pair); turns on
//!   `std`. It needs Rust 1.94, DataFusion's minimum.
//! * `rayon`: parallel bulk build (`par_insert_all`, `par_insert_iter`, `ParallelExtend`,
//!   `FromParallelIterator`) and queries (`par_contains_batch`) in every enabled variant
//!   that has them: the scalable filter has the queries only (it grows one layer at a time),
//!   the aging filter neither (its inserts are ordered in time). It enables no variant by
//!   itself; it turns on `std`.
//! * `serde`: `Serialize` and `Deserialize` for every enabled filter, as the bytes of its
//!   `to_bytes`. It enables no variant by itself.
//!
//! `docs/family.md` ("Without the standard library") says what a `no_std` build has.
//!
//! [`Error::Full`]: bloom_core::Error::Full
//! [`Error::Io`]: bloom_core::Error::Io
#![cfg_attr(not(feature = "std"), no_std)]
// The guide above links every variant's types; with a variant's feature off, its links have
// no target, and that is expected rather than a mistake in the docs.
#![cfg_attr(
    not(all(
        feature = "classic",
        feature = "blocked",
        feature = "counting",
        feature = "scalable",
        feature = "jvm",
        feature = "aging",
        feature = "datafusion"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

#[cfg(feature = "std")]
pub use bloom_core::PersistIo;
pub use bloom_core::{Error, Filter, Keyed, Persist};
pub use bloom_core::{bits, format, hash, keys, math};

#[cfg(feature = "classic")]
pub use bloom_classic::{AtomicBloomFilter, BloomFilter};

#[cfg(feature = "blocked")]
pub use bloom_blocked::{
    AtomicBlockedBloomFilter, AtomicMultiblock32BloomFilter, AtomicMultiblockBloomFilter,
    AtomicSplitBlockBloomFilter, BlockedBloomFilter, Multiblock32BloomFilter,
    MultiblockBloomFilter, ParquetHeader, Probe, SplitBlockBloomFilter,
};

#[cfg(feature = "counting")]
pub use bloom_counting::{CountingBloomFilter, Removed};

#[cfg(feature = "scalable")]
pub use bloom_scalable::ScalableBloomFilter;

#[cfg(feature = "aging")]
pub use bloom_aging::AgingBloomFilter;
#[cfg(feature = "jvm")]
pub use bloom_jvm::{GuavaBloomFilter, SparkBloomFilter, SparkVersion};

/// The whole of `bloom-classic`: [`BloomFilter`] and [`AtomicBloomFilter`], with
/// [`DEFAULT_FPR`](classic::DEFAULT_FPR). The crate's own guide is [`bloom_classic`].
#[cfg(feature = "classic")]
pub mod classic {
    #[doc(inline)]
    pub use bloom_classic::*;
}

/// The whole of `bloom-blocked`: the blocked filters, Parquet's split-block filter, the
/// block size and Parquet's size limits. The crate's own guide is [`bloom_blocked`].
#[cfg(feature = "blocked")]
pub mod blocked {
    #[doc(inline)]
    pub use bloom_blocked::*;
}

/// The whole of `bloom-counting`: [`CountingBloomFilter`], [`Removed`] and the counter
/// limits. The crate's own guide is [`bloom_counting`].
#[cfg(feature = "counting")]
pub mod counting {
    #[doc(inline)]
    pub use bloom_counting::*;
}

/// The whole of `bloom-scalable`: [`ScalableBloomFilter`], its [`Builder`](scalable::Builder),
/// its [`Layer`](scalable::Layer)s and the growth defaults. The crate's own guide is
/// [`bloom_scalable`].
#[cfg(feature = "scalable")]
pub mod scalable {
    #[doc(inline)]
    pub use bloom_scalable::*;
}

/// The whole of `bloom-jvm`: [`SparkBloomFilter`], [`SparkVersion`] and [`GuavaBloomFilter`],
/// the one type both are ([`JvmBloomFilter`](jvm::JvmBloomFilter)) and its formats. The
/// crate's own guide is [`bloom_jvm`].
#[cfg(feature = "jvm")]
pub mod jvm {
    #[doc(inline)]
    pub use bloom_jvm::*;
}

/// The whole of `bloom-aging`: [`AgingBloomFilter`], its builder and the defaults of its
/// sizing. The crate's own guide is [`bloom_aging`].
#[cfg(feature = "aging")]
pub mod aging {
    #[doc(inline)]
    pub use bloom_aging::*;
}

/// The whole of `bloom-datafusion`: [`register`](datafusion::register) adds
/// `bloom_filter_agg`, `might_contain`, `spark_bloom_filter_agg` and `spark_might_contain` to
/// a DataFusion `SessionContext`. The crate's own guide is [`bloom_datafusion`].
#[cfg(feature = "datafusion")]
pub mod datafusion {
    #[doc(inline)]
    pub use bloom_datafusion::*;
}

// The README's example, compiled and run as a doctest of this crate, so the README cannot
// drift from the API. It uses `BloomFilter`, hence the `classic` feature. `cfg(doctest)`
// keeps the file out of every ordinary build (it lies outside this package).
#[cfg(all(doctest, feature = "classic"))]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
