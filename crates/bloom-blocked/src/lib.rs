//! Cache-line blocked Bloom filters, their lock-free twin, and Apache Parquet's split-block
//! filter.
//!
//! A classic Bloom filter spreads a key's k bits over the whole array: on a filter larger
//! than the cache, a query costs up to k cache misses. A blocked filter keeps each key's bits
//! inside one 64-byte block, so a query costs one: the filter used in front of SSTables, in
//! query engines' joins and in Parquet files.
//!
//! * [`BlockedBloomFilter`]: 512-bit (one cache line), 64-byte-aligned blocks, k bits per
//!   key (salted products of one hash, 1 <= k <= 16) with k chosen for the bits per key as a
//!   blocked filter needs, sized so the rate asked for is the rate reached; a batch query
//!   that prefetches; AVX-512, AVX2 or portable queries chosen at run time ([`Probe`]; at build time
//!   without `std`).
//! * [`AtomicBlockedBloomFilter`]: the same filter with `&self` inserts, lock-free and
//!   `Send + Sync`.
//! * [`SplitBlockBloomFilter`]: Parquet's split-block filter, bit-compatible with every
//!   Parquet implementation, with the Thrift [`ParquetHeader`] reader and writer.
//! * [`BlockedBloomFilterRef`] and [`SplitBlockBloomFilterRef`]: read-only views of the
//!   filters' bytes (a memory-mapped file), queried in place without copying them; they
//!   open in O(1).
//!
//! All share the workspace's [`Filter`] trait, [`Error`] type and binary format.
//! `docs/blocked.md` explains the choice of k, the position scheme and the storage.
//!
//! # Example
//!
//! ```
//! use bloom_blocked::BlockedBloomFilter;
//!
//! let mut filter = BlockedBloomFilter::new(1_000_000, 0.01)?;
//! let keys: Vec<u64> = (0..1_000u64).collect();
//! filter.insert_all(&keys);
//! assert!(filter.contains_batch(&keys).iter().all(|&present| present));
//! let copy = BlockedBloomFilter::from_bytes(&filter.to_bytes())?;
//! assert_eq!(copy, filter);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and bits are `u64` (`new(expected_items:
//! u64, ..)`, `SplitBlockBloomFilter::new(ndv: u64, ..)`, `num_bits`, `count_ones`,
//! `estimated_len`), bytes of memory are `usize` (`memory_usage`, the split-block filter's
//! `num_bytes` and `with_num_bytes`, [`ParquetHeader::num_bytes`], [`BITSET_MAX_BYTES`]),
//! counts of in-memory parts are `usize` (`num_blocks`), `num_hashes` is `u32`.
//!
//! # Crate features
//!
//! * `std` (default): the standard library, passed to `bloom-core`. Without it the crate is
//!   `#![no_std]` + `alloc` and has everything but what needs an operating system:
//!   `write_to` and `read_from` (and `read_from_with_key`), `with_random_seed` and
//!   `with_random_key`, huge pages for large arrays, and run-time detection of AVX2 and
//!   AVX-512: without `std` a [`Probe`] is available when the build targets its features
//!   (`-C target-cpu=native`, `-C target-feature=+avx2`), so the vector kernels need such a
//!   build.
//! * `rayon`: parallel bulk build, `BlockedBloomFilter::par_insert_all`, `ParallelExtend`,
//!   `FromParallelIterator`, and `AtomicBlockedBloomFilter::par_insert_all`. Turns on `std`.
//! * `serde`: `Serialize` and `Deserialize` for the three types, as the bytes of `to_bytes`;
//!   with or without `std`.
//!
//! [`Filter`]: bloom_core::Filter
//! [`Error`]: bloom_core::Error

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link the items that need `std` (streams, random seeds); without it they have no
// target, and that is expected rather than a mistake in the docs.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

extern crate alloc;

mod atomic;
mod blocked;
mod params;
mod probe;
mod sbbf;
mod storage;
mod thrift;
mod view;

pub use atomic::AtomicBlockedBloomFilter;
pub use blocked::{BlockedBloomFilter, DEFAULT_FPR};
pub use bloom_core::{Error, Filter};
pub use probe::{BLOCK_BITS, Probe};
pub use sbbf::SplitBlockBloomFilter;
pub use thrift::{BITSET_MAX_BYTES, BITSET_MIN_BYTES, ParquetHeader};
pub use view::{BlockedBloomFilterRef, SplitBlockBloomFilterRef};
