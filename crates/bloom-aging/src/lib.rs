//! A Bloom filter over a sliding window: it remembers the keys of the last `window`
//! inserts (or of the last span of time) and forgets older ones, in bounded memory and at a
//! bounded false-positive rate.
//!
//! Stream deduplication ("seen this event in the last hour?"), "already shown to this user
//! this week", crawl-again-after-a-while and cache admission need keys to expire. Rotating
//! two classic filters keeps keys for up to twice the window and answers from both; a
//! counting filter takes four times the memory and needs every expiring key handed back.
//! [`AgingBloomFilter`] is an age-partitioned Bloom filter (Shtul, Baquero, Almeida,
//! "Age-Partitioned Bloom Filters", arXiv 2001.03147): `k + l` slices in a ring, the newest
//! k taking each insert, the oldest cleared at every generation, in the paper's blocked
//! layout (a key's bits for all slices in one row of 128-bit blocks, read by AVX-512 or
//! AVX2 where the CPU has one). Every key within the window
//! is found; 10% of a window past it, a key answers like one never inserted (by default);
//! the false-positive rate stays at or below p at every point of the stream.
//!
//! # Example
//!
//! ```
//! use bloom_aging::AgingBloomFilter;
//!
//! // Drop events already seen among the last 100,000.
//! let mut recent = AgingBloomFilter::new(100_000, 0.001)?;
//! let events = ["login:ann", "click:bob", "login:ann"];
//! let fresh: Vec<&str> = events.into_iter().filter(|e| !recent.insert(e)).collect();
//! assert_eq!(fresh, ["login:ann", "click:bob"]);
//!
//! let copy = AgingBloomFilter::from_bytes(&recent.to_bytes())?;
//! assert_eq!(copy, recent);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Windows in time take the caller's clock (`insert_at`, `contains_at`); see
//! [`AgingBloomFilterBuilder::time_window`] and the `clickstream` example.
//!
//! # Choosing the seed, or a key
//!
//! As for every filter of the workspace: [`DEFAULT_SEED`](bloom_core::hash::DEFAULT_SEED)
//! unless given another, so filters built anywhere can be united; a secret key
//! ([`AgingBloomFilterBuilder::key`], [`AgingBloomFilter::with_key`](bloom_core::Keyed::with_key): SipHash-1-3, bytes
//! that hold only the key's fingerprint) when keys come from an adversary or the bytes are
//! published (`docs/security.md`).
//!
//! # Crate features
//!
//! * `serde`: `Serialize` and `Deserialize`, as the bytes of `to_bytes`.

mod aging;
mod params;
mod row;
mod sizing;

pub use aging::{AgingBloomFilter, AgingBloomFilterBuilder, DEFAULT_FPR};
pub use bloom_core::{Error, Filter, Persist, PersistIo};
pub use sizing::{
    BLOCK_BITS, DEFAULT_GENERATIONS, DEFAULT_SLACK_GENERATIONS, MAX_GENERATIONS, MAX_NUM_HASHES,
    MAX_SLICES, blocked_run_probability, run_probability,
};
