//! The classic Bloom filter, and its lock-free atomic twin.
//!
//! A Bloom filter answers "is this key in the set?" with "definitely not" or "possibly",
//! in a few bits per key: about 9.6 bits for a 1% false-positive rate, 14.4 for 0.1%. It
//! never forgets a key. Put it in front of something expensive (a disk read, a database
//! round trip, a download) to skip the work for keys that are certainly absent.
//!
//! * [`BloomFilter`]: `num_bits` bits, each key setting `num_hashes` of them anywhere: the
//!   most accurate Bloom filter per bit. Single writer (`&mut self` inserts).
//! * [`AtomicBloomFilter`]: the same filter with `&self` inserts, lock-free and
//!   `Send + Sync`, for sharing between threads.
//! * [`BloomFilterRef`]: a read-only view of a filter's bytes (a memory-mapped file),
//!   queried in place without copying them; it opens in O(1).
//!
//! Both hash every key once (seeded XXH3-128, [`bloom_core::hash`]), derive all probe
//! positions from that hash, and share the workspace's binary format, [`Filter`] trait and
//! [`Error`] type.
//!
//! # Example
//!
//! ```
//! use bloom_classic::BloomFilter;
//!
//! let mut seen = BloomFilter::new(1_000_000, 0.01)?;
//! for url in ["https://a.example/", "https://b.example/", "https://a.example/"] {
//!     if seen.insert(url) {
//!         println!("probably crawled already: {url}");
//!     }
//! }
//! assert!(seen.contains("https://b.example/"));
//! let copy = BloomFilter::from_bytes(&seen.to_bytes())?;
//! assert_eq!(copy, seen);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Choosing the seed, or a key
//!
//! All filters use [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED) unless given another
//! with `with_seed`, so filters built anywhere can be merged with `union`. When keys come
//! from an adversary, or the filter's bytes are published, hash under a secret key
//! (`with_key`, `with_random_key`): SipHash-1-3 instead of seeded XXH3, so nobody without the
//! key can craft keys that share bits, find false positives offline, or test keys against
//! the bytes. The bytes keep only the key's fingerprint; `docs/security.md` has the threats
//! and the cost.
//!
//! ```
//! use bloom_classic::BloomFilter;
//! use bloom_core::Error;
//!
//! let key = *b"0123456789abcdef"; // in practice, from a secret store
//! let mut seen = BloomFilter::new(10_000, 0.01)?.with_key(key);
//! seen.insert("https://example.com/");
//! let bytes = seen.to_bytes();
//! assert_eq!(BloomFilter::from_bytes(&bytes), Err(Error::KeyRequired));
//! let loaded = BloomFilter::from_bytes_with_key(&bytes, &key)?;
//! assert!(loaded.contains("https://example.com/"));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Sizes
//!
//! As everywhere in the workspace: counts of keys and bits are `u64` (`new(expected_items:
//! u64, ..)`, `with_params(num_bits: u64, ..)`, `num_bits`, `count_ones`, `estimated_len`),
//! bytes of memory are `usize` (`memory_usage`), `num_hashes` is `u32`. A filter sized from a
//! slice takes `keys.len() as u64`, lossless on every target.
//!
//! # Crate features
//!
//! * `std` (default): the standard library, passed to `bloom-core`. Without it the crate is
//!   `#![no_std]` + `alloc` and has everything but what needs an operating system:
//!   `write_to`, `read_from` and `read_from_with_key` (streams), `with_random_seed` and
//!   `with_random_key` (its randomness), and huge pages for large arrays.
//! * `rayon`: parallel bulk build, `BloomFilter::par_insert_all`, `ParallelExtend` and
//!   `FromParallelIterator`, and `AtomicBloomFilter::par_insert_all`. Turns on `std`.
//! * `serde`: `Serialize` and `Deserialize`, as the bytes of `to_bytes`; with or without
//!   `std`.
//!
//! [`Filter`]: bloom_core::Filter
//! [`Error`]: bloom_core::Error

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link the items that need `std` (streams, random seeds); without it they have no
// target, and that is expected rather than a mistake in the docs.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]

extern crate alloc;

mod atomic;
mod bloom;
mod params;
mod view;

pub use atomic::AtomicBloomFilter;
pub use bloom::{BloomFilter, DEFAULT_FPR};
pub use bloom_core::{Error, Filter};
pub use view::BloomFilterRef;
