//! The shared core of the bloom-family workspace: hashing, bit storage, sizing math, the
//! binary format, the error type and the [`Filter`] trait.
//!
//! Every filter crate of the workspace (`bloom-classic`, `bloom-counting`, `bloom-scalable`,
//! `bloom-blocked`) is built on this one. Most users depend on a filter crate and never name
//! this one, except for [`Error`] and, in generic code, [`Filter`].
//!
//! * [`hash`]: one seeded XXH3-128 call per key, probe positions by enhanced double hashing
//!   and multiply-shift range reduction, identical on every platform.
//! * [`bits`]: the one word storage, a bit array over it and its lock-free atomic twin.
//! * [`math`]: optimal sizes, false-positive rates (classic and blocked), cardinality.
//! * [`format`](mod@format): the framing of every filter's bytes.
//! * [`keys`]: seeded keys (SplitMix64) for tests, benchmarks and examples; no filter uses
//!   it.
//!
//! # Example
//!
//! ```
//! use bloom_core::{bits::BitStore, hash::{hash_key, Probes, DEFAULT_SEED}, math};
//!
//! // A minimal Bloom filter from the core's parts.
//! let n = 1_000;
//! let m = math::optimal_num_bits(n, 0.01)?;
//! let k = math::optimal_num_hashes(m, n)?;
//! let mut bits = BitStore::new(m)?;
//! for key in 0..n {
//!     for pos in Probes::new(hash_key(&key, DEFAULT_SEED), k, m) {
//!         bits.set(pos);
//!     }
//! }
//! let present = |key: u64| Probes::new(hash_key(&key, DEFAULT_SEED), k, m).all(|p| bits.get(p));
//! assert!((0..n).all(present));
//! assert!((n..n + 10_000).filter(|&key| present(key)).count() < 200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Sizes
//!
//! One rule for the integer types of every crate in the workspace:
//!
//! * counts of keys and of bits or counters (`expected_items`, capacities, `len`,
//!   `estimated_len`, `num_bits`, `num_counters`, `count_ones`, saturated counters) are `u64`:
//!   a filter may exceed 2^32 bits or keys on any platform;
//! * sizes of memory in bytes ([`Filter::memory_usage`], `heap_bytes`,
//!   [`BitStore::le_bytes_len`](bits::BitStore::le_bytes_len), byte caps,
//!   [`Error::OutOfMemory`]) are `usize`;
//! * counts of in-memory parts (layers, blocks, [`Words::len`](bits::Words::len)) are `usize`;
//!   `num_hashes` is `u32`.
//!
//! Slice lengths and positions stay `usize`, as everywhere in Rust; fields of the binary
//! format (and [`Error::Truncated`]'s byte counts, which may describe a stream) keep the
//! widths [`format`](mod@format) gives them; the formulas of [`math`] return `f64`.
//! `docs/design.md` ("Sizes and parameters") gives the reasons.
//!
//! # Crate features
//!
//! * `rayon` (off by default): the `par` module, parallel bulk insertion used by the filter
//!   crates' own `rayon` features.
//! * `serde` (off by default): the `serde_bytes` module, the (de)serialisation every filter's
//!   `serde` feature shares: a filter is the bytes of its `to_bytes`.

pub mod bits;
mod error;
mod filter;
pub mod format;
pub mod hash;
#[doc(hidden)]
pub mod internal;
pub mod keys;
pub mod math;

pub use error::Error;
pub use filter::Filter;
