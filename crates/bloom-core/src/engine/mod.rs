//! The engine every fixed-size filter is made of: a [`Layout`] (where one hash's bits go)
//! over a [`Storage`] (where the bits live), written once.
//!
//! A filter is an [`Engine<L, S>`]: its layout's parameters, its hashing (a seed, or a secret
//! key) and its storage. Queries, batch queries, burst inserts, the parallel build, union and
//! intersection, fill estimates, the binary format (`to_bytes`, `from_bytes`, `write_to`,
//! `read_from`) and the keyed forms are methods of the engine, written once over the layout
//! and the storage; a filter crate supplies only its layout and names the three filters it
//! makes of it:
//!
//! ```text
//! BloomFilter        = Engine<Classic, BitStore>        owned words, `&mut self` inserts
//! AtomicBloomFilter  = Engine<Classic, AtomicBitStore>  atomic words, `&self` inserts
//! BloomFilterRef<'a> = Engine<Classic, LeBits<'a>>      a view of a filter's bytes
//! ```
//!
//! The three storages are this module's ([`BitStore`], [`AtomicBitStore`], [`LeBits`]);
//! a layout is any type that implements [`Layout`] (`docs/design.md`, "Adding a layout",
//! says what one costs). Methods that only some storages have are in impl blocks of their
//! own: inserts and set operations on owned and atomic words, `verify` and `as_bytes` on
//! views.
//!
//! # Example
//!
//! ```
//! use bloom_classic::{AtomicBloomFilter, BloomFilter, BloomFilterRef};
//!
//! let mut filter = BloomFilter::new(1_000, 0.01)?;
//! filter.insert("a");
//! let shared: AtomicBloomFilter = filter.into_atomic();
//! shared.insert("b");
//! let bytes = shared.to_bytes();
//! let view = BloomFilterRef::from_bytes(&bytes)?;
//! assert!(view.contains("a") && view.contains("b"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod atomic;
mod blocks;
mod filter;
mod layout;
mod owned;
mod owning;
#[cfg(feature = "rayon")]
mod parallel;
mod parquet;
mod storage;
mod traits;
mod view;

pub use crate::bits::{AtomicBitStore, BitStore};
pub use crate::internal::simd::Probe;
pub use filter::{DEFAULT_FPR, Engine};
pub use layout::{BlockLayout, Layout};
pub use storage::{LeBits, Storage};
pub use traits::Writable;
