//! The shared core of the bloom-family workspace: hashing, bit storage, sizing math, the
//! binary format, the error type and the traits every filter implements: [`Filter`],
//! [`Persist`] and, with `std`, [`PersistIo`].
//!
//! Every filter crate of the workspace (`bloom-classic`, `bloom-counting`, `bloom-scalable`,
//! `bloom-blocked`) is built on this one. Most users depend on a filter crate and never name
//! this one, except for [`Error`] and, in generic code, [`Filter`] (membership),
//! [`Persist`] (bytes) and [`PersistIo`] (streams).
//!
//! * [`hash`]: the key hash every filter uses ([`hash_key`](hash::hash_key), the seeded hash,
//!   identical on every platform), the [default seed](hash::DEFAULT_SEED),
//!   [`random_seed`](hash::random_seed) for keys an adversary may choose, and the same hashing
//!   as a `Hasher`/`BuildHasher` ([`KeyHasher`](hash::KeyHasher),
//!   [`BuildKeyHasher`](hash::BuildKeyHasher)).
//! * [`math`]: optimal sizes, false-positive rates (classic and blocked), cardinality from
//!   fill, and the largest sizes any constructor accepts.
//! * [`format`](mod@format): the framing of every filter's bytes, for a caller who inspects
//!   them ([`decode`](format::decode), [`Variant`](format::Variant),
//!   [`checksum`](format::checksum)); `docs/format.md` documents every field.
//! * [`bits`]: the one word storage ([`Words`](bits::Words)) and the bit array over it
//!   ([`BitStore`](bits::BitStore)), which `BloomFilter::from_bits` and `BloomFilter::bits`
//!   take and give.
//! * [`keys`]: seeded keys (SplitMix64) for tests, benchmarks and examples; no filter uses
//!   it.
//!
//! Everything else the filter crates share (the probe sequence, the batch-query engine, the
//! format's building blocks) is in a hidden
//! module for the workspace's own crates: it is not part of this crate's API, and not covered
//! by semantic versioning.
//!
//! # Example
//!
//! Sizing a filter and reading its accuracy off the fill, with a bit array and the key hash
//! standing in for a filter crate:
//!
//! ```
//! use bloom_core::bits::BitStore;
//! use bloom_core::hash::{DEFAULT_SEED, hash_key};
//! use bloom_core::math;
//!
//! // The size and number of probes for 1,000 keys at a 1% false-positive rate.
//! let n = 1_000;
//! let m = math::optimal_num_bits(n, 0.01)?;
//! let k = math::optimal_num_hashes(m, n)?;
//! assert_eq!((m, k), (9_586, 7));
//!
//! // k positions per key from the two halves of its digest: plain double hashing, each
//! // reduced to [0, m) by multiply-shift. (BloomFilter's sequence adds a cubic term and puts
//! // its probes in pairs that share a cache line; docs/design.md has it.)
//! let positions = |key: u64| {
//!     let h = hash_key(&key, DEFAULT_SEED);
//!     let (a, b) = (h as u64, (h >> 64) as u64);
//!     (0..u64::from(k)).map(move |i| {
//!         let x = a.wrapping_add(i.wrapping_mul(b));
//!         ((u128::from(x) * u128::from(m)) >> 64) as u64
//!     })
//! };
//! let mut bits = BitStore::new(m)?;
//! for key in 0..n {
//!     positions(key).for_each(|p| {
//!         bits.set(p);
//!     });
//! }
//! let present = |key: u64| positions(key).all(|p| bits.get(p));
//!
//! // No false negatives, and about 1% false positives.
//! assert!((0..n).all(present));
//! let false_positives = (n..n + 10_000).filter(|&key| present(key)).count();
//! assert!(false_positives < 200, "{false_positives}");
//! // The fill tells the expected rate and the number of keys.
//! assert!(math::fpr_from_fill(bits.fill_ratio(), k) < 0.02);
//! let estimate = math::estimate_cardinality(m, k, bits.count_ones());
//! assert!((estimate - n as f64).abs() < 50.0, "{estimate}");
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
//! * `std` (on by default): what needs an operating system. Without it the crate is
//!   `#![no_std]` and needs only `alloc`; with it, and only with it, it has the streams
//!   ([`Error::Io`], [`IoError`], the [`PersistIo`] trait and the engine's `write_to` and
//!   `read_from`), the operating system's randomness ([`hash::random_seed`],
//!   [`SecretKey::random`](hash::SecretKey::random)), run-time detection of the CPU's
//!   AVX2/AVX-512 (without `std`, the vector kernels are those the build's target features
//!   allow, e.g. `-C target-cpu=native`), huge-page advice for large stores (Linux), the
//!   cache sizes the batch engine reads from sysfs (without `std`, 1 MiB L2 and 8 MiB
//!   last-level) and the standard library's float functions (without it, `libm`'s; the
//!   sizes are the same but for a rare one-block difference of a huge blocked filter:
//!   `docs/family.md`, "Without the standard library").
//!
//! Every feature only adds items. The streams are the extension trait [`PersistIo`], which
//! each filter crate implements under its own `std` feature, so a filter crate built without
//! `std` is complete whichever crate of a build turns this crate's `std` on. (The sealed
//! [`Keyed`] has a hidden stream hook with `std`; only this crate's engine and crates that
//! always have `std` implement it.)
//!
//! `rayon` and `serde` only serve the filter crates' features of the same names; neither
//! adds a documented item here.
//!
//! * `rayon` (off by default): the parallel bulk insertion behind the filter crates'
//!   `par_insert_all`, `ParallelExtend` and `FromParallelIterator`. Turns on `std`.
//! * `serde` (off by default): the (de)serialisation every filter's `serde` feature shares: a
//!   filter is the bytes of its `to_bytes`, base64 in human-readable formats. Works without
//!   `std` (serde's `alloc`).

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link the items that need `std` (streams, random seeds); without it they have no
// target, and that is expected rather than a mistake in the docs.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

extern crate alloc;

pub mod bits;
pub mod engine;
mod error;
mod filter;
pub mod format;
pub mod hash;
#[doc(hidden)]
pub mod internal;
pub mod keys;
pub mod math;
mod persist;

pub use error::Error;
#[cfg(feature = "std")]
pub use error::IoError;
pub use filter::{Filter, Keyed};
pub use persist::Persist;
#[cfg(feature = "std")]
pub use persist::PersistIo;
