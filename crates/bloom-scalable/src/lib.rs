//! A Bloom filter that grows with its input and keeps its false-positive rate at the target.
//!
//! A classic Bloom filter is sized for a number of keys fixed up front: given ten times as
//! many, it answers "maybe" to nearly everything. [`ScalableBloomFilter`] needs only a
//! starting size. It is a stack of classic filters (layers, from `bloom-classic`): when the
//! newest has taken the keys it is sized for, a larger one is opened, with a tighter
//! false-positive rate. Layer i holds `n0 s^i` keys at rate `P (1 - r) r^i`, so the rate of
//! the whole, `1 - prod(1 - p_i)`, stays below P however far it grows (Almeida, Baquero,
//! Preguiça, Hutchison, "Scalable Bloom Filters", Information Processing Letters 101(6),
//! 2007).
//!
//! * Every key is hashed once per operation (the seeded hash, widened), whatever the number of
//!   layers: all layers share the seed and derive their probes from the same hash.
//! * Queries test the newest, largest layer first (it holds the most keys), and on filters
//!   larger than a cache share stop each layer at its first pair of probes with a zero bit.
//!   [`contains_batch`](ScalableBloomFilter::contains_batch) answers many keys through a
//!   software pipeline that overlaps their cache misses.
//! * Growth can be capped in bytes or layers, or turned off; an insert that would need more
//!   room returns [`Error::Full`] and changes nothing.
//! * The workspace's binary format holds every layer; `union`, [`Filter`], `Extend` and serde
//!   work as for the other filters.
//!
//! `docs/scalable.md` measures memory against growth for several growth factors and
//! tightening ratios, the source of the defaults (s = 2, r = 0.8).
//!
//! # Example
//!
//! ```
//! use bloom_scalable::ScalableBloomFilter;
//!
//! // Deduplicate a stream of unknown length: start small, let it grow.
//! let mut seen = ScalableBloomFilter::new(1_000, 0.01)?;
//! let mut fresh = 0;
//! for event in (0..50_000u64).map(|i| i % 20_000) {
//!     if !seen.insert(&event)? {
//!         fresh += 1;
//!     }
//! }
//! // Each of the 20,000 distinct events was seen; a few (false positives) were taken as
//! // repeats on their first occurrence.
//! assert!(fresh <= 20_000 && fresh > 19_800, "{fresh}");
//! assert!((0..20_000u64).all(|e| seen.contains(&e)));
//! let copy = ScalableBloomFilter::from_bytes(&seen.to_bytes())?;
//! assert_eq!(copy, seen);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Choosing the seed
//!
//! Every filter uses [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED) unless the builder sets
//! another, so filters built anywhere can be united. When keys come from an adversary, use a
//! secret seed ([`Builder::random_seed`]): with a known seed, keys can be crafted to share
//! bits and push up the false-positive rate. Better, hash under a secret key
//! ([`Builder::key`], [`Builder::random_key`]): SipHash-1-3 for every layer, and bytes that
//! hold only the key's fingerprint (load them with
//! [`ScalableBloomFilter::from_bytes_with_key`](bloom_core::Keyed::from_bytes_with_key); `docs/security.md`).
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and bits are `u64` (`new(initial_capacity:
//! u64, ..)`, `capacity`, `len`, `estimated_len`), bytes of memory are `usize` (`memory_usage`,
//! and the byte cap both ways: [`Builder::max_bytes`] takes and `max_bytes()` returns a
//! `usize`), counts of in-memory parts are `usize` (`num_layers`, `max_layers`,
//! [`MAX_LAYERS`]). The growth factor is a `u32`.
//!
//! # Crate features
//!
//! * `serde`: `Serialize` and `Deserialize`, as the bytes of `to_bytes`.
//!
//! [`Filter`]: bloom_core::Filter
//! [`Error::Full`]: bloom_core::Error::Full

mod builder;
mod bytes;
mod config;
mod layer;
mod query;
mod scalable;

pub use bloom_core::{Error, Filter, Persist, PersistIo};
pub use builder::Builder;
pub use config::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, MAX_LAYERS};
pub use layer::Layer;
pub use scalable::ScalableBloomFilter;
